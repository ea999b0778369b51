"""Several agents, each against the same three opponents on the same deals, compared paired by deal.

Each spec plays one seat of a duplicate-deal tournament (``agents.arena.run_tournament``: every deal once per
rotation of the seats) against three copies of ``--against``, on the same seeded deals. For each spec the table
gives its points a hand minus the mean of the opponents' (per deal, with a 95% interval over deals), that
difference minus the first spec's (paired by deal: the same deals and seatings) and the run's CPU time. Used to
choose the belief search's settings (docs/search.md, "A margin, more worlds, and the issue's tables"):

    S=search:policy=zoo:president,fallback=policy,worlds=16,actions=4
    python benchmarks/pair_agents.py --preset president --against zoo:president --deals 200 --seed 901 \\
        --specs "$S;$S,z=0.5;$S,belief=zoo:president,z=0.5"

Specs are separated by ``;`` (a search spec holds commas). First hands unless ``--hands``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.arena import Z95, run_tournament
from president_env.core import preset


def ci(x: np.ndarray) -> str:
    """Mean and 95% interval over deals."""
    m, h = float(x.mean()), Z95 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return f"{m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]"


def main(argv: list[str] | None = None) -> list[np.ndarray]:
    """Print the table; return each spec's per-deal differences."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", required=True)
    ap.add_argument("--specs", required=True, help="agent specs separated by ';'")
    ap.add_argument("--against", required=True, help="the opponent, three copies")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=901)
    ap.add_argument("--hands", type=int, default=1, help="hands a session (default 1: first hands)")
    ap.add_argument("--no-progress", dest="progress", action="store_false")
    args = ap.parse_args(argv)
    rules = preset(args.preset)
    if rules.players != 4:
        ap.error(f"--preset {args.preset}: this script seats one agent and three opponents (4 players)")
    specs = [s.strip() for s in args.specs.split(";") if s.strip()]
    if not specs:
        ap.error("--specs: no spec given")
    print(f"{args.preset}: each spec against three {args.against}, {args.deals} deals of seed {args.seed}, "
          f"{args.hands} hand(s) a session", flush=True)
    diffs = []
    for spec in specs:
        t0 = time.process_time()
        res = run_tournament(rules, [spec] + [args.against] * 3, args.deals, args.seed,
                             hands_per_session=args.hands, rating=False, progress=args.progress, desc=spec[:40])
        p = res.per_deal_points
        diffs.append(p[:, 0] - p[:, 1:].mean(axis=1))
        paired = ci(diffs[-1] - diffs[0]) if len(diffs) > 1 else ""
        print(f"| `{spec}` | {ci(diffs[-1])} | {paired} | {time.process_time() - t0:.0f} s |", flush=True)
    return diffs


if __name__ == "__main__":
    main()
