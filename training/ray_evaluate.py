"""Duplicate-deal tournaments fanned out over Ray: the serial tournament's table, computed in Ray tasks.

``president evaluate --ray [--address ADDR]`` calls :func:`ray_tournament`, which gives
exactly the :class:`~agents.arena.TournamentResult` of :func:`agents.arena.run_tournament`
for the same arguments (only ``seconds`` differs), by construction:

* the deals' keys and the seatings are drawn in the driver from the seed, as the serial
  run draws them (``SeedSequence(seed).spawn(P + 2)``: keys, seatings, one generator per
  entrant), so a deal is the same deal whichever task plays it;
* the deals, seatings and generators come from ``agents.arena.prepare_tournament``, as in the
  serial run; every task plays its deals with the arena's own loop (``agents.arena.play_deals``)
  into its own tally, and the driver puts the tallies back in deal order and summarises them with
  the arena's ``_summarise`` (the rating is updated session by session in deal order there);
* a game's play depends only on its key and on what its agents answer for its own rows. Agents
  that draw no random numbers (``heuristic``, ``greedy``, ``ppo:``, ``zoo:``) answer the same
  whatever else is in the batch, so their deals are split into any number of tasks that run in
  parallel. An entrant that draws random numbers (``random``, ``ppo-sample:``, ``search``) draws
  them from one generator that the serial run passes through its batches in order; to give the
  same numbers the tasks are then exactly the serial batches (``batch_size`` sessions), run one
  after another, each starting from the generators the previous one left. Same table, no
  speed-up: a note says so.

The agents are built once in the driver (files read and checked there) and shipped to the
tasks by Ray, so an agent file need not exist on the other nodes of a cluster.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from typing import Any

from agents.arena import TournamentResult, _Caller, _summarise, _Tally, play_deals, prepare_tournament
from agents.base import Agent
from president_env.core import Rules
from training.ray_cluster import cluster_cpus, connect

TASKS_PER_CPU = 4
_TALLY_FIELDS = ("points", "hands", "pres", "scum", "possum", "ahead")


def _chunks(deals: int, size: int) -> list[tuple[int, int]]:
    return [(d0, min(deals, d0 + size)) for d0 in range(0, deals, size)]


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

    ``tasks`` is the number of tasks deterministic entrants are split into (default: four per CPU
    of the cluster, at most one per deal). ``address`` joins a cluster; without it (and without a
    running Ray) a local Ray starts. ``result.extra["agents"]`` holds the agents as the last task
    left them (for reports such as the search agent's counts)."""
    if tasks is not None and tasks < 1:
        raise ValueError(f"tasks must be positive, got {tasks}")
    rules, names, keys, callers, game_ent, Q, per_batch = prepare_tournament(
        rules, entrants, deals, seed, rotations, hands_per_session, batch_size)
    P = rules.players

    ray = connect(address)
    remote = ray.remote(num_returns=2)(play_deals)
    draws = [c.agent.name for c in callers if not getattr(c.agent, "deterministic", False)]
    if draws:
        chunks = _chunks(deals, per_batch)
        if len(chunks) > 1:
            print(f"note: {', '.join(dict.fromkeys(draws))} draw random numbers from one generator through the "
                  f"serial batches, so the {len(chunks)} batches run one after another (the serial table exactly, "
                  "no speed-up); deterministic agents fan out", file=sys.stderr)
    else:
        n = min(deals, tasks or TASKS_PER_CPU * cluster_cpus(ray))
        chunks = _chunks(deals, math.ceil(deals / n))

    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=deals * Q, unit="session", desc=f"{rules.name} x{P} (ray)", leave=False)
    t0 = time.perf_counter()
    rules_ref, callers_ref = ray.put(rules), ray.put(callers)
    tallies: dict[Any, tuple[int, int]] = {}
    after: Any = callers_ref
    for d0, d1 in chunks:
        tally_ref, after = remote.remote(rules_ref, keys[d0:d1], game_ent[d0 * Q:d1 * Q], callers_ref, per_batch)
        tallies[tally_ref] = (d0, d1)
        if draws:
            callers_ref = after                 # the next batch starts from the generators this one left
    tally = _Tally.zeros(deals * Q, P)
    pending = list(tallies)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            d0, d1 = tallies[ref]
            part: _Tally = ray.get(ref)
            for name in _TALLY_FIELDS:
                getattr(tally, name)[d0 * Q:d1 * Q] = getattr(part, name)
            tally.decisions += part.decisions
            if bar is not None:
                bar.update((d1 - d0) * Q)
    final_callers: list[_Caller] = ray.get(after) if draws else callers
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    result = _summarise(rules, names, deals, rotations, seed, seconds, game_ent, Q, tally, rating)
    by_entrant = {e: c.agent for c in final_callers for e in c.entrants}
    result.extra["agents"] = [by_entrant[e] for e in range(P)]
    return result
