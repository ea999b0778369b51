"""The batched policy interface every agent implements.

An agent is built for one :class:`~president_env.core.Rules` object and acts on a
*batch* of decisions at once::

    agent = make_agent("heuristic", rules)
    actions = agent.act(obs, mask, rng)   # (N, D) float32, (N, A) bool, Generator -> (N,) int64

``obs`` rows come from :func:`president_env.core.observe` (what the player to act
sees, nothing more) and ``mask`` rows are the legal-action masks of the same
decisions. The AEC env calls it with a batch of one, the batched core and the
VecEnv with many. All randomness comes from the explicit ``rng`` so that the
same seed gives the same play.

:func:`decode` turns observation rows back into named integer arrays (own hand,
cards played, the play on top, ...) for the scripted agents.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from president_env.core import Rules, RulesError, n_actions, tables
from president_env.core import observation as O


@dataclass(frozen=True)
class ObsView:
    """Observation rows decoded into named arrays (N rows; seats are relative, 0 = the observer)."""

    hand: np.ndarray           # (N, K) int: own cards per kind
    played: np.ndarray         # (N, K) int: cards played this hand per kind
    top_rank: np.ndarray       # (N,) int: play rank on top, -1 when nothing is on top
    top_size: np.ndarray       # (N,) int: size of the play on top, 0 when nothing is on top
    top_owner: np.ndarray      # (N,) int: relative seat of the top's owner, -1 when nothing is on top
    top_wild: np.ndarray       # (N,) bool
    top_count: np.ndarray      # (N,) int
    leading: np.ndarray        # (N,) bool: observer to act with nothing on top
    my_turn: np.ndarray        # (N,) bool
    card_counts: np.ndarray    # (N, P) int: cards held by relative seat
    passed: np.ndarray         # (N, P) bool
    finished: np.ndarray       # (N, P) int: finishing position this hand, -1 still playing
    social: np.ndarray         # (N, P) int: last hand's position, -1 none
    points: np.ndarray         # (N, P) int: session points
    revolution: np.ndarray     # (N,) bool
    direction: np.ndarray      # (N,) int: +1 normal, -1 reversed
    phase: np.ndarray          # (N,) int: 0 exchange, 1 play, 2 session over
    exch_given: np.ndarray     # (N, K) int
    exch_received: np.ndarray  # (N, K) int
    # pieces that only some rules have (zeros when the rules leave them out)
    single_row: np.ndarray     # (N,) int: revolution_by_singles: singles of the top's rank in a row this trick
    trading: np.ndarray        # (N,) bool: merchant_trade: this exchange decision is a merchant trade
    trade_pick: np.ndarray     # (N, K) int: merchant_trade: own pick, not yet moved
    exposed: np.ndarray        # (N, P) int: hand_assignment expose: kind shown on each seat's pile, -1 none
    claiming: np.ndarray       # (N,) bool: quick_clear: asked whether to claim a quick clear


def decode(rules: Rules, obs: np.ndarray) -> ObsView:
    """Decode (N, D) observation rows of ``rules`` into an :class:`ObsView`."""
    sl = O.slices(rules)

    def ints(name: str) -> np.ndarray:
        return np.rint(obs[:, sl[name]]).astype(np.int64)

    def flag(name: str) -> np.ndarray:
        return obs[:, sl[name].start] > 0.5

    def onehot(name: str, none: int) -> np.ndarray:
        piece = obs[:, sl[name]]
        return np.where(piece.any(axis=1), np.argmax(piece, axis=1), none).astype(np.int64)

    R = tables(rules).n_play_ranks
    top_rank = onehot("top_rank", -1)
    top_rank[top_rank == R] = -1
    top_size = onehot("top_size", -1) + 1
    N = obs.shape[0]
    single_row = (np.rint(obs[:, sl["single_row"].start]).astype(np.int64) if "single_row" in sl
                  else np.zeros(N, dtype=np.int64))
    trading = flag("trading") if "trading" in sl else np.zeros(N, dtype=bool)
    K, P = tables(rules).n_kinds, rules.players
    trade_pick = ints("trade_pick") if "trade_pick" in sl else np.zeros((N, K), dtype=np.int64)
    if "exposed" in sl:
        shown = obs[:, sl["exposed"]].reshape(N, P, K)
        exposed = np.where(shown.any(axis=2), np.argmax(shown, axis=2), -1).astype(np.int64)
    else:
        exposed = np.full((N, P), -1, dtype=np.int64)
    return ObsView(
        hand=ints("hand"), played=ints("played"), top_rank=top_rank, top_size=top_size,
        top_owner=onehot("top_owner", -1), top_wild=flag("top_wild"),
        top_count=np.rint(obs[:, sl["top_count"].start]).astype(np.int64),
        leading=flag("leading"), my_turn=flag("my_turn"), card_counts=ints("card_counts"),
        passed=obs[:, sl["passed"]] > 0.5, finished=ints("finished") - 1, social=ints("social") - 1,
        points=ints("points"), revolution=flag("revolution"),
        direction=np.rint(obs[:, sl["direction"].start]).astype(np.int64),
        phase=onehot("phase", 2), exch_given=ints("exch_given"), exch_received=ints("exch_received"),
        single_row=single_row, trading=trading, trade_pick=trade_pick, exposed=exposed,
        claiming=flag("claiming") if "claiming" in sl else np.zeros(N, dtype=bool),
    )


class Agent(ABC):
    """A batched policy for one rules object.

    Subclasses implement :meth:`_act`; :meth:`act` checks the batch first. Agents
    keep no per-game memory: everything they use is in the observation, so one
    agent object can serve any number of games in any order.
    """

    #: short name used in tables and on the command line
    name: str = "agent"
    #: the agent never draws from ``rng`` (same observation and mask -> same action)
    deterministic: bool = False
    #: the agent's only randomness is one uniform number per legal action of a row: it implements
    #: :meth:`_act_uniform`, so a tournament can hand every row numbers from that row's own deal
    #: (:meth:`act_uniform`, one vectorised call) instead of calling :meth:`act` once per deal
    uniform_draws: bool = False

    def __init__(self, rules: Rules) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"an agent is built for a Rules object, got {type(rules).__name__}")
        self.rules = rules
        self.obs_size = O.size(rules)
        self.n_actions = n_actions(rules)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Choose one legal action per row: (N, D) observations, (N, A) masks -> (N,) int64 ids."""
        obs, mask = self.check_batch(obs, mask)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        actions = np.asarray(self._act(obs, mask, rng), dtype=np.int64)
        return actions

    __call__ = act

    def act_grouped(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator],
                    bounds: np.ndarray) -> np.ndarray:
        """:meth:`act` on rows in groups, each with its own generator: rows ``bounds[k]:bounds[k + 1]`` draw from
        ``rngs[k]`` only, and get what :meth:`act` gives them alone with ``rngs[k]`` (a tournament's rows of
        different deals). ``bounds`` (G + 1,) runs from 0 to N. One :meth:`act` call per group unless a subclass
        does better (:meth:`_act_grouped`, e.g. ``search``: the worlds of each group, the rollouts together)."""
        obs, mask = self.check_batch(obs, mask)
        bounds = np.asarray(bounds, dtype=np.int64)
        if bounds.ndim != 1 or len(bounds) != len(rngs) + 1 or bounds[0] != 0 or bounds[-1] != obs.shape[0] or (
                np.diff(bounds) < 0).any():
            raise ValueError(f"{self.name}: bounds must run from 0 to {obs.shape[0]}, one group per generator "
                             f"({len(rngs)}), got {bounds.tolist()}")
        if not all(isinstance(g, np.random.Generator) for g in rngs):
            raise TypeError("rngs must be numpy.random.Generator objects")
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self._act_grouped(obs, mask, rngs, bounds), dtype=np.int64)

    def act_uniform(self, obs: np.ndarray, mask: np.ndarray, u: np.ndarray) -> np.ndarray:
        """:meth:`act` with the random numbers given: ``u`` (N, A) holds a uniform number in (0, 1) for every
        legal action of every row (other entries are ignored). Only for agents with ``uniform_draws``."""
        if not self.uniform_draws:
            raise TypeError(f"{self.name} does not act on given uniform numbers (uniform_draws is False)")
        obs, mask = self.check_batch(obs, mask)
        u = np.asarray(u, dtype=np.float64)
        if u.shape != mask.shape:
            raise ValueError(f"{self.name}: the uniform numbers must have the masks' shape {mask.shape}, got {u.shape}")
        if obs.shape[0] == 0:
            return np.zeros(0, dtype=np.int64)
        return np.asarray(self._act_uniform(obs, mask, u), dtype=np.int64)

    @abstractmethod
    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The policy on a checked, non-empty batch."""

    def _act_uniform(self, obs: np.ndarray, mask: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The policy on a checked, non-empty batch, drawing only from ``u`` (agents with ``uniform_draws``)."""
        raise NotImplementedError

    def _act_grouped(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator],
                     bounds: np.ndarray) -> np.ndarray:
        """The policy on checked groups of rows (see :meth:`act_grouped`): one :meth:`_act` call per group."""
        out = np.zeros(obs.shape[0], dtype=np.int64)
        for k, rng in enumerate(rngs):
            a, b = int(bounds[k]), int(bounds[k + 1])
            if b > a:
                out[a:b] = self._act(obs[a:b], mask[a:b], rng)
        return out

    def check_batch(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Validate shapes and dtypes; raise ``ValueError`` naming what is wrong."""
        obs = np.asarray(obs)
        mask = np.asarray(mask)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(
                f"{self.name}: observations must have shape (N, {self.obs_size}) for these rules, got {obs.shape}"
            )
        if mask.ndim != 2 or mask.shape != (obs.shape[0], self.n_actions):
            raise ValueError(
                f"{self.name}: masks must have shape ({obs.shape[0]}, {self.n_actions}) to match the observations, "
                f"got {mask.shape}"
            )
        if mask.dtype != bool:
            raise ValueError(f"{self.name}: masks must be boolean, got dtype {mask.dtype}")
        empty = ~mask.any(axis=1)
        if empty.any():
            raise ValueError(f"{self.name}: row {int(np.argmax(empty))} of the mask has no legal action")
        return obs.astype(np.float32, copy=False), mask

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.name!r})"


class PolicyError(ValueError):
    """A policy network that cannot choose an action (its logits are not finite numbers)."""


class PolicyAgent(Agent):
    """An agent that acts by a saved policy network's action logits (an agent file or an SB3 model).

    Subclasses load the network and implement :meth:`logits`. ``deterministic`` takes the most
    likely legal action; otherwise one is sampled from the masked softmax (Gumbel-max with the
    agent's generator, so a seed fixes the choice).
    """

    name = "ppo"
    uniform_draws = True

    def __init__(self, path: str | Path, rules: Rules, deterministic: bool = True, name: str | None = None) -> None:
        super().__init__(rules)
        self.path = Path(path)
        self.deterministic = deterministic
        if name:
            self.name = name

    @abstractmethod
    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, A) action logits of the policy (before masking)."""

    def _finite_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.asarray(self.logits(obs, mask), dtype=np.float64).copy()
        broken = ~np.isfinite(np.where(mask, z, 0.0)).all(axis=1)
        if broken.any():   # an overflowing network: no legal action can be told from another, nor chosen
            raise PolicyError(f"{self.name}: the network gave a non-finite logit (NaN or infinity) to a legal action "
                              f"in row {int(np.argmax(broken))} of the batch; its weights overflow, so it cannot play")
        return z

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        z = self._finite_logits(obs, mask)
        if not self.deterministic:
            z = z + rng.gumbel(size=z.shape)
        z[~mask] = -np.inf
        return np.argmax(z, axis=1)

    def _act_uniform(self, obs: np.ndarray, mask: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Sampling with the given numbers: Gumbel-max with ``-log(-log(u))`` (the most likely action when
        ``deterministic``)."""
        z = self._finite_logits(obs, mask)
        if not self.deterministic:
            z = z - np.log(-np.log(np.where(mask, u, 0.5)))
        z[~mask] = -np.inf
        return np.argmax(z, axis=1)


SESSION_LENGTH = ("name", "target_points", "hands_per_session")  # options an agent file need not match


def rules_mismatch(path: str | Path, meta: dict[str, Any], rules: Rules, saved: str) -> str | None:
    """Why the file ``path``'s stored rules (``meta["rules"]``) do not fit ``rules``; ``None`` when they do.

    ``saved`` names the kind of file in the message ("agent file", "model"). The length of a
    session (``target_points``, ``hands_per_session``) may differ: it changes no observation
    and no legal move, so an agent trained on whole sessions plays a session of any length.
    """
    try:
        stored = Rules.from_dict(meta["rules"])
    except (RulesError, TypeError, KeyError) as e:
        return f"{path}: the rules stored in the {saved} are not valid ({e})"
    if stored == rules:
        return None
    mine, theirs = rules.to_dict(), stored.to_dict()
    diff = [f"{k}: {saved} {theirs[k]!r}, game {mine[k]!r}" for k in mine
            if k not in SESSION_LENGTH and mine[k] != theirs[k]]
    if not diff:
        return None
    return (f"{path} was made for other rules (preset {stored.name!r}) than this game (preset {rules.name!r}); "
            f"differing options: {'; '.join(diff)}")
