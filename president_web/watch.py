"""Watch: records files read as data, and a recorded hand as a list of frames to step through.

A records file (JSON lines, :mod:`president_env.core.records`) is parsed line by line and
every record is checked (its fields; its play when a hand is opened, by replaying it),
so a corrupt file is refused with the line and the reason, never half read. A hand
becomes frames: the table at the start of the hand, then after every decision, as an
onlooker sees it (every hand) or as one player sees it.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from president_env.core import PLAY
from president_env.core.records import RecordError, ReplayError, iter_record_lines, replay_steps, rules_of
from president_env.core.render import rank_name

from .seats import LastPlays
from .views import NotFound, decision_words, next_top, poker_quiet, poker_step_words, table_view

MAX_RECORDS_BYTES = 64 * 1024 * 1024


class RecordsError(ValueError):
    """A records file (or a request for one of its hands) that cannot be used: the message says why."""


@dataclass
class RecordSet:
    """The records of one file, checked field by field."""

    name: str
    records: list[dict[str, Any]]

    @classmethod
    def parse(cls, name: str, text: str) -> RecordSet:
        """Parse JSON-lines text; raise :class:`RecordsError` naming the first bad line."""
        if len(text.encode("utf-8", errors="replace")) > MAX_RECORDS_BYTES:
            raise RecordsError(f"{name}: larger than {MAX_RECORDS_BYTES // 2**20} MB")
        records = []
        try:
            for n, rec in iter_record_lines(text.splitlines(), name):
                try:
                    rules_of(rec)
                except ReplayError as e:
                    raise RecordsError(f"{name}:{n}: {e}") from None
                records.append(rec)
        except RecordError as e:
            raise RecordsError(str(e)) from None
        if not records:
            raise RecordsError(f"{name}: no records in it (a records file holds one JSON record a line)")
        return cls(name, records)

    def summaries(self) -> list[dict[str, Any]]:
        """One line per hand for the page's list."""
        return [{"index": i, "preset": r["preset"], "session": r["session"], "hand": r["hand"],
                 "players": len(r["agents"]), "agents": r["agents"], "decisions": len(r["decisions"]),
                 "points": r["points"]} for i, r in enumerate(self.records)]

    def frames(self, index: int, viewer: int | None = None) -> dict[str, Any]:
        """Hand ``index`` as frames (replayed and checked); ``viewer`` a player number or None for all hands."""
        if not 0 <= index < len(self.records):
            raise RecordsError(f"{self.name} has hands 0..{len(self.records) - 1}, not {index}")
        rec = self.records[index]
        P = len(rec["agents"])
        if viewer is not None and not 0 <= viewer < P:
            raise RecordsError(f"viewer must be a player 0..{P - 1} (or all), got {viewer}")
        rules = rules_of(rec)
        agents = rec["agents"]
        frames: list[dict[str, Any]] = []
        last_plays = LastPlays(P)
        intro = [f"{rec['preset']}, session {rec['session']}, hand {rec['hand']}; dealer seat {rec['dealer']}"]
        if rec["prev_ranks"] is not None:
            intro.append("ranks: " + ", ".join(f"p{p} {rank_name(r, P)}" for p, r in enumerate(rec["prev_ranks"])))
        for g in rec["exchanges"]:
            show = viewer is None or viewer in (g["from"], g["to"])
            intro.append(f"exchange: p{g['from']} gives {len(g['cards'])} best card(s)"
                         + (f" ({' '.join(g['cards'])})" if show else "") + f" to p{g['to']}")
        top: list[str] | None = None
        try:
            for step in replay_steps(rec):
                if step.index == 0:
                    frames.append({"event": " | ".join(intro), "table": table_view(
                        rules, step.before, viewer, agents, session=False, last=last_plays.view())})
                d = step.decision
                is_play = int(step.before.phase[0]) == PLAY
                seen = viewer is None or viewer == d["agent"]
                if poker_quiet(rules, step.before, d["action"], d["cards"]):  # a claim, or a pick before the last
                    words = poker_step_words(rules, d["action"], seen)
                else:
                    words = decision_words(rules, step.before, d["action"], d["cards"])
                    last_plays.heard(rules, step.before, step.after, d["agent"], d["action"], words, d["cards"])
                shown = d["cards"] if (is_play or seen) else None
                event = f"p{d['agent']} {agents[d['agent']]}: {words}" + (f" ({' '.join(shown)})" if shown else "")
                last = step.index == len(rec["decisions"]) - 1
                if is_play:
                    top = next_top(rules, step.after, d["cards"], top)
                if last:
                    event += " | hand over: " + ", ".join(
                        f"{i + 1}. p{p} ({rank_name(i, P)}) {rec['points'][p]:+d}"
                        for i, p in enumerate(rec["finish_order"]))
                table = table_view(rules, step.after, viewer, agents, top_cards=None if last else top, session=False,
                                   hand_points=rec["points"] if last else None, last=last_plays.view())
                if last:   # the record's one hand is over, not its session
                    table.update(phase="hand over", prompt="hand over", hand_no=rec["hand"],
                                 top_text="nothing (hand over)")
                frames.append({"event": event, "table": table})
        except (RecordError, ReplayError) as e:
            raise RecordsError(f"{self.name}, hand {index}: does not replay: {e}") from None
        return {"summary": self.summaries()[index], "viewer": viewer, "frames": frames}


class RecordStore:
    """Record sets by id: ``"cli"`` for the file given on the command line, random ids for uploads."""

    def __init__(self, limit: int = 32) -> None:
        self.limit = limit
        self._sets: OrderedDict[str, RecordSet] = OrderedDict()
        self._public: set[str] = set()
        self.lock = threading.Lock()

    def add(self, records: RecordSet, set_id: str | None = None) -> str:
        """Keep ``records``; with ``set_id`` it is listed for every visitor, else it gets a random id that
        only the uploader learns."""
        with self.lock:
            if set_id is not None:
                self._public.add(set_id)
            else:
                set_id = secrets.token_urlsafe(12)
            self._sets[set_id] = records
            while len(self._sets) > self.limit:
                old, _ = self._sets.popitem(last=False)
                self._public.discard(old)
        return set_id

    def get(self, set_id: str) -> RecordSet:
        with self.lock:
            found = self._sets.get(set_id)
        if found is None:
            raise NotFound(f"no records file {set_id!r} on this server (upload it again)")
        return found

    def listing(self) -> list[dict[str, Any]]:
        """The sets every visitor may open (the command line's)."""
        with self.lock:
            return [{"id": k, "name": v.name, "hands": len(v.records)} for k, v in self._sets.items()
                    if k in self._public]
