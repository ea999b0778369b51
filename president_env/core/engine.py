"""The batched rules engine: pure functions over :class:`State`.

``init`` deals B sessions, ``step`` applies one action per game, ``legal_action_mask``
reads the ``(B, A)`` mask. A session runs through hands on its own: the end of a
hand scores it, reseats, deals the next hand and plays its forced exchange, so a
caller only ever supplies decisions (give-backs and plays). Options that are off
never run their code.

Every deal is derived from the game's 64-bit key and the hand number by a counter
based hash, so a game plays the same whether it is stepped alone or in any batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .actions import action_table, describe_action
from .cards import WILD, Tables, printed_rank, tables
from .rules import Rules
from .state import EXCHANGE, OVER, PLAY, State


class IllegalActionError(ValueError):
    """An action that is not legal in its game (or a malformed batch of actions)."""


# --------------------------------------------------------------------------- constants
@dataclass(frozen=True, eq=False)
class _Consts:
    t: Tables
    P: int
    C: int
    K: int
    R: int
    S: int
    A: int
    d: int                      # +1 clockwise, -1 counter-clockwise
    act_rank: np.ndarray        # (A,) play rank, -1 for pass
    act_size: np.ndarray        # (A,)
    play_kind: np.ndarray       # (R,) kind of each play rank (-1 for WILD)
    nat_kinds: np.ndarray       # (Rn,) kinds of the non-WILD play ranks
    wild_kinds: np.ndarray      # kinds that are wild
    kind_starts: np.ndarray     # first card index of each kind
    sizes: np.ndarray           # (S,) 1..S
    trump_play: np.ndarray      # (R,) bool
    reset_play: np.ndarray      # (2, R) bool reset ranks [normal order, revolution] (revolution_reset_rank)
    power_lut: np.ndarray       # (R, S+1, S) bool: sizes of each play rank that beat a top of each size by power
    power_floor: np.ndarray     # (2,) strength of the weakest power rank [normal, revolution]
    has_power: bool
    high_play: np.ndarray       # (R,) bool play ranks of high cards (singles only)
    has_high: bool
    forbidden_card: np.ndarray  # (C,) bool
    transparent: int            # play rank or -1
    eight: int                  # play rank of 8 or -1
    points: np.ndarray          # (P,) points by finishing position
    give: tuple[int, ...]       # cards given up per exchange pair
    ex_decider: np.ndarray      # social rank deciding each exchange decision (give-backs, then merchant trades)
    ex_partner: np.ndarray      # social rank of the other player of each exchange decision
    ex_kind: np.ndarray         # 0 give-back, 1 a merchant's first pick, 2 the second pick (both cards move)
    ident_key: np.ndarray       # (C,) best_key with identical cards equal (expose: ties go to the pile dealt first)
    lowest_cards: np.ndarray    # card indices of the lowest card (two with two decks)
    block_cols: np.ndarray      # (R, W) card columns of each play rank's kind, padded (see block_valid)
    block_valid: np.ndarray     # (R, W) which block columns really hold the kind
    size_lut: np.ndarray        # ((S+2)^2, S) bool: sizes lo..hi for the pair (lo, hi)


@lru_cache(maxsize=128)
def _consts(rules: Rules) -> _Consts:
    t = tables(rules)
    at = action_table(rules)
    R = t.n_play_ranks
    def play_mask(ranks: frozenset[str]) -> np.ndarray:
        return np.array([t.play_ranks[p] in ranks for p in range(R)], dtype=bool)
    starts = np.searchsorted(t.card_kind, np.arange(t.n_kinds))
    pairs = rules.exchange_pairs
    P = rules.players
    sched = [(k, P - 1 - k, 0) for k, (_, back) in enumerate(pairs) for _ in range(back)]
    if rules.merchant_trade:
        sched += [x for hi, lo in rules.merchant_pairs for x in ((hi, lo, 1), (lo, hi, 2))]
    sched_a = np.array(sched, dtype=np.int64).reshape(-1, 3)
    first_copy = {}
    for i, name in enumerate(t.card_names):
        first_copy.setdefault(name, i)
    power_lut = np.zeros((R, rules.max_set + 1, rules.max_set), dtype=bool)
    for rank, most in rules.power_ranks:
        p = t.play_ranks.index(rank)
        for n, hi in enumerate(most, start=1):
            m = n * rules.decks
            power_lut[p, m + 1 : rules.decks * hi + 1, m - 1] = True
    power_ranks = [t.play_ranks.index(r) for r, _ in rules.power_ranks]
    power_floor = t.strength[:, power_ranks].min(axis=1) if power_ranks else np.zeros(2, np.int64)
    reset_normal = play_mask(rules.reset_ranks)
    rrr = rules.revolution_reset_rank
    reset_rev = play_mask(frozenset({rrr})) if rrr is not None else reset_normal
    lowest_name = t.card_names[t.lowest_card]
    cols, valid = _block_cols(t)
    return _Consts(
        t=t, P=rules.players, C=t.n_cards, K=t.n_kinds, R=R, S=rules.max_set, A=at.n,
        d=1 if rules.direction == "clockwise" else -1,
        act_rank=at.rank, act_size=at.size,
        play_kind=t.play_kind,
        nat_kinds=t.play_kind[: t.n_natural_play],
        wild_kinds=np.flatnonzero(t.kind_wild),
        kind_starts=starts,
        sizes=np.arange(1, rules.max_set + 1),
        trump_play=play_mask(rules.trump_ranks),
        reset_play=np.stack([reset_normal, reset_rev]),
        power_lut=power_lut,
        power_floor=np.asarray(power_floor, dtype=np.int64),
        has_power=bool(power_ranks),
        high_play=t.kind_high[t.play_kind] & (t.play_kind >= 0),
        has_high=bool(t.kind_high.any()),
        forbidden_card=np.array([printed_rank(n) in rules.forbidden_finish for n in t.card_names], dtype=bool),
        transparent=t.play_ranks.index(rules.transparent_rank) if rules.transparent_rank in t.play_ranks else -1,
        eight=t.play_ranks.index("8") if rules.eight_cut else -1,
        points=np.array(rules.points, dtype=np.int32),
        give=tuple(g for g, _ in pairs),
        ex_decider=sched_a[:, 0].copy(),
        ex_partner=sched_a[:, 1].copy(),
        ex_kind=sched_a[:, 2].copy(),
        ident_key=t.best_key[[first_copy[n] for n in t.card_names]],
        lowest_cards=np.flatnonzero(np.array(t.card_names) == lowest_name),
        block_cols=cols,
        block_valid=valid,
        size_lut=_size_lut(rules.max_set),
    )


def _size_lut(S: int) -> np.ndarray:
    sizes = np.arange(1, S + 1)
    lo, hi = np.divmod(np.arange((S + 2) ** 2), S + 2)
    return (sizes[None, :] >= lo[:, None]) & (sizes[None, :] <= hi[:, None])


def _block_cols(t: Tables) -> tuple[np.ndarray, np.ndarray]:
    """Card columns of each play rank's kind. Padding points at a card of another kind,
    so that a fancy write through the block never hits the same card twice."""
    width = int(t.kind_count.max())
    cols = np.zeros((t.n_play_ranks, width), dtype=np.int64)
    valid = np.zeros((t.n_play_ranks, width), dtype=bool)
    for p, k in enumerate(t.play_kind):
        idx = np.flatnonzero(t.card_kind == k)
        foreign = int(np.flatnonzero(t.card_kind != k)[0])
        cols[p] = foreign
        cols[p, : idx.size] = idx
        valid[p, : idx.size] = True
    return cols, valid


# --------------------------------------------------------------------------- hashing
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, element-wise on uint64 (wrapping arithmetic)."""
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


_SALT_DEALER, _SALT_DEAL, _SALT_RANKS = 1, 2, 3


# --------------------------------------------------------------------------- init
def make_keys(batch_size: int, seed: int | np.random.Generator | None) -> np.ndarray:
    """B per-game keys from a seed or a ``numpy.random.Generator``."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    return rng.integers(0, np.iinfo(np.int64).max, size=batch_size, dtype=np.int64).astype(np.uint64)


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
    c = _consts(rules)
    if keys is None:
        keys = make_keys(batch_size, seed)
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    B, P = keys.shape[0], c.P
    st = _empty(c, B)
    st.key[:] = keys
    st.hand_no[:] = hand_no
    st.seat_player[:] = np.arange(P)
    ranks_by_player = None
    if isinstance(start_ranks, str):
        if start_ranks != "random":
            raise ValueError(f"start_ranks must be None, 'random' or an array, got {start_ranks!r}")
        noise = _hash(keys[:, None], _SALT_RANKS, np.arange(P)[None, :])
        ranks_by_player = np.argsort(np.argsort(noise, axis=1), axis=1)
    elif start_ranks is not None:
        ranks_by_player = np.broadcast_to(np.asarray(start_ranks), (B, P))
        if not (np.sort(ranks_by_player, axis=1) == np.arange(P)).all():
            raise ValueError(f"start_ranks must be a permutation of 0..{P - 1} per game")
    if ranks_by_player is not None:
        st.last_finish[:] = ranks_by_player
        if rules.reseat and seat_player is None:
            st.seat_player[:] = _seating_from_ranks(c, ranks_by_player)
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
            st.dealer[:] = (_hash(keys, _SALT_DEALER) % np.uint64(P)).astype(np.int8)
    else:
        st.dealer[:] = dealer
        if ((st.dealer < 0) | (st.dealer >= P)).any():
            raise ValueError(f"dealer must be a seat 0..{P - 1}, got {dealer!r}")
    hands_by_seat = None
    if deal is not None:
        deal = np.asarray(deal, dtype=bool)
        if deal.shape != (B, P, c.C):
            raise ValueError(f"deal must have shape {(B, P, c.C)} (batch, player, card), got {deal.shape}")
        if not (deal.sum(axis=1) == 1).all():
            raise ValueError("deal is not a split of the pack: every card must be held by exactly one player")
        hands_by_seat = np.take_along_axis(deal, st.seat_player.astype(np.int64)[:, :, None], axis=1)
    exposed_by_seat = None
    if exposed is not None:
        if deal is None:
            raise ValueError("exposed is given with deal= (a dealt hand exposes its own cards)")
        ex = np.broadcast_to(np.asarray(exposed, dtype=np.int64), (B, P))
        if ((ex < -1) | (ex >= c.C)).any():
            raise ValueError(f"exposed must hold card indices 0..{c.C - 1} or -1, got {ex.tolist()}")
        held = np.take_along_axis(deal, np.maximum(ex, 0)[:, :, None], axis=2)[:, :, 0]
        if ((ex >= 0) & ~held).any():
            raise ValueError("exposed: every exposed card must be in the deal of the player whose pile showed it")
        exposed_by_seat = np.take_along_axis(ex, st.seat_player.astype(np.int64), axis=1)
    _start_hand(rules, c, st, hands_by_seat, exposed_by_seat)
    return st


def _empty(c: _Consts, B: int) -> State:
    P, C, K = c.P, c.C, c.K
    z8 = lambda *s: np.zeros(s, dtype=np.int8)  # noqa: E731
    return State(
        key=np.zeros(B, np.uint64), hand_no=np.zeros(B, np.int32), phase=z8(B),
        seat_player=z8(B, P), dealer=z8(B), social=np.full((B, P), -1, np.int8),
        hands=np.zeros((B, P, C), bool), counts=z8(B, P, K), n_cards=z8(B, P),
        current=z8(B), leader=z8(B), top_rank=np.full(B, -1, np.int8), top_size=z8(B),
        top_owner=np.full(B, -1, np.int8), top_wild=np.zeros(B, bool), top_count=z8(B),
        first_lead=np.zeros(B, bool), passed=np.zeros((B, P), bool),
        finish=np.full((B, P), -1, np.int8), next_best=z8(B), next_worst=z8(B),
        revolution=np.zeros(B, bool), direction=np.full(B, c.d, np.int8),
        played=z8(B, K), discarded=z8(B, K), exch_step=z8(B),
        exch_in=z8(B, P, K), exch_out=z8(B, P, K), single_row=z8(B),
        exposed=np.full((B, P), -1, np.int8), trade_pick=np.full((B, P), -1, np.int8),
        top_own=np.full(B, -1, np.int8), qc_count=z8(B), claim_rank=np.full(B, -1, np.int8),
        claim_next=np.full(B, -1, np.int8),
        points=np.zeros((B, P), np.int32), hand_points=np.zeros((B, P), np.int32),
        hand_over=np.zeros(B, bool), last_finish=np.full((B, P), -1, np.int8),
        moved=np.zeros((B, C), bool), legal=np.zeros((B, c.A), bool),
    )


def _seating_from_ranks(c: _Consts, ranks_by_player: np.ndarray) -> np.ndarray:
    """President in seat 0, the others in finishing order in the direction of play."""
    B, P = ranks_by_player.shape
    seat_of_rank = (np.arange(P) * c.d) % P
    seat_player = np.zeros((B, P), np.int8)
    players = np.argsort(ranks_by_player, axis=1)  # (B, P) player holding rank k
    seat_player[:, seat_of_rank] = players
    return seat_player


def _kind_counts(c: _Consts, cards: np.ndarray) -> np.ndarray:
    """(..., C) bool -> (..., K) int8 counts per kind (cards are sorted by kind)."""
    return np.add.reduceat(cards.view(np.uint8), c.kind_starts, axis=-1).astype(np.int8)


def _seat_after(c: _Consts, start: np.ndarray, direction: np.ndarray, ok: np.ndarray,
                include_start: bool = False) -> np.ndarray:
    """First seat after ``start`` in ``direction`` where ``ok`` (B,P) holds."""
    B = start.shape[0]
    steps = np.arange(0 if include_start else 1, c.P + (0 if include_start else 1))
    seats = (start.astype(np.int64)[:, None] + direction.astype(np.int64)[:, None] * steps[None, :]) % c.P
    hit = np.take_along_axis(ok, seats, axis=1)
    return seats[np.arange(B), np.argmax(hit, axis=1)]


# --------------------------------------------------------------------------- hands
def _start_hand(rules: Rules, c: _Consts, st: State, hands_by_seat: np.ndarray | None = None,
                exposed_by_seat: np.ndarray | None = None) -> None:
    """Deal (or take ``hands_by_seat``), play the forced exchange, set who acts. In place."""
    P = c.P
    has_ranks = (st.social >= 0).all(axis=1)
    st.exposed[:] = -1
    if hands_by_seat is None:
        hands_by_seat, exposed_by_seat = _deal(rules, c, st, has_ranks)
    if exposed_by_seat is not None:
        st.exposed[:] = exposed_by_seat
    st.hands[:] = hands_by_seat
    st.counts[:] = _kind_counts(c, st.hands)
    st.n_cards[:] = st.hands.sum(axis=2)
    st.phase[:] = PLAY
    st.top_rank[:] = -1
    st.top_size[:] = 0
    st.top_owner[:] = -1
    st.top_wild[:] = False
    st.top_count[:] = 0
    st.passed[:] = False
    st.finish[:] = -1
    st.next_best[:] = 0
    st.next_worst[:] = P - 1
    st.revolution[:] = False
    st.direction[:] = c.d
    st.played[:] = 0
    st.discarded[:] = 0
    st.exch_step[:] = 0
    st.exch_in[:] = 0
    st.exch_out[:] = 0
    st.moved[:] = False
    st.first_lead[:] = False
    st.single_row[:] = 0
    st.trade_pick[:] = -1
    st.top_own[:] = -1
    st.qc_count[:] = 0
    st.claim_rank[:] = -1
    st.claim_next[:] = -1

    # Who leads.
    seat_of_rank = np.argsort(np.where(has_ranks[:, None], st.social, np.arange(P)), axis=1)
    lead_rank = 0 if rules.lead_after_first == "president" else P - 1
    leader = seat_of_rank[:, lead_rank].astype(np.int64)
    if not has_ranks.all():
        dealer = st.dealer.astype(np.int64)
        if rules.first_lead == "dealer":
            first = dealer
        elif rules.first_lead == "dealer_left":
            first = (dealer + c.d) % P
        else:
            holds = st.hands[:, :, c.lowest_cards].any(axis=2)
            first = _seat_after(c, dealer, st.direction, holds)
            st.first_lead[:] = ~has_ranks
        leader = np.where(has_ranks, leader, first)
    st.leader[:] = leader
    st.current[:] = leader

    # The exchange: forced gifts now, give-backs (and merchant trades) as decisions.
    if c.ex_kind.size and has_ranks.any():
        g = np.flatnonzero(has_ranks)
        for k, n in enumerate(c.give):
            giver = seat_of_rank[g, P - 1 - k]
            recv = seat_of_rank[g, k]
            held = st.hands[g, giver]
            keys = np.where(held, c.t.best_key[None, :], -1)
            best = np.argsort(-keys, axis=1, kind="stable")[:, :n]
            moved = np.zeros_like(held)
            np.put_along_axis(moved, best, True, axis=1)
            _transfer(c, st, g, giver, recv, moved)
        st.phase[g] = EXCHANGE
        st.current[g] = seat_of_rank[g, c.ex_decider[0]]
    _refresh_legal(rules, c, st)


def _deal(rules: Rules, c: _Consts, st: State, has_ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Shuffle from (key, hand number) and deal one card at a time.

    Returns the hands by seat, and under ``hand_assignment expose`` the exposed card by seat."""
    B, P, C = st.batch_size, c.P, c.C
    d = c.d
    start = (st.dealer.astype(np.int64) + d) % P
    order = (start[:, None] + d * np.arange(P)[None, :]) % P
    if rules.extra_cards_to != "first_dealt" and has_ranks.any():
        if rules.extra_cards_to == "top_ranks":
            pres = np.argmax(st.social == 0, axis=1)
            by_rank = (pres[:, None] + d * np.arange(P)[None, :]) % P
        else:  # bottom_ranks: Scum first, then Vice-Scum, on up the ranking
            by_rank = np.argsort(-st.social.astype(np.int64), axis=1)
        order = np.where(has_ranks[:, None], by_rank, order)
    noise = _hash(st.key[:, None], _SALT_DEAL, st.hand_no[:, None], np.arange(C)[None, :])
    perm = np.argsort(noise, axis=1)  # perm[b, i] = i-th card dealt
    seat = order[:, np.arange(C) % P]  # seat receiving the i-th card
    hands = np.zeros((B, P, C), dtype=bool)
    hands[np.arange(B)[:, None], seat, perm] = True
    if rules.hand_assignment != "expose" or not has_ranks.any():
        return hands, None
    # expose: the piles are dealt as above; the last card of each pile is shown, and the
    # President takes the pile showing the best card, the Vice-President the next, ...
    last_i = np.arange(P) + P * ((C - 1 - np.arange(P)) // P)      # index in the deal of each pile's last card
    shown = perm[:, last_i]                                       # (B, P) by pile
    pile_seat = order                                             # pile j went to seat order[:, j]
    best_pile = np.argsort(-c.ident_key[shown], axis=1, kind="stable")   # piles best first, ties: dealt first
    seat_of_rank = np.argsort(st.social, axis=1)
    ar = np.arange(B)[:, None]
    from_seat = np.take_along_axis(pile_seat, best_pile, axis=1)  # the seat that was dealt the k-th best pile
    assigned = hands.copy()
    assigned[ar, seat_of_rank] = hands[ar, from_seat]
    exposed = np.full((B, P), -1, dtype=np.int8)
    exposed[ar, seat_of_rank] = np.take_along_axis(shown, best_pile, axis=1)
    keep = ~has_ranks
    assigned[keep] = hands[keep]
    exposed[keep] = -1
    return assigned, exposed


def _transfer(c: _Consts, st: State, g: np.ndarray, giver: np.ndarray, recv: np.ndarray, cards: np.ndarray) -> None:
    kc = _kind_counts(c, cards)
    st.hands[g, giver] &= ~cards
    st.hands[g, recv] |= cards
    st.counts[g, giver] -= kc
    st.counts[g, recv] += kc
    n = cards.sum(axis=1).astype(np.int8)
    st.n_cards[g, giver] -= n
    st.n_cards[g, recv] += n
    st.exch_out[g, giver] += kc
    st.exch_in[g, recv] += kc
    st.moved[g] = cards


# --------------------------------------------------------------------------- masks
def legal_action_mask(rules: Rules, state: State) -> np.ndarray:
    """The (B, A) legal-action mask (a copy). A finished session allows only pass (0)."""
    return state.legal.copy()


def _refresh_legal(rules: Rules, c: _Consts, st: State) -> None:
    """Recompute ``st.legal`` for every game: play masks, then the exchange and finished rows. In place."""
    st.legal[:] = _play_mask(rules, c, st)
    phase = st.phase
    if rules.quick_clear:  # asked to claim: claim every natural card of the rank, or decline (pass)
        cl = np.flatnonzero((st.claim_rank >= 0) & (phase == PLAY))
        if cl.size:
            r = st.claim_rank[cl].astype(np.int64)
            n = st.counts[cl, st.current[cl].astype(np.int64), c.play_kind[r]].astype(np.int64)
            st.legal[cl] = False
            st.legal[cl, 0] = True
            st.legal[cl, 1 + r * c.S + n - 1] = True
    if not (phase == PLAY).all():
        ex = np.flatnonzero(phase == EXCHANGE)
        if ex.size:
            st.legal[ex] = _exchange_mask(c, st.counts[ex, st.current[ex]])
        over = phase == OVER
        st.legal[over] = False
        st.legal[over, 0] = True


def _split_holdings(c: _Consts, cnt: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(N,K) counts of the player to act -> natural play-rank counts (N,Rn), wild count (N,)."""
    nat = cnt[:, c.nat_kinds]
    wild = cnt[:, c.wild_kinds].sum(axis=1, dtype=np.int8) if c.t.has_wild else None
    return nat, wild


def _exchange_mask(c: _Consts, cnt: np.ndarray) -> np.ndarray:
    """Give-back choices: one card of any rank held (size-1 ids)."""
    nat, wild = _split_holdings(c, cnt)
    N = cnt.shape[0]
    m = np.zeros((N, c.R, c.S), dtype=bool)
    m[:, : nat.shape[1], 0] = nat > 0
    if wild is not None:
        m[:, -1, 0] = wild > 0
    out = np.zeros((N, c.A), dtype=bool)
    out[:, 1:] = m.reshape(N, -1)
    return out


def _play_mask(rules: Rules, c: _Consts, st: State) -> np.ndarray:  # noqa: C901 - one block per option
    """Legal plays as size intervals per rank: lo <= size <= hi, plus the options that are not intervals."""
    g = slice(None)
    cur = st.current.astype(np.int64)
    N = cur.shape[0]
    ar = np.arange(N)
    R, S = c.R, c.S
    nat, wild = _split_holdings(c, st.counts[ar, cur])
    Rn = nat.shape[1]
    # cap: the largest set of each rank the player can make (0: none).
    if wild is None:
        cap = nat.astype(np.int16)
    else:
        cap = np.empty((N, R), dtype=np.int16)
        cap[:, :Rn] = np.where(nat > 0, np.minimum(nat + wild[:, None], S), 0)
        cap[:, Rn] = wild
    if c.has_high:  # a high card is played only as a single
        cap[:, c.high_play] = np.minimum(cap[:, c.high_play], 1)
    top_rank = st.top_rank[g].astype(np.int64)
    lead = top_rank < 0
    ts = st.top_size[g].astype(np.int16)[:, None]
    if rules.four_of_a_kind in ("revolution", "revolution_and_reverse"):
        strength = c.t.strength[st.revolution[g].astype(np.int64)]
    else:
        strength = np.broadcast_to(c.t.strength[0], (N, R))
    top_str = strength[ar, np.maximum(top_rank, 0)]
    higher = strength > top_str[:, None]
    same = np.arange(R)[None, :] == top_rank[:, None]
    rank_ok = (higher | same) if rules.equal_rank_beats else higher
    big = np.int16(S + 1)
    if rules.size_rule == "equal":
        lo = np.where(rank_ok, ts, big)
        hi = np.where(rank_ok, ts, 0)
    elif rules.size_rule == "at_least":
        lo = np.where(rank_ok, ts, big)
        hi = np.where(rank_ok, big, 0)
    else:  # bigger_beats_any
        lo = np.where(rank_ok, ts, ts + 1)
        hi = np.full((N, R), big, dtype=np.int16)
    if rules.wild_tie != "equal" and wild is not None:
        natural = np.zeros((N, R), dtype=bool)
        natural[:, :Rn] = nat >= ts
        tie = natural & st.top_wild[g][:, None] if rules.wild_tie == "natural_higher" else \
            ~natural & ~st.top_wild[g][:, None]
        top_natural = ~st.top_wild[g][:, None]
        differ = same & (natural != top_natural)   # one set natural, the other with wild cards
        differ[:, Rn] = False  # all-wild sets of one size are equal
        tie &= differ
        lower = differ & ~tie                      # the lower never beats the higher (fine point 3)
        lo = np.where(tie, np.minimum(lo, ts), np.where(lower, np.maximum(lo, ts + 1), lo))
        hi = np.where(tie, np.maximum(hi, ts), hi)
    if c.transparent >= 0:
        t = c.transparent
        lo[:, t] = ts[:, 0]
        hi[:, t] = np.maximum(hi[:, t], ts[:, 0])
    if c.trump_play.any():
        trump = c.trump_play[None, :] & higher
        lo = np.where(trump, 1, lo)
        hi = np.where(trump, big, hi)
    lo = np.where(lead[:, None], 1, lo)
    hi = np.minimum(np.where(lead[:, None], big, hi), cap)
    if st.first_lead[g].any():
        hi[st.first_lead[g]] *= (np.arange(R) == c.t.lowest_play_rank)[None, :].astype(np.int16)
    s = c.sizes[None, None, :]
    # legal[b, r, size] = lo <= size <= hi, read from a table of all (lo, hi) pairs.
    legal = np.take(c.size_lut, (lo * (S + 2) + hi).astype(np.intp), axis=0)
    extra = None
    if c.reset_play.any():
        extra = np.zeros((N, R, S), dtype=bool)
        if rules.revolution_reset_rank is None:
            extra[:, c.reset_play[0], 0] = True
        else:
            extra[:, :, 0] = c.reset_play[st.revolution[g].astype(np.int64)]
    if c.has_power:
        floor = c.power_floor[st.revolution[g].astype(np.int64)] if rules.four_of_a_kind in (
            "revolution", "revolution_and_reverse") else c.power_floor[0]
        below = ~lead & (top_str < floor)
        power = np.moveaxis(c.power_lut[:, ts[:, 0].astype(np.int64)], 1, 0) & below[:, None, None]
        extra = power if extra is None else (extra | power)
    if rules.four_of_a_kind == "bomb":
        bomb = np.zeros((N, R, S), dtype=bool) if extra is None else extra
        bomb[:, :, 3:] = True
        extra = bomb
    if rules.complete_set_clears:
        done = (same[:, :, None] & (s >= (S - st.top_count[g].astype(np.int16))[:, None, None]))
        extra = done if extra is None else (extra | done)
    if extra is not None:
        legal |= extra & (s <= cap[:, :, None])
        if st.first_lead[g].any():  # fine point 14: whatever a rule adds, the first lead holds the lowest card
            legal[st.first_lead[g]] &= (np.arange(R) == c.t.lowest_play_rank)[None, :, None]
    out = np.empty((N, c.A), dtype=bool)
    flat = legal.reshape(N, -1)
    out[:, 1:] = flat
    can_pass = ~lead
    if rules.compulsory_beat:
        can_pass &= ~flat.any(axis=1)
    out[:, 0] = can_pass
    return out


# --------------------------------------------------------------------------- step
def step(rules: Rules, state: State, actions: np.ndarray) -> State:
    """Apply one action per game and return the new state (``state`` is unchanged)."""
    new = state.copy()
    step_inplace(rules, new, actions)
    return new


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
    A = state.legal.shape[1]
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


def step_inplace(rules: Rules, st: State, actions: np.ndarray, where: np.ndarray | None = None) -> None:
    """Apply one action per game to ``st`` in place (the fast path of :func:`step`).

    ``where`` (B,) bool steps only those games (the others keep their state, except that
    ``hand_over``, ``hand_points`` and ``moved`` say that this call ended and moved nothing there).
    """
    c = _consts(rules)
    a = check_actions(rules, st, actions, where)
    st.hand_over[:] = False
    st.hand_points[:] = 0
    phase = st.phase.copy()
    active = phase == PLAY
    if where is not None:
        active &= where
        phase = np.where(where, phase, OVER)  # games not stepped take no exchange decision either
    if rules.quick_clear:
        declined = active & (st.claim_rank >= 0) & (a == 0)
        if declined.any():
            _decline(st, declined)
            active &= ~declined
    ended = _play(rules, c, st, a, None if active.all() else active)
    ex = np.flatnonzero(phase == EXCHANGE)
    if ex.size:
        sub = st.take(ex)
        _give_back(rules, c, sub, a[ex])
        st.put(ex, sub)
    if ended.any():
        idx = np.flatnonzero(ended)
        sub = st.take(idx)
        last_play = sub.moved.copy()
        _end_hand(rules, c, sub)
        sub.moved[:] = last_play  # the cards of the play that ended the hand, not the next deal's gifts
        st.put(idx, sub)


def _decline(st: State, declined: np.ndarray) -> None:
    """quick_clear: a player asked to claim says no; the normal turn goes on."""
    st.current[:] = np.where(declined, st.claim_next, st.current)
    st.claim_rank[declined] = -1
    st.claim_next[declined] = -1
    st.moved[declined] = False


def _give_back(rules: Rules, c: _Consts, st: State, a: np.ndarray) -> None:
    """One exchange decision per game: a card of the named rank, lowest suit (least wild card for WILD).

    A give-back moves it to the partner at once. A merchant's first pick is held in
    ``trade_pick`` (unseen by the other merchant); the second pick moves both cards."""
    B = st.batch_size
    ar = np.arange(B)
    kind = c.play_kind[c.act_rank[a]]
    recv = st.current.astype(np.int64)
    held = st.hands[ar, recv]
    if c.t.has_wild:
        want = np.where((kind >= 0)[:, None], c.t.card_kind[None, :] == kind[:, None], c.t.card_wild[None, :])
    else:
        want = c.t.card_kind[None, :] == kind[:, None]
    cand = held & want
    card = np.argmax(cand, axis=1)
    cards = np.zeros_like(held)
    cards[ar, card] = True
    seat_of_rank = np.argsort(st.social, axis=1)
    step = st.exch_step.astype(np.int64)
    partner = seat_of_rank[ar, c.ex_partner[step]]
    kind = c.ex_kind[step]
    if (kind == 0).all():
        _transfer(c, st, ar, recv, partner, cards)
    else:
        first = kind == 1
        st.trade_pick[ar[first], recv[first]] = card[first]
        st.moved[first] = cards[first]
        g = np.flatnonzero(~first)
        _transfer(c, st, g, recv[g], partner[g], cards[g])
        second = np.flatnonzero(kind == 2)
        if second.size:
            pick = st.trade_pick[second, partner[second]].astype(np.int64)
            theirs = np.zeros((second.size, c.C), dtype=bool)
            theirs[np.arange(second.size), pick] = True
            _transfer(c, st, second, partner[second], recv[second], theirs)
            st.trade_pick[second, partner[second]] = -1
            st.moved[second] = cards[second]  # the card this player gave
    st.exch_step += 1
    n = len(c.ex_kind)
    done = st.exch_step >= n
    nxt = c.ex_decider[np.minimum(st.exch_step, n - 1).astype(np.int64)]
    st.current[:] = np.where(done, st.leader, seat_of_rank[ar, nxt])
    st.phase[done] = PLAY
    _refresh_legal(rules, c, st)


def _play(rules: Rules, c: _Consts, st: State, a: np.ndarray,  # noqa: C901 - one block per option
          active: np.ndarray | None) -> np.ndarray:
    """Apply plays and passes to the games in PLAY (``active``; None = all). Returns whose hand ended."""
    B, S = st.batch_size, c.S
    ar = np.arange(B)
    cur = st.current.astype(np.int64)
    rank = c.act_rank[a]
    size = c.act_size[a]
    if active is not None:
        size = np.where(active, size, 0)
    is_play = size > 0
    is_pass = ~is_play if active is None else (active & ~is_play)

    # Take the cards: natural cards first, lowest suit first, then wild cards. The cards of
    # one kind are a block of at most 4 x decks columns, so only that block is looked at.
    kind = c.play_kind[rank]
    cols = c.block_cols[rank]                      # (B, W), padded with a column of another kind
    blk = st.hands[ar[:, None], cur[:, None], cols] & c.block_valid[rank]
    blk &= np.cumsum(blk, axis=1) <= size[:, None]
    sel = np.zeros((B, c.C), dtype=bool)
    sel[ar[:, None], cols] |= blk                  # padding writes False onto a card of another kind
    if c.t.has_wild:
        hand = st.hands[ar, cur]
        n_wild = size - blk.sum(axis=1)
        wild = hand & c.t.card_wild[None, :]
        wild &= np.cumsum(wild, axis=1) <= n_wild[:, None]
        sel |= wild
        has_wild = n_wild > 0
        st.hands[ar, cur] = hand & ~sel
    else:
        has_wild = np.zeros(B, dtype=bool)
        st.hands[ar[:, None], cur[:, None], cols] &= ~blk
    if c.t.has_wild:
        kc = _kind_counts(c, sel)
        st.counts[ar, cur] -= kc
        st.played += kc
    else:  # all cards of one kind: no need to count them card by card
        k = np.where(is_play, kind, 0)
        n = size.astype(np.int8)
        st.counts[ar, cur, k] -= n
        st.played[ar, k] += n
    st.n_cards[ar, cur] -= size.astype(np.int8)
    st.moved[:] = sel

    old_rank = st.top_rank.astype(np.int64)
    old_size = st.top_size.astype(np.int64)
    eff = rank
    if c.transparent >= 0:
        eff = np.where((rank == c.transparent) & (old_rank >= 0) & (size == old_size), old_rank, rank)
    if rules.complete_set_clears:
        st.top_count[:] = np.where(is_play, np.where(eff == old_rank, st.top_count + size, size), st.top_count)
    st.top_rank[:] = np.where(is_play, eff, old_rank)
    st.top_size[:] = np.where(is_play, size, old_size)
    st.top_owner[:] = np.where(is_play, cur, st.top_owner)
    st.top_wild[:] = np.where(is_play, has_wild, st.top_wild)
    st.first_lead &= ~is_play
    if rules.quick_clear:  # natural cards of the play's own rank in consecutive plays at the top
        claim_play = is_play & (st.claim_rank >= 0)
        nat_n = size - n_wild if c.t.has_wild else size
        same_own = rank == st.top_own
        st.qc_count[:] = np.where(is_play, np.where(same_own, st.qc_count + nat_n, nat_n), st.qc_count)
        st.top_own[:] = np.where(is_play, rank, st.top_own)
        st.claim_rank[is_play] = -1
        st.claim_next[is_play] = -1

    # Passing: who may still act in this trick.
    if rules.pass_rule == "single_round":
        st.passed[ar, cur] |= is_play | is_pass
    else:
        st.passed[ar, cur] |= is_pass
        if rules.pass_rule == "may_replay":
            st.passed &= ~is_play[:, None]

    reset_now = None
    if c.reset_play.any():
        reset_now = c.reset_play[st.revolution.astype(np.int64), rank]  # judged by the order before the play
    if rules.revolution_by_singles:  # four singles of one rank in a row (eight with two decks)
        row = np.where((size == 1) & (eff == old_rank) & (old_size == 1), st.single_row + 1, (size == 1))
        st.single_row[:] = np.where(is_play, row, st.single_row)
        row_flip = is_play & (size == 1) & ((row == 4) | ((row == 8) & (S == 8)))
    if rules.four_of_a_kind in ("revolution", "revolution_and_reverse"):
        flip = is_play & (size >= 4)
        if rules.revolution_by_singles:
            flip |= row_flip
        st.revolution ^= flip
        if rules.four_of_a_kind == "revolution_and_reverse":
            st.direction[:] = np.where(flip, -st.direction, st.direction)

    # Plays that end the trick at once.
    clear_self = np.zeros(B, dtype=bool)
    if c.trump_play.any():
        clear_self |= is_play & c.trump_play[rank]
    if rules.four_of_a_kind == "bomb":
        clear_self |= is_play & (size >= 4)
    if c.eight >= 0:
        clear_self |= is_play & (rank == c.eight)
    if rules.complete_set_clears:
        clear_self |= is_play & (st.top_count >= S)
    if rules.quick_clear:  # a claim ends the trick; the claimer leads
        clear_self |= claim_play
    clear_next = np.zeros(B, dtype=bool)
    if reset_now is not None:
        clear_next = is_play & reset_now & (size == 1) & ~clear_self

    # Going out.
    out_now = is_play & (st.n_cards[ar, cur] == 0)
    if out_now.any():
        _go_out(rules, c, st, out_now, cur, sel)

    alive = st.n_cards > 0
    ended = alive.sum(axis=1) <= 1
    if active is not None:
        ended &= active
    direction = st.direction

    # Who acts next, or who leads the next trick.
    can_act = alive & ~st.passed
    others = can_act.copy()
    others[ar, st.top_owner.astype(np.int64)] = False
    trick_end = ~others.any(axis=1) | clear_self | clear_next
    if active is not None:
        trick_end &= active
    start = cur
    if rules.equal_play_skips:
        skip = is_play & (rank == old_rank) & ~trick_end & ~ended
        if skip.any():
            start, again = _skip(rules, c, st, skip, cur, size - old_size + 1, alive)
            can_act = alive & ~st.passed
            if rules.pass_rule == "single_round":  # the skip may have used up the last turns
                others = can_act.copy()
                others[ar, st.top_owner.astype(np.int64)] = False
                trick_end |= skip & ~others.any(axis=1)
    nxt = _seat_after(c, start, direction, can_act)
    if rules.equal_play_skips and skip.any():
        nxt = np.where(again, cur, nxt)
    if rules.quick_clear:
        claimer, claim_now = _claimer(c, st, is_play & ~claim_play & ~clear_self & ~clear_next & ~ended, rank, cur)
    if trick_end.any():
        owner = np.where(clear_next, cur, st.top_owner).astype(np.int64)
        owner_leads = ~clear_next & alive[ar, owner]
        leader = np.where(owner_leads, owner, _seat_after(c, owner, direction, alive))
        nxt = np.where(trick_end, leader, nxt)
        te = trick_end[:, None]
        st.top_rank[trick_end] = -1
        st.top_size[trick_end] = 0
        st.top_owner[trick_end] = -1
        st.top_wild[trick_end] = False
        st.top_count[trick_end] = 0
        st.single_row[trick_end] = 0
        st.top_own[trick_end] = -1
        st.qc_count[trick_end] = 0
        st.passed &= ~te
        st.leader[:] = np.where(trick_end, leader, st.leader)
    if rules.quick_clear and claim_now.any():  # the claimer decides first; then the normal turn goes on
        st.claim_rank[:] = np.where(claim_now, rank, st.claim_rank)
        st.claim_next[:] = np.where(claim_now, nxt, st.claim_next)
        nxt = np.where(claim_now, claimer, nxt)
    st.current[:] = nxt if active is None else np.where(active, nxt, st.current)
    if ended.any():
        st.phase[ended] = OVER  # provisional: _end_hand deals on or ends the session
    _refresh_legal(rules, c, st)
    return ended


def _claimer(c: _Consts, st: State, asked: np.ndarray, rank: np.ndarray, cur: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """quick_clear: the seat (other than the player) holding every remaining natural card of the rank just
    played, enough to make 4 x decks with those at the top; at most one seat can. Returns (seat, whether any)."""
    kind = c.play_kind[rank]
    natural = (kind >= 0) & ~c.t.kind_high[np.maximum(kind, 0)]
    held = st.counts[np.arange(st.batch_size), :, np.maximum(kind, 0)].astype(np.int16)   # (B, P)
    need = (c.S - st.qc_count.astype(np.int16))[:, None]
    ok = (held == need) & (held > 0)
    ok[np.arange(st.batch_size), cur] = False
    claim_now = asked & natural & ok.any(axis=1)
    return np.argmax(ok, axis=1), claim_now


def _go_out(rules: Rules, c: _Consts, st: State, out_now: np.ndarray, cur: np.ndarray, sel: np.ndarray) -> None:
    g = np.flatnonzero(out_now)
    seat = cur[g]
    if rules.forbidden_finish:
        worst = (sel[g] & c.forbidden_card[None, :]).any(axis=1)
    else:
        worst = np.zeros(g.size, dtype=bool)
    pos = np.where(worst, st.next_worst[g], st.next_best[g])
    st.finish[g, seat] = pos
    st.next_best[g] += (~worst).astype(np.int8)
    st.next_worst[g] -= worst.astype(np.int8)
    if rules.president_must_win:
        pres = np.argmax(st.social[g] == 0, axis=1)
        has_pres = (st.social[g] == 0).any(axis=1)
        fall = has_pres & ~worst & (pos == 0) & (pres != seat) & (st.n_cards[g, pres] > 0)
        if fall.any():
            h, p = g[fall], pres[fall]
            st.finish[h, p] = st.next_worst[h]
            st.next_worst[h] -= 1
            st.discarded[h] += st.counts[h, p]
            st.counts[h, p] = 0
            st.hands[h, p] = False
            st.n_cards[h, p] = 0


def _skip(rules: Rules, c: _Consts, st: State, skip: np.ndarray, cur: np.ndarray, k: np.ndarray,
          alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """equal_play_skips (fine point 7): the seat the count of k players with cards ends on.

    Returns (seat to search the next actor from, whether the player who played acts again).
    """
    B, P = st.batch_size, c.P
    ar = np.arange(B)
    steps = np.arange(1, P + 1)
    seats = (cur[:, None] + st.direction.astype(np.int64)[:, None] * steps[None, :]) % P
    with_cards = np.take_along_axis(alive, seats, axis=1)
    cum = np.cumsum(with_cards, axis=1)
    cur_alive = alive[ar, cur]
    n_others = cum[:, -1] - cur_alive
    again = skip & cur_alive & (k >= cum[:, -1])
    kk = np.where(cur_alive, k, (k - 1) % np.maximum(n_others, 1) + 1)
    j = np.argmax(cum >= kk[:, None], axis=1)
    target = seats[ar, j]
    if rules.pass_rule == "single_round":
        skipped = with_cards & (np.arange(P)[None, :] <= j[:, None]) & skip[:, None] & ~again[:, None]
        st.passed[ar[:, None], seats] |= skipped
    return np.where(skip, target, cur), again


def _end_hand(rules: Rules, c: _Consts, st: State) -> None:
    """Score the finished hands, then end the session or reseat and deal the next hand."""
    B, P = st.batch_size, c.P
    ar = np.arange(B)
    last = st.finish < 0
    st.finish[:] = np.where(last, st.next_best[:, None], st.finish)
    st.hand_over[:] = True
    sp = st.seat_player.astype(np.int64)
    pos_by_player = np.empty((B, P), dtype=np.int8)
    pos_by_player[ar[:, None], sp] = st.finish
    st.last_finish[:] = pos_by_player
    st.hand_points[:] = c.points[pos_by_player.astype(np.int64)]
    st.points += st.hand_points
    st.hand_no += 1
    if rules.hands_per_session is not None:
        over = st.hand_no >= rules.hands_per_session
    else:
        over = (st.points >= rules.target_points).any(axis=1)
    st.phase[:] = np.where(over, OVER, PLAY)
    st.legal[over] = False
    st.legal[over, 0] = True
    go = np.flatnonzero(~over)
    if go.size == 0:
        return
    sub = st.take(go)
    rank_by_player = sub.last_finish.astype(np.int64)
    if rules.reseat:
        sub.seat_player[:] = _seating_from_ranks(c, rank_by_player)
    sub.social[:] = np.take_along_axis(rank_by_player, sub.seat_player.astype(np.int64), axis=1)
    sub.dealer[:] = np.argmax(sub.social == P - 1, axis=1)
    _start_hand(rules, c, sub)
    st.put(go, sub)


# --------------------------------------------------------------------------- reading
def rewards(rules: Rules, state: State) -> np.ndarray:
    """(B, P) points by player of the hand the last step ended (zero elsewhere)."""
    return state.hand_points.copy()


def terminated(state: State) -> np.ndarray:
    """(B,) whether each session is over."""
    return state.phase == OVER


def exchange_kind(rules: Rules, state: State) -> np.ndarray:
    """(B,) the exchange decision each game is at: 0 a give-back, 1 a merchant's first pick,
    2 the second pick (``merchant_trade``); -1 outside the exchange."""
    c = _consts(rules)
    n = len(c.ex_kind)
    if n == 0:
        return np.full(state.batch_size, -1, dtype=np.int64)
    step = np.minimum(state.exch_step.astype(np.int64), n - 1)
    return np.where(state.phase == EXCHANGE, c.ex_kind[step], -1)


def current_player(state: State) -> np.ndarray:
    """(B,) the player (not seat) to act."""
    return state.seat_player[np.arange(state.batch_size), state.current.astype(np.int64)].astype(np.int64)


__all__ = [
    "IllegalActionError", "State", "init", "step", "step_inplace", "legal_action_mask",
    "rewards", "terminated", "current_player", "exchange_kind",
    "check_actions", "make_keys", "WILD", "EXCHANGE", "PLAY", "OVER",
]
