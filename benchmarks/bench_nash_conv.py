"""NashConv of a profile by the compiled exact best response (``agents.nash_conv``), beside OpenSpiel's.

One process on one core: the compiled NashConv of the profile (uniform random by default) on each
variant of ``--variants`` (the tree built, the agents asked, the passes: wall seconds, best of
``--repeat`` runs after a warm-up on ``micro`` that loads the compiled code), then OpenSpiel's
``nash_conv`` of the same profile on each variant of ``--openspiel`` (one run each: seconds to minutes),
and the ratio of the two where both ran, with the NashConv each found.

    python benchmarks/bench_nash_conv.py                                   # tiny_revolution; micro, tiny both ways
    python benchmarks/bench_nash_conv.py --variants micro --openspiel micro --json
"""

from __future__ import annotations

import argparse
import json
import os
import time

from _common import one_core

from agents.nash_conv import game_tree, nash_conv_of_agents, nash_conv_of_tree
from agents.registry import make_agent
from president_env.small_variants import small_variant

DEFAULT_VARIANTS = ("micro", "tiny", "tiny_revolution")
DEFAULT_OPENSPIEL = ("micro", "tiny")


def compiled_row(variant: str, agent: str, repeat: int) -> dict:
    """The compiled NashConv of ``agent`` in every seat of ``variant``: the best of ``repeat`` runs."""
    rules = small_variant(variant)
    agents = [make_agent(agent, rules) for _ in range(rules.players)]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = nash_conv_of_agents(rules, agents)
        best = min(best, time.perf_counter() - t0)
    t0 = time.perf_counter()
    tree = game_tree(rules)
    tree_s = time.perf_counter() - t0
    nash_conv_of_tree(tree, agents)
    return {"variant": variant, "agents": agent, "engine": "compiled", "nash_conv": res.nash_conv, "seconds": best,
            "tree_seconds": tree_s, "decisions": tree.n_decisions, "information_states": tree.n_infosets}


def openspiel_row(variant: str, agent: str) -> dict:
    """OpenSpiel's ``nash_conv`` of the same profile (agents.exploitability): one run."""
    from agents.exploitability import nash_conv_of_agents as openspiel_nash_conv

    rules = small_variant(variant)
    agents = [make_agent(agent, rules) for _ in range(rules.players)]
    t0 = time.perf_counter()
    res = openspiel_nash_conv(rules, agents)
    return {"variant": variant, "agents": agent, "engine": "openspiel", "nash_conv": res.nash_conv,
            "seconds": time.perf_counter() - t0}


def _names(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def main(argv: list[str] | None = None) -> list[dict]:
    """Time each variant both ways; print a Markdown table (or JSON) and return the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS), help="small variants, compiled")
    parser.add_argument("--openspiel", default=",".join(DEFAULT_OPENSPIEL),
                        help="small variants also timed with OpenSpiel's nash_conv ('' for none)")
    parser.add_argument("--agent", default="random", help="the agent in every seat (default random)")
    parser.add_argument("--repeat", type=int, default=3, help="compiled runs per variant, the best kept")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    one_core()
    warm = small_variant("micro")
    nash_conv_of_agents(warm, [make_agent(args.agent, warm) for _ in range(warm.players)])  # load compiled code
    rows = [compiled_row(v, args.agent, args.repeat) for v in _names(args.variants)]
    fast = {r["variant"]: r for r in rows}
    for v in _names(args.openspiel):
        r = openspiel_row(v, args.agent)
        if v in fast:
            r["ratio"] = r["seconds"] / fast[v]["seconds"]
            r["difference"] = abs(r["nash_conv"] - fast[v]["nash_conv"])
        rows.append(r)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"NashConv of {args.agent} in every seat, one hand; {cpus} CPU(s) for this process, load average "
              f"{os.getloadavg()[0]:.2f}\n")
        print("| variant | engine | NashConv | seconds | x compiled |\n|---|---|---:|---:|---:|")
        for r in rows:
            ratio = f"{r['ratio']:,.0f}" if "ratio" in r else ""
            print(f"| `{r['variant']}` | {r['engine']} | {r['nash_conv']:.6f} | {r['seconds']:.3f} | {ratio} |")
    return rows


if __name__ == "__main__":
    main()
