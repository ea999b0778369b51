"""``president train`` and ``president train-all``: fit MaskablePPO agents (see :mod:`training.train`).

``president train --method expert-iteration`` fits the same network to a search's moves instead, iteration by
iteration (:mod:`training.expert_iteration`).

``president train --backend rllib`` runs multi-agent PPO on Ray RLlib instead (every seat a
learning policy; local Ray, or a cluster with ``--address``; see :mod:`training.rllib_train`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from president_cli.argtypes import (
    MAX_DEALS,
    MAX_TIMESTEPS,
    UsageError,
    deals_count,
    float_range,
    int_range,
    minutes_value,
    preset_name,
    seed_value,
    timesteps_count,
)
from president_env.core import PRESETS, RulesError
from president_env.core.jsonio import JSONInputError, JSONSyntaxError, loads

BACKENDS = ("sb3", "rllib")
METHODS = ("ppo", "expert-iteration")
DEFAULT_TIMESTEPS = 5_000_000
# options of the rllib backend and their defaults (given with --backend sb3 they are refused)
RLLIB_DEFAULTS: dict[str, object] = {"env_runners": 1, "address": None, "policies": "shared", "iterations": None,
                                     "trust_pickle": False, "envs_per_runner": None, "learners": None,
                                     "gpus_per_learner": None}
# rllib flags that are settings of RllibSettings (the same as --set NAME=VALUE)
RLLIB_SETTING_FLAGS = ("envs_per_runner", "learners", "gpus_per_learner")
CHECKPOINT_EVERY = {"sb3": 1_000_000, "rllib": 10}   # learner steps (sb3), PPO iterations (rllib)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``train`` and ``train-all``."""
    p = subparsers.add_parser("train", help="fit an agent to one variant: MaskablePPO (self-play + baselines) or "
                                            "expert iteration (--method)",
                              description="Fit a MaskablePPO agent on the batched VecEnv against a pool of the "
                                          "scripted baselines and snapshots of itself; evaluate it at intervals "
                                          "and at the end against the baselines in duplicate-deal tournaments. "
                                          "--method expert-iteration fits the same network to the moves of a "
                                          "search that plays with it instead, iteration by iteration.")
    p.add_argument("--preset", type=preset_name, default="president",
                   help=f"the variant (default president), one of: {', '.join(PRESETS)}")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the preset's)")
    p.add_argument("--timesteps", type=timesteps_count, default=None,
                   help="learner decisions of PPO in total, a cap beside --minutes (default 5,000,000)")
    p.add_argument("--out", required=True,
                   help="output folder (model, checkpoints, eval.csv, TensorBoard logs); one that holds files is "
                        "refused unless --resume or --force")
    p.add_argument("--seed", type=seed_value, default=0,
                   help="seed of the games, the network's first weights and the evaluations' deals (default 0)")
    p.add_argument("--minutes", type=minutes_value, default=None,
                   help="wall-clock budget of the whole run: the warm start takes its share, then PPO, then the "
                        "final evaluation (default: no limit; --timesteps alone ends the run); with --backend rllib "
                        "it bounds the PPO iterations")
    p.add_argument("--resume", default=None,
                   help="continue from a checkpoint of the same rules: a zip (sb3), an RLlib checkpoint folder "
                        "(rllib, with --trust-pickle), checkpoints/iter_K.exit.safetensors (expert-iteration)")
    p.add_argument("--force", action="store_true",
                   help="write into an --out that already holds files (files of the same names are replaced)")
    p.add_argument("--checkpoint-every", type=int_range(1, MAX_TIMESTEPS), default=None, metavar="N",
                   help="save a checkpoint and its agent file every N learner steps (sb3, default 1,000,000) or "
                        "N PPO iterations (rllib, default 10); Ctrl-C saves one too")
    p.add_argument("--eval-deals", type=deals_count, default=None,
                   help="duplicate deals per evaluation during training (default: the settings' eval_deals, 200)")
    p.add_argument("--final-deals", type=int_range(0, MAX_DEALS), default=1000,
                   help="duplicate deals of the final evaluation against each baseline (default 1000; 0: none)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override a training setting (JSON value): of training/hyperparams.py, e.g. n_envs=128; "
                        "with --backend rllib of RllibSettings in training/rllib_train.py, e.g. train_batch=8192")
    p.add_argument("--recipe", default=None, metavar="NAME",
                   help="start from a named set of settings of training/hyperparams.py (RECIPES: solo, thin, "
                        "solo_search, thin_search; e.g. solo: the learner in one seat among heuristics); --set "
                        "values win over it (sb3 and expert-iteration)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--backend", choices=BACKENDS, default="sb3",
                   help="sb3: MaskablePPO on the batched VecEnv, one process (default); rllib: multi-agent PPO on "
                        "Ray RLlib, every seat a policy (the ray extra)")
    p.add_argument("--env-runners", type=int_range(0, 1024), default=RLLIB_DEFAULTS["env_runners"], metavar="N",
                   help="rllib: EnvRunner actors sampling games (0: in this process; default 1)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="rllib: the Ray cluster (HOST:PORT of `ray start --head`, auto, ray://HOST:PORT); "
                        "default: local mode on this machine")
    p.add_argument("--envs-per-runner", type=int_range(1, 4096), default=None, metavar="N",
                   help="rllib: games each env runner steps together as arrays (default 64)")
    p.add_argument("--learners", type=int_range(0, 1024), default=None, metavar="K",
                   help="rllib: Learner actors sharing the PPO update, data-parallel (default 0: the update runs in "
                        "this process)")
    p.add_argument("--gpus-per-learner", type=float_range(0.0, 64.0), default=None, metavar="G",
                   help="rllib: GPUs of each Learner (with --learners 0, of this process's learner; default 0)")
    p.add_argument("--policies", choices=("shared", "per-seat"), default="shared",
                   help="rllib: one policy for every seat (default) or one per player")
    p.add_argument("--iterations", type=int_range(1, 10**9), default=None,
                   help="rllib: stop after this many PPO iterations; expert-iteration: iterations in all, a resumed "
                        "run's included (default: the setting exit_iterations, 10)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="rllib: allow --resume of an RLlib checkpoint, which RLlib stores with pickle (loading one "
                        "can run code from the folder); an SB3 --resume unpickles nothing and needs no flag")
    p.add_argument("--method", choices=METHODS, default="ppo",
                   help="ppo: reinforcement learning (default); expert-iteration: the network fitted to the moves "
                        "of a search that uses it, iteration by iteration (settings exit_*; docs in the README)")
    p.add_argument("--init", default=None, metavar="AGENT",
                   help="the network to start from, an agent file (zoo:NAME, ppo:FILE or a path; default: a new "
                        "network warm-started on the heuristic); with PPO its new value head is fitted to the "
                        "agent's own self-play first (the imitation_* settings; sb3 only)")
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser("train-all", help="fit every preset in turn within a budget; table and plot",
                              description="Train every preset (or --presets) for --minutes each, then write "
                                          "results.md, results.csv and learning_curves.png in --out.")
    p.add_argument("--presets", default="all", help="comma-separated preset names, or all (default all)")
    p.add_argument("--minutes", type=minutes_value, default=10.0,
                   help="wall-clock budget of each preset's run, its final evaluation included (default 10)")
    p.add_argument("--timesteps", type=timesteps_count, default=100_000_000,
                   help="cap on each preset's PPO learner decisions (default 100,000,000)")
    p.add_argument("--out", default="runs/all",
                   help="output folder: one subfolder per preset, results.md, results.csv, learning_curves.png "
                        "(default runs/all; one that holds files is refused unless --force)")
    p.add_argument("--force", action="store_true", help="write over the presets' folders in --out")
    p.add_argument("--seed", type=seed_value, default=0, help="seed of every preset's run (default 0)")
    p.add_argument("--final-deals", type=int_range(0, MAX_DEALS), default=1000,
                   help="duplicate deals of each final evaluation against greedy (default 1000)")
    p.add_argument("--final-heuristic-deals", type=int_range(0, MAX_DEALS), default=None,
                   help="deals of the final match against the heuristic (default: --final-deals)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="override a training setting for every preset (JSON value), e.g. imitation_epochs=4")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train_all)

    p = subparsers.add_parser("export-agent", help="convert a stable-baselines3 model zip to a safe agent file",
                              description="Write the policy of a MaskablePPO/PPO zip as an agent file (safetensors "
                                          "weights and JSON metadata: data, never code). The zip's pickled data is "
                                          "never loaded: the weights are read with torch.load(weights_only=True).")
    p.add_argument("model", help="the model zip (president train writes model.zip and checkpoints/step_N.zip)")
    p.add_argument("out", help="the agent file to write (by convention NAME.agent.safetensors)")
    p.add_argument("--preset", type=preset_name, default=None,
                   help="the rules, when the zip has no president.json (default: the zip's)")
    p.add_argument("--players", type=int, default=None, help="number of players with --preset")
    p.add_argument("--command", dest="train_command", default=None, metavar="CMD",
                   help="the command that trained the model, recorded in the file (zips that president train "
                        "writes carry it already; this names it for older ones or wins over theirs)")
    p.add_argument("--float16", action="store_true",
                   help="store the weights at half precision: half the file; the agent plays the rounded "
                        "network, so measure the file itself")
    p.set_defaults(func=cmd_export_agent)


def _settings(pairs: list[str]) -> dict[str, Any]:
    """``--set NAME=VALUE`` pairs: the value as JSON (finite numbers only), or as text when it is not JSON at all
    (``--set episode=session``); the settings table then checks each by type and range."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--set expects NAME=VALUE, got {pair!r}")
        name, value = pair.split("=", 1)
        try:
            out[name.strip()] = loads(value)
        except JSONSyntaxError:
            out[name.strip()] = value
        except JSONInputError as e:
            raise UsageError(f"--set {pair}: {e}") from None
    return out


def _train_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of ``--recipe`` (if any) with the ``--set`` overrides over them."""
    settings = {}
    if args.recipe is not None:
        from training.hyperparams import recipe_settings

        try:
            settings = recipe_settings(args.recipe)
        except ValueError as e:
            raise UsageError(f"--recipe: {e}") from None
    settings.update(_settings(args.set))
    return settings


def cmd_train(args: argparse.Namespace) -> int:
    for name in ("init", "resume", "out", "address"):    # '' would mean "none given" further on: say so now
        value = getattr(args, name, None)
        if value is not None and not str(value).strip():
            raise UsageError(f"--{name} is empty; give a value, or leave --{name} out")
    if args.method == "expert-iteration":
        return cmd_train_exit(args)
    if args.init is not None and args.backend != "sb3":
        raise UsageError("--init goes with --backend sb3 (or --method expert-iteration)")
    if args.recipe is not None and args.backend != "sb3":
        raise UsageError("--recipe goes with --backend sb3 (or --method expert-iteration); rllib takes --set")
    if args.timesteps is None:
        args.timesteps = DEFAULT_TIMESTEPS
    if args.backend == "rllib":
        return cmd_train_rllib(args)
    given = [f"--{n.replace('_', '-')}" for n, default in RLLIB_DEFAULTS.items() if getattr(args, n) != default]
    if given:
        raise UsageError(f"{', '.join(given)} go with --backend rllib")
    started = time.time()
    from training.run_dir import check_out

    try:
        check_out(args.out, args.resume, args.force)   # an earlier run's folder is refused at once, before torch loads
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not args.no_progress:   # at once: loading torch and stable-baselines3 takes seconds
        budget = f"{args.minutes:g} min in all" if args.minutes is not None else f"{args.timesteps:,} PPO decisions"
        print(f"president train: {args.preset}, {budget}, into {args.out}; loading torch and stable-baselines3 ...",
              file=sys.stderr, flush=True)
    from agents.sb3_policy import ModelError
    from training.train import TrainArgs, TrainingInterrupted, format_result, train

    targs = TrainArgs(preset=args.preset, players=args.players, timesteps=args.timesteps, out=args.out,
                      seed=args.seed, minutes=args.minutes, resume=args.resume, init=args.init,
                      eval_deals=args.eval_deals,
                      final_deals=args.final_deals, progress=not args.no_progress, settings=_train_settings(args),
                      checkpoint_every=args.checkpoint_every or CHECKPOINT_EVERY["sb3"], force=args.force)
    try:
        result = train(targs, started)
    except (FileNotFoundError, ModelError, RulesError, ValueError) as e:
        raise UsageError(str(e)) from None
    except TrainingInterrupted as e:
        return _interrupted(e, args, str(e.checkpoint))
    print(format_result(result))
    return 0


def _interrupted(e: KeyboardInterrupt, args: argparse.Namespace, checkpoint: str) -> int:
    """Ctrl-C after the run saved a checkpoint: say where, and how to go on (exit status 130)."""
    how = f"--resume {checkpoint} in place of --init {args.init}" if args.init else f"--resume {checkpoint}"
    print(f"{e}\ncontinue the run: the same command with {how}"
          + ("" if args.backend == "sb3" else " --trust-pickle"), file=sys.stderr)
    return 130


# options that expert iteration does not take, and why
EXIT_REFUSED = {
    "timesteps": "it counts iterations, --iterations N, or a budget, --minutes",
    "checkpoint_every": "every iteration is saved as a checkpoint",
    "eval_deals": "it evaluates at the end only, --final-deals",
}


def cmd_train_exit(args: argparse.Namespace) -> int:
    """``president train --method expert-iteration`` (see :mod:`training.expert_iteration`)."""
    if args.backend != "sb3":
        raise UsageError("--backend rllib runs PPO; --method expert-iteration runs in this process")
    refused = [f"--{n.replace('_', '-')}: {why}" for n, why in EXIT_REFUSED.items() if getattr(args, n) is not None]
    refused += [f"--{n.replace('_', '-')}: --backend rllib only" for n, default in RLLIB_DEFAULTS.items()
                if n != "iterations" and getattr(args, n) != default]
    if refused:
        raise UsageError(f"--method expert-iteration does not take {'; '.join(refused)}")
    if args.init and args.resume:
        raise UsageError("--init starts a run and --resume continues one: give one of them")
    started = time.time()
    from training.run_dir import check_out

    try:
        check_out(args.out, args.resume, args.force)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not args.no_progress:
        budget = f"{args.minutes:g} min in all" if args.minutes is not None else (
            f"{args.iterations} iteration(s)" if args.iterations else "the setting exit_iterations")
        print(f"president train --method expert-iteration: {args.preset}, {budget}, into {args.out}; loading torch "
              "...", file=sys.stderr, flush=True)
    from training.expert_iteration import ExitArgs, ExitInterrupted, format_result, train_exit

    targs = ExitArgs(preset=args.preset, players=args.players, out=args.out, seed=args.seed,
                     iterations=args.iterations, minutes=args.minutes, init=args.init, resume=args.resume,
                     final_deals=args.final_deals, force=args.force, progress=not args.no_progress,
                     settings=_train_settings(args))
    try:
        result = train_exit(targs, started)
    except (FileNotFoundError, RulesError, ValueError) as e:
        raise UsageError(str(e)) from None
    except ExitInterrupted as e:
        how = (f"continue the run: the same command{' without --init,' if args.init else ''} with --resume "
               f"{e.checkpoint}" if e.checkpoint else "nothing was saved: run the command again")
        print(f"{e}\n{how}", file=sys.stderr)
        return 130
    print(format_result(result))
    return 0


UNTRUSTED_RESUME = ("--resume {resume}: RLlib stores a checkpoint with pickle, and loading one can run code stored in "
                    "it; pass --trust-pickle if you trust where it came from (your own run's checkpoint)")


def cmd_train_rllib(args: argparse.Namespace) -> int:
    """``president train --backend rllib``: Ray missing or unreachable is a usage error naming the problem."""
    from training.ray_cluster import RayUnavailable, import_ray

    if args.eval_deals is not None:
        raise UsageError("--eval-deals goes with --backend sb3 (the rllib backend evaluates at the end: --final-deals)")
    if args.resume and not args.trust_pickle and (Path(args.resume) / "learner_group").is_dir():
        raise UsageError(UNTRUSTED_RESUME.format(resume=args.resume))   # before Ray starts
    try:
        import_ray()
        if not args.no_progress:   # at once: starting Ray, its actors and RLlib takes tens of seconds
            where = f"joining the Ray cluster at {args.address}" if args.address else "starting a local Ray"
            print(f"president train --backend rllib: {args.preset}, {args.env_runners} env runner(s), into "
                  f"{args.out}; {where} ...", file=sys.stderr, flush=True)
        from training.rllib_train import RllibInterrupted, RllibTrainArgs, format_result, train_rllib

        targs = RllibTrainArgs(preset=args.preset, players=args.players, timesteps=args.timesteps,
                               iterations=args.iterations, minutes=args.minutes, out=args.out, seed=args.seed,
                               env_runners=args.env_runners, address=args.address, policies=args.policies,
                               resume=args.resume, trust_pickle=args.trust_pickle, force=args.force,
                               checkpoint_every=args.checkpoint_every or CHECKPOINT_EVERY["rllib"],
                               final_deals=args.final_deals, progress=not args.no_progress,
                               settings=_rllib_settings(args))
        result = train_rllib(targs)
    except (RayUnavailable, RulesError, ValueError) as e:
        raise UsageError(str(e)) from None
    except RllibInterrupted as e:
        return _interrupted(e, args, str(e.checkpoint or f"{args.out}/checkpoints/iter_N"))
    print(format_result(result))
    return 0


def _rllib_settings(args: argparse.Namespace) -> dict[str, Any]:
    """``--set`` overrides with the rllib flags that name settings (``--envs-per-runner`` ..) added; a flag and a
    ``--set`` of the same setting with different values is refused."""
    settings = _settings(args.set)
    for name in RLLIB_SETTING_FLAGS:
        value = getattr(args, name)
        if value is None:
            continue
        if name in settings and settings[name] != value:
            raise UsageError(f"--{name.replace('_', '-')} {value:g} and --set {name}={settings[name]} disagree")
        settings[name] = value
    return settings


def cmd_export_agent(args: argparse.Namespace) -> int:
    from agents.agent_file import AgentFileError, export_sb3_zip
    from president_env.core import preset

    try:
        rules = None
        if args.preset is not None:
            rules = preset(args.preset, **({"players": args.players} if args.players else {}))
        path = export_sb3_zip(args.model, args.out, rules=rules, dtype="float16" if args.float16 else "float32",
                              made_by={"command": args.train_command} if args.train_command else None)
    except (AgentFileError, FileNotFoundError, RulesError) as e:
        raise UsageError(str(e)) from None
    print(f"wrote {path}")
    return 0


def cmd_train_all(args: argparse.Namespace) -> int:
    from training.train import TrainingInterrupted
    from training.train_all import TrainAllArgs, train_all

    try:
        names = PRESETS if args.presets == "all" else [preset_name(p.strip()) for p in args.presets.split(",")]
    except argparse.ArgumentTypeError as e:
        raise UsageError(f"--presets: {e}") from None
    targs = TrainAllArgs(presets=",".join(names), minutes=args.minutes, timesteps=args.timesteps, out=args.out,
                         seed=args.seed, final_deals=args.final_deals,
                         final_heuristic_deals=args.final_heuristic_deals, progress=not args.no_progress,
                         settings=_settings(args.set), force=args.force)
    try:
        train_all(targs)
    except (RulesError, ValueError) as e:
        raise UsageError(str(e)) from None
    except TrainingInterrupted as e:   # the preset in training saved a checkpoint; the finished ones are in --out
        print(f"{e}\nthe presets trained before it are in {args.out}", file=sys.stderr)
        return 130
    print(open(f"{args.out}/results.md").read())
    return 0
