"""Golden choices of the ``heuristic`` agent: what it plays in positions of random play, per rule set.

The heuristic was written first as NumPy over a batch (``agents/heuristic.py`` at commit c492bab); it is now
compiled (``agents/heuristic_kernel.py``). ``tests/data/heuristic_choices.json.gz`` holds the choices of the
vectorised version in the positions :func:`positions` makes, for every preset and for random option
combinations (their rules stored with them), so that ``tests/test_heuristic_choices.py`` can check that the
compiled one makes the same choices (and that later edits change them only on purpose).

    python tests/heuristic_choices.py        # write the file again (only when the heuristic is meant to change)
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

from president_env.core import PRESETS, Rules, preset
from president_env.core.records import random_positions

PATH = Path(__file__).parent / "data" / "heuristic_choices.json.gz"
GAMES, STEPS, RANDOM_RULES, RANDOM_SEED = 8, 100, 40, 2027


def positions(rules: Rules, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The positions of ``GAMES`` games of random play, ``STEPS`` decisions (``records.random_positions``)."""
    return random_positions(rules, seed, GAMES, STEPS)


def rule_sets() -> list[tuple[str, Rules, int]]:
    """(id, rules, seed): every preset, then ``RANDOM_RULES`` random option combinations."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_random_rules import draw_rules

    out = [(name, preset(name), 11 + i) for i, name in enumerate(PRESETS)]
    out += [(f"random_{k}", rules, 101 + k) for k, rules in draw_rules(RANDOM_SEED, RANDOM_RULES).kept]
    return out


def choices(rules: Rules, seed: int) -> np.ndarray:
    """The heuristic's actions in :func:`positions`."""
    from agents.heuristic import HeuristicAgent

    obs, mask = positions(rules, seed)
    return HeuristicAgent(rules).act(obs, mask, np.random.default_rng(0))


def main() -> None:
    out = []
    for id_, rules, seed in rule_sets():
        out.append({"id": id_, "rules": rules.to_dict(), "seed": seed, "actions": choices(rules, seed).tolist()})
        print(id_, len(out[-1]["actions"]), "choices")
    with gzip.open(PATH, "wt") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"wrote {PATH} ({PATH.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
