"""The batched SB3 VecEnv: the SB3 contract, DummyVecEnv equivalence, the same game in all three envs,
reward attribution, opponents, seeding, and a MaskablePPO smoke run."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecMonitor

import president_env
from president_env.core import IllegalActionError
from president_env.core import observation as O
from training.gym_env import PresidentGymEnv
from training.vec_env import OpponentError, PresidentVecEnv, random_policy, sb3_policy


def det(obs: np.ndarray, mask: np.ndarray, k: int = 0) -> int:
    """A deterministic position-dependent choice (k varies it); exact on small-integer observations."""
    legal = np.flatnonzero(mask)
    return int(legal[(int(obs.sum() * 7) + k) % legal.size])


def batched(k: int = 0):
    def policy(obs, mask, rng):
        return np.array([det(o, m, k) for o, m in zip(obs, mask, strict=True)], dtype=np.int64)
    return policy


def single(k: int = 0):
    def policy(obs, mask, rng):
        return det(obs, mask, k)
    return policy


# --------------------------------------------------------------------------- SB3 contract
def test_step_contract_and_auto_reset():
    venv = PresidentVecEnv(16, "president", episode="hand", seed=0)
    sl = O.slices(venv.rules)
    obs = venv.reset()
    assert obs.shape == (16, O.size(venv.rules)) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    done_seen = 0
    for _ in range(120):
        assert (obs[:, sl["my_turn"].start] == 1).all()
        assert all(venv.observation_space.contains(o) for o in obs)
        masks = venv.action_masks()
        assert masks.shape == (16, venv.action_space.n) and masks.dtype == bool and masks.any(axis=1).all()
        obs, rewards, dones, infos = venv.step(random_policy(obs, masks, rng))
        assert rewards.shape == (16,) and rewards.dtype == np.float32
        assert dones.shape == (16,) and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == 16
        for i in range(16):
            assert ("terminal_observation" in infos[i]) == bool(dones[i])
            if dones[i]:
                done_seen += 1
                term = infos[i]["terminal_observation"]
                assert venv.observation_space.contains(term)
                assert term[sl["phase"]][2] == 1                 # the finished session
                assert obs[i][sl["phase"]][2] == 0                # ... and a fresh game after the reset
                assert obs[i][sl["played"]].sum() == 0 or obs[i][sl["my_turn"].start] == 1
                assert infos[i]["TimeLimit.truncated"] is False
            else:
                assert rewards[i] == 0  # one hand per episode: the only reward comes with the end
    assert done_seen >= 16


def test_masks_through_sb3_and_sb3_contrib_helpers():
    venv = PresidentVecEnv(6, "president", seed=1)
    venv.reset()
    assert is_masking_supported(venv) and is_masking_supported(VecMonitor(venv))
    np.testing.assert_array_equal(get_action_masks(venv), venv.action_masks())
    np.testing.assert_array_equal(np.stack(venv.env_method("action_masks", indices=[1, 3])),
                                  venv.action_masks()[[1, 3]])
    assert venv.get_attr("render_mode") == [None] * 6
    assert venv.env_is_wrapped(VecMonitor) == [False] * 6
    with pytest.raises(ValueError, match="all indices"):
        venv.set_attr("reward_scheme", "rank", indices=[0])


def test_bad_actions_and_options_are_refused():
    venv = PresidentVecEnv(4, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="4 actions"):
        venv.step(np.zeros(3, dtype=np.int64))
    bad = np.argmin(venv.action_masks(), axis=1)
    with pytest.raises(IllegalActionError, match="illegal action"):
        venv.step(bad)
    def cheat(obs, mask, rng):
        return np.zeros(len(obs), dtype=np.int64) + (mask.shape[1] - 1)   # the biggest play, rarely legal

    venv = PresidentVecEnv(4, opponents=cheat, seed=0)
    with pytest.raises(IllegalActionError, match=r"game \d: the opponent policy playing player_\d"):
        venv.reset()
    venv = PresidentVecEnv(4, seed=0)
    venv.set_options({"deal": {}})
    with pytest.raises(ValueError, match="no options"):
        venv.reset()
    with pytest.raises(ValueError, match="num_envs"):
        PresidentVecEnv(0)
    with pytest.raises(ValueError, match="opponents"):
        PresidentVecEnv(2, players=4, opponents=[random_policy])
    with pytest.raises(ValueError, match="reward"):
        PresidentVecEnv(2, reward="money")
    with pytest.raises(TypeError, match="opponent"):
        PresidentVecEnv(2, opponents=42)


def test_nan_check_monitor_and_a_maskable_ppo_smoke_run():
    venv = VecMonitor(VecCheckNan(PresidentVecEnv(8, "president", episode="hand", seed=0), raise_exception=True))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    mean, _ = evaluate_policy(model, PresidentVecEnv(4, "president", episode="hand", seed=1), n_eval_episodes=8)
    assert -2.0 <= mean <= 2.0
    # the frozen model as the opponents of another VecEnv: it gets the masks, so it never plays illegally
    opp = PresidentVecEnv(8, "president", episode="hand", opponents=model, seed=2)
    obs = opp.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, *_ = opp.step(random_policy(obs, opp.action_masks(), rng))
    acts = sb3_policy(model, deterministic=True)(obs, opp.action_masks(), rng)
    assert opp.action_masks()[np.arange(8), acts].all()


# --------------------------------------------------------------------------- equivalences
@pytest.mark.parametrize("kwargs", [
    {"preset": "president", "episode": "hand", "start_ranks": "random"},
    {"preset": "daifugo", "target_points": 3, "reward": "rank"},
    {"preset": "merchants", "episode": "hand", "start_ranks": "random"},
    {"preset": "expose_hands", "episode": "hand", "start_ranks": "random"},
    {"preset": "hamish_allan", "episode": "hand", "start_ranks": "random"},
    {"preset": "sofia", "target_points": 3},
    {"preset": "threes_high", "episode": "hand", "start_ranks": "random"},
])
def test_same_as_dummyvecenv_over_the_gym_env(kwargs):
    """One game: SB3's own DummyVecEnv over the single-agent env and the batched VecEnv agree step by step,
    auto-resets, terminal observations, learner rotation and later keys included."""
    mine = PresidentVecEnv(1, opponents=batched(), seed=13, **kwargs)
    ref = DummyVecEnv([lambda: PresidentGymEnv(opponents=single(), **kwargs)])
    ref.seed(13)
    o1, o2 = mine.reset(), ref.reset()
    episodes = 0
    for _ in range(400):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(mine.action_masks(), get_action_masks(ref))
        a = np.array([det(o1[0], mine.action_masks()[0], 3)])
        o1, r1, d1, i1 = mine.step(a)
        o2, r2, d2, i2 = ref.step(a)
        assert r1[0] == r2[0] and d1[0] == d2[0]
        if d1[0]:
            episodes += 1
            np.testing.assert_array_equal(i1[0]["terminal_observation"], i2[0]["terminal_observation"])
            if episodes == 4:
                break
    assert episodes == 4


def test_same_game_in_the_three_envs():
    """AEC env, single-agent env and VecEnv (game 0): same seed and actions, same game."""
    seed, P = 77, 4
    opponents_k = [1, 2, 3]  # opponent k plays player learner + 1 + k with its own deterministic policy

    # AEC: every agent plays det; player_0 (the learner) with k=0
    aec = president_env.env("president", players=P, target_points=4)
    aec.reset(seed=seed)
    aec_obs, aec_rew = [], []
    for agent in aec.agent_iter():
        obs, reward, term, trunc, _ = aec.last()
        p = int(agent.split("_")[1])
        if agent == "player_0":
            aec_obs.append(obs["observation"])
            aec_rew.append(reward)
        if term or trunc:
            aec.step(None)
            continue
        aec.step(det(obs["observation"], obs["action_mask"], 0 if p == 0 else opponents_k[p - 1]))

    gym = PresidentGymEnv("president", players=P, target_points=4, opponents=[single(k) for k in opponents_k])
    obs, info = gym.reset(seed=seed)
    assert info["learner"] == 0
    gym_obs, gym_rew = [obs], [0.0]
    term = False
    while not term:
        obs, r, term, _, _ = gym.step(det(obs, gym.action_masks(), 0))
        gym_obs.append(obs)
        gym_rew.append(r)

    venv = PresidentVecEnv(3, "president", players=P, target_points=4, seed=seed,
                           opponents=[batched(k) for k in opponents_k])
    obs = venv.reset()
    assert venv.learners[0] == 0
    vec_obs, vec_rew = [obs[0]], [0.0]
    while True:
        acts = batched(0)(obs, venv.action_masks(), None)
        obs, r, d, infos = venv.step(acts)
        vec_rew.append(float(r[0]))
        if d[0]:
            vec_obs.append(infos[0]["terminal_observation"])
            break
        vec_obs.append(obs[0])

    assert len(aec_obs) == len(gym_obs) == len(vec_obs) > 20
    for a, g, v in zip(aec_obs, gym_obs, vec_obs, strict=True):
        np.testing.assert_array_equal(a, g)
        np.testing.assert_array_equal(a, v)
    assert aec_rew == gym_rew == vec_rew
    assert any(aec_rew)


# --------------------------------------------------------------------------- rewards
def test_rewards_are_the_learners_own():
    """Per episode, the learner's rewards add up to its own session points (relative seat 0 of the terminal
    observation), which differ from its neighbour's in some games, so a shifted credit would fail."""
    venv = PresidentVecEnv(32, "president", players=4, target_points=3, seed=5)
    sl = O.slices(venv.rules)
    obs = venv.reset()
    rng = np.random.default_rng(1)
    totals = np.zeros(32)
    checked = differs = 0
    for _ in range(400):
        obs, r, d, infos = venv.step(random_policy(obs, venv.action_masks(), rng))
        totals += r
        for i in np.flatnonzero(d):
            term = infos[i]["terminal_observation"]
            mine, neighbour = term[sl["points"]][0], term[sl["points"]][1]
            assert totals[i] == mine
            differs += mine != neighbour
            checked += 1
            totals[i] = 0
        if checked >= 40:
            break
    assert checked >= 40 and differs > 0


def test_rank_reward_of_one_hand_matches_the_finishing_place():
    venv = PresidentVecEnv(16, "president", players=5, episode="hand", reward="rank", seed=3)
    sl = O.slices(venv.rules)
    obs = venv.reset()
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(200):
        obs, r, d, infos = venv.step(random_policy(obs, venv.action_masks(), rng))
        for i in np.flatnonzero(d):
            pos = infos[i]["terminal_observation"][sl["finished"]][0] - 1   # the learner's place
            assert r[i] == pytest.approx(1 - 2 * pos / 4)
            seen.add(int(pos))
    assert len(seen) >= 3


# --------------------------------------------------------------------------- seeding and learners
def test_seeding_and_learner_rotation():
    def trace(venv, n=60):
        obs = venv.reset()
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(n):
            obs, r, d, _ = venv.step(random_policy(obs, venv.action_masks(), rng))
            out.append(np.column_stack([obs, r, d]))
        return out

    a = PresidentVecEnv(8, "president", episode="hand", seed=4)
    b = PresidentVecEnv(8, "president", episode="hand")
    b.seed(4)
    c = PresidentVecEnv(8, "president", episode="hand", seed=5)
    ta, tb, tc = trace(a), trace(b), trace(c)
    assert all(np.array_equal(x, y) for x, y in zip(ta, tb, strict=True))
    assert not np.array_equal(ta[0], tc[0])

    venv = PresidentVecEnv(6, "president", players=4, episode="hand", seed=0)
    obs = venv.reset()
    np.testing.assert_array_equal(venv.learners, np.arange(6) % 4)
    episodes = np.zeros(6, dtype=int)
    rng = np.random.default_rng(0)
    for _ in range(100):
        obs, _, d, _ = venv.step(random_policy(obs, venv.action_masks(), rng))
        episodes += d
        np.testing.assert_array_equal(venv.learners, (np.arange(6) + episodes) % 4)
    assert episodes.min() >= 1
    fixed = PresidentVecEnv(3, learner=2, seed=0)
    fixed.reset()
    assert (fixed.learners == 2).all()


def test_an_opponent_that_raises_stops_the_sb3_env_until_reset():
    def broken(obs, mask, rng):
        raise ValueError("weights went NaN")

    venv = PresidentVecEnv(3, "president", opponents=broken, learner=1, seed=0)
    with pytest.raises(OpponentError, match=r"opponent 0 \(broken\), playing player_0 in sub-env\(s\) 0, 1, 2, "
                                            r"raised ValueError: weights went NaN"):
        venv.reset()
    with pytest.raises(OpponentError, match="must be reset"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="num_envs=10,000,000,000 games .* would need about"):
        PresidentVecEnv(10**10, "president")
