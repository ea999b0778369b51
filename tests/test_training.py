"""Training smoke tests: save, reload, evaluate, resume; rewards match the core; the opponent pool."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.agent_file import export_sb3_zip, read_agent_file  # noqa: E402
from agents.arena import run_tournament  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from agents.sb3_policy import ModelError  # noqa: E402
from president_env.core import init, n_actions, observe, preset  # noqa: E402
from president_env.core import observation as O  # noqa: E402
from training.opponent_pool import OpponentPool  # noqa: E402
from training.train import TrainArgs, train  # noqa: E402
from training.vec_env import PresidentVecEnv  # noqa: E402

SMALL = {"n_envs": 32, "n_steps": 32, "batch_size": 512, "n_epochs": 1, "snapshot_every": 1024,
         "imitation_decisions": 2000, "imitation_epochs": 1,
         "eval_every": 1024, "eval_deals": 2, "net_arch": [32, 32],
         "learner_seats": 1}  # SB3's own loop: exact step counts (tests/test_seat_rollout.py runs the other)


def _args(tmp: Path, **kw) -> TrainArgs:
    base = dict(preset="president", timesteps=2048, out=str(tmp), final_deals=3, checkpoint_every=1024,
                progress=False, settings=dict(SMALL))
    base.update(kw)
    return TrainArgs(**base)


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("run")
    return out, train(_args(out))


def test_smoke_run_saves_reloads_and_evaluates(trained, tmp_path) -> None:
    out, result = trained
    assert result.model_path == out / "model.zip" and result.model_path.exists()
    assert result.timesteps >= 2048
    assert [m.opponent for m in result.final] == ["heuristic", "greedy"]
    assert all(np.isfinite(m.diff) and m.diff_low <= m.diff <= m.diff_high for m in result.final)
    curve = (out / "eval.csv").read_text().splitlines()
    assert curve[0].startswith("timesteps,") and len(curve) >= 3  # at least one evaluation of both baselines
    assert json.loads((out / "final.json").read_text())["timesteps"] == result.timesteps
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "step_1024.agent.safetensors", "step_1024.zip", "step_2048.agent.safetensors", "step_2048.zip"]
    # The agent file is an agent for the evaluate command: it plays only legal actions (the core checks),
    # the same actions as the model, and says how it was made.
    rules = preset("president")
    assert result.agent_path == out / "model.agent.safetensors"
    agent = make_agent(f"ppo:{result.agent_path}", rules)
    res = run_tournament(rules, [agent, "greedy", "greedy", "greedy"], deals=2, seed=0, rating=False)
    assert res.entrants[0].hands > 0
    with pytest.warns(UserWarning, match="can run code"):
        model = make_agent(f"ppo:{result.model_path}", rules, trust_pickle=True)
    st = init(rules, 64, seed=1, start_ranks="random")
    obs = observe(rules, st, 0)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(agent.act(obs, st.legal, rng), model.act(obs, st.legal, rng))
    made = agent.metadata["made_by"]
    assert made["preset"] == "president" and made["timesteps"] == result.timesteps
    assert made["command"].startswith("president train --preset president") and made["code_version"]
    # The zips say the same, so an export of the model or of a checkpoint keeps how it was made.
    for zip_path, steps in ((result.model_path, result.timesteps), (out / "checkpoints" / "step_1024.zip", 1024)):
        exported = read_agent_file(export_sb3_zip(zip_path, tmp_path / "x.agent.safetensors"))[0]["made_by"]
        assert {k: exported[k] for k in ("preset", "command", "seed")} == {k: made[k] for k in ("preset", "command",
                                                                                                   "seed")}
        assert exported["timesteps"] == steps


def test_resume_continues_the_step_count(trained, tmp_path) -> None:
    out, _ = trained
    result = train(_args(tmp_path, timesteps=3072, resume=str(out / "checkpoints" / "step_1024.zip"), final_deals=0))
    assert result.timesteps == 3072  # 1024 from the checkpoint + 2048 more, not 3072 more


def test_resume_unpickles_nothing(trained, tmp_path) -> None:
    """A checkpoint whose pickled entries carry a payload resumes without running it (they are rebuilt)."""
    import base64
    import pickle

    out, _ = trained
    marker = tmp_path / "ran"
    src = out / "checkpoints" / "step_1024.zip"
    with zipfile.ZipFile(src) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    data = json.loads(members["data"])
    payload = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    data["lr_schedule"] = {":type:": "x", ":serialized:": payload}
    members["data"] = json.dumps(data).encode()
    crafted = tmp_path / "crafted.zip"
    with zipfile.ZipFile(crafted, "w") as zf:
        for n, raw in members.items():
            zf.writestr(n, raw)
    result = train(_args(tmp_path / "r", timesteps=2048, resume=str(crafted), final_deals=0))
    assert result.timesteps == 2048 and not marker.exists()
    data["extra_thing"] = {":type:": "x", ":serialized:": payload}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(crafted, "w") as zf:
        for n, raw in members.items():
            zf.writestr(n, raw)
    with pytest.raises(ModelError, match=r"pickled entries \['extra_thing'\]"):
        train(_args(tmp_path / "s", timesteps=2048, resume=str(crafted), final_deals=0))
    assert not marker.exists()


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_resume_refuses_a_model_of_other_rules_and_a_corrupt_file(trained, tmp_path) -> None:
    out, _ = trained
    with pytest.raises(ModelError, match="other rules"):
        train(_args(tmp_path / "a", preset="daifugo", resume=str(out / "model.zip")))
    bad = tmp_path / "corrupt.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ModelError, match="not a zip"):
        train(_args(tmp_path / "b", resume=str(bad)))
    with pytest.raises(ValueError, match="other rules"):
        make_agent(f"ppo:{out / 'model.agent.safetensors'}", preset("president", players=5))
    with pytest.raises(ValueError, match="trust-pickle"):
        make_agent(f"ppo:{out / 'model.zip'}", preset("president"))
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("data", "{}")
    with pytest.raises(ModelError):
        train(_args(tmp_path / "c", resume=str(plain)))


def test_training_rewards_add_up_to_the_cores_session_points() -> None:
    rules = preset("president", target_points=4)
    pool = OpponentPool(rules, {"heuristic": 1, "greedy": 1, "random": 1})
    venv = PresidentVecEnv(16, rules, opponents=pool, seed=3)
    venv.reset()
    rng = np.random.default_rng(0)
    totals = np.zeros(16)
    checked = 0
    points = O.slices(rules)["points"]
    for _ in range(3000):
        mask = venv.action_masks()
        _, rewards, dones, infos = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
        totals += rewards
        for i in np.flatnonzero(dones):
            # relative seat 0 of the observation is the learner itself: its session points in the core
            assert totals[i] == infos[i]["terminal_observation"][points][0]
            totals[i] = 0
            checked += 1
        if checked >= 20:
            break
    assert checked >= 20


def test_the_pool_samples_members_per_game_and_keeps_snapshot_slots() -> None:
    rules = preset("president")
    pool = OpponentPool(rules, {"heuristic": 0.5, "random": 0.5, "snapshot": 1.0}, max_snapshots=2)
    rng = np.random.default_rng(0)
    np.testing.assert_allclose(pool.probabilities(), [0.5, 0.5])  # no snapshot yet: scripted only
    draws = pool.sample(4000, rng)
    assert draws.shape == (4000, 3) and set(np.unique(draws)) == {0, 1}

    class FakePolicy:
        def to(self, device):
            return self

        def set_training_mode(self, mode):
            pass

    for label in ("a", "b", "c"):
        pool.add_snapshot(FakePolicy(), label)
    assert pool.names() == ["heuristic", "random", "snapshot@c", "snapshot@b"]  # c took the oldest slot
    np.testing.assert_allclose(pool.probabilities(), [0.25, 0.25, 0.25, 0.25])
    with pytest.raises(ValueError, match="scripted"):
        OpponentPool(rules, {"snapshot": 1.0})


def test_demonstrations_keep_the_masks_as_bits() -> None:
    # uecda's 2,606 actions: a mask a decision is 326 bytes, not 2,606 (1.5 million decisions took 12 GB and the
    # run was killed for memory); the masks read back as recorded
    from training.imitation import collect

    rules = preset("uecda", hands_per_session=2)
    demos = collect(rules, "greedy", 400, gamma=1.0, seed=0, batch_size=8)
    n, A = len(demos), n_actions(rules)
    assert demos.packed.shape == (n, -(-A // 8)) and demos.packed.dtype == np.uint8
    masks = demos.masks
    assert masks.shape == (n, A) and masks.dtype == bool
    assert masks[np.arange(n), demos.actions].all()
    np.testing.assert_array_equal(demos.legal_counts(), masks.sum(axis=1))
    np.testing.assert_array_equal(demos.mask_rows(np.array([3, 1])), masks[[3, 1]])
    assert (demos.legal_counts() > 1).any() and (demos.legal_counts() < A).all()


def test_imitation_records_legal_teacher_moves_and_the_policy_learns_them() -> None:
    from sb3_contrib import MaskablePPO

    from training.imitation import collect, pretrain

    rules = preset("president", hands_per_session=1)
    demos = collect(rules, "greedy", 3000, gamma=1.0, seed=0, batch_size=64)
    n = len(demos.actions)
    assert n >= 3000 and demos.obs.shape == (n, O.size(rules)) and demos.masks.shape[0] == n
    assert demos.masks[np.arange(n), demos.actions].all()  # every recorded move was legal
    # One hand per session, gamma 1: every return is the points of one finishing position.
    assert set(np.unique(demos.returns)) <= set(float(p) for p in rules.points)
    model = MaskablePPO("MlpPolicy", PresidentVecEnv(4, rules, seed=0), policy_kwargs={"net_arch": [64]},
                        device="cpu")
    stats = pretrain(model.policy, demos, epochs=12, batch_size=256)
    assert stats["accuracy"] > 0.85  # greedy is a simple function of the hand and the top: easy to imitate


def test_train_all_tables_round_trip_and_the_curves_plot(tmp_path) -> None:
    from training.train_all import plot_curves, read_results, write_tables

    rows = [{"preset": "daifugo", "players": 4, "timesteps": 1000, "minutes": 1.5, "opponent": o, "deals": 50,
             "learner_points": 0.5, "opponent_points": -0.1, "diff": 0.6, "diff_low": 0.2, "diff_high": 1.0,
             "beats": True} for o in ("heuristic", "greedy")]
    write_tables(rows, tmp_path)
    assert read_results(tmp_path) == rows
    assert "| daifugo | 4 | 1,000 | 1.5 | greedy | 50 |" in (tmp_path / "results.md").read_text()
    (tmp_path / "daifugo").mkdir()
    (tmp_path / "daifugo" / "eval.csv").write_text(
        "timesteps,seconds,opponent,deals,learner_points,opponent_points,diff,diff_low,diff_high\n"
        "100,1,heuristic,5,0,0,-0.2,-0.4,0\n200,2,heuristic,5,0,0,0.1,-0.1,0.3\n100,1,greedy,5,0,0,0.3,0.1,0.5\n")
    png = plot_curves(["daifugo", "missing"], tmp_path)
    assert png.exists() and png.stat().st_size > 1000


def _crafted(src: Path, dest: Path, **members: bytes | None) -> Path:
    """A copy of the zip ``src`` with ``members`` replaced (None: removed)."""
    with zipfile.ZipFile(src) as zf:
        kept = {n: zf.read(n) for n in zf.namelist()}
    for name, raw in members.items():
        if raw is None:
            kept.pop(name, None)
        else:
            kept[name] = raw
    with zipfile.ZipFile(dest, "w") as zf:
        for n, raw in kept.items():
            zf.writestr(n, raw)
    return dest


def test_a_crafted_checkpoint_is_a_named_refusal_that_never_advises_running_its_pickle(trained, tmp_path) -> None:
    import pickle

    out, _ = trained
    src = out / "checkpoints" / "step_1024.zip"
    marker = tmp_path / "ran"
    evil = _crafted(src, tmp_path / "evil.zip", **{"policy.pth": pickle.dumps(_Payload(marker))})
    with pytest.raises(ModelError, match="weights hold more than tensors, refused") as e:
        train(_args(tmp_path / "a", resume=str(evil), final_deals=0))
    assert "weights_only" not in str(e.value) and "(UnpicklingError: Unsupported" in str(e.value)
    assert not marker.exists()
    with zipfile.ZipFile(src) as zf:
        data = json.loads(zf.read("data"))
    for broken in ({k: v for k, v in data.items() if k != "policy_class"},
                   {**data, "policy_class": {":type:": "x"}}, {**data, "observation_space": 3}):
        bad = _crafted(src, tmp_path / "bad.zip", data=json.dumps(broken).encode())
        with pytest.raises(ModelError, match="not a checkpoint of president train that resumes"):
            train(_args(tmp_path / "b", resume=str(bad), final_deals=0, force=True))
    with pytest.raises(Exception, match="policy.pth holds more than tensors") as e:   # export reads it the same way
        export_sb3_zip(evil, tmp_path / "x.agent.safetensors")
    assert "weights_only" not in str(e.value) and not marker.exists()
