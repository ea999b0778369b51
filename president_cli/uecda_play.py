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
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make_agent
from president_cli.argtypes import UsageError
from president_cli.core_commands import writable_output
from president_env.core.files import atomic_writer, mark_complete, partial_path
from president_env.core.records import write_records
from president_env.core.rules import Rules
from president_env.core.uecda_export import format_uecda_record, relabel_players
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
                    "are local agent specs or 'remote' (a UECda client that connects); print the table "
                    "'president evaluate' prints.")
    p.add_argument("--seats", default="remote,remote,remote,remote,remote",
                   help="five comma-separated agent specs for players 0-4, 'remote' for a UECda client "
                        "(default: five remote)")
    p.add_argument("--games", type=int, default=100, help="games to play (1-1000; default 100)")
    p.add_argument("--duplicate", action="store_true",
                   help="play the games' deals once in each of the 5 rotations of the players, so that luck "
                        "cancels (5 x --games games; a remote client stays the player it connected as)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--records", type=Path, default=None,
                   help="write our records (JSON lines) of every game here, a new file unless --force (Ctrl-C keeps "
                        "the finished games in FILE.partial.jsonl)")
    p.add_argument("--uecda-records", type=Path, default=None,
                   help="also write the games in the UECda record format (.dat, the reference server's; players "
                        "numbered as the clients know them), a new file unless --force")
    p.add_argument("--force", action="store_true", help="write over existing --records / --uecda-records files")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the local agents' draws")
    p.add_argument("--wait", type=float, default=600.0, help="seconds to wait for the remote clients (default 600)")
    p.add_argument("--answer-time-limit", type=float, default=None,
                   help="seconds a remote client may take to answer, then a pass (default: none, as the reference)")
    p.add_argument("--silence-limit", type=float, default=600.0,
                   help="seconds a silent client may hold the match before it is disconnected (default 600)")
    p.set_defaults(func=cmd_uecda_server)


def cmd_uecda_server(args: argparse.Namespace) -> int:  # noqa: C901 - checks, then one match
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
    for option, path in (("--records", args.records), ("--uecda-records", args.uecda_records)):
        if path is not None:
            writable_output(path, option)
            if path.exists() and not args.force:
                raise UsageError(f"{option} {path} already exists: give another file, or --force to write over it")
    if args.records is not None and args.records == args.uecda_records:
        raise UsageError("--records and --uecda-records name the same file")
    actors = {}
    rng = np.random.default_rng(args.seed)
    for i, spec in enumerate(specs):
        if spec.lower() == "remote":
            continue
        try:
            agent = make_agent(spec, rules)
        except ValueError as e:
            raise UsageError(f"--seats seat {i}: {e}") from None
        actors[i] = _actor(agent, rng)
    remote = [i for i in range(5) if i not in actors]
    names = list(specs)
    rotations = list(range(5)) if args.duplicate else [0]
    done: list[MatchResultT] = []                   # the rotations played, the one under way last: what Ctrl-C keeps

    async def play(server: UecdaServer | None) -> None:
        for r in rotations:
            # participant i (--seats' i-th) is our player (i + r) % 5; a remote one is still client number i
            local = {(i + r) % 5: act for i, act in actors.items()}
            by_player = [names[(q - r) % 5] for q in range(5)]
            if args.duplicate:
                _say(f"rotation {r + 1} of 5: players {' '.join(f'{q}={n}' for q, n in enumerate(by_player))}")
            done.append(MatchResultT(names=list(by_player)))
            await run_match(rules, local, by_player, args.games, server=server, seed=args.seed, log=_say,
                            result=done[-1], rotation=r, last=r == rotations[-1])

    async def main() -> None:
        if not remote:
            return await play(None)
        limits = ServerLimits(answer_time_limit=args.answer_time_limit, silence_limit=args.silence_limit)
        async with UecdaServer(args.host, args.port, players=remote, limits=limits,
                               on_log=lambda line: _say(f"server: {line}")) as server:
            _say(f"listening on {args.host}:{server.port} for players {' '.join(map(str, remote))}")
            await server.wait_for_players(timeout=args.wait)
            for i, name in server.names.items():
                names[i] = f"remote:{name}"
            await play(server)

    started = time.perf_counter()
    try:
        asyncio.run(main())
    except UecdaProtocolError as e:
        print(f"president uecda-server: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = []
        if args.records is not None and any(m.records for m in done):
            keep = partial_path(args.records)
            with atomic_writer(keep) as f:
                write_records(f, [r for m in done for r in m.records])
            kept.append(f"our records of the {sum(m.games for m in done)} finished games are in {keep}")
        if args.uecda_records is not None and any(m.records for m in done):
            keep = partial_path(args.uecda_records)
            with atomic_writer(keep) as f:
                f.write(_uecda_text(rules, done, names))
            kept.append(f"their UECda record is in {keep}")
        print(f"interrupted: {'; '.join(kept) or 'no game had finished'}; the files named are as they were",
              file=sys.stderr)
        return 130
    if args.records is not None:
        with atomic_writer(args.records) as f:
            write_records(f, [r for m in done for r in m.records])
            mark_complete(f)
    if args.uecda_records is not None:
        with atomic_writer(args.uecda_records) as f:
            f.write(_uecda_text(rules, done, names))
    rejected = [0] * 5
    for r, m in enumerate(done):
        for q in range(5):
            rejected[(q - r) % 5] += m.rejected[q] + m.bad_exchanges[q]
    if not args.duplicate:
        print(points_table(done[0]))
    from president_cli.evaluate import print_result

    print_result(match_result(rules, done, names, args.seed, time.perf_counter() - started))
    print("plays and give-backs the server refused, by --seats entrant: "
          + ", ".join(f"{i}:{names[i]} {n}" for i, n in enumerate(rejected)))
    return 0


def _uecda_text(rules: Rules, done: list[MatchResultT], names: list[str]) -> str:
    """The games of every rotation in the UECda record format, players numbered as the clients know them."""
    records, times = [], []
    for r, m in enumerate(done):
        label = [(q - r) % 5 for q in range(5)]
        records += [relabel_players(rec, label) for rec in m.records]
        times += m.times_us
    return format_uecda_record(rules, records, names, times_us=times)


def match_result(rules: Rules, done: list[MatchResultT], names: list[str], seed: int, seconds: float) -> Any:
    """The match as a :class:`agents.arena.TournamentResult` (what ``president evaluate`` prints): entrant ``i``
    is ``--seats``' i-th, a deal is a game index, played once in each rotation (``--duplicate``) or once; the
    intervals are over games. Only games every rotation finished count."""
    from agents.arena import TournamentResult, entrant_stats

    E = 5
    deals = min(m.games for m in done) if done else 0
    R = len(done)
    points = np.zeros((deals, R, E))
    place = np.zeros((deals, R, E))
    seat_counts = np.zeros((E, E), np.int64)
    ahead = np.zeros((E, E), np.int64)
    decisions = 0
    for r, m in enumerate(done):
        for g in range(deals):
            rec = m.records[g]
            decisions += len(rec["decisions"])
            order = [(q - r) % E for q in rec["finish_order"]]        # entrants, best first
            for k, e in enumerate(order):
                place[g, r, e] = k
                points[g, r, e] = rec["points"][(e + r) % E]
                ahead[e, order[k + 1:]] += 1
            for s, q in enumerate(rec["seats"]):
                seat_counts[(q - r) % E, s] += 1
    hands = deals * R
    ppd, pres, scum, pos = (points.mean(axis=1), (place == 0).mean(axis=1), (place == E - 1).mean(axis=1),
                            place.mean(axis=1) + 1.0)
    stats = entrant_stats(list(names), ppd, pres, scum, pos, points.sum(axis=(0, 1)) / max(R, 1), hands, R)
    return TournamentResult(
        rules=rules, names=list(names), deals=deals, rotations="all" if R == E else "none", seed=seed,
        seconds=seconds, sessions=hands, hands=hands, decisions=decisions, entrants=stats,
        head_to_head=ahead / max(hands, 1), seat_counts=seat_counts, per_deal_points=ppd)


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
