"""``president serve``: the web page, to watch recorded hands and play against agents.

* ``president serve [--records FILE] [--host 127.0.0.1] [--port 8000] [--agents-dir DIR ...]
  [--allowed-host NAME ...]``

It listens on localhost unless ``--host`` says otherwise; open the address it prints.
The records file, if given, is checked line by line before the server starts, and so is
every agent file of the ``--agents-dir`` folders (the only agent files a page may name,
by name). The server answers only requests whose Host header names it: the bound
address (and ``localhost`` on a loopback address) and the ``--allowed-host`` names.
"""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path

from president_cli.argtypes import UsageError, int_range


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``president`` parser."""
    p = subparsers.add_parser(
        "serve", help="a web page to watch recorded hands and play against agents",
        description="Start a local web server: Watch steps through the hands of a records file (given here or "
                    "uploaded in the page); Play runs a session against agents, played by clicking your cards.")
    p.add_argument("--records", type=Path, default=None, help="a records file (JSON lines) to show in Watch")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_range(1, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--agents-dir", action="append", default=[], metavar="DIR",
                   help="a folder of agent files (NAME.agent.safetensors) the page may play as ppo:NAME; may be "
                        "given more than once (no other agent file is ever read for a request)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="another name the server answers to in the Host header (a host name when --host is "
                        "0.0.0.0, or a name behind a proxy); may be given more than once")
    p.set_defaults(func=cmd_serve)


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The Host names the server answers to: the bound address (with localhost's names on a loopback address) and
    ``extra``; a wildcard address (0.0.0.0, ::) needs ``extra``."""
    names = list(extra)
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return [host, *names]                      # a host name
    if address.is_unspecified:
        if not names:
            raise UsageError(f"--host {host} listens on every address: name the ones the page is opened by with "
                             "--allowed-host (for example the machine's name and address)")
        return names
    if address.is_loopback:
        return [host, "localhost", "127.0.0.1", "::1", *names]
    return [host, *names]


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from president_web import create_app
        from president_web.watch import MAX_RECORDS_BYTES, RecordsError, RecordSet
    except ImportError as e:
        raise UsageError(f"the web page needs its extra: pip install -e \".[web]\" ({e})") from None
    hosts = allowed_hosts(args.host, args.allowed_host)
    records = None
    if args.records is not None:
        try:
            if args.records.stat().st_size > MAX_RECORDS_BYTES:
                raise UsageError(f"{args.records}: larger than {MAX_RECORDS_BYTES // 2**20} MB, the most the server "
                                 "holds of a records file given here")
            text = args.records.read_bytes()
        except OSError as e:
            raise UsageError(f"cannot read {args.records}: {e.strerror}") from None
        try:
            records = RecordSet.parse(args.records.name, text)
        except RecordsError as e:
            raise UsageError(str(e)) from None
    from agents.agent_file import AgentFileError
    from president_web.agents import AgentRefused

    try:
        app = create_app(records, agents_dirs=args.agents_dir, allowed_hosts=hosts)
    except (AgentFileError, AgentRefused, OSError) as e:
        raise UsageError(f"--agents-dir: {e}") from None
    print(f"President: open http://{args.host}:{args.port}/ (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
