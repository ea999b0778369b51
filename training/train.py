"""Fit a MaskablePPO agent to one variant, with self-play, and evaluate it against the baselines.

    president train --preset president --timesteps 5000000 --out runs/president [--minutes 30]

Reads top to bottom: build the rules and the settings (``training.hyperparams``),
the opponent pool (scripted baselines + snapshots of the learner), the batched
VecEnv, the model (new, started from an agent file's policy with ``--init``, or resumed
from a checkpoint); with ``--minutes``, plan the phases within it (:mod:`training.budget`);
warm-start a new model by imitating the heuristic (:mod:`training.imitation`), or with
``--init`` fit its new value head to the init agent's own self-play; learn with one callback
that takes snapshots, evaluates, saves checkpoints and keeps the time budget (the
learner in ``learner_seats`` seats of every game, :mod:`training.seat_rollout`, or
with one seat SB3's own loop over the VecEnv); save the final model with its rules
and evaluate it.

Outputs in ``--out``: ``model.agent.safetensors`` (the agent file: weights and JSON,
safe to share, see :mod:`agents.agent_file`; ``ppo:FILE`` loads it), ``model.zip`` (the
SB3 model with the rules in ``president.json``, for ``--resume``; see
:mod:`agents.sb3_policy`), ``checkpoints/step_N.zip`` and
``checkpoints/step_N.agent.safetensors``, ``eval.csv`` (the learning
curve: points per hand against each baseline over training), ``final.json``
(the final evaluation) and ``tb/`` (TensorBoard logs).

A run never writes into a folder that holds files unless it resumes one (``--resume``) or is
told to (``--force``): :mod:`training.run_dir`. Checkpoints are saved every
``checkpoint_every`` learner steps and when the run is interrupted (Ctrl-C), each written to a
temporary file and renamed, so a run stopped at any moment leaves a checkpoint to resume.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import pickle
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from agents.agent_file import FileAgent, code_version, refusal_words, sb3_layers, write_agent_file
from agents.sb3_policy import ModelError, check_rules, read_metadata, save_model
from president_env.core import Rules
from president_env.core.jsonio import JSONInputError, loads
from president_env.core.observation import size as observation_size
from president_env.small_variants import variant_rules
from training.budget import EvalCost, Plan, make_plan, measure_eval_cost
from training.evaluate import Matchup, matchup
from training.hyperparams import TrainSettings, learner_seats, settings_for
from training.imitation import collect, pretrain
from training.init_network import ACTIVATION_FNS, architecture, load_policy_layers, read_init_agent
from training.legal_dist import use_legal_distribution
from training.opponent_pool import OpponentPool, PolicyAgent
from training.privileged import SETTING as PRIVILEGED
from training.privileged import PrivilegedCriticPolicy, PrivilegedVecEnv
from training.run_dir import prepare_out
from training.seat_rollout import SeatRollouts, learn_by_seats
from training.vec_env import PresidentVecEnv

BASELINES = ("heuristic", "greedy")
SB3_ACTIVATION = "tanh"     # MlpPolicy's default activation: a run with it stores no pickled policy settings
MAX_DATA_BYTES = 64 << 20   # the data member of a checkpoint zip (SB3's JSON), read only up to this size
CURVE_FIELDS = ("timesteps", "seconds", "opponent", "deals", "learner_points", "opponent_points", "diff",
                "diff_low", "diff_high")


@dataclass
class TrainArgs:
    """Arguments of ``president train`` (every field is a command-line flag)."""

    preset: str = "president"
    players: int | None = None
    timesteps: int = 5_000_000          # total learner decisions (a resumed run counts what it had)
    out: str = "runs/president"
    seed: int = 0
    minutes: float | None = None        # the whole run's wall-clock budget (training.budget); or timesteps first
    resume: str | None = None           # a checkpoint (or model) zip to continue from
    init: str | None = None             # an agent file whose policy the new network starts from (zoo:NAME, a path)
    eval_deals: int | None = None       # duplicate deals per evaluation during training
    final_deals: int = 1000             # duplicate deals of the final evaluation (0: none)
    final_heuristic_deals: int | None = None  # deals of the final match against the heuristic (default final_deals)
    checkpoint_every: int = 1_000_000   # learner steps between checkpoints (and one on Ctrl-C)
    force: bool = False                 # write into a non-empty ``out`` that this run does not resume
    progress: bool = True
    threads: int = 1                    # torch threads (1 is fastest for small batches on 2 cores)
    settings: dict[str, Any] = field(default_factory=dict)  # overrides of TrainSettings

    def command(self) -> str:
        """The ``president train`` command line that makes this run (written into the agent file)."""
        parts = ["president train", f"--preset {self.preset}", f"--timesteps {self.timesteps}", f"--out {self.out}",
                 f"--seed {self.seed}"]
        if self.players:
            parts.append(f"--players {self.players}")
        if self.minutes is not None:
            parts.append(f"--minutes {self.minutes:g}")
        if self.resume:
            parts.append(f"--resume {self.resume}")
        if self.init:
            parts.append(f"--init {self.init}")
        parts += [f"--set {k}={json.dumps(v, separators=(',', ':'))}" for k, v in sorted(self.settings.items())]
        return " ".join(parts)


def made_by(rules: Rules, args: TrainArgs, timesteps: int) -> dict[str, Any]:
    """How a model was made, written into its agent file and its zip (so an export keeps it)."""
    return {"preset": rules.name, "command": args.command(), "seed": args.seed, "timesteps": int(timesteps),
            "code_version": code_version()}


def save_both(model: Any, path: Path, rules: Rules, made: dict[str, Any], **extra: Any) -> tuple[Path, Path]:
    """``path``.zip (the SB3 model, for ``--resume``) and ``path``.agent.safetensors (the policy as an agent
    file, weights-only: :mod:`agents.agent_file`), both saying how the model was made."""
    activation = model.policy.activation_fn.__name__.lower()
    layers = sb3_layers(model.policy.state_dict())
    net_arch = [int(w.shape[0]) for w, _ in layers[:-1]]
    zip_path = save_model(model, path, rules, **made, **extra, activation=activation, net_arch=net_arch)
    agent_path = write_agent_file(path.with_name(path.name + ".agent.safetensors"), rules, layers,
                                  activation=activation, made_by=made)
    return zip_path, agent_path


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after the model was saved as a checkpoint (``checkpoint``, ``agent``)."""

    def __init__(self, checkpoint: Path, agent: Path, timesteps: int, warm_unfinished: bool = False) -> None:
        where = "during the warm start (resuming it runs the warm start again, then PPO)" if warm_unfinished \
            else f"at {timesteps:,} learner steps"
        super().__init__(f"interrupted {where}: saved {checkpoint} and {agent}")
        self.checkpoint, self.agent, self.timesteps = checkpoint, agent, timesteps
        self.warm_unfinished = warm_unfinished


@dataclass
class WarmStart:
    """Whether the run's warm start is still to finish, and the ``--init`` agent file it fits to (if any): a
    checkpoint saved before it finished says so, and its resume runs the warm start again."""

    unfinished: bool = False
    init: str | None = None


def save_checkpoint(model: Any, out: Path, rules: Rules, args: TrainArgs,
                    warm: WarmStart | None = None) -> tuple[Path, Path]:
    """``checkpoints/step_N.zip`` and its agent file, at the model's step count (a warm start still to finish is
    written in the zip's president.json: ``warm_start: "unfinished"`` and its ``init`` file)."""
    n = int(model.num_timesteps)
    extra: dict[str, Any] = {}
    if warm is not None and warm.unfinished:
        extra = {"warm_start": "unfinished", "warm_start_init": warm.init}
    return save_both(model, out / "checkpoints" / f"step_{n}", rules, made_by(rules, args, n), **extra)


def _warm_start_of(args: TrainArgs, s: TrainSettings) -> WarmStart:
    """The warm start this run still owes: a new run's (with imitation), or the one a resumed checkpoint was
    saved in the middle of."""
    if not args.resume:
        return WarmStart(unfinished=bool(s.imitation_decisions), init=args.init)
    meta = read_metadata(args.resume) or {}
    init = meta.get("warm_start_init")
    if meta.get("warm_start") == "unfinished" and s.imitation_decisions:
        return WarmStart(unfinished=True, init=init if isinstance(init, str) and init else None)
    return WarmStart()


@dataclass
class TrainResult:
    model_path: Path
    agent_path: Path
    curve_path: Path
    timesteps: int
    seconds: float
    final: list[Matchup]

    def to_dict(self) -> dict[str, Any]:
        return {"model_path": str(self.model_path), "agent_path": str(self.agent_path),
                "curve_path": str(self.curve_path), "timesteps": self.timesteps,
                "seconds": self.seconds, "final": [m.to_dict() for m in self.final]}


class TrainingMonitor(BaseCallback):
    """Snapshots into the pool, evaluations into eval.csv and TensorBoard, checkpoints, the time budget.

    With a ``plan`` PPO stops at its end: a step (a rollout with its update, on the several-seat
    path) is not begun when the last one took longer than the time left, and an evaluation is
    skipped when it would not fit."""

    def __init__(self, rules: Rules, pool: OpponentPool, s: TrainSettings, args: TrainArgs, out: Path,
                 started: float, plan: Plan | None = None, eval_cost: EvalCost | None = None) -> None:
        super().__init__()
        self.rules, self.pool, self.s, self.args, self.out, self.started = rules, pool, s, args, out, started
        self.plan, self.eval_cost = plan, eval_cost
        self.curve_path = out / "eval.csv"
        self._last_step = time.time()

    def _on_training_start(self) -> None:
        n = self.num_timesteps
        self.next_snapshot = n + self.s.snapshot_every
        self.next_eval = n + self.s.eval_every
        self.next_checkpoint = n + self.args.checkpoint_every
        if not self.curve_path.exists():
            with self.curve_path.open("w", newline="") as f:
                csv.writer(f).writerow(CURVE_FIELDS)

    def _on_step(self) -> bool:
        n = self.num_timesteps
        if n >= self.next_snapshot:
            self.pool.add_snapshot(self.model.policy, str(n))
            self.next_snapshot += self.s.snapshot_every
        if n >= self.next_eval:
            if self._fits(2 * self.eval_cost.estimate(self.args.eval_deals or self.s.eval_deals)
                          if self.eval_cost else 0.0):
                self.evaluate()
            self.next_eval += self.s.eval_every
        if n >= self.next_checkpoint:
            save_checkpoint(self.model, self.out, self.rules, self.args)
            self.next_checkpoint += self.args.checkpoint_every
        now = time.time()
        gap, self._last_step = now - self._last_step, now
        return self._fits(gap)

    def _fits(self, seconds: float) -> bool:
        """Whether ``seconds`` of work fit before PPO's end (always without a plan)."""
        return self.plan is None or time.time() + seconds <= self.plan.ppo_end

    def evaluate(self) -> list[Matchup]:
        deals = self.args.eval_deals or self.s.eval_deals
        learner = PolicyAgent(self.rules, self.model.policy, "learner", deterministic=True, frozen=False)
        results = [matchup(self.rules, learner, b, deals, seed=self.args.seed + 1, progress=self.args.progress,
                           desc=f"evaluating vs {b}") for b in BASELINES]
        self.model.policy.set_training_mode(False)
        with self.curve_path.open("a", newline="") as f:
            w = csv.writer(f)
            for m in results:
                w.writerow([self.num_timesteps, round(time.time() - self.started, 1), m.opponent, m.deals,
                            m.learner_points, m.opponent_points, m.diff, m.diff_low, m.diff_high])
                self.logger.record(f"eval/diff_vs_{m.opponent}", m.diff)
                self.logger.record(f"eval/points_vs_{m.opponent}", m.learner_points)
        return results


def _unpickled_stand_ins(path: str, venv: PresidentVecEnv, s: TrainSettings) -> dict[str, Any]:
    """Objects that replace every pickled entry of a checkpoint's ``data``, so resuming unpickles nothing.

    stable-baselines3 stores these few entries with cloudpickle; we rebuild each from the
    environment and the settings (tensors come through ``torch.load(weights_only=True)``). A
    checkpoint with any other pickled entry is refused."""
    import zipfile

    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.utils import FloatSchedule

    stand_ins = {
        "policy_class": MaskableActorCriticPolicy,
        "observation_space": venv.observation_space,
        "action_space": venv.action_space,
        "rollout_buffer_class": MaskableRolloutBuffer,
        "clip_range": FloatSchedule(s.clip_range),
        "lr_schedule": FloatSchedule(s.learning_rate),
        # the rollout state: learn() starts afresh from None (a new reset, new episode buffers)
        "_last_obs": None, "_last_episode_starts": None, "_last_original_obs": None,
        "ep_info_buffer": None, "ep_success_buffer": None,
    }
    try:
        with zipfile.ZipFile(path) as zf:
            if zf.getinfo("data").file_size > MAX_DATA_BYTES:
                raise ModelError(f"{path}: its data member is larger than {MAX_DATA_BYTES} bytes: not a checkpoint "
                                 "of president train")
            data = loads(zf.read("data"))
    except (zipfile.BadZipFile, KeyError, JSONInputError) as e:
        raise ModelError(f"{path}: not a readable checkpoint ({e})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: not a readable checkpoint (its data is not a JSON object)")
    pickled = sorted(k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v)
    if "policy_kwargs" in pickled:   # an activation other than SB3's default (a run started with --init)
        stand_ins["policy_kwargs"] = _policy_kwargs(path)
    unknown = [k for k in pickled if k not in stand_ins]
    if unknown:
        raise ModelError(f"{path}: its data holds pickled entries {unknown} that resuming does not rebuild; "
                         "refused (loading them could run code from the file)")
    return {k: stand_ins[k] for k in pickled}


def _policy_kwargs(path: str) -> dict[str, Any]:
    """The policy's settings of a checkpoint whose activation SB3 pickled, rebuilt from its ``president.json``
    (``activation`` and ``net_arch``, which :func:`save_both` writes)."""
    meta = read_metadata(path) or {}
    activation, net_arch = meta.get("activation"), meta.get("net_arch")
    if activation not in ACTIVATION_FNS or not (isinstance(net_arch, list) and net_arch and all(
            isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 4096 for n in net_arch)):
        raise ModelError(f"{path}: its policy settings are pickled and its president.json does not give the "
                         f"activation ({' or '.join(ACTIVATION_FNS)}) and net_arch (sizes 1..4096) to rebuild them "
                         "from; refused (loading them could run code from the file)")
    return {"net_arch": net_arch, "activation_fn": ACTIVATION_FNS[activation]}


def build_model(rules: Rules, s: TrainSettings, venv: PresidentVecEnv, args: TrainArgs, out: Path,
                init: FileAgent | None = None) -> MaskablePPO:
    """A new MaskablePPO (with ``init``: its policy layers the agent file's, its value head new), or the one in
    ``args.resume`` after checking it was trained for ``rules``."""
    if args.resume:
        meta = read_metadata(args.resume)
        if meta is None:
            raise ModelError(f"{args.resume}: no president.json in the zip: not a checkpoint of `president train`")
        check_rules(args.resume, meta, rules)
        stand_ins = _unpickled_stand_ins(args.resume, venv, s)
        try:
            model = MaskablePPO.load(args.resume, env=venv, device="cpu", tensorboard_log=str(out / "tb"),
                                     custom_objects=stand_ins)
            use_legal_distribution(model.policy)
            return model
        except pickle.UnpicklingError as e:     # torch's reader of weights found more than tensors
            raise ModelError(f"--resume {args.resume}: its weights hold more than tensors, refused: reading them "
                             f"would run code from the file ({refusal_words(e)})") from None
        except Exception as e:  # noqa: BLE001 - any other way the zip is not a checkpoint of a run
            raise ModelError(f"--resume {args.resume}: not a checkpoint of president train that resumes "
                             f"({refusal_words(e)})") from None
    policy_kwargs: dict[str, Any] = {"net_arch": list(s.net_arch)}   # the file's, with init (see train())
    if init is not None and architecture(init)[1] != SB3_ACTIVATION:   # a class: SB3 pickles it, --resume rebuilds
        policy_kwargs["activation_fn"] = ACTIVATION_FNS[architecture(init)[1]]
    policy: Any = "MlpPolicy"
    if s.privileged_critic:     # the actor reads the observation's columns, the critic the other hands too
        policy, policy_kwargs["actor_dim"] = PrivilegedCriticPolicy, observation_size(rules)
    model = MaskablePPO(
        policy, venv, n_steps=s.n_steps, batch_size=s.batch_size, n_epochs=s.n_epochs,
        learning_rate=s.learning_rate, gamma=s.gamma, gae_lambda=s.gae_lambda, clip_range=s.clip_range,
        ent_coef=s.ent_coef, vf_coef=s.vf_coef, policy_kwargs=policy_kwargs,
        tensorboard_log=str(out / "tb"), seed=args.seed, device="cpu", verbose=0,
    )
    if init is not None:
        load_policy_layers(model.policy, init)
    use_legal_distribution(model.policy)     # the masked categorical on the legal ids only: the same, faster
    return model


def _init_agent(rules: Rules, args: TrainArgs) -> FileAgent | None:
    """The agent file of ``--init``, read and checked before any work (its network's shape is the run's: a
    different ``net_arch`` setting is refused)."""
    if args.init is None:
        return None
    if not args.init.strip():
        raise ValueError("--init is empty: give an agent file (a path or zoo:NAME), or leave it out for a new network")
    if args.resume:
        raise ValueError("--init starts a run and --resume continues one: give one of them")
    agent = read_init_agent(rules, args.init)
    hidden, _ = architecture(agent)
    given = args.settings.get("net_arch")
    if given is not None and list(given) != hidden:
        raise ValueError(f"--init {args.init}: its network is {hidden}, the setting net_arch={list(given)}; the run "
                         "starts from the file's network (leave net_arch out)")
    return agent


def _plan(rules: Rules, s: TrainSettings, args: TrainArgs, model: MaskablePPO,
          started: float) -> tuple[Plan | None, EvalCost | None]:
    """With ``--minutes``: the final evaluation timed on this machine, and the deadlines of the phases."""
    if args.minutes is None:
        return None, None
    deals = final_deals(args)
    most = max([*deals.values(), args.eval_deals or s.eval_deals if s.eval_every < args.timesteps else 0])
    learner = PolicyAgent(rules, model.policy, "learner", deterministic=True, frozen=False)
    cost = measure_eval_cost(rules, learner, BASELINES[0], most, seed=args.seed + 3, progress=args.progress) \
        if most else None
    plan = make_plan(started, args.minutes, time.time(), cost, deals, s.imitation_share, s.imitation_collect_share)
    _say(args, plan.describe())
    return plan, cost


def final_deals(args: TrainArgs) -> dict[str, int]:
    """The final evaluation's deals against each baseline."""
    if not args.final_deals:
        return {}
    return {"heuristic": args.final_heuristic_deals or args.final_deals, "greedy": args.final_deals}


def _say(args: TrainArgs, line: str) -> None:
    """A line about the run on standard error, between the progress bars (only with progress on)."""
    if args.progress:
        tqdm.write(line, file=sys.stderr)


def _warm_start(model: MaskablePPO, rules: Rules, s: TrainSettings, args: TrainArgs, out: Path, started: float,
                plan: Plan | None, init: FileAgent | None = None, init_name: str | None = None) -> None:
    """Fit the new policy to the teacher's self-play (both parts stop at the plan's deadlines); with ``init``
    (the file ``init_name``) the teacher is the init agent itself and only the value head is fitted (its policy
    is the file's)."""
    teacher: str | FileAgent = init if init is not None else s.imitation_teacher
    name = (init_name or args.init) if init is not None else s.imitation_teacher
    demos = collect(rules, teacher, s.imitation_decisions, s.gamma, seed=args.seed,
                    batch_size=s.imitation_games, deadline=plan.collect_end if plan else None, progress=args.progress,
                    privileged=s.privileged_critic)
    stats = pretrain(model.policy, demos, s.imitation_epochs, batch_size=s.imitation_batch, seed=args.seed,
                     deadline=plan.warm_end if plan else None, progress=args.progress, policy_too=init is None)
    info = stats | {"teacher": name, "fitted": "value" if init is not None else "policy and value",
                    "decisions": len(demos.actions), "collect_timed_out": demos.timed_out,
                    "seconds": round(time.time() - started, 1)}
    if not len(demos.actions):     # said even without progress: the run goes on from a fresh network
        start = "its value head new" if init is not None else "a fresh network"
        info["warning"] = (f"the warm start imitated nothing: {name}'s self-play finished no hand in "
                           f"the warm start's time ({info['seconds']:g} s from the start); PPO starts from {start}. "
                           "Give more --minutes, a larger imitation_share, a smaller imitation_games or a "
                           "faster teacher")
        print(f"president train: warning: {info['warning']}", file=sys.stderr)
    (out / "imitation.json").write_text(json.dumps(info))
    cut = " (cut by the time budget)" if demos.timed_out or stats["timed_out"] else ""
    what = "its value fitted" if init is not None else f"{stats.get('accuracy', 0):.1%} of its moves imitated"
    _say(args, f"warm start: {len(demos.actions):,} {name} decisions, {stats['epochs']:g} epoch(s), {what}{cut}")


def train(args: TrainArgs, started: float | None = None) -> TrainResult:
    """Train, save and evaluate one model (see the module docstring); ``started`` (a ``time.time()``, default
    now) is when the run's budget began. Ctrl-C saves a checkpoint and raises :class:`TrainingInterrupted`
    naming it."""
    started = started or time.time()
    torch.set_num_threads(args.threads)
    rules = variant_rules(args.preset, **({"players": args.players} if args.players else {}))
    s = settings_for(rules.name, **args.settings)
    seats = learner_seats(s, rules.players)  # checked before any work
    init = _init_agent(rules, args)
    if init is not None:                     # the network is the file's: its shape is the run's setting
        s = dataclasses.replace(s, net_arch=tuple(architecture(init)[0]))
    if args.resume and not Path(args.resume).is_file():
        raise ModelError(f"--resume {args.resume}: no such file (give the model.zip or a checkpoints/step_N.zip "
                         "of a run)")
    if s.privileged_critic and args.resume:
        raise ValueError(f"--resume with the setting {PRIVILEGED}=true is not supported: a checkpoint's policy "
                         f"class is not rebuilt (start a new run, or leave {PRIVILEGED} out)")
    if not 1 <= args.checkpoint_every:
        raise ValueError(f"checkpoint_every must be 1 or more learner steps, got {args.checkpoint_every}")
    out = prepare_out(args.out, args.resume, args.force)
    (out / "args.json").write_text(json.dumps({"args": asdict(args), "settings": asdict(s),
                                               "rules": rules.to_dict()}, indent=1, default=str))

    pool = OpponentPool(rules, s.pool, max_snapshots=s.max_snapshots)
    env_class = PrivilegedVecEnv if s.privileged_critic else PresidentVecEnv   # observations [obs, the others' hands]
    venv = env_class(s.n_envs, rules, opponents=pool, episode=s.episode, start_ranks=s.start_ranks,
                     reward=s.reward, seed=args.seed)
    model = build_model(rules, s, venv, args, out, init)
    warm = _warm_start_of(args, s)
    if args.resume and warm.unfinished and warm.init:      # the value head's fit goes on from the same file
        init = read_init_agent(rules, warm.init)
    try:
        monitor, plan = _learn(model, rules, s, seats, venv, pool, args, out, started, init, warm)
        model_path, agent_path = save_both(model, out / "model", rules,
                                           made_by(rules, args, int(model.num_timesteps)),
                                           seconds=round(time.time() - started, 1))
    except KeyboardInterrupt:
        checkpoint, agent = save_checkpoint(model, out, rules, args, warm)
        venv.close()
        raise TrainingInterrupted(checkpoint, agent, int(model.num_timesteps), warm.unfinished) from None

    final: list[Matchup] = []
    deals = plan.final_deals if plan else final_deals(args)
    if deals:
        learner = PolicyAgent(rules, model.policy, "learner", deterministic=True, frozen=False)
        final = [matchup(rules, learner, b, deals[b], seed=args.seed + 2, progress=args.progress,
                         desc=f"final evaluation vs {b}") for b in BASELINES if deals.get(b)]
    result = TrainResult(model_path, agent_path, monitor.curve_path, int(model.num_timesteps),
                         time.time() - started, final)
    (out / "final.json").write_text(json.dumps(result.to_dict(), indent=1))
    venv.close()
    return result


def _learn(model: MaskablePPO, rules: Rules, s: TrainSettings, seats: int, venv: PresidentVecEnv,
           pool: OpponentPool, args: TrainArgs, out: Path, started: float,
           init: FileAgent | None = None, warm: WarmStart | None = None) -> tuple[TrainingMonitor, Plan | None]:
    """With ``--minutes`` the plan of the phases; the warm start (a new model, or a checkpoint saved before its
    warm start finished; with ``init`` its value head alone) and PPO up to ``args.timesteps`` learner steps or
    the plan's end of PPO."""
    warm = warm or WarmStart()
    plan, cost = _plan(rules, s, args, model, started)
    if warm.unfinished:
        if args.resume:
            _say(args, f"{args.resume} was saved during its warm start: the warm start runs again")
        _warm_start(model, rules, s, args, out, started, plan, init, warm.init)
        warm.unfinished = False
        pool.add_snapshot(model.policy, "init" if init is not None else "imitation")
    elif args.resume:
        pool.add_snapshot(model.policy, f"resumed@{model.num_timesteps}")
    elif init is not None:
        pool.add_snapshot(model.policy, "init")

    monitor = TrainingMonitor(rules, pool, s, args, out, started, plan, cost)
    remaining = max(0, args.timesteps - model.num_timesteps)
    if remaining and seats > 1:
        rollouts = SeatRollouts(venv.rules, s.n_envs, pool, seats, s.start_ranks, s.reward, seed=args.seed,
                                privileged=s.privileged_critic)
        learn_by_seats(model, rollouts, remaining, monitor, s.n_envs * s.n_steps, reset_num_timesteps=not args.resume,
                       progress=args.progress, deadline=plan.ppo_end if plan else None)
    elif remaining:
        # with a time budget, the bar says the time left to the budget, not SB3's estimate to --timesteps
        bar = DeadlineBar(plan.ppo_end) if plan and args.progress else None
        model.learn(total_timesteps=remaining, callback=[monitor, bar] if bar else monitor,
                    progress_bar=args.progress and bar is None, reset_num_timesteps=not args.resume,
                    tb_log_name="ppo")
    return monitor, plan


class DeadlineBar(BaseCallback):
    """PPO's bar on SB3's own loop under ``--minutes``: learner decisions so far and the time left to ``deadline``
    (a ``time.time()``), as the several-seat loop shows them; SB3's bar would estimate the time to ``--timesteps``
    (5,000,000 by default), far past the budget."""

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline
        self.bar: Any = None

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=None, unit="decision", desc="PPO: learner decisions", leave=False)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        if self.n_calls % 16 == 0:
            left = max(0, round(self.deadline - time.time()))
            self.bar.set_postfix_str(f"{left // 60}:{left % 60:02d} left", refresh=True)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def format_result(result: TrainResult) -> str:
    """The final evaluation as a small table."""
    return (f"agent: {result.agent_path}  ({result.timesteps:,} steps, {result.seconds / 60:.1f} min; "
            f"SB3 model for --resume: {result.model_path})\n" + matchup_table(result.final))


def matchup_table(final: list[Matchup]) -> str:
    """The matches against the baselines as a table (a row per baseline)."""
    from tabulate import tabulate

    rows = [[m.opponent, m.deals, f"{m.learner_points:+.3f}", f"{m.opponent_points:+.3f}",
             f"{m.diff:+.3f} [{m.diff_low:+.3f}, {m.diff_high:+.3f}]", "yes" if m.wins else "no"] for m in final]
    head = ["opponents", "deals", "learner pts/hand", "opponents pts/hand",
            "difference [95% CI]", "beats"]
    return tabulate(rows, headers=head)
