"""``president train`` loses no work and runs no code from a checkpoint (issue 24).

Ctrl-C saves a checkpoint and its agent file, and the run resumes from it; checkpoints come
at a settable interval; an earlier run's folder is never written over without ``--resume``
or ``--force``; bad settings, a missing resume file and an unwritable ``--out`` are refused
before any work; an RLlib checkpoint (pickle) is resumed only with ``--trust-pickle``.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from cli_run import run_cli  # noqa: E402

from agents.agent_file import FileAgent, read_agent_file  # noqa: E402
from president_cli.main import main  # noqa: E402
from president_env.core import preset  # noqa: E402
from training.run_dir import RunDirError, prepare_out  # noqa: E402

TINY = {"n_envs": 16, "n_steps": 32, "batch_size": 256, "n_epochs": 1, "snapshot_every": 10**6,
        "imitation_decisions": 500, "imitation_epochs": 1, "eval_every": 10**6, "eval_deals": 2,
        "net_arch": [16], "learner_seats": 1}


def _train_argv(out: Path, *extra: str, timesteps: int = 2048) -> list[str]:
    argv = ["train", "--out", str(out), "--timesteps", str(timesteps), "--final-deals", "0", "--no-progress"]
    for k, v in TINY.items():
        argv += ["--set", f"{k}={json.dumps(v)}"]
    return argv + list(extra)


def test_ctrl_c_saves_a_checkpoint_and_the_run_resumes_from_it(tmp_path, monkeypatch, capsys):
    from training import train as train_module

    real = train_module.TrainingMonitor._on_step

    def interrupted(self):
        if self.num_timesteps >= 1000:
            raise KeyboardInterrupt       # what Ctrl-C raises at this point of the loop
        return real(self)

    monkeypatch.setattr(train_module.TrainingMonitor, "_on_step", interrupted)
    out = tmp_path / "run"
    code, err = run_cli(_train_argv(out, "--checkpoint-every", "512"), capsys)
    assert code == 130 and "interrupted at" in err and "--resume" in err, err
    saved = sorted(p.name for p in (out / "checkpoints").iterdir())
    steps = sorted(int(n[5:-4]) for n in saved if n.endswith(".zip"))
    assert steps[0] == 512 and 1000 <= steps[-1] < 2048                    # the interval's, and Ctrl-C's
    assert f"step_{steps[-1]}.agent.safetensors" in saved and not (out / "model.zip").exists()
    last = out / "checkpoints" / f"step_{steps[-1]}.zip"
    assert str(last) in err
    meta, _ = read_agent_file(out / "checkpoints" / f"step_{steps[-1]}.agent.safetensors")
    assert meta["made_by"]["timesteps"] == steps[-1]
    FileAgent(out / "checkpoints" / f"step_{steps[-1]}.agent.safetensors", preset("president"))   # it plays
    monkeypatch.setattr(train_module.TrainingMonitor, "_on_step", real)
    assert main(_train_argv(out, "--resume", str(last))) == 0           # resumed into the same folder
    final = json.loads((out / "final.json").read_text())
    assert final["timesteps"] >= 2048 and (out / "model.agent.safetensors").exists()


def test_an_earlier_run_is_never_written_over(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    (out / "model.zip").write_bytes(b"the earlier run's model")
    code, err = run_cli([a for a in _train_argv(out) if a != "--no-progress"], capsys)
    assert code == 2 and "already holds files" in err and "--force" in err and "--resume" in err
    assert "loading torch" not in err                  # refused at once, before the seconds torch takes to load
    assert (out / "model.zip").read_bytes() == b"the earlier run's model"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoints", "model.zip"]
    prepare_out(out, None, force=True)                  # --force (or --resume) may use it
    prepare_out(out, "checkpoints/step_1.zip", force=False)
    with pytest.raises(RunDirError, match="already holds files"):
        prepare_out(out, None, force=False)


def test_train_all_refuses_a_presets_folder_that_holds_a_run_before_training_any(tmp_path, capsys):
    (tmp_path / "daifugo").mkdir()
    (tmp_path / "daifugo" / "model.zip").write_bytes(b"an earlier run")
    code, err = run_cli(["train-all", "--presets", "president,daifugo", "--out", str(tmp_path), "--no-progress"],
                        capsys)
    assert code == 2 and "daifugo already holds files" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["daifugo"]     # president was not trained first


@pytest.mark.parametrize("extra, words", [
    (["--set", "pool=[1,2]"], "setting pool=[1, 2]: expected an object"),
    (["--set", 'net_arch="x"'], 'setting net_arch="x": expected a list'),
    (["--set", 'pool={"snapshot": Infinity}'], "Infinity is not a number"),
    (["--set", "n_envs=null"], "setting n_envs=null: expected an integer 1..4096"),
    (["--set", "gamma=NaN"], "NaN is not a number"),
    (["--set", "learning_rate=1e999"], "overflows"),
    (["--set", "max_snapshots=0"], "max_snapshots=0"),
    (["--set", "no_such=1"], "unknown training setting"),
    (["--set", "imitation_share=2"], "setting imitation_share=2: expected a finite number 0..1"),
    (["--set", "imitation_batch=0"], "setting imitation_batch=0: expected an integer 1..1e+06"),
    (["--set", "imitation_games=0"], "setting imitation_games=0: expected an integer 1..100000"),
    (["--resume", "nowhere/model.zip"], "--resume nowhere/model.zip: no such file"),
    (["--backend", "rllib", "--set", "hidden=[0]"], "setting hidden=[0]"),
    (["--init", ""], "--init is empty"),
    (["--resume", " "], "--resume is empty"),
    (["--method", "expert-iteration", "--init", ""], "--init is empty"),
    (["--backend", "rllib", "--learners", "1000", "--env-runners", "1"],
     "--learners 1000 with --env-runners 1: each Learner and each env runner takes a CPU, and the local Ray here has"),
])
def test_bad_settings_and_a_missing_resume_file_are_refused_before_any_work(extra, words, tmp_path, capsys,
                                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(_train_argv(tmp_path / "o", *extra)[:8] + extra, capsys)
    assert code == 2 and words in err, err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("table", ["training.hyperparams.TrainSettings", "training.rllib_train.RllibSettings"])
def test_every_training_setting_has_a_spec(table):
    # a setting without one could not be given with --set at all ("unknown training setting")
    import dataclasses
    import importlib

    module, name = table.rsplit(".", 1)
    mod = importlib.import_module(module)
    assert {f.name for f in dataclasses.fields(getattr(mod, name))} == set(mod.SPECS)


def test_an_out_that_cannot_be_written_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "file").write_text("a file")
    for out, words in ((tmp_path / "file", "is a file"), (tmp_path / "file" / "run", "cannot create")):
        code, err = run_cli(_train_argv(out), capsys)
        assert code == 2 and words in err, err


class _Payload:
    """Unpickling this writes a marker file: proof that code from the checkpoint ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_an_rllib_checkpoint_is_not_unpickled_without_trust_pickle(tmp_path, capsys):
    folder = tmp_path / "checkpoint"
    (folder / "learner_group").mkdir(parents=True)
    marker = tmp_path / "ran"
    for name in ("class_and_ctor_args.pkl", "metadata.pkl", "state.pkl", "learner_group/state.pkl"):
        (folder / name).write_bytes(pickle.dumps(_Payload(marker)))
    code, err = run_cli(["train", "--backend", "rllib", "--out", str(tmp_path / "o"), "--resume", str(folder)], capsys)
    assert code == 2 and "--trust-pickle" in err and "can run code" in err
    assert not marker.exists() and not (tmp_path / "o").exists()
    code, err = run_cli(["train", "--out", str(tmp_path / "o"), "--trust-pickle"], capsys)
    assert code == 2 and "--trust-pickle go with --backend rllib" in err
    from training.rllib_train import RllibTrainArgs, train_rllib  # the library refuses too

    with pytest.raises(ValueError, match="trust_pickle"):
        train_rllib(RllibTrainArgs(out=str(tmp_path / "o"), resume=str(folder)))
    assert not marker.exists()


def test_a_warm_start_that_imitated_nothing_is_said_even_without_progress(tmp_path, monkeypatch, capsys):
    # a slow teacher can finish no hand before the warm start's deadline (daifugo_runs' card-level search
    # did, 2026-12-03): the run goes on from a fresh network, and says so on stderr and in imitation.json
    from training import imitation
    from training import train as train_module

    real = imitation.collect

    def nothing(*args, **kwargs):
        demos = real(*args, **kwargs)
        return type(demos)(demos.obs[:0], demos.masks[:0], demos.actions[:0], demos.returns[:0], True)

    monkeypatch.setattr(train_module, "collect", nothing)
    out = tmp_path / "run"
    code, err = run_cli(_train_argv(out, timesteps=512), capsys)
    assert code == 0, err
    info = json.loads((out / "imitation.json").read_text())
    assert info["decisions"] == 0 and "imitated nothing" in info["warning"]
    assert "warning: the warm start imitated nothing" in err and "heuristic" in err


def test_the_teacher_plays_imitation_games_games_at_once(tmp_path, monkeypatch, capsys):
    # a slow teacher's decisions count only when their hand ends: 512 games in lockstep finished no hand of
    # daifugo_runs' card-level search in 11 minutes; imitation_games sets how many it plays at once
    from president_env import core
    from training import imitation
    from training import train as train_module

    batches: list[int] = []
    real_init = core.init

    def counting_init(rules, batch, *args, **kwargs):
        batches.append(batch)
        return real_init(rules, batch, *args, **kwargs)

    monkeypatch.setattr(imitation, "init", counting_init)
    monkeypatch.setattr(train_module, "collect", imitation.collect)
    out = tmp_path / "run"
    code, err = run_cli(_train_argv(out, "--set", "imitation_games=3", timesteps=512), capsys)
    assert code == 0, err
    info = json.loads((out / "imitation.json").read_text())
    assert batches and set(batches) == {3}         # every batch of the teacher's games, three at a time
    assert info["decisions"] >= 500                 # and they still make the decisions asked for
