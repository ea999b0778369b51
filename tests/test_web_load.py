"""A bounded load test of ``president serve`` on 127.0.0.1: 200 games by 20 clients, memory under a stated budget.

The server runs in its own process with the default :class:`~president_web.limits.Limits`.
Twenty clients, each from its own loopback address (127.0.0.2 .. 127.0.0.21, so the server
sees twenty clients), at once: each uploads a records file, starts ten games, makes three moves
in each (every move carrying its decision number) and asks for each game's records (refused while the
session is on: they hold its key). Then
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
from president_web.limits import Limits  # noqa: E402

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
                r = c.get("/api/game/records", headers={"X-Game-Token": token})   # they come when it is over
                assert r.status_code == (200 if view["over"] else 409), r.text
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


# --------------------------------------------------------------------------- many heavy requests at once
HEAVY_UPLOADS, HEAVY_WATCHES = 16, 24          # 40 requests in flight together
UPLOAD_ADDRESSES, WATCH_ADDRESSES = 4, 5       # 127.0.0.30.. and 127.0.0.40..
# The server's stated memory cap (docs/web.md): the engine's code and the process (about 250 MiB), the uploads it
# keeps (Limits.uploads_bytes) and the requests in progress (Limits.busy_bytes), with room for the allocator.
MEMORY_CAP = 256 * 2**20 + Limits().uploads_bytes + Limits().busy_bytes + 64 * 2**20


def _heavy_upload(address: str, base: str, body: bytes, answers: list) -> None:
    """One 16 MB upload; its answer (status, Retry-After, error) or the connection's error."""
    transport = httpx.HTTPTransport(local_address=address)
    try:
        with httpx.Client(base_url=base, transport=transport, timeout=120) as c:
            r = c.post("/api/records?name=big.jsonl", content=body, headers={"Content-Type": "application/x-ndjson"})
            answers.append(("upload", r.status_code, r.headers.get("retry-after"), r.json()))
    except httpx.TransportError as e:   # a refused upload's body may meet a closed connection
        answers.append(("upload", "closed", None, repr(e)))


def _heavy_watch(address: str, base: str, set_id: str, answers: list) -> None:
    """One page of frames of a long hand of 8 players."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=base, transport=transport, timeout=120) as c:
        r = c.get(f"/api/records/{set_id}/0?viewer=all")
        answers.append(("watch", r.status_code, r.headers.get("retry-after"), r.json()))


def _start_server(port: int) -> subprocess.Popen:
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while True:
        try:
            if httpx.get(f"{base}/api/meta", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if server.poll() is not None or time.time() > deadline:
            server.kill()
            raise AssertionError("the server did not start")
        time.sleep(0.2)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
@pytest.mark.skipif(not _loopback_aliases(), reason="needs 127.0.0.2.. as client addresses (Linux)")
def test_forty_heavy_requests_at_once_stay_under_the_servers_memory_cap(tmp_path):
    small = tmp_path / "small.jsonl"
    assert cli_main(["simulate", "--preset", "president", "--games", "4", "--seed", "1", "--hands", "2",
                     "--records", str(small), "--no-progress"]) == 0
    lines = small.read_bytes().splitlines()
    big = b"\n".join(lines * (16 * 2**20 // sum(len(x) + 1 for x in lines) + 1))[:Limits().upload_bytes]
    big = big[:big.rfind(b"\n")]                     # whole lines, just under the 16 MB limit
    long_hand = tmp_path / "long.jsonl"
    assert cli_main(["simulate", "--preset", "double_deck", "--games", "1", "--seed", "1", "--hands", "1",
                     "--records", str(long_hand), "--no-progress"]) == 0
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start_server(port)
    try:
        with httpx.Client(base_url=base, timeout=60) as c:
            r = c.post("/api/records?name=long.jsonl", content=long_hand.read_bytes(),
                       headers={"Content-Type": "application/x-ndjson"})
            assert r.status_code == 200, r.text
            set_id = r.json()["id"]
            first = c.get(f"/api/records/{set_id}/0").json()    # the answer is a page: its size does not grow
            assert first["total"] > 300 and len(first["frames"]) == Limits().frames_per_answer
        started = _peak_memory(server.pid)
        answers: list = []
        workers = [threading.Thread(target=_heavy_watch, args=(f"127.0.0.{40 + i % WATCH_ADDRESSES}", base, set_id,
                                                               answers), daemon=True) for i in range(HEAVY_WATCHES)]
        workers += [threading.Thread(target=_heavy_upload, args=(f"127.0.0.{30 + i % UPLOAD_ADDRESSES}", base, big,
                                                                 answers), daemon=True) for i in range(HEAVY_UPLOADS)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(300)
        assert not any(w.is_alive() for w in workers), "a client did not finish"
        peak = _peak_memory(server.pid)
        codes = [a[1] for a in answers]
        report = {"server_start_mib": round(started / 2**20, 1), "server_peak_mib": round(peak / 2**20, 1),
                  "cap_mib": MEMORY_CAP // 2**20, "answers": {str(k): codes.count(k) for k in set(codes)}}
        print(json.dumps(report))
        assert len(answers) == HEAVY_UPLOADS + HEAVY_WATCHES
        for kind, status, retry, body in answers:   # served, or refused as busy with a time to come back
            assert status in (200, 503, "closed"), (kind, status, body)
            if status == 503:
                assert retry == "1" and "busy" in body["error"], body
        assert 200 in [a[1] for a in answers if a[0] == "upload"] and 200 in [a[1] for a in answers if a[0] == "watch"]
        assert peak < MEMORY_CAP, report
        with httpx.Client(base_url=base, timeout=60) as c:    # and it serves on
            assert c.get("/api/meta").status_code == 200
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
