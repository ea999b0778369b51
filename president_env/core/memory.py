"""A run's memory, estimated before it starts: refused, with the estimate, when the machine has less.

:func:`available_bytes` is what the system says a new allocation can take (``MemAvailable`` of
``/proc/meminfo`` on Linux, else the physical memory); :func:`check_fits` raises
:class:`MemoryEstimateError` naming what would need the memory, the estimate and what is free,
so that a run that would fill the machine stops at once instead of swapping or being killed.
"""

from __future__ import annotations

import os
from pathlib import Path

GIB = 1 << 30


class MemoryEstimateError(ValueError):
    """A run whose estimated memory is more than the machine has: the message gives both."""


def available_bytes() -> int | None:
    """Memory a new allocation can take now, in bytes (None when the system does not say)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def size_text(n: float) -> str:
    """Bytes in words: ``1.5 GiB``, ``300 MiB``."""
    return f"{n / GIB:,.1f} GiB" if n >= GIB else f"{n / (1 << 20):,.0f} MiB"


def check_fits(what: str, need: float, available: int | None = None) -> None:
    """Raise :class:`MemoryEstimateError` when ``need`` bytes (``what`` says for what) exceed the memory
    available (``available``, or :func:`available_bytes`)."""
    free = available_bytes() if available is None else available
    if free is not None and need > free:
        raise MemoryEstimateError(f"{what} would need about {size_text(need)} of memory; this machine has "
                                  f"{size_text(free)} available")
