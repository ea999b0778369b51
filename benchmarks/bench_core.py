"""Decisions per second of the batched core, against the same games stepped one at a time.

Plays uniformly random legal actions (mask computation included: the mask is part
of every step's output) on one core, for `president`, `daifugo`, `suit_ranking`,
`daifugo_runs` (the card-level action table), `rich_man_poor_man` (poker hands) and `uecda` (the UEC
standard rules: locks, runs with the joker, 2,606 actions), at
several batch sizes, and in the same run steps games one at a time (batch 0 in the rows).

    python benchmarks/bench_core.py              # a table
    python benchmarks/bench_core.py --json       # rows: preset, batch, threads, decisions_per_s, step_only_per_s
    python benchmarks/bench_core.py --threads 2  # the batches shared out over two threads (prange)
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numba
import numpy as np
from _common import one_core

from president_env.core import init, preset, set_threads, step_inplace


@numba.njit(cache=True)
def choose(legal: np.ndarray, priorities: np.ndarray, call: int, out: np.ndarray) -> np.ndarray:
    """A random legal action of each game into ``out``: the first legal id of the largest priority, game ``b``
    reading row ``(7 b + call) % rows`` of ``priorities`` (priorities 1..255 by id, drawn once). The table stays
    in the cache and no temporary of the batch by the ids is made: NumPy's ``(priority * legal).argmax(axis=1)``
    over a table the batch's size cost `uecda` (2,606 ids) as much as its step."""
    rows = priorities.shape[0]
    for b in range(legal.shape[0]):
        row, pri = legal[b], priorities[(7 * b + call) % rows]
        top = np.uint8(0)
        for a in range(row.shape[0]):           # branch-free, so the compiler vectorises it
            top = max(top, np.uint8(row[a] * pri[a]))
        best = 0
        for a in range(row.shape[0]):
            if row[a] * pri[a] == top:
                best = a
                break
        out[b] = best
    return out


def measure(name: str, batch: int, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Decisions per second stepping ``batch`` games per call (0 = one game at a time, in turn): over the whole
    loop (choosing the random actions included) and over the time spent in ``step_inplace`` alone."""
    # Sessions that never end during the run: every step is a real decision.
    rules = preset(name, target_points=None, hands_per_session=10**6)
    rng = np.random.default_rng(seed)
    games = 64 if batch == 0 else batch
    states = [init(rules, keys=k) for k in np.split(np.arange(games, dtype=np.uint64) + 1, games)] \
        if batch == 0 else [init(rules, batch, seed=seed)]

    # A random legal action: the legal id with the largest random priority (1..255, so a legal id always beats
    # an illegal one), from 64 rows of priorities drawn once and taken in turn by the games (`choose`): the
    # states differ at every step, so the games stay random, and choosing costs little beside the core even
    # with thousands of ids.
    priorities = rng.integers(1, 256, (64, states[0].legal.shape[1]), dtype=np.uint8)
    actions = [np.zeros(st.batch_size, dtype=np.int64) for st in states]
    k = 0
    in_step = 0.0

    def run(calls: int) -> int:
        nonlocal k, in_step
        done = 0
        for _ in range(calls):
            for st, out in zip(states, actions, strict=True):
                k += 1
                chosen = choose(st.legal, priorities, k, out)
                t = time.perf_counter()
                step_inplace(rules, st, chosen)
                in_step += time.perf_counter() - t
                done += st.batch_size
        return done

    run(3)  # warm up
    in_step = 0.0
    decisions, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        decisions += run(1)
    return decisions / elapsed, decisions / in_step


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="president,daifugo,suit_ranking,daifugo_runs,rich_man_poor_man,uecda")
    ap.add_argument("--batches", default="1,64,1024,4096")
    ap.add_argument("--seconds", type=float, default=2.0, help="measuring time per row")
    ap.add_argument("--threads", type=int, default=1,
                    help="numba threads stepping each batch (core.set_threads); 1 pins the run to one core")
    ap.add_argument("--json", action="store_true", help="print one JSON list of rows")
    args = ap.parse_args(argv)
    if args.threads == 1:
        one_core()
    else:
        set_threads(args.threads)
    rows = []
    for name in args.presets.split(","):
        for batch in [0] + [int(b) for b in args.batches.split(",")]:
            rate, core_rate = measure(name, batch, args.seconds)
            rows.append({"preset": name, "batch": batch, "threads": args.threads, "decisions_per_s": rate,
                         "step_only_per_s": core_rate})
    if args.json:
        print(json.dumps(rows))
    else:
        from rich.console import Console
        from rich.table import Table

        where = "one core" if args.threads == 1 else f"{args.threads} threads"
        table = Table(title=f"Batched core: random legal games, {where}")
        for col in ("preset", "batch", "decisions/s", "x one at a time", "in step_inplace alone"):
            table.add_column(col, justify="right")
        for row in rows:
            base = next(r["decisions_per_s"] for r in rows if r["preset"] == row["preset"] and r["batch"] == 0)
            batch = "one at a time" if row["batch"] == 0 else str(row["batch"])
            rate = row["decisions_per_s"]
            table.add_row(row["preset"], batch, f"{rate:,.0f}", f"{rate / base:.1f}", f"{row['step_only_per_s']:,.0f}")
        Console().print(table)
    return rows


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
