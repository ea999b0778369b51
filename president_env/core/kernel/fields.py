"""Compile-time indices of the compiled rules: state field groups, options and constant tables.

The kernels read a game's state through the field groups of :mod:`president_env.core.state`
(``s8[b, TOP_RANK]``, ``p8[b, N_CARDS, seat]``, ``pk8[b, COUNTS, seat, kind]``) and the rules
through ``opt[O_...]`` (one number per option or size) and the rows of a few tables
(``act[A_RANK, a]``, ``card[C_KIND, c]``, ``play[PL_STR0 + rev, r]``). These names are module
constants, so numba folds them into the code. The state's indices and group sizes come from the
field tuples of :mod:`president_env.core.state` (``S8_FIELDS`` ...), the one list of each group: the
number of names here must match them (or the import fails), and ``tests/test_kernel_workspace.py``
checks that each name is its field's (``TOP_RANK`` is ``"top_rank"``).
"""

from __future__ import annotations

from .. import state as _state

# --------------------------------------------------------------------------- state: int8 groups
# s8: one number per game (state.S8_FIELDS)
(PHASE, DEALER, CURRENT, LEADER, TOP_RANK, TOP_SIZE, TOP_OWNER, TOP_WILD, TOP_COUNT, FIRST_LEAD, NEXT_BEST,
 NEXT_WORST, REVOLUTION, DIRECTION, EXCH_STEP, HAND_OVER, SINGLE_ROW, TOP_OWN, QC_COUNT, CLAIM_RANK, CLAIM_NEXT,
 TOP_RUN, LOCK, TOP_SUITS, TOP_LO, ELEVEN_BACK, PASS_RUN) = range(len(_state.S8_FIELDS))
# p8: one per seat (state.P8_FIELDS)
SEAT_PLAYER, SOCIAL, N_CARDS, PASSED, FINISH, LAST_FINISH, EXPOSED, TRADE_PICK = range(len(_state.P8_FIELDS))
# pk8: per seat and kind (state.PK8_FIELDS)
COUNTS, EXCH_IN, EXCH_OUT = range(len(_state.PK8_FIELDS))
# k8: per kind (state.K8_FIELDS)
PLAYED, DISCARDED = range(len(_state.K8_FIELDS))
# c8: per card (state.C8_FIELDS)
TOP_CARDS, PLAYED_CARDS, MOVED, PICKED = range(len(_state.C8_FIELDS))
# i16 (state.I16_FIELDS)
POKER_CLAIM, TOP_CLAIM = range(len(_state.I16_FIELDS))
# i32: HAND_NO, then points and hand_points by player in the (B, 2, P) view ``pts``
HAND_NO = 0
POINTS, HAND_POINTS = range(2)

EXCHANGE, PLAY, OVER = _state.EXCHANGE, _state.PLAY, _state.OVER

# --------------------------------------------------------------------------- opt: options and sizes
(O_P, O_C, O_K, O_R, O_S, O_A, O_DECKS, O_DIR, O_RN, O_NNAT, O_WILD_PLAY, O_HAS_WILD,
 O_OP8, O_OPK8, O_OK8, O_OC8, O_OHANDS, O_OLEGAL, O_N8, O_N32,
 O_PASS_RULE, O_COMPULSORY, O_SIZE_RULE, O_EQUAL_RANK_BEATS, O_SKIPS, O_WILD_TIE, O_FOUR, O_COMPLETE_SET,
 O_EIGHT, O_TRANSPARENT, O_HAS_POWER, O_POWER_FLOOR0, O_POWER_FLOOR1, O_MUST_WIN, O_HAS_FORBIDDEN,
 O_REV_SINGLES, O_REV_RESET, O_HAS_RESET, O_FIRST_LEAD, O_LEAD_AFTER, O_EXTRA_TO, O_RESEAT, O_HANDS_PER_SESSION,
 O_TARGET, O_EXPOSE, O_MERCHANT, O_QUICK_CLEAR, O_SUIT_RULE, O_RUNS, O_POKER, O_CARD_LEVEL, O_NAMED_WILD,
 O_HAS_HIGH, O_HAS_TRUMP, O_LOWEST_PLAY, O_N_LOWEST, O_LOWEST0, O_LOWEST1, O_N_EX, O_N_GIVE, O_JS, O_JR, O_X, O_U,
 O_NRP, O_W, O_D_OBS, O_A_RANK, O_HAS_EXTRAS, O_PLAIN_SETS,
 O_LEAD_CARD, O_LEAD_MAY_PASS, O_ALL_PASSED, O_SUIT_LOCK, O_SPADE3, O_WILD_SINGLE, O_CLEAR_ABOVE, O_RUN_ENDS,
 O_RUN_REV, O_EIGHT_WILD, O_SEATS_EVERY, O_RESET_EVERY, O_PASS_LIMIT, O_ELEVEN, O_SIX, O_FIVE, O_JOKER_NAMED,
 O_RANK_J, O_RANK_6, O_RANK_5, O_RANK_8,
 O_TABLES) = range(92)
# After O_TABLES: three numbers per table (offset into ``tab``, rows, columns), in the order of TABLES.
TABLES = ("act", "card", "play", "kind", "ks", "power", "sched", "give", "points", "sets", "rid", "runs",
          "claims", "picks", "natkind", "obs", "setkey", "setlist")
N_OPT = O_TABLES + 3 * len(TABLES)

# --------------------------------------------------------------------------- the kernels' tuples (views.py)
# The rules functions receive three tuples of views and read their slots by these names (module constants,
# so numba folds them and indexes the tuples at compile time, as with a literal): ``G[G_HANDS]``,
# ``T[T_SETS]``, ``W[W_SEL]``.
# G (views.game_views): one game's field groups
GAME_VIEWS = ("s8", "p8", "pk8", "k8", "c8", "hands", "legal", "i32", "pts", "i16", "key")
G_S8, G_P8, G_PK8, G_K8, G_C8, G_HANDS, G_LEGAL, G_I32, G_PTS, G_I16, G_KEY = range(len(GAME_VIEWS))
# T (views.rules_views): ``opt``, then the tables in the order of TABLES
T_OPT = 0
(T_ACT, T_CARD, T_PLAY, T_KIND, T_KS, T_POWER, T_SCHED, T_GIVE, T_POINTS, T_SETS, T_RID, T_RUNS, T_CLAIMS,
 T_PICKS, T_NATKIND, T_OBS, T_SETKEY, T_SETLIST) = range(1, 1 + len(TABLES))
# W (views.scratch_views): the workspace's scratch arrays
SCRATCH_VIEWS = ("sel", "last", "lo", "hi", "cap", "extra", "nat", "suited", "per_kind", "slots", "pres", "picked",
                 "names")
(W_SEL, W_LAST, W_LO, W_HI, W_CAP, W_EXTRA, W_NAT, W_SUITED, W_PER_KIND, W_SLOTS, W_PRES, W_PICKED,
 W_NAMES) = range(len(SCRATCH_VIEWS))

# Option values
MAY_REPLAY, LOCKS_OUT, SINGLE_ROUND = range(3)
SIZE_EQUAL, SIZE_AT_LEAST, SIZE_BIGGER = range(3)
TIE_EQUAL, TIE_NATURAL, TIE_WILD = range(3)
FOUR_NONE, FOUR_BOMB, FOUR_REVOLUTION, FOUR_REVOLUTION_REVERSE = range(4)
LEAD_DEALER_LEFT, LEAD_LOWEST_CARD, LEAD_DEALER = range(3)
AFTER_PRESIDENT, AFTER_SCUM = range(2)
EXTRA_FIRST_DEALT, EXTRA_TOP_RANKS, EXTRA_BOTTOM_RANKS = range(3)
SUIT_NONE, SUIT_RANK, SUIT_FOLLOW, SUIT_COLOUR = range(4)

# --------------------------------------------------------------------------- tables: rows
# act (rows, A): per action id
A_RANK, A_SIZE, A_RUN, A_WILD, A_RID, A_PICK = range(6)
# card (rows, C): per card
(C_KIND, C_SUIT, C_WILD, C_BEST, C_IDENT, C_FORBID, C_RED, C_BLACK, C_FSUIT, C_NAT8, C_SLOT, C_NAME, C_FIRST,
 C_NATPOS, C_LOWEST) = range(15)
# play (rows, R): per play rank; PL_STR0 + revolution is the strength in the order in force
PL_KIND, PL_STR0, PL_STR1, PL_TRUMP, PL_RESET0, PL_RESET1, PL_HIGH, PL_SET_START, PL_SET_LEN = range(9)
# kind (rows, K): per kind
K_PLAY, K_WILD, K_HIGH, K_START, K_COUNT, K_FORBID, K_SUITED = range(7)
# ks (K, 4): first card index of (kind, suit place), -1 none
# power (R * (S + 1), S): 1 where m cards of rank r beat a top of size ts by power: [r * (S + 1) + ts, m - 1]
# sched (3, N_EX): the exchange decisions in order
EX_DECIDER, EX_PARTNER, EX_KIND = range(3)
# give (1, N_GIVE), points (1, P)
# sets (rows, A): card-level sets, by action id (runs and pass: unused); rows SF_WS0 + i count the wild cards
# of slot i the set names (a slot per wild card name, actions.wild_card_names: C_SLOT), one row per slot
# SF_SUITS: the suits of the set as four bits, the joker's the suit it stands for (a lone joker: 0)
(SF_P, SF_N, SF_W, SF_HI, SF_LO, SF_RED, SF_BLACK, SF_COLOUR, SF_FSUIT, SF_LOW, SF_RID, SF_SUITLESS, SF_SUITS,
 SF_NEED0, SF_NEED1, SF_NEED2, SF_NEED3, SF_WS0) = range(18)
# setkey (4, R * 16 * (W + 1)): where the sets of (play rank p, natural suits m as four bits, w wild cards)
# lie in setlist, at [SK_START | SK_LEN, (p * 16 + m) * (W + 1) + w], and their fewest and most cards
# (SK_NMIN, SK_NMAX); setlist (1, Js): set ids by key
SK_START, SK_LEN, SK_NMIN, SK_NMAX = range(4)
# rid (2, A_RANK): first set id and count of each rank-level id (card-level)
RID_START, RID_LEN = range(2)
# runs (rows, Jr): run i is action id Js + 1 + i; runs come by suit, then length (shortest first): R_NEXT_SUIT is
# the first run of the next suit, R_NEXT_LEN the first of the next length or suit (Jr where none)
# R_LO: the run's lowest place in rank_order (-1 below it: run_joker_ends); R_NLO, R_NN: its natural places
# (first, count); R_JPOS: the joker's place where actions name it (Rules.joker_stands_for), NO_JOKER none;
# R_NEXT_LO: the first run of the next window (suit, length and lowest place: the runs of a window differ only
# by the joker's place)
R_SUIT, R_LEN, R_LOPOS, R_CMP0, R_CMP1, R_STR0, R_STR1, R_LOW, R_NEXT_SUIT, R_NEXT_LEN, R_LO, R_NLO, R_NN, \
    R_JPOS, R_NEXT_LO = range(15)
N_RUN_FIELDS = 15
NO_JOKER = -9
# claims (rows, X + 1): poker claims by claim id
CL_N, CL_KIND, CL_KEY, CL_KEY2, CL_W0, CL_W1, CL_W2, CL_W3, CL_W4, CL_STR0, CL_STR1, CL_BOMB, CL_FIRST = range(13)
# picks (rows, U): poker card names
PK_R, PK_S, PK_W, PK_FIRST = range(4)
# natkind (1, NRp): poker natural rank index -> kind
# obs (1, N_PIECES): offset of each observation piece, -1 where the rules have none
OBS_PIECES = ("hand", "played", "top_rank", "top_size", "top_owner", "top_wild", "top_count", "leading", "my_turn",
              "card_counts", "passed", "finished", "social", "points", "revolution", "direction", "phase",
              "exch_given", "exch_received", "single_row", "exposed", "trading", "trade_pick", "claiming",
              "clear_count", "own_cards", "played_cards", "top_cards", "top_run", "top_claim", "claim", "picked",
              "lock", "top_suits", "top_run_low", "eleven_back", "pass_run")
(OB_HAND, OB_PLAYED, OB_TOP_RANK, OB_TOP_SIZE, OB_TOP_OWNER, OB_TOP_WILD, OB_TOP_COUNT, OB_LEADING, OB_MY_TURN,
 OB_CARD_COUNTS, OB_PASSED, OB_FINISHED, OB_SOCIAL, OB_POINTS, OB_REVOLUTION, OB_DIRECTION, OB_PHASE, OB_EXCH_GIVEN,
 OB_EXCH_RECEIVED, OB_SINGLE_ROW, OB_EXPOSED, OB_TRADING, OB_TRADE_PICK, OB_CLAIMING, OB_CLEAR_COUNT, OB_OWN_CARDS,
 OB_PLAYED_CARDS, OB_TOP_CARDS_OBS, OB_TOP_RUN, OB_TOP_CLAIM, OB_CLAIM, OB_PICKED, OB_LOCK, OB_TOP_SUITS,
 OB_TOP_RUN_LOW, OB_ELEVEN_BACK, OB_PASS_RUN) = range(len(OBS_PIECES))

# Poker claim kinds (poker.SET ...)
PK_SET, PK_TWO_PAIR, PK_WILD_SET, PK_STRAIGHT, PK_FLUSH, PK_FULL_HOUSE, PK_FOUR, PK_STRAIGHT_FLUSH, PK_FIVE = range(9)

# Group sizes (state.NS8 ...)
NS8_, NP8_, NPK8_, NK8_, NC8_ = _state.NS8, _state.NP8, _state.NPK8, _state.NK8, _state.NC8
