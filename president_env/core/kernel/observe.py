"""The observation of one player (one game): :func:`observation.observe`, compiled.

:func:`observe_game` writes the (D,) float32 row of game ``b`` as seen by ``player`` (a player
number; its seat is where ``seat_player`` holds it), one piece after another in the order of
``observation.layout``. Each piece starts at its offset in the ``obs`` table; a piece the rules
do not have has offset -1 and is skipped. Per-seat pieces are by relative seat: entry ``j`` is the
seat ``j`` places after the observer in the rules' direction of play (``opt[O_DIR]``).
:func:`observe_batch` is the entry point: one row per game, one player per game.
"""

from __future__ import annotations

from .fields import (
    C_KIND,
    CLAIM_RANK,
    COUNTS,
    CURRENT,
    DIRECTION,
    ELEVEN_BACK,
    EX_KIND,
    EXCH_IN,
    EXCH_OUT,
    EXCH_STEP,
    EXCHANGE,
    EXPOSED,
    FINISH,
    G_C8,
    G_HANDS,
    G_I16,
    G_K8,
    G_P8,
    G_PK8,
    G_PTS,
    G_S8,
    LOCK,
    N_CARDS,
    O_C,
    O_DIR,
    O_K,
    O_N_EX,
    O_P,
    O_R,
    O_X,
    OB_CARD_COUNTS,
    OB_CLAIM,
    OB_CLAIMING,
    OB_CLEAR_COUNT,
    OB_DIRECTION,
    OB_ELEVEN_BACK,
    OB_EXCH_GIVEN,
    OB_EXCH_RECEIVED,
    OB_EXPOSED,
    OB_FINISHED,
    OB_HAND,
    OB_LEADING,
    OB_LOCK,
    OB_MY_TURN,
    OB_OWN_CARDS,
    OB_PASS_RUN,
    OB_PASSED,
    OB_PHASE,
    OB_PICKED,
    OB_PLAYED,
    OB_PLAYED_CARDS,
    OB_POINTS,
    OB_REVOLUTION,
    OB_SINGLE_ROW,
    OB_SOCIAL,
    OB_TOP_CARDS_OBS,
    OB_TOP_CLAIM,
    OB_TOP_COUNT,
    OB_TOP_OWNER,
    OB_TOP_RANK,
    OB_TOP_RUN,
    OB_TOP_RUN_LOW,
    OB_TOP_SIZE,
    OB_TOP_SUITS,
    OB_TOP_WILD,
    OB_TRADE_PICK,
    OB_TRADING,
    OVER,
    PASS_RUN,
    PASSED,
    PHASE,
    PICKED,
    PLAY,
    PLAYED,
    PLAYED_CARDS,
    POINTS,
    POKER_CLAIM,
    QC_COUNT,
    REVOLUTION,
    SEAT_PLAYER,
    SINGLE_ROW,
    SOCIAL,
    T_CARD,
    T_OBS,
    T_OPT,
    T_SCHED,
    TOP_CARDS,
    TOP_CLAIM,
    TOP_COUNT,
    TOP_LO,
    TOP_OWNER,
    TOP_RANK,
    TOP_RUN,
    TOP_SIZE,
    TOP_SUITS,
    TOP_WILD,
    TRADE_PICK,
)
from .jit import inlined, njit
from .views import game_views, rules_views


@inlined
def _fold(s, P):
    """Seat number ``s`` (in -P .. 2P-1) folded into 0 .. P-1."""
    if s >= P:
        return s - P
    if s < 0:
        return s + P
    return s


@inlined
def observe_game(G, T, player, out):  # noqa: C901 - one piece after another
    """The observation of ``player`` in game ``b`` into ``out`` ((D,) float32, all zero on entry).

    Inlined into its caller by LLVM (:func:`.jit.inlined`): a call would pass every array of ``G`` and ``T``
    field by field, several times the cost of the pieces."""
    s8, p8, pk8, k8, c8, hands, pts, i16 = G[G_S8], G[G_P8], G[G_PK8], G[G_K8], G[G_C8], G[G_HANDS], G[G_PTS], G[G_I16]
    opt, card, sched, obs = T[T_OPT], T[T_CARD], T[T_SCHED], T[T_OBS]
    P, C, K, R = opt[O_P], opt[O_C], opt[O_K], opt[O_R]
    d = opt[O_DIR]
    seat = 0                                    # the observer's seat (its first, as argmax; 0 if none)
    for s in range(P - 1, -1, -1):
        if p8[SEAT_PLAYER, s] == player:
            seat = s
    phase = s8[PHASE]
    top = s8[TOP_RANK]
    has_top = top >= 0
    my_turn = s8[CURRENT] == seat and phase != OVER

    # hand: own cards, count per kind
    v = out[obs[0, OB_HAND]:]
    for k in range(K):
        v[k] = pk8[COUNTS, seat, k]
    # played: cards played this hand, count per kind
    v = out[obs[0, OB_PLAYED]:]
    for k in range(K):
        v[k] = k8[PLAYED, k]
    # top_rank: one-hot play rank on top; last entry = nothing on top
    v = out[obs[0, OB_TOP_RANK]:]
    v[top if has_top else R] = 1.0
    # top_size: one-hot size of the play on top (all zero with nothing or a run on top)
    if has_top and s8[TOP_RUN] == 0:
        out[obs[0, OB_TOP_SIZE] + s8[TOP_SIZE] - 1] = 1.0
    # top_owner: one-hot relative seat that made the play on top
    if has_top:
        out[obs[0, OB_TOP_OWNER] + _fold(d * (s8[TOP_OWNER] - seat), P)] = 1.0
    # top_wild: the play on top contains wild cards
    out[obs[0, OB_TOP_WILD]] = s8[TOP_WILD]
    # top_count: cards of the top's rank in consecutive plays this trick
    out[obs[0, OB_TOP_COUNT]] = s8[TOP_COUNT]
    # leading: observer to act with nothing on top
    out[obs[0, OB_LEADING]] = 1.0 if my_turn and not has_top and phase == PLAY else 0.0
    # my_turn: observer to act
    out[obs[0, OB_MY_TURN]] = 1.0 if my_turn else 0.0
    # card_counts: cards held, by relative seat
    v = out[obs[0, OB_CARD_COUNTS]:]
    for j in range(P):
        v[j] = p8[N_CARDS, _fold(seat + d * j, P)]
    # passed: passed / locked out / had its turn this trick, by relative seat
    v = out[obs[0, OB_PASSED]:]
    for j in range(P):
        v[j] = p8[PASSED, _fold(seat + d * j, P)]
    # finished: finishing position + 1 this hand (0 = playing), by relative seat
    v = out[obs[0, OB_FINISHED]:]
    for j in range(P):
        v[j] = p8[FINISH, _fold(seat + d * j, P)] + 1
    # social: last hand's position + 1 (0 = none), by relative seat
    v = out[obs[0, OB_SOCIAL]:]
    for j in range(P):
        v[j] = p8[SOCIAL, _fold(seat + d * j, P)] + 1
    # points: session points of the player in each relative seat
    v = out[obs[0, OB_POINTS]:]
    for j in range(P):
        v[j] = pts[POINTS, p8[SEAT_PLAYER, _fold(seat + d * j, P)]]
    # revolution: rank order reversed
    out[obs[0, OB_REVOLUTION]] = s8[REVOLUTION]         # the flag itself, as the player sees it
    # direction: +1 the rules' direction of play, -1 reversed
    out[obs[0, OB_DIRECTION]] = s8[DIRECTION] * d
    # phase: one-hot exchange, play, session over
    out[obs[0, OB_PHASE] + phase] = 1.0
    # exch_given: cards the observer gave in this hand's exchange, per kind
    v = out[obs[0, OB_EXCH_GIVEN]:]
    for k in range(K):
        v[k] = pk8[EXCH_OUT, seat, k]
    # exch_received: cards the observer received in this hand's exchange, per kind
    v = out[obs[0, OB_EXCH_RECEIVED]:]
    for k in range(K):
        v[k] = pk8[EXCH_IN, seat, k]

    # single_row (revolution_by_singles): single plays of the top's rank in a row
    o = obs[0, OB_SINGLE_ROW]
    if o >= 0:
        out[o] = s8[SINGLE_ROW]
    # exposed (expose): by relative seat, one-hot kind of the card shown on the pile it took
    o = obs[0, OB_EXPOSED]
    if o >= 0:
        for j in range(P):
            c = p8[EXPOSED, _fold(seat + d * j, P)]
            if c >= 0:
                out[o + j * K + card[C_KIND, c]] = 1.0
    # trading (merchant_trade): the exchange decision now is a merchant trade
    o = obs[0, OB_TRADING]
    if o >= 0:
        step = s8[EXCH_STEP]
        if phase == EXCHANGE and step < opt[O_N_EX] and sched[EX_KIND, step] > 0:
            out[o] = 1.0
    # trade_pick (merchant_trade): the observer's own pick not yet moved, by kind
    o = obs[0, OB_TRADE_PICK]
    if o >= 0:
        c = p8[TRADE_PICK, seat]
        if c >= 0:
            out[o + card[C_KIND, c]] = 1.0
    # claiming (quick_clear): the observer is asked whether to claim a quick clear
    o = obs[0, OB_CLAIMING]
    if o >= 0 and my_turn and s8[CLAIM_RANK] >= 0:
        out[o] = 1.0
    # clear_count (quick_clear): natural cards of the last play's own rank at the top of the trick
    o = obs[0, OB_CLEAR_COUNT]
    if o >= 0:
        out[o] = s8[QC_COUNT]
    # own_cards (rules that name cards): own cards, by card
    o = obs[0, OB_OWN_CARDS]
    if o >= 0:
        v = out[o:]
        for c in range(C):
            v[c] = hands[seat, c]
    # played_cards (rules that name cards): cards played this hand, by card
    o = obs[0, OB_PLAYED_CARDS]
    if o >= 0:
        v = out[o:]
        for c in range(C):
            v[c] = c8[PLAYED_CARDS, c]
    # top_cards (rules that name cards): the cards of the play on top
    o = obs[0, OB_TOP_CARDS_OBS]
    if o >= 0:
        v = out[o:]
        for c in range(C):
            v[c] = c8[TOP_CARDS, c]
    # top_run (runs): length of the run on top (0: a set or nothing)
    o = obs[0, OB_TOP_RUN]
    if o >= 0:
        out[o] = s8[TOP_RUN]
    # top_claim (poker): one-hot claim of the play on top (all zero: nothing on top)
    o = obs[0, OB_TOP_CLAIM]
    if o >= 0:
        tc = i16[TOP_CLAIM]
        if tc > 0 and tc <= opt[O_X]:
            out[o + tc - 1] = 1.0
    # claim (poker): one-hot claim the observer is picking cards for (its own decision in progress)
    mine = my_turn and i16[POKER_CLAIM] > 0
    o = obs[0, OB_CLAIM]
    if o >= 0 and mine:
        mc = i16[POKER_CLAIM]
        if mc <= opt[O_X]:
            out[o + mc - 1] = 1.0
    # picked (poker): the cards the observer has picked so far for that claim
    o = obs[0, OB_PICKED]
    if o >= 0 and mine:
        v = out[o:]
        for c in range(C):
            v[c] = c8[PICKED, c]
    # lock, top_suits (suit_lock): the locked suits, the suits of the play on top (four bits, suit_order)
    o, o2 = obs[0, OB_LOCK], obs[0, OB_TOP_SUITS]
    if o >= 0:
        for x in range(4):
            out[o + x] = (s8[LOCK] >> x) & 1
            out[o2 + x] = (s8[TOP_SUITS] >> x) & 1
    # top_run_low (run_joker_ends, clear_above): the run on top's lowest place in rank_order + 1 (0: below it)
    o = obs[0, OB_TOP_RUN_LOW]
    if o >= 0 and s8[TOP_RUN] > 0:
        out[o] = s8[TOP_LO]
    # eleven_back: a J has reversed the order until the trick ends
    o = obs[0, OB_ELEVEN_BACK]
    if o >= 0:
        out[o] = s8[ELEVEN_BACK]
    # pass_run (pass_limit): passes in a row toward the limit
    o = obs[0, OB_PASS_RUN]
    if o >= 0:
        out[o] = s8[PASS_RUN]


@njit
def observe_batch(b8, b16, b32, keys, opt, tab, players, out):
    """Row ``b`` of ``out`` ((B, D) float32) := the observation of ``players[b]`` in game ``b``."""
    observe_games(b8, b16, b32, keys, opt, tab, players, out)


@inlined
def observe_games(b8, b16, b32, keys, opt, tab, players, out):
    """:func:`observe_batch`'s loop, without reference counting (a row view of ``out`` would count one)."""
    T = rules_views(opt, tab)
    D = out.shape[1]
    for b in range(b8.shape[0]):
        row = out[b]
        for i in range(D):
            row[i] = 0.0
        observe_game(game_views(b8, b16, b32, keys, opt, b), T, players[b], row)
