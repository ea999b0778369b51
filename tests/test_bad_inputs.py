"""Inputs that gave tracebacks or lost work (issue 24): each is now a named error, and no output is half written.

The command line checks every argument before any work; records and agent files are read
within stated limits (:mod:`president_env.core.jsonio`); ``replay --check`` checks the deal
against the key; ``simulate --records`` and ``play --record`` replace a file only when done.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

from agents.agent_file import AgentFileError, FileAgent, read_agent_file, write_agent_file
from agents.base import PolicyError
from president_cli.main import main
from president_env.core import init, make_keys, n_actions, observe, preset, tables
from president_env.core import observation as O
from president_env.core.records import (
    Recorder,
    RecordError,
    ReplayError,
    check_deal,
    random_actions,
    read_records,
    replay,
    write_records,
)


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "r.jsonl"
    assert main(["simulate", "--preset", "president", "--games", "2", "--seed", "4", "--hands", "2",
                 "--records", str(path), "--no-progress", "--random-ranks"]) == 0
    return path


# --------------------------------------------------------------------------- arguments
@pytest.mark.parametrize("argv, words", [
    (["simulate", "--preset", "president", "--games", str(10**12), "--records", "x.jsonl"], "--games: expected an "
                                                                                            "integer 1..1000000"),
    (["simulate", "--preset", "president", "--games", "2", "--seed", "-1", "--records", "x.jsonl"], "--seed"),
    (["simulate", "--preset", "president", "--games", "2", "--hands", "0", "--records", "x.jsonl"], "--hands"),
    (["simulate", "--preset", "president", "--games", "2", "--batch-size", "10000000", "--records", "x.jsonl"],
     "--batch-size"),
    (["evaluate", "--preset", "president", "--agents", "random,random,random,random", "--games", str(10**12)],
     "--games"),
    (["evaluate", "--preset", "president", "--agents", "random,random,random,random", "--seed", "-5"], "--seed"),
    (["play", "--delay", "nan"], "--delay"),
    (["play", "--seed", "99999999999999999999999"], "--seed"),
    (["train", "--out", "o", "--minutes", "inf"], "--minutes"),
    (["train", "--out", "o", "--timesteps", "0"], "--timesteps"),
    (["train", "--out", "o", "--checkpoint-every", "0"], "--checkpoint-every"),
    (["serve", "--port", "0"], "--port"),
    (["replay", "r.jsonl", "--index", "-1"], "--index"),
])
def test_arguments_out_of_range_are_refused_before_any_work(argv, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, err = run_cli(argv, capsys)
    assert code == 2 and words in err, err
    assert list(tmp_path.iterdir()) == []      # nothing written


@pytest.mark.parametrize("where, words", [
    ("missing/x.jsonl", "does not exist"),
    (".", "is a folder"),
    ("file/x.jsonl", "does not exist"),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(where, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("file").write_text("a file, not a folder")
    code, err = run_cli(["simulate", "--preset", "president", "--games", "2", "--records", where, "--no-progress"],
                        capsys)
    assert code == 2 and "--records" in err and words in err, err
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 50))
    code, err = run_cli(["play", "--record", where, "--seed", "1", "--hands", "1"], capsys)
    assert code == 2 and "--record" in err and words in err, err
    assert "President: preset" not in capsys.readouterr().out       # refused before the session, not after it


# --------------------------------------------------------------------------- output files
def test_a_killed_or_interrupted_simulate_leaves_the_old_records_file_intact(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("the earlier run's records\n")
    argv = [sys.executable, "-m", "president_cli.main", "simulate", "--preset", "president", "--games", "200000",
            "--records", str(path), "--no-progress", "--batch-size", "1", "--force"]
    for sig in (signal.SIGINT, signal.SIGKILL):
        # Ctrl-C's default in the child even where this run was started in the background (a shell's `&`
        # makes SIGINT ignored, children inherit that, and Python then never raises KeyboardInterrupt)
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.time() + 120
            # writing has begun, a few sessions in (a session of president is well under 500 KB of records)
            while not any(p.stat().st_size > 500_000 for p in tmp_path.glob(".r.jsonl.*.part")):
                assert proc.poll() is None and time.time() < deadline, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.05)
            proc.send_signal(sig)
            proc.wait(60)
        finally:
            proc.kill()
        assert path.read_text() == "the earlier run's records\n"
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and "Traceback" not in proc.stderr.read()
            assert list(tmp_path.glob(".r.jsonl.*.part")) == []     # Ctrl-C moves its temporary file ...
            kept = read_records(tmp_path / "r.partial.jsonl")           # ... to the sessions it finished
            assert kept
            for rec in kept:
                replay(rec)
        else:
            assert len(list(tmp_path.glob(".r.jsonl.*.part"))) == 1     # SIGKILL leaves its .part file ...
    assert main(["simulate", "--preset", "president", "--games", "1", "--records", str(path), "--no-progress",
                 "--force"]) == 0
    assert len(read_records(path)) >= 1                                # a finished run replaces it
    assert list(tmp_path.glob(".r.jsonl.*.part")) == []                 # ... which the next writer removes


class _Keys(io.StringIO):
    """Standard input that types the first move ``n`` times, then Ctrl-C."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def readline(self, *args) -> str:
        self.n -= 1
        if self.n < 0:
            raise KeyboardInterrupt
        return "1\n"


def test_ctrl_c_in_play_keeps_the_finished_hands(tmp_path, monkeypatch, capsys):
    path = tmp_path / "mine.jsonl"
    monkeypatch.setattr(sys, "stdin", _Keys(60))
    code = main(["play", "--seed", "3", "--hands", "50", "--record", str(path), "--opponents", "random"])
    out = capsys.readouterr().out
    assert code == 130 and "Interrupted" in out
    recs = read_records(path)
    assert 1 <= len(recs) < 50
    for rec in recs:
        replay(rec)


# --------------------------------------------------------------------------- records
def _rigged(tmp_path: Path) -> Path:
    """A hand written by the package's own Recorder in which player 0 was dealt every two and ace."""
    rules = preset("president", hands_per_session=1)
    names = tables(rules).card_names
    best = [c for c, n in enumerate(names) if n[0] in "2A"]
    rest = [c for c in range(len(names)) if c not in best]
    deal = np.zeros((1, rules.players, len(names)), dtype=bool)
    deal[0, 0, best] = True
    for i, c in enumerate(rest):
        deal[0, 1 + i % 3, c] = True
    rng = np.random.default_rng(0)
    recs = Recorder(rules, init(rules, keys=make_keys(1, 7), deal=deal), deal=deal).run(
        lambda s: random_actions(s.legal, rng))
    path = tmp_path / "rigged.jsonl"
    write_records(path, recs)
    return path


def test_replay_check_refuses_a_rigged_deal(tmp_path, records, capsys):
    path = _rigged(tmp_path)
    rec = read_records(path)[0]
    replay(rec)                                      # every play in it is legal ...
    code, err = run_cli(["replay", str(path), "--check"], capsys)
    assert code == 1 and "deal: hand 0 of session 0: the key deals player 0 (seat 0)" in err, err
    assert "'AC', 'AD', 'AH', 'AS', '2C', '2D', '2H', '2S'" in err
    with pytest.raises(ReplayError, match="the key deals player 0"):
        check_deal(rec)
    assert main(["replay", str(records), "--check"]) == 0        # the key's own deals pass
    assert "replayed and verified" in capsys.readouterr().out


def _line(records: Path, change) -> str:
    rec = json.loads(records.read_text().splitlines()[1])
    change(rec)
    return json.dumps(rec)


@pytest.mark.parametrize("text, words", [
    (b"\xff\xfe{}\n", ":1: not UTF-8 text (byte 0"),
    (b"[" * 100000 + b"]" * 100000 + b"\n", ":1: arrays and objects nested 100000 deep"),
    (b'{"a": ' + b"9" * 5000 + b"}\n", ":1: an integer of 5000 digits"),
    (b'{"a": NaN}\n', ":1: NaN is not a number"),
    (b" " * (2 << 20) + b"\n", ":1: longer than"),
    (lambda r: r.__setitem__("dealer", 10**19), ":1: field 'dealer' must be an integer 0..63"),
    (lambda r: r.__setitem__("hand", 10**19), ":1: field 'hand' must be an integer 0..1000000"),
    (lambda r: r["rules"].__setitem__("scoring", [10**19, 1]), "scoring=[10000000000000000000, 1]: every entry"),
    (lambda r: r["rules"].__setitem__("hands_per_session", 10**12), "hands_per_session=1000000000000: must be"),
    (lambda r: r.__setitem__("seats", [0, 1, 2, 99]), ":1: field 'seats' must be a list of integers 0..63"),
    (lambda r: r.__setitem__("seats", [0, 1, 2, 2]), "seat_player must be a permutation"),
])
def test_hostile_records_are_named_errors(text, words, records, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(text if isinstance(text, bytes) else (_line(records, text) + "\n").encode())
    for argv in (["replay", str(path), "--check"], ["replay", str(path)]):
        code, err = run_cli(argv, capsys)
        assert code == 1 and words in err and "bad.jsonl" in err, err
    with pytest.raises((RecordError, ReplayError), match="."):
        for rec in read_records(path):
            replay(rec)


# --------------------------------------------------------------------------- agent files
def _layers(scale: float = 1.0) -> list[tuple[np.ndarray, np.ndarray]]:
    from president_env.core import n_actions
    from president_env.core import observation as O

    rules = preset("president")
    rng = np.random.default_rng(0)
    sizes = [O.size(rules), 16, n_actions(rules)]
    return [(rng.normal(size=(o, i)).astype(np.float32) * scale, np.zeros(o, np.float32))
            for i, o in zip(sizes[:-1], sizes[1:], strict=True)]


def test_non_finite_weights_are_refused_by_name(tmp_path):
    for bad in (np.nan, np.inf):
        layers = _layers()
        layers[1][1][5] = bad
        path = write_agent_file(tmp_path / "w.agent.safetensors", preset("president"), layers)
        with pytest.raises(AgentFileError, match=r"w\.agent\.safetensors: tensor action\.bias holds 1 non-finite"):
            read_agent_file(path)


def test_a_network_that_overflows_is_a_named_error_not_an_illegal_move(tmp_path, capsys):
    layers = _layers()
    layers[0] = (np.zeros_like(layers[0][0]), np.full_like(layers[0][1], 10.0))   # every hidden unit 1 ...
    layers[1] = (np.full_like(layers[1][0], -3e38), layers[1][1])    # ... so every logit is -inf (finite weights)
    path = write_agent_file(tmp_path / "inf.agent.safetensors", preset("president"), layers)
    rules = preset("president")
    agent = FileAgent(path, rules)
    st = init(rules, 4, seed=1)
    assert np.isneginf(agent.logits(observe(rules, st, 0))).all()
    with pytest.raises(PolicyError, match="non-finite logit"):
        agent.act(observe(rules, st, 0), st.legal, np.random.default_rng(0))
    code, err = run_cli(["evaluate", "--preset", "president", "--agents", f"ppo:{path},random,random,random",
                         "--games", "2", "--hands", "1", "--no-progress"], capsys)
    assert code == 1 and "non-finite logit" in err


def _header_file(path: Path, header: bytes) -> Path:
    path.write_bytes(len(header).to_bytes(8, "little") + header)
    return path


@pytest.mark.parametrize("header, words", [
    (b'{"__metadata__": [1, 2]}', "__metadata__ is not a JSON object"),
    (b'{"__metadata__": {"president-agent": 5}}', "metadata is not a JSON string"),
    (json.dumps({"__metadata__": {"president-agent": "[" * 5000 + "]" * 5000}}).encode(), "nested 5000 deep"),
    (json.dumps({"__metadata__": {"president-agent": '{"n": ' + "9" * 5000 + "}"}}).encode(), "5000 digits"),
    (b"[" * 50000 + b"]" * 50000, "nested 50000 deep"),
    (b'{"a": ' + b"7" * 5000 + b"}", "5000 digits"),
    (json.dumps({"__metadata__": {"president-agent": json.dumps(
        {"format": "president-agent/1", "rules": {}, "observation_size": "x", "n_actions": 1,
         "architecture": {}})}}).encode(), "observation_size must be an integer"),
    (json.dumps({"__metadata__": {"president-agent": json.dumps(
        {"format": "president-agent/1", "rules": {}, "observation_size": 3, "n_actions": 1,
         "architecture": {"type": "mlp", "activation": "tanh", "hidden": [10**18]}})}}).encode(), "hidden sizes"),
    (json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": "x"}, "__metadata__": {"president-agent": "{}"}}
                ).encode(), "format"),
])
def test_hostile_agent_file_headers_are_named_errors(header, words, tmp_path):
    path = _header_file(tmp_path / "h.agent.safetensors", header)
    with pytest.raises(AgentFileError, match="h.agent.safetensors") as e:
        FileAgent(path, preset("president"))
    assert words in str(e.value)


def test_an_agent_file_error_does_not_show_the_files_first_bytes(tmp_path):
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n" * 40)
    with pytest.raises(AgentFileError) as e:
        FileAgent(path, preset("president"))
    number = str(int.from_bytes(b"root:x:0", "little"))
    assert number not in str(e.value) and "root" not in str(e.value).replace(str(path), "")


def test_search_settings_have_upper_bounds(capsys):
    from agents.search import SearchAgent

    with pytest.raises(ValueError, match="worlds must be 1..4096"):
        SearchAgent(preset("president"), worlds=10**9)     # tried to allocate 7 GB
    with pytest.raises(ValueError, match="at most 65536"):
        SearchAgent(preset("president"), worlds=4096, actions=256)
    code, err = run_cli(["evaluate", "--preset", "president", "--agents",
                         "search:worlds=1000000000,random,random,random", "--games", "1", "--no-progress"], capsys)
    assert code == 2 and "worlds must be 1..4096" in err


def test_exploitability_names_an_overflowing_sampled_network_and_refuses_a_tree_past_memory(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    from president_env.small_variants import variant_rules

    rules = variant_rules("micro")
    sizes = [O.size(rules), 8, n_actions(rules)]
    layers = [(np.zeros((sizes[1], sizes[0]), np.float32), np.full(sizes[1], 10.0, np.float32)),
              (np.full((sizes[2], sizes[1]), -3e38, np.float32), np.zeros(sizes[2], np.float32))]   # logits -inf
    path = write_agent_file(tmp_path / "inf.agent.safetensors", rules, layers)
    code, err = run_cli(["exploitability", "--preset", "micro", "--agents", f"ppo-sample:{path}"], capsys)
    assert code == 1 and "non-finite logit" in err and "Traceback" not in err, err
    code, err = run_cli(["exploitability", "--preset", "president", "--agents", "random"], capsys)   # no 33 MB/s
    assert code == 2 and "--preset president: an exact best response over a hand of president" in err, err
    assert "would need about" in err and "GiB of memory" in err and "small variants" in err


def test_simulate_refuses_an_existing_records_file_without_force(tmp_path, capsys):
    path = tmp_path / "mine.jsonl"
    path.write_text("a run I want to keep\n")
    code, err = run_cli(["simulate", "--preset", "president", "--games", "1", "--records", str(path),
                         "--no-progress"], capsys)
    assert code == 2 and f"--records {path} already exists" in err and "--force" in err, err
    assert path.read_text() == "a run I want to keep\n"


def test_ctrl_c_in_simulate_keeps_the_finished_sessions_in_a_partial_file(tmp_path, monkeypatch, capsys):
    from president_cli import core_commands

    real, batches = core_commands.write_records, []

    def write_then_stop(out, batch):        # Ctrl-C in the middle of the third batch's writing
        batches.append(len(batch))
        if len(batches) == 3:
            out.write('{"half a record')
            raise KeyboardInterrupt
        return real(out, batch)

    monkeypatch.setattr(core_commands, "write_records", write_then_stop)
    path = tmp_path / "r.jsonl"
    (tmp_path / "r.partial.jsonl").write_text("an earlier partial file\n")
    code, err = run_cli(["simulate", "--preset", "president", "--games", "40", "--batch-size", "8", "--hands", "1",
                         "--records", str(path), "--no-progress"], capsys)
    assert code == 130 and "interrupted after 16 of 40 sessions" in err and "r.partial-2.jsonl" in err, err
    assert not path.exists() and (tmp_path / "r.partial.jsonl").read_text() == "an earlier partial file\n"
    kept = read_records(tmp_path / "r.partial-2.jsonl")      # whole records only: the cut batch is left out
    assert sorted({r["session"] for r in kept}) == list(range(16)) and len(kept) == batches[0] + batches[1]
    for rec in kept:
        replay(rec)


def test_a_killed_writers_part_file_is_removed_by_the_next_writer_but_a_live_ones_is_not(tmp_path):
    from president_env.core.files import atomic_writer

    path = tmp_path / "out.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".out.json.{int(dead.stdout)}-0a1b2c3d.part"
    live = tmp_path / f".out.json.{os.getppid()}-0a1b2c3d.part"    # a process that runs: another writer's
    old = tmp_path / ".out.json.0a1b2c3d.part"                      # the names of earlier versions: by age
    for p in (stale, live, old):
        p.write_text("x" * 1000)
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    with atomic_writer(path) as f:
        f.write("{}")
    assert not stale.exists() and not old.exists() and live.exists() and path.read_text() == "{}"


def test_ctrl_c_in_evaluate_keeps_the_finished_deals_in_a_partial_json(tmp_path, monkeypatch, capsys):
    from agents import arena

    real, chunks = arena._play_chunk, []

    def stop_in_the_third(*a, **kw):
        chunks.append(1)
        if len(chunks) == 3:
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(arena, "_play_chunk", stop_in_the_third)
    path = tmp_path / "figures.json"
    path.write_text('{"an earlier run": true}\n')
    code, err = run_cli(["evaluate", "--preset", "president", "--agents", "heuristic,greedy,random,random",
                         "--games", "20", "--hands", "1", "--batch-size", "8", "--json", str(path),
                         "--no-progress"], capsys)
    assert code == 130 and "interrupted after 4 of 20 deals" in err and "figures.partial.json" in err, err
    assert path.read_text() == '{"an earlier run": true}\n'
    data = json.loads((tmp_path / "figures.partial.json").read_text())
    assert data["partial"]["deals_played"] == 4 and data["partial"]["deals_asked"] == 20 and data["deals"] == 4
    assert data["sessions"] == 16
