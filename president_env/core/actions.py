"""The action table: id 0 is pass, then one id per (play rank, size).

``id = 1 + rank * max_set + (size - 1)`` where ``rank`` indexes the play ranks of
:mod:`president_env.core.cards` (natural and joker ranks weakest first, then
``WILD`` for an all-wild set) and ``size`` runs 1..``4 x decks``. During the
exchange the same ids name a give-back: a size-1 id gives one card of that rank
(the lowest suit; for ``WILD`` the least wild card).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import WILD, tables
from .rules import Rules

PASS = 0
_SIZE_WORDS = {1: "single", 2: "pair", 3: "three", 4: "four"}


@dataclass(frozen=True, eq=False)
class ActionTable:
    """Id <-> (rank, size) for one rules object. Row 0 is pass (rank -1, size 0)."""

    rank: np.ndarray   # (A,) play-rank index, -1 for pass
    size: np.ndarray   # (A,) cards in the set, 0 for pass
    names: tuple[str, ...]  # play rank name of each id ("" for pass)

    @property
    def n(self) -> int:
        return len(self.rank)

    def rows(self) -> list[dict]:
        """The table as plain rows {id, rank, size, words}: for docs and records."""
        return [
            {"id": i, "rank": self.names[i] or None, "size": int(self.size[i]),
             "words": _words(self.names[i], int(self.size[i]))}
            for i in range(self.n)
        ]


@lru_cache(maxsize=128)
def action_table(rules: Rules) -> ActionTable:
    """The action table of ``rules``."""
    t = tables(rules)
    S = rules.max_set
    R = t.n_play_ranks
    rank = np.concatenate([[-1], np.repeat(np.arange(R), S)]).astype(np.int64)
    size = np.concatenate([[0], np.tile(np.arange(1, S + 1), R)]).astype(np.int64)
    names = ("",) + tuple(t.play_ranks[r] for r in rank[1:])
    return ActionTable(rank=rank, size=size, names=names)


def n_actions(rules: Rules) -> int:
    return 1 + tables(rules).n_play_ranks * rules.max_set


def action_id(rules: Rules, rank: str, size: int) -> int:
    """The id of playing ``size`` cards of ``rank`` ("7", "JK", "WILD")."""
    t = tables(rules)
    rank = "T" if str(rank) == "10" else str(rank).upper()
    if rank not in t.play_ranks:
        raise ValueError(f"{rank!r} is not a play rank under these rules; play ranks are {t.play_ranks}")
    if not 1 <= size <= rules.max_set:
        raise ValueError(f"size {size} out of range 1..{rules.max_set}")
    return 1 + t.play_ranks.index(rank) * rules.max_set + size - 1


def _words(name: str, size: int) -> str:
    if size == 0:
        return "pass"
    shown = "wild card" if name == WILD else name
    if size == 1:
        return f"single {shown}"
    count = _SIZE_WORDS.get(size, f"{size} x")
    return f"{count} {shown}s" if size > 2 else f"pair of {shown}s"


def describe_action(rules: Rules, action: int, exchange: bool = False, trade: bool = False,
                    claim: bool = False) -> str:
    """An action id in words: 'pass', 'pair of 7s', 'give back a 7' in the exchange, 'trade a 7'
    when ``trade`` (a merchant's pick under ``merchant_trade``), or 'claim a quick clear: pair of 7s' /
    'decline the quick clear' when ``claim`` (a player asked under ``quick_clear``)."""
    table = action_table(rules)
    if not 0 <= int(action) < table.n:
        raise ValueError(f"action {action} out of range 0..{table.n - 1}")
    name, size = table.names[action], int(table.size[action])
    if claim:
        return f"claim a quick clear: {_words(name, size)}" if size else "decline the quick clear"
    if (exchange or trade) and size >= 1:
        return f"{'trade' if trade else 'give back'} a {'wild card' if name == WILD else name}"
    return _words(name, size)
