"""``president league``: mixed tables of any number of agents and one rating table (see :mod:`agents.league`).

``president league --preset NAME --agents A,B,C,D,E,... [--tables T] [--deals D] [--seed S] [--json FILE]``

Each table seats the preset's number of players drawn from the agents (every agent about as often, every pair
about as often), plays ``--deals`` duplicate deals with the seats rotated, and every deal of every table updates
one OpenSkill rating per agent. Prints the agents ranked (rating with its 95% interval, the strength in points
a hand fitted for whom each met, with its interval over deals) and who finished ahead of whom.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from president_cli.argtypes import UsageError, deals_count, hands_count, int_range, preset_name, seed_value
from president_cli.core_commands import writable_output
from president_cli.evaluate import loading_line
from president_env.core import PRESETS, RulesError, preset
from president_env.core.files import OutputError, atomic_writer, partial_path

MAX_TABLES = 10_000


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``league``."""
    p = subparsers.add_parser(
        "league", help="mixed tables of any set of agents, one OpenSkill rating table",
        description="Seat the agents at tables of the preset's size (each agent and each pair about as often), "
                    "play each table as a duplicate-deal tournament with the seats rotated, and rate every agent "
                    "(OpenSkill Plackett-Luce, one update per deal of each table). Same seed, same league.")
    p.add_argument("--preset", type=preset_name, required=True, help=f"one of: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=None, help="players at a table (default: the preset's)")
    p.add_argument("--agents", required=True,
                   help="comma-separated agents, at least as many as a table's seats, each once: random, greedy, "
                        "heuristic, ppo:FILE, zoo:NAME, zoo:NAME@K, search:worlds=8,actions=5, ...")
    p.add_argument("--tables", type=int_range(1, MAX_TABLES), default=None,
                   help="tables to play (default: twice the number of agents)")
    p.add_argument("--deals", type=deals_count, default=50,
                   help="deals a table, each played once per rotation of its seats (default 50)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the tables, their deals and the agents")
    p.add_argument("--hands", type=hands_count, default=None,
                   help="hands per session (default: the preset's session)")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--force", action="store_true", help="write --json over a file that exists")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow ppo:MODEL.zip (a stable-baselines3 zip can run code when it loads)")
    p.set_defaults(func=cmd_league)


def cmd_league(args: argparse.Namespace) -> int:
    """Build the agents, play the tables, print the ranking, write the JSON."""
    from agents.league import LeagueInterrupted, run_league
    from agents.registry import make_agent, split_specs

    try:
        rules = preset(args.preset, **({"players": args.players} if args.players is not None else {}))
    except RulesError as e:
        raise UsageError(str(e)) from None
    if args.hands is not None:
        rules = rules.replace(hands_per_session=args.hands)
    names = split_specs(args.agents)
    if any(not n for n in names):
        raise UsageError(f"--agents has an empty name in {args.agents!r}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--agents names {', '.join(twice)} more than once: each agent sits in the league once")
    if len(names) < rules.players:
        raise UsageError(f"--agents names {len(names)} agent(s) for tables of {rules.players}: give at least "
                         f"{rules.players} (copies of one agent at a table: president evaluate)")
    if args.json is not None:
        writable_output(args.json, "--json")
        if args.json.exists() and not args.force:
            raise UsageError(f"--json {args.json} exists: give another file, or --force to write over it")
    agents = []
    for name in names:
        try:
            with loading_line(name, quiet=args.no_progress):
                agents.append(make_agent(name, rules, trust_pickle=args.trust_pickle))
        except (ValueError, FileNotFoundError, ImportError) as e:
            raise UsageError(f"agent {name!r}: {e}") from None
    for agent, name in zip(agents, names, strict=True):
        agent.name = name
    tables = args.tables if args.tables is not None else 2 * len(names)
    if not args.no_progress:
        print(f"president: a league of {len(names)} agents on {rules.name}: {tables} tables of {rules.players}, "
              f"{args.deals} deals x {rules.players} seatings each", file=sys.stderr, flush=True)
    interrupted = None
    try:
        result = run_league(rules, agents, tables, args.deals, seed=args.seed, progress=not args.no_progress)
    except LeagueInterrupted as e:
        if e.result is None:
            print(f"{e}: no deal had finished, nothing to keep" + (f"; {args.json} is as it was" if args.json
                                                                   else ""), file=sys.stderr)
            return 130
        result, interrupted = e.result, e
    print_league(result)
    target = args.json
    if args.json is not None:
        data = result.to_dict()
        data["command"] = {"preset": args.preset, "players": rules.players, "agents": names, "tables": tables,
                           "deals": args.deals, "seed": args.seed, "hands": args.hands}
        if interrupted is not None:
            target = partial_path(args.json)
            data["partial"] = {"tables_played": interrupted.finished, "tables_asked": tables,
                               "deals_of_the_last_table": result.partial_deals,
                               "why": "interrupted (Ctrl-C): the figures are those of the deals that finished"}
        try:
            with atomic_writer(target) as f:
                f.write(json.dumps(data, indent=2) + "\n")
        except (OSError, OutputError) as e:
            raise UsageError(f"cannot write {target}: {getattr(e, 'strerror', None) or e}") from None
        Console().print(f"figures written to {target}")
    if interrupted is not None:
        print(f"{interrupted}: the figures above are of the tables and deals that finished"
              + (f" (in {target}; {args.json} is as it was)" if args.json else ""), file=sys.stderr)
        return 130
    return 0


def print_league(result: Any, console: Console | None = None) -> None:
    """The ranking (fits 80 columns: each interval under its figure) and who finished ahead of whom."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=120)
    r = result.rules
    title = (f"{r.name}, tables of {r.players}: {len(result.tables)} tables x {result.deals} deals x "
             f"{r.players} seatings" + (" (interrupted)" if result.partial else ""))
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for col, just in (("#", "right"), ("agent", "left"), ("rating\n[95% CI]", "right"),
                      ("strength/hand\n[95% CI]", "right"), ("tables", "right"), ("deals", "right")):
        table.add_column(col, justify=just, overflow="fold", no_wrap=col != "agent")
    ranked = result.ranking()
    for k, e in enumerate(ranked, 1):
        lo, hi = e.rating_ci95
        table.add_row(str(k), e.agent, f"{e.rating_mu:.1f}\n[{lo:.1f}, {hi:.1f}]",
                      f"{e.strength:+.3f}\n[{e.strength_ci95[0]:+.3f}, {e.strength_ci95[1]:+.3f}]", str(e.tables),
                      f"{e.deals:,}")
    console.print(table)
    ahead = Table(title="ahead: share of shared hands the row finished ahead", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    ahead.add_column("", overflow="fold")
    for k in range(1, len(ranked) + 1):
        ahead.add_column(str(k), justify="right")
    for k, e in enumerate(ranked, 1):
        cells = []
        for o in ranked:
            x = result.ahead[e.index, o.index]
            cells.append("-" if o is e else ("" if x != x else f"{x:.0%}"))
        ahead.add_row(f"{k} {e.agent}", *cells)
    console.print(ahead)
    console.print(f"seed {result.seed}; {result.seconds:.0f} s. rating: OpenSkill Plackett-Luce mu, 95% interval "
                  f"mu ± 1.96 sigma, ranked by mu - 3 sigma (from each deal's order of finish); strength: points a "
                  f"hand above the league's average agent, fitted for whom it met, 95% interval over deals")
