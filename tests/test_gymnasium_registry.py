"""Gymnasium's registry knows President: ``gymnasium.make`` builds the single-agent env and ``gymnasium.make_vec``
the batched vector env; arguments that are not rules are named as such."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import president_env
from president_env import ENV_ID, RulesError
from training.gym_env import PresidentGymEnv
from training.vector_env import PresidentVectorEnv, make_vec


def test_the_id_is_versioned_as_gymnasium_and_pettingzoo_version_theirs():
    assert ENV_ID == "president/President-v0"
    assert gymnasium.spec(ENV_ID).version == 0
    assert president_env.raw_env.metadata["name"] == "president_v0"    # PettingZoo's module-style name


def test_make_builds_the_single_agent_env_with_a_preset_and_rule_overrides():
    env = gymnasium.make(ENV_ID, preset="daifugo", players=5, episode="hand")
    assert isinstance(env.unwrapped, PresidentGymEnv)
    assert env.unwrapped.rules.players == 5 and env.unwrapped.rules.name == "daifugo"
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    mask = env.unwrapped.action_masks()
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert env.observation_space.contains(obs)


def test_make_plays_the_same_game_as_the_class():
    made, direct = gymnasium.make(ENV_ID, episode="hand"), PresidentGymEnv(episode="hand")
    a, _ = made.reset(seed=11)
    b, _ = direct.reset(seed=11)
    np.testing.assert_array_equal(a, b)


def test_module_colon_id_imports_president_env_itself():
    env = gymnasium.make("president_env:" + ENV_ID, preset="president")
    assert isinstance(env.unwrapped, PresidentGymEnv)


def test_make_vec_builds_the_batched_vector_env():
    envs = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point",
                              preset="daifugo", opponents="heuristic", episode="hand")
    assert isinstance(envs, PresidentVectorEnv) and envs.num_envs == 4
    assert envs.rules.name == "daifugo"
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (4, envs.single_observation_space.shape[0])
    actions = np.argmax(infos["action_mask"], axis=1)
    envs.step(actions)
    # the default mode is the vector entry point too, and it replays make_vec's games
    again = gymnasium.make_vec(ENV_ID, num_envs=4, preset="daifugo", opponents="heuristic", episode="hand")
    assert isinstance(again, PresidentVectorEnv)
    np.testing.assert_array_equal(again.reset(seed=0)[0], obs)


def test_make_vec_sync_mode_wraps_the_single_agent_env():
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", episode="hand")
    assert envs.num_envs == 2
    envs.reset(seed=0)


@pytest.mark.parametrize("build, where", [
    (lambda: make_vec("president", num_envs=2, seed=0), "make_vec"),
    (lambda: gymnasium.make_vec(ENV_ID, num_envs=2, seed=0), "make_vec"),
    (lambda: PresidentVectorEnv(2, seed=0), "make_vec"),
    (lambda: PresidentGymEnv("president", seed=0), "PresidentGymEnv"),
    (lambda: gymnasium.make(ENV_ID, seed=0), "PresidentGymEnv"),
    (lambda: president_env.env(seed=0), "president_env.env"),
])
def test_seed_is_named_as_resets_argument_not_a_rule(build, where):
    with pytest.raises(RulesError) as err:
        build()
    message = str(err.value)
    assert message.startswith(f"{where}: unknown argument(s) ['seed']; seed goes to reset(seed=...)")
    assert "num_envs" in message or where != "make_vec"
    assert "\n" not in message


def test_an_unknown_argument_lists_the_envs_arguments_then_the_rule_options():
    with pytest.raises(RulesError, match=r"make_vec: unknown argument\(s\) \['colour'\]; its arguments are "
                                         r"num_envs, preset, opponents, .* and the rule options \(.*rank_order"):
        make_vec("president", num_envs=2, colour="blue")
    # rule options still pass, and a bad value of one is the rules' own error
    assert make_vec("president", num_envs=2, players=5).rules.players == 5
    with pytest.raises(RulesError, match="players"):
        make_vec("president", num_envs=2, players=1)
