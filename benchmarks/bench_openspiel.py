"""States per second through pyspiel's Python game interface: ``president`` beside OpenSpiel's own Python games.

Random playouts of each game in one process, one after the other: at each state the legal actions
(or the chance outcomes, one drawn by its probability) and ``apply_action``; with ``--infostate``
also the information state string of the player to act (what a tabular algorithm reads). States
are counted per second of process CPU time (other work on the machine does not count), and each
row gives its ratio to the first reference game of the same run.

    python benchmarks/bench_openspiel.py                        # president, micro, and OpenSpiel's python games
    python benchmarks/bench_openspiel.py --seconds 1 --json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyspiel
from _common import one_core
from open_spiel.python import games as _os_python_games  # noqa: F401  (registers python_kuhn_poker, ...)

import president_env.openspiel  # noqa: F401  (registers president)

DEFAULT_GAMES = ("python_kuhn_poker", "python_tic_tac_toe", "president", "president(preset=daifugo)",
                 "president(preset=micro)")
REFERENCES = ("python_kuhn_poker", "python_tic_tac_toe")


def states_per_second(name: str, seconds: float, infostate: bool, seed: int = 0) -> dict:
    """Random playouts of game ``name`` for about ``seconds`` of CPU time; the states visited per second."""
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(seed)
    states = episodes = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes(), strict=True)
                a = outcomes[int(rng.choice(len(outcomes), p=probs))]
            else:
                if infostate:
                    s.information_state_string(s.current_player())
                legal = s.legal_actions()
                a = legal[int(rng.integers(len(legal)))]
            s.apply_action(a)
            states += 1
        episodes += 1
    spent = time.process_time() - t0
    return {"game": name, "states": states, "episodes": episodes, "seconds": round(spent, 3),
            "states_per_s": states / spent, "infostate": infostate}


def main(argv: list[str] | None = None) -> list[dict]:
    """Time each game; print a Markdown table (or JSON) and return the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(DEFAULT_GAMES),
                        help="comma-separated game strings (president(...) or any pyspiel game)")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per game (default 3)")
    parser.add_argument("--infostate", action="store_true", help="also read the acting player's information state")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    one_core()
    names = [g.strip() for g in args.games.split(";" if ";" in args.games else ",") if g.strip()]
    # a game string with parameters holds commas: rejoin the pieces of president(...)
    merged: list[str] = []
    for n in names:
        if merged and merged[-1].count("(") > merged[-1].count(")"):
            merged[-1] += "," + n
        else:
            merged.append(n)
    rows = [states_per_second(n, args.seconds, args.infostate) for n in merged]
    ref = next((r for r in rows if r["game"] in REFERENCES), rows[0])
    for r in rows:
        r["ratio"] = r["states_per_s"] / ref["states_per_s"]
        r["reference"] = ref["game"]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"| game | states/s | x `{ref['game']}` |\n|---|---:|---:|")
        for r in rows:
            print(f"| `{r['game']}` | {r['states_per_s']:,.0f} | {r['ratio']:.3f} |")
    return rows


if __name__ == "__main__":
    main()
