"""Learner decisions per second of ``president train`` (PPO), one seat per game against several.

Each row runs :func:`training.train.train` for a fixed number of learner decisions with the
preset's settings, no warm start, no evaluation and no checkpoint, and divides the decisions
by the wall time of the whole run (collecting and PPO updates):

* ``seats_1``: the learner in one seat per game, SB3's own ``MaskablePPO.learn`` over
  ``training.vec_env.PresidentVecEnv`` with the opponent pool in the other seats (the baseline);
* ``seats_k``: ``learner_seats = k`` (:mod:`training.seat_rollout`): the learner's policy in
  ``k`` seats of every game, every one a trajectory, the pool in the rest.

    python benchmarks/bench_training.py                          # president, seats 1 and all
    python benchmarks/bench_training.py --seats 1,3,4 --decisions 300000 --threads 2
    python benchmarks/bench_training.py --json                   # [{"preset", "seats", "decisions_per_s", ...}]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from _common import one_core  # noqa: E402


def bench_training(preset: str, seats: int, decisions: int, threads: int, overrides: dict) -> dict:
    from training.train import TrainArgs, train

    settings = {"imitation_decisions": 0, "eval_every": 10**12, "learner_seats": seats, **overrides}
    with tempfile.TemporaryDirectory() as out:
        args = TrainArgs(preset=preset, timesteps=decisions, out=out, final_deals=0, progress=False,
                         checkpoint_every=10**12, threads=threads, settings=settings)
        start = time.perf_counter()
        result = train(args)
        seconds = time.perf_counter() - start
    return {"preset": preset, "seats": seats, "decisions": result.timesteps, "seconds": round(seconds, 2),
            "decisions_per_s": result.timesteps / seconds}


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="president")
    ap.add_argument("--seats", default=None, help="comma-separated learner seats per game (default: 1 and all)")
    ap.add_argument("--decisions", type=int, default=200_000, help="learner decisions per row")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the one-core pin is dropped above 1)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="a training setting override")
    ap.add_argument("--json", action="store_true", help="print one JSON list of rows")
    args = ap.parse_args(argv)
    if args.threads == 1:
        one_core()
    from president_env.core import preset

    players = preset(args.preset).players
    seats = [int(x) for x in args.seats.split(",")] if args.seats else [1, players]
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    rows = [bench_training(args.preset, k, args.decisions, args.threads, overrides) for k in seats]
    if args.json:
        print(json.dumps(rows))
        return rows
    from rich.console import Console
    from rich.table import Table

    base = rows[0]["decisions_per_s"]
    table = Table(title=f"PPO learner decisions per second, {args.preset}, {args.threads} torch thread(s)")
    for col in ("learner seats", "decisions", "seconds", "decisions/s", f"x seats {rows[0]['seats']}"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r["seats"]), f"{r['decisions']:,}", f"{r['seconds']:.1f}", f"{r['decisions_per_s']:,.0f}",
                      f"{r['decisions_per_s'] / base:.2f}")
    Console().print(table)
    return rows


if __name__ == "__main__":
    main()
