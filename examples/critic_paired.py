"""The arms of docs/critic.md's experiment compared paired by deal (issue 46).

    python examples/critic_paired.py                                   # the first seed's six runs
    python examples/critic_paired.py --presets daifugo --suffix _s4602 # another seed's daifugo runs

needs the runs of docs/critic.md in runs/critic/ (``{preset}_base{suffix}`` and ``{preset}_priv{suffix}``).
For each preset: each arm's agent against three heuristics on the same 1,000 duplicate deals (first hands, seed
20261207; the figures of ``president evaluate``), the per-deal difference of the two arms' differences, and the
two agents at one table with two heuristics; each as its mean and 95% interval over deals.
"""

import argparse
import json

import numpy as np

from agents.arena import run_tournament
from president_env.core import preset

SEED, DEALS = 20261207, 1000


def ci(x):
    m, h = float(x.mean()), 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return round(m, 4), round(m - h, 4), round(m + h, 4)


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--presets", default="president,daifugo,daifugo_runs", help="comma-separated presets")
parser.add_argument("--suffix", default="", help="the runs' folder suffix, e.g. _s4602 for another seed")
parser.add_argument("--root", default="runs/critic", help="the folder that holds the runs")
args = parser.parse_args()

rows = {}
for name in args.presets.split(","):
    rules = preset(name).replace(hands_per_session=1)       # first hands, as --hands 1
    agent = {arm: f"ppo:{args.root}/{name}_{arm}{args.suffix}/model.agent.safetensors" for arm in ("base", "priv")}
    per_deal = {}
    for arm in ("base", "priv"):                            # each against three heuristics, the same deals
        r = run_tournament(rules, [agent[arm], "heuristic", "heuristic", "heuristic"], DEALS, seed=SEED)
        p = r.per_deal_points
        per_deal[arm] = p[:, 0] - p[:, 1:].mean(axis=1)
        rows[f"{name}{args.suffix} {arm} vs 3 heuristics"] = ci(per_deal[arm])
    rows[f"{name}{args.suffix} priv minus base (paired by deal)"] = ci(per_deal["priv"] - per_deal["base"])
    r = run_tournament(rules, [agent["priv"], agent["base"], "heuristic", "heuristic"], DEALS, seed=SEED)
    p = r.per_deal_points
    rows[f"{name}{args.suffix} priv minus base at one table"] = ci(p[:, 0] - p[:, 1])
print(json.dumps(rows, indent=1))
