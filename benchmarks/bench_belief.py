"""The quality of weighted beliefs against uniform ones: log-probability of the true holder of each hidden card.

Seeded first hands are played by four copies of one agent (``heuristic`` or ``zoo:PRESET``). At every
play-phase decision of player 0 after the first play of the hand, ``--proposals`` worlds are dealt
uniformly from its observation (the same worlds for every belief), and each belief weights them:
``uniform`` equally, ``heuristic`` and ``zoo`` by the likelihood of the opponents' plays so far
(agents/belief.py). A belief's score at a decision is the mean log-probability it puts on the true
holder of each hidden card (``holder_log_prob``); a game's score is the mean over its decisions, and
the table gives the mean over games with a 95% interval, and the weighted belief's difference from
uniform (paired by game). ``ess`` is the mean effective number of worlds; ``accept`` the mean
likelihood of a proposal, the acceptance rate rejection sampling against the bound 1 would have.

    python benchmarks/bench_belief.py                                 # the held-out seed, every table
    python benchmarks/bench_belief.py --presets president --players heuristic --games 20 --seed 7

With ``--search SPECS`` it plays instead: each ``search`` spec as player 0 against three heuristics on the same
seeded first hands, deciding one decision at a time with its view of the hand (``act_with_history``), and prints
its points a hand, the difference from the first spec (paired by deal) and its CPU time a decision:

    python benchmarks/bench_belief.py --search search,search:belief=heuristic,search:belief=zoo:PRESET
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.belief import (
    HistoryRecorder,
    PublicHistory,
    heuristic_model,
    history_log_likelihood,
    holder_log_prob,
    network_model,
    worlds_seat_order,
)
from agents.registry import make_agent, split_specs
from president_env.core import OVER, PLAY, Rules, current_player, init, observe, preset, step_inplace
from president_env.core.resample import worlds_from_observation

#: fixed before any run and used for nothing else (the tuning seed is 7)
HELD_OUT_SEED = 20261206
#: one decision to score: player 0's history, its observation, the true hidden cards
Decision = tuple[PublicHistory, np.ndarray, np.ndarray]


def play_games(rules: Rules, spec: str, games: int, seed: int) -> list[list[Decision]]:
    """Per game, player 0's play decisions after the hand's first play: (its history, its observation, the true
    hidden cards in the worlds' seat numbering)."""
    st = init(rules, batch_size=games, seed=seed)
    agent = make_agent(spec, rules)
    rng = np.random.default_rng(seed)
    rec = HistoryRecorder(rules, 0, games)
    out: list[list] = [[] for _ in range(games)]
    while not (st.phase == OVER).all():
        live = st.phase != OVER
        rows = np.flatnonzero(live)
        player = current_player(st)
        sub = st.take(rows)
        acts = np.zeros(games, np.int64)
        acts[rows] = agent.act(observe(rules, sub, player[rows]), sub.legal, rng)
        for b in rows.tolist():
            if player[b] == 0 and st.phase[b] == PLAY and len(rec.histories[b]) > 0:
                order = worlds_seat_order(st, b, 0)
                truth = (st.hands[b][order] if rules.card_level else st.counts[b][order]).copy()
                out[b].append((rec.histories[b].copy(), observe(rules, st.take([b]), 0)[0], truth))
        rec.record(st, acts, where=live)
        step_inplace(rules, st, acts, where=live)
    return out


def score_games(rules: Rules, decisions: list, models: dict, proposals: int, seed: int, alpha: float,
                prior: float) -> dict[str, dict]:
    """Per belief: per-game mean score, mean ESS and mean acceptance (lists over games), and CPU seconds."""
    res = {name: {"game": [], "ess": [], "accept": [], "cpu": 0.0} for name in models}
    for g, dec in enumerate(decisions):
        if not dec:
            continue
        per = {name: [[], [], []] for name in models}
        for i, (hist, now, truth) in enumerate(dec):
            rng = np.random.default_rng([seed, g, i])
            worlds = worlds_from_observation(rules, now[None], proposals, rng)
            for name, model in models.items():
                t0 = time.process_time()
                ll = np.zeros(proposals) if model is None else history_log_likelihood(rules, hist, worlds, now, model)
                ok = np.isfinite(ll)
                w = np.exp(ll - ll[ok].max()) if ok.any() else np.ones(proposals)
                w[~np.isfinite(ll)] = 0.0 if ok.any() else 1.0
                res[name]["cpu"] += time.process_time() - t0
                w /= w.sum()
                per[name][0].append(holder_log_prob(rules, worlds, w, truth, alpha, prior))
                per[name][1].append(1.0 / np.sum(w ** 2))
                per[name][2].append(float(np.mean(np.exp(ll))))
        for name in models:
            for key, vals in zip(("game", "ess", "accept"), per[name], strict=True):
                res[name][key].append(float(np.mean(vals)))
    return res


def play_search(rules: Rules, spec: str, games: int, seed: int) -> tuple[np.ndarray, float, float, int]:
    """``spec`` as player 0 against three heuristics on ``games`` seeded first hands: its points per hand, CPU ms a
    decision and a searched decision, and the decisions dealt from a weighted belief."""
    st = init(rules, batch_size=games, seed=seed)
    agent = make_agent(spec, rules)
    heur = make_agent("heuristic", rules)
    rng = np.random.default_rng(seed)
    rec = HistoryRecorder(rules, 0, games)
    while not (st.phase == OVER).all():
        live = st.phase != OVER
        player = current_player(st)
        acts = np.zeros(games, np.int64)
        others = np.flatnonzero(live & (player != 0))
        if others.size:
            sub = st.take(others)
            acts[others] = heur.act(observe(rules, sub, player[others]), sub.legal, rng)
        for b in np.flatnonzero(live & (player == 0)).tolist():     # one decision at a time
            one = st.take([b])
            acts[b] = agent.act_with_history(observe(rules, one, 0), one.legal, rng, [rec.histories[b]])[0]
        rec.record(st, acts, where=live)
        step_inplace(rules, st, acts, where=live)
    points = np.asarray(rules.points, dtype=np.float64)[st.last_finish[:, 0].astype(np.int64)]
    s = agent.stats
    return points, 1e3 * s.cpu_seconds / max(s.decisions, 1), 1e3 * s.cpu_seconds / max(s.searched, 1), s.believed


def search_table(presets: list[str], specs: list[str], games: int, seed: int) -> list[dict]:
    """Print and return one row per preset and search spec (``PRESET`` in a spec is the preset's name)."""
    print(f"seed {seed}, {games} first hands, the search as player 0 against three heuristics")
    print("| preset | spec | points a hand [95%] | difference from the first [95%] | ms a decision | "
          "ms a searched one | dealt from the belief |")
    print("|---|---|---|---|---:|---:|---:|")
    rows = []
    for name in presets:
        rules = preset(name).replace(hands_per_session=1)
        first = None
        for spec in specs:
            pts, per, per_s, believed = play_search(rules, spec.replace("PRESET", name), games, seed)
            first = pts if first is None else first
            (m, h), (d, hd) = ci(pts), ci(pts - first)
            rows.append({"preset": name, "spec": spec, "points": m, "ci95": h, "difference": d, "diff_ci95": hd,
                         "ms": per, "ms_searched": per_s, "believed": believed})
            print(f"| {name} | `{spec}` | {m:+.3f} [{m - h:+.3f}, {m + h:+.3f}] | {d:+.3f} [{d - hd:+.3f}, "
                  f"{d + hd:+.3f}] | {per:.1f} | {per_s:.1f} | {believed} |", flush=True)
    return rows


def ci(x: np.ndarray) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal)."""
    x = np.asarray(x, dtype=np.float64)
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")


def main(argv: list[str] | None = None) -> list[dict]:
    """Print one row per preset, table and weighted belief; return the rows."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="president,daifugo,daifugo_runs")
    ap.add_argument("--players", default="heuristic,zoo", help="who plays the games: heuristic, zoo (zoo:PRESET)")
    ap.add_argument("--beliefs", default="heuristic,zoo", help="weighted beliefs to score against uniform")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--proposals", type=int, default=256)
    ap.add_argument("--seed", type=int, default=HELD_OUT_SEED)
    ap.add_argument("--eps", type=float, default=0.5, help="the heuristic model's probability off its choice")
    ap.add_argument("--temperature", type=float, default=4.0, help="the zoo model's softmax temperature")
    ap.add_argument("--alpha", type=float, default=0.5, help="smoothing, in worlds")
    ap.add_argument("--prior", type=float, default=2.0, help="worlds' worth of the plain share mixed in")
    ap.add_argument("--search", default="", help="search specs to play instead (PRESET: the preset's name)")
    args = ap.parse_args(argv)
    if args.search:
        return search_table(args.presets.split(","), split_specs(args.search), args.games, args.seed)
    rows = []
    print(f"seed {args.seed}, {args.games} first hands a table, {args.proposals} worlds a decision, "
          f"eps {args.eps}, temperature {args.temperature}, alpha {args.alpha}, prior {args.prior}")
    print("| preset | players | belief | decisions | uniform | weighted | difference [95%] | ESS | accept | "
          "ms a decision |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|")
    for name in args.presets.split(","):
        rules = preset(name).replace(hands_per_session=1)
        models: dict = {"uniform": None}
        for b in args.beliefs.split(","):
            models[b] = heuristic_model(rules, args.eps) if b == "heuristic" else network_model(
                make_agent(f"zoo:{name}", rules), args.temperature)
        for players in args.players.split(","):
            spec = "heuristic" if players == "heuristic" else f"zoo:{name}"
            decisions = play_games(rules, spec, args.games, args.seed)
            n_dec = sum(len(d) for d in decisions)
            res = score_games(rules, decisions, models, args.proposals, args.seed, args.alpha, args.prior)
            u = np.array(res["uniform"]["game"])
            for b in models:
                if b == "uniform":
                    continue
                x = np.array(res[b]["game"])
                (mu, _), (mw, _), (md, hd) = ci(u), ci(x), ci(x - u)
                row = {"preset": name, "players": spec, "belief": b, "decisions": n_dec, "uniform": mu,
                       "weighted": mw, "difference": md, "ci95": hd, "ess": float(np.mean(res[b]["ess"])),
                       "accept": float(np.mean(res[b]["accept"])), "ms": 1e3 * res[b]["cpu"] / max(n_dec, 1)}
                rows.append(row)
                print(f"| {name} | {spec} | {b} | {n_dec} | {mu:.4f} | {mw:.4f} | {md:+.4f} [{md - hd:+.4f}, "
                      f"{md + hd:+.4f}] | {row['ess']:.1f} | {row['accept']:.2g} | {row['ms']:.0f} |", flush=True)
    return rows


if __name__ == "__main__":
    main()
