"""How often weighted worlds change what the search decides (issue 46).

Seeded first hands are played by four copies of ``--players``. At every decision of player 0 after the hand's
first play with more than one legal move, each spec decides on player 0's view (its observation and the hand's
plays, ``act_grouped_with_history``) twice, with two independent generators per decision. For each spec the
table gives the share of those decisions where it leaves the players' move (what ``--players`` chose there) and
the share where its two draws disagree: the noise of its worlds and rollouts. For each spec after the first it
gives the share where it disagrees with the first spec (each with its first generator). Weighted worlds change
decisions only as far as a belief search disagrees with the uniform one more often than each disagrees with itself:

    S=search:policy=zoo:president,fallback=policy,worlds=16,actions=4
    python benchmarks/belief_decisions.py --preset president --players zoo:president --games 100 \\
        --specs "$S;$S,belief=zoo:president"

Specs are separated by ``;`` (a search spec holds commas). Shares come with 95% intervals over games. With
``--different N,...`` and ``--belief`` (a network spec or ``heuristic``) it first prints, at the same decisions,
how many different worlds ``N`` worlds drawn from the weighed proposals hold under each ``draw``
(``agents.belief.DRAWS``), and the proposals' effective number (ESS):

    python benchmarks/belief_decisions.py --preset president --players zoo:president --games 30 \\
        --belief zoo:president --different 16,64 --specs "$S"
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.arena import Z95
from agents.belief import (
    DRAWS,
    HistoryRecorder,
    PublicHistory,
    draw_indices,
    heuristic_model,
    network_model,
    weigh_worlds,
)
from agents.registry import make_agent
from president_env.core import OVER, PLAY, Rules, current_player, init, observe, preset, step_inplace


def collect(rules: Rules, players: str, games: int, seed: int) -> tuple[list[PublicHistory], np.ndarray,
                                                                        np.ndarray, np.ndarray, np.ndarray]:
    """Player 0's decisions with a choice after the hand's first play, four copies of ``players`` playing:
    their histories, observations, legal masks, the players' moves and the game of each."""
    st = init(rules, batch_size=games, seed=seed)
    agent = make_agent(players, rules)
    rng = np.random.default_rng(seed)
    rec = HistoryRecorder(rules, 0, games)
    hists, obs, legal, moves, game = [], [], [], [], []
    while not (st.phase == OVER).all():
        live = np.flatnonzero(st.phase != OVER)
        player = current_player(st)
        sub = st.take(live)
        acts = np.zeros(games, np.int64)
        acts[live] = agent.act(observe(rules, sub, player[live]), sub.legal, rng)
        for b in live.tolist():
            if player[b] == 0 and st.phase[b] == PLAY and len(rec.histories[b]) > 0 and st.legal[b].sum() > 1:
                one = st.take([b])
                hists.append(rec.histories[b].copy())
                obs.append(observe(rules, one, 0)[0])
                legal.append(one.legal[0].copy())
                moves.append(acts[b])
                game.append(b)
        playing = st.phase != OVER
        rec.record(st, acts, where=playing)
        step_inplace(rules, st, acts, where=playing)
    return hists, np.asarray(obs), np.asarray(legal), np.asarray(moves, np.int64), np.asarray(game, np.int64)


def decide(rules: Rules, spec: str, hists: list[PublicHistory], obs: np.ndarray, legal: np.ndarray, seed: int,
           draw: int) -> tuple[np.ndarray, float]:
    """The spec's move at every decision, decision ``i`` with the generator ``[seed, draw, i]``; CPU seconds."""
    agent = make_agent(spec, rules)
    if not hasattr(agent, "act_grouped_with_history"):
        raise SystemExit(f"{spec}: not a search agent (it has no act_grouped_with_history)")
    rngs = [np.random.default_rng([seed, draw, i]) for i in range(len(hists))]
    t0 = time.process_time()
    moves = agent.act_grouped_with_history(obs, legal, rngs, np.arange(len(hists) + 1), hists)
    return moves, time.process_time() - t0


def different_worlds(rules: Rules, belief: str, hists: list[PublicHistory], obs: np.ndarray, ns: list[int],
                     proposals: int, seed: int) -> dict[str, float]:
    """Mean over the decisions of the proposals' ESS under ``belief`` and, for each ``n`` and draw, of the number of
    different proposals among ``n`` drawn (decision ``i``'s proposals and draw from the generator ``[seed, 2, i]``)."""
    model = heuristic_model(rules) if belief == "heuristic" else network_model(make_agent(belief, rules))
    sums: dict[str, float] = {"ess": 0.0} | {f"{d} {n}": 0.0 for n in ns for d in DRAWS}
    for i, (hist, now) in enumerate(zip(hists, obs, strict=True)):
        rng = np.random.default_rng([seed, 2, i])
        weighed = weigh_worlds(rules, hist, now, proposals, rng, model)
        sums["ess"] += weighed.ess
        u = rng.random()
        for n in ns:
            for d in DRAWS:
                sums[f"{d} {n}"] += len(np.unique(draw_indices(weighed.weights, n, u, d)))
    return {k: v / max(len(hists), 1) for k, v in sums.items()}


def share(differs: np.ndarray, game: np.ndarray, games: int) -> str:
    """The share of decisions where ``differs``, with a 95% interval over games (a ratio estimate)."""
    n = np.bincount(game, minlength=games).astype(np.float64)
    k = np.bincount(game, weights=differs.astype(np.float64), minlength=games)
    p = k.sum() / n.sum()
    resid = k - p * n                                    # the ratio estimator's per-game residuals
    h = Z95 * np.sqrt(games / max(games - 1, 1) * np.sum(resid ** 2)) / n.sum()
    return f"{100 * p:.1f}% [{100 * (p - h):.1f}, {100 * (p + h):.1f}]"


def main(argv: list[str] | None = None) -> list[list[np.ndarray]]:
    """Print the table; return each spec's two draws of moves at every decision."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", required=True)
    ap.add_argument("--specs", required=True, help="search specs separated by ';'")
    ap.add_argument("--players", required=True, help="the agent whose four copies play the hands")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=901)
    ap.add_argument("--belief", default="", help="with --different: the belief model (heuristic or a network spec)")
    ap.add_argument("--different", default="", help="comma-separated numbers of worlds to count different ones of")
    ap.add_argument("--proposals", type=int, default=256, help="with --different: proposals weighed a decision")
    args = ap.parse_args(argv)
    specs = [s.strip() for s in args.specs.split(";") if s.strip()]
    if not specs:
        ap.error("--specs: give at least one search spec")
    if args.games < 2:
        ap.error(f"--games must be at least 2, got {args.games}")
    try:
        ns = [int(n) for n in args.different.split(",") if n.strip()]
    except ValueError:
        ap.error(f"--different must be comma-separated whole numbers, got {args.different!r}")
    if any(not 1 <= n <= args.proposals for n in ns) or (ns and not args.belief):
        ap.error(f"--different: numbers 1..{args.proposals} (--proposals), with --belief; got {args.different!r}")
    rules = preset(args.preset).replace(hands_per_session=1)
    print(f"{args.preset}: playing {args.games} first hands of four {args.players} ...", flush=True)
    hists, obs, legal, played, game = collect(rules, args.players, args.games, args.seed)
    print(f"{args.preset}: {len(hists)} decisions of player 0 with a choice after the first play, "
          f"{args.games} first hands of four {args.players}, seed {args.seed}")
    if ns:
        got = different_worlds(rules, args.belief, hists, obs, ns, args.proposals, args.seed)
        print(f"\n{args.proposals} proposals weighed by {args.belief}: ESS {got['ess']:.1f} on average; different "
              "worlds among n drawn:\n\n| n | " + " | ".join(DRAWS) + " |\n|---:|" + "---:|" * len(DRAWS))
        for n in ns:
            print(f"| {n} | " + " | ".join(f"{got[f'{d} {n}']:.1f}" for d in DRAWS) + " |", flush=True)
    print("\n| spec | leaves the players' move | its two draws disagree | disagrees with the first spec | "
          "CPU ms a decision |\n|---|---|---|---|---:|")
    out: list[list[np.ndarray]] = []
    for k, spec in enumerate(specs):
        draws = [decide(rules, spec, hists, obs, legal, args.seed, d) for d in (0, 1)]
        out.append([m for m, _ in draws])
        vs_first = share(draws[0][0] != out[0][0], game, args.games) if k else ""
        ms = 1e3 * sum(c for _, c in draws) / (2 * max(len(hists), 1))
        print(f"| `{spec}` | {share(draws[0][0] != played, game, args.games)} | "
              f"{share(draws[0][0] != draws[1][0], game, args.games)} | {vs_first} | {ms:.1f} |", flush=True)
    return out


if __name__ == "__main__":
    main()
