"""Learner decisions per second of the RLlib path (1 and 2 env runners) beside the SB3 path, in one run.

* ``sb3``: ``president train`` (MaskablePPO on the batched VecEnv, the default trainer: the
  learner in all seats but one), timed as in ``bench_training.py``: the whole run.
* ``rllib_N``: ``president train --backend rllib --env-runners N`` (PPO, every seat the shared
  policy, env runners that step ``envs_per_runner`` games as arrays on the batched core): PPO
  iterations after one warm-up iteration, divided into the iterations' wall time, split into the
  PPO update ("learning": the learner group's ``update``, timed around the call, in this process)
  and the rest ("sampling": env runners stepping the games and the module, moving the episodes,
  syncing the weights).
* ``sample_N`` (``--sample-only``): the same N env runners sampling train batches with no update
  in between: how sampling alone scales with runners on their own cores.

Both do the same PPO work per decision (two hidden layers of 256, minibatches of 4,096, 4
epochs; SB3 updates on 16,384 decisions per rollout, RLlib on ``--train-batch``, the same by
default). A decision is one move of one seat. By default the script pins itself, and so the
local Ray it starts, to one core, as the other benchmarks do; ``--all-cores`` lets Ray use them all.
The projection for a cluster takes the measured split: with N runners on N cores sampling takes
``sample / N`` (runners sample in parallel) while the update stays in the learner, ``--gpu-speedup``
times faster on a GPU learner (an assumption, printed as such: no GPU was measured here).

    python benchmarks/bench_rllib.py                              # sb3, rllib 1 and 2 runners
    python benchmarks/bench_rllib.py --runners 1,2,4 --all-cores  # on a bigger machine
    python benchmarks/bench_rllib.py --all-cores --sample-only --sb3-decisions 0   # how runners scale
    python benchmarks/bench_rllib.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from _common import one_core  # noqa: E402
from bench_training import bench_training  # noqa: E402

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PROJECT not in sys.path:
    sys.path.insert(0, PROJECT)


def bench_sb3(preset: str, decisions: int) -> dict:
    """The SB3 trainer (default learner seats) for ``decisions`` learner decisions, whole-run wall time."""
    from president_env.core import preset as make_preset

    seats = make_preset(preset).players - 1
    row = bench_training(preset, seats, decisions, 1, {})
    return {"path": "sb3", "env_runners": None, "decisions": row["decisions"], "seconds": row["seconds"],
            "decisions_per_s": row["decisions_per_s"]}


def bench_rllib(preset: str, runners: int, iterations: int, train_batch: int, num_cpus: int,
                overrides: dict) -> dict:
    """``iterations`` timed PPO iterations of the RLlib path with ``runners`` EnvRunners (after one warm-up)."""
    import ray
    import torch

    from training.rllib_train import build_config, module_ids, rllib_settings

    torch.set_num_threads(1)
    from president_env.core import preset as make_preset

    rules = make_preset(preset)
    s = rllib_settings(**{"train_batch": train_batch, "minibatch": 4096, "epochs": 4, **overrides})
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=max(num_cpus, runners), include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(preset, None, s, runners, "shared", 0, module_ids(rules, "shared")).build_algo()
        algo.train()                                           # warm-up: actors, first weights, compiled paths
        startup = time.perf_counter() - t0
        learn = _time_updates(algo)
        decisions = 0
        t1 = time.perf_counter()
        for _ in range(iterations):
            decisions += int(algo.train()["env_runners"]["num_env_steps_sampled"])
        seconds = time.perf_counter() - t1
        algo.stop()
    finally:
        ray.shutdown()
    return {"path": f"rllib_{runners}", "env_runners": runners, "decisions": decisions, "seconds": round(seconds, 2),
            "decisions_per_s": decisions / seconds, "sample_s": round(seconds - learn[0], 2),
            "learn_s": round(learn[0], 2), "startup_s": round(startup, 1)}


def bench_sampling(preset: str, runners: int, rounds: int, train_batch: int, num_cpus: int, overrides: dict) -> dict:
    """``rounds`` train batches sampled by ``runners`` env runners (after one warm-up), no update in between."""
    import ray
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    from president_env.core import preset as make_preset
    from training.rllib_train import build_config, module_ids, rllib_settings

    rules = make_preset(preset)
    s = rllib_settings(**{"train_batch": train_batch, **overrides})
    ray.init(address="local", num_cpus=max(num_cpus, runners), include_dashboard=False, log_to_driver=False)
    try:
        algo = build_config(preset, None, s, runners, "shared", 0, module_ids(rules, "shared")).build_algo()

        def one() -> int:
            episodes = synchronous_parallel_sample(worker_set=algo.env_runner_group, max_env_steps=train_batch,
                                                   _uses_new_env_runners=True)
            return sum(len(e) for e in episodes)

        one()
        t = time.perf_counter()
        decisions = sum(one() for _ in range(rounds))
        seconds = time.perf_counter() - t
        algo.stop()
    finally:
        ray.shutdown()
    return {"path": f"sample_{runners}", "env_runners": runners, "decisions": decisions,
            "seconds": round(seconds, 2), "decisions_per_s": decisions / seconds}


def _time_updates(algo: Any) -> list[float]:
    """Wrap the learner group's ``update`` (the PPO update of an iteration) so its seconds add up in the list."""
    spent = [0.0]
    update = algo.learner_group.update

    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return update(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    algo.learner_group.update = timed
    return spent


def projection(row: dict, runners: int, update_speedup: float = 1.0) -> float:
    """Decisions/s with ``runners`` EnvRunners on their own cores: sampling split ``runners`` ways, the update
    ``update_speedup`` times faster (a GPU learner: an assumption), the rest as measured.

    ``row`` is a measured one-runner row: ``learn_s`` the PPO update, which stays in the learner, and
    ``sample_s`` the rest of the iterations' time (sampling, moving episodes, syncing weights)."""
    return row["decisions"] / (row["sample_s"] / runners + row["learn_s"] / update_speedup)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="president")
    ap.add_argument("--runners", default="1,2", help="comma-separated env runner counts (default 1,2)")
    ap.add_argument("--iterations", type=int, default=3, help="timed PPO iterations per RLlib row (after one warm-up)")
    ap.add_argument("--train-batch", type=int, default=16384, help="decisions per RLlib iteration")
    ap.add_argument("--sb3-decisions", type=int, default=100_000, help="learner decisions of the SB3 row (0: none)")
    ap.add_argument("--all-cores", action="store_true", help="do not pin to one core; Ray gets every core")
    ap.add_argument("--sample-only", action="store_true", help="also rows of the env runners sampling alone")
    ap.add_argument("--sample-rounds", type=int, default=10, help="train batches sampled per sample-only row")
    ap.add_argument("--gpu-speedup", type=float, default=20.0,
                    help="assumed speed-up of the PPO update on a GPU learner, for the projection (default 20)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="an RLlib setting override")
    ap.add_argument("--json", action="store_true", help="print one JSON list of rows")
    args = ap.parse_args(argv)
    if not args.all_cores:
        one_core()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    rows = [bench_sb3(args.preset, args.sb3_decisions)] if args.sb3_decisions else []
    rows += [bench_rllib(args.preset, int(n), args.iterations, args.train_batch, cpus, overrides)
             for n in args.runners.split(",")]
    if args.sample_only:
        rows += [bench_sampling(args.preset, int(n), args.sample_rounds, args.train_batch, cpus, overrides)
                 for n in args.runners.split(",")]
    if args.json:
        print(json.dumps(rows))
        return rows
    from rich.console import Console
    from rich.table import Table

    base = rows[0]["decisions_per_s"]
    table = Table(title=f"learner decisions per second, {args.preset}, {cpus} core(s)")
    for col in ("path", "decisions", "seconds", "decisions/s", f"x {rows[0]['path']}", "sampling s", "learning s",
                "start s"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(r["path"], f"{r['decisions']:,}", f"{r['seconds']:.1f}", f"{r['decisions_per_s']:,.0f}",
                      f"{r['decisions_per_s'] / base:.3f}", str(r.get("sample_s", "")), str(r.get("learn_s", "")),
                      str(r.get("startup_s", "")))
    Console(width=150).print(table)
    one = next((r for r in rows if r["path"] == "rllib_1"), None)
    if one is not None:
        g = args.gpu_speedup
        for label, speedup in (("the update as measured (CPU)", 1.0), (f"the update {g:g}x faster (GPU, assumed)", g)):
            proj = ", ".join(f"{n}: {projection(one, n, speedup):,.0f}" for n in (1, 2, 4, 8, 32, 256))
            cap = one["decisions"] * speedup / one["learn_s"]
            Console(width=150).print(f"projected decisions/s with N runners on N cores, {label}: {proj}; "
                                     f"the update alone caps it at {cap:,.0f}")
    return rows


if __name__ == "__main__":
    main()
