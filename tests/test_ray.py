"""The Ray path: multi-agent PPO on RLlib (train, checkpoint, export, play), masking, ``evaluate --ray``.

Ray runs in local mode with one CPU (started once for the module, shut down at the end).
The RLlib run is tiny (two iterations of 256 decisions, a 32-unit network): it checks
the plumbing, not learning.
"""

from __future__ import annotations

import builtins
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from positions import positions

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from agents.agent_file import FileAgent, read_agent_file  # noqa: E402
from agents.arena import run_tournament  # noqa: E402
from president_cli.main import main  # noqa: E402
from president_env.core import preset  # noqa: E402
from training.ray_cluster import RayUnavailable, check_reachable  # noqa: E402
from training.ray_evaluate import ray_tournament  # noqa: E402
from training.rllib_train import (  # noqa: E402
    RllibTrainArgs,
    _export_all,
    build_config,
    module_ids,
    rllib_settings,
    train_rllib,
)

TINY = {"hidden": [32, 32], "train_batch": 256, "minibatch": 128, "epochs": 1, "envs_per_runner": 8}
UNREACHABLE = "127.0.0.1:1"     # nothing listens on port 1 of this machine: refused at once


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def trained(local_ray, tmp_path_factory):
    """Two PPO iterations with one remote EnvRunner, a checkpoint each iteration, the final export."""
    out = tmp_path_factory.mktemp("rllib")
    args = RllibTrainArgs(preset="president", timesteps=10**9, iterations=2, out=str(out), env_runners=1,
                          checkpoint_every=1, final_deals=2, progress=False, settings=dict(TINY))
    return train_rllib(args), out


# --------------------------------------------------------------------------- training on RLlib
def test_train_checkpoints_and_exports(trained):
    result, out = trained
    assert result.iterations == 2 and result.timesteps >= 2 * TINY["train_batch"]
    assert (out / "checkpoints" / "iter_1").is_dir() and (out / "checkpoints" / "iter_1.agent.safetensors").is_file()
    assert (result.checkpoint_path / "learner_group").is_dir() and result.seat_agents == []
    rows = (out / "progress.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("iteration,decisions")
    meta, tensors = read_agent_file(result.agent_path)
    assert meta["made_by"]["backend"] == "rllib" and "--backend rllib" in meta["made_by"]["command"]
    assert meta["architecture"]["hidden"] == [32, 32] and tensors["action.weight"].shape == (53, 32)
    assert [m.opponent for m in result.final] == ["heuristic", "greedy"]
    assert json.loads((out / "final.json").read_text())["iterations"] == 2


def test_exported_file_acts_as_the_rllib_module(trained):
    """The checkpoint's RLModule and the exported agent file: same logits, same actions, on a batch."""
    from ray.rllib.core import DEFAULT_MODULE_ID
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    result, _ = trained
    path = result.checkpoint_path / "learner_group" / "learner" / "rl_module" / DEFAULT_MODULE_ID
    module = RLModule.from_checkpoint(path)
    rules = preset("president")
    obs, mask = positions(rules, 400)
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs), "action_mask": torch.from_numpy(mask.astype(np.int8))}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    agent = FileAgent(result.agent_path, rules)
    np.testing.assert_allclose(agent.logits(obs)[mask], logits[mask], rtol=1e-5, atol=1e-5)
    assert (logits[~mask] < -1e30).all()                        # masked inside the module
    np.testing.assert_array_equal(agent.act(obs, mask, np.random.default_rng(0)), logits.argmax(axis=1))


def test_exported_agent_plays_in_evaluate_and_play(trained, tmp_path, monkeypatch, capsys):
    result, _ = trained
    spec = f"ppo:{result.agent_path}"
    assert main(["evaluate", "--preset", "president", "--agents", f"{spec},heuristic,greedy,random", "--games", "3",
                 "--hands", "2", "--no-progress", "--json", str(tmp_path / "e.json")]) == 0
    figures = json.loads((tmp_path / "e.json").read_text())
    assert figures["command"]["agents"][0] == spec and figures["entrants"][0]["hands"] > 0
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 500))
    assert main(["play", "--preset", "president", "--hands", "1", "--seed", "1",
                 "--opponents", f"{spec},{spec},heuristic"]) == 0
    assert "The session is over after 1 hand(s)" in capsys.readouterr().out


def _push_towards(modules, action: int) -> None:
    """Make ``action`` win every unmasked draw: its bias far above the others."""
    with torch.no_grad():
        for m in modules:
            m.action.bias.fill_(0.0)
            m.action.bias[action] = 1e4


def _check_masked(sa, action: int) -> int:
    """Every action of a single-agent episode legal in the mask it observed; ``action`` taken wherever legal."""
    n = len(sa)
    mask = np.asarray(sa.get_observations(slice(0, n))["action_mask"]).astype(bool)
    actions = np.asarray(sa.get_actions(slice(0, n)))
    assert mask[np.arange(n), actions].all(), "an illegal action was sampled"
    assert (actions[mask[:, action]] == action).all()        # legal logits are left as they are
    return n


@pytest.mark.parametrize("name, players", [("president", 4), ("president", 3), ("daifugo_runs", 5)])
def test_masked_actions_are_never_sampled_by_the_batched_runner(name, players):
    """The shared policy's env runner (games as arrays), with logits pushed hard towards one id: every action of
    every seat at every step is legal in the mask it observed."""
    from training.rllib_runner import BatchedEnvRunner

    rules = preset(name, players=players)
    mids = module_ids(rules, "shared")
    runner = BatchedEnvRunner(config=build_config(name, players, rllib_settings(hidden=[16], envs_per_runner=16), 0,
                                                  "shared", 1, mids))
    _push_towards([runner.module], 5)
    episodes = runner.sample(num_timesteps=300)
    assert all(e.is_terminated for e in episodes)
    assert sum(_check_masked(e, 5) for e in episodes) >= 300
    runner.stop()


def test_masked_actions_are_never_sampled_by_rllibs_multi_agent_runner():
    """``per-seat`` policies run on RLlib's own multi-agent runner over the AEC env: masks respected there too."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    rules = preset("daifugo_runs", players=5)
    mids = module_ids(rules, "per-seat")
    runner = MultiAgentEnvRunner(config=build_config("daifugo_runs", 5, rllib_settings(hidden=[16], envs_per_runner=4),
                                                     0, "per-seat", 1, mids))
    assert sorted(runner.module.keys()) == sorted(mids)
    _push_towards(runner.module.values(), 5)
    steps = 0
    for episode in runner.sample(num_timesteps=300, random_actions=False):
        for aid, sa in episode.agent_episodes.items():
            if len(sa):
                assert sa.module_id == aid
                steps += _check_masked(sa, 5)
    assert steps >= 250
    runner.stop()


def test_per_seat_policies_export_one_file_each(tmp_path):
    """``per-seat``: one module per player, each exported; the main file is player 0's."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    rules = preset("president", players=3)
    mids = module_ids(rules, "per-seat")
    runner = MultiAgentEnvRunner(config=build_config("president", 3, rllib_settings(hidden=[8]), 0, "per-seat", 0,
                                                     mids))

    class Learners:  # what export reads from an Algorithm: the learner's weights by module
        @staticmethod
        def get_weights(module_ids):
            return {m: {k: v.numpy() for k, v in runner.module[m].state_dict().items()} for m in module_ids}

    algo = type("Algo", (), {"learner_group": Learners})()
    main_path, seats = _export_all(algo, mids, tmp_path / "model", rules, rllib_settings(hidden=[8]), {"seed": 0})
    assert main_path.name == "model.agent.safetensors" and [p.name for p in seats] == [
        f"model.player_{i}.agent.safetensors" for i in range(3)]
    obs, mask = positions(rules, 50)
    np.testing.assert_array_equal(FileAgent(main_path, rules).logits(obs), FileAgent(seats[0], rules).logits(obs))
    assert not np.allclose(FileAgent(seats[0], rules).logits(obs), FileAgent(seats[1], rules).logits(obs))
    runner.stop()


# --------------------------------------------------------------------------- tournaments on Ray
def _same(a, b) -> None:
    da, db = a.to_dict(), b.to_dict()
    da.pop("seconds"), db.pop("seconds")
    assert da == db
    np.testing.assert_array_equal(a.per_deal_points, b.per_deal_points)


def test_ray_tournament_equals_serial_with_deterministic_agents(trained):
    result, _ = trained
    rules = preset("president")
    entrants = [f"ppo:{result.agent_path}", "heuristic", "greedy", "heuristic"]
    serial = run_tournament(rules, entrants, 10, seed=5, hands_per_session=2)
    for tasks in (2, 5):
        _same(ray_tournament(rules, entrants, 10, seed=5, hands_per_session=2, tasks=tasks), serial)


def test_ray_tournament_equals_serial_with_random_agents(local_ray):
    """Entrants that draw random numbers (per-deal streams; more in tests/test_ray_evaluate.py): the same table."""
    rules = preset("president", players=3)
    entrants = ["random", "greedy", "random"]
    serial = run_tournament(rules, entrants, 20, seed=2, batch_size=12, hands_per_session=2)
    _same(ray_tournament(rules, entrants, 20, seed=2, batch_size=12, hands_per_session=2), serial)


def test_evaluate_ray_prints_and_writes_the_serial_table(local_ray, tmp_path, capsys):
    """The command: the same printed tables and the same JSON (random entrants too: their tasks run in parallel)."""
    argv = ["evaluate", "--preset", "president", "--agents", "heuristic,greedy,random,random", "--games", "12",
            "--seed", "7", "--hands", "2", "--no-progress", "--batch-size", "16"]
    assert main([*argv, "--json", str(tmp_path / "serial.json")]) == 0
    serial_out = capsys.readouterr().out
    assert main([*argv, "--ray", "--json", str(tmp_path / "ray.json")]) == 0
    ray_out = capsys.readouterr().out
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("serial.json", "ray.json"))
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    table = lambda text: text[:text.index("seed 7, rotations")]  # noqa: E731 - the tables, not the timing line
    assert table(serial_out) == table(ray_out)


# --------------------------------------------------------------------------- bad input
def test_unreachable_address_is_a_clear_error(capsys):
    with pytest.raises(RayUnavailable, match=f"cannot reach a Ray cluster at {UNREACHABLE}"):
        check_reachable(UNREACHABLE)
    for argv in (["train", "--backend", "rllib", "--out", "runs/never", "--address", UNREACHABLE],
                 ["evaluate", "--preset", "president", "--agents", "greedy,greedy,greedy,greedy", "--ray",
                  "--address", UNREACHABLE]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert f"cannot reach a Ray cluster at {UNREACHABLE}" in err and "ray start --head" in err
    with pytest.raises(RayUnavailable, match="is not HOST:PORT"):
        check_reachable("nowhere")


def test_missing_ray_is_a_clear_error(monkeypatch, capsys):
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    for argv in (["train", "--backend", "rllib", "--out", "runs/never"],
                 ["evaluate", "--preset", "president", "--agents", "greedy,greedy,greedy,greedy", "--ray"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert 'Ray is not installed' in (err := capsys.readouterr().err) and 'pip install -e ".[ray]"' in err


def test_resume_from_something_else_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["train", "--backend", "rllib", "--out", str(tmp_path / "o"), "--resume", str(tmp_path)])
    assert "not an RLlib checkpoint folder" in capsys.readouterr().err


def test_rllib_options_need_the_rllib_backend(capsys):
    for extra in (["--env-runners", "2"], ["--address", "auto"], ["--policies", "per-seat"],
                  ["--envs-per-runner", "128"], ["--learners", "2"], ["--gpus-per-learner", "1"]):
        with pytest.raises(SystemExit):
            main(["train", "--out", "runs/never", *extra])
        assert "go with --backend rllib" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate", "--preset", "president", "--agents", "greedy,greedy,greedy,greedy", "--address", "auto"])
    assert "go with --ray" in capsys.readouterr().err


def test_base_commands_do_not_import_ray():
    code = ("import sys; from president_cli.main import main; import training.train, training.vec_env; "
            "main(['evaluate', '--preset', 'president', '--agents', 'greedy,greedy,random,random', '--games', '2', "
            "'--hands', '1', '--no-progress']); assert 'ray' not in sys.modules, 'ray was imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_resume_continues_from_the_rllib_checkpoint(local_ray, trained, tmp_path):
    """Slow (a second RLlib run): ``pytest -m slow tests/test_ray.py``. ``--resume`` restores the weights
    and the counts of the first run and goes on from them."""
    first, _ = trained
    args = RllibTrainArgs(preset="president", timesteps=10**9, iterations=3, out=str(tmp_path), env_runners=0,
                          resume=str(first.checkpoint_path), trust_pickle=True, checkpoint_every=0, final_deals=0,
                          progress=False, settings=dict(TINY))
    result = train_rllib(args)
    assert result.iterations == 3 and result.timesteps > first.timesteps
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["3"]


@pytest.mark.slow
def test_ctrl_c_saves_an_rllib_checkpoint_that_resumes(local_ray, tmp_path, monkeypatch):
    """Slow (two RLlib runs): ``pytest -m slow tests/test_ray.py``. Ctrl-C during an iteration saves RLlib's
    checkpoint and the agent file; ``--resume`` (with trust_pickle) goes on from them."""
    from ray.rllib.algorithms.algorithm import Algorithm

    from training.rllib_train import RllibInterrupted

    real, calls = Algorithm.train, []

    def interrupted_second_time(self):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(Algorithm, "train", interrupted_second_time)
    args = RllibTrainArgs(preset="president", timesteps=10**9, iterations=5, out=str(tmp_path / "a"), env_runners=0,
                          checkpoint_every=0, final_deals=0, progress=False, settings=dict(TINY))
    with pytest.raises(RllibInterrupted) as e:
        train_rllib(args)
    assert e.value.iteration == 1 and (e.value.checkpoint / "learner_group").is_dir()
    FileAgent(e.value.agent, preset("president"))
    monkeypatch.setattr(Algorithm, "train", real)
    again = RllibTrainArgs(preset="president", timesteps=10**9, iterations=2, out=str(tmp_path / "b"), env_runners=0,
                           resume=str(e.value.checkpoint), trust_pickle=True, checkpoint_every=0, final_deals=0,
                           progress=False, settings=dict(TINY))
    assert train_rllib(again).iterations == 2
