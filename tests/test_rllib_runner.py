"""The RLlib env runner on the batched core (``training.rllib_runner``) and the Ray path's cluster knobs.

The seat trajectories the runner files are checked against an independent replay of the
same games on the core; the runner is seeded; the command's knobs reach RLlib's config; and
a training run on a real two-node Ray cluster (``ray.cluster_utils.Cluster``: a head and a
worker node, each its own raylet) puts its env runner on the worker node.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from president_cli.main import main  # noqa: E402
from president_env.aec_env import hand_rewards, make_rules  # noqa: E402
from president_env.core import OVER, current_player, init, make_keys, observe, preset, step  # noqa: E402
from training.rllib_runner import BatchedEnvRunner, SeatGames, rules_of, sample_actions  # noqa: E402
from training.rllib_train import RllibTrainArgs, build_config, module_ids, rllib_settings, train_rllib  # noqa: E402

TINY = {"hidden": [32, 32], "train_batch": 256, "minibatch": 128, "epochs": 1, "envs_per_runner": 8}


def _replay(rules, key: np.ndarray, moves: list[int], reward: str) -> dict[int, dict[str, list]]:
    """One game from ``key`` (random start ranks, as the runner deals) played with ``moves``: per player, the
    observations, masks and actions of its decisions and the reward of each (what it earned until its next
    decision; a hand's reward before its first decision goes to that first decision)."""
    st = init(rules, keys=key[None], start_ranks="random")
    seats: dict[int, dict[str, list]] = {p: {"obs": [], "mask": [], "act": [], "rew": []} for p in range(rules.players)}
    early = np.zeros(rules.players, dtype=np.float32)
    for a in moves:
        assert st.phase[0] != OVER
        p = int(current_player(st)[0])
        s = seats[p]
        s["obs"].append(observe(rules, st, p)[0])
        s["mask"].append(st.legal[0].astype(np.int8))
        s["act"].append(a)
        s["rew"].append(float(early[p]))
        early[p] = 0
        st = step(rules, st, np.array([a]))
        if st.hand_over[0]:
            hr = hand_rewards(rules, st, reward)[0]
            for q in range(rules.players):
                if seats[q]["rew"]:
                    seats[q]["rew"][-1] += float(hr[q])
                else:
                    early[q] += hr[q]
    assert st.phase[0] == OVER
    return seats


@pytest.mark.parametrize("name, episode, reward", [("president", "hand", "points"),
                                                   ("president", "session", "rank"),
                                                   ("revolution", "session", "points")])
def test_trajectories_are_the_seats_decisions_of_a_replay(name, episode, reward):
    """Four games until each has finished its first episode, the finished trajectories taken twice on the way
    (so trajectories cross a ``take_finished``): each game's first-episode trajectories are exactly its
    players' decisions and rewards in an independent replay of the same key and moves."""
    overrides = {"hands_per_session": 3} if episode == "session" else {}
    rules = make_rules(name, episode, **overrides)
    B, seed = 4, 11
    games = SeatGames(rules, B, start_ranks="random", reward=reward, seed=seed, worker=2)
    keys = make_keys(B, np.random.default_rng([seed, 2, 0]))
    rng = np.random.default_rng(0)
    moves: list[list[int]] = [[] for _ in range(B)]
    first = np.ones(B, dtype=bool)                 # still in its first episode
    taken: list[dict[str, np.ndarray]] = []
    steps = 0
    while first.any():
        who, obs, mask = games.observe()
        logits = rng.normal(size=mask.shape).astype(np.float32)
        actions, logp = sample_actions(logits, mask, games.rng)
        for g in np.flatnonzero(first):
            moves[g].append(int(actions[g]))
        games.step(who, obs, mask, actions, logp, logits)
        first[games.ended] = False                 # (and dealt again at once)
        steps += 1
        if steps in (7, 40):
            taken += games.take_finished()
    taken += games.take_finished()
    want = []
    for g in range(B):
        seats = _replay(rules, keys[g], moves[g], reward)
        want += [seats[p] for p in range(rules.players) if seats[p]["act"]]
    assert len(taken) >= len(want)
    by_first = {(t["obs"][0].tobytes(), t["act"].tobytes()): t for t in taken}
    for w in want:
        got = by_first[(np.asarray(w["obs"][0]).tobytes(), np.asarray(w["act"], dtype=np.int64).tobytes())]
        np.testing.assert_array_equal(got["obs"], np.array(w["obs"]))
        np.testing.assert_array_equal(got["mask"], np.array(w["mask"]))
        np.testing.assert_allclose(got["rew"], np.array(w["rew"], dtype=np.float32), atol=1e-6)
        assert got["mask"][np.arange(len(got["act"])), got["act"]].all()


def test_sample_actions_draws_from_the_masked_softmax():
    """Gumbel-max over the legal logits: legal only, log-probabilities of the masked softmax, the frequencies
    of the softmax; the arg max when not exploring."""
    rng = np.random.default_rng(3)
    logits = np.array([[2.0, 1.0, 0.0, 5.0]] * 20000, dtype=np.float32)
    mask = np.array([[1, 1, 1, 0]] * 20000, dtype=np.int8)
    actions, logp = sample_actions(logits, mask, rng)
    p = np.exp([2.0, 1.0, 0.0]) / np.exp([2.0, 1.0, 0.0]).sum()
    assert (actions != 3).all()
    np.testing.assert_allclose(np.bincount(actions, minlength=4)[:3] / 20000, p, atol=0.015)
    np.testing.assert_allclose(logp, np.log(p)[actions], rtol=1e-5)
    greedy, _ = sample_actions(logits, mask, rng, explore=False)
    assert (greedy == 0).all()


def _runner(seed: int) -> BatchedEnvRunner:
    rules = preset("president")
    return BatchedEnvRunner(config=build_config("president", None, rllib_settings(hidden=[8], envs_per_runner=8), 0,
                                                "shared", seed, module_ids(rules, "shared")))


def test_the_runner_is_seeded():
    """Same seed, same weights: the same episodes; another seed: other games."""
    runs = []
    for seed in (4, 4, 5):
        r = _runner(seed)
        r.module.load_state_dict(_runner(0).module.state_dict())   # the same weights for all three
        runs.append([(e.get_actions(slice(0, len(e))).tolist(), e.get_rewards(slice(0, len(e))).tolist())
                     for e in r.sample(num_timesteps=200)])
        r.stop()
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_the_runner_counts_and_returns_whole_trajectories():
    """At least the asked decisions, every episode terminated, metrics count what was returned."""
    from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED

    r = _runner(0)
    episodes = r.sample(num_timesteps=500)
    n = sum(len(e) for e in episodes)
    assert n >= 500 and all(e.is_terminated and len(e) > 0 for e in episodes)
    assert r.get_metrics()[NUM_ENV_STEPS_SAMPLED] == n
    r.stop()


def test_bad_env_config_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown env_config key\(s\) \['decks'\]"):
        rules_of({"preset": "president", "decks": 2})
    with pytest.raises(ValueError, match="num_games must be positive"):
        SeatGames(preset("president"), 0)


def test_cluster_knobs_reach_rllibs_config(capsys):
    """``--envs-per-runner``, ``--learners``, ``--gpus-per-learner`` are settings, checked like ``--set``."""
    s = rllib_settings(envs_per_runner=128, learners=2, gpus_per_learner=0.5)
    cfg = build_config("president", None, s, 3, "shared", 0, module_ids(preset("president"), "shared"))
    assert (cfg.num_env_runners, cfg.num_envs_per_env_runner, cfg.num_learners, cfg.num_gpus_per_learner) == (
        3, 128, 2, 0.5)
    assert cfg.env_runner_cls is BatchedEnvRunner
    with pytest.raises(ValueError, match="setting gpus_per_learner=-1"):
        rllib_settings(gpus_per_learner=-1)
    with pytest.raises(SystemExit):
        main(["train", "--backend", "rllib", "--out", "runs/never", "--envs-per-runner", "64",
              "--set", "envs_per_runner=32"])
    assert "--envs-per-runner 64 and --set envs_per_runner=32 disagree" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--backend", "rllib", "--out", "runs/never", "--envs-per-runner", "0"])
    assert "--envs-per-runner" in capsys.readouterr().err


@pytest.fixture
def two_node_cluster():
    """A head node with no CPU for tasks and a worker node with 2 CPUs, each its own raylet."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    worker = cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    yield cluster, worker
    ray.shutdown()
    cluster.shutdown()


@pytest.mark.slow     # a simulated two-node Ray cluster: 15-20 s, and its timing depends on the load
def test_training_on_a_two_node_cluster_samples_on_the_worker_node(two_node_cluster, tmp_path):
    """``train --address`` of a two-node cluster: the env runners sit on the worker node (the head offers no
    CPU), the run trains, checkpoints and exports as in local mode."""
    cluster, worker = two_node_cluster
    args = RllibTrainArgs(preset="president", timesteps=10**9, iterations=2, out=str(tmp_path), env_runners=2,
                          address=cluster.address, checkpoint_every=0, final_deals=0, progress=False,
                          settings=dict(TINY))
    result = train_rllib(args)
    assert result.iterations == 2 and result.timesteps >= 2 * TINY["train_batch"]
    assert result.runner_nodes == [worker.node_id] * 2
    assert json.loads((tmp_path / "final.json").read_text())["runner_nodes"] == [worker.node_id] * 2
    assert result.agent_path.is_file()


def test_resuming_a_checkpoint_of_other_policies_is_a_clear_error(tmp_path, capsys):
    """Policies are read from the checkpoint's folder names (nothing unpickled) before Ray starts."""
    ckpt = tmp_path / "ckpt"
    (ckpt / "learner_group" / "learner" / "rl_module" / "shared").mkdir(parents=True)
    with pytest.raises(SystemExit):
        main(["train", "--backend", "rllib", "--out", str(tmp_path / "o"), "--resume", str(ckpt), "--trust-pickle"])
    err = capsys.readouterr().err
    assert "holds the policies ['shared']" in err and "needs ['default_policy']" in err
    with pytest.raises(SystemExit):
        main(["train", "--backend", "rllib", "--out", str(tmp_path / "o"), "--resume", str(ckpt), "--trust-pickle",
              "--policies", "per-seat"])
    assert "needs ['player_0', 'player_1', 'player_2', 'player_3']" in capsys.readouterr().err


def test_gpus_the_cluster_lacks_are_a_clear_error(tmp_path, capsys):
    """``--gpus-per-learner`` beyond the cluster's GPUs: an error naming both, nothing written (not a wait for
    GPUs that never come)."""
    with pytest.raises(SystemExit) as e:
        main(["train", "--backend", "rllib", "--out", str(tmp_path / "o"), "--gpus-per-learner", "64",
              "--learners", "1", "--env-runners", "0", "--no-progress"])   # (more learners than CPUs: refused first)
    ray.shutdown()
    assert e.value.code == 2
    assert "--gpus-per-learner 64 with 1 learner(s) needs 64 GPUs; the Ray cluster has" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
