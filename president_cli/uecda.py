"""UECda, the computer Daihinmin competition: ``president import-uecda``.

* ``president import-uecda FILE.dat --out FILE.jsonl``: read the reference server's game records,
  replay every game under the preset ``uecda`` (the recorded deal, seats, exchange and moves) and
  write them as this project's records, which ``president replay FILE.jsonl --check`` verifies. It
  stops at the first recorded move our rules refuse, or the first result that differs, naming the
  file, the game and the move (:mod:`president_env.core.uecda_import`). A game the reference server's
  record cut at 128 moves (it writes no more of a game) is skipped, named on the standard error and
  counted in the summary: its end is not in the file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from tqdm import tqdm

from president_cli.argtypes import UsageError
from president_cli.core_commands import writable_output
from president_env.core.files import OutputError, atomic_writer, mark_complete, partial_path
from president_env.core.records import write_records
from president_env.core.uecda_import import UecdaImportError, UecdaTruncatedGame, import_game, uecda_rules
from president_env.core.uecda_record import UecdaRecordError, read_uecda_record

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import-uecda", help="import UECda game records (.dat) as replayable records of the preset uecda",
        description="Read the UECda reference server's game records, replay every game under the preset uecda "
                    "and write them as records that `president replay FILE --check` verifies; stop at the first "
                    "move our rules refuse or the first result that differs. A game the server's record cut at "
                    "128 moves (it writes no more) is skipped and named.")
    p.add_argument("file", type=Path, help="UECda record (.dat) as the reference server writes it")
    p.add_argument("--out", type=Path, required=True, help="output JSON-lines records file, new unless --force")
    p.add_argument("--force", action="store_true", help="write over an existing --out file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_import_uecda)


def cmd_import_uecda(args: argparse.Namespace) -> int:
    """Import every game of a UECda record; print what was replayed."""
    if not args.file.is_file():
        raise UsageError(f"no such UECda record: {args.file}")
    writable_output(args.out, "--out")
    if args.out.exists() and not args.force:
        raise UsageError(f"--out {args.out} already exists: give another file, or --force to write over it")
    try:
        parsed = read_uecda_record(args.file)
    except UecdaRecordError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    rules = uecda_rules()
    moves = ranked = 0
    truncated: list[int] = []
    keep = partial_path(args.out)
    try:
        with atomic_writer(args.out, keep_partial=keep) as f:
            for game in tqdm(parsed.games, desc="import-uecda", unit="game", disable=args.no_progress,
                             file=sys.stderr):
                try:
                    record = import_game(rules, game, str(args.file), parsed.players)
                except UecdaTruncatedGame as e:
                    tqdm.write(f"skipped: {e}", file=sys.stderr)
                    truncated.append(game.number)
                    continue
                write_records(f, [record])
                mark_complete(f)
                moves += len(game.plays)
                ranked += game.with_ranks
    except UecdaImportError as e:
        print(f"error: {e}; nothing written to {args.out}", file=sys.stderr)
        return 1
    except (OSError, OutputError) as e:
        raise UsageError(f"cannot write {args.out}: {getattr(e, 'strerror', None) or e}") from None
    except KeyboardInterrupt:
        print(f"interrupted: the games imported so far are in {keep}; {args.out} is as it was", file=sys.stderr)
        return 130
    n = len(parsed.games) - len(truncated)
    skipped = (f"; skipped {len(truncated)} game(s) the server's record cut at 128 moves (games "
               f"{', '.join(map(str, truncated))}: every recorded move legal, their end not in the file)"
               if truncated else "")
    Console().print(f"ok: {n} games ({ranked} with an exchange), {moves} moves of {args.file} replayed under "
                    f"uecda with every move legal and every result equal; records in {args.out} (verify: "
                    f"president replay {args.out} --check){skipped}", soft_wrap=True)
    return 0
