"""Rule book sections 3 and 5: a play or a pass, and what follows it (one game).

:func:`play_or_pass` takes the play's cards, puts it on top, applies the special plays of section 5
(revolutions, trumps, bombs, eight cuts, complete sets, reset cards, quick clears), lets a player who
plays out take a place, and works out who acts next: the next player who may still act in the
trick, a skipped-to player (``equal_play_skips``), a player asked to claim a quick clear, or, when
the trick ends, its winner (or the next player with cards) leading the next one.
"""

from __future__ import annotations

import numpy as np

from .cards import select, take_wild
from .deal import SALT_PASS_LIMIT, hash3
from .fields import (
    A_RANK,
    A_RUN,
    A_SIZE,
    C_FORBID,
    C_KIND,
    C_NAT8,
    C_WILD,
    CL_BOMB,
    CL_FIRST,
    CL_N,
    CLAIM_NEXT,
    CLAIM_RANK,
    COUNTS,
    CURRENT,
    DIRECTION,
    DISCARDED,
    ELEVEN_BACK,
    FINISH,
    FIRST_LEAD,
    FOUR_BOMB,
    FOUR_REVOLUTION,
    FOUR_REVOLUTION_REVERSE,
    G_C8,
    G_HANDS,
    G_I16,
    G_I32,
    G_K8,
    G_KEY,
    G_P8,
    G_PK8,
    G_S8,
    HAND_NO,
    K_COUNT,
    K_HIGH,
    K_START,
    LEADER,
    LOCK,
    MAY_REPLAY,
    MOVED,
    N_CARDS,
    NEXT_BEST,
    NEXT_WORST,
    O_ALL_PASSED,
    O_C,
    O_CARD_LEVEL,
    O_COMPLETE_SET,
    O_EIGHT,
    O_EIGHT_WILD,
    O_ELEVEN,
    O_FIVE,
    O_FOUR,
    O_HAS_FORBIDDEN,
    O_HAS_RESET,
    O_HAS_TRUMP,
    O_JS,
    O_K,
    O_MUST_WIN,
    O_P,
    O_PASS_LIMIT,
    O_PASS_RULE,
    O_POKER,
    O_QUICK_CLEAR,
    O_RANK_5,
    O_RANK_6,
    O_RANK_8,
    O_RANK_J,
    O_REV_SINGLES,
    O_RUN_REV,
    O_RUNS,
    O_S,
    O_SIX,
    O_SKIPS,
    O_SPADE3,
    O_SUIT_LOCK,
    O_TRANSPARENT,
    O_WILD_SINGLE,
    OVER,
    PASS_RUN,
    PASSED,
    PHASE,
    PICKED,
    PL_KIND,
    PL_RESET0,
    PL_TRUMP,
    PLAYED,
    PLAYED_CARDS,
    POKER_CLAIM,
    QC_COUNT,
    R_CMP0,
    R_CMP1,
    R_LO,
    R_SUIT,
    REVOLUTION,
    SF_SUITS,
    SINGLE_ROUND,
    SINGLE_ROW,
    SOCIAL,
    T_ACT,
    T_CARD,
    T_CLAIMS,
    T_KIND,
    T_OPT,
    T_PLAY,
    T_RUNS,
    T_SETS,
    TOP_CARDS,
    TOP_CLAIM,
    TOP_COUNT,
    TOP_LO,
    TOP_OWN,
    TOP_OWNER,
    TOP_RANK,
    TOP_RUN,
    TOP_SIZE,
    TOP_SUITS,
    TOP_WILD,
)
from .jit import inlined
from .legal import order_in_force


@inlined
def seat_after(s, d, P):
    """The seat next to ``s`` in direction ``d`` (+1 or -1) of ``P`` seats (without a division)."""
    s += d
    if s >= P:
        s -= P
    elif s < 0:
        s += P
    return s


@inlined
def next_seat(p8, start, d, need_turn):
    """The first seat after ``start`` in direction ``d`` that has cards (and, with ``need_turn``, has not
    passed); if none, the seat right after ``start``."""
    P = p8.shape[1]
    s = start
    for _ in range(P):
        s = seat_after(s, d, P)
        if p8[N_CARDS, s] > 0 and (not need_turn or not p8[PASSED, s]):
            return s
    return seat_after(start, d, P)


@inlined
def take_rank(G, T, seat, rank, size, sel):
    """Rank-level: the cards of a play of ``size`` of play rank ``rank`` as a list ``sel``: natural cards,
    lowest suit first, then the least wild cards (choice 1). Returns (cards, wild cards)."""
    hands = G[G_HANDS]
    play, kind = T[T_PLAY], T[T_KIND]
    k = play[PL_KIND, rank]
    n = 0
    if k >= 0:
        for c in range(kind[K_START, k], kind[K_START, k] + kind[K_COUNT, k]):
            if n < size and hands[seat, c]:
                sel[n] = c
                n += 1
    n_nat = n
    n = take_wild(G, T, seat, size - n, sel, n)
    return n, n - n_nat


@inlined
def remove_played(G, T, seat, sel, n, by_card):
    """The cards ``sel[:n]`` leave ``seat``'s hand face up (counted in ``played``; with ``by_card`` also in
    ``played_cards``, which rules that name cards keep)."""
    pk8, k8, c8, hands = G[G_PK8], G[G_K8], G[G_C8], G[G_HANDS]
    card = T[T_CARD]
    for i in range(n):
        c = sel[i]
        k = card[C_KIND, c]
        hands[seat, c] = 0
        pk8[COUNTS, seat, k] -= 1
        k8[PLAYED, k] += 1
        if by_card:
            c8[PLAYED_CARDS, c] = 1


@inlined
def go_out(s8, p8, pk8, k8, hands, opt, card, seat, sel, n):
    """A player who played its last card takes the best place not yet taken, or the worst when the play
    holds a forbidden card (forbidden_finish); president_must_win: the moment another player goes out first,
    the former President drops out with the worst place, its cards leaving play unseen."""
    P, C, K = opt[O_P], opt[O_C], opt[O_K]
    worst = False
    if opt[O_HAS_FORBIDDEN]:
        for i in range(n):
            if card[C_FORBID, sel[i]]:
                worst = True
    if worst:
        pos = s8[NEXT_WORST]
        s8[NEXT_WORST] -= 1
    else:
        pos = s8[NEXT_BEST]
        s8[NEXT_BEST] += 1
    p8[FINISH, seat] = pos
    if opt[O_MUST_WIN] and not worst and pos == 0:
        pres = -1
        for s in range(P):
            if p8[SOCIAL, s] == 0 and pres < 0:
                pres = s
        if pres >= 0 and pres != seat and p8[N_CARDS, pres] > 0:
            p8[FINISH, pres] = s8[NEXT_WORST]
            s8[NEXT_WORST] -= 1
            for k in range(K):
                k8[DISCARDED, k] += pk8[COUNTS, pres, k]
                pk8[COUNTS, pres, k] = 0
            for c in range(C):
                hands[pres, c] = 0
            p8[N_CARDS, pres] = 0


@inlined
def skip(s8, p8, opt, cur, k):
    """equal_play_skips (fine point 7): the next k players with cards are skipped, counted from ``cur``.
    Returns (the seat to search the next actor from, whether ``cur`` acts again)."""
    P = opt[O_P]
    d = s8[DIRECTION]
    total = 0
    for i in range(1, P + 1):
        if p8[N_CARDS, (cur + d * i) % P] > 0:
            total += 1
    cur_alive = p8[N_CARDS, cur] > 0
    n_others = total - (1 if cur_alive else 0)
    again = cur_alive and k >= total
    kk = k if cur_alive else (k - 1) % max(n_others, 1) + 1
    cum, j = 0, 0
    for i in range(1, P + 1):
        if p8[N_CARDS, (cur + d * i) % P] > 0:
            cum += 1
        if cum >= kk:
            j = i - 1
            break
    if opt[O_PASS_RULE] == SINGLE_ROUND and not again:   # a skipped player has lost its one turn
        for i in range(1, j + 2):
            s = (cur + d * i) % P
            if p8[N_CARDS, s] > 0:
                p8[PASSED, s] = 1
    return (cur + d * (j + 1)) % P, again


@inlined
def claimer(s8, pk8, opt, play, kind, rank, cur):
    """quick_clear: the seat other than ``cur`` holding every remaining natural card of ``rank``, enough to
    make 4 x decks with those at the top of the trick; -1 when none."""
    k = play[PL_KIND, rank]
    if k < 0 or kind[K_HIGH, k]:
        return -1
    need = opt[O_S] - s8[QC_COUNT]
    for s in range(opt[O_P]):
        if s != cur and pk8[COUNTS, s, k] == need and need > 0:
            return s
    return -1


@inlined
def others_can_act(p8, owner):
    """Whether some player other than ``owner`` has cards and has not passed (the trick goes on)."""
    for s in range(p8.shape[1]):
        if s != owner and p8[N_CARDS, s] > 0 and not p8[PASSED, s]:
            return True
    return False


@inlined
def end_trick(s8, p8, c8, i16, leader):
    """The trick ends: nothing on top, nobody has passed, ``leader`` leads."""
    s8[TOP_RANK] = -1
    s8[TOP_SIZE] = 0
    s8[TOP_OWNER] = -1
    s8[TOP_WILD] = 0
    s8[TOP_COUNT] = 0
    s8[SINGLE_ROW] = 0
    s8[TOP_OWN] = -1
    s8[QC_COUNT] = 0
    s8[TOP_RUN] = 0
    s8[LOCK] = 0                        # the lock, the 11-back and the top's suits end with the trick
    s8[TOP_SUITS] = 0
    s8[TOP_LO] = 0
    s8[ELEVEN_BACK] = 0
    i16[TOP_CLAIM] = 0
    for c in range(c8.shape[1]):
        c8[TOP_CARDS, c] = 0
    for s in range(p8.shape[1]):
        p8[PASSED, s] = 0
    s8[LEADER] = leader


@inlined
def contains(T, a, rank, size, is_run, place):
    """Fine point 4 of the UEC rules: whether the play contains the rank at ``place`` of rank_order: a set of
    that rank, or a run whose span (wild cards included) covers it. A lone joker contains no rank."""
    if place < 0 or size == 0:
        return False
    if is_run:
        lo = T[T_RUNS][R_LO, a - T[T_OPT][O_JS] - 1]
        return lo <= place < lo + size
    return T[T_PLAY][PL_KIND, rank] == place


@inlined
def pass_limit_end(G, T):
    """pass_limit: the hand ends; the players still holding cards take the places left in random order
    (from the game's key and the hand number, so a replay draws the same)."""
    s8, p8, i32, key = G[G_S8], G[G_P8], G[G_I32], G[G_KEY]
    P = T[T_OPT][O_P]
    for _ in range(P):
        pick = -1
        best = np.uint64(0)
        for s in range(P):
            if p8[N_CARDS, s] > 0 and p8[FINISH, s] < 0:
                h = hash3(key[0], SALT_PASS_LIMIT, i32[HAND_NO], s)
                if pick < 0 or h < best:
                    pick, best = s, h
        if pick < 0:
            break
        p8[FINISH, pick] = s8[NEXT_BEST]
        s8[NEXT_BEST] += 1


@inlined
def cards_of_rank_play(G, T, a, sel):
    """Rank-level rules: (rank, size, cards, wild cards) of play ``a``, its cards listed in ``sel``: natural
    cards of its rank lowest suit first, then the least wild cards (choice 1)."""
    act = T[T_ACT]
    rank, size = act[A_RANK, a], act[A_SIZE, a]
    n = n_wild = 0
    if size > 0:
        n, n_wild = take_rank(G, T, G[G_S8][CURRENT], rank, size, sel)
    return rank, size, n, n_wild


@inlined
def cards_of_card_play(G, T, a, sel):
    """Card-level rules: (rank, size, cards, wild cards) of play ``a``: the cards its id names (:func:`select`)."""
    act = T[T_ACT]
    rank, size = act[A_RANK, a], act[A_SIZE, a]
    n = n_wild = 0
    if size > 0:
        n, n_wild = select(G, T, G[G_S8][CURRENT], a, sel)
    return rank, size, n, n_wild


@inlined
def cards_of_poker_play(G, T, a, sel):
    """Poker: (rank, size, cards, wild cards) of the play made by the last pick of the pending claim (``a``
    0: a pass): the picked cards; the claim goes on top."""
    c8, i16 = G[G_C8], G[G_I16]
    card, claims = T[T_CARD], T[T_CLAIMS]
    claim = i16[POKER_CLAIM] if a > 0 else 0
    n = n_wild = 0
    if claim > 0:
        for c in range(card.shape[1]):
            if c8[PICKED, c]:
                sel[n] = c
                n += 1
                c8[PICKED, c] = 0
                n_wild += card[C_WILD, c]
        i16[TOP_CLAIM] = claim
        i16[POKER_CLAIM] = 0
    return claims[CL_FIRST, claim], claims[CL_N, claim], n, n_wild


@inlined
def play_or_pass(G, T, a, sel, rank, size, n, n_wild):  # noqa: C901 - one block per option, as the rule book
    """Action ``a`` of the player to act: a pass (``size`` 0) or a play of ``size`` cards of play rank ``rank``,
    its ``n`` cards in ``sel`` (``n_wild`` of them wild), still in the hand. Returns whether the hand ended
    (the caller scores it)."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    opt, act, card, play = T[T_OPT], T[T_ACT], T[T_CARD], T[T_PLAY]
    P, C, S = opt[O_P], opt[O_C], opt[O_S]
    cur = s8[CURRENT]
    poker = opt[O_POKER] != 0
    claim = i16[TOP_CLAIM] if (poker and size > 0) else 0
    is_play = size > 0
    is_run = is_play and opt[O_RUNS] > 0 and act[A_RUN, a] > 0
    old_rank, old_size = s8[TOP_RANK], s8[TOP_SIZE]
    old_run = s8[TOP_RUN] > 0
    # The play's cards leave the hand (the caller has cleared ``moved``).
    if is_play:
        remove_played(G, T, cur, sel, n, poker or opt[O_CARD_LEVEL] != 0)
        p8[N_CARDS, cur] -= size
    for i in range(n):
        c8[MOVED, sel[i]] = 1
    not_run = not is_run and not old_run

    qc = opt[O_QUICK_CLEAR] != 0
    claim_play = False
    clear_self = False
    clear_next = False
    if is_play:
        # The play on top: as the rank it is compared by (a run: its highest natural card, or lowest under a
        # revolution; a transparent set of the top's size: the rank it beat).
        eff = rank
        if is_run:
            ri = a - opt[O_JS] - 1
            eff = T[T_RUNS][R_CMP1 if order_in_force(T, s8) else R_CMP0, ri]
            s8[TOP_LO] = T[T_RUNS][R_LO, ri] + 1
        if opt[O_SUIT_LOCK]:            # suit_lock: the same suits as the play below lock the trick
            suits = (1 << T[T_RUNS][R_SUIT, a - opt[O_JS] - 1]) if is_run else T[T_SETS][SF_SUITS, a]
            if suits == 0:              # a lone joker ignores the lock and clears it
                s8[LOCK] = 0
            elif old_rank >= 0 and suits == s8[TOP_SUITS]:
                s8[LOCK] = suits
            s8[TOP_SUITS] = suits
        if rank == opt[O_TRANSPARENT] and old_rank >= 0 and size == old_size and not_run:
            eff = old_rank
        if opt[O_COMPLETE_SET]:         # cards of the top's rank in consecutive plays; a run counts none
            if is_run:
                s8[TOP_COUNT] = 0
            elif eff == old_rank and not_run:
                s8[TOP_COUNT] += size
            else:
                s8[TOP_COUNT] = size
        s8[TOP_RANK] = eff
        s8[TOP_SIZE] = size
        s8[TOP_OWNER] = cur
        s8[TOP_WILD] = 1 if n_wild > 0 else 0
        s8[FIRST_LEAD] = 0
        if opt[O_CARD_LEVEL] or poker:
            for c in range(C):
                c8[TOP_CARDS, c] = 0
            for i in range(n):
                c8[TOP_CARDS, sel[i]] = 1
            if opt[O_RUNS]:
                s8[TOP_RUN] = act[A_RUN, a]
        if qc:                          # natural cards of the play's own rank at the top of the trick
            claim_play = s8[CLAIM_RANK] >= 0
            own = -1 if is_run else rank
            nat_n = size - n_wild
            s8[QC_COUNT] = s8[QC_COUNT] + nat_n if own == s8[TOP_OWN] else nat_n
            s8[TOP_OWN] = own
            s8[CLAIM_RANK] = -1
            s8[CLAIM_NEXT] = -1

    # Passing: who may still act in this trick (section 3).
    pass_rule = opt[O_PASS_RULE]
    if pass_rule == SINGLE_ROUND:
        p8[PASSED, cur] = 1
    elif not is_play:
        p8[PASSED, cur] = 1
    elif pass_rule == MAY_REPLAY:
        for s in range(P):
            p8[PASSED, s] = 0

    if is_play:
        rev_before = order_in_force(T, s8)      # the order the play was made in (a revolution flips it below)
        # Revolutions: four of a kind (never a run; in poker the four/five of a kind claims), or four singles
        # of one rank in a row (eight with two decks).
        four = size >= 4 and not is_run
        if poker:
            four = T[T_CLAIMS][CL_BOMB, claim] != 0
        flip = four or (is_run and opt[O_RUN_REV] > 0 and size >= opt[O_RUN_REV])
        if opt[O_REV_SINGLES]:
            if size == 1 and eff == old_rank and old_size == 1:
                row = s8[SINGLE_ROW] + 1
            else:
                row = 1 if size == 1 else 0
            s8[SINGLE_ROW] = row
            flip = flip or (size == 1 and (row == 4 or (row == 8 and S == 8)))
        if opt[O_FOUR] >= FOUR_REVOLUTION and flip:
            s8[REVOLUTION] = 1 - s8[REVOLUTION]     # the flag itself: the one writer besides the deal
            if opt[O_FOUR] == FOUR_REVOLUTION_REVERSE:
                s8[DIRECTION] = -s8[DIRECTION]
        # Plays that end the trick at once (section 5, fine point 5).
        if opt[O_HAS_TRUMP] and play[PL_TRUMP, rank] and not is_run:
            clear_self = True
        if opt[O_FOUR] == FOUR_BOMB and four:
            clear_self = True
        if opt[O_EIGHT] >= 0:
            if is_run and opt[O_EIGHT_WILD]:   # a run whose span covers the 8, a wild card standing for it too
                if contains(T, a, rank, size, True, opt[O_RANK_8]):
                    clear_self = True
            elif is_run:                # a run with a natural 8
                for i in range(n):
                    if card[C_NAT8, sel[i]]:
                        clear_self = True
            elif rank == opt[O_EIGHT]:
                clear_self = True
        if opt[O_COMPLETE_SET] and s8[TOP_COUNT] >= S:
            clear_self = True
        if qc and claim_play:
            clear_self = True
        if opt[O_SPADE3] >= 0 and a == opt[O_SPADE3] and old_rank == opt[O_WILD_SINGLE] and old_size == 1:
            clear_self = True           # the single 3S on a lone joker ends the trick
        if opt[O_ELEVEN] and contains(T, a, rank, size, is_run, opt[O_RANK_J]):
            s8[ELEVEN_BACK] = 1 - s8[ELEVEN_BACK]   # until the trick ends; another J restores the order
        if opt[O_SIX] and contains(T, a, rank, size, is_run, opt[O_RANK_6]):
            s8[DIRECTION] = -s8[DIRECTION]          # for the rest of the hand
        if opt[O_HAS_RESET] and size == 1 and not clear_self:   # judged by the order before the play
            if play[PL_RESET0 + (1 if rev_before else 0), rank]:
                clear_next = True
        if p8[N_CARDS, cur] == 0:
            go_out(s8, p8, pk8, k8, hands, opt, card, cur, sel, n)

    # pass_limit: passes in a row, across tricks; any play resets the count
    limit_end = False
    if opt[O_PASS_LIMIT] > 0:
        s8[PASS_RUN] = 0 if is_play else s8[PASS_RUN] + 1
        limit_end = s8[PASS_RUN] >= opt[O_PASS_LIMIT]

    # Who acts next, or who leads the next trick.
    alive = 0
    for s in range(P):
        if p8[N_CARDS, s] > 0:
            alive += 1
    ended = alive <= 1
    if limit_end and not ended:
        pass_limit_end(G, T)
        ended = True
    d = s8[DIRECTION]
    owner = s8[TOP_OWNER]
    # all_passed: the owner of the last play gets the turn again when everyone else has passed; the trick
    # ends when everyone holding cards has passed (the owner too)
    trick_end = clear_self or clear_next or not others_can_act(p8, -1 if opt[O_ALL_PASSED] else owner)
    start = cur
    if (opt[O_FIVE] and is_play and not trick_end and not ended
            and contains(T, a, rank, size, is_run, opt[O_RANK_5])):
        start = seat_after(cur, d, P)    # five_skip: the next seat loses its turn, whoever sits there
    again = False
    if opt[O_SKIPS] and is_play and rank == old_rank and not trick_end and not ended and not_run:
        start, again = skip(s8, p8, opt, cur, size - old_size + 1)
        if pass_rule == SINGLE_ROUND and not others_can_act(p8, owner):   # the skip used up the last turns
            trick_end = True
    nxt = cur if again else next_seat(p8, start, d, True)
    asked = -1
    if qc and is_play and not (claim_play or clear_self or clear_next or ended or is_run):
        asked = claimer(s8, pk8, opt, play, T[T_KIND], rank, cur)
    if trick_end:
        win = cur if clear_next else owner
        if win < 0:                     # a trick of passes only (lead_may_pass): who was to lead leads
            win = s8[LEADER]
        if not clear_next and p8[N_CARDS, win] > 0:
            leader = win
        else:
            leader = next_seat(p8, win, d, False)
        nxt = leader
        end_trick(s8, p8, c8, i16, leader)
    if asked >= 0:                      # the claimer decides first; then the normal turn goes on
        s8[CLAIM_RANK] = rank
        s8[CLAIM_NEXT] = nxt
        nxt = asked
    s8[CURRENT] = nxt
    if ended:
        s8[PHASE] = OVER             # provisional: the end of the hand deals on or ends the session
    return ended
