"""The ``heuristic`` agent's decisions, compiled (numba): one observation row at a time.

:mod:`agents.heuristic` says how the heuristic thinks; this module is that thinking, written once, for
one decision of the rank-level table (plays named by a rank and a size): the chance that an opponent
beats each set (:func:`beat_chance`), the plan of controls and losers (:func:`losers_after`), the
exchange (:func:`give_back`) and the play (:func:`play`). :func:`decide_rows` runs it over a batch (the
agent's ``act``); the search agent's rollouts call :func:`decide` from compiled code
(:mod:`agents.rollouts`), so the heuristic costs no Python call per decision there.

The rules reach the compiled code as data (:func:`heuristic_tables`): ``hopt`` (sizes, options and the
observation's offsets, named ``H_*``), ``rk`` (a row per table over play ranks, ``RK_*``), ``kd`` (per
kind), ``pneed`` (the power rules) and ``holds`` (``holds[0, u, s, m]``: the chance that one of m
opponents holds s of u unseen cards; ``holds[1]``: log(1 - that chance), computed once by NumPy).
``par`` carries the agent's tuning numbers (``HeuristicAgent.safe_below`` ...). It reads only the
observation and the mask, as every agent does. Floating-point sums follow NumPy's order of addition,
so its chances are the same numbers to the last bit as the vectorised code's were.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from president_env.core import Rules, tables
from president_env.core import observation as O
from president_env.core.kernel.jit import guard_cache, njit

from ._plays import play_consts

guard_cache(__file__)

# hopt: sizes, options, observation offsets
(H_K, H_R, H_RN, H_S, H_P, H_HAS_WILD, H_FORBID_WILD, H_FORBIDDEN, H_EIGHT, H_TRANSPARENT, H_BIGGER_ANY,
 H_EQUAL_RANK, H_BOMB, H_COMPLETE_SET, H_MAY_REPLAY, H_REV_RULE, H_ANY_RESET, H_ANY_POWER, H_ANY_TRUMP, H_FLIP4,
 H_FLIP8, H_FLOOR0, H_FLOOR1,
 OB_HAND, OB_PLAYED, OB_TOP_RANK, OB_TOP_SIZE, OB_TOP_COUNT, OB_CARD_COUNTS, OB_PASSED, OB_REVOLUTION, OB_PHASE,
 OB_SINGLE_ROW, OB_CLAIMING, N_HOPT) = range(35)
# rk rows: per play rank
RK_KIND, RK_STR0, RK_STR1, RK_TRUMP, RK_RESET0, RK_RESET1, RK_FORBID, RK_PRECIOUS, RK_POWER, N_RK = range(10)
# kd rows: per kind
KD_COUNT, KD_WILD = range(2)
# par: the agent's tuning numbers, in this order
PARAMS = ("safe_below", "spare_controls", "near_out", "stuck_penalty", "reset_weight")
#: the heuristic's defaults for the two numbers its card counting uses (``HeuristicAgent`` takes them; the poker
#: heuristic of :mod:`agents._poker` reads them here)
SAFE_BELOW, RESET_WEIGHT = 0.25, 0.0
NEVER = 99    # fewest cards of an opponent when none is left (as the vectorised code had it)


def p_holds(max_cards: int, max_size: int, max_opp: int) -> np.ndarray:
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


@lru_cache(maxsize=64)
def heuristic_tables(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(hopt, rk, kd, pneed, holds)``: the rules as the compiled heuristic reads them (see the module doc)."""
    c = play_consts(rules)
    t = tables(rules)
    R, S, Rn, K = c.R, c.S, c.Rn, c.K
    sl = O.slices(rules)
    hopt = np.zeros(N_HOPT, dtype=np.int64)
    hopt[[H_K, H_R, H_RN, H_S, H_P]] = K, R, Rn, S, c.P
    hopt[H_HAS_WILD] = c.has_wild
    hopt[H_FORBID_WILD] = c.forbidden_wild
    hopt[H_FORBIDDEN] = bool(rules.forbidden_finish)
    hopt[H_EIGHT] = c.eight
    hopt[H_TRANSPARENT] = c.transparent
    hopt[H_BIGGER_ANY] = rules.size_rule == "bigger_beats_any"
    hopt[H_EQUAL_RANK] = bool(rules.equal_rank_beats)
    hopt[H_BOMB] = rules.four_of_a_kind == "bomb"
    hopt[H_COMPLETE_SET] = bool(rules.complete_set_clears)
    hopt[H_MAY_REPLAY] = rules.pass_rule == "may_replay"
    hopt[H_REV_RULE] = rules.four_of_a_kind in ("revolution", "revolution_and_reverse")
    hopt[H_ANY_RESET] = c.reset.any()
    hopt[H_ANY_POWER] = c.power.any()
    hopt[H_ANY_TRUMP] = c.trump.any()
    hopt[H_FLIP4] = 4 in c.flip_row
    hopt[H_FLIP8] = 8 in c.flip_row
    hopt[H_FLOOR0], hopt[H_FLOOR1] = c.power_floor
    for h, name in ((OB_HAND, "hand"), (OB_PLAYED, "played"), (OB_TOP_RANK, "top_rank"), (OB_TOP_SIZE, "top_size"),
                    (OB_TOP_COUNT, "top_count"), (OB_CARD_COUNTS, "card_counts"), (OB_PASSED, "passed"),
                    (OB_REVOLUTION, "revolution"), (OB_PHASE, "phase"), (OB_SINGLE_ROW, "single_row"),
                    (OB_CLAIMING, "claiming")):
        hopt[h] = sl[name].start if name in sl else -1
    rk = np.zeros((N_RK, R), dtype=np.int64)
    rk[RK_KIND] = -1
    rk[RK_KIND, :Rn] = c.play_kind
    rk[RK_STR0], rk[RK_STR1] = c.strength
    rk[RK_TRUMP] = c.trump
    rk[RK_RESET0], rk[RK_RESET1] = c.reset
    forbid = c.forbidden.copy()
    precious = c.trump | c.joker_rank | c.power | c.reset[0]
    if c.has_wild:
        forbid[Rn] |= c.forbidden_wild
        precious[Rn] = True
    if c.eight >= 0:
        precious[c.eight] = True
    rk[RK_FORBID] = forbid
    rk[RK_PRECIOUS] = precious
    rk[RK_POWER] = c.power
    kd = np.zeros((2, K), dtype=np.int64)
    kd[KD_COUNT] = c.kind_count
    kd[KD_WILD] = t.kind_wild
    chance = p_holds(int(c.kind_count.sum()), S, max(c.P - 1, 1))
    holds = np.stack([chance, np.log1p(-np.minimum(chance, 1.0 - 1e-12))])
    for a in (hopt, rk, kd, c.power_need, holds):
        a.flags.writeable = False
    return hopt, rk, kd, np.ascontiguousarray(c.power_need, dtype=np.int64), holds


def agent_params(agent: object) -> np.ndarray:
    """``par``: the tuning numbers of a :class:`~agents.heuristic.HeuristicAgent` (or its class)."""
    return np.array([float(getattr(agent, name)) for name in PARAMS], dtype=np.float64)


# --------------------------------------------------------------------------- reading the observation
@njit
def _count(x) -> int:
    return int(np.rint(x))


@njit
def _onehot(obs, start, n, none) -> int:
    """The index of the largest entry of ``obs[start:start + n]`` (the first), or ``none`` when all are 0."""
    best, where, seen = obs[start], 0, obs[start] != 0
    for i in range(1, n):
        v = obs[start + i]
        seen = seen or v != 0
        if v > best:
            best, where = v, i
    return where if seen else none


@njit
def holdings(hopt, rk, kd, counts, out) -> None:
    """``out[r]`` := cards per play rank of the kind counts ``counts`` (the WILD column: the wild cards)."""
    Rn = hopt[H_RN]
    for r in range(Rn):
        out[r] = counts[rk[RK_KIND, r]]
    if hopt[H_HAS_WILD]:
        w = 0
        for k in range(hopt[H_K]):
            if kd[KD_WILD, k]:
                w += counts[k]
        out[Rn] = w


@njit
def _pairwise_sum(x) -> float:
    """NumPy's sum of a short 1-D array (its pairwise summation, which adds eight running sums)."""
    n = x.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += x[i]
        return res
    r = np.empty(8)
    for j in range(8):
        r[j] = x[j]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += x[i + j]
        i += 8
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        res += x[i]
        i += 1
    return res


# --------------------------------------------------------------------------- card counting
@njit
def beat_chance(hopt, rk, pneed, holds, unseen, order, opponents, reset_weight, p) -> None:  # noqa: C901
    """``p[r, s-1]`` := the chance that some opponent can beat a set of rank r and size s; 0 for a set that ends
    the trick itself (a trump, a bomb, an eight under eight_cut, a completed set).

    ``unseen[r]``: cards nobody has shown per play rank (WILD column: wild cards); ``order``: the rank order in
    force (1 = revolution); ``opponents``: how many opponents still hold cards. ``reset_weight`` scales the
    chance that an opponent holding a reset card of the order in force ends the trick with it."""
    R, S, Rn = hopt[H_R], hopt[H_S], hopt[H_RN]
    st = rk[RK_STR0 + order]
    m = min(max(opponents, 1), holds.shape[3] - 1)
    u = unseen.copy()
    if hopt[H_HAS_WILD]:            # a wild card joins any natural rank of which one is unseen
        for r in range(Rn):
            u[r] = unseen[r] + unseen[Rn] if unseen[r] >= 1 else 0
    lq = np.empty((R, S + 1))       # log(1 - chance that an opponent holds s+1 of rank r)
    for r in range(R):
        for j in range(S + 1):
            lq[r, j] = holds[1, u[r], j + 1, m]
    # total[r, j]: sum of log(1 - p) over the ranks stronger than r (NumPy's reversed cumulative sum, less self)
    by_strength = np.empty((R, S))
    for r in range(R):
        for j in range(S):
            by_strength[st[r], j] = lq[r, j]
    suffix = np.empty((R, S))
    acc = by_strength[R - 1].copy()
    for j in range(S):
        suffix[R - 1, j] = acc[j] - by_strength[R - 1, j]
    for k in range(R - 2, -1, -1):
        for j in range(S):
            acc[j] += by_strength[k, j]
            suffix[k, j] = acc[j] - by_strength[k, j]
    total = np.empty((R, S))
    for r in range(R):
        for j in range(S):
            total[r, j] = suffix[st[r], j]
    if hopt[H_BIGGER_ANY]:          # size_rule bigger_beats_any: a bigger set of any rank beats it
        for j in range(S):
            more = lq[0, j + 1]
            for r in range(1, R):
                more += lq[r, j + 1]
            for r in range(R):
                total[r, j] += more
    if hopt[H_EQUAL_RANK]:          # equal_rank_beats: the same rank beats it
        for r in range(R):
            for j in range(S):
                total[r, j] += lq[r, j]
    t = hopt[H_TRANSPARENT]
    if t >= 0:                      # a transparent set beats any set of its size (unless counted above already)
        for r in range(R):
            counted = st[t] > st[r] or (hopt[H_EQUAL_RANK] != 0 and r == t)
            for j in range(S):
                total[r, j] += 0.0 if counted else lq[t, j]
    if hopt[H_ANY_POWER]:           # power_ranks: n power cards beat a bigger set of a rank below every power rank
        floor = hopt[H_FLOOR0 + order]
        gain = np.empty(S)
        for q in range(R):
            if not rk[RK_POWER, q]:
                continue
            for j in range(S):
                need = pneed[q, j + 1]
                if need > 0:
                    gain[j] = holds[1, u[q], need, m] - lq[q, j]
                else:
                    gain[j] = 0.0
            for r in range(R):
                for j in range(S):
                    total[r, j] += gain[j] if st[r] < floor else 0.0
    if hopt[H_BOMB] and S >= 4:     # four_of_a_kind bomb: any four beats it
        bomb = _pairwise_sum(lq[:, 3].copy())
        for r in range(R):
            for j in range(S):
                total[r, j] += bomb
    for r in range(R):
        for j in range(S):
            p[r, j] = 1.0 - np.exp(total[r, j])
    if hopt[H_ANY_TRUMP]:           # an unseen trump stronger than r beats it for sure
        tr = -1
        for r in range(R):
            if rk[RK_TRUMP, r] and unseen[r] >= 1 and st[r] > tr:
                tr = st[r]
        for r in range(R):
            if tr > st[r]:
                for j in range(S):
                    p[r, j] = 1.0
    if hopt[H_ANY_RESET]:           # a reset card of the order in force ends the trick
        n_reset = 0
        for r in range(R):
            n_reset += unseen[r] * rk[RK_RESET0 + order, r]
        p_reset = reset_weight * holds[0, min(n_reset, holds.shape[1] - 1), 1, m]
        for r in range(R):
            for j in range(S):
                p[r, j] = 1.0 - (1.0 - p[r, j]) * (1.0 - p_reset)
    for r in range(R):              # sets that end the trick themselves
        for j in range(S):
            if (rk[RK_TRUMP, r] or r == hopt[H_EIGHT] or (hopt[H_BOMB] and j >= 3)
                    or (hopt[H_COMPLETE_SET] and j == S - 1)):
                p[r, j] = 0.0


@njit
def losers_after(hopt, held, left, extra_wild, safe, free, after) -> tuple[int, int]:
    """Losers and controls now, and ``after[r, s-1]`` := losers after playing each set, under one safety table.

    A group (the cards of one rank) is a control when a set of its size is safe, a loser otherwise; ``free``
    ranks (reset cards) are neither."""
    R, S, Rn = hopt[H_R], hopt[H_S], hopt[H_RN]
    pad = np.zeros((R, S + 1), dtype=np.bool_)      # safe by group size (0: no group)
    for r in range(R):
        for j in range(S):
            pad[r, j + 1] = safe[r, j]
        if free[r]:
            pad[r, :] = True
    g_loser = np.zeros(R, dtype=np.bool_)
    L, W = 0, 0
    for r in range(R):
        g_safe = pad[r, min(held[r], S)]
        g_loser[r] = held[r] > 0 and not g_safe
        L += g_loser[r]
        W += held[r] > 0 and g_safe and not free[r]
    for r in range(R):
        for j in range(S):
            n_left = left[r, j]
            after[r, j] = L - g_loser[r] + (n_left > 0 and not pad[r, min(n_left, S)])
    if hopt[H_HAS_WILD]:            # wild cards spent on a natural rank leave fewer in the wild group
        for r in range(Rn):
            for j in range(S):
                wl = max(held[Rn] - extra_wild[r, j], 0)
                after[r, j] += -int(g_loser[Rn]) + (wl > 0 and not pad[Rn, min(wl, S)])
    return L, W


# --------------------------------------------------------------------------- the exchange
@njit
def give_back(hopt, rk, kd, pneed, holds, par, obs, mask) -> int:
    """The card to give back: the least useful single (weakest singles, then from triples, then pairs; a
    precious card or a safe single only when nothing else is left)."""
    R, S, K = hopt[H_R], hopt[H_S], hopt[H_K]
    hand, unseen_k = np.empty(K, np.int64), np.empty(K, np.int64)
    for k in range(K):
        hand[k] = _count(obs[hopt[OB_HAND] + k])
        unseen_k[k] = max(kd[KD_COUNT, k] - _count(obs[hopt[OB_PLAYED] + k]) - hand[k], 0)
    held, unseen = np.zeros(R, np.int64), np.zeros(R, np.int64)
    holdings(hopt, rk, kd, hand, held)
    holdings(hopt, rk, kd, unseen_k, unseen)
    opp = 0
    for i in range(1, hopt[H_P]):
        opp += _count(obs[hopt[OB_CARD_COUNTS] + i]) > 0
    p = np.empty((R, S))
    beat_chance(hopt, rk, pneed, holds, unseen, 0, opp, par[4], p)
    best, best_key = 0, np.inf
    for r in range(R):
        a = 1 + r * S
        if not mask[a]:
            continue
        n = held[r]
        count_cost = 0.0 if n == 1 else 1.5 if n == 3 else 3.0 if n == 2 else 6.0
        key = rk[RK_STR0, r] + count_cost * 2.0 + 20.0 * (rk[RK_PRECIOUS, r] != 0 or p[r, 0] < par[0])
        if key < best_key:
            best, best_key = a, key
    return best


# --------------------------------------------------------------------------- a play
@njit
def play(hopt, rk, kd, pneed, holds, par, obs, mask) -> int:  # noqa: C901 - one block per idea, as agents.heuristic
    """The play (or pass, 0) of the decision: see :mod:`agents.heuristic` for the plan it follows."""
    R, S, Rn, K, P = hopt[H_R], hopt[H_S], hopt[H_RN], hopt[H_K], hopt[H_P]
    safe_below, spare_controls, near_out, stuck_penalty, reset_weight = par[0], par[1], par[2], par[3], par[4]
    # ---- what it sees
    hand, unseen_k = np.empty(K, np.int64), np.empty(K, np.int64)
    n_cards = 0
    for k in range(K):
        hand[k] = _count(obs[hopt[OB_HAND] + k])
        n_cards += hand[k]
        unseen_k[k] = max(kd[KD_COUNT, k] - _count(obs[hopt[OB_PLAYED] + k]) - hand[k], 0)
    held, unseen = np.zeros(R, np.int64), np.zeros(R, np.int64)
    holdings(hopt, rk, kd, hand, held)
    holdings(hopt, rk, kd, unseen_k, unseen)
    top_rank = _onehot(obs, hopt[OB_TOP_RANK], R + 1, -1)
    if top_rank == R:
        top_rank = -1
    top_size = _onehot(obs, hopt[OB_TOP_SIZE], S, -1) + 1
    top_count = _count(obs[hopt[OB_TOP_COUNT]])
    rev = 1 if obs[hopt[OB_REVOLUTION]] > 0.5 else 0
    single_row = _count(obs[hopt[OB_SINGLE_ROW]]) if hopt[OB_SINGLE_ROW] >= 0 else 0
    opp, nobody, opp_min = 0, True, NEVER
    for i in range(1, P):
        n = _count(obs[hopt[OB_CARD_COUNTS] + i])
        if n > 0:
            opp += 1
            opp_min = min(opp_min, n)
            # may_replay: a player who passed may play again; otherwise only those yet to pass can act
            if hopt[H_MAY_REPLAY] or not obs[hopt[OB_PASSED] + i] > 0.5:
                nobody = False
    # ---- safety in the order in force (and, under a revolution rule, the other order)
    rev_rule = hopt[H_REV_RULE] != 0
    n_orders = 2 if rev_rule else 1
    safe = np.empty((n_orders, R, S), dtype=np.bool_)
    p = np.empty((R, S))
    for i in range(n_orders):
        beat_chance(hopt, rk, pneed, holds, unseen, rev if i == 0 else 1 - rev, opp, reset_weight, p)
        for r in range(R):
            for j in range(S):
                safe[i, r, j] = p[r, j] < safe_below
    # ---- per action (r, s): what is taken, what is left
    take, extra_wild, left = np.empty((R, S), np.int64), np.empty((R, S), np.int64), np.empty((R, S), np.int64)
    for r in range(R):
        for j in range(S):
            take[r, j] = min(j + 1, held[r])
            extra_wild[r, j] = 0 if hopt[H_HAS_WILD] and r == Rn else j + 1 - take[r, j]
            left[r, j] = held[r] - take[r, j]
    # forbidden_finish: never go out on a forbidden card; avoid leaving only forbidden cards
    forbidden_out = np.zeros((R, S), dtype=np.bool_)
    stuck = np.zeros((R, S), dtype=np.bool_)
    if hopt[H_FORBIDDEN]:
        fr_held = 0
        for r in range(R):
            fr_held += held[r] * rk[RK_FORBID, r]
        for r in range(R):
            for j in range(S):
                n_after = n_cards - (j + 1)
                forbidden_out[r, j] = n_after == 0 and (rk[RK_FORBID, r] != 0 or (
                    extra_wild[r, j] > 0 and hopt[H_FORBID_WILD] != 0))
                taken_fr = take[r, j] * rk[RK_FORBID, r] + extra_wild[r, j] * hopt[H_FORBID_WILD]
                stuck[r, j] = n_after > 0 and fr_held - taken_fr == n_after
    # a play that turns the rank order: four or more under a revolution rule, and under revolution_by_singles
    # the single that completes a row of four (or eight) of the top's rank
    flips = np.zeros((R, S), dtype=np.bool_)
    row_flip = np.zeros((R, S), dtype=np.bool_)
    if rev_rule:
        for r in range(R):
            for j in range(3, S):
                flips[r, j] = True
    flip_row = hopt[H_FLIP4] != 0 or hopt[H_FLIP8] != 0
    if flip_row:
        n_row = single_row + 1
        row_done = ((n_row == 4 and hopt[H_FLIP4] != 0) or (n_row == 8 and hopt[H_FLIP8] != 0)) and (
            top_size == 1 and top_rank >= 0)
        for r in range(R):
            if row_done and (r == top_rank or r == hopt[H_TRANSPARENT]):
                row_flip[r, 0] = True
                flips[r, 0] = True
    # ---- losers now and after each play, in the order the play leaves in force
    after0, after1 = np.empty((R, S), np.int64), np.empty((R, S), np.int64)
    L_now, W_now = losers_after(hopt, held, left, extra_wild, safe[0], rk[RK_RESET0 + rev], after0)
    if rev_rule:
        losers_after(hopt, held, left, extra_wild, safe[1], rk[RK_RESET0 + 1 - rev], after1)
    st = rk[RK_STR0 + rev]
    # ---- scores
    best, best_score = 0, -np.inf
    for r in range(R):
        n = held[r]
        group_safe = n > 0 and safe[0, r, min(n, S) - 1]
        s_r = float(st[r])
        for j in range(S):
            s = j + 1
            exact = left[r, j] == 0 and extra_wild[r, j] == 0
            is_control = exact and group_safe
            L_after = after0[r, j]
            flip_hurts = False
            if rev_rule and flips[r, j]:
                L_after = after1[r, j]
                flip_hurts = after1[r, j] > after0[r, j]
            # does it win the trick?
            wins = safe[0, r, j] or nobody
            if hopt[H_TRANSPARENT] == r and s == top_size and top_rank >= 0:
                # a transparent set of the size on top takes the top's rank: it wins as that set would
                wins = safe[0, top_rank, j] or nobody
            reset_play = hopt[H_ANY_RESET] != 0 and j == 0 and rk[RK_RESET0 + rev, r] != 0
            if reset_play:
                wins = False               # the trick ends, but the next player leads
            if hopt[H_COMPLETE_SET] and r == top_rank and top_count + s >= S:
                wins = True
            if top_rank < 0:
                # ---- leading
                if exact:
                    score = 300.0 - s_r if is_control else 500.0 - s_r
                else:
                    score = 100.0 - s_r - 10 * (extra_wild[r, j] > 0)
                if opp_min == 1 and exact and not is_control and s == 1:
                    score = 450.0 + s_r
                if L_now <= 1 and is_control and L_after <= 1:
                    score = 900.0 - s_r + 50 * float(rk[RK_FORBID, r])
                if reset_play:
                    score = 50.0 - s_r     # leading it gives the lead away
                if rev_rule:
                    if flips[r, j] and exact and not flip_hurts and L_after < L_now:
                        score = 950.0
                    if flips[r, j] and flip_hurts and exact:
                        score = 150.0 - s_r
            else:
                # ---- following
                score = 100.0 - s_r
                if exact and not is_control:
                    score = 800.0 - s_r    # dump a loser
                # spend a control only when the plan needs the lead now, or someone is about to go out
                need = L_after <= W_now - 1 + spare_controls or opp_min <= near_out
                if is_control and wins and need:
                    score = 600.0 - s_r
                if left[r, j] > 0 and extra_wild[r, j] == 0 and wins and L_after <= L_now:
                    score = 400.0 - s_r    # break a set to win the trick without more losers
                if extra_wild[r, j] > 0 and wins and L_after <= 1:
                    score = 300.0 - s_r
                if reset_play:
                    score = 200.0 - s_r    # keep a reset card to go out on
                if rev_rule and flips[r, j] and flip_hurts and exact:
                    score = 150.0 - s_r
                if row_flip[r, j]:
                    # completing a row of singles: judged by the losers it leaves, then the strength of the rest
                    keep_now, keep_flip = -st[r], -rk[RK_STR0 + 1 - rev, r]
                    for q in range(R):
                        keep_now += held[q] * st[q]
                        keep_flip += held[q] * rk[RK_STR0 + 1 - rev, q]
                    stronger = keep_flip > keep_now
                    same_l = after1[r, j] == after0[r, j]
                    if after1[r, j] < after0[r, j] or (same_l and stronger):
                        score = 850.0
                    elif after1[r, j] > after0[r, j] or (same_l and not stronger):
                        score = 150.0 - s_r
            score = score - stuck_penalty * stuck[r, j]
            if n_cards == s and not forbidden_out[r, j]:
                score = 1000.0             # go out
            if forbidden_out[r, j]:
                score = -50.0 - s_r
            if mask[1 + r * S + j] and score > best_score:
                best, best_score = 1 + r * S + j, score
    if mask[0] and (not np.isfinite(best_score) or best_score < 250.0):
        return 0
    return best if best > 0 else 1


# --------------------------------------------------------------------------- a decision, a batch
@njit
def decide(hopt, rk, kd, pneed, holds, par, obs, mask) -> int:
    """The heuristic's action for one observation row and its (rank-level) mask."""
    if _onehot(obs, hopt[OB_PHASE], 3, 2) == 0:
        return give_back(hopt, rk, kd, pneed, holds, par, obs, mask)
    if hopt[OB_CLAIMING] >= 0 and obs[hopt[OB_CLAIMING]] > 0.5:
        for a in range(1, mask.shape[0]):  # quick_clear: always claim (the cards go, and the lead comes with them)
            if mask[a]:
                return a
        return 1
    return play(hopt, rk, kd, pneed, holds, par, obs, mask)


@njit
def decide_rows(hopt, rk, kd, pneed, holds, par, obs, mask, out) -> None:
    """``out[i]`` := :func:`decide` for each row ``i`` of ``obs`` (N, D) float32 and ``mask`` (N, A) bool."""
    for i in range(obs.shape[0]):
        out[i] = decide(hopt, rk, kd, pneed, holds, par, obs[i], mask[i])


@njit
def beat_chance_rows(hopt, rk, pneed, holds, unseen, order, opponents, reset_weight, out) -> None:
    """:func:`beat_chance` for each row: ``out[i]`` (R, S) from ``unseen[i]``, ``order[i]``, ``opponents[i]``."""
    for i in range(unseen.shape[0]):
        beat_chance(hopt, rk, pneed, holds, unseen[i], order[i], opponents[i], reset_weight, out[i])
