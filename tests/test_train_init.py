"""``president train --init AGENT`` (PPO): the run starts from an agent file's policy, fits only a new value
head on the agent's own self-play, then learns; a bad start is refused before any work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cli_run import run_cli  # noqa: E402

from agents.agent_file import read_agent_file, write_agent_file  # noqa: E402
from president_env.core import preset  # noqa: E402
from training.train import TrainArgs, train  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 32, "batch_size": 256, "n_epochs": 1, "imitation_decisions": 500,
         "imitation_epochs": 2, "imitation_games": 8, "eval_every": 10**9, "learner_seats": 1}


def _run(tmp: Path, init: str, timesteps: int, **settings) -> Path:
    out = tmp / f"run{timesteps}"
    train(TrainArgs(preset="president", timesteps=timesteps, out=str(out), final_deals=0, progress=False,
                    init=init, settings={**SMALL, **settings}))
    return out


def _layers(path: Path) -> dict[str, np.ndarray]:
    return read_agent_file(path)[1]


@pytest.fixture(scope="module")
def start(tmp_path_factory) -> Path:
    """A small agent file of president's rules to start from: a short run of its own."""
    out = tmp_path_factory.mktemp("start")
    train(TrainArgs(preset="president", timesteps=512, out=str(out), final_deals=0, progress=False,
                    settings={**SMALL, "net_arch": [24, 24], "imitation_decisions": 500}))
    return out / "model.agent.safetensors"


def test_the_run_starts_from_the_files_policy_and_fits_only_the_value_head(start, tmp_path) -> None:
    out = _run(tmp_path, str(start), timesteps=0)           # no PPO step: the warm start alone
    init_layers, got = _layers(start), _layers(out / "model.agent.safetensors")
    assert init_layers.keys() == got.keys() and len(got) == 6          # two hidden layers and the action layer
    for k in init_layers:                                                # the policy untouched, bit for bit
        assert np.array_equal(init_layers[k], got[k]), k
    info = json.loads((out / "imitation.json").read_text())
    assert info["fitted"] == "value" and info["teacher"] == str(start) and info["decisions"] > 0
    assert np.isfinite(info["value_loss"])
    meta = read_agent_file(out / "model.agent.safetensors")[0]
    assert meta["architecture"]["hidden"] == [24, 24]                    # the file's network, not the row's
    assert f"--init {start}" in meta["made_by"]["command"]


def test_ppo_goes_on_from_the_files_policy(start, tmp_path) -> None:
    out = _run(tmp_path, str(start), timesteps=1024)
    init_layers, got = _layers(start), _layers(out / "model.agent.safetensors")
    assert any(not np.array_equal(init_layers[k], got[k]) for k in init_layers)   # PPO moved it
    diff = max(float(np.abs(init_layers[k] - got[k]).max()) for k in init_layers)
    assert diff < 0.5                                                     # ... from the file's weights, not anew
    assert json.loads((out / "final.json").read_text())["timesteps"] >= 1024


@pytest.mark.parametrize("extra, words", [
    (["--set", "net_arch=[64,64]"], "its network is [24, 24], the setting net_arch=[64, 64]"),
    (["--resume", "x.zip"], "--init starts a run and --resume continues one"),
    (["--backend", "rllib"], "--init goes with --backend sb3"),
    (["--preset", "daifugo"], "was made for other rules"),
])
def test_a_bad_start_is_refused_before_any_work(start, extra, words, tmp_path, capsys) -> None:
    out = tmp_path / "o"
    code, err = run_cli(["train", "--out", str(out), "--init", str(start), "--no-progress", *extra], capsys)
    assert code == 2 and words in err, err
    assert not out.exists()


def test_a_missing_init_file_is_named(tmp_path, capsys) -> None:
    code, err = run_cli(["train", "--out", str(tmp_path / "o"), "--init", str(tmp_path / "none.agent.safetensors"),
                         "--no-progress"], capsys)
    assert code == 2 and "none.agent.safetensors" in err, err


@pytest.fixture(scope="module")
def relu_start(start, tmp_path_factory) -> Path:
    """The same layers under the other activation (SB3 then pickles the policy's settings in its checkpoints)."""
    meta, tensors = read_agent_file(start)
    layers = [(tensors[f"{k}.weight"], tensors[f"{k}.bias"]) for k in ("hidden.0", "hidden.1", "action")]
    return write_agent_file(tmp_path_factory.mktemp("relu") / "relu.agent.safetensors", preset("president"), layers,
                            activation="relu", made_by=meta["made_by"])


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_ctrl_c_says_to_resume_in_place_of_init_and_that_command_goes_on(activation, start, relu_start, tmp_path,
                                                                       monkeypatch, capsys):
    from training import train as train_module

    start = start if activation == "tanh" else relu_start

    real = train_module.TrainingMonitor._on_step

    def interrupted(self):
        if self.num_timesteps >= 512:
            raise KeyboardInterrupt       # what Ctrl-C raises at this point of the loop
        return real(self)

    monkeypatch.setattr(train_module.TrainingMonitor, "_on_step", interrupted)
    out = tmp_path / "run"
    argv = ["train", "--out", str(out), "--timesteps", "1024", "--final-deals", "0", "--no-progress",
            "--init", str(start)] + [w for k, v in SMALL.items() for w in ("--set", f"{k}={json.dumps(v)}")]
    code, err = run_cli(argv, capsys)
    assert code == 130 and f"in place of --init {start}" in err, err
    checkpoint = err.split("--resume ")[1].split()[0]
    monkeypatch.setattr(train_module.TrainingMonitor, "_on_step", real)
    resumed = argv[:argv.index("--init")] + ["--resume", checkpoint] + argv[argv.index("--init") + 2:]
    code, err = run_cli(resumed, capsys)
    assert code == 0, err
    assert json.loads((out / "final.json").read_text())["timesteps"] >= 1024
    meta, _ = read_agent_file(out / "model.agent.safetensors")
    assert meta["architecture"] == {**meta["architecture"], "hidden": [24, 24], "activation": activation}


def test_a_pickled_policy_setting_without_its_record_is_refused(relu_start, tmp_path, monkeypatch, capsys):
    """A checkpoint whose pickled policy settings its president.json cannot rebuild is refused, never unpickled."""
    from agents.sb3_policy import write_metadata

    out = tmp_path / "run"
    train(TrainArgs(preset="president", timesteps=512, out=str(out), final_deals=0, progress=False,
                    init=str(relu_start), settings=dict(SMALL)))
    write_metadata(out / "model.zip", preset("president"))       # its record without activation and net_arch
    code, err = run_cli(["train", "--out", str(tmp_path / "o"), "--resume", str(out / "model.zip"), "--no-progress"],
                        capsys)
    assert code == 2 and "policy settings are pickled" in err and "refused" in err, err


@pytest.mark.parametrize("with_init", [False, True])
def test_ctrl_c_in_the_warm_start_resumes_as_a_warm_start(with_init, start, tmp_path, monkeypatch, capsys):
    """A checkpoint saved before the warm start finished says so; its resume runs the warm start again (with
    --init: the value head's fit to the same file), never PPO from a half-fitted network without a word."""
    from training import train as train_module

    real, fits = train_module.pretrain, []

    def interrupted(*a, **kw):
        raise KeyboardInterrupt          # Ctrl-C in the middle of the fit

    def counted(*a, **kw):
        fits.append(kw.get("policy_too"))
        return real(*a, **kw)

    monkeypatch.setattr(train_module, "pretrain", interrupted)
    out = tmp_path / "run"
    argv = ["train", "--out", str(out), "--timesteps", "512", "--final-deals", "0", "--no-progress"] + \
        (["--init", str(start)] if with_init else ["--set", "net_arch=[24, 24]"]) + \
        [w for k, v in SMALL.items() for w in ("--set", f"{k}={json.dumps(v)}")]
    code, err = run_cli(argv, capsys)
    assert code == 130 and "interrupted during the warm start" in err and "runs the warm start again" in err, err
    checkpoint = err.split("--resume ")[1].split()[0]
    monkeypatch.setattr(train_module, "pretrain", counted)
    resumed = [w for w in argv if w not in ("--init", str(start))] + ["--resume", checkpoint]
    code, err = run_cli(resumed, capsys)
    assert code == 0, err
    assert fits == [not with_init]                  # the warm start ran again: the value head alone with --init
    info = json.loads((out / "imitation.json").read_text())
    assert (info["teacher"] == str(start)) == with_init and info["decisions"] > 0
    assert info["fitted"] == ("value" if with_init else "policy and value")
