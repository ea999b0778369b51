"""``president train --init AGENT`` (PPO): the run starts from an agent file's policy, fits only a new value
head on the agent's own self-play, then learns; a bad start is refused before any work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cli_run import run_cli  # noqa: E402

from agents.agent_file import read_agent_file  # noqa: E402
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
