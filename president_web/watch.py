"""Watch: records files read as data, and a recorded hand as a list of frames to step through.

A records file (JSON lines, :mod:`president_env.core.records`) is parsed line by line and
every record is checked (its fields; its play when a hand is opened, by replaying it),
so a corrupt file is refused with the line and the reason, never half read. A hand
becomes frames: the table at the start of the hand, then after every decision, as an
onlooker sees it (every hand) or as one player sees it.

A :class:`RecordSet` keeps its file's lines as bytes (parsed records take about seven times
the memory of their text) and parses a hand when it is opened. :class:`RecordStore` holds the
sets within a byte budget (:class:`~president_web.limits.Limits`): each client's uploads
within its share, all of them within the total; a client's least recently used upload goes
to make room for its next one, and an upload idle for an hour makes room for anyone's.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from president_env.core import PLAY
from president_env.core.jsonio import loads
from president_env.core.records import RecordError, ReplayError, iter_record_lines, replay_steps, rules_of
from president_env.core.render import rank_name

from .limits import Limits
from .seats import LastPlays
from .views import NotFound, decision_words, next_top, poker_quiet, poker_step_words, table_view

MAX_RECORDS_BYTES = 64 * 1024 * 1024   # a records file given on the command line
MAX_NAME = 200                         # characters of an upload's name


class RecordsError(ValueError):
    """A records file (or a request for one of its hands) that cannot be used: the message says why."""


class UploadsFull(RecordsError):
    """The server holds its budget of uploads (413)."""


@dataclass
class RecordSet:
    """The records of one file, checked field by field, kept as their lines."""

    name: str
    lines: list[bytes]
    _summaries: bytes          # the page's list of hands, as JSON

    @classmethod
    def parse(cls, name: str, text: str | bytes) -> RecordSet:
        """Parse JSON-lines text (or UTF-8 bytes); raise :class:`RecordsError` naming the first bad line."""
        data = text.encode("utf-8") if isinstance(text, str) else text
        if len(data) > MAX_RECORDS_BYTES:
            raise RecordsError(f"{name}: larger than {MAX_RECORDS_BYTES // 2**20} MB")
        raw = data.split(b"\n")
        lines, summaries = [], []
        try:
            for n, rec in iter_record_lines(raw, name):
                try:
                    rules_of(rec)
                except ReplayError as e:
                    raise RecordsError(f"{name}:{n}: {e}") from None
                summaries.append({"index": len(lines), "preset": rec["preset"], "session": rec["session"],
                                  "hand": rec["hand"], "players": len(rec["agents"]), "agents": rec["agents"],
                                  "decisions": len(rec["decisions"]), "points": rec["points"]})
                lines.append(raw[n - 1].rstrip(b"\r"))
        except RecordError as e:
            raise RecordsError(str(e)) from None
        if not lines:
            raise RecordsError(f"{name}: no records in it (a records file holds one JSON record a line)")
        return cls(name, lines, json.dumps(summaries, separators=(",", ":")).encode())

    @cached_property
    def nbytes(self) -> int:
        """About the memory the set takes: its lines and its list of hands."""
        return sum(len(line) + sys.getsizeof(b"") for line in self.lines) + len(self._summaries)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record, parsed (for a whole file at once; the page opens one hand at a time)."""
        return [self.record(i) for i in range(len(self.lines))]

    def record(self, index: int) -> dict[str, Any]:
        """Record ``index``, parsed from its line (checked when the set was made)."""
        return loads(self.lines[index])

    def summaries(self) -> list[dict[str, Any]]:
        """One line per hand for the page's list."""
        return json.loads(self._summaries)

    def frames(self, index: int, viewer: int | None = None, start: int = 0,
               count: int | None = None) -> dict[str, Any]:
        """Hand ``index`` as frames (replayed and checked); ``viewer`` a player number or None for all hands.

        Only frames ``start .. start + count - 1`` are built (all when ``count`` is None): the answer says the
        hand's ``total`` frames and the ``next`` page's first frame (None after the last), so an answer's size
        does not grow with the hand."""
        if not 0 <= index < len(self.lines):
            raise RecordsError(f"{self.name} has hands 0..{len(self.lines) - 1}, not {index}")
        rec = self.record(index)
        total = len(rec["decisions"]) + 1
        if not 0 <= start < total:
            raise RecordsError(f"{self.name}, hand {index}: has frames 0..{total - 1}, not {start}")
        stop = total if count is None else min(total, start + count)
        wanted = range(start, stop)
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
                if step.index == 0 and 0 in wanted:
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
                if step.index + 1 not in wanted:    # a frame off the page: replayed (and so checked), not built
                    continue
                table = table_view(rules, step.after, viewer, agents, top_cards=None if last else top, session=False,
                                   hand_points=rec["points"] if last else None, last=last_plays.view())
                if last:   # the record's one hand is over, not its session
                    table.update(phase="hand over", prompt="hand over", hand_no=rec["hand"],
                                 top_text="nothing (hand over)")
                frames.append({"event": event, "table": table})
        except (RecordError, ReplayError) as e:
            raise RecordsError(f"{self.name}, hand {index}: does not replay: {e}") from None
        return {"summary": self.summaries()[index], "viewer": viewer, "frames": frames, "start": start,
                "total": total, "next": stop if stop < total else None}


@dataclass
class _Held:
    records: RecordSet
    client: str | None      # None: the command line's set, listed for everyone and never dropped
    used: float


class RecordStore:
    """Record sets by id: ``"cli"`` for the file given on the command line, random ids for uploads (see the
    module doc for the byte budget)."""

    def __init__(self, limits: Limits | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.clock = clock
        self._sets: OrderedDict[str, _Held] = OrderedDict()   # least recently used first
        self.lock = threading.Lock()

    def add(self, records: RecordSet, set_id: str | None = None, client: str | None = None) -> str:
        """Keep ``records``; with ``set_id`` it is listed for every visitor, else it gets a random id that
        only the uploader (``client``) learns. :class:`UploadsFull` when the budget has no room for it."""
        with self.lock:
            if set_id is not None:
                self._sets[set_id] = _Held(records, None, self.clock())
                return set_id
            self._make_room(records.nbytes, client or "")
            set_id = secrets.token_urlsafe(12)
            self._sets[set_id] = _Held(records, client or "", self.clock())
        return set_id

    def held_bytes(self, client: str | None = None) -> int:
        """Bytes of the uploads held (of one client's, if named)."""
        return sum(h.records.nbytes for h in self._sets.values()
                   if h.client is not None and (client is None or h.client == client))

    def _make_room(self, size: int, client: str) -> None:
        lim = self.limits
        if size > lim.uploads_per_client_bytes:
            raise UploadsFull(f"this records file takes {size:,} bytes held; a client's uploads may take "
                              f"{lim.uploads_per_client_bytes:,}")
        mine = [k for k, h in self._sets.items() if h.client == client]
        while mine and self.held_bytes(client) + size > lim.uploads_per_client_bytes:
            del self._sets[mine.pop(0)]              # the client's least recently used upload
        now = self.clock()
        while self.held_bytes() + size > lim.uploads_bytes:
            idle = next((k for k, h in self._sets.items() if h.client is not None
                         and now - h.used > lim.idle_seconds), None)
            if idle is None:
                raise UploadsFull(f"the server holds {lim.uploads_bytes // 2**20} MiB of uploads, its budget; try "
                                  "again later (an upload unused for an hour makes room)")
            del self._sets[idle]

    def get(self, set_id: str) -> RecordSet:
        with self.lock:
            found = self._sets.get(set_id)
            if found is not None:
                found.used = self.clock()
                self._sets.move_to_end(set_id)
        if found is None:
            raise NotFound(f"no records file {set_id[:40]!r} on this server (upload it again)")
        return found.records

    def listing(self) -> list[dict[str, Any]]:
        """The sets every visitor may open (the command line's)."""
        with self.lock:
            return [{"id": k, "name": h.records.name, "hands": len(h.records.lines)} for k, h in self._sets.items()
                    if h.client is None]
