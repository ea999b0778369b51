"""Golden records (issue 23): the rules engine plays exactly the games it played when they were written.

``tests/data/golden/`` holds records of random legal play under every preset and a few hundred random option
combinations, written by ``tests/golden_records.py`` with the engine of the commit its ``index.json`` names
(how they were made: see that module). For each rule set:

* ``test_golden_records_replay``: every stored record replays (``records.replay``: the legal ids, the cards
  moved, the exchange, the finishing order and the points re-derived decision by decision);
* ``test_golden_records_regenerate``: playing its sessions again with the same keys and seeds gives exactly the
  stored JSON lines; on a difference the message names the rule set, the record (session, hand), the decision
  and the first field that differs, decoded (legal ids and actions in words, cards).

The presets and the first ``FAST_RANDOM`` random rule sets run by default (``pytest
tests/test_golden_records.py``); the other random ones are marked slow: ``pytest tests/test_golden_records.py
-m "slow or not slow"`` runs everything.

Regenerate the records (``python tests/golden_records.py``, then commit ``tests/data/golden/``) only when the
rules are meant to change, and say so in the commit; never to make this test pass.
"""

from __future__ import annotations

import functools
import hashlib
import json

import pytest
from golden_records import (
    FORMAT,
    Stored,
    first_difference,
    options_that_differ,
    play_rule_set,
    read_index,
    stored_rule_sets,
)

from president_env.core import PRESETS, preset
from president_env.core.records import ReplayError, replay


@functools.lru_cache(maxsize=1)
def _stored() -> dict[str, Stored]:
    return {s.id: s for s in stored_rule_sets()}


def _params() -> list:
    return [pytest.param(e["id"], id=e["id"], marks=() if e["fast"] else pytest.mark.slow)
            for e in read_index()["rule_sets"]]


def test_the_index_describes_the_files() -> None:
    """The index lists every rule set once, its lines are where it says, and the totals add up."""
    index = read_index()
    assert index["format"] == FORMAT
    assert not index["engine"]["files_differing_from_commit"], "written by an engine that is not a commit's"
    entries = index["rule_sets"]
    assert len({e["id"] for e in entries}) == len(entries)
    assert index["totals"]["rule_sets"] == len(entries) >= len(PRESETS) + 200
    assert index["totals"]["hands"] == sum(e["hands"] for e in entries)
    assert index["totals"]["decisions"] == sum(e["decisions"] for e in entries)
    stored = _stored()
    by_file: dict[str, int] = {}
    for e in entries:
        s = stored[e["id"]]
        assert len(s.lines) == e["lines"] == e["hands"] > 0, e["id"]
        assert hashlib.sha256("".join(s.lines).encode("utf-8")).hexdigest() == e["sha256"], e["id"]
        assert sum(len(json.loads(line)["decisions"]) for line in s.lines) == e["decisions"], e["id"]
        assert e["first_line"] == by_file.get(e["file"], 0), e["id"]
        by_file[e["file"]] = e["first_line"] + e["lines"]
    assert by_file == {name: f["records"] for name, f in index["files"].items()}


def test_the_presets_are_those_recorded() -> None:
    """Every preset recorded is still defined as it was (a changed preset is a rules change: regenerate)."""
    presets = [s for s in _stored().values() if "preset" in s.origin]
    assert {s.origin["preset"] for s in presets} == set(PRESETS)
    for s in presets:
        assert s.rules == preset(s.origin["preset"]), s.id


@pytest.mark.parametrize("rule_set", _params())
def test_golden_records_replay(rule_set: str) -> None:
    s = _stored()[rule_set]
    for i, line in enumerate(s.lines):
        rec = json.loads(line)
        assert options_that_differ(rec["rules"]) == options_that_differ(s.rules.to_dict()), \
            f"{s.id}: record {i} names other rules than record 0"
        try:
            replay(rec)
        except ReplayError as e:
            pytest.fail(f"{s.id}: record {i} (session {rec['session']}, hand {rec['hand']}) in {s.file}: {e}")


@pytest.mark.parametrize("rule_set", _params())
def test_golden_records_regenerate(rule_set: str) -> None:
    s = _stored()[rule_set]
    again = play_rule_set(s.rule_set).splitlines(keepends=True)
    difference = first_difference(s, s.lines, again)
    assert difference is None, difference


def test_an_option_at_its_default_leaves_the_stored_records_comparable() -> None:
    """A new default-off option (docs/adding_a_variant.md): records written before it existed lack it, and
    compare equal to records that name it at its default; a non-default value is still a difference."""
    s = _stored()["preset/president"]
    lines = list(s.lines[:3])
    older = []
    for line in lines:
        rec = json.loads(line)
        del rec["rules"]["quick_clear"]          # as if written before quick_clear existed
        older.append(json.dumps(rec) + "\n")
    assert older != lines and first_difference(s, older, lines) is None
    changed = []
    for line in lines:
        rec = json.loads(line)
        rec["rules"]["quick_clear"] = True
        changed.append(json.dumps(rec) + "\n")
    assert "field 'rules' differs" in first_difference(s, lines, changed)
    assert options_that_differ(s.rules.to_dict()) == {"name": "president"}
