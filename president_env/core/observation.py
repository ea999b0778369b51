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
=================  ==========  =====================================================

Cards (``C``) are in the order of ``tables(rules).card_names``: by kind, then suit (weakest
first in ``suit_order``), then deck copy.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .cards import tables
from .engine import _consts
from .poker import claim_table
from .rules import Rules
from .state import State


@lru_cache(maxsize=128)
def layout(rules: Rules) -> tuple[tuple[str, int, int, str], ...]:
    """The observation table: (name, offset, length, meaning) for each piece."""
    t = tables(rules)
    K, R, S, P = t.n_kinds, t.n_play_ranks, rules.max_set, rules.players
    if rules.poker:
        S = max(S, 5)
    pieces = [
        ("hand", K, "own cards, count per kind"),
        ("played", K, "cards played this hand, count per kind"),
        ("top_rank", R + 1, "one-hot play rank on top; last entry = nothing on top"),
        ("top_size", S, "one-hot size of the play on top"),
        ("top_owner", P, "one-hot relative seat that made the play on top"),
        ("top_wild", 1, "the play on top contains wild cards"),
        ("top_count", 1, "cards of the top's rank in consecutive plays this trick"),
        ("leading", 1, "observer to act with nothing on top"),
        ("my_turn", 1, "observer to act"),
        ("card_counts", P, "cards held, by relative seat"),
        ("passed", P, "passed / locked out / had its turn this trick, by relative seat"),
        ("finished", P, "finishing position + 1 this hand (0 = playing), by relative seat"),
        ("social", P, "last hand's position + 1 (0 = none), by relative seat"),
        ("points", P, "session points, by relative seat"),
        ("revolution", 1, "rank order reversed"),
        ("direction", 1, "+1 normal direction of play, -1 reversed"),
        ("phase", 3, "one-hot exchange, play, session over"),
        ("exch_given", K, "cards given in this hand's exchange, per kind"),
        ("exch_received", K, "cards received in this hand's exchange, per kind"),
    ]
    if rules.revolution_by_singles:
        pieces.append(("single_row", 1, "single plays of the top's rank in a row this trick"))
    if rules.hand_assignment == "expose":
        pieces.append(("exposed", P * K, "by relative seat: one-hot kind of the card exposed on its pile"))
    if rules.merchant_trade:
        pieces.append(("trading", 1, "the exchange decision now is a merchant trade"))
        pieces.append(("trade_pick", K, "own merchant pick, not yet moved, per kind"))
    if rules.quick_clear:
        pieces.append(("claiming", 1, "observer asked whether to claim a quick clear"))
        pieces.append(("clear_count", 1, "natural cards of the last play's own rank at the top of the trick"))
    if rules.names_cards:
        C = t.n_cards
        pieces.append(("own_cards", C, "own cards, by card"))
        pieces.append(("played_cards", C, "cards played this hand, by card"))
        pieces.append(("top_cards", C, "the cards of the play on top"))
    if rules.runs:
        pieces.append(("top_run", 1, "length of the run on top (0: a set or nothing)"))
    if rules.poker:
        X = claim_table(rules).X
        pieces.append(("top_claim", X, "one-hot claim of the play on top"))
        pieces.append(("claim", X, "one-hot claim the observer is picking cards for"))
        pieces.append(("picked", t.n_cards, "cards the observer has picked for its claim"))
    out, off = [], 0
    for name, n, meaning in pieces:
        out.append((name, off, n, meaning))
        off += n
    return tuple(out)


def size(rules: Rules) -> int:
    """Length of the observation vector."""
    name, off, n, _ = layout(rules)[-1]
    return off + n


def slices(rules: Rules) -> dict[str, slice]:
    """Piece name -> slice into the observation vector."""
    return {name: slice(off, off + n) for name, off, n, _ in layout(rules)}


def observe(rules: Rules, state: State, player: int | np.ndarray) -> np.ndarray:
    """(B, D) float32 observations of ``player`` (an int, or one player per game)."""
    t = tables(rules)
    B, P = state.batch_size, rules.players
    ar = np.arange(B)
    pl = np.broadcast_to(np.asarray(player, dtype=np.int64), (B,))
    seat = np.argmax(state.seat_player == pl[:, None], axis=1)
    d = 1 if rules.direction == "clockwise" else -1
    rel = (seat[:, None] + d * np.arange(P)[None, :]) % P          # (B,P) seat at relative j
    players_rel = np.take_along_axis(state.seat_player.astype(np.int64), rel, axis=1)
    sl = slices(rules)
    obs = np.zeros((B, size(rules)), dtype=np.float32)

    def by_rel(a: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, rel, axis=1)

    obs[:, sl["hand"]] = state.counts[ar, seat]
    obs[:, sl["played"]] = state.played
    top = state.top_rank.astype(np.int64)
    obs[ar, sl["top_rank"].start + np.where(top < 0, t.n_play_ranks, top)] = 1
    has_top = top >= 0
    a_set = has_top & (state.top_run == 0)
    obs[ar[a_set], sl["top_size"].start + state.top_size[a_set].astype(np.int64) - 1] = 1
    owner_rel = (d * (state.top_owner.astype(np.int64) - seat)) % P
    obs[ar[has_top], sl["top_owner"].start + owner_rel[has_top]] = 1
    obs[:, sl["top_wild"].start] = state.top_wild
    obs[:, sl["top_count"].start] = state.top_count
    my_turn = (state.current == seat) & (state.phase != 2)
    obs[:, sl["my_turn"].start] = my_turn
    obs[:, sl["leading"].start] = my_turn & ~has_top & (state.phase == 1)
    obs[:, sl["card_counts"]] = by_rel(state.n_cards)
    obs[:, sl["passed"]] = by_rel(state.passed)
    obs[:, sl["finished"]] = by_rel(state.finish) + 1
    obs[:, sl["social"]] = by_rel(state.social) + 1
    obs[:, sl["points"]] = np.take_along_axis(state.points, players_rel, axis=1)
    obs[:, sl["revolution"].start] = state.revolution
    obs[:, sl["direction"].start] = state.direction * d
    obs[ar, sl["phase"].start + state.phase.astype(np.int64)] = 1
    obs[:, sl["exch_given"]] = state.exch_out[ar, seat]
    obs[:, sl["exch_received"]] = state.exch_in[ar, seat]
    if rules.revolution_by_singles:
        obs[:, sl["single_row"].start] = state.single_row
    if rules.hand_assignment == "expose":
        shown = by_rel(state.exposed.astype(np.int64))                  # (B, P) card index, -1 none
        kind = np.where(shown >= 0, t.card_kind[np.maximum(shown, 0)], -1)
        b_i, j_i = np.nonzero(kind >= 0)
        obs[b_i, sl["exposed"].start + j_i * t.n_kinds + kind[b_i, j_i]] = 1
    if rules.merchant_trade:
        c = _consts(rules)
        n = len(c.ex_kind)
        step = state.exch_step.astype(np.int64)
        obs[:, sl["trading"].start] = (state.phase == 0) & (step < n) & (c.ex_kind[np.minimum(step, max(n - 1, 0))] > 0)
        pick = state.trade_pick[ar, seat].astype(np.int64)
        has = pick >= 0
        obs[ar[has], sl["trade_pick"].start + t.card_kind[pick[has]]] = 1
    if rules.quick_clear:
        obs[:, sl["claiming"].start] = my_turn & (state.claim_rank >= 0)
        obs[:, sl["clear_count"].start] = state.qc_count
    if rules.names_cards:
        obs[:, sl["own_cards"]] = state.hands[ar, seat]
        obs[:, sl["played_cards"]] = state.played_cards
        obs[:, sl["top_cards"]] = state.top_cards
    if rules.runs:
        obs[:, sl["top_run"].start] = state.top_run
    if rules.poker:
        tc = state.top_claim.astype(np.int64)
        on = tc > 0
        obs[ar[on], sl["top_claim"].start + tc[on] - 1] = 1
        mine = my_turn & (state.poker_claim > 0)
        mc = state.poker_claim.astype(np.int64)
        obs[ar[mine], sl["claim"].start + mc[mine] - 1] = 1
        obs[:, sl["picked"]] = state.picked & mine[:, None]
    return obs
