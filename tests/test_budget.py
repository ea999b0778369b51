"""``president train --minutes``: one budget for the whole run, shared by its phases, each with a progress bar."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from training.budget import FINAL_MAX_SHARE, SQRT_UP_TO, EvalCost, make_plan  # noqa: E402
from training.train import TrainArgs, train  # noqa: E402


def test_the_timed_match_grows_slower_than_the_deals():
    cost = EvalCost(deals=32, seconds=4.0)
    assert cost.estimate(0) == 0.0 and cost.estimate(8) == 4.0 == cost.estimate(32)
    assert cost.estimate(128) == pytest.approx(8.0) and cost.estimate(32 * SQRT_UP_TO) == pytest.approx(4.0 * 10 ** 0.5)
    assert cost.estimate(64 * SQRT_UP_TO) == pytest.approx(2 * cost.estimate(32 * SQRT_UP_TO))   # then in proportion
    assert cost.deals_within(1.0) == 1                       # not even the timed match fits
    for seconds in (4.0, 8.0, 12.0, 30.0, 300.0):
        n = cost.deals_within(seconds)
        assert n >= 32 and cost.estimate(n) <= seconds + 1e-9 < cost.estimate(n + 1)


def test_the_plan_reserves_the_final_evaluation_then_shares_the_rest():
    cost = EvalCost(deals=32, seconds=4.0)
    plan = make_plan(started=100.0, minutes=3, now=110.0, cost=cost, deals={"heuristic": 300, "greedy": 300},
                     warm_share=0.5, collect_share=0.3)
    final = 2 * cost.estimate(300)
    assert plan.end == 280.0 and plan.final_seconds == pytest.approx(final)
    assert plan.ppo_end == pytest.approx(280.0 - final)
    train_time = plan.ppo_end - 110.0
    assert plan.warm_end == pytest.approx(110.0 + 0.5 * train_time)
    assert plan.collect_end == pytest.approx(110.0 + 0.3 * 0.5 * train_time)
    assert plan.final_deals == {"heuristic": 300, "greedy": 300} == plan.asked_deals
    ppo = round(plan.ppo_end - 100)
    assert f"PPO until {ppo // 60}:{ppo % 60:02d}" in plan.describe() and "300 vs heuristic" in plan.describe()


def test_the_teachers_share_of_the_warm_start_is_a_setting():
    # a slow teacher (daifugo_runs' card-level search) needs most of the warm start for its games: the fit of
    # its decisions takes seconds
    plan = make_plan(0.0, 10, 0.0, None, {}, warm_share=0.5, collect_share=0.9)
    assert plan.warm_end == 300.0 and plan.collect_end == pytest.approx(270.0)
    with pytest.raises(ValueError, match="imitation_collect_share must be 0..1, got 1.5"):
        make_plan(0.0, 10, 0.0, None, {}, warm_share=0.5, collect_share=1.5)


def test_train_plans_with_the_settings_collect_share(tmp_path, monkeypatch):
    from training import train as train_module

    seen = []

    def stop(*args, **kwargs):
        seen.append(args)
        raise KeyboardInterrupt                  # ends the run before any training (it saves a checkpoint)

    monkeypatch.setattr(train_module, "make_plan", stop)
    args = train_module.TrainArgs(out=str(tmp_path / "run"), minutes=5, final_deals=0, progress=False,
                                  settings={"imitation_collect_share": 0.85, "n_envs": 4, "net_arch": [8]})
    with pytest.raises(train_module.TrainingInterrupted):
        train_module.train(args)
    assert seen and seen[0][-1] == 0.85


def test_deals_that_would_take_over_half_the_budget_are_cut():
    cost = EvalCost(deals=32, seconds=4.0)
    plan = make_plan(0.0, 1, 0.0, cost, {"heuristic": 5000, "greedy": 5000}, warm_share=0.5, collect_share=0.3)
    assert plan.asked_deals == {"heuristic": 5000, "greedy": 5000}
    assert plan.final_deals["heuristic"] == plan.final_deals["greedy"] < 5000
    assert plan.final_seconds <= FINAL_MAX_SHARE * 60 + 1e-9
    assert "cut to fit" in plan.describe()


def test_no_final_evaluation_leaves_the_whole_budget_to_training():
    plan = make_plan(0.0, 2, 0.0, None, {}, warm_share=0.25, collect_share=0.3)
    assert plan.ppo_end == plan.end == 120.0 and plan.warm_end == 30.0 and plan.final_deals == {}
    assert "no final evaluation" in plan.describe()
    with pytest.raises(ValueError, match="minutes"):
        make_plan(0.0, 0, 0.0, None, {}, warm_share=0.5, collect_share=0.3)


def test_the_warm_start_stops_within_its_share_and_every_phase_shows_progress(tmp_path, capfd):
    # a warm start of 100 million decisions and a thousand epochs (the most the settings take), PPO of a billion
    # steps: only the budget ends them
    settings = {"n_envs": 32, "n_steps": 32, "batch_size": 512, "n_epochs": 1, "net_arch": [32, 32],
                "imitation_decisions": 10**8, "imitation_epochs": 1000, "eval_every": 10**9}
    args = TrainArgs(preset="president", timesteps=10**9, out=str(tmp_path), minutes=0.5, final_deals=4,
                     progress=True, settings=settings)
    result = train(args)
    info = json.loads((tmp_path / "imitation.json").read_text())
    assert info["collect_timed_out"] and 0 < info["decisions"] < 10**8   # the self-play stopped at its deadline
    assert info["timed_out"] and info["epochs"] < 1000                   # so did the fit
    assert result.timesteps < 10**9                                     # and PPO
    # the final evaluation was played (on a busy machine it may be cut to fit half the budget)
    assert [m.opponent for m in result.final] == ["heuristic", "greedy"]
    assert all(1 <= m.deals <= 4 for m in result.final)
    err = capfd.readouterr().err
    for phase in ("timing the final evaluation", "budget 0:30: warm start until", "warm start 1/2: heuristic self-play",
                  "warm start 2/2: fitting the policy", "(cut by the time budget)", "PPO: learner decisions",
                  "final evaluation vs heuristic", "final evaluation vs greedy"):
        assert phase in err, phase
