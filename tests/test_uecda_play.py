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
from president_env.core.uecda_import import uecda_rules
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


def _host(specs: list[str], games: int, clients: list[str]) -> tuple:
    local = {p: actor(s, p) for p, s in enumerate(specs) if s != "remote"}
    remote = [p for p in range(5) if p not in local]
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
            names = [specs[p] if p in local else server.names[p] for p in range(5)]
            return await run_match(RULES, local, names, games, server=server, seed=7, log=lambda line: None)

    result = asyncio.run(asyncio.wait_for(go(), WAIT))
    for th in threads:
        th.join(60)
        assert not th.is_alive()
    return result, stats, errors


def test_our_server_with_five_of_our_clients():
    clients = ["heuristic", "greedy", "random", "heuristic", "random"]
    result, stats, errors = _host(["remote"] * 5, 4, clients)
    assert not errors
    assert result.games == 4 and sorted(stats) == [0, 1, 2, 3, 4]
    assert result.rejected == [0] * 5 and result.bad_exchanges == [0] * 5
    orders = [r["finish_order"] for r in result.records]
    for s in stats.values():
        assert s.games == 4 and s.rejected == 0
        assert s.places == orders                # every client followed every game to its places
        assert s.points == result.points
    for r in result.records:
        replay(r)
    assert len({tuple(r["seats"]) for r in result.records}) >= 1


def test_our_client_in_one_seat_of_our_server_with_local_agents():
    result, stats, errors = _host(["greedy", "heuristic", "remote", "random", "greedy"], 3, ["heuristic"])
    assert not errors
    assert list(stats) == [2]
    assert stats[2].points[2] == result.points[2] and stats[2].rejected == 0
    assert stats[2].places == [r["finish_order"] for r in result.records]
    for r in result.records:
        replay(r)


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
