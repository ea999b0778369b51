"""Action ids of the preset ``uecda`` <-> UECda play tables (``shared/spec/uecda.md`` sections 2, 3.6).

:func:`action_table_of` gives the play table an action id is sent as (the joker in the cell of the
card it stands for, at column 0 or 14 for a run's virtual end, at [4][rank's column] in a five-card
set, a lone joker as the public client sends it); :func:`action_of_play` gives the action id of a
play parsed by :func:`.tables.parse_play`, or None when the action table has no such play.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from president_env.core.actions import action_table
from president_env.core.rules import Rules

from .tables import SUIT_ROWS, Play, cell_of, column_of_rank, lone_joker_table, parse_play, play_table

__all__ = ["action_of_play", "action_table_of", "lone_joker_action"]


def _joker_cell(cards: tuple[str, ...], ja: str, run: bool) -> tuple[int, int]:
    """The cell of the joker for an action's ``joker_as`` word (``9S``, ``<C``, ``>C``, ``9*``)."""
    if run and ja[:1] in ("<", ">"):
        return SUIT_ROWS.index(ja[1]), 0 if ja[0] == "<" else 14
    if ja.endswith("*"):
        return 4, column_of_rank(ja[0])
    return cell_of(ja)


@lru_cache(maxsize=8)
def _tables(rules: Rules) -> tuple[dict[int, np.ndarray], dict[bytes, int], int]:
    """(action id -> play table, rows 0-4 bytes -> action id, the lone joker's id)."""
    at = action_table(rules)
    by_id: dict[int, np.ndarray] = {0: np.zeros((8, 15), dtype=np.int64)}
    by_cells: dict[bytes, int] = {}
    lone = -1
    for i in range(1, at.n):
        cards = tuple(at.cards[i])
        wild = int(at.wild[i]) > 0
        if wild and not cards:
            lone = i
            continue
        ja = at.joker_as[i] if at.joker_as else ""
        joker = _joker_cell(cards, ja, bool(at.run[i])) if wild else None
        t = play_table(cards, joker)
        by_id[i] = t
        by_cells[t[:5].astype(np.int64).tobytes()] = i
    return by_id, by_cells, lone


def lone_joker_action(rules: Rules) -> int:
    """The action id of the lone wild joker (-1 when the rules have none)."""
    return _tables(rules)[2]


def action_table_of(rules: Rules, action: int, top: Play | None = None, reversed_order: bool = False) -> np.ndarray:
    """The play table that sends ``action`` (0: all zero, a pass). A lone joker goes as the public client sends
    it: column 14 (0 under a reversed order), in row 0 on an empty table or the row after ``top``'s suit."""
    action = int(action)
    by_id, _, lone = _tables(rules)
    if action == lone:
        row = None
        if top is not None and top.cards:
            row = cell_of(top.cards[0])[0]
        return lone_joker_table(row, reversed_order)
    if action not in by_id:
        raise ValueError(f"action {action} is not an action of these rules (0..{len(by_id)})")
    return by_id[action].copy()


def action_of_play(rules: Rules, play: Play | np.ndarray) -> int | None:
    """The action id of a play (a :class:`.tables.Play` or a play table; 0 for a pass), None when the rules'
    action table has no such play (a form the engine does not know, such as a joker in a wrong cell)."""
    if not isinstance(play, Play):
        play = parse_play(play)
    if play.is_pass:
        return 0
    _, by_cells, lone = _tables(rules)
    if play.shape == "joker":
        return lone if lone >= 0 else None
    return by_cells.get(play.table()[:5].astype(np.int64).tobytes())
