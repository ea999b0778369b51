"""The Python blocks of README.md and docs/*.md, and how the suite runs them (tests/test_doc_blocks.py).

A block runs as written, in a fresh namespace and an empty folder. The comment line just above
its fence may say otherwise, always with the reason after a dash:

* ``<!-- doc-test: skip — why -->``: not run (a fragment of a file, an hour of training);
* ``<!-- doc-test: shrink `OLD` -> `NEW`, ... — why -->``: run with each OLD replaced by NEW
  (a smaller batch, fewer steps), so the code is still the block's own;
* ``<!-- doc-test: slow — why -->``: run only with ``pytest -m slow``.

A stated output is an expression statement whose trailing comment is a Python literal
(``claim_id(...), pick_id(...)   # (143, 201)``, ``print(x)   # 'pair of 4s'``): the test
evaluates the expression (a ``print``'s argument) and compares it with the literal.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!--\s*doc-test:\s*(?P<kind>skip|shrink|slow)\b(?P<args>.*?)\s+—\s+(?P<why>\S.*?)\s*-->")
SHRINK = re.compile(r"`([^`]+)`\s*->\s*`([^`]*)`")


@dataclass
class Block:
    """One ```python block: where it is, its code, and what the comment above it says."""

    path: Path
    line: int
    code: str
    kind: str = "run"
    why: str = ""
    shrink: list[tuple[str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"

    def runnable_code(self) -> str:
        code = self.code
        for old, new in self.shrink:
            if old not in code:
                raise AssertionError(f"{self.name}: the shrink `{old}` is not in the block")
            code = code.replace(old, new)
        return code


def blocks() -> list[Block]:
    """Every Python block of the README and docs/*.md, in file order."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            block = Block(path, line, textwrap.dedent(m.group("body")))
            mark = MARK.search(before)
            if mark:
                block.kind, block.why = mark.group("kind"), mark.group("why")
                block.shrink = SHRINK.findall(mark.group("args"))
            found.append(block)
    return found


def _comments(code: str) -> dict[int, str]:
    """Line number -> the text of the comment that ends it."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def _stated(comment: str | None) -> tuple[bool, Any]:
    if not comment:
        return False, None
    try:
        return True, ast.literal_eval(comment)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as Python values, so that ``774 == np.int64(774)`` and tuples compare."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


def run_block(block: Block) -> list[tuple[int, Any, Any]]:
    """Run the block statement by statement; returns (line, stated, got) for every stated output."""
    code = block.runnable_code()
    tree = ast.parse(code, filename=block.name)
    comments = _comments(code)
    namespace: dict[str, Any] = {"__name__": "__doc_block__"}
    checked = []
    for stmt in tree.body:
        ok, stated = _stated(comments.get(stmt.end_lineno))
        if ok and isinstance(stmt, ast.Expr):
            expr = stmt.value
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "print" \
                    and len(expr.args) == 1:
                expr = expr.args[0]
            got = eval(compile(ast.Expression(expr), block.name, "eval"), namespace)
            checked.append((stmt.lineno, stated, _plain(got)))
        else:
            exec(compile(ast.Module([stmt], type_ignores=[]), block.name, "exec"), namespace)
    return checked
