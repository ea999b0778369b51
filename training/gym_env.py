"""A single-agent Gymnasium environment: one learner against opponent policies.

.. code-block:: python

    from sb3_contrib import MaskablePPO
    from training.gym_env import PresidentGymEnv

    env = PresidentGymEnv("president", players=4)          # random opponents
    model = MaskablePPO("MlpPolicy", env, n_steps=256).learn(2_000)

The game is the PettingZoo environment (:class:`president_env.raw_env`), so the
options, the observation vector, the rewards and the seeding are the same (see
:mod:`president_env.aec_env`). Here:

* the observation is the learner's flat float32 vector (the AEC env's
  ``observation`` entry); ``action_masks()`` returns its legal actions as a
  bool vector, as sb3-contrib's ``MaskablePPO`` expects;
* ``step(action)`` plays the learner's action, then every opponent decision
  until the learner is to act again or the session (``episode="hand"``: the
  hand) is over; the reward is the sum of the learner's own hand rewards of
  the hands that ended in between (the learner's, never another player's);
* opponents are policies ``policy(obs, mask, rng) -> action`` on one game
  (``obs`` (D,) float32, ``mask`` (A,) bool, ``rng`` a ``numpy.random.Generator``);
  random legal actions by default. One callable plays every opponent; a list of
  ``players - 1`` callables gives one to each opponent, the k-th playing the
  player ``k + 1`` places after the learner in player numbering;
* an illegal action raises ``IllegalActionError`` (``illegal_action="raise"``, the
  default, as in the AEC env); ``illegal_action="terminate"`` ends the episode with
  ``illegal_reward`` instead (for unmasked algorithms and for the Gymnasium and SB3
  env checkers, which step random unmasked actions);
* ``learner="rotate"`` (default) makes the learner ``player_{e % players}`` in
  episode ``e`` (counted from the last seeded reset), so it sits in every seat
  and rank in turn; an int fixes it.

``reset(seed=s)`` gives the same game as ``president_env.env()`` reset with ``s``
and as game 0 of ``training.vec_env.PresidentVecEnv`` seeded with ``s``, for the
same actions. Opponents draw their random numbers from the env's ``np_random``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from president_env.aec_env import check_arguments, env_arguments, raw_env, render_text
from president_env.core import Rules

Policy = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]

__all__ = ["PresidentGymEnv", "random_policy", "Policy"]


def random_policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(legal.size)])


def fixed_learner(learner: str | int, players: int) -> int | None:
    """The learner option: ``"rotate"`` (None) or a fixed player number, checked."""
    if learner != "rotate" and not (isinstance(learner, int) and 0 <= learner < players):
        raise ValueError(f"learner must be 'rotate' or a player 0..{players - 1}, got {learner!r}")
    return None if learner == "rotate" else int(learner)


class PresidentGymEnv(gymnasium.Env):
    """One learner against opponent policies, on one game of President. See the module doc."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        preset: str | Rules = "president",
        *,
        opponents: Policy | Sequence[Policy] | None = None,
        learner: str | int = "rotate",
        episode: str = "session",
        start_ranks: str | list[int] | None = None,
        reward: str = "points",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        if illegal_action not in ("raise", "terminate"):
            raise ValueError(f"illegal_action must be 'raise' or 'terminate', got {illegal_action!r}")
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        check_arguments("PresidentGymEnv", env_arguments(PresidentGymEnv.__init__), rule_overrides)
        self.game = raw_env(preset, episode=episode, start_ranks=start_ranks, reward=reward, **rule_overrides)
        self.rules = self.game.rules
        P = self.rules.players
        self._fixed_learner = fixed_learner(learner, P)
        if opponents is None:
            opponents = random_policy
        if callable(opponents):
            self.opponents: list[Policy] = [opponents] * (P - 1)
        else:
            self.opponents = list(opponents)
            if len(self.opponents) != P - 1 or not all(callable(p) for p in self.opponents):
                raise ValueError(f"opponents must be one callable or a list of {P - 1} callables")
        self.render_mode = render_mode
        self.observation_space = self.game.observation_space("player_0")["observation"]
        self.action_space = self.game.action_space("player_0")
        self._episode = 0
        self.learner = 0
        self._pending = 0.0
        self._hand_info: dict[str, int] = {}
        self._ended_illegal = False

    @property
    def learner_agent(self) -> str:
        return self.game.possible_agents[self.learner]

    def _play_opponents(self) -> float:
        """Opponents act until the learner is to act or the session is over; the learner's rewards meanwhile."""
        g, me, P = self.game, self.learner_agent, self.rules.players
        total = 0.0
        while not g.terminations[me] and g.agent_selection != me:
            agent = g.agent_selection
            o = g.observe(agent)
            k = (g.possible_agents.index(agent) - self.learner - 1) % P
            g.step(self.opponents[k](o["observation"], o["action_mask"].astype(bool), self.np_random))
            total += self._took_step()
        return total

    def _took_step(self) -> float:
        """The learner's reward from the game's last step; note the hand it ended, if any."""
        g = self.game
        me = self.learner_agent
        if g.core_state.hand_over[0]:
            self._hand_info = dict(g.infos[me])
        return g.rewards[me]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        P = self.rules.players
        self.learner = self._fixed_learner if self._fixed_learner is not None else self._episode % P
        self._episode += 1
        self.game.reset(seed=seed, options=options)
        self._ended_illegal = False
        self._pending = self._play_opponents()  # (rare) rewards before the learner's first decision
        if self.render_mode == "human":
            self.render()
        return self.game.observe(self.learner_agent)["observation"], {"learner": self.learner}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        g, me = self.game, self.learner_agent
        if g.terminations[me] or self._ended_illegal:
            raise RuntimeError("step() called after the episode ended; call reset()")
        if self.illegal_action == "terminate" and not self._is_legal(action):
            self._ended_illegal = True
            obs = g.observe(me)["observation"]
            return obs, self.illegal_reward, True, False, {"learner": self.learner, "illegal_action": action}
        self._hand_info = {}
        g.step(action)
        reward = self._pending + self._took_step()
        self._pending = 0.0
        reward += self._play_opponents()
        terminated = bool(g.terminations[me])
        info: dict[str, Any] = {"learner": self.learner, **self._hand_info}
        if self.render_mode == "human":
            self.render()
        return g.observe(me)["observation"], float(reward), terminated, False, info

    def _is_legal(self, action: Any) -> bool:
        try:
            a = operator.index(action)
        except TypeError:
            return False
        mask = self.game.core_state.legal[0]
        return 0 <= a < mask.size and bool(mask[a])

    def action_masks(self) -> np.ndarray:
        """(A,) bool: the learner's legal actions now (all False once the episode is over)."""
        st = self.game.core_state
        if st.phase[0] == 2 or self.game.agent_selection != self.learner_agent:
            return np.zeros(st.legal.shape[1], dtype=bool)
        return st.legal[0].copy()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi' or 'human'")
            return None
        text = render_text(self.rules, self.game.core_state, 0, viewer=self.learner)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text
