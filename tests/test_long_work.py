"""Long work says so: the tournament's bar shows no time left until a whole batch is done (then it does), the
engine is compiled or loaded before the bar, and an agent file loads with a line naming it."""

from __future__ import annotations

import re

from agents.arena import BAR_FORMAT, run_tournament
from president_cli.main import main
from president_env.core import preset


def test_the_bar_has_no_eta_until_a_batch_is_done(capsys):
    rules = preset("president", hands_per_session=1)
    run_tournament(rules, ["heuristic", "greedy", "random", "random"], 8, seed=0, batch_size=8, progress=True)
    err = capsys.readouterr().err
    frames = [f for f in re.split(r"[\r\n]", err) if "/32" in f]
    assert frames, err
    assert "{remaining}" not in BAR_FORMAT and not any("<" in f or "?" in f for f in frames), frames
    # 8 deals x 4 seatings in batches of 2 deals: after the first batch the bar says the time left
    assert any("left]" in f for f in frames), frames


def test_one_batch_never_shows_a_time_left(capsys):
    rules = preset("president", hands_per_session=1)
    run_tournament(rules, ["heuristic"] * 4, 4, seed=0, progress=True)
    assert "left" not in capsys.readouterr().err


def test_evaluate_names_the_agent_it_loads(capsys):
    assert main(["evaluate", "--preset", "president", "--agents", "zoo:president,heuristic,heuristic,heuristic",
                 "--games", "2", "--hands", "1"]) == 0
    err = capsys.readouterr().err
    assert "president: loading the agent zoo:president" in err
    assert re.search(r"president: loaded zoo:president in \d+ s", err)
    assert "loading the agent heuristic" not in err


def test_no_progress_means_no_lines(capsys):
    assert main(["evaluate", "--preset", "president", "--agents", "zoo:president,heuristic,heuristic,heuristic",
                 "--games", "2", "--hands", "1", "--no-progress"]) == 0
    assert "loading the agent" not in capsys.readouterr().err


def test_ppo_on_sb3s_loop_shows_the_time_left_to_the_budget_not_to_the_timesteps(capsys):
    import time
    from types import SimpleNamespace

    from training.train import DeadlineBar

    bar = DeadlineBar(time.time() + 75)
    bar.model = SimpleNamespace(get_env=lambda: SimpleNamespace(num_envs=256), num_timesteps=0)   # as SB3 sets it
    bar.on_training_start({}, {})
    for _ in range(32):
        assert bar.on_step()
    assert bar.bar.n == 32 * 256 and bar.bar.total is None   # no total: tqdm makes no estimate of its own
    assert re.fullmatch(r"1:1\d left", bar.bar.postfix), bar.bar.postfix
    bar.on_training_end()
    assert re.search(r"1:1\d left", capsys.readouterr().err)
