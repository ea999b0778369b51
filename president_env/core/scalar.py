"""One game of President in plain Python: the single-game fast path of the batched engine.

:class:`ScalarGame` plays exactly the game :mod:`president_env.core.engine` plays (the
engine is the specification), but for one session and with plain ints and lists, so a
decision costs a few microseconds instead of the ~150 small NumPy calls the batched
engine makes per step. It converts to and from a batch-of-one :class:`State` field by
field (``from_state`` / ``to_state``), and its observation equals
:func:`president_env.core.observation.observe`.

.. code-block:: python

    g = ScalarGame.new(rules, seed=0)       # the same game as engine.init(rules, keys=make_keys(1, 0))
    while not g.over:
        g.step(g.legal[0])                  # g.legal: sorted legal action ids
    g.to_state()                            # a State with batch size 1

On card-level rules (``suit_rule``, ``runs``) the legal ids come from the sets the player holds
(cached per holding of a kind, grouped by rank-level id) and the runs it can make (cached per suit
holding and wild count), filtered as the engine's ``_card_mask`` does; a play takes the cards its id
names, then the least wild cards held (the engine's ``_select``). Under ``combinations poker`` a play is
a claim, then its cards picked one by one (docs/rules.md choices 41-48); the legal ids come by brute
force, independently of the engine's counting: every subset of 1 to 5 cards of the hand, stated claim by
claim (``_subset_claims``, tested equal to ``poker.satisfies``), tabled once per hand (a hand after a
play keeps the subsets it still holds), then filtered by what beats the top and the first-pick rules.
Rank-level rules take none of these paths.

What stays in NumPy: the first deal of a session (``new`` calls ``engine.init``) and the
shuffle of every later deal (the engine's counter-based hash of (key, hand number)), once
per hand. Everything per decision (legal actions, plays, passes, give-backs, going out,
scoring, reseating, the forced exchange) is plain Python.
"""

from __future__ import annotations

import operator
from bisect import insort
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from . import engine as E
from . import observation as O
from .actions import action_table, describe_action
from .rules import Rules
from .state import EXCHANGE, OVER, PLAY, State, field_names

__all__ = ["ScalarGame"]


# --------------------------------------------------------------------------- constants
@dataclass(eq=False)
class _Tab:
    """Per-rules constants as plain Python values (and a lazily filled interval cache)."""

    rules: Rules
    P: int
    C: int
    K: int
    R: int
    Rn: int
    S: int
    A: int
    D: int
    d: int
    play_kind: tuple[int, ...]
    card_kind: tuple[int, ...]
    kind_start: tuple[int, ...]
    wild_kinds: tuple[int, ...]
    has_wild: bool
    trump_play: tuple[bool, ...]
    reset_ranks: tuple[tuple[int, ...], tuple[int, ...]]   # [normal order, revolution]
    power_lut: tuple[tuple[tuple[int, ...], ...], ...]    # [rank][top size] -> sizes that beat it by power
    power_floor: tuple[int, int]
    has_power: bool
    high_play: tuple[bool, ...]
    kind_high: tuple[bool, ...]
    card_wild: tuple[bool, ...]
    quick_clear: bool
    forbidden_kind: tuple[bool, ...]
    transparent: int
    eight: int
    points: tuple[int, ...]
    give: tuple[int, ...]
    ex_decider: tuple[int, ...]
    ex_partner: tuple[int, ...]
    ex_kind: tuple[int, ...]
    ident_key: tuple[int, ...]
    strength: tuple[tuple[int, ...], tuple[int, ...]]
    lowest_play_rank: int
    lowest_cards: tuple[int, ...]
    best_key: tuple[int, ...]
    act_rank: tuple[int, ...]
    act_size: tuple[int, ...]
    revolutions: bool
    reverses: bool
    bomb: bool
    single_round: bool
    may_replay: bool
    skips: bool
    wild_tie: bool
    extras: bool
    extra_obs: bool
    # observation: offsets of the pieces
    off: dict[str, int]
    onehot_top: tuple[tuple[int, ...], ...]
    onehot_size: tuple[tuple[int, ...], ...]
    onehot_owner: tuple[tuple[int, ...], ...]
    onehot_phase: tuple[tuple[int, ...], ...]
    rel: tuple[tuple[int, ...], ...]
    zeros_p: tuple[int, ...]
    int8_fields: tuple[tuple[str, tuple[int, ...], int, bool], ...]
    cl: _CardTab | None = None        # card-level rules (suit_rule, runs): see _card_tab
    pk: _PokerTab | None = None       # combinations poker: see _poker_tab
    intervals: dict[tuple, tuple] = field(default_factory=dict)


@lru_cache(maxsize=128)
def _tab(rules: Rules) -> _Tab:
    c = E._consts(rules)
    t = c.t
    P, R, S = c.P, c.R, c.S
    Rn = t.n_natural_play
    kinds = t.kinds
    off = {name: o for name, o, _, _ in O.layout(rules)}

    def onehots(n: int, none_first: bool = False) -> tuple[tuple[int, ...], ...]:
        rows = [tuple(int(i == j) for i in range(n)) for j in range(n)]
        return (((0,) * n,) + tuple(rows)) if none_first else tuple(rows)

    return _Tab(
        rules=rules, P=P, C=c.C, K=c.K, R=R, Rn=Rn, S=S, A=c.A, D=O.size(rules), d=c.d,
        play_kind=tuple(int(k) for k in t.play_kind),
        card_kind=tuple(int(k) for k in t.card_kind),
        kind_start=tuple(int(s) for s in c.kind_starts),
        wild_kinds=tuple(int(k) for k in c.wild_kinds),
        has_wild=bool(t.has_wild),
        trump_play=tuple(bool(x) for x in c.trump_play),
        reset_ranks=tuple(tuple(int(r) for r in np.flatnonzero(row)) for row in c.reset_play),
        power_lut=tuple(tuple(tuple(int(x) + 1 for x in np.flatnonzero(c.power_lut[r, ts])) for ts in range(S + 1))
                        for r in range(R)),
        power_floor=(int(c.power_floor[0]), int(c.power_floor[1])),
        has_power=c.has_power,
        high_play=tuple(bool(x) for x in c.high_play),
        kind_high=tuple(bool(x) for x in t.kind_high),
        card_wild=tuple(bool(x) for x in t.card_wild),
        quick_clear=rules.quick_clear,
        forbidden_kind=tuple((k[:-1] if t.kind_high[i] else k) in rules.forbidden_finish  # a high card: its print
                             for i, k in enumerate(kinds)),
        transparent=int(c.transparent), eight=int(c.eight),
        points=tuple(int(x) for x in c.points),
        give=tuple(int(g) for g in c.give),
        ex_decider=tuple(int(x) for x in c.ex_decider),
        ex_partner=tuple(int(x) for x in c.ex_partner),
        ex_kind=tuple(int(x) for x in c.ex_kind),
        ident_key=tuple(int(x) for x in c.ident_key),
        strength=(tuple(int(x) for x in t.strength[0]), tuple(int(x) for x in t.strength[1])),
        lowest_play_rank=int(t.lowest_play_rank),
        lowest_cards=tuple(int(x) for x in c.lowest_cards),
        best_key=tuple(int(x) for x in t.best_key),
        act_rank=tuple(int(x) for x in c.act_rank),
        act_size=tuple(int(x) for x in c.act_size),
        revolutions=rules.four_of_a_kind in ("revolution", "revolution_and_reverse"),
        reverses=rules.four_of_a_kind == "revolution_and_reverse",
        bomb=rules.four_of_a_kind == "bomb",
        single_round=rules.pass_rule == "single_round",
        may_replay=rules.pass_rule == "may_replay",
        skips=rules.equal_play_skips,
        wild_tie=rules.wild_tie != "equal" and bool(t.has_wild),
        extras=bool(c.reset_play.any()) or rules.four_of_a_kind == "bomb" or rules.complete_set_clears
        or c.has_power,
        extra_obs=rules.revolution_by_singles or rules.hand_assignment == "expose" or rules.merchant_trade
        or rules.quick_clear or rules.names_cards,
        off=off,
        onehot_top=onehots(R + 1),
        onehot_size=onehots(max(S, 5) if rules.poker else S, none_first=True),  # a poker play has up to 5 cards
        onehot_owner=onehots(P),
        onehot_phase=onehots(3),
        rel=tuple(tuple((s + c.d * j) % P for j in range(P)) for s in range(P)),
        zeros_p=(0,) * P,
        int8_fields=_int8_fields(E._empty(c, 1)),
        cl=_card_tab(rules, c) if rules.card_level else None,
        pk=_poker_tab(rules) if rules.poker else None,
    )


def _int8_fields(st: State) -> tuple[tuple[str, tuple[int, ...], int, bool], ...]:
    """(name, shape, size, is bool) of the int8 and bool fields of a batch-of-one State, in field order
    (the order ``to_state`` lays them out in)."""
    out = []
    for name in field_names():
        a = getattr(st, name)
        if a.dtype in (np.int8, np.bool_):
            out.append((name, a.shape, a.size, a.dtype == np.bool_))
    return tuple(out)


@dataclass(eq=False)
class _CardTab:
    """Card-level rules (``suit_rule``, ``runs``): the engine's ``_CardConsts`` as plain Python values, by
    action id (index 0 is pass; set fields of a run are placeholders), and lazily filled caches."""

    Js: int                                   # sets are ids 1..Js, runs Js+1..A-1
    run: tuple[int, ...]                      # run length of each id (0: a set)
    rid0: tuple[int, ...]                     # rank-level id - 1 (rank * S + size - 1) of a set, -1 a run
    set_p: tuple[int, ...]                    # play rank
    set_n: tuple[int, ...]                    # cards
    set_w: tuple[int, ...]                    # wild cards
    set_hi: tuple[int, ...]                   # strongest natural suit, -1 none
    set_lo: tuple[int, ...]                   # weakest natural suit, 4 none
    set_red: tuple[int, ...]
    set_black: tuple[int, ...]
    set_colour: tuple[bool, ...]
    set_fsuit: tuple[int, ...]
    low: tuple[bool, ...]                     # holds the lowest card (sets and runs)
    need: tuple[tuple[tuple[int, int, int, int], ...], ...]  # per id: (kind, first card, end card, copies)
    kind_sets: tuple[tuple[tuple[int, int, int, dict], ...], ...]  # per kind: (id, rid0, w, names needed)
    wild_groups: tuple[tuple[int, int, int, tuple[tuple[int, int], ...]], ...]  # all-wild sets as groups
    claim: dict[tuple[int, tuple[str, ...]], int]   # (play rank, natural names held) -> set id
    single: dict[str, int]                    # card name -> its single's id (give-backs)
    wild_single: int                          # the WILD single's id, -1 none
    card_name: tuple[str, ...]
    card_suit: tuple[int, ...]
    card_red: tuple[bool, ...]
    card_black: tuple[bool, ...]
    card_fsuit: tuple[int, ...]
    card_nat8: tuple[bool, ...]
    run_pos: tuple[tuple[int, int] | None, ...]   # per card: (suit, kind) of a natural non-wild card, else None
    runs_by_suit: tuple[tuple[tuple[int, int, int, int, int, bool], ...], ...]  # (id, window, L, cmp0, cmp1, low)
    named_wild: bool                          # sets name their wild cards' suits (fine point 10)
    wild_need: tuple[tuple[tuple[int, int], ...], ...]  # named_wild: per id, (slot, count) of the wild cards named
    card_slot: tuple[int, ...]                # per card: a wild card's slot (suit place 0..3, 4 a wild joker), -1
    wild_singles: tuple[int, ...]             # named_wild: the single of a wild card of each slot, -1 none
    suit_rule: str
    rank_cmp: bool                            # suit_rule rank, or wild_tie with wild cards
    wild_play: int                            # WILD's play rank, -1 none
    hold_cache: tuple[dict, ...] = ()         # per kind: held cards -> groups (rid0, p, n, ((id, w), ...))
    run_cache: dict = field(default_factory=dict)


def _card_tab(rules: Rules, c: E._Consts) -> _CardTab:  # noqa: C901 - one table after another
    t, cl = c.t, c.cl
    at = action_table(rules)
    A, Js, R = at.n, cl.Js, c.R
    names = t.card_names
    first: dict[str, int] = {}
    ncopy: dict[str, int] = {}
    for i, n in enumerate(names):
        first.setdefault(n, i)
        ncopy[n] = ncopy.get(n, 0) + 1
    ck = [int(k) for k in t.card_kind]

    def per_set(arr, default) -> tuple:
        return (default,) + tuple(x.item() if hasattr(x, "item") else x for x in arr) + (default,) * (A - 1 - Js)

    need = []
    for j in range(A):
        cnt: dict[str, int] = {}
        for n in at.cards[j]:
            cnt[n] = cnt.get(n, 0) + 1
        need.append(tuple((ck[first[n]], first[n], first[n] + ncopy[n], m) for n, m in cnt.items()))
    run = tuple(int(x) for x in at.run)
    rid0 = tuple(int(r) - 1 if j and run[j] == 0 else -1 for j, r in enumerate(at.rank_id))
    kind_sets: list[list] = [[] for _ in range(t.n_kinds)]
    wild_groups = []
    claim = {}
    single: dict[str, int] = {}
    wild_single = -1
    wild_singles: dict[int, int] = {}
    for j in range(1, Js + 1):
        p, n, w = int(at.rank[j]), int(at.size[j]), int(at.wild[j])
        k = int(t.play_kind[p])
        if k < 0:
            wild_groups.append((rid0[j], p, n, ((j, w),)))
            if n == 1:
                wild_single = j
                if cl.named_wild:
                    wild_singles[int(np.argmax(cl.wild_need[j]))] = j
            continue
        cnt = {}
        for name in at.cards[j]:
            cnt[name] = cnt.get(name, 0) + 1
        kind_sets[k].append((j, rid0[j], w, cnt))
        if w == 0:
            claim[p, at.cards[j]] = j
            if n == 1:
                single[at.cards[j][0]] = j
    NR = cl.NR
    run_pos = tuple((int(t.card_suit[i]), ck[i]) if ck[i] < NR and not t.card_wild[i] else None
                    for i in range(len(names)))
    runs_by_suit: list[list] = [[] for _ in range(4)]
    for i, j in enumerate(range(Js + 1, A)):
        lo = int(t.play_kind[at.rank[j]])
        L = run[j]
        window = ((1 << L) - 1) << lo
        runs_by_suit[int(cl.run_s[i])].append((j, window, L, int(cl.run_cmp[0, i]), int(cl.run_cmp[1, i]),
                                               bool(cl.run_low[i])))
    low = per_set(cl.set_low, False)
    if Js < A - 1:
        low = low[:Js + 1] + tuple(bool(x) for x in cl.run_low)
    return _CardTab(
        Js=Js, run=run, rid0=rid0,
        set_p=per_set(cl.set_p, -1), set_n=per_set(cl.set_n, 0), set_w=per_set(cl.set_w, 0),
        set_hi=per_set(cl.set_hi, -1), set_lo=per_set(cl.set_lo, 4), set_red=per_set(cl.set_red, 0),
        set_black=per_set(cl.set_black, 0), set_colour=per_set(cl.set_colour, False),
        set_fsuit=per_set(cl.set_fsuit, -1), low=low,
        need=tuple(need), kind_sets=tuple(tuple(x) for x in kind_sets), wild_groups=tuple(wild_groups),
        claim=claim, single=single, wild_single=wild_single, card_name=tuple(names),
        card_suit=tuple(int(x) for x in t.card_suit), card_red=tuple(bool(x) for x in cl.card_red),
        card_black=tuple(bool(x) for x in cl.card_black), card_fsuit=tuple(int(x) for x in cl.card_fsuit),
        card_nat8=tuple(bool(x) for x in cl.card_nat8), run_pos=run_pos,
        runs_by_suit=tuple(tuple(x) for x in runs_by_suit), named_wild=bool(cl.named_wild),
        wild_need=tuple(tuple((s_, int(m)) for s_, m in enumerate(row) if m) for row in cl.wild_need),
        card_slot=tuple(int(x) for x in cl.wild_slot),
        wild_singles=tuple(wild_singles.get(s_, -1) for s_ in range(5)),
        suit_rule=rules.suit_rule, rank_cmp=rules.suit_rule == "rank" or (rules.wild_tie != "equal" and t.has_wild),
        wild_play=R - 1 if t.has_wild else -1,
        hold_cache=tuple({} for _ in range(t.n_kinds)),
    )


@dataclass(eq=False)
class _PokerTab:
    """``combinations poker``: the claim table (:func:`poker.claim_table`) as plain Python values, the lookups
    of :func:`_subset_claims`, and a bounded cache of whole-hand tables (:func:`_hand_claims`).

    Cards are named by their pick index ``u`` (``0..U-1``, weakest first; copies of a card share one)."""

    X: int                                    # claims are ids 1..X, picks X+1..X+U
    U: int
    NR: int                                   # natural ranks
    n: tuple[int, ...]                        # cards of each claim (index 0: pass)
    strength: tuple[tuple[int, ...], tuple[int, ...]]   # [normal, revolution] per claim
    bomb: tuple[bool, ...]                    # four/five of a kind, five wild cards
    first_rank: tuple[int, ...]               # top_rank of each claim
    card_u: tuple[int, ...]                   # (C,) pick index of each card
    u_cards: tuple[tuple[int, ...], ...]      # (U,) the cards of each name, ascending
    u_rank: tuple[int, ...]                   # (U,) natural rank index, -1 for a wild card
    u_suit: tuple[int, ...]                   # (U,) place of the suit in suit_order (0 weakest)
    lowest_u: int                             # the lowest card's name (first lead)
    set_id: tuple[tuple[int, ...], ...]       # [n][q] single, pair, three of natural q (n = 1..3)
    wild_id: tuple[int, ...]                  # [n] n wild cards, -1 none (n = 0..5)
    two_pair_id: tuple[tuple[int, ...], ...]  # [high][low], high >= low
    windows: tuple[tuple[int, int, int], ...]  # straights: (natural-rank bit mask, straight id, straight flush id)
    flush_id: tuple[int, ...]                 # [q]
    full_house_id: tuple[int, ...]            # [q]
    four_id: tuple[int, ...]                  # [q]
    five_id: tuple[int, ...]                  # [q]
    u_rbit: tuple[int, ...]                   # (U,) 1 << natural rank index, 0 for a wild card
    u_sbit: tuple[int, ...]                   # (U,) 1 << suit place
    bomb_rule: bool                           # four_of_a_kind bomb: a bomb claim beats anything
    hand_cache: dict = field(default_factory=dict)  # (hand, rev) -> ({claim: [(subset, best suit)]}, Counter(hand))


_HAND_CACHE_MAX = 64          # whole-hand tables: the hands of the players of a few games


def _poker_tab(rules: Rules) -> _PokerTab:
    """The claim table of ``rules`` by (count, kind, ranks), for the enumeration of :func:`_subset_claims`."""
    from . import poker as PK
    from .cards import tables

    ct = PK.claim_table(rules)
    t = tables(rules)
    NR, X = ct.NR, ct.X
    set_id = [[-1] * NR for _ in range(4)]
    wild_id = [-1] * 6
    two_pair = [[-1] * NR for _ in range(NR)]
    flush, full, four, five = ([-1] * NR for _ in range(4))
    straights: dict[tuple[int, ...], list[int]] = {}
    for i in range(1, X + 1):
        n, k, q, q2 = int(ct.n[i]), int(ct.kind[i]), int(ct.key[i]), int(ct.key2[i])
        if k == PK.WILD_SET:
            wild_id[n] = i
        elif k == PK.SET:
            set_id[n][q] = i
        elif k == PK.TWO_PAIR:
            two_pair[q][q2] = i
        elif k in (PK.STRAIGHT, PK.STRAIGHT_FLUSH):
            straights.setdefault(tuple(int(x) for x in ct.window[i]), [-1, -1])[k == PK.STRAIGHT_FLUSH] = i
        else:
            {PK.FLUSH: flush, PK.FULL_HOUSE: full, PK.FOUR: four, PK.FIVE: five}[k][q] = i
    names = ct.pick_names
    u_rank = tuple(ct.naturals.index(nm[:-1]) if nm[:-1] in ct.naturals else -1 for nm in names)
    return _PokerTab(
        X=X, U=len(names), NR=NR, n=tuple(int(x) for x in ct.n),
        strength=(tuple(int(x) for x in ct.strength[0]), tuple(int(x) for x in ct.strength[1])),
        bomb=tuple(bool(x) for x in ct.bomb), first_rank=tuple(int(x) for x in ct.first_rank),
        card_u=tuple(names.index(nm) for nm in t.card_names),
        u_cards=tuple(tuple(c for c, cn in enumerate(t.card_names) if cn == nm) for nm in names),
        u_rank=u_rank, u_suit=tuple(rules.suit_order.index(nm[-1]) for nm in names),
        lowest_u=names.index(t.card_names[t.lowest_card]),
        set_id=tuple(tuple(r) for r in set_id), wild_id=tuple(wild_id),
        two_pair_id=tuple(tuple(r) for r in two_pair),
        windows=tuple((sum(1 << r for r in w), ids[0], ids[1]) for w, ids in straights.items()),
        flush_id=tuple(flush), full_house_id=tuple(full), four_id=tuple(four), five_id=tuple(five),
        u_rbit=tuple(1 << r if r >= 0 else 0 for r in u_rank),
        u_sbit=tuple(1 << rules.suit_order.index(nm[-1]) for nm in names),
        bomb_rule=rules.four_of_a_kind == "bomb",
    )


def _subset_claims(pt: _PokerTab, sub: tuple[int, ...], rev: bool) -> tuple[int, ...]:  # noqa: C901 - one
    """The claims the cards ``sub`` (pick indices) satisfy: docs/rules.md choice 43 case by case, the same
    statement as :func:`poker.satisfies` (a test checks them equal), written to list every claim at once."""
    rank_of, suit_of = pt.u_rank, pt.u_suit
    ranks = [rank_of[u] for u in sub if rank_of[u] >= 0]
    n = len(sub)
    if not ranks:  # all wild: only the wild claim of the count
        return (pt.wild_id[n],) if pt.wild_id[n] >= 0 else ()
    w = n - len(ranks)
    cnt: dict[int, int] = {}
    for r in ranks:
        cnt[r] = cnt.get(r, 0) + 1
    NR = pt.NR
    if n <= 3:
        return (pt.set_id[n][ranks[0]],) if len(cnt) == 1 else ()
    if n == 4:  # two pair (high, low) of two different ranks; four cards of one rank are no play (fine point 7)
        tp = pt.two_pair_id
        if len(cnt) == 1:
            q = ranks[0]
            if cnt[q] <= 2:  # the other pair all wild: any other rank
                return tuple(tp[max(q, p)][min(q, p)] for p in range(NR) if p != q)
            return ()
        if len(cnt) == 2 and max(cnt.values()) <= 2:
            a, b = cnt
            return (tp[max(a, b)][min(a, b)],)
        return ()
    out = []
    s0 = suit_of[sub[0]]
    one_suit = all(suit_of[u] == s0 for u in sub)
    nd = len(cnt)
    if nd == len(ranks) and max(ranks) - min(ranks) <= 4:  # straights: the natural ranks in a window, each once
        mask = 0
        for r in ranks:
            mask |= 1 << r
        for wmask, sid, sfid in pt.windows:
            if mask & ~wmask == 0:
                out.append(sid)
                if one_suit:
                    out.append(sfid)
    if one_suit:  # flush of q: every natural at or below q in the order in force, q natural or a wild card
        if w == 0:
            out.append(pt.flush_id[min(ranks) if rev else max(ranks)])
        elif rev:
            out += pt.flush_id[:min(ranks) + 1]
        else:
            out += pt.flush_id[max(ranks):]
    if nd == 1:
        a, m = ranks[0], len(ranks)
        if m <= 3:  # full house of a, the pair wild
            out.append(pt.full_house_id[a])
        if m <= 2:  # full house of any other rank over a pair of a, the three wild
            out += [pt.full_house_id[q] for q in range(NR) if q != a]
        out.append(pt.five_id[a])
    elif nd == 2:
        (a, ma), (b, mb) = cnt.items()
        if ma <= 3 and mb <= 2:
            out.append(pt.full_house_id[a])
        if mb <= 3 and ma <= 2:
            out.append(pt.full_house_id[b])
    if w >= 4:  # four of a kind of q and any fifth card
        out += pt.four_id
    else:
        out += [pt.four_id[q] for q, m in cnt.items() if m + w >= 4]
    return tuple(out)


def _hand_claims(pt: _PokerTab, hand: tuple[int, ...], rev: bool) -> dict[int, list[tuple[tuple[int, ...], int]]]:
    """Every distinct subset of 1 to 5 cards of ``hand`` (sorted pick indices), by the claims it satisfies:
    claim -> [(subset, its best suit in force)] (brute force: :func:`_enumerate`; cached per hand).

    A hand that a cached hand holds (the same hand after a play) keeps the cached hand's subsets that it still
    holds, which are exactly its own subsets, instead of enumerating them again."""
    key = (hand, rev)
    got = pt.hand_cache.get(key)
    if got is not None:
        return got[0]
    have = Counter(hand)
    names = have.keys()
    parent = None
    for (h2, r2), (tab2, c2) in pt.hand_cache.items():
        if r2 == rev and len(h2) > len(hand) and (parent is None or len(h2) < len(parent[0])) \
                and names <= c2.keys() and all(c2[u] >= m for u, m in have.items()):
            parent = (h2, tab2, c2)
    if parent is not None:
        out = _keep_held(parent[1], have, parent[2])
    else:
        out = _enumerate(pt, hand, rev)
    if len(pt.hand_cache) >= _HAND_CACHE_MAX:
        del pt.hand_cache[next(iter(pt.hand_cache))]
    pt.hand_cache[key] = (out, have)
    return out


def _keep_held(tab: dict, have: Counter, had: Counter) -> dict[int, list[tuple[tuple[int, ...], int]]]:
    """The entries of a hand's table (``had``: its cards) whose subsets ``have`` holds."""
    gone = {u: had[u] - have[u] for u in had if had[u] > have[u]}
    out = {}
    if all(m == had[u] for u, m in gone.items()):  # every copy of the cards gone is gone: no subset holds one
        dead = set(gone)
        for x, entries in tab.items():
            kept = [e for e in entries if dead.isdisjoint(e[0])]
            if kept:
                out[x] = kept
        return out
    for x, entries in tab.items():
        kept = [e for e in entries if all(e[0].count(u) <= have[u] for u in gone)]
        if kept:
            out[x] = kept
    return out


def _enumerate(pt: _PokerTab, hand: tuple[int, ...], rev: bool) -> dict[int, list[tuple[tuple[int, ...], int]]]:
    """:func:`_hand_claims` from scratch: every distinct subset of 1 to 5 cards (copies counted once), grown
    card by card in the order of ``itertools.combinations``, each stated by :func:`_subset_claims`.

    A subset and everything grown from it is skipped once it can satisfy no claim, by a necessary condition
    read off choice 43: up to 3 cards hold at most one natural rank, 4 cards at most two; 5 cards hold at
    most two natural ranks (full house, four or five of a kind), or one suit (flush), or different natural
    ranks within five consecutive places (straight). Adding cards only breaks these, so the search stops
    there."""
    suit = tuple(3 - s for s in pt.u_suit) if rev else pt.u_suit
    rbit, sbit = pt.u_rbit, pt.u_sbit
    out: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    size = len(hand)

    def grow(start: int, sub: tuple[int, ...], m: int, sm: int, nat: int) -> None:
        n = len(sub) + 1
        for i in range(start, size):
            u = hand[i]
            if i > start and u == hand[i - 1]:  # a copy of the card just tried: the same subsets again
                continue
            m2, sm2 = m | rbit[u], sm | sbit[u]
            nat2 = nat + (rbit[u] > 0)
            pc = m2.bit_count()
            if pc > 2 and sm2 & (sm2 - 1) and (pc < nat2 or m2 >> ((m2 & -m2).bit_length() - 1) >= 32):
                continue
            s2 = sub + (u,)
            if n == 5 or pc <= (1 if n <= 3 else 2):
                claims = _subset_claims(pt, s2, rev)
                if claims:
                    entry = (s2, max(suit[v] for v in s2))
                    for x in claims:
                        lst = out.get(x)
                        if lst is None:
                            out[x] = [entry]
                        else:
                            lst.append(entry)
            if n < 5:
                grow(i + 1, s2, m2, sm2, nat2)

    grow(0, (), 0, 0, 0)
    return out


def _card_parts(tb: _Tab, top: int, ts: int, rev: bool, on_run: bool, top_count: int
                ) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Card-level rules: the engine's ``_rank_parts`` for one game, uncapped (holding a set's cards implies
    its rank and size fit the holdings) and without the first-lead restriction (``low`` does that): per
    rank-level id - 1, (bound, extra)."""
    rules = tb.rules
    R, S = tb.R, tb.S
    strength = tb.strength[1 if (rev and tb.revolutions) else 0]
    lead = top < 0
    top_str = strength[max(top, 0)]
    if on_run:
        ts = min(ts, S + 1)
    big = S + 1
    bound = [False] * (R * S)
    extra = [False] * (R * S)
    for r in range(R):
        higher = strength[r] > top_str
        same = r == top
        ok = (higher or same) if rules.equal_rank_beats else higher
        if rules.size_rule == "equal":
            lo, hi = (ts, ts) if ok else (big, 0)
        elif rules.size_rule == "at_least":
            lo, hi = (ts, big) if ok else (big, 0)
        else:  # bigger_beats_any
            lo, hi = (ts if ok else ts + 1), big
        if r == tb.transparent:
            lo, hi = ts, max(hi, ts)
        if on_run:
            hi = 0
        if lead:
            lo, hi = 1, big
        base = r * S
        for s in range(max(lo, 1), min(hi, S) + 1):
            bound[base + s - 1] = True
        if lead:
            continue
        if tb.trump_play[r] and higher:
            for s in range(S):
                extra[base + s] = True
        if tb.has_power and top_str < tb.power_floor[1 if (rev and tb.revolutions) else 0]:
            for m in tb.power_lut[r][0 if ts > S else ts]:
                extra[base + m - 1] = True
        if rules.complete_set_clears and same and not on_run:
            for s in range(max(S - top_count, 1), S + 1):
                extra[base + s - 1] = True
    if rules.revolution_reset_rank is None:
        resets = tb.reset_ranks[0]
    else:
        resets = tb.reset_ranks[1 if rev else 0]
    for r in resets:
        extra[r * S] = True
    if tb.bomb:
        for r in range(R):
            for s in range(4, S + 1):
                extra[r * S + s - 1] = True
    return tuple(bound), tuple(extra)


def _intervals(tb: _Tab, top_rank: int, ts: int, rev: bool, top_wild: bool, natural: bool,
               first_lead: bool) -> tuple[tuple[int, int, int, int], ...]:
    """Per play rank, the size interval ``lo..hi`` the engine's ``_play_mask`` allows before the
    player's holdings cap it: rows (rank, action id of size 0, lo, hi) with ``lo <= hi``.

    ``natural``: whether the player can make a set of the top's rank and size from natural
    cards only (it matters only under ``wild_tie``)."""
    rules = tb.rules
    R, S, Rn = tb.R, tb.S, tb.Rn
    strength = tb.strength[1 if (rev and tb.revolutions) else 0]
    lead = top_rank < 0
    top_str = strength[max(top_rank, 0)]
    big = S + 1
    rows = []
    for r in range(R):
        higher = strength[r] > top_str
        same = r == top_rank
        ok = (higher or same) if rules.equal_rank_beats else higher
        if rules.size_rule == "equal":
            lo, hi = (ts, ts) if ok else (big, 0)
        elif rules.size_rule == "at_least":
            lo, hi = (ts, big) if ok else (big, 0)
        else:  # bigger_beats_any
            lo, hi = (ts if ok else ts + 1), big
        if tb.wild_tie and same and r != Rn:
            nat = natural and r < Rn
            differ = nat != (not top_wild)
            tie = (nat and top_wild) if rules.wild_tie == "natural_higher" else (not nat and not top_wild)
            tie = tie and differ
            if tie:
                lo, hi = min(lo, ts), max(hi, ts)
            elif differ:
                lo = max(lo, ts + 1)
        if r == tb.transparent:
            lo, hi = ts, max(hi, ts)
        if tb.trump_play[r] and higher:
            lo, hi = 1, big
        if lead:
            lo, hi = 1, big
        if first_lead and r != tb.lowest_play_rank:
            hi = 0
        lo, hi = max(lo, 1), min(hi, S)
        if lo <= hi:
            rows.append((r, r * S, lo, hi))
    return tuple(rows)


def _action_id(action: Any) -> int:
    if isinstance(action, (bool, np.bool_)):
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}") from None


def _deep(v: Any) -> Any:
    """A copy of nested lists (other values are immutable or shared constants)."""
    return [_deep(x) for x in v] if isinstance(v, list) else v


# --------------------------------------------------------------------------- the game
class ScalarGame:
    """One session of President, stepped in plain Python; the batched engine's game exactly.

    Fields mirror :class:`State` (one game, no batch axis) as ints and lists: by seat
    ``counts`` (P lists of K), ``n_cards``, ``passed``, ``finish``, ``social``, ``exch_in``,
    ``exch_out``; by player ``points``, ``hand_points``, ``last_finish``; ``hands[seat][kind]``
    is the sorted list of card indices held; ``moved`` the sorted card indices the last action
    moved; ``legal`` the sorted legal action ids.
    """

    __slots__ = (
        "rules", "_t", "key", "hand_no", "phase", "seat_player", "player_seat", "dealer", "social",
        "hands", "counts", "n_cards", "current", "leader", "top_rank", "top_size", "top_owner",
        "top_wild", "top_count", "first_lead", "passed", "finish", "next_best", "next_worst",
        "revolution", "direction", "played", "discarded", "exch_step", "exch_in", "exch_out",
        "points", "hand_points", "hand_over", "last_finish", "single_row", "exposed", "trade_pick",
        "top_own", "qc_count", "claim_rank", "claim_next", "top_run", "top_cards", "played_cards", "moved", "legal",
        "poker_claim", "picked", "top_claim",
    )

    def __init__(self, rules: Rules) -> None:
        """An empty game; build one with :meth:`new` or :meth:`from_state`."""
        self.rules = rules
        self._t = _tab(rules)

    # ------------------------------------------------------------------ building
    @classmethod
    def new(cls, rules: Rules, seed: int | np.random.Generator | None = None, **init_kwargs: Any) -> ScalarGame:
        """Start a session as ``engine.init(rules, 1, seed, **init_kwargs)`` does (keys, start_ranks, deal, ...)."""
        return cls.from_state(rules, E.init(rules, 1, seed, **init_kwargs))

    @classmethod
    def from_state(cls, rules: Rules, state: State, b: int = 0) -> ScalarGame:
        """Game ``b`` of a batched ``state`` (a copy: the state is not shared). Legal actions are recomputed."""
        if not 0 <= b < state.batch_size:
            raise ValueError(f"game {b} is not in a batch of {state.batch_size}")
        return cls.from_states(rules, state, np.array([b]))[0]

    @classmethod
    def from_states(cls, rules: Rules, state: State, idx: np.ndarray) -> list[ScalarGame]:
        """Games ``idx`` of a batched ``state``, converted together (one NumPy read per field)."""
        idx = np.asarray(idx, dtype=np.int64)
        tb = _tab(rules)
        if state.hands.shape[1:] != (tb.P, tb.C) or state.counts.shape[2] != tb.K:
            raise ValueError(f"state does not fit these rules: hands {state.hands.shape[1:]}, expected {(tb.P, tb.C)}")
        sub = state.take(idx)
        names = [n for n in ScalarGame.__slots__
                 if n not in ("rules", "_t", "hands", "player_seat", "top_cards", "moved", "legal", "picked")]
        cols = {n: getattr(sub, n).tolist() for n in names}
        games = []
        P, K, card_kind = tb.P, tb.K, tb.card_kind
        g_idx, s_idx, c_idx = np.nonzero(sub.hands)
        hands = [[[[] for _ in range(K)] for _ in range(P)] for _ in range(idx.size)]
        for gi, s, card in zip(g_idx.tolist(), s_idx.tolist(), c_idx.tolist(), strict=True):
            hands[gi][s][card_kind[card]].append(card)
        mg, mc = np.nonzero(sub.moved)
        moved: list[list[int]] = [[] for _ in range(idx.size)]
        for gi, card in zip(mg.tolist(), mc.tolist(), strict=True):
            moved[gi].append(card)
        tg, tc = np.nonzero(sub.top_cards)
        top_cards: list[list[int]] = [[] for _ in range(idx.size)]
        for gi, card in zip(tg.tolist(), tc.tolist(), strict=True):
            top_cards[gi].append(card)
        pg, pc = np.nonzero(sub.picked)
        picked: list[list[int]] = [[] for _ in range(idx.size)]
        for gi, card in zip(pg.tolist(), pc.tolist(), strict=True):
            picked[gi].append(card)
        for i in range(idx.size):
            g = cls(rules)
            for n in names:
                setattr(g, n, cols[n][i])
            g.picked = picked[i]
            g.hands = hands[i]
            g.moved = moved[i]
            g.top_cards = top_cards[i]
            g.player_seat = [0] * P
            for s, p in enumerate(g.seat_player):
                g.player_seat[p] = s
            g._refresh_legal()
            games.append(g)
        return games

    @staticmethod
    def to_states(games: list[ScalarGame]) -> State:
        """Several games as one batched :class:`State` (one NumPy call per dtype)."""
        tb = games[0]._t
        buf = np.array([g._int8_flat() for g in games], dtype=np.int8)
        n = len(games)
        fields = {
            "key": np.array([g.key for g in games], dtype=np.uint64),
            "hand_no": np.array([g.hand_no for g in games], dtype=np.int32),
            "points": np.array([g.points for g in games], dtype=np.int32),
            "hand_points": np.array([g.hand_points for g in games], dtype=np.int32),
            "poker_claim": np.array([g.poker_claim for g in games], dtype=np.int16),
            "top_claim": np.array([g.top_claim for g in games], dtype=np.int16),
        }
        i = 0
        for name, shape, size, is_bool in tb.int8_fields:
            a = buf[:, i:i + size].reshape((n,) + shape[1:])
            fields[name] = a.view(np.bool_) if is_bool else a
            i += size
        return State(**fields)

    def _int8_flat(self) -> list[int]:
        """The int8 and bool fields, flattened in the order of ``_tab.int8_fields``."""
        tb = self._t
        P, C = tb.P, tb.C
        hands = [0] * (P * C)
        for s, h in enumerate(self.hands):
            base = s * C
            for held in h:
                for card in held:
                    hands[base + card] = 1
        moved = [0] * C
        for card in self.moved:
            moved[card] = 1
        legal = [0] * tb.A
        for a in self.legal:
            legal[a] = 1
        top_cards = [0] * C
        for card in self.top_cards:
            top_cards[card] = 1
        picked = [0] * C
        for card in self.picked:
            picked[card] = 1
        values = {
            "phase": (self.phase,), "seat_player": self.seat_player, "dealer": (self.dealer,), "social": self.social,
            "hands": hands, "counts": [x for row in self.counts for x in row], "n_cards": self.n_cards,
            "current": (self.current,), "leader": (self.leader,), "top_rank": (self.top_rank,),
            "top_size": (self.top_size,), "top_owner": (self.top_owner,), "top_wild": (self.top_wild,),
            "top_count": (self.top_count,), "first_lead": (self.first_lead,), "passed": self.passed,
            "finish": self.finish, "next_best": (self.next_best,), "next_worst": (self.next_worst,),
            "revolution": (self.revolution,), "direction": (self.direction,), "played": self.played,
            "discarded": self.discarded, "exch_step": (self.exch_step,),
            "exch_in": [x for row in self.exch_in for x in row], "exch_out": [x for row in self.exch_out for x in row],
            "hand_over": (self.hand_over,), "last_finish": self.last_finish, "moved": moved, "legal": legal,
            "single_row": (self.single_row,), "exposed": self.exposed, "trade_pick": self.trade_pick,
            "top_own": (self.top_own,), "qc_count": (self.qc_count,), "claim_rank": (self.claim_rank,),
            "claim_next": (self.claim_next,), "top_run": (self.top_run,), "top_cards": top_cards,
            "played_cards": self.played_cards, "picked": picked,
        }
        flat: list[int] = []
        for name, _, _, _ in tb.int8_fields:
            flat += values[name]
        return flat

    def to_state(self) -> State:
        """This game as a batch-of-one :class:`State`, equal field by field to the engine's.

        The int8 and bool fields are views of one int8 buffer (built in one NumPy call)."""
        return ScalarGame.to_states([self])

    def copy(self) -> ScalarGame:
        """An independent copy."""
        g = ScalarGame.__new__(ScalarGame)
        for name in ScalarGame.__slots__:
            setattr(g, name, _deep(getattr(self, name)))
        return g

    # ------------------------------------------------------------------ reading
    @property
    def current_player(self) -> int:
        """The player (not seat) to act."""
        return self.seat_player[self.current]

    @property
    def over(self) -> bool:
        """Whether the session is over."""
        return self.phase == OVER

    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal-action mask (a new array)."""
        m = np.zeros(self._t.A, dtype=bool)
        m[self.legal] = True
        return m

    def observe(self, player: int) -> np.ndarray:
        """(D,) float32 observation of ``player``: ``observation.observe`` of this game."""
        tb = self._t
        P = tb.P
        seat = self.player_seat[player]
        rel = tb.rel[seat]
        top = self.top_rank
        phase = self.phase
        v = self.counts[seat] + self.played
        if top < 0:
            v += tb.onehot_top[tb.R]
            v += tb.onehot_size[0]
            v += tb.zeros_p
        else:
            v += tb.onehot_top[top]
            v += tb.onehot_size[0 if self.top_run else self.top_size]
            v += tb.onehot_owner[(tb.d * (self.top_owner - seat)) % P]
        my_turn = self.current == seat and phase != OVER
        n_cards, passed, finish, social, points, sp = (
            self.n_cards, self.passed, self.finish, self.social, self.points, self.seat_player)
        v += [self.top_wild, self.top_count, my_turn and top < 0 and phase == PLAY, my_turn]
        v += [n_cards[s] for s in rel]
        v += [passed[s] for s in rel]
        v += [finish[s] + 1 for s in rel]
        v += [social[s] + 1 for s in rel]
        v += [points[sp[s]] for s in rel]
        v += [self.revolution, self.direction * tb.d]
        v += tb.onehot_phase[phase]
        v += self.exch_out[seat]
        v += self.exch_in[seat]
        if tb.extra_obs:
            self._observe_extra(v, seat, rel)
        return np.array(v, dtype=np.float32)

    def _observe_extra(self, v: list, seat: int, rel: tuple[int, ...]) -> None:
        """The pieces only some rules have, in ``observation.layout`` order."""
        tb = self._t
        rules = self.rules
        if rules.revolution_by_singles:
            v.append(self.single_row)
        if rules.hand_assignment == "expose":
            K, ck = tb.K, tb.card_kind
            for s in rel:
                row = [0] * K
                if self.exposed[s] >= 0:
                    row[ck[self.exposed[s]]] = 1
                v += row
        if rules.merchant_trade:
            step = self.exch_step
            v.append(self.phase == EXCHANGE and step < len(tb.ex_kind) and tb.ex_kind[step] > 0)
            row = [0] * tb.K
            if self.trade_pick[seat] >= 0:
                row[tb.card_kind[self.trade_pick[seat]]] = 1
            v += row
        if rules.quick_clear:
            v.append(self.current == seat and self.phase != OVER and self.claim_rank >= 0)
            v.append(self.qc_count)
        if rules.names_cards:
            C = tb.C
            own = [0] * C
            for cards in self.hands[seat]:
                for card in cards:
                    own[card] = 1
            v += own
            v += self.played_cards
            top = [0] * C
            for card in self.top_cards:
                top[card] = 1
            v += top
            if rules.runs:
                v.append(self.top_run)
        if tb.pk is not None:  # the claim on top; the observer's own claim in progress and its picks
            X = tb.pk.X
            row = [0] * X
            if self.top_claim:
                row[self.top_claim - 1] = 1
            v += row
            mine = self.current == seat and self.phase != OVER and self.poker_claim > 0
            row = [0] * X
            if mine:
                row[self.poker_claim - 1] = 1
            v += row
            picked = [0] * tb.C
            if mine:
                for card in self.picked:
                    picked[card] = 1
            v += picked

    # ------------------------------------------------------------------ legal actions
    def _refresh_legal(self) -> None:
        phase = self.phase
        if phase == PLAY:
            self.legal = self._play_ids()
        elif phase == EXCHANGE:
            tb = self._t
            if tb.cl is not None:
                self.legal = self._card_exchange_legal()
                return
            if tb.pk is not None:
                self.legal = self._poker_exchange_legal()
                return
            cnt = self.counts[self.current]
            S, pk = tb.S, tb.play_kind
            ids = [1 + r * S for r in range(tb.Rn) if cnt[pk[r]] > 0]
            if tb.has_wild and sum(cnt[k] for k in tb.wild_kinds) > 0:
                ids.append(1 + tb.Rn * S)
            self.legal = ids
        else:
            self.legal = [0]

    def _play_ids(self) -> list[int]:
        """Legal ids of the play phase, by the action table of the rules (rank-level, card-level, poker)."""
        tb = self._t
        if tb.cl is not None:
            return self._card_legal()
        if tb.pk is not None:
            return self._poker_legal()
        return self._play_legal()

    def _play_legal(self) -> list[int]:
        tb = self._t
        cnt = self.counts[self.current]
        if self.claim_rank >= 0:  # quick_clear: claim every natural card of the rank, or decline
            r = self.claim_rank
            return [0, 1 + r * tb.S + cnt[tb.play_kind[r]] - 1]
        top = self.top_rank
        ts = self.top_size
        pk = tb.play_kind
        has_wild = tb.has_wild
        w = sum(cnt[k] for k in tb.wild_kinds) if has_wild else 0
        natural = False
        if tb.wild_tie and 0 <= top < tb.Rn:
            natural = cnt[pk[top]] >= ts
        key = (top, ts, self.revolution, self.top_wild, natural, self.first_lead)
        rows = tb.intervals.get(key)
        if rows is None:
            rows = tb.intervals[key] = _intervals(tb, top, ts, self.revolution, self.top_wild, natural,
                                                  self.first_lead)
        S = tb.S
        ids: list[int] = []
        if not tb.extras:
            for r, base, lo, hi in rows:
                k = pk[r]
                if k < 0:
                    cap = w
                elif has_wild:
                    n = cnt[k]
                    cap = (n + w if n + w < S else S) if n else 0
                else:
                    cap = cnt[k]
                if cap > 1 and tb.high_play[r]:  # a high card is played only as a single
                    cap = 1
                if cap < hi:
                    hi = cap
                if lo <= hi:
                    ids.extend(range(base + lo, base + hi + 1))
        else:
            ids = self._legal_with_extras(rows, cnt, w)
        if top >= 0 and not (ids and self.rules.compulsory_beat):
            ids.insert(0, 0)
        return ids

    def _legal_with_extras(self, rows: tuple, cnt: list[int], w: int) -> list[int]:
        """Legal plays when reset cards, bombs or complete sets add sizes outside the intervals."""
        tb = self._t
        S, R, pk = tb.S, tb.R, tb.play_kind
        sizes: list[set[int]] = [set() for _ in range(R)]
        caps = []
        for r in range(R):
            k = pk[r]
            if k < 0:
                caps.append(w)
            elif tb.has_wild:
                n = cnt[k]
                caps.append(min(n + w, S) if n else 0)
            else:
                caps.append(cnt[k])
            if caps[-1] > 1 and tb.high_play[r]:
                caps[-1] = 1
        for r, _, lo, hi in rows:
            sizes[r].update(range(lo, min(hi, caps[r]) + 1))
        rev = self.revolution
        for r in tb.reset_ranks[rev]:
            if caps[r] >= 1:
                sizes[r].add(1)
        if tb.bomb:
            for r in range(R):
                sizes[r].update(range(4, min(caps[r], S) + 1))
        top = self.top_rank
        if self.rules.complete_set_clears and top >= 0:
            sizes[top].update(range(max(S - self.top_count, 1), min(caps[top], S) + 1))
        if tb.has_power and top >= 0:
            strength = tb.strength[1 if (rev and tb.revolutions) else 0]
            if strength[top] < tb.power_floor[1 if (rev and tb.revolutions) else 0]:
                ts = self.top_size
                for r in range(R):
                    for m in tb.power_lut[r][ts]:
                        if m <= caps[r]:
                            sizes[r].add(m)
        if self.first_lead:  # fine point 14: whatever a rule adds, the first lead holds the lowest card
            return [tb.lowest_play_rank * S + s for s in sorted(sizes[tb.lowest_play_rank])]
        return [r * S + s for r in range(R) for s in sorted(sizes[r])]

    # ------------------------------------------------------------------ card-level rules
    def _card_exchange_legal(self) -> list[int]:
        """Card-level give-backs and trades: a single of any card held (the WILD single for wild cards)."""
        tb = self._t
        cl = tb.cl
        single, name = cl.single, cl.card_name
        ids = set()
        wild = False
        for k, held in enumerate(self.hands[self.current]):
            if not held:
                continue
            if k in tb.wild_kinds:
                wild = True
                continue
            for c in held:
                ids.add(single[name[c]])
        if wild and cl.named_wild:  # a wild card by its suit (a wild joker by itself)
            for wk in tb.wild_kinds:
                for c in self.hands[self.current][wk]:
                    ids.add(cl.wild_singles[cl.card_slot[c]])
        elif wild:
            ids.add(cl.wild_single)
        return sorted(ids)

    def _hold_groups(self, k: int, held: list[int]) -> tuple:
        """The sets of kind ``k``'s play rank whose natural cards ``held`` has, grouped by rank-level id:
        rows (rid0, play rank, size, ((id, wild cards), ...)), wild cards ascending (cached)."""
        cl = self._t.cl
        cache = cl.hold_cache[k]
        key = tuple(held)
        groups = cache.get(key)
        if groups is None:
            have: dict[str, int] = {}
            for c in held:
                n = cl.card_name[c]
                have[n] = have.get(n, 0) + 1
            by_rid: dict[int, list] = {}
            for j, rid0, w, need in cl.kind_sets[k]:
                if all(have.get(n, 0) >= m for n, m in need.items()):
                    by_rid.setdefault(rid0, []).append((j, w))
            groups = cache[key] = tuple((rid0, cl.set_p[m[0][0]], cl.set_n[m[0][0]], tuple(m))
                                        for rid0, m in by_rid.items())
        return groups

    def _card_legal(self) -> list[int]:  # noqa: C901 - one block per option, as the engine's _card_mask
        """Legal plays on card-level rules (the engine's ``_card_mask`` and ``_run_mask`` for one game)."""
        tb = self._t
        cl = tb.cl
        rules = self.rules
        hand = self.hands[self.current]
        if self.claim_rank >= 0:  # quick_clear: claim every natural card of the rank, or decline
            r = self.claim_rank
            return [0, cl.claim[r, tuple(cl.card_name[c] for c in hand[tb.play_kind[r]])]]
        S = tb.S
        top, ts, rev = self.top_rank, self.top_size, self.revolution
        top_run = self.top_run
        key = ("card", top, ts, rev, top_run > 0, self.top_count if rules.complete_set_clears else 0)
        parts = tb.intervals.get(key)
        if parts is None:
            parts = tb.intervals[key] = _card_parts(tb, top, ts, rev, top_run > 0, self.top_count)
        bound, extra = parts
        wild_cards = [c for wk in tb.wild_kinds for c in hand[wk]] if tb.has_wild else []
        w = len(wild_cards)
        named = cl.named_wild
        slots = [0] * 5
        if named:
            for c in wild_cards:
                slots[cl.card_slot[c]] += 1
        lead = top < 0
        first = self.first_lead
        low = cl.low
        mode = 0                  # 1: colour, 2: suit rank / wild tie, for sets of the top's rank (and size)
        bind = False              # follow: singles of the top's suit only
        fs = top_black = top_red = top_key = top_rid0 = -1
        if not lead and not top_run:
            top_cards = self.top_cards
            if cl.suit_rule == "colour":
                mode = 1
                top_red = sum(1 for c in top_cards if cl.card_red[c])
                top_black = sum(1 for c in top_cards if cl.card_black[c])
                bba = rules.size_rule == "bigger_beats_any"
            elif cl.rank_cmp:
                mode = 2
                top_rid0 = top * S + ts - 1
                suit_cmp = cl.suit_rule == "rank"
                rev_suits = rev and tb.revolutions
                if suit_cmp:
                    suits = [cl.card_suit[c] for c in top_cards]
                    if rev_suits:
                        top_lo = min((s for s in suits if s >= 0), default=4)
                        top_key = 3 - top_lo if top_lo < 4 else -1
                    else:
                        top_key = max(suits, default=-1)
                wild_tie = rules.wild_tie if tb.has_wild else "equal"
                top_wild = self.top_wild
            if cl.suit_rule == "follow" and ts == 1:
                fs = max((cl.card_fsuit[c] for c in top_cards), default=-1)
                bind = fs >= 0
        ids: list[int] = []
        groups: list = []
        for k, held in enumerate(hand):
            if held and cl.kind_sets[k]:
                groups += self._hold_groups(k, held)
        if w:
            groups += cl.wild_groups
        for rid0, p, n, members in groups:
            b = bound[rid0]
            e = extra[rid0]
            special = (mode == 1 and p == top and (not bba or n <= ts)) or \
                (mode == 2 and rid0 == top_rid0 and p != tb.transparent and p != cl.wild_play)
            if not special:
                if not (b or e):
                    continue
                if e or not bind:  # every member held
                    for j, jw in members:
                        if jw > w:
                            break
                        if (not first or low[j]) and (not named or self._holds_wild(j, slots)):
                            ids.append(j)
                    continue
            for j, jw in members:
                if jw > w:
                    break
                if named and not self._holds_wild(j, slots):
                    continue
                ok = b
                if special and mode == 1:  # reversed colours, and the size rule still holds
                    ok = cl.set_colour[j] and cl.set_red[j] == top_black and cl.set_black[j] == top_red and \
                        (n >= ts if rules.size_rule == "at_least" else n == ts)
                elif special:
                    cmp = 0
                    if suit_cmp:
                        hi, lo = cl.set_hi[j], cl.set_lo[j]   # the named wild cards' suits too (fine point 10)
                        mine = (3 - lo if lo < 4 else -1) if rev_suits else hi
                        if mine >= 0 and top_key >= 0:
                            cmp = (mine > top_key) - (mine < top_key)
                    if cmp == 0 and wild_tie != "equal" and (jw > 0) != top_wild:
                        win = (not jw and top_wild) if wild_tie == "natural_higher" else (jw and not top_wild)
                        cmp = 1 if win else -1
                    ok = cmp > 0 or (cmp == 0 and b)
                if bind:
                    ok = ok and n == 1 and (cl.set_fsuit[j] == fs or cl.set_fsuit[j] < 0)
                if (ok or e) and (not first or low[j]):
                    ids.append(j)
        if rules.runs and (lead or top_run):
            ids += self._run_legal(hand, w, lead)
        ids.sort()
        if not lead and not (ids and rules.compulsory_beat):
            ids.insert(0, 0)
        return ids

    def _holds_wild(self, j: int, slots: list[int]) -> bool:
        """Whether the wild cards set ``j`` names (per suit; wild jokers) are among ``slots`` held."""
        return all(slots[s] >= m for s, m in self._t.cl.wild_need[j])

    def _run_legal(self, hand: list[list[int]], w: int, lead: bool) -> list[int]:
        """Runs the player can make (a natural card at least, wild cards for the rest) that lead, or beat the
        run on top: the same length and a higher compared card in the current order (the engine's _run_mask)."""
        tb = self._t
        cl = tb.cl
        masks = [0, 0, 0, 0]
        pos = cl.run_pos
        for cards in hand:
            for c in cards:
                sp = pos[c]
                if sp is not None:
                    masks[sp[0]] |= 1 << sp[1]
        cache = cl.run_cache
        out = []
        rev = 1 if self.revolution else 0
        strength = tb.strength[rev]
        top_str = strength[max(self.top_rank, 0)]
        top_run = self.top_run
        first = self.first_lead
        for s in range(4):
            m = masks[s]
            if not m:
                continue
            key = (s, m, w)
            runs = cache.get(key)
            if runs is None:
                runs = cache[key] = tuple(r for r in cl.runs_by_suit[s]
                                          if (r[1] & m) and r[2] - (r[1] & m).bit_count() <= w)
            for j, _, L, cmp0, cmp1, lw in runs:
                if lead:
                    if not first or lw:
                        out.append(j)
                elif L == top_run and strength[cmp1 if rev else cmp0] > top_str:
                    if not first or lw:
                        out.append(j)
        return out

    def _select(self, seat: int, a: int) -> tuple[list[int], int]:
        """Card-level: remove and return the cards action ``a`` takes (its named natural cards, the first copy
        held of each name, then the least wild cards held) and how many are wild (the engine's ``_select``)."""
        tb = self._t
        hand = self.hands[seat]
        counts = self.counts[seat]
        played = self.played
        sel: list[int] = []
        for k, lo, hi, m in tb.cl.need[a]:
            held = hand[k]
            got = [c for c in held if lo <= c < hi][:m]
            if got:
                for c in got:
                    held.remove(c)
                counts[k] -= len(got)
                played[k] += len(got)
                sel += got
        need = tb.act_size[a] - len(sel)
        n_wild = 0
        if tb.cl.named_wild and not tb.cl.run[a]:  # a set: the least wild cards held of each suit it names
            slot = tb.cl.card_slot
            for s_, m in tb.cl.wild_need[a]:
                for wk in tb.wild_kinds:
                    held = hand[wk]
                    got = [c for c in held if slot[c] == s_][:m]
                    for c in got:
                        held.remove(c)
                    counts[wk] -= len(got)
                    played[wk] += len(got)
                    sel += got
                    n_wild += len(got)
                    m -= len(got)
                    if not m:
                        break
            need = 0
        if need and tb.has_wild:
            for wk in tb.wild_kinds:
                if need == 0:
                    break
                held = hand[wk]
                m = min(need, len(held))
                if m:
                    sel += held[:m]
                    del held[:m]
                    counts[wk] -= m
                    played[wk] += m
                    need -= m
                    n_wild += m
        sel.sort()
        return sel, n_wild

    def _play_card(self, a: int) -> bool:  # noqa: C901 - one block per option, as the engine's _play
        """Card-level rules: a play (a set or a run) or pass of the seat to act; returns whether the hand ended."""
        tb = self._t
        rules = self.rules
        P, S = tb.P, tb.S
        cur = self.current
        size = tb.act_size[a]
        rank = tb.act_rank[a]
        passed = self.passed
        old_rank = self.top_rank
        old_size = self.top_size
        n_cards = self.n_cards
        clear_self = clear_next = claim_play = False
        not_run = True
        if size:
            sel, n_wild = self._select(cur, a)
            pc = self.played_cards
            for c in sel:
                pc[c] = True
            is_run = tb.cl.run[a] > 0
            not_run = not is_run and not self.top_run
            n_cards[cur] -= size
            self.moved = sel
            eff = rank
            if is_run:  # on top as the rank it is compared by (runs never start a revolution)
                eff = rank if self.revolution else rank + size - 1
            if rank == tb.transparent and old_rank >= 0 and size == old_size and not_run:
                eff = old_rank
            if rules.complete_set_clears:  # a run counts no cards of a rank (section 8 fine point 6)
                self.top_count = 0 if is_run else self.top_count + size if (eff == old_rank and not_run) else size
            self.top_rank = eff
            self.top_size = size
            self.top_owner = cur
            self.top_wild = n_wild > 0
            self.first_lead = False
            self.top_cards = sel[:]
            if rules.runs:
                self.top_run = tb.cl.run[a]
            if tb.quick_clear:  # natural cards of the play's own rank in consecutive plays at the top
                claim_play = self.claim_rank >= 0
                nat_n = size - n_wild
                own = -1 if is_run else rank
                self.qc_count = self.qc_count + nat_n if own == self.top_own else nat_n
                self.top_own = own
                self.claim_rank = self.claim_next = -1
            if tb.may_replay:
                for s in range(P):
                    passed[s] = False
            elif tb.single_round:
                passed[cur] = True
            reset = size == 1 and rank in tb.reset_ranks[self.revolution]  # the order before the play
            flip = size >= 4 and not is_run  # a run is never a four of a kind
            four = flip
            if rules.revolution_by_singles:
                row = (self.single_row + 1) if (size == 1 and eff == old_rank and old_size == 1) else int(size == 1)
                self.single_row = row
                flip = flip or (size == 1 and (row == 4 or (row == 8 and S == 8)))
            if tb.revolutions and flip:
                self.revolution = not self.revolution
                if tb.reverses:
                    self.direction = -self.direction
            if tb.eight >= 0:
                eight = any(tb.cl.card_nat8[c] for c in sel) if is_run else rank == tb.eight
            else:
                eight = False
            clear_self = ((tb.trump_play[rank] and not is_run) or (tb.bomb and four) or eight
                          or (rules.complete_set_clears and self.top_count >= S) or claim_play)
            clear_next = not clear_self and reset
            if n_cards[cur] == 0:
                self._go_out(cur, sel)
        else:
            self.moved = []
            passed[cur] = True
            is_run = False

        return self._end_turn(cur, size, rank, old_rank, old_size, clear_self, clear_next, claim_play, not_run,
                              is_run)

    def _end_turn(self, cur: int, size: int, rank: int, old_rank: int, old_size: int, clear_self: bool,
                  clear_next: bool, claim_play: bool, not_run: bool, is_run: bool) -> bool:
        """After a card-level or poker play (or pass) of seat ``cur``: skips, the next seat, a quick-clear
        claimer, the end of the trick and who leads, the end of the hand, the legal ids. Returns whether the
        hand ended (the tail of the engine's ``_play``)."""
        tb = self._t
        P = tb.P
        passed = self.passed
        n_cards = self.n_cards
        alive = [n > 0 for n in n_cards]
        ended = sum(alive) <= 1
        direction = self.direction
        owner = self.top_owner
        can_act = [alive[s] and not passed[s] for s in range(P)]
        trick_end = clear_self or clear_next or not any(can_act[s] for s in range(P) if s != owner)
        start = cur
        again = False
        if tb.skips and size and rank == old_rank and not trick_end and not ended and not_run:
            start, again = self._skip(cur, size - old_size + 1, alive)
            can_act = [alive[s] and not passed[s] for s in range(P)]
            if tb.single_round and not any(can_act[s] for s in range(P) if s != owner):
                trick_end = True
        nxt = cur if again else self._seat_after(start, direction, can_act)
        claimer = -1
        if tb.quick_clear and size and not (claim_play or clear_self or clear_next or ended or is_run):
            claimer = self._claimer(rank, cur)
        if trick_end:
            owner = cur if clear_next else owner
            if not clear_next and alive[owner]:
                leader = owner
            else:
                leader = self._seat_after(owner, direction, alive)
            nxt = leader
            self.top_rank = -1
            self.top_size = 0
            self.top_owner = -1
            self.top_wild = False
            self.top_count = 0
            self.single_row = 0
            self.top_own, self.qc_count = -1, 0
            self.top_run = 0
            self.top_cards = []
            self.top_claim = 0
            for s in range(P):
                passed[s] = False
            self.leader = leader
        if claimer >= 0:  # the claimer decides first; then the normal turn goes on
            self.claim_rank, self.claim_next = rank, nxt
            nxt = claimer
        self.current = nxt
        if ended:
            self.phase = OVER
            self.legal = [0]
        else:
            self.legal = self._play_ids()
        return ended

    # ------------------------------------------------------------------ poker
    def _poker_hand(self, seat: int) -> tuple[int, ...]:
        """The cards of ``seat`` as sorted pick indices (copies of a card repeat)."""
        cu = self._t.pk.card_u
        return tuple(sorted(cu[c] for cards in self.hands[seat] for c in cards))

    def _poker_exchange_legal(self) -> list[int]:
        """Poker give-backs and trades: the pick id of any card name held."""
        pt = self._t.pk
        base = 1 + pt.X
        return sorted({base + u for u in self._poker_hand(self.current)})

    def _poker_top(self, rev: bool) -> int:
        """The best suit of the play on top, in the order in force (choice 44)."""
        suit = self._t.pk.u_suit
        cu = self._t.pk.card_u
        return max((3 - suit[cu[c]]) if rev else suit[cu[c]] for c in self.top_cards)

    def _poker_legal(self) -> list[int]:  # noqa: C901 - claims, then picks
        """Legal ids of a poker play decision (docs/rules.md choice 45), from every subset of the hand
        (:func:`_hand_claims`): with no claim pending, pass and the claims some subset makes that lead or beat
        the top; with a claim pending, the picks some completion of the picked cards allows."""
        tb = self._t
        pt = tb.pk
        rules = self.rules
        rev = bool(self.revolution)
        table = _hand_claims(pt, self._poker_hand(self.current), rev)
        top = self.top_claim
        first = self.first_lead
        low = pt.lowest_u
        erb = rules.equal_rank_beats
        strength = pt.strength[rev]
        top_bs = self._poker_top(rev) if top else -1

        def level(x: int) -> int:
            """1: claim x beats the top whatever its cards; 0: it beats with a better suit; -1: never."""
            if top == 0 or (pt.bomb_rule and pt.bomb[x]):
                return 1
            if pt.n[x] != pt.n[top] or strength[x] < strength[top]:
                return -1
            return int(strength[x] > strength[top])

        claim = self.poker_claim
        if claim == 0:
            ids = []
            for x, entries in table.items():
                lv = level(x)
                if lv < 0:
                    continue
                if lv == 0:  # the top's own claim: a subset with a better best suit
                    ok = any((bs > top_bs or (bs == top_bs and erb)) and (not first or low in sub)
                             for sub, bs in entries)
                else:
                    ok = not first or any(low in sub for sub, _ in entries)
                if ok:
                    ids.append(x)
            ids.sort()
            if top and not (ids and rules.compulsory_beat):
                ids.insert(0, 0)
            return ids
        lv = level(claim)
        if lv < 0:
            return []
        cu = pt.card_u
        picked = [cu[c] for c in self.picked]
        names: set[int] = set()
        for sub, bs in table.get(claim, ()):
            if lv == 0 and not (bs > top_bs or (bs == top_bs and erb)):
                continue
            if first and low not in sub:
                continue
            rest = list(sub)
            try:
                for u in picked:
                    rest.remove(u)
            except ValueError:
                continue
            names.update(rest)
        if not picked:
            if first:
                names &= {low}
            if lv == 0:  # the top's own claim: the first card picked beats the top's best suit
                suit = pt.u_suit
                names = {u for u in names
                         if ((3 - suit[u]) if rev else suit[u]) > top_bs
                         or (erb and ((3 - suit[u]) if rev else suit[u]) == top_bs)}
        base = 1 + pt.X
        return sorted(base + u for u in names)

    def _play_poker(self, a: int) -> bool:
        """A pass, a claim or a pick of the seat to act; the last pick of a claim makes the play (the cards
        picked leave the hand). Returns whether the hand ended."""
        tb = self._t
        pt = tb.pk
        cur = self.current
        if 1 <= a <= pt.X:  # a claim: the same player picks its cards next
            self.poker_claim = a
            self.picked = []
            self.moved = []
            self.legal = self._poker_legal()
            return False
        old_rank, old_size = self.top_rank, self.top_size
        if a == 0:
            self.moved = []
            self.passed[cur] = True
            return self._end_turn(cur, 0, -1, old_rank, old_size, False, False, False, True, False)
        hand = self.hands[cur]
        ck = tb.card_kind
        picked = self.picked
        card = next(c for c in pt.u_cards[a - 1 - pt.X] if c not in picked and c in hand[ck[c]])
        insort(picked, card)
        claim = self.poker_claim
        size = pt.n[claim]
        if len(picked) < size:
            self.moved = []
            self.legal = self._poker_legal()
            return False
        sel = picked[:]
        counts, played, pc = self.counts[cur], self.played, self.played_cards
        for c in sel:
            k = ck[c]
            hand[k].remove(c)
            counts[k] -= 1
            played[k] += 1
            pc[c] = True
        self.n_cards[cur] -= size
        self.moved = sel
        rank = pt.first_rank[claim]
        self.top_claim = claim
        self.top_rank = rank
        self.top_size = size
        self.top_cards = sel[:]
        self.top_wild = any(tb.card_wild[c] for c in sel)
        self.top_owner = cur
        self.first_lead = False
        self.poker_claim = 0
        self.picked = []
        passed = self.passed
        if tb.may_replay:
            for s in range(tb.P):
                passed[s] = False
        elif tb.single_round:
            passed[cur] = True
        bomb = pt.bomb[claim]
        if tb.revolutions and bomb:
            self.revolution = not self.revolution
            if tb.reverses:
                self.direction = -self.direction
        if self.n_cards[cur] == 0:
            self._go_out(cur, sel)
        return self._end_turn(cur, size, rank, old_rank, old_size, tb.bomb and bomb, False, False, True, False)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Apply one action (an id in ``legal``); raises :class:`IllegalActionError` otherwise."""
        tb = self._t
        if type(action) is not int:
            action = _action_id(action)
        if action not in self.legal:
            self._illegal(action)
        self.hand_over = False
        self.hand_points = [0] * tb.P
        phase = self.phase
        if phase == PLAY and action == 0 and self.claim_rank >= 0:  # quick_clear: the claim is declined
            self.current = self.claim_next
            self.claim_rank = self.claim_next = -1
            self.moved = []
            self.legal = self._play_ids()
        elif phase == PLAY:
            if tb.pk is not None:
                ended = self._play_poker(action)
            else:
                ended = self._play(action) if tb.cl is None else self._play_card(action)
            if ended:
                last = self.moved
                self._end_hand()
                self.moved = last
        elif phase == EXCHANGE:
            self._give_back(action)
        else:
            self.moved = []

    def _illegal(self, a: int) -> None:
        A = self._t.A
        if not 0 <= a < A:
            raise E.IllegalActionError(f"game 0: action {a} is out of range 0..{A - 1}")
        ex = self.phase == EXCHANGE
        words = {i: describe_action(self.rules, i, exchange=ex) for i in self.legal}
        raise E.IllegalActionError(
            f"game 0: illegal action {a} ({describe_action(self.rules, a, exchange=ex)}) "
            f"for seat {self.current}; legal: {words}"
        )

    def _seat_after(self, start: int, direction: int, ok: list) -> int:
        P = self._t.P
        for i in range(1, P + 1):
            s = (start + direction * i) % P
            if ok[s]:
                return s
        return (start + direction) % P

    def _take(self, seat: int, rank: int, size: int) -> tuple[list[int], bool]:
        """Remove and return the cards of a play: natural cards lowest suit first, then wild cards."""
        tb = self._t
        hand = self.hands[seat]
        counts = self.counts[seat]
        played = self.played
        k = tb.play_kind[rank]
        if k >= 0:
            held = hand[k]
            n = len(held)
            if n >= size:
                sel = held[:size]
                del held[:size]
                counts[k] -= size
                played[k] += size
                return sel, False
            sel = held[:]
            held.clear()
            counts[k] = 0
            played[k] += n
            need = size - n
        else:
            sel = []
            need = size
        for wk in tb.wild_kinds:
            if need == 0:
                break
            held = hand[wk]
            m = min(need, len(held))
            if m:
                sel += held[:m]
                del held[:m]
                counts[wk] -= m
                played[wk] += m
                need -= m
        sel.sort()
        return sel, True

    def _play(self, a: int) -> bool:  # noqa: C901 - one block per option, as the engine's _play
        """A play or pass of the seat to act; returns whether the hand ended."""
        tb = self._t
        rules = self.rules
        P, S = tb.P, tb.S
        cur = self.current
        size = tb.act_size[a]
        rank = tb.act_rank[a]
        passed = self.passed
        old_rank = self.top_rank
        old_size = self.top_size
        n_cards = self.n_cards
        clear_self = clear_next = claim_play = False
        if size:
            sel, has_wild = self._take(cur, rank, size)
            if tb.quick_clear:  # natural cards of the play's own rank in consecutive plays at the top
                claim_play = self.claim_rank >= 0
                nat_n = size - sum(1 for card in sel if tb.card_wild[card]) if has_wild else size
                self.qc_count = self.qc_count + nat_n if rank == self.top_own else nat_n
                self.top_own = rank
                self.claim_rank = self.claim_next = -1
            n_cards[cur] -= size
            self.moved = sel
            eff = rank
            if rank == tb.transparent and old_rank >= 0 and size == old_size:
                eff = old_rank
            if rules.complete_set_clears:
                self.top_count = self.top_count + size if eff == old_rank else size
            self.top_rank = eff
            self.top_size = size
            self.top_owner = cur
            self.top_wild = has_wild
            self.first_lead = False
            if tb.may_replay:
                for s in range(P):
                    passed[s] = False
            elif tb.single_round:
                passed[cur] = True
            reset = size == 1 and rank in tb.reset_ranks[self.revolution]  # the order before the play
            flip = size >= 4
            if rules.revolution_by_singles:
                row = (self.single_row + 1) if (size == 1 and eff == old_rank and old_size == 1) else int(size == 1)
                self.single_row = row
                flip = flip or (size == 1 and (row == 4 or (row == 8 and S == 8)))
            if tb.revolutions and flip:
                self.revolution = not self.revolution
                if tb.reverses:
                    self.direction = -self.direction
            clear_self = (tb.trump_play[rank] or (tb.bomb and size >= 4) or rank == tb.eight
                          or (rules.complete_set_clears and self.top_count >= S) or claim_play)
            clear_next = not clear_self and reset
            if n_cards[cur] == 0:
                self._go_out(cur, sel)
        else:
            self.moved = []
            passed[cur] = True

        alive = [n > 0 for n in n_cards]
        ended = sum(alive) <= 1
        direction = self.direction
        owner = self.top_owner
        can_act = [alive[s] and not passed[s] for s in range(P)]
        trick_end = clear_self or clear_next or not any(can_act[s] for s in range(P) if s != owner)
        start = cur
        again = False
        if tb.skips and size and rank == old_rank and not trick_end and not ended:
            start, again = self._skip(cur, size - old_size + 1, alive)
            can_act = [alive[s] and not passed[s] for s in range(P)]
            if tb.single_round and not any(can_act[s] for s in range(P) if s != owner):
                trick_end = True
        nxt = cur if again else self._seat_after(start, direction, can_act)
        claimer = -1
        if tb.quick_clear and size and not (claim_play or clear_self or clear_next or ended):
            claimer = self._claimer(rank, cur)
        if trick_end:
            owner = cur if clear_next else owner
            if not clear_next and alive[owner]:
                leader = owner
            else:
                leader = self._seat_after(owner, direction, alive)
            nxt = leader
            self.top_rank = -1
            self.top_size = 0
            self.top_owner = -1
            self.top_wild = False
            self.top_count = 0
            self.single_row = 0
            self.top_own, self.qc_count = -1, 0
            for s in range(P):
                passed[s] = False
            self.leader = leader
        if claimer >= 0:  # the claimer decides first; then the normal turn goes on
            self.claim_rank, self.claim_next = rank, nxt
            nxt = claimer
        self.current = nxt
        if ended:
            self.phase = OVER
            self.legal = [0]
        else:
            self.legal = self._play_legal()
        return ended

    def _claimer(self, rank: int, cur: int) -> int:
        """quick_clear: the seat other than ``cur`` holding every remaining natural card of ``rank``, enough
        to make 4 x decks with those at the top of the trick; -1 when none (the engine's ``_claimer``)."""
        tb = self._t
        k = tb.play_kind[rank]
        if k < 0 or tb.kind_high[k]:
            return -1
        need = tb.S - self.qc_count
        for s in range(tb.P):
            if s != cur and self.counts[s][k] == need and need > 0:
                return s
        return -1

    def _go_out(self, seat: int, sel: list[int]) -> None:
        tb = self._t
        rules = self.rules
        worst = False
        if rules.forbidden_finish:
            fk, ck = tb.forbidden_kind, tb.card_kind
            worst = any(fk[ck[c]] for c in sel)
        if worst:
            pos = self.next_worst
            self.next_worst -= 1
        else:
            pos = self.next_best
            self.next_best += 1
        self.finish[seat] = pos
        if rules.president_must_win and not worst and pos == 0 and 0 in self.social:
            pres = self.social.index(0)
            if pres != seat and self.n_cards[pres] > 0:
                self.finish[pres] = self.next_worst
                self.next_worst -= 1
                cnt = self.counts[pres]
                self.discarded = [x + y for x, y in zip(self.discarded, cnt, strict=True)]
                self.counts[pres] = [0] * tb.K
                self.hands[pres] = [[] for _ in range(tb.K)]
                self.n_cards[pres] = 0

    def _skip(self, cur: int, k: int, alive: list[bool]) -> tuple[int, bool]:
        """equal_play_skips (fine point 7), as the engine's ``_skip``: (seat to search from, acts again)."""
        P = self._t.P
        d = self.direction
        seats = [(cur + d * j) % P for j in range(1, P + 1)]
        cum, total = [], 0
        for s in seats:
            total += alive[s]
            cum.append(total)
        cur_alive = alive[cur]
        n_others = total - cur_alive
        again = bool(cur_alive and k >= total)
        kk = k if cur_alive else (k - 1) % max(n_others, 1) + 1
        j = next((i for i, c in enumerate(cum) if c >= kk), 0)
        if self._t.single_round and not again:
            for i in range(j + 1):
                if alive[seats[i]]:
                    self.passed[seats[i]] = True
        return seats[j], again

    def _transfer(self, giver: int, recv: int, cards: list[int]) -> None:
        ck = self._t.card_kind
        gh, rh = self.hands[giver], self.hands[recv]
        gc, rc = self.counts[giver], self.counts[recv]
        go, ri = self.exch_out[giver], self.exch_in[recv]
        for card in cards:
            k = ck[card]
            gh[k].remove(card)
            insort(rh[k], card)
            gc[k] -= 1
            rc[k] += 1
            go[k] += 1
            ri[k] += 1
        n = len(cards)
        self.n_cards[giver] -= n
        self.n_cards[recv] += n
        self.moved = sorted(cards)

    def _give_back(self, a: int) -> None:
        """One exchange decision: a card of the named rank, lowest suit (the least wild card for WILD).

        A give-back moves it at once; a merchant's first pick waits in ``trade_pick``; the second
        pick moves both cards (the engine's ``_give_back``)."""
        tb = self._t
        recv = self.current
        k = tb.play_kind[tb.act_rank[a]]
        hand = self.hands[recv]
        if tb.pk is not None:  # poker: the first copy held of the card the pick id names
            ck = tb.card_kind
            card = next(c for c in tb.pk.u_cards[a - 1 - tb.pk.X] if c in hand[ck[c]])
        elif tb.cl is not None and k >= 0:  # card-level: the first copy held of the card the id names
            k, lo, hi, _ = tb.cl.need[a][0]
            card = next(c for c in hand[k] if lo <= c < hi)
        elif k >= 0:
            card = hand[k][0]
        elif tb.cl is not None and tb.cl.named_wild:  # the least wild card held of the suit the id names
            s_ = tb.cl.wild_need[a][0][0]
            card = next(c for wk in tb.wild_kinds for c in hand[wk] if tb.cl.card_slot[c] == s_)
        else:
            card = next(hand[wk][0] for wk in tb.wild_kinds if hand[wk])
        social = self.social
        step = self.exch_step
        partner = social.index(tb.ex_partner[step])
        kind = tb.ex_kind[step]
        if kind == 1:
            self.trade_pick[recv] = card
            self.moved = [card]
        else:
            self._transfer(recv, partner, [card])
            if kind == 2:
                self._transfer(partner, recv, [self.trade_pick[partner]])
                self.trade_pick[partner] = -1
                self.moved = [card]
        self.exch_step += 1
        n = len(tb.ex_kind)
        if self.exch_step >= n:
            self.current = self.leader
            self.phase = PLAY
        else:
            self.current = social.index(tb.ex_decider[self.exch_step])
        self._refresh_legal()

    # ------------------------------------------------------------------ between hands
    def _end_hand(self) -> None:
        """Score the hand, then end the session or reseat and deal the next hand (the engine's ``_end_hand``)."""
        tb = self._t
        rules = self.rules
        P = tb.P
        finish = self.finish
        for s in range(P):
            if finish[s] < 0:
                finish[s] = self.next_best
        self.hand_over = True
        pos_by_player = [0] * P
        for s, p in enumerate(self.seat_player):
            pos_by_player[p] = finish[s]
        self.last_finish = pos_by_player
        self.hand_points = [tb.points[pos] for pos in pos_by_player]
        self.points = [x + y for x, y in zip(self.points, self.hand_points, strict=True)]
        self.hand_no += 1
        if rules.hands_per_session is not None:
            over = self.hand_no >= rules.hands_per_session
        else:
            over = max(self.points) >= rules.target_points
        if over:
            self.phase = OVER
            self.legal = [0]
            return
        self.phase = PLAY
        if rules.reseat:
            sp = [0] * P
            for p, r in enumerate(pos_by_player):
                sp[(r * tb.d) % P] = p
            self.seat_player = sp
            for s, p in enumerate(sp):
                self.player_seat[p] = s
        self.social = [pos_by_player[p] for p in self.seat_player]
        self.dealer = self.social.index(P - 1)
        self._start_hand()

    def _deal(self) -> list[list[list[int]]]:
        """The engine's ``_deal`` for a hand with ranks: shuffle from (key, hand number), one card at a time.

        Under ``hand_assignment expose`` the piles go by their last (face-up) card and ``exposed`` is set."""
        tb = self._t
        P, C, d = tb.P, tb.C, tb.d
        social = self.social
        extra = self.rules.extra_cards_to
        if extra == "bottom_ranks":  # the Scum first, then the Vice-Scum, on up the ranking
            order = [social.index(P - 1 - i) for i in range(P)]
        else:
            start = social.index(0) if extra == "top_ranks" else (self.dealer + d) % P
            order = [(start + d * i) % P for i in range(P)]
        noise = E._hash(np.array([[self.key]], dtype=np.uint64), E._SALT_DEAL,
                        np.array([[self.hand_no]], dtype=np.int32), np.arange(C)[None, :])
        perm = np.argsort(noise, axis=1)[0].tolist()
        ck = tb.card_kind
        hands: list[list[list[int]]] = [[[] for _ in range(tb.K)] for _ in range(P)]
        for i, card in enumerate(perm):
            hands[order[i % P]][ck[card]].append(card)
        for h in hands:
            for cards in h:
                cards.sort()
        self.exposed = [-1] * P
        if self.rules.hand_assignment == "expose":
            shown = [perm[j + P * ((C - 1 - j) // P)] for j in range(P)]
            ik = tb.ident_key
            best = sorted(range(P), key=lambda j: -ik[shown[j]])  # stable: ties go to the pile dealt first
            piles = [hands[order[j]] for j in best]
            hands = [None] * P  # type: ignore[list-item]
            for k, j in enumerate(best):
                seat = social.index(k)
                hands[seat] = piles[k]
                self.exposed[seat] = shown[j]
        return hands

    def _start_hand(self) -> None:
        """Deal, play the forced exchange, set who acts (the engine's ``_start_hand``, for a hand with ranks)."""
        tb = self._t
        P, K = tb.P, tb.K
        self.hands = hands = self._deal()
        self.counts = [[len(cards) for cards in h] for h in hands]
        self.n_cards = [sum(cnt) for cnt in self.counts]
        self.phase = PLAY
        self.top_rank, self.top_size, self.top_owner, self.top_wild, self.top_count = -1, 0, -1, False, 0
        self.passed = [False] * P
        self.finish = [-1] * P
        self.next_best, self.next_worst = 0, P - 1
        self.revolution = False
        self.direction = tb.d
        self.played = [0] * K
        self.discarded = [0] * K
        self.exch_step = 0
        self.exch_in = [[0] * K for _ in range(P)]
        self.exch_out = [[0] * K for _ in range(P)]
        self.moved = []
        self.first_lead = False
        self.single_row = 0
        self.trade_pick = [-1] * P
        self.top_own, self.qc_count, self.claim_rank, self.claim_next = -1, 0, -1, -1
        self.top_run, self.top_cards, self.played_cards = 0, [], [False] * tb.C
        self.poker_claim, self.picked, self.top_claim = 0, [], 0
        social = self.social
        seat_of_rank = [social.index(r) for r in range(P)]
        self.leader = self.current = seat_of_rank[0 if self.rules.lead_after_first == "president" else P - 1]
        if tb.ex_kind:
            bk = tb.best_key
            for k, n in enumerate(tb.give):
                giver, recv = seat_of_rank[P - 1 - k], seat_of_rank[k]
                held = [c for cards in self.hands[giver] for c in cards]
                best = sorted(held, key=bk.__getitem__, reverse=True)[:n]
                self._transfer(giver, recv, best)
            self.phase = EXCHANGE
            self.current = seat_of_rank[tb.ex_decider[0]]
        self._refresh_legal()
