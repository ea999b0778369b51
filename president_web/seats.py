"""What each player did last in the hand, drawn beside their seat so a player sees the others' moves.

:class:`LastPlays` hears of every decision of the play (Play's session and Watch's replay
both tell it) and keeps, per player, the latest one: its words, the cards it played (none
for a pass) and the trick it was made in, so the page can fade a play of an earlier trick.
The exchange's decisions are not kept (the log says what may be seen of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from president_env.core import PLAY, Rules, State

from .views import names_view


class LastPlays:
    """Each player's latest decision of the hand in play, and the number of the trick in play."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.new_hand()

    def new_hand(self) -> None:
        """Forget the last hand's plays."""
        self.plays: list[dict[str, Any] | None] = [None] * self.players
        self.trick = 0

    def heard(self, rules: Rules, before: State, after: State, actor: int, action: int, words: str,
              cards: Sequence[str], game: int = 0) -> None:
        """A decision of ``actor`` that took the game from ``before`` to ``after`` (the play phase only)."""
        if int(before.phase[game]) != PLAY:
            return
        self.plays[actor] = {"words": words, "pass": action == 0, "trick": self.trick,
                             "cards": names_view(rules, cards) if action else []}
        if int(after.phase[game]) != PLAY or int(after.top_owner[game]) < 0:   # the trick (or the hand) is over
            self.trick += 1

    def view(self) -> list[dict[str, Any] | None]:
        """By player: the latest play, with ``"current"`` when it belongs to the trick in play."""
        return [None if p is None else {**p, "current": p["trick"] == self.trick} for p in self.plays]
