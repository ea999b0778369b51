"""The UECda protocol layer: tables on the wire, card tables, exact reads, the server core and its limits.

Hand-written tables follow ``shared/spec/uecda.md`` sections 2-3. Every network test binds 127.0.0.1
on a port the system picks and runs under ``asyncio.wait_for`` (or socket timeouts): none can hang.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import time

import numpy as np
import pytest

from president_env.uecda import tables as T
from president_env.uecda.protocol import (
    PROTOCOL_VERSION,
    TABLE_BYTES,
    UecdaProtocolError,
    client_handshake,
    decode_flag,
    decode_table,
    encode_flag,
    encode_table,
    parse_profile,
    profile_table,
    read_flag,
    read_profile,
    read_table,
    recv_flag,
    recv_table,
)
from president_env.uecda.server_net import AnswerTimeout, ClientGone, ServerLimits, UecdaClient, UecdaServer

WAIT = 20.0   # the bound on any one networked test


def run(coro, timeout: float = WAIT):
    return asyncio.run(asyncio.wait_for(coro, timeout))


def rows(*lines: str) -> np.ndarray:
    """An 8x15 table from up to 8 lines of 15 space-separated integers (missing lines are zeros)."""
    t = np.zeros((8, 15), dtype=np.int64)
    for r, line in enumerate(lines):
        vals = [int(v) for v in line.split()]
        assert len(vals) == 15, line
        t[r] = vals
    return t


Z = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

# The deal table player 4 got from the reference server in game 0 of the interop run (docs/uecda.md):
# hand 3C 4D 5C 6C 6S QS KD KS AS 2H 2S; [5][0] = 1 (deal), [5][3] = 6; counts 10 11 11 10 11; a hand
# without ranks (classes all 0); seats 1 2 3 0 4.
DEAL = rows(
    "0 0 0 0 1 0 0 0 0 0 1 1 1 1 0",   # S: 6S QS KS AS 2S
    "0 0 0 0 0 0 0 0 0 0 0 0 0 1 0",   # H: 2H
    "0 0 1 0 0 0 0 0 0 0 0 1 0 0 0",   # D: 4D KD
    "0 1 0 1 1 0 0 0 0 0 0 0 0 0 0",   # C: 3C 5C 6C
    Z,
    "1 0 0 6 0 0 0 0 0 0 0 0 0 0 0",
    "10 11 11 10 11 0 0 0 0 0 1 2 3 0 4",
    Z,
)


# ---------------------------------------------------------------------------------------------
# Bytes on the wire
# ---------------------------------------------------------------------------------------------

def test_a_table_is_480_big_endian_bytes_row_by_row():
    t = np.zeros((8, 15), dtype=np.int64)
    t[0, 0], t[0, 1], t[7, 14] = 20070, -1, 258
    data = encode_table(t)
    assert len(data) == 480
    assert data[:8] == b"\x00\x00\x4e\x66\xff\xff\xff\xff"
    assert data[-4:] == b"\x00\x00\x01\x02"
    assert (decode_table(data) == t).all()
    served = encode_table(t, server=True)            # the server sends a negative value as 0
    assert served[4:8] == b"\x00\x00\x00\x00" and decode_table(served)[0, 1] == 0


def test_a_flag_is_four_big_endian_bytes():
    assert encode_flag(9) == b"\x00\x00\x00\x09"
    assert decode_flag(b"\x00\x00\x01\x00") == 256
    assert encode_flag(-2) == b"\xff\xff\xff\xfe" and encode_flag(-2, server=True) == b"\x00\x00\x00\x00"
    with pytest.raises(UecdaProtocolError, match=r"^flag: 3 bytes, a flag is 4$"):
        decode_flag(b"abc")


@pytest.mark.parametrize("table, message", [
    (np.zeros((8, 14)), r"^table: shape \(8, 14\), expected \(8, 15\)$"),
    (np.full((8, 15), 0.5), r"^table row 0 cell 0: 0\.5 is not an integer$"),
    ([[0] * 15] * 3 + [[0] * 14 + [2 ** 40]] + [[0] * 15] * 4, r"^table row 3 cell 14: 1099511627776 does not fit"),
])
def test_tables_that_cannot_be_encoded_are_named(table, message):
    with pytest.raises(UecdaProtocolError, match=message):
        encode_table(table)
    with pytest.raises(UecdaProtocolError, match=r"^hand table: 479 bytes, a table is 480$"):
        decode_table(bytes(479), "hand table")


def test_the_profile_table_and_the_name_the_server_keeps():
    t = profile_table("FujiGokoro-Python")          # 17 characters: 14 kept, the 15th cell 0
    assert t[0, 0] == PROTOCOL_VERSION == 20070
    assert [chr(v) for v in t[1, :14]] == list("FujiGokoro-Pyt") and t[1, 14] == 0
    assert not t[2:].any() and not t[0, 1:].any()
    assert parse_profile(t) == "FujiGokoro-Pyt"
    assert parse_profile(profile_table("ab")) == "ab"
    with pytest.raises(ValueError, match="not printable ASCII"):
        profile_table("名前")


def test_profile_tables_of_another_protocol_are_refused_by_name():
    t = profile_table("old")
    t[0, 0] = 20060
    with pytest.raises(UecdaProtocolError, match=r"^profile table: \[0\]\[0\] is 20060, expected protocol 20070$"):
        parse_profile(t)
    t[0, 0] = int.from_bytes((20070).to_bytes(4, "little"), "big")   # a client sending host-order integers
    with pytest.raises(UecdaProtocolError, match=r"is 1716387840, expected protocol 20070 \(that is 20070 in little"):
        parse_profile(t)
    t = profile_table("abc")
    t[1, 1] = 300
    with pytest.raises(UecdaProtocolError, match=r"^profile table row 1 cell 1: 300 is not a character code"):
        parse_profile(t)


def test_the_handshake_both_sides_over_a_socketpair():
    async def go():
        a, b = socket.socketpair()
        b.settimeout(5)
        reader, writer = await asyncio.open_connection(sock=a)
        client = asyncio.create_task(asyncio.to_thread(client_handshake, b, "someone"))
        assert await read_profile(reader, timeout=5) == "someone"
        writer.write(encode_flag(3, server=True))
        await writer.drain()
        assert await client == 3
        writer.write(encode_flag(7))                  # a second handshake answered with a number out of range
        await writer.drain()
        with pytest.raises(UecdaProtocolError, match=r"^the server answered player number 7, expected 0-4$"):
            await asyncio.to_thread(client_handshake, b, "again")
        assert await read_profile(reader, timeout=5) == "again"
        writer.close()
        b.close()
    run(go())


# ---------------------------------------------------------------------------------------------
# Card tables
# ---------------------------------------------------------------------------------------------

def test_cells_and_card_names():
    assert T.cell_of("3S") == (0, 1) and T.cell_of("2C") == (3, 13) and T.cell_of("9h") == (1, 7)
    assert T.cell_of("10D") == T.cell_of("TD") == (2, 8)
    assert T.cell_of("JK") == (4, 1)
    names = [T.card_at(r, c) for r in range(4) for c in range(1, 14)] + ["JK"]
    assert len(set(names)) == 53 and all(T.card_at(*T.cell_of(n)) == n for n in names)
    with pytest.raises(ValueError, match="unknown card '1S'"):
        T.cell_of("1S")
    with pytest.raises(ValueError, match=r"cell \[0\]\[14\] holds no card"):
        T.card_at(0, 14)


def test_the_deal_table_of_the_spec():
    assert T.hand_from_table(DEAL, "deal table") == ["3C", "4D", "5C", "6C", "6S", "QS", "KD", "KS", "AS", "2H",
                                                     "2S"]
    info = T.read_info(DEAL, "deal table")
    assert info == T.TableInfo(deal=True, exchange=0, my_turn=False, to_move=6, empty_table=False,
                               eleven_back=False, revolution=False, lock=False, counts=(10, 11, 11, 10, 11),
                               classes=(0, 0, 0, 0, 0), seats=(1, 2, 3, 0, 4))
    assert not info.ranked and info.seat_of(0) == 3
    assert (info.apply(T.cards_table(T.hand_from_table(DEAL))) == DEAL).all()


def test_a_hand_table_with_the_joker_and_ranks():
    t = T.cards_table(["3D", "JK", "2S"])
    assert t[4, 1] == 2 and t[2, 1] == 1 and t[0, 13] == 1 and t.sum() == 4
    t[5, :5] = [0, 2, 1, 3, 1]         # exchange 2 (daifugo), my turn, player 3 to move, a new trick
    t[6] = [13, 11, 11, 9, 9, 0, 1, 2, 3, 4, 4, 3, 2, 1, 0]
    info = T.read_info(t)
    assert (info.exchange, info.my_turn, info.to_move, info.empty_table) == (2, True, 3, True)
    assert info.ranked and info.classes == (0, 1, 2, 3, 4) and info.seats == (4, 3, 2, 1, 0)
    assert T.hand_from_table(t) == ["3D", "2S", "JK"]


@pytest.mark.parametrize("cell, value, message", [
    ((0, 5), 2, r"^hand table row 0 cell 5: 2 \(the joker\) outside \[4\]\[1\]"),
    ((1, 0), 1, r"^hand table row 1 cell 0: 1 is outside the natural cards"),
    ((4, 3), 1, r"^hand table row 4 cell 3: 1 is outside the natural cards"),
    ((2, 7), 3, r"^hand table row 2 cell 7: 3 is not a card value \(0, 1 or 2\)$"),
])
def test_hand_tables_that_make_no_sense_name_the_cell(cell, value, message):
    t = T.cards_table(["3S"])
    t[cell] = value
    with pytest.raises(UecdaProtocolError, match=message):
        T.hand_from_table(t)


@pytest.mark.parametrize("cell, value, message", [
    ((5, 1), 5, r"^table row 5 cell 1: 5 is not a number of cards to exchange \(0, 1 or 2\)$"),
    ((5, 3), 5, r"^table row 5 cell 3: 5 is not a player to move \(0-4, or 6 in the deal table\)$"),
    ((5, 4), 2, r"^table row 5 cell 4: 2 is not an empty-table flag"),
    ((6, 7), 7, r"^table row 6 cell 7: 7 is not a class \(0-4\)$"),
    ((6, 10), 2, r"^table row 6 cells 10-14: seats 2 2 3 0 4 are not the players 0-4 once each$"),
])
def test_info_rows_out_of_range_name_the_cell(cell, value, message):
    t = DEAL.copy()
    t[cell] = value
    with pytest.raises(UecdaProtocolError, match=message):
        T.read_info(t)


def test_a_set_with_the_joker_as_9s():
    # 9D 9H natural, the joker standing for 9S (row S 0, column 7 = rank 9)
    t = rows(
        "0 0 0 0 0 0 0 2 0 0 0 0 0 0 0",
        "0 0 0 0 0 0 0 1 0 0 0 0 0 0 0",
        "0 0 0 0 0 0 0 1 0 0 0 0 0 0 0",
    )
    p = T.parse_play(t)
    assert (p.cards, p.joker, p.shape, p.size, p.joker_as) == (("9D", "9H"), (0, 7), "set", 3, "9S")
    assert p.words() == "set 9D 9H + JK as 9S"
    assert (T.set_table(["9H", "9D"], joker_as="9S") == t).all()
    assert (T.play_table(["9D", "9H"], (0, 7)) == t).all() and (p.table() == t).all()


def test_a_run_with_the_joker_at_column_0_and_at_column_14():
    low = rows("2 1 1 0 0 0 0 0 0 0 0 0 0 0 0")            # JK(below 3) 3S 4S
    p = T.parse_play(low)
    assert (p.cards, p.joker, p.shape, p.columns) == (("3S", "4S"), (0, 0), "run", (0, 1, 2))
    assert p.joker_as is None and p.joker_column == 0
    assert p.words() == "run 3S 4S + JK at column 0 (below 3)"
    assert (T.run_table("S", 0, 3, joker=0) == low).all()
    high = rows(Z, "0 0 0 0 0 0 0 0 0 0 0 0 1 1 2")       # AH 2H JK(above 2)
    p = T.parse_play(high)
    assert (p.cards, p.joker, p.shape) == (("AH", "2H"), (1, 14), "run")
    assert (T.run_table("H", 12, 3, joker=14) == high).all()
    inside = T.parse_play(T.run_table("D", 3, 4, joker=4))  # 5D JK(6D) 7D 8D
    assert inside.cards == ("5D", "7D", "8D") and inside.joker_as == "6D"


def test_a_lone_joker_the_way_the_public_client_sends_it():
    t = rows("0 0 0 0 0 0 0 0 0 0 0 0 0 0 2")
    p = T.parse_play(t)
    assert (p.cards, p.joker, p.shape, p.size, p.joker_as) == ((), (0, 14), "joker", 1, None)
    assert (T.lone_joker_table() == t).all()
    on_a_heart = T.lone_joker_table(top_suit_row=1, reversed_order=True)   # row 2, column 0
    assert on_a_heart[2, 0] == 2 and on_a_heart.sum() == 2
    assert T.parse_play(rows(Z, Z, "0 0 0 0 0 2 0 0 0 0 0 0 0 0 0")).shape == "joker"   # any cell of rows 0-3
    with pytest.raises(UecdaProtocolError, match=r"^play table row 4 cell 1: a lone joker in the joker row"):
        T.parse_play(T.cards_table(["JK"]))


def test_the_five_card_set_form_and_a_pass():
    t = rows(*["0 0 0 0 0 1 0 0 0 0 0 0 0 0 0"] * 4, "0 0 0 0 0 2 0 0 0 0 0 0 0 0 0")
    p = T.parse_play(t)
    assert (p.cards, p.joker, p.shape, p.size) == (("7C", "7D", "7H", "7S"), (4, 5), "set", 5)
    assert p.words() == "set 7C 7D 7H 7S + JK (five-card set)"
    assert (T.set_table(["7S", "7H", "7D", "7C"], five=True) == t).all()
    noise = DEAL.copy()
    noise[:5] = 0                       # rows 5-7 are not part of a play
    assert T.parse_play(noise).is_pass and T.parse_play(noise).words() == "pass"
    assert (T.play_table() == 0).all()


@pytest.mark.parametrize("cells, message", [
    ({(4, 3): 7}, r"^play table row 4 cell 3: 7 is not a card value \(0, 1 or 2\)$"),
    ({(0, 7): 2, (1, 9): 2}, r"^play table: a 2 \(the joker\) in 2 cells \(row 0 cell 7, row 1 cell 9\); "),
    ({(2, 0): 1, (2, 1): 1, (2, 2): 1}, r"^play table row 2 cell 0: 1 outside the ranks"),
    ({(4, 5): 1}, r"^play table row 4 cell 5: 1 in the joker row"),
    ({(0, 3): 1, (0, 4): 1, (0, 6): 1}, r"^play table row 0: cells 3 4 6 are not consecutive .*cell 5 is empty"),
    ({(0, 3): 1, (0, 5): 2, (0, 6): 1}, r"^play table row 0: cells 3 5 6 are not consecutive .*cell 4 is empty"),
    ({(1, 3): 1, (1, 4): 2}, r"^play table row 1 cells 3 4: two cards of one suit are no play"),
    ({(0, 3): 1, (1, 4): 1}, r"^play table: row 0 cell 3, row 1 cell 4 are neither a set \(one column\) nor a run"),
    ({(0, 5): 1, (1, 5): 1, (2, 5): 1, (4, 5): 2}, r"^play table row 4 cell 5: a joker in the joker row makes a "
                                                   r"five-card set only with the four natural cards of column 5"),
    ({(0, 5): 1, (1, 6): 2}, r"neither a set"),
])
def test_play_tables_that_make_no_sense_name_the_row_and_cell(cells, message):
    t = np.zeros((8, 15), dtype=np.int64)
    for cell, v in cells.items():
        t[cell] = v
    with pytest.raises(UecdaProtocolError, match=message):
        T.parse_play(t)


def test_the_builders_refuse_what_is_no_play():
    with pytest.raises(ValueError, match=r"joker cell \[0\]\[7\] holds the natural card 9S"):
        T.play_table(["9S"], (0, 7))
    with pytest.raises(ValueError, match="named twice"):
        T.play_table(["9S", "9s"])
    with pytest.raises(ValueError, match="two cards of one suit"):
        T.play_table(["9S", "TS"])
    with pytest.raises(ValueError, match="a set is one rank"):
        T.set_table(["9S", "TS"])
    with pytest.raises(ValueError, match="column 14 holds no natural card"):
        T.run_table("S", 12, 3)
    with pytest.raises(ValueError, match="at least 3"):
        T.run_table("S", 1, 2)


# ---------------------------------------------------------------------------------------------
# Exact reads however TCP splits the bytes
# ---------------------------------------------------------------------------------------------

def _dribble(sock: socket.socket, data: bytes, close: bool = True) -> threading.Thread:
    """Sends ``data`` one byte at a time from a thread, then closes (or not)."""
    def go():
        try:
            for i in range(len(data)):
                sock.sendall(data[i:i + 1])
                if i % 60 == 0:
                    time.sleep(0.001)
            if close:
                sock.close()
        except OSError:
            pass
    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th


def test_exact_reads_on_a_socket_whatever_the_chunks():
    a, b = socket.socketpair()
    a.settimeout(5)
    with a, b:
        th = _dribble(b, encode_table(DEAL) + encode_flag(2), close=False)
        assert (recv_table(a, "deal table") == DEAL).all()
        assert recv_flag(a, "game flag") == 2
        th.join(5)


def test_a_table_cut_short_by_a_close_or_by_silence():
    a, b = socket.socketpair()
    a.settimeout(5)
    with a:
        _dribble(b, encode_table(DEAL)[:212]).join(5)
        with pytest.raises(UecdaProtocolError, match=r"^connection closed after 212 of 480 bytes of the hand table$"):
            recv_table(a, "hand table")
    a, b = socket.socketpair()
    a.settimeout(0.2)
    with a, b:
        b.sendall(encode_table(DEAL)[:212])
        with pytest.raises(UecdaProtocolError, match=r"^timed out after 0\.2 s waiting for the hand table \(212 of 480 "
                                                     r"bytes came\)$"):
            recv_table(a, "hand table")


def test_exact_reads_on_an_asyncio_stream():
    async def go():
        a, b = socket.socketpair()
        reader, writer = await asyncio.open_connection(sock=a)
        th = _dribble(b, encode_table(DEAL) + encode_flag(1) + encode_table(DEAL)[:100])
        assert (await read_table(reader, "deal table", timeout=5) == DEAL).all()
        assert await read_flag(reader, "game flag", timeout=5) == 1
        with pytest.raises(UecdaProtocolError, match=r"^connection closed after 100 of 480 bytes of the top table$"):
            await read_table(reader, "top table", timeout=5)
        th.join(5)
        writer.close()
        a2, b2 = socket.socketpair()
        reader2, writer2 = await asyncio.open_connection(sock=a2)
        b2.sendall(b"\x00\x00")
        with pytest.raises(UecdaProtocolError, match=r"^timed out after 0\.2 s waiting for the flag \(2 of 4 bytes"):
            await read_flag(reader2, timeout=0.2)
        writer2.close()
        b2.close()
    run(go())


# ---------------------------------------------------------------------------------------------
# The server core and the client connection
# ---------------------------------------------------------------------------------------------

def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _client(port: int, name: str) -> UecdaClient:
    c = UecdaClient("127.0.0.1", port, name=name, timeout=5, connect_timeout=5)
    c.connect()
    return c


async def _raw(port: int, data: bytes = b""):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
        await writer.drain()
    return reader, writer


async def _until(cond, timeout: float = 5.0) -> None:
    """Waits (bounded) until ``cond()`` is true."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        assert loop.time() < end, "condition not met in time"
        await asyncio.sleep(0.01)


def _logged(server: UecdaServer, text: str) -> bool:
    return any(text in line for line in server.log_lines)


def test_a_refused_connection_is_one_clear_line():
    port = _free_port()
    with pytest.raises(UecdaProtocolError, match=rf"^could not connect to 127\.0\.0\.1:{port}: connection refused$"):
        UecdaClient("127.0.0.1", port, timeout=2, connect_timeout=2).connect()


def test_five_clients_get_their_numbers_and_a_sixth_is_refused():
    async def go():
        async with UecdaServer(port=0) as server:
            clients = await asyncio.gather(*(asyncio.to_thread(_client, server.port, f"bot{i}") for i in range(5)))
            await server.wait_for_players(timeout=5)
            assert sorted(c.player for c in clients) == [0, 1, 2, 3, 4]
            assert sorted(server.names.values()) == [f"bot{i}" for i in range(5)]
            with pytest.raises(UecdaProtocolError, match=r"^connection (closed|lost) after 0 of 4 bytes of the player "
                                                         r"number.* \(the server refused us"):
                await asyncio.to_thread(_client, server.port, "sixth")
            assert _logged(server, "all 5 seats are taken")
            # the match goes on: a table down (a negative cell sent as 0), a play up, a flag down
            by_number = {c.player: c for c in clients}
            hand = T.cards_table(["3D", "JK"])
            hand[5, 1], hand[5, 2] = -1, 1
            await server.send_table(2, hand, "hand table")
            got = await asyncio.to_thread(by_number[2].receive_table, "hand table")
            assert got[5, 1] == 0 and got[5, 2] == 1 and T.hand_from_table(got) == ["3D", "JK"]
            await asyncio.to_thread(by_number[2].send_table, T.play_table(["3D"]))
            assert T.parse_play(await server.receive_table(2)).cards == ("3D",)
            await server.send_flag(2, 9, "accept flag")
            assert await asyncio.to_thread(by_number[2].receive_flag) == 9
            for c in clients:
                c.close()
    run(go())


def test_garbage_and_half_tables_in_the_handshake_are_refused_and_the_server_keeps_serving():
    async def go():
        limits = ServerLimits(handshake_timeout=0.3)
        async with UecdaServer(port=0, players=[0], limits=limits) as server:
            junk = random.Random(1).randbytes(TABLE_BYTES)
            _, w1 = await _raw(server.port, junk)
            _, w2 = await _raw(server.port, encode_table(profile_table("x"))[:240])       # then silence
            _, w3 = await _raw(server.port, b"GET / HTTP/1.1\r\n\r\n")
            w3.close()
            await _until(lambda: server.refused >= 3)
            first = int.from_bytes(junk[:4], "big", signed=True)
            assert _logged(server, f"profile table: [0][0] is {first}, expected protocol 20070")
            assert _logged(server, "timed out after 0.3 s waiting for the profile table (240 of 480 bytes came)")
            assert _logged(server, "connection closed after 18 of 480 bytes of the profile table")
            c = await asyncio.to_thread(_client, server.port, "good")
            await server.wait_for_players(timeout=5)
            assert c.player == 0 and server.names == {0: "good"}
            c.close()
            w1.close()
            w2.close()
    run(go())


def test_half_a_table_then_silence_mid_game_ends_at_the_silence_limit():
    async def go():
        async with UecdaServer(port=0, players=[0, 1], limits=ServerLimits(silence_limit=0.5)) as server:
            quiet = await asyncio.to_thread(_client, server.port, "quiet")
            other = await asyncio.to_thread(_client, server.port, "other")
            await server.wait_for_players(timeout=5)
            await asyncio.to_thread(quiet._sock.sendall, encode_table(T.play_table(["3S"]))[:240])
            started = time.monotonic()
            answer = await server.receive_answer(quiet.player, "play table")
            assert 0.4 < time.monotonic() - started < 3
            assert not answer.ok and not answer.table.any()           # a pass
            assert "silent for" in answer.problem and "(silence limit 0.5 s; 240 of 480 bytes came)" in answer.problem
            assert not server.connected(quiet.player)
            assert await server.send_table(quiet.player, T.cards_table(["3S"])) is False
            with pytest.raises(ClientGone, match="the client has gone: silent for"):
                await server.receive_table(quiet.player)               # at once: no second wait
            assert await server.send_table(other.player, T.cards_table(["4S"]), "hand table")
            assert T.hand_from_table(await asyncio.to_thread(other.receive_table)) == ["4S"]
            quiet.close()
            other.close()
    run(go())


def test_a_disconnect_mid_exchange_is_named_and_the_other_seats_go_on():
    async def go():
        async with UecdaServer(port=0, players=[0, 1]) as server:
            leaving = await asyncio.to_thread(_client, server.port, "leaving")
            staying = await asyncio.to_thread(_client, server.port, "staying")
            await server.wait_for_players(timeout=5)
            await asyncio.to_thread(leaving._sock.sendall, encode_table(T.play_table(["3S"]))[:212])
            leaving.close()
            gone = rf"^player {leaving.player} \(leaving\): connection closed after 212 of 480 bytes of the exchange " \
                   r"table$"
            with pytest.raises(ClientGone, match=gone):
                await server.receive_table(leaving.player, "exchange table")
            assert _logged(server, "(leaving) closed the connection; its seat passes from now on")
            answer = await server.receive_answer(leaving.player)
            assert not answer.ok and not answer.table.any()
            await server.broadcast_flag(0, "game flag")                 # skips the gone seat
            assert await asyncio.to_thread(staying.receive_flag) == 0
            await asyncio.to_thread(staying.send_table, T.play_table(["4H"]))
            assert T.parse_play(await server.receive_table(staying.player)).cards == ("4H",)
            staying.close()
    run(go())


def test_bytes_nobody_asked_for_beyond_the_limit_drop_the_client():
    async def go():
        limits = ServerLimits(max_bytes_in_flight=2000)
        async with UecdaServer(port=0, players=[0, 1], limits=limits) as server:
            flood = await asyncio.to_thread(_client, server.port, "flood")
            calm = await asyncio.to_thread(_client, server.port, "calm")
            await server.wait_for_players(timeout=5)
            await asyncio.to_thread(flood._sock.sendall, b"\xff" * 10_000)
            await _until(lambda: not server.connected(flood.player))
            assert _logged(server, "bytes nobody asked for (more than 2000 in flight); disconnected")
            with pytest.raises(ClientGone):
                await server.receive_table(flood.player)
            assert server.connected(calm.player)
            flood.close()
            calm.close()
    run(go())


def test_a_late_answer_is_a_pass_and_is_discarded_when_it_comes():
    async def go():
        limits = ServerLimits(answer_time_limit=0.3)
        async with UecdaServer(port=0, players=[0], limits=limits) as server:
            slow = await asyncio.to_thread(_client, server.port, "slow")
            await server.wait_for_players(timeout=5)
            answer = await server.receive_answer(0, "play table")
            assert answer.problem.startswith("player 0 (slow): no play table within the answer time limit of 0.3 s")
            with pytest.raises(AnswerTimeout):
                await server.receive_table(0, "play table", time_limit=0.05)    # still late: now two owed
            await asyncio.to_thread(slow.send_table, T.play_table(["3S"]))     # the late ones
            await asyncio.to_thread(slow.send_table, T.play_table(["4S"]))
            await asyncio.to_thread(slow.send_table, T.play_table(["5S"]))     # the answer to this request
            assert T.parse_play(await server.receive_table(0)).cards == ("5S",)
            assert sum("discarded a late answer" in line for line in server.log_lines) == 2
            assert server.connected(0)
            slow.close()
    run(go())


def test_a_flood_of_connections_is_bounded_and_the_server_keeps_serving():
    async def go():
        # a backlog above the flood, so that the kernel hands every connection over at once
        limits = ServerLimits(handshake_timeout=0.5, max_handshakes=4, refusals_logged=10, backlog=64)
        async with UecdaServer(port=0, players=[0, 1], limits=limits) as server:
            most = 0

            def watch():
                nonlocal most
                most = max(most, server._handshaking)
                return server.refused >= 50
            conns = await asyncio.gather(*(_raw(server.port) for _ in range(50)))
            await _until(watch, timeout=10)     # 46 refused at once, the 4 shaking hands after 0.5 s of silence
            assert server.refused == 50 and most <= 4
            assert sum(line.startswith("refused") for line in server.log_lines) == 10
            assert _logged(server, "10 connections refused; further refusals are counted, not logged")
            assert _logged(server, "connections are already shaking hands (limit 4)")
            for _, w in conns:
                w.close()
            a, b = await asyncio.gather(asyncio.to_thread(_client, server.port, "a"),
                                        asyncio.to_thread(_client, server.port, "b"))
            await server.wait_for_players(timeout=5)
            assert sorted([a.player, b.player]) == [0, 1]
            a.close()
            b.close()
    run(go())


def test_remote_seats_leaving_before_the_match_and_waiting_in_vain():
    async def go():
        async with UecdaServer(port=0, players=[1, 3]) as server:
            with pytest.raises(UecdaProtocolError, match=r"^only 0 of 2 players connected within 0\.2 s$"):
                await server.wait_for_players(timeout=0.2)
            early = await asyncio.to_thread(_client, server.port, "early")
            assert early.player == 1
            early.close()
            await _until(lambda: _logged(server, "player 1 (early) left before the match began"))
            x = await asyncio.to_thread(_client, server.port, "x")
            y = await asyncio.to_thread(_client, server.port, "y")
            await server.wait_for_players(timeout=5)
            assert (x.player, y.player) == (1, 3) and server.names == {1: "x", 3: "y"}
            with pytest.raises(ValueError, match=r"player 0 is not a remote seat"):
                await server.send_table(0, T.play_table())
            x.close()
            y.close()
    run(go())


def test_closing_the_server_ends_a_receive_still_waiting():
    async def go():
        server = UecdaServer(port=0, players=[0])
        await server.start()
        c = await asyncio.to_thread(_client, server.port, "waits")
        await server.wait_for_players(timeout=5)
        pending = asyncio.create_task(server.receive_table(0))
        await asyncio.sleep(0.05)
        await server.close()
        with pytest.raises(ClientGone, match=r"^player 0 \(waits\): no play table, the client has gone: the server "
                                             r"closed the match$"):
            await asyncio.wait_for(pending, 2)
        with pytest.raises(UecdaProtocolError, match=r"^connection closed after 0 of 480 bytes of the table$"):
            await asyncio.to_thread(c.receive_table)
        c.close()
    run(go())


def test_a_port_in_use_is_one_clear_line():
    async def go():
        async with UecdaServer(port=0) as first:
            with pytest.raises(UecdaProtocolError, match=rf"^could not listen on 127\.0\.0\.1:{first.port}: address "
                                                         r"already in use$"):
                await UecdaServer(port=first.port).start()
    run(go())
