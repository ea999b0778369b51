"""What the benchmark scripts share."""

from __future__ import annotations

import os


def one_core() -> None:
    """Pin this process to one CPU core (where the OS allows it)."""
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        except OSError:
            pass
