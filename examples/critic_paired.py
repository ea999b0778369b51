"""The arms of docs/critic.md's experiment compared paired by deal (issue 46).

    python examples/critic_paired.py

needs the six runs of docs/critic.md in runs/critic/. For each preset: each arm's agent against three
heuristics on the same 1,000 duplicate deals (first hands, seed 20261207; the figures of ``president
evaluate``), the per-deal difference of the two arms' differences, and the two agents at one table with two
heuristics; each as its mean and 95% interval over deals.
"""

import json

import numpy as np

from agents.arena import run_tournament
from president_env.core import preset

SEED, DEALS = 20261207, 1000


def ci(x):
    m, h = float(x.mean()), 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))
    return round(m, 4), round(m - h, 4), round(m + h, 4)


rows = {}
for name in ("president", "daifugo", "daifugo_runs"):
    rules = preset(name).replace(hands_per_session=1)       # first hands, as --hands 1
    agent = {arm: f"ppo:runs/critic/{name}_{arm}/model.agent.safetensors" for arm in ("base", "priv")}
    per_deal = {}
    for arm in ("base", "priv"):                            # each against three heuristics, the same deals
        r = run_tournament(rules, [agent[arm], "heuristic", "heuristic", "heuristic"], DEALS, seed=SEED)
        p = r.per_deal_points
        per_deal[arm] = p[:, 0] - p[:, 1:].mean(axis=1)
        rows[f"{name} {arm} vs 3 heuristics"] = ci(per_deal[arm])
    rows[f"{name} priv minus base (paired by deal)"] = ci(per_deal["priv"] - per_deal["base"])
    r = run_tournament(rules, [agent["priv"], agent["base"], "heuristic", "heuristic"], DEALS, seed=SEED)
    p = r.per_deal_points
    rows[f"{name} priv minus base at one table"] = ci(p[:, 0] - p[:, 1])
print(json.dumps(rows, indent=1))
