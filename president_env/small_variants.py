"""Small variants of President made for exact game-theoretic analysis (OpenSpiel's NashConv, CFR).

They are not presets of the rule book (``president variants`` does not list them, and the zoo,
golden records and tournaments cover the rule book's presets only): each is three players (one
four) and a pack of six to nine cards, so that the whole single-hand game tree, every deal included, fits in
a few seconds (``micro``) to a few minutes (``tiny``) of plain Python, and in a fraction of a second
to seconds of the compiled best response (:mod:`agents.nash_conv`). The ``tiny`` family has the
house rules that change the strategy most as variants: ``_locks`` (a pass locks you out of the
trick), ``_trumps`` (a play of aces ends the trick at once), ``_revolution`` (equal ranks beat, and
four single plays of one rank in a row turn the rank order round); ``micro`` has the revolution
only (with two cards a hand, locks and trumps change nothing there).

``micro``: four aces and two jokers (jokers high), two cards each: 8,262 decisions and 348
information sets in a hand. ``tiny``: four kings and four aces, 3/3/2 cards: 256,140 decisions
and 7,392 information sets (``tiny_revolution``, where equal ranks beat, has 2,042,628 and 50,052).
``tiny_joker`` adds a joker to ``tiny`` (9 cards, 3 each): 3,340,620 decisions and 30,468
information sets, seconds for the compiled best response; the heuristic is exploitable there
without a revolution. ``tiny4_joker`` deals those 9 cards to four players (3/2/2/2): 22,993,056
decisions and 356,656 information sets, one to two minutes to build the tree.

Every name gives a :class:`Rules` through :func:`small_variant` (or :func:`variant_rules`, which also
takes the rule book's presets); the OpenSpiel game takes them as ``president(preset=micro)``.
"""

from __future__ import annotations

from typing import Any

from president_env.core.rules import PRESETS, Rules, RulesError, preset

__all__ = ["SMALL_VARIANTS", "SMALL_VARIANT_TABLE", "small_variant", "variant_rules", "variant_names"]

_MICRO: dict[str, Any] = {"players": 3, "rank_order": ("A",), "jokers": 2}
_TINY: dict[str, Any] = {"players": 3, "rank_order": ("K", "A")}
_LOCKS: dict[str, Any] = {"pass_rule": "locks_out"}
_TRUMPS: dict[str, Any] = {"trump_ranks": {"A"}}
_REVOLUTION: dict[str, Any] = {"equal_rank_beats": True, "four_of_a_kind": "revolution",
                               "revolution_by_singles": True}

#: name -> (what it is, options on top of the ``president`` preset)
SMALL_VARIANT_TABLE: dict[str, tuple[str, dict[str, Any]]] = {
    "micro": ("3 players, 4 aces + 2 jokers (6 cards)", _MICRO),
    "micro_revolution": ("micro, equal ranks beat, four aces in a row revolt", {**_MICRO, **_REVOLUTION}),
    "tiny": ("3 players, 4 kings + 4 aces (8 cards)", _TINY),
    "tiny_locks": ("tiny, a pass locks you out of the trick", {**_TINY, **_LOCKS}),
    "tiny_trumps": ("tiny, aces are trumps (end the trick)", {**_TINY, **_TRUMPS}),
    "tiny_revolution": ("tiny, equal ranks beat, four singles of a rank in a row revolt", {**_TINY, **_REVOLUTION}),
    "tiny_joker": ("tiny and a joker (high): 9 cards, 3 each", {**_TINY, "jokers": 1}),
    "tiny4_joker": ("tiny_joker for 4 players: 9 cards, 3/2/2/2", {**_TINY, "jokers": 1, "players": 4}),
}
SMALL_VARIANTS: tuple[str, ...] = tuple(SMALL_VARIANT_TABLE)


def small_variant(name: str, **overrides: Any) -> Rules:
    """The small variant ``name`` with ``overrides`` applied (``RulesError`` names an unknown one)."""
    key = name.lower()
    if key not in SMALL_VARIANT_TABLE:
        raise RulesError(f"unknown small variant {name!r}; small variants are: {', '.join(SMALL_VARIANTS)}")
    base = preset("president")
    return Rules(**{**base.to_dict(), **SMALL_VARIANT_TABLE[key][1], **overrides, "name": key})


def variant_rules(name: str, **overrides: Any) -> Rules:
    """A rule book preset or a small variant by name; ``RulesError`` lists both when the name is unknown."""
    if name.lower() in SMALL_VARIANT_TABLE:
        return small_variant(name, **overrides)
    try:
        return preset(name, **overrides)
    except RulesError as exc:
        if "unknown preset" not in str(exc):
            raise
        raise RulesError(f"unknown preset {name!r}; presets are: {', '.join(PRESETS)}; small variants are: "
                         f"{', '.join(SMALL_VARIANTS)}") from None


def variant_names() -> tuple[str, ...]:
    """Every name :func:`variant_rules` takes: the rule book's presets, then the small variants."""
    return PRESETS + SMALL_VARIANTS
