"""CPU time of the ``search`` agent deciding one decision at a time (a batch of one, as ``president play`` asks).

Decisions come from random positions of random play (first hands and hands with ranks); only those
with more than one legal action are timed (the others are not searched). Process CPU time, so other
work on the machine does not count.

    python benchmarks/bench_search.py                                   # defaults and worlds=16,actions=6
    python benchmarks/bench_search.py --specs search:worlds=4 --decisions 40
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.registry import make_agent, split_specs
from president_env.core import preset
from president_env.core.records import random_positions


def positions(rules, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observation rows and masks of the players to act, with more than one legal action."""
    o, m = random_positions(rules, seed, games=8, steps=40)
    keep = m.sum(axis=1) > 1
    return o[keep], m[keep]


def main(argv: list[str] | None = None) -> list[dict]:
    """Time each spec; print one line per spec and return the rows."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="president")
    ap.add_argument("--specs", default="search,search:worlds=16,actions=6")
    ap.add_argument("--decisions", type=int, default=80)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    rules = preset(args.preset)
    obs, mask = positions(rules, args.seed)
    obs, mask = obs[: args.decisions], mask[: args.decisions]
    rows = []
    for spec in split_specs(args.specs):
        agent = make_agent(spec, rules)
        rng = np.random.default_rng(0)
        ms = []
        for i in range(len(obs)):
            t = time.process_time()
            agent.act(obs[i:i + 1], mask[i:i + 1], rng)
            ms.append(1e3 * (time.process_time() - t))
        a = np.array(ms)
        rows.append({"spec": spec, "decisions": len(a), "mean_ms": float(a.mean()), "median_ms": float(np.median(a)),
                     "p95_ms": float(np.percentile(a, 95)), "max_ms": float(a.max()),
                     "max_rollouts": getattr(getattr(agent, "stats", None), "max_rollouts", 0)})
        print(f"{spec}: {len(a)} searched decisions one at a time, CPU ms: mean {a.mean():.0f}, "
              f"median {np.median(a):.0f}, 95th percentile {np.percentile(a, 95):.0f}, max {a.max():.0f}")
    return rows


if __name__ == "__main__":
    main()
