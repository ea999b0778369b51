"""Poker combinations (``combinations poker``) for the scripted agents: choose a claim, then pick its cards.

A poker play is two kinds of decision (docs/rules.md choices 41-48): a *claim* ("full house
of sevens", ids ``1..X``, or pass) and then one *pick* per card (ids ``X+1..X+U``, one per
card name). The engine's mask offers only claims that can be completed (and beat the top)
and, after a claim, only picks that keep it completable, so any legal pick is safe. The
agents keep no memory between the two: both steps work out, from the observation alone,
the same **preferred completion** of a claim (:func:`complete`), counted by rank:

* sets (single, pair, three, five of a rank, two pair): the naturals of the claim's ranks,
  wild cards for the rest;
* four of a kind: the four, then as the fifth card the weakest lone card (a card of a pair
  only when there is no lone one, a wild card only when there is no other);
* full house: the three, then the pair that costs least: a pair held whole, else a card
  out of a three, else a lone card and a wild card, weakest rank first;
* straight: one natural of each rank of the window held, wild cards for the others;
  straight flush: the same in the suit that needs the fewest wild cards;
* flush: in the suit that needs the fewest wild cards (then breaks the fewest pairs), the
  claim's high card and the weakest other cards of the suit, lone cards before pair cards.

The first lead under ``lowest_card`` (the lowest card, 3C, must be played) puts that card
in: the kicker or the pair of a full house is its rank, a flush is of its suit. On the top's
own claim the play must hold a card of a suit above the top's best suit: without a natural
one of the claim's rank the completion takes a wild card (the pick mask says which).

**Picks** (both agents): the weakest unpicked card of the preferred completion that the mask
allows, naturals before wild cards, weakest suits first (the first pick on the top's own
claim is a card of a higher suit than the top's: the mask leaves only those). A card
outside the completion is picked only when no card of it is legal: then naturals before
wild cards, a lone card before a card of a group, the weakest first.

**Exchange** (give-backs, merchant trades; pick ids): greedy gives back its weakest card
(wild cards last); the heuristic its least useful one: a lone low card before a card of a
three, then of a pair; safe singles and cards of the made hands it keeps (below) after
the others, wild cards last.

**greedy** claims like the rank-level greedy: a claim that uses no wild card and breaks no
rank first, then one that breaks a rank, then one that needs wild cards; within a tier,
on a lead the claim whose highest natural card is weakest (then the fewest cards), on a
follow the weakest claim that beats. It passes only when no claim is legal.

**heuristic** plans by rank groups: a group (the cards of one natural rank) is a *control*
when the chance that an opponent can beat it is under 25% (:func:`agents.heuristic_kernel.beat_chance`,
counting the unseen naturals and wild cards; a pair, three or four of a rank is judged as
its set; wild cards count as a control), else a *loser*. A 5-card play of a full house or
better counts as safe, a two pair as its high pair. A claim breaks a group when it takes
some of its cards, and a made hand it keeps (a straight or a flush of lone cards, four of
a rank, a full house of a three and a pair held whole) when a play of fewer than five
cards takes one of its cards.

* Leading: go out if it can. With at most one loser left it leads its controls first.
  Otherwise it sheds weak cards in the largest combination that needs no wild card and
  breaks nothing: a natural 5-card hand (weakest cards first), else its weakest losing
  group whole (a two pair of two losing pairs before a single pair); not a losing single
  when an opponent has one card left. Claims that break a group or need wild cards come last.
* Following: go out if it can. Dump the weakest losing group that beats the top whole
  (no wild card, nothing broken). Spend a control only when the plan needs the lead (no
  more than one loser beyond its other controls) or an opponent is down to three cards.
  Break a group only with a safe play that leaves no more losers; spend wild cards only
  with a safe play, and only when it leaves at most one loser or an opponent is down to
  two cards (the top is the last chance to stop it). Otherwise pass (``compulsory_beat``:
  its best claim).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from president_env.core import Rules, tables
from president_env.core import observation as O
from president_env.core.poker import (
    FIVE,
    FLUSH,
    FOUR,
    FULL_HOUSE,
    SET,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    WILD_SET,
    claim_table,
)

from ._plays import holdings, play_consts
from .base import ObsView, decode
from .heuristic_kernel import RESET_WEIGHT, SAFE_BELOW, beat_chance_rows, heuristic_tables

INF = np.inf


@dataclass(frozen=True, eq=False)
class PokerConsts:
    """The claim table as the poker agents read it: per claim and per card name, as arrays."""

    X: int                     # claims (ids 1..X); picks are ids X+1..X+U
    U: int                     # card names
    NR: int                    # natural ranks
    n: np.ndarray              # (X+1,) cards of each claim
    n8: np.ndarray             # (X+1,) the same as int8 (the counts are int8)
    kind: np.ndarray           # (X+1,)
    key: np.ndarray            # (X+1,)
    key2: np.ndarray           # (X+1,)
    window: np.ndarray         # (X+1, 5)
    strength: np.ndarray       # (2, X+1)
    bomb: np.ndarray           # (X+1,) bool
    first_rank: np.ndarray     # (X+1,)
    cell_mat: np.ndarray       # (C, NR*4 + 4) float32: natural cards by (rank, suit place), then wild cards by suit
    name_of: np.ndarray        # (C,) card-name index of each card
    name_mat: np.ndarray       # (C, U) float32 one-hot name of each card
    name_r: np.ndarray         # (U,) natural rank of each name, -1 a wild card
    name_s: np.ndarray         # (U,) suit place
    name_w: np.ndarray         # (U,) bool wild
    lowest_name: int           # name index of the lowest card (first lead)
    ids: dict                  # kind -> claim ids of that kind (SET and FIVE merged as "rank")


@lru_cache(maxsize=64)
def poker_consts(rules: Rules) -> PokerConsts:
    ct = claim_table(rules)
    t = tables(rules)
    NR, C, U = ct.NR, t.n_cards, len(ct.pick_names)
    cell = np.zeros((C, NR * 4 + 4), dtype=np.float32)
    name_of = np.array([ct.pick_names.index(n) for n in t.card_names], dtype=np.int64)
    name_r = np.full(U, -1, dtype=np.int64)
    name_s = np.zeros(U, dtype=np.int64)
    for u, name in enumerate(ct.pick_names):
        name_s[u] = rules.suit_order.index(name[-1])
        if name[:-1] not in rules.wild_ranks:
            name_r[u] = ct.naturals.index(name[:-1])
    for c_, u in enumerate(name_of):
        cell[c_, name_r[u] * 4 + name_s[u] if name_r[u] >= 0 else NR * 4 + name_s[u]] = 1
    name_mat = np.zeros((C, U), dtype=np.float32)
    name_mat[np.arange(C), name_of] = 1
    kind = ct.kind
    ids = {k: np.flatnonzero(kind == k) for k in (WILD_SET, TWO_PAIR, FOUR, FULL_HOUSE, STRAIGHT, STRAIGHT_FLUSH,
                                                  FLUSH)}
    ids["rank"] = np.flatnonzero((kind == SET) | (kind == FIVE))
    return PokerConsts(
        X=ct.X, U=U, NR=NR, n=ct.n, n8=ct.n.astype(np.int8), kind=kind, key=ct.key, key2=ct.key2, window=ct.window,
        strength=ct.strength, bomb=ct.bomb, first_rank=ct.first_rank, cell_mat=cell, name_of=name_of,
        name_mat=name_mat, name_r=name_r, name_s=name_s, name_w=name_r < 0,
        lowest_name=int(name_of[t.lowest_card]), ids=ids)


@dataclass(frozen=True, eq=False)
class PokerAgentConsts:
    pk: PokerConsts
    X: int                     # claims 1..X, picks X+1..X+U
    U: int                     # card names
    NR: int                    # natural ranks
    rank_like: np.ndarray      # (X+1,) bool single/pair/three/five of a rank
    nat_play: np.ndarray       # (NR,) play rank of each natural rank (for the beat chances)
    wild_play: int             # play rank of the wild cards
    card_r: np.ndarray         # (C,) natural rank, -1 wild
    card_s: np.ndarray         # (C,) suit place (0 weakest in suit_order)
    card_w: np.ndarray         # (C,) bool
    card_name: np.ndarray      # (C,) name index (pick id - 1 - X)
    rank_mat: np.ndarray       # (C, NR) float32 one-hot natural rank of each card
    cell_mat: np.ndarray       # (C, NR*4) float32 one-hot (rank, suit) of each natural card
    wsuit_mat: np.ndarray      # (C, 4) float32 one-hot suit of each wild card
    low_card: int              # the card of the first lead
    low_r: int
    low_s: int
    equal_rank_beats: bool
    win_mat: np.ndarray        # (windows, NR) float32 the natural ranks of each straight window


@lru_cache(maxsize=32)
def consts(rules: Rules) -> PokerAgentConsts:
    pk = poker_consts(rules)
    t = tables(rules)
    NR, C = pk.NR, t.n_cards
    name = pk.name_of
    card_r, card_s, card_w = pk.name_r[name], pk.name_s[name], pk.name_w[name]
    rank_mat = np.zeros((C, NR), np.float32)
    nat = np.flatnonzero(~card_w)
    rank_mat[nat, card_r[nat]] = 1
    cell = pk.cell_mat[:, :NR * 4].copy()
    wsuit = pk.cell_mat[:, NR * 4:].copy()
    ct = claim_table(rules)
    rank_like = np.isin(np.arange(pk.X + 1), pk.ids["rank"])
    nat_play = np.array([t.play_ranks.index(r) for r in ct.naturals], np.int64)
    low = int(t.lowest_card)
    ids = pk.ids[STRAIGHT]
    windows = np.unique(pk.window[ids], axis=0) if ids.size else np.zeros((0, 5), np.int64)
    win_mat = np.zeros((len(windows), NR), np.float32)
    for j, W5 in enumerate(windows):
        win_mat[j, W5] = 1
    return PokerAgentConsts(
        pk=pk, X=pk.X, U=pk.U, NR=NR, rank_like=rank_like, nat_play=nat_play, wild_play=t.n_play_ranks - 1,
        card_r=card_r, card_s=card_s, card_w=card_w, card_name=name, rank_mat=rank_mat, cell_mat=cell,
        wsuit_mat=wsuit, low_card=low, low_r=int(card_r[low]), low_s=int(card_s[low]),
        equal_rank_beats=rules.equal_rank_beats, win_mat=win_mat)


# --------------------------------------------------------------------------- the observation
@dataclass(frozen=True, eq=False)
class PokerObs:
    """The poker pieces of observation rows, with the rank-level view and the hand counted."""

    v: ObsView
    own: np.ndarray            # (N, C) bool own cards (the picked ones included)
    picked: np.ndarray         # (N, C) bool picked for the pending claim
    top_cards: np.ndarray      # (N, C) bool
    top: np.ndarray            # (N,) claim on top, 0 none
    claim: np.ndarray          # (N,) pending claim, 0 none
    rev: np.ndarray            # (N,) bool revolution
    g: np.ndarray              # (N, NR) natural cards per rank
    cell: np.ndarray           # (N, NR, 4) natural cards per (rank, suit)
    wsuit: np.ndarray          # (N, 4) wild cards per suit
    W: np.ndarray              # (N,) wild cards
    n_cards: np.ndarray        # (N,)
    first: np.ndarray          # (N,) bool the first lead (must play the lowest card)
    top_suit: np.ndarray       # (N,) best suit of the top as a strength in the order in force, -1 none


def observe_poker(rules: Rules, obs: np.ndarray) -> PokerObs:
    """Decode (N, D) observation rows of poker rules."""
    k = consts(rules)
    sl = O.slices(rules)
    v = decode(rules, obs)
    N = obs.shape[0]

    def cards(name: str) -> np.ndarray:
        return obs[:, sl[name]] > 0.5

    def onehot(name: str) -> np.ndarray:
        piece = obs[:, sl[name]]
        return np.where(piece.any(axis=1), np.argmax(piece, axis=1) + 1, 0).astype(np.int64)

    own = cards("own_cards")
    f = own.astype(np.float32)
    g = np.rint(f @ k.rank_mat).astype(np.int64)
    cell = np.rint(f @ k.cell_mat).astype(np.int64).reshape(N, k.NR, 4)
    wsuit = np.rint(f @ k.wsuit_mat).astype(np.int64)
    top_cards = cards("top_cards")
    rev = v.revolution
    hi = np.where(top_cards, k.card_s[None, :], -1).max(axis=1)
    lo = np.where(top_cards, k.card_s[None, :], 4).min(axis=1)
    top_suit = np.where(top_cards.any(axis=1), np.where(rev, 3 - lo, hi), -1)
    first = np.zeros(N, bool)
    if rules.first_lead == "lowest_card":
        first = v.leading & (v.social < 0).all(axis=1) & (v.played.sum(axis=1) == 0) & own[:, k.low_card]
    return PokerObs(v=v, own=own, picked=cards("picked"), top_cards=top_cards, top=onehot("top_claim"),
                    claim=onehot("claim"), rev=rev, g=g, cell=cell, wsuit=wsuit,
                    W=wsuit.sum(axis=1), n_cards=own.sum(axis=1), first=first, top_suit=top_suit)


# --------------------------------------------------------------------------- the preferred completion
def complete(k: PokerAgentConsts, g: np.ndarray, cell: np.ndarray, wsuit: np.ndarray, claim: np.ndarray,
             rev: np.ndarray, first: np.ndarray, top: np.ndarray,
             top_suit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The preferred completion of ``claim`` (M,) from hands counted as ``g`` (M, NR), ``cell`` (M, NR, 4),
    ``wsuit`` (M, 4): natural cards used per rank (M, NR), wild cards used (M,) and the suit of a
    flush or straight flush (M,) (-1 for the others). See the module docstring."""
    M, NR = len(claim), k.NR
    pk = k.pk
    u = np.zeros((M, NR), np.int64)
    w = np.zeros(M, np.int64)
    fsuit = np.full(M, -1, np.int64)
    if M == 0:
        return u, w, fsuit
    kind, key, n = pk.kind[claim], pk.key[claim], pk.n[claim]
    ranks = np.arange(NR)
    st = np.where(rev[:, None], NR - 1 - ranks[None, :], ranks[None, :])       # (M, NR) strength in force
    lone_cost = (g >= 2) * 100 + st                                            # a lone card before a group's

    i = np.flatnonzero(k.rank_like[claim])
    if i.size:
        q = key[i]
        take = np.minimum(n[i], g[i, q])
        u[i, q] = take
        w[i] = n[i] - take
        # the top's own claim needs a card of a higher suit: a wild card when no natural q has one
        same = top[i] == claim[i]
        if same.any():
            ok_suit = _suit_beats(k, rev[i], same, top_suit[i])                  # (m, 4)
            good = (cell[i, q, :] * ok_suit).sum(axis=1) > 0
            swap = same & ~good & (take == n[i])
            u[i[swap], q[swap]] -= 1
            w[i[swap]] += 1
    i = np.flatnonzero(kind == WILD_SET)
    w[i] = n[i]
    i = np.flatnonzero((kind == TWO_PAIR) & ~k.rank_like[claim])
    if i.size:
        h, lo = key[i], pk.key2[claim[i]]
        uh, ul = np.minimum(2, g[i, h]), np.minimum(2, g[i, lo])
        u[i, h], u[i, lo] = uh, ul
        w[i] = 4 - uh - ul
    i = np.flatnonzero(kind == FOUR)
    if i.size:
        q = key[i]
        uq = np.minimum(4, g[i, q])
        u[i, q] = uq
        w[i] = 4 - uq
        cost = np.where((g[i] >= 1) & (ranks[None, :] != q[:, None]), lone_cost[i], INF)
        force = first[i] & (q != k.low_r)
        cost[force] = np.where(ranks == k.low_r, cost[force], INF)
        kk = np.argmin(cost, axis=1)
        has = np.isfinite(cost[np.arange(i.size), kk])
        u[i[has], kk[has]] += 1
        w[i[~has]] += 1
    i = np.flatnonzero(kind == FULL_HOUSE)
    if i.size:
        q = key[i]
        uq = np.minimum(3, g[i, q])
        u[i, q] = uq
        gi = g[i]
        cost = np.where(ranks[None, :] != q[:, None],
                        np.maximum(0, 2 - gi) * 1000 + (gi > 2) * 100 + st[i], INF)
        force = first[i] & (q != k.low_r)
        cost[force] = np.where(ranks == k.low_r, cost[force], INF)
        p = np.argmin(cost, axis=1)
        up = np.minimum(2, gi[np.arange(i.size), p])
        u[i, p] += up
        w[i] = 3 - uq + 2 - up
    i = np.flatnonzero(kind == STRAIGHT)
    if i.size:
        W5 = pk.window[claim[i]]
        have = (np.take_along_axis(g[i], W5, axis=1) >= 1).astype(np.int64)
        ui = u[i]
        np.put_along_axis(ui, W5, have, axis=1)
        u[i] = ui
        w[i] = 5 - have.sum(axis=1)
    i = np.flatnonzero(kind == STRAIGHT_FLUSH)
    if i.size:
        W5 = pk.window[claim[i]]
        m = np.arange(i.size)[:, None]
        cs = (cell[i][m, W5, :] >= 1)                                          # (m, 5, 4)
        have = cs.sum(axis=1)                                                  # (m, 4)
        ws = 5 - have
        feas = (wsuit[i] >= ws) & (have >= 1) & _suit_beats(k, rev[i], top[i] == claim[i], top_suit[i])
        feas[first[i]] &= np.arange(4)[None, :] == k.low_s
        brk = (cs & (np.take_along_axis(g[i], W5, axis=1) >= 2)[:, :, None]).sum(axis=1)
        cost = np.where(feas, ws * 100 + brk * 10 + np.arange(4)[None, :], INF)
        s = np.where(np.isfinite(cost).any(axis=1), np.argmin(cost, axis=1), np.argmax(have, axis=1))
        ar = np.arange(i.size)
        ui = u[i]
        np.put_along_axis(ui, W5, cs[ar, :, s].astype(np.int64), axis=1)
        u[i] = ui
        w[i] = ws[ar, s]
        fsuit[i] = s
    i = np.flatnonzero(kind == FLUSH)
    if i.size:
        beats = _suit_beats(k, rev[i], top[i] == claim[i], top_suit[i])
        _flush(k, g, cell, wsuit, key, st, lone_cost, first, i, u, w, fsuit, beats)
    return u, w, fsuit


def _suit_beats(k: PokerAgentConsts, rev: np.ndarray, same: np.ndarray, top_suit: np.ndarray) -> np.ndarray:
    """(M, 4) suits a one-suit play (flush, straight flush) may be of: on the top's own claim, those above
    the top's best suit (or equal to it, with ``equal_rank_beats``); any suit otherwise."""
    ss = _suit_strength(rev)
    above = ss >= top_suit[:, None] if k.equal_rank_beats else ss > top_suit[:, None]
    return ~same[:, None] | above


def _suit_strength(rev: np.ndarray) -> np.ndarray:
    """(M, 4) strength of each suit place in the order in force."""
    s = np.arange(4)[None, :]
    return np.where(rev[:, None], 3 - s, s)


def _flush(k: PokerAgentConsts, g, cell, wsuit, key, st, lone_cost, first, i, u, w, fsuit, beats) -> None:
    """Flush completions (see :func:`complete`): in place on u, w, fsuit for rows ``i``; ``beats`` (m, 4)
    the suits it may be of."""
    m = i.size
    ar = np.arange(m)
    q = key[i]
    below = st[i] <= st[i, q][:, None]                                         # (m, NR) at or below q
    held = cell[i] >= 1                                                        # (m, NR, 4)
    hasq = held[ar, q, :]                                                      # (m, 4)
    other = held & below[:, :, None]
    other[ar, q, :] = False
    cnt = other.sum(axis=1)                                                    # (m, 4) others at or below q
    need_w = np.where(hasq, np.maximum(0, 4 - cnt), 1 + np.maximum(0, 4 - cnt))
    nat_others = 4 - np.maximum(0, 4 - cnt)                                    # others taken
    feas = (wsuit[i] >= need_w) & ((hasq.astype(np.int64) + nat_others) >= 1) & beats
    f = first[i]
    feas[f] &= np.arange(4)[None, :] == k.low_s
    cost_r = np.where(other, lone_cost[i][:, :, None], INF)                    # (m, NR, 4)
    if f.any():
        cost_r[f, k.low_r, k.low_s] = np.where(other[f, k.low_r, k.low_s], -1.0, INF)
    order = np.argsort(cost_r, axis=1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(k.NR)[None, :, None], axis=1)
    sel = other & (pos < nat_others[:, None, :])                               # (m, NR, 4)
    brk = (sel & (g[i] >= 2)[:, :, None]).sum(axis=1)
    strength = np.where(sel, st[i][:, :, None], 0).sum(axis=1)
    cost = np.where(feas, need_w * 10000 + brk * 100 + strength, INF)
    s = np.where(np.isfinite(cost).any(axis=1), np.argmin(cost, axis=1), np.argmax(cnt + hasq, axis=1))
    take = sel[ar, :, s].astype(np.int64)
    take[ar, q] += hasq[ar, s]
    u[i] = take
    w[i] = need_w[ar, s]
    fsuit[i] = s


# --------------------------------------------------------------------------- picks
def pick(rules: Rules, p: PokerObs, mask: np.ndarray) -> np.ndarray:
    """The pick id for rows with a pending claim: the weakest legal card of the preferred completion."""
    k = consts(rules)
    N = len(p.claim)
    u, w, fsuit = complete(k, p.g, p.cell, p.wsuit, p.claim, p.rev, p.first, p.top, p.top_suit)
    pf = p.picked.astype(np.float32)
    rem = u - np.rint(pf @ k.rank_mat).astype(np.int64)                        # (N, NR) naturals still wanted
    rem_w = w - np.rint(pf @ k.wsuit_mat).sum(axis=1).astype(np.int64)
    pk = k.pk
    nr = np.maximum(pk.name_r, 0)
    suit_ok = (fsuit[:, None] < 0) | (pk.name_s[None, :] == fsuit[:, None])
    want = np.where(pk.name_w[None, :], (rem_w > 0)[:, None], np.take(rem, nr, axis=1) > 0) & suit_ok
    st = np.where(p.rev[:, None], k.NR - 1 - nr[None, :], nr[None, :])
    grp = np.take(p.g, nr, axis=1) >= 2
    suit_st = _suit_strength(p.rev)[:, pk.name_s] if N else np.zeros((0, k.U), np.int64)
    cost = (~want) * 1e6 + pk.name_w[None, :] * 1e4 + (~pk.name_w[None, :] & grp) * 100 + st * 4 + suit_st
    cost = np.where(mask[:, 1 + k.X:], cost, INF)
    return 1 + k.X + np.argmin(cost, axis=1)



# --------------------------------------------------------------------------- claims
@dataclass(frozen=True, eq=False)
class Candidates:
    """The legal claims of a batch, one row per (game, claim), with their preferred completions."""

    row: np.ndarray            # (M,) game row
    claim: np.ndarray          # (M,)
    n: np.ndarray              # (M,) cards
    u: np.ndarray              # (M, NR) naturals used per rank
    w: np.ndarray              # (M,) wild cards used
    left: np.ndarray           # (M, NR) naturals left per rank
    brk: np.ndarray            # (M,) groups it takes some (not all) cards of
    clear: np.ndarray          # (M,) groups it takes whole
    st_used: np.ndarray        # (M,) strength of its strongest natural rank (NR: wild cards only)
    st: np.ndarray             # (M, NR) strength of each natural rank in the order in force


def candidates(k: PokerAgentConsts, p: PokerObs, mask: np.ndarray) -> Candidates:
    row, c = np.nonzero(mask[:, 1:k.X + 1])
    claim = c + 1
    u, w, _ = complete(k, p.g[row], p.cell[row], p.wsuit[row], claim, p.rev[row], p.first[row], p.top[row],
                       p.top_suit[row])
    left = p.g[row] - u
    used = u > 0
    ranks = np.arange(k.NR)
    st = np.where(p.rev[row][:, None], k.NR - 1 - ranks[None, :], ranks[None, :])
    st_used = np.where(used.any(axis=1), np.where(used, st, -1).max(axis=1), k.NR)
    return Candidates(row=row, claim=claim, n=k.pk.n[claim], u=u, w=w, left=left,
                      brk=(used & (left > 0)).sum(axis=1), clear=(used & (left == 0)).sum(axis=1),
                      st_used=st_used, st=st)


def _best_per_row(N: int, row: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index into the candidates of each row's smallest ``key`` (-1 where a row has none) and that key."""
    best = np.full(N, -1, np.int64)
    val = np.full(N, INF)
    if row.size:
        order = np.lexsort((key, row))
        r, first = np.unique(row[order], return_index=True)
        best[r] = order[first]
        val[r] = key[order[first]]
    return best, val


def _chosen(cd: Candidates, best: np.ndarray, passing: np.ndarray) -> np.ndarray:
    """The claim of each row's chosen candidate, 0 (pass) where ``passing``."""
    if not cd.claim.size:
        return np.zeros(len(best), np.int64)
    return np.where(passing, 0, cd.claim[np.maximum(best, 0)])


def greedy_claim(rules: Rules, p: PokerObs, mask: np.ndarray) -> np.ndarray:
    """greedy's claim (or pass, only when no claim is legal); see the module docstring."""
    k = consts(rules)
    N = len(mask)
    cd = candidates(k, p, mask)
    exact = (cd.brk == 0) & (cd.w == 0)
    tier = (cd.w > 0) * 2 + ~exact
    lead = p.top[cd.row] == 0
    strength = np.where(lead, cd.st_used, k.pk.strength[p.rev[cd.row].astype(np.int64), cd.claim])
    key = (tier * 1000.0 + strength) * 10 + cd.n
    best, val = _best_per_row(N, cd.row, key)
    return _chosen(cd, best, best < 0)


def give_back(rules: Rules, p: PokerObs, mask: np.ndarray, smart: bool) -> np.ndarray:
    """A give-back or merchant trade (a pick id): the weakest card (``smart``: the least useful one)."""
    k = consts(rules)
    pk = k.pk
    nr = np.maximum(pk.name_r, 0)
    st = nr[None, :].astype(np.float64)                                       # the normal order
    cost = st * 4 + pk.name_s[None, :] * 0.1
    if smart:
        gn = np.take(p.g, nr, axis=1)
        count_cost = np.select([gn == 1, gn == 3, gn == 2], [0.0, 1.5, 3.0], default=6.0)
        safe1 = _safety(rules, p, np.zeros(len(p.g), np.int64))[:, k.nat_play, 0]     # (N, NR) a safe single
        keep = _kept_cards(k, p)                                                   # (N, NR, 4)
        kept = keep[:, nr, pk.name_s]
        cost = st + count_cost * 2.0 + 20.0 * np.take(safe1, nr, axis=1) + 30.0 * kept + pk.name_s[None, :] * 0.1
    cost = np.where(pk.name_w[None, :], 1e4 + pk.name_s[None, :], cost)
    cost = np.where(mask[:, 1 + k.X:], cost, INF)
    return 1 + k.X + np.argmin(cost, axis=1)


def _safety(rules: Rules, p: PokerObs, order: np.ndarray) -> np.ndarray:
    """(N, R, S) bool: a set (play rank, size) is safe (under 25% that an opponent beats it) in ``order``."""
    c = play_consts(rules)
    v = p.v
    unseen = holdings(c, np.clip(c.kind_count - v.played - v.hand, 0, None))
    opp = (v.card_counts[:, 1:] > 0).sum(axis=1)
    hopt, rk, _, pneed, holds = heuristic_tables(rules)
    chance = np.empty((len(unseen), c.R, c.S))
    beat_chance_rows(hopt, rk, pneed, holds, unseen, np.ascontiguousarray(order, dtype=np.int64),
                     opp.astype(np.int64), RESET_WEIGHT, chance)
    return chance < SAFE_BELOW


def _kept_cards(k: PokerAgentConsts, p: PokerObs) -> np.ndarray:
    """(N, NR, 4) bool: natural cards of the made hands it keeps together: a straight or a flush of lone
    cards, four of a rank, and a full house of a three and a pair held whole (the weakest ones)."""
    lone = (p.g == 1)[:, :, None] & (p.cell >= 1)                              # (N, NR, 4)
    lone_r = p.g == 1
    if k.win_mat.shape[0]:
        made = (lone_r.astype(np.float32) @ k.win_mat.T) > 4.5                # (N, windows) all five lone
        ranks = (made.astype(np.float32) @ k.win_mat) > 0.5
    else:
        ranks = np.zeros_like(lone_r)
    ranks |= p.g >= 4
    three, pair = p.g == 3, p.g == 2
    full = three.any(axis=1) & pair.any(axis=1)
    N = len(p.g)
    ar = np.arange(N)
    ranks[ar[full], np.argmax(three, axis=1)[full]] = True
    ranks[ar[full], np.argmax(pair, axis=1)[full]] = True
    keep = (ranks[:, :, None] & (p.cell >= 1)) | (lone & (lone.sum(axis=1) >= 5)[:, None, :])
    return keep


def heuristic_claim(rules: Rules, p: PokerObs, mask: np.ndarray, spare: int = 1, near_out: int = 3,
                    last_chance: int = 2) -> np.ndarray:
    """The heuristic's claim or pass (see the module docstring)."""
    k = consts(rules)
    pk = k.pk
    N = len(mask)
    v = p.v
    safe = _safety(rules, p, p.rev.astype(np.int64))                         # (N, R, S)
    nat_safe = safe[:, k.nat_play, :]                                          # (N, NR, S)
    alive = v.card_counts[:, 1:] > 0
    if rules.pass_rule == "may_replay":
        nobody = ~alive.any(axis=1)
    else:
        nobody = ~(alive & ~v.passed[:, 1:]).any(axis=1)
    opp_min = np.where(alive, v.card_counts[:, 1:], 99).min(axis=1)

    def group_safe(rows: np.ndarray, cnt: np.ndarray) -> np.ndarray:
        idx = np.where(cnt >= 4, 1, np.clip(cnt, 1, 3) - 1)                   # four of a rank: as a pair
        return np.take_along_axis(nat_safe[rows], idx[:, :, None], axis=2)[:, :, 0] | nobody[rows][:, None]

    gs = group_safe(np.arange(N), p.g)
    loser = (p.g > 0) & ~gs
    L = loser.sum(axis=1)
    controls = ((p.g > 0) & gs).sum(axis=1) + (p.W > 0)

    cd = candidates(k, p, mask)
    r = cd.row
    used = cd.u > 0
    lost_after = (cd.left > 0) & ~group_safe(r, cd.left)
    L_after = L[r] + (used * (lost_after.astype(np.int64) - loser[r])).sum(axis=1)
    kind, q, n, w = pk.kind[cd.claim], np.maximum(pk.key[cd.claim], 0), cd.n, cd.w
    rl = k.rank_like[cd.claim]
    size_idx = np.where(n >= 4, 1, np.clip(n, 1, 3) - 1)
    safe_play = rl & (n <= 4) & nat_safe[r, q, size_idx]
    safe_play |= rl & (n == 5)
    safe_play |= (kind == TWO_PAIR) & ~rl & nat_safe[r, q, 1]
    wild_set = kind == WILD_SET
    safe_play |= wild_set & safe[r, k.wild_play, np.clip(n, 1, safe.shape[2]) - 1]
    safe_play |= np.isin(kind, (FULL_HOUSE, FOUR, STRAIGHT_FLUSH, FIVE)) | (wild_set & (n == 5))
    if rules.four_of_a_kind == "bomb":
        safe_play |= pk.bomb[cd.claim]
    safe_play |= nobody[r]

    keep = _kept_cards(k, p).any(axis=2)                                       # (N, NR)
    brk = cd.brk + ((n < 5)[:, None] & used & keep[r]).sum(axis=1)
    exact = (brk == 0) & (w == 0)
    ctrl = exact & safe_play
    goes_out = n == p.n_cards[r]
    stu = cd.st_used.astype(np.float64)
    lead = p.top[r] == 0
    run_out = L[r] <= 1

    ls = 100.0 - stu - 10 * w - 20 * brk
    ls = np.where(exact & ~ctrl, 500.0 + 30 * (cd.clear - 1) - stu, ls)
    ls = np.where(ctrl, 300.0 - stu, ls)
    ls = np.where(exact & (n == 5), 700.0 - stu, ls)
    ls = np.where(run_out & ctrl & (L_after <= 1), 900.0 - stu, ls)
    ls = np.where(run_out & wild_set & safe_play & (L_after <= 1), 880.0 - n, ls)
    ls = np.where((opp_min[r] == 1) & (n == 1) & ~safe_play, ls - 300.0, ls)

    fs = 100.0 - stu
    fs = np.where(exact & ~ctrl, 800.0 - stu, fs)
    need = (L_after <= controls[r] - 1 + spare) | (opp_min[r] <= near_out)
    fs = np.where(ctrl & need, 600.0 - stu, fs)
    fs = np.where((w == 0) & (brk > 0) & safe_play & (L_after <= L[r]), 400.0 - stu, fs)
    fs = np.where((w > 0) & safe_play & ((L_after <= 1) | (opp_min[r] <= last_chance)), 300.0 - stu - 10 * w, fs)

    score = np.where(goes_out, 1000.0, np.where(lead, ls, fs))
    best, val = _best_per_row(N, r, -score)
    use_pass = mask[:, 0] & ((best < 0) | (-val < 250.0))
    return _chosen(cd, best, use_pass | (best < 0))


# --------------------------------------------------------------------------- the agents' entry
def act(rules: Rules, obs: np.ndarray, mask: np.ndarray, smart: bool) -> np.ndarray:
    """One action per row for poker rules: the heuristic (``smart``) or greedy."""
    sl = O.slices(rules)
    N = len(mask)
    out = np.zeros(N, np.int64)
    ex = obs[:, sl["phase"].start] > 0.5
    picking = ~ex & obs[:, sl["claim"]].any(axis=1)
    claiming = ~ex & ~picking
    for rows, fn in ((ex, lambda q, m: give_back(rules, q, m, smart)),
                     (picking, lambda q, m: pick(rules, q, m)),
                     (claiming, (lambda q, m: heuristic_claim(rules, q, m)) if smart
                      else (lambda q, m: greedy_claim(rules, q, m)))):
        idx = np.flatnonzero(rows)
        if idx.size:
            out[idx] = fn(observe_poker(rules, obs[idx]), mask[idx])
    return out
