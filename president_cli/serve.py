"""``president serve``: the web page, to watch recorded hands and play against agents.

* ``president serve [--records FILE] [--host 127.0.0.1] [--port 8000]``

It listens on localhost unless ``--host`` says otherwise; open the address it prints.
The records file, if given, is checked line by line before the server starts.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from president_cli.argtypes import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``president`` parser."""
    p = subparsers.add_parser(
        "serve", help="a web page to watch recorded hands and play against agents",
        description="Start a local web server: Watch steps through the hands of a records file (given here or "
                    "uploaded in the page); Play runs a session against agents, played by clicking your cards.")
    p.add_argument("--records", type=Path, default=None, help="a records file (JSON lines) to show in Watch")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from president_web import create_app
        from president_web.watch import RecordsError, RecordSet
    except ImportError as e:
        raise UsageError(f"the web page needs its extra: pip install -e \".[web]\" ({e})") from None
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, got {args.port}")
    records = None
    if args.records is not None:
        try:
            text = args.records.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"cannot read {args.records}: {e}") from None
        try:
            records = RecordSet.parse(args.records.name, text)
        except RecordsError as e:
            raise UsageError(str(e)) from None
    app = create_app(records)
    print(f"President: open http://{args.host}:{args.port}/ (Ctrl-C stops the server)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
