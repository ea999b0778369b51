"""``president train --method expert-iteration`` (training/expert_iteration.py).

A short run fits the network to the search's moves (the loss on an iteration's own data falls), writes agent files
that play legal moves in the arena, resumes where it stopped (same weights as an unbroken run, never over a later
iteration), is the same for the same seed, and refuses bad settings and flags that are not its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cli_run import run_cli  # noqa: E402
from positions import positions  # noqa: E402

from agents.agent_file import FileAgent, read_agent_file, write_agent_file  # noqa: E402
from agents.arena import run_tournament  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from president_env.core import n_actions, preset  # noqa: E402
from president_env.core import observation as O  # noqa: E402
from president_env.small_variants import variant_rules  # noqa: E402
from training import expert_iteration as ex  # noqa: E402
from training.imitation import collect  # noqa: E402

# tiny (3 players, 8 cards) keeps a session to a few dozen decisions: an iteration takes about a second
FAST = {"exit_decisions": 150, "exit_games": 2, "exit_search": "worlds=3,actions=2", "exit_epochs": 4,
        "exit_learning_rate": 1e-3, "exit_batch": 64}


def _net_file(path: Path, rules, seed: int = 0, hidden: int = 16) -> Path:
    """A small random network as an agent file (a start for --init that is quick to search with)."""
    rng = np.random.default_rng(seed)
    D, A = O.size(rules), n_actions(rules)
    layers = [(rng.normal(0, 0.3, (hidden, D)), np.zeros(hidden)), (rng.normal(0, 0.3, (A, hidden)), np.zeros(A))]
    return write_agent_file(path, rules, layers, made_by={"preset": rules.name})


def _args(tmp: Path, out: str, **kw) -> ex.ExitArgs:
    rules = variant_rules("tiny")
    init = tmp / "start.agent.safetensors"
    if not init.exists():
        _net_file(init, rules)
    base = dict(preset="tiny", out=str(tmp / out), iterations=2, init=str(init), final_deals=4, progress=False,
                settings=dict(FAST))
    base.update(kw)
    return ex.ExitArgs(**base)


def _state(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return load_file(str(path))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, ex.ExitResult]:
    tmp = tmp_path_factory.mktemp("exit")
    return tmp, ex.train_exit(_args(tmp, "run"))


def test_a_short_run_fits_the_search_moves_and_writes_agents_that_play(run) -> None:
    tmp, result = run
    out = tmp / "run"
    rows = json.loads((out / "final.json").read_text())
    assert result.iterations == rows["iterations"] == 2 and result.decisions >= 2 * FAST["exit_decisions"]
    curve = (out / "iterations.csv").read_text().splitlines()
    assert curve[0].startswith("iteration,decisions,") and [r.split(",")[0] for r in curve[1:]] == ["1", "2"]
    for line in curve[1:]:
        row = dict(zip(curve[0].split(","), line.split(","), strict=True))
        # the fit lowers the cross-entropy against the search's moves on the iteration's own data
        assert float(row["loss_after"]) < float(row["loss_before"]), row
        assert int(row["decisions"]) >= FAST["exit_decisions"]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        f"iter_{k}.{kind}.safetensors" for k in range(3) for kind in ("agent", "exit")]
    # the fit changed the network every iteration
    weights = [_state(out / "checkpoints" / f"iter_{k}.agent.safetensors")["action.weight"] for k in range(3)]
    assert not np.array_equal(weights[0], weights[1]) and not np.array_equal(weights[1], weights[2])
    # the agent file is an ordinary one: it says how it was made and plays legal moves (the core checks them)
    rules = variant_rules("tiny")
    meta, _ = read_agent_file(result.agent_path)
    assert meta["made_by"]["method"] == "expert-iteration" and meta["made_by"]["iteration"] == 2
    agent = FileAgent(result.agent_path, rules)
    res = run_tournament(rules, [agent, "greedy", "heuristic"], deals=3, seed=0, rating=False)
    assert res.entrants[0].hands > 0
    assert [m.opponent for m in result.final] == ["heuristic", "greedy"]
    assert "difference [95% CI]" in ex.format_result(result)


def test_the_same_seed_records_the_same_decisions_and_targets(run) -> None:
    tmp, _ = run
    rules = variant_rules("tiny")
    policy, _ = ex.load_checkpoint(str(tmp / "run" / "checkpoints" / "iter_1.exit.safetensors"), rules, seed=0)

    def decisions(seed: int):
        search = SearchAgent(rules, policy=ex.NetworkAgent(rules, policy), prior="policy", worlds=3, actions=2)
        return collect(rules, search, 100, 0.99, seed=ex.iteration_seed(seed, 2), batch_size=2)

    a, b, c = decisions(0), decisions(0), decisions(1)
    for field in ("obs", "masks", "actions", "returns"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.obs.shape != c.obs.shape or not np.array_equal(a.obs, c.obs)
    assert ex.iteration_seed(0, 1) != ex.iteration_seed(0, 2) != ex.iteration_seed(1, 2)


def test_a_resumed_run_goes_on_counting_and_ends_as_an_unbroken_one(run) -> None:
    tmp, unbroken = run
    first = ex.train_exit(_args(tmp, "broken", iterations=1, final_deals=0))
    assert first.iterations == 1 and first.final == []
    out = tmp / "broken"
    iter_1 = (out / "checkpoints" / "iter_1.exit.safetensors").read_bytes()
    resumed = ex.train_exit(_args(tmp, "broken", init=None, resume=str(out / "checkpoints" / "iter_1.exit.safetensors"),
                                  final_deals=0))
    assert resumed.iterations == 2
    assert (out / "checkpoints" / "iter_1.exit.safetensors").read_bytes() == iter_1    # not written again
    assert [line.split(",")[0] for line in (out / "iterations.csv").read_text().splitlines()[1:]] == ["1", "2"]
    # iteration 2 drew from (seed, 2) either way: the same games, the same fit, the same weights
    a, b = _state(tmp / "run" / "model.exit.safetensors"), _state(out / "model.exit.safetensors")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    # another seed is another run
    other = ex.train_exit(_args(tmp, "other", seed=1, iterations=1, final_deals=0))
    c = _state(other.checkpoint_path)
    assert not np.array_equal(c["action_net.weight"], _state(tmp / "run" / "checkpoints" / "iter_1.exit.safetensors")
                              ["action_net.weight"])
    # resuming iteration 1 into the folder that holds iteration 2 would write over it: refused
    with pytest.raises(ex.CheckpointError, match="write over iterations 2..2"):
        ex.train_exit(_args(tmp, "broken", init=None, resume=str(out / "checkpoints" / "iter_1.exit.safetensors"),
                            iterations=3))
    assert not (out / "checkpoints" / "iter_3.exit.safetensors").exists()


def test_without_init_a_warm_start_and_minutes_bound_the_run(tmp_path) -> None:
    settings = dict(FAST, imitation_decisions=200, imitation_epochs=1, net_arch=[16])
    result = ex.train_exit(_args(tmp_path, "budget", init=None, iterations=10_000, minutes=0.15, final_deals=50,
                                 settings=settings))
    assert 1 <= result.iterations < 10_000            # iterations ran, and the budget ended them
    assert result.seconds < 0.15 * 60 + 15, result.seconds   # the plan keeps the time (with slack for a busy machine)
    assert result.final and all(m.deals <= 50 for m in result.final)
    meta, _ = read_agent_file(tmp_path / "budget" / "checkpoints" / "iter_0.agent.safetensors")
    assert meta["architecture"]["hidden"] == [16]     # the new network of net_arch, warm-started


def test_resume_refuses_an_agent_file_and_a_checkpoint_of_other_rules(run) -> None:
    tmp, result = run
    with pytest.raises(ex.CheckpointError, match="an agent file starts a run with --init"):
        ex.load_checkpoint(str(result.agent_path), variant_rules("tiny"), seed=0)
    with pytest.raises(ex.CheckpointError, match="other rules"):
        ex.load_checkpoint(str(result.checkpoint_path), preset("president"), seed=0)
    (tmp / "junk.exit.safetensors").write_bytes(b"not a checkpoint at all")
    with pytest.raises(ex.CheckpointError, match="not a readable checkpoint"):
        ex.load_checkpoint(str(tmp / "junk.exit.safetensors"), variant_rules("tiny"), seed=0)


def test_init_reads_the_policy_of_an_agent_file_exactly(tmp_path) -> None:
    rules = preset("president")
    policy = ex.policy_from_agent_file(rules, "zoo:president", seed=0)
    zoo = FileAgent(Path(__file__).resolve().parent.parent / "agents" / "zoo" / "president.agent.safetensors", rules)
    obs = np.random.default_rng(0).random((5, O.size(rules)), dtype=np.float32)
    assert np.allclose(ex.NetworkAgent(rules, policy).logits(obs), zoo.logits(obs), atol=1e-5)


# ------------------------------------------------------------------------------------------------ the command line
def _cli(out: Path, init: Path | str, *extra: str) -> list[str]:
    argv = ["train", "--method", "expert-iteration", "--out", str(out), "--init", str(init), "--final-deals", "0",
            "--no-progress", "--set", "exit_games=1", "--set", "exit_decisions=50", "--set", "exit_epochs=1",
            "--set", 'exit_search="worlds=2,actions=2"']
    return argv + list(extra)


@pytest.mark.parametrize("extra, words", [
    (["--timesteps", "1000"], "does not take --timesteps: it counts iterations"),
    (["--checkpoint-every", "2", "--eval-deals", "5"], "--checkpoint-every: every iteration is saved"),
    (["--backend", "rllib"], "--backend rllib runs PPO"),
    (["--env-runners", "2"], "--env-runners: --backend rllib only"),
    (["--resume", "x.exit.safetensors"], "--init starts a run and --resume continues one"),
    (["--set", 'exit_search="worlds=2,prior=random"'], "setting exit_search='worlds=2,prior=random': prior='random' "
                                                      "must be policy"),
    (["--set", 'exit_search="worlds=2,fallback=heuristic"'], "setting exit_search='worlds=2,fallback=heuristic': "
                                                            "fallback cannot be set"),
    (["--set", 'exit_search="worlds=0"'], "search setting worlds must be 1..4096"),
    (["--set", "exit_epochs=0"], "setting exit_epochs=0: expected an integer 1..1000"),
    (["--set", "exit_learning_rate=2"], "setting exit_learning_rate=2: expected a finite number 1e-12..1"),
    (["--set", "exit_games=0"], "setting exit_games=0: expected an integer 1..4096"),
])
def test_flags_and_settings_that_do_not_apply_are_refused_before_any_work(extra, words, tmp_path, capsys):
    code, err = run_cli(_cli(tmp_path / "o", tmp_path / "none.agent.safetensors", *extra), capsys)
    assert code == 2 and words in err, err
    assert not (tmp_path / "o").exists()


def test_a_missing_init_file_is_named(tmp_path, capsys):
    code, err = run_cli(_cli(tmp_path / "o", tmp_path / "none.agent.safetensors"), capsys)
    assert code == 2 and "none.agent.safetensors" in err and "not found" in err
    assert not (tmp_path / "o").exists()


def test_ctrl_c_keeps_the_finished_iterations_and_the_run_resumes(tmp_path, monkeypatch, capsys):
    init = "zoo:president"          # a network that ends its sessions soon: one iteration takes a few seconds

    def interrupted(*a, **kw):
        raise KeyboardInterrupt     # Ctrl-C in iteration 1's self-play: iteration 0 (the --init network) is saved

    real = ex._iteration
    monkeypatch.setattr(ex, "_iteration", interrupted)
    out = tmp_path / "run"
    code, err = run_cli(_cli(out, init, "--iterations", "1"), capsys)
    last = out / "checkpoints" / "iter_0.exit.safetensors"
    assert code == 130 and "interrupted in iteration 1" in err and f"--resume {last}" in err, err
    assert "without --init" in err and not (out / "model.agent.safetensors").exists()
    monkeypatch.setattr(ex, "_iteration", real)
    argv = [a for a in _cli(out, init, "--iterations", "1", "--resume", str(last))
            if a not in ("--init", init, "--no-progress")]
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    # with progress: a line at once, then one per iteration with its loss and accuracy before and after the fit
    assert err.startswith("president train --method expert-iteration: president, 1 iteration(s)"), err[:200]
    line = next(x for x in err.replace("\r", "\n").splitlines() if x.startswith("iteration 1/1: "))
    assert "search decisions" in line and "loss " in line and " -> " in line and "accuracy" in line, line
    assert json.loads((out / "final.json").read_text())["iterations"] == 1
    assert [line.split(",")[0] for line in (out / "iterations.csv").read_text().splitlines()[1:]] == ["1"]
    meta, _ = read_agent_file(out / "model.agent.safetensors")
    assert meta["made_by"]["iteration"] == 1 and "--resume" in meta["made_by"]["command"]


def test_the_search_takes_the_networks_candidates_or_the_default_ones_after_its_move() -> None:
    from training.hyperparams import settings_for

    rules = preset("president")
    assert ex.search_settings(settings_for("president"), rules)["prior"] == "policy"
    kwargs = ex.search_settings(settings_for("president", exit_search="worlds=2,actions=3,prior=heuristic"), rules)
    assert kwargs == {"worlds": 2, "actions": 3, "prior": "heuristic"}
    network = ex.NetworkAgent(rules, ex.policy_from_agent_file(rules, "zoo:president", seed=0))
    search = SearchAgent(rules, policy=network, fallback="policy", **kwargs)     # as an iteration builds it
    assert search.fallback is network and search.prior == "heuristic"
    obs, mask = positions(rules, 48, seed=3)
    first = [c[0] for c in search._candidates(obs, mask, network.act(obs, mask, np.random.default_rng(0)),
                                              np.random.default_rng(0))]
    assert first == network.act(obs, mask, np.random.default_rng(0)).tolist()



def test_a_belief_search_teacher_is_handed_each_players_plays_and_deals_from_its_belief() -> None:
    """``collect`` hands a teacher with a weighted belief each player's view of the hand's plays, so its searched
    decisions after a hand's first play are dealt from the belief (without the plays they would all be uniform);
    the same seed records the same decisions."""
    rules = variant_rules("tiny")

    def record(seed: int):
        teacher = SearchAgent(rules, worlds=3, actions=2, belief="heuristic", proposals=8)
        demos = collect(rules, teacher, 60, 0.99, seed=seed, batch_size=2)
        return teacher, demos

    teacher, demos = record(5)
    assert len(demos.actions) >= 60 and 0 < teacher.stats.believed <= teacher.stats.searched
    again = record(5)[1]
    np.testing.assert_array_equal(demos.actions, again.actions)
    np.testing.assert_array_equal(demos.obs, again.obs)


def test_expert_iteration_takes_a_networks_belief_and_names_a_bad_one() -> None:
    from training.hyperparams import settings_for

    rules = preset("president")
    kwargs = ex.search_settings(settings_for("president", exit_search="worlds=2,belief=zoo:president"), rules)
    search = SearchAgent(rules, policy="heuristic", **{k: v for k, v in kwargs.items() if k != "prior"})
    assert search.belief_model is not None and search.belief_name == "zoo:president"
    with pytest.raises(ValueError, match="exit_search='worlds=2,belief=zoo:nothing'.*nothing"):
        ex.search_settings(settings_for("president", exit_search="worlds=2,belief=zoo:nothing"), rules)
