"""What one player at the table knows, as named pieces of one flat float32 vector.

Seats in the observation are *relative*: entry ``j`` of a per-seat piece is the seat
``j`` places after the observer in the rules' direction of play (0 is the observer).
Nothing here depends on another player's hidden cards: only their counts.

=================  ==========  =====================================================
piece              length      meaning
=================  ==========  =====================================================
hand               K           own cards, count per kind (kinds: rank_order, then jokers)
played             K           cards played this hand, count per kind (public)
top_rank           R + 1       one-hot play rank on top (effective rank); last = nothing on top
top_size           S           one-hot size of the play on top (all zero when nothing on top)
top_owner          P           one-hot relative seat that made the play on top
top_wild           1           the play on top contains wild cards
top_count          1           cards of the top's rank in consecutive plays this trick
leading            1           it is the observer's turn and nothing is on top
my_turn            1           it is the observer's turn
card_counts        P           cards held, by relative seat
passed             P           passed / locked out / had its turn this trick, by relative seat
finished           P           finishing position + 1 this hand (0 = still playing), by relative seat
social             P           last hand's position + 1 (0 = none), by relative seat
points             P           session points, by relative seat
revolution         1           rank order reversed
direction          1           +1 play runs in the rules' direction, -1 reversed
phase              3           one-hot: exchange, play, session over
exch_given         K           cards the observer gave in this hand's exchange, per kind
exch_received      K           cards the observer received in this hand's exchange, per kind
=================  ==========  =====================================================

Rules that turn on some options add pieces at the end (other rules keep the table above,
so their models stay valid):

=================  ==========  =====================================================
single_row         1           ``revolution_by_singles``: single plays of the top's rank in a row
exposed            P x K       ``hand_assignment expose``: by relative seat, one-hot kind of the
                               card shown face up on the pile that seat took (all zero: none)
trading            1           ``merchant_trade``: the exchange decision now is a merchant trade
trade_pick         K           ``merchant_trade``: the observer's own pick, not yet moved (its
                               partner never sees it before the cards move)
claiming           1           ``quick_clear``: the observer is asked whether to claim a quick clear
clear_count        1           ``quick_clear``: natural cards of the last play's own rank in
                               consecutive plays at the top of the trick
own_cards          C           rules that name cards (``suit_rule``, ``runs``, poker): own cards by card
played_cards       C           rules that name cards: cards played this hand, by card (public)
top_cards          C           rules that name cards: the cards of the play on top
top_run            1           ``runs``: length of the run on top (0: a set or nothing); with a
                               run on top ``top_size`` is all zero and ``top_rank`` is the rank
                               of its highest card in the order in force
top_claim          X           ``combinations poker``: one-hot claim of the play on top (all zero:
                               nothing on top; ``top_size`` runs to 5 under poker)
claim              X           poker: one-hot claim the observer has made and is picking cards
                               for (its own decision in progress: all zero for the others)
picked             C           poker: the cards the observer has picked so far for that claim
lock               4           ``suit_lock``: the locked suits by ``suit_order`` (all zero: no lock)
top_suits          4           ``suit_lock``: the suits of the play on top (the joker's: the suit it
                               stands for; a lone joker has none)
top_run_low        1           ``run_joker_ends`` or ``run_beat clear_above``: the run on top's lowest
                               place in ``rank_order`` + 1 (0: below it); 0 without a run on top
eleven_back        1           ``eleven_back``: a J has reversed the order until the trick ends
pass_run           1           ``pass_limit``: passes in a row (across tricks) toward the limit
=================  ==========  =====================================================

Cards (``C``) are in the order of ``tables(rules).card_names``: by kind, then suit (weakest
first in ``suit_order``), then deck copy.
"""

from __future__ import annotations

import numpy as np

from .kernel.consts import consts
from .kernel.fields import O_D_OBS as F_D_OBS
from .kernel.jit import compile_for
from .kernel.observe import observe_batch
from .observation_layout import layout, size, slices
from .rules import Rules
from .state import State

__all__ = ["layout", "observe", "size", "slices"]


def compile_observe(rules: Rules, state: State, players: np.ndarray, out: np.ndarray) -> None:
    """Compile the observation kernel (or load it from the cache) on its first use, with a progress line."""
    if not observe_batch.__dict__.get("overloads", True):
        c = consts(rules)
        compile_for(observe_batch, (state.b8, state.b16, state.b32, state.key_buf, c.opt, c.tab, players, out),
                    "observations")


def observe(rules: Rules, state: State, player: int | np.ndarray) -> np.ndarray:
    """(B, D) float32 observations of ``player`` (an int, or one player per game), computed by the compiled
    kernel :func:`president_env.core.kernel.observe.observe_batch`."""
    c = consts(rules)
    B = state.batch_size
    players = np.broadcast_to(np.asarray(player, dtype=np.int64), (B,)).copy()
    if ((players < 0) | (players >= rules.players)).any():
        raise ValueError(f"player must be 0..{rules.players - 1}, got {player!r}")
    out = np.empty((B, int(c.opt[F_D_OBS])), dtype=np.float32)
    compile_observe(rules, state, players, out)
    observe_batch(state.b8, state.b16, state.b32, state.key_buf, c.opt, c.tab, players, out)
    return out
