"""``president train --recipe NAME``: a named set of settings, under the ``--set`` overrides."""

from __future__ import annotations

import pytest
from cli_run import run_cli

import training.train as train_module
from training.hyperparams import RECIPES, SOLO, recipe_settings, settings_for


@pytest.fixture
def captured(monkeypatch):
    """Replace the training by a recorder of the settings it was given."""
    seen = {}

    def fake_train(targs, started):
        seen["settings"] = targs.settings
        raise ValueError("stopped by the test")       # reported as a usage error; nothing trained

    monkeypatch.setattr(train_module, "train", fake_train)
    return seen


def test_the_recipe_reaches_the_run_and_set_wins_over_it(captured, capsys, tmp_path):
    code, err = run_cli(["train", "--preset", "president", "--recipe", "solo", "--set", "ent_coef=0.02",
                         "--out", str(tmp_path / "r"), "--minutes", "1", "--no-progress"], capsys)
    assert code == 2 and "stopped by the test" in err
    assert captured["settings"] == {**SOLO, "ent_coef": 0.02}
    s = settings_for("president", **captured["settings"])
    assert (s.learner_seats, s.pool, s.learning_rate, s.ent_coef) == (1, {"heuristic": 1.0}, 3e-4, 0.02)


def test_without_a_recipe_only_set_is_given(captured, capsys, tmp_path):
    run_cli(["train", "--preset", "president", "--set", "n_envs=64", "--out", str(tmp_path / "r"), "--no-progress"],
            capsys)
    assert captured["settings"] == {"n_envs": 64}


def test_an_unknown_recipe_is_named_with_the_recipes(capsys, tmp_path):
    code, err = run_cli(["train", "--recipe", "sollo", "--out", str(tmp_path / "r"), "--no-progress"], capsys)
    assert code == 2 and "--recipe" in err and "'sollo'" in err and all(name in err for name in RECIPES)
    assert not (tmp_path / "r").exists()


def test_a_recipe_is_refused_with_rllib(capsys, tmp_path):
    code, err = run_cli(["train", "--recipe", "solo", "--backend", "rllib", "--out", str(tmp_path / "r"),
                         "--no-progress"], capsys)
    assert code == 2 and "--recipe goes with --backend sb3" in err


def test_recipe_settings_are_a_copy():
    mine = recipe_settings("thin")
    mine["pool"]["heuristic"] = 0.0
    assert RECIPES["thin"]["pool"]["heuristic"] == 0.85
