"""What the web page draws: one game of a batch (a :class:`State`) as plain JSON.

:func:`table_view` is the table as one player sees it (``viewer``: only that player's
cards) or as an onlooker with every hand shown (``viewer=None``): the seats with
their players, card counts, pass state, places, ranks and points; the play on top
and its cards; the phase and the exchange. :func:`legal_moves` lists the decisions
open to the player to act, each with the exact cards it would move, so that the page
can match a selection of clicked cards to a legal move. Under ``combinations poker`` a
play is a claim and then its cards picked one by one (docs/rules.md 41-48): the legal
claims are listed by name, grouped by kind, each with an example of the cards that
complete it, and :func:`decision_words` names a play on its last pick.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from president_env.core import EXCHANGE, OVER, PLAY, Rules, State, action_table, describe_action, tables
from president_env.core.engine import exchange_kind, step_inplace
from president_env.core.poker import (
    FIVE,
    FLUSH,
    FOUR,
    FULL_HOUSE,
    SET,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    WILD_SET,
    claim_table,
    play_words,
)
from president_env.core.render import PASS_WORDS, rank_name, top_words


class NotFound(LookupError):
    """A game token or a records file the server does not hold (answered 404)."""


SUIT_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
PHASES = ("exchange", "play", "over")


def card_view(name: str, kind: str) -> dict[str, Any]:
    """One card as the page draws it: ``{"name": "7H", "kind": "7", "rank": "7", "suit": "\u2665", "red": true}``."""
    suit = name[len(kind):] if name != kind else ""
    return {
        "name": name,
        "kind": kind,
        "rank": "10" if kind == "T" else kind,
        "suit": SUIT_SYMBOLS.get(suit, ""),
        "red": suit in ("D", "H") or name == "RJ",
    }


def cards_view(rules: Rules, row: np.ndarray) -> list[dict[str, Any]]:
    """A (C,) bool row of cards as card views, weakest first, each with its ``match`` token."""
    t = tables(rules)
    return [{**card_view(t.card_names[c], t.kinds[t.card_kind[c]]), "match": match_token(rules, c)}
            for c in np.flatnonzero(row)]


def match_token(rules: Rules, card: int) -> str:
    """What identifies a card among a move's cards: its kind on rank-based rules (the engine picks the
    suits), its name on card-level rules (``*`` for a wild card: the engine picks which wild cards go;
    ``*2D`` where sets name their wild cards, ``Rules.names_wild_cards``) and in poker (every pick names its
    card)."""
    t = tables(rules)
    if rules.poker:
        return t.card_names[card]
    if not rules.card_level:
        return t.kinds[t.card_kind[card]]
    if not t.card_wild[card]:
        return t.card_names[card]
    if rules.names_wild_cards:
        return "*" + t.card_names[card]
    return "*"


def names_view(rules: Rules, names: Sequence[str]) -> list[dict[str, Any]]:
    """Card names (as a record lists them) as card views."""
    t = tables(rules)
    kind_of = {n: t.kinds[t.card_kind[c]] for c, n in enumerate(t.card_names)}
    return [card_view(n, kind_of[n]) for n in names]


def seat_of(state: State, player: int, game: int = 0) -> int:
    """The seat ``player`` sits in."""
    return int(np.flatnonzero(state.seat_player[game] == player)[0])


def prompt(rules: Rules, state: State, game: int = 0) -> str:
    """What the decision to make is: ``"play"``, ``"claim"`` (a quick clear), ``"give back"``, ``"trade"``
    or ``"over"``."""
    phase = int(state.phase[game])
    if phase == OVER:
        return "over"
    if phase == EXCHANGE:
        return "trade" if int(exchange_kind(rules, state)[game]) > 0 else "give back"
    return "claim" if int(state.claim_rank[game]) >= 0 else "play"


def action_words(rules: Rules, state: State, action: int, game: int = 0) -> str:
    """``describe_action`` for the decision ``state`` is at (a give-back or trade in the exchange)."""
    p = prompt(rules, state, game)
    return describe_action(rules, action, exchange=p == "give back", trade=p == "trade", claim=p == "claim")


def decision_words(rules: Rules, before: State, action: int, cards: Sequence[str], game: int = 0) -> str:
    """:func:`action_words`, except that a poker play's last pick (the decision that moves ``cards``)
    names the play: 'full house, sevens over fours'."""
    if rules.poker and action and cards and prompt(rules, before, game) == "play":
        return play_words(rules, int(before.poker_claim[game]), list(cards))
    return action_words(rules, before, action, game)


def poker_quiet(rules: Rules, before: State, action: int, cards: Sequence[str], game: int = 0) -> bool:
    """A poker claim or a pick that is not the claim's last: it moves no card and no turn, and the other
    players do not see it (docs/rules.md 45)."""
    return bool(rules.poker and action and not cards and prompt(rules, before, game) == "play")


def poker_step_words(rules: Rules, action: int, seen: bool) -> str:
    """A poker claim or a pick before the last, as a record's onlooker sees it: 'claim: full house of
    sevens', 'pick 7H'; or, when ``seen`` is false (another player's view), without what it was."""
    is_claim = action <= claim_table(rules).X
    if not seen:
        return "makes a claim (hidden)" if is_claim else "picks a card (hidden)"
    return f"claim: {describe_action(rules, action)}" if is_claim else describe_action(rules, action)


_GROUPS = {TWO_PAIR: "two pair", STRAIGHT: "straights", FLUSH: "flushes", FULL_HOUSE: "full houses",
           FOUR: "fours of a kind", STRAIGHT_FLUSH: "straight flushes", FIVE: "fives of a kind"}
_PREFIXES = ("single ", "pair of ", "three ", "two pair, ", "straight flush ", "straight ", "flush, ",
             "full house of ", "four ", "five ")


def claim_group(rules: Rules, claim: int) -> tuple[str, str]:
    """A poker claim's group ('pairs', 'full houses', 'wild cards') and its name within it ('sevens',
    '3 to 7', 'ace high'): what the page lists the legal claims by."""
    ct = claim_table(rules)
    kind, n, words = int(ct.kind[claim]), int(ct.n[claim]), ct.words[claim]
    if kind == WILD_SET:
        return "wild cards", words.replace(" wild cards", "").replace(" wild card", "").replace(" of", "")
    group = ("singles", "pairs", "threes")[n - 1] if kind == SET else _GROUPS[kind]
    label = next((words[len(p):] for p in _PREFIXES if words.startswith(p)), words)
    return group, label


def legal_moves(rules: Rules, state: State, game: int = 0) -> list[dict[str, Any]]:
    """The legal decisions of the player to act: ``{"id", "words", "cards", "kinds", "match"}`` each.

    ``cards`` are the card names the move would take from the hand (found by making
    every legal move on copies of the game); ``kinds`` their kinds, sorted, which is
    what identifies a move among the legal ones on rank-based rules (the engine chooses the
    suits); ``match`` the sorted :func:`match_token` of its cards, what the page compares a
    selection with on any rules.

    Poker (play phase): a claim has ``"claim": true``, its ``group`` and ``label``
    (:func:`claim_group`) and as ``cards`` an example of the cards that complete it (the
    weakest legal pick each time); a pick has ``"claim": false`` and its one card.
    """
    legal = np.flatnonzero(state.legal[game])
    if int(state.phase[game]) == OVER:
        return []
    if rules.poker and int(state.phase[game]) == PLAY:
        return _poker_moves(rules, state, legal, game)
    copies = state.take(np.full(legal.size, game))
    step_inplace(rules, copies, legal.astype(np.int64))
    t = tables(rules)
    out = []
    for i, a in enumerate(legal):
        cards = [t.card_names[int(c)] for c in np.flatnonzero(copies.moved[i])]
        out.append(_move(rules, state, int(a), cards, game))
    return out


def _move(rules: Rules, state: State, action: int, cards: list[str], game: int) -> dict[str, Any]:
    t = tables(rules)
    ids = {n: c for c, n in enumerate(t.card_names)}
    return {
        "id": action,
        "words": action_words(rules, state, action, game),
        "cards": cards,
        "kinds": sorted(t.kinds[t.card_kind[ids[n]]] for n in cards),
        "match": sorted(match_token(rules, ids[n]) for n in cards),
    }


def _poker_moves(rules: Rules, state: State, legal: np.ndarray, game: int) -> list[dict[str, Any]]:
    """Poker play: the pass, the legal claims with an example each, or the legal picks of a pending claim."""
    at, ct = action_table(rules), claim_table(rules)
    claims = [int(a) for a in legal if 1 <= a <= ct.X]
    examples = poker_examples(rules, state, claims, game)
    out = []
    for a in (int(a) for a in legal):
        if a == 0:
            out.append(_move(rules, state, 0, [], game))
        elif a in examples:
            group, label = claim_group(rules, a)
            out.append({**_move(rules, state, a, examples[a], game), "claim": True, "group": group, "label": label})
        else:
            out.append({**_move(rules, state, a, [at.cards[a][0]], game), "claim": False})
    return out


def poker_examples(rules: Rules, state: State, claims: Sequence[int], game: int = 0) -> dict[int, list[str]]:
    """For each legal claim, cards that complete it: the claim made on a copy of the game, then the
    weakest legal pick until the play is made (every legal pick can be completed, docs/rules.md 45)."""
    ct = claim_table(rules)
    t = tables(rules)
    out: dict[int, list[str]] = {}
    for n in sorted({int(ct.n[c]) for c in claims}):
        ids = np.array([c for c in claims if ct.n[c] == n], dtype=np.int64)
        copies = state.take(np.full(ids.size, game))
        step_inplace(rules, copies, ids)
        for _ in range(n):
            picks = ct.X + 1 + np.argmax(copies.legal[:, ct.X + 1:], axis=1)
            step_inplace(rules, copies, picks.astype(np.int64))
        for i, c in enumerate(ids):
            out[int(c)] = [t.card_names[int(k)] for k in np.flatnonzero(copies.moved[i])]
    return out


def next_top(rules: Rules, after: State, cards: Sequence[str], top: list[str] | None,
             game: int = 0) -> list[str] | None:
    """The cards of the play on top after a decision that moved ``cards`` (the state holds only
    the top's rank and size): the new play's cards, the same top after a pass, none once the
    trick is over."""
    if int(after.phase[game]) != PLAY or int(after.top_owner[game]) < 0:
        return None
    return list(cards) if cards else top


def table_view(rules: Rules, state: State, viewer: int | None, agents: Sequence[str],
               game: int = 0, top_cards: Sequence[str] | None = None, *, session: bool = True,
               hand_points: Sequence[int] | None = None,
               last: Sequence[dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """The table of one game as ``viewer`` sees it (``None``: every hand shown).

    ``top_cards`` are the cards of the play on top (see :func:`next_top`). Each seat's
    ``points`` are the session's, as the command line shows them; ``session=False`` (a
    record, which holds one hand) leaves them out. ``hand_points`` (by player) are the
    points of a hand that is over; ``last`` (by player) what each did last this hand
    (:class:`~president_web.seats.LastPlays`).
    """
    b, P = game, rules.players
    t = tables(rules)
    phase = int(state.phase[b])
    sp = state.seat_player[b]
    seats = []
    for s in range(P):
        p = int(sp[s])
        fin = int(state.finish[b, s])
        shown = viewer is None or viewer == p
        seats.append({
            "seat": s,
            "player": p,
            "agent": agents[p],
            "n_cards": int(state.n_cards[b, s]),
            "cards": cards_view(rules, state.hands[b, s]) if shown else None,
            "passed": bool(state.passed[b, s]) and phase != OVER,
            "place": fin + 1 if fin >= 0 else None,
            "rank": rank_name(int(state.social[b, s]), P),
            "points": int(state.points[b, p]) if session else None,
            "hand_points": int(hand_points[p]) if hand_points is not None else None,
            "last": last[p] if last is not None else None,
            "acting": phase != OVER and int(state.current[b]) == s,
            "exposed": t.card_names[int(state.exposed[b, s])] if state.exposed[b, s] >= 0 else None,
        })
    owner = int(state.top_owner[b])
    top = None
    if owner >= 0 and phase != OVER:
        top = {"words": top_words(rules, state, b, agents), "player": int(sp[owner]),
               "cards": names_view(rules, top_cards) if top_cards else None}
        if rules.poker:  # the play by name ('full house, sevens over fours'), without its owner
            cards = [t.card_names[c] for c in np.flatnonzero(state.top_cards[b])]
            top["play"] = play_words(rules, int(state.top_claim[b]), cards)
            top["cards"] = names_view(rules, cards)
    claim = None
    acting = int(sp[int(state.current[b])]) if phase != OVER else None
    if rules.poker and phase == PLAY and int(state.poker_claim[b]) > 0 and viewer in (None, acting):
        # a claim being picked: only its maker sees it (or an onlooker of every hand)
        claim = {"id": int(state.poker_claim[b]), "words": describe_action(rules, int(state.poker_claim[b])),
                 "picked": [t.card_names[c] for c in np.flatnonzero(state.picked[b])]}
    return {
        "preset": rules.name,
        "players": P,
        "phase": PHASES[phase],
        "prompt": prompt(rules, state, b),
        "hand_no": int(state.hand_no[b]),
        "dealer": int(state.dealer[b]),
        "direction": "clockwise" if state.direction[b] > 0 else "counter-clockwise",
        "revolution": bool(state.revolution[b]),
        "pass_words": PASS_WORDS[rules.pass_rule],
        "acting_player": acting,
        "top": top,
        "poker": rules.poker,
        "claim": claim,
        "top_text": top_words(rules, state, b, agents),
        "seats": seats,
        "played": [{"kind": k, "n": int(n)} for k, n in zip(t.kinds, state.played[b], strict=True) if n],
    }
