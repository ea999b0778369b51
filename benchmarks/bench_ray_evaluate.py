"""The serial tournament beside ``president evaluate --ray`` on a local Ray with N workers, in one run.

* ``serial``: :func:`agents.arena.run_tournament` in this process (one core).
* ``ray_N``: :func:`training.ray_evaluate.ray_tournament` on a local Ray started with ``--workers``
  CPUs (the deals split into ``--tasks`` tasks, default ``ray_tournament``'s: one per worker for tournaments
  under 5,000 sessions a worker), timed from the call to the table:
  shipping the agents, the tasks, gathering and summarising the tallies. Ray's start and the workers'
  first task (imports, loading the compiled engine) are a warm-up, reported apart (``start s``).

Both play the same tournament (default: ``random`` in every seat, the entrants that used to run their
batches one after another on Ray) and must give the same table; the script checks it. The runs
alternate (serial, ray, serial, ray, ...) ``--repeats`` times and each row reports the median, so a
change of load on a shared machine hits both alike; the load average before and after is printed.

    python benchmarks/bench_ray_evaluate.py                        # president, 2 workers, 2,000 deals
    python benchmarks/bench_ray_evaluate.py --workers 4 --deals 8000
    python benchmarks/bench_ray_evaluate.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if PROJECT not in sys.path:
    sys.path.insert(0, PROJECT)


def _table(result) -> dict:  # noqa: ANN001 - a TournamentResult
    out = result.to_dict()
    out.pop("seconds")
    return out


def bench(preset: str, players: int | None, agents: list[str] | None, deals: int, workers: int, tasks: int | None,
          repeats: int, seed: int, hands: int | None) -> tuple[list[dict], dict]:
    """(rows, info): the median seconds of ``repeats`` alternating serial and Ray runs of one tournament."""
    from agents.arena import run_tournament
    from president_env.core import preset as make_preset
    from training.ray_evaluate import default_tasks, ray_tournament

    rules = make_preset(preset, **({"players": players} if players else {}))
    entrants = agents or ["random"] * rules.players
    kw = {"seed": seed, "hands_per_session": hands, "rating": False}
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    run_tournament(rules, entrants, 4, **kw)                         # warm-up: the compiled engine, the agents
    t0 = time.perf_counter()
    import ray

    started = not ray.is_initialized()
    if started:      # a Ray of its own: address="local" never joins another cluster running on this machine
        ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        sessions_per_deal = run_tournament(rules, entrants, 1, **kw).sessions
        n_tasks = tasks or default_tasks(deals, deals * sessions_per_deal, workers)
        ray_tournament(rules, entrants, 2 * workers, tasks=2 * workers, **kw)   # warm-up: every worker's first task
        startup = time.perf_counter() - t0
        times: dict[str, list[float]] = {"serial": [], "ray": []}
        tables: dict[str, dict] = {}
        decisions = sessions = 0
        for rep in range(repeats):
            for path in (("serial", "ray") if rep % 2 == 0 else ("ray", "serial")):
                t = time.perf_counter()
                if path == "serial":
                    res = run_tournament(rules, entrants, deals, **kw)
                else:
                    res = ray_tournament(rules, entrants, deals, tasks=n_tasks, **kw)
                times[path].append(time.perf_counter() - t)
                tables.setdefault(path, _table(res))
                decisions, sessions = res.decisions, res.sessions
    finally:
        if started:
            ray.shutdown()
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
    serial_s = statistics.median(times["serial"])
    rows = []
    for path, label in (("serial", "serial"), ("ray", f"ray_{workers}")):
        s = statistics.median(times[path])
        rows.append({"path": label, "workers": 1 if path == "serial" else workers,
                     "tasks": 1 if path == "serial" else n_tasks, "deals": deals, "sessions": sessions,
                     "decisions": decisions, "seconds": round(s, 2), "runs": [round(x, 2) for x in times[path]],
                     "decisions_per_s": decisions / s, "x_serial": round(serial_s / s, 3),
                     "startup_s": None if path == "serial" else round(startup, 1)})
    info = {"preset": preset, "players": rules.players, "entrants": entrants,
            "same_table": tables["serial"] == tables["ray"], "load_before": load_before, "load_after": load_after,
            "cpus": os.cpu_count()}
    return rows, info


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="president")
    ap.add_argument("--players", type=int, default=None, help="players (default: the preset's)")
    ap.add_argument("--agents", default=None, help="comma-separated entrants, one per seat (default: random in all)")
    ap.add_argument("--deals", type=int, default=2000, help="deals of the timed tournament (default 2000)")
    ap.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray (default 2)")
    ap.add_argument("--tasks", type=int, default=None, help="Ray tasks (default: ray_tournament's default)")
    ap.add_argument("--repeats", type=int, default=3, help="alternating serial/Ray pairs; rows give the median")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hands", type=int, default=None, help="hands per session (default: whole sessions)")
    ap.add_argument("--json", action="store_true", help="print one JSON list of rows")
    args = ap.parse_args(argv)
    agents = args.agents.split(",") if args.agents else None
    rows, info = bench(args.preset, args.players, agents, args.deals, args.workers, args.tasks, args.repeats, args.seed,
                       args.hands)
    if not info["same_table"]:
        raise SystemExit("the Ray tournament's table differs from the serial one")
    if args.json:
        print(json.dumps([{**r, **info} for r in rows]))
        return rows
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{args.preset} tournament, {','.join(info['entrants'])}: serial vs Ray "
                        f"({args.workers} workers)")
    for col in ("path", "tasks", "deals", "sessions", "decisions", "seconds (median)", "runs", "decisions/s",
                "x serial", "start s"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(r["path"], str(r["tasks"]), f"{r['deals']:,}", f"{r['sessions']:,}", f"{r['decisions']:,}",
                      f"{r['seconds']:.1f}", " ".join(f"{x:.1f}" for x in r["runs"]), f"{r['decisions_per_s']:,.0f}",
                      f"{r['x_serial']:.2f}", "" if r["startup_s"] is None else f"{r['startup_s']:.1f}")
    console = Console() if Console().is_terminal else Console(width=160)
    console.print(table)
    fmt = lambda la: "n/a" if la is None else " ".join(f"{x:.2f}" for x in la)  # noqa: E731
    same = "yes" if info["same_table"] else "NO"
    console.print(f"same table: {same}; load average before {fmt(info['load_before'])}, "
                    f"after {fmt(info['load_after'])}; {info['cpus']} CPUs")
    return rows


if __name__ == "__main__":
    main()
