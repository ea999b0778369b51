"""JSON read as untrusted data, within stated limits.

Every reader of a file or request that someone else may have written (records, agent-file
metadata, uploads, request bodies) parses JSON through :func:`loads`, which refuses, with a
:class:`JSONInputError` that says what was wrong (never a ``RecursionError``, an ``OverflowError``
or a ``ValueError`` from deep inside the parser):

* text that is not UTF-8 (naming the byte);
* nesting deeper than :data:`MAX_DEPTH` arrays and objects (checked before parsing);
* an integer of more than :data:`MAX_INT_DIGITS` digits (the largest any field needs is a
  64-bit key, 20 digits);
* ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow a float (``1e999``).

:func:`read_lines` reads a binary file line by line without ever holding a line longer
than its limit.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import IO, Any

import numpy as np

MAX_DEPTH = 32                 # arrays and objects inside one another
MAX_INT_DIGITS = 20            # 2**64 - 1 has 20 digits
MAX_LINE_BYTES = 1 << 20       # one line of a records file: 1 MiB (the longest hand of any preset is ~25 KB)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class JSONInputError(ValueError):
    """JSON text refused by :func:`loads`: the message says what was wrong."""


class JSONSyntaxError(JSONInputError):
    """Text that is not JSON at all (as opposed to JSON beyond the limits)."""


class LineTooLong(JSONInputError):
    """A line of a file longer than :func:`read_lines` reads (``lineno`` says which)."""

    def __init__(self, lineno: int, max_bytes: int) -> None:
        super().__init__(f"line {lineno} is longer than {max_bytes} bytes, the most a line may take")
        self.lineno = lineno


def decode_utf8(data: bytes) -> str:
    """``data`` as text; bytes that are not UTF-8 raise :class:`JSONInputError` naming the byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JSONInputError(f"not UTF-8 text (byte {e.start}: {e.reason})") from None


def depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (brackets inside strings do not count)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONInputError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS} are read)")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONInputError(f"the number {text[:40]}{'...' if len(text) > 40 else ''} overflows a float")
    return value


def _constant(name: str) -> float:
    raise JSONInputError(f"{name} is not a number JSON allows (only finite numbers are read)")


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON ``text`` (or UTF-8 bytes) within the limits of this module."""
    if isinstance(text, bytes | bytearray):
        text = decode_utf8(bytes(text))
    found = depth(text)
    if found > max_depth:
        raise JSONInputError(f"arrays and objects nested {found} deep (at most {max_depth} are read)")
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise JSONSyntaxError(f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:  # cannot happen below max_depth; kept so that no reader ever shows one
        raise JSONInputError(f"arrays and objects nested too deep (at most {max_depth} are read)") from None


def read_lines(f: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its end) of a binary file; a line longer than ``max_bytes`` raises
    :class:`LineTooLong` naming it, after reading at most ``max_bytes + 1`` bytes of it."""
    lineno = 0
    while True:
        line = f.readline(max_bytes + 1)
        if not line:
            return
        lineno += 1
        if len(line) > max_bytes and not (len(line) == max_bytes + 1 and line.endswith(b"\n")):
            raise LineTooLong(lineno, max_bytes)
        yield lineno, line.rstrip(b"\r\n")
