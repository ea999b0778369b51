"""Play in UECda matches: ``president uecda-client`` and ``president uecda-server``.

* ``president uecda-client --agent SPEC [--host 127.0.0.1] [--port 42485] [--name NAME]``: connect to a
  UECda server (protocol 20070), play any agent spec under the preset ``uecda`` until the server ends
  the match, and print the games played and the points so far. A move the server rejects (flag 8) is
  printed loudly and counted: it means our rules and the server's disagree.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import numpy as np

from agents.registry import make_agent
from president_cli.argtypes import UsageError
from president_cli.core_commands import writable_output
from president_env.core.files import atomic_writer, mark_complete, partial_path
from president_env.core.records import write_records
from president_env.core.uecda_import import uecda_rules
from president_env.uecda.client_play import play_match
from president_env.uecda.protocol import UecdaProtocolError
from president_env.uecda.server_match import MatchResult as MatchResultT
from president_env.uecda.server_net import UecdaClient

__all__ = ["register"]

DEFAULT_PORT = 42485


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``uecda-client`` and ``uecda-server``."""
    p = subparsers.add_parser(
        "uecda-client", help="play an agent in a UECda match as a client of a UECda server (protocol 20070)",
        description="Connect to a UECda server, play the agent under the preset uecda until the server ends the "
                    "match; print games played, points so far, and every move the server rejects.")
    p.add_argument("--agent", required=True, help="agent spec (heuristic, greedy, random, search:..., zoo:..., a "
                                                  "model file)")
    p.add_argument("--host", default="127.0.0.1", help="server host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"server port (default {DEFAULT_PORT})")
    p.add_argument("--name", default="president", help="name sent in the profile table (14 characters are kept)")
    p.add_argument("--seed", type=int, default=0, help="seed of the agent's draws and the mirror's made-up hands")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait for any message (default: as long as the server waits)")
    p.add_argument("--games", type=int, default=None, help="leave after this many games (default: the whole match)")
    p.add_argument("--verbose", action="store_true", help="print every turn (who played what)")
    p.set_defaults(func=cmd_uecda_client)
    register_server(subparsers)


def cmd_uecda_client(args: argparse.Namespace) -> int:
    """Play one match as a UECda client; 0 when it ended with no move rejected, 1 otherwise."""
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port (1-65535)")
    rules = uecda_rules()
    try:
        agent = make_agent(args.agent, rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    rng = np.random.default_rng(args.seed)

    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        return int(agent.act(obs[None], mask[None], rng)[0])

    try:
        client = UecdaClient(args.host, args.port, args.name, timeout=args.timeout)
    except ValueError as e:
        raise UsageError(f"--name: {e}") from None
    try:
        me = client.connect()
        print(f"connected to {args.host}:{args.port} as player {me} ({args.name}, agent {args.agent})", flush=True)
        stats = play_match(client, rules, act, me, seed=args.seed, max_games=args.games, verbose=args.verbose,
                           log=lambda line: print(line, flush=True))
    except UecdaProtocolError as e:
        print(f"president uecda-client: error: {e}", file=sys.stderr)
        return 1
    finally:
        client.close()
    print(f"match over: {stats.games} games, our points {stats.points[me]}, moves {stats.moves}, "
          f"rejected {stats.rejected}")
    if stats.rejected:
        print(f"WARNING: the server rejected {stats.rejected} of our moves:", file=sys.stderr)
        for m in stats.messages:
            print(f"  {m}", file=sys.stderr)
        return 1
    return 0


def register_server(subparsers: argparse._SubParsersAction) -> None:
    """Add ``uecda-server``."""
    p = subparsers.add_parser(
        "uecda-server", help="host a UECda match: local agents and remote UECda clients (protocol 20070)",
        description="Play a match as the UECda reference server runs it (deal, exchange, seats redrawn every 3 "
                    "games, ranks reset every 100, illegal submissions as passes) under the preset uecda; seats "
                    "are local agent specs or 'remote' (a UECda client that connects); print a points table.")
    p.add_argument("--seats", default="remote,remote,remote,remote,remote",
                   help="five comma-separated agent specs for players 0-4, 'remote' for a UECda client "
                        "(default: five remote)")
    p.add_argument("--games", type=int, default=100, help="games to play (1-1000; default 100)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--records", type=Path, default=None,
                   help="write our records (JSON lines) of every game here, a new file unless --force (Ctrl-C keeps "
                        "the finished games in FILE.partial.jsonl)")
    p.add_argument("--force", action="store_true", help="write over an existing --records file")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the local agents' draws")
    p.add_argument("--wait", type=float, default=600.0, help="seconds to wait for the remote clients (default 600)")
    p.add_argument("--answer-time-limit", type=float, default=None,
                   help="seconds a remote client may take to answer, then a pass (default: none, as the reference)")
    p.add_argument("--silence-limit", type=float, default=600.0,
                   help="seconds a silent client may hold the match before it is disconnected (default 600)")
    p.set_defaults(func=cmd_uecda_server)


def cmd_uecda_server(args: argparse.Namespace) -> int:
    """Host one match; 0 when it was played to the end."""
    from agents.registry import split_specs
    from president_env.uecda.server_match import run_match
    from president_env.uecda.server_net import ServerLimits, UecdaServer

    specs = split_specs(args.seats)
    if len(specs) != 5:
        raise UsageError(f"--seats names {len(specs)} seats, a UECda match has 5")
    rules = uecda_rules()
    if not 1 <= args.games <= rules.hands_per_session:
        raise UsageError(f"--games {args.games}: 1 to {rules.hands_per_session}")
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port (0-65535)")
    if args.records is not None:
        writable_output(args.records, "--records")
        if args.records.exists() and not args.force:
            raise UsageError(f"--records {args.records} already exists: give another file, or --force to write "
                             "over it")
    local = {}
    rng = np.random.default_rng(args.seed)
    for p, spec in enumerate(specs):
        if spec.lower() == "remote":
            continue
        try:
            agent = make_agent(spec, rules)
        except ValueError as e:
            raise UsageError(f"--seats seat {p}: {e}") from None
        local[p] = _actor(agent, rng)
    remote = [p for p in range(5) if p not in local]
    names = list(specs)

    partial = MatchResultT(names=list(names))       # filled game by game: what Ctrl-C keeps

    async def main() -> MatchResultT:
        if not remote:
            return await run_match(rules, local, names, args.games, seed=args.seed, log=_say, result=partial)
        limits = ServerLimits(answer_time_limit=args.answer_time_limit, silence_limit=args.silence_limit)
        async with UecdaServer(args.host, args.port, players=remote, limits=limits,
                               on_log=lambda line: _say(f"server: {line}")) as server:
            _say(f"listening on {args.host}:{server.port} for players {' '.join(map(str, remote))}")
            await server.wait_for_players(timeout=args.wait)
            for p, name in server.names.items():
                names[p] = f"remote:{name}"
            return await run_match(rules, local, names, args.games, server=server, seed=args.seed, log=_say,
                                   result=partial)

    try:
        result = asyncio.run(main())
    except UecdaProtocolError as e:
        print(f"president uecda-server: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = "no game had finished"
        if args.records is not None and partial.records:
            keep = partial_path(args.records)
            with atomic_writer(keep) as f:
                write_records(f, partial.records)
            kept = f"the {len(partial.records)} finished games' records are in {keep}"
        print(f"interrupted: {kept}; {args.records or 'no records file'} is as it was", file=sys.stderr)
        return 130
    if args.records is not None:
        with atomic_writer(args.records) as f:
            write_records(f, result.records)
            mark_complete(f)
    print(points_table(result))
    return 0


def _say(line: str) -> None:
    print(line, flush=True)


def _actor(agent, rng: np.random.Generator):
    def act(obs: np.ndarray, mask: np.ndarray) -> int:
        return int(agent.act(obs[None], mask[None], rng)[0])
    return act


def points_table(result: MatchResultT) -> str:
    """The match's points table: player, name, points, points a game, places, plays rejected."""
    n = max(result.games, 1)
    lines = [f"{result.games} games", f"{'player':>6}  {'name':<28} {'points':>7} {'a game':>7}  "
             f"{'places 1-5':<24} {'rejected':>8}"]
    for p, name in enumerate(result.names):
        places = " ".join(f"{k:>4}" for k in result.places[p])
        lines.append(f"{p:>6}  {name[:28]:<28} {result.points[p]:>7} {result.points[p] / n:>7.2f}  {places:<24} "
                     f"{result.rejected[p]:>8}")
    return "\n".join(lines)
