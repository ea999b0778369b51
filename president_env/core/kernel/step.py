"""The entry points: a batch of games is a loop over games around the one-game rules.

Each entry point takes the packed state (``b8, b16, b32, keys``) and the packed rules (``opt, tab``)
and steps, starts, or re-reads every game of the batch in place: ``step_*`` is the engine's
``step_inplace``, ``start_*`` deals the first hand of new sessions, ``legal_*`` recomputes the legal
actions (after a state was edited from Python).

There is one set of entry points per family of action tables: ``rank`` (actions name a rank and a
size), ``cards`` (the card-level table of ``suit_rule`` and ``runs``) and ``poker`` (claims and
picks). A family differs only in how an action's cards are found and which mask is computed; the
rules between (:func:`play.play_or_pass`, the deal, the end of a hand) are the same functions. The
families are separate so that a game compiles only the code of its own table, the first time it is
played. The rules functions are compiled once each and inlined into the entry points by LLVM
(:func:`.jit.inlined`).
"""

from __future__ import annotations

import numpy as np
from numba import get_num_threads, prange

from .cards import card_claim_mask, card_exchange_mask, card_mask
from .deal import start_hand
from .fields import (
    CLAIM_NEXT,
    CLAIM_RANK,
    CURRENT,
    EXCHANGE,
    G_C8,
    G_PTS,
    G_S8,
    HAND_OVER,
    HAND_POINTS,
    MOVED,
    O_A,
    O_C,
    O_P,
    O_QUICK_CLEAR,
    OVER,
    PHASE,
    PLAY,
    T_OPT,
    W_LAST,
    W_SEL,
)
from .hand import card_card_given, end_hand, give_back, poker_card_given, rank_card_given
from .jit import inlined, njit, thin
from .legal import claim_mask, exchange_mask, over_mask, rank_mask
from .play import cards_of_card_play, cards_of_poker_play, cards_of_rank_play, play_or_pass
from .poker import poker_choice, poker_exchange_mask, poker_mask
from .views import batch_legal, game_views, prefetch_row, rules_views, scratch_size, scratch_views


# --------------------------------------------------------------------------- legal actions, per family
@thin
def legal_rank(G, T, W):
    """The legal actions of the game now (rank-level table): a function of the state alone."""
    s8 = G[G_S8]
    if s8[PHASE] == OVER:
        over_mask(G, T)
    elif s8[PHASE] == EXCHANGE:
        exchange_mask(G, T, W)
    elif T[T_OPT][O_QUICK_CLEAR] and s8[CLAIM_RANK] >= 0:
        claim_mask(G, T)
    else:
        rank_mask(G, T, W)


@thin
def legal_cards(G, T, W):
    """The legal actions of the game now (card-level table)."""
    s8 = G[G_S8]
    if s8[PHASE] == OVER:
        over_mask(G, T)
    elif s8[PHASE] == EXCHANGE:
        card_exchange_mask(G, T, W)
    elif T[T_OPT][O_QUICK_CLEAR] and s8[CLAIM_RANK] >= 0:
        card_claim_mask(G, T, W)
    else:
        card_mask(G, T, W)


@thin
def legal_poker(G, T, W):
    """The legal actions of the game now (poker: claims and picks)."""
    s8 = G[G_S8]
    if s8[PHASE] == OVER:
        over_mask(G, T)
    elif s8[PHASE] == EXCHANGE:
        poker_exchange_mask(G, T)
    else:
        poker_mask(G, T, W)


# --------------------------------------------------------------------------- one decision
@thin
def begin_step(G, T):
    """A decision starts: no hand has ended and nothing has moved yet. Returns the phase."""
    s8, c8, pts = G[G_S8], G[G_C8], G[G_PTS]
    opt = T[T_OPT]
    s8[HAND_OVER] = 0
    for p in range(opt[O_P]):
        pts[HAND_POINTS, p] = 0
    for c in range(opt[O_C]):
        c8[MOVED, c] = 0
    return s8[PHASE]


@thin
def declined(G, T, a):
    """quick_clear: the player asked says no (``a`` 0); the normal turn goes on. Returns whether it was that."""
    s8 = G[G_S8]
    if T[T_OPT][O_QUICK_CLEAR] and s8[CLAIM_RANK] >= 0 and a == 0:
        s8[CURRENT] = s8[CLAIM_NEXT]
        s8[CLAIM_RANK] = -1
        s8[CLAIM_NEXT] = -1
        return True
    return False


@thin
def score_if_over(G, T, W, ended):
    """After a play that ended the hand: score it, deal the next one; ``moved`` keeps the cards of the play
    that ended the hand, not the next deal's gifts."""
    if ended:
        c8, last = G[G_C8], W[W_LAST]
        C = T[T_OPT][O_C]
        for c in range(C):
            last[c] = c8[MOVED, c]
        end_hand(G, T)
        for c in range(C):
            c8[MOVED, c] = last[c]


@thin
def step_rank(G, T, a, W):
    """One decision ``a`` (checked legal) of a game on the rank-level table."""
    phase = begin_step(G, T)
    if phase == PLAY:
        if not declined(G, T, a):
            rank, size, n, n_wild = cards_of_rank_play(G, T, a, W[W_SEL])
            score_if_over(G, T, W, play_or_pass(G, T, a, W[W_SEL], rank, size, n, n_wild))
    elif phase == EXCHANGE:
        give_back(G, T, rank_card_given(G, T, a))
    legal_rank(G, T, W)


@thin
def step_cards(G, T, a, W):
    """One decision ``a`` (checked legal) of a game on the card-level table."""
    phase = begin_step(G, T)
    if phase == PLAY:
        if not declined(G, T, a):
            rank, size, n, n_wild = cards_of_card_play(G, T, a, W[W_SEL])
            score_if_over(G, T, W, play_or_pass(G, T, a, W[W_SEL], rank, size, n, n_wild))
    elif phase == EXCHANGE:
        give_back(G, T, card_card_given(G, T, a, W[W_SEL]))
    legal_cards(G, T, W)


@thin
def step_poker(G, T, a, W):
    """One decision ``a`` (checked legal) of a poker game: a claim or a pick that is not the claim's last
    moves no card; a pass, or the last pick, plays."""
    phase = begin_step(G, T)
    if phase == PLAY and (a == 0 or poker_choice(G, T, a)):
        rank, size, n, n_wild = cards_of_poker_play(G, T, a, W[W_SEL])
        score_if_over(G, T, W, play_or_pass(G, T, a, W[W_SEL], rank, size, n, n_wild))
    elif phase == EXCHANGE:
        give_back(G, T, poker_card_given(G, T, a))
    legal_poker(G, T, W)


# --------------------------------------------------------------------------- batches
@njit
def first_illegal(b8, opt, actions, where):
    """The first game whose action (where ``where``) is out of range or not legal, or -1."""
    legal = batch_legal(b8, opt)
    A = opt[O_A]
    for b in range(b8.shape[0]):
        if where[b]:
            a = actions[b]
            if a < 0 or a >= A or not legal[b, a]:
                return b
    return -1


@thin
def not_stepped(G, opt):
    """A game not stepped: no hand ended and nothing moved in this call."""
    s8, c8, pts = G[G_S8], G[G_C8], G[G_PTS]
    s8[HAND_OVER] = 0
    for p in range(opt[O_P]):
        pts[HAND_POINTS, p] = 0
    for c in range(opt[O_C]):
        c8[MOVED, c] = 0


# Each step_* entry point: step every game ``b`` with ``where[b]`` by ``actions[b]``; the others keep their
# state but for hand_over, hand_points and moved, which say that this call ended and moved nothing there.
# Returns -1, or the first game whose action is out of range or not legal (and then steps nothing). The
# games lo..hi-1 are stepped by one loop (``_games_*``) with the workspace ``base`` (int64, at least
# ``views.scratch_size`` words: the caller's, ``Consts.workspace()``). The entry points count no references
# (``_nrt=False``), so the loop is copied into them (``thin``); the ``*_parallel`` ones
# (``engine.set_threads``) call it once per thread, each with a workspace of its own.

def _games_rank(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(lo, hi):
        if b + 2 < hi:
            prefetch_row(b8, b + 2)
        G = game_views(b8, b16, b32, keys, opt, b)
        if where[b]:
            step_rank(G, T, actions[b], W)
        else:
            not_stepped(G, opt)


def _games_cards(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(lo, hi):
        if b + 2 < hi:
            prefetch_row(b8, b + 2)
        G = game_views(b8, b16, b32, keys, opt, b)
        if where[b]:
            step_cards(G, T, actions[b], W)
        else:
            not_stepped(G, opt)


def _games_poker(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(lo, hi):
        if b + 2 < hi:
            prefetch_row(b8, b + 2)
        G = game_views(b8, b16, b32, keys, opt, b)
        if where[b]:
            step_poker(G, T, actions[b], W)
        else:
            not_stepped(G, opt)


games_rank, games_cards, games_poker = (thin(f) for f in (_games_rank, _games_cards, _games_poker))
_games_inlined = tuple(inlined(f) for f in (_games_rank, _games_cards, _games_poker))
games_rank_inlined, games_cards_inlined, games_poker_inlined = _games_inlined


@njit
def games_rank_call(b8, b16, b32, keys, opt, tab, actions, where, lo, hi):
    games_rank_inlined(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, np.empty(scratch_size(opt), np.int64))


@njit
def games_cards_call(b8, b16, b32, keys, opt, tab, actions, where, lo, hi):
    games_cards_inlined(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, np.empty(scratch_size(opt), np.int64))


@njit
def games_poker_call(b8, b16, b32, keys, opt, tab, actions, where, lo, hi):
    games_poker_inlined(b8, b16, b32, keys, opt, tab, actions, where, lo, hi, np.empty(scratch_size(opt), np.int64))


@njit(_nrt=False)
def step_batch_rank(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        games_rank(b8, b16, b32, keys, opt, tab, actions, where, 0, b8.shape[0], base)
    return bad


@njit(_nrt=False)
def step_batch_cards(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        games_cards(b8, b16, b32, keys, opt, tab, actions, where, 0, b8.shape[0], base)
    return bad


@njit(_nrt=False)
def step_batch_poker(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        games_poker(b8, b16, b32, keys, opt, tab, actions, where, 0, b8.shape[0], base)
    return bad


@njit(parallel=True)
def step_batch_rank_parallel(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        B, n = b8.shape[0], get_num_threads()
        for t in prange(n):
            games_rank_call(b8, b16, b32, keys, opt, tab, actions, where, t * B // n, (t + 1) * B // n)
    return bad


@njit(parallel=True)
def step_batch_cards_parallel(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        B, n = b8.shape[0], get_num_threads()
        for t in prange(n):
            games_cards_call(b8, b16, b32, keys, opt, tab, actions, where, t * B // n, (t + 1) * B // n)
    return bad


@njit(parallel=True)
def step_batch_poker_parallel(b8, b16, b32, keys, opt, tab, actions, where, base):
    bad = first_illegal(b8, opt, actions, where)
    if bad < 0:
        B, n = b8.shape[0], get_num_threads()
        for t in prange(n):
            games_poker_call(b8, b16, b32, keys, opt, tab, actions, where, t * B // n, (t + 1) * B // n)
    return bad


# start_* deals (unless ``dealt``) and starts the hand of every game whose seats, ranks, dealer and hand number
# are in place, and works out its legal actions; legal_* recomputes the legal actions from the state.

@njit(_nrt=False)
def start_batch_rank(b8, b16, b32, keys, opt, tab, dealt, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        G = game_views(b8, b16, b32, keys, opt, b)
        start_hand(G, T, dealt)
        legal_rank(G, T, W)


@njit(_nrt=False)
def start_batch_cards(b8, b16, b32, keys, opt, tab, dealt, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        G = game_views(b8, b16, b32, keys, opt, b)
        start_hand(G, T, dealt)
        legal_cards(G, T, W)


@njit(_nrt=False)
def start_batch_poker(b8, b16, b32, keys, opt, tab, dealt, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        G = game_views(b8, b16, b32, keys, opt, b)
        start_hand(G, T, dealt)
        legal_poker(G, T, W)


@njit(_nrt=False)
def legal_batch_rank(b8, b16, b32, keys, opt, tab, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        legal_rank(game_views(b8, b16, b32, keys, opt, b), T, W)


@njit(_nrt=False)
def legal_batch_cards(b8, b16, b32, keys, opt, tab, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        legal_cards(game_views(b8, b16, b32, keys, opt, b), T, W)


@njit(_nrt=False)
def legal_batch_poker(b8, b16, b32, keys, opt, tab, base):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    for b in range(b8.shape[0]):
        legal_poker(game_views(b8, b16, b32, keys, opt, b), T, W)


# The entry points of each family: 0 rank, 1 cards, 2 poker (``consts.family``).
STEP = (step_batch_rank, step_batch_cards, step_batch_poker)
START = (start_batch_rank, start_batch_cards, start_batch_poker)
LEGAL = (legal_batch_rank, legal_batch_cards, legal_batch_poker)
STEP_PARALLEL = (step_batch_rank_parallel, step_batch_cards_parallel, step_batch_poker_parallel)
