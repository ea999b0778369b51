"""What a person meets first on the command line: --version, help texts, error prefixes, shared files."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.agent_file import read_agent_file, write_agent_file
from president_cli.main import build_parser, main, package_version
from president_cli.play import play_session
from president_env.core import PRESETS, init, n_actions, preset, tables
from president_env.core import observation as O
from president_env.core.render import render


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return dict(sub.choices)


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"president {package_version()}"
    assert re.fullmatch(r"president \d+\.\d+\.\d+\S*", out)


def test_every_option_has_help():
    missing = [f"{name} {'/'.join(a.option_strings) or a.dest}" for name, p in _commands().items()
               for a in p._actions if a.help is None]
    assert not missing, f"options without a help text: {missing}"


@pytest.mark.parametrize("command", ["train", "train-all"])
def test_train_help_states_the_defaults(command):
    for a in _commands()[command]._actions:
        if not a.option_strings or a.default in (None, False, [], argparse.SUPPRESS) or a.dest == "help":
            continue
        assert "default" in a.help, f"{command} {a.option_strings[0]}: its help does not state its default"
    text = _commands()["train"].format_help()
    assert "5,000,000" in text and "--seed" in text


def test_no_option_hides_the_command_name():
    # the error prefix is `president COMMAND: error:`; an option whose dest is "command" would replace it
    for name, p in _commands().items():
        assert all(a.dest not in ("command", "func") for a in p._actions), name


def test_export_agent_error_names_the_command(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["export-agent", str(tmp_path / "missing.zip"), str(tmp_path / "out.agent.safetensors")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("president export-agent: error: ") and "None" not in err


def test_unknown_agent_lists_the_choices_once(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--opponents", "nobody", "--seed", "1"])
    err = capsys.readouterr().err
    assert "unknown agent 'nobody'" in err
    assert err.count("heuristic") == 1, err


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_agent_files_follow_the_umask(tmp_path, umask, mode):
    rules = preset("president")
    layers = [(np.zeros((8, O.size(rules)), np.float32), np.zeros(8, np.float32)),
              (np.zeros((n_actions(rules), 8), np.float32), np.zeros(n_actions(rules), np.float32))]
    old = os.umask(umask)
    try:
        path = write_agent_file(tmp_path / "a.agent.safetensors", rules, layers)
    finally:
        os.umask(old)
    assert Path(path).stat().st_mode & 0o777 == mode
    read_agent_file(path)  # still a valid agent file


@pytest.mark.parametrize("name", ["president", "double_deck", "deck_and_a_half", "huberes", "rich_man_poor_man",
                                  "daifugo_runs"])
def test_play_keeps_within_80_columns(name):
    rules = preset(name, hands_per_session=1)
    out = io.StringIO()
    play_session(rules, ["heuristic"] * (rules.players - 1), seed=3, inp=io.StringIO("1\n?\n" * 400), out=out,
                 start_ranks="random", width=80)
    lines = out.getvalue().splitlines()
    assert any(line.startswith("your move") or "your move [" in line for line in lines)
    long = [line for line in lines if len(line) > 80]
    assert not long, long[:3]


@pytest.mark.parametrize("name", PRESETS)
def test_render_fits_a_width_and_keeps_every_card(name):
    rules = preset(name)
    st = init(rules, batch_size=1, seed=5, start_ranks="random")
    wide = render(rules, st, agents=["heuristic"] * rules.players)
    narrow = render(rules, st, agents=["heuristic"] * rules.players, width=80)
    assert all(len(line) <= 80 for line in narrow.splitlines()), narrow
    names = set(tables(rules).card_names)
    cards = [Counter(tok for tok in text.split() if tok in names) for text in (wide, narrow)]
    assert cards[0] == cards[1] and sum(cards[0].values()) >= len(names) // 2  # every hand shown, each card once


def test_numpy_blas_runs_on_one_thread_unless_told_otherwise():
    code = "import os, president_cli.main; print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1"]
    out = subprocess.run([sys.executable, "-c", code], env=env | {"OPENBLAS_NUM_THREADS": "2"}, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["2", "1"]
