"""The network core of a UECda server (asyncio) and a blocking UECda client connection.

:class:`UecdaServer` listens (127.0.0.1 by default), shakes hands with up to five
clients as protocol 20070 and gives each a player number, then lets a match driver
send tables and flags to player ``i`` and receive its tables, with limits applied.
It knows nothing of the rules: the driver decides what a table means.

What happens to a client that breaks the protocol (``docs/uecda.md``):

* before it has a seat (a bad or missing profile table, a connection beyond the
  seats, or beyond ``max_handshakes`` connections shaking hands at once): the
  connection is closed and one log line says why; the server keeps serving;
* a seated client that leaves before the match begins frees its player number for
  the next client;
* during the match, a client that closes its connection, stays silent past
  ``silence_limit`` while the match waits for it, stops reading past
  ``write_timeout`` or sends more than ``max_bytes_in_flight`` bytes nobody asked
  for is *gone*: one log line, the connection closed, and from then on sends to it
  are skipped and receives raise :class:`ClientGone` at once.
  :meth:`UecdaServer.receive_answer` turns that into a pass (an all-zero table), so
  a driver that uses it plays the seat as passing to the end of the match (an
  exchange table of zeros is an invalid choice, which the reference server replaces
  by the chooser's strongest cards);
* an answer later than ``answer_time_limit`` (off by default, as in the reference
  server) raises :class:`AnswerTimeout` (:meth:`~UecdaServer.receive_answer`: a pass);
  the client stays seated, and the late table, when it comes, is read and discarded
  so the stream stays in step.

A table whose 480 bytes arrive but make no sense (garbage) is the driver's to judge
with :mod:`.tables` (an illegal submission is a pass: spec fine point 8).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import EllipsisType

import numpy as np

from .protocol import (
    COLS,
    DEFAULT_PORT,
    ROWS,
    TABLE_BYTES,
    UecdaProtocolError,
    _os_words,
    client_handshake,
    decode_table,
    encode_flag,
    encode_table,
    profile_table,
    read_profile,
    recv_flag,
    recv_table,
    send_table,
)

logger = logging.getLogger("president_env.uecda")
logger.addHandler(logging.NullHandler())   # the lines reach on_log and log_lines; logging shows them when configured

PLAYERS = 5


class ClientGone(UecdaProtocolError):
    """The client of a seat has gone (closed, silent too long, not reading, flooding); its seat passes from now on."""


class AnswerTimeout(UecdaProtocolError):
    """No answer within the per-answer time limit; the client stays seated and its late table will be discarded."""


@dataclass(frozen=True)
class ServerLimits:
    """The limits a :class:`UecdaServer` enforces (seconds and bytes; None: no limit)."""

    handshake_timeout: float = 5.0           # from connect to the whole profile table
    answer_time_limit: float | None = None   # per answer; off by default, as in the reference server
    silence_limit: float | None = 600.0      # how long a client may hold the match without answering
    write_timeout: float = 30.0              # how long a send may wait for a client that does not read
    max_bytes_in_flight: int = 4096          # bytes a client may send that nobody has read yet
    max_handshakes: int = 10                 # connections shaking hands at once; more are refused
    backlog: int = 16                        # the listen backlog
    refusals_logged: int = 20                # refusals logged one a line; more are only counted


@dataclass(frozen=True)
class Answer:
    """A table received from a client, or a pass (all zeros) and the problem that made it one."""

    table: np.ndarray
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


def pass_table() -> np.ndarray:
    """An all-zero table: a pass (and an invalid exchange choice)."""
    return np.zeros((ROWS, COLS), dtype=np.int64)


class _Seat:
    def __init__(self, player: int, name: str, peer: str, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.player, self.name, self.peer = player, name, peer
        self.reader, self.writer = reader, writer
        self.buf = bytearray()
        self.event = asyncio.Event()
        self.eof = False
        self.peer_closed = False             # the client closed the connection (not dropped by us)
        self.gone: str | None = None
        self.owed = 0                        # late answers still to come and be discarded
        self.waiting_since: float | None = None
        self.pump: asyncio.Task | None = None

    @property
    def who(self) -> str:
        return f"player {self.player} ({self.name})"


class UecdaServer:
    """The network side of a UECda match: seats, handshakes, tables and flags with limits.

    ``players`` are the player numbers (0-4) given to the clients that connect, in the
    order their handshakes complete (the other numbers are the driver's local seats).
    ``on_log`` receives every log line as well as the ``president_env.uecda`` logger
    and :attr:`log_lines`.

    Use::

        async with UecdaServer(port=0) as server:       # port 0: any free port (server.port)
            await server.wait_for_players(timeout=60)
            await server.send_table(0, hand)
            answer = await server.receive_answer(0, "play table")
    """

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, players: Iterable[int] = range(PLAYERS),
                 limits: ServerLimits | None = None, on_log: Callable[[str], None] | None = None) -> None:
        players = [int(p) for p in players]
        if any(not 0 <= p < PLAYERS for p in players) or len(set(players)) != len(players):
            raise ValueError(f"players {players}: each must be 0-4, once")
        self.host, self._port = host, int(port)
        self.players = tuple(sorted(players))
        self.limits = limits or ServerLimits()
        self.on_log = on_log
        self.log_lines: collections.deque[str] = collections.deque(maxlen=1000)
        self.refused = 0
        self._free = list(self.players)
        self._seats: dict[int, _Seat] = {}
        self._handshaking = 0
        self._seat_change = asyncio.Event()
        self._match_started = False
        self._closing = False
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listens on ``host:port``; raises :class:`UecdaProtocolError` ("could not listen on 127.0.0.1:42485:
        address already in use")."""
        try:
            self._server = await asyncio.start_server(self._on_connect, self.host, self._port,
                                                      backlog=self.limits.backlog)
        except OSError as e:
            raise UecdaProtocolError(f"could not listen on {self.host}:{self._port}: {_os_words(e)}") from None
        self._log(f"listening on {self.host}:{self.port} for players {' '.join(map(str, self.players))}",
                  logging.INFO)

    @property
    def port(self) -> int:
        """The port listened on (the one the system chose for port 0)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self._port

    async def close(self) -> None:
        """Stops listening and closes every connection (idempotent); a receive still waiting raises
        :class:`ClientGone`."""
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for seat in self._seats.values():
            if seat.pump is not None:
                seat.pump.cancel()
            if seat.gone is None:
                seat.gone = "the server closed the match"
            seat.event.set()              # a receive still waiting ends now, with ClientGone
        await asyncio.gather(*(self._close_writer(s.writer) for s in self._seats.values()), return_exceptions=True)
        await asyncio.gather(*self._tasks, *(s.pump for s in self._seats.values() if s.pump),
                             return_exceptions=True)

    async def __aenter__(self) -> UecdaServer:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def wait_for_players(self, timeout: float | None = None) -> None:
        """Waits until every player number has a client, then begins the match (no seat is freed after that).

        Raises :class:`UecdaProtocolError` ("only 3 of 5 players connected within 60 s")."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while len(self._seats) < len(self.players):
            self._seat_change.clear()
            remaining = None if deadline is None else deadline - loop.time()
            try:
                if remaining is not None and remaining <= 0:
                    raise TimeoutError
                await asyncio.wait_for(self._seat_change.wait(), remaining)
            except (TimeoutError, asyncio.TimeoutError):
                raise UecdaProtocolError(f"only {len(self._seats)} of {len(self.players)} players connected within "
                                         f"{timeout:g} s") from None
        self._match_started = True
        self._log("all players connected: " + ", ".join(s.who for s in self._ordered_seats()), logging.INFO)

    # -- what the driver sees --------------------------------------------------------------------

    @property
    def names(self) -> dict[int, str]:
        """The name of each seated player."""
        return {p: s.name for p, s in sorted(self._seats.items())}

    def connected(self, player: int) -> bool:
        """Whether ``player`` has a client that has not gone."""
        seat = self._seats.get(player)
        return seat is not None and seat.gone is None

    def gone_reason(self, player: int) -> str | None:
        """Why ``player``'s client has gone, or None."""
        seat = self._seats.get(player)
        return None if seat is None else seat.gone

    async def send_table(self, player: int, table, what: str = "table") -> bool:
        """Sends a table to ``player`` (negative values as 0). Returns False when the client has gone (then nothing
        is sent). Raises :class:`UecdaProtocolError` for a table that cannot be encoded, ``ValueError`` for a
        player number that is not a remote seat."""
        return await self._send(self._seat(player), encode_table(table, server=True, what=what), what)

    async def send_flag(self, player: int, value: int, what: str = "flag") -> bool:
        """Sends a flag to ``player`` (a negative value as 0); returns False when the client has gone."""
        return await self._send(self._seat(player), encode_flag(value, server=True, what=what), what)

    async def broadcast_table(self, table, what: str = "table") -> None:
        """Sends the same table to every seated client still there."""
        data = encode_table(table, server=True, what=what)
        await asyncio.gather(*(self._send(s, data, what) for s in self._ordered_seats()))

    async def broadcast_flag(self, value: int, what: str = "flag") -> None:
        """Sends the same flag to every seated client still there."""
        data = encode_flag(value, server=True, what=what)
        await asyncio.gather(*(self._send(s, data, what) for s in self._ordered_seats()))

    async def receive_table(self, player: int, what: str = "play table",
                            time_limit: float | None | EllipsisType = ...) -> np.ndarray:
        """The next table from ``player``, read exactly (480 bytes).

        ``time_limit`` defaults to ``limits.answer_time_limit``. Raises
        :class:`ClientGone` (the client has gone, now or before: "player 2 (bob):
        connection closed after 212 of 480 bytes of the play table") or
        :class:`AnswerTimeout`."""
        seat = self._seat(player)
        loop = asyncio.get_running_loop()
        limit = self.limits.answer_time_limit if time_limit is ... else time_limit
        now = loop.time()
        answer_deadline = None if limit is None else now + limit
        if seat.owed == 0 or seat.waiting_since is None:
            seat.waiting_since = now
        try:
            while seat.owed:
                await self._read(seat, TABLE_BYTES, what, answer_deadline, limit)
                seat.owed -= 1
                self._log(f"{seat.who}: discarded a late answer (it came after the time limit)")
                if seat.owed == 0:
                    seat.waiting_since = loop.time()
            data = await self._read(seat, TABLE_BYTES, what, answer_deadline, limit)
        except AnswerTimeout:
            seat.owed += 1
            raise
        seat.waiting_since = None
        return decode_table(data, what)

    async def receive_answer(self, player: int, what: str = "play table",
                             time_limit: float | None | EllipsisType = ...) -> Answer:
        """As :meth:`receive_table`, but a gone client or a late answer is a pass: ``Answer(zeros, problem)``."""
        try:
            return Answer(await self.receive_table(player, what, time_limit))
        except (ClientGone, AnswerTimeout) as e:
            return Answer(pass_table(), str(e))

    # -- internals -------------------------------------------------------------------------------

    def _seat(self, player: int) -> _Seat:
        seat = self._seats.get(player)
        if seat is None:
            if player in self.players:
                raise ValueError(f"player {player} has no client yet (wait_for_players first)")
            raise ValueError(f"player {player} is not a remote seat (remote: {self.players})")
        return seat

    def _ordered_seats(self) -> list[_Seat]:
        return [self._seats[p] for p in sorted(self._seats)]

    def _log(self, message: str, level: int = logging.WARNING) -> None:
        self.log_lines.append(message)
        logger.log(level, "%s", message)
        if self.on_log is not None:
            self.on_log(message)

    def _refuse(self, peer: str, why: str) -> None:
        self.refused += 1
        if self.refused <= self.limits.refusals_logged:
            self._log(f"refused {peer}: {why}")
            if self.refused == self.limits.refusals_logged:
                self._log(f"{self.refused} connections refused; further refusals are counted, not logged")

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        peer = _peer(writer)
        seated = False
        try:
            seated = await self._handshake(peer, reader, writer)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - a client must never take the server down with a traceback
            self._log(f"refused {peer}: unexpected error in the handshake: {type(e).__name__}: {e}")
        finally:
            if not seated:
                await self._close_writer(writer)

    async def _handshake(self, peer: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        if self._closing:
            self._refuse(peer, "the server is closing")
            return False
        if not self._free:
            self._refuse(peer, f"all {len(self.players)} seats are taken")
            return False
        if self._handshaking >= self.limits.max_handshakes:
            self._refuse(peer, f"{self._handshaking} connections are already shaking hands (limit "
                               f"{self.limits.max_handshakes})")
            return False
        self._handshaking += 1
        try:
            name = await read_profile(reader, self.limits.handshake_timeout)
        except UecdaProtocolError as e:
            hint = ""
            if str(e).startswith("timed out") and "(0 of" in str(e):
                hint = " (a protocol 20060 client sends no profile: not supported)"
            self._refuse(peer, f"{e}{hint}")
            return False
        finally:
            self._handshaking -= 1
        if not self._free or self._closing:
            self._refuse(peer, f"all {len(self.players)} seats were taken while it shook hands")
            return False
        player = self._free.pop(0)
        seat = _Seat(player, name, peer, reader, writer)
        try:
            writer.transport.set_write_buffer_limits(high=16 * TABLE_BYTES)
            writer.write(encode_flag(player, server=True))
            await asyncio.wait_for(writer.drain(), self.limits.write_timeout)
        except (OSError, TimeoutError, asyncio.TimeoutError) as e:
            self._free.append(player)
            self._free.sort()
            self._refuse(peer, f"could not send its player number: {_os_words(e) if isinstance(e, OSError) else e}")
            return False
        self._seats[player] = seat
        seat.pump = asyncio.create_task(self._pump(seat))
        self._log(f"{seat.who} connected from {peer}", logging.INFO)
        self._seat_change.set()
        return True

    async def _pump(self, seat: _Seat) -> None:
        """Reads whatever the client sends into its buffer, so that a disconnect or a flood is seen at once."""
        error = ""
        try:
            while True:
                data = await seat.reader.read(65536)
                if not data:
                    break
                seat.buf += data
                allowed = self.limits.max_bytes_in_flight + TABLE_BYTES * seat.owed
                if len(seat.buf) > allowed:
                    self._drop(seat, f"sent {len(seat.buf)} bytes nobody asked for (more than {allowed} in flight)")
                    return
                seat.event.set()
        except asyncio.CancelledError:
            raise
        except OSError as e:
            error = f": {_os_words(e)}"
        finally:
            seat.eof = True
            seat.event.set()
        if seat.gone is None and not self._closing:
            seat.peer_closed = True
            if not self._match_started:
                del self._seats[seat.player]
                self._free.append(seat.player)
                self._free.sort()
                seat.gone = "left before the match began"
                self._log(f"{seat.who} left before the match began{error}; player {seat.player} is free again")
                self._seat_change.set()
            else:
                seat.gone = f"closed the connection{error}"
                self._log(f"{seat.who} closed the connection{error}; its seat passes from now on")
            await self._close_writer(seat.writer)

    def _drop(self, seat: _Seat, reason: str) -> None:
        if seat.gone is not None:
            return
        seat.gone = reason
        seat.buf.clear()
        seat.event.set()
        self._log(f"{seat.who}: {reason}; disconnected, its seat passes from now on")
        seat.writer.close()
        if seat.pump is not None and seat.pump is not asyncio.current_task():
            seat.pump.cancel()

    async def _read(self, seat: _Seat, n: int, what: str, answer_deadline: float | None,
                    limit: float | None) -> bytes:
        loop = asyncio.get_running_loop()
        silence = self.limits.silence_limit
        while len(seat.buf) < n:
            if seat.gone is not None:
                if seat.peer_closed:
                    raise ClientGone(f"{seat.who}: connection closed after {len(seat.buf)} of {n} bytes of the "
                                     f"{what}")
                raise ClientGone(f"{seat.who}: no {what}, the client has gone: {seat.gone}")
            now = loop.time()
            silence_deadline = None if silence is None or seat.waiting_since is None else seat.waiting_since + silence
            deadlines = [d for d in (answer_deadline, silence_deadline) if d is not None]
            if deadlines and now >= min(deadlines):
                came = f"{len(seat.buf)} of {n} bytes came"
                if silence_deadline is not None and now >= silence_deadline:
                    self._drop(seat, f"silent for {now - seat.waiting_since:.3g} s while the match waited for its "
                                     f"{what} (silence limit {silence:g} s; {came})")
                    raise ClientGone(f"{seat.who}: {seat.gone}; disconnected, its seat passes from now on")
                self._log(f"{seat.who}: no {what} within the answer time limit of {limit:g} s ({came}); a pass")
                raise AnswerTimeout(f"{seat.who}: no {what} within the answer time limit of {limit:g} s ({came}); "
                                    "counted as a pass, the late table will be discarded")
            seat.event.clear()
            try:
                await asyncio.wait_for(seat.event.wait(), min(deadlines) - now if deadlines else None)
            except (TimeoutError, asyncio.TimeoutError):
                pass
        data = bytes(seat.buf[:n])
        del seat.buf[:n]
        return data

    async def _send(self, seat: _Seat, data: bytes, what: str) -> bool:
        if seat.gone is not None or self._closing:
            return False
        try:
            seat.writer.write(data)
            await asyncio.wait_for(seat.writer.drain(), self.limits.write_timeout)
        except (TimeoutError, asyncio.TimeoutError):
            self._drop(seat, f"did not read the {what} within {self.limits.write_timeout:g} s (it stopped reading)")
        except OSError as e:
            self._drop(seat, f"connection lost while sending the {what}: {_os_words(e)}")
        return seat.gone is None

    @staticmethod
    async def _close_writer(writer: asyncio.StreamWriter) -> None:
        try:
            writer.close()
            await asyncio.wait_for(writer.wait_closed(), 1.0)
        except (OSError, TimeoutError, asyncio.TimeoutError, asyncio.CancelledError):
            pass


def _peer(writer: asyncio.StreamWriter) -> str:
    addr = writer.get_extra_info("peername")
    if isinstance(addr, tuple) and len(addr) >= 2:
        return f"{addr[0]}:{addr[1]}"
    return str(addr)


# ---------------------------------------------------------------------------------------------
# A blocking client connection
# ---------------------------------------------------------------------------------------------

class UecdaClient:
    """A client's connection to a UECda server (blocking sockets).

    ``timeout`` bounds every read and send (None: wait as long as the server does;
    the reference server has no time limit, so a match may wait minutes on other
    players); ``connect_timeout`` bounds the connection and the handshake. Every
    problem raises :class:`UecdaProtocolError` with a one-line message.

    Use::

        with UecdaClient("127.0.0.1", 42485, name="president") as conn:
            me = conn.player                      # set by the handshake
            deal = conn.receive_table("deal table")
    """

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, name: str = "president", *,
                 timeout: float | None = None, connect_timeout: float = 10.0) -> None:
        profile_table(name)  # the name is checked before any connection (ValueError)
        self.host, self.port, self.name = host, int(port), name
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.player: int | None = None
        self._sock: socket.socket | None = None

    def connect(self) -> int:
        """Connects, sends the profile table and returns the player number the server answers (once: a second call
        returns the same number).

        Raises :class:`UecdaProtocolError`: "could not connect to 127.0.0.1:42485:
        connection refused", "connection closed after 0 of 4 bytes of the player
        number (the server refused us: ...)", "the server answered player number 7,
        expected 0-4"."""
        if self._sock is not None and self.player is not None:
            return self.player
        where = f"{self.host}:{self.port}"
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except TimeoutError:
            raise UecdaProtocolError(f"could not connect to {where}: no answer within {self.connect_timeout:g} s") \
                from None
        except OSError as e:
            raise UecdaProtocolError(f"could not connect to {where}: {_os_words(e)}") from None
        self._sock = sock
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            player = client_handshake(sock, self.name)
        except BaseException:
            self.close()
            raise
        sock.settimeout(self.timeout)
        self.player = player
        return player

    def _socket(self) -> socket.socket:
        if self._sock is None:
            raise UecdaProtocolError(f"not connected to {self.host}:{self.port}")
        return self._sock

    def receive_table(self, what: str = "table") -> np.ndarray:
        """The next table (exactly 480 bytes); raises :class:`UecdaProtocolError` on a closed or timed-out read."""
        return recv_table(self._socket(), what)

    def receive_flag(self, what: str = "flag") -> int:
        """The next flag (exactly 4 bytes); raises :class:`UecdaProtocolError` on a closed or timed-out read."""
        return recv_flag(self._socket(), what)

    def send_table(self, table, what: str = "table") -> None:
        """Sends a table (rows 0-4 matter to the server); raises :class:`UecdaProtocolError`."""
        send_table(self._socket(), table, what=what)

    def close(self) -> None:
        """Closes the connection (idempotent)."""
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def __enter__(self) -> UecdaClient:
        if self._sock is None:
            self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["Answer", "AnswerTimeout", "ClientGone", "ServerLimits", "UecdaClient", "UecdaServer", "pass_table"]
