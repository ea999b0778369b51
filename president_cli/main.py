"""The ``president`` command line: one parser, subcommands registered by modules.

Each module listed in :data:`COMMAND_MODULES` has ``register(subparsers)``, which
adds its subcommands and sets ``func`` (``args -> exit status``) on each.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

# NumPy's BLAS on one thread unless told otherwise (before NumPy loads): the agents multiply small matrices,
# where a second thread only waits, and on a busy 2-core machine it made a zoo agent's tournament four times slower
for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from agents.base import PolicyError  # noqa: E402
from president_cli import (  # noqa: E402
    argtypes,
    cfr,
    core_commands,
    evaluate,
    exploit,
    exploitability,
    league,
    play,
    serve,
    train,
    uecda,
    uecda_play,
    zoo,
)

# One line per module that adds subcommands (variants, simulate, replay; later evaluate, train, play).
COMMAND_MODULES = [
    core_commands,
    play,
    train,
    evaluate,
    league,
    exploitability,
    exploit,
    cfr,
    zoo,
    serve,
    uecda,
    uecda_play,
]


def package_version() -> str:
    """The installed package's version (``0+unknown`` when run from a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("president")
    except PackageNotFoundError:
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    """The parser with every module's subcommands."""
    parser = argparse.ArgumentParser(prog="president", description="President card game: rules, records, agents.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def os_error_text(e: OSError) -> str:
    """What the system said and the file it said it of, a long name shortened (it may be thousands of characters)."""
    name = str(e.filename) if e.filename is not None else ""
    if len(name) > 120:
        name = f"{name[:120]}... ({len(name):,} characters)"
    what = e.strerror or str(e)
    return f"{what}: {name!r}" if name else what


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 failed check, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except argtypes.UsageError as e:
        parser.exit(2, f"{parser.prog} {args.command}: error: {e}\n")
    except PolicyError as e:   # an agent file whose network overflows: named, not a traceback
        print(f"{parser.prog} {args.command}: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:       # a path the system refuses (a name too long, a folder in its way, no room): named
        print(f"{parser.prog} {args.command}: error: {os_error_text(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
