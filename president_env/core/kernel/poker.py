"""Rule book section 8, ``combinations poker``: a claim, then its cards picked one by one (one game).

docs/rules.md choices 41 to 48. With no claim pending the player passes or claims a combination it can
complete from its hand that leads or beats the top; after a claim it picks cards, each pick keeping the
claim completable (and the play higher than the top); the play is made with the last pick.
"""

from __future__ import annotations

from .fields import (
    A_PICK,
    C_FIRST,
    C_LOWEST,
    C_NAME,
    C_SUIT,
    CL_BOMB,
    CL_KEY,
    CL_KEY2,
    CL_KIND,
    CL_N,
    CL_STR0,
    CL_W0,
    CURRENT,
    FIRST_LEAD,
    FOUR_BOMB,
    G_C8,
    G_HANDS,
    G_I16,
    G_LEGAL,
    G_S8,
    O_A,
    O_COMPULSORY,
    O_EQUAL_RANK_BEATS,
    O_FOUR,
    O_LOWEST0,
    O_NRP,
    O_U,
    O_X,
    PICKED,
    PK_FIRST,
    PK_FIVE,
    PK_FLUSH,
    PK_FOUR,
    PK_FULL_HOUSE,
    PK_R,
    PK_S,
    PK_SET,
    PK_STRAIGHT,
    PK_STRAIGHT_FLUSH,
    PK_TWO_PAIR,
    PK_WILD_SET,
    POKER_CLAIM,
    T_ACT,
    T_CARD,
    T_CLAIMS,
    T_OPT,
    T_PICKS,
    TOP_CARDS,
    TOP_CLAIM,
    W_NAMES,
    W_PICKED,
)
from .jit import inlined
from .legal import order_in_force


@inlined
def poker_choice(G, T, a):
    """A claim (``1 <= a <= X``) is noted and its picks start; a pick takes the next copy of its card held
    into ``picked``. Returns True when the claim's last card is picked: the play is made now."""
    s8, c8, hands, i16 = G[G_S8], G[G_C8], G[G_HANDS], G[G_I16]
    opt, act, card, claims, picks = T[T_OPT], T[T_ACT], T[T_CARD], T[T_CLAIMS], T[T_PICKS]
    C = card.shape[1]
    if a <= opt[O_X]:
        i16[POKER_CLAIM] = a
        for c in range(C):
            c8[PICKED, c] = 0
        return False
    cur = s8[CURRENT]
    first = picks[PK_FIRST, act[A_PICK, a]]
    for c in range(first, C):
        if card[C_FIRST, c] == first and hands[cur, c] and not c8[PICKED, c]:
            c8[PICKED, c] = 1
            break
    n = 0
    for c in range(C):
        n += c8[PICKED, c]
    return n == claims[CL_N, i16[POKER_CLAIM]]


@inlined
def poker_exchange_mask(G, T):
    """Poker give-backs and trades: the pick id of any card name held."""
    s8, hands, legal = G[G_S8], G[G_HANDS], G[G_LEGAL]
    opt, card, picks = T[T_OPT], T[T_CARD], T[T_PICKS]
    X = opt[O_X]
    cur = s8[CURRENT]
    for a in range(opt[O_A]):
        legal[a] = 0
    for u in range(picks.shape[1]):
        first = picks[PK_FIRST, u]
        for c in range(first, card.shape[1]):
            if card[C_FIRST, c] != first:
                break
            if hands[cur, c]:
                legal[1 + X + u] = 1
                break


# --------------------------------------------------------------------------- counting (docs/rules.md 43-45)
# The mask counts cards; it never enumerates subsets of a hand. A count table ``cnt`` (NR + 2, 5) holds:
#   cnt[r, s]        natural cards of natural rank index r and suit place s,   cnt[r, ALL]   of rank r;
#   cnt[NAT, s]      natural cards of suit s (NAT = NR),                       cnt[NAT, ALL] naturals in all;
#   cnt[NR + 1, s]   wild cards of suit s,                                     cnt[NR + 1, ALL] wild in all.
# ``S`` counts the cards already picked (which a claim must use), ``A`` those still available.
# The counting method is that of the NumPy engine this replaced (core/poker_mask.py, removed), ported game by game.
# The helpers are inlined (numba inline="always"): called per claim or per card name, a call that passes
# the count arrays costs more than the check itself (measured: the mask takes about half the time inlined).
ALL = 4


@inlined
def _tally(cnt, T, c, d):
    """Add ``d`` copies of card ``c`` to the count table ``cnt``."""
    card, picks = T[T_CARD], T[T_PICKS]
    nr = cnt.shape[0] - 2
    u = card[C_NAME, c]
    r, s = picks[PK_R, u], picks[PK_S, u]
    if r < 0:                      # a wild card: by its printed suit
        cnt[nr + 1, s] += d
        cnt[nr + 1, ALL] += d
    else:
        cnt[r, s] += d
        cnt[r, ALL] += d
        cnt[nr, s] += d
        cnt[nr, ALL] += d


@inlined
def _ok_range(n, lo, hi, sw, aw):
    """Some x naturals, lo <= x <= hi, x >= 1, with n - x wild cards: the ``sw`` picked (all used) and
    some of the ``aw`` available."""
    return max(lo, n - sw - aw, 1) <= min(hi, n - sw)


@inlined
def _below(cnt, q, s, rev):
    """Natural cards of suit ``s`` at or below rank ``q`` in the order in force (a flush's cards)."""
    nr = cnt.shape[0] - 2
    t = 0
    if rev:
        for r in range(q, nr):
            t += cnt[r, s]
    else:
        for r in range(q + 1):
            t += cnt[r, s]
    return t


@inlined
def _other_rank(S, q):
    """(how many, the first): the picked natural ranks other than ``q`` (a full house's pair)."""
    nr = S.shape[0] - 2
    n, p = 0, -1
    for r in range(nr):
        if r != q and S[r, ALL] > 0:
            if p < 0:
                p = r
            n += 1
    return n, p


@inlined
def _best_other(A, q):
    """The most cards, up to 2, available of one natural rank other than ``q`` (0 if none)."""
    nr = A.shape[0] - 2
    m = 0
    for r in range(nr):
        if r != q:
            m = max(m, min(2, A[r, ALL]))
    return m


# --------------------------------------------------------------------------- the claim step (43)
# Can claim ``x`` be completed from the available cards ``A``, using every picked card of ``S``?

@inlined
def _claim_set(n, q, S, A):
    """Single, pair, three, five of q: naturals of q or wild cards, at least one natural."""
    nr = S.shape[0] - 2
    sq, aq = S[q, ALL], A[q, ALL]
    return S[nr, ALL] == sq and _ok_range(n, sq, sq + aq, S[nr + 1, ALL], A[nr + 1, ALL])


@inlined
def _claim_wild(n, S, A):
    """n wild cards, nothing else."""
    nr = S.shape[0] - 2
    sw, aw = S[nr + 1, ALL], A[nr + 1, ALL]
    return S[nr, ALL] == 0 and sw <= n and sw + aw >= n


@inlined
def _claim_two_pair(h, lo, S, A):
    """Two pair (h, lo): at most two naturals of each, wild cards for the rest."""
    nr = S.shape[0] - 2
    sh, sl = S[h, ALL], S[lo, ALL]
    hi = min(2, sh + A[h, ALL]) + min(2, sl + A[lo, ALL])
    return (S[nr, ALL] == sh + sl and sh <= 2 and sl <= 2
            and _ok_range(4, sh + sl, hi, S[nr + 1, ALL], A[nr + 1, ALL]))


@inlined
def _claim_four(q, S, A):
    """Four of q (naturals of q or wild) and any fifth card: at most one other natural."""
    nr = S.shape[0] - 2
    sq, aq = S[q, ALL], A[q, ALL]
    so, ao = S[nr, ALL] - sq, A[nr, ALL] - aq
    return so <= 1 and _ok_range(5, sq + so, sq + aq + min(1, so + ao), S[nr + 1, ALL], A[nr + 1, ALL])


@inlined
def _claim_full_house(q, S, A):
    """Full house of q: three of q, a pair of one other rank p (the picked one, or the best available)."""
    nr = S.shape[0] - 2
    n_other, p = _other_rank(S, q)
    sq, aq = S[q, ALL], A[q, ALL]
    sp = S[nr, ALL] - sq
    if p >= 0:
        bmax = min(2, sp + A[p, ALL])
    else:
        bmax = _best_other(A, q)
    return (n_other <= 1 and sq <= 3 and sp <= 2
            and _ok_range(5, sq + sp, min(3, sq + aq) + bmax, S[nr + 1, ALL], A[nr + 1, ALL]))


@inlined
def _claim_straight(W, S, A):
    """Straight on window W: one card of each rank (natural or wild), no natural outside the window."""
    nr = S.shape[0] - 2
    lo = hi = 0
    for w in range(5):
        sw_, aw_ = S[W[w], ALL], A[W[w], ALL]
        if sw_ > 1:
            return False
        lo += sw_
        if sw_ == 0 and aw_ > 0:
            hi += 1
    hi += lo
    return lo == S[nr, ALL] and _ok_range(5, lo, hi, S[nr + 1, ALL], A[nr + 1, ALL])


@inlined
def _claim_straight_flush(W, S, A):
    """Straight flush on window W: a straight of one suit s (wild cards of s only)."""
    nr = S.shape[0] - 2
    stot = S[nr, ALL] + S[nr + 1, ALL]
    for s in range(4):
        lo = hi = 0
        ok = True
        for w in range(5):
            sw_, aw_ = S[W[w], s], A[W[w], s]
            if sw_ > 1:
                ok = False
            lo += sw_
            if sw_ == 0 and aw_ > 0:
                hi += 1
        hi += lo
        if ok and stot == lo + S[nr + 1, s] and _ok_range(5, lo, hi, S[nr + 1, s], A[nr + 1, s]):
            return True
    return False


@inlined
def _claim_flush(q, S, A, rev):
    """Flush with highest rank q: five cards of one suit s (wild cards of s), naturals at or below q in the
    order in force, q a natural of the play or stood for by a wild card."""
    nr = S.shape[0] - 2
    stot = S[nr, ALL] + S[nr + 1, ALL]
    for s in range(4):
        sle, ale = _below(S, q, s, rev), _below(A, q, s, rev)
        sw, aw = S[nr + 1, s], A[nr + 1, s]
        if not (stot == S[nr, s] + sw and sle == S[nr, s]):   # every picked card of suit s, at or below q
            continue
        if S[q, s] > 0 or sw > 0:                               # q is there already (or a wild card for it)
            ok = _ok_range(5, sle, sle + ale, sw, aw)
        else:                                                   # q still to come: a natural q, or a wild card
            ok = ((A[q, s] > 0 and _ok_range(5, sle + 1, sle + ale, sw, aw))
                  or (aw > 0 and _ok_range(5, sle, sle + ale, sw + 1, aw - 1)))
        if ok:
            return True
    return False


@inlined
def _claim_ok(claims, x, S, A, rev):
    """Whether claim ``x`` can be completed from ``A`` using every picked card of ``S``."""
    k, n, q = claims[CL_KIND, x], claims[CL_N, x], claims[CL_KEY, x]
    if k == PK_SET or k == PK_FIVE:
        return _claim_set(n, q, S, A)
    if k == PK_WILD_SET:
        return _claim_wild(n, S, A)
    if k == PK_TWO_PAIR:
        return _claim_two_pair(q, claims[CL_KEY2, x], S, A)
    if k == PK_FOUR:
        return _claim_four(q, S, A)
    if k == PK_FULL_HOUSE:
        return _claim_full_house(q, S, A)
    if k == PK_STRAIGHT:
        return _claim_straight(claims[CL_W0:CL_W0 + 5, x], S, A)
    if k == PK_STRAIGHT_FLUSH:
        return _claim_straight_flush(claims[CL_W0:CL_W0 + 5, x], S, A)
    if k == PK_FLUSH:
        return _claim_flush(q, S, A, rev)
    return False


# --------------------------------------------------------------------------- the pick step (45)
# Does picking the next copy of card name (r, s) (r = -1: a wild card of suit s) leave claim ``x``
# completable? ``S`` is what is picked already (consistent with the claim: every earlier pick passed this
# test); whether a copy is available is the caller's part. ``nat``/``nw``: the name is natural/wild (0/1).

@inlined
def _pick_set(n, q, r, S, A):
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    isq = 1 if r == q else 0
    sq, aq = S[q, ALL] + isq, A[q, ALL] - isq
    return (S[nr, ALL] + 1 - nw == sq
            and _ok_range(n, sq, sq + aq, S[nr + 1, ALL] + nw, A[nr + 1, ALL] - nw))


@inlined
def _pick_wild(n, r, S, A):
    nr = S.shape[0] - 2
    if r >= 0:
        return False
    sw, aw = S[nr + 1, ALL] + 1, A[nr + 1, ALL] - 1
    return S[nr, ALL] == 0 and sw <= n and sw + aw >= n


@inlined
def _pick_two_pair(h, lo, r, S, A):
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    ih, il = (1 if r == h else 0), (1 if r == lo else 0)
    sh, sl = S[h, ALL] + ih, S[lo, ALL] + il
    hi = min(2, sh + A[h, ALL] - ih) + min(2, sl + A[lo, ALL] - il)
    return (S[nr, ALL] + 1 - nw == sh + sl and sh <= 2 and sl <= 2
            and _ok_range(4, sh + sl, hi, S[nr + 1, ALL] + nw, A[nr + 1, ALL] - nw))


@inlined
def _pick_four(q, r, S, A):
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    isq = 1 if r == q else 0
    oth = 1 if (r >= 0 and r != q) else 0          # the candidate is the fifth card
    sq, aq = S[q, ALL] + isq, A[q, ALL] - isq
    so = S[nr, ALL] - S[q, ALL] + oth
    ao = A[nr, ALL] - A[q, ALL] - oth
    return so <= 1 and _ok_range(5, sq + so, sq + aq + min(1, so + ao), S[nr + 1, ALL] + nw, A[nr + 1, ALL] - nw)


@inlined
def _pick_full_house(q, r, S, A):
    """The candidate joins the three (q), the pair (the picked other rank, or it becomes the pair's
    rank), or is wild."""
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    n_other, p = _other_rank(S, q)
    isq = 1 if r == q else 0
    sq, aq = S[q, ALL] + isq, A[q, ALL] - isq
    sp0 = S[nr, ALL] - S[q, ALL]
    other = r >= 0 and r != q                       # the candidate is a pair card
    if other:
        if p >= 0 and r != p:                       # a third rank
            return False
        sp = sp0 + 1
        bmax = min(2, sp0 + A[r, ALL])              # (picked + candidate) + the rest of its rank
    else:
        sp = sp0
        bmax = min(2, sp0 + A[p, ALL]) if p >= 0 else _best_other(A, q)
    return (n_other <= 1 and sq <= 3 and sp <= 2
            and _ok_range(5, sq + sp, min(3, sq + aq) + bmax, S[nr + 1, ALL] + nw, A[nr + 1, ALL] - nw))


@inlined
def _pick_straight(W, r, S, A):
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    lo = hi = 0
    free = False                                    # the candidate's rank is in the window, not yet covered
    for w in range(5):
        sw_, aw_ = S[W[w], ALL], A[W[w], ALL]
        lo += sw_
        if sw_ == 0 and aw_ > 0:
            hi += 1
        if W[w] == r and sw_ == 0:
            free = True
    hi += lo
    return (nw == 1 or free) and _ok_range(5, lo + 1 - nw, hi, S[nr + 1, ALL] + nw, A[nr + 1, ALL] - nw)


@inlined
def _pick_straight_flush(W, r, s, S, A):
    """As a straight, in the candidate's suit ``s``: every picked card must be of that suit."""
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    lo = hi = 0
    free = False
    for w in range(5):
        sw_, aw_ = S[W[w], s], A[W[w], s]
        lo += sw_
        if sw_ == 0 and aw_ > 0:
            hi += 1
        if W[w] == r and sw_ == 0:
            free = True
    hi += lo
    one_suit = S[nr, ALL] + S[nr + 1, ALL] == lo + S[nr + 1, s]
    return (one_suit and (nw == 1 or free)
            and _ok_range(5, lo + 1 - nw, hi, S[nr + 1, s] + nw, A[nr + 1, s] - nw))


@inlined
def _pick_flush(q, r, s, S, A, rev):
    """In the candidate's suit ``s``: a natural at or below q, or a wild card of s; q still reachable."""
    nr = S.shape[0] - 2
    nw = 1 if r < 0 else 0
    below, a_below = _below(S, q, s, rev), _below(A, q, s, rev)
    valid = S[nr, ALL] + S[nr + 1, ALL] == S[nr, s] + S[nr + 1, s] and below == S[nr, s]
    if rev:
        le = r >= 0 and nr - 1 - r <= nr - 1 - q
    else:
        le = r >= 0 and r <= q
    if not (valid and (nw == 1 or le)):
        return False
    lo = below + (1 if le else 0)
    hi = below + a_below
    sw, aw = S[nr + 1, s] + nw, A[nr + 1, s] - nw
    isq = r >= 0 and r == q
    if S[q, s] > 0 or S[nr + 1, s] > 0 or nw == 1 or isq:        # q is there (or a wild card for it)
        return _ok_range(5, lo, hi, sw, aw)
    aq = A[q, s]
    return (aq > 0 and _ok_range(5, lo + 1, hi, sw, aw)) or (aw > 0 and _ok_range(5, lo, hi, sw + 1, aw - 1))


@inlined
def _pick_ok(claims, x, r, s, S, A, rev):
    """Whether picking a card named (r, s) leaves claim ``x`` completable."""
    k, n, q = claims[CL_KIND, x], claims[CL_N, x], claims[CL_KEY, x]
    if k == PK_SET or k == PK_FIVE:
        return _pick_set(n, q, r, S, A)
    if k == PK_WILD_SET:
        return _pick_wild(n, r, S, A)
    if k == PK_TWO_PAIR:
        return _pick_two_pair(q, claims[CL_KEY2, x], r, S, A)
    if k == PK_FOUR:
        return _pick_four(q, r, S, A)
    if k == PK_FULL_HOUSE:
        return _pick_full_house(q, r, S, A)
    if k == PK_STRAIGHT:
        return _pick_straight(claims[CL_W0:CL_W0 + 5, x], r, S, A)
    if k == PK_STRAIGHT_FLUSH:
        return _pick_straight_flush(claims[CL_W0:CL_W0 + 5, x], r, s, S, A)
    if k == PK_FLUSH:
        return _pick_flush(q, r, s, S, A, rev)
    return False


# --------------------------------------------------------------------------- the mask (45)
@inlined
def _top_suit(G, T, rev):
    """The top's best suit as a strength: its strongest suit place, or reversed under a revolution
    3 - its weakest (as the engine it replaced did: a card of suit -1 would count as -1 and as 4)."""
    c8 = G[G_C8]
    card = T[T_CARD]
    hi, lo = -1, 4
    for c in range(card.shape[1]):
        if c8[TOP_CARDS, c]:
            hi = max(hi, card[C_SUIT, c])
            lo = min(lo, card[C_SUIT, c])
    return 3 - lo if rev else hi


@inlined
def _legal_picks(claims, picks, x, S, A, rev, avail, bind, top_suit, equal_beats, lowest, out):
    """Into ``out[u]`` (0/1): picking the next copy of card name ``u`` (one ``avail``) keeps claim ``x``
    completable, under the first-pick rules: with ``bind`` (the top's own claim) a card whose suit beats
    ``top_suit``, the top's best suit (or equals it, with ``equal_beats``); with ``lowest`` >= 0 (the first
    lead) that card name only. Returns how many names are legal."""
    n = 0
    for u in range(picks.shape[1]):
        out[u] = 0
        if not avail[u] or (lowest >= 0 and u != lowest):
            continue
        if bind:
            suit = 3 - picks[PK_S, u] if rev else picks[PK_S, u]
            if suit < top_suit or (suit == top_suit and not equal_beats):
                continue
        if _pick_ok(claims, x, picks[PK_R, u], picks[PK_S, u], S, A, rev):
            out[u] = 1
            n += 1
    return n


@inlined
def poker_mask(G, T, W):
    """The legal claims or picks of the player to act (docs/rules.md choice 45), into ``legal[b]``."""
    s8, c8, hands, legal, i16 = G[G_S8], G[G_C8], G[G_HANDS], G[G_LEGAL], G[G_I16]
    opt, card, claims, picks = T[T_OPT], T[T_CARD], T[T_CLAIMS], T[T_PICKS]
    X, U, NR, C = opt[O_X], opt[O_U], opt[O_NRP], card.shape[1]
    cur = s8[CURRENT]
    rev = order_in_force(T, s8) != 0
    top = i16[TOP_CLAIM]
    lead = top == 0
    claim = i16[POKER_CLAIM]
    first = s8[FIRST_LEAD] != 0 and lead
    for a in range(opt[O_A]):
        legal[a] = 0
    # count the picked cards (S) and the available ones (A: held, not picked), and the names available
    # (in the workspace: S, A and the first lead's S0, A0 (NR + 2, 5); the names available and legal (U,))
    S, A, S0, A0 = W[W_PICKED][0], W[W_PICKED][1], W[W_PICKED][2], W[W_PICKED][3]
    avail, names = W[W_NAMES][0], W[W_NAMES][1]
    for r in range(NR + 2):
        for j in range(5):
            S[r, j] = 0
            A[r, j] = 0
    for u in range(U):
        avail[u] = 0
        names[u] = 0
    none_picked = True
    for c in range(C):
        if c8[PICKED, c]:
            none_picked = False
            if claim > 0:
                _tally(S, T, c, 1)
        elif hands[cur, c]:
            _tally(A, T, c, 1)
            avail[card[C_NAME, c]] = True

    if claim > 0:
        # ------------------------------------------------ a claim is pending: the picks that keep it completable
        # the first pick of the top's own claim must beat the top's suit; that of the first lead is the lowest card
        bind = none_picked and claim == top
        lowest = card[C_NAME, opt[O_LOWEST0]] if none_picked and first else -1
        _legal_picks(claims, picks, claim, S, A, rev, avail, bind, _top_suit(G, T, rev) if bind else 0,
                     opt[O_EQUAL_RANK_BEATS] != 0, lowest, names)
        for u in range(U):
            legal[1 + X + u] = names[u]
        return

    # ---------------------------------------------------- no claim pending: the claims, and the pass
    # (S is empty: no card is picked before a claim, but on the first lead the lowest card counts as picked)
    lowest_held = -1
    if first:
        for c in range(C):
            if card[C_LOWEST, c] and hands[cur, c] and not c8[PICKED, c]:   # either copy (two decks)
                lowest_held = c
                break
    if lowest_held >= 0:
        for r in range(NR + 2):
            for j in range(5):
                S0[r, j] = 0
                A0[r, j] = A[r, j]
        _tally(S0, T, lowest_held, 1)
        _tally(A0, T, lowest_held, -1)
    else:
        S0, A0 = S, A
    bomb_rule = opt[O_FOUR] == FOUR_BOMB
    str_row = CL_STR0 + (1 if rev else 0)
    n_top, str_top = claims[CL_N, top], claims[str_row, top]
    any_ok = False
    for x in range(1, X + 1):
        # beats (44, 46): a lead claims anything; a follow the top's count and higher, or a bomb
        beats = (lead or (claims[CL_N, x] == n_top and claims[str_row, x] > str_top)
                 or (bomb_rule and claims[CL_BOMB, x] != 0))
        if not (beats or x == top) or not _claim_ok(claims, x, S0, A0, rev):
            continue
        # the top's own claim: only with a completion holding a card whose suit beats the top's best suit
        if x == top and _legal_picks(claims, picks, x, S, A, rev, avail, True, _top_suit(G, T, rev),
                                     opt[O_EQUAL_RANK_BEATS] != 0, -1, names) == 0:
            continue
        legal[x] = 1
        any_ok = True
    # the pass: not on a lead; under compulsory_beat only when no claim is legal
    legal[0] = 1 if (not lead and not (opt[O_COMPULSORY] and any_ok)) else 0
