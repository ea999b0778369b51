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
from agents.zoo import ZOO_DIR, generation, newest, zoo_entries, zoo_path, zoo_row, zoo_specs
from president_cli.main import main
from president_cli.zoo import MAX_BYTES, MIN_DEALS, markdown_commands, markdown_table, train_minutes_allowed
from president_env.core import PRESETS, Rules, preset

ROWS = zoo_entries()
NAMES = [f"{r['preset']}@{generation(r)}" for r in ROWS]
NEWEST = newest(ROWS)
SPECS = dict(zip(NAMES, zoo_specs(ROWS), strict=True))


def test_the_index_and_the_files_agree():
    files = sorted(p.name for p in ZOO_DIR.glob("*.agent.safetensors"))
    assert files == sorted(r["file"] for r in ROWS)
    assert len(set(NAMES)) == len(NAMES) and {r["preset"] for r in ROWS} <= set(PRESETS)
    for r in ROWS:      # generations count up from 1 without a gap
        assert generation(r) == 1 or f"{r['preset']}@{generation(r) - 1}" in NAMES


@pytest.mark.parametrize("row", ROWS, ids=NAMES)
def test_each_agent_is_small_loads_and_plays(row):
    spec = SPECS[f"{row['preset']}@{generation(row)}"]
    path = zoo_path(spec.removeprefix("zoo:"))
    assert path == ZOO_DIR / row["file"]
    assert path.stat().st_size <= MAX_BYTES and path.stat().st_size == row["bytes"]
    rules = preset(row["preset"])
    meta, _ = read_agent_file(path)
    assert Rules.from_dict(meta["rules"]) == rules and meta["made_by"]["command"]
    agent = make_agent(spec, rules)
    assert isinstance(agent, FileAgent)
    # one hand a session: whole sessions of uecda (to 100 points) took minutes of the heuristic's turns
    res = run_tournament(rules, [agent] + ["heuristic"] * (rules.players - 1), deals=2, seed=0, rating=False,
                         hands_per_session=1)
    assert res.entrants[0].hands > 0


@pytest.mark.parametrize("row", ROWS, ids=NAMES)
def test_each_recorded_result_clears_the_bar(row):
    bars = ("vs_heuristic", "vs_greedy") + (("vs_previous",) if generation(row) > 1 else ())
    for opp in bars:
        r = row[opp]
        assert r["deals"] >= MIN_DEALS and r["low"] > 0 and r["low"] <= r["diff"] <= r["high"]
    assert row["train_minutes"] <= train_minutes_allowed(generation(row))
    assert row["train_command"].startswith("president train")
    assert row.get("export_command", "president export-agent").startswith("president export-agent")


def test_a_name_plays_the_newest_generation_and_name_at_k_generation_k():
    for row in NEWEST:
        assert zoo_row(row["preset"]) == row and zoo_row(f"{row['preset'].upper()}@{generation(row)}") == row
    with pytest.raises(ValueError, match=r"no generation 99 of zoo agent 'president'; it has president@1"):
        zoo_path("president@99")
    for bad in ("x", "²", "-1", ""):
        with pytest.raises(ValueError, match="the generation after @ must be a number"):
            make_agent(f"zoo:president@{bad}", preset("president"))
    assert zoo_specs(NEWEST) == [f"zoo:{r['preset']}" for r in NEWEST]


def test_docs_hold_the_table_and_every_command():
    text = (ZOO_DIR.parents[1] / "docs" / "zoo.md").read_text(encoding="utf-8")
    assert markdown_table(ROWS) in text, "docs/zoo.md is out of date: paste `president zoo --markdown`"
    assert markdown_commands(ROWS) in text, "docs/zoo.md is out of date: paste `president zoo --markdown`"
    for row in ROWS:
        assert row["train_command"] in text and row.get("export_command", "") in text


def test_unknown_names_list_the_zoo():
    with pytest.raises(ValueError, match="no zoo agent 'nonesuch'; the zoo has"):
        make_agent("zoo:nonesuch", preset("president"))


def test_the_command_lists_the_zoo(capsys):
    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    assert "The zoo" in out and all(f"{spec} " in out for spec in SPECS.values())
    assert main(["zoo", "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == markdown_table(ROWS) + "\n\n" + markdown_commands(ROWS)


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS[:1], ids=NAMES[:1])
def test_an_evaluation_reruns(row):
    from training.evaluate import matchup

    rules = preset(row["preset"])
    agent = make_agent(f"zoo:{row['preset']}", rules)
    m = matchup(rules, agent, "heuristic", row["vs_heuristic"]["deals"], seed=row["seed"])
    assert m.diff_low > 0
    assert (round(m.diff, 4), round(m.diff_low, 4)) == (row["vs_heuristic"]["diff"], row["vs_heuristic"]["low"])
    assert abs(m.diff - row["vs_heuristic"]["diff"]) < 1e-3, json.dumps(row["vs_heuristic"])
    assert np.isfinite(m.diff_high)


# --------------------------------------------------------------------------- zoo-add
def _tiny_agent(path, rules, seed=0):
    from agents.agent_file import write_agent_file
    from president_env.core import n_actions
    from president_env.core import observation as O

    rng = np.random.default_rng(seed)
    layers = [(rng.normal(size=(8, O.size(rules))).astype(np.float32), np.zeros(8, np.float32)),
              (rng.normal(size=(n_actions(rules), 8)).astype(np.float32), np.zeros(n_actions(rules), np.float32))]
    return write_agent_file(path, rules, layers, made_by={"preset": rules.name, "command": "test", "timesteps": 7})


@pytest.fixture
def empty_zoo(tmp_path, monkeypatch):
    import agents.zoo as zoo

    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path / "zoo")
    monkeypatch.setattr(zoo, "INDEX", tmp_path / "zoo" / "zoo.json")
    (tmp_path / "zoo").mkdir()
    return zoo


def _add(path, deals="2000", *extra):
    return main(["zoo-add", "--preset", "president", "--agent", str(path), "--deals", deals, "--no-progress",
                 "--train-command", "president train --preset president", "--train-minutes", "1.5", *extra])


def test_zoo_add_refuses_an_agent_below_the_bar(empty_zoo, tmp_path, monkeypatch, capsys):
    import president_cli.zoo as cli

    monkeypatch.setattr(cli, "MIN_DEALS", 6)  # a few deals: a random network loses to the heuristic
    path = _tiny_agent(tmp_path / "weak.agent.safetensors", preset("president"))
    assert _add(path, "6") == 1
    assert "not added: it does not beat heuristic" in capsys.readouterr().out
    assert empty_zoo.zoo_entries() == [] and not list(empty_zoo.ZOO_DIR.glob("*.safetensors"))


def test_zoo_add_refuses_too_few_deals_a_big_file_and_other_rules(empty_zoo, tmp_path, capsys):
    path = _tiny_agent(tmp_path / "a.agent.safetensors", preset("revolution"))
    big = tmp_path / "big.agent.safetensors"
    big.write_bytes(b"0" * (MAX_BYTES + 1))
    for agent, deals, why in [(path, "100", "at least 2000 duplicate deals"), (path, "2000", "made for other rules"),
                              (big, "2000", "at most 1,000,000")]:
        with pytest.raises(SystemExit) as e:
            _add(agent, deals)
        assert e.value.code == 2 and why in capsys.readouterr().err
    assert empty_zoo.zoo_entries() == []


def test_zoo_add_writes_the_row_and_the_file_of_an_agent_that_clears_the_bar(empty_zoo, tmp_path, monkeypatch):
    """The bookkeeping, with the evaluation replaced by a result above the bar."""
    import training.evaluate as ev

    played = []

    def fake(rules, agent, opponent, deals, seed=0, progress=False):
        played.append((opponent, deals, seed))
        return ev.Matchup(opponent, deals, 0.5, -0.2, 0.7, 0.6, 0.8, 0.4, 0.1)

    monkeypatch.setattr(ev, "matchup", fake)
    path = _tiny_agent(tmp_path / "good.agent.safetensors", preset("president"))
    assert _add(path) == 0
    assert played == [("heuristic", 2000, 0), ("greedy", 2000, 0)]
    (row,) = empty_zoo.zoo_entries()
    assert row["file"] == "president.agent.safetensors" and row["timesteps"] == 7
    assert row["bytes"] == path.stat().st_size
    assert row["vs_heuristic"] == {"diff": 0.7, "low": 0.6, "high": 0.8, "deals": 2000}
    assert (empty_zoo.ZOO_DIR / row["file"]).read_bytes() == path.read_bytes()
    assert row["eval_command"] == ("president zoo-add --preset president --agent "
                                   "agents/zoo/president.agent.safetensors --deals 2000 --seed 0")
    # measuring it again in place keeps one row and the file
    assert _add(empty_zoo.ZOO_DIR / row["file"]) == 0
    assert len(empty_zoo.zoo_entries()) == 1


def test_a_second_generation_must_beat_the_first_and_both_stay(empty_zoo, tmp_path, monkeypatch, capsys):
    """``--generation 2``: the bookkeeping of a later generation, the evaluation replaced by chosen results."""
    import training.evaluate as ev

    played, beats_previous = [], [False]

    def fake(rules, agent, opponent, deals, seed=0, progress=False):
        played.append((opponent, deals, seed))
        if opponent == "zoo:president@1" and not beats_previous[0]:
            return ev.Matchup(opponent, deals, 0.0, 0.0, 0.01, -0.04, 0.06, 0.25, 0.25)
        return ev.Matchup(opponent, deals, 0.5, -0.2, 0.7, 0.6, 0.8, 0.4, 0.1)

    monkeypatch.setattr(ev, "matchup", fake)
    first = _tiny_agent(tmp_path / "first.agent.safetensors", preset("president"), seed=1)
    second = _tiny_agent(tmp_path / "second.agent.safetensors", preset("president"), seed=2)
    with pytest.raises(SystemExit) as e:          # no generation 1 yet
        _add(second, "2000", "--generation", "2")
    assert e.value.code == 2 and "--generation 2: no zoo agent 'president@1'" in capsys.readouterr().err
    assert _add(first) == 0
    with pytest.raises(SystemExit) as e:          # over a later generation's hour of training
        main(["zoo-add", "--preset", "president", "--agent", str(second), "--generation", "2", "--no-progress",
              "--train-command", "president train --preset president", "--train-minutes", "61"])
    assert e.value.code == 2 and "trains for at most 60 minutes" in capsys.readouterr().err
    played.clear()
    assert _add(second, "2000", "--generation", "2", "--seed", "31337") == 1      # level with generation 1
    assert played == [("heuristic", 2000, 31337), ("greedy", 2000, 31337), ("zoo:president@1", 2000, 31337)]
    assert "not added: it does not beat zoo:president@1" in capsys.readouterr().out
    assert len(empty_zoo.zoo_entries()) == 1
    beats_previous[0] = True
    assert _add(second, "2000", "--generation", "2", "--seed", "31337") == 0
    assert "added zoo:president (generation 2; zoo:president@1 stays)" in capsys.readouterr().out
    one, two = empty_zoo.zoo_entries()
    assert (one["file"], two["file"]) == ("president.agent.safetensors", "president.gen2.agent.safetensors")
    assert two["generation"] == 2 and two["vs_previous"]["low"] == 0.6 and "generation" not in one
    assert two["eval_command"].endswith("--seed 31337 --generation 2")
    assert empty_zoo.zoo_path("president").read_bytes() == second.read_bytes()
    assert empty_zoo.zoo_path("president@1").read_bytes() == first.read_bytes()
    table = markdown_table(empty_zoo.zoo_entries())
    assert "| `zoo:president@1` |" in table and "| `zoo:president` |" in table
    assert table.index("zoo:president@1") < table.index("| `zoo:president` |")
    # measuring generation 1 again keeps generation 2
    assert _add(empty_zoo.ZOO_DIR / "president.agent.safetensors") == 0
    assert [generation(r) for r in empty_zoo.zoo_entries()] == [1, 2]


def _sets(command: str) -> dict:
    """The ``--set NAME=VALUE`` settings of a ``president train`` command, as the CLI parses them."""
    import shlex

    from president_cli.train import _settings

    words = shlex.split(command)
    return _settings([w for k, w in zip(words[:-1], words[1:], strict=True) if k == "--set"])


@pytest.mark.parametrize("row", NEWEST, ids=[r["preset"] for r in NEWEST])
def test_the_settings_table_reproduces_each_zoo_agents_settings(row):
    """``president train --preset NAME`` with no ``--set`` trains with what made the zoo agent."""
    from training.hyperparams import learner_seats, settings_for

    def plain(s):
        return json.loads(json.dumps(vars(s)))    # tuples and lists alike

    assert plain(settings_for(row["preset"])) == plain(settings_for(row["preset"], **_sets(row["train_command"])))
    learner_seats(settings_for(row["preset"]), preset(row["preset"]).players)   # raises if the row's seats don't fit
