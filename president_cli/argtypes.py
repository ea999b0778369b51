"""Checked command-line values: every number in range, every count with an upper bound, every float finite.

Each function here is an ``argparse`` type: a bad value is refused while the command line
is parsed (exit status 2, a message naming the option and the range), before any work starts.
:class:`UsageError` is the same refusal for a value found bad after parsing.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from president_env.core import PRESETS
from president_env.core.rules import MAX_HANDS_PER_SESSION, PRESET_ALIASES, PRESET_TABLE

MAX_SEED = 2**63 - 1            # seeds are 0..2**63-1 (numpy's SeedSequence takes no negative seed)
MAX_GAMES = 1_000_000           # sessions of simulate, deals of evaluate
MAX_BATCH = 100_000             # sessions stepped together
MAX_TIMESTEPS = 10**12          # learner decisions of a training run
MAX_DEALS = 1_000_000           # duplicate deals of an evaluation
MAX_MINUTES = 10**6             # a wall-clock budget (about two years)


class UsageError(Exception):
    """A bad command line value found after parsing (exit status 2, no traceback)."""


def preset_name(value: str) -> str:
    """A known preset name (or alias)."""
    key = PRESET_ALIASES.get(value.lower(), value.lower())
    if key not in PRESET_TABLE:
        raise argparse.ArgumentTypeError(f"unknown preset {value!r}; presets are: {', '.join(PRESETS)}")
    return key


def int_range(low: int, high: int) -> Callable[[str], int]:
    """An integer ``low..high``."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {value!r}") from None
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {n}")
        return n

    parse.__name__ = f"integer {low}..{high}"
    return parse


def float_range(low: float, high: float, low_open: bool = False) -> Callable[[str], float]:
    """A finite number ``low..high`` (above ``low`` when ``low_open``)."""
    words = f"a number {'>' if low_open else '>='} {low:g} and <= {high:g}"

    def parse(value: str) -> float:
        try:
            x = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {words}, got {value!r}") from None
        if not math.isfinite(x) or x > high or x < low or (low_open and x == low):
            raise argparse.ArgumentTypeError(f"expected {words}, got {value}")
        return x

    parse.__name__ = words
    return parse


seed_value = int_range(0, MAX_SEED)
games_count = int_range(1, MAX_GAMES)
deals_count = int_range(1, MAX_DEALS)
hands_count = int_range(1, MAX_HANDS_PER_SESSION)
batch_size = int_range(1, MAX_BATCH)
timesteps_count = int_range(1, MAX_TIMESTEPS)
minutes_value = float_range(0, MAX_MINUTES, low_open=True)
