"""Tables fit an 80-column terminal without cutting a figure ("+0.52…"): fewer columns, or more lines a row."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from agents.zoo import zoo_entries, zoo_specs
from president_cli.zoo import zoo_table


def _render(width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    rows = zoo_entries()
    console.print(zoo_table(rows, zoo_specs(rows), console))
    return console.file.getvalue()


@pytest.mark.parametrize("width", [80, 100, 200])
def test_the_zoo_table_fits_and_shows_every_figure_whole(width):
    text = _render(width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    rows = zoo_entries()
    for r, spec in zip(rows, zoo_specs(rows), strict=True):
        assert spec in text
        h = r["vs_heuristic"]
        assert f"{h['diff']:+.3f}" in text and f"[{h['low']:+.3f}, {h['high']:+.3f}]" in text


def test_a_wide_terminal_gets_one_line_a_row_and_80_columns_more():
    rows = len(zoo_entries())
    assert len(_render(200).splitlines()) < rows + 10
    assert len(_render(80).splitlines()) >= 3 * rows


def test_the_tournament_tables_fit_80_columns_with_a_long_agent_name():
    from agents.arena import run_tournament
    from president_cli.evaluate import print_result
    from president_env.core import preset

    result = run_tournament(preset("president", hands_per_session=1), ["heuristic", "greedy", "random", "random"],
                            4, seed=0)
    result.names = ["ppo:runs/quick/model.agent.safetensors", "greedy", "random", "random"]
    for e in result.entrants:
        e.agent = result.names[e.index]
    for width in (80, 140):
        console = Console(width=width, file=io.StringIO(), color_system=None)
        print_result(result, console)
        text = console.file.getvalue()
        assert max(len(line) for line in text.splitlines()) <= width and "…" not in text
        for e in result.entrants:
            assert f"{e.points_per_hand:+.3f}" in text
            assert f"[{e.points_ci95[0]:+.3f}, {e.points_ci95[1]:+.3f}]" in text
