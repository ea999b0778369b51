"""The web server against a hostile or careless client: one test per hole of issue 24, each proving it closed.

No file is read through a request, no other site reaches the server, no upload or search takes it
down, one client cannot evict another's game, a slow agent holds up no other game, a move sent twice
is made once, and every limit of :class:`president_web.limits.Limits` is a refusal with a message.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from agents.agent_file import read_agent_file, write_agent_file  # noqa: E402
from agents.zoo import zoo_path  # noqa: E402
from president_cli.main import main as cli_main  # noqa: E402
from president_env.core import preset  # noqa: E402
from president_web import create_app  # noqa: E402
from president_web.guard import Guard  # noqa: E402
from president_web.limits import Limits  # noqa: E402
from president_web.watch import RecordSet  # noqa: E402

BASE = "http://127.0.0.1:8000"
NDJSON = {"Content-Type": "application/x-ndjson"}


def _client(app, address: str = "10.0.0.1", **kw) -> TestClient:
    return TestClient(app, base_url=BASE, client=(address, 50000), **kw)


def _start(c: TestClient, **body) -> tuple[str, dict]:
    r = c.post("/api/game", json=body)
    assert r.status_code == 200, r.text
    return r.json()["token"], r.json()["view"]


def _get(c: TestClient, token: str):
    return c.get("/api/game", headers={"X-Game-Token": token})


@pytest.fixture(scope="module")
def records_text(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("rec") / "r.jsonl"
    assert cli_main(["simulate", "--preset", "president", "--games", "1", "--seed", "2", "--hands", "2",
                     "--records", str(path), "--no-progress"]) == 0
    return path.read_text()


# --------------------------------------------------------------------------- no file read through a request
OPENED: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and args and isinstance(args[0], str | bytes) and b"secret" in str(args[0]).encode():
        OPENED.append(str(args[0]))


sys.addaudithook(_audit)   # records every open() of a path named *secret* (the hook stays for the session)


def test_an_agent_path_in_a_request_is_refused_without_opening_the_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("xyzzy:x:0:0:first line of a password file\n")
    c = _client(create_app())
    OPENED.clear()
    for spec in (f"ppo:{secret}", f"ppo-sample:{secret}", f"search:policy=ppo:{secret}", "ppo:../secret",
                 f"zoo:{secret}", f"search:fallback=ppo:{secret}", f"search:fallback=zoo:{secret}",
                 f"search:belief=ppo:{secret}", f"search:belief=ppo-sample:{secret}"):
        r = c.post("/api/game", json={"opponents": [spec]})
        assert r.status_code == 400, r.text
        msg = r.json()["error"]
        assert "xyzzy" not in msg and "password" not in msg and "bytes" not in msg, msg
    assert OPENED == []        # the hook sees every open(): the file was never opened
    secret.read_text()
    assert OPENED == [str(secret)]   # (the hook does see an open of it)


def test_a_search_fallback_is_built_by_name_like_its_rollout_policy():
    c = _client(create_app())
    _, view = _start(c, opponents=["search:worlds=2,actions=2,fallback=zoo:president"], seed=1, hands=1)
    assert view["table"]["seats"][1]["agent"] == "search:worlds=2,actions=2,fallback=zoo:president"
    for spec, why in (("search:fallback=search", "cannot be search"), ("search:fallback=zoo:nope", "fallback")):
        r = c.post("/api/game", json={"opponents": [spec]})
        assert r.status_code == 400 and why in r.json()["error"], r.text


def test_agent_files_come_only_from_the_agent_folders_and_errors_name_no_server_path(tmp_path):
    folder = tmp_path / "agents"
    folder.mkdir()
    shutil.copyfile(zoo_path("president"), folder / "champ.agent.safetensors")
    c = _client(create_app(agents_dirs=[str(folder)]))
    assert c.get("/api/meta").json()["files"] == ["ppo:champ"]
    token, view = _start(c, opponents=["ppo:champ"], seed=1, hands=1)
    assert view["table"]["seats"][1]["agent"] == "ppo:champ"
    (folder / "champ.agent.safetensors").write_bytes(b"changed since the server started")
    for body in ({"opponents": ["ppo:champ"]}, {"preset": "daifugo", "opponents": ["zoo:president"]}):
        r = c.post("/api/game", json=body)
        assert r.status_code == 400 and str(tmp_path) not in r.text and "site-packages" not in r.text, r.text
        assert "changed" not in r.json()["error"] or "since the server started" in r.json()["error"]


def test_a_bad_agent_file_in_an_agent_folder_stops_the_server_at_start(tmp_path, capsys):
    rules = preset("president")
    meta, tensors = read_agent_file(zoo_path("president"))
    names = [f"hidden.{i}" for i in range(len(meta["architecture"]["hidden"]))] + ["action"]
    layers = [(tensors[f"{k}.weight"].astype(np.float32), tensors[f"{k}.bias"].astype(np.float32)) for k in names]
    layers[0][0][0, 0] = np.nan
    write_agent_file(tmp_path / "nan.agent.safetensors", rules, layers)
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--agents-dir", str(tmp_path), "--port", "1"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "non-finite" in err and "nan.agent.safetensors" in err


# --------------------------------------------------------------------------- other sites
def test_a_foreign_host_header_is_refused(records_text):
    app = create_app()
    c = TestClient(app, base_url="http://attacker.example:8000")   # DNS rebinding: the page's own name
    r = c.get("/api/meta")
    assert r.status_code == 400 and "attacker.example" in r.json()["error"] and "--allowed-host" in r.json()["error"]
    assert c.post("/api/game", json={}).status_code == 400 and len(app.state.games) == 0
    for base in ("http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"):
        assert TestClient(app, base_url=base).get("/api/meta").status_code == 200
    named = create_app(allowed_hosts=["cards.example"])
    assert TestClient(named, base_url="http://cards.example").get("/api/meta").status_code == 200
    assert TestClient(named, base_url=BASE).get("/api/meta").status_code == 400


def test_a_cross_site_post_is_refused_before_the_app_sees_it(records_text):
    app = create_app()
    c = _client(app)
    # a plain HTML form on another site can send text/plain without asking the browser first
    r = c.post("/api/records?name=x.jsonl", content=records_text.encode(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/x-ndjson" in r.json()["error"]
    r = c.post("/api/game", content=b'{"seed": 1}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    r = c.post("/api/game", json={"seed": 1}, headers={"Origin": "http://attacker.example"})
    assert r.status_code == 403 and "another site" in r.json()["error"]
    r = c.post("/api/records?name=x.jsonl", content=records_text.encode(),
               headers={**NDJSON, "Origin": "http://attacker.example"})
    assert r.status_code == 403
    assert len(app.state.games) == 0 and app.state.records.held_bytes() == 0
    assert c.post("/api/game", json={"seed": 1}, headers={"Origin": BASE}).status_code == 200   # the page itself
    # CORS stays closed: a preflight gets no Access-Control-Allow-Origin, so no other site reads an answer
    r = c.options("/api/game", headers={"Origin": "http://attacker.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in r.headers and r.status_code >= 400 and "error" in r.json()


# --------------------------------------------------------------------------- uploads
def _guard_call(headers: dict[str, str], chunks: list[bytes], limit: int = 1000) -> tuple[int, int, dict]:
    """Run the guard alone: (status, chunks the app side read, body)."""
    read = 0
    seen: dict = {}

    async def app(scope, receive, send):
        seen["app"] = True

    async def receive():
        nonlocal read
        read += 1
        return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/records",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    guard = Guard(app, ["127.0.0.1"], body_bytes=100, upload_bytes=limit, upload_path="/api/records")
    asyncio.run(guard(scope, receive, send))
    status = sent[0]["status"] if sent else 200
    return status, read, json.loads(sent[1]["body"]) if sent else seen


def test_an_upload_over_the_limit_is_refused_before_its_body_is_read():
    status, read, body = _guard_call({"host": "127.0.0.1", "content-type": "application/x-ndjson",
                                      "content-length": "1001"}, [b"x" * 1001])
    assert status == 413 and read == 0 and "at most 1,000 bytes" in body["error"]
    # without a Content-Length the body is read in chunks, and only up to the limit
    status, read, body = _guard_call({"host": "127.0.0.1", "content-type": "application/x-ndjson"},
                                     [b"x" * 600, b"x" * 600, b"x" * 600, b"x" * 600])
    assert status == 413 and read == 2
    status, read, seen = _guard_call({"host": "127.0.0.1", "content-type": "application/x-ndjson"}, [b"x" * 600])
    assert status == 200 and seen == {"app": True}


def test_uploads_stay_within_a_client_share_and_a_total_budget(records_text):
    from president_web.watch import RecordSet

    size = len(records_text.encode())
    held = RecordSet.parse("a.jsonl", records_text).nbytes   # what one upload takes in the server
    lim = Limits(upload_bytes=2 * size, uploads_per_client_bytes=3 * held, uploads_bytes=4 * held)
    app = create_app(limits=lim)
    first = _client(app, "10.0.0.1")
    ids = [first.post("/api/records?name=a.jsonl", content=records_text.encode(), headers=NDJSON).json()["id"]
           for _ in range(4)]
    held = app.state.records.held_bytes("10.0.0.1")
    assert held <= lim.uploads_per_client_bytes
    assert first.get(f"/api/records/{ids[0]}").status_code == 404        # its own oldest made room
    assert first.get(f"/api/records/{ids[-1]}").status_code == 200
    second = _client(app, "10.0.0.2")
    ids2 = [second.post("/api/records?name=b.jsonl", content=records_text.encode(), headers=NDJSON) for _ in range(2)]
    assert [r.status_code for r in ids2] == [200, 413]                   # the total budget is full
    assert "budget" in ids2[1].json()["error"]
    assert all(first.get(f"/api/records/{i}").status_code == 200 for i in ids[1:])   # nobody else's went
    assert app.state.records.held_bytes() <= lim.uploads_bytes
    too_big = second.post("/api/records?name=c.jsonl", content=(records_text * 3).encode(), headers=NDJSON)
    assert too_big.status_code == 413


def test_a_client_gets_only_so_many_requests_in_progress_at_once():
    async def scenario() -> list[int]:
        release = asyncio.Event()

        async def app(scope, receive, send):
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

        guard = Guard(app, ["127.0.0.1"], body_bytes=100, upload_bytes=100, upload_path="/up", in_flight=3)

        async def request(client: str) -> int:
            sent: list[dict] = []

            async def send(message):
                sent.append(message)

            async def receive():
                return {"type": "http.request", "body": b"", "more_body": False}

            scope = {"type": "http", "method": "GET", "path": "/api/meta", "client": (client, 1),
                     "headers": [(b"host", b"127.0.0.1")]}
            await guard(scope, receive, send)
            return sent[0]["status"]

        slow = [asyncio.create_task(request("10.0.0.1")) for _ in range(3)]
        await asyncio.sleep(0)
        refused, other = await request("10.0.0.1"), asyncio.create_task(request("10.0.0.2"))
        release.set()
        return [*(await asyncio.gather(*slow)), refused, await other, await request("10.0.0.1")]

    assert asyncio.run(scenario()) == [200, 200, 200, 429, 200, 200]   # another client, and later, are served


# --------------------------------------------------------------------------- agents that take the server's time
def test_search_settings_from_the_web_are_bounded():
    c = _client(create_app())
    for spec, words in (("search:worlds=1000000000", "at most 32"), ("search:actions=9", "at most 8"),
                        ("search:rollouts=100000", "at most 256"), ("search:batch=999999", "at most 4096"),
                        ("search:policy=search", "cannot be search"), ("search:worlds=" + "9" * 30, "digits"),
                        ("search:belief=zoo:president", "belief must be uniform"),
                        ("search:belief=heuristic,proposals=65536", "belief must be uniform")):
        r = c.post("/api/game", json={"opponents": [spec]})
        assert r.status_code == 400 and words in r.json()["error"], (spec, r.text)
    _start(c, opponents=["search:worlds=4,actions=3"], seed=0, hands=1)
    _start(c, opponents=["search:worlds=4,actions=3,belief=uniform"], seed=0, hands=1)


def test_another_game_answers_while_an_agent_thinks():
    app = create_app()
    slow, other = _client(app, "10.0.0.1"), _client(app, "10.0.0.2")
    token, view = _start(slow, seed=0, opponents=["heuristic"], hands=1)
    token_b, _ = _start(other, seed=1, opponents=["random"], hands=1)
    game = app.state.games.get(token)
    release, thinking = threading.Event(), threading.Event()
    bot = game.bots[1]
    real_act = bot.act

    def blocked(*args):
        thinking.set()
        assert release.wait(60)
        return real_act(*args)

    bot.act = blocked
    move = next(m for m in view["legal"] if m["id"] != 0)
    answers: dict = {}
    t = threading.Thread(target=lambda: answers.setdefault("slow", slow.post(
        "/api/game/action", json={"decision": 0, "action": move["id"]}, headers={"X-Game-Token": token})))
    t.start()
    try:
        assert thinking.wait(60)                      # player 1 is thinking, inside the request
        b = threading.Thread(target=lambda: answers.setdefault("other", _get(other, token_b)))
        b.start()
        b.join(60)
        assert not b.is_alive() and answers["other"].status_code == 200     # answered while the agent thinks
        assert t.is_alive() and "slow" not in answers   # ... and the slow request is still waiting for it
    finally:
        release.set()
        t.join(60)
    assert answers["slow"].status_code == 200


def test_agents_that_run_out_of_time_leave_the_game_waiting_and_go_on_when_asked():
    app = create_app(limits=Limits(agent_seconds=1e-9))     # every request: one agent move at most
    c = _client(app)
    token, view = _start(c, seed=5, seat=3, opponents=["heuristic"], hands=1)
    assert view["waiting"] and not view["your_turn"]
    r = c.post("/api/game/action", json={"decision": 0, "action": 0}, headers={"X-Game-Token": token})
    assert r.status_code == 409 and "still to move" in r.json()["error"]
    for _ in range(50):
        view = _get(c, token).json()
        if not view["waiting"]:
            break
    assert view["your_turn"]


# --------------------------------------------------------------------------- games and clients
def test_one_client_cannot_evict_another_clients_game():
    app = create_app(limits=Limits(max_games=8, games_per_client=4, agent_seconds=5))
    alice, mallory = _client(app, "10.0.0.1"), _client(app, "10.0.0.66")
    token, _ = _start(alice, seed=1, hands=1)
    codes = [mallory.post("/api/game", json={"seed": i, "hands": 1}).status_code for i in range(64)]
    assert set(codes) == {200}                      # mallory's own oldest games made room for its new ones
    assert _get(alice, token).status_code == 200     # alice's game is still there
    others = [_client(app, f"10.0.1.{i}") for i in range(3)]
    assert all(o.post("/api/game", json={"hands": 1}).status_code == 200 for o in others)
    r = _client(app, "10.0.2.1").post("/api/game", json={"hands": 1})   # 1 + 4 + 3 = 8 live games: full
    assert r.status_code == 503 and "try again later" in r.json()["error"]
    assert _get(alice, token).status_code == 200


def test_the_same_move_sent_twice_is_made_once():
    c = _client(create_app())
    token, view = _start(c, seed=3, opponents=["random"], hands=1)
    move = next(m for m in view["legal"] if m["id"] != 0)
    first = c.post("/api/game/action", json={"decision": view["decision"], "action": move["id"]},
                   headers={"X-Game-Token": token})
    assert first.status_code == 200 and first.json()["decision"] == view["decision"] + 1
    again = c.post("/api/game/action", json={"decision": view["decision"], "action": move["id"]},
                   headers={"X-Game-Token": token})
    assert again.status_code == 409 and "sent twice" in again.json()["error"]
    assert _get(c, token).json() == first.json()


def test_a_session_stops_at_the_servers_hand_limit():
    c = _client(create_app(limits=Limits(max_hands=2)))
    r = c.post("/api/game", json={"hands": 3})
    assert r.status_code == 400 and "hands must be 1..2" in r.json()["error"]
    token, view = _start(c, seed=4, opponents=["random"], options={"target_points": 1000})
    rng = np.random.default_rng(0)
    while not view["over"]:
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        view = c.post("/api/game/action", json={"decision": view["decision"], "action": move["id"]},
                      headers={"X-Game-Token": token}).json()
    assert view["hands_done"] == 2 and any("at most 2 hands a session" in line for line in view["log"])
    assert len(c.get("/api/game/records", headers={"X-Game-Token": token}).text.splitlines()) == 2


def test_idle_games_and_uploads_make_room_and_busy_games_answer_409(records_text):
    from president_web.games import GameConflict, GameSettings, GameStore, ServerFull
    from president_web.watch import RecordSet, RecordStore, UploadsFull

    now = [0.0]
    lim = Limits(max_games=2, games_per_client=1, idle_seconds=600, lock_seconds=0.01)
    games = GameStore(lim, clock=lambda: now[0])
    kept, _ = games.new(GameSettings(hands=1), "10.0.0.1")
    idle, _ = games.new(GameSettings(hands=1), "10.0.0.2")
    now[0] = 500.0
    games.get(kept)                                                    # used at 500 s: not idle
    with pytest.raises(ServerFull):
        games.new(GameSettings(hands=1), "10.0.0.3")
    now[0] = 700.0                                                     # the other one idle for 700 s
    games.new(GameSettings(hands=1), "10.0.0.3")
    games.get(kept)
    with pytest.raises(Exception, match="no game with this token"):
        games.get(idle)
    game = games.get(kept)
    with game.lock, pytest.raises(GameConflict, match="another request is using this game"):
        with games.using(game):
            pass
    one = RecordSet.parse("a.jsonl", records_text)
    store = RecordStore(Limits(upload_bytes=one.nbytes, uploads_per_client_bytes=one.nbytes,
                               uploads_bytes=one.nbytes, idle_seconds=600), clock=lambda: now[0])
    first = store.add(one, client="10.0.0.1")
    with pytest.raises(UploadsFull):
        store.add(one, client="10.0.0.2")
    now[0] += 601
    store.add(one, client="10.0.0.2")
    with pytest.raises(Exception, match="no records file"):
        store.get(first)


def test_a_json_body_over_the_limit_is_refused(tmp_path, capsys):
    c = _client(create_app(limits=Limits(body_bytes=1000)))
    r = c.post("/api/game", json={"opponents": ["heuristic"] * 200})
    assert r.status_code == 413 and "at most 1,000 bytes" in r.json()["error"]
    assert c.post("/api/game", json={"hands": 1}).status_code == 200
    big = tmp_path / "big.jsonl"
    with big.open("wb") as f:
        f.truncate(65 * 2**20)                                          # a (sparse) 65 MB records file
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--records", str(big)])
    assert e.value.code == 2 and "larger than 64 MB" in capsys.readouterr().err


# --------------------------------------------------------------------------- inputs that gave tracebacks
@pytest.mark.parametrize("body, status, words", [
    (b"[" * 5000 + b"]" * 5000, 400, "nested 5000 deep"),
    (b'{"seed": ' + b"9" * 5000 + b"}", 400, "5000 digits"),
    (b'{"seed": NaN}', 400, "NaN"),
    (b'{"hands": 1e999}', 400, "overflows"),
    (b'{"options": {"scoring": [10000000000000000000, 1]}}', 400, "scoring"),
    (b'{"options": {"target_points": 10000000000000000000}}', 400, "target_points"),
    (b'{"options": {"hands_per_session": 99999999999}}', 400, "hands_per_session"),
    (b'{"players": 99999999999}', 400, "players"),
    (b'{"seat": 99999999999}', 400, "seat"),
    (b'{"opponents": ["x"], "options": []}', 400, "options"),
    (b"\xff\xfe", 400, "UTF-8"),
    (b'{"seed": 1', 400, "not valid JSON"),
])
def test_malformed_game_requests_are_named_errors(body, status, words):
    c = _client(create_app())
    r = c.post("/api/game", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status and words in r.json()["error"], r.text


def test_hostile_uploads_are_named_errors(records_text):
    c = _client(create_app())
    rec = json.loads(records_text.splitlines()[0])
    cases = {
        b"[" * 100000 + b"]" * 100000: "nested",
        json.dumps({**rec, "dealer": 10**19}).encode(): "field 'dealer'",
        json.dumps({**rec, "hand": 10**19}).encode(): "field 'hand'",
        json.dumps({**rec, "rules": {**rec["rules"], "scoring": [10**18, 1]}}).encode(): "scoring",
        json.dumps({**rec, "session": 10**40}).encode(): "digits",
        b"\xc3\x28\n": "not UTF-8",
    }
    for body, words in cases.items():
        r = c.post("/api/records?name=bad.jsonl", content=body, headers=NDJSON)
        assert r.status_code == 400 and words in r.json()["error"] and "bad.jsonl" in r.json()["error"], r.text
    r = c.post("/api/records?name=" + "n" * 300, content=records_text.encode(), headers=NDJSON)
    assert r.status_code == 400 and "name" in r.json()["error"]


# --------------------------------------------------------------------------- the seed deals every hand
def test_play_hides_the_seed_until_the_session_ends_and_draws_its_own_from_64_bits():
    c = _client(create_app())
    token, view = _start(c, preset="president", hands=1, opponents=["random"])
    assert view["seed"] is None and not any("seed" in line for line in view["log"])
    r = c.get("/api/game/records", headers={"X-Game-Token": token})   # records hold the session's key
    assert r.status_code == 409 and "when the session is over" in r.json()["error"]
    rng = np.random.default_rng(0)
    while not view["over"]:
        if view["waiting"]:      # the agents ran out of time (compiling, say): let them go on
            view = _get(c, token).json()
            continue
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        view = c.post("/api/game/action", json={"decision": view["decision"], "action": move["id"]},
                      headers={"X-Game-Token": token}).json()
        assert view["over"] or view["seed"] is None
    seed = int(view["seed"])
    assert f"The seed was {seed}." in view["log"][-1]
    assert c.get("/api/game/records", headers={"X-Game-Token": token}).status_code == 200
    seeds = {seed} | {c.app.state.games.get(_start(c, hands=1)[0]).seed for _ in range(7)}
    assert len(seeds) == 8 and max(seeds) > 2**40    # not from a million values
    again = _start(c, preset="president", hands=1, opponents=["random"], seed=str(seed))[1]   # the page's digits
    assert again["table"] == _start(c, preset="president", hands=1, opponents=["random"], seed=seed)[1]["table"]
    r = c.post("/api/game", json={"seed": "12x"})
    assert r.status_code == 400 and "seed" in r.json()["error"]
    assert c.post("/api/game", json={"seed": 2**64}).status_code == 400


# --------------------------------------------------------------------------- the memory of requests in flight
def test_the_requests_in_flight_share_one_memory_budget_past_it_503_with_retry_after():
    async def scenario() -> list[tuple[int, str | None]]:
        release = asyncio.Event()

        async def app(scope, receive, send):
            await receive()
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

        guard = Guard(app, ["127.0.0.1"], body_bytes=100, upload_bytes=1000, upload_path="/up", in_flight=8,
                      busy_bytes=4000, request_bytes=1000, upload_factor=4)

        async def request(client: str, upload: int | None = None) -> tuple[int, str | None]:
            sent: list[dict] = []

            async def send(message):
                sent.append(message)

            async def receive():
                return {"type": "http.request", "body": b"x" * (upload or 0), "more_body": False}

            headers = [(b"host", b"127.0.0.1")]
            if upload is not None:
                headers += [(b"content-type", b"application/x-ndjson"), (b"content-length", str(upload).encode())]
            scope = {"type": "http", "method": "POST" if upload is not None else "GET",
                     "path": "/up" if upload is not None else "/api/meta", "client": (client, 1), "headers": headers}
            await guard(scope, receive, send)
            return sent[0]["status"], dict(sent[0]["headers"]).get(b"retry-after", b"").decode() or None

        held = [asyncio.create_task(request(f"10.0.0.{i}")) for i in range(3)]   # 3000 of 4000 bytes
        await asyncio.sleep(0)
        big = await request("10.0.0.9", upload=500)          # counts 4 x 500 bytes: no room, refused unread
        fourth = asyncio.create_task(request("10.0.0.8"))    # the last 1000
        await asyncio.sleep(0)
        fifth = await request("10.0.0.7")
        assert guard.held == 4000
        release.set()
        done = [*(await asyncio.gather(*held)), big, await fourth, fifth]
        assert guard.held == 0
        return [*done, await request("10.0.0.9", upload=250)]   # room again: 4 x 250 fits

    ok, busy = (200, None), (503, "1")
    assert asyncio.run(scenario()) == [ok, ok, ok, busy, ok, busy, ok]


def test_limits_let_one_upload_in():
    with pytest.raises(ValueError, match="busy_bytes"):
        Limits(busy_bytes=32 << 20)      # a 16 MB upload counts 64 MB


def test_watch_answers_a_hand_a_page_of_frames_at_a_time(records_text):
    c = _client(create_app(limits=Limits(frames_per_answer=7)))
    set_id = c.post("/api/records?name=r.jsonl", content=records_text.encode(), headers=NDJSON).json()["id"]
    pages = [c.get(f"/api/records/{set_id}/0?viewer=1").json()]
    while pages[-1]["next"] is not None:
        pages.append(c.get(f"/api/records/{set_id}/0?viewer=1&start={pages[-1]['next']}").json())
    assert all(len(p["frames"]) <= 7 for p in pages) and len(pages) > 3
    whole = RecordSet.parse("r.jsonl", records_text).frames(0, viewer=1)["frames"]
    assert [f for p in pages for f in p["frames"]] == whole and pages[0]["total"] == len(whole)
    r = c.get(f"/api/records/{set_id}/0?start={len(whole)}")
    assert r.status_code == 400 and f"frames 0..{len(whole) - 1}" in r.json()["error"]
