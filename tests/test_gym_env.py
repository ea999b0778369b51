"""The single-agent Gymnasium environment: checkers, masks, learner rotation, opponents, reward attribution."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from president_env.core import IllegalActionError
from president_env.core import observation as O
from training.gym_env import PresidentGymEnv, random_policy


def det_policy(obs: np.ndarray, mask: np.ndarray, rng=None) -> int:
    """Deterministic, position-dependent, no rng."""
    legal = np.flatnonzero(mask)
    return int(legal[int(obs.sum() * 7) % legal.size])


@pytest.mark.parametrize("kwargs", [
    {},
    {"preset": "daifugo", "episode": "hand", "start_ranks": "random", "reward": "rank"},
    {"preset": "double_deck"},
    {"preset": "merchants", "episode": "hand", "start_ranks": "random"},
    {"preset": "sofia"},
    {"preset": "expose_hands", "episode": "hand", "start_ranks": "random"},
])
def test_gymnasium_and_sb3_checkers(kwargs):
    # the checkers step random actions without masks: the terminate-with-penalty option takes those
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check_env(PresidentGymEnv(illegal_action="terminate", **kwargs), skip_render_check=True)
        sb3_check_env(PresidentGymEnv(illegal_action="terminate", **kwargs))


def test_default_refuses_illegal_actions():
    env = PresidentGymEnv()
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[-1])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(bad)
    with pytest.raises(ValueError, match="illegal_action"):
        PresidentGymEnv(illegal_action="clamp")


def test_terminate_option_ends_with_the_penalty():
    env = PresidentGymEnv(illegal_action="terminate", illegal_reward=-5)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[-1])
    _, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-5.0, True, False, bad)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_learner_acts_at_every_returned_observation():
    env = PresidentGymEnv("president", players=5, target_points=4)
    sl = O.slices(env.rules)
    obs, _ = env.reset(seed=1)
    term = False
    while not term:
        mask = env.action_masks()
        assert obs[sl["my_turn"].start] == 1 and mask.any()
        assert env.game.agent_selection == env.learner_agent
        obs, _, term, _, _ = env.step(det_policy(obs, mask))
    assert not env.action_masks().any()
    assert obs[sl["phase"]][2] == 1


def test_learner_rotates_over_episodes():
    env = PresidentGymEnv("president", players=4, episode="hand")
    learners = []
    for e in range(6):
        _, info = env.reset(seed=3 if e == 0 else None)
        learners.append(info["learner"])
    assert learners == [0, 1, 2, 3, 0, 1]
    env.reset(seed=3)
    assert env.learner == 0  # a seeded reset starts the rotation again
    fixed = PresidentGymEnv("president", players=4, learner=2, episode="hand")
    assert {fixed.reset()[1]["learner"] for _ in range(5)} == {2}
    with pytest.raises(ValueError, match="learner"):
        PresidentGymEnv(learner=4)


def test_each_opponent_policy_plays_its_own_player():
    calls: list[tuple[int, str]] = []
    env = PresidentGymEnv("president", players=4, episode="hand", learner=1)

    def make(k):
        def pol(obs, mask, rng):
            calls.append((k, env.game.agent_selection))
            return random_policy(obs, mask, rng)
        return pol

    env.opponents = [make(0), make(1), make(2)]
    env.reset(seed=2)
    term = False
    while not term:
        _, _, term, _, _ = env.step(random_policy(None, env.action_masks(), env.np_random))
    assert {k for k, _ in calls} == {0, 1, 2}
    for k, agent in calls:
        assert agent == f"player_{(1 + 1 + k) % 4}"
    with pytest.raises(ValueError, match="3 callables"):
        PresidentGymEnv(players=4, opponents=[random_policy])


@pytest.mark.parametrize("seed", range(4))
def test_reward_is_the_learners_own(seed):
    """The rewards add up to the learner's own session points (not the next player's)."""
    env = PresidentGymEnv("president", players=4, target_points=5)
    env.reset(seed=seed)
    total, term = 0.0, False
    while not term:
        _, r, term, _, info = env.step(det_policy(env.game.observe(env.learner_agent)["observation"],
                                                  env.action_masks()))
        if r:
            assert r == info["hand_points"]
        total += r
    pts = env.game.core_state.points[0]
    me = env.learner
    assert total == pts[me]
    # the check could fail: somebody at the table ended with other points than the learner
    assert (pts != pts[me]).any()


def test_rank_rewards_and_hand_episodes():
    env = PresidentGymEnv("president", players=5, episode="hand", reward="rank", learner=0)
    seen = set()
    for s in range(8):
        env.reset(seed=s)
        term, r = False, 0.0
        while not term:
            _, r, term, _, info = env.step(det_policy(env.game.observe("player_0")["observation"], env.action_masks()))
        assert r == pytest.approx(1 - 2 * info["hand_position"] / 4)
        seen.add(info["hand_position"])
    assert len(seen) > 1


def test_same_seed_same_episode():
    def run(seed):
        env = PresidentGymEnv("daifugo", players=4, episode="hand")
        obs, _ = env.reset(seed=seed)
        out, term = [obs], False
        while not term:
            obs, r, term, _, _ = env.step(random_policy(obs, env.action_masks(), env.np_random))
            out.append(np.append(obs, r))
        return out

    a, b, c = run(9), run(9), run(10)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert len(a) != len(c) or not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_given_deal_passes_through():
    env = PresidentGymEnv("president", learner=0)
    from president_env.core import tables

    t = tables(env.rules)
    deal = {f"player_{p}": [t.card_names[c] for c in range(p, 52, 4)] for p in range(4)}
    obs, _ = env.reset(seed=0, options={"deal": deal})
    sl = O.slices(env.rules)
    # no exchange in a first hand, and the learner has not played yet: it holds exactly its deal
    assert obs[sl["hand"]].sum() == 13
    seat = int(np.flatnonzero(env.game.core_state.seat_player[0] == 0)[0])
    held = {t.card_names[c] for c in np.flatnonzero(env.game.core_state.hands[0, seat])}
    assert held == set(deal["player_0"])


def test_render_ansi_is_from_the_learners_side():
    env = PresidentGymEnv("president", render_mode="ansi", learner=2)
    env.reset(seed=0)
    text = env.render()
    st = env.game.core_state
    from president_env.core import tables

    names = set(tables(env.rules).card_names)
    seat = int(np.flatnonzero(st.seat_player[0] == 2)[0])
    mine = {tables(env.rules).card_names[c] for c in np.flatnonzero(st.hands[0, seat])}
    shown = {tok for tok in text.split() if tok in names}
    assert shown and shown <= mine
