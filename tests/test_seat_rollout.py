"""training.seat_rollout: the learner in several seats of every game, whole episodes, GAE per trajectory."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402

from president_env.aec_env import make_rules  # noqa: E402
from training.opponent_pool import OpponentPool  # noqa: E402
from training.seat_rollout import SeatRollouts  # noqa: E402
from training.vec_env import PresidentVecEnv  # noqa: E402

GAMMA, LAM = 0.9, 0.8


def _model(rules):
    venv = PresidentVecEnv(2, rules, seed=0)
    return MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=64, policy_kwargs={"net_arch": [32]}, seed=0,
                       device="cpu")


def _collect(preset="president", seats=4, n=600, seed=0, games=16, pool=None):
    rules = make_rules(preset, "hand")
    torch.manual_seed(seed)
    model = _model(rules)
    pool = pool or OpponentPool(rules, {"greedy": 1.0, "random": 1.0})
    rollouts = SeatRollouts(rules, games, pool, seats, seed=seed)
    return rules, model, rollouts.collect(model.policy, n, GAMMA, LAM)


def _reference_gae(r):
    """Advantages trajectory by trajectory, one decision at a time."""
    adv = np.zeros(len(r), dtype=np.float64)
    for t in np.unique(r.trajectory):
        idx = np.flatnonzero(r.trajectory == t)
        a_next = v_next = 0.0
        for i in idx[::-1]:
            delta = r.rewards[i] + GAMMA * v_next - r.values[i]
            adv[i] = delta + GAMMA * LAM * a_next
            a_next, v_next = adv[i], r.values[i]
    return adv


def test_every_seat_learns_and_each_trajectory_scores_its_place() -> None:
    rules, _, r = _collect(seats=4, n=600)
    assert len(r) >= 600 and r.opponent_decisions == 0
    assert r.masks[np.arange(len(r)), r.actions].all(), "every recorded action is legal"
    totals = np.array([r.rewards[r.trajectory == t].sum() for t in np.unique(r.trajectory)])
    assert r.episodes == totals.size and r.episodes % rules.players == 0
    # one hand per episode: each episode hands out every place's points once
    counts = Counter(totals.round(3).tolist())
    assert set(counts) == set(float(x) for x in rules.points)
    assert len(set(counts.values())) == 1
    assert r.episode_reward == pytest.approx(totals.mean(), abs=1e-6)


def test_a_reward_lands_on_the_last_decision_only() -> None:
    _, _, r = _collect(seats=4, n=300)
    for t in np.unique(r.trajectory):
        rew = r.rewards[r.trajectory == t]
        assert (rew[:-1] == 0).all()


def test_gae_matches_a_decision_by_decision_reference() -> None:
    _, _, r = _collect(seats=3, n=500)
    np.testing.assert_allclose(r.advantages, _reference_gae(r), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.returns, r.advantages + r.values, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seats", [1, 2, 3])
def test_opponents_hold_the_other_seats(seats: int) -> None:
    rules, _, r = _collect(seats=seats, n=400)
    assert r.opponent_decisions > 0
    assert r.episodes % seats == 0
    ratio = r.opponent_decisions / len(r)
    assert (rules.players - seats) / seats * 0.6 < ratio < (rules.players - seats) / seats * 1.6


def test_same_seed_same_rollout() -> None:
    a = _collect(seats=2, n=300, seed=5)[2]
    b = _collect(seats=2, n=300, seed=5)[2]
    c = _collect(seats=2, n=300, seed=6)[2]
    np.testing.assert_array_equal(a.obs, b.obs)
    np.testing.assert_array_equal(a.actions, b.actions)
    assert a.obs.shape != c.obs.shape or not np.array_equal(a.obs, c.obs)


def test_the_buffer_holds_the_rollout() -> None:
    _, model, r = _collect(seats=4, n=200)
    buf = r.fill(MaskableRolloutBuffer, model)
    batches = list(buf.get(64))
    assert sum(len(b.actions) for b in batches) == len(r)
    seen = torch.cat([b.advantages for b in batches]).numpy()
    np.testing.assert_allclose(np.sort(seen), np.sort(r.advantages), rtol=1e-6)
    model.rollout_buffer = buf
    from stable_baselines3.common.logger import configure
    model.set_logger(configure(None, []))
    model._current_progress_remaining = 1.0
    model.train()  # one PPO update on it runs


def test_bad_seat_counts_are_refused() -> None:
    rules = make_rules("president", "hand")
    with pytest.raises(ValueError, match="learner_seats must be 1..4"):
        SeatRollouts(rules, 4, None, 5)
    with pytest.raises(ValueError, match="needs an opponent pool"):
        SeatRollouts(rules, 4, None, 2)


def test_training_with_learner_seats_writes_an_agent_and_resumes(tmp_path) -> None:
    from agents.agent_file import FileAgent
    from training.train import TrainArgs, train

    small = {"imitation_decisions": 0, "n_envs": 16, "n_steps": 64, "batch_size": 256, "net_arch": [32]}
    args = TrainArgs(preset="president", timesteps=3000, out=str(tmp_path / "run"), final_deals=0, progress=False,
                     checkpoint_every=1000, settings={"learner_seats": 4, **small})
    res = train(args)
    assert res.timesteps >= 3000
    agent = FileAgent(res.agent_path, make_rules("president", "session"))
    assert "--set learner_seats=4" in agent.metadata["made_by"]["command"]
    steps = sorted(int(p.stem.split("_")[1]) for p in (tmp_path / "run" / "checkpoints").glob("step_*.zip"))
    assert steps and steps[-1] <= res.timesteps
    # resuming with every seat but one (-1) continues the count
    more = train(TrainArgs(preset="president", timesteps=steps[0] + 1500, out=str(tmp_path / "more"),
                           final_deals=0, progress=False, resume=str(tmp_path / "run" / "checkpoints" /
                                                                    f"step_{steps[0]}.zip"),
                           settings={"learner_seats": -1, **small}))
    assert steps[0] + 1500 <= more.timesteps < steps[0] + 1500 + 2000


def test_learner_seats_out_of_range_are_refused(tmp_path) -> None:
    from training.train import TrainArgs, train

    for bad in (5, -4):
        with pytest.raises(ValueError, match=f"learner_seats={bad} gives"):
            train(TrainArgs(preset="president", timesteps=100, out=str(tmp_path / str(bad)), final_deals=0,
                            progress=False, settings={"learner_seats": bad}))


def test_a_sample_keeps_transitions_whole() -> None:
    _, _, r = _collect(seats=4, n=300)
    s = r.sample(256, np.random.default_rng(0))
    assert len(s) == 256 and s.obs.shape == (256, r.obs.shape[1])
    rows = {row.tobytes(): i for i, row in enumerate(r.obs)}
    for j in range(0, 256, 17):
        i = rows[s.obs[j].tobytes()]
        assert (s.actions[j], s.advantages[j], s.trajectory[j]) == (r.actions[i], r.advantages[i], r.trajectory[i])
    with pytest.raises(ValueError, match="cannot sample"):
        r.sample(len(r) + 1, np.random.default_rng(0))
