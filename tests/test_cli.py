"""The ``president`` command line: variants, simulate, replay (check and show), and its errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from president_cli.main import build_parser, main
from president_env.core import PRESETS


def _simulate(path, *extra, preset="president", games=3, seed=1, hands=2):
    argv = ["simulate", "--preset", preset, "--games", str(games), "--seed", str(seed), "--records", str(path),
            "--no-progress", *extra]
    if hands is not None:
        argv += ["--hands", str(hands)]
    return main(argv)


@pytest.fixture
def records(tmp_path):
    path = tmp_path / "r.jsonl"
    assert _simulate(path) == 0
    return path


def test_variants_lists_every_preset(capsys):
    assert main(["variants"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert name in out
    assert "four_of_a_kind" in out and "seed 004" in out


def test_simulate_writes_one_record_per_hand(records, capsys):
    lines = records.read_text().splitlines()
    assert len(lines) == 3 * 2
    recs = [json.loads(line) for line in lines]
    assert sorted((r["session"], r["hand"]) for r in recs) == [(g, h) for g in range(3) for h in range(2)]
    assert all(r["agents"] == ["random"] * 4 for r in recs)
    assert main(["replay", str(records), "--check"]) == 0
    out = capsys.readouterr().out
    decisions = sum(len(r["decisions"]) for r in recs)
    assert f"ok: 6 records, {decisions} decisions replayed and verified" in out


def test_simulate_summary_counts_hands(tmp_path, capsys):
    assert _simulate(tmp_path / "a.jsonl", preset="huberes", games=2, hands=3) == 0
    out = capsys.readouterr().out
    assert "huberes, 6 players" in out and "2 sessions, 6 hands" in out


def test_simulate_plays_to_the_target_without_hands(tmp_path):
    path = tmp_path / "a.jsonl"
    assert _simulate(path, games=2, hands=None) == 0
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    for g in (0, 1):
        totals = [0] * 4
        for r in (r for r in recs if r["session"] == g):
            totals = [t + p for t, p in zip(totals, r["points"], strict=True)]
        assert max(totals) >= 11


def test_same_seed_same_records_whatever_the_batch(tmp_path):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    assert _simulate(a, "--batch-size", "1", preset="ass_poker") == 0
    assert _simulate(b, "--batch-size", "64", preset="ass_poker") == 0
    assert _simulate(c, "--batch-size", "2", preset="ass_poker", seed=2) == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_players_option_and_random_ranks(tmp_path):
    path = tmp_path / "a.jsonl"
    assert _simulate(path, "--players", "5", "--random-ranks", games=1, hands=1) == 0
    (rec,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert rec["rules"]["players"] == 5 and len(rec["deal"]) == 5
    assert rec["prev_ranks"] is not None and len(rec["exchanges"]) == 2


def test_check_fails_on_a_tampered_record(records, capsys):
    lines = records.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["points"][0] += 1
    lines[2] = json.dumps(rec)
    records.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(records), "--check"]) == 1
    err = capsys.readouterr().err
    assert f"{records}:3: record 2" in err and "points" in err and "Traceback" not in err


def test_check_fails_on_a_changed_legal_list(records, capsys):
    lines = records.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["decisions"][4]["legal"].append(99)
    lines[0] = json.dumps(rec)
    records.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(records), "--check"]) == 1
    assert "decision 4 (play): legal action ids differ" in capsys.readouterr().err


def test_check_fails_on_corrupt_json(records, capsys):
    with open(records, "a") as f:
        f.write('{"format": "president-record/1", \n')
    assert main(["replay", str(records), "--check"]) == 1
    assert f"{records}:7: not valid JSON" in capsys.readouterr().err


def test_check_fails_on_an_empty_file(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert main(["replay", str(path), "--check"]) == 1
    assert "holds no records" in capsys.readouterr().err


def test_replay_shows_a_hand_step_by_step(records, capsys):
    rec = json.loads(records.read_text().splitlines()[1])
    assert main(["replay", str(records), "--index", "1"]) == 0
    out = capsys.readouterr().out
    assert f"session {rec['session']}, hand {rec['hand']}" in out
    assert out.count("\ndecision ") == len(rec["decisions"])
    assert "finishing order:" in out and "points:" in out
    # Every dealt hand is shown without a viewer.
    for hand in rec["deal"]:
        assert " ".join(hand) in out


def test_replay_with_a_viewer_hides_the_other_deals(records, capsys):
    rec = json.loads(records.read_text().splitlines()[0])
    assert main(["replay", str(records), "--viewer", "2", "--tables"]) == 0
    out = capsys.readouterr().out
    assert " ".join(rec["deal"][2]) in out
    assert " ".join(rec["deal"][0]) not in out
    assert out.count("phase play") >= len(rec["decisions"])  # a table before every decision


@pytest.mark.parametrize("argv", [
    ["simulate", "--preset", "no_such_game", "--games", "1", "--records", "x.jsonl"],
    ["simulate", "--preset", "president", "--players", "13", "--games", "1", "--records", "x.jsonl"],
    ["simulate", "--preset", "president", "--games", "0", "--records", "x.jsonl"],
    ["replay", "no_such_file.jsonl", "--check"],
])
def test_usage_errors_exit_2_without_a_traceback(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert not (tmp_path / "x.jsonl").exists()


LONG = "a" * 5000     # a file name the system refuses (ENAMETOOLONG)


@pytest.mark.parametrize("argv", [
    ["train", "--out", LONG, "--timesteps", "10", "--no-progress"],
    ["train", "--init", LONG, "--out", "o", "--no-progress"],
    ["train", "--resume", LONG, "--out", "o", "--no-progress"],
    ["evaluate", "--preset", "president", "--agents", f"ppo:{LONG},heuristic,heuristic,heuristic", "--games", "2",
     "--no-progress"],
    ["evaluate", "--preset", "president", "--agents", "heuristic,heuristic,heuristic,heuristic", "--games", "2",
     "--json", LONG, "--no-progress"],
    ["zoo-add", "--preset", "president", "--agent", LONG, "--train-command", "x", "--train-minutes", "1",
     "--no-progress"],
])
def test_a_path_the_system_refuses_is_named_not_a_traceback(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code in (1, 2) and "Traceback" not in err, err
    assert "File name too long" in err and "aaaa" in err and len(err) < 1000, err   # named, shortened
    assert list(tmp_path.iterdir()) == []


def test_unknown_preset_message_names_the_presets(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--preset", "nope", "--games", "1", "--records", "x.jsonl"])
    err = capsys.readouterr().err
    assert "unknown preset 'nope'" in err and "daifugo" in err


def test_replay_index_out_of_range(records, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(records), "--index", "6"])
    assert exc.value.code == 2
    assert "holds only 6 record(s)" in capsys.readouterr().err


def test_parser_has_the_core_subcommands():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"variants", "simulate", "replay"} <= set(sub.choices)


def test_console_entry_point_exit_codes(tmp_path):
    code = "import sys; from president_cli.main import main; sys.exit(main())"
    ok = subprocess.run([sys.executable, "-c", code, "variants"], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "double_deck" in ok.stdout
    bad = subprocess.run([sys.executable, "-c", code, "simulate", "--preset", "nope", "--games", "1",
                          "--records", str(tmp_path / "x.jsonl")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown preset" in bad.stderr and "Traceback" not in bad.stderr
