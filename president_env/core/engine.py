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
from .poker_mask import PokerConsts, claims_ok, counts, picks_ok, poker_consts, zero_counts
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
    act_run: np.ndarray         # (A,) run length, 0 for a set (card-level rules)
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
    A_rank: int                 # ids of the rank-level table (the card-level table maps its sets onto them)
    cl: _CardConsts | None      # card-level rules (suit_rule, runs): the tables of card_mask and the plays
    pk: PokerConsts | None      # combinations poker: the claim table counted (poker_mask)


@dataclass(frozen=True, eq=False)
class _CardConsts:
    """Lookup arrays of the card-level action table (``Rules.card_level``).

    Sets are ids ``1..Js``, runs ``Js+1..A-1``. What a player holds of each kind is one
    integer *code* (a column of ``held @ code_mat``): for a kind with suits, one digit per
    suit in base ``decks + 1``; for a kind without suits (jokers, high cards), ``n_suited``
    plus the count. A set is holdable when ``hold_lut[held code, its need code]`` and the
    player has its wild cards."""

    Js: int
    set_rid: np.ndarray          # (Js,) rank-level id (1-based) of each set
    set_p: np.ndarray            # (Js,) play rank
    set_n: np.ndarray            # (Js,) cards
    set_w: np.ndarray            # (Js,) wild cards
    set_col: np.ndarray          # (Js,) code column of its kind
    set_need: np.ndarray         # (Js,) code of its natural cards
    set_hi: np.ndarray           # (Js,) strongest natural suit (place in suit_order), -1 none
    set_lo: np.ndarray           # (Js,) weakest natural suit, 4 none
    set_red: np.ndarray          # (Js,) natural red cards (D, H)
    set_black: np.ndarray        # (Js,) natural black cards (C, S)
    set_colour: np.ndarray       # (Js,) bool every card has a colour (no wild card, no joker, a suited kind)
    set_fsuit: np.ndarray        # (Js,) follow: suit of a natural single, -1 a single that follows any suit
    set_low: np.ndarray          # (Js,) bool holds the lowest card (first lead)
    code_mat: np.ndarray         # (C, ncol) float32
    code_off: np.ndarray         # (ncol,) int
    hold_lut: np.ndarray         # (ncode * ncode,) bool flattened [held code, need code]
    ncode: int
    claim_lut: np.ndarray        # (R, ncode) set id claiming every natural card of a code (quick_clear), -1 none
    kind_col: np.ndarray         # (R,) code column of each play rank
    run_s: np.ndarray            # (Jr,) suit place
    run_L: np.ndarray            # (Jr,) length
    run_cmp: np.ndarray          # (2, Jr) play rank a run is compared by [normal: highest card, revolution: lowest]
    run_str: np.ndarray          # (2, Jr) strength of that rank in the order [normal, revolution]
    run_L8: np.ndarray           # (Jr,) int8 run_L
    run_lo_idx: np.ndarray       # (Jr,) flat index of its window start in the (4, NR+1) cumulative presence
    run_hi_idx: np.ndarray       # (Jr,) ... and of its window end
    run_low: np.ndarray          # (Jr,) bool holds the lowest card
    pres_mat: np.ndarray         # (C, 4*NR) float32 natural non-wild cards by (suit, rank position)
    NR: int
    need_card: np.ndarray        # (A, C) int8 natural cards of each card's name an action takes
    group_first: np.ndarray      # (C,) first card index with the same name
    card_red: np.ndarray         # (C,) bool
    card_black: np.ndarray       # (C,) bool
    card_fsuit: np.ndarray       # (C,) follow: suit of a natural non-wild non-high card, -1 otherwise
    card_nat8: np.ndarray        # (C,) bool a natural 8 (eight_cut on runs)
    blocks: tuple                # per play rank: (first set, end, code column, lut) with lut[code_w, n] (or, when
    #                              4 x decks = 4, lut[code_w * 16 + size bits, n]: holdable and of a legal size)
    holdj: np.ndarray            # (Js * ncode * (W+1),) bool [set, code_w] holdable (patching single columns)
    W: int                       # wild cards counted in the holdings code (the most any set uses)
    rid_start: np.ndarray        # (A_rank,) first set (0-based) of each rank-level id
    rid_len: np.ndarray          # (A_rank,) its sets
    Wr: int                      # the most sets of one rank-level id
    rank_start: np.ndarray       # (R,) first set of each play rank
    rank_len: np.ndarray         # (R,)
    Wk: int                      # the most sets of one play rank
    follow_ok: np.ndarray        # (4, Js) bool sets that may beat a natural single of each suit (follow)
    singles: np.ndarray          # set indices of the singles
    copies: bool                 # some natural card name has several copies (two decks, plain jokers)
    wild_cols: np.ndarray        # card indices of the wild cards, least wild first
    named_wild: bool             # sets name their wild cards' suits (Rules.names_wild_cards, fine point 10)
    wild_slot: np.ndarray        # (C,) named_wild: a wild card's suit place 0..3, 4 a wild joker; -1 not wild
    wild_need: np.ndarray        # (A, 5) named_wild: the wild cards each action names, per slot (none: pass, runs)


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
        act_rank=at.rank, act_size=at.size, act_run=at.run if at.card_level else np.zeros(at.n, np.int64),
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
        A_rank=1 + R * rules.max_set,
        cl=_card_consts(rules, t, at) if rules.card_level else None,
        pk=poker_consts(rules) if rules.poker else None,
    )


def _card_consts(rules: Rules, t: Tables, at) -> _CardConsts:  # noqa: C901 - one table after another
    C, R, S, d = t.n_cards, t.n_play_ranks, rules.max_set, rules.decks
    base = d + 1
    n_suited = base ** 4
    A = at.n
    Js = int(np.sum(at.run[1:] == 0))
    suit = t.card_suit
    # Code columns: one per play rank (WILD's column is always 0).
    suited_kind = np.array([k >= 0 and not t.kind_high[k] and t.kinds[k] not in ("JK", "BJ", "RJ")
                            for k in t.play_kind])
    code_mat = np.zeros((C, R), dtype=np.float32)
    code_off = np.zeros(R, dtype=np.int64)
    for p, k in enumerate(t.play_kind):
        if k < 0:
            continue
        cards = np.flatnonzero(t.card_kind == k)
        if suited_kind[p]:
            code_mat[cards, p] = base ** suit[cards]
        else:
            code_mat[cards, p] = 1
            code_off[p] = n_suited
    ncode = n_suited + int(t.kind_count.max()) + 1
    hold = np.zeros((ncode, ncode), dtype=bool)
    digits = np.array([[(x // base ** i) % base for i in range(4)] for x in range(n_suited)])
    hold[:n_suited, :n_suited] = (digits[:, None, :] >= digits[None, :, :]).all(axis=2)
    cnt = np.arange(ncode - n_suited)
    hold[n_suited:, n_suited:] = cnt[:, None] >= cnt[None, :]
    name_index = {n: i for i, n in reversed(list(enumerate(t.card_names)))}
    set_need = np.zeros(Js, dtype=np.int64)
    rows = range(1, Js + 1)
    set_p = at.rank[1:Js + 1].copy()
    lowest = t.card_names[t.lowest_card]
    named_wild = at.names_wild
    wild_slot = np.where(t.card_wild, np.where(suit >= 0, suit, 4), -1)
    wild_need = np.zeros((A, 5), dtype=np.int64)
    hi, lo, red, black, colour, fsuit, low = ([] for _ in range(7))
    claim = np.full((R, ncode), -1, dtype=np.int64)
    for j in rows:
        p = int(at.rank[j])
        names = at.cards[j]
        sts = [int(suit[name_index[n]]) for n in names if suit[name_index[n]] >= 0]  # printed suits (high cards too)
        if suited_kind[p]:
            set_need[j - 1] = sum(base ** s_ for s_ in sts)
        elif t.play_kind[p] >= 0:
            set_need[j - 1] = n_suited + len(names)
        if named_wild:  # the suits of the wild cards it names count where suits are compared (fine point 1)
            for x in at.wild_suits[j]:
                slot = 4 if x == "JK" else rules.suit_order.index(x)
                wild_need[j, slot] += 1
            sts_all = sts + [rules.suit_order.index(x) for x in at.wild_suits[j] if x != "JK"]
        else:
            sts_all = sts
        hi.append(max(sts_all, default=-1))
        lo.append(min(sts_all, default=4))
        red.append(sum(rules.suit_order[s_] in "DH" for s_ in sts))
        black.append(sum(rules.suit_order[s_] in "CS" for s_ in sts))
        colour.append(bool(sts) and at.wild[j] == 0)
        single_nat = at.size[j] == 1 and at.wild[j] == 0 and bool(sts)     # a natural or high card: its suit
        fsuit.append(sts[0] if single_nat else -1)
        low.append(lowest in names)
        if at.wild[j] == 0 and t.play_kind[p] >= 0:
            claim[p, set_need[j - 1]] = j
    # Runs.
    NR = t.n_naturals
    run_ids = np.arange(Js + 1, A)
    run_s = np.array([suit[name_index[at.cards[j][0]]] for j in run_ids], dtype=np.int64)
    run_L = at.run[run_ids].astype(np.int64)
    run_lo_p = at.rank[run_ids].astype(np.int64)
    run_lo_pos = t.play_kind[run_lo_p] if run_ids.size else run_lo_p
    run_cmp = np.stack([run_lo_p + run_L - 1, run_lo_p]) if run_ids.size else np.zeros((2, 0), np.int64)
    pres_mat = np.zeros((C, 4 * NR), dtype=np.float32)
    for c_ in range(C):
        k = t.card_kind[c_]
        if k < NR and not t.kind_wild[k]:
            pres_mat[c_, suit[c_] * NR + k] = 1
    need_card = np.zeros((A, C), dtype=np.int8)
    names_arr = np.array(t.card_names)
    for j in range(1, A):
        for n in at.cards[j]:
            need_card[j, names_arr == n] += 1
    group_first = np.array([name_index[n] for n in t.card_names], dtype=np.int64)
    suit_letter = np.array([rules.suit_order[s_] if s_ >= 0 else "" for s_ in suit])
    natural_card = (t.card_kind < NR) & ~t.card_wild
    printed = (suit >= 0) & ~t.card_wild          # a card whose suit and colour count (wild cards have none)
    eight = [k for k in range(NR) if t.kinds[k] == "8"]
    # Per play rank, one table from (held code, wild cards held) to its holdable sets.
    set_w = at.wild[1:Js + 1]
    W = int(set_w.max()) if Js else 0
    blocks = []
    A_rank = 1 + R * S
    rid_start = np.zeros(A_rank, dtype=np.int64)
    rid_len = np.zeros(A_rank, dtype=np.int64)
    rank_start = np.zeros(R, dtype=np.int64)
    rank_len = np.zeros(R, dtype=np.int64)
    set_rid = at.rank_id[1:Js + 1]
    for p in range(R):
        idx = np.flatnonzero(set_p == p)
        if not idx.size:
            continue
        s0, s1 = int(idx[0]), int(idx[-1]) + 1
        assert s1 - s0 == idx.size, "sets of one play rank are contiguous"
        rank_start[p], rank_len[p] = s0, idx.size
        codes = np.arange(ncode * (W + 1))
        h, w = codes // (W + 1), codes % (W + 1)
        lut = hold[h][:, set_need[s0:s1]] & (set_w[s0:s1][None, :] <= w[:, None])
        if S <= 4:  # fold in the rank-level sizes: row code_w * 2^S + (legal sizes as bits)
            bits = np.arange(2 ** S)
            size_ok = (bits[:, None] >> (at.size[1 + s0:1 + s1][None, :] - 1)) & 1    # (2^S, n)
            lut = (lut[:, None, :] & size_ok[None, :, :].astype(bool)).reshape(-1, s1 - s0)
        blocks.append((s0, s1, p, lut))
    for rid in np.unique(set_rid):
        idx = np.flatnonzero(set_rid == rid)
        rid_start[rid], rid_len[rid] = idx[0], idx.size
    fsuit_a = np.array(fsuit, dtype=np.int64)
    single = (at.size[1:Js + 1] == 1)[None, :]
    follow_ok = single & ((fsuit_a[None, :] == np.arange(4)[:, None]) | (fsuit_a < 0)[None, :])
    codes_w = np.arange(ncode * (W + 1))
    holdj = (hold[codes_w // (W + 1)][:, set_need] & (set_w[None, :] <= (codes_w % (W + 1))[:, None])).T.copy()
    return _CardConsts(
        holdj=holdj.reshape(-1),
        blocks=tuple(blocks), W=W, rid_start=rid_start, rid_len=rid_len, Wr=int(rid_len.max()),
        rank_start=rank_start, rank_len=rank_len, Wk=int(rank_len.max()), follow_ok=follow_ok,
        singles=np.flatnonzero(at.size[1:Js + 1] == 1),
        copies=bool(np.any(group_first != np.arange(C)) and np.any(need_card[:, group_first != np.arange(C)])),
        wild_cols=np.flatnonzero(t.card_wild),
        named_wild=named_wild, wild_slot=wild_slot, wild_need=wild_need,
        Js=Js, set_rid=at.rank_id[1:Js + 1].copy(), set_p=set_p, set_n=at.size[1:Js + 1].copy(),
        set_w=at.wild[1:Js + 1].copy(), set_col=set_p.copy(), set_need=set_need,
        set_hi=np.array(hi, dtype=np.int64), set_lo=np.array(lo, dtype=np.int64),
        set_red=np.array(red, dtype=np.int64), set_black=np.array(black, dtype=np.int64),
        set_colour=np.array(colour, dtype=bool), set_fsuit=np.array(fsuit, dtype=np.int64),
        set_low=np.array(low, dtype=bool),
        code_mat=code_mat, code_off=code_off, hold_lut=hold.reshape(-1), ncode=ncode, claim_lut=claim,
        kind_col=np.arange(R),
        run_s=run_s, run_L=run_L, run_cmp=run_cmp, run_L8=run_L.astype(np.int8),
        run_str=np.stack([t.strength[0][run_cmp[0]], t.strength[1][run_cmp[1]]]).astype(np.int64),
        run_lo_idx=run_s * (NR + 1) + run_lo_pos, run_hi_idx=run_s * (NR + 1) + run_lo_pos + run_L,
        run_low=np.array([lowest in at.cards[j] for j in run_ids], dtype=bool),
        pres_mat=pres_mat, NR=NR, need_card=need_card, group_first=group_first,
        card_red=np.isin(suit_letter, ["D", "H"]) & printed, card_black=np.isin(suit_letter, ["C", "S"]) & printed,
        card_fsuit=np.where(printed, suit, -1),
        card_nat8=natural_card & np.isin(t.card_kind, eight),
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
        claim_next=np.full(B, -1, np.int8), top_run=z8(B), top_cards=np.zeros((B, C), bool),
        played_cards=np.zeros((B, C), bool),
        points=np.zeros((B, P), np.int32), hand_points=np.zeros((B, P), np.int32),
        hand_over=np.zeros(B, bool), last_finish=np.full((B, P), -1, np.int8),
        moved=np.zeros((B, C), bool), legal=np.zeros((B, c.A), bool),
        poker_claim=np.zeros(B, np.int16), picked=np.zeros((B, C), bool), top_claim=np.zeros(B, np.int16),
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
    st.top_run[:] = 0
    st.top_cards[:] = False
    st.played_cards[:] = False
    st.top_claim[:] = 0
    st.poker_claim[:] = 0
    st.picked[:] = False

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
            if c.cl is None:
                n = st.counts[cl, st.current[cl].astype(np.int64), c.play_kind[r]].astype(np.int64)
                claim = 1 + r * c.S + n - 1
            else:
                held = st.hands[cl, st.current[cl].astype(np.int64)].astype(np.float32)
                code = (held @ c.cl.code_mat).astype(np.int64)[np.arange(cl.size), r] + c.cl.code_off[r]
                claim = c.cl.claim_lut[r, code]
            st.legal[cl] = False
            st.legal[cl, 0] = True
            st.legal[cl, claim] = True
    if not (phase == PLAY).all():
        ex = np.flatnonzero(phase == EXCHANGE)
        if ex.size:
            if c.pk is not None:
                st.legal[ex] = _poker_exchange_mask(c, st.hands[ex, st.current[ex].astype(np.int64)])
            elif c.cl is None:
                st.legal[ex] = _exchange_mask(c, st.counts[ex, st.current[ex]])
            else:
                st.legal[ex] = _card_exchange_mask(c, st.hands[ex, st.current[ex].astype(np.int64)])
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


def _card_exchange_mask(c: _Consts, held: np.ndarray) -> np.ndarray:
    """Card-level give-backs and trades: any one card held (a single's id; wild cards: the WILD single)."""
    cl = c.cl
    code, _ = _holdable(c, held)
    allowed = np.zeros((held.shape[0], c.R, c.S), dtype=bool)
    allowed[:, :, 0] = True
    out = np.zeros((held.shape[0], c.A), dtype=bool)
    out[:, 1:cl.Js + 1] = _sets(c, code, allowed, _wild_held(c, held))
    return out


def _select(c: _Consts, held: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Card-level: the cards action ``a`` takes from ``held`` (N, C): its natural cards (the first copy
    held of each name), then the least wild cards held for the rest of its size."""
    cl = c.cl
    if cl.copies:  # two decks (or several plain jokers): take the first copies held of each name
        before = np.cumsum(held, axis=1, dtype=np.int16) - held
        prior = before - np.take(before, cl.group_first, axis=1)      # held cards of the same name before this one
        sel = held & (prior < cl.need_card[a])
    else:
        sel = held & (cl.need_card[a] > 0)
    if c.t.has_wild:
        wc = cl.wild_cols
        wild = held[:, wc]
        n_wild = c.act_size[a] - sel.sum(axis=1)
        taken = wild & (np.cumsum(wild, axis=1) <= n_wild[:, None])   # the least wild cards
        if cl.named_wild:  # a set takes the least wild cards held of each suit it names (fine point 10)
            slot = cl.wild_slot[wc]
            need = cl.wild_need[a]      # (N, 5)
            named = np.zeros_like(wild)
            for s_ in range(5):
                m = wild & (slot == s_)[None, :]
                named |= m & (np.cumsum(m, axis=1) <= need[:, s_:s_ + 1])
            taken = np.where((c.act_run[a] > 0)[:, None], taken, named)
        sel[:, wc] = taken
    return sel


def _poker_exchange_mask(c: _Consts, held: np.ndarray) -> np.ndarray:
    """Poker give-backs and trades: the pick id of any card name held."""
    pk = c.pk
    out = np.zeros((held.shape[0], c.A), dtype=bool)
    out[:, 1 + pk.X:] = (held.astype(np.float32) @ pk.name_mat) > 0
    return out


def _poker_mask(rules: Rules, c: _Consts, st: State) -> np.ndarray:
    """Poker (docs/rules.md 45): with no pending claim, pass and the claims that can be completed and lead
    or beat the top; with one, the picks that keep it completable (and the first-pick rules)."""
    pk = c.pk
    N = st.batch_size
    ar = np.arange(N)
    cur = st.current.astype(np.int64)
    held = st.hands[ar, cur]
    picked = st.picked
    avail = held & ~picked
    A = counts(pk, avail)
    rev = st.revolution
    out = np.zeros((N, c.A), dtype=bool)
    top = st.top_claim.astype(np.int64)
    lead = top == 0
    claim = st.poker_claim.astype(np.int64)
    avail_names = (avail.astype(np.float32) @ pk.name_mat) > 0

    def good(g: np.ndarray) -> np.ndarray:
        """(G, U) card names whose suit beats the best suit of the top (equals it, with equal_rank_beats)."""
        r = rev[g]
        suit = c.t.card_suit.astype(np.int8)
        tc = st.top_cards[g]
        hi = np.where(tc, suit, np.int8(-1)).max(axis=1)
        lo = np.where(tc, suit, np.int8(4)).min(axis=1)
        top_suit = np.where(r, 3 - lo, hi)[:, None]
        name_str = np.where(r[:, None], 3 - pk.name_s[None, :], pk.name_s[None, :])
        return (name_str >= top_suit) if rules.equal_rank_beats else (name_str > top_suit)

    g = np.flatnonzero(claim == 0)
    if g.size:
        first = st.first_lead[g] & lead[g]
        if first.any():  # the first lead holds the lowest card: count it as picked already
            low = np.zeros((g.size, c.C), dtype=bool)
            held_low = avail[g][:, c.lowest_cards]                       # either copy, with two decks
            has = first & held_low.any(axis=1)
            low[np.flatnonzero(has), c.lowest_cards[np.argmax(held_low[has], axis=1)]] = True
            S_g, A_g = counts(pk, low), counts(pk, avail[g] & ~low)
        else:
            S_g, A_g = zero_counts(pk, g.size), A[g]
        tg = top[g]
        ok = np.zeros((g.size, pk.X + 1), dtype=bool)
        for n in np.unique(pk.n[tg]).tolist():  # a lead (n = 0) may claim anything, a follow its count (or a bomb)
            h = np.flatnonzero(pk.n[tg] == n)
            want = None if n == 0 else (pk.n == n) | (pk.bomb if rules.four_of_a_kind == "bomb" else False)
            ok[h] = claims_ok(pk, S_g[h], A_g[h], rev[g[h]], want)
        own = ok[np.arange(g.size), tg]                                             # the top's claim can be made
        r = rev[g].astype(np.int64)
        strength = pk.strength[r]                                                  # (G, X+1)
        top_str = strength[np.arange(g.size), tg]
        beats = (pk.n[None, :] == pk.n[tg][:, None]) & (strength > top_str[:, None])
        if rules.four_of_a_kind == "bomb":
            beats |= pk.bomb[None, :]
        beats |= lead[g][:, None]
        ok &= beats
        same = np.flatnonzero(~lead[g])
        same = same[own[same]]
        if same.size:  # the top's own claim: a completion holding a card whose suit beats the top's
            gg = g[same]
            tc = top[gg]
            p_ok = picks_ok(pk, tc, zero_counts(pk, gg.size), A[gg], rev[gg])
            ok[same, tc] = (p_ok & good(gg) & avail_names[gg]).any(axis=1)
        ok[:, 0] = False
        out[g, 1:pk.X + 1] = ok[:, 1:]
        can_pass = ~lead[g]
        if rules.compulsory_beat:
            can_pass &= ~ok.any(axis=1)
        out[g, 0] = can_pass
    g = np.flatnonzero(claim > 0)
    if g.size:
        p_ok = picks_ok(pk, claim[g], counts(pk, picked[g]), A[g], rev[g]) & avail_names[g]
        none = ~picked[g].any(axis=1)
        bind = none & (claim[g] == top[g])
        if bind.any():
            p_ok[bind] &= good(g[bind])
        low = none & st.first_lead[g] & lead[g]
        if low.any():
            p_ok[low] &= np.arange(pk.U)[None, :] == pk.lowest_name
        out[g, 1 + pk.X:] = p_ok
    return out


def _play_mask(rules: Rules, c: _Consts, st: State) -> np.ndarray:
    """Legal plays: the rank-level table's (B, A) mask, or on card-level rules :func:`_card_mask`."""
    if c.pk is not None:
        return _poker_mask(rules, c, st)
    if c.cl is not None:
        return _card_mask(rules, c, st)
    legal, extra, cap, lead, first = _rank_parts(rules, c, st)
    N = legal.shape[0]
    if extra is not None:
        legal |= extra & (c.sizes[None, None, :] <= cap[:, :, None])
        if first.any():  # fine point 14: whatever a rule adds, the first lead holds the lowest card
            legal[first] &= (np.arange(c.R) == c.t.lowest_play_rank)[None, :, None]
    out = np.empty((N, c.A), dtype=bool)
    flat = legal.reshape(N, -1)
    out[:, 1:] = flat
    can_pass = ~lead
    if rules.compulsory_beat:
        can_pass &= ~flat.any(axis=1)
    out[:, 0] = can_pass
    return out


def _rank_parts(rules: Rules, c: _Consts, st: State  # noqa: C901 - one block per option
                ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """Legal plays per (rank, size) as size intervals per rank (lo <= size <= hi), and the options
    that are not intervals. Returns (bound (N,R,S), extra (N,R,S) or None, cap (N,R), lead, first lead).

    *bound* are the plays the normal, equal, transparent and wild-tie rules allow (capped by the
    player's holdings), *extra* those the clearing and power rules add (trump, reset, bomb, power,
    complete set; not yet capped). Card-level rules put trumps in *extra* (they beat a run and are
    not bound by ``follow``), leave the wild tie to :func:`_card_mask`, and allow no bound play on a run."""
    cl = c.cl is not None
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
    on_run = st.top_run > 0 if rules.runs else None
    ts = st.top_size[g].astype(np.int16)[:, None]
    if on_run is not None:
        ts = np.minimum(ts, S + 1)  # a run longer than any set: no set size matches it
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
    if rules.wild_tie != "equal" and wild is not None and not cl:
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
    trump = None
    if c.trump_play.any():
        trump = c.trump_play[None, :] & higher
        if not cl:
            lo = np.where(trump, 1, lo)
            hi = np.where(trump, big, hi)
    if on_run is not None:
        hi = np.where(on_run[:, None], 0, hi)
    lo = np.where(lead[:, None], 1, lo)
    hi = np.minimum(np.where(lead[:, None], big, hi), cap)
    first = st.first_lead[g]
    if first.any():
        hi[first] *= (np.arange(R) == c.t.lowest_play_rank)[None, :].astype(np.int16)
    s = c.sizes[None, None, :]
    # legal[b, r, size] = lo <= size <= hi, read from a table of all (lo, hi) pairs.
    legal = np.take(c.size_lut, (np.minimum(lo, big) * (S + 2) + hi).astype(np.intp), axis=0)
    extra = None
    if cl and trump is not None:
        extra = np.broadcast_to(trump[:, :, None] & ~lead[:, None, None], (N, R, S)).copy()
    if c.reset_play.any():
        extra = np.zeros((N, R, S), dtype=bool) if extra is None else extra
        if rules.revolution_reset_rank is None:
            extra[:, c.reset_play[0], 0] = True
        else:
            extra[:, :, 0] |= c.reset_play[st.revolution[g].astype(np.int64)]
    if c.has_power:
        floor = c.power_floor[st.revolution[g].astype(np.int64)] if rules.four_of_a_kind in (
            "revolution", "revolution_and_reverse") else c.power_floor[0]
        below = ~lead & (top_str < floor)
        pts = np.where(ts[:, 0] > S, 0, ts[:, 0]).astype(np.int64)
        power = np.moveaxis(c.power_lut[:, pts], 1, 0) & below[:, None, None]
        extra = power if extra is None else (extra | power)
    if rules.four_of_a_kind == "bomb":
        bomb = np.zeros((N, R, S), dtype=bool) if extra is None else extra
        bomb[:, :, 3:] = True
        extra = bomb
    if rules.complete_set_clears:
        done = (same[:, :, None] & (s >= (S - st.top_count[g].astype(np.int16))[:, None, None]))
        if on_run is not None:
            done &= ~on_run[:, None, None]
        extra = done if extra is None else (extra | done)
    return legal, extra, cap, lead, first


def _holdable(c: _Consts, held: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(N, C) cards held -> (N, R) holdings codes (with the wild cards held folded in, see
    :class:`_CardConsts`), and (N,) wild cards held (None without wild cards)."""
    cl = c.cl
    code = (held.astype(np.float32) @ cl.code_mat).astype(np.int64) + cl.code_off       # (N, R)
    wild = None
    if c.t.has_wild:
        wild = (held & c.t.card_wild).sum(axis=1)
        return code * (cl.W + 1) + np.minimum(wild, cl.W)[:, None], wild
    return code * (cl.W + 1), wild


def _wild_held(c: _Consts, held: np.ndarray) -> np.ndarray | None:
    """Where sets name their wild cards' suits: (N, Js) whether the player holds the wild cards of each
    set (per suit, and wild jokers); None where the engine chooses the wild cards."""
    cl = c.cl
    if not cl.named_wild:
        return None
    wc = cl.wild_cols
    per_slot = np.stack([(held[:, wc] & (cl.wild_slot[wc] == s_)[None, :]).sum(axis=1) for s_ in range(5)], axis=1)
    return (per_slot[:, None, :] >= cl.wild_need[None, 1:cl.Js + 1, :]).all(axis=2)


def _sets(c: _Consts, code: np.ndarray, allowed: np.ndarray, wild_held: np.ndarray | None) -> np.ndarray:
    """(N, Js) the sets the player holds whose rank-level (rank, size) is in ``allowed`` (N, R, S).
    ``wild_held``: :func:`_wild_held` (the named wild cards held), or None."""
    cl = c.cl
    N = code.shape[0]
    out = np.empty((N, cl.Js), dtype=bool)
    if c.S <= 4:  # one deck: S = 4 and the four sizes of a rank are four bytes, read as one uint32
        x = np.ascontiguousarray(allowed).view(np.uint32)[:, :, 0]
        bits = (x & 1) | ((x >> 7) & 2) | ((x >> 14) & 4) | ((x >> 21) & 8)
        idx = code * (1 << c.S) + bits
        for s0, s1, col, lut in cl.blocks:
            out[:, s0:s1] = np.take(lut, idx[:, col], axis=0)
    else:
        for s0, s1, col, lut in cl.blocks:
            out[:, s0:s1] = np.take(lut, code[:, col], axis=0)
        out &= np.take(allowed.reshape(N, -1), cl.set_rid - 1, axis=1)
    if wild_held is not None:
        out &= wild_held
    return out


def _patch(c: _Consts, sets: np.ndarray, code: np.ndarray, legal: np.ndarray, extra: np.ndarray | None,
           g: np.ndarray, cols: np.ndarray, ok: np.ndarray, bound: np.ndarray, wild_held: np.ndarray | None) -> None:
    """Set ``sets[g, cols]`` where ``ok`` to (``bound`` or a free play) and holdable: the columns a suit
    rule decides. ``cols`` (G, k) are set indices, ``bound`` (G, k) what the suit rule allows."""
    cl = c.cl
    p = cl.set_p[cols]
    n = cl.set_n[cols] - 1
    free = extra[g[:, None], p, n] if extra is not None else False
    held = cl.holdj[cols * (cl.ncode * (cl.W + 1)) + np.take_along_axis(code[g], p, axis=1)]
    if wild_held is not None:
        held = held & wild_held[g[:, None], cols]
    gi, ki = np.nonzero(ok)   # only the real columns (padding points at column 0, which may be real too)
    sets[g[gi], cols[gi, ki]] = ((bound | free) & held)[gi, ki]


def _card_mask(rules: Rules, c: _Consts, st: State) -> np.ndarray:  # noqa: C901 - one block per option
    """Card-level legal plays: each set where its rank-level (rank, size) is legal and the player holds
    its cards, with the suit rule applied; each run the player can make that leads or beats the run on top.

    The suit rules change only the sets of the top's rank (and size), and under ``follow`` the singles:
    they are worked out on those few columns per game (:func:`_patch`), not on the whole table."""
    cl = c.cl
    legal, extra, cap, lead, first = _rank_parts(rules, c, st)
    N = legal.shape[0]
    ar = np.arange(N)
    cur = st.current.astype(np.int64)
    held = st.hands[ar, cur]
    code, wild = _holdable(c, held)
    wheld = _wild_held(c, held)
    top = st.top_rank.astype(np.int64)
    on_set = (top >= 0) & (st.top_run == 0)
    ts = st.top_size.astype(np.int64)
    top_cards = st.top_cards
    bind = None
    if rules.suit_rule == "follow":  # a natural single on top: no bigger set beats it by the bound rules
        fs = np.where(top_cards, cl.card_fsuit, -1).max(axis=1)
        bind = np.flatnonzero(on_set & (ts == 1) & (fs >= 0))
        if bind.size:
            legal[bind, :, 1:] = False
    allowed = legal if extra is None else (legal | extra)
    sets = _sets(c, code, allowed, wheld)
    if rules.suit_rule == "colour":
        g = np.flatnonzero(on_set)
        if g.size:
            k = np.arange(cl.Wk)
            cols = cl.rank_start[top[g]][:, None] + k[None, :]
            ok = k[None, :] < cl.rank_len[top[g]][:, None]
            cols = np.where(ok, cols, 0)
            if rules.size_rule == "bigger_beats_any":  # a bigger set beats by its size, whatever its colours
                ok &= cl.set_n[cols] <= ts[g][:, None]
            red = (top_cards[g] & cl.card_red).sum(axis=1)[:, None]
            black = (top_cards[g] & cl.card_black).sum(axis=1)[:, None]
            reverse = cl.set_colour[cols] & (cl.set_red[cols] == black) & (cl.set_black[cols] == red)
            n = cl.set_n[cols]   # the size rule still holds (fine point 3 lifts only the rank)
            reverse &= (n >= ts[g][:, None]) if rules.size_rule == "at_least" else (n == ts[g][:, None])
            _patch(c, sets, code, legal, extra, g, cols, ok, reverse, wheld)
    elif rules.suit_rule == "rank" or (rules.wild_tie != "equal" and c.t.has_wild):
        g = np.flatnonzero(on_set)
        if g.size:
            k = np.arange(cl.Wr)
            trid = top[g] * c.S + ts[g]
            cols = cl.rid_start[trid][:, None] + k[None, :]
            ok = k[None, :] < cl.rid_len[trid][:, None]
            cols = np.where(ok, cols, 0)
            p = cl.set_p[cols]
            if c.transparent >= 0:
                ok &= p != c.transparent
            if c.t.has_wild:
                ok &= p != c.R - 1   # all-wild sets stay equal
            cmp = np.zeros(cols.shape, dtype=np.int64)
            if rules.suit_rule == "rank":
                tc = top_cards[g] & (c.t.card_suit >= 0)
                top_hi = np.where(tc, c.t.card_suit, -1).max(axis=1)
                top_lo = np.where(tc, c.t.card_suit, 4).min(axis=1)
                set_hi, set_lo = cl.set_hi[cols], cl.set_lo[cols]   # wild cards' suits named (fine point 10)
                if rules.four_of_a_kind in ("revolution", "revolution_and_reverse"):
                    rev = st.revolution[g]
                    key = np.where(rev[:, None], np.where(set_lo < 4, 3 - set_lo, -1), set_hi)
                    top_key = np.where(rev, np.where(top_lo < 4, 3 - top_lo, -1), top_hi)
                else:
                    key, top_key = set_hi, top_hi
                known = (key >= 0) & (top_key >= 0)[:, None]
                cmp = np.where(known, np.sign(key - top_key[:, None]), 0)
            if rules.wild_tie != "equal" and c.t.has_wild:
                mine = cl.set_w[cols] > 0
                tw = st.top_wild[g][:, None]
                differ = mine != tw
                win = (~mine & tw) if rules.wild_tie == "natural_higher" else (mine & ~tw)
                cmp = np.where((cmp == 0) & differ, np.where(win, 1, -1), cmp)
            b = legal[g[:, None], p, cl.set_n[cols] - 1]
            _patch(c, sets, code, legal, extra, g, cols, ok, (cmp > 0) | ((cmp == 0) & b), wheld)
    if bind is not None and bind.size:  # follow: singles of the top's suit, or singles with no suit
        cols = np.broadcast_to(cl.singles, (bind.size, cl.singles.size))
        b = legal[bind[:, None], cl.set_p[cols], 0] & cl.follow_ok[fs[bind]][:, cl.singles]
        _patch(c, sets, code, legal, extra, bind, cols, np.ones(cols.shape, dtype=bool), b, wheld)
    if first.any():
        sets[first] &= cl.set_low[None, :]
    out = np.empty((N, c.A), dtype=bool)
    out[:, 1:cl.Js + 1] = sets
    if rules.runs:
        out[:, cl.Js + 1:] = _run_mask(c, st, held, wild, lead, first)
    can_pass = ~lead
    if rules.compulsory_beat:
        can_pass &= ~out[:, 1:].any(axis=1)
    out[:, 0] = can_pass
    return out


def _run_mask(c: _Consts, st: State, held: np.ndarray, wild: np.ndarray | None,
              lead: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Runs the player can make (at least one natural card, wild cards for the rest) that lead, or beat
    the run on top: the same length and a higher highest card in the current order. Worked out only for
    the games that lead or have a run on top (a run never beats a set)."""
    cl = c.cl
    N = held.shape[0]
    out = np.zeros((N, cl.run_L.size), dtype=bool)
    g = np.flatnonzero(lead | (st.top_run > 0))
    if not g.size:
        return out
    G = g.size
    pres = (held[g].astype(np.float32) @ cl.pres_mat).reshape(G, 4, cl.NR) > 0
    cs = np.zeros((G, 4, cl.NR + 1), dtype=np.int8)
    np.cumsum(pres, axis=2, out=cs[:, :, 1:])
    cs = cs.reshape(G, -1)
    nat = np.take(cs, cl.run_hi_idx, axis=1) - np.take(cs, cl.run_lo_idx, axis=1)
    ok = nat > 0
    if wild is not None:
        ok &= nat >= cl.run_L8[None, :] - wild[g, None].astype(np.int8)
    else:
        ok &= nat == cl.run_L8[None, :]
    on_run = ~lead[g]
    if on_run.any():
        rev = st.revolution[g].astype(np.int64)
        top_str = c.t.strength[rev, np.maximum(st.top_rank[g].astype(np.int64), 0)]
        beats = (st.top_run[g, None] == cl.run_L8[None, :]) & (np.take(cl.run_str, rev, axis=0) > top_str[:, None])
        ok &= ~on_run[:, None] | beats
    if first.any():
        ok[first[g]] &= cl.run_low[None, :]
    out[g] = ok
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
    if c.pk is not None:  # poker: a claim or a pick that is not the last one moves no card and no turn
        active = _poker_pick(c, st, a, active)
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


def _poker_pick(c: _Consts, st: State, a: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Poker claims and picks (docs/rules.md 45): a claim is noted; a pick takes the next copy of its card
    into ``picked``. Returns the games that play or pass now (a pass, or the claim's last pick)."""
    pk = c.pk
    is_claim = active & (a >= 1) & (a <= pk.X)
    is_pick = active & (a > pk.X)
    st.moved[is_claim | is_pick] = False
    if is_claim.any():
        st.poker_claim[is_claim] = a[is_claim]
        st.picked[is_claim] = False
    g = np.flatnonzero(is_pick)
    if g.size:
        held = st.hands[g, st.current[g].astype(np.int64)] & ~st.picked[g]
        cand = held & (pk.name_of[None, :] == (a[g] - 1 - pk.X)[:, None])
        st.picked[g, np.argmax(cand, axis=1)] = True
        done = st.picked[g].sum(axis=1) == pk.n[st.poker_claim[g].astype(np.int64)]
        is_pick[g[~done]] = False
    return active & ~is_claim & (is_pick | (a == 0))


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
    if c.pk is not None:  # poker: a pick id names the card
        cand = held & (c.pk.name_of[None, :] == (a - 1 - c.pk.X)[:, None])
    elif c.cl is not None:  # card-level: the card the id names
        cand = _select(c, held, a)
    elif c.t.has_wild:
        want = np.where((kind >= 0)[:, None], c.t.card_kind[None, :] == kind[:, None], c.t.card_wild[None, :])
        cand = held & want
    else:
        cand = held & (c.t.card_kind[None, :] == kind[:, None])
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
    pk = c.pk
    if pk is not None:  # poker: the claim's picked cards (a pass has none)
        claim = np.where(a > 0, st.poker_claim, 0).astype(np.int64)
        rank = pk.first_rank[claim]
        size = pk.n[claim]
    else:
        rank = c.act_rank[a]
        size = c.act_size[a]
    if active is not None:
        size = np.where(active, size, 0)
    is_play = size > 0
    is_pass = ~is_play if active is None else (active & ~is_play)

    is_run = old_run = None
    if pk is not None or c.cl is not None:  # actions that name cards: take those cards from the hand
        if pk is not None:  # poker: the claim's picked cards
            sel = st.picked & is_play[:, None]
            st.top_claim[:] = np.where(is_play, claim, st.top_claim)
            st.poker_claim[is_play] = 0
            st.picked[is_play] = False
        else:  # card-level: the cards the id names, then the least wild cards
            sel = _select(c, st.hands[ar, cur], a)
            if active is not None:
                sel &= active[:, None]
            if rules.runs:
                is_run = is_play & (c.act_run[a] > 0)
                old_run = st.top_run > 0
        st.hands[ar, cur] &= ~sel
        st.played_cards |= sel
        kc = _kind_counts(c, sel)
        st.counts[ar, cur] -= kc
        st.played += kc
        n_wild = (sel & c.t.card_wild).sum(axis=1)
        has_wild = n_wild > 0
    else:
        sel, has_wild, n_wild = _take_rank(c, st, cur, rank, size, is_play)
    st.n_cards[ar, cur] -= size.astype(np.int8)
    st.moved[:] = sel

    old_rank = st.top_rank.astype(np.int64)
    old_size = st.top_size.astype(np.int64)
    eff = rank
    if is_run is not None:  # a run is on top as the rank it is compared by (runs never start a revolution)
        eff = np.where(is_run, np.where(st.revolution, rank, rank + size - 1), rank)
        not_run = ~is_run & ~old_run
    else:
        not_run = True
    if c.transparent >= 0:
        eff = np.where((rank == c.transparent) & (old_rank >= 0) & (size == old_size) & not_run, old_rank, eff)
    if rules.complete_set_clears:  # cards of the top's rank in consecutive plays; a run counts none (fine point 6)
        count = np.where((eff == old_rank) & not_run, st.top_count + size, size)
        if is_run is not None:
            count = np.where(is_run, 0, count)
        st.top_count[:] = np.where(is_play, count, st.top_count)
    st.top_rank[:] = np.where(is_play, eff, old_rank)
    st.top_size[:] = np.where(is_play, size, old_size)
    st.top_owner[:] = np.where(is_play, cur, st.top_owner)
    st.top_wild[:] = np.where(is_play, has_wild, st.top_wild)
    st.first_lead &= ~is_play
    if c.cl is not None or pk is not None:
        st.top_cards[:] = np.where(is_play[:, None], sel, st.top_cards)
        if is_run is not None:
            st.top_run[:] = np.where(is_play, c.act_run[a], st.top_run)
    if rules.quick_clear:  # natural cards of the play's own rank in consecutive plays at the top
        claim_play = is_play & (st.claim_rank >= 0)
        nat_n = size - n_wild if c.t.has_wild else size
        own = rank if is_run is None else np.where(is_run, -1, rank)
        same_own = own == st.top_own
        st.qc_count[:] = np.where(is_play, np.where(same_own, st.qc_count + nat_n, nat_n), st.qc_count)
        st.top_own[:] = np.where(is_play, own, st.top_own)
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
    four = is_play & (size >= 4)
    if is_run is not None:
        four &= ~is_run  # a run is never a four of a kind
    if pk is not None:
        four = is_play & pk.bomb[claim]  # four or five of a kind, five wild cards (docs/rules.md 46)
    if rules.four_of_a_kind in ("revolution", "revolution_and_reverse"):
        flip = four.copy()
        if rules.revolution_by_singles:
            flip |= row_flip
        st.revolution ^= flip
        if rules.four_of_a_kind == "revolution_and_reverse":
            st.direction[:] = np.where(flip, -st.direction, st.direction)

    # Plays that end the trick at once.
    clear_self = np.zeros(B, dtype=bool)
    if c.trump_play.any():
        clear_self |= is_play & c.trump_play[rank] & (True if is_run is None else ~is_run)
    if rules.four_of_a_kind == "bomb":
        clear_self |= four
    if c.eight >= 0:
        eight = rank == c.eight
        if is_run is not None:  # a run with a natural 8 (section 8 fine point 6)
            eight = np.where(is_run, (sel & c.cl.card_nat8).any(axis=1), eight)
        clear_self |= is_play & eight
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
        skip = is_play & (rank == old_rank) & ~trick_end & ~ended & not_run
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
        asked = is_play & ~claim_play & ~clear_self & ~clear_next & ~ended
        if is_run is not None:
            asked &= ~is_run
        claimer, claim_now = _claimer(c, st, asked, rank, cur)
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
        if c.cl is not None or pk is not None:
            st.top_run[trick_end] = 0
            st.top_cards[trick_end] = False
            st.top_claim[trick_end] = 0
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


def _take_rank(c: _Consts, st: State, cur: np.ndarray, rank: np.ndarray, size: np.ndarray, is_play: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Rank-level: take a play's cards, natural cards first, lowest suit first, then wild cards. The cards
    of one kind are a block of at most 4 x decks columns, so only that block is looked at."""
    B = st.batch_size
    ar = np.arange(B)
    n_wild = None
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
    return sel, has_wild, n_wild


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
