"""The observation's layout: the named pieces of the flat vector, for a rules object.

The pieces and their meaning are documented in :mod:`president_env.core.observation`; this module
only lists them (``layout``, ``size``, ``slices``), with no engine code, so that the engine's tables
(:mod:`president_env.core.kernel.consts`) can read where each piece lies.
"""

from __future__ import annotations

from functools import lru_cache

from .cards import tables
from .poker import claim_table
from .rules import Rules


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
    if rules.suit_lock != "none":
        pieces.append(("lock", 4, "the locked suits (suit_order), all zero when no lock"))
        pieces.append(("top_suits", 4, "the suits of the play on top (the joker's: the suit it stands for)"))
    if rules.run_joker_ends or rules.run_beat == "clear_above":
        pieces.append(("top_run_low", 1, "the run on top's lowest place in rank_order + 1 (0: below it); "
                       "0 without a run on top"))
    if rules.eleven_back:
        pieces.append(("eleven_back", 1, "a J has reversed the order until the trick ends"))
    if rules.pass_limit:
        pieces.append(("pass_run", 1, "passes in a row (across tricks) toward pass_limit"))
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
