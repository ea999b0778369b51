"""The notebooks are stored with the outputs of a run at the default budget, and run top to bottom with the small
budget (PRESIDENT_NB_SMALL=1, in a temporary folder)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NB_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = ["01_rules_and_variants.ipynb", "02_baseline_tournament.ipynb", "03_train_and_evaluate.ipynb",
             "04_exploitability.ipynb"]


def _builder():
    spec = importlib.util.spec_from_file_location("build_notebooks", NB_DIR / "build_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_notebooks", mod)
    spec.loader.exec_module(mod)
    return mod


def _execute(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("PRESIDENT_NB_SMALL", "1")   # the kernel inherits the environment
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NB_DIR / name, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def _outputs(nb: nbformat.NotebookNode) -> tuple[str, int]:
    """All printed text, and the number of images, of an executed notebook."""
    text, images = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out["output_type"] == "stream":
                text.append(out["text"])
            elif out["output_type"] in ("display_data", "execute_result"):
                images += "image/png" in out["data"]
                text.append(out["data"].get("text/plain", ""))
            assert out["output_type"] != "error", out
    return "".join(text), images


FIGURES = {"01_rules_and_variants.ipynb": 2, "02_baseline_tournament.ipynb": 2, "03_train_and_evaluate.ipynb": 2,
           "04_exploitability.ipynb": 1}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebooks_hold_their_outputs_and_match_the_builder(name):
    # stored as `python notebooks/build_notebooks.py --execute` writes them: run at the default budget, every code
    # cell with its outputs and figures, no error, under 1 MB, and the sources of the builder's cells
    path = NB_DIR / name
    assert path.stat().st_size < 1_000_000, f"{name}: {path.stat().st_size:,} bytes; a notebook stays under 1 MB"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{name}: not run top to bottom; run python notebooks/build_notebooks.py --execute {name}")
    text, images = _outputs(nb)
    assert "budget: default" in text, f"{name}: stored from a small run; store the default budget's outputs"
    assert images == FIGURES[name]
    built = _builder().make(_builder().NOTEBOOKS[name])
    assert [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in built.cells], (
        f"{name} differs from notebooks/build_notebooks.py: run python notebooks/build_notebooks.py --execute")


def test_the_builder_names_its_notebooks(capsys):
    with pytest.raises(SystemExit):
        _builder().main(["--execute", "04_nothing.ipynb"])
    assert "unknown notebook" in capsys.readouterr().err


def test_rules_and_variants_notebook_runs(tmp_path, monkeypatch):
    from president_env.core import PRESETS

    nb = _execute("01_rules_and_variants.ipynb", tmp_path, monkeypatch)
    text, images = _outputs(nb)
    assert "budget: small" in text
    assert f"{len(PRESETS)} presets x 16 sessions x 2 hands" in text
    summary_rows = [line.split()[0] for line in text.splitlines() if line.split() and line.split()[0] in PRESETS]
    assert summary_rows.count("daifugo") == 2          # in the preset table and in the summary
    assert images == 2


def test_baseline_tournament_notebook_runs(tmp_path, monkeypatch):
    nb = _execute("02_baseline_tournament.ipynb", tmp_path, monkeypatch)
    text, images = _outputs(nb)
    assert "budget: small" in text
    assert "president: 4 deals x 4 rotations = 16 sessions" in text
    assert "daifugo (4 players, 4 deals)" in text
    for entrant in ("0:heuristic", "1:greedy", "2:random", "3:random"):
        assert text.count(entrant) >= 2
    assert images == 2


def test_train_and_evaluate_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("training.train", reason="training/train.py (TrainArgs, train) is not there yet")
    nb = _execute("03_train_and_evaluate.ipynb", tmp_path, monkeypatch)
    text, images = _outputs(nb)
    assert "budget: small" in text
    assert "ppo (trained)" in text
    assert "zoo:president" in text and "vs heuristic +" in text
    assert images >= 1


def test_exploitability_notebook_runs(tmp_path, monkeypatch):
    # about a minute at the small budget: the tree of tiny_revolution, two 3-second solvers, a 0.4-minute PPO run
    nb = _execute("04_exploitability.ipynb", tmp_path, monkeypatch)
    text, images = _outputs(nb)
    assert "budget: small" in text
    assert "heuristic  NashConv 1.907" in text and "random     NashConv 3.277" in text
    assert "cfr+" in text and "mccfr" in text and "below 1% of the heuristic's after" in text
    assert text.count("PPO ") >= 2
    assert images == 1
