"""Rule book sections 1, 2 and 6: the deal, who leads, the forced exchange (one game).

Every deal is derived from the game's 64-bit key and the hand number by a counter-based hash
(splitmix64), so a game plays the same whether it is stepped alone or in any batch, and every
seed deals the cards it always dealt.
"""

from __future__ import annotations

import numpy as np
from numba import config

from .fields import (
    C_BEST,
    C_IDENT,
    C_KIND,
    C_LOWEST,
    CLAIM_NEXT,
    CLAIM_RANK,
    COUNTS,
    CURRENT,
    DEALER,
    DIRECTION,
    DISCARDED,
    ELEVEN_BACK,
    EX_DECIDER,
    EXCH_IN,
    EXCH_OUT,
    EXCH_STEP,
    EXCHANGE,
    EXPOSED,
    EXTRA_FIRST_DEALT,
    EXTRA_TOP_RANKS,
    FINISH,
    FIRST_LEAD,
    G_HANDS,
    G_P8,
    G_S8,
    HAND_NO,
    K_COUNT,
    K_START,
    LEAD_DEALER,
    LEAD_DEALER_LEFT,
    LEADER,
    LOCK,
    MOVED,
    N_CARDS,
    NEXT_BEST,
    NEXT_WORST,
    O_C,
    O_DIR,
    O_EXPOSE,
    O_EXTRA_TO,
    O_FIRST_LEAD,
    O_K,
    O_LEAD_AFTER,
    O_LEAD_CARD,
    O_N_EX,
    O_N_GIVE,
    O_P,
    PASS_RUN,
    PASSED,
    PHASE,
    PICKED,
    PLAY,
    PLAYED,
    PLAYED_CARDS,
    POKER_CLAIM,
    QC_COUNT,
    REVOLUTION,
    SINGLE_ROW,
    SOCIAL,
    T_CARD,
    T_GIVE,
    T_KIND,
    T_OPT,
    T_SCHED,
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
    TRADE_PICK,
)
from .jit import njit, thin

M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
GOLD = np.uint64(0x9E3779B97F4A7C15)
S30, S27, S31 = np.uint64(30), np.uint64(27), np.uint64(31)
TOP6 = np.uint64(58)
SALT_DEALER, SALT_DEAL, SALT_RANKS, SALT_PASS_LIMIT, SALT_SEATS = 1, 2, 3, 4, 5


@njit
def mix(x):
    """The splitmix64 finaliser (wrapping uint64 arithmetic)."""
    x = x ^ (x >> S30)
    x = x * M1
    x = x ^ (x >> S27)
    x = x * M2
    return x ^ (x >> S31)


@njit
def hash3(key, a, b, c):
    """hash(key, a, b, c) = mix(mix(mix(mix(key) ^ a*GOLD) ^ b*GOLD) ^ c*GOLD), all uint64."""
    h = mix(key)
    h = mix(h ^ (np.uint64(a) * GOLD))
    h = mix(h ^ (np.uint64(b) * GOLD))
    return mix(h ^ (np.uint64(c) * GOLD))


if config.DISABLE_JIT:  # plain Python: NumPy's uint64 scalars warn where the compiled code wraps silently
    _mix_py, _hash3_py = mix, hash3

    def mix(x):  # noqa: F811
        with np.errstate(over="ignore"):
            return _mix_py(x)

    def hash3(key, a, b, c):  # noqa: F811
        with np.errstate(over="ignore"):
            return _hash3_py(key, a, b, c)


@thin
def transfer(G, T, giver, recv, c):
    """Card ``c`` from seat ``giver`` to seat ``recv`` in the exchange (counted in exch_out / exch_in)."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    k = T[T_CARD][C_KIND, c]
    hands[giver, c] = 0
    hands[recv, c] = 1
    pk8[COUNTS, giver, k] -= 1
    pk8[COUNTS, recv, k] += 1
    p8[N_CARDS, giver] -= 1
    p8[N_CARDS, recv] += 1
    pk8[EXCH_OUT, giver, k] += 1
    pk8[EXCH_IN, recv, k] += 1


@njit
def seat_of_rank(G, P):
    """seat holding each last-hand finishing position (an array of P)."""
    p8 = G[G_P8]
    out = np.empty(P, dtype=np.int64)
    for s in range(P):
        out[p8[SOCIAL, s]] = s
    return out


@njit
def card_order(noise):
    """The card numbers in increasing order of their hashes ``noise``: what ``np.argsort`` gives (the hashes
    differ; a tie would keep the card numbers' order), at a fraction of its cost for a deck: the cards go to
    64 buckets by the hashes' top 6 bits in one pass, and an insertion sort then has few cards to move."""
    C = noise.shape[0]
    start = np.zeros(65, dtype=np.int64)
    for i in range(C):
        start[(noise[i] >> TOP6) + np.uint64(1)] += 1
    for b in range(64):
        start[b + 1] += start[b]
    perm = np.empty(C, dtype=np.int64)
    for i in range(C):
        b = noise[i] >> TOP6
        perm[start[b]] = i
        start[b] += 1
    for i in range(1, C):
        c = perm[i]
        v = noise[c]
        j = i
        while j > 0 and noise[perm[j - 1]] > v:
            perm[j] = perm[j - 1]
            j -= 1
        perm[j] = c
    return perm


@njit
def deal(G, T, has_ranks):
    """Shuffle from (key, hand number) and deal one card at a time (section 1); under
    ``hand_assignment expose`` the President takes the pile showing the best card, and so on down."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    opt = T[T_OPT]
    P, C, d = opt[O_P], opt[O_C], opt[O_DIR]
    order = np.empty(P, dtype=np.int64)
    extra = opt[O_EXTRA_TO]
    if extra == EXTRA_FIRST_DEALT or not has_ranks:       # from the dealer's left
        start = (s8[DEALER] + d) % P
        for i in range(P):
            order[i] = (start + d * i) % P
    elif extra == EXTRA_TOP_RANKS:                        # from the President
        start = 0
        for s in range(P):
            if p8[SOCIAL, s] == 0:
                start = s
        for i in range(P):
            order[i] = (start + d * i) % P
    else:                                                 # bottom_ranks: the Scum first, on up the ranking
        for s in range(P):
            order[P - 1 - p8[SOCIAL, s]] = s
    noise = np.empty(C, dtype=np.uint64)
    key, hand = key[0], i32[HAND_NO]
    for i in range(C):
        noise[i] = hash3(key, SALT_DEAL, hand, i)
    perm = card_order(noise)                              # perm[i]: the i-th card dealt
    for s in range(P):
        for c in range(C):
            hands[s, c] = 0
    j = 0                                                 # i % P, without a division per card
    for i in range(C):
        hands[order[j], perm[i]] = 1
        j = j + 1 if j + 1 < P else 0
    for s in range(P):
        p8[EXPOSED, s] = -1
    if opt[O_EXPOSE] and has_ranks:
        _expose(G, T, order, perm)


@njit
def _expose(G, T, order, perm):
    """hand_assignment expose: pile j is dealt to seat order[j]; its last card is shown face up; the
    President takes the pile showing the best card (ties: the pile dealt first), the Vice-President the next."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    opt, card = T[T_OPT], T[T_CARD]
    P, C = opt[O_P], opt[O_C]
    shown = np.empty(P, dtype=np.int64)
    for j in range(P):
        shown[j] = perm[j + P * ((C - 1 - j) // P)]
    best = np.empty(P, dtype=np.int64)                   # piles best first, stable
    used = np.zeros(P, dtype=np.bool_)
    for k in range(P):
        pick = -1
        for j in range(P):
            if not used[j] and (pick < 0 or card[C_IDENT, shown[j]] > card[C_IDENT, shown[pick]]):
                pick = j
        used[pick] = True
        best[k] = pick
    piles = np.empty((P, C), dtype=np.int8)
    for j in range(P):
        for c in range(C):
            piles[j, c] = hands[order[j], c]
    ranks = seat_of_rank(G, P)
    for k in range(P):
        seat = ranks[k]
        for c in range(C):
            hands[seat, c] = piles[best[k], c]
        p8[EXPOSED, seat] = shown[best[k]]


@thin
def lead_card_holder(G, T):
    """lead_card: the holder of the card leads the first trick (the lead need not contain it)."""
    s8, p8, hands = G[G_S8], G[G_P8], G[G_HANDS]
    c = T[T_OPT][O_LEAD_CARD]
    for s in range(p8.shape[1]):
        if hands[s, c]:
            s8[LEADER] = s
            s8[CURRENT] = s


@njit
def start_hand(G, T, dealt):
    """Deal (unless ``dealt``: the hands and exposed cards are already in place), reset the hand's fields,
    set who leads (section 2) and play the forced exchange (section 6). The give-backs, and the merchants'
    trades, are decisions of the players that follow."""
    s8, p8, pk8, k8, c8, hands, legal, i32, pts, i16, key = G
    opt, card, give, sched = T[T_OPT], T[T_CARD], T[T_GIVE], T[T_SCHED]
    P, C, K = opt[O_P], opt[O_C], opt[O_K]
    ranked = 0                          # (a count, not a flag set True then False: numba would type the
    for s in range(P):                  # call below with the literal True first and compile deal twice)
        if p8[SOCIAL, s] >= 0:
            ranked += 1
    has_ranks = ranked == P
    if not dealt:
        deal(G, T, has_ranks)
    kind = T[T_KIND]
    for s in range(P):
        n = 0
        for k in range(K):                  # a kind's cards are numbered in a row
            held = 0
            for c in range(kind[K_START, k], kind[K_START, k] + kind[K_COUNT, k]):
                held += hands[s, c]
            pk8[COUNTS, s, k] = held
            pk8[EXCH_IN, s, k] = 0
            pk8[EXCH_OUT, s, k] = 0
            n += held
        p8[N_CARDS, s] = n
        p8[PASSED, s] = 0
        p8[FINISH, s] = -1
        p8[TRADE_PICK, s] = -1
    s8[PHASE] = PLAY
    s8[TOP_RANK] = -1
    s8[TOP_SIZE] = 0
    s8[TOP_OWNER] = -1
    s8[TOP_WILD] = 0
    s8[TOP_COUNT] = 0
    s8[NEXT_BEST] = 0
    s8[NEXT_WORST] = P - 1
    s8[REVOLUTION] = 0        # the flag itself (legal.order_in_force reads the order in force)
    s8[DIRECTION] = opt[O_DIR]
    s8[EXCH_STEP] = 0
    s8[FIRST_LEAD] = 0
    s8[SINGLE_ROW] = 0
    s8[TOP_OWN] = -1
    s8[QC_COUNT] = 0
    s8[CLAIM_RANK] = -1
    s8[CLAIM_NEXT] = -1
    s8[TOP_RUN] = 0
    s8[LOCK] = 0
    s8[TOP_SUITS] = 0
    s8[TOP_LO] = 0
    s8[ELEVEN_BACK] = 0
    s8[PASS_RUN] = 0
    for k in range(K):
        k8[PLAYED, k] = 0
        k8[DISCARDED, k] = 0
    for c in range(C):
        c8[MOVED, c] = 0
        c8[TOP_CARDS, c] = 0
        c8[PLAYED_CARDS, c] = 0
        c8[PICKED, c] = 0
    i16[TOP_CLAIM] = 0
    i16[POKER_CLAIM] = 0

    # Who leads (section 2): after the first hand the President (or the Scum); in the first hand the
    # dealer, the dealer's left, or the holder of the lowest card, who must play it.
    ranks = np.arange(P)
    if has_ranks:
        ranks = seat_of_rank(G, P)
    leader = ranks[0] if opt[O_LEAD_AFTER] == 0 else ranks[P - 1]
    if not has_ranks:
        dealer = s8[DEALER]
        d = opt[O_DIR]
        if opt[O_FIRST_LEAD] == LEAD_DEALER:
            leader = dealer
        elif opt[O_FIRST_LEAD] == LEAD_DEALER_LEFT:
            leader = (dealer + d) % P
        else:
            leader = (dealer + d) % P
            for i in range(1, P + 1):
                s = (dealer + d * i) % P
                holds = False
                for c in range(C):
                    if card[C_LOWEST, c] and hands[s, c]:
                        holds = True
                if holds:
                    leader = s
                    break
            s8[FIRST_LEAD] = 1
    s8[LEADER] = leader
    s8[CURRENT] = leader
    if opt[O_LEAD_CARD] >= 0:           # lead_card: its holder leads (after the exchange: hand.give_back)
        s8[FIRST_LEAD] = 0
        lead_card_holder(G, T)

    # The forced exchange: the Scum gives its best cards to the President, the Vice-Scum to the
    # Vice-President, ...; then the give-backs are decisions.
    if opt[O_N_EX] > 0 and has_ranks:
        for k in range(opt[O_N_GIVE]):
            giver, recv = ranks[P - 1 - k], ranks[k]
            for c in range(C):
                c8[MOVED, c] = 0
            for _ in range(give[0, k]):
                best = -1
                for c in range(C):
                    if hands[giver, c] and (best < 0 or card[C_BEST, c] > card[C_BEST, best]):
                        best = c
                if best >= 0:
                    transfer(G, T, giver, recv, best)
                    c8[MOVED, best] = 1
        s8[PHASE] = EXCHANGE
        s8[CURRENT] = ranks[sched[EX_DECIDER, 0]]
