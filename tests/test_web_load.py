"""A bounded load test of ``president serve`` on 127.0.0.1: 200 games by 20 clients, memory under a stated budget.

The server runs in its own process with the default :class:`~president_web.limits.Limits`.
Twenty clients, each from its own loopback address (127.0.0.2 .. 127.0.0.21, so the server
sees twenty clients), at once: each uploads a records file, starts ten games, makes three moves
in each (every move carrying its decision number) and downloads each game's records. Then
every game must still be there (no client evicted another's), and the server's peak resident
memory (``VmHWM``) must stay under :data:`MEMORY_BUDGET`. The clients have a fixed amount of
work and the test stops the server at the end, whatever happens.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from president_cli.main import main as cli_main  # noqa: E402

CLIENTS, GAMES_EACH, MOVES_EACH = 20, 10, 3
# The server's peak resident memory, bytes: it starts near 130 MiB, and loading the compiled engine's code on
# first use brings it near 250 MiB (263 MiB in a fresh checkout, compiling); the games weigh little.
MEMORY_BUDGET = 320 * 2**20
SERVER = """
import sys, uvicorn
from president_web import create_app
uvicorn.run(create_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _loopback_aliases() -> bool:
    """Whether this machine can send from 127.0.0.2 .. (Linux routes all of 127.0.0.0/8 to loopback)."""
    try:
        with socket.socket() as s:
            s.bind((f"127.0.0.{1 + CLIENTS}", 0))
        return True
    except OSError:
        return False


def _peak_memory(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


def _client_work(i: int, base: str, records: bytes, tokens: list[str], errors: list[str]) -> None:
    """One client: an upload, ten games, three moves in each, their records."""
    transport = httpx.HTTPTransport(local_address=f"127.0.0.{2 + i}")
    rng = np.random.default_rng(i)
    with httpx.Client(base_url=base, transport=transport, timeout=120) as c:
        try:
            r = c.post("/api/records?name=load.jsonl", content=records,
                       headers={"Content-Type": "application/x-ndjson"})
            assert r.status_code == 200, r.text
            for g in range(GAMES_EACH):
                r = c.post("/api/game", json={"seed": 100 * i + g, "opponents": ["heuristic"], "hands": 2})
                assert r.status_code == 200, r.text
                token, view = r.json()["token"], r.json()["view"]
                tokens.append(token)
                for _ in range(MOVES_EACH):
                    if view["over"]:
                        break
                    move = view["legal"][int(rng.integers(len(view["legal"])))]
                    r = c.post("/api/game/action", json={"decision": view["decision"], "action": move["id"]},
                               headers={"X-Game-Token": token})
                    assert r.status_code == 200, r.text
                    view = r.json()
                assert c.get("/api/game/records", headers={"X-Game-Token": token}).status_code == 200
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(f"client {i}: {type(e).__name__}: {e}")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
@pytest.mark.skipif(not _loopback_aliases(), reason="needs 127.0.0.2.. as client addresses (Linux)")
def test_two_hundred_games_by_twenty_clients_stay_within_the_memory_budget(tmp_path):
    path = tmp_path / "r.jsonl"
    assert cli_main(["simulate", "--preset", "president", "--games", "4", "--seed", "1", "--hands", "2",
                     "--records", str(path), "--no-progress"]) == 0
    records = path.read_bytes()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while True:
            try:
                if httpx.get(f"{base}/api/meta", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.time() < deadline, "the server did not start"
            time.sleep(0.2)
        started = _peak_memory(server.pid)
        tokens: list[str] = []
        errors: list[str] = []
        workers = [threading.Thread(target=_client_work, args=(i, base, records, tokens, errors), daemon=True)
                   for i in range(CLIENTS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(600)
        assert not any(w.is_alive() for w in workers), "a client did not finish"
        assert errors == []
        assert len(tokens) == CLIENTS * GAMES_EACH
        with httpx.Client(base_url=base, timeout=60) as c:     # every game is still there
            assert all(c.get("/api/game", headers={"X-Game-Token": t}).status_code == 200 for t in tokens)
            meta = c.get("/api/meta").json()
        assert meta["presets"]
        peak = _peak_memory(server.pid)
        report = {"games": len(tokens), "clients": CLIENTS, "server_start_mib": round(started / 2**20, 1),
                  "server_peak_mib": round(peak / 2**20, 1), "budget_mib": MEMORY_BUDGET // 2**20}
        print(json.dumps(report))
        assert peak < MEMORY_BUDGET, report
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
