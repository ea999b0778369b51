"""The output folder of a training run: never another run's, checked before any work.

:func:`prepare_out` refuses a folder that already holds files unless the run continues one
(``--resume``) or the person said to write over it (``--force``), and checks that the folder
can be created and written, so a run never starts only to fail at its first save, and an
earlier run's model is never silently replaced.
"""

from __future__ import annotations

from pathlib import Path

from president_env.core.files import OutputError, check_writable


class RunDirError(ValueError):
    """An output folder a run may not use: the message names it and says what to do."""


def check_out(out: str | Path, resume: str | None, force: bool) -> Path:
    """``out`` checked without creating anything: :class:`RunDirError` when it holds files this run may not write
    over, is a file, or lies under a file."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise RunDirError(f"--out {path}: is a file, not a folder")
    if path.is_dir() and not (resume or force):
        held = sorted(p.name for p in path.iterdir())
        if held:
            shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
            raise RunDirError(f"--out {path} already holds files ({shown}): an earlier run's model would be "
                              "replaced; give another --out, --resume CHECKPOINT to continue that run, or --force "
                              "to write over it")
    above = next((p for p in path.absolute().parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise RunDirError(f"--out {path}: cannot create the folder ({above} is a file)")
    return path


def prepare_out(out: str | Path, resume: str | None, force: bool) -> Path:
    """``out`` (checked by :func:`check_out`) with its ``checkpoints/`` folder created and a file written and removed
    there; :class:`RunDirError` when it may not or cannot be used."""
    path = check_out(out, resume, force)
    try:
        (path / "checkpoints").mkdir(parents=True, exist_ok=True)
        check_writable(path / "args.json", "--out")
        check_writable(path / "checkpoints" / "step_0.zip", "--out")
    except OutputError as e:
        raise RunDirError(str(e)) from None
    except OSError as e:
        raise RunDirError(f"--out {path}: cannot create the folder ({e.strerror})") from None
    return path
