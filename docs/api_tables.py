"""The generated tables of docs/api.md and the README, from the code (tests/test_docs.py and tests/test_readme.py
check the pages hold them).

    python docs/api_tables.py     # print them, to paste into docs/api.md and the README after a change

The README's preset and zoo tables are printed by the command line itself (``president variants --markdown``,
``president zoo --markdown``).
"""

from __future__ import annotations

import argparse

from president_env.core import action_id, preset, tables
from president_env.core import observation as O


def observation_table(name: str = "president", **overrides: object) -> str:
    """The observation pieces of a preset as a Markdown table (offsets depend on the rules)."""
    rules = preset(name, **overrides)
    rows = ["| piece | offset | length | meaning |", "|---|---|---|---|"]
    rows += [f"| `{piece}` | {off} | {n} | {meaning} |" for piece, off, n, meaning in O.layout(rules)]
    return "\n".join(rows)


def action_grid(name: str = "president", **overrides: object) -> str:
    """Action ids of a preset as a Markdown grid: one row per play rank, one column per set size."""
    rules = preset(name, **overrides)
    sizes = range(1, rules.max_set + 1)
    rows = ["| play rank | " + " | ".join(f"size {s}" for s in sizes) + " |",
            "|---|" + "---|" * rules.max_set]
    for rank in tables(rules).play_ranks:
        rows.append(f"| `{rank}` | " + " | ".join(str(action_id(rules, rank, s)) for s in sizes) + " |")
    return "\n".join(rows)


def sizes_table() -> str:
    """Observation size D and action count A of every preset at its default player count."""
    from president_env.core import PRESETS, n_actions

    rows = ["| preset | players | cards | kinds K | play ranks R | D | A |", "|---|---|---|---|---|---|---|"]
    for name in PRESETS:
        r = preset(name)
        t = tables(r)
        rows.append(f"| `{name}` | {r.players} | {t.n_cards} | {t.n_kinds} | {t.n_play_ranks} | {O.size(r)} "
                    f"| {n_actions(r)} |")
    return "\n".join(rows)


def _commands() -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """Every subcommand of ``president``: (its one-line help, its parser)."""
    from president_cli.main import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    helps = {a.dest: a.help for a in sub._choices_actions}
    return {name: (helps[name], p) for name, p in sub.choices.items()}


def synopsis(parser: argparse.ArgumentParser) -> str:
    """A command's arguments in one line: positionals, required options, then ``[--option VALUE]``."""
    def one(a: argparse.Action) -> str:
        if not a.option_strings:
            return a.metavar or a.dest.upper()
        if a.nargs == 0:
            return a.option_strings[-1]
        value = a.metavar or ("{" + ",".join(map(str, a.choices)) + "}" if a.choices else a.dest.upper())
        return f"{a.option_strings[-1]} {value}"

    actions = [a for a in parser._actions if a.dest != "help"]
    parts = [one(a) for a in actions if not a.option_strings]
    parts += [one(a) for a in actions if a.option_strings and a.required]
    parts += [f"[{one(a)}]" for a in actions if a.option_strings and not a.required]
    return " ".join(parts)


def cli_table() -> str:
    """Every command with its arguments and what it does (docs/api.md's command-line table)."""
    rows = ["| command | arguments | what it does |", "|---|---|---|"]
    for name, (text, parser) in _commands().items():
        args = synopsis(parser).replace("|", "\\|")
        rows.append(f"| `president {name}` | `{args}` | {text} |" if args else f"| `president {name}` | | {text} |")
    return "\n".join(rows)


def commands_table() -> str:
    """Every command and what it does (the README's list)."""
    rows = ["| command | what it does |", "|---|---|"]
    rows += [f"| `president {name}` | {text} |" for name, (text, _) in _commands().items()]
    return "\n".join(rows)


def baselines_rows(baselines_md: str) -> list[list[str]]:
    """The rows of docs/baselines.md's table of the bar (heuristic > greedy > random), as cells."""
    start = baselines_md.index("| preset | players | sessions | hands | heuristic |")
    lines = baselines_md[start:].split("\n\n", 1)[0].splitlines()[2:]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines]


def readme_baselines(baselines_md: str) -> str:
    """The README's table of the baselines: docs/baselines.md's, less its sessions, hands and seconds."""
    rows = ["| preset | players | heuristic | greedy | best random | H > G | G > R |",
            "|---|---:|---|---|---|:-:|:-:|"]
    for cells in baselines_rows(baselines_md):
        preset_name, players, _sessions, _hands, *figures, _seconds = cells
        rows.append("| " + " | ".join([preset_name, players, *figures]) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    from pathlib import Path

    print(observation_table(), "", action_grid(), "", action_grid("daifugo"), "", sizes_table(), "", cli_table(),
          "", commands_table(), "", readme_baselines((Path(__file__).parent / "baselines.md").read_text()),
          sep="\n")
