"""Playing UECda: action ids <-> play tables, our server with our clients end to end, the CLI's errors.

Every network test binds 127.0.0.1 on a port the system picks; clients have socket timeouts and the
server runs under ``asyncio.wait_for``: nothing can hang.
"""

from __future__ import annotations

import asyncio
import socket
import threading

import numpy as np
import pytest

from agents.registry import make_agent
from president_cli.main import main
from president_env.core.actions import action_table
from president_env.core.records import replay
from president_env.core.uecda_export import format_uecda_record
from president_env.core.uecda_import import import_games, uecda_rules
from president_env.core.uecda_record import read_uecda_record
from president_env.uecda import tables as T
from president_env.uecda.client_play import play_match
from president_env.uecda.moves import action_of_play, action_table_of, lone_joker_action
from president_env.uecda.server_match import run_match
from president_env.uecda.server_net import UecdaClient, UecdaServer

RULES = uecda_rules()
WAIT = 600.0      # the bound on a whole match (the engine may compile on first use)


def actor(spec: str, seed: int):
    agent = make_agent(spec, RULES)
    rng = np.random.default_rng(seed)
    return lambda obs, mask: int(agent.act(obs[None], mask[None], rng)[0])


def test_every_action_goes_as_a_table_and_comes_back():
    at = action_table(RULES)
    for a in range(at.n):
        assert action_of_play(RULES, T.parse_play(action_table_of(RULES, a))) == a


def test_the_joker_cells_of_the_spec():
    at = action_table(RULES)
    words = [at.words(i) for i in range(at.n)]
    pair = action_table_of(RULES, words.index("pair 9D + JK as 9S"))
    assert (pair[0, 7], pair[2, 7]) == (2, 1) and pair[:5].sum() == 3
    low = action_table_of(RULES, words.index("run JK 3H 4H"))
    assert (low[1, 0], low[1, 1], low[1, 2]) == (2, 1, 1)
    high = action_table_of(RULES, words.index("run AH 2H JK"))
    assert (high[1, 12], high[1, 13], high[1, 14]) == (1, 1, 2)
    five = action_table_of(RULES, words.index("five 9C 9D 9H 9S + JK"))
    assert five[4, 7] == 2 and five[:4, 7].tolist() == [1, 1, 1, 1]
    lone = action_table_of(RULES, lone_joker_action(RULES))
    assert lone[0, 14] == 2 and lone[:5].sum() == 2
    on_a_heart = action_table_of(RULES, lone_joker_action(RULES), T.parse_play(T.set_table(["5H"])))
    assert on_a_heart[2, 14] == 2        # the row after the top's suit, as the public client sends it


def _client(port: int, spec: str, seed: int, out: dict, errors: list) -> None:
    try:
        with UecdaClient("127.0.0.1", port, name=spec, timeout=120, connect_timeout=30) as c:
            me = c.connect()
            out[me] = play_match(c, RULES, actor(spec, seed), me, seed=seed, log=lambda line: None)
    except BaseException as e:   # noqa: BLE001 - reported by the test
        errors.append(f"{spec}: {e!r}")


def _moves(record: dict) -> tuple:
    """A hand's decisions as a UECda record keeps them: the give-backs as a set (the format writes the cards
    each player gave, not their order), then every play in order."""
    n_back = sum(len(g["cards"]) for g in record["exchanges"]) if record["prev_ranks"] is not None else 0
    actions = [d["action"] for d in record["decisions"]]
    return sorted(actions[:n_back]), actions[n_back:]


def _host(specs: list[str], games: int, clients: list[str], rotation: int = 0) -> tuple:
    """``specs`` by the clients' numbers; under ``rotation`` entrant i is our player (i + rotation) % 5."""
    local = {(p + rotation) % 5: actor(s, p) for p, s in enumerate(specs) if s != "remote"}
    remote = [p for p in range(5) if specs[p] == "remote"]
    stats: dict = {}
    errors: list = []
    threads: list = []

    async def go():
        async with UecdaServer("127.0.0.1", 0, players=remote) as server:
            for k, spec in enumerate(clients):
                th = threading.Thread(target=_client, args=(server.port, spec, 10 + k, stats, errors), daemon=True)
                th.start()
                threads.append(th)
            await server.wait_for_players(timeout=60)
            names = [specs[p] if p not in remote else server.names[p] for p in range(5)]
            names = [names[(q - rotation) % 5] for q in range(5)]
            return await run_match(RULES, local, names, games, server=server, seed=7, log=lambda line: None,
                                   rotation=rotation)

    result = asyncio.run(asyncio.wait_for(go(), WAIT))
    for th in threads:
        th.join(60)
        assert not th.is_alive()
    return result, stats, errors


def test_our_server_with_five_of_our_clients(tmp_path):
    # 20 games: the seats are redrawn every 3 games and the ranks carried, so every part of a match is played
    clients = ["heuristic", "greedy", "random", "heuristic", "random"]
    result, stats, errors = _host(["remote"] * 5, 20, clients)
    assert not errors
    assert result.games == 20 and sorted(stats) == [0, 1, 2, 3, 4]
    assert result.rejected == [0] * 5 and result.bad_exchanges == [0] * 5
    orders = [r["finish_order"] for r in result.records]
    for s in stats.values():
        assert s.games == 20 and s.rejected == 0
        assert s.places == orders                # every client followed every game to its places
        assert s.points == result.points
    for r in result.records:
        replay(r)
    seatings = [tuple(r["seats"]) for r in result.records]
    assert all(len(set(seatings[k:k + 3])) == 1 for k in range(0, 20, 3)) and len(set(seatings)) > 1
    # the UECda record of the match imports back to the same games, with the times the server measured
    assert [len(t) for t in result.times_us] == [len(r["decisions"]) for r in result.records]
    path = tmp_path / "match.dat"
    path.write_text(format_uecda_record(RULES, result.records, result.names, times_us=result.times_us))
    back = import_games(path)
    assert [_moves(r) for r in back] == [_moves(r) for r in result.records]
    assert all(m.time_us is not None for g in read_uecda_record(path).games for m in g.plays)


def test_our_client_in_one_seat_of_our_server_with_local_agents():
    result, stats, errors = _host(["greedy", "heuristic", "remote", "random", "greedy"], 3, ["heuristic"])
    assert not errors
    assert list(stats) == [2]
    assert stats[2].points[2] == result.points[2] and stats[2].rejected == 0
    assert stats[2].places == [r["finish_order"] for r in result.records]
    for r in result.records:
        replay(r)


def test_in_a_rotated_match_each_client_stays_the_player_it_connected_as():
    # --duplicate's rotation 2: clients 1 and 3 are our players 3 and 0; every table tells players by the clients'
    # numbers, so each client follows every game, its places and points by those numbers
    result, stats, errors = _host(["greedy", "remote", "random", "remote", "heuristic"], 4, ["heuristic", "greedy"],
                                  rotation=2)
    assert not errors and sorted(stats) == [1, 3]
    assert result.rejected == [0] * 5 and result.bad_exchanges == [0] * 5
    told = [[(q - 2) % 5 for q in r["finish_order"]] for r in result.records]
    for s in stats.values():
        assert s.games == 4 and s.rejected == 0 and s.places == told
        assert s.points == [result.points[(c + 2) % 5] for c in range(5)]
    for r in result.records:
        replay(r)


def test_a_flood_of_connections_during_a_match_is_refused_and_the_match_goes_on():
    # 60 connections (garbage, half a profile, silence) while two clients play: every one refused and counted,
    # the seated clients follow every game to the end, nothing hangs
    stats: dict = {}
    errors: list = []

    async def flood(port: int) -> None:
        async def one(k: int) -> None:
            try:
                r, w = await asyncio.open_connection("127.0.0.1", port)
                w.write([b"GET / HTTP/1.0\r\n\r\n", b"\x00" * 240, b""][k % 3])
                await w.drain()
                await asyncio.wait_for(r.read(), 10)          # the server closes it
                w.close()
            except (ConnectionError, OSError):
                pass
        await asyncio.gather(*(one(k) for k in range(60)))

    async def go():
        local = {0: actor("greedy", 0), 2: actor("random", 2), 4: actor("heuristic", 4)}
        async with UecdaServer("127.0.0.1", 0, players=[1, 3]) as server:
            threads = [threading.Thread(target=_client, args=(server.port, spec, 10 + k, stats, errors), daemon=True)
                       for k, spec in enumerate(["heuristic", "greedy"])]
            for th in threads:
                th.start()
            await server.wait_for_players(timeout=60)
            names = ["greedy", server.names[1], "random", server.names[3], "heuristic"]
            match = asyncio.create_task(run_match(RULES, local, names, 6, server=server, seed=3, log=lambda _: None))
            await flood(server.port)
            result = await match
            for th in threads:
                await asyncio.to_thread(th.join, 60)
            return result, server.refused

    result, refused = asyncio.run(asyncio.wait_for(go(), WAIT))
    assert not errors and refused == 60
    assert result.games == 6 and result.rejected == [0] * 5
    for i in (1, 3):
        assert stats[i].games == 6 and stats[i].places == [r["finish_order"] for r in result.records]


def test_a_client_observes_the_points_of_the_games_before():
    # the observation's points piece holds the match's points so far (15 points a game among the five)
    from president_env.core.observation import layout

    off, n = next((o, k) for piece, o, k, _ in layout(RULES) if piece == "points")
    seen: list[float] = []
    heuristic = actor("heuristic", 1)

    def watching(obs, mask):
        seen.append(float(obs[off:off + n].sum()))
        return heuristic(obs, mask)

    async def go():
        async with UecdaServer("127.0.0.1", 0, players=[2]) as server:
            out: dict = {}

            def client():
                with UecdaClient("127.0.0.1", server.port, name="watch", timeout=120, connect_timeout=30) as c:
                    out["stats"] = play_match(c, RULES, watching, c.connect(), log=lambda _: None)
            th = threading.Thread(target=client, daemon=True)
            th.start()
            await server.wait_for_players(timeout=60)
            local = {p: actor("greedy", p) for p in (0, 1, 3, 4)}
            result = await run_match(RULES, local, ["greedy"] * 5, 3, server=server, seed=5, log=lambda _: None)
            await asyncio.to_thread(th.join, 60)
            return result

    asyncio.run(asyncio.wait_for(go(), WAIT))
    scale = seen[-1] / 30 if seen[-1] else 0            # the piece may be scaled: the last game follows two
    assert seen[0] == 0 and scale > 0
    assert {round(v / scale) for v in seen} == {0, 15, 30}


def test_an_illegal_submission_is_a_pass_answered_8():
    """A client that always plays a card it does not hold: every such play is rejected (8) and counted; a pass on
    an empty table shows an all-zero top table (the last trick's play is not shown again)."""
    answers: list[int] = []
    errors: list[str] = []
    stale: list[int] = []

    def cheat(port: int) -> None:
        try:
            with UecdaClient("127.0.0.1", port, name="cheat", timeout=120, connect_timeout=30) as c:
                c.connect()
                while True:
                    info = T.read_info(t := c.receive_table("table"))
                    if info.deal:
                        if info.exchange:
                            c.send_table(T.cards_table(T.hand_from_table(t)[:info.exchange]))
                        continue
                    if info.my_turn:
                        hand = T.hand_from_table(t)
                        c.send_table(T.set_table([next(x for x in ("3S", "3H", "3D") if x not in hand)]))
                        answers.append(c.receive_flag())
                    top = c.receive_table("top")
                    actor = T.read_info(top).to_move
                    if info.empty_table and T.read_info(top).counts[actor] == info.counts[actor]:
                        stale.append(int(top[:5].any()))   # a pass on an empty table: the top is all zero
                    if c.receive_flag() == 2:
                        return
        except BaseException as e:   # noqa: BLE001
            errors.append(repr(e))

    local = {p: actor("greedy", p) for p in range(4)}

    async def go():
        async with UecdaServer("127.0.0.1", 0, players=[4]) as server:
            th = threading.Thread(target=cheat, args=(server.port,), daemon=True)
            th.start()
            await server.wait_for_players(timeout=60)
            res = await run_match(RULES, local, ["greedy"] * 4 + ["cheat"], 2, server=server, seed=3,
                                  log=lambda line: None)
            await asyncio.get_running_loop().run_in_executor(None, th.join, 60)
            return res

    result = asyncio.run(asyncio.wait_for(go(), WAIT))
    assert not errors
    assert answers and set(answers) == {8} and result.rejected[4] == len(answers)
    assert stale and not any(stale)     # as the reference server: the stage is cleared when a trick ends
    assert result.rejected[:4] == [0] * 4
    for r in result.records:
        replay(r)


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_a_closed_port_is_a_one_line_error(capsys):
    assert main(["uecda-client", "--agent", "random", "--port", str(_closed_port())]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "could not connect to 127.0.0.1:" in err and "refused" in err


def test_the_server_refuses_a_wrong_seat_count():
    with pytest.raises(SystemExit):
        main(["uecda-server", "--seats", "random,random", "--games", "1"])


def test_the_server_command_with_local_seats_writes_verifying_records(tmp_path, capsys):
    out = tmp_path / "match.jsonl"
    assert main(["uecda-server", "--seats", "heuristic,greedy,random,heuristic,greedy", "--games", "3",
                 "--records", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3 games" in text and "rejected" in text
    from president_env.core.records import read_records
    records = read_records(out)
    assert len(records) == 3
    for r in records:
        replay(r)
    assert [r["hand"] for r in records] == [0, 1, 2]


def test_a_duplicate_match_plays_each_deal_in_every_rotation(tmp_path, capsys):
    out, dat = tmp_path / "dup.jsonl", tmp_path / "dup.dat"
    seats = "heuristic,random,random,random,random"
    assert main(["uecda-server", "--seats", seats, "--games", "2", "--duplicate", "--records", str(out),
                 "--uecda-records", str(dat)]) == 0
    text = capsys.readouterr().out
    from president_env.core.records import read_records
    records = read_records(out)
    assert len(records) == 10 and "rotation 5 of 5" in text
    for r in records:
        replay(r)
    # the same deal in every rotation, each time dealt to another entrant: the heuristic (entrant 0) is our
    # player r in rotation r and holds the cards player r was dealt. (In the second game the same five piles
    # go round from a dealer the first game's places chose.)
    firsts = records[0::2]
    assert len({tuple(map(tuple, r["deal"])) for r in firsts}) == 1
    assert [r["agents"].index("heuristic") for r in firsts] == [0, 1, 2, 3, 4]
    assert len({tuple(sorted(map(tuple, r["deal"]))) for r in records[1::2]}) == 1
    # the evaluate table: each entrant's points a hand are the mean over the 10 games it played
    points = [sum(r["points"][(e + k // 2) % 5] for k, r in enumerate(records)) / 10 for e in range(5)]
    assert f"{points[0]:+.3f}" in text and "head to head" in text and "2 deals x 5 seatings" in text
    # the UECda record names the entrants as players 0-4 throughout, and imports to the same games
    back = import_games(dat)
    assert read_uecda_record(dat).players == tuple(seats.split(","))
    assert [_moves(r) for r in back] == [_moves(r) for r in records]
    for k, (r, b) in enumerate(zip(records, back, strict=True)):
        rot = k // 2
        assert b["finish_order"] == [(q - rot) % 5 for q in r["finish_order"]]
    # neither file is written over without --force
    with pytest.raises(SystemExit) as e:
        main(["uecda-server", "--seats", seats, "--games", "1", "--uecda-records", str(dat)])
    assert e.value.code == 2 and "already exists" in capsys.readouterr().err


def test_a_client_that_leaves_mid_game_passes_to_the_end():
    """A client that reads its deal table and hangs up: its seat passes, the match ends, the records replay."""
    local = {p: actor("greedy", p) for p in range(1, 5)}
    logs: list[str] = []

    def leaver(port: int) -> None:
        with UecdaClient("127.0.0.1", port, name="leaver", timeout=60, connect_timeout=30) as c:
            c.connect()
            c.receive_table("deal table")

    async def go():
        async with UecdaServer("127.0.0.1", 0, players=[0], on_log=logs.append) as server:
            th = threading.Thread(target=leaver, args=(server.port,), daemon=True)
            th.start()
            await server.wait_for_players(timeout=60)
            res = await run_match(RULES, local, ["leaver"] + ["greedy"] * 4, 2, server=server, seed=5,
                                  log=logs.append)
            await asyncio.get_running_loop().run_in_executor(None, th.join, 60)
            return res

    result = asyncio.run(asyncio.wait_for(go(), WAIT))
    assert result.games == 2
    assert any("closed the connection" in line for line in logs)
    for r in result.records:
        replay(r)
        assert r["decisions"]


def test_the_server_keeps_an_existing_records_file_and_ctrl_c_keeps_finished_games(tmp_path, capsys, monkeypatch):
    from cli_run import run_cli

    from president_env.core.records import read_records

    out = tmp_path / "match.jsonl"
    out.write_text("mine\n")
    seats = ["--seats", "greedy,greedy,random,random,heuristic", "--games", "2", "--records", str(out)]
    code, err = run_cli(["uecda-server", *seats], capsys)
    assert code == 2 and "already exists" in err and out.read_text() == "mine\n"
    real_run = asyncio.run

    def run_then_interrupt(coro):        # the match plays its two games, then Ctrl-C
        real_run(coro)
        raise KeyboardInterrupt

    monkeypatch.setattr(asyncio, "run", run_then_interrupt)
    code, err = run_cli(["uecda-server", *seats, "--force"], capsys)
    assert code == 130 and "2 finished games" in err and out.read_text() == "mine\n"
    kept = read_records(tmp_path / "match.partial.jsonl")
    assert len(kept) == 2
    for r in kept:
        replay(r)
