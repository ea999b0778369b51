"""The zoo: every shipped agent loads, plays, is small, and its recorded results clear the bar.

The slow test re-runs one zoo agent's evaluation (``pytest -m slow``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.agent_file import FileAgent, read_agent_file
from agents.arena import run_tournament
from agents.registry import make_agent
from agents.zoo import ZOO_DIR, zoo_entries, zoo_path
from president_cli.main import main
from president_cli.zoo import MAX_BYTES, MIN_DEALS, markdown_table
from president_env.core import PRESETS, Rules, preset

ROWS = zoo_entries()
NAMES = [r["preset"] for r in ROWS]


def test_the_index_and_the_files_agree():
    files = sorted(p.name for p in ZOO_DIR.glob("*.agent.safetensors"))
    assert files == sorted(r["file"] for r in ROWS)
    assert len(set(NAMES)) == len(NAMES) and set(NAMES) <= set(PRESETS)


@pytest.mark.parametrize("row", ROWS, ids=NAMES)
def test_each_agent_is_small_loads_and_plays(row):
    path = zoo_path(row["preset"])
    assert path.stat().st_size <= MAX_BYTES and path.stat().st_size == row["bytes"]
    rules = preset(row["preset"])
    meta, _ = read_agent_file(path)
    assert Rules.from_dict(meta["rules"]) == rules and meta["made_by"]["command"]
    agent = make_agent(f"zoo:{row['preset']}", rules)
    assert isinstance(agent, FileAgent)
    res = run_tournament(rules, [agent] + ["heuristic"] * (rules.players - 1), deals=2, seed=0, rating=False)
    assert res.entrants[0].hands > 0


@pytest.mark.parametrize("row", ROWS, ids=NAMES)
def test_each_recorded_result_clears_the_bar(row):
    for opp in ("vs_heuristic", "vs_greedy"):
        r = row[opp]
        assert r["deals"] >= MIN_DEALS and r["low"] > 0 and r["low"] <= r["diff"] <= r["high"]
    assert row["train_minutes"] <= 30 and row["train_command"].startswith("president train")


def test_docs_hold_the_table_and_every_command():
    text = (ZOO_DIR.parents[1] / "docs" / "zoo.md").read_text(encoding="utf-8")
    assert markdown_table(ROWS) in text, "docs/zoo.md is out of date: paste `president zoo --markdown`"
    for row in ROWS:
        assert row["train_command"] in text


def test_unknown_names_list_the_zoo():
    with pytest.raises(ValueError, match="no zoo agent 'nonesuch'; the zoo has"):
        make_agent("zoo:nonesuch", preset("president"))


def test_the_command_lists_the_zoo(capsys):
    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    assert "The zoo" in out and all(f"zoo:{n}" in out for n in NAMES)
    assert main(["zoo", "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == markdown_table(ROWS)


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS[:1], ids=NAMES[:1])
def test_an_evaluation_reruns(row):
    from training.evaluate import matchup

    rules = preset(row["preset"])
    agent = make_agent(f"zoo:{row['preset']}", rules)
    m = matchup(rules, agent, "heuristic", row["vs_heuristic"]["deals"], seed=row["seed"])
    assert m.diff_low > 0
    assert abs(m.diff - row["vs_heuristic"]["diff"]) < 1e-3, json.dumps(row["vs_heuristic"])
    assert np.isfinite(m.diff_high)
