"""``president cfr``: CFR+ or MCCFR on a small variant's single-hand game tree, its average policy to a ``cfr:`` file.

``president cfr --preset micro --iterations 1000 --out micro.cfr.safetensors`` builds the exact game
tree (:mod:`agents.nash_conv`), runs CFR+ (:mod:`agents.cfr`; ``--algorithm mccfr``: external-sampling
MCCFR, its samples drawn from ``--seed``) and prints, as it goes, the NashConv of
the average policy after 1, 2, 4, ... iterations (``--every K``: every K iterations) with the seconds of
solving so far. The file is the average policy keyed by observation, for ``--agents cfr:FILE``
(``president exploitability``, ``president evaluate``). An existing ``--out`` is kept unless ``--force``.
Ctrl-C stops the solve within about a second and writes the policy so far (exit status 130).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from president_cli.argtypes import UsageError
from president_env.core import RulesError
from president_env.core.memory import MemoryEstimateError
from president_env.small_variants import SMALL_VARIANTS, variant_rules


def _positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return n


def _positive_float(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}") from None
    if not x > 0 or x == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return x


def _seed(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {value!r}") from None
    if not 0 <= n < 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer seed from 0 to 2**32 - 1, got {value!r}")
    return n


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``cfr``."""
    p = subparsers.add_parser(
        "cfr", help="CFR+ or MCCFR on a small variant: its average policy as a cfr:FILE agent, NashConv as it goes",
        description="CFR+ (regret matching+, alternating updates, linear averaging) or external-sampling MCCFR over "
                    "the exact single-hand game tree of a small variant; prints the average policy's NashConv (an "
                    "exact best response) as it goes and writes the policy, keyed "
                    "by observation, for --agents cfr:FILE.")
    p.add_argument("--preset", required=True, help=f"a small variant ({', '.join(SMALL_VARIANTS)})")
    stop = p.add_mutually_exclusive_group(required=True)
    stop.add_argument("--iterations", type=_positive_int,
                      help="iterations (CFR+: a walk of the whole tree; MCCFR: one sampled walk for each player)")
    stop.add_argument("--seconds", type=_positive_float, help="seconds of solving (the tree's building included)")
    p.add_argument("--out", required=True, help="the policy file to write (*.cfr.safetensors)")
    p.add_argument("--every", type=_positive_int, default=None,
                   help="measure NashConv every K iterations (default: after 1, 2, 4, 8, ... iterations)")
    p.add_argument("--algorithm", choices=("cfr+", "mccfr"), default="cfr+",
                   help="cfr+ (default) or mccfr (external sampling)")
    p.add_argument("--seed", type=_seed, default=0, help="MCCFR's samples (default 0; CFR+ draws nothing)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out")
    p.set_defaults(func=cmd_cfr)


def cmd_cfr(args: argparse.Namespace) -> int:
    """Solve, print the curve as it comes, write the file."""
    if args.preset.lower() not in SMALL_VARIANTS:
        raise UsageError(f"--preset {args.preset!r}: CFR needs a small variant's whole tree; small variants are: "
                         f"{', '.join(SMALL_VARIANTS)}")
    try:
        rules = variant_rules(args.preset)
    except RulesError as e:
        raise UsageError(str(e)) from None
    out = Path(args.out)
    if out.exists() and not args.force:
        raise UsageError(f"--out {out} exists; pass --force to overwrite it")
    if out.exists() and not out.is_file():
        raise UsageError(f"--out {out} is not a file")
    from agents.cfr import solve, write_cfr_file
    from agents.nash_conv import check_tree_fits

    try:
        check_tree_fits(rules)
    except MemoryEstimateError as e:
        raise UsageError(f"--preset {args.preset}: {e}") from None
    t0 = time.perf_counter()
    name = "CFR+" if args.algorithm == "cfr+" else f"MCCFR (external sampling, seed {args.seed})"
    print(f"{name} on {rules.name}: building the game tree ...", flush=True)
    print(f"{'iteration':>10} {'seconds':>9} {'NashConv':>12}", flush=True)

    def show(point) -> None:  # noqa: ANN001 - a CfrPoint
        print(f"{point.iteration:>10} {point.seconds:>9.2f} {point.nash_conv:>12.6f}", flush=True)

    res = solve(rules, iterations=args.iterations, seconds=args.seconds, every=args.every, progress=show,
                algorithm=args.algorithm, seed=args.seed)
    try:
        write_cfr_file(out, res)
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write it ({e})") from None
    t = res.tree
    last = res.curve[-1] if res.curve and res.curve[-1].iteration == res.iterations else None
    measured = "not measured" if last is None else f"NashConv {last.nash_conv:.6f} (points a hand)"
    print(f"{res.iterations} iterations over {t.n_nodes:,} nodes, {t.n_infosets:,} information states; "
          f"{measured}; {time.perf_counter() - t0:.1f} s in all (NashConv measurements included)", flush=True)
    print(f"wrote {out}: use it as --agents cfr:{out}", flush=True)
    if res.interrupted:
        print(f"interrupted (Ctrl-C) after {res.iterations} iterations: the policy so far is in {out}",
              file=sys.stderr, flush=True)
        return 130
    return 0
