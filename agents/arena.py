"""Duplicate-deal tournaments on the batched core.

Protocol
--------
``entrants`` is one agent per seat (``rules.players`` of them; the same agent may
appear more than once and each copy is a separate entrant, known by its position
in the list). For every *deal* (a per-game key, see ``engine.init(keys=...)``) the
session is played once for every *rotation* of the entrants over the seats. By
default (``rotations="cyclic"``) a circular order of the entrants is drawn for the
deal and its P rotations are played, so every entrant plays every first hand from
every seat, against the same cards its rivals got, and who sits next to whom is
balanced over deals (with one fixed order, two copies of one agent are *not*
level: the one seated after the weaker player gains). ``"fixed"`` keeps the given
order for every deal; ``"all"`` plays all P! seatings of every deal. Each session is whole: hands
are scored, players reseated and the exchange played until the rules end the
session (``target_points``, or ``hands_per_session`` when given). All rotations of
all deals run as one batch on the core; a game's player -> entrant mapping is
fixed for the whole session. Agents see only :func:`~president_env.core.observe`
rows and legal masks.

Figures
-------
For each entrant and each deal, over the rotations of that deal:
points per hand (its points / hands played), President rate (hands finished
first / hands), Scum rate (hands finished last / hands) and mean finishing
position (1 = President). The deal is the independent unit: a figure is the mean
of its per-deal values and its 95% interval is ``mean +- 1.96 * sd / sqrt(deals)``
over the per-deal values, which accounts for the correlation between the
rotations of one deal. ``head_to_head[i][j]`` is the share of hands in which
entrant ``i`` finished ahead of entrant ``j``. The rating is an OpenSkill
Plackett-Luce rating updated once per session (ranked by session points), in
deal order.

Random numbers
--------------
Everything is drawn from the seed: ``SeedSequence(seed).spawn(P + 2)`` gives the deal keys, the
seatings and one sequence per entrant. An entrant that draws random numbers (``random``,
``ppo-sample:``, ``search``: any agent whose ``deterministic`` is False) draws, in each deal, from
that deal's own stream, keyed by ``draw_keys[deal, entrant]`` (the entrant's sequence's
``generate_state(deals)``) and used for that deal's sessions only. So the numbers a game sees
depend on the seed, the entrant and the deal, never on which other deals share its batch:

* agents whose only randomness is one uniform number per legal action (``uniform_draws``:
  ``random``, ``ppo-sample:``) get them in one call per step, computed for every row from its
  deal's stream at position ``step * Q + rotation`` (:func:`deal_uniforms`, a counter-based
  splitmix64 hash; as fast as one ``rng.random`` per call);
* other agents that draw (``search``, OpenSpiel bots, your own) get one
  :meth:`~agents.base.Agent.act_grouped` call a step, the rows of each deal with that deal's
  :class:`numpy.random.Generator` (:func:`deal_generator`, which lives for the deal's sessions):
  by default one ``act`` call per deal; ``search`` resamples each deal's worlds with its generator
  and rolls them all out together;
* deterministic agents are called once per step for all their rows, as before.

Same rules, entrants, seed, deals and rotations -> same figures, for any ``batch_size`` and however
the deals are split (the Ray tournament, ``training.ray_evaluate``, splits them into tasks). (Before
the per-deal streams one generator per entrant ran through the batches in order, so the figures
of random entrants depended on ``batch_size`` and differ from today's.)
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from president_env.core import OVER, Rules, current_player, init, make_keys, observe, step_inplace
from president_env.core.kernel.jit import njit

from .base import Agent
from .belief import TableHistories, wants_history
from .registry import make_agent

Z95 = 1.959963984540054


@dataclass
class EntrantStats:
    """The figures of one entrant; each ``*_ci95`` is a (low, high) 95% interval over deals."""

    agent: str
    index: int
    points_per_hand: float
    points_ci95: tuple[float, float]
    president_rate: float
    president_ci95: tuple[float, float]
    scum_rate: float
    scum_ci95: tuple[float, float]
    mean_position: float
    position_ci95: tuple[float, float]
    points_per_session: float
    hands: int
    sessions: int
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rating_ordinal: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


@dataclass
class TournamentResult:
    """Everything a tournament measured. ``entrants`` follow the order they were given in."""

    rules: Rules
    names: list[str]
    deals: int
    rotations: str
    seed: int
    seconds: float
    sessions: int
    hands: int
    decisions: int
    entrants: list[EntrantStats]
    head_to_head: np.ndarray            # (E, E) share of hands i finished ahead of j
    seat_counts: np.ndarray             # (E, P) sessions each entrant started in each seat
    per_deal_points: np.ndarray         # (deals, E) points per hand of each entrant in each deal
    extra: dict[str, Any] = field(default_factory=dict)

    def difference(self, entrant: int = 0) -> tuple[float, tuple[float, float]]:
        """``entrant``'s points a hand minus the mean of the others', per deal: the mean and its 95% interval
        over deals (the measure of the zoo's bar, docs/zoo.md)."""
        p = self.per_deal_points
        if not 0 <= entrant < p.shape[1]:
            raise ValueError(f"entrant {entrant}: the tournament has entrants 0..{p.shape[1] - 1}")
        return _ci(p[:, entrant] - np.delete(p, entrant, axis=1).mean(axis=1))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values: ``{"entrants": [...], "head_to_head": ..., ...}``."""
        diff, (low, high) = self.difference(0)
        return {
            "entrants": [e.to_dict() for e in self.entrants],
            "first_minus_others": {"meaning": "entrant 0's points a hand minus the mean of the others', per deal",
                                   "mean": diff, "ci95": [low, high]},
            "head_to_head": {
                "meaning": "share of hands the row entrant finished ahead of the column entrant",
                "entrants": [f"{i}:{n}" for i, n in enumerate(self.names)],
                "table": np.round(self.head_to_head, 6).tolist(),
            },
            "preset": self.rules.name,
            "players": self.rules.players,
            "rules": self.rules.to_dict(),
            "deals": self.deals,
            "rotations": self.rotations,
            "sessions": self.sessions,
            "hands": self.hands,
            "decisions": self.decisions,
            "seed": self.seed,
            "seconds": round(self.seconds, 3),
            "seat_counts": self.seat_counts.tolist(),
        }


ROTATIONS = ("cyclic", "fixed", "all")


def seatings(players: int, deals: int, rotations: str = "cyclic",
             rng: np.random.Generator | None = None) -> np.ndarray:
    """(deals, Q, P) entrant in each seat, for each rotation of each deal.

    ``cyclic``: the P rotations of one circular order of the entrants, a new order
    drawn for every deal (so who sits next to whom is balanced across deals and two
    copies of one agent are exchangeable). ``fixed``: the P rotations of the order
    given (entrant ``(s + q) mod P`` in seat ``s``). ``all``: every permutation (P! rows).
    """
    P = players
    base = (np.arange(P)[None, :] + np.arange(P)[:, None]) % P          # (P, P) rotation q, seat s
    if rotations == "fixed":
        return np.broadcast_to(base, (deals, P, P)).copy()
    if rotations == "cyclic":
        rng = rng if rng is not None else np.random.default_rng(0)
        order = np.zeros((deals, P), np.int64)
        order[:, 1:] = 1 + np.argsort(rng.random((deals, P - 1)), axis=1)
        return order[:, base]
    if rotations == "all":
        if players > 6:
            raise ValueError(f"rotations='all' plays {math.factorial(players)} seatings per deal; use 'cyclic' "
                             f"with {players} players")
        perms = np.array(list(itertools.permutations(range(P))), dtype=np.int64)
        return np.broadcast_to(perms, (deals, *perms.shape)).copy()
    raise ValueError(f"rotations must be one of {', '.join(ROTATIONS)}, got {rotations!r}")


def _ci(x: np.ndarray) -> tuple[float, tuple[float, float]]:
    """Mean of per-deal values and its normal 95% interval (nan-free; width 0 with one deal)."""
    m = float(x.mean())
    if len(x) < 2:
        return m, (m, m)
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, (m - h, m + h)


@dataclass
class _Tally:
    """Per-game counters, indexed by game and by player (the player's entrant is fixed per game)."""

    points: np.ndarray      # (G, P) session points
    hands: np.ndarray       # (G,)
    pres: np.ndarray        # (G, P) hands finished first
    scum: np.ndarray        # (G, P) hands finished last
    possum: np.ndarray      # (G, P) sum of finishing positions (0 = President)
    ahead: np.ndarray       # (G, P, P) hands player i finished ahead of player j
    decisions: int = 0
    over: np.ndarray | None = None   # (G,) bool: the session is finished

    @classmethod
    def zeros(cls, G: int, P: int) -> _Tally:
        z = lambda *s: np.zeros(s, np.int64)  # noqa: E731
        return cls(points=z(G, P), hands=z(G), pres=z(G, P), scum=z(G, P), possum=z(G, P), ahead=z(G, P, P),
                   over=np.zeros(G, dtype=bool))

    def take(self, games: np.ndarray) -> _Tally:
        """The counters of sessions ``games`` only."""
        return _Tally(self.points[games], self.hands[games], self.pres[games], self.scum[games],
                      self.possum[games], self.ahead[games], self.decisions, self.over[games])

    def hands_over(self, g: np.ndarray, finish: np.ndarray) -> None:
        P = finish.shape[1]
        self.hands[g] += 1
        self.pres[g] += finish == 0
        self.scum[g] += finish == P - 1
        self.possum[g] += finish
        self.ahead[g] += finish[:, :, None] < finish[:, None, :]


@dataclass
class _Caller:
    """One policy call per step: an agent, the entrants it plays for, how it gets its random numbers.

    ``draws``: ``"none"`` (a deterministic agent: one call with ``rng``, a generator it never draws
    from), ``"uniform"`` (``uniform_draws``: one :meth:`Agent.act_uniform` call, every row's numbers from
    its deal's stream, :func:`deal_uniforms`) or ``"deal"`` (one :meth:`Agent.act_grouped` call, the
    rows of each deal with that deal's generator, :func:`deal_generator`)."""

    agent: Agent
    entrants: list[int]
    rng: np.random.Generator
    draws: str = "none"


def _callers(agents: list[Agent], rngs: list[np.random.Generator]) -> list[_Caller]:
    """Entrants sharing one deterministic agent object are served by one call (a random agent: one per entrant)."""
    out: list[_Caller] = []
    shared: dict[int, _Caller] = {}
    for e, a in enumerate(agents):
        deterministic = bool(getattr(a, "deterministic", False))
        if deterministic and id(a) in shared:
            shared[id(a)].entrants.append(e)
            continue
        draws = "none" if deterministic else "uniform" if getattr(a, "uniform_draws", False) else "deal"
        caller = _Caller(a, [e], rngs[e], draws)
        shared[id(a)] = caller
        out.append(caller)
    return out


_GAMMA = np.uint64(0x9E3779B97F4A7C15)      # splitmix64's increment and mixing constants
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_ONE, _S30, _S27, _S31, _S11 = (np.uint64(k) for k in (1, 30, 27, 31, 11))


@njit(inline="always")
def _mix64(z: np.uint64) -> np.uint64:
    """splitmix64's output function (wrapping uint64 arithmetic)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit
def _uniforms_kernel(stream: np.ndarray, counter: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
    for r in range(mask.shape[0]):
        seed = _mix64(stream[r] + _GAMMA * (np.uint64(counter[r]) + _ONE))
        for a in range(mask.shape[1]):
            if mask[r, a]:
                bits = _mix64(seed + _GAMMA * (np.uint64(a) + _ONE))
                out[r, a] = (np.float64(bits >> _S11) + 0.5) * 1.1102230246251565e-16     # 2**-53


def deal_uniforms(stream: np.ndarray, counter: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, A) uniform numbers in (0, 1) at the legal actions of ``mask`` (0 elsewhere) for rows whose deal streams
    are ``stream`` (N,) uint64 at positions ``counter`` (N,) int: position ``c`` of stream ``k`` seeds a splitmix64
    sequence ``mix(k + (c+1) * gamma)``, whose output ``a + 1`` is the number of action ``a`` (its top 53 bits, plus
    half a step). A number depends on (stream, position, action) only, never on the other rows of the batch."""
    out = np.zeros(mask.shape)
    _uniforms_kernel(np.ascontiguousarray(stream, dtype=np.uint64), np.ascontiguousarray(counter, dtype=np.int64),
                     np.ascontiguousarray(mask, dtype=np.bool_), out)
    return out


def deal_generator(stream: np.uint64 | int) -> np.random.Generator:
    """The generator of one entrant in one deal, from its stream key (``draw_keys[deal, entrant]``)."""
    return np.random.default_rng(int(stream))


def _play_chunk(rules: Rules, keys: np.ndarray, gidx: np.ndarray, ent_of_player: np.ndarray,
                callers: list[_Caller], tally: _Tally, bar: Any, draw_keys: np.ndarray, Q: int) -> None:
    """Play the sessions ``gidx`` (keys per game, entrant of each player) to the end, counting into ``tally``.

    Session ``g`` is rotation ``g % Q`` of deal ``g // Q``; ``draw_keys[g // Q, e]`` is entrant ``e``'s random
    stream in that deal. Every session starts at step 0 and makes one decision a step, so step ``t`` is its
    decision ``t`` whatever else is in the batch: a row of a ``"uniform"`` caller takes position ``t * Q + q`` of
    its deal's stream, and the rows of one deal reach a ``"deal"`` caller in the same groups in any batch."""
    E = ent_of_player.shape[1]
    st = init(rules, keys=keys)
    done = np.zeros(len(gidx), dtype=bool)
    lut = np.full((len(callers), E), False)
    for i, cl in enumerate(callers):
        lut[i, cl.entrants] = True
    gens: list[dict[int, np.random.Generator]] = [{} for _ in callers]
    # a search dealing from a weighted belief is handed each row's view of the hand's plays
    wants = [wants_history(cl.agent) for cl in callers]
    histories = TableHistories(rules, len(gidx)) if any(wants) else None
    t = 0
    while True:
        B = len(gidx)
        cur = current_player(st)
        ent = ent_of_player[np.arange(B), cur]
        obs = observe(rules, st, cur)
        actions = np.zeros(B, dtype=np.int64)
        live = ~done
        for i, cl in enumerate(callers):
            idx = np.flatnonzero(live & lut[i][ent])
            if not idx.size:
                continue
            if cl.draws == "none":
                actions[idx] = cl.agent.act(obs[idx], st.legal[idx], cl.rng)
                continue
            deal, e = gidx[idx] // Q, cl.entrants[0]
            if cl.draws == "uniform":
                mask = st.legal[idx]
                u = deal_uniforms(draw_keys[deal, e], t * Q + gidx[idx] % Q, mask)
                actions[idx] = cl.agent.act_uniform(obs[idx], mask, u)
                continue
            starts = np.flatnonzero(np.r_[True, deal[1:] != deal[:-1]])   # rows are in session order: deal order
            rngs = []
            for d in deal[starts].tolist():
                gen = gens[i].get(d)
                if gen is None:
                    gen = gens[i][d] = deal_generator(draw_keys[d, e])
                rngs.append(gen)
            if histories is not None and wants[i]:   # each row's view of the plays, the groups as act_grouped takes
                hist = histories.views(idx, cur[idx])
                actions[idx] = cl.agent.act_grouped_with_history(obs[idx], st.legal[idx], rngs,
                                                                 np.r_[starts, idx.size], hist)
                continue
            actions[idx] = cl.agent.act_grouped(obs[idx], st.legal[idx], rngs, np.r_[starts, idx.size])
        t += 1
        tally.decisions += int(live.sum())
        if histories is not None:
            histories.record(st, actions, where=live)
        step_inplace(rules, st, actions)
        ho = np.flatnonzero(st.hand_over)
        if ho.size:
            tally.hands_over(gidx[ho], st.last_finish[ho].astype(np.int64))
        newly = (st.phase == OVER) & ~done
        if newly.any():
            nd = np.flatnonzero(newly)
            tally.points[gidx[nd]] = st.points[nd]
            tally.over[gidx[nd]] = True
            done |= newly
            if bar is not None:
                bar.update(int(nd.size))
        if done.all():
            return
        if done.sum() >= max(1, B // 8):           # drop finished sessions from the batch
            keep = np.flatnonzero(~done)
            st = st.take(keep)
            gidx, ent_of_player, done = gidx[keep], ent_of_player[keep], done[keep]
            if histories is not None:
                histories.keep(keep)


def run_tournament(
    rules: Rules,
    entrants: Sequence[str | Agent],
    deals: int,
    seed: int = 0,
    *,
    rotations: str = "cyclic",
    hands_per_session: int | None = None,
    batch_size: int = 20000,
    progress: bool = False,
    rating: bool = True,
    desc: str | None = None,
) -> TournamentResult:
    """Play a duplicate-deal tournament and return its figures (see the module docstring).

    ``entrants`` are agent specs (``"greedy"``, ``"ppo:model.zip"``) or :class:`Agent`
    objects, one per seat. ``deals`` deals are each played once per rotation.
    ``hands_per_session`` replaces the rules' session end by a fixed number of hands.
    ``batch_size`` caps the games stepped together (whole deals per batch). ``desc`` names
    the progress bar (default: the preset and the number of players).
    """
    rules, names, keys, draw_keys, callers, game_ent, Q, per_batch = prepare_tournament(
        rules, entrants, deals, seed, rotations, hands_per_session, batch_size)
    P = rules.players
    bar = None
    if progress:
        from tqdm import tqdm
        warm_up(rules)   # compile or load the engine first, each step with its line: the bar's rate is play only
        bar = tqdm(total=deals * Q, unit="session", desc=desc or f"{rules.name} x{P}", leave=False,
                   bar_format=BAR_FORMAT)
    t0 = time.perf_counter()
    tally = _Tally.zeros(game_ent.shape[0], P)
    try:
        play_deals(rules, keys, game_ent, callers, per_batch, bar, draw_keys, tally)
    except KeyboardInterrupt:     # Ctrl-C: the figures of the deals whose every session finished
        if bar is not None:
            bar.close()
        finished = np.flatnonzero(tally.over.reshape(deals, Q).all(axis=1))
        partial = None
        if finished.size:
            games = (finished[:, None] * Q + np.arange(Q)).reshape(-1)
            partial = _summarise(rules, names, int(finished.size), rotations, seed, time.perf_counter() - t0,
                                 game_ent[games], Q, tally.take(games), rating)
        raise TournamentInterrupted(partial, int(finished.size), deals) from None
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    return _summarise(rules, names, deals, rotations, seed, seconds, game_ent, Q, tally, rating)


BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
"""The tournament's bar: the sessions done and the time spent, and the time left only once a whole batch of deals
is done (the sessions of a batch end near its end, together, so tqdm's estimate from them is wrong until then)."""


def warm_up(rules: Rules) -> None:
    """Deal, observe and step one game of ``rules``, so that the engine is compiled (or loaded from numba's cache)
    now, with its progress lines, and not inside a progress bar."""
    st = init(rules, batch_size=1, seed=0)
    observe(rules, st, current_player(st))
    step_inplace(rules, st, np.array([int(np.flatnonzero(st.legal[0])[0])]))


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during a tournament: ``result`` holds the figures of the ``finished`` deals (every rotation of each
    played to its end) of the ``deals`` asked for, None when none had finished."""

    def __init__(self, result: TournamentResult | None, finished: int, deals: int) -> None:
        super().__init__(f"interrupted after {finished:,} of {deals:,} deals")
        self.result, self.finished, self.deals = result, finished, deals


def play_deals(rules: Rules, keys: np.ndarray, game_ent: np.ndarray, callers: list[_Caller], per_batch: int,
               bar: Any = None, draw_keys: np.ndarray | None = None,
               tally: _Tally | None = None) -> tuple[_Tally, list[_Caller]]:
    """Play ``keys``' deals (``game_ent``: the entrant of each player of each of their sessions, deal-major;
    ``draw_keys``: the entrants' random streams in each deal, (deals, P) uint64) in batches of ``per_batch``
    deals; return the tally and the callers after play (a Ray task's answer too)."""
    Q = game_ent.shape[0] // len(keys)
    if draw_keys is None:
        if any(cl.draws != "none" for cl in callers):
            raise ValueError("entrants that draw random numbers need draw_keys, their streams in each deal")
        draw_keys = np.zeros((len(keys), game_ent.shape[1]), np.uint64)
    tally = tally if tally is not None else _Tally.zeros(game_ent.shape[0], rules.players)
    for d0 in range(0, len(keys), per_batch):
        d1 = min(len(keys), d0 + per_batch)
        gidx = np.arange(d0 * Q, d1 * Q)
        _play_chunk(rules, np.repeat(keys[d0:d1], Q), gidx, game_ent[gidx], callers, tally, bar, draw_keys, Q)
        if bar is not None and d1 < len(keys):   # a whole batch done: now the time left can be estimated
            left = bar.format_dict["elapsed"] * (len(keys) - d1) / d1
            bar.set_postfix_str(f"about {bar.format_interval(left)} left", refresh=True)
    return tally, callers


def prepare_tournament(rules: Rules, entrants: Sequence[str | Agent], deals: int, seed: int, rotations: str,
                       hands_per_session: int | None, batch_size: int
                       ) -> tuple[Rules, list[str], np.ndarray, np.ndarray, list[_Caller], np.ndarray, int, int]:
    """Check a tournament's arguments and draw what it plays from the seed: (rules, entrant names, deal keys,
    the entrants' random streams in each deal (deals, P) uint64, callers, entrant of each player of each session
    (G, P), sessions per deal Q, deals per batch). Shared by :func:`run_tournament` and the Ray tournament, so
    both play the same deals with the same random numbers."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules object, got {type(rules).__name__}")
    if hands_per_session is not None:
        if isinstance(hands_per_session, bool) or not isinstance(hands_per_session, int) or hands_per_session < 1:
            raise ValueError(f"hands_per_session must be a positive integer, got {hands_per_session!r}")
        rules = rules.replace(hands_per_session=hands_per_session)
    P = rules.players
    if len(entrants) != P:
        raise ValueError(f"{len(entrants)} entrants given for {P} players: give one agent per seat")
    if isinstance(deals, bool) or not isinstance(deals, int | np.integer) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    built: dict[str, Agent] = {}
    agents: list[Agent] = []
    for e in entrants:
        if isinstance(e, Agent):
            # (an agent of the same rules with another session length plays the same: hands_per_session)
            same = e.rules == rules or (hands_per_session is not None
                                        and e.rules.replace(hands_per_session=hands_per_session) == rules)
            if not same:
                raise ValueError(f"agent {e.name} was built for other rules than the tournament's")
            agents.append(e)
            continue
        a = built.get(e) or make_agent(e, rules)
        if a.deterministic:               # a copy that draws nothing can share one object
            built[e] = a
        agents.append(a)
    names = [e if isinstance(e, str) else e.name for e in entrants]
    key_seq, seat_seq, *agent_seqs = np.random.SeedSequence(seed).spawn(P + 2)
    keys = make_keys(deals, np.random.default_rng(key_seq))
    callers = _callers(agents, [np.random.default_rng(s) for s in agent_seqs])
    draw_keys = np.stack([s.generate_state(deals, np.uint64) for s in agent_seqs], axis=1)
    seats = seatings(P, deals, rotations, np.random.default_rng(seat_seq))
    Q = seats.shape[1]
    return rules, names, keys, draw_keys, callers, seats.reshape(deals * Q, P), Q, max(1, batch_size // Q)


def _summarise(rules: Rules, names: list[str], deals: int, rotations: str, seed: int, seconds: float,
               game_ent: np.ndarray, Q: int, tally: _Tally, rating: bool) -> TournamentResult:
    G, P = game_ent.shape
    E = P
    rows = np.arange(G)[:, None]

    def by_ent(a: np.ndarray) -> np.ndarray:
        out = np.zeros_like(a)
        out[rows, game_ent] = a
        return out

    hands = tally.hands
    points_e = by_ent(tally.points)
    deal_hands = hands.reshape(deals, Q).sum(axis=1)[:, None]

    def per_deal(a: np.ndarray) -> np.ndarray:
        return by_ent(a).reshape(deals, Q, E).sum(axis=1) / deal_hands

    ppd = per_deal(tally.points)
    pres_d, scum_d, pos_d = per_deal(tally.pres), per_deal(tally.scum), per_deal(tally.possum) + 1.0
    seat_counts = np.zeros((E, P), np.int64)
    for s in range(P):
        np.add.at(seat_counts[:, s], game_ent[:, s], 1)
    total_hands = int(hands.sum())
    ahead_e = np.zeros((E, E), np.int64)
    for i in range(P):
        for j in range(P):
            np.add.at(ahead_e, (game_ent[:, i], game_ent[:, j]), tally.ahead[:, i, j])
    stats = entrant_stats(names, ppd, pres_d, scum_d, pos_d, points_e.sum(axis=0) / G, total_hands, G)
    if rating:
        _rate(stats, points_e)
    return TournamentResult(
        rules=rules, names=names, deals=deals, rotations=rotations, seed=seed, seconds=seconds, sessions=G,
        hands=total_hands, decisions=tally.decisions, entrants=stats, head_to_head=ahead_e / max(total_hands, 1),
        seat_counts=seat_counts, per_deal_points=ppd,
    )


def entrant_stats(names: list[str], ppd: np.ndarray, pres_d: np.ndarray, scum_d: np.ndarray, pos_d: np.ndarray,
                  per_session: np.ndarray, hands: int, sessions: int) -> list[EntrantStats]:
    """Each entrant's figures from per-deal arrays (deals, E): points a hand, President and Scum rates, mean
    place (1 = President), each with its 95% interval over deals; ``per_session`` (E,) points a session."""
    stats = []
    for e in range(len(names)):
        pm, pci = _ci(ppd[:, e])
        prm, prci = _ci(pres_d[:, e])
        sm, sci = _ci(scum_d[:, e])
        mm, mci = _ci(pos_d[:, e])
        stats.append(EntrantStats(
            agent=names[e], index=e, points_per_hand=pm, points_ci95=pci, president_rate=prm, president_ci95=prci,
            scum_rate=sm, scum_ci95=sci, mean_position=mm, position_ci95=mci,
            points_per_session=float(per_session[e]), hands=hands, sessions=sessions,
        ))
    return stats


def _rate(stats: list[EntrantStats], session_points: np.ndarray) -> None:
    """OpenSkill Plackett-Luce ratings, one update per session ranked by its points (skipped if not installed)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # pragma: no cover - openskill is a dependency of the [train] extra
        return
    model = PlackettLuce()
    ratings = [model.rating(name=f"{s.index}:{s.agent}") for s in stats]
    for row in session_points:
        teams = model.rate([[r] for r in ratings], scores=[float(x) for x in row])
        ratings = [t[0] for t in teams]
    for s, r in zip(stats, ratings, strict=True):
        s.rating_mu = float(r.mu)
        s.rating_sigma = float(r.sigma)
        s.rating_ordinal = float(r.ordinal())
