"""A stable-baselines3 ``VecEnv`` of B games of President, built directly on the batched core.

.. code-block:: python

    from sb3_contrib import MaskablePPO
    from training.vec_env import PresidentVecEnv

    venv = PresidentVecEnv(1024, "president", players=4, seed=0)   # random opponents
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=4096).learn(200_000)

The B games live in one batched core state (not B copies of the AEC env). In
each game the learner holds one player; ``step(actions)`` plays the learner's B
actions at once, then the opponents' moves for all games that are not at the
learner's turn, batch by batch (one call of the opponent policy per batch),
until every game is at the learner's turn again or its session is over.

The SB3 contract: observations ``(B, D)`` float32 (the learner's vector, as in
:mod:`president_env.aec_env`), rewards ``(B,)`` float32, dones ``(B,)`` bool,
infos a list of B dicts; a finished game is reset at once, its last
observation in ``infos[i]["terminal_observation"]`` (and
``"TimeLimit.truncated": False``). ``action_masks()`` returns the ``(B, A)`` bool
legal mask (also reachable as ``env_method("action_masks")``, which is how
``MaskablePPO`` asks for it).

Rewards: the learner's own hand rewards (``reward="points"`` or ``"rank"``, see
:mod:`president_env.aec_env`), summed over the hands that ended since its last
decision; rewards earned before its first decision of an episode (possible
only in rare cases) are added to its first step.

Opponents: a batched policy ``policy(obs (N, D), mask (N, A) bool, rng) ->
actions (N,)`` (NumPy: :func:`random_policy` is the default), or a frozen SB3
model (anything with ``predict``; sb3-contrib's maskable models get the masks),
or a list of ``players - 1`` of these: the k-th plays the player ``k + 1``
places after the learner in player numbering, or an opponent pool (anything with
``policies``, a list of agents or policies, and ``sample(n, rng)``, giving each new
game's ``(n, players - 1)`` member indices: see :mod:`training.opponent_pool`),
so that every game draws its own opponents. An opponent's illegal action raises
``IllegalActionError`` naming the game and the player; an opponent that raises is
:class:`OpponentError` naming it and the sub-envs it played. Either stops the env (its
games are left between moves): every later ``step`` raises until ``reset()``.
A ``num_envs`` whose games would need more memory than the machine has is refused at
construction, with the estimate (:func:`bytes_per_game`).

Learner and seeding: with ``learner="rotate"`` game i's learner is player
``(i + e) % players`` in its e-th episode; an int fixes it. Game i's key is
``core.make_keys(B, seed)[i]`` and later episodes draw keys from the same
generator, so game 0 plays the same game as ``president_env.env()`` and
``training.gym_env.PresidentGymEnv`` reset with the same seed (for the same
actions). ``seed(s)`` (SB3's API) takes effect at the next ``reset()``.
Opponents draw random numbers from a generator seeded from the seed too.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

from president_env.aec_env import (
    REWARD_SCHEMES,
    check_arguments,
    env_arguments,
    hand_rewards,
    make_rules,
    observation_box,
    render_text,
)
from president_env.core import OVER, IllegalActionError, Rules, init, make_keys, n_actions, step_inplace
from president_env.core import observation as O
from president_env.core.memory import check_fits
from training.gym_env import fixed_learner


class OpponentError(RuntimeError):
    """An opponent policy failed inside ``step``: the message names the opponent and the sub-envs."""


class _Legal:
    """Just the ``legal`` mask, for :meth:`PresidentVecEnv._check_opponent_actions`."""

    def __init__(self, legal: np.ndarray) -> None:
        self.legal = legal


BatchedPolicy = Callable[[np.ndarray, np.ndarray, np.random.Generator], np.ndarray]

__all__ = ["PresidentVecEnv", "random_policy", "sb3_policy", "BatchedPolicy", "OpponentError", "bytes_per_game"]


def random_policy(obs: np.ndarray | None, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action in every row of ``mask`` (it never reads ``obs``)."""
    return np.argmax(mask * rng.random(mask.shape), axis=1)


random_policy.observes = False  # type: ignore[attr-defined]


def sb3_policy(model: Any, deterministic: bool = False) -> BatchedPolicy:
    """A frozen SB3 model as a batched policy (masks passed when ``predict`` takes ``action_masks``)."""
    masked = "action_masks" in inspect.signature(model.predict).parameters

    def policy(obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if masked:
            actions, _ = model.predict(obs, deterministic=deterministic, action_masks=mask)
        else:
            actions, _ = model.predict(obs, deterministic=deterministic)
        return np.asarray(actions).reshape(-1)

    return policy


def bytes_per_game(rules: Rules) -> int:
    """About the memory one game of the batch takes while it steps: its state, the learner's and the
    opponents' observations and masks, and the copies a step makes of them."""
    st = init(rules, keys=np.zeros(1, dtype=np.uint64))
    state = st.b8.nbytes + st.b16.nbytes + st.b32.nbytes + st.key_buf.nbytes
    return 4 * state + 4 * O.size(rules) * 4 + 4 * n_actions(rules)


def _as_policy(p: Any) -> BatchedPolicy:
    if hasattr(p, "act") and callable(p.act):  # an agents.Agent
        return p.act
    if hasattr(p, "predict"):
        return sb3_policy(p)
    if callable(p):
        return p
    raise TypeError(f"an opponent must be a batched policy (callable) or an SB3 model, got {p!r}")


class PresidentVecEnv(VecEnv):
    """B games, one learner per game, opponents batched inside ``step``. See the module doc."""

    def __init__(
        self,
        num_envs: int = 1024,
        preset: str | Rules = "president",
        *,
        opponents: Any = None,
        learner: str | int = "rotate",
        episode: str = "session",
        start_ranks: str | None = None,
        reward: str = "points",
        seed: int | None = None,
        render_mode: str | None = None,
        **rule_overrides: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if start_ranks not in (None, "random"):
            raise ValueError(f"start_ranks must be None or 'random', got {start_ranks!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        check_arguments("PresidentVecEnv", env_arguments(PresidentVecEnv.__init__), rule_overrides,
                        reset_args=("options",))
        self.rules = make_rules(preset, episode, **rule_overrides)
        check_fits(f"num_envs={num_envs:,} games of {self.rules.name}", num_envs * bytes_per_game(self.rules))
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        P = self.rules.players
        self._fixed_learner = fixed_learner(learner, P)
        if opponents is None:
            opponents = random_policy
        self._pool = opponents if hasattr(opponents, "sample") and hasattr(opponents, "policies") else None
        if self._pool is not None:
            self.opponents = []  # read from the pool at every move: it grows during training
        elif isinstance(opponents, (list, tuple)):
            if len(opponents) != P - 1:
                raise ValueError(f"opponents must be one policy or a list of {P - 1} policies, got {len(opponents)}")
            self.opponents = [_as_policy(p) for p in opponents]
        else:
            self.opponents = [_as_policy(opponents)]
        self.episode, self.reward_scheme, self.start_ranks = episode, reward, start_ranks
        self.render_mode = render_mode
        self._base_seed = seed
        super().__init__(num_envs, observation_box(self.rules), gymnasium.spaces.Discrete(n_actions(self.rules)))
        self._state = None
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ games
    def _seed_generators(self, seed: int | None) -> None:
        self._key_rng = np.random.default_rng(seed)
        self._opp_rng = np.random.default_rng(None if seed is None else [int(seed), 1])

    def _new_games(self, n: int) -> Any:
        return init(self.rules, keys=make_keys(n, self._key_rng), start_ranks=self.start_ranks)

    def _assign_opponents(self, games: np.ndarray) -> None:
        """Pool mode: draw each new game's opponents (one pool member per opponent seat)."""
        if self._pool is not None:
            self._assign[games] = self._pool.sample(games.size, self._opp_rng)

    def _advance(self, idx: np.ndarray) -> np.ndarray:
        """Play the opponents in games ``idx`` until the learner is to act or the session is over.

        Returns the learner's rewards earned meanwhile, (B,) by game (zero outside ``idx``). An opponent that
        raises (or returns a bad action) stops the env: its games are left between moves, so every later step
        raises :class:`OpponentError` until ``reset()``.
        """
        self.check_running()
        try:
            return self._advance_games(idx)
        except Exception as e:
            self._stopped = str(e)
            raise

    def check_running(self) -> None:
        """Raise :class:`OpponentError` when an opponent's failure stopped the env (until ``reset()``)."""
        stopped = getattr(self, "_stopped", None)
        if stopped:
            raise OpponentError(f"the env stopped at an opponent's error and must be reset: {stopped}")

    def _advance_games(self, idx: np.ndarray) -> np.ndarray:
        st, rules = self._state, self.rules
        gained = np.zeros(self.num_envs, dtype=np.float32)
        while True:
            cur = st.seat_player[idx, st.current[idx]].astype(np.int64)
            need = (cur != self._learner[idx]) & (st.phase[idx] != OVER)
            idx, cur = idx[need], cur[need]
            if idx.size == 0:
                break
            mask = st.legal[idx]
            obs = O.observe(rules, st.take(idx), cur) if self._opponents_observe() else None
            acts = self._opponent_actions(idx, cur, obs, mask)
            self._check_opponent_actions(_Legal(mask), idx, cur, acts)
            full = np.zeros(self.num_envs, dtype=np.int64)
            full[idx] = acts
            where = None
            if idx.size < self.num_envs:
                where = np.zeros(self.num_envs, dtype=bool)
                where[idx] = True
            step_inplace(rules, st, full, where=where)  # one masked call: no sub-batch copies
            if st.hand_over.any():
                r = hand_rewards(rules, st, self.reward_scheme)
                gained += r[np.arange(self.num_envs), self._learner]
        return gained

    def _opponents_observe(self) -> bool:
        """False when every opponent ignores observations (``observes = False``): skip building them."""
        policies = self._pool.policies if self._pool is not None else self.opponents
        return any(getattr(p, "observes", True) for p in policies)

    def _opponent_actions(self, idx: np.ndarray, cur: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The opponents' actions in games ``idx`` (players ``cur``): one policy call per policy."""
        if self._pool is None and len(self.opponents) == 1:
            return self._call_opponent(0, self.opponents[0], idx, cur, obs, mask)
        slot = (cur - self._learner[idx] - 1) % self.rules.players
        if self._pool is not None:
            policies = [_as_policy(p) for p in self._pool.policies]
            which = self._assign[idx, slot]
        else:
            policies, which = self.opponents, slot
        acts = np.zeros(idx.size, dtype=np.int64)
        for k, pol in enumerate(policies):
            rows = np.flatnonzero(which == k)
            if rows.size:
                acts[rows] = self._call_opponent(k, pol, idx[rows], cur[rows], None if obs is None else obs[rows],
                                                 mask[rows])
        return acts

    def _call_opponent(self, k: int, policy: BatchedPolicy, idx: np.ndarray, cur: np.ndarray, obs: np.ndarray | None,
                       mask: np.ndarray) -> np.ndarray:
        """Opponent ``k``'s actions in games ``idx``; its exception becomes :class:`OpponentError` naming it and
        the sub-envs it was playing."""
        try:
            return np.asarray(policy(obs, mask, self._opp_rng)).reshape(-1)
        except Exception as e:
            name = getattr(policy, "__self__", policy)
            name = getattr(name, "name", None) or getattr(name, "__name__", None) or type(name).__name__
            games = ", ".join(map(str, idx[:8].tolist())) + (", ..." if idx.size > 8 else "")
            raise OpponentError(f"opponent {k} ({name}), playing player_{int(cur[0])} in sub-env(s) {games}, "
                                f"raised {type(e).__name__}: {e}") from e

    def _check_opponent_actions(self, sub: Any, idx: np.ndarray, cur: np.ndarray, acts: np.ndarray) -> None:
        """Name the VecEnv game and the opponent when a policy returns a bad action."""
        A = sub.legal.shape[1]
        if acts.shape != (idx.size,) or acts.dtype.kind not in "iu":
            raise IllegalActionError(
                f"an opponent policy must return {idx.size} integer actions, got shape {acts.shape} dtype {acts.dtype}"
            )
        ok = (acts >= 0) & (acts < A)
        ok[ok] = sub.legal[np.flatnonzero(ok), acts[ok]]
        if not ok.all():
            j = int(np.argmin(ok))
            raise IllegalActionError(
                f"game {int(idx[j])}: the opponent policy playing player_{int(cur[j])} chose illegal action "
                f"{int(acts[j])}; legal: {np.flatnonzero(sub.legal[j]).tolist()}"
            )

    def _observe(self) -> np.ndarray:
        return O.observe(self.rules, self._state, self._learner)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        if any(self._options):
            self._reset_options()
            raise ValueError("PresidentVecEnv.reset takes no options (set_options is not supported)")
        self._stopped = None
        seed = self._seeds[0] if self._seeds[0] is not None else self._base_seed
        self._base_seed = None
        self._seed_generators(seed)
        self._reset_seeds()
        B = self.num_envs
        self._episodes = np.zeros(B, dtype=np.int64)
        self._learner = self._learner_of(np.arange(B))
        self._state = self._new_games(B)
        self._assign = np.zeros((B, self.rules.players - 1), dtype=np.int64)
        self._assign_opponents(np.arange(B))
        self._pending = self._advance(np.arange(B))
        self.reset_infos = [{} for _ in range(B)]
        return self._observe()

    def _learner_of(self, games: np.ndarray) -> np.ndarray:
        if self._fixed_learner is not None:
            return np.full(games.size, self._fixed_learner, dtype=np.int64)
        return (games + self._episodes[games]) % self.rules.players

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._state is None:
            raise RuntimeError("step() called before reset()")
        self.check_running()
        B = self.num_envs
        a = np.asarray(self._actions).reshape(-1)
        if a.shape != (B,):
            raise ValueError(f"expected {B} actions, one per game, got shape {np.shape(self._actions)}")
        st = self._state
        step_inplace(self.rules, st, a.astype(np.int64) if a.dtype.kind in "iu" else a)
        rewards = self._pending
        if st.hand_over.any():
            rewards = rewards + hand_rewards(self.rules, st, self.reward_scheme)[np.arange(B), self._learner]
        rewards = rewards + self._advance(np.arange(B))
        self._pending = np.zeros(B, dtype=np.float32)
        dones = st.phase == OVER
        infos: list[dict[str, Any]] = [{} for _ in range(B)]
        if dones.any():
            idx = np.flatnonzero(dones)
            terminal = O.observe(self.rules, st.take(idx), self._learner[idx])
            for j, i in enumerate(idx):
                infos[i]["terminal_observation"] = terminal[j]
                infos[i]["TimeLimit.truncated"] = False
            self._episodes[idx] += 1
            self._learner[idx] = self._learner_of(idx)
            st.put(idx, self._new_games(idx.size))
            self._assign_opponents(idx)
            self._pending += self._advance(idx)
        return self._observe(), rewards.astype(np.float32), dones, infos

    @property
    def learners(self) -> np.ndarray:
        """(B,) the player the learner holds in each game now."""
        return self._learner.copy()

    def action_masks(self) -> np.ndarray:
        """(B, A) bool: the learner's legal actions in every game."""
        return self._state.legal.copy()

    def close(self) -> None:
        pass

    def render(self, mode: str | None = None) -> str | None:
        """Game 0 as text, from its learner's side."""
        mode = mode or self.render_mode
        text = render_text(self.rules, self._state, 0, viewer=int(self._learner[0]))
        if mode == "human":
            print(text + "\n")
            return None
        return text

    def _indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """An attribute of this VecEnv (shared by all games), once per index."""
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of this VecEnv: it is shared by all games, so only all indices are accepted."""
        if len(set(self._indices(indices))) != self.num_envs:
            raise ValueError("set_attr: the games share one environment object; set attributes for all indices")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """``action_masks`` gives one row per game; other methods are called on this VecEnv once per index."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self._state.legal[idx])
        out = getattr(self, method_name)(*method_args, **method_kwargs)
        return [out] * len(idx)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset()``: game i then gets key ``make_keys(B, seed)[i]``."""
        return super().seed(seed)

