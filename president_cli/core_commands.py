"""Subcommands over the rules core: ``variants``, ``simulate`` and ``replay``.

* ``president variants``: the preset table (name, source seeds, options that differ).
* ``president simulate --preset NAME --games G --seed S --records FILE.jsonl``: G
  sessions with uniformly random legal actions, one record per hand (the file checked
  before the first game, written to a temporary file and renamed when complete).
* ``president replay FILE.jsonl --check``: replay and verify every record, and that its
  key deals its cards (:func:`~president_env.core.records.verify`).
* ``president replay FILE.jsonl [--index N]``: show one recorded hand step by step.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
from rich.console import Console
from rich.table import Table
from tqdm import tqdm

from president_cli.argtypes import (
    UsageError,
    batch_size,
    games_count,
    hands_count,
    int_range,
    preset_name,
    seed_value,
)
from president_env.core import OVER, PRESETS, Rules, RulesError, init, make_keys, n_actions, preset
from president_env.core.files import OutputError, atomic_writer, check_writable, mark_complete, partial_path
from president_env.core.records import (
    Recorder,
    RecordError,
    ReplayError,
    iter_numbered_records,
    verify,
    write_records,
)
from president_env.core.render import format_record
from president_env.core.rules import PRESET_TABLE

__all__ = ["UsageError", "preset_name", "register", "rules_from_args", "simulate", "writable_output"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``variants``, ``simulate`` and ``replay`` to the ``president`` parser."""
    p = subparsers.add_parser("variants", help="list the presets (rule book section 7)",
                              description="The presets: name, source seeds, options that differ from the defaults.")
    p.add_argument("--markdown", action="store_true", help="print the table of the README")
    p.set_defaults(func=cmd_variants)

    p = subparsers.add_parser("simulate", help="play sessions with random legal actions and write game records",
                              description="Play G sessions with uniformly random legal actions on the batched core "
                                          "and write one JSON record per finished hand.")
    p.add_argument("--preset", required=True, type=preset_name, help=f"one of: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the preset's)")
    p.add_argument("--games", type=games_count, required=True, help="sessions to play (1..1,000,000)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals and the random actions (default 0)")
    p.add_argument("--records", type=Path, required=True,
                   help="output JSON-lines file, new unless --force (written only when every record is; Ctrl-C "
                        "keeps the finished sessions in FILE.partial.jsonl)")
    p.add_argument("--force", action="store_true", help="write over an existing --records file")
    p.add_argument("--hands", type=hands_count, default=None,
                   help="hands per session (default: play to the preset's target points)")
    p.add_argument("--random-ranks", action="store_true",
                   help="start each session from random ranks, so its first hand has an exchange")
    p.add_argument("--batch-size", type=batch_size, default=64, help="sessions stepped together (default 64)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)

    p = subparsers.add_parser("replay", help="verify game records, or show one hand step by step",
                              description="Replay game records. With --check, verify every record and stop at the "
                                          "first difference; otherwise show one recorded hand step by step.")
    p.add_argument("file", type=Path, help="JSON-lines records file")
    p.add_argument("--check", action="store_true",
                   help="replay and verify every record, and that its key deals its cards")
    p.add_argument("--index", type=int_range(0, 10**12), default=0, help="record to show, counted from 0 (default 0)")
    p.add_argument("--viewer", type=int_range(0, 63), default=None, help="show only this player's cards")
    p.add_argument("--tables", action="store_true", help="draw the full table before every decision")
    p.set_defaults(func=cmd_replay)


# --------------------------------------------------------------------------- variants
def _option_text(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_option_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(value)) + "}"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _preset_rows() -> list[tuple[str, str, int, list[str]]]:
    """(name, source, players, the options that differ as 'name value') of every preset."""
    return [(name, source, preset(name).players, [f"{k} {_option_text(v)}" for k, v in options.items()])
            for name, (source, options) in PRESET_TABLE.items()]


def variants_markdown() -> str:
    """The preset table as Markdown (the README's)."""
    out = ["| preset | from | players | options that differ from the defaults |", "|---|---|---:|---|"]
    for name, source, players, diff in _preset_rows():
        options = ", ".join(f"`{d}`" for d in diff) or "none (the defaults)"
        out.append(f"| `{name}` | {source} | {players} | {options} |")
    return "\n".join(out)


def cmd_variants(args: argparse.Namespace) -> int:
    """Print the preset table."""
    if args.markdown:
        print(variants_markdown())
        return 0
    table = Table(title=f"President presets (rule book section 7): {len(PRESET_TABLE)}")
    table.add_column("preset", style="bold", no_wrap=True)
    table.add_column("from")
    table.add_column("players", justify="right")
    table.add_column("options that differ from the defaults")
    for name, source, players, diff in _preset_rows():
        table.add_row(name, source, str(players), ", ".join(diff) or "none (the defaults)")
    Console().print(table)
    return 0


# --------------------------------------------------------------------------- simulate
def rules_from_args(args: argparse.Namespace) -> Rules:
    """The preset of ``--preset`` with ``--players`` and ``--hands``; a bad value is a UsageError."""
    overrides: dict[str, Any] = {}
    if args.players is not None:
        overrides["players"] = args.players
    if args.hands is not None:
        overrides["hands_per_session"] = args.hands
    try:
        return preset(args.preset, **overrides)
    except RulesError as e:
        raise UsageError(str(e)) from None


class SimulateSummary:
    """What ``simulate`` played, added up batch by batch (its memory does not grow with the sessions)."""

    def __init__(self, players: int) -> None:
        self.sessions = self.hands = self.decisions = 0
        self.points = np.zeros(players, dtype=np.int64)       # by player, over every hand
        self.presidents = np.zeros(players, dtype=np.int64)   # hands each player finished first
        self.wins = np.zeros(players, dtype=np.int64)         # sessions each player won (ties count)

    def add(self, batch: list[dict[str, Any]], sessions: int) -> None:
        """Count one batch of whole sessions (every hand of each is in ``batch``)."""
        totals: dict[int, np.ndarray] = {}
        for r in batch:
            pts = np.asarray(r["points"], dtype=np.int64)
            totals[r["session"]] = totals.get(r["session"], 0) + pts
            self.points += pts
            self.presidents[r["finish_order"][0]] += 1
            self.decisions += len(r["decisions"])
        for t in totals.values():
            self.wins[np.flatnonzero(t == t.max())] += 1
        self.hands += len(batch)
        self.sessions += sessions


def simulate(rules: Rules, games: int, seed: int, out: IO[str], random_ranks: bool = False, batch_size: int = 64,
             progress: bool = True, summary: SimulateSummary | None = None,
             after_batch: Callable[[], None] | None = None) -> SimulateSummary:
    """Play ``games`` sessions with random legal actions; write records to ``out``; return the totals.

    Session ``g`` has the ``g``-th key of ``make_keys(games, seed)`` and draws its
    actions from ``numpy.random.default_rng([seed, g])``; records are written in
    (session, hand) order, so the file does not depend on ``batch_size``. ``summary`` (filled as the
    batches finish, so an interrupted run's count is there) and ``after_batch`` (called when a batch's
    records are written) let a caller keep what finished.
    """
    keys = make_keys(games, seed)
    A = n_actions(rules)
    summary = summary or SimulateSummary(rules.players)
    bar = tqdm(total=games, unit="session", disable=not progress or None, file=sys.stderr)
    try:
        for start in range(0, games, batch_size):
            idx = np.arange(start, min(games, start + batch_size))
            st = init(rules, keys=keys[idx], start_ranks="random" if random_ranks else None)
            rngs = [np.random.default_rng([seed, int(g)]) for g in idx]
            rec = Recorder(rules, st, agents=["random"] * rules.players, sessions=idx)
            over = 0
            batch: list[dict[str, Any]] = []
            while not rec.done:
                u = np.stack([r.random(A) for r in rngs])
                actions = np.where(rec.state.legal, u, -1.0).argmax(axis=1)
                batch += rec.step(actions)
                now = int((rec.state.phase == OVER).sum())
                bar.update(now - over)
                over = now
            batch.sort(key=lambda r: (r["session"], r["hand"]))  # file order does not depend on batch_size
            write_records(out, batch)
            summary.add(batch, idx.size)
            if after_batch is not None:
                after_batch()
    finally:
        bar.close()
    return summary


def writable_output(path: Path, option: str) -> Path:
    """``path`` checked for writing before any work (a :class:`UsageError` naming ``option`` if not)."""
    try:
        return check_writable(path, option)
    except OutputError as e:
        raise UsageError(str(e)) from None


def cmd_simulate(args: argparse.Namespace) -> int:
    """Play random sessions, write their records (through a temporary file), print a summary."""
    rules = rules_from_args(args)
    writable_output(args.records, "--records")
    if args.records.exists() and not args.force:
        raise UsageError(f"--records {args.records} already exists: give another file, or --force to write over it")
    s = SimulateSummary(rules.players)
    keep = partial_path(args.records)
    try:
        with atomic_writer(args.records, keep_partial=keep) as f:
            simulate(rules, args.games, args.seed, f, random_ranks=args.random_ranks, batch_size=args.batch_size,
                     progress=not args.no_progress, summary=s, after_batch=lambda: mark_complete(f))
    except (OSError, OutputError) as e:
        raise UsageError(f"cannot write {args.records}: {getattr(e, 'strerror', None) or e}") from None
    except KeyboardInterrupt:
        kept = f"the {s.sessions:,} finished ({s.hands:,} hands) are in {keep}, a records file of its own" \
            if keep.exists() else "none had finished"
        print(f"interrupted after {s.sessions:,} of {args.games:,} sessions: {kept}; {args.records} is as it was",
              file=sys.stderr)
        return 130
    P = rules.players
    hands = s.hands
    console = Console()
    console.print(f"preset {rules.name}, {P} players, seed {args.seed}: {args.games} sessions, {hands} hands "
                  f"({hands / args.games:.1f} a session), {s.decisions} decisions; records in {args.records}")
    table = Table(title="random agents")
    for col in ("player", "points a hand", "times President", "sessions won (ties count)"):
        table.add_column(col, justify="right")
    for p in range(P):
        table.add_row(str(p), f"{s.points[p] / max(hands, 1):+.3f}", str(int(s.presidents[p])), str(int(s.wins[p])))
    console.print(table)
    return 0


# --------------------------------------------------------------------------- replay
def cmd_replay(args: argparse.Namespace) -> int:
    """Verify every record (--check) or show one hand."""
    if not args.file.is_file():
        raise UsageError(f"no such records file: {args.file}")
    if args.check:
        n = decisions = 0
        try:
            for lineno, rec in iter_numbered_records(args.file):
                try:
                    verify(rec)
                except (ReplayError, RecordError) as e:
                    print(f"error: {args.file}:{lineno}: record {n} (session {rec['session']}, hand {rec['hand']}) "
                          f"does not replay: {e}", file=sys.stderr)
                    return 1
                n += 1
                decisions += len(rec["decisions"])
        except RecordError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        if n == 0:
            print(f"error: {args.file} holds no records", file=sys.stderr)
            return 1
        print(f"ok: {n} records, {decisions} decisions replayed and verified")
        return 0
    if args.index < 0:
        raise UsageError(f"--index must be 0 or more, got {args.index}")
    found: tuple[int, dict[str, Any]] | None = None
    count = 0
    try:
        for lineno, rec in iter_numbered_records(args.file):
            if count == args.index:
                found = (lineno, rec)
                break
            count += 1
        if found is None:
            raise UsageError(f"--index {args.index}: {args.file} holds only {count} record(s)")
        lineno, rec = found
        if args.viewer is not None and not 0 <= args.viewer < len(rec["agents"]):
            raise UsageError(f"--viewer must be a player 0..{len(rec['agents']) - 1}, got {args.viewer}")
        text = format_record(rec, viewer=args.viewer, tables_every_step=args.tables)
    except RecordError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except ReplayError as e:
        print(f"error: {args.file}:{lineno}: record {args.index} does not replay: {e}", file=sys.stderr)
        return 1
    print(text, end="")
    return 0
