"""``president evaluate --ray`` with entrants that draw random numbers: per-deal streams, parallel tasks.

The table of :func:`training.ray_evaluate.ray_tournament` is the serial
:func:`agents.arena.run_tournament`'s for any number of tasks and any ``batch_size``, random
entrants included (each draws, in each deal, from that deal's own stream). The Ray tests run
on a local Ray with 2 CPUs (started once for the module); the multi-node test (last: it shuts that
Ray down first; about 20 s) starts a ``ray.cluster_utils.Cluster`` of a head and one worker node,
each its own raylet with 1 CPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import positions

ray = pytest.importorskip("ray")

from agents.arena import deal_uniforms, run_tournament  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from president_env.core import preset  # noqa: E402
from training.ray_evaluate import default_tasks, ray_tournament  # noqa: E402

RULES = preset("president", players=3, hands_per_session=2)
RANDOMS = ["random", "greedy", "random"]


def _same(a, b) -> None:
    """Two tournament results are the same table (all but ``seconds`` and ``extra``)."""
    da, db = a.to_dict(), b.to_dict()
    da.pop("seconds"), db.pop("seconds")
    assert da == db
    np.testing.assert_array_equal(a.per_deal_points, b.per_deal_points)
    assert [e.rating_mu for e in a.entrants] == [e.rating_mu for e in b.entrants]


@pytest.fixture(scope="module")
def serial_random():
    """The serial table of the random entrants: 21 deals, seed 3."""
    return run_tournament(RULES, RANDOMS, 21, seed=3)


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray of this test module's own (2 CPUs), shut down after the module. ``address="local"``: a new
    instance even when another cluster runs on this machine (plain ``ray.init()`` would join the latest one
    started by ``ray start`` or a ``Cluster``)."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


class _DealRandom(RandomAgent):
    """A random agent without ``uniform_draws``: the arena calls it once per deal with that deal's Generator."""

    name = "deal-random"
    uniform_draws = False


# --------------------------------------------------------------------------- the serial arena
def test_serial_random_table_is_independent_of_batch_size(serial_random):
    for batch_size in (1, 3, 7, 30):
        _same(run_tournament(RULES, RANDOMS, 21, seed=3, batch_size=batch_size), serial_random)


def test_agents_called_once_per_deal_are_independent_of_batch_size():
    ents = [_DealRandom(RULES), "greedy", _DealRandom(RULES)]
    base = run_tournament(RULES, ents, 12, seed=4)
    for batch_size in (1, 5):
        _same(run_tournament(RULES, ents, 12, seed=4, batch_size=batch_size), base)


def test_random_entrants_differ_by_seed_and_copies_differ(serial_random):
    other = run_tournament(RULES, RANDOMS, 21, seed=4)
    assert not np.array_equal(other.per_deal_points, serial_random.per_deal_points)
    # the two random copies draw from different streams: their per-deal figures are not a mirror of each other
    assert not np.array_equal(serial_random.per_deal_points[:, 0], serial_random.per_deal_points[:, 2])


def test_deal_uniforms_depend_on_stream_position_and_action_only():
    rng = np.random.default_rng(0)
    stream = rng.integers(0, 2**63, 50, dtype=np.uint64)
    counter = rng.integers(0, 10**6, 50)
    mask = rng.random((50, 30)) < 0.3
    mask[:, 0] = True
    u = deal_uniforms(stream, counter, mask)
    assert ((u > 0) & (u < 1))[mask].all() and (u[~mask] == 0).all()
    # a row alone, or among other rows, gets the same numbers
    for r in (0, 17, 49):
        np.testing.assert_array_equal(deal_uniforms(stream[r:r + 1], counter[r:r + 1], mask[r:r + 1])[0], u[r])
    # the next position of a stream gives other numbers; the numbers look uniform
    assert not np.array_equal(deal_uniforms(stream, counter + 1, mask)[mask], u[mask])
    many = deal_uniforms(np.full(4000, 7, np.uint64), np.arange(4000), np.ones((4000, 10), bool))
    assert abs(many.mean() - 0.5) < 0.01 and abs(many.var() - 1 / 12) < 0.005


@pytest.mark.parametrize("spec", ["search:worlds=3,actions=3", "search:worlds=3,actions=3,batch=20",
                                  "search:policy=random,worlds=2,actions=2", "random"])
def test_act_grouped_is_one_act_call_per_group(spec):
    """``search`` rolls the groups out together (its own ``_act_grouped``), yet answers and counts as one call per
    group with that group's generator would; so does the default (one call per group)."""
    rules = preset("president", hands_per_session=1)
    obs, mask = positions(rules, 60, seed=3)
    bounds = np.array([0, 3, 3, 10, 25, 26, 60])
    grouped, alone = make_agent(spec, rules), make_agent(spec, rules)
    got = grouped.act_grouped(obs, mask, [np.random.default_rng(k) for k in range(6)], bounds)
    want = np.concatenate([alone.act(obs[a:b], mask[a:b], np.random.default_rng(k))
                           for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))])
    np.testing.assert_array_equal(got, want)
    if hasattr(grouped, "stats"):
        for field in ("decisions", "searched", "rollouts", "max_rollouts"):
            assert getattr(grouped.stats, field) == getattr(alone.stats, field), field
    with pytest.raises(ValueError, match="bounds must run from 0"):
        grouped.act_grouped(obs, mask, [np.random.default_rng(0)], np.array([0, 5]))


def test_act_uniform_is_only_for_uniform_agents():
    obs = np.zeros((1, make_agent("greedy", RULES).obs_size), np.float32)
    mask = np.zeros((1, make_agent("greedy", RULES).n_actions), bool)
    mask[0, :2] = True
    assert make_agent("random", RULES).act_uniform(obs, mask, np.array([[0.2, 0.9] + [0.0] * (mask.shape[1] - 2)])
                                                   ) == [1]
    with pytest.raises(TypeError, match="uniform_draws"):
        make_agent("greedy", RULES).act_uniform(obs, mask, np.full(mask.shape, 0.5))


def test_default_tasks_one_per_cpu_until_tasks_stay_large():
    assert default_tasks(deals=2000, sessions=8000, cpus=2) == 2           # 4,000 sessions a task: one per CPU
    assert default_tasks(deals=20000, sessions=80000, cpus=2) == 8         # large: up to 4 per CPU
    assert default_tasks(deals=20000, sessions=80000, cpus=4) == 16
    assert default_tasks(deals=3, sessions=12, cpus=8) == 3                # never more than one per deal


# --------------------------------------------------------------------------- Ray, local mode
def test_ray_random_table_is_the_serial_one_for_any_number_of_tasks(local_ray, serial_random):
    for tasks in (1, 3, 7):
        result = ray_tournament(RULES, RANDOMS, 21, seed=3, tasks=tasks)
        _same(result, serial_random)
        assert result.extra["tasks"] == tasks and sum(result.extra["nodes"].values()) == tasks
    _same(ray_tournament(RULES, RANDOMS, 21, seed=3, tasks=4, batch_size=5), serial_random)


def test_ray_search_table_and_counts_are_the_serial_ones(local_ray):
    """``search`` (one call per deal, its own Generator) fans out too; its work counts add up over the tasks."""
    rules = preset("president", players=3, hands_per_session=1)
    spec = "search:worlds=2,actions=2"
    serial_agent = make_agent(spec, rules)
    serial = run_tournament(rules, [serial_agent, "heuristic", "random"], 3, seed=1, rating=False)
    ray_agent = make_agent(spec, rules)
    result = ray_tournament(rules, [ray_agent, "heuristic", "random"], 3, seed=1, rating=False, tasks=3)
    _same(result, serial)
    assert result.extra["agents"][0] is ray_agent
    for field in ("decisions", "searched", "rollouts", "max_rollouts"):
        assert getattr(ray_agent.stats, field) == getattr(serial_agent.stats, field) > 0, field


def test_bench_ray_evaluate_reports_serial_and_ray_rows(local_ray, capsys):
    """benchmarks/bench_ray_evaluate.py runs (on the module's Ray, which it leaves running) and checks the table."""
    import importlib
    import sys
    from pathlib import Path

    bench_dir = str(Path(__file__).resolve().parent.parent / "benchmarks")
    sys.path.insert(0, bench_dir)
    try:
        bench = importlib.import_module("bench_ray_evaluate")
    finally:
        sys.path.remove(bench_dir)
    rows = bench.main(["--preset", "president", "--players", "3", "--deals", "6", "--repeats", "1", "--hands", "2",
                       "--tasks", "3", "--json"])
    assert [r["path"] for r in rows] == ["serial", "ray_2"] and ray.is_initialized()
    assert all(r["decisions"] > 0 and r["seconds"] > 0 for r in rows) and rows[1]["tasks"] == 3
    assert '"same_table": true' in capsys.readouterr().out


# --------------------------------------------------------------------------- Ray, two nodes
@pytest.mark.slow     # a simulated two-node Ray cluster: 15-20 s, and its timing depends on the load
def test_ray_tournament_on_two_nodes_is_the_serial_table(monkeypatch):
    """A head and a worker node (each its own raylet, 1 CPU): the random entrants' tasks run on both nodes
    and the table is the serial one."""
    from ray.cluster_utils import Cluster

    # A Cluster writes its address to /tmp/ray/ray_current_cluster (where any plain ray.init() on this machine
    # would find and join it) and deletes that file at shutdown, whoever wrote it: neither, here; the driver
    # joins by the address itself.
    monkeypatch.setattr(ray._private.utils, "write_ray_address", lambda *args, **kwargs: None)
    monkeypatch.setattr(ray._common.utils, "reset_ray_address", lambda *args, **kwargs: None)
    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(nodes) == 2
        rules = preset("president", hands_per_session=4)
        entrants = ["random", "greedy", "random", "random"]
        serial = run_tournament(rules, entrants, 80, seed=9)
        result = ray_tournament(rules, entrants, 80, seed=9, tasks=8)
        _same(result, serial)
        assert set(result.extra["nodes"]) == nodes, result.extra["nodes"]
        assert sum(result.extra["nodes"].values()) == 8
    finally:
        ray.shutdown()
        cluster.shutdown()
