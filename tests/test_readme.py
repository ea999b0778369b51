"""The README says what the code does: its tables are what the code prints, every doc is linked, its quickstart is
what CI runs, and nothing in it is a placeholder."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from agents.zoo import zoo_entries
from president_cli.core_commands import variants_markdown
from president_cli.main import main
from president_cli.zoo import markdown_table
from president_env.core import PRESETS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BASELINES = (ROOT / "docs" / "baselines.md").read_text(encoding="utf-8")


def _tables():
    spec = importlib.util.spec_from_file_location("api_tables", ROOT / "docs" / "api_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_preset_count_is_the_codes():
    counts = re.findall(r"\b(\d+)\s+(?:named\s+)?presets\b", README)
    assert counts and set(counts) == {str(len(PRESETS))}, counts


def test_the_variants_table_is_what_president_variants_prints(capsys):
    assert main(["variants", "--markdown"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == variants_markdown()
    assert printed in README, "README.md: paste `president variants --markdown` into The variants"
    assert [r.split("`")[1] for r in printed.splitlines()[2:]] == list(PRESETS)


def test_the_baselines_table_is_docs_baselines_and_covers_every_preset():
    mod = _tables()
    assert mod.readme_baselines(BASELINES) in README, "README.md: paste the baselines table of docs/api_tables.py"
    assert set(PRESETS) <= {cells[0] for cells in mod.baselines_rows(BASELINES)}


# presets whose first agent has not reached the zoo's bar yet (docs/zoo.md says what was tried)
NO_ZOO_AGENT_YET: set[str] = set()


def test_the_zoo_table_is_what_president_zoo_prints():
    rows = zoo_entries()
    assert markdown_table(rows) in README, "README.md: paste the table of `president zoo --markdown`"
    # every preset has an agent, but those docs/zoo.md names as not yet trained to the zoo's bar
    assert sorted({r["preset"] for r in rows} | NO_ZOO_AGENT_YET) == sorted(PRESETS)
    assert not NO_ZOO_AGENT_YET & {r["preset"] for r in rows}
    zoo_md = (Path(__file__).parent.parent / "docs" / "zoo.md").read_text()
    assert all(f"`zoo:{name}` is not in the zoo yet" in zoo_md for name in NO_ZOO_AGENT_YET)


def test_the_commands_table_is_the_parsers():
    assert _tables().commands_table() in README, "README.md: paste the commands table of docs/api_tables.py"


def test_every_doc_is_linked_from_the_readme():
    docs = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").glob("*.md"))]
    docs += ["benchmarks/README.md", "CITATION.cff"]
    missing = [d for d in docs if f"]({d})" not in README and f"]({d}#" not in README]
    assert not missing, f"README.md does not link {missing}"
    for link in re.findall(r"\]\(((?:docs|benchmarks)/[^)#]+)", README):
        assert (ROOT / link).exists(), link


def test_no_placeholder_addresses():
    for url in re.findall(r"https?://[^\s)>`]+", README + (ROOT / "CITATION.cff").read_text()):
        assert not re.fullmatch(r"https?://(github\.com|example\.(com|org))/?", url), url


def test_the_citation_names_the_packages_version():
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), flags=re.M).group(1)
    assert f'version: "{version}"' in (ROOT / "CITATION.cff").read_text()
    assert f"version = {{{version}}}" in README


def test_the_quickstart_is_what_ci_runs():
    # .ci/run takes the README's first bash block after "## Quickstart" and runs its two lines
    block = subprocess.run(["awk", "/^## Quickstart/{q=1} q && /^```bash/{f=1; next} f && /^```/{exit} f",
                            str(ROOT / "README.md")], capture_output=True, text=True, check=True).stdout
    lines = block.strip().splitlines()
    assert len(lines) == 2
    first = [shlex.split(c) for c in lines[0].split(" && ")]
    assert first[0][:3] == ["pip", "install", "-e"] and "train" in first[0][3]
    evaluate, train = first[1], first[2]
    assert evaluate[:2] == ["president", "evaluate"] and "zoo:president" in evaluate[evaluate.index("--agents") + 1]
    assert train[:2] == ["president", "train"] and train[train.index("--minutes") + 1] == "3"
    assert "pytest" in lines[1]
    # the text says how long the first line takes and what its tables show
    assert re.search(r"runs for about [\d½]+\s+minutes", README)
    assert "What to expect" in README


@pytest.mark.parametrize("doc", ["docs/web.md", "README.md"])
def test_the_records_commands_run_in_a_fresh_clone(doc, tmp_path, monkeypatch):
    # a fresh clone has no runs/ folder: the documented commands must not need one
    monkeypatch.chdir(tmp_path)
    text = (ROOT / doc).read_text(encoding="utf-8")
    commands = re.findall(r"^president simulate [^\n`]+", text, flags=re.M)
    commands += re.findall(r"`(president simulate [^`]+)`", text)
    assert commands
    for command in commands:
        argv = shlex.split(command.split("#")[0])[1:]
        argv[argv.index("--games") + 1] = "1"
        assert main([*argv, "--hands", "1", "--no-progress"]) == 0, command
