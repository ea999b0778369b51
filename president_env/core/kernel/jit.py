"""numba's ``njit`` as the kernels use it: nopython, cached beside the sources, no Python error checks.

``cache=True`` writes the compiled code to ``__pycache__`` beside each module on first use; later
processes load it. Where that folder cannot be written numba warns and compiles in memory (a slower
start, the same results). ``NUMBA_DISABLE_JIT=1`` runs the same functions as plain Python (slow; for
debugging).

numba judges a cached function stale by its own source file only, not by the functions it calls or
inlines from other files: after an edit of one kernel file, the entry points of another would load
their old code. So the cache is keyed on all the kernel sources together: when their hash differs
from the one recorded beside the cache, the cached code is removed (:func:`_drop_stale_cache`).
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

from numba import config
from numba import njit as _njit
from numba.core.errors import NumbaWarning

_HERE = Path(__file__).resolve().parent


def njit(fn=None, **options):
    """``numba.njit(cache=True, nogil=True, error_model="numpy")``, usable bare or with options."""
    opts = {"cache": True, "nogil": True, "error_model": "numpy"}
    opts.update(options)
    if fn is None:
        return lambda f: _njit(**opts)(f)
    return _njit(**opts)(fn)


def sources_hash() -> str:
    """A hash of every kernel source file (and numba's version): the key of the compiled cache."""
    import numba

    h = hashlib.sha256(f"numba {numba.__version__}".encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _drop_stale_cache() -> None:
    """Remove cached kernel code compiled from other sources than these (best effort: a folder that cannot
    be written keeps what it has, and numba compiles in memory)."""
    cache = Path(os.environ.get("NUMBA_CACHE_DIR") or _HERE / "__pycache__")
    stamp = cache / "kernel_sources.sha256"
    key = sources_hash()
    try:
        if stamp.exists() and stamp.read_text().strip() == key:
            return
        if cache.is_dir():   # numba names a cache file after its module: step.step_batch_rank-196.py311.nbi
            modules = {p.stem for p in _HERE.glob("*.py")}
            for f in cache.rglob("*.nb[ic]"):
                if f.name.split(".")[0] in modules:
                    f.unlink()
        cache.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key + "\n")
    except OSError:
        pass


if not config.DISABLE_JIT:
    _drop_stale_cache()

# A read-only cache folder is not an error: numba then compiles in memory each process.
warnings.filterwarnings("ignore", category=NumbaWarning, message=".*cannot cache.*")
