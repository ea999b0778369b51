"""What the card table of the web page is drawn from: each seat's last play, hand numbers and points as the CLI
counts them (hands from 0, as records and ``president play`` do; ``points`` are the session's)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from president_cli.main import main as cli_main  # noqa: E402
from president_web import create_app  # noqa: E402
from president_web.watch import RecordSet  # noqa: E402

BASE = "http://127.0.0.1:8000"      # a Host the server answers to
LINE = re.compile(r"^(you|p(\d+) \w+): (.+?)(?: \(([^)]*)\))?$")


def _start(client: TestClient, **body) -> tuple[str, dict]:
    r = client.post("/api/game", json=body)
    assert r.status_code == 200, r.text
    return r.json()["token"], r.json()["view"]


def _act(client: TestClient, token: str, view: dict, body: dict) -> dict:
    # each move answers the view's decision number
    r = client.post("/api/game/action", json=body | {"decision": view["decision"]}, headers={"X-Game-Token": token})
    assert r.status_code == 200, r.text
    return r.json()


def test_each_seat_shows_what_its_player_last_played():
    client = TestClient(create_app(), base_url=BASE)
    token, view = _start(client, preset="president", seed=3, hands=2, opponents=["heuristic"])
    rng = np.random.default_rng(0)
    checked = 0
    while not view["over"]:
        seats = {s["player"]: s for s in view["table"]["seats"]}
        if view["table"]["phase"] == "play":
            # the latest play line of each player in this hand's log is what its seat shows
            start = max(i for i, line in enumerate(view["log"]) if re.match(r"^hand \d+: ", line))
            latest: dict[int, tuple[str, str]] = {}
            for line in view["log"][start:]:
                m = LINE.match(line.removesuffix(" (your only move)"))
                if m and not line.startswith(("hand ", "exchange", "ranks")) and "give" not in m.group(3):
                    player = 0 if m.group(1) == "you" else int(m.group(2))
                    latest[player] = (m.group(3), m.group(4) or "")
            for player, (words, cards) in latest.items():
                last = seats[player]["last"]
                assert last is not None and last["words"] == words, (player, last, words)
                assert " ".join(c["name"] for c in last["cards"]) == cards
                assert last["pass"] == (words == "pass")
                checked += 1
            current = [s["last"] for s in seats.values() if s["last"] and s["last"]["current"]]
            assert len({p["trick"] for p in current}) <= 1
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        view = _act(client, token, view, {"action": move["id"]})
    assert checked > 20


def test_hand_numbers_and_points_are_the_command_lines():
    client = TestClient(create_app(), base_url=BASE)
    token, view = _start(client, preset="president", seed=5, hands=2, opponents=["random"], random_ranks=True)
    assert view["table"]["hand_no"] == 0 and view["log"][1].startswith("hand 0: ")
    rng = np.random.default_rng(1)
    while not view["over"]:
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        view = _act(client, token, view, {"action": move["id"]})
    records = [json.loads(line) for line in
               client.get("/api/game/records", headers={"X-Game-Token": token}).text.splitlines()]
    assert [r["hand"] for r in records] == [0, 1]
    for rec in records:
        assert any(line.startswith(f"hand {rec['hand']} over: ") for line in view["log"])
        assert any(line.startswith(f"hand {rec['hand']}: ") for line in view["log"])
    totals = np.sum([r["points"] for r in records], axis=0)
    assert {s["player"]: s["points"] for s in view["table"]["seats"]} == dict(enumerate(totals.tolist()))


def test_watch_shows_the_last_plays_and_the_records_hand_number(tmp_path):
    path = tmp_path / "r.jsonl"
    assert cli_main(["simulate", "--preset", "president", "--games", "1", "--seed", "2", "--hands", "3",
                     "--records", str(path), "--random-ranks", "--no-progress"]) == 0
    records = RecordSet.parse("r.jsonl", path.read_text())
    for index, rec in enumerate(records.records):
        frames = records.frames(index)["frames"]
        assert rec["hand"] == index and {f["table"]["hand_no"] for f in frames} == {rec["hand"]}
        assert all(s["last"] is None for s in frames[0]["table"]["seats"])
        plays = 0
        for before, frame, d in zip(frames[:-1], frames[1:], rec["decisions"], strict=True):
            last = {s["player"]: s["last"] for s in frame["table"]["seats"]}[d["agent"]]
            if before["table"]["phase"] != "play":       # the exchange's give-backs are not kept
                assert last is None
                continue
            assert [c["name"] for c in last["cards"]] == d["cards"] and last["pass"] == (d["action"] == 0)
            assert frame["event"].startswith(f"p{d['agent']} random: {last['words']}")
            plays += 1
        assert plays > 10
