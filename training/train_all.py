"""Fit every preset in turn within a stated budget; write a results table and the learning curves.

    president train-all --minutes 10 --out runs/all

Each preset is trained by :func:`training.train.train` within ``--minutes`` of wall
time, its final evaluation against ``players - 1`` copies of each baseline included
(``--timesteps`` caps PPO). Writes ``results.md``, ``results.csv``
and ``learning_curves.png`` in ``--out`` (one folder per preset beside them).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from president_env.core import PRESETS
from training.run_dir import check_out
from training.train import TrainArgs, TrainResult, train


@dataclass
class TrainAllArgs:
    """Arguments of ``president train-all``."""

    presets: str = "all"            # comma-separated preset names, or "all"
    minutes: float = 10.0           # wall-clock budget per preset, its final evaluation included
    timesteps: int = 100_000_000    # cap per preset
    out: str = "runs/all"
    seed: int = 0
    final_deals: int = 1000
    final_heuristic_deals: int | None = None
    progress: bool = True
    settings: dict = field(default_factory=dict)  # overrides of TrainSettings for every preset
    force: bool = False             # write over a preset's folder that holds files


RESULT_FIELDS = ("preset", "players", "timesteps", "minutes", "opponent", "deals", "learner_points",
                 "opponent_points", "diff", "diff_low", "diff_high", "beats")


def train_all(args: TrainAllArgs) -> list[dict]:
    names = list(PRESETS) if args.presets == "all" else [p.strip() for p in args.presets.split(",")]
    out = Path(args.out)
    for name in names:                   # every preset's folder checked before the first one trains
        check_out(out / name, None, args.force)
    out.mkdir(parents=True, exist_ok=True)
    rows = [r for r in read_results(out) if r["preset"] not in names]  # earlier runs into the same folder
    for name in names:
        print(f"== {name}: training for up to {args.minutes:g} min")
        result = train(TrainArgs(preset=name, timesteps=args.timesteps, out=str(out / name), seed=args.seed,
                                 minutes=args.minutes, final_deals=args.final_deals,
                                 final_heuristic_deals=args.final_heuristic_deals, progress=args.progress,
                                 settings=dict(args.settings), force=args.force))
        rows += result_rows(name, result)
        write_tables(rows, out)
    plot_curves(list(dict.fromkeys([r["preset"] for r in rows] + names)), out)
    return rows


def read_results(out: Path) -> list[dict]:
    """The rows of an earlier ``results.csv`` in ``out`` (none if there is none)."""
    path = out / "results.csv"
    if not path.exists():
        return []
    with path.open() as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("players", "timesteps", "deals"):
            r[k] = int(r[k])
        for k in ("minutes", "learner_points", "opponent_points", "diff", "diff_low", "diff_high"):
            r[k] = float(r[k])
        r["beats"] = r["beats"] == "True"
    return rows


def result_rows(name: str, result: TrainResult) -> list[dict]:
    from president_env.core import preset

    players = preset(name).players
    return [{"preset": name, "players": players, "timesteps": result.timesteps,
             "minutes": round(result.seconds / 60, 1), "opponent": m.opponent, "deals": m.deals,
             "learner_points": round(m.learner_points, 3), "opponent_points": round(m.opponent_points, 3),
             "diff": round(m.diff, 3), "diff_low": round(m.diff_low, 3), "diff_high": round(m.diff_high, 3),
             "beats": m.wins} for m in result.final]


def write_tables(rows: list[dict], out: Path) -> None:
    """results.csv and results.md from the result rows."""
    with (out / "results.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RESULT_FIELDS)
        w.writeheader()
        w.writerows(rows)
    lines = ["| preset | players | steps | minutes | vs | deals | learner pts/hand | opponents pts/hand "
             "| difference [95% CI] | beats |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['players']} | {r['timesteps']:,} | {r['minutes']} | {r['opponent']} "
                     f"| {r['deals']} | {r['learner_points']:+.3f} | {r['opponent_points']:+.3f} "
                     f"| {r['diff']:+.3f} [{r['diff_low']:+.3f}, {r['diff_high']:+.3f}] "
                     f"| {'yes' if r['beats'] else 'no'} |")
    (out / "results.md").write_text("\n".join(lines) + "\n")


def plot_curves(names: list[str], out: Path) -> Path:
    """learning_curves.png: points-per-hand difference against each baseline over training."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, opponent in zip(axes, ("heuristic", "greedy"), strict=True):
        ax.set_prop_cycle(color=plt.cm.tab20.colors)  # up to 20 presets with distinct colours
        for name in names:
            path = out / name / "eval.csv"
            if not path.exists():
                continue
            with path.open() as f:
                pts = [(int(r["timesteps"]), float(r["diff"])) for r in csv.DictReader(f) if r["opponent"] == opponent]
            if pts:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, marker="o", ms=3, label=name)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(f"learner vs {opponent} x (players - 1)")
        ax.set_xlabel("learner decisions")
    axes[0].set_ylabel("points per hand, learner - opponents")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path = out / "learning_curves.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
