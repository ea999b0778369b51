"""The web app's endpoints with the framework's test client: Watch, Play, and every refusal."""

from __future__ import annotations

import copy
import json
import re
import warnings
import zipfile

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from president_cli.main import main as cli_main  # noqa: E402
from president_env.core import claim_id, pick_id, preset  # noqa: E402
from president_env.core.records import read_records, replay, write_records  # noqa: E402
from president_web import create_app  # noqa: E402
from president_web.limits import Limits  # noqa: E402
from president_web.watch import RecordSet  # noqa: E402

BASE = "http://127.0.0.1:8000"      # a Host the server answers to
NDJSON = {"Content-Type": "application/x-ndjson"}


def _client(app, **kw) -> TestClient:
    return TestClient(app, base_url=BASE, **kw)


def _records_text(tmp_path, preset_name: str = "president", games: int = 2, seed: int = 5) -> str:
    path = tmp_path / f"{preset_name}.jsonl"
    assert cli_main(["simulate", "--preset", preset_name, "--games", str(games), "--seed", str(seed),
                     "--hands", "2", "--records", str(path), "--random-ranks", "--no-progress"]) == 0
    return path.read_text()


@pytest.fixture
def client() -> TestClient:
    return _client(create_app())


def _start(client: TestClient, **body) -> tuple[str, dict]:
    r = client.post("/api/game", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    return data["token"], data["view"]


def _all_frames(client: TestClient, url: str) -> list[dict]:
    """Every frame of a hand: the server answers a page at a time."""
    page = client.get(url).json()
    frames = page["frames"]
    while page["next"] is not None:
        page = client.get(url + ("&" if "?" in url else "?") + f"start={page['next']}").json()
        frames += page["frames"]
    return frames


def _play_out(client: TestClient, token: str, view: dict, rng: np.random.Generator, by_cards: bool = True) -> dict:
    """Play the person's moves (random legal ones) until the session is over."""
    steps = 0
    while not view["over"]:
        assert view["your_turn"]
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        body = {"cards": move["cards"]} if (by_cards and move["id"] != 0) else {"action": move["id"]}
        r = client.post("/api/game/action", json=body | {"decision": view["decision"]}, headers={"X-Game-Token": token})
        assert r.status_code == 200, r.text
        view = r.json()
        steps += 1
        assert steps < 2000
    return view


# --------------------------------------------------------------------------- the page and meta
def test_page_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "<title>President</title>" in r.text
    for name in ("app.js", "style.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    assert '<link rel="icon" href="/static/favicon.svg"' in r.text
    icon = client.get("/favicon.ico")   # what browsers ask for first
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")


def test_meta_lists_presets_agents_and_the_zoo(client):
    meta = client.get("/api/meta").json()
    names = [p["name"] for p in meta["presets"]]
    assert "president" in names and "daifugo" in names
    assert {p["name"]: p["players"] for p in meta["presets"]}["huberes"] == 6
    assert meta["agents"] == ["random", "greedy", "heuristic"]
    assert "president" in meta["zoo"]


# --------------------------------------------------------------------------- play
def test_a_session_plays_to_the_end_and_its_records_replay(client):
    token, view = _start(client, preset="president", seed=11, hands=2, opponents=["random"], random_ranks=True)
    assert len(token) >= 32
    view = _play_out(client, token, view, np.random.default_rng(0))
    assert view["hands_done"] == 2 and view["over"]
    assert "session over" in view["log"][-1]
    r = client.get("/api/game/records", headers={"X-Game-Token": token})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    records = [json.loads(line) for line in r.text.splitlines()]
    assert len(records) == 2
    for rec in records:
        replay(rec)
        assert rec["agents"][0] == "you" and rec["agents"][1:] == ["random"] * 3
    assert sum(rec["points"][0] for rec in records) == next(s["points"] for s in view["standings"] if s["player"] == 0)


def test_the_same_seed_and_moves_give_the_same_session(client):
    runs = []
    for _ in range(2):
        token, view = _start(client, preset="one_deuce_wins", seed=4, hands=1, opponents=["heuristic"])
        _play_out(client, token, view, np.random.default_rng(1), by_cards=False)
        runs.append(client.get("/api/game/records", headers={"X-Game-Token": token}).text)
    assert runs[0] == runs[1]


def test_the_view_shows_only_the_persons_cards(client):
    token, view = _start(client, preset="president", seed=2, seat=2, opponents=["random"])
    assert view["you"] == 2
    for seat in view["table"]["seats"]:
        if seat["player"] == 2:
            assert [c["name"] for c in seat["cards"]] == [c["name"] for c in view["hand"]]
        else:
            assert seat["cards"] is None and seat["n_cards"] > 0
    held = [c["name"] for c in view["hand"]]
    for move in view["legal"]:
        assert all(held.count(n) >= move["cards"].count(n) for n in move["cards"])


def test_others_give_backs_stay_hidden_in_the_log(client):
    # Player 1 sees the cards it gives and receives, and nothing of the other pair's give-backs.
    seen_other = seen_mine = 0
    for seed in range(6):
        token, view = _start(client, preset="president", seed=seed, seat=1, opponents=["heuristic"],
                             random_ranks=True, hands=1)
        view = _play_out(client, token, view, np.random.default_rng(seed))
        log = client.get("/api/game", headers={"X-Game-Token": token}).json()["log"]
        rec = json.loads(client.get("/api/game/records", headers={"X-Game-Token": token}).text.splitlines()[0])
        backs = sum(b for _, b in preset("president").exchange_pairs)
        lines = [x for x in log if ": give back" in x]
        assert len(lines) == backs
        for d, line in zip(rec["decisions"][:backs], lines, strict=True):
            if d["agent"] == 1:
                assert line.endswith(f"({d['cards'][0]})")
                continue
            assert "(" not in line, line
            partner = next(g["from"] for g in rec["exchanges"] if g["to"] == d["agent"])
            following = log[log.index(line) + 1]
            if partner == 1:
                seen_mine += 1
                assert following == f"you receive {d['cards'][0]}"
            else:
                seen_other += 1
                assert not following.startswith("you receive")
    assert seen_mine and seen_other


def test_a_reload_finds_the_game_and_another_token_does_not(client):
    token, view = _start(client, preset="president", seed=3)
    again = client.get("/api/game", headers={"X-Game-Token": token})
    assert again.status_code == 200 and again.json() == view
    for headers in ({"X-Game-Token": token[:-2] + "xx"}, {}):
        r = client.get("/api/game", headers=headers)
        assert r.status_code == 404 and "token" in r.json()["error"]
        r = client.post("/api/game/action", json={"action": 0, "decision": 0}, headers=headers)
        assert r.status_code == 404


def _assert_refused(client, token, view, body, *words):
    r = client.post("/api/game/action", json={"decision": view["decision"], **body}, headers={"X-Game-Token": token})
    assert r.status_code == 400, r.text
    msg = r.json()["error"]
    for w in words:
        assert w in msg, msg
    assert client.get("/api/game", headers={"X-Game-Token": token}).json() == view  # nothing changed


def test_illegal_moves_are_refused_and_change_nothing(client):
    token, view = _start(client, preset="president", seed=0, opponents=["random"])
    assert view["your_turn"]
    legal = {m["id"] for m in view["legal"]}
    illegal = next(a for a in range(1, 60) if a not in legal)
    _assert_refused(client, token, view, {"action": illegal}, f"action {illegal}", "not legal")
    _assert_refused(client, token, view, {"action": 10_000}, "not legal")
    _assert_refused(client, token, view, {"action": True}, "action")
    held = [c["name"] for c in view["hand"]]
    missing = next(n for n in ("3C", "3D", "3H", "3S", "4C", "4D", "4H", "4S") if n not in held)
    _assert_refused(client, token, view, {"cards": [missing]}, "do not hold", missing)
    _assert_refused(client, token, view, {"cards": ["ZZ"]}, "unknown card")
    kinds = {}
    for c in view["hand"]:
        kinds.setdefault(c["kind"], c["name"])
    a, b = list(kinds.values())[:2]
    _assert_refused(client, token, view, {"cards": [a, b]}, "no legal play", a)
    _assert_refused(client, token, view, {"action": 0, "cards": [a]}, "either")
    _assert_refused(client, token, view, {}, "either")
    r = client.post("/api/game/action", json={"action": 0, "extra": 1, "decision": 0}, headers={"X-Game-Token": token})
    assert r.status_code == 400 and "extra" in r.json()["error"]
    r = client.post("/api/game/action", json={"action": 0}, headers={"X-Game-Token": token})
    assert r.status_code == 400 and "decision" in r.json()["error"]


@pytest.mark.parametrize("body, words", [
    ({"preset": "no_such_game"}, ["unknown preset", "no_such_game"]),
    ({"opponents": ["wizard"]}, ["agent 'wizard'", "unknown agent"]),
    ({"opponents": ["random", "greedy"]}, ["2 opponents", "4 players"]),
    ({"seat": 4}, ["seat must be a player 0..3"]),
    ({"players": 13}, ["players=13"]),
    ({"options": {"pass_rule": "sometimes"}}, ["pass_rule", "sometimes"]),
    ({"options": {"colour": "blue"}}, ["unknown option", "colour"]),
    ({"hands": 0}, ["hands"]),
    ({"seed": -1}, ["seed"]),
    ({"seat": "one"}, ["seat"]),
    ({"opponents": ["zoo:nothing"]}, ["no zoo agent"]),
    ({"preset": "bombs", "opponents": ["zoo:president"]}, ["zoo:president"]),
])
def test_bad_game_requests_are_refused_by_name(client, body, words):
    r = client.post("/api/game", json=body)
    assert r.status_code == 400, r.text
    for w in words:
        assert w in r.json()["error"], r.json()["error"]


def test_a_pickled_model_is_never_loaded_from_a_request(tmp_path):
    # an SB3 zip is never read for a request: not by a path, and not from the agent folders (only agent files
    # are listed there; tests/test_agent_file.py proves a crafted payload does not run when the zip is refused)
    bad = tmp_path / "model.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":serialized:": "payload"}}))
    c = _client(create_app(agents_dirs=[str(tmp_path)]))
    assert c.get("/api/meta").json()["files"] == []
    for spec in (f"ppo:{bad}", "ppo:model", "ppo:model.zip"):
        r = c.post("/api/game", json={"opponents": [spec]})
        msg = r.json()["error"]
        assert r.status_code == 400 and "by name" in msg and str(tmp_path) not in msg.replace(spec, "")


def test_an_agent_file_plays_by_name_from_the_agent_folders(tmp_path):
    import shutil

    from agents.zoo import zoo_path

    shutil.copyfile(zoo_path("president"), tmp_path / "mine.agent.safetensors")
    c = _client(create_app(agents_dirs=[str(tmp_path)]))
    assert c.get("/api/meta").json()["files"] == ["ppo:mine"]
    token, view = _start(c, preset="president", seed=1, hands=1,
                         opponents=["ppo:mine", "zoo:president", "ppo-sample:mine"])
    assert [s["agent"] for s in sorted(view["table"]["seats"], key=lambda s: s["player"])][1] == "ppo:mine"
    _play_out(c, token, view, np.random.default_rng(3))
    r = c.post("/api/game", json={"preset": "daifugo", "opponents": ["ppo:mine"]})   # made for other rules
    assert r.status_code == 400 and "ppo:mine was made for other rules" in r.json()["error"]
    assert str(tmp_path) not in r.json()["error"]


@pytest.mark.parametrize("name", ["merchants", "expose_hands", "daifugo", "double_deck", "deck_and_a_half"])
def test_every_kind_of_decision_can_be_played(client, name):
    token, view = _start(client, preset=name, seed=6, hands=2, opponents=["heuristic"], random_ranks=True)
    seen = set()
    rng = np.random.default_rng(4)
    while not view["over"]:
        seen.add(view["table"]["prompt"])
        move = view["legal"][int(rng.integers(len(view["legal"])))]
        body = {"cards": move["cards"]} if move["id"] else {"action": 0}
        r = client.post("/api/game/action", json=body | {"decision": view["decision"]}, headers={"X-Game-Token": token})
        assert r.status_code == 200, r.text
        view = r.json()
    assert "play" in seen
    if name == "merchants":
        assert "trade" in seen or any("trade" in line for line in view["log"])
    if name == "expose_hands":
        assert any(line.startswith("exposed cards") for line in view["log"])
    for rec in client.get("/api/game/records", headers={"X-Game-Token": token}).text.splitlines():
        replay(json.loads(rec))


def test_a_client_past_its_limit_loses_its_own_least_recently_used_game():
    c = _client(create_app(limits=Limits(max_games=4, games_per_client=2)))
    tokens = [_start(c, seed=i)[0] for i in range(2)]
    assert c.get("/api/game", headers={"X-Game-Token": tokens[0]}).status_code == 200   # the first is used again
    tokens.append(_start(c, seed=2)[0])
    assert c.get("/api/game", headers={"X-Game-Token": tokens[1]}).status_code == 404
    assert all(c.get("/api/game", headers={"X-Game-Token": t}).status_code == 200 for t in (tokens[0], tokens[2]))


# --------------------------------------------------------------------------- poker combinations
# rich_man_poor_man, seed 0: you lead the first trick holding 3C 3H 3D 6C 6H 6D 7S 7H 8H 8D 9C KC KS.
# seed 31 with four_of_a_kind revolution: you lead holding 3C ... JC JS JH ... 2H (2 is wild).
REVOLUTION = {"four_of_a_kind": "revolution"}


def _act(client: TestClient, token: str, body: dict) -> dict:
    decision = client.get("/api/game", headers={"X-Game-Token": token}).json()["decision"]
    r = client.post("/api/game/action", json={"decision": decision, **body}, headers={"X-Game-Token": token})
    assert r.status_code == 200, r.text
    return r.json()


def _claims(client: TestClient, token: str, cards: list[str]) -> list[dict]:
    r = client.post("/api/game/claims", json={"cards": cards}, headers={"X-Game-Token": token})
    assert r.status_code == 200, r.text
    return r.json()["claims"]


def _new_lines(before: dict, after: dict) -> list[str]:
    return after["log"][len(before["log"]):]


def test_poker_legal_moves_are_claims_by_name_with_example_cards(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1)
    assert view["your_turn"] and view["table"]["poker"] and view["table"]["claim"] is None
    hand = [c["name"] for c in view["hand"]]
    assert {"3C", "3H", "3D", "6C", "6H"} <= set(hand)
    legal = view["legal"]
    assert all(m["claim"] for m in legal) and len(legal) < 60   # claims only (no pass on a lead), by name
    by_words = {m["words"]: m for m in legal}
    pair = by_words["pair of threes"]
    assert (pair["group"], pair["label"], pair["cards"]) == ("pairs", "threes", ["3C", "3H"])
    assert by_words["full house of threes"]["group"] == "full houses"
    assert "pair of sixes" not in by_words   # the first lead holds 3C (lowest_card)
    for m in legal:   # every example makes its claim
        assert m["words"] in [c["words"] for c in _claims(client, token, m["cards"])], m


def test_poker_a_pair_by_cards_is_a_claim_and_two_picks(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1, opponents=["random"])
    assert _claims(client, token, ["3H", "3C"]) == [{"id": 14, "words": "pair of threes", "play": "pair of threes"}]
    after = _act(client, token, {"cards": ["3H", "3C"]})
    lines = _new_lines(view, after)
    assert lines[0] == "you: pair of threes (3C 3H)"
    assert not any("pick" in line or "claim" in line for line in after["log"])   # one line per play
    view = _play_out(client, token, after, np.random.default_rng(2))   # claims' example cards, or pass
    rec = json.loads(client.get("/api/game/records", headers={"X-Game-Token": token}).text)
    replay(rec)   # every decision recorded, the claims and picks included
    rules = preset("rich_man_poor_man")
    first = rec["decisions"][:3]   # a claim, then the picks (3C first: the first lead holds it)
    assert [(d["agent"], d["action"]) for d in first] == [
        (0, claim_id(rules, "pair of threes")), (0, pick_id(rules, "3C")), (0, pick_id(rules, "3H"))]
    assert first[2]["cards"] == ["3C", "3H"] and first[0]["cards"] == first[1]["cards"] == []
    for line in view["log"]:   # a player's line is a play with its cards, or a pass: no claims, no picks
        if re.match(r"(you|p\d [\w:./-]+): ", line):
            assert line.endswith((")", ": pass")) and "pick" not in line, line
    # Watch names the play on its last pick, and hides a claim from the other players' views
    frames = RecordSet.parse("poker.jsonl", client.get("/api/game/records", headers={"X-Game-Token": token}).text)
    mine, theirs = frames.frames(0, viewer=0)["frames"], frames.frames(0, viewer=1)["frames"]
    assert [f["event"] for f in mine[1:4]] == ["p0 you: claim: pair of threes", "p0 you: pick 3C",
                                               "p0 you: pair of threes (3C 3H)"]
    assert [f["event"] for f in theirs[1:4]] == ["p0 you: makes a claim (hidden)", "p0 you: picks a card (hidden)",
                                                 "p0 you: pair of threes (3C 3H)"]
    assert mine[1]["table"]["claim"] == {"id": 14, "words": "pair of threes", "picked": []}
    assert theirs[1]["table"]["claim"] is None


def test_poker_a_full_house_by_cards_is_named(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1)
    cards = ["3C", "3H", "3D", "6C", "6H"]
    assert [c["play"] for c in _claims(client, token, cards)] == ["full house, threes over sixes"]
    after = _act(client, token, {"cards": cards})
    assert _new_lines(view, after)[0] == "you: full house, threes over sixes (3C 3H 3D 6C 6H)"
    assert len(after["hand"]) == len(view["hand"]) - 5
    top = after["table"]["top"]
    if top is not None:   # whatever lies on top is shown by name, with its cards
        assert top["play"] in after["table"]["top_text"] and len(top["cards"]) == 5


def test_poker_a_bad_selection_is_refused_by_name_and_changes_nothing(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1)
    _assert_refused(client, token, view, {"cards": ["3C", "KC"]}, "no legal play of the cards ['3C', 'KC']",
                    "no poker combination", "legal now:", "pair of threes", "full house of threes")
    _assert_refused(client, token, view, {"cards": ["6C", "6H"]}, "['6C', '6H']", "they make pair of sixes",
                    "not a legal play now")   # the first lead holds 3C
    _assert_refused(client, token, view, {"cards": ["3C", "3H"], "claim": "full house of kings"},
                    "do not make a full house of kings", "they make pair of threes")
    _assert_refused(client, token, view, {"cards": ["3C", "3H"], "claim": "royal flush"}, "no claim 'royal flush'")
    _assert_refused(client, token, view, {"cards": ["3C", "3H"], "claim": 999}, "not a claim id")
    _assert_refused(client, token, view, {"cards": ["3C", "AS"]}, "do not hold AS")
    _assert_refused(client, token, view, {"cards": []}, "select the cards")
    _assert_refused(client, token, view, {"action": 14, "claim": 14}, "a claim goes with the cards")
    r = client.post("/api/game/claims", json={"cards": ["3C", "KC"]}, headers={"X-Game-Token": token})
    assert r.status_code == 400 and "no poker combination" in r.json()["error"]
    assert client.get("/api/game", headers={"X-Game-Token": token}).json() == view


@pytest.mark.parametrize("claim, play, revolution", [
    (None, "four jacks and a three", True),                    # the strongest claim the cards make
    ("full house of jacks", "full house, jacks over threes", False),
    ("id", "full house, jacks over threes", False),            # the same claim by its id
])
def test_poker_an_explicit_claim_decides_what_the_cards_make(client, claim, play, revolution):
    token, view = _start(client, preset="rich_man_poor_man", seed=31, hands=1, options=REVOLUTION)
    cards = ["3C", "JC", "JS", "JH", "2H"]
    claims = _claims(client, token, cards)
    assert [c["words"] for c in claims] == ["four jacks", "full house of jacks"]
    body = {"cards": cards}
    if claim is not None:
        body["claim"] = claims[1]["id"] if claim == "id" else claim
    lines = _new_lines(view, _act(client, token, body))
    assert lines[0] == f"you: {play} (3C JC JS JH 2H)"
    assert ("revolution: the rank order is reversed" in lines) == revolution


def test_poker_a_claim_by_id_then_picks_by_id_and_by_cards(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1)
    rules = preset("rich_man_poor_man")
    claim = claim_id(rules, "full house of threes")
    after = _act(client, token, {"action": claim})
    assert after["log"] == view["log"]   # a claim (and a pick before the last) shows no line
    # the table shows the claim to its maker; the first pick of the first lead (3C) was the only move
    assert after["table"]["claim"] == {"id": claim, "words": "full house of threes", "picked": ["3C"]}
    assert all(not m["claim"] and m["words"] == f"pick {m['cards'][0]}" for m in after["legal"])
    after = _act(client, token, {"action": pick_id(rules, "3H")})
    assert after["table"]["claim"]["picked"] == ["3C", "3H"]
    _assert_refused(client, token, after, {"cards": ["3C", "3D", "6C", "6H"]}, "3C already picked")
    _assert_refused(client, token, after, {"cards": ["3D", "6C", "6H"], "claim": "pair of threes"},
                    "you have claimed full house of threes")
    _assert_refused(client, token, after, {"cards": ["3D", "6C"]}, "do not complete full house of threes",
                    "picked so far: 3C 3H")
    assert [c["play"] for c in _claims(client, token, ["6H", "3D", "6C"])] == ["full house, threes over sixes"]
    done = _act(client, token, {"cards": ["6H", "3D", "6C"]})
    assert _new_lines(after, done)[0] == "you: full house, threes over sixes (3C 3H 3D 6C 6H)"
    assert done["table"]["claim"] is None


def test_poker_give_backs_name_a_card(client):
    token, view = _start(client, preset="rich_man_poor_man", seed=0, hands=1, random_ranks=True)
    assert view["table"]["prompt"] == "give back"
    assert all(m["words"] == f"give back a {m['cards'][0]}" and m["match"] == m["cards"] for m in view["legal"])
    after = _act(client, token, {"cards": [view["legal"][0]["cards"][0]]})
    assert f"you: give back a {view['legal'][0]['cards'][0]}" in _new_lines(view, after)[0]


# --------------------------------------------------------------------------- watch
def test_a_records_file_from_the_command_line_is_listed_and_steps_through(tmp_path):
    text = _records_text(tmp_path)
    records = RecordSet.parse("sim.jsonl", text)
    c = _client(create_app(records))
    sets = c.get("/api/records").json()["sets"]
    assert sets == [{"id": "cli", "name": "sim.jsonl", "hands": len(records.records)}]
    hands = c.get("/api/records/cli").json()["hands"]
    assert [h["index"] for h in hands] == list(range(len(records.records)))
    rec = records.records[1]
    frames = _all_frames(c, "/api/records/cli/1")
    assert len(frames) == len(rec["decisions"]) + 1
    deal_sizes = [len(cards) for cards in rec["deal"]]
    assert sum(s["n_cards"] for s in frames[0]["table"]["seats"]) == sum(deal_sizes)
    for i, (frame, d) in enumerate(zip(frames[1:], rec["decisions"], strict=True)):
        assert frame["event"].startswith(f"p{d['agent']} "), (i, frame["event"])
        if d["cards"] and d["action"]:
            assert " ".join(d["cards"]) in frame["event"]
        shown = sum(len(s["cards"]) for s in frame["table"]["seats"])
        assert shown == sum(s["n_cards"] for s in frame["table"]["seats"])
    last = frames[-1]["table"]
    # the record's hand is over, not its session; the points are the hand's (a record holds no session points)
    assert last["phase"] == "hand over" and last["hand_no"] == rec["hand"] and "session" not in last["top_text"]
    assert sorted((s["player"], s["hand_points"]) for s in last["seats"]) == list(enumerate(rec["points"]))
    assert all(s["points"] is None for f in frames for s in f["table"]["seats"])
    assert all(f["table"]["hand_no"] == rec["hand"] for f in frames)
    assert "hand over" in frames[-1]["event"] and f"hand {rec['hand']};" in frames[0]["event"]


def test_one_players_view_hides_the_other_hands(tmp_path):
    records = RecordSet.parse("sim.jsonl", _records_text(tmp_path))
    c = _client(create_app(records))
    frames = _all_frames(c, "/api/records/cli/1?viewer=2")
    for frame in frames:
        for s in frame["table"]["seats"]:
            assert (s["cards"] is not None) == (s["player"] == 2)
    rec = records.records[1]
    for g in rec["exchanges"]:
        if 2 not in (g["from"], g["to"]):
            assert " ".join(g["cards"]) not in frames[0]["event"]


def test_an_upload_is_private_to_the_uploader_and_opens(tmp_path):
    c = _client(create_app())
    text = _records_text(tmp_path, "daifugo", games=1)
    r = c.post("/api/records?name=mine.jsonl", content=text.encode(), headers=NDJSON)
    assert r.status_code == 200
    data = r.json()
    assert data["name"] == "mine.jsonl" and len(data["hands"]) >= 1
    assert c.get("/api/records").json()["sets"] == []
    assert len(c.get(f"/api/records/{data['id']}/0?viewer=0").json()["frames"]) > 1


@pytest.mark.parametrize("mutate, status, words", [
    (lambda t: b"\xff\xfe" + t.encode(), 400, ["UTF-8"]),
    (lambda t: t.encode() + b"\n{not json}\n", 400, ["bad.jsonl:", "not valid JSON"]),
    (lambda t: b"[1, 2]\n", 400, ["bad.jsonl:1:", "must be a JSON object"]),
    (lambda t: b"\n\n", 400, ["no records"]),
    (lambda t: json.dumps({**json.loads(t.splitlines()[0]), "rules": {"players": 99}}).encode(), 400,
     ["bad.jsonl:1:", "players"]),
])
def test_corrupt_uploads_are_refused_with_the_reason(tmp_path, mutate, status, words):
    c = _client(create_app())
    r = c.post("/api/records?name=bad.jsonl", content=mutate(_records_text(tmp_path, games=1)), headers=NDJSON)
    assert r.status_code == status, r.text
    for w in words:
        assert w in r.json()["error"], r.json()["error"]


def test_a_record_that_does_not_replay_is_refused_when_opened(tmp_path):
    rec = read_records_from_text(_records_text(tmp_path, games=1))[0]
    bad = copy.deepcopy(rec)
    d = bad["decisions"][-1]
    d["action"] = next(a for a in range(80) if a not in d["legal"])
    path = tmp_path / "bad.jsonl"
    write_records(path, [bad])
    c = _client(create_app())
    r = c.post("/api/records?name=bad.jsonl", content=path.read_bytes(), headers=NDJSON)
    assert r.status_code == 200  # the fields are well formed; the play is checked when the hand is opened
    r = c.get(f"/api/records/{r.json()['id']}/0")
    assert r.status_code == 400 and "does not replay" in r.json()["error"] and "not legal" in r.json()["error"]


def test_bad_watch_requests_are_refused(tmp_path):
    c = _client(create_app(RecordSet.parse("sim.jsonl", _records_text(tmp_path, games=1))))
    n = len(c.get("/api/records/cli").json()["hands"])
    for path, status, word in [
        ("/api/records/nope", 404, "no records file"),
        ("/api/records/nope/0", 404, "no records file"),
        (f"/api/records/cli/{n}", 400, "hands 0.."),
        ("/api/records/cli/0?viewer=7", 400, "viewer must be a player 0..3"),
        ("/api/records/cli/0?viewer=me", 400, "viewer must be 'all'"),
        ("/api/records/cli/x", 400, "index"),
    ]:
        r = c.get(path)
        assert r.status_code == status, (path, r.text)
        assert word in r.json()["error"], (path, r.json())


def read_records_from_text(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --------------------------------------------------------------------------- command line
def test_serve_refuses_a_corrupt_records_file_and_a_bad_port(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--records", str(bad)])
    assert e.value.code == 2 and "bad.jsonl:1: not valid JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--records", str(tmp_path / "missing.jsonl")])
    assert e.value.code == 2 and "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--port", "70000"])
    assert e.value.code == 2 and "--port" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--host", "0.0.0.0"])
    assert e.value.code == 2 and "--allowed-host" in capsys.readouterr().err


def test_watch_parses_a_file_as_read_records_does(tmp_path):
    text = _records_text(tmp_path, "merchants", games=1)
    assert RecordSet.parse("m.jsonl", text).records == read_records(tmp_path / "merchants.jsonl")


@pytest.mark.parametrize("name", [n for n in __import__("president_env.core", fromlist=["PRESETS"]).PRESETS])
def test_every_preset_opens_in_watch(tmp_path, name):
    records = RecordSet.parse(f"{name}.jsonl", _records_text(tmp_path, name, games=1, seed=2))
    for i, rec in enumerate(records.records):
        frames = records.frames(i, viewer=0)["frames"]
        assert len(frames) == len(rec["decisions"]) + 1
        assert frames[-1]["table"]["phase"] == "hand over"


def test_president_serve_starts_a_server_on_localhost(tmp_path):
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    path = tmp_path / "sim.jsonl"
    path.write_text(_records_text(tmp_path, games=1))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "president_cli.main", "serve", "--records", str(path),
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/records", timeout=2) as r:
                    sets = json.loads(r.read())["sets"]
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise AssertionError(f"president serve did not answer: {proc.stdout.read()}") from None
                time.sleep(0.2)
        assert sets == [{"id": "cli", "name": "sim.jsonl", "hands": 2}]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert b"<title>President</title>" in r.read()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}/" in out


def test_two_wild_ranks_give_every_move_its_own_selection():
    # section 8 fine point 10: with fours and nines wild under a suit rule, 7C + 4S and 7C + 9S are two moves,
    # and the cards a player clicks (their match tokens) pick exactly one of them
    from helpers import game

    from president_env.core import Rules
    from president_web.views import legal_moves

    r = Rules(players=4, first_lead="dealer", hands_per_session=1, exchange=(1,), rank_order="3 4 5 6 7 8 9",
              suit_rule="rank", wild_ranks={"9", "4"})
    st = game(r, ["7C 9S 4S 3C", "5C", "6C", "8C"], rest_to=3)
    moves = legal_moves(r, st)
    matches = [json.dumps(m["match"]) for m in moves if m["id"]]
    assert len(matches) == len(set(matches))
    by_cards = {tuple(sorted(m["cards"])): m for m in moves}
    assert by_cards[("4S", "7C")]["match"] == ["*4S", "7C"] and by_cards[("7C", "9S")]["match"] == ["*9S", "7C"]
