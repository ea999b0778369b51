"""Play in UECda matches: ``president uecda-client``.

* ``president uecda-client --agent SPEC [--host 127.0.0.1] [--port 42485] [--name NAME]``: connect to a
  UECda server (protocol 20070), play any agent spec under the preset ``uecda`` until the server ends
  the match, and print the games played and the points so far. A move the server rejects (flag 8) is
  printed loudly and counted: it means our rules and the server's disagree.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from agents.registry import make_agent
from president_cli.argtypes import UsageError
from president_env.core.uecda_import import uecda_rules
from president_env.uecda.client_play import play_match
from president_env.uecda.protocol import UecdaProtocolError
from president_env.uecda.server_net import UecdaClient

__all__ = ["register"]

DEFAULT_PORT = 42485


def register(subparsers: argparse._SubParsersAction) -> None:
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
    p.set_defaults(func=cmd_uecda_client)


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
        stats = play_match(client, rules, act, me, seed=args.seed, max_games=args.games,
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
