"""Output files that are never left half written: check first, write beside, rename at the end.

:func:`check_writable` says, before any work starts, why a path cannot be written (a folder
that does not exist, a folder in its place, no permission). :func:`atomic_writer` writes a
temporary file in the same folder and renames it over the path only when the writing
finished: a run that is interrupted or killed leaves the earlier file as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
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


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, binary: bool = False) -> Iterator[IO[Any]]:
    """An open file whose content replaces ``path`` when the ``with`` block ends without an exception.

    The content goes to a temporary file beside ``path`` (``.NAME.XXXX.part``), is flushed to
    disk, and is renamed over ``path``; on any exception (Ctrl-C included) the temporary file
    is removed and ``path`` is untouched. A killed process can leave the ``.part`` file behind,
    never a truncated ``path``. A new file's mode is what the umask gives any new file (0644
    under 022); a replaced file keeps its mode."""
    path = Path(path)
    fd, tmp = _new_part_file(path)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        if path.exists():   # a replaced file keeps its mode
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _new_part_file(path: Path) -> tuple[int, str]:
    """A new, empty ``.NAME.XXXX.part`` file beside ``path``, open for writing: (descriptor, its path).

    Created with mode 0666 so that the kernel applies the process's umask at that moment, as it does
    for any new file (0644 under the usual 022): :func:`tempfile.mkstemp` would make it owner-only."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.part"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), str(tmp)
        except FileExistsError:
            continue
        except OSError as e:
            raise OutputError(f"{path}: cannot write in {path.parent} ({e.strerror})") from None
    raise OutputError(f"{path}: cannot write in {path.parent} (no free temporary name)")
