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

import functools
import hashlib
import os
import sys
import threading
import time
import warnings
from pathlib import Path

from numba import config
from numba import njit as _njit
from numba.core.errors import NumbaWarning

_HERE = Path(__file__).resolve().parent


def njit(fn=None, **options):
    """``numba.njit(cache=True, nogil=True, error_model="numpy")``, usable bare or with options. Reference
    counting (numba's runtime, ``_nrt``) is on unless switched off explicitly, so that a function that
    allocates keeps it when called from one of the :func:`inlined` rules functions (numba would otherwise
    inherit their setting)."""
    opts = {"cache": True, "nogil": True, "error_model": "numpy", "_nrt": True}
    opts.update(options)
    if fn is None:
        return lambda f: _njit(**opts)(f)
    return _njit(**opts)(fn)


def inlined(fn):
    """A rules function: compiled once per signature, inlined by LLVM into every caller (``forceinline``),
    without reference counting (``_nrt=False``) and without a Python wrapper (the kernels call it; Python
    never does).

    The rules functions pass the state's views (tuples of arrays) from function to function. numba's own
    inlining (``inline="always"``) copies a callee's IR into every call site and types it again there, which
    made the step take minutes to compile; an ordinary call passes every array of those tuples field by
    field (hundreds of words) and costs more than many rules. Inlined by LLVM, each function is typed once
    and a call costs nothing. Without reference counting, a view passed on costs no calls to numba's
    runtime (its incref and decref of the views' null owners were half of a step's time); such a function
    must not allocate arrays (numba refuses to compile one that does)."""
    return njit(fn, forceinline=True, _nrt=False, no_cpython_wrapper=True)


def thin(fn):
    """A function that only dispatches to :func:`inlined` ones (a phase's choice of rules function): its IR
    is copied into its caller by numba (``inline="always"``) and compiled as part of it. It costs numba
    little to copy a few lines, and saves an LLVM optimisation of everything below it, which every
    separately compiled function runs again over all that it inlines."""
    return njit(fn, inline="always")


@functools.lru_cache(maxsize=1)
def sources_hash() -> str:
    """A hash of every kernel source file (and numba's version): the key of the compiled cache."""
    import numba

    h = hashlib.sha256(f"numba {numba.__version__}".encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _cache_folder(sources: Path) -> Path:
    return Path(os.environ.get("NUMBA_CACHE_DIR") or sources / "__pycache__")


def _drop_stale(cache: Path, stamp_name: str, key: str, modules: set[str]) -> None:
    """Remove the cached code of ``modules`` unless ``cache/stamp_name`` records ``key`` (best effort: a folder
    that cannot be written keeps what it has, and numba compiles in memory)."""
    stamp = cache / stamp_name
    try:
        if stamp.exists() and stamp.read_text().strip() == key:
            return
        if cache.is_dir():   # numba names a cache file after its module: step.step_batch_rank-196.py311.nbi
            for f in cache.rglob("*.nb[ic]"):
                if f.name.split(".")[0] in modules:
                    f.unlink()
        cache.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key + "\n")
    except OSError:
        pass


def _drop_stale_cache() -> None:
    """Remove cached kernel code compiled from other sources than these."""
    _drop_stale(_cache_folder(_HERE), "kernel_sources.sha256", sources_hash(), {p.stem for p in _HERE.glob("*.py")})


def guard_cache(module_file: str | Path, *depends: str | Path) -> None:
    """For a compiled module outside the kernel (an agent's): drop its cached code when it, the files it inlines
    code from (``depends``) or the kernel's sources changed, since numba checks only the module's own file."""
    if config.DISABLE_JIT:
        return
    path = Path(module_file).resolve()
    h = hashlib.sha256(sources_hash().encode())
    for f in (path, *depends):
        h.update(Path(f).read_bytes())
    _drop_stale(_cache_folder(path.parent), f"{path.stem}.sources.sha256", h.hexdigest(), {path.stem})


SHOW_AFTER_S = 1.0     # a compilation (or cache load) that takes longer than this shows a progress line
REPEAT_S = 15.0


def compile_for(dispatcher, args: tuple, what: str) -> None:
    """Compile ``dispatcher`` for the types of ``args`` (or load it from numba's cache) unless it already
    has code, with a line on stderr when that takes more than a second, and every 15 s after, so that
    the first use after install (about a minute per family of rules) is not taken for a hang."""
    if config.DISABLE_JIT or dispatcher.overloads:
        return
    from numba import typeof

    sig = tuple(typeof(a) for a in args)
    try:   # numba's index of the cached code: if it exists the code is loaded, not compiled
        cached = Path(dispatcher._cache._cache_file._index_path).exists()
    except AttributeError:
        cached = False
    start = time.perf_counter()
    done = threading.Event()
    shown = []

    def report() -> None:
        if done.wait(SHOW_AFTER_S):
            return
        if cached:
            print(f"president: loading the compiled rules engine ({what}) from numba's cache", file=sys.stderr,
                  flush=True)
        else:
            print(f"president: compiling the rules engine ({what}): the first use after install takes about a "
                  "minute; later runs load it from the cache", file=sys.stderr, flush=True)
        shown.append(True)
        while not done.wait(REPEAT_S):
            print(f"president: still {'loading' if cached else 'compiling'} ({what}), "
                  f"{time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)

    watcher = threading.Thread(target=report, name="president-compile-progress", daemon=True)
    watcher.start()
    try:
        dispatcher.compile(sig)
    finally:
        done.set()
        watcher.join()
    if shown:
        print(f"president: {'loaded' if cached else 'compiled'} ({what}) in {time.perf_counter() - start:.0f} s",
              file=sys.stderr, flush=True)


if not config.DISABLE_JIT:
    _drop_stale_cache()

# A read-only cache folder is not an error: numba then compiles in memory each process.
warnings.filterwarnings("ignore", category=NumbaWarning, message=".*cannot cache.*")
