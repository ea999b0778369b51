"""Agent files are data, never code: safetensors weights plus JSON metadata.

A crafted stable-baselines3 zip with a pickled payload is refused without running it; a
corrupt, truncated or mismatched agent file gives an error naming the file; exporting a
model gives the same actions as the model.
"""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents.agent_file import AgentFileError, FileAgent, export_sb3_zip, read_agent_file, write_agent_file
from agents.registry import make_agent
from president_env.core import init, n_actions, observe, preset
from president_env.core import observation as O


class _Payload:
    """Unpickling this creates a marker file: proof that code from the file ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory) -> Path:
    from sb3_contrib import MaskablePPO

    from agents.sb3_policy import save_model
    from training.gym_env import PresidentGymEnv

    d = tmp_path_factory.mktemp("model")
    m = MaskablePPO("MlpPolicy", PresidentGymEnv(), policy_kwargs={"net_arch": [32, 16]}, device="cpu", seed=0)
    return save_model(m, d / "model", preset("president"), timesteps=0)


def _crafted(src: Path, dest: Path, marker: Path, member: str = "data") -> Path:
    """A copy of the model zip whose ``member`` carries a pickled payload."""
    with zipfile.ZipFile(src) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    blob = pickle.dumps(_Payload(marker))
    if member == "data":
        data = json.loads(members["data"])
        data["observation_space"] = {":type:": "<class 'gymnasium.spaces.box.Box'>",
                                     ":serialized:": base64.b64encode(blob).decode()}
        members["data"] = json.dumps(data).encode()
    else:
        members[member] = blob
    with zipfile.ZipFile(dest, "w") as zf:
        for n, raw in members.items():
            zf.writestr(n, raw)
    return dest


def test_the_crafted_payload_really_runs_when_trusted(model_zip, tmp_path):
    """The control: SB3 does run the payload, so the refusals below mean something."""
    marker = tmp_path / "ran"
    crafted = _crafted(model_zip, tmp_path / "crafted.zip", marker)
    with pytest.warns(UserWarning, match="can run code"):
        try:
            make_agent(f"ppo:{crafted}", preset("president"), trust_pickle=True)
        except Exception:  # noqa: BLE001 - the payload replaced the space: loading may then fail
            pass
    assert marker.exists()


def test_a_crafted_zip_is_refused_without_running_it(model_zip, tmp_path):
    marker = tmp_path / "ran"
    crafted = _crafted(model_zip, tmp_path / "crafted.zip", marker)
    with pytest.raises(AgentFileError, match=r"crafted\.zip.*--trust-pickle"):
        make_agent(f"ppo:{crafted}", preset("president"))
    # exporting reads only the tensors: the payload in `data` is never unpickled
    out = export_sb3_zip(crafted, tmp_path / "crafted.agent.safetensors")
    assert not marker.exists()
    FileAgent(out, preset("president"))
    assert not marker.exists()


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_payload_in_the_weights_is_refused(model_zip, tmp_path):
    marker = tmp_path / "ran"
    crafted = _crafted(model_zip, tmp_path / "crafted.zip", marker, member="policy.pth")
    with pytest.raises(AgentFileError, match=r"crafted\.zip: policy\.pth holds more than tensors"):
        export_sb3_zip(crafted, tmp_path / "out.agent.safetensors")
    assert not marker.exists()


def test_export_gives_the_models_actions(model_zip, tmp_path):
    rules = preset("president")
    out = export_sb3_zip(model_zip, tmp_path / "m.agent.safetensors")
    with pytest.warns(UserWarning, match="can run code"):
        ref = make_agent(f"ppo:{model_zip}", rules, trust_pickle=True)
    mine = make_agent(f"ppo:{out}", rules)
    st = init(rules, 256, seed=3, start_ranks="random")
    obs = observe(rules, st, 0)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(mine.act(obs, st.legal, rng), ref.act(obs, st.legal, rng))
    # the same distribution: logits equal up to SB3's normalisation
    a, b = ref.logits(obs, st.legal), mine.logits(obs)
    np.testing.assert_allclose(a - a.max(axis=1, keepdims=True), b - b.max(axis=1, keepdims=True), atol=1e-4)
    meta, _ = read_agent_file(out)
    assert meta["architecture"] == {"type": "mlp", "hidden": [32, 16], "activation": "tanh"}
    assert meta["made_by"]["preset"] == "president" and meta["made_by"]["exported_from"] == "model.zip"


def _random_file(path: Path, rules=None, hidden=(8,)) -> Path:
    rules = rules or preset("president")
    rng = np.random.default_rng(0)
    dims = [O.size(rules), *hidden, n_actions(rules)]
    layers = [(rng.normal(size=(o, i)), rng.normal(size=o)) for i, o in zip(dims[:-1], dims[1:], strict=True)]
    return write_agent_file(path, rules, layers, made_by={"preset": rules.name, "seed": 0})


def test_round_trip_plays_legal_actions(tmp_path):
    rules = preset("sofia")
    path = _random_file(tmp_path / "a.agent.safetensors", rules)
    agent = make_agent(f"ppo-sample:{path}", rules)
    st = init(rules, 32, seed=0)
    acts = agent.act(observe(rules, st, 0), st.legal, np.random.default_rng(0))
    assert st.legal[np.arange(32), acts].all()


def test_other_rules_are_refused_naming_the_options(tmp_path):
    path = _random_file(tmp_path / "a.agent.safetensors")
    with pytest.raises(AgentFileError, match=r"a\.agent\.safetensors was made for other rules.*four_of_a_kind"):
        FileAgent(path, preset("bombs"))


def test_a_session_of_another_length_is_not_other_rules(tmp_path):
    path = _random_file(tmp_path / "a.agent.safetensors")
    for rules in (preset("president", hands_per_session=1), preset("president", target_points=5)):
        agent = FileAgent(path, rules)
        st = init(rules, 8, seed=1)
        assert st.legal[np.arange(8), agent.act(observe(rules, st, 0), st.legal, np.random.default_rng(0))].all()
    with pytest.raises(AgentFileError, match=r"hands_per_session.*players|players"):
        FileAgent(path, preset("president", hands_per_session=1, players=5))


def test_a_truncated_file_is_refused_naming_it(tmp_path):
    path = _random_file(tmp_path / "a.agent.safetensors")
    raw = path.read_bytes()
    cut = tmp_path / "cut.agent.safetensors"
    cut.write_bytes(raw[: len(raw) - 100])
    with pytest.raises(AgentFileError, match=r"cut\.agent\.safetensors: truncated"):
        FileAgent(cut, preset("president"))
    head = tmp_path / "head.agent.safetensors"
    head.write_bytes(raw[:20])
    with pytest.raises(AgentFileError, match=r"head\.agent\.safetensors: not an agent file"):
        FileAgent(head, preset("president"))


def test_a_shape_mismatch_is_refused_naming_the_tensor(tmp_path):
    from safetensors.numpy import load_file, save_file

    path = _random_file(tmp_path / "a.agent.safetensors")
    meta, _ = read_agent_file(path)
    tensors = load_file(str(path))
    tensors["hidden.0.weight"] = tensors["hidden.0.weight"][:, :-1].copy()
    bad = tmp_path / "bad.agent.safetensors"
    save_file(tensors, str(bad), metadata={"president-agent": json.dumps(meta)})
    with pytest.raises(AgentFileError, match=r"bad\.agent\.safetensors: tensor hidden\.0\.weight has shape"):
        FileAgent(bad, preset("president"))
    meta["observation_size"] += 1
    save_file(load_file(str(path)), str(bad), metadata={"president-agent": json.dumps(meta)})
    with pytest.raises(AgentFileError, match=r"bad\.agent\.safetensors: tensor hidden\.0\.weight has shape"):
        FileAgent(bad, preset("president"))


def test_not_an_agent_file(tmp_path):
    junk = tmp_path / "junk.agent.safetensors"
    junk.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    with pytest.raises(AgentFileError, match=r"junk\.agent\.safetensors: not an agent file"):
        FileAgent(junk, preset("president"))
    with pytest.raises(FileNotFoundError, match="nowhere"):
        make_agent("ppo:nowhere.agent.safetensors", preset("president"))


def test_float16_export_halves_the_file_and_plays_the_rounded_network(model_zip, tmp_path):
    rules = preset("president")
    full = export_sb3_zip(model_zip, tmp_path / "full.agent.safetensors")
    half = export_sb3_zip(model_zip, tmp_path / "half.agent.safetensors", dtype="float16")
    assert half.stat().st_size < 0.6 * full.stat().st_size
    meta, tensors = read_agent_file(half)
    assert all(t.dtype == np.float16 for t in tensors.values())     # the header says so: no metadata of its own
    assert meta["made_by"]["exported_from"] == "model.zip"
    _, full_tensors = read_agent_file(full)
    a, b = FileAgent(full, rules), FileAgent(half, rules)
    for (w32, b32), (w16, b16), k in zip(a.layers, b.layers, ["hidden.0", "hidden.1", "action"], strict=True):
        assert w16.dtype == np.float32    # computed in float32 after loading ...
        np.testing.assert_array_equal(w32, full_tensors[f"{k}.weight"])
        np.testing.assert_array_equal(w16, w32.astype(np.float16).astype(np.float32))
        np.testing.assert_array_equal(b16, b32.astype(np.float16).astype(np.float32))   # ... from the rounded weights
    st = init(rules, 256, seed=3, start_ranks="random")
    obs = observe(rules, st, 0)
    np.testing.assert_allclose(a.logits(obs), b.logits(obs), atol=1e-2)
    same = (a.act(obs, st.legal, np.random.default_rng(0)) == b.act(obs, st.legal, np.random.default_rng(0))).mean()
    assert same > 0.95


def test_other_tensor_types_and_dtypes_are_refused(tmp_path):
    from safetensors.numpy import load_file, save_file

    path = _random_file(tmp_path / "a.agent.safetensors")
    meta, _ = read_agent_file(path)
    tensors = {k: v.astype(np.int32) if k == "action.bias" else v for k, v in load_file(str(path)).items()}
    bad = tmp_path / "int.agent.safetensors"
    save_file(tensors, str(bad), metadata={"president-agent": json.dumps(meta)})
    with pytest.raises(AgentFileError, match=r"int\.agent\.safetensors: tensor action\.bias is int32"):
        FileAgent(bad, preset("president"))
    with pytest.raises(AgentFileError, match="dtype 'int8' is not one of"):
        write_agent_file(tmp_path / "b.agent.safetensors", preset("president"), [], dtype="int8")


def test_export_agent_command(model_zip, tmp_path, capsys):
    from president_cli.main import main

    out = tmp_path / "cli.agent.safetensors"
    assert main(["export-agent", str(model_zip), str(out), "--float16", "--command", "president train --seed 5"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    meta, tensors = read_agent_file(out)
    assert all(t.dtype == np.float16 for t in tensors.values())
    assert meta["made_by"]["command"] == "president train --seed 5"
    with pytest.raises(SystemExit) as e:
        main(["export-agent", str(tmp_path / "missing.zip"), str(tmp_path / "x.agent.safetensors")])
    assert e.value.code == 2 and "missing.zip" in capsys.readouterr().err
