"""``president zoo`` (the zoo's agents and their results) and ``president zoo-add`` (measure and add one).

``president zoo [--markdown]`` prints the table of :mod:`agents.zoo` (``--markdown``: the
table of ``docs/zoo.md``). ``president zoo-add --preset NAME --agent FILE --deals 2000``
plays the agent against three copies of the heuristic and of greedy over duplicate deals,
refuses it unless it beats both with a 95% interval above zero, then copies the file into
the zoo and writes its row (the training command and budget given, the evaluation command).
``--generation K`` (K > 1) adds a later generation of a preset's agent: it must also beat
three copies of generation K - 1 with an interval above zero, and it may have trained for
up to an hour; the earlier generations stay (``zoo:NAME@K``).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from president_cli.argtypes import MAX_DEALS, MAX_MINUTES, UsageError, float_range, int_range, preset_name, seed_value

MAX_BYTES = 1_000_000
MIN_DEALS = 2000
#: the most minutes of training a generation's agent may have had (issue 28: an hour for a later generation)
MAX_TRAIN_MINUTES = {1: 30.0}
LATER_TRAIN_MINUTES = 60.0


def train_minutes_allowed(generation: int) -> float:
    """The training budget of a generation's agent, in minutes of the 2-core machine."""
    return MAX_TRAIN_MINUTES.get(generation, LATER_TRAIN_MINUTES)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``zoo`` and ``zoo-add``."""
    p = subparsers.add_parser("zoo", help="the zoo of trained agents (zoo:NAME) and their results",
                              description="List the trained agents shipped with the package, one per preset, "
                                          "with their results against the heuristic and greedy.")
    p.add_argument("--markdown", action="store_true", help="print the table of docs/zoo.md")
    p.set_defaults(func=cmd_zoo)
    p = subparsers.add_parser("zoo-add", help="measure an agent file and add it to the zoo",
                              description="Play the agent against three copies (players - 1) of the heuristic "
                                          "and of greedy; add it to agents/zoo only if it beats both with a 95% "
                                          "interval above zero.")
    p.add_argument("--preset", type=preset_name, required=True, help="the variant the agent plays")
    p.add_argument("--agent", type=Path, required=True, help="the agent file (*.agent.safetensors)")
    p.add_argument("--deals", type=int_range(1, MAX_DEALS), default=MIN_DEALS,
                   help=f"duplicate deals (at least {MIN_DEALS}, the default)")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals (default 0)")
    p.add_argument("--train-command", required=True, help="the exact command that trained the agent")
    p.add_argument("--train-minutes", type=float_range(0, MAX_MINUTES), required=True,
                   help="wall-clock minutes of that training")
    p.add_argument("--export-command", default=None,
                   help="the exact command that wrote the agent file from the trained model, when it was not "
                        "the file training wrote (e.g. president export-agent ... --float16)")
    p.add_argument("--generation", type=int_range(1, 99), default=1,
                   help="the agent's generation (default 1); K > 1 must also beat three copies of generation K - 1 "
                        "with an interval above zero, which stays in the zoo as zoo:NAME@(K-1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_zoo_add)


def _ci(r: dict[str, Any]) -> str:
    return f"{r['diff']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The zoo as the Markdown table of docs/zoo.md (a preset's generations in order, the newest last)."""
    from agents.zoo import zoo_specs

    out = ["| agent | players | vs heuristic x(P-1): difference [95% CI] | vs greedy x(P-1) | "
           "vs the generation before x(P-1) | deals | seed | trained (min, PPO steps) | file (KB) |",
           "|---|---:|---|---|---|---:|---:|---|---:|"]
    for r, spec in zip(rows, zoo_specs(rows), strict=True):
        h, g = r["vs_heuristic"], r["vs_greedy"]
        before = _ci(r["vs_previous"]) if "vs_previous" in r else ""
        out.append(f"| `{spec}` | {r['players']} | {_ci(h)} | {_ci(g)} | {before} | {h['deals']} | "
                   f"{r['seed']} | {r['train_minutes']:.1f}, {r['timesteps']:,} | {r['bytes'] // 1000} |")
    return "\n".join(out)


def markdown_commands(rows: list[dict[str, Any]]) -> str:
    """How each zoo agent was made and measured, as the list of docs/zoo.md."""
    from agents.zoo import zoo_specs

    if not rows:
        return "No agent yet."
    out = []
    for r, spec in zip(rows, zoo_specs(rows), strict=True):
        exported = f"; exported by `{r['export_command']}`" if r.get("export_command") else ""
        out.append(f"- `{spec}`: trained by `{r['train_command']}` ({r['train_minutes']:.1f} minutes of "
                   f"wall time, {r['timesteps']:,} PPO steps){exported}; measured by `{r['eval_command']}`")
    return "\n".join(out)


def cmd_zoo(args: argparse.Namespace) -> int:
    from agents.zoo import zoo_entries, zoo_specs

    rows = zoo_entries()
    if args.markdown:
        print(markdown_table(rows))
        print()
        print(markdown_commands(rows))
        return 0
    from rich.console import Console

    console = Console()
    console.print(zoo_table(rows, zoo_specs(rows), console))
    return 0


def zoo_table(rows: list[dict[str, Any]], specs: list[str], console: Any) -> Any:
    """The zoo as a rich Table that fits the console (80 columns at least) without cutting a figure: a column per
    figure when that fits whole, else three columns of two lines a row (three for the agent)."""
    from rich import box
    from rich.measure import Measurement
    from rich.table import Table

    title = f"The zoo: {len(rows)} trained agent(s) (zoo:NAME; an earlier generation zoo:NAME@K)"
    table = Table(title=title)
    table.add_column("agent", no_wrap=True)
    for col in ("players", "vs heuristic [95% CI]", "vs greedy [95% CI]", "vs the generation before", "deals",
                "trained"):
        table.add_column(col, no_wrap=True)
    for r, spec in zip(rows, specs, strict=True):
        before = _ci(r["vs_previous"]) if "vs_previous" in r else ""
        table.add_row(spec, str(r["players"]), _ci(r["vs_heuristic"]), _ci(r["vs_greedy"]), before,
                      str(r["vs_heuristic"]["deals"]), f"{r['train_minutes']:.1f} min, {r['timesteps']:,} steps")
    if Measurement.get(console, console.options.update_width(10_000), table).maximum <= console.width:
        return table
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, show_lines=False,
                  caption="points a hand against P-1 copies [95% CI]; wider: one line a row")
    table.add_column("agent", no_wrap=True)
    for col in ("vs heuristic", "vs greedy", "vs generation\nbefore"):
        table.add_column(col, no_wrap=True)
    for i, (r, spec) in enumerate(zip(rows, specs, strict=True)):
        before = _two_lines(r["vs_previous"]) if "vs_previous" in r else ""
        who = (f"{spec}\n{r['players']} players, {r['vs_heuristic']['deals']} deals\n"
               f"{r['train_minutes']:.1f} min, {r['timesteps'] / 1e6:.1f}M steps")
        table.add_row(who, _two_lines(r["vs_heuristic"]), _two_lines(r["vs_greedy"]), before,
                      end_section=i < len(rows) - 1)
    return table


def _two_lines(r: dict[str, Any]) -> str:
    return f"{r['diff']:+.3f}\n[{r['low']:+.3f}, {r['high']:+.3f}]"


def cmd_zoo_add(args: argparse.Namespace) -> int:  # noqa: C901 - one check after another, each named
    from agents.agent_file import AgentFileError, FileAgent
    from agents.zoo import INDEX, ZOO_DIR, generation, zoo_entries, zoo_row
    from president_env.core import preset
    from president_env.core.files import atomic_writer
    from training.evaluate import matchup

    if args.deals < MIN_DEALS:
        raise UsageError(f"--deals {args.deals}: the zoo's bar is at least {MIN_DEALS} duplicate deals")
    gen = args.generation
    if args.train_minutes > train_minutes_allowed(gen):
        raise UsageError(f"--train-minutes {args.train_minutes:g}: an agent of generation {gen} trains for at most "
                         f"{train_minutes_allowed(gen):g} minutes")
    size = args.agent.stat().st_size if args.agent.is_file() else None
    if size is None:
        raise UsageError(f"agent file {str(args.agent)!r} not found")
    if size > MAX_BYTES:
        raise UsageError(f"{args.agent}: {size:,} bytes; a zoo agent is at most {MAX_BYTES:,}")
    rules = preset(args.preset)
    previous = None
    if gen > 1:
        try:
            previous = zoo_row(f"{rules.name}@{gen - 1}")
        except ValueError as e:
            raise UsageError(f"--generation {gen}: {e}") from None
    try:
        agent = FileAgent(args.agent, rules)
    except AgentFileError as e:
        raise UsageError(str(e)) from None
    opponents = {"heuristic": "heuristic", "greedy": "greedy"}
    if previous is not None:
        opponents["previous"] = f"zoo:{rules.name}@{gen - 1}"
    results = {k: matchup(rules, agent, o, args.deals, seed=args.seed, progress=not args.no_progress)
               for k, o in opponents.items()}
    for k, m in results.items():
        print(f"vs {opponents[k]} x{rules.players - 1}: {m.diff:+.3f} [{m.diff_low:+.3f}, {m.diff_high:+.3f}] "
              f"over {m.deals} deals")
    failed = [opponents[k] for k, m in results.items() if not m.wins]
    if failed:
        print(f"not added: it does not beat {', '.join(failed)} with an interval above zero")
        return 1
    name = f"{rules.name}.agent.safetensors" if gen == 1 else f"{rules.name}.gen{gen}.agent.safetensors"
    if not (ZOO_DIR / name).exists() or not (ZOO_DIR / name).samefile(args.agent):  # re-measuring one in place
        with atomic_writer(ZOO_DIR / name, binary=True) as f, open(args.agent, "rb") as src:
            shutil.copyfileobj(src, f)
    row = {
        "preset": rules.name, **({"generation": gen} if gen > 1 else {}), "file": name, "players": rules.players,
        "bytes": size, "timesteps": int(agent.metadata.get("made_by", {}).get("timesteps", 0)),
        "train_command": args.train_command, "train_minutes": args.train_minutes,
        **({"export_command": args.export_command} if args.export_command else {}),
        "eval_command": f"president zoo-add --preset {rules.name} --agent agents/zoo/{name} --deals {args.deals} "
                        f"--seed {args.seed}" + (f" --generation {gen}" if gen > 1 else ""),
        "seed": args.seed,
        **{f"vs_{k}": {"diff": round(m.diff, 4), "low": round(m.diff_low, 4), "high": round(m.diff_high, 4),
                       "deals": m.deals} for k, m in results.items()},
    }
    rows = [r for r in zoo_entries() if (r["preset"], generation(r)) != (rules.name, gen)] + [row]
    rows.sort(key=lambda r: (r["preset"], generation(r)))
    with atomic_writer(INDEX) as f:     # Ctrl-C leaves the old index, never half a new one
        f.write(json.dumps(rows, indent=1) + "\n")
    spec = f"zoo:{rules.name}" + (f" (generation {gen}; zoo:{rules.name}@{gen - 1} stays)" if gen > 1 else "")
    print(f"added {spec} ({ZOO_DIR / name})")
    return 0
