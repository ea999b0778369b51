"""The zoo: trained agents shipped with the package, one per preset (``zoo:NAME`` as an agent spec).

Each agent is an agent file (``NAME.agent.safetensors``: weights and JSON, no code; see
:mod:`agents.agent_file`) beside ``zoo.json``, which holds one row per agent: the preset,
the file, how it was trained (the exact command, minutes, timesteps) and its results
against three copies of the heuristic and of greedy over duplicate deals (the command
that measured them included). ``president zoo`` prints the table; ``docs/zoo.md`` holds
the same table.
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


def zoo_names() -> list[str]:
    """The presets that have a zoo agent."""
    return [row["preset"] for row in zoo_entries()]


def zoo_path(name: str) -> Path:
    """The agent file of the zoo agent ``name`` (a preset name); an unknown name lists the zoo."""
    key = name.strip().lower()
    for row in zoo_entries():
        if row["preset"] == key:
            return ZOO_DIR / row["file"]
    raise ValueError(f"no zoo agent {name!r}; the zoo has: {', '.join(zoo_names()) or 'none yet'}")
