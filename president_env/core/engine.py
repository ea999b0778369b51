"""The rules engine: the compiled rules of :mod:`president_env.core.kernel` behind the core's API.

``init`` deals B sessions, ``step`` applies one action per game, ``legal_action_mask`` reads the
``(B, A)`` mask. A session runs through hands on its own: the end of a hand scores it, reseats,
deals the next hand and plays its forced exchange, so a caller only ever supplies decisions
(give-backs and plays). Every deal is derived from the game's 64-bit key and the hand number by a
counter-based hash, so a game plays the same whether it is stepped alone or in any batch, and a
batch of one (:class:`~president_env.core.scalar.ScalarGame`) is stepped by the same code.

The rules are one implementation, compiled with numba the first time a process uses them (about a
minute, with a progress line) and loaded from numba's cache afterwards (:mod:`.kernel.jit`);
``set_threads(n)`` shares a batch's games out over ``n`` threads (numba's ``prange``).
"""

from __future__ import annotations

import numpy as np

from .actions import describe_action
from .kernel import fields as F
from .kernel.consts import consts
from .kernel.deal import SALT_DEALER, SALT_RANKS, SALT_SEATS
from .kernel.jit import compile_for
from .kernel.step import LEGAL, START, STEP
from .rules import Rules
from .state import EXCHANGE, OVER, PLAY, State


class IllegalActionError(ValueError):
    """An action that is not legal in its game (or a malformed batch of actions)."""


# --------------------------------------------------------------------------- hashing (NumPy, for init)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64, copy=True)
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def _hash(key: np.ndarray, *words: np.ndarray | int) -> np.ndarray:
    h = _mix(np.asarray(key, dtype=np.uint64))
    for w in words:
        h = _mix(h ^ (np.asarray(w).astype(np.uint64) * _GOLD))
    return h


def make_keys(batch_size: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """B per-game keys from a seed or a ``numpy.random.Generator``."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, np.iinfo(np.int64).max, size=batch_size, dtype=np.int64).astype(np.uint64)


_FAMILY = ("ranks", "card-level plays", "poker hands")


def _run(rules: Rules, st: State, table: tuple, *args):
    """Call the family's entry point of ``table`` (kernel.step.STEP, START or LEGAL) on ``st``."""
    c = consts(rules)
    return table[c.family](st.b8, st.b16, st.b32, st.key_buf, c.opt, c.tab, *args, c.workspace())


def _compile(rules: Rules, st: State, entry=None) -> None:
    """Compile (or load from the cache) the family's deal and step, or ``entry``, with a progress line
    (``refresh_legal``'s entry point compiles on its first use: few callers need it)."""
    c = consts(rules)
    base = (st.b8, st.b16, st.b32, st.key_buf, c.opt, c.tab)
    step_args = (np.zeros(1, np.int64), np.ones(1, np.bool_))
    what = _FAMILY[c.family]
    work = (c.workspace(),)
    if entry is not None:
        compile_for(entry, base + step_args + work, what + ", threads")
        return
    compile_for(START[c.family], base + (False,) + work, what + ", deal")
    compile_for(STEP[c.family], base + step_args + work, what + ", step")


# --------------------------------------------------------------------------- init
def init(
    rules: Rules,
    batch_size: int = 1,
    seed: int | np.random.Generator | None = None,
    *,
    keys: np.ndarray | None = None,
    start_ranks: str | np.ndarray | None = None,
    dealer: int | np.ndarray | None = None,
    deal: np.ndarray | None = None,
    seat_player: np.ndarray | None = None,
    hand_no: int | np.ndarray = 0,
    exposed: np.ndarray | None = None,
) -> State:
    """Start B sessions and deal their first hand.

    ``keys`` (B,) uint64 fixes each game's randomness directly (otherwise drawn from
    ``seed``); ``start_ranks`` is ``"random"`` or a (B,P) array of last-hand
    finishing positions by player, so the first hand is played with an exchange;
    ``dealer`` fixes the first dealer's seat; ``deal`` (B,P,C) bool gives each
    *player's* cards instead of shuffling; ``seat_player`` (B,P) seats the players
    (default: player i in seat i, or by rank when reseating from ``start_ranks``).
    ``exposed`` (B,P) gives, with ``deal`` under ``hand_assignment expose``, the card index
    each *player*'s pile showed face up (-1 none); without ``deal`` the deal exposes them.
    """
    c = consts(rules)
    lay = c.layout
    if keys is None:
        keys = make_keys(batch_size, seed)
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    B, P, C = keys.shape[0], lay.P, lay.C
    d = 1 if rules.direction == "clockwise" else -1
    st = State.empty(lay, B, direction=d)
    st.key_buf[:] = keys
    st.hand_no[:] = hand_no
    st.seat_player[:] = np.arange(P)
    ranks_by_player = None
    if isinstance(start_ranks, str):
        if start_ranks != "random":
            raise ValueError(f"start_ranks must be None, 'random' or an array, got {start_ranks!r}")
        noise = _hash(keys[:, None], SALT_RANKS, np.arange(P)[None, :])
        ranks_by_player = np.argsort(np.argsort(noise, axis=1), axis=1)
    elif start_ranks is not None:
        ranks_by_player = np.broadcast_to(np.asarray(start_ranks), (B, P))
        if not (np.sort(ranks_by_player, axis=1) == np.arange(P)).all():
            raise ValueError(f"start_ranks must be a permutation of 0..{P - 1} per game")
    if ranks_by_player is not None:
        st.last_finish[:] = ranks_by_player
        if rules.reseat and seat_player is None:
            seats = np.zeros((B, P), np.int8)
            seats[:, (np.arange(P) * d) % P] = np.argsort(ranks_by_player, axis=1)
            st.seat_player[:] = seats
    k = rules.random_seats_every
    if k and seat_player is None:         # random_seats_every: seats drawn as kernel.hand.draw_seats draws them
        hn = np.broadcast_to(np.asarray(hand_no, dtype=np.int64), (B,))
        noise = _hash(keys[:, None], SALT_SEATS, hn[:, None], np.arange(P)[None, :])
        drawn = hn % k == 0
        st.seat_player[drawn] = np.argsort(noise, axis=1, kind="stable")[drawn]
    if seat_player is not None:
        sp = np.broadcast_to(np.asarray(seat_player), (B, P))
        if not (np.sort(sp, axis=1) == np.arange(P)).all():
            raise ValueError(f"seat_player must be a permutation of 0..{P - 1} per game")
        st.seat_player[:] = sp
    if ranks_by_player is not None:
        st.social[:] = np.take_along_axis(ranks_by_player, st.seat_player.astype(np.int64), axis=1)
    if dealer is None:
        if ranks_by_player is not None:
            st.dealer[:] = np.argmax(st.social == P - 1, axis=1)
        else:
            st.dealer[:] = (_hash(keys, SALT_DEALER) % np.uint64(P)).astype(np.int8)
    else:
        st.dealer[:] = dealer
        if ((st.dealer < 0) | (st.dealer >= P)).any():
            raise ValueError(f"dealer must be a seat 0..{P - 1}, got {dealer!r}")
    dealt = deal is not None
    if dealt:
        deal = np.asarray(deal, dtype=bool)
        if deal.shape != (B, P, C):
            raise ValueError(f"deal must have shape {(B, P, C)} (batch, player, card), got {deal.shape}")
        if not (deal.sum(axis=1) == 1).all():
            raise ValueError("deal is not a split of the pack: every card must be held by exactly one player")
        st.hands[:] = np.take_along_axis(deal, st.seat_player.astype(np.int64)[:, :, None], axis=1)
    if exposed is not None:
        if not dealt:
            raise ValueError("exposed is given with deal= (a dealt hand exposes its own cards)")
        ex = np.broadcast_to(np.asarray(exposed, dtype=np.int64), (B, P))
        if ((ex < -1) | (ex >= C)).any():
            raise ValueError(f"exposed must hold card indices 0..{C - 1} or -1, got {ex.tolist()}")
        held = np.take_along_axis(deal, np.maximum(ex, 0)[:, :, None], axis=2)[:, :, 0]
        if ((ex >= 0) & ~held).any():
            raise ValueError("exposed: every exposed card must be in the deal of the player whose pile showed it")
        st.exposed[:] = np.take_along_axis(ex, st.seat_player.astype(np.int64), axis=1)
    if not STEP[c.family].__dict__.get("overloads", True):
        _compile(rules, st)
    _run(rules, st, START, dealt)
    return st


# --------------------------------------------------------------------------- stepping
def check_actions(rules: Rules, state: State, actions: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
    """Validate a batch of actions; raise :class:`IllegalActionError` naming the first bad one.

    With ``where`` (B,) bool only those games' actions are checked (the others become 0).
    """
    a = np.asarray(actions)
    B = state.batch_size
    if a.shape != (B,):
        raise IllegalActionError(f"expected actions of shape ({B},) for a batch of {B} games, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise IllegalActionError(f"actions must be integers, got dtype {a.dtype}")
    if where is not None:
        a = np.where(where, a, 0)
    A = state.layout.A
    bad = (a < 0) | (a >= A)
    if bad.any():
        b = int(np.argmax(bad))
        raise IllegalActionError(f"game {b}: action {int(a[b])} is out of range 0..{A - 1}")
    a = a.astype(np.int64)
    ok = state.legal[np.arange(B), a]
    if where is not None:
        ok |= ~where
    if not ok.all():
        b = int(np.argmin(ok))
        ex = int(state.phase[b]) == EXCHANGE
        legal = np.flatnonzero(state.legal[b]).tolist()
        words = [describe_action(rules, i, exchange=ex) for i in legal]
        raise IllegalActionError(
            f"game {b}: illegal action {int(a[b])} ({describe_action(rules, int(a[b]), exchange=ex)}) "
            f"for seat {int(state.current[b])}; legal: {dict(zip(legal, words, strict=True))}"
        )
    return a


_ALL: dict[int, np.ndarray] = {}
_THREADS = 1


def set_threads(n: int) -> None:
    """Step every batch with its games shared out over ``n`` of numba's threads (1, the default: one core).

    The games are independent, so any ``n`` gives the same results; ``n`` must lie between 1 and
    ``numba.config.NUMBA_NUM_THREADS`` (the cores numba found, or the ``NUMBA_NUM_THREADS`` variable).
    """
    import numba

    global _THREADS
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"threads must be an integer from 1 to {numba.config.NUMBA_NUM_THREADS}, got {n!r}")
    if n > 1:
        numba.set_num_threads(int(n))
    _THREADS = int(n)


def step_inplace(rules: Rules, st: State, actions: np.ndarray, where: np.ndarray | None = None) -> None:
    """Apply one action per game to ``st`` in place; an illegal or malformed action raises
    :class:`IllegalActionError` naming the game, the action and the legal ones, and steps no game.

    ``where`` (B,) bool steps only those games (the others keep their state, except that
    ``hand_over``, ``hand_points`` and ``moved`` say that this call ended and moved nothing there).
    """
    c = consts(rules)
    if st.layout is not c.layout and st.layout != c.layout:
        raise ValueError(f"the state does not fit these rules: {st.layout}, expected {c.layout}")
    a = np.asarray(actions)
    B = st.batch_size
    if a.shape != (B,) or a.dtype.kind not in "iu":
        check_actions(rules, st, actions, where)        # raises, naming what is wrong
    if a.dtype != np.int64:
        a = a.astype(np.int64)
    if where is None:
        w = _ALL.get(B)
        if w is None:
            w = _ALL[B] = np.ones(B, dtype=np.bool_)
    else:
        w = np.asarray(where, dtype=np.bool_)
        if w.shape != (B,):
            raise ValueError(f"where must have shape ({B},), got {w.shape}")
    entry = STEP[c.family]
    if _THREADS > 1 and B >= 2 * _THREADS:
        from .kernel.step import STEP_PARALLEL

        entry = STEP_PARALLEL[c.family]
        _compile(rules, st, entry)
    if entry(st.b8, st.b16, st.b32, st.key_buf, c.opt, c.tab, a, w, c.workspace()) >= 0:
        check_actions(rules, st, actions, where)        # raises, naming the game and the legal actions


def step(rules: Rules, state: State, actions: np.ndarray) -> State:
    """One action per game; returns a new state (the input is unchanged)."""
    st = state.copy()
    step_inplace(rules, st, actions)
    return st


def refresh_legal(rules: Rules, st: State) -> None:
    """Recompute ``st.legal`` from the state (after editing a state's fields from Python)."""
    _run(rules, st, LEGAL)


def legal_action_mask(rules: Rules, state: State) -> np.ndarray:
    """The (B, A) legal-action mask (a copy). A finished session allows only pass (0)."""
    return state.legal.copy()


def rewards(rules: Rules, state: State) -> np.ndarray:
    """(B, P) points by player of the hand the last step ended (zero elsewhere)."""
    return state.hand_points.copy()


def terminated(state: State) -> np.ndarray:
    """(B,) whether each session is over."""
    return state.phase == OVER


def exchange_kind(rules: Rules, state: State) -> np.ndarray:
    """(B,) the exchange decision each game is at: 0 a give-back, 1 a merchant's first pick,
    2 the second pick (``merchant_trade``); -1 outside the exchange."""
    c = consts(rules)
    n = int(c.opt[F.O_N_EX])
    if n == 0:
        return np.full(state.batch_size, -1, dtype=np.int64)
    off = int(c.opt[F.O_TABLES + 3 * F.TABLES.index("sched")])
    kinds = c.tab[off + 2 * n: off + 3 * n].astype(np.int64)
    step_ = np.minimum(state.exch_step.astype(np.int64), n - 1)
    return np.where(state.phase == EXCHANGE, kinds[step_], -1)


def current_player(state: State) -> np.ndarray:
    """(B,) the player (not seat) to act."""
    return state.seat_player[np.arange(state.batch_size), state.current.astype(np.int64)].astype(np.int64)


__all__ = [
    "IllegalActionError", "State", "init", "step", "step_inplace", "legal_action_mask", "refresh_legal",
    "rewards", "terminated", "current_player", "exchange_kind", "check_actions", "make_keys",
    "EXCHANGE", "PLAY", "OVER",
]
