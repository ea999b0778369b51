"""The compiled heuristic plays as the vectorised one did: its golden choices (``tests/heuristic_choices.py``).

For every preset and 40 random option combinations, the positions of a few games of random play are made again
and the heuristic must choose in each what ``tests/data/heuristic_choices.json.gz`` says; a difference names the
rule set, the position and both actions in words. Write the file again only when the heuristic is meant to
change (and say so in the commit).
"""

from __future__ import annotations

import functools
import gzip
import json

import numpy as np
import pytest
from heuristic_choices import PATH, positions

from agents.heuristic import HeuristicAgent
from president_env.core import PRESETS, Rules
from president_env.core.actions import describe_action


@functools.lru_cache(maxsize=1)
def _stored() -> dict[str, dict]:
    with gzip.open(PATH, "rt") as f:
        return {e["id"]: e for e in json.load(f)}


def test_every_preset_and_forty_random_rule_sets_are_stored() -> None:
    ids = list(_stored())
    assert ids[: len(PRESETS)] == list(PRESETS)
    assert sum(i.startswith("random_") for i in ids) == 40
    assert all(len(e["actions"]) >= 50 for e in _stored().values())


@pytest.mark.parametrize("rule_set", list(_stored()))
def test_the_heuristic_makes_its_golden_choices(rule_set: str) -> None:
    e = _stored()[rule_set]
    rules = Rules.from_dict(e["rules"])
    obs, mask = positions(rules, e["seed"])
    got = HeuristicAgent(rules).act(obs, mask, np.random.default_rng(0))
    want = np.array(e["actions"])
    assert got.shape == want.shape, f"{rule_set}: {got.shape[0]} positions, {want.shape[0]} stored"
    bad = np.flatnonzero(got != want)
    if bad.size:
        i = int(bad[0])
        pytest.fail(f"{rule_set}: {bad.size} of {len(want)} choices differ; first at position {i}: stored "
                    f"{describe_action(rules, int(want[i]))!r}, now {describe_action(rules, int(got[i]))!r}")
