"""Legal poker claims and picks for a batch, by counting (docs/rules.md choices 43-45).

Every claim is "x natural cards from the allowed ones and ``T - x`` wild cards of the allowed
suits, at least one natural": with the cards already picked (S) and the cards still
available (A) counted per natural rank and suit, a claim can be completed exactly when an
interval of x is not empty (:func:`_ok_range`). Claims are worked out for all claims at once
(the claim step), picks for the one pending claim per game, one candidate card name per
column (the pick step). Nothing enumerates subsets of a hand; the scalar engine does, and
the two are tested in lockstep.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import tables
from .poker import FIVE, FLUSH, FOUR, FULL_HOUSE, SET, STRAIGHT, STRAIGHT_FLUSH, TWO_PAIR, WILD_SET, claim_table
from .rules import Rules


@dataclass(frozen=True, eq=False)
class PokerConsts:
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
class Counts:
    """Cards counted every way the claims need (int8): naturals by (rank, suit), by rank, by suit and
    in all; wild cards by suit and in all."""

    cell: np.ndarray    # (N, NR, 4)
    rank: np.ndarray    # (N, NR)
    nsuit: np.ndarray   # (N, 4)
    nat: np.ndarray     # (N,)
    wsuit: np.ndarray   # (N, 4)
    wild: np.ndarray    # (N,)

    def __getitem__(self, idx) -> Counts:
        return Counts(self.cell[idx], self.rank[idx], self.nsuit[idx], self.nat[idx], self.wsuit[idx],
                      self.wild[idx])


@lru_cache(maxsize=64)
def _agg_mat(pk: PokerConsts) -> np.ndarray:
    NR = pk.NR
    cell = pk.cell_mat
    nat = cell[:, :NR * 4].reshape(-1, NR, 4)
    wild = cell[:, NR * 4:]
    return np.concatenate([cell[:, :NR * 4], nat.sum(axis=2), nat.sum(axis=1), nat.sum(axis=(1, 2))[:, None],
                           wild, wild.sum(axis=1, keepdims=True)], axis=1).astype(np.float32)


def zero_counts(pk: PokerConsts, N: int) -> Counts:
    """No cards (nothing picked yet)."""
    z = np.zeros
    return Counts(z((N, pk.NR, 4), np.int8), z((N, pk.NR), np.int8), z((N, 4), np.int8), z(N, np.int8),
                  z((N, 4), np.int8), z(N, np.int8))


def counts(pk: PokerConsts, cards: np.ndarray) -> Counts:
    """(N, C) bool cards -> :class:`Counts` (one matrix product)."""
    NR = pk.NR
    m = (cards.astype(np.float32) @ _agg_mat(pk)).astype(np.int8)
    o = NR * 4
    return Counts(cell=m[:, :o].reshape(-1, NR, 4), rank=m[:, o:o + NR], nsuit=m[:, o + NR:o + NR + 4],
                  nat=m[:, o + NR + 4], wsuit=m[:, o + NR + 5:o + NR + 9], wild=m[:, o + NR + 9])


def _ok_range(T, lo, hi, sw, aw):
    """Some x naturals, lo <= x <= hi, x >= 1, with T - x wild cards from sw picked (all used) + aw available."""
    a = np.maximum(np.maximum(lo, T - sw - aw), 1)
    b = np.minimum(hi, T - sw)
    return a <= b


def _below(pk: PokerConsts, a: np.ndarray, rev: np.ndarray) -> np.ndarray:
    """(N, NR, ...) per-rank counts -> (N, NR(q), ...) sums over the ranks at or below q in the order in force."""
    out = np.cumsum(a, axis=1, dtype=np.int8)
    r = np.flatnonzero(rev)
    if r.size:
        out[r] = np.cumsum(a[r, ::-1], axis=1, dtype=np.int8)[:, ::-1]
    return out


# --------------------------------------------------------------------------- the claim step
def claims_ok(pk: PokerConsts, S: Counts, A: Counts, rev: np.ndarray, want: np.ndarray | None = None) -> np.ndarray:
    """(N, X+1) bool: each claim can be completed from picked S (which it must use) and available A.
    With ``want`` (X+1,) bool only those claims are worked out (the others stay False)."""
    N = S.nat.shape[0]
    out = np.zeros((N, pk.X + 1), dtype=bool)
    Sn, An, Sw, Aw = S.cell, A.cell, S.wsuit, A.wsuit
    SnR, AnR = S.rank, A.rank
    swT, awT = S.wild[:, None], A.wild[:, None]
    snat, anat = S.nat[:, None], A.nat[:, None]
    ids_of = (lambda k: pk.ids[k]) if want is None else (lambda k: pk.ids[k][want[pk.ids[k]]])

    ids = ids_of("rank")                       # single/pair/three/five of q
    if ids.size:
        q, T = pk.key[ids], pk.n8[ids]
        sq, aq = SnR[:, q], AnR[:, q]
        out[:, ids] = (snat == sq) & _ok_range(T, sq, sq + aq, swT, awT)
    ids = ids_of(WILD_SET)
    if ids.size:
        T = pk.n8[ids]
        out[:, ids] = (snat == 0) & (swT <= T) & (swT + awT >= T)
    ids = ids_of(TWO_PAIR)
    if ids.size:
        h, lo_ = pk.key[ids], pk.key2[ids]
        sh, sl = SnR[:, h], SnR[:, lo_]
        hi = np.minimum(2, sh + AnR[:, h]) + np.minimum(2, sl + AnR[:, lo_])
        out[:, ids] = (snat == sh + sl) & (sh <= 2) & (sl <= 2) & _ok_range(4, sh + sl, hi, swT, awT)
    ids = ids_of(FOUR)
    if ids.size:
        q = pk.key[ids]
        sq, aq = SnR[:, q], AnR[:, q]
        so, ao = snat - sq, anat - aq
        out[:, ids] = (so <= 1) & _ok_range(5, sq + so, sq + aq + np.minimum(1, so + ao), swT, awT)
    ids = ids_of(FULL_HOUSE)
    if ids.size:
        out[:, ids] = _full_claims(pk, SnR, AnR, snat, swT, awT, pk.key[ids])
    ids = ids_of(STRAIGHT)
    if ids.size:
        W = pk.window[ids]                                   # (k, 5)
        sW, aW = SnR[:, W], AnR[:, W]                         # (N, k, 5)
        lo = sW.sum(axis=2)
        hi = lo + ((sW == 0) & (aW > 0)).sum(axis=2)
        out[:, ids] = (sW <= 1).all(axis=2) & (lo == snat) & _ok_range(5, lo, hi, swT, awT)
    ids = ids_of(STRAIGHT_FLUSH)
    if ids.size:
        W = pk.window[ids]
        sW, aW = Sn[:, W, :], An[:, W, :]                     # (N, k, 5, 4)
        lo = sW.sum(axis=2)                                   # (N, k, 4)
        hi = lo + ((sW == 0) & (aW > 0)).sum(axis=2)
        stot = (snat + swT)[:, :, None]
        one_suit = stot == lo + Sw[:, None, :]
        ok = (sW <= 1).all(axis=2) & one_suit & _ok_range(5, lo, hi, Sw[:, None, :], Aw[:, None, :])
        out[:, ids] = ok.any(axis=2)
    ids = ids_of(FLUSH)
    if ids.size:
        q = pk.key[ids]
        sle, ale = _below(pk, Sn, rev)[:, q, :], _below(pk, An, rev)[:, q, :]   # (N, k, 4)
        ssuit = S.nsuit[:, None, :]                           # (N, 1, 4) picked naturals of each suit
        stot = (snat + swT)[:, :, None]
        sw, aw = Sw[:, None, :], Aw[:, None, :]
        valid = (stot == ssuit + sw) & (sle == ssuit)        # all picked cards of the suit, naturals at/below q
        has_key = (Sn[:, q, :] > 0) | (sw > 0)
        with_q = (An[:, q, :] > 0) & _ok_range(5, sle + 1, sle + ale, sw, aw)
        with_w = (aw > 0) & _ok_range(5, sle, sle + ale, sw + 1, aw - 1)
        keyed = _ok_range(5, sle, sle + ale, sw, aw)
        out[:, ids] = (valid & np.where(has_key, keyed, with_q | with_w)).any(axis=2)
    return out


def _full_claims(pk: PokerConsts, SnR, AnR, snat, swT, awT, q):
    """Full houses of each q: three of q, a pair of one other rank p (picked, or the best available)."""
    N, NR = SnR.shape
    sq, aq = SnR[:, q], AnR[:, q]
    present = SnR > 0
    # the picked other rank (at most one): the picked ranks other than q
    r1 = np.where(present.any(axis=1), np.argmax(present, axis=1), -1)
    r2 = np.where(present.sum(axis=1) >= 2, NR - 1 - np.argmax(present[:, ::-1], axis=1), -1)
    p = np.where(r1[:, None] != q[None, :], r1[:, None], r2[:, None])            # (N, k)
    n_other = present.sum(axis=1)[:, None] - present[:, q]
    sp = snat - sq
    cap = np.minimum(AnR, 2)
    arg = np.argmax(cap, axis=1)
    m1 = cap[np.arange(N), arg]
    cap[np.arange(N), arg] = -1
    m2 = np.maximum(cap.max(axis=1), 0)
    best_other = np.where(arg[:, None] == q[None, :], m2[:, None], m1[:, None])
    ap = np.take_along_axis(AnR, np.maximum(p, 0), axis=1)
    bmax = np.where(p >= 0, np.minimum(2, sp + ap), best_other)
    return (n_other <= 1) & (sq <= 3) & (sp <= 2) & _ok_range(5, sq + sp, np.minimum(3, sq + aq) + bmax, swT, awT)


# --------------------------------------------------------------------------- the pick step
def picks_ok(pk: PokerConsts, claim: np.ndarray, S: Counts, A: Counts, rev: np.ndarray) -> np.ndarray:
    """(N, U) bool: card names whose next copy, picked, leaves the pending ``claim`` (N,) completable.
    (Whether a copy is available is the caller's part: ``An``/``Aw`` count what is left.)"""
    N = claim.shape[0]
    out = np.zeros((N, pk.U), dtype=bool)
    kind = pk.kind[claim]
    rank_like = np.isin(claim, pk.ids["rank"])
    nr, nw = pk.name_r[None, :], pk.name_w[None, :]
    nat = ~nw
    Sn, An, Sw, Aw = S.cell, A.cell, S.wsuit, A.wsuit
    SnR, AnR = S.rank, A.rank
    swT, awT, snat, anat = S.wild, A.wild, S.nat, A.nat
    for group in ("rank", WILD_SET, TWO_PAIR, FOUR, FULL_HOUSE, STRAIGHT, STRAIGHT_FLUSH, FLUSH):
        g = np.flatnonzero(rank_like) if group == "rank" else np.flatnonzero((kind == group) & ~rank_like)
        if not g.size:
            continue
        cl = claim[g]
        T = pk.n8[cl][:, None]
        q = pk.key[cl][:, None]
        sw = swT[g, None] + nw
        aw = awT[g, None] - nw
        if group == "rank":
            isq = nr == q
            sq = SnR[g][np.arange(g.size), q[:, 0]][:, None] + isq
            aq = AnR[g][np.arange(g.size), q[:, 0]][:, None] - isq
            ok = (snat[g, None] + nat == sq) & _ok_range(T, sq, sq + aq, sw, aw)
        elif group == WILD_SET:
            ok = nw & (snat[g, None] == 0) & (sw <= T) & (sw + aw >= T)
        elif group == TWO_PAIR:
            h, lo_ = q, pk.key2[cl][:, None]
            i = np.arange(g.size)
            sh = SnR[g][i, h[:, 0]][:, None] + (nr == h)
            sl = SnR[g][i, lo_[:, 0]][:, None] + (nr == lo_)
            ah = AnR[g][i, h[:, 0]][:, None] - (nr == h)
            al = AnR[g][i, lo_[:, 0]][:, None] - (nr == lo_)
            hi = np.minimum(2, sh + ah) + np.minimum(2, sl + al)
            ok = (snat[g, None] + nat == sh + sl) & (sh <= 2) & (sl <= 2) & _ok_range(4, sh + sl, hi, sw, aw)
        elif group == FOUR:
            i = np.arange(g.size)
            isq = nr == q
            sq = SnR[g][i, q[:, 0]][:, None] + isq
            aq = AnR[g][i, q[:, 0]][:, None] - isq
            oth = nat & ~isq
            so = snat[g, None] - SnR[g][i, q[:, 0]][:, None] + oth
            ao = anat[g, None] - AnR[g][i, q[:, 0]][:, None] - oth
            ok = (so <= 1) & _ok_range(5, sq + so, sq + aq + np.minimum(1, so + ao), sw, aw)
        elif group == FULL_HOUSE:
            ok = _full_picks(pk, g, q, SnR, AnR, snat, sw, aw, nr, nat)
        elif group == STRAIGHT:
            W = pk.window[cl]                                                  # (G, 5)
            i = np.arange(g.size)[:, None]
            sW, aW = SnR[g][i, W], AnR[g][i, W]
            lo = sW.sum(axis=1)[:, None]
            hi = lo + ((sW == 0) & (aW > 0)).sum(axis=1)[:, None]
            in_w = (W[:, :, None] == nr[:, None, :])                           # (G, 5, U)
            free = (in_w & (sW == 0)[:, :, None]).any(axis=1)                  # an uncovered rank of the window
            fits = nw | free
            ok = fits & _ok_range(5, lo + nat, hi, sw, aw)
        elif group == STRAIGHT_FLUSH:
            W = pk.window[cl]
            i = np.arange(g.size)[:, None]
            sW, aW = Sn[g][i, W, :], An[g][i, W, :]                            # (G, 5, 4)
            lo = sW.sum(axis=1)                                                # (G, 4)
            hi = lo + ((sW == 0) & (aW > 0)).sum(axis=1)
            one_suit = (snat[g] + swT[g])[:, None] == lo + Sw[g]               # picked cards all of that suit
            lo_c, hi_c = np.take(lo, pk.name_s, axis=1), np.take(hi, pk.name_s, axis=1)
            os_c = np.take(one_suit, pk.name_s, axis=1)
            sw_c = np.take(Sw[g], pk.name_s, axis=1) + nw
            aw_c = np.take(Aw[g], pk.name_s, axis=1) - nw
            in_w = (W[:, :, None] == nr[:, None, :])                           # (G, 5, U)
            cov = np.take(sW, pk.name_s, axis=2) == 0                          # (G, 5, U) rank uncovered in c's suit
            free = (in_w & cov).any(axis=1)
            ok = os_c & (nw | free) & _ok_range(5, lo_c + nat, hi_c, sw_c, aw_c)
        else:  # FLUSH
            i = np.arange(g.size)
            r = rev[g]
            below = _below(pk, Sn[g], r)[i, q[:, 0], :]                        # (G, 4) picked naturals at/below q
            a_below = _below(pk, An[g], r)[i, q[:, 0], :]
            ssuit = S.nsuit[g]                                                 # (G, 4)
            valid = ((snat[g] + swT[g])[:, None] == ssuit + Sw[g]) & (below == ssuit)
            hasq = Sn[g][i, q[:, 0], :] > 0
            aq = An[g][i, q[:, 0], :]
            pos = np.where(r[:, None], pk.NR - 1 - nr, nr)                      # (G, U) place of the name's rank
            qpos = np.where(r, pk.NR - 1 - q[:, 0], q[:, 0])[:, None]
            le = nat & (pos <= qpos)
            cs = pk.name_s
            lo_c = np.take(below, cs, axis=1) + le
            hi_c = np.take(below + a_below, cs, axis=1)
            sw_c = np.take(Sw[g], cs, axis=1) + nw
            aw_c = np.take(Aw[g], cs, axis=1) - nw
            key = np.take(hasq | (Sw[g] > 0), cs, axis=1) | nw | (nat & (nr == q))
            aq_c = np.take(aq, cs, axis=1) - (nat & (nr == q))
            keyed = _ok_range(5, lo_c, hi_c, sw_c, aw_c)
            with_q = (aq_c > 0) & _ok_range(5, lo_c + 1, hi_c, sw_c, aw_c)
            with_w = (aw_c > 0) & _ok_range(5, lo_c, hi_c, sw_c + 1, aw_c - 1)
            ok = np.take(valid, cs, axis=1) & (nw | le) & np.where(key, keyed, with_q | with_w)
        out[g] = ok
    return out


def _full_picks(pk, g, q, SnR, AnR, snat, sw, aw, nr, nat):
    """Pick step of full houses: the candidate joins the three (q), the pair (the picked other rank, or
    it becomes the pair's rank), or is wild."""
    G = g.size
    i = np.arange(G)
    qq = q[:, 0]
    sR, aR = SnR[g], AnR[g]
    present = sR > 0
    present[i, qq] = False
    n_other = present.sum(axis=1)
    p = np.where(n_other > 0, np.argmax(present, axis=1), -1)                  # the picked other rank
    isq = nr == q
    sq = sR[i, qq][:, None] + isq
    aq = aR[i, qq][:, None] - isq
    sp0 = snat[g] - sR[i, qq]
    cap_wo_q = np.minimum(2, aR)
    cap_wo_q[i, qq] = -1
    best_other = cap_wo_q.max(axis=1) if pk.NR > 1 else np.zeros(G, dtype=np.int8)
    ap = np.where(p >= 0, aR[i, np.maximum(p, 0)], 0)
    base_b = np.where(p >= 0, np.minimum(2, sp0 + ap), np.maximum(best_other, 0))[:, None]
    other = nat & ~isq                                                          # the candidate is a pair card
    fits_p = (p[:, None] < 0) | (nr == p[:, None])
    a_c = aR[:, np.maximum(pk.name_r, 0)]                                       # (G, U) avail of its rank
    sp = sp0[:, None] + other
    b_other = np.minimum(2, sp0[:, None] + a_c)                                 # (picked + candidate) + rest
    bmax = np.where(other, b_other, base_b)
    ok = (n_other[:, None] <= 1) & (~other | fits_p) & (sq <= 3) & (sp <= 2)
    return ok & _ok_range(5, sq + sp, np.minimum(3, sq + aq) + bmax, sw, aw)
