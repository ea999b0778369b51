"""docs/api.md and docs/adding_a_variant.md stay accurate to the code."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest

import president_env.core as core
from president_cli.main import build_parser
from president_env.core import Rules
from president_env.core.state import field_names

DOCS = Path(__file__).resolve().parent.parent / "docs"
API = (DOCS / "api.md").read_text(encoding="utf-8")
ADDING = (DOCS / "adding_a_variant.md").read_text(encoding="utf-8")


def _tables():
    spec = importlib.util.spec_from_file_location("api_tables", DOCS / "api_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _mentioned(name: str, text: str = API) -> bool:
    return re.search(rf"`[^`\n]*\b{re.escape(name)}\b[^`\n]*`", text) is not None


@pytest.mark.parametrize("which", ["observation_table", "action_grid", "sizes_table"])
def test_generated_tables_match_the_code(which):
    table = getattr(_tables(), which)()
    assert table in API, f"docs/api.md: the {which} is out of date; paste the output of python docs/api_tables.py"


def test_every_state_field_is_documented():
    rows = set(re.findall(r"^\| `(\w+)` \| \(", API, flags=re.M))
    assert rows == set(field_names())


def test_every_rules_option_is_documented():
    options = [f.name for f in dataclasses.fields(Rules) if f.name != "name"]
    missing = [o for o in options if not _mentioned(o)]
    assert not missing, f"docs/api.md does not mention the option(s) {missing}"


def test_every_core_export_is_documented():
    missing = [n for n in core.__all__ if not _mentioned(n)]
    assert not missing, f"docs/api.md does not mention {missing} of president_env.core"


def test_every_command_is_documented():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    missing = [c for c in sub.choices if f"`president {c}" not in API]
    assert not missing, f"docs/api.md does not document the command(s) {missing}"


def test_the_preset_files_named_in_adding_a_variant_exist():
    root = DOCS.parent
    for path in re.findall(r"`((?:president_env|tests|training|agents|docs)/[\w/]+\.py)`", ADDING):
        assert (root / path).is_file(), f"docs/adding_a_variant.md names {path}, which does not exist"
    for name in ("PRESET_TABLE", "PRESET_ALIASES", "_BOOLS", "_CHOICES", "_RANK_SETS", "_validate"):
        assert name in (root / "president_env/core/rules.py").read_text(encoding="utf-8"), name
    kernel = "".join(p.read_text(encoding="utf-8") for p in (root / "president_env/core/kernel").glob("*.py"))
    for name in re.findall(r"`(\w+)`", ADDING[ADDING.index("### 3. The engine"):ADDING.index("### 4.")]):
        if name.islower() and "_" in name and not name.startswith(("suit_", "four_", "equal_", "reset_", "complete_",
                                                                      "transparent_", "nine_", "hand_")):
            assert re.search(rf"\b{name}\b", kernel), f"docs/adding_a_variant.md names {name}, not in the kernel"
    assert "PRESET_OPTIONS" in (root / "tests/test_rules_object.py").read_text(encoding="utf-8")
    assert "reference_legal" in (root / "tests/test_core_properties.py").read_text(encoding="utf-8")
    assert "PRESIDENT_REGEN_PLAYTHROUGHS" in (root / "tests/test_playthroughs.py").read_text(encoding="utf-8")


def test_docs_link_each_other():
    assert "(adding_a_variant.md)" in API and "(rules.md)" in API
    assert "(api.md)" in ADDING and "(rules.md)" in ADDING


def test_the_command_line_table_is_the_parsers():
    assert _tables().cli_table() in API, "docs/api.md: paste the cli_table of python docs/api_tables.py"
    assert "--delay" in API and "--version" in API


def test_nothing_is_documented_twice_in_a_table():
    for table in re.findall(r"(?:^\|.*\n)+", API, flags=re.M):
        names = [re.split(r" --| \[|\(", m)[0].strip() for m in re.findall(r"^\| `([^`]+)`", table, flags=re.M)]
        twice = sorted({n for n in names if names.count(n) > 1})
        assert not twice, f"docs/api.md documents {twice} twice in one table"
