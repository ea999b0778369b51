"""The Gymnasium vector env (training.vector_env): Gymnasium's checks, next-step autoreset against Gymnasium's
own SyncVectorEnv over the single-agent env, masks, seeding per sub-env, bad actions, the PPO example."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils import env_checker
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from agents.registry import make_agent
from president_env.aec_env import make_rules, observation_box
from president_env.core import IllegalActionError, ScalarGame, n_actions
from president_env.core import observation as O
from training.gym_env import PresidentGymEnv
from training.vec_env import OpponentError
from training.vector_env import PresidentVectorEnv, make_vec

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ["president", "daifugo"]


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random allowed action per row."""
    return np.argmax(mask * rng.random(mask.shape), axis=1)


class LegalActions(gymnasium.vector.VectorActionWrapper):
    """For Gymnasium's checkers, which step unmasked random actions: an illegal one becomes a legal one
    (the (a mod n)-th legal action), deterministically, so the checked env still sees only legal moves."""

    def actions(self, actions: np.ndarray) -> np.ndarray:
        mask = self.env.unwrapped.action_masks()
        a = np.asarray(actions, dtype=np.int64)
        rows = np.arange(a.size)
        nth = np.argsort(~mask, axis=1, kind="stable")[rows, a % mask.sum(axis=1)]
        return np.where(mask[rows, a], a, nth)


# --------------------------------------------------------------------------- Gymnasium's checks
@pytest.mark.parametrize("name", PRESETS)
def test_gymnasium_checks_and_spaces(name):
    env = make_vec(name, 3, episode="hand", opponents="greedy")
    rules = env.rules
    A = n_actions(rules)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP   # Gymnasium's default, declared
    assert env.single_observation_space == observation_box(rules)
    assert env.single_action_space == gymnasium.spaces.Discrete(A)
    assert env.observation_space == batch_space(env.single_observation_space, 3)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([A] * 3)
    env_checker.check_space_limit(env.single_observation_space, "observation")
    env_checker.check_reset_return_type(env)
    env_checker.check_reset_seed_determinism(env)
    env_checker.check_reset_options(env)
    env_checker.check_reset_return_info_deprecation(env)
    env_checker.check_seed_deprecation(env)
    # written for single envs (``if terminated``): on one sub-env, through the legal-action wrapper
    env_checker.check_returned_data_not_reused(LegalActions(make_vec(name, 1, episode="hand")))

    # every step's data has the vector env's shapes, types and spaces, until several games have ended
    obs, infos = env.reset(seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 6:
        assert obs in env.observation_space
        assert set(infos) == {"action_mask", "_action_mask", "learner", "_learner"}
        assert infos["action_mask"].shape == (3, A) and infos["action_mask"].dtype == bool
        assert infos["_action_mask"].all() and infos["_learner"].all()
        actions = masked_random(infos["action_mask"], rng)
        assert actions in env.action_space
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert rewards.shape == (3,) and rewards.dtype == np.float64
        assert terminated.dtype == bool and truncated.dtype == bool and not truncated.any()
        ended += int(terminated.sum())
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"deal": {}})


def test_gymnasium_vector_wrappers_count_its_episodes():
    """RecordEpisodeStatistics (next-step autoreset aware) sees every game end with the summed rewards."""
    env = RecordEpisodeStatistics(make_vec("president", 4, episode="hand", opponents="greedy"))
    obs, infos = env.reset(seed=3)
    rng = np.random.default_rng(3)
    total, episodes = np.zeros(4), 0
    for _ in range(120):
        obs, rewards, terminated, truncated, infos = env.step(masked_random(infos["action_mask"], rng))
        total += rewards
        if terminated.any():
            assert np.allclose(infos["episode"]["r"][terminated], total[terminated])
            total[terminated] = 0
            episodes += int(terminated.sum())
    assert episodes >= 4


# --------------------------------------------------------------------------- autoreset, the same game
def greedy_for_one(rules):
    agent = make_agent("greedy", rules)
    return lambda obs, mask, rng: int(agent.act(obs[None], mask[None], rng)[0])


@pytest.mark.parametrize("name", PRESETS)
def test_the_same_games_as_gymnasiums_sync_vector_env_over_the_gym_env(name):
    """Sub-env i plays PresidentGymEnv reset with seed + i, game after game (deterministic opponents): the
    same observations, rewards and terminations step by step, the autoreset's first observation included."""
    B = 3
    rules = make_rules(name, "hand")
    ref = gymnasium.vector.SyncVectorEnv(
        [lambda: PresidentGymEnv(name, episode="hand", opponents=greedy_for_one(rules)) for _ in range(B)])
    env = make_vec(name, B, episode="hand", opponents="greedy")
    obs, infos = env.reset(seed=11)
    ref_obs, ref_infos = ref.reset(seed=11)
    assert np.array_equal(obs, ref_obs) and np.array_equal(infos["learner"], ref_infos["learner"])
    rng = np.random.default_rng(0)
    resetting = np.zeros(B, dtype=bool)
    autoresets = 0
    for _ in range(150):
        mask = infos["action_mask"]
        ref_mask = np.stack(ref.call("action_masks"))
        assert np.array_equal(mask[~resetting], ref_mask[~resetting])
        actions = masked_random(mask, rng)
        actions[resetting] = n_actions(rules) - 1   # ignored on the autoreset step, whatever it is
        obs, rewards, terminated, truncated, infos = env.step(actions)
        ref_obs, ref_rewards, ref_terminated, _, ref_infos = ref.step(actions)
        assert np.array_equal(obs, ref_obs)
        assert np.array_equal(rewards, ref_rewards)
        assert np.array_equal(terminated, ref_terminated)
        assert np.array_equal(infos["learner"], ref_infos["learner"])
        assert (rewards[resetting] == 0).all() and not terminated[resetting].any()
        autoresets += int(resetting.sum())
        resetting = terminated
    assert autoresets >= 6


def test_autoreset_gives_the_first_observation_of_the_next_game():
    """The step after a game ends is the next game's start: what a fresh env seeded the same way shows
    after playing the same first game and resetting."""
    env = make_vec("president", 2, episode="hand", opponents="greedy")
    obs, infos = env.reset(seed=4)
    fresh = PresidentGymEnv("president", episode="hand", opponents=greedy_for_one(env.rules))
    fresh_obs, _ = fresh.reset(seed=5)           # sub-env 1
    assert np.array_equal(obs[1], fresh_obs)
    rng = np.random.default_rng(1)
    while True:
        actions = masked_random(infos["action_mask"], rng)
        obs, rewards, terminated, _, infos = env.step(actions)
        fresh_obs, fresh_reward, fresh_done, _, _ = fresh.step(int(actions[1]))
        assert fresh_done == terminated[1] and fresh_reward == rewards[1]
        if terminated[1]:
            break
    assert np.array_equal(obs[1], fresh_obs)      # the final observation first
    obs, rewards, terminated, _, infos = env.step(masked_random(infos["action_mask"], rng))
    next_obs, _ = fresh.reset()
    assert np.array_equal(obs[1], next_obs) and rewards[1] == 0 and not terminated[1]
    assert infos["learner"][1] == 1 == fresh.learner   # the learner moved on to the next player


# --------------------------------------------------------------------------- masks
@pytest.mark.parametrize("name", ["president", "daifugo", "daifugo_runs"])
def test_masks_never_allow_an_illegal_action(name):
    """Random masked actions for many steps are all accepted; every mask row is the single-game engine's
    legal set for the learner's decision (or action 0 alone in a finished game)."""
    env = make_vec(name, 8, opponents="random")
    obs, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for t in range(300):
        mask = infos["action_mask"]
        assert np.array_equal(mask, env.action_masks()) and mask.any(axis=1).all()
        if t % 25 == 0:
            st = env._games._state
            games = ScalarGame.from_states(env.rules, st, np.arange(8))
            for i, g in enumerate(games):
                if g.over:
                    assert np.flatnonzero(mask[i]).tolist() == [0]
                else:
                    assert g.current_player == infos["learner"][i]
                    assert np.array_equal(mask[i], g.legal_mask())
        obs, _, _, _, infos = env.step(masked_random(mask, rng))   # raises on an illegal action


# --------------------------------------------------------------------------- seeding
def run(env: PresidentVectorEnv, seed, steps: int = 40, action_seed: int = 0) -> list[np.ndarray]:
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    out = [obs]
    for _ in range(steps):
        obs, rewards, terminated, _, infos = env.step(masked_random(infos["action_mask"], rng))
        out += [obs, rewards, terminated]
    return out


def test_seeding_per_sub_env_is_reproducible():
    env = make_vec("president", 4, episode="hand")            # random opponents
    a, b = run(env, 7), run(make_vec("president", 4, episode="hand"), [7, 8, 9, 10])
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))   # an int seed is seed + i
    assert not np.array_equal(run(env, 8)[0], a[0])
    # sub-env i's deal and seat depend on its own seed only: with random opponents its own hand (the others
    # moved with draws from the batch's generator), with deterministic ones its whole observation
    hand = O.slices(env.rules)["hand"]
    first, _ = env.reset(seed=[3, None, 30, 4])
    with_greedy, _ = make_vec("president", 4, episode="hand", opponents="greedy").reset(seed=[3, None, 30, 4])
    for i, s in [(0, 3), (2, 30), (3, 4)]:
        alone, _ = make_vec("president", 1, episode="hand").reset(seed=s)
        assert np.array_equal(first[i, hand], alone[0, hand])
        solo, _ = make_vec("president", 1, episode="hand", opponents="greedy").reset(seed=s)
        assert np.array_equal(with_greedy[i], solo[0])
    # reset() without a seed continues each sub-env's generator: the next games, then the same again
    env.reset(seed=5)
    again = env.reset()[0]
    env.reset(seed=5)
    assert np.array_equal(env.reset()[0], again)
    with pytest.raises(ValueError, match="one per sub-env"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="sub-env 1"):
        env.reset(seed=[1, -2, 3, 4])
    with pytest.raises(TypeError, match="seed must be"):
        env.reset(seed="0")
    assert np.array_equal(env.reset(seed=np.int64(7))[0], a[0])


# --------------------------------------------------------------------------- bad input
def test_bad_actions_name_the_sub_env_and_the_action():
    env = make_vec("president", 4, opponents="greedy")
    obs, infos = env.reset(seed=0)
    mask = infos["action_mask"]
    A = mask.shape[1]
    good = masked_random(mask, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match=r"expected 4 actions, one per sub-env, got shape \(3,\)"):
        env.step(good[:3])
    with pytest.raises(IllegalActionError, match="integers, got dtype float64"):
        env.step(good.astype(np.float64))
    for bad in (-1, A):
        a = good.copy()
        a[2] = bad
        with pytest.raises(IllegalActionError, match=rf"sub-env 2: action {bad} is out of range 0\.\.{A - 1}"):
            env.step(a)
    a = good.copy()
    a[3] = int(np.flatnonzero(~mask[3])[0])
    with pytest.raises(IllegalActionError, match=rf"sub-env 3: illegal action {a[3]} \(.*\) for the learner "
                                                 rf"\(player_{infos['learner'][3]}\); legal: "):
        env.step(a)
    after, *_ = env.step(good)                 # nothing was played by the refused calls
    again = make_vec("president", 4, opponents="greedy")
    again.reset(seed=0)
    assert np.array_equal(after, again.step(good)[0])
    with pytest.raises(RuntimeError, match="before reset"):
        make_vec("president", 2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        make_vec("president", 0)
    with pytest.raises(ValueError, match="learner must be"):
        make_vec("president", 2, learner=4)


def test_an_opponents_illegal_action_is_named():
    def stubborn(obs, mask, rng):
        return np.full(mask.shape[0], mask.shape[1] - 1, dtype=np.int64)

    env = make_vec("president", 2, opponents=stubborn, learner=0)
    with pytest.raises(IllegalActionError, match=r"game \d: the opponent policy playing player_\d chose illegal"):
        run(env, 0, steps=20)


def test_an_opponent_pool_draws_the_opponents_of_every_new_game():
    """As in the SB3 VecEnv: the pool is asked for each game's opponents when it starts, autoresets included."""
    from training.opponent_pool import OpponentPool

    class CountingPool(OpponentPool):
        asked: list[int] = []

        def sample(self, n, rng):
            self.asked.append(n)
            return super().sample(n, rng)

    env = make_vec("president", 4, episode="hand")
    pool = CountingPool(env.rules, {"greedy": 1.0, "random": 1.0})
    env = make_vec("president", 4, episode="hand", opponents=pool)
    ended = sum(int(t.sum()) for t in run(env, 0, steps=60)[3::3])
    assert pool.asked[0] == 4 and sum(pool.asked[1:]) >= ended - 4 > 0


def test_render_shows_every_sub_env_from_its_learners_side():
    env = make_vec("president", 2, render_mode="ansi")
    env.reset(seed=0)
    texts = env.render()
    assert len(texts) == 2 and all(isinstance(t, str) and t for t in texts) and texts[0] != texts[1]
    with pytest.raises(ValueError, match="render_mode"):
        make_vec("president", 2, render_mode="human")


# --------------------------------------------------------------------------- the example
def test_the_ppo_example_trains_and_prints_its_table():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ppo_vector_env.py"), "--total-timesteps", "256",
         "--num-envs", "8", "--num-steps", "16", "--hidden", "32", "--eval-deals", "4"],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    losses = [float(x) for x in re.findall(r"loss (\S+) \(policy", out.stdout)]
    assert len(losses) == 2 and np.isfinite(losses).all()
    assert "points/hand" in out.stdout and "0:ppo_vector_env" in out.stdout and "1:heuristic" in out.stdout
    assert "4 deals x 4 seatings" in out.stdout


# --------------------------------------------------------------------------- the docs
def test_the_documented_example_runs():
    """docs/api.md's Gymnasium vector env example, run as written."""
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = api[api.index("**Gymnasium vector env**"):]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    scope: dict = {}
    exec(compile(code, "docs/api.md", "exec"), scope)   # the project's own docs
    assert scope["ended"] >= 8 and scope["obs"].shape == (8, scope["envs"].single_observation_space.shape[0])
    assert scope["envs"].metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP


def test_an_opponent_that_raises_stops_the_env_until_reset():
    calls = {"n": 0}

    def flaky(obs, mask, rng):
        calls["n"] += 1
        if calls["n"] == 3:
            raise ZeroDivisionError("the policy's own bug")
        return np.argmax(mask, axis=1)

    envs = make_vec("president", num_envs=4, opponents=["random", flaky, "random"], learner=0)
    obs, infos = envs.reset(seed=0)
    with pytest.raises(OpponentError, match=r"opponent 1 \(flaky\), playing player_2 in sub-env\(s\) .*"
                                            r"raised ZeroDivisionError: the policy's own bug"):
        for _ in range(50):
            obs, _, _, _, infos = envs.step(np.argmax(infos["action_mask"], axis=1))
    for _ in range(2):   # no later step pretends nothing happened (the learner would play an opponent's seat)
        with pytest.raises(OpponentError, match="must be reset"):
            envs.step(np.argmax(infos["action_mask"], axis=1))
    obs, infos = envs.reset(seed=0)     # a reset starts every game again
    envs.step(np.argmax(infos["action_mask"], axis=1))


@pytest.mark.parametrize("num_envs, words", [(10**12, "num_envs=1,000,000,000,000 games of president would need "
                                                      "about .* GiB of memory; this machine has"),
                                             (0, "positive integer"), (True, "positive integer"),
                                             (2.0, "positive integer")])
def test_absurd_sizes_are_refused_by_name_before_any_memory_is_taken(num_envs, words):
    with pytest.raises(ValueError, match=words):
        make_vec("president", num_envs=num_envs)
