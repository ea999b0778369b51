"""The generated tables of docs/api.md, from the code (tests/test_docs.py checks the page holds them).

    python docs/api_tables.py     # print them, to paste into docs/api.md after a change
"""

from __future__ import annotations

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


if __name__ == "__main__":
    print(observation_table(), "", action_grid(), "", action_grid("daifugo"), "", sizes_table(), sep="\n")
