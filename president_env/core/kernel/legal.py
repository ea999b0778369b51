"""Rule book sections 3 to 5: which plays are legal (one game), on the rank-level table.

:func:`rank_intervals` works out, per play rank, the sizes the normal rules allow (*bound*: a
higher rank of the size the size rule wants, equal plays, wild ties, transparent sets) and
:func:`rank_extras` those the clearing and power rules add (*extra*: trumps, reset cards, bombs,
power plays, complete sets). The rank-level mask is their union capped by what the player holds;
the card-level and poker tables build on the same parts (:mod:`.cards`, :mod:`.poker`).

Rules with none of the options that widen the bound plays, and no extra plays (12 presets,
``president`` among them: ``opt[O_PLAIN_SETS]``), take :func:`plain_sets`, the same plays worked out in
one pass at a third of the cost; ``tests/test_plain_sets.py`` checks it against the general path on
every state of random games.
"""

from __future__ import annotations

from .fields import (
    CLAIM_RANK,
    COUNTS,
    CURRENT,
    ELEVEN_BACK,
    FIRST_LEAD,
    FOUR_BOMB,
    FOUR_REVOLUTION,
    G_LEGAL,
    G_PK8,
    G_S8,
    K_WILD,
    O_A,
    O_CARD_LEVEL,
    O_COMPLETE_SET,
    O_COMPULSORY,
    O_ELEVEN,
    O_EQUAL_RANK_BEATS,
    O_FOUR,
    O_HAS_EXTRAS,
    O_HAS_HIGH,
    O_HAS_POWER,
    O_HAS_RESET,
    O_HAS_TRUMP,
    O_HAS_WILD,
    O_K,
    O_LEAD_MAY_PASS,
    O_LOWEST_PLAY,
    O_PLAIN_SETS,
    O_POWER_FLOOR0,
    O_R,
    O_REV_RESET,
    O_RN,
    O_RUNS,
    O_S,
    O_SIZE_RULE,
    O_TRANSPARENT,
    O_WILD_TIE,
    PL_HIGH,
    PL_KIND,
    PL_RESET0,
    PL_STR0,
    PL_TRUMP,
    REVOLUTION,
    SIZE_AT_LEAST,
    SIZE_EQUAL,
    T_KIND,
    T_OPT,
    T_PLAY,
    T_POWER,
    TIE_EQUAL,
    TIE_NATURAL,
    TOP_COUNT,
    TOP_RANK,
    TOP_RUN,
    TOP_SIZE,
    TOP_WILD,
    W_CAP,
    W_EXTRA,
    W_HI,
    W_LO,
    W_NAT,
)
from .jit import inlined


@inlined
def order_in_force(T, s8):
    """0 in the normal order, 1 reversed: under a revolution, or an 11-back (``eleven_back``); both cancel.

    The one reader of the order in force: the rules functions ask it, never ``s8[REVOLUTION]``, which only
    the deal (reset), the play (a revolution flips it) and the observation (the flag as it stands) touch."""
    opt = T[T_OPT]
    r = 0
    if opt[O_FOUR] >= FOUR_REVOLUTION and s8[REVOLUTION]:
        r = 1
    if opt[O_ELEVEN] and s8[ELEVEN_BACK]:
        r = 1 - r
    return r


@inlined
def holdings(G, T, seat, nat):
    """Cards of each non-WILD play rank held by ``seat`` into ``nat`` (R,); returns its wild cards."""
    pk8 = G[G_PK8]
    opt, play, kind = T[T_OPT], T[T_PLAY], T[T_KIND]
    for r in range(opt[O_RN]):
        nat[r] = pk8[COUNTS, seat, play[PL_KIND, r]]
    wild = 0
    if opt[O_HAS_WILD]:
        for k in range(opt[O_K]):
            if kind[K_WILD, k]:
                wild += pk8[COUNTS, seat, k]
    return wild


@inlined
def rank_intervals(G, T, W):  # noqa: C901 - one block per option
    """The bound plays of the player to act (section 4: a higher rank of the size the size rule wants, equal
    plays, wild ties, transparent sets; on the rank-level table trumps too) as sizes ``lo[r]..hi[r]`` of each
    play rank, capped by what it holds (``cap[r]``: the largest set of the rank it can make) and, on the
    first lead, to the lowest card's rank (fine point 14). Returns (lead, first lead)."""
    s8 = G[G_S8]
    opt, play = T[T_OPT], T[T_PLAY]
    lo, hi, cap, nat = W[W_LO], W[W_HI], W[W_CAP], W[W_NAT]
    R, S, Rn = opt[O_R], opt[O_S], opt[O_RN]
    card_level = opt[O_CARD_LEVEL] != 0
    wild = holdings(G, T, s8[CURRENT], nat)
    has_wild = opt[O_HAS_WILD] != 0
    for r in range(Rn):                 # a natural rank: its cards and the wild cards; WILD: the wild cards
        cap[r] = nat[r] if not has_wild else (min(nat[r] + wild, S) if nat[r] > 0 else 0)
        if opt[O_HAS_HIGH] and play[PL_HIGH, r] and cap[r] > 1:
            cap[r] = 1                  # a high card is played only as a single
    if has_wild:
        cap[R - 1] = min(wild, S)          # an all-wild set of at most 4 x decks cards
    top = s8[TOP_RANK]
    lead = top < 0
    first = s8[FIRST_LEAD] != 0
    on_run = opt[O_RUNS] > 0 and s8[TOP_RUN] > 0
    ts = s8[TOP_SIZE]
    if on_run and ts > S + 1:
        ts = S + 1                      # a run longer than any set: no set size matches it
    rev = order_in_force(T, s8)
    top_str = play[PL_STR0 + rev, max(top, 0)]
    big = S + 1
    size_rule = opt[O_SIZE_RULE]
    erb = opt[O_EQUAL_RANK_BEATS] != 0
    wild_tie = opt[O_WILD_TIE] if (has_wild and not card_level) else TIE_EQUAL
    transparent = opt[O_TRANSPARENT]
    top_wild = s8[TOP_WILD] != 0
    trumps = opt[O_HAS_TRUMP] != 0 and not card_level
    for r in range(R):
        if lead:
            a, z = 1, big
        else:
            higher = play[PL_STR0 + rev, r] > top_str
            same = r == top
            ok = higher or (erb and same)
            if size_rule == SIZE_EQUAL:
                a, z = (ts, ts) if ok else (big, 0)
            elif size_rule == SIZE_AT_LEAST:
                a, z = (ts, big) if ok else (big, 0)
            else:                               # bigger_beats_any
                a, z = (ts if ok else ts + 1), big
            if wild_tie != TIE_EQUAL and same and r != Rn:
                # wild_tie (fine point 3): a natural and a wild set of one rank and size: the higher beats
                natural = r < Rn and nat[r] >= ts
                if natural != (not top_wild):
                    tie = (natural and top_wild) if wild_tie == TIE_NATURAL else (not natural and not top_wild)
                    if tie:
                        a, z = min(a, ts), max(z, ts)
                    else:
                        a = max(a, ts + 1)
            if r == transparent:                # beats any set of the size on top
                a, z = ts, max(z, ts)
            if trumps and play[PL_TRUMP, r] and higher:
                a, z = 1, big                   # any number of trumps on a lower rank
            if on_run:
                z = 0                           # a set never beats a run by the normal rules
        if z > cap[r]:
            z = cap[r]
        if first and r != opt[O_LOWEST_PLAY]:
            z = 0
        lo[r], hi[r] = max(a, 1), z
    return lead, first


@inlined
def rank_extras(G, T, W, lead):
    """The plays the clearing and power rules add (section 5), whatever the size rule, before the holdings
    cap them: ``extra[r, n - 1]`` for trumps (card-level), reset cards, power plays, bombs and complete sets.
    Returns whether the rules have any (``extra`` is only written then)."""
    s8 = G[G_S8]
    opt, play = T[T_OPT], T[T_PLAY]
    extra = W[W_EXTRA]
    if not opt[O_HAS_EXTRAS]:
        return False
    R, S = opt[O_R], opt[O_S]
    for r in range(R):
        for n in range(S):
            extra[r, n] = 0
    top = s8[TOP_RANK]
    on_run = opt[O_RUNS] > 0 and s8[TOP_RUN] > 0
    rev = order_in_force(T, s8)
    top_str = play[PL_STR0 + rev, max(top, 0)]
    if opt[O_CARD_LEVEL] and opt[O_HAS_TRUMP] and not lead:   # trumps: any number on a lower rank or a run
        for r in range(R):
            if play[PL_TRUMP, r] and play[PL_STR0 + rev, r] > top_str:
                for n in range(S):
                    extra[r, n] = 1
    if opt[O_HAS_RESET]:                        # a single reset card on anything
        rrow = PL_RESET0 + (order_in_force(T, s8) if opt[O_REV_RESET] else 0)
        for r in range(R):
            if play[rrow, r]:
                extra[r, 0] = 1
    if opt[O_HAS_POWER] and not lead and top_str < opt[O_POWER_FLOOR0 + rev]:
        power = T[T_POWER]                            # power plays on a set of a rank below every power rank
        ts = s8[TOP_SIZE]
        pt = 0 if ts > S else ts
        for r in range(R):
            for m in range(S):
                if power[r * (S + 1) + pt, m]:
                    extra[r, m] = 1
    if opt[O_FOUR] == FOUR_BOMB:                # four or more cards of one rank on anything
        for r in range(R):
            for n in range(4, S + 1):
                extra[r, n - 1] = 1
    if opt[O_COMPLETE_SET] and not lead and not on_run:   # cards of the top's rank reaching 4 x decks
        for n in range(max(S - s8[TOP_COUNT], 1), S + 1):
            extra[top, n - 1] = 1
    return True


@inlined
def plain_sets(G, T, W):
    """The rank-level legal plays where the rules have none of the options that widen section 4 (wild cards,
    high cards, trumps, a transparent rank, runs, section 5's extra plays; the size rule ``equal``): a lead
    plays any set it holds (the first lead one of the lowest card's rank), any other play is a set of the
    top's size of a higher rank (or of its rank, with equal_rank_beats). The plays :func:`rank_intervals`
    gives for such rules, in one pass over the ranks. Returns (lead, whether there is a play)."""
    s8, legal = G[G_S8], G[G_LEGAL]
    opt, play = T[T_OPT], T[T_PLAY]
    R, S = opt[O_R], opt[O_S]
    nat = W[W_NAT]
    holdings(G, T, s8[CURRENT], nat)
    top = s8[TOP_RANK]
    anything = False
    if top < 0:                                 # a lead
        first = s8[FIRST_LEAD] != 0
        low = opt[O_LOWEST_PLAY]
        for r in range(R):
            if first and r != low:
                continue
            for n in range(1, nat[r] + 1):
                legal[r * S + n] = 1
                anything = True
        return True, anything
    rev = order_in_force(T, s8)
    ts = s8[TOP_SIZE]
    top_str = play[PL_STR0 + rev, top]
    erb = opt[O_EQUAL_RANK_BEATS] != 0
    for r in range(R):
        ok = ((play[PL_STR0 + rev, r] > top_str) | (erb & (r == top))) & (nat[r] >= ts)
        legal[r * S + ts] = ok
        anything |= ok
    return False, anything


@inlined
def rank_mask(G, T, W):
    """The rank-level legal plays of the player to act into ``legal[b]`` (id = 1 + rank * S + size - 1):
    its bound plays, and the extra plays it holds the cards for."""
    legal = G[G_LEGAL]
    opt = T[T_OPT]
    R, S = opt[O_R], opt[O_S]
    lo, hi, cap, extra = W[W_LO], W[W_HI], W[W_CAP], W[W_EXTRA]
    for a in range(opt[O_A]):
        legal[a] = 0
    if opt[O_PLAIN_SETS]:
        lead, anything = plain_sets(G, T, W)
        legal[0] = 1 if (may_pass(G, T, lead) and not (opt[O_COMPULSORY] and anything)) else 0
        return
    lead, first = rank_intervals(G, T, W)
    anything = False
    for r in range(R):
        for n in range(lo[r], hi[r] + 1):
            legal[r * S + n] = 1
            anything = True
    if rank_extras(G, T, W, lead):
        low = opt[O_LOWEST_PLAY]
        for r in range(R):
            if first and r != low:              # fine point 14: the first lead holds the lowest card
                continue
            for n in range(1, cap[r] + 1):
                if extra[r, n - 1]:
                    legal[r * S + n] = 1
                    anything = True
    legal[0] = 1 if (may_pass(G, T, lead) and not (opt[O_COMPULSORY] and anything)) else 0


@inlined
def may_pass(G, T, lead):
    """Whether the player to act may pass (before compulsory_beat): not on a lead, but with lead_may_pass a lead
    other than the first one, which must play the lowest card."""
    if not lead:
        return True
    return T[T_OPT][O_LEAD_MAY_PASS] != 0 and G[G_S8][FIRST_LEAD] == 0


@inlined
def exchange_mask(G, T, W):
    """Rank-level give-backs and trades: one card of any rank held (size-1 ids)."""
    legal = G[G_LEGAL]
    opt = T[T_OPT]
    S, Rn = opt[O_S], opt[O_RN]
    nat = W[W_NAT]
    wild = holdings(G, T, G[G_S8][CURRENT], nat)
    for a in range(opt[O_A]):
        legal[a] = 0
    for r in range(Rn):
        if nat[r] > 0:
            legal[1 + r * S] = 1
    if opt[O_HAS_WILD] and wild > 0:
        legal[1 + Rn * S] = 1


@inlined
def claim_mask(G, T):
    """quick_clear, rank-level: the player asked may claim every natural card of the rank held, or decline."""
    s8, pk8, legal = G[G_S8], G[G_PK8], G[G_LEGAL]
    opt, play = T[T_OPT], T[T_PLAY]
    r = s8[CLAIM_RANK]
    n = pk8[COUNTS, s8[CURRENT], play[PL_KIND, r]]
    for a in range(opt[O_A]):
        legal[a] = 0
    legal[0] = 1
    legal[1 + r * opt[O_S] + n - 1] = 1


@inlined
def over_mask(G, T):
    """A finished session allows only pass."""
    legal = G[G_LEGAL]
    for a in range(T[T_OPT][O_A]):
        legal[a] = 0
    legal[0] = 1
