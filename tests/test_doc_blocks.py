"""Every Python block of README.md and docs/*.md runs as written, and prints what the text says it prints.

How a block is run, and how one says it must not run (or runs smaller), is in tests/doc_blocks.py. Blocks marked
``slow`` run with ``pytest -m slow tests/test_doc_blocks.py``.
"""

from __future__ import annotations

import importlib.util

import pytest
from doc_blocks import ROOT, blocks, run_block

BLOCKS = blocks()
OPTIONAL = {"pyspiel": "openspiel", "ray": "ray"}   # extras a block may need, by the module it imports


def _params():
    for b in BLOCKS:
        marks = [pytest.mark.slow] if b.kind == "slow" else []
        yield pytest.param(b, id=b.name, marks=marks)


@pytest.mark.parametrize("block", _params())
def test_the_block_runs_and_prints_what_the_text_says(block, tmp_path, monkeypatch):
    if block.kind == "skip":
        pytest.skip(f"marked not to run: {block.why}")
    for module, extra in OPTIONAL.items():
        if f"import {module}" in block.code and importlib.util.find_spec(module) is None:
            pytest.skip(f"needs the {extra} extra")
    monkeypatch.chdir(tmp_path)
    for line, stated, got in run_block(block):
        assert got == stated, f"{block.name}, line {line} of the block: the text says {stated!r}, it gives {got!r}"


def test_every_doc_has_its_blocks_found():
    names = {b.path.name for b in BLOCKS}
    assert {"README.md", "api.md", "openspiel.md", "search.md", "adding_a_variant.md"} <= names
    assert len(BLOCKS) >= 14


def test_a_block_that_does_not_run_says_why():
    for b in BLOCKS:
        if b.kind != "run":
            assert len(b.why.split()) >= 3, f"{b.name}: say why the block is marked {b.kind}"
    # most blocks run in the default suite (CI): only fragments and long runs are set aside
    assert sum(b.kind == "skip" for b in BLOCKS) <= 3


def test_stated_outputs_are_compared():
    # the README's claim ids were once wrong in the text: the check must see that line
    readme = next(b for b in BLOCKS if b.path == ROOT / "README.md" and "claim_id(rules" in b.code)
    assert [(stated, got) for _, stated, got in run_block(readme)] == [((130, 188), (130, 188))]


def test_a_wrong_stated_output_is_caught(tmp_path):
    from doc_blocks import Block

    wrong = Block(ROOT / "README.md", 0, "x = 2\nx + 1   # 4\nprint(x)   # 2\nx   # a prose comment\n")
    assert run_block(wrong) == [(2, 4, 3), (3, 2, 2)]
