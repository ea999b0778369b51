"""Duplicate-deal tournaments fanned out over Ray: the serial tournament's table, computed in Ray tasks.

``president evaluate --ray`` calls :func:`ray_tournament`, which gives exactly the
:class:`~agents.arena.TournamentResult` of :func:`agents.arena.run_tournament` for the same
arguments (only ``seconds`` and ``extra`` differ), by construction:

* the deals' keys, the seatings and the entrants' random streams are drawn in the driver from the
  seed by ``agents.arena.prepare_tournament``, as the serial run draws them
  (``SeedSequence(seed).spawn(P + 2)``: keys, seatings, one sequence per entrant, which gives the
  entrant one stream per deal), so a deal is the same deal whichever task plays it;
* the deals are split into ``tasks`` runs of consecutive deals (by default one per CPU of the cluster, up
  to four per CPU for tournaments large enough that every task keeps 5,000 sessions: a task steps
  its batch until its longest session ends, a fixed cost of a few seconds); every task plays its deals with
  the arena's own loop (``agents.arena.play_deals``, in batches of ``batch_size`` sessions) into its
  own tally, and the driver puts the tallies back in deal order and summarises them with the
  arena's ``_summarise`` (the rating is updated session by session in deal order there);
* a game's play depends only on its key and on what its agents answer for its own rows:
  deterministic agents (``heuristic``, ``greedy``, ``ppo:``, ``zoo:``) answer the same whatever else
  is in the batch, and an agent that draws random numbers (``random``, ``ppo-sample:``, ``search``)
  draws, in each deal, from that deal's own stream (see ``agents.arena``), never from a generator
  that runs through the batches. So every entrant's deals split into any number of tasks that
  run in parallel, on any number of nodes, and give the same table.

The agents are built once in the driver (files read and checked there) and shipped to the
tasks by Ray, so an agent file need not exist on the other nodes of a cluster. Agents that count
their work (``search``: ``merge_work``) get the counts of all the tasks' copies added back, as if
they had played every decision in the driver; ``result.extra["agents"]`` holds them, one per
entrant. ``result.extra["nodes"]`` maps the id of each node that ran a task to its number of tasks
(``result.extra["tasks"]`` in all).

(Before the per-deal streams an entrant that drew random numbers used one generator through the
serial batches, so its tasks had to run one after another: the same table, no speed-up.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from agents.arena import TournamentResult, _Caller, _summarise, _Tally, play_deals, prepare_tournament
from agents.base import Agent
from president_env.core import Rules
from training.ray_cluster import cluster_cpus, connect

TASKS_PER_CPU = 4          # the most tasks per CPU by default (a finer split balances the load across nodes) ...
MIN_TASK_SESSIONS = 5000   # ... as long as each task keeps this many sessions: a task steps its batch until its
                           # longest session ends (thousands of steps, a fixed cost of a few seconds per task)


def default_tasks(deals: int, sessions: int, cpus: int) -> int:
    """The tasks of a tournament of ``sessions`` sessions on ``cpus`` CPUs: one per CPU, up to ``TASKS_PER_CPU`` per
    CPU while every task keeps ``MIN_TASK_SESSIONS`` sessions; never more than one per deal."""
    return max(1, min(deals, max(cpus, min(TASKS_PER_CPU * cpus, sessions // MIN_TASK_SESSIONS))))
_TALLY_FIELDS = ("points", "hands", "pres", "scum", "possum", "ahead")


def _chunks(deals: int, size: int) -> list[tuple[int, int]]:
    return [(d0, min(deals, d0 + size)) for d0 in range(0, deals, size)]


def _play_task(rules: Rules, keys: np.ndarray, draw_keys: np.ndarray, game_ent: np.ndarray,
               callers: list[_Caller], per_batch: int) -> tuple[_Tally, list[_Caller], str]:
    """One task: its deals' tally, its callers after play, the id of the node it ran on."""
    import ray

    tally, callers = play_deals(rules, keys, game_ent, callers, per_batch, draw_keys=draw_keys)
    return tally, callers, ray.get_runtime_context().get_node_id()


def ray_tournament(
    rules: Rules,
    entrants: Sequence[str | Agent],
    deals: int,
    seed: int = 0,
    *,
    rotations: str = "cyclic",
    hands_per_session: int | None = None,
    batch_size: int = 20000,
    tasks: int | None = None,
    address: str | None = None,
    progress: bool = False,
    rating: bool = True,
) -> TournamentResult:
    """:func:`agents.arena.run_tournament` with the deals played in Ray tasks (see the module docstring).

    ``tasks`` is the number of tasks the deals are split into (default: :func:`default_tasks`, one per CPU
    of the cluster, up to four per CPU for large tournaments, at most one per deal). ``address`` joins a
    cluster; without it (and without a running Ray) a local Ray starts. ``result.extra``: ``"agents"``
    (one per entrant, with the tasks' work counts merged), ``"nodes"`` (node id -> tasks it ran) and
    ``"tasks"``."""
    if tasks is not None and tasks < 1:
        raise ValueError(f"tasks must be positive, got {tasks}")
    rules, names, keys, draw_keys, callers, game_ent, Q, per_batch = prepare_tournament(
        rules, entrants, deals, seed, rotations, hands_per_session, batch_size)
    P = rules.players

    ray = connect(address)
    remote = ray.remote(_play_task)
    n = min(deals, tasks or default_tasks(deals, deals * Q, cluster_cpus(ray)))
    chunks = _chunks(deals, math.ceil(deals / n))

    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=deals * Q, unit="session", desc=f"{rules.name} x{P} (ray)", leave=False)
    t0 = time.perf_counter()
    rules_ref, callers_ref = ray.put(rules), ray.put(callers)
    pending_refs = {remote.remote(rules_ref, keys[d0:d1], draw_keys[d0:d1], game_ent[d0 * Q:d1 * Q], callers_ref,
                                  per_batch): (k, d0, d1) for k, (d0, d1) in enumerate(chunks)}
    tally = _Tally.zeros(deals * Q, P)
    task_callers: list[list[_Caller]] = [[] for _ in chunks]
    task_nodes: list[str] = ["" for _ in chunks]
    pending = list(pending_refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            k, d0, d1 = pending_refs[ref]
            part, task_callers[k], task_nodes[k] = ray.get(ref)
            for name in _TALLY_FIELDS:
                getattr(tally, name)[d0 * Q:d1 * Q] = getattr(part, name)
            tally.decisions += part.decisions
            if bar is not None:
                bar.update((d1 - d0) * Q)
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    result = _summarise(rules, names, deals, rotations, seed, seconds, game_ent, Q, tally, rating)
    for i, c in enumerate(callers):        # the driver's agents, with the work their copies did in the tasks
        merge = getattr(c.agent, "merge_work", None)
        if callable(merge):
            merge([tc[i].agent for tc in task_callers])
    by_entrant = {e: c.agent for c in callers for e in c.entrants}
    result.extra["agents"] = [by_entrant[e] for e in range(P)]
    result.extra["nodes"] = {node: task_nodes.count(node) for node in dict.fromkeys(task_nodes)}
    result.extra["tasks"] = len(chunks)
    return result
