"""Write our records of ``uecda`` hands in the UECda record format (``.dat``): the inverse of the importer.

The format is section 4 of ``shared/spec/uecda.md``, as :mod:`.uecda_record` reads it: a ``player`` line,
then per game ``/*``, ``game N``, ``score``, ``class``, ``seat``, ``dealt``, ``changed``, ``original``,
``play``, ``result``, ``*/``. Cards are written suit then rank in lowercase (``c3``, ``dt``, ``jo``), in the
reference server's order (rank, then suit C D H S); moves as the server logs them: ``p``, ``jk``, ``ds-9(s)``,
``cdhsx-7``, ``h-678(7)`` (``-`` and ``+``: a run's virtual places below 3 and above 2), each followed by
``[µs]`` where the time the mover took is known (``president uecda-server`` measures it; a record made
elsewhere has none, and the token has no brackets, which the reader accepts).

:func:`move_token` writes one action, :func:`game_lines` one hand, :func:`format_uecda_record` a file.
``import-uecda`` of what they write gives back the same hands, move for move (tests/test_uecda_export.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .actions import action_table
from .rules import Rules
from .uecda_record import DECK, JOKER, N_PLAYERS

__all__ = ["format_uecda_record", "game_lines", "move_token", "relabel_players", "uecda_card"]

_ORDER = {c: i for i, c in enumerate(DECK)}
_RUN_PLACES = "<3456789TJQKA2>"                       # a run's places, the virtual ends included


def uecda_card(card: str) -> str:
    """A card as the format writes it: ``3C`` -> ``c3``, ``TD`` -> ``dt``, ``JK`` -> ``jo``."""
    if card == JOKER:
        return "jo"
    if card not in _ORDER:
        raise ValueError(f"{card!r} is not a card of the UECda deck")
    return card[1].lower() + card[0].lower()


def _cards_field(cards: Sequence[str]) -> str:
    return "{ " + "".join(uecda_card(c) + " " for c in sorted(cards, key=_ORDER.__getitem__)) + "}"


@lru_cache(maxsize=8)
def _tokens(rules: Rules) -> tuple[str, ...]:
    """The move token of every action id of the rules' table (no time)."""
    at = action_table(rules)
    out = ["p"]
    for i in range(1, at.n):
        cards, ja, wild = at.cards[i], at.joker_as[i], int(at.wild[i]) > 0
        if not cards:                                      # the lone joker
            out.append("jk")
        elif at.run[i]:
            suit = cards[0][1]
            places = sorted([c[0] for c in cards] + ([ja[0]] if wild else []), key=_RUN_PLACES.index)
            text = "".join(places).lower().replace("<", "-").replace(">", "+")
            joker = f"({ja[0].lower().replace('<', '-').replace('>', '+')})" if wild else ""
            out.append(f"{suit.lower()}-{text}{joker}")
        else:
            rank = cards[0][0]
            suits = sorted(c[1] for c in cards)
            if wild and ja.endswith("*"):                  # the five-card set: four naturals and the joker
                out.append(f"cdhsx-{rank.lower()}")
            elif wild:
                both = sorted(suits + [ja[1]], key="CDHS".index)
                out.append(f"{''.join(both).lower()}-{rank.lower()}({ja[1].lower()})")
            else:
                out.append(f"{''.join(sorted(suits, key='CDHS'.index)).lower()}-{rank.lower()}")
    return tuple(out)


def move_token(rules: Rules, action: int, time_us: int | None = None) -> str:
    """The ``play`` token of one action id (``time_us``: the time the mover took, written in brackets)."""
    tokens = _tokens(rules)
    if not 0 <= action < len(tokens):
        raise ValueError(f"action {action} is out of range 0..{len(tokens) - 1}")
    return tokens[action] + ("" if time_us is None else f"[{int(time_us)}]")


def game_lines(rules: Rules, record: dict[str, Any], number: int | None = None,
               times_us: Sequence[int] | None = None) -> list[str]:
    """One hand of our records (preset ``uecda``, five players) as the lines of a UECda game, ``/*`` to ``*/``.

    ``number`` writes a ``game N`` line; ``times_us``, one per decision of the record, the time each took."""
    if len(record["seats"]) != N_PLAYERS:
        raise ValueError(f"a UECda game has {N_PLAYERS} players, the record {len(record['seats'])}")
    decisions = record["decisions"]
    if times_us is not None and len(times_us) != len(decisions):
        raise ValueError(f"times_us has {len(times_us)} entries, the record {len(decisions)} decisions")
    ranks = record["prev_ranks"]
    gifts = record["exchanges"] if ranks is not None else []
    n_back = sum(len(g["cards"]) for g in gifts)           # each gift is answered by as many give-backs
    changed: list[list[str]] = [[] for _ in range(N_PLAYERS)]
    original = [list(h) for h in record["deal"]]

    def move(giver: int, receiver: int, cards: list[str]) -> None:
        for c in cards:
            original[giver].remove(c)
            original[receiver].append(c)
        changed[giver] += cards

    for g in gifts:                                        # the forced gifts, then the give-backs
        move(g["from"], g["to"], g["cards"])
    partner = {g["to"]: g["from"] for g in gifts}
    for d in decisions[:n_back]:
        move(d["agent"], partner[d["agent"]], d["cards"] or [JOKER])
    seat_of = [record["seats"].index(p) for p in range(N_PLAYERS)]
    classes = ranks if ranks is not None else list(range(N_PLAYERS))
    places = [record["finish_order"].index(p) for p in range(N_PLAYERS)]
    plays = [move_token(rules, int(d["action"]), None if times_us is None else times_us[n_back + k])
             for k, d in enumerate(decisions[n_back:])]
    lines = ["/* "] + ([f"game {number} "] if number is not None else []) + [
        "score ",
        "class " + "".join(f"{c} " for c in classes),
        "seat " + "".join(f"{s} " for s in seat_of),
        "dealt " + "".join(_cards_field(h) + " " for h in record["deal"]),
        "changed " + "".join(_cards_field(h) + " " for h in changed),
        "original " + "".join(_cards_field(h) + " " for h in original),
        "play " + "".join(t + " " for t in plays),
        "result " + "".join(f"{r} " for r in places),
        "*/ ",
    ]
    return lines


def format_uecda_record(rules: Rules, records: Sequence[dict[str, Any]], names: Sequence[str],
                        times_us: Sequence[Sequence[int]] | None = None, numbered: bool = True) -> str:
    """A whole UECda record file: the ``player`` line (``names``, spaces replaced by ``_``) and every hand."""
    if len(names) != N_PLAYERS:
        raise ValueError(f"a UECda record names {N_PLAYERS} players, got {len(names)}")
    out = ["player " + " ".join("_".join(str(n).split()) or "-" for n in names)]
    for k, r in enumerate(records):
        out += game_lines(rules, r, k if numbered else None, None if times_us is None else times_us[k])
    return "\n".join(out) + "\n"


def relabel_players(record: dict[str, Any], label: Sequence[int]) -> dict[str, Any]:
    """A copy of a hand's record with player ``q`` renamed ``label[q]`` in every field that names players (the
    seats, the deal, the ranks, the exchange, the decisions, the places, the points): a duplicate match's
    rotation told by the clients' numbers. The game is the same; only the names of the players change."""
    P = len(record["seats"])
    if sorted(label) != list(range(P)):
        raise ValueError(f"label must be a permutation of 0..{P - 1}, got {list(label)}")

    def by_player(values: list) -> list:
        out = [None] * P
        for q, v in enumerate(values):
            out[label[q]] = v
        return out

    out = dict(record)
    out["agents"] = by_player(record["agents"])
    out["seats"] = [label[q] for q in record["seats"]]
    out["deal"] = by_player(record["deal"])
    out["prev_ranks"] = None if record["prev_ranks"] is None else by_player(record["prev_ranks"])
    out["exchanges"] = [{**g, "from": label[g["from"]], "to": label[g["to"]]} for g in record["exchanges"]]
    out["decisions"] = [{**d, "agent": label[d["agent"]]} for d in record["decisions"]]
    out["finish_order"] = [label[q] for q in record["finish_order"]]
    out["points"] = by_player(record["points"])
    return out
