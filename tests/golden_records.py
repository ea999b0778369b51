"""Golden records: today's rules engine, frozen as game records that a new engine must reproduce byte for byte.

For every preset of ``PRESETS`` and for random option combinations drawn as ``tests/test_random_rules.py``
draws them (``draw_rules``: the first ``RANDOM_COUNT`` kept rule sets of the slow seed, then every kept rule
set of the fast seed), a few sessions of random legal play are stepped through the public API
(``president_env.core``: ``make_keys``, ``init``, ``legal_action_mask``, ``terminated``, and
``records.Recorder``, which steps with ``step_inplace``) and every finished hand is kept as a record
(``core/records.py``: the deal, the exchanges, every decision with its action id, the cards it moved and the
legal ids, the finishing order, the points).

Each rule set plays two groups of ``BATCH`` sessions: one from no ranks, one from ``start_ranks="random"``
(so the exchange, ``expose`` and merchant trades come up). A group's keys are ``make_keys(BATCH, key_seed)``;
its actions are drawn, one step at a time, as ``argmax(where(legal, rng.random(legal.shape), -1))`` from
``numpy.random.default_rng(action_seed)`` (a finished session has only pass legal). At most ``max_hands``
hands of a session are kept; the group stops once every session is over or has finished that many.

Files, in ``tests/data/golden/``:

* ``*.jsonl.gz``: the records, one JSON line each, as ``records.write_records`` writes them, gzip-compressed
  with mtime 0 and no file name (``gunzip`` gives a records file ``president replay --check`` reads);
* ``index.json``: how they were made: the engine's commit, the seeds and batch sizes, and per rule set (one
  line each) its origin (preset name, or draw seed and candidate number), its groups of sessions and the lines
  of its file that hold its records, with their SHA-256 (the rules are those its records name).

``tests/test_golden_records.py`` replays every record and regenerates every rule set's records, comparing
the text with the stored lines. Regenerate (``python tests/golden_records.py``) only for an intended change of
the rules, never to make that test pass.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import platform
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

import president_env
from president_env.core import (
    EXCHANGE,
    PRESETS,
    Rules,
    State,
    describe_action,
    exchange_kind,
    init,
    legal_action_mask,
    make_keys,
    preset,
    terminated,
)
from president_env.core.records import Recorder, RecordError, ReplayError, replay_steps, write_records

FORMAT = "president-golden/1"
ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data" / "golden"
INDEX = DATA / "index.json"

BATCH = 2               # sessions per group (init batch)
STARTS = (None, "random")  # one group from no ranks, one from random ranks
PRESET_HANDS = 3        # hands kept per session under a preset
RANDOM_HANDS = 2        # hands kept per session under a random rule set
RANDOM_COUNT = 200      # kept rule sets of the slow seed (the fast seed's are all taken too)
FAST_RANDOM = 50        # random rule sets checked in the default (fast) test run; the rest are marked slow
PRESET_SEED = 1000      # seeds of the presets: PRESET_SEED + 10 * preset number + 2 * group (+ 1 for actions)
RANDOM_SEED = 100_000   # seeds of the random rule sets: RANDOM_SEED + 10 * rule set number + 2 * group (+ 1)


@dataclasses.dataclass(frozen=True)
class Group:
    """One init batch of sessions: how it starts and how its actions are drawn."""

    start_ranks: str | None
    key_seed: int
    action_seed: int
    batch: int
    max_hands: int
    first_session: int  # records number the sessions first_session .. first_session + batch - 1

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class RuleSet:
    """A rule set of the golden records: where it comes from, its rules, its groups, its file."""

    id: str
    origin: dict[str, Any]
    rules: Rules
    groups: tuple[Group, ...]
    file: str


# --------------------------------------------------------------------------- playing
def _step_bound(rules: Rules, hands: int) -> int:
    """A generous bound on the steps of ``hands`` hands (exchange, then at most P + 2 decisions a card)."""
    per_hand = rules.n_cards * (rules.players + 3) + 4 * rules.n_cards + rules.players + 10
    return hands * per_hand + 10


def play_group(rules: Rules, group: Group) -> list[dict[str, Any]]:
    """The records of one group's sessions under random legal play (at most ``max_hands`` per session)."""
    keys = make_keys(group.batch, group.key_seed)
    st = init(rules, keys=keys, start_ranks=group.start_ranks)
    sessions = np.arange(group.batch) + group.first_session
    rec = Recorder(rules, st, sessions=sessions)
    rng = np.random.default_rng(group.action_seed)
    kept = np.zeros(group.batch, dtype=np.int64)
    out: list[dict[str, Any]] = []
    bound = _step_bound(rules, group.max_hands)
    for _ in range(bound):
        if (terminated(rec.state) | (kept >= group.max_hands)).all():
            return out
        legal = legal_action_mask(rules, rec.state)
        actions = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        for r in rec.step(actions):
            g = r["session"] - group.first_session
            if kept[g] < group.max_hands:
                out.append(r)
                kept[g] += 1
    raise RuntimeError(f"{rules!r}: group {group} not done after {bound} steps")


def records_text(records: list[dict[str, Any]]) -> str:
    """Records as JSON lines, serialised by ``records.write_records``."""
    buf = io.StringIO()
    write_records(buf, records)
    return buf.getvalue()


def play_rule_set(rs: RuleSet) -> str:
    """The JSON lines of every record of a rule set, its groups in order."""
    return "".join(records_text(play_group(rs.rules, g)) for g in rs.groups)


# --------------------------------------------------------------------------- the rule sets
def _groups(seed: int, max_hands: int) -> tuple[Group, ...]:
    return tuple(Group(start, seed + 2 * j, seed + 2 * j + 1, BATCH, max_hands, BATCH * j)
                 for j, start in enumerate(STARTS))


def rule_sets() -> list[RuleSet]:
    """Every rule set to record, in file order: the presets, then the random ones (draws ``draw_rules``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_random_rules import FAST_COMBOS, FAST_SEED, SLOW_SEED, draw_rules

    out = [RuleSet(f"preset/{name}", {"preset": name}, preset(name), _groups(PRESET_SEED + 10 * i, PRESET_HANDS),
                   "presets.jsonl.gz")
           for i, name in enumerate(PRESETS)]
    drawn = [(SLOW_SEED, RANDOM_COUNT), (FAST_SEED, FAST_COMBOS)]
    n = 0
    for seed, count in drawn:
        for candidate, rules in draw_rules(seed, count).kept[:count]:
            part = "random_rules_1.jsonl.gz" if n < FAST_RANDOM else "random_rules_2.jsonl.gz"
            out.append(RuleSet(f"draw{seed}/candidate{candidate}", {"draw_seed": seed, "candidate": candidate},
                               rules, _groups(RANDOM_SEED + 10 * n, RANDOM_HANDS), part))
            n += 1
    for rs in out:
        if Rules.from_dict(rs.rules.to_dict()) != rs.rules:
            raise RuntimeError(f"{rs.id}: the rules do not survive to_dict/from_dict")
    return out


# --------------------------------------------------------------------------- reading the stored records
@dataclasses.dataclass(frozen=True)
class Stored:
    """A rule set as the index lists it, with its stored JSON lines."""

    id: str
    origin: dict[str, Any]
    rules: Rules
    groups: tuple[Group, ...]
    file: str
    lines: tuple[str, ...]
    fast: bool

    @property
    def rule_set(self) -> RuleSet:
        return RuleSet(self.id, self.origin, self.rules, self.groups, self.file)


def read_index() -> dict[str, Any]:
    return json.loads(INDEX.read_text(encoding="utf-8"))


def read_lines(file: str) -> list[str]:
    """The JSON lines of a golden file (each with its newline)."""
    with gzip.open(DATA / file, "rt", encoding="utf-8", newline="") as f:
        return f.read().splitlines(keepends=True)


def stored_rule_sets() -> list[Stored]:
    """Every rule set of the index with its stored lines."""
    index = read_index()
    files = {name: read_lines(name) for name in index["files"]}
    out = []
    for e in index["rule_sets"]:
        groups = tuple(Group(**g) for g in e["groups"])
        lines = tuple(files[e["file"]][e["first_line"]:e["first_line"] + e["lines"]])
        rules = Rules.from_dict(json.loads(lines[0])["rules"])  # every record names its rules
        out.append(Stored(e["id"], e["origin"], rules, groups, e["file"], lines, e["fast"]))
    return out


# --------------------------------------------------------------------------- explaining a difference
def _clip(v: Any, n: int = 300) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[:n] + " ..."


def _words(rules: Rules, before: State | None, action: int) -> str:
    """An action id in words, as the player to act in ``before`` would take it (give-back, trade, claim)."""
    try:
        kind = -1 if before is None else int(exchange_kind(rules, before)[0])
        claim = before is not None and int(before.claim_rank[0]) >= 0
        return describe_action(rules, action, exchange=kind == 0, trade=kind in (1, 2), claim=claim)
    except Exception as e:  # a description must not hide the difference
        return f"<{type(e).__name__}: {e}>"


def _ids(rules: Rules, before: State | None, ids: list[int]) -> str:
    return ", ".join(f"{a} {_words(rules, before, a)!r}" for a in ids) or "none"


def _state_before(record: dict[str, Any], j: int) -> State | None:
    """The state before decision ``j`` of a record (replayed), or None if the record does not replay that far."""
    try:
        for step in replay_steps(record):
            if step.index == j:
                return step.before
    except (ReplayError, RecordError):
        return None
    return None


def _decision_difference(rules: Rules, record: dict[str, Any], j: int, old: dict[str, Any],
                         new: dict[str, Any]) -> str:
    before = _state_before(record, j)
    phase = "?" if before is None else ("exchange" if int(before.phase[0]) == EXCHANGE else "play")
    head = f"decision {j} of {len(record['decisions'])} ({phase}, player {old.get('agent')} to act)"
    for name in list(old) + [k for k in new if k not in old]:
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if name == "legal" and isinstance(a, list) and isinstance(b, list):
            return (f"{head}: legal ids differ: only stored: {_ids(rules, before, [x for x in a if x not in b])}; "
                    f"only regenerated: {_ids(rules, before, [x for x in b if x not in a])}")
        if name == "action" and isinstance(a, int) and isinstance(b, int):
            return (f"{head}: action differs: stored {a} {_words(rules, before, a)!r}, "
                    f"regenerated {b} {_words(rules, before, b)!r}")
        if name == "cards":
            return (f"{head}: cards moved by action {old.get('action')} {_words(rules, before, old['action'])!r} "
                    f"differ: stored {a}, regenerated {b}")
        return f"{head}: field {name!r} differs: stored {_clip(a)}, regenerated {_clip(b)}"
    return f"{head}: same values, different text"


def _record_difference(rules: Rules, old: dict[str, Any], new: dict[str, Any]) -> str:
    for name in list(old) + [k for k in new if k not in old]:
        a, b = old.get(name), new.get(name)
        if a == b:
            continue
        if name == "decisions" and isinstance(a, list) and isinstance(b, list):
            for j, (x, y) in enumerate(zip(a, b, strict=False)):
                if x != y:
                    return _decision_difference(rules, old, j, x, y)
            return f"stored {len(a)} decisions, regenerated {len(b)} (the first {min(len(a), len(b))} agree)"
        if name not in old or name not in new:
            return f"field {name!r} only {'stored' if name in old else 'regenerated'}"
        return f"field {name!r} differs: stored {_clip(a)}, regenerated {_clip(b)}"
    if list(old) != list(new):
        return f"the fields are in another order: stored {list(old)}, regenerated {list(new)}"
    return "same values, different text (serialisation)"


_DEFAULT_OPTIONS = Rules().to_dict()


def options_that_differ(rules: dict[str, Any]) -> dict[str, Any]:
    """A record's rules without the options at their default values (``name`` kept).

    Stored and regenerated records are compared this way, so that an option added at its default (a new
    default-off rule) leaves every stored line as it is: the records name the options of the engine that wrote
    them, and a missing option reads as its default (``Rules.from_dict``)."""
    return {k: v for k, v in rules.items() if k == "name" or k not in _DEFAULT_OPTIONS or v != _DEFAULT_OPTIONS[k]}


def comparable(line: str) -> str:
    """A JSON line as the golden comparison sees it: its rules reduced to :func:`options_that_differ`."""
    rec = json.loads(line)
    if isinstance(rec, dict) and isinstance(rec.get("rules"), dict):
        rec["rules"] = options_that_differ(rec["rules"])
    return json.dumps(rec, separators=(",", ":"))


def first_difference(rs: RuleSet | Stored, stored: list[str] | tuple[str, ...], regenerated: list[str]) -> str | None:
    """Where a rule set's regenerated JSON lines first differ from the stored ones, in words; None if equal.
    Lines compare as :func:`comparable` makes them (options at their defaults left out)."""
    if list(stored) == list(regenerated):
        return None
    stored = [comparable(x) for x in stored]
    regenerated = [comparable(x) for x in regenerated]
    if stored == regenerated:
        return None
    for i, (a, b) in enumerate(zip(stored, regenerated, strict=False)):
        if a == b:
            continue
        old, new = json.loads(a), json.loads(b)
        where = (f"{rs.id} ({rs.file}): record {i} of {len(stored)} "
                 f"(session {old.get('session')}, hand {old.get('hand')}, key {old.get('key')})")
        return f"{where}: {_record_difference(rs.rules, old, new)}"
    n = min(len(stored), len(regenerated))
    extra = json.loads((stored if len(stored) > n else regenerated)[n])
    return (f"{rs.id}: stored {len(stored)} records, regenerated {len(regenerated)} (the first {n} agree); "
            f"the first unmatched is session {extra.get('session')}, hand {extra.get('hand')}")


# --------------------------------------------------------------------------- writing
def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def engine_source() -> dict[str, Any]:
    """The commit of the code that writes the records, and the tracked files of ``president_env`` that the
    imported package holds differently from it (none when it is that commit's code)."""
    commit = _git("rev-parse", "HEAD")
    pkg = Path(president_env.__file__).resolve().parent
    differ = []
    for line in _git("ls-tree", "-r", commit, "president_env").splitlines():
        meta, path = line.split("\t", 1)
        blob = meta.split()[2]
        local = pkg.parent / path
        data = local.read_bytes() if local.exists() else None
        if data is None or hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest() != blob:
            differ.append(path)
    return {"commit": commit, "package": str(pkg), "files_differing_from_commit": differ}


def _gzip(text: str) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
        f.write(text.encode("utf-8"))
    return buf.getvalue()


def _counts(text: str) -> dict[str, int]:
    recs = [json.loads(line) for line in text.splitlines()]
    return {"hands": len(recs), "decisions": sum(len(r["decisions"]) for r in recs)}


def _index_text(index: dict[str, Any]) -> str:
    """The index as JSON: the header indented, one line per rule set."""
    head = json.dumps({k: v for k, v in index.items() if k != "rule_sets"}, indent=1, ensure_ascii=False)
    rows = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in index["rule_sets"])
    text = f'{head[:-2]},\n "rule_sets": [\n{rows}\n ]\n}}\n'
    if json.loads(text) != index:
        raise RuntimeError("the index does not read back")
    return text


def generate(progress: bool = True) -> dict[str, Any]:
    """Play every rule set and write the files and the index; return the index."""
    t0 = time.perf_counter()
    source = engine_source()
    sets = rule_sets()
    texts: dict[str, list[str]] = {}
    entries = []
    for k, rs in enumerate(sets):
        t1 = time.perf_counter()
        text = play_rule_set(rs)
        lines = text.splitlines(keepends=True)
        file_lines = texts.setdefault(rs.file, [])
        counts = _counts(text)
        entries.append({
            "id": rs.id, "origin": rs.origin, "fast": rs.id.startswith("preset/") or k - len(PRESETS) < FAST_RANDOM,
            "file": rs.file, "first_line": len(file_lines), "lines": len(lines),
            **counts, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "seconds": round(time.perf_counter() - t1, 2), "groups": [g.to_dict() for g in rs.groups],
        })
        file_lines.extend(lines)
        if progress:
            done = time.perf_counter() - t0
            print(f"\r[{k + 1}/{len(sets)}] {rs.id:<32} {counts['hands']:3d} hands {counts['decisions']:6d} decisions"
                  f"  {done:7.1f} s", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    DATA.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, lines in texts.items():
        blob = _gzip("".join(lines))
        (DATA / name).write_bytes(blob)
        files[name] = {"bytes": len(blob), "records": len(lines)}
    index = {
        "format": FORMAT,
        "engine": source,
        "made_by": "python tests/golden_records.py",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "batch": BATCH, "starts": list(STARTS), "preset_hands": PRESET_HANDS, "random_hands": RANDOM_HANDS,
        "random_count": RANDOM_COUNT, "fast_random": FAST_RANDOM,
        "totals": {"rule_sets": len(entries), "sessions": sum(len(rs.groups) * BATCH for rs in sets),
                   "hands": sum(e["hands"] for e in entries), "decisions": sum(e["decisions"] for e in entries),
                   "bytes": sum(f["bytes"] for f in files.values()),
                   "seconds": round(time.perf_counter() - t0, 1)},
        "files": files,
        "rule_sets": entries,
    }
    INDEX.write_text(_index_text(index), encoding="utf-8")
    return index


def iter_ids(fast: bool | None = None) -> Iterator[str]:
    """Rule set ids of the index (only the fast or only the slow ones if ``fast`` is given)."""
    for e in read_index()["rule_sets"]:
        if fast is None or e["fast"] == fast:
            yield e["id"]


if __name__ == "__main__":
    idx = generate()
    print(json.dumps({"engine": idx["engine"], "totals": idx["totals"], "files": idx["files"]}, indent=1))
