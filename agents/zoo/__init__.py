"""The zoo: trained agents shipped with the package, per preset (``zoo:NAME`` as an agent spec).

Each agent is an agent file (``NAME.agent.safetensors``, a later generation's
``NAME.genK.agent.safetensors``: weights and JSON, no code; see :mod:`agents.agent_file`)
beside ``zoo.json``, which holds one row per agent: the preset, its generation, the file,
how it was trained (the exact command, minutes, timesteps) and its results against three
copies of the heuristic and of greedy over duplicate deals (the command that measured them
included; a later generation's also against three copies of the generation before).
``zoo:NAME`` is a preset's newest generation, ``zoo:NAME@K`` its generation K.
``president zoo`` prints the table; ``docs/zoo.md`` holds the same table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ZOO_DIR = Path(__file__).resolve().parent
INDEX = ZOO_DIR / "zoo.json"


def zoo_entries() -> list[dict[str, Any]]:
    """The rows of ``zoo.json`` (an empty list when the zoo is empty)."""
    if not INDEX.exists():
        return []
    rows = json.loads(INDEX.read_text(encoding="utf-8"))
    if not isinstance(rows, list):
        raise ValueError(f"{INDEX}: expected a JSON list of agents")
    return rows


def generation(row: dict[str, Any]) -> int:
    """A row's generation (the first generation's rows predate the field)."""
    return int(row.get("generation", 1))


def zoo_names() -> list[str]:
    """The presets that have a zoo agent (each once)."""
    return list(dict.fromkeys(row["preset"] for row in zoo_entries()))


def newest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each preset's row of its newest generation (what ``zoo:NAME`` plays)."""
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["preset"] not in best or generation(row) > generation(best[row["preset"]]):
            best[row["preset"]] = row
    return list(best.values())


def zoo_specs(rows: list[dict[str, Any]]) -> list[str]:
    """The agent spec of each row: ``zoo:NAME`` for a preset's newest generation, ``zoo:NAME@K`` for an earlier one."""
    latest = {id(row) for row in newest(rows)}
    return [f"zoo:{r['preset']}" if id(r) in latest else f"zoo:{r['preset']}@{generation(r)}" for r in rows]


def zoo_row(name: str) -> dict[str, Any]:
    """The row of ``name``: a preset (its newest generation) or ``PRESET@K`` (generation K); an unknown name lists
    the zoo, an unknown generation the preset's."""
    key, at, gen = name.strip().lower().partition("@")
    rows = [row for row in zoo_entries() if row["preset"] == key]
    if not rows:
        raise ValueError(f"no zoo agent {name!r}; the zoo has: {', '.join(zoo_names()) or 'none yet'}")
    if not at:
        return max(rows, key=generation)
    have = ", ".join(f"{key}@{generation(r)}" for r in rows)
    if not (gen.isascii() and gen.isdigit()):
        raise ValueError(f"zoo agent {name!r}: the generation after @ must be a number; {key} has {have}")
    for row in rows:
        if generation(row) == int(gen):
            return row
    raise ValueError(f"no generation {int(gen)} of zoo agent {key!r}; it has {have}")


def zoo_path(name: str) -> Path:
    """The agent file of the zoo agent ``name`` (``PRESET`` or ``PRESET@K``, see :func:`zoo_row`)."""
    return ZOO_DIR / zoo_row(name)["file"]
