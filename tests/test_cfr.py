"""CFR+ (agents.cfr): the average policy's NashConv by the independent exact best response (agents.nash_conv),
the ``cfr:`` agent and its file, and ``president cfr``'s errors. tiny_revolution runs only with ``-m slow``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from test_nash_conv import _hand_tree

from agents.cfr import CfrAgent, CfrFileError, observation_key, read_cfr_file, solve, write_cfr_file
from agents.nash_conv import game_tree, nash_conv_of_agents, nash_conv_of_behaviour
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from president_env.small_variants import small_variant


@pytest.fixture(scope="module")
def micro_solved():
    """CFR+ on micro, 512 iterations (a fraction of a second once compiled)."""
    return solve(small_variant("micro"), iterations=512, every=128)


def test_cfr_on_the_hand_game_reaches_its_equilibrium() -> None:
    """The two-player betting game of test_nash_conv: uniform play is exploitable, CFR+'s average is not."""
    tree = _hand_tree()
    uniform = np.where(tree.parent >= 0, 0.5, 1.0)
    assert nash_conv_of_behaviour(tree, uniform).nash_conv > 0.1
    res = solve(tree.rules, iterations=2000, every=1000, tree=tree)
    assert [p.iteration for p in res.curve] == [1000, 2000]
    assert nash_conv_of_behaviour(tree, res.child_prob()).nash_conv < 1e-3
    # at the equilibrium player 0 always bets the high card and bluffs the low one a third of the time,
    # player 1 calls a bet two thirds of the time: player 0's value is 1/3
    pol = res.average_policy()
    assert pol[res.iset_off[0] + 1] == pytest.approx(1.0, abs=1e-3)
    assert pol[res.iset_off[1] + 1] == pytest.approx(1 / 3, abs=1e-2)
    assert pol[res.iset_off[2] + 1] == pytest.approx(2 / 3, abs=1e-2)


def test_cfr_on_micro_reaches_nash(micro_solved) -> None:
    res = micro_solved
    assert [p.iteration for p in res.curve] == [128, 256, 384, 512]
    assert res.curve[0].nash_conv > res.curve[-1].nash_conv
    fresh = game_tree(small_variant("micro"))               # an independent tree and best response
    child_prob = np.ones(fresh.n_nodes)
    nonroot = fresh.parent >= 0
    pol = res.average_policy()
    child_prob[nonroot] = pol[res.iset_off[fresh.infoset[fresh.parent[nonroot]]] + fresh.child_slot[nonroot]]
    nc = nash_conv_of_behaviour(fresh, child_prob).nash_conv
    assert nc < 1e-3
    assert nc == pytest.approx(res.curve[-1].nash_conv, abs=1e-12)
    # and the start is far from it: one iteration is the uniform policy
    assert solve(small_variant("micro"), iterations=1).curve[-1].nash_conv > 1.0


def test_cfr_agent_round_trip_and_its_nash_conv(micro_solved, tmp_path: Path) -> None:
    rules = small_variant("micro")
    path = write_cfr_file(tmp_path / "m.cfr.safetensors", micro_solved)
    meta, keys, probs = read_cfr_file(path, rules)
    assert meta["variant"] == "micro" and meta["iterations"] == 512 and len(keys) == meta["keys"]
    assert np.allclose(probs.sum(axis=1), 1.0)
    agent = make_agent(f"cfr:{path}", rules)
    assert isinstance(agent, CfrAgent)
    # the agent plays the file's table: each query of the tree is found
    tree = micro_solved.tree
    p = agent.action_probabilities(tree.query_obs, tree.query_mask)
    assert agent.misses == 0 and np.allclose(p.sum(axis=1), 1.0) and not (p[~tree.query_mask] > 0).any()
    res = nash_conv_of_agents(rules, [agent] * 3)
    assert res.nash_conv < 1e-3
    # sampled actions are legal and follow the probabilities
    row = int(np.argmax((p > 0.2).sum(axis=1)))             # a row with two likely actions
    obs = np.repeat(tree.query_obs[row:row + 1], 4000, axis=0)
    mask = np.repeat(tree.query_mask[row:row + 1], 4000, axis=0)
    acts = agent.act(obs, mask, np.random.default_rng(0))
    assert mask[0, acts].all()
    freq = np.bincount(acts, minlength=mask.shape[1]) / len(acts)
    assert np.abs(freq - p[row]).max() < 0.05
    # an observation the file lacks: uniform over the legal actions, counted
    strange = tree.query_obs[:1] + 7.0
    assert np.allclose(agent.action_probabilities(strange, tree.query_mask[:1]),
                       tree.query_mask[:1] / tree.query_mask[:1].sum())
    assert agent.misses == 1
    assert observation_key(tree.query_obs[0], tree.query_mask[0]) != observation_key(strange[0], tree.query_mask[0])


def test_cfr_file_refusals(micro_solved, tmp_path: Path) -> None:
    rules = small_variant("micro")
    path = write_cfr_file(tmp_path / "m.cfr.safetensors", micro_solved)
    with pytest.raises(CfrFileError, match=r"made for other rules \(preset 'micro'\).*preset 'tiny'"):
        make_agent(f"cfr:{path}", small_variant("tiny"))
    raw = path.read_bytes()
    (tmp_path / "short").write_bytes(raw[:5])
    with pytest.raises(CfrFileError, match="too short"):
        CfrAgent(tmp_path / "short", rules)
    (tmp_path / "cut").write_bytes(raw[:len(raw) // 2])
    with pytest.raises(CfrFileError, match="corrupt"):
        CfrAgent(tmp_path / "cut", rules)
    (tmp_path / "junk").write_bytes(b"\xff" * 100)
    with pytest.raises(CfrFileError, match="no safetensors header"):
        CfrAgent(tmp_path / "junk", rules)
    with pytest.raises(CfrFileError, match="no such cfr file"):
        make_agent(f"cfr:{tmp_path / 'missing'}", rules)
    with pytest.raises(ValueError, match="needs a cfr file"):
        make_agent("cfr:", rules)
    # probabilities that are not distributions: refused
    from safetensors.numpy import save

    n = int.from_bytes(raw[:8], "little")
    meta = json.loads(raw[8:8 + n])["__metadata__"]
    _, keys, probs = read_cfr_file(path, rules)
    (tmp_path / "bad").write_bytes(save({"keys": keys, "probs": probs * 2}, metadata=meta))
    with pytest.raises(CfrFileError, match="not a probability distribution"):
        CfrAgent(tmp_path / "bad", rules)
    (tmp_path / "other").write_bytes(save({"keys": keys, "probs": probs}, metadata={"x": "{}"}))
    with pytest.raises(CfrFileError, match="no 'president-cfr' metadata"):
        CfrAgent(tmp_path / "other", rules)


def test_solve_refuses_bad_arguments() -> None:
    rules = small_variant("micro")
    with pytest.raises(ValueError, match="iterations or seconds"):
        solve(rules)
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        solve(rules, iterations=0)
    with pytest.raises(ValueError, match="every must be a positive integer"):
        solve(rules, iterations=2, every=0)
    with pytest.raises(ValueError, match="cut to a profile"):
        solve(rules, iterations=1, tree=game_tree(rules, [RandomAgent(rules)] * 3))


def test_solve_by_seconds_stops() -> None:
    res = solve(small_variant("micro"), seconds=0.5, every=50)
    assert res.iterations >= 1 and res.curve[-1].iteration == res.iterations


def test_cli_cfr(tmp_path: Path, capsys) -> None:  # noqa: ANN001 - pytest's capsys fixture
    out = tmp_path / "m.cfr.safetensors"
    code, _ = run_cli(["cfr", "--preset", "micro", "--iterations", "64", "--out", str(out)], capsys)
    assert code == 0 and out.is_file()
    code, err = run_cli(["cfr", "--preset", "micro", "--iterations", "64", "--out", str(out)], capsys)
    assert code == 2 and "exists; pass --force" in err
    code, _ = run_cli(["cfr", "--preset", "micro", "--iterations", "4", "--every", "2", "--out", str(out),
                       "--force"], capsys)
    assert code == 0 and read_cfr_file(out, small_variant("micro"))[0]["iterations"] == 4
    code, err = run_cli(["cfr", "--preset", "president", "--iterations", "4", "--out", str(tmp_path / "p")], capsys)
    assert code == 2 and "needs a small variant" in err
    code, err = run_cli(["cfr", "--preset", "micro", "--iterations", "0", "--out", str(tmp_path / "z")], capsys)
    assert code == 2 and "positive integer" in err
    code, err = run_cli(["cfr", "--preset", "micro", "--iterations", "4", "--seconds", "2", "--out",
                         str(tmp_path / "z")], capsys)
    assert code == 2 and "not allowed with" in err
    code, err = run_cli(["exploitability", "--preset", "tiny", "--agents", f"cfr:{out}"], capsys)
    assert code == 2 and "preset 'micro'" in err


def test_cli_cfr_prints_the_curve(tmp_path: Path, capsys) -> None:  # noqa: ANN001 - pytest's capsys fixture
    from president_cli.main import main

    assert main(["cfr", "--preset", "micro", "--iterations", "8", "--out", str(tmp_path / "m")]) == 0
    text = capsys.readouterr().out
    rows = [r for r in map(str.split, text.splitlines()) if len(r) == 3 and r[0].isdigit()]
    assert [int(r[0]) for r in rows] == [1, 2, 4, 8]
    assert float(rows[0][2]) > float(rows[-1][2])


@pytest.mark.slow
def test_cfr_on_tiny_revolution_beats_the_heuristic_a_hundredfold(tmp_path: Path) -> None:
    """NashConv of the average policy below 1% of the heuristic's (1.907) within 64 iterations, then the agent's."""
    rules = small_variant("tiny_revolution")
    res = solve(rules, iterations=64, every=32)
    assert res.curve[-1].nash_conv < 0.019
    agent = CfrAgent(write_cfr_file(tmp_path / "t.cfr.safetensors", res), rules)
    assert nash_conv_of_agents(rules, [agent] * 3).nash_conv < 0.05      # 0.016 measured: aliased observations


# --------------------------------------------------------------------------- MCCFR (external sampling)
def test_mccfr_on_the_hand_game_reaches_its_equilibrium() -> None:
    """Sampled walks find the betting game's equilibrium too: the bluff a third of the time, the call two thirds."""
    tree = _hand_tree()
    res = solve(tree.rules, iterations=40_000, every=20_000, tree=tree, algorithm="mccfr", seed=1)
    assert res.algorithm == "mccfr" and [p.iteration for p in res.curve] == [20_000, 40_000]
    assert res.curve[-1].nash_conv < 0.02
    pol = res.average_policy()
    assert pol[res.iset_off[0] + 1] == pytest.approx(1.0, abs=0.02)
    assert pol[res.iset_off[1] + 1] == pytest.approx(1 / 3, abs=0.05)
    assert pol[res.iset_off[2] + 1] == pytest.approx(2 / 3, abs=0.05)


def test_mccfr_on_micro_converges_and_is_seeded(tmp_path: Path) -> None:
    rules = small_variant("micro")
    tree = game_tree(rules)
    a = solve(rules, iterations=20_000, every=2_000, tree=tree, algorithm="mccfr", seed=7)
    assert a.curve[0].nash_conv > a.curve[-1].nash_conv and a.curve[-1].nash_conv < 0.01
    b = solve(rules, iterations=20_000, every=2_000, tree=tree, algorithm="mccfr", seed=7)
    assert np.array_equal(a.avg_sum, b.avg_sum) and np.array_equal(a.regret, b.regret)     # same seed, same run
    c = solve(rules, iterations=20_000, every=20_000, tree=tree, algorithm="mccfr", seed=8)
    assert not np.array_equal(a.avg_sum, c.avg_sum)                                          # another seed
    agent = CfrAgent(write_cfr_file(tmp_path / "m.cfr.safetensors", a), rules)
    assert agent.meta["algorithm"] == "mccfr" and agent.meta["iterations"] == 20_000
    assert nash_conv_of_agents(rules, [agent] * 3).nash_conv == pytest.approx(a.curve[-1].nash_conv, abs=1e-9)


def test_mccfr_refuses_bad_arguments() -> None:
    rules = small_variant("micro")
    with pytest.raises(ValueError, match="algorithm must be one of cfr\\+, mccfr"):
        solve(rules, iterations=1, algorithm="dcfr")
    for seed in (-1, 2**32, 1.5, True):
        with pytest.raises(ValueError, match="seed must be an integer"):
            solve(rules, iterations=1, algorithm="mccfr", seed=seed)


def test_cli_cfr_mccfr(tmp_path: Path, capsys) -> None:  # noqa: ANN001 - pytest's capsys fixture
    out = tmp_path / "m.cfr.safetensors"
    code, _ = run_cli(["cfr", "--preset", "micro", "--iterations", "4096", "--algorithm", "mccfr", "--seed", "3",
                       "--out", str(out)], capsys)
    assert code == 0 and read_cfr_file(out, small_variant("micro"))[0]["algorithm"] == "mccfr"
    for bad in (["--seed", "-1"], ["--seed", "x"], ["--algorithm", "dcfr"]):
        code, err = run_cli(["cfr", "--preset", "micro", "--iterations", "4", "--out", str(tmp_path / "z"), *bad],
                            capsys)
        assert code == 2 and bad[0] in err and not (tmp_path / "z").exists()


def test_cfr_agent_nash_conv_is_the_same_by_openspiel(tmp_path: Path) -> None:
    """OpenSpiel's best response reads the cfr: agent's probabilities too (not its sampled choice)."""
    pytest.importorskip("pyspiel", reason='OpenSpiel is not installed: pip install -e ".[openspiel]"')
    from agents.exploitability import nash_conv_of_agents as openspiel_nash_conv

    rules = small_variant("micro")
    res = solve(rules, iterations=6)                     # a stochastic policy, far from pure
    agent = CfrAgent(write_cfr_file(tmp_path / "m.cfr.safetensors", res), rules)
    ours = nash_conv_of_agents(rules, [agent] * 3)
    theirs = openspiel_nash_conv(rules, [agent] * 3)
    assert 0.01 < ours.nash_conv
    assert ours.nash_conv == pytest.approx(theirs.nash_conv, abs=1e-9)
    assert ours.gains == pytest.approx(theirs.gains, abs=1e-9)


def _ctrl_c(point) -> None:  # noqa: ANN001 - a CfrPoint
    """A progress callback that presses Ctrl-C at the first point of the curve."""
    import os
    import signal

    if point.iteration == 1:
        os.kill(os.getpid(), signal.SIGINT)


def test_ctrl_c_stops_the_solve_between_chunks_with_its_work_whole(tmp_path: Path) -> None:
    import signal

    rules = small_variant("micro")
    before = signal.getsignal(signal.SIGINT)
    for algorithm in ("cfr+", "mccfr"):
        res = solve(rules, iterations=10**9, algorithm=algorithm, progress=_ctrl_c)
        assert res.interrupted and res.iterations == 1 and [p.iteration for p in res.curve] == [1]
        assert signal.getsignal(signal.SIGINT) is before              # the handler is given back
        # the iterations done are all there: a solve of exactly that many gives the same sums
        again = solve(rules, iterations=res.iterations, algorithm=algorithm)
        assert not again.interrupted and np.array_equal(again.avg_sum, res.avg_sum)
    assert not solve(rules, iterations=3).interrupted


def test_cli_cfr_ctrl_c_writes_the_policy_so_far(tmp_path: Path, capsys, monkeypatch) -> None:  # noqa: ANN001
    import agents.cfr as cfr

    measure = cfr._measure

    def measure_then_ctrl_c(res, solving, progress):  # noqa: ANN001, ANN202
        measure(res, solving, progress)
        _ctrl_c(res.curve[-1])

    monkeypatch.setattr(cfr, "_measure", measure_then_ctrl_c)
    out = tmp_path / "m.cfr.safetensors"
    code, err = run_cli(["cfr", "--preset", "micro", "--seconds", "600", "--out", str(out)], capsys)
    assert code == 130 and "interrupted (Ctrl-C) after 1 iterations" in err and str(out) in err
    meta = read_cfr_file(out, small_variant("micro"))[0]
    assert meta["iterations"] == 1 and meta["nash_conv"] == pytest.approx(2.225, abs=1e-3)
