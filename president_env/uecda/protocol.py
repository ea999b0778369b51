"""The UECda wire format (protocol 20070, ``shared/spec/uecda.md`` section 3).

Every message is either a *table*, 8 rows x 15 columns of 32-bit big-endian integers
sent row by row (480 bytes), or a *flag*, one such integer (4 bytes). The reference
programs read a message with one ``recv`` call; this module reads exactly 480 or 4
bytes however TCP splits them, on a blocking socket (:func:`recv_exact`) or an
asyncio stream (:func:`read_exact`).

The handshake: the client sends a *profile table* ([0][0] = 20070, row 1 its name,
one character code a cell, 0-terminated); the server keeps 14 characters and answers
the client's player number as a flag. A server sends a negative value as 0
(``encode_table(..., server=True)``), as the reference server does.

Every problem is a :class:`UecdaProtocolError` with a one-line message naming what
was wrong ("connection closed after 212 of 480 bytes of the hand table").
"""

from __future__ import annotations

import asyncio
import errno
import socket

import numpy as np

ROWS, COLS = 8, 15
TABLE_BYTES = ROWS * COLS * 4   # 480
FLAG_BYTES = 4
PROTOCOL_VERSION = 20070
DEFAULT_PORT = 42485
NAME_CHARS = 14                 # characters of a name the server keeps

# Flags: the answer to a submitted play, and the end-of-turn flag.
ACCEPTED, REJECTED = 9, 8
GAME_ON, GAME_OVER, MATCH_OVER = 0, 1, 2

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1
_WIRE = np.dtype(">i4")


class UecdaProtocolError(Exception):
    """A UECda message or connection that cannot be used; the message is one line naming what was wrong."""


# ---------------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------------

def as_table(table, what: str = "table") -> np.ndarray:
    """``table`` (any 8x15 array-like of integers) as an (8, 15) int64 array.

    Raises :class:`UecdaProtocolError` for another shape, a value that is not an
    integer, or one outside the 32-bit range (naming its row and cell)."""
    try:
        a = np.asarray(table)
    except (TypeError, ValueError) as e:  # ragged nested lists
        raise UecdaProtocolError(f"{what}: not an 8x15 table of integers ({e})") from None
    if a.shape != (ROWS, COLS):
        raise UecdaProtocolError(f"{what}: shape {a.shape}, expected (8, 15)")
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.round(a))
    elif a.dtype.kind in "biu":
        bad = np.zeros(a.shape, dtype=bool)
    else:  # object or text cells
        bad = np.array([[not isinstance(v, (int, np.integer)) for v in row] for row in a.tolist()], dtype=bool)
    if bad.any():
        r, c = _first(bad)
        v = a[r, c]
        raise UecdaProtocolError(f"{what} row {r} cell {c}: {v.item() if isinstance(v, np.generic) else v!r} is not "
                                 "an integer")
    if a.dtype.kind == "b":
        return a.astype(np.int64)
    big = np.array([[not _INT32_MIN <= int(v) <= _INT32_MAX for v in row] for row in a.tolist()], dtype=bool)
    if big.any():
        r, c = _first(big)
        raise UecdaProtocolError(f"{what} row {r} cell {c}: {int(a[r, c])} does not fit a 32-bit integer")
    return np.array([[int(v) for v in row] for row in a.tolist()], dtype=np.int64)


def _first(mask: np.ndarray) -> tuple[int, int]:
    r, c = np.argwhere(mask)[0]
    return int(r), int(c)


def encode_table(table, *, server: bool = False, what: str = "table") -> bytes:
    """The 480 bytes of ``table``: row by row, 32-bit big-endian.

    ``server=True`` sends a negative value as 0, as the reference server does (the
    exchange count [5][1] of the lower classes is negative there). Raises
    :class:`UecdaProtocolError` as :func:`as_table` does."""
    a = as_table(table, what)
    if server:
        a = np.maximum(a, 0)
    return a.astype(_WIRE).tobytes()


def decode_table(data: bytes, what: str = "table") -> np.ndarray:
    """480 bytes as an (8, 15) int64 array (values read as signed 32-bit big-endian).

    Raises :class:`UecdaProtocolError` when ``data`` is not 480 bytes."""
    if len(data) != TABLE_BYTES:
        raise UecdaProtocolError(f"{what}: {len(data)} bytes, a table is {TABLE_BYTES}")
    return np.frombuffer(data, dtype=_WIRE).reshape(ROWS, COLS).astype(np.int64)


def encode_flag(value: int, *, server: bool = False, what: str = "flag") -> bytes:
    """The 4 bytes of a flag (32-bit big-endian; ``server=True`` sends a negative value as 0)."""
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise UecdaProtocolError(f"{what}: {value!r} is not an integer") from None
    if not _INT32_MIN <= v <= _INT32_MAX:
        raise UecdaProtocolError(f"{what}: {v} does not fit a 32-bit integer")
    if server:
        v = max(v, 0)
    return v.to_bytes(4, "big", signed=True)


def decode_flag(data: bytes, what: str = "flag") -> int:
    """4 bytes as a signed 32-bit big-endian integer (raises :class:`UecdaProtocolError` for another length)."""
    if len(data) != FLAG_BYTES:
        raise UecdaProtocolError(f"{what}: {len(data)} bytes, a flag is {FLAG_BYTES}")
    return int.from_bytes(data, "big", signed=True)


# ---------------------------------------------------------------------------------------------
# The handshake
# ---------------------------------------------------------------------------------------------

def profile_table(name: str) -> np.ndarray:
    """The client's profile table: [0][0] = 20070, row 1 the name's character codes, 0-terminated.

    A name longer than 14 characters is cut to 14 (the server keeps 14). Raises
    ``ValueError`` for an empty name or one that is not printable ASCII (the server
    keeps one byte a character)."""
    name = str(name)
    if not name:
        raise ValueError("a UECda name needs at least one character")
    bad = [ch for ch in name if not (32 <= ord(ch) < 127)]
    if bad:
        raise ValueError(f"UECda name {name!r}: {bad[0]!r} is not printable ASCII (the server keeps one byte a "
                         f"character)")
    t = np.zeros((ROWS, COLS), dtype=np.int64)
    t[0, 0] = PROTOCOL_VERSION
    for i, ch in enumerate(name[:NAME_CHARS]):
        t[1, i] = ord(ch)
    return t


def parse_profile(table) -> str:
    """The name in a profile table, after checking [0][0] is 20070.

    Keeps the first 14 characters up to the first 0 cell; a code that is not a
    printable ASCII character becomes ``?``. Raises :class:`UecdaProtocolError`
    ("profile table: [0][0] is 20060, expected protocol 20070"; a code that is not a
    byte names its cell)."""
    t = as_table(table, "profile table")
    version = int(t[0, 0])
    if version != PROTOCOL_VERSION:
        hint = ""
        if version == int.from_bytes(PROTOCOL_VERSION.to_bytes(4, "little"), "big", signed=True):
            hint = " (that is 20070 in little-endian: a client sending host-order integers)"
        raise UecdaProtocolError(f"profile table: [0][0] is {version}, expected protocol {PROTOCOL_VERSION}{hint}")
    chars = []
    for c in range(NAME_CHARS):
        v = int(t[1, c])
        if v == 0:
            break
        if not 0 < v < 256:
            raise UecdaProtocolError(f"profile table row 1 cell {c}: {v} is not a character code (1-255)")
        chars.append(chr(v) if 32 <= v < 127 else "?")
    return "".join(chars)


def client_handshake(sock: socket.socket, name: str) -> int:
    """The client's side of the handshake on a connected blocking socket: sends the profile table, returns the
    player number the server answers.

    Raises :class:`UecdaProtocolError` ("connection closed after 0 of 4 bytes of the
    player number (the server refused us: ...)", "the server answered player number
    7, expected 0-4") and ``ValueError`` for a name :func:`profile_table` refuses."""
    send_table(sock, profile_table(name), what="profile table")
    try:
        player = recv_flag(sock, "player number")
    except UecdaProtocolError as e:
        if "after 0 of" in str(e):
            raise UecdaProtocolError(f"{e} (the server refused us: all seats taken, or it did not accept our "
                                     "profile)") from None
        raise
    if not 0 <= player < 5:
        raise UecdaProtocolError(f"the server answered player number {player}, expected 0-4")
    return player


async def read_profile(reader: asyncio.StreamReader, timeout: float | None = None) -> str:
    """The server's side of the handshake: reads the profile table (exactly 480 bytes, within ``timeout``) and
    returns the name it gives (:func:`parse_profile`); the caller answers the player number with a flag.

    Raises :class:`UecdaProtocolError` as :func:`read_exact` and :func:`parse_profile` do."""
    data = await read_exact(reader, TABLE_BYTES, "profile table", timeout)
    return parse_profile(decode_table(data, "profile table"))


# ---------------------------------------------------------------------------------------------
# Exact reads: a blocking socket
# ---------------------------------------------------------------------------------------------

def recv_exact(sock: socket.socket, n: int, what: str) -> bytes:
    """Exactly ``n`` bytes from a blocking socket, however TCP splits them.

    Raises :class:`UecdaProtocolError`: "connection closed after 212 of 480 bytes of
    the hand table", "timed out after 5 s waiting for the hand table (212 of 480
    bytes came)" (when the socket has a timeout), or the socket error."""
    buf = bytearray()
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except TimeoutError:
            raise _timed_out(sock.gettimeout(), what, len(buf), n) from None
        except OSError as e:
            raise _lost(e, what, len(buf), n) from None
        if not chunk:
            raise _closed(what, len(buf), n)
        buf += chunk
    return bytes(buf)


def _timed_out(seconds: float | None, what: str, got: int, n: int) -> UecdaProtocolError:
    return UecdaProtocolError(f"timed out after {_secs(seconds)} waiting for the {what} ({got} of {n} bytes came)")


def _lost(e: OSError, what: str, got: int, n: int) -> UecdaProtocolError:
    return UecdaProtocolError(f"connection lost after {got} of {n} bytes of the {what}: {_os_words(e)}")


def _closed(what: str, got: int, n: int) -> UecdaProtocolError:
    return UecdaProtocolError(f"connection closed after {got} of {n} bytes of the {what}")


def recv_table(sock: socket.socket, what: str = "table") -> np.ndarray:
    """One table from a blocking socket (480 bytes exactly); raises as :func:`recv_exact`."""
    return decode_table(recv_exact(sock, TABLE_BYTES, what), what)


def recv_flag(sock: socket.socket, what: str = "flag") -> int:
    """One flag from a blocking socket (4 bytes exactly); raises as :func:`recv_exact`."""
    return decode_flag(recv_exact(sock, FLAG_BYTES, what), what)


def send_table(sock: socket.socket, table, *, server: bool = False, what: str = "table") -> None:
    """Sends one table (all 480 bytes); raises :class:`UecdaProtocolError` for a bad table or a lost connection."""
    _send_all(sock, encode_table(table, server=server, what=what), what)


def send_flag(sock: socket.socket, value: int, *, server: bool = False, what: str = "flag") -> None:
    """Sends one flag (4 bytes); raises :class:`UecdaProtocolError` for a bad value or a lost connection."""
    _send_all(sock, encode_flag(value, server=server, what=what), what)


def _send_all(sock: socket.socket, data: bytes, what: str) -> None:
    try:
        sock.sendall(data)
    except TimeoutError:
        raise UecdaProtocolError(f"timed out after {_secs(sock.gettimeout())} sending the {what} "
                                 "(the peer does not read)") from None
    except OSError as e:
        raise UecdaProtocolError(f"connection lost while sending the {what}: {_os_words(e)}") from None


# ---------------------------------------------------------------------------------------------
# Exact reads: an asyncio stream
# ---------------------------------------------------------------------------------------------

async def read_exact(reader: asyncio.StreamReader, n: int, what: str, timeout: float | None = None) -> bytes:
    """Exactly ``n`` bytes from an asyncio stream, however TCP splits them.

    ``timeout`` (seconds, None for none) bounds the whole read. Raises
    :class:`UecdaProtocolError` as :func:`recv_exact` does (the byte count of a
    timed-out read included)."""
    buf = bytearray()
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while len(buf) < n:
        remaining = None if deadline is None else deadline - loop.time()
        if remaining is not None and remaining <= 0:
            raise _timed_out(timeout, what, len(buf), n)
        try:
            chunk = await asyncio.wait_for(reader.read(n - len(buf)), remaining)
        except (asyncio.TimeoutError, TimeoutError):
            raise _timed_out(timeout, what, len(buf), n) from None
        except OSError as e:
            raise _lost(e, what, len(buf), n) from None
        if not chunk:
            raise _closed(what, len(buf), n)
        buf += chunk
    return bytes(buf)


async def read_table(reader: asyncio.StreamReader, what: str = "table", timeout: float | None = None) -> np.ndarray:
    """One table from an asyncio stream; raises as :func:`read_exact`."""
    return decode_table(await read_exact(reader, TABLE_BYTES, what, timeout), what)


async def read_flag(reader: asyncio.StreamReader, what: str = "flag", timeout: float | None = None) -> int:
    """One flag from an asyncio stream; raises as :func:`read_exact`."""
    return decode_flag(await read_exact(reader, FLAG_BYTES, what, timeout), what)


# ---------------------------------------------------------------------------------------------
# Words
# ---------------------------------------------------------------------------------------------

def _secs(t: float | None) -> str:
    if t is None:
        return "no time limit"
    return f"{t:g} s"


def _os_words(e: OSError) -> str:
    """An OS error in a few words: 'connection refused', 'connection reset by the peer'."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    if isinstance(e, ConnectionResetError):
        return "connection reset by the peer"
    if isinstance(e, BrokenPipeError):
        return "the peer closed the connection (broken pipe)"
    if isinstance(e, socket.gaierror):
        return f"unknown host ({e.strerror or e})"
    if isinstance(e, TimeoutError):
        return "timed out"
    if e.errno == errno.EADDRINUSE:
        return "address already in use"
    if e.errno == errno.EADDRNOTAVAIL:
        return "address not available on this machine"
    if e.errno == errno.EACCES:
        return "permission denied"
    words = e.strerror or str(e) or type(e).__name__
    return words[:1].lower() + words[1:]
