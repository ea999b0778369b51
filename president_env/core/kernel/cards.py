"""Rule book section 8: suit-aware play on the card-level table (one game).

A card-level action names cards: a *set* (ids ``1..Js``) names its natural cards, its wild
cards by count (the engine plays the least wild), or where suits are compared their suits
(fine point 10); a *run* (ids ``Js+1..A-1``) names a suit and a window of ranks. The legal
sets are those whose rank-level (rank, size) the rank rules allow (:func:`legal.rank_parts`)
and whose cards the player holds, with the suit rule deciding the plays of the top's rank:
``colour`` (reversed colours), ``rank`` (the strongest suit), ``follow`` (a natural single
binds its suit). Runs lead, or beat a run of their length with a higher card.
"""

from __future__ import annotations

from .fields import (
    A_SIZE,
    C_BLACK,
    C_FSUIT,
    C_KIND,
    C_NATPOS,
    C_RED,
    C_SLOT,
    C_SUIT,
    C_WILD,
    CLAIM_RANK,
    CURRENT,
    G_C8,
    G_HANDS,
    G_LEGAL,
    G_S8,
    K_COUNT,
    K_HIGH,
    K_START,
    K_SUITED,
    K_WILD,
    LOCK,
    NO_JOKER,
    O_A,
    O_CLEAR_ABOVE,
    O_COMPULSORY,
    O_DECKS,
    O_HAS_HIGH,
    O_HAS_WILD,
    O_JOKER_NAMED,
    O_JR,
    O_JS,
    O_K,
    O_NAMED_WILD,
    O_NNAT,
    O_R,
    O_RUN_ENDS,
    O_RUNS,
    O_S,
    O_SIZE_RULE,
    O_SPADE3,
    O_SUIT_LOCK,
    O_SUIT_RULE,
    O_TRANSPARENT,
    O_W,
    O_WILD_SINGLE,
    O_WILD_TIE,
    PL_KIND,
    PL_SET_LEN,
    PL_SET_START,
    PL_STR0,
    R_JPOS,
    R_LEN,
    R_LO,
    R_LOPOS,
    R_LOW,
    R_NEXT_LEN,
    R_NEXT_LO,
    R_NEXT_SUIT,
    R_NLO,
    R_NN,
    R_STR0,
    R_SUIT,
    SF_BLACK,
    SF_COLOUR,
    SF_FSUIT,
    SF_HI,
    SF_LO,
    SF_LOW,
    SF_N,
    SF_NEED0,
    SF_P,
    SF_RED,
    SF_RID,
    SF_SUITLESS,
    SF_SUITS,
    SF_W,
    SF_WS0,
    SIZE_AT_LEAST,
    SIZE_BIGGER,
    SK_LEN,
    SK_NMAX,
    SK_NMIN,
    SK_START,
    SUIT_COLOUR,
    SUIT_FOLLOW,
    SUIT_RANK,
    T_ACT,
    T_CARD,
    T_KIND,
    T_KS,
    T_OPT,
    T_PLAY,
    T_RUNS,
    T_SETKEY,
    T_SETLIST,
    T_SETS,
    TIE_EQUAL,
    TIE_NATURAL,
    TOP_CARDS,
    TOP_LO,
    TOP_RANK,
    TOP_RUN,
    TOP_SIZE,
    TOP_WILD,
    W_EXTRA,
    W_HI,
    W_LO,
    W_PER_KIND,
    W_PRES,
    W_SLOTS,
    W_SUITED,
)
from .jit import inlined
from .legal import may_pass, order_in_force, rank_extras, rank_intervals


@inlined
def held(G, T, seat, W):
    """What ``seat`` holds, counted as the sets need it: (suited (K, 4) natural cards by kind and suit,
    per_kind (K,), wild cards per slot (one slot per wild card name: C_SLOT), wild cards in all)."""
    hands = G[G_HANDS]
    opt, card, kind = T[T_OPT], T[T_CARD], T[T_KIND]
    K, C = opt[O_K], hands.shape[1]
    suited, per_kind, slots = W[W_SUITED], W[W_PER_KIND], W[W_SLOTS]
    for k in range(K):
        per_kind[k] = 0
        for s in range(4):
            suited[k, s] = 0
    for s in range(T[T_SETS].shape[0] - SF_WS0):          # one slot per wild card name (fields.SF_WS0)
        slots[s] = 0
    wild = 0
    for c in range(C):
        if hands[seat, c]:
            k = card[C_KIND, c]
            per_kind[k] += 1
            if card[C_WILD, c]:
                slots[card[C_SLOT, c]] += 1
                wild += 1
            elif kind[K_SUITED, k] and not kind[K_HIGH, k]:
                suited[k, card[C_SUIT, c]] += 1
    return suited, per_kind, slots, wild


@inlined
def holds(T, j, suited, per_kind, slots, wild, named):
    """Whether the player holds the cards set ``j`` names (its natural cards, and its wild cards)."""
    sets, play = T[T_SETS], T[T_PLAY]
    if sets[SF_W, j] > wild:
        return False
    k = play[PL_KIND, sets[SF_P, j]]
    if k >= 0:
        if sets[SF_SUITLESS, j]:
            if per_kind[k] < sets[SF_NEED0, j]:
                return False
        else:
            for s in range(4):
                if suited[k, s] < sets[SF_NEED0 + s, j]:
                    return False
    if named:
        for s in range(sets.shape[0] - SF_WS0):
            if slots[s] < sets[SF_WS0 + s, j]:
                return False
    return True


@inlined
def card_mask(G, T, W):  # noqa: C901 - one block per suit rule
    """The card-level legal plays of the player to act into ``legal[b]``."""
    s8, c8, legal = G[G_S8], G[G_C8], G[G_LEGAL]
    opt, card, play, sets = T[T_OPT], T[T_CARD], T[T_PLAY], T[T_SETS]
    R, S, A = opt[O_R], opt[O_S], opt[O_A]
    C = card.shape[1]
    lo, hi, extra = W[W_LO], W[W_HI], W[W_EXTRA]
    lead, first = rank_intervals(G, T, W)
    extras = rank_extras(G, T, W, lead)
    cur = s8[CURRENT]
    suited, per_kind, slots, wild = held(G, T, cur, W)
    named = opt[O_NAMED_WILD] != 0
    top, ts = s8[TOP_RANK], s8[TOP_SIZE]
    on_set = top >= 0 and s8[TOP_RUN] == 0
    suit_rule = opt[O_SUIT_RULE]
    has_wild = opt[O_HAS_WILD] != 0
    # follow: a natural single on top binds; no bigger set beats it by the bound rules (fine point 2)
    fs = -1
    if suit_rule == SUIT_FOLLOW and on_set and ts == 1:
        for c in range(C):
            if c8[TOP_CARDS, c] and card[C_FSUIT, c] > fs:
                fs = card[C_FSUIT, c]
        # (the sets below treat sizes above one as unbound while fs >= 0)
    # colour: the top's colours; rank: the top's strongest (or, reversed, weakest) suit
    top_red = top_black = 0
    top_key = -1
    rev = order_in_force(T, s8)
    rank_cmp = suit_rule == SUIT_RANK or (suit_rule != SUIT_COLOUR and opt[O_WILD_TIE] != TIE_EQUAL and has_wild)
    if on_set and (suit_rule == SUIT_COLOUR or rank_cmp):     # the top's colours and suits: read by those rules
        top_hi, top_lo = -1, 4
        for c in range(C):
            if c8[TOP_CARDS, c]:
                top_red += card[C_RED, c]
                top_black += card[C_BLACK, c]
                sc = card[C_SUIT, c]
                if sc >= 0:
                    top_hi = max(top_hi, sc)
                    top_lo = min(top_lo, sc)
        if rev:
            top_key = 3 - top_lo if top_lo < 4 else -1
        else:
            top_key = top_hi
    top_rid = top * S + ts if on_set else -1
    bigger = opt[O_SIZE_RULE] == SIZE_BIGGER
    at_least = opt[O_SIZE_RULE] == SIZE_AT_LEAST
    wild_p = R - 1 if has_wild else -1
    top_wild = s8[TOP_WILD] != 0
    lock = s8[LOCK] if opt[O_SUIT_LOCK] else 0      # suit_lock: a play must have exactly the locked suits
    anything = False
    for a in range(A):
        legal[a] = 0
    setkey, setlist = T[T_SETKEY], T[T_SETLIST]
    W1 = opt[O_W] + 1
    for p in range(R):
        if play[PL_SET_LEN, p] == 0:
            continue
        live = lo[p] <= hi[p]
        if extras:
            for n in range(S):
                if extra[p, n]:
                    live = True
        if not live and not (on_set and p == top):
            continue
        # the sets the player holds the cards of: their natural cards' suits among the suits held of the rank
        # (every subset, by the setkey table) and their wild cards no more than those held; holds() then counts
        # only the sizes lo[p]..hi[p] can be legal, unless a rule looks past them: extras, the top's own rank
        # (colour, suit rank, wild ties), follow (sizes above one stay unbound)
        plain_size = not extras and not (on_set and p == top) and fs < 0
        k = play[PL_KIND, p]
        suits_held = 0
        if k >= 0:
            for s in range(4):
                if suited[k, s] > 0:
                    suits_held |= 1 << s
        w_most = min(wild, W1 - 1)
        m = suits_held
        while True:
            key0 = (p * 16 + m) * W1
            for key in range(key0, key0 + w_most + 1):
                if plain_size and (setkey[SK_NMAX, key] < lo[p] or setkey[SK_NMIN, key] > hi[p]):
                    continue                    # no set of the key has a size the rules allow on this rank
                for i in range(setkey[SK_START, key], setkey[SK_START, key] + setkey[SK_LEN, key]):
                    j = setlist[0, i]
                    n = sets[SF_N, j]
                    bnd = lo[p] <= n and n <= hi[p] and not (fs >= 0 and n > 1)
                    ext = extras and extra[p, n - 1] != 0
                    if fs >= 0 and n == 1:              # follow: singles of the top's suit, or with no suit
                        ok = (bnd and (sets[SF_FSUIT, j] == fs or sets[SF_FSUIT, j] < 0)) or ext
                    elif suit_rule == SUIT_COLOUR and on_set and p == top and (not bigger or n <= ts):
                        # colour (fine point 3): a play of the top's rank must reverse its colours, at its size
                        rev_ok = (sets[SF_COLOUR, j] != 0 and sets[SF_RED, j] == top_black
                                  and sets[SF_BLACK, j] == top_red and (n >= ts if at_least else n == ts))
                        ok = rev_ok or ext
                    elif rank_cmp and sets[SF_RID, j] == top_rid and p != opt[O_TRANSPARENT] and p != wild_p:
                        cmp = 0
                        if suit_rule == SUIT_RANK:      # the strongest suit card decides (fine point 1)
                            weakest = sets[SF_LO, j]
                            key_s = (3 - weakest if weakest < 4 else -1) if rev else sets[SF_HI, j]
                            if key_s >= 0 and top_key >= 0:
                                cmp = 1 if key_s > top_key else (-1 if key_s < top_key else 0)
                            elif key_s >= 0 or top_key >= 0:
                                # one side holds a suit card and the other none (jokers: a transparent card
                                # counting as a joker keeps its suit): no tie, the suit card is higher
                                cmp = 1 if key_s >= 0 else -1
                        if cmp == 0 and opt[O_WILD_TIE] != TIE_EQUAL and has_wild:
                            mine = sets[SF_W, j] > 0
                            if mine != top_wild:
                                if opt[O_WILD_TIE] == TIE_NATURAL:
                                    win = (not mine) and top_wild
                                else:
                                    win = mine and not top_wild
                                cmp = 1 if win else -1
                        ok = cmp > 0 or (cmp == 0 and bnd) or ext
                    else:
                        ok = bnd or ext
                    if ok and first and not sets[SF_LOW, j]:
                        ok = False
                    if ok and lock != 0 and sets[SF_SUITS, j] != lock and p != wild_p:   # a lone joker ignores it
                        ok = False
                    if ok and holds(T, j, suited, per_kind, slots, wild, named):
                        legal[j] = 1
                        anything = True
            if m == 0:
                break
            m = (m - 1) & suits_held
    if opt[O_RUNS] and (lead or s8[TOP_RUN] > 0):
        anything = run_mask(G, T, W, suited, wild, lead, first) or anything
    three = opt[O_SPADE3]               # spade_three_beats_joker: the single 3S on a lone joker, whatever the lock
    if three >= 0 and on_set and top == opt[O_WILD_SINGLE] and ts == 1:
        if holds(T, three, suited, per_kind, slots, wild, named):
            legal[three] = 1
            anything = True
    legal[0] = 1 if (may_pass(G, T, lead) and not (opt[O_COMPULSORY] and anything)) else 0


@inlined
def run_mask(G, T, W, suited, wild, lead, first):
    """Runs the player can make (a natural card at least, wild cards for the rest) that lead, or beat the
    run on top: the same length and a higher compared card in the current order. Returns whether any."""
    s8, hands, legal = G[G_S8], G[G_HANDS], G[G_LEGAL]
    opt, card, play, runs = T[T_OPT], T[T_CARD], T[T_PLAY], T[T_RUNS]
    NNAT, Js, Jr = opt[O_NNAT], opt[O_JS], opt[O_JR]
    C = card.shape[1]
    cur = s8[CURRENT]
    pres = W[W_PRES]                                     # natural non-wild cards held by (suit, rank position)
    if opt[O_HAS_HIGH]:                              # (high cards are natural, but not in held's suited)
        for i in range(4 * NNAT + 1):
            pres[i] = 0
        for c in range(C):
            if hands[cur, c] and card[C_NATPOS, c] >= 0:
                pres[card[C_NATPOS, c]] = 1
    else:
        for s in range(4):
            for k in range(NNAT):
                pres[s * NNAT + k] = 1 if suited[k, s] > 0 else 0
        pres[4 * NNAT] = 0
    held_before = 0                                  # pres[i] := natural cards held at positions before i
    for i in range(4 * NNAT + 1):
        here = pres[i]
        pres[i] = held_before
        held_before += here
    rev = order_in_force(T, s8)
    top_run = s8[TOP_RUN]
    top_str = play[PL_STR0 + rev, max(s8[TOP_RANK], 0)]
    has_wild = opt[O_HAS_WILD] != 0
    named = opt[O_JOKER_NAMED] != 0                  # the run names the joker's place (R_JPOS)
    by_place = opt[O_CLEAR_ABOVE] != 0 or opt[O_RUN_ENDS] != 0
    top_lo = s8[TOP_LO] - 1
    lock = s8[LOCK] if opt[O_SUIT_LOCK] else 0
    anything = False
    i = 0
    while i < Jr:                                    # by suit, then length, shortest first (consts.py)
        L = runs[R_LEN, i]
        s = runs[R_SUIT, i]
        if L > pres[(s + 1) * NNAT] - pres[s * NNAT] + wild:     # longer than the suit's cards and wild cards
            i = runs[R_NEXT_SUIT, i]
            continue
        if not lead and L != top_run:                # beat a run with one of its length
            i = runs[R_NEXT_SUIT, i] if L > top_run else runs[R_NEXT_LEN, i]
            continue
        if named:                                    # its natural places held but the joker's, and the joker
            base = s * NNAT + runs[R_NLO, i]
            nn = runs[R_NN, i]
            nat = pres[base + nn] - pres[base]
            if nat + min(wild, 1) < nn:              # two natural places missing, or one and no joker: no run of
                i = runs[R_NEXT_LO, i]               # the window (its rows differ by the joker's place only)
                continue
            jp = runs[R_JPOS, i]
            if jp == NO_JOKER:
                ok = nat == nn
            else:
                if 0 <= jp < NNAT:
                    nat -= pres[s * NNAT + jp + 1] - pres[s * NNAT + jp]
                    nn -= 1
                ok = wild > 0 and nat == nn
        else:
            base = s * NNAT + runs[R_LOPOS, i]
            nat = pres[base + L] - pres[base]           # a run never crosses from one suit to the next
            ok = nat > 0 and ((nat >= L - wild) if has_wild else nat == L)
        if ok and not lead:
            if by_place:                             # by places in rank_order (virtual ends included)
                lo_i = runs[R_LO, i]
                if opt[O_CLEAR_ABOVE]:               # its lowest card above the top's highest (reversed: below)
                    ok = lo_i > top_lo + L - 1 if rev == 0 else lo_i + L - 1 < top_lo
                else:
                    ok = lo_i > top_lo if rev == 0 else lo_i < top_lo
            else:
                ok = runs[R_STR0 + rev, i] > top_str
        if ok and lock != 0 and (1 << s) != lock:
            ok = False
        if ok and first and not runs[R_LOW, i]:
            ok = False
        if ok:
            legal[Js + 1 + i] = 1
            anything = True
        i += 1
    return anything


@inlined
def card_exchange_mask(G, T, W):
    """Card-level give-backs and trades: any one card held (a single's id; a wild card by its suit where
    sets name their wild cards' suits, else the WILD single)."""
    s8, legal = G[G_S8], G[G_LEGAL]
    opt, sets = T[T_OPT], T[T_SETS]
    suited, per_kind, slots, wild = held(G, T, s8[CURRENT], W)
    named = opt[O_NAMED_WILD] != 0
    for a in range(opt[O_A]):
        legal[a] = 0
    for j in range(1, opt[O_JS] + 1):
        if sets[SF_N, j] == 1 and holds(T, j, suited, per_kind, slots, wild, named):
            legal[j] = 1


@inlined
def card_claim_mask(G, T, W):
    """quick_clear, card-level: decline, or claim the set of every natural card of the rank held."""
    s8, legal = G[G_S8], G[G_LEGAL]
    opt, play, sets = T[T_OPT], T[T_PLAY], T[T_SETS]
    r = s8[CLAIM_RANK]
    suited, per_kind, slots, wild = held(G, T, s8[CURRENT], W)
    k = play[PL_KIND, r]
    for a in range(opt[O_A]):
        legal[a] = 0
    legal[0] = 1
    j0 = play[PL_SET_START, r]
    for j in range(j0, j0 + play[PL_SET_LEN, r]):
        if sets[SF_W, j] != 0:
            continue
        same = True
        if sets[SF_SUITLESS, j]:
            same = sets[SF_NEED0, j] == per_kind[k]
        else:
            for s in range(4):
                if sets[SF_NEED0 + s, j] != suited[k, s]:
                    same = False
        if same:
            legal[j] = 1
            return


@inlined
def take_wild(G, T, seat, m, sel, n):
    """Add the ``m`` least wild cards ``seat`` holds to the card list ``sel[:n]``; returns the new length."""
    hands = G[G_HANDS]
    kind = T[T_KIND]
    for k in range(kind.shape[1]):
        if kind[K_WILD, k]:
            for c in range(kind[K_START, k], kind[K_START, k] + kind[K_COUNT, k]):
                if m > 0 and hands[seat, c]:
                    sel[n] = c
                    n += 1
                    m -= 1
    return n



@inlined
def select(G, T, seat, a, sel):
    """The cards card-level action ``a`` takes from ``seat``, as a list ``sel``: its named natural cards (the
    first copy held of each), then its wild cards: the least held of each named suit, or the least wild
    cards held. Returns (cards, wild cards among them)."""
    hands = G[G_HANDS]
    opt, act, card, play, kind, ks = T[T_OPT], T[T_ACT], T[T_CARD], T[T_PLAY], T[T_KIND], T[T_KS]
    sets, runs = T[T_SETS], T[T_RUNS]
    D = opt[O_DECKS]
    n = 0
    is_run = a > opt[O_JS]
    jp = NO_JOKER
    if is_run:
        i = a - opt[O_JS] - 1
        s, lo = runs[R_SUIT, i], runs[R_NLO, i]
        jp = runs[R_JPOS, i]
        for x in range(lo, lo + runs[R_NN, i]):
            c0 = ks[x, s]
            if c0 < 0 or x == jp:
                continue
            for c in range(c0, c0 + D):
                if hands[seat, c]:
                    sel[n] = c
                    n += 1
                    break
    else:
        k = play[PL_KIND, sets[SF_P, a]]
        if k >= 0:
            if sets[SF_SUITLESS, a]:
                m = sets[SF_NEED0, a]
                for c in range(kind[K_START, k], kind[K_START, k] + kind[K_COUNT, k]):
                    if m > 0 and hands[seat, c]:
                        sel[n] = c
                        n += 1
                        m -= 1
            else:
                for s in range(4):
                    m = sets[SF_NEED0 + s, a]
                    c0 = ks[k, s]
                    if m == 0 or c0 < 0:
                        continue
                    for c in range(c0, c0 + D):
                        if m > 0 and hands[seat, c]:
                            sel[n] = c
                            n += 1
                            m -= 1
    n_nat = n
    if opt[O_HAS_WILD]:
        if opt[O_JOKER_NAMED] and is_run:       # the joker, where the run names its place
            n = take_wild(G, T, seat, 1 if jp != NO_JOKER else 0, sel, n)
        elif opt[O_NAMED_WILD] and not is_run:   # the wild cards the set names (a copy held of each)
            for s in range(sets.shape[0] - SF_WS0):
                m = sets[SF_WS0 + s, a]
                for k in range(kind.shape[1]):
                    if m > 0 and kind[K_WILD, k]:
                        for c in range(kind[K_START, k], kind[K_START, k] + kind[K_COUNT, k]):
                            if m > 0 and card[C_SLOT, c] == s and hands[seat, c]:
                                sel[n] = c
                                n += 1
                                m -= 1
        else:                                  # the least wild cards held for the rest of its size
            n = take_wild(G, T, seat, act[A_SIZE, a] - n, sel, n)
    return n, n - n_nat
