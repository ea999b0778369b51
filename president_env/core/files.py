"""Output files that are never left half written: check first, write beside, rename at the end.

:func:`check_writable` says, before any work starts, why a path cannot be written (a folder
that does not exist, a folder in its place, no permission). :func:`atomic_writer` writes a
temporary file in the same folder and renames it over the path only when the writing
finished: a run that is interrupted or killed leaves the earlier file as it was.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


class OutputError(ValueError):
    """An output path that cannot be written: the message names it and says why."""


def check_writable(path: str | os.PathLike, what: str = "output") -> Path:
    """``path`` if a file can be written there; else :class:`OutputError` naming the path and the reason.

    Creates and removes a temporary file in the folder, so the answer is the file system's."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{what} {path}: is a folder, not a file")
    folder = path.parent
    if not folder.is_dir():
        raise OutputError(f"{what} {path}: the folder {folder} does not exist")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"{what} {path}: the file is read-only")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".check", dir=folder)
    except OSError as e:
        raise OutputError(f"{what} {path}: cannot write in {folder} ({e.strerror})") from None
    os.close(fd)
    os.unlink(tmp)
    return path


def partial_path(path: str | os.PathLike) -> Path:
    """Where an interrupted run keeps what it finished of ``path``: ``r.jsonl`` -> ``r.partial.jsonl`` (or
    ``r.partial-2.jsonl`` ... when that is taken: an earlier partial file is never written over)."""
    path = Path(path)
    for n in range(1, 10_000):
        tag = "partial" if n == 1 else f"partial-{n}"
        found = path.with_name(f"{path.stem}.{tag}{path.suffix}" if path.suffix else f"{path.name}.{tag}")
        if not found.exists():
            return found
    raise OutputError(f"{path}: no free name for a partial file beside it")


def mark_complete(f: IO[Any]) -> None:
    """Say that what ``f`` (from :func:`atomic_writer`) holds so far is whole: an interrupted ``with`` block
    keeps it (``keep_partial``), cut here."""
    f.flush()
    f.complete = f.tell()  # type: ignore[attr-defined]


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False,
                  keep_partial: str | os.PathLike | None = None) -> Iterator[IO[Any]]:
    """An open file whose content replaces ``path`` when the ``with`` block ends without an exception.

    The content goes to a temporary file beside ``path`` (``.NAME.PID-XXXX.part``), is flushed to
    disk, and is renamed over ``path``; on any exception the temporary file is removed and
    ``path`` is untouched, except that on Ctrl-C with ``keep_partial`` the content up to the last
    :func:`mark_complete` is renamed to ``keep_partial`` (``path`` is still untouched). A killed
    process can leave the ``.part`` file behind, never a truncated ``path``; the next writer of
    ``path`` removes the ``.part`` files of processes that are gone. A new file's mode is what the
    umask gives any new file (0644 under 022); a replaced file keeps its mode."""
    path = Path(path)
    remove_stale_parts(path)
    fd, tmp = _new_part_file(path)
    complete = 0
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            try:
                yield f
            finally:
                complete = getattr(f, "complete", 0)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():   # a replaced file keeps its mode
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except KeyboardInterrupt:
        if keep_partial is not None and complete > 0:
            os.truncate(tmp, complete)      # a batch cut in the middle is left out
            os.replace(tmp, keep_partial)
        else:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


STALE_LEGACY_SECONDS = 3600.0    # a .part file without a process id, untouched this long, is a dead run's


def remove_stale_parts(path: str | os.PathLike) -> list[Path]:
    """Remove the ``.part`` files beside ``path`` that a killed writer left: those of a process that no longer
    runs (and, from before the names held one, those untouched for an hour). Returns what it removed."""
    path = Path(path)
    removed = []
    try:
        candidates = list(path.parent.glob(f".{glob.escape(path.name)}.*.part"))
    except OSError:
        return removed
    for part in candidates:
        tag = part.name[len(path.name) + 2:-len(".part")]
        pid, sep, _ = tag.partition("-")
        try:
            if sep and pid.isdigit():
                if _running(int(pid)):
                    continue
            elif time.time() - part.stat().st_mtime < STALE_LEGACY_SECONDS:
                continue
            part.unlink()
            removed.append(part)
        except OSError:
            continue
    return removed


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (another user's counts as running)."""
    if pid == os.getpid() or os.name == "nt":    # (Windows: os.kill would end it; keep the file)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _new_part_file(path: Path) -> tuple[int, str]:
    """A new, empty ``.NAME.PID-XXXX.part`` file beside ``path``, open for writing: (descriptor, its path).

    Created with mode 0666 so that the kernel applies the process's umask at that moment, as it does
    for any new file (0644 under the usual 022): :func:`tempfile.mkstemp` would make it owner-only."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.part"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), str(tmp)
        except FileExistsError:
            continue
        except OSError as e:
            raise OutputError(f"{path}: cannot write in {path.parent} ({e.strerror})") from None
    raise OutputError(f"{path}: cannot write in {path.parent} (no free temporary name)")
