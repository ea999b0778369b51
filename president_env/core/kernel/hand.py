"""Rule book sections 6 and 7: the give-backs and trades of the exchange, and the end of a hand (one game).

A hand ends when one player has cards left: the places are scored, the session ends (after its
number of hands, or when a total reaches the target) or the players reseat by rank (``reseat``)
and the previous Scum deals the next hand (:func:`deal.start_hand`).
"""

from __future__ import annotations

import numpy as np

from .cards import select
from .deal import SALT_DEALER, SALT_SEATS, card_order, hash3, lead_card_holder, seat_of_rank, start_hand, transfer
from .fields import (
    A_PICK,
    A_RANK,
    C_FIRST,
    C_KIND,
    C_WILD,
    CURRENT,
    DEALER,
    EX_DECIDER,
    EX_KIND,
    EX_PARTNER,
    EXCH_STEP,
    FINISH,
    G_C8,
    G_HANDS,
    G_I32,
    G_KEY,
    G_P8,
    G_S8,
    HAND_NO,
    HAND_OVER,
    HAND_POINTS,
    LAST_FINISH,
    LEADER,
    MOVED,
    NEXT_BEST,
    O_DIR,
    O_HANDS_PER_SESSION,
    O_LEAD_CARD,
    O_N_EX,
    O_P,
    O_RESEAT,
    O_RESET_EVERY,
    O_SEATS_EVERY,
    O_TARGET,
    OVER,
    PHASE,
    PK_FIRST,
    PL_KIND,
    PLAY,
    POINTS,
    SEAT_PLAYER,
    SOCIAL,
    T_ACT,
    T_CARD,
    T_OPT,
    T_PICKS,
    T_PLAY,
    T_POINTS,
    T_SCHED,
    TRADE_PICK,
)
from .jit import inlined, njit


@inlined
def rank_card_given(G, T, a):
    """Rank-level: the card a give-back or trade ``a`` names: the lowest suit of its rank held, or the least
    wild card held for WILD."""
    hands = G[G_HANDS]
    act, card, play = T[T_ACT], T[T_CARD], T[T_PLAY]
    giver = G[G_S8][CURRENT]
    k = play[PL_KIND, act[A_RANK, a]]
    for c in range(card.shape[1]):
        if hands[giver, c] and ((card[C_KIND, c] == k) if k >= 0 else card[C_WILD, c]):
            return c
    return -1


@inlined
def card_card_given(G, T, a, sel):
    """Card-level: the card the single ``a`` names (a wild card: the least held of its suit)."""
    select(G, T, G[G_S8][CURRENT], a, sel)
    return sel[0]


@inlined
def poker_card_given(G, T, a):
    """Poker: the first copy held of the card the pick id ``a`` names."""
    hands = G[G_HANDS]
    act, card = T[T_ACT], T[T_CARD]
    giver = G[G_S8][CURRENT]
    first = T[T_PICKS][PK_FIRST, act[A_PICK, a]]
    for c in range(first, card.shape[1]):
        if hands[giver, c] and card[C_FIRST, c] == first:
            return c
    return -1


@njit
def give_back(G, T, c_give):
    """One exchange decision of the player to act, giving card ``c_give``. A give-back moves it to the partner
    at once; a merchant's first pick waits in ``trade_pick`` (unseen by the other merchant); the second pick
    moves both cards."""
    s8, p8, c8 = G[G_S8], G[G_P8], G[G_C8]
    opt, card, sched = T[T_OPT], T[T_CARD], T[T_SCHED]
    P, C = opt[O_P], card.shape[1]
    giver = s8[CURRENT]
    ranks = seat_of_rank(G, P)
    step = s8[EXCH_STEP]
    partner = ranks[sched[EX_PARTNER, step]]
    kind = sched[EX_KIND, step]
    for c in range(C):
        c8[MOVED, c] = 0
    c8[MOVED, c_give] = 1
    if kind == 1:                       # a merchant's first pick: held back, unseen
        p8[TRADE_PICK, giver] = c_give
    else:
        transfer(G, T, giver, partner, c_give)
        if kind == 2:                   # the second pick: both cards move
            transfer(G, T, partner, giver, p8[TRADE_PICK, partner])
            p8[TRADE_PICK, partner] = -1
    s8[EXCH_STEP] = step + 1
    if step + 1 >= opt[O_N_EX]:
        if opt[O_LEAD_CARD] >= 0:       # the card may have moved in the exchange
            lead_card_holder(G, T)
        s8[CURRENT] = s8[LEADER]
        s8[PHASE] = PLAY
    else:
        s8[CURRENT] = ranks[sched[EX_DECIDER, step + 1]]


@njit
def draw_seats(G, P):
    """Seat the players in a random order drawn from the game's key and the hand number (``seats_for``
    draws the same in Python for a session's first hand)."""
    p8, i32, key = G[G_P8], G[G_I32], G[G_KEY]
    noise = np.empty(P, dtype=np.uint64)
    for p in range(P):
        noise[p] = hash3(key[0], SALT_SEATS, i32[HAND_NO], p)
    perm = card_order(noise)
    for s in range(P):
        p8[SEAT_PLAYER, s] = perm[s]


@njit
def end_hand(G, T):
    """Score the finished hand (section 7), then end the session or reseat and deal the next hand."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    opt, points = T[T_OPT], T[T_POINTS]
    P = opt[O_P]
    for s in range(P):                  # the last player with cards takes the place left
        if p8[FINISH, s] < 0:
            p8[FINISH, s] = s8[NEXT_BEST]
    s8[HAND_OVER] = 1
    for s in range(P):
        p = p8[SEAT_PLAYER, s]
        pos = p8[FINISH, s]
        p8[LAST_FINISH, p] = pos
        pts[HAND_POINTS, p] = points[0, pos]
        pts[POINTS, p] += points[0, pos]
    i32[HAND_NO] += 1
    if opt[O_HANDS_PER_SESSION] >= 0:
        over = i32[HAND_NO] >= opt[O_HANDS_PER_SESSION]
    else:                               # some total reaches the target
        over = False
        for p in range(P):
            if pts[POINTS, p] >= opt[O_TARGET]:
                over = True
    if over:
        s8[PHASE] = OVER
        return
    s8[PHASE] = PLAY
    if opt[O_RESEAT]:                   # the President in seat 0, the others in finishing order
        d = opt[O_DIR]
        for p in range(P):
            p8[SEAT_PLAYER, (p8[LAST_FINISH, p] * d) % P] = p
    h = i32[HAND_NO]
    if opt[O_SEATS_EVERY] > 0 and h % opt[O_SEATS_EVERY] == 0:
        draw_seats(G, P)                # random_seats_every: seats drawn at random, whatever the ranks
    for s in range(P):
        p8[SOCIAL, s] = p8[LAST_FINISH, p8[SEAT_PLAYER, s]]
        if p8[SOCIAL, s] == P - 1:   # the Scum deals
            s8[DEALER] = s
    if opt[O_RESET_EVERY] > 0 and h % opt[O_RESET_EVERY] == 0:
        for s in range(P):              # rank_reset_every: a hand without ranks, a random dealer
            p8[SOCIAL, s] = -1
        s8[DEALER] = np.int8(hash3(key[0], SALT_DEALER, h, 0) % np.uint64(P))
    start_hand(G, T, np.bool_(False))   # not a literal False: start_hand compiles for one type of `dealt`
