"""Run ``president ARGV`` in the test process: its exit status and standard error, never a traceback.

Tests import it as ``from cli_run import run_cli`` (pytest puts ``tests/`` on the path).
"""

from __future__ import annotations

from president_cli.main import main


def run_cli(argv: list[str], capsys) -> tuple[int, str]:  # noqa: ANN001 - pytest's capsys fixture
    """Exit status and standard error of ``president ARGV``; fails the test if a traceback was printed."""
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return code, err
