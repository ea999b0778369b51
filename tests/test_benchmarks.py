"""The benchmark scripts run and report rows of the documented shape (no timing is asserted)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


def test_bench_core_reports_one_row_per_preset_and_batch(capsys, monkeypatch) -> None:
    bench = _load("bench_core")
    monkeypatch.setattr(bench, "one_core", lambda: None)  # do not pin the test process to one core
    rows = bench.main(["--presets", "president,daifugo", "--batches", "4", "--seconds", "0.05",
                                     "--json"])
    assert [(r["preset"], r["batch"]) for r in rows] == [("president", 0), ("president", 4), ("daifugo", 0),
                                                          ("daifugo", 4)]
    assert all(r["decisions_per_s"] > 0 for r in rows)
    assert all(r["step_only_per_s"] >= r["decisions_per_s"] for r in rows)   # the step is part of the loop
    assert '"decisions_per_s"' in capsys.readouterr().out


def test_bench_core_chooses_the_legal_id_of_the_largest_priority() -> None:
    """``choose`` is NumPy's ``(priority * legal).argmax(axis=1)`` with game b on priority row (7 b + call) % rows:
    a legal action, the first of the largest priority (id 0 where nothing is legal, as argmax)."""
    import numpy as np

    bench = _load("bench_core")
    rng = np.random.default_rng(3)
    for ids, call in ((7, 0), (2606, 5), (100, 63)):
        legal = (rng.random((50, ids)) < 0.05).astype(np.uint8)
        legal[0] = 0                                           # no legal id
        priorities = rng.integers(1, 256, (64, ids), dtype=np.uint8)
        rows = priorities[(7 * np.arange(50) + call) % 64]
        chosen = bench.choose(legal, priorities, call, np.zeros(50, dtype=np.int64))
        assert (chosen == (rows * legal).argmax(axis=1)).all()
        assert chosen[0] == 0 and all(legal[b, chosen[b]] for b in range(1, 50) if legal[b].any())


def test_bench_training_reports_one_row_per_seat_count(capsys, monkeypatch) -> None:
    pytest.importorskip("sb3_contrib")
    bench = _load("bench_training")
    monkeypatch.setattr(bench, "one_core", lambda: None)
    rows = bench.main(["--seats", "1,4", "--decisions", "1500", "--set", "n_envs=16", "--set", "n_steps=32",
                       "--set", "batch_size=256", "--set", "net_arch=[32]", "--json"])
    assert [r["seats"] for r in rows] == [1, 4]
    assert all(r["decisions"] >= 1500 and r["decisions_per_s"] > 0 for r in rows)
    assert '"decisions_per_s"' in capsys.readouterr().out


@pytest.mark.slow
def test_bench_rllib_reports_sb3_and_one_row_per_runner_count(capsys, monkeypatch) -> None:
    """Slow (starts Ray twice): ``pytest -m slow tests/test_benchmarks.py``."""
    pytest.importorskip("ray")
    pytest.importorskip("sb3_contrib")
    bench = _load("bench_rllib")
    monkeypatch.setattr(bench, "one_core", lambda: None)
    rows = bench.main(["--runners", "0,1", "--iterations", "1", "--train-batch", "256", "--sb3-decisions", "1000",
                       "--set", "minibatch=128", "--set", "hidden=[16]", "--set", "envs_per_runner=4", "--json"])
    assert [r["path"] for r in rows] == ["sb3", "rllib_0", "rllib_1"]
    assert all(r["decisions"] > 0 and r["decisions_per_s"] > 0 for r in rows)
    assert rows[2]["sample_s"] > 0 and rows[2]["learn_s"] > 0


def test_bench_envs_times_the_gymnasium_vector_env_beside_the_vecenv() -> None:
    pytest.importorskip("sb3_contrib")
    bench = _load("bench_envs")
    vec, gym_vector = bench.bench_vec_pair(8, 0.2, rounds=2)
    assert vec > 0 and gym_vector > 0


def test_bench_openspiel_reports_president_beside_openspiels_python_games(capsys, monkeypatch) -> None:
    pytest.importorskip("pyspiel", reason='OpenSpiel is not installed: pip install -e ".[openspiel]"')
    bench = _load("bench_openspiel")
    monkeypatch.setattr(bench, "one_core", lambda: None)
    rows = bench.main(["--games", "python_kuhn_poker,president(preset=micro,pass_rule=locks_out)", "--seconds", "0.05",
                       "--json"])
    assert [r["game"] for r in rows] == ["python_kuhn_poker", "president(preset=micro,pass_rule=locks_out)"]
    assert rows[0]["ratio"] == 1.0 and all(r["states_per_s"] > 0 for r in rows)
    assert '"states_per_s"' in capsys.readouterr().out


def test_bench_nash_conv_reports_both_engines_and_their_ratio(capsys, monkeypatch) -> None:
    pytest.importorskip("pyspiel")
    bench = _load("bench_nash_conv")
    monkeypatch.setattr(bench, "one_core", lambda: None)
    rows = bench.main(["--variants", "micro", "--openspiel", "micro", "--agent", "greedy", "--repeat", "1", "--json"])
    assert [(r["variant"], r["engine"]) for r in rows] == [("micro", "compiled"), ("micro", "openspiel")]
    assert rows[0]["decisions"] == 8262 and rows[0]["information_states"] == 348
    assert abs(rows[0]["nash_conv"] - 0.8) < 1e-9 and rows[1]["difference"] < 1e-9
    assert rows[1]["ratio"] > 0 and '"nash_conv"' in capsys.readouterr().out


def test_bench_belief_reports_one_row_per_table_and_belief(capsys) -> None:
    bench = _load("bench_belief")
    rows = bench.main(["--presets", "president", "--players", "heuristic", "--beliefs", "heuristic",
                       "--games", "2", "--proposals", "16", "--seed", "7"])
    assert [(r["preset"], r["players"], r["belief"]) for r in rows] == [("president", "heuristic", "heuristic")]
    r = rows[0]
    assert r["decisions"] > 0 and r["uniform"] < 0 and r["weighted"] < 0 and 1 <= r["ess"] <= 16
    assert r["difference"] == pytest.approx(r["weighted"] - r["uniform"])
    assert "| president | heuristic | heuristic |" in capsys.readouterr().out


def test_pair_agents_pairs_the_specs_by_deal(capsys) -> None:
    """The same deals for every spec: a deterministic spec twice differs from itself by exactly 0 on every deal."""
    bench = _load("pair_agents")
    diffs = bench.main(["--preset", "president", "--against", "random", "--deals", "6", "--seed", "3",
                        "--specs", "heuristic;greedy;heuristic", "--no-progress"])
    assert len(diffs) == 3 and all(d.shape == (6,) for d in diffs)
    assert (diffs[2] == diffs[0]).all() and (diffs[1] != diffs[0]).any()
    assert diffs[0].mean() > 0                       # the heuristic beats three random players
    out = capsys.readouterr().out
    assert out.count("| `") == 3 and "+0.000 [+0.000, +0.000]" in out
    with pytest.raises(SystemExit):
        bench.main(["--preset", "president", "--against", "random", "--specs", ";"])


def test_belief_decisions_seeds_each_decision_and_plays_legal_moves(capsys) -> None:
    """Each decision's moves come from its own generator (a spec given twice decides the same), are legal, and the
    table has one row per spec."""
    import numpy as np

    bench = _load("belief_decisions")
    spec = "search:worlds=2,actions=3,z=0"                  # z=0: the rollouts decide, so the generator matters
    out = bench.main(["--preset", "president", "--players", "heuristic", "--games", "3", "--seed", "5",
                      "--specs", f"{spec};{spec},belief=heuristic;{spec}"])
    assert len(out) == 3 and all(len(draws) == 2 for draws in out)
    assert (out[2][0] == out[0][0]).all() and (out[2][1] == out[0][1]).all()
    rules = bench.preset("president").replace(hands_per_session=1)
    hists, obs, legal, played, game = bench.collect(rules, "heuristic", 3, 5)
    assert len(hists) == len(out[0][0]) > 0 and (legal.sum(axis=1) > 1).all()
    for draws in out:
        for moves in draws:
            assert legal[np.arange(len(moves)), moves].all()
    assert all(len(h) > 0 for h in hists)                   # after the hand's first play
    agent = bench.make_agent(f"{spec},belief=heuristic", rules)
    assert (out[1][0] != out[1][1]).any()                  # the two draws are not the same generator
    for i in range(len(hists)):                             # decision i alone, with its generator [seed, draw, i]
        alone = agent.act_with_history(obs[i:i + 1], legal[i:i + 1], np.random.default_rng([5, 1, i]), [hists[i]])
        assert alone[0] == out[1][1][i]
    text = capsys.readouterr().out
    assert text.count("| `search:") == 3
    got = bench.different_worlds(rules, "heuristic", hists, obs, [4, 12], 32, 5)
    for n in (4, 12):                       # distinct draws hold at least as many different worlds, at most n
        assert got[f"systematic {n}"] <= got[f"distinct {n}"] <= n
    assert got["systematic 12"] < got["distinct 12"] and 1 <= got["ess"] <= 32
    with pytest.raises(SystemExit):
        bench.main(["--preset", "president", "--players", "heuristic", "--specs", "heuristic"])
    with pytest.raises(SystemExit):                         # --different needs --belief
        bench.main(["--preset", "president", "--players", "heuristic", "--different", "4", "--specs", spec])
