"""``heuristic``: a strong hand-written player, vectorised over the batch.

How it thinks (NumPy over the whole batch; it reads only its observation):

* **Card counting.** The cards nobody has shown yet are the pack minus the cards
  played this hand minus its own hand. For every set (rank, size) it estimates the
  chance that some opponent can beat it, taking each unseen card to be with any
  opponent still holding cards: a higher rank of that size (wild cards counted),
  and, as the variant says, a bigger set (``bigger_beats_any``), the same rank
  (``equal_rank_beats``), a transparent set of its size, a trump, a bomb, or a
  power play (``power_ranks``: n power cards against a bigger set of a rank below
  every power rank, so only n of them need be in one hand). A set is *safe* when
  that chance is under 25%, or when it ends the trick at once with the player to
  lead again (trumps, bombs, eights under ``eight_cut``, a completed set under
  ``complete_set_clears``). Under ``locks_out`` and ``single_round`` a play also
  wins the trick when no one else can still act in it.
* **Planning the hand.** The hand is split into groups, one per rank (wild cards
  form a group of their own). Safe groups are *controls*: each wins a lead back.
  The others are *losers*, which have to be led or dumped on a lower play.
* **Leading.** Go out if it can. With at most one loser left it runs out: it
  leads its controls (the cards it may not finish on first) and keeps the loser
  for last. Otherwise it leads its weakest loser whole; when an opponent is down
  to one card it leads a set of two or more, or else its strongest single.
* **Following.** Go out if it can. Dump the weakest loser that fits. Spend a
  control only when it wins the trick and the plan needs the lead (no more than
  one loser more than the controls it keeps) or an opponent is down to three
  cards; otherwise pass and keep it. Break a set or spend wild cards only when
  that wins the trick without leaving it more losers.
* **Knowing the variant.** A play of four under ``revolution`` is judged with the
  rank order turned around: played when the reversed order leaves it fewer
  losers, kept otherwise; under ``revolution_by_singles`` so is the single that
  completes a row (losers first, then the strength of the cards it keeps). A power
  or transparent play wins the trick when the set it leaves on top is safe. Reset
  cards are those of the order in force (``revolution_reset_rank`` under a
  revolution): never losers nor controls, since a single one goes on anything; it
  keeps them to go out on rather than lead one or spend one on a trick (the next
  player would lead), and an opponent's reset does not count against its sets.
  Under ``forbidden_finish`` it never goes out on a
  forbidden card while anything else is legal, avoids plays that would leave it
  only forbidden cards, and leads those first when running out. ``compulsory_beat``
  takes away its passes, so it then plays its cheapest legal set.
* **Exchange.** It gives back its least useful cards: the weakest single cards
  first, then cards from triples, then from pairs; never a control, joker, wild
  card, trump, power or reset card or eight (``eight_cut``) while anything else is
  left. A merchant's trade (``merchant_trade``) gives its least useful card the same way.
* **Poker combinations** (``combinations poker``): the same plan (controls and losers by
  rank groups, counted the same way) chooses a claim, then its cards are picked one by
  one: it leads natural 5-card hands and its weakest groups whole, keeps made hands and
  wild twos, and picks naturals before wild cards, weakest suits first (agents/_poker.py).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ._cards import pick_cards, project
from ._plays import PlayConsts, holdings, play_consts
from ._poker import act as poker_act
from .base import Agent, ObsView, decode


@lru_cache(maxsize=8)
def _p_holds(max_cards: int, max_size: int, max_opp: int) -> np.ndarray:
    """(U+1, S+2, M+1): chance that one of ``m`` opponents holds at least ``s`` of ``u`` unseen cards.

    Each unseen card is taken to lie with any opponent with equal chance.
    """
    out = np.zeros((max_cards + 1, max_size + 2, max_opp + 1))
    fact = np.array([math.factorial(k) for k in range(max_cards + 1)], dtype=np.float64)
    for m in range(1, max_opp + 1):
        for s in range(max_size + 2):
            if s == 0:
                out[:, s, m] = 1.0
                continue
            base = np.zeros(max_cards + 1)
            base[: min(s, max_cards + 1)] = 1.0 / fact[: min(s, max_cards + 1)]
            poly = np.zeros(max_cards + 1)
            poly[0] = 1.0
            for _ in range(m):
                poly = np.convolve(poly, base)[: max_cards + 1]
            u = np.arange(max_cards + 1)
            all_below = poly * fact / float(m) ** u
            out[:, s, m] = np.clip(1.0 - all_below, 0.0, 1.0)
    return out


def _beat_chance(rules, c: PlayConsts, unseen: np.ndarray, order: np.ndarray, opponents: np.ndarray,
                 reset_weight: float = 1.0) -> np.ndarray:
    """(N, R, S) chance that some opponent can beat a set (r, s); 0 for a set that ends the trick itself.

    ``unseen`` (N, R) are the cards nobody has shown per play rank (WILD column: wild
    cards), ``order`` (N,) the rank order in force (1 = revolution), ``opponents`` (N,)
    how many opponents still hold cards. ``reset_weight`` scales the chance that an
    opponent holding a reset card of the order in force ends the trick with it.
    """
    R, S, Rn = c.R, c.S, c.Rn
    table = _p_holds(int(c.kind_count.sum()), S, max(c.P - 1, 1))
    st = c.strength[order]                                             # (N, R) a permutation of 0..R-1
    u = unseen.copy()
    if c.has_wild:
        uw = unseen[:, Rn]
        u[:, :Rn] = np.where(unseen[:, :Rn] >= 1, unseen[:, :Rn] + uw[:, None], 0)
    m = np.clip(opponents, 1, table.shape[2] - 1)
    sizes = np.arange(1, S + 2)
    holds = table[u[:, :, None], sizes[None, None, :], m[:, None, None]]     # (N, R, S+1) sizes 1..S+1
    lq = np.log1p(-np.minimum(holds, 1.0 - 1e-12))
    # sum of log(1 - p) over the ranks stronger than r, at each size
    by_strength = np.zeros_like(lq)
    np.put_along_axis(by_strength, st[:, :, None], lq, axis=1)
    suffix = np.cumsum(by_strength[:, ::-1], axis=1)[:, ::-1] - by_strength
    total = np.take_along_axis(suffix, st[:, :, None], axis=1)[:, :, :S]
    if rules.size_rule == "bigger_beats_any":
        total = total + lq[:, :, 1:].sum(axis=1)[:, None, :]
    if rules.equal_rank_beats:
        total = total + lq[:, :, :S]
    if c.transparent >= 0:
        # a transparent set beats any set of its size (where the ranks have not counted it already)
        t = c.transparent
        counted = st[:, t][:, None] > st
        if rules.equal_rank_beats:
            counted[:, t] = True
        total = total + np.where(counted[:, :, None], 0.0, lq[:, t, None, :S])
    if c.power.any():
        # n cards of a power rank beat a bigger set of a rank below every power rank: that rank's
        # chance at size s is then that of holding n cards, not s
        below = st < c.power_floor[order][:, None]                     # (N, R)
        for q in np.flatnonzero(c.power):
            need = c.power_need[q, 1:]                                 # (S,) by size on top
            ok = need > 0
            pq = table[u[:, q][:, None], np.maximum(need, 1)[None, :], m[:, None]]
            gain = np.where(ok[None, :], np.log1p(-np.minimum(pq, 1.0 - 1e-12)) - lq[:, q, :S], 0.0)
            total = total + np.where(below[:, :, None], gain[:, None, :], 0.0)
    if rules.four_of_a_kind == "bomb" and S >= 4:
        total = total + lq[:, :, 3].sum(axis=1)[:, None, None]
    p = 1.0 - np.exp(total)
    if c.trump.any():
        tr = np.where(c.trump[None, :] & (unseen >= 1), st, -1).max(axis=1)
        p = np.where((tr[:, None] > st)[:, :, None], 1.0, p)
    if c.reset.any():
        reset = c.reset[order]                                         # (N, R) the reset rank in force
        n_reset = (unseen * reset).sum(axis=1)
        p_reset = reset_weight * table[np.minimum(n_reset, table.shape[0] - 1), 1, m]
        p = 1.0 - (1.0 - p) * (1.0 - p_reset[:, None, None])
    clears = np.zeros((R, S), dtype=bool)
    clears[c.trump] = True
    if c.eight >= 0:
        clears[c.eight] = True
    if rules.four_of_a_kind == "bomb":
        clears[:, 3:] = True
    if rules.complete_set_clears:
        clears[:, S - 1] = True
    return np.where(clears[None], 0.0, p)


class HeuristicAgent(Agent):
    """Plans its hand around its controls, counts cards and knows the variant (see the module docstring)."""

    name = "heuristic"
    deterministic = True

    #: a set counts as safe when the chance that an opponent can beat it is below this
    safe_below: float = 0.25
    #: while following, keep a control unless it leaves at most this many more losers than controls
    spare_controls: int = 1
    #: ... or an opponent has at most this many cards left
    near_out: int = 3
    #: score taken off a play that leaves only cards it may not finish on
    stuck_penalty: float = 300.0
    #: how likely an opponent holding a reset card is taken to end a trick with it (a reset does not give
    #: the lead to its player, and the heuristic itself keeps its resets to go out on)
    reset_weight: float = 0.0

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.rules.poker:  # a claim, then its cards one by one (agents/_poker.py)
            return poker_act(self.rules, obs, mask, smart=True)
        if self.rules.card_level:  # plan by rank, then pick the cards (agents/_cards.py)
            return pick_cards(self.rules, obs, mask, self._act_rank(obs, project(self.rules, mask), rng))
        return self._act_rank(obs, mask, rng)

    def _act_rank(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = decode(self.rules, obs)
        actions = np.zeros(len(obs), dtype=np.int64)
        ex = v.phase == 0
        if ex.any():
            actions[ex] = self._give_back(_rows(v, ex), mask[ex])
        claim = ~ex & v.claiming  # quick_clear: always claim (the cards go, and the lead comes with them)
        if claim.any():
            actions[claim] = 1 + np.argmax(mask[claim, 1:], axis=1)
        pl = ~ex & ~claim
        if pl.any():
            actions[pl] = self._play(_rows(v, pl), mask[pl])
        return actions

    # ----------------------------------------------------------------- exchange
    def _give_back(self, v: ObsView, mask: np.ndarray) -> np.ndarray:
        c = play_consts(self.rules)
        held = holdings(c, v.hand)
        st = c.strength[0]
        unseen = holdings(c, np.clip(c.kind_count - v.played - v.hand, 0, None))
        opp = (v.card_counts[:, 1:] > 0).sum(axis=1)
        safe = _beat_chance(self.rules, c, unseen, np.zeros(len(held), dtype=np.int64), opp,
                            self.reset_weight) < self.safe_below
        single_safe = safe[:, :, 0]
        precious = np.zeros(c.R, dtype=bool)
        precious |= c.trump | c.joker_rank | c.power | c.reset[0]
        if c.has_wild:
            precious[c.Rn] = True
        if c.eight >= 0:
            precious[c.eight] = True
        # cost of giving one card of each rank: break a pair > break a triple > a single card
        count_cost = np.select([held == 1, held == 3, held == 2], [0.0, 1.5, 3.0], default=6.0)
        cost = st[None, :] + count_cost * 2.0 + 20.0 * (precious[None, :] | single_safe)
        key = np.full(mask.shape, np.inf)
        ids = 1 + np.arange(c.R) * c.S                                # size-1 ids
        key[:, ids] = np.where(mask[:, ids], cost, np.inf)
        return np.argmin(key, axis=1)

    # --------------------------------------------------------------------- play
    def _play(self, v: ObsView, mask: np.ndarray) -> np.ndarray:  # noqa: C901 - one block per idea
        rules, c = self.rules, play_consts(self.rules)
        N, R, S, Rn = len(mask), c.R, c.S, c.Rn
        ar = np.arange(N)
        held = holdings(c, v.hand)                                    # (N, R)
        unseen = holdings(c, np.clip(c.kind_count - v.played - v.hand, 0, None))
        rev = v.revolution.astype(np.int64)
        revolution_rule = rules.four_of_a_kind in ("revolution", "revolution_and_reverse")
        orders = [rev, 1 - rev] if revolution_rule else [rev]
        opp = (v.card_counts[:, 1:] > 0).sum(axis=1)
        safes = [_beat_chance(rules, c, unseen, o, opp, self.reset_weight) < self.safe_below for o in orders]
        # a single reset card may be played on anything (it ends the trick, the next player leads): the
        # reset group of each order is never a loser; which rank resets may turn with the revolution
        frees = [c.reset[o] for o in orders]

        # per action (r, s): what is taken, what is left
        sizes = np.arange(1, S + 1)[None, None, :]
        h3 = held[:, :, None]
        take = np.minimum(sizes, h3)                                   # (N, R, S) cards of rank r used
        extra_wild = sizes - take                                      # wild cards joining a natural rank
        if c.has_wild:
            extra_wild[:, Rn] = 0
        left = h3 - take
        exact = (left == 0) & (extra_wild == 0)
        n_cards = v.hand.sum(axis=1)
        n_after = n_cards[:, None, None] - sizes
        goes_out = n_after == 0

        forbidden_out = np.zeros((N, R, S), dtype=bool)
        stuck = np.zeros((N, R, S), dtype=bool)
        if rules.forbidden_finish:
            fr = c.forbidden.copy()
            if c.has_wild and c.forbidden_wild:
                fr[Rn] = True
            forbidden_out = goes_out & (fr[None, :, None] | ((extra_wild > 0) & c.forbidden_wild))
            # the cards left would all be forbidden finishers
            fr_held = (held * fr[None, :]).sum(axis=1)
            taken_fr = take * fr[None, :, None] + extra_wild * c.forbidden_wild
            stuck = (n_after > 0) & (fr_held[:, None, None] - taken_fr == n_after)

        # losers before and after each action, in the rank order the action leaves in force
        flips = np.zeros((1, 1, S), dtype=bool)
        if revolution_rule:
            flips[..., 3:] = True
        row_flip = np.zeros((N, R, S), dtype=bool)
        if c.flip_row:
            # revolution_by_singles: the single that completes a row of four (eight) flips the order too
            row_done = np.isin(v.single_row + 1, c.flip_row) & (v.top_size == 1) & (v.top_rank >= 0)
            same_rank = np.arange(R)[None, :] == v.top_rank[:, None]
            if c.transparent >= 0:
                same_rank[:, c.transparent] = True
            row_flip[:, :, 0] = row_done[:, None] & same_rank
            flips = flips | row_flip
        counted = [_losers_after(c, held, left, extra_wild, safe, free)
                   for safe, free in zip(safes, frees, strict=True)]
        L_now, W_now = counted[0][0], counted[0][1]
        L_after = counted[0][2]
        flip_hurts = np.zeros((N, R, S), dtype=bool)
        if revolution_rule:
            L_after = np.where(flips, counted[1][2], L_after)
            flip_hurts = flips & (counted[1][2] > counted[0][2])

        safe_now = safes[0]
        st = c.strength[rev][:, :, None].astype(np.float64)            # (N, R, 1)
        group_safe = np.take_along_axis(
            np.concatenate([np.zeros((N, R, 1), dtype=bool), safe_now], axis=2),
            np.minimum(held, S)[:, :, None], axis=2)[:, :, 0]
        is_control = exact & group_safe[:, :, None]

        # who can still act in this trick after a play of ours
        alive_opp = v.card_counts[:, 1:] > 0
        if rules.pass_rule == "may_replay":
            nobody = ~alive_opp.any(axis=1)
        else:
            nobody = ~(alive_opp & ~v.passed[:, 1:]).any(axis=1)
        wins = safe_now | nobody[:, None, None]
        if c.transparent >= 0:
            # a transparent set of the size on top takes the top's rank: it wins as that set would
            tr = (np.arange(R)[None, :, None] == c.transparent) & (sizes == v.top_size[:, None, None]) \
                & (v.top_rank >= 0)[:, None, None]
            top_safe = safe_now[ar, np.maximum(v.top_rank, 0)]                  # (N, S)
            wins = np.where(tr, top_safe[:, None, :] | nobody[:, None, None], wins)
        reset_play = np.zeros((N, R, S), dtype=bool)
        if c.reset.any():
            reset_play[:, :, 0] = c.reset[rev]
            wins = wins & ~reset_play          # the trick ends, but the next player leads
        if rules.complete_set_clears:
            same = np.arange(R)[None, :, None] == v.top_rank[:, None, None]
            wins = wins | (same & (v.top_count[:, None, None] + sizes >= S))
        opp_min = np.where(alive_opp, v.card_counts[:, 1:], 99).min(axis=1)

        legal = mask[:, 1:].reshape(N, R, S)
        lead = v.top_rank < 0
        score = np.full((N, R, S), -np.inf)
        LD = lead[:, None, None]
        # ---- leading
        run_out = (L_now <= 1)[:, None, None]
        lead_score = np.where(exact, 500.0 - st, 100.0 - st - 10 * (extra_wild > 0))
        lead_score = np.where(exact & is_control, 300.0 - st, lead_score)
        near = (opp_min == 1)[:, None, None]
        single = sizes == 1
        lead_score = np.where(near & exact & ~is_control & single, 450.0 + st, lead_score)
        first = 50 * _forbidden_ranks(c)
        lead_score = np.where(run_out & is_control & (L_after <= 1), 900.0 - st + first, lead_score)
        if c.reset.any():
            lead_score = np.where(reset_play, 50.0 - st, lead_score)   # leading it gives the lead away
        if revolution_rule:
            helps = flips & exact & ~flip_hurts & (L_after < L_now[:, None, None])
            lead_score = np.where(helps, 950.0, lead_score)
            lead_score = np.where(flips & flip_hurts & exact, 150.0 - st, lead_score)
        # ---- following
        f_score = np.full((N, R, S), 100.0) - st
        dump = exact & ~is_control
        f_score = np.where(dump, 800.0 - st, f_score)
        # spend a control only when the plan needs the lead now, or someone is about to go out
        need = (L_after <= W_now[:, None, None] - 1 + self.spare_controls) | (opp_min <= self.near_out)[:, None, None]
        ctrl = is_control & wins & need
        f_score = np.where(ctrl, 600.0 - st, f_score)
        brk = (left > 0) & (extra_wild == 0) & wins & (L_after <= L_now[:, None, None])
        f_score = np.where(brk, 400.0 - st, f_score)
        wild_play = (extra_wild > 0) & wins & (L_after <= 1)
        f_score = np.where(wild_play, 300.0 - st, f_score)
        if c.reset.any():
            # a reset card goes on anything: keep it to go out on (scores below a pass)
            f_score = np.where(reset_play, 200.0 - st, f_score)
        if revolution_rule:
            f_score = np.where(flips & flip_hurts & exact, 150.0 - st, f_score)
        if c.flip_row:
            # completing a row of singles: judged by the losers it leaves, then by the strength of the rest
            strs = c.strength[np.stack([rev, 1 - rev])]                           # (2, N, R) now, flipped
            keep = (held[None] * strs).sum(axis=2)[:, :, None] - strs            # the rest's strength
            stronger = (keep[1] > keep[0])[:, :, None]
            same_l = counted[1][2] == counted[0][2]
            row_helps = row_flip & ((counted[1][2] < counted[0][2]) | (same_l & stronger))
            row_hurts = row_flip & ((counted[1][2] > counted[0][2]) | (same_l & ~stronger))
            f_score = np.where(row_helps, 850.0, np.where(row_hurts, 150.0 - st, f_score))
        score = np.where(LD, lead_score, f_score)
        score = score - self.stuck_penalty * stuck
        score = np.where(goes_out & ~forbidden_out, 1000.0, score)
        score = np.where(forbidden_out, -50.0 - st, score)
        score = np.where(legal, score, -np.inf).reshape(N, -1)
        best = np.argmax(score, axis=1)
        best_score = score[ar, best]
        pass_ok = mask[:, 0]
        use_pass = pass_ok & (~np.isfinite(best_score) | (best_score < 250.0))
        return np.where(use_pass, 0, best + 1)


def _losers_after(c: PlayConsts, held: np.ndarray, left: np.ndarray, extra_wild: np.ndarray,
                  safe: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Losers now (N,), controls now (N,), and losers after each action (N, R, S) under one safety table.

    ``free`` (R,) or (N, R): ranks whose groups are neither losers nor controls (reset cards)."""
    N, R, S, Rn = held.shape[0], c.R, c.S, c.Rn
    pad = np.concatenate([np.zeros((N, R, 1), dtype=bool), safe], axis=2)      # index by group size
    free = np.broadcast_to(free, (N, R))
    if free.any():
        pad = pad | free[:, :, None]
    g_safe = np.take_along_axis(pad, np.minimum(held, S)[:, :, None], axis=2)[:, :, 0]
    g_loser = (held > 0) & ~g_safe
    L = g_loser.sum(axis=1)
    W = ((held > 0) & g_safe & ~free).sum(axis=1)
    left_safe = np.take_along_axis(pad, np.minimum(left, S), axis=2)
    after = L[:, None, None] - g_loser[:, :, None] + ((left > 0) & ~left_safe)
    if c.has_wild:
        wl = np.maximum(held[:, Rn, None, None] - extra_wild, 0)
        wl_safe = np.take_along_axis(pad[:, Rn, :], np.minimum(wl, S).reshape(N, -1), axis=1).reshape(wl.shape)
        natural = np.ones((1, R, 1), dtype=bool)
        natural[:, Rn] = False
        after = after + natural * (-g_loser[:, Rn, None, None].astype(np.int64) + ((wl > 0) & ~wl_safe))
    return L, W, after


def _forbidden_ranks(c: PlayConsts) -> np.ndarray:
    """(1, R, 1) 1.0 for ranks one may not finish on."""
    fr = c.forbidden.astype(np.float64)
    if c.has_wild and c.forbidden_wild:
        fr[c.Rn] = 1.0
    return fr[None, :, None]


def _rows(v: ObsView, idx: np.ndarray) -> ObsView:
    return ObsView(**{k: getattr(v, k)[idx] for k in v.__dataclass_fields__})
