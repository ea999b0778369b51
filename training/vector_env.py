"""A Gymnasium ``VectorEnv`` of B games of President: the learner's seat against opponents, batched.

.. code-block:: python

    import numpy as np
    from training.vector_env import make_vec

    envs = make_vec("president", num_envs=64, opponents="heuristic")
    obs, infos = envs.reset(seed=0)                      # sub-env i seeded with 0 + i
    rng = np.random.default_rng(0)
    for _ in range(100):
        mask = infos["action_mask"]                      # (64, A) bool, also envs.action_masks()
        actions = np.argmax(mask * rng.random(mask.shape), axis=1)
        obs, rewards, terminated, truncated, infos = envs.step(actions)

This is ``gymnasium.vector.VectorEnv`` (Gymnasium 1.x) for CleanRL-style loops,
TorchRL and the like; :class:`training.vec_env.PresidentVecEnv` is the
stable-baselines3 one. Both drive the same machinery: B games in one batched core
state, the learner's actions played at once, then the opponents' moves batch by
batch (one policy call per batch) until every game is at the learner's turn again
(this module's engine *is* a ``PresidentVecEnv``, used through its opponent and
advance methods, not its SB3 API).

Why it lives in ``training`` and not in ``president_env``: the machinery it reuses
(opponent policies, opponent pools, the batched advance) is in
``training.vec_env``, and agent specs (``opponents="heuristic"``) come from
``agents``; the import direction is core -> env -> agents -> training ->
interfaces, so ``president_env`` cannot import either. The import path is
``training.vector_env`` (``PresidentVectorEnv`` and ``make_vec``); it needs the
``train`` extra (stable-baselines3 for the shared base class).

The contract (Gymnasium 1.x, ``metadata["autoreset_mode"]`` is
``AutoresetMode.NEXT_STEP``, Gymnasium's default):

* spaces: ``single_observation_space`` the learner's observation ``Box`` (as in
  :mod:`president_env.aec_env`), ``single_action_space`` ``Discrete(A)``;
  ``observation_space`` ``Box`` (B, D) and ``action_space`` ``MultiDiscrete([A] * B)``
  (``gymnasium.vector.utils.batch_space`` of them);
* ``step(actions)`` returns observations (B, D) float32, rewards (B,) float64,
  ``terminated`` (B,) bool (the session, or the hand with ``episode="hand"``, is
  over), ``truncated`` (B,) bool (always False: a game always ends), ``infos``;
* next-step autoreset: the step that ends sub-env i's game returns its final
  observation with ``terminated[i]`` True; on the next ``step`` its action is
  ignored, a new game starts and that step returns the new game's first
  observation, reward 0 and ``terminated[i]`` False;
* ``infos["action_mask"]`` (B, A) bool is the learner's legal actions (also
  ``action_masks()``); in a finished game (awaiting its reset) the row allows
  action 0 only, so that masked samplers stay finite, and any in-range action is
  accepted there (it is ignored); ``infos["learner"]`` (B,) the player the learner
  holds. Each key has its ``_key`` (B,) bool companion, as Gymnasium's vector envs do;
* rewards: the learner's own hand rewards (``reward="points"`` or ``"rank"``),
  summed over the hands that ended since its last decision; those earned before its
  first decision of a game (rare) are added to its first step.

Bad input: actions of the wrong shape, not integers, out of range, or illegal
raise ``IllegalActionError`` naming the sub-env, the action and the legal ones;
nothing is clamped. An opponent policy's illegal action raises it too, naming the
game and the player; an opponent policy that raises is ``training.vec_env.OpponentError``
naming the opponent and the sub-envs. Either stops the env until ``reset()`` (its games
are left between moves, so a later ``step`` raises rather than play the learner in an
opponent's seat). A ``num_envs`` that would outgrow the machine's memory is refused at
construction with the estimate.

Seeding: ``reset(seed=s)`` seeds sub-env i with ``s + i``; a list of B seeds (ints
or None) seeds each sub-env itself. Sub-env i's deals and learner seats depend on
its seed only: its k-th game has the k-th key of ``numpy.random.default_rng(seed_i)``
(``core.make_keys``), and its learner is ``player_{k % players}`` (``learner="rotate"``)
counted from its last seeded reset, as in :class:`training.gym_env.PresidentGymEnv`.
So with deterministic opponents (``greedy``, ``heuristic``, a trained agent played
deterministically) sub-env i plays the same game as ``PresidentGymEnv`` reset with
``seed_i`` (and as Gymnasium's ``SyncVectorEnv`` over it), for the same actions. The
opponents' random draws come from one generator for the batch, seeded from the seeds
(unseeded when they are all None), so the whole vector replays for the same seeds and
actions. ``reset()`` without a seed continues each sub-env's generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from president_env.aec_env import hand_rewards, render_text
from president_env.core import EXCHANGE, OVER, IllegalActionError, Rules, describe_action, init, make_keys, step_inplace
from president_env.core import observation as O
from training.vec_env import PresidentVecEnv

__all__ = ["PresidentVectorEnv", "make_vec"]


class _Games(PresidentVecEnv):
    """The SB3 VecEnv's batched games, opponents and advance, driven game by game by :class:`PresidentVectorEnv`.

    Only :meth:`start`, :meth:`advance` and the state are used; the SB3 API (``reset``, ``step_wait``) is not.
    """

    def start(self, idx: np.ndarray, keys: np.ndarray, learners: np.ndarray, opp_rng: np.random.Generator) -> None:
        """New games with ``keys`` in sub-envs ``idx`` (all of them when there is no state yet), learners set."""
        self._opp_rng = opp_rng
        new = init(self.rules, keys=keys, start_ranks=self.start_ranks)
        if idx.size == self.num_envs:
            self._stopped = None          # every game starts again: an opponent's earlier failure is behind
        if self._state is None:
            self._state, self._learner = new, learners.astype(np.int64)
            self._assign = np.zeros((self.num_envs, self.rules.players - 1), dtype=np.int64)
        else:
            self._state.put(idx, new)
            self._learner[idx] = learners
        self._assign_opponents(idx)

    def advance(self, idx: np.ndarray) -> np.ndarray:
        """Opponents play in games ``idx`` until the learner is to act; the learner's rewards meanwhile, (B,)."""
        return self._advance(idx)


def _as_opponent(spec: Any, rules: Rules) -> Any:
    """An agent spec (``"heuristic"``, ``"zoo:president"``) as an agent; anything else as given."""
    if isinstance(spec, str):
        from agents.registry import make_agent

        return make_agent(spec, rules)
    return spec


class PresidentVectorEnv(gymnasium.vector.VectorEnv):
    """B games of President, one learner per game, as a Gymnasium vector env. See the module doc."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        num_envs: int = 64,
        preset: str | Rules = "president",
        *,
        opponents: Any = None,
        learner: str | int = "rotate",
        episode: str = "session",
        start_ranks: str | None = None,
        reward: str = "points",
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        from president_env.aec_env import check_arguments, env_arguments, make_rules

        check_arguments("make_vec", env_arguments(PresidentVectorEnv.__init__), rule_overrides)
        rules = make_rules(preset, episode, **rule_overrides)
        if isinstance(opponents, (list, tuple)):
            opponents = [_as_opponent(p, rules) for p in opponents]
        else:
            opponents = _as_opponent(opponents, rules)
        self._games = _Games(num_envs, rules, opponents=opponents, learner=learner, start_ranks=start_ranks,
                             reward=reward)
        self.rules = rules
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.single_observation_space = self._games.observation_space
        self.single_action_space = gymnasium.spaces.Discrete(self._games.action_space.n)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        B = num_envs
        self._key_rngs: list[np.random.Generator | None] = [None] * B
        self._opp_rng: np.random.Generator | None = None
        self._episodes = np.zeros(B, dtype=np.int64)
        self._pending = np.zeros(B, dtype=np.float64)
        self._autoreset = np.zeros(B, dtype=bool)

    # ------------------------------------------------------------------ games
    def _next_games(self, idx: np.ndarray) -> None:
        """Start the next game of each sub-env in ``idx`` (its next key, its next learner)."""
        keys = np.array([make_keys(1, self._key_rngs[i])[0] for i in idx], dtype=np.uint64)
        fixed = self._games._fixed_learner
        learners = (np.full(idx.size, fixed, dtype=np.int64) if fixed is not None
                    else self._episodes[idx] % self.rules.players)
        self._episodes[idx] += 1
        self._games.start(idx, keys, learners, self._opp_rng)

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        B = self.num_envs
        if seed is None:
            return [None] * B
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds: list[Any] = [int(seed) + i for i in range(B)]
        elif isinstance(seed, (list, tuple)):
            if len(seed) != B:
                raise ValueError(f"reset: a list of seeds needs one per sub-env ({B}), got {len(seed)}")
            seeds = list(seed)
        else:
            raise TypeError(f"reset: seed must be an int, a list of {B} ints (or None) or None, got {seed!r}")
        for i, s in enumerate(seeds):
            if s is not None and (isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0):
                raise ValueError(f"reset: the seed of sub-env {i} must be a non-negative int or None, got {s!r}")
        return [None if s is None else int(s) for s in seeds]

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        st = self._games._state
        obs = O.observe(self.rules, st, self._games._learner)
        B = self.num_envs
        infos = {"action_mask": self.action_masks(), "_action_mask": np.ones(B, dtype=bool),
                 "learner": self._games.learners, "_learner": np.ones(B, dtype=bool)}
        return obs, infos

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new game in every sub-env (``seed``: see the module doc); the first observations and infos."""
        if options:
            raise ValueError(f"PresidentVectorEnv.reset takes no options, got {sorted(options)}")
        seeds = self._seeds(seed)
        super().reset(seed=seeds[0] if isinstance(seed, (int, np.integer)) else None)   # np_random: the int seed
        for i, s in enumerate(seeds):
            if s is not None or self._key_rngs[i] is None:
                self._key_rngs[i] = np.random.default_rng(s)
            if s is not None:
                self._episodes[i] = 0
        given = [s for s in seeds if s is not None]
        if given:
            self._opp_rng = np.random.default_rng([1, *given])
        elif self._opp_rng is None:
            self._opp_rng = np.random.default_rng()
        B = self.num_envs
        all_games = np.arange(B)
        self._next_games(all_games)
        self._pending = self._games.advance(all_games).astype(np.float64)
        self._autoreset[:] = False
        return self._observe()

    def _check_actions(self, actions: Any, stepping: np.ndarray) -> np.ndarray:
        """The (B,) int64 actions, or ``IllegalActionError`` naming the sub-env and the action."""
        B, A = self.num_envs, self.single_action_space.n
        a = np.asarray(actions)
        if a.shape != (B,):
            raise IllegalActionError(f"expected {B} actions, one per sub-env, got shape {a.shape}")
        if a.dtype.kind not in "iu":
            raise IllegalActionError(f"actions must be integers, got dtype {a.dtype}")
        bad = (a < 0) | (a >= A)
        if bad.any():
            i = int(np.argmax(bad))
            raise IllegalActionError(f"sub-env {i}: action {a[i]} is out of range 0..{A - 1}")
        a = a.astype(np.int64)
        st = self._games._state
        ok = st.legal[np.arange(B), a] | ~stepping
        if not ok.all():
            i = int(np.argmin(ok))
            ex = int(st.phase[i]) == EXCHANGE
            legal = np.flatnonzero(st.legal[i]).tolist()
            words = {j: describe_action(self.rules, j, exchange=ex) for j in legal}
            raise IllegalActionError(
                f"sub-env {i}: illegal action {a[i]} ({describe_action(self.rules, int(a[i]), exchange=ex)}) "
                f"for the learner (player_{int(self._games._learner[i])}); legal: {words}")
        return a

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's B actions, then the opponents'; next-step autoreset (see the module doc)."""
        g = self._games
        if g._state is None:
            raise RuntimeError("step() called before reset()")
        g.check_running()     # an opponent's failure stopped the games between moves: reset() first
        st, B = g._state, self.num_envs
        resetting = self._autoreset.copy()
        stepping = ~resetting & (st.phase != OVER)
        a = self._check_actions(actions, stepping)
        rewards = np.where(resetting, 0.0, self._pending)
        self._pending[~resetting] = 0.0
        if stepping.any():
            step_inplace(self.rules, st, a, where=None if stepping.all() else stepping)
            if st.hand_over.any():
                rewards += hand_rewards(self.rules, st, g.reward_scheme)[np.arange(B), g._learner]
        if resetting.any():
            self._next_games(np.flatnonzero(resetting))
        gained = g.advance(np.arange(B)).astype(np.float64)
        rewards += np.where(resetting, 0.0, gained)
        self._pending[resetting] = gained[resetting]
        terminated = (st.phase == OVER) & ~resetting
        self._autoreset = terminated.copy()
        obs, infos = self._observe()
        return obs, rewards, terminated, np.zeros(B, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """(B, A) bool: the learner's legal actions in every sub-env (a finished game's row: action 0 only)."""
        st = self._games._state
        if st is None:
            raise RuntimeError("action_masks() called before reset()")
        mask = st.legal.copy()
        over = st.phase == OVER
        if over.any():
            mask[over] = False
            mask[over, 0] = True
        return mask

    @property
    def learners(self) -> np.ndarray:
        """(B,) the player the learner holds in each sub-env now."""
        return self._games.learners

    def render(self) -> tuple[str, ...] | None:
        """With ``render_mode="ansi"``: every sub-env as text, from its learner's side."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        st, learner = self._games._state, self._games._learner
        return tuple(render_text(self.rules, st, i, viewer=int(learner[i])) for i in range(self.num_envs))


def make_vec(preset: str | Rules = "president", num_envs: int = 64, **kwargs: Any) -> PresidentVectorEnv:
    """A :class:`PresidentVectorEnv` of ``num_envs`` games of ``preset`` (keywords: the env's options and rules)."""
    return PresidentVectorEnv(num_envs, preset, **kwargs)
