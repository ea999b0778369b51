"""``privileged_critic``: the critic sees the other hands, the actor (and the agent file) only the observation.

The actor is blind to the hidden hands (the same observation with other hands behind it gives the same logits,
while the critic's value moves); the agent file is the actor alone and plays as the trained policy does; the
setting is refused by name where it is not supported; a tiny run with it writes an agent that loads and plays.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from cli_run import run_cli  # noqa: E402

from agents.agent_file import FileAgent  # noqa: E402
from president_env.core import init, preset, step_inplace  # noqa: E402
from president_env.core import observation as O  # noqa: E402
from training.hyperparams import settings_for  # noqa: E402
from training.opponent_pool import OpponentPool, PolicyAgent  # noqa: E402
from training.privileged import (  # noqa: E402
    PrivilegedCriticPolicy,
    PrivilegedVecEnv,
    privileged_features,
    privileged_observation,
    privileged_size,
)
from training.seat_rollout import SeatRollouts  # noqa: E402
from training.train import TrainArgs, build_model, save_both  # noqa: E402

TINY = {"n_envs": 16, "n_steps": 32, "batch_size": 256, "n_epochs": 1, "snapshot_every": 10**6,
        "imitation_decisions": 500, "imitation_epochs": 1, "eval_every": 10**6, "eval_deals": 2,
        "net_arch": [32, 32], "privileged_critic": True}


def _model(tmp_path, rules, **settings):
    s = settings_for(rules.name, **{**TINY, **settings})
    venv = PrivilegedVecEnv(s.n_envs, rules, opponents=OpponentPool(rules, s.pool), episode=s.episode,
                            start_ranks=s.start_ranks, seed=3)
    return build_model(rules, s, venv, TrainArgs(out=str(tmp_path), seed=3), tmp_path), venv


def _perturb(policy):
    """Random weights everywhere (the value head too: SB3 starts it near zero), so that a test sees them."""
    with torch.no_grad():
        for p in policy.parameters():
            p.normal_(0, 0.3)


@pytest.fixture(scope="module")
def rules():
    return preset("president")


def test_features_are_the_other_seats_hands_by_relative_seat(rules):
    st = init(rules, 4, seed=5)
    P = rules.players
    who = np.arange(4) % P
    f = privileged_features(rules, st, who).reshape(4, P - 1, -1)
    assert privileged_size(rules) == (P - 1) * f.shape[2]
    for b in range(4):
        seat = int(np.flatnonzero(st.seat_player[b] == who[b])[0])
        for j in range(1, P):
            other = (seat + j) % P                     # president plays clockwise
            np.testing.assert_allclose(f[b, j - 1] * 4, st.counts[b, other])     # 4 cards of each rank
    assert f.max() <= 1.0


def test_the_actor_is_blind_to_the_hidden_hands_and_the_critic_is_not(tmp_path, rules):
    model, venv = _model(tmp_path, rules)
    policy = model.policy
    assert isinstance(policy, PrivilegedCriticPolicy)
    _perturb(policy)
    st = init(rules, 8, seed=11)
    who = st.seat_player[np.arange(8), st.current.astype(np.int64)].astype(np.int64)
    seat = st.current.astype(np.int64)
    before = privileged_observation(rules, st, who)
    # another deal behind the same observation: the two seats after the player swap their (equal-sized) hands
    a, b = (seat + 1) % rules.players, (seat + 2) % rules.players
    rows = np.arange(8)
    hands, counts = st.hands.copy(), st.counts.copy()
    st.hands[rows, a], st.hands[rows, b] = hands[rows, b], hands[rows, a]
    st.counts[rows, a], st.counts[rows, b] = counts[rows, b], counts[rows, a]
    after = privileged_observation(rules, st, who)
    D = O.size(rules)
    np.testing.assert_array_equal(before[:, :D], after[:, :D])       # the player sees the same
    assert not np.array_equal(before[:, D:], after[:, D:])           # the deal is another
    with torch.no_grad():
        logits = [policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(torch.as_tensor(x))))
                  for x in (before, after)]
        values = [policy.predict_values(torch.as_tensor(x)).squeeze(-1) for x in (before, after)]
    torch.testing.assert_close(logits[0], logits[1], rtol=0, atol=0)
    assert (values[0] - values[1]).abs().max() > 1e-4
    venv.close()


def test_the_seat_rollout_gives_the_critic_the_deal(rules):
    pool = OpponentPool(rules, {"heuristic": 1.0})
    got = {}

    class Spy(torch.nn.Module):
        def set_training_mode(self, mode):
            pass

        def forward(self, obs, action_masks):
            got.setdefault("width", obs.shape[1])
            n = obs.shape[0]
            acts = torch.as_tensor(np.argmax(action_masks, axis=1))
            return acts, torch.zeros(n), torch.zeros(n)

    r = SeatRollouts(rules, 4, pool, 2, seed=1, privileged=True).collect(Spy(), 50, 0.99, 0.95)
    assert got["width"] == O.size(rules) + privileged_size(rules) == r.obs.shape[1]


def test_the_agent_file_is_the_actor_and_plays_as_the_trained_policy(tmp_path, rules):
    model, venv = _model(tmp_path, rules)
    _perturb(model.policy)
    made = {"preset": rules.name, "command": "test", "seed": 3, "timesteps": 0, "code_version": "test"}
    _, agent_path = save_both(model, tmp_path / "model", rules, made)
    agent = FileAgent(agent_path, rules)
    trained = PolicyAgent(rules, model.policy, "learner", deterministic=True, frozen=False)
    st = init(rules, 64, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(40):           # positions along a few games
        live = np.flatnonzero(st.phase != 2)
        if not live.size:
            break
        who = st.seat_player[np.arange(64), st.current.astype(np.int64)].astype(np.int64)
        obs = O.observe(rules, st, who)[live]
        assert obs.shape[1] == O.size(rules)          # the ordinary observation: no deal
        mask = st.legal[live]
        np.testing.assert_array_equal(agent.act(obs, mask, rng), trained.act(obs, mask, rng))
        with torch.no_grad():       # the logits themselves
            x = torch.as_tensor(privileged_observation(rules, st.take(live), who[live], obs))
            want = model.policy.action_net(model.policy.mlp_extractor.forward_actor(model.policy.extract_features(x)))
        np.testing.assert_allclose(agent.logits(obs), want.numpy(), rtol=1e-5, atol=1e-5)
        acts = np.zeros(64, dtype=np.int64)
        acts[live] = agent.act(obs, mask, rng)
        step_inplace(rules, st, acts, where=st.phase != 2)
    venv.close()


def test_a_bad_value_is_refused_by_name():
    with pytest.raises(ValueError, match="privileged_critic=1: expected true or false"):
        settings_for("president", privileged_critic=1)
    assert settings_for("president").privileged_critic is False


def test_resume_and_expert_iteration_refuse_the_setting(tmp_path, capsys):
    zip_path = tmp_path / "some.zip"
    zip_path.write_bytes(b"PK")
    code, err = run_cli(["train", "--out", str(tmp_path / "r"), "--resume", str(zip_path), "--no-progress",
                         "--set", "privileged_critic=true"], capsys)
    assert code != 0 and "privileged_critic" in err and "--resume" in err, err
    code, err = run_cli(["train", "--method", "expert-iteration", "--out", str(tmp_path / "e"), "--no-progress",
                         "--set", "privileged_critic=true"], capsys)
    assert code != 0 and "privileged_critic" in err, err


@pytest.mark.parametrize("seats", [1, 2])
def test_a_tiny_run_writes_an_agent_that_loads_and_plays(tmp_path, capsys, seats):
    from president_cli.main import main

    out = tmp_path / "run"
    argv = ["train", "--out", str(out), "--timesteps", "1024", "--final-deals", "0", "--no-progress", "--seed", "2"]
    for k, v in {**TINY, "learner_seats": seats}.items():
        argv += ["--set", f"{k}={json.dumps(v)}"]
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    assert json.loads((out / "args.json").read_text())["settings"]["privileged_critic"] is True
    agent = out / "model.agent.safetensors"
    assert FileAgent(agent, preset("president")).layers[0][0].shape[1] == O.size(preset("president"))
    assert main(["evaluate", "--preset", "president", "--games", "4", "--hands", "1", "--seed", "1",
                 "--agents", f"ppo:{agent},heuristic,heuristic,heuristic"]) in (0, None)
