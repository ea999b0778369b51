"""``president evaluate``: a duplicate-deal tournament between agents (see :mod:`agents.arena`).

``president evaluate --preset NAME [--players N] --agents A,B,C,D --games G --seed S [--json FILE]``

``--agents`` names one agent per seat (``random``, ``greedy``, ``heuristic``,
``ppo:FILE``, ``ppo-sample:FILE``); the same name may appear more than once and
each copy is its own entrant. ``--games`` is the number of deals: each is played
once for every rotation of the agents over the seats, so G deals make G x P
sessions. Prints a table per entrant (points per hand, President and Scum rates,
mean finishing position, each with a 95% interval over deals; an OpenSkill
rating) and a head-to-head table; ``--json`` writes the same figures as
``{"entrants": [...], ...}`` with one object per name given to ``--agents``, in order.
``--ray [--address ADDR]`` plays the deals in Ray tasks (:mod:`training.ray_evaluate`) and gives
the same table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from president_cli.argtypes import (
    UsageError,
    batch_size,
    deals_count,
    hands_count,
    int_range,
    preset_name,
    seed_value,
)
from president_cli.core_commands import writable_output
from president_env.core import PRESETS, RulesError, preset
from president_env.core.files import OutputError, atomic_writer, partial_path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``evaluate``."""
    p = subparsers.add_parser(
        "evaluate", help="duplicate-deal tournament between agents (table, head-to-head, rating, JSON)",
        description="Play every deal once for every rotation of the agents over the seats, whole sessions with "
                    "exchanges and reseating, on the batched core; report points per hand, President and Scum "
                    "rates and mean finishing position with 95% intervals over deals, a head-to-head table and "
                    "an OpenSkill rating.")
    p.add_argument("--preset", type=preset_name, required=True, help=f"one of: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the preset's)")
    p.add_argument("--agents", required=True,
                   help="comma-separated agents, one per seat: random, greedy, heuristic, ppo:FILE, ppo-sample:FILE, "
                        "zoo:NAME, search or search:worlds=8,actions=5 (see docs/search.md), ismcts or "
                        "ismcts:sims=24,worlds=4 (OpenSpiel's MCTS, see docs/openspiel.md)")
    p.add_argument("--games", type=deals_count, default=1000,
                   help="deals (1..1,000,000); each is played once per rotation of the seats (default 1000)")
    p.add_argument("--seed", type=seed_value, default=0,
                   help="seed of the deals, the seatings and the agents (default 0)")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--hands", type=hands_count, default=None,
                   help="hands per session (default: play to the preset's target points)")
    p.add_argument("--rotations", choices=("cyclic", "fixed", "all"), default="cyclic",
                   help="cyclic: the P rotations of a circular order drawn per deal (default); fixed: of the "
                        "order given; all: every seating (P! per deal)")
    p.add_argument("--batch-size", type=batch_size, default=20000, help="sessions stepped together (default 20000)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--ray", action="store_true",
                   help="play the deals in Ray tasks (the ray extra): the same table as without it for the same "
                        "seed; local Ray unless --address")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --ray: the Ray cluster to run on (HOST:PORT of `ray start --head`, auto, ray://HOST:PORT)")
    p.add_argument("--tasks", type=int_range(1, 10_000), default=None,
                   help="with --ray: tasks to split the deals into (default: 1 per CPU of the cluster, up to 4 per "
                        "CPU while each task keeps 5,000 sessions)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow ppo:MODEL.zip (a stable-baselines3 zip can run code from the file when it loads; "
                        "prefer an agent file: president export-agent)")
    p.set_defaults(func=cmd_evaluate)


def parse_agents(text: str, players: int) -> list[str]:
    """The ``--agents`` list; it must name exactly one agent per seat."""
    from agents.registry import split_specs

    names = split_specs(text)
    if any(not a for a in names):
        raise UsageError(f"--agents has an empty name in {text!r}")
    if len(names) != players:
        raise UsageError(f"--agents names {len(names)} agent(s) for {players} players: give one per seat")
    return names


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Run the tournament, print the tables, write the JSON."""
    from agents.arena import TournamentInterrupted, run_tournament
    from agents.registry import make_agent

    overrides: dict[str, Any] = {}
    if args.players is not None:
        overrides["players"] = args.players
    try:
        rules = preset(args.preset, **overrides)
    except RulesError as e:
        raise UsageError(str(e)) from None
    if args.hands is not None:
        rules = rules.replace(hands_per_session=args.hands)
    names = parse_agents(args.agents, rules.players)
    if (args.address is not None or args.tasks is not None) and not args.ray:
        raise UsageError("--address and --tasks go with --ray (play the deals in Ray tasks)")
    if args.rotations == "all" and rules.players > 6:
        raise UsageError(f"--rotations all plays every seating ({rules.players}! per deal); use cyclic")
    built: dict[str, Any] = {}
    entrants: list[Any] = []
    for name in names:
        if name not in built:
            try:
                with loading_line(name, quiet=args.no_progress):
                    built[name] = make_agent(name, rules, trust_pickle=args.trust_pickle)
            except (ValueError, FileNotFoundError, ImportError) as e:
                raise UsageError(f"agent {name!r}: {e}") from None
        agent = built[name]
        # A copy that draws random numbers gets its own object (its own generator); deterministic ones share.
        entrants.append(agent if agent.deterministic or entrants.count(agent) == 0 else make_agent(name, rules,
                                                                                          trust_pickle=args.trust_pickle))
    if args.json is not None:
        writable_output(args.json, "--json")   # before the tournament, not after it
    interrupted = None
    if args.ray:
        result = _ray_tournament(args, rules, entrants)
        entrants = result.extra.get("agents", entrants)   # as the tasks left them (their counts, for reports)
    else:
        try:
            result = run_tournament(rules, entrants, args.games, seed=args.seed, rotations=args.rotations,
                                    batch_size=args.batch_size, progress=not args.no_progress)
        except TournamentInterrupted as e:    # Ctrl-C: the deals that finished are kept, said to be partial
            if e.result is None:
                print(f"{e}: none had finished, nothing to keep" + (f"; {args.json} is as it was" if args.json
                                                                     else ""), file=sys.stderr)
                return 130
            result, interrupted = e.result, e
    result.names = names
    for e in result.entrants:
        e.agent = names[e.index]
    print_result(result)
    reports = [a.report() for a in dict.fromkeys(entrants) if callable(getattr(a, "report", None))]
    for line in reports:  # agents that count their work (search: rollouts, CPU time a decision)
        Console().print(line)
    target = args.json
    if args.json is not None:
        data = result.to_dict()
        if reports:
            data["agent_reports"] = reports
        data["command"] = {"preset": args.preset, "players": rules.players, "agents": names, "games": args.games,
                           "seed": args.seed, "hands": args.hands, "rotations": args.rotations}
        if interrupted is not None:    # never over the figures of a whole run: a file of its own, that says so
            target = partial_path(args.json)
            data["partial"] = {"deals_played": interrupted.finished, "deals_asked": interrupted.deals,
                               "why": "interrupted (Ctrl-C): the figures are those of the deals that finished"}
        try:
            with atomic_writer(target) as f:
                f.write(json.dumps(data, indent=2) + "\n")
        except (OSError, OutputError) as e:
            raise UsageError(f"cannot write {target}: {getattr(e, 'strerror', None) or e}") from None
        Console().print(f"figures written to {target}")
    if interrupted is not None:
        print(f"{interrupted}: the figures above are of the {interrupted.finished:,} deals that finished"
              + (f" (in {target}; {args.json} is as it was)" if args.json else ""), file=sys.stderr)
        return 130
    return 0


@contextlib.contextmanager
def loading_line(name: str, quiet: bool = False) -> Iterator[None]:
    """For an agent that loads a file (``zoo:``, ``ppo:``, a path: torch and its weights, seconds on a busy
    machine), a line on stderr before and after, so that the wait before the tournament's bar is named."""
    if quiet or ":" not in name and not name.endswith((".safetensors", ".zip")):
        yield
        return
    print(f"president: loading the agent {name}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    yield
    print(f"president: loaded {name} in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def _ray_tournament(args: argparse.Namespace, rules: Any, entrants: list[Any]) -> Any:
    """The tournament in Ray tasks (:mod:`training.ray_evaluate`); Ray missing or unreachable is a usage error."""
    from training.ray_cluster import RayUnavailable, import_ray

    try:
        import_ray()
        from training.ray_evaluate import ray_tournament

        return ray_tournament(rules, entrants, args.games, seed=args.seed, rotations=args.rotations,
                              batch_size=args.batch_size, tasks=args.tasks, address=args.address,
                              progress=not args.no_progress)
    except RayUnavailable as e:
        raise UsageError(str(e)) from None


def _ci(lo_hi: tuple[float, float], fmt: str) -> str:
    return f"[{lo_hi[0]:{fmt}}, {lo_hi[1]:{fmt}}]"


def print_result(result: Any, console: Console | None = None) -> None:
    """The entrants' table, the head-to-head table and a line on the run."""
    if console is None:
        console = Console()
        if not console.is_terminal:  # a file or a pipe: do not squeeze the tables into 80 columns
            console = Console(width=140)
    r = result.rules
    title = (f"{r.name}, {r.players} players: {result.deals} deals x {result.sessions // result.deals} seatings "
             f"= {result.sessions} sessions, {result.hands} hands")
    table = _entrants_table(result, title)
    if _natural_width(console, table) > console.width:   # two lines a row, fewer columns, nothing cut
        table = _entrants_table(result, title, narrow=True)
    console.print(table)
    labels = [f"{e.index}:{e.agent}" for e in result.entrants]
    h2h = _h2h_table(result, labels, labels)
    if _natural_width(console, h2h) > console.width:     # the columns by number only
        h2h = _h2h_table(result, labels, [str(e.index) for e in result.entrants])
    console.print(h2h)
    diff, ci = result.difference(0)
    console.print(f"0:{result.entrants[0].agent} minus the mean of the others: {diff:+.3f} {_ci(ci, '+.3f')} "
                  f"points a hand (95% interval over deals)")
    rate = result.sessions / max(result.seconds, 1e-9)
    console.print(f"seed {result.seed}, rotations {result.rotations}: {result.decisions} decisions in "
                  f"{result.seconds:.1f} s ({rate:,.0f} sessions/s); intervals are over deals "
                  f"(mean ± 1.96 sd/√deals); place 1 = President; rating: OpenSkill Plackett-Luce mu ± sigma, "
                  f"one update per session")


def _natural_width(console: Console, renderable: Any) -> int:
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update_width(10_000), renderable).maximum


def _entrants_table(result: Any, title: str, narrow: bool = False) -> Table:
    """The entrants' figures: a column each, or (``narrow``, for 80 columns) each interval under its figure."""
    from rich import box

    if narrow:
        table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
        cols = (("entrant", "left"), ("points/hand\n[95% CI]", "right"), ("President", "right"),
                ("Scum", "right"), ("mean place\n[95% CI]", "right"), ("rating", "right"))
    else:
        table = Table(title=title)
        cols = (("entrant", "left"), ("points/hand", "right"), ("95% interval", "right"), ("President", "right"),
                ("Scum", "right"), ("mean place", "right"), ("95% interval", "right"), ("rating", "right"))
    for col, just in cols:   # only the entrant's name folds: a figure is never split or cut
        table.add_column(col, justify=just, overflow="fold", no_wrap=col != "entrant")
    for e in result.entrants:
        rating = (f"{e.rating_mu:.1f} ± {e.rating_sigma:.1f}" if e.rating_mu is not None else "-")
        points, place = (f"{e.points_per_hand:+.3f}", _ci(e.points_ci95, "+.3f")), \
            (f"{e.mean_position:.2f}", _ci(e.position_ci95, ".2f"))
        rates = (f"{e.president_rate:.1%}", f"{e.scum_rate:.1%}")
        if narrow:
            table.add_row(f"{e.index}:{e.agent}", "\n".join(points), *rates, "\n".join(place), rating)
        else:
            table.add_row(f"{e.index}:{e.agent}", *points, *rates, *place, rating)
    return table


def _h2h_table(result: Any, labels: list[str], heads: list[str]) -> Table:
    h2h = Table(title="head to head: share of hands row ahead of column")
    h2h.add_column("", overflow="fold")
    for head in heads:
        h2h.add_column(head, justify="right")
    for i, lab in enumerate(labels):
        h2h.add_row(lab, *["-" if i == j else f"{result.head_to_head[i, j]:.1%}" for j in range(len(labels))])
    return h2h
