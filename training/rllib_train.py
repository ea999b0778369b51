"""Multi-agent PPO on Ray RLlib (its current API stack): every seat a learning policy.

    president train --backend rllib --preset president --env-runners 2 [--address HOST:PORT] --out runs/rl

Reads top to bottom: connect to Ray (local mode without ``--address``, see
:mod:`training.ray_cluster`); build a ``PPOConfig`` with one
:class:`~training.rllib_module.MaskedMLPModule` shared by every player (``policies="shared"``,
the default: env runners that step ``envs_per_runner`` games as arrays on the batched core,
:mod:`training.rllib_runner`) or one per player (``policies="per-seat"``: RLlib's multi-agent
runner over the AEC env, :mod:`training.rllib_env`, one game at a time, slower); train
iteration by iteration until ``timesteps`` decisions, ``iterations`` or ``minutes``;
checkpoint (RLlib's checkpoint folder, to resume, and an agent file) every
``checkpoint_every`` iterations; export the policy to an agent file (safetensors + JSON,
:mod:`agents.agent_file`: the same network, run in NumPy, nothing pickled) and evaluate it
against the baselines like ``president train`` does.

The same command runs on a cluster: EnvRunner actors (``--env-runners N``, each stepping
``--envs-per-runner`` games) sample wherever the cluster has CPUs; the update runs in this
process, or in ``--learners K`` Learner actors (``--gpus-per-learner G`` each); only the
address differs. See ``docs/ray.md``.

Outputs in ``--out``: ``model.agent.safetensors`` (``ppo:FILE`` plays it; with
``per-seat`` policies player 0's, and ``model.player_K.agent.safetensors`` for each),
``checkpoint/`` (RLlib's, for ``--resume``), ``checkpoints/iter_N/`` and
``checkpoints/iter_N.agent.safetensors``, ``progress.csv`` (per iteration: decisions,
seconds, mean episode return), ``args.json`` and ``final.json``.

RLlib stores its checkpoints with pickle: ``resume`` loads one only with ``trust_pickle``
(``--trust-pickle``). Like ``president train``, a run refuses an ``out`` that holds files
unless it resumes or is forced (:mod:`training.run_dir`), and Ctrl-C saves a checkpoint and
the agent file before it stops (:class:`RllibInterrupted`).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.agent_file import ACTIVATIONS, code_version, write_agent_file
from president_env.aec_env import EPISODES, REWARD_SCHEMES
from president_env.core import Rules, preset
from training.evaluate import Matchup, matchup
from training.ray_cluster import cluster_cpus, connect
from training.run_dir import check_out, prepare_out
from training.settings_check import Setting, check_overrides

BASELINES = ("heuristic", "greedy")
POLICIES = ("shared", "per-seat")
PROGRESS_FIELDS = ("iteration", "decisions", "seconds", "episodes", "entropy", "policy_loss", "vf_loss")


@dataclass(frozen=True)
class RllibSettings:
    """PPO and rollout settings of the RLlib path (``--set NAME=VALUE`` overrides any of them)."""

    hidden: tuple[int, ...] = (256, 256)   # the policy's (and the critic's) hidden layers
    activation: str = "tanh"
    lr: float = 3e-4
    gamma: float = 0.99
    lambda_: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    train_batch: int = 4096                # decisions per PPO iteration (train_batch_size_per_learner)
    minibatch: int = 512
    epochs: int = 4
    envs_per_runner: int = 64              # games each EnvRunner steps together (num_envs_per_env_runner)
    learners: int = 0                      # remote Learner actors sharing the update (0: in this process)
    gpus_per_learner: float = 0.0          # GPUs of each Learner (of this process's learner with learners=0)
    episode: str = "hand"                  # one hand per episode ...
    start_ranks: str | None = "random"     # ... from random ranks, so every hand has an exchange
    reward: str = "points"


#: What each setting takes (``--set NAME=VALUE`` is checked against it).
SPECS: dict[str, Setting] = {
    "hidden": Setting("ints", 1, 4096),
    "activation": Setting("str", choices=tuple(ACTIVATIONS)),
    "lr": Setting("float", 1e-12, 1.0),
    "gamma": Setting("float", 0.0, 1.0),
    "lambda_": Setting("float", 0.0, 1.0),
    "clip_param": Setting("float", 1e-6, 10.0),
    "entropy_coeff": Setting("float", 0.0, 10.0),
    "vf_loss_coeff": Setting("float", 0.0, 10.0),
    "train_batch": Setting("int", 1, 10_000_000),
    "minibatch": Setting("int", 1, 10_000_000),
    "epochs": Setting("int", 1, 1000),
    "envs_per_runner": Setting("int", 1, 4096),
    "learners": Setting("int", 0, 1024),
    "gpus_per_learner": Setting("float", 0.0, 64.0),
    "episode": Setting("str", choices=EPISODES),
    "start_ranks": Setting("str", choices=("random", None)),
    "reward": Setting("str", choices=REWARD_SCHEMES),
}


def rllib_settings(**overrides: Any) -> RllibSettings:
    """The defaults with ``overrides``, checked against :data:`SPECS` (an unknown name, a wrong type or a value
    out of range raises ``ValueError`` naming it)."""
    return dataclasses.replace(RllibSettings(), **check_overrides("RLlib", SPECS, overrides))


@dataclass
class RllibTrainArgs:
    """Arguments of ``president train --backend rllib`` (every field is a command-line flag)."""

    preset: str = "president"
    players: int | None = None
    timesteps: int = 1_000_000          # decisions of all seats together (one env step is one decision)
    iterations: int | None = None       # stop after this many PPO iterations (whichever comes first)
    minutes: float | None = None        # wall-clock budget
    out: str = "runs/rllib"
    seed: int = 0
    env_runners: int = 1                # remote EnvRunner actors (0: sample in this process)
    address: str | None = None          # a Ray cluster (HOST:PORT, auto, ray://..); None: local mode
    num_cpus: int | None = None         # CPUs of the local Ray instance (default: this machine's, or env_runners)
    policies: str = "shared"            # shared: one policy for every seat; per-seat: one per player
    resume: str | None = None           # an RLlib checkpoint folder of the same run settings
    trust_pickle: bool = False          # resume loads RLlib's pickled checkpoint only with this
    force: bool = False                 # write into a non-empty ``out`` that this run does not resume
    checkpoint_every: int = 10          # iterations between checkpoints (0: only the last, and on Ctrl-C)
    final_deals: int = 1000             # duplicate deals of the final evaluation (0: none)
    progress: bool = True
    threads: int = 1                    # torch threads of the learner
    settings: dict[str, Any] = field(default_factory=dict)

    def command(self) -> str:
        """The command line that makes this run (written into the agent file)."""
        parts = ["president train --backend rllib", f"--preset {self.preset}", f"--timesteps {self.timesteps}",
                 f"--env-runners {self.env_runners}", f"--out {self.out}", f"--seed {self.seed}"]
        for flag, value in (("--players", self.players), ("--iterations", self.iterations),
                            ("--minutes", self.minutes), ("--address", self.address)):
            if value is not None:
                parts.append(f"{flag} {value:g}" if isinstance(value, float) else f"{flag} {value}")
        if self.policies != "shared":
            parts.append(f"--policies {self.policies}")
        parts += [f"--set {k}={json.dumps(v, separators=(',', ':'))}" for k, v in sorted(self.settings.items())]
        return " ".join(parts)


class RllibInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after the algorithm was saved (``checkpoint``) and exported (``agent``)."""

    def __init__(self, checkpoint: Path | None, agent: Path, iteration: int, why: str = "") -> None:
        saved = f"{checkpoint} and {agent}" if checkpoint else f"{agent} ({why}; resume from an earlier checkpoint)"
        super().__init__(f"interrupted after iteration {iteration}: saved {saved}")
        self.checkpoint, self.agent, self.iteration = checkpoint, agent, iteration


@dataclass
class RllibTrainResult:
    """What a run produced: the agent file(s), RLlib's checkpoint, the counts and the final evaluation."""

    agent_path: Path
    checkpoint_path: Path
    timesteps: int
    iterations: int
    seconds: float
    final: list[Matchup]
    seat_agents: list[Path] = field(default_factory=list)
    runner_nodes: list[str] = field(default_factory=list)   # the Ray node id of each env runner

    def to_dict(self) -> dict[str, Any]:
        return {"agent_path": str(self.agent_path), "checkpoint_path": str(self.checkpoint_path),
                "seat_agents": [str(p) for p in self.seat_agents], "runner_nodes": self.runner_nodes,
                "timesteps": self.timesteps,
                "iterations": self.iterations, "seconds": self.seconds, "final": [m.to_dict() for m in self.final]}


# --------------------------------------------------------------------------- the config
def _own_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return agent_id


def module_ids(rules: Rules, policies: str) -> list[str]:
    """The RLModule ids: RLlib's default module (``default_policy``, the shared policy), or one per player."""
    from ray.rllib.core import DEFAULT_MODULE_ID

    if policies not in POLICIES:
        raise ValueError(f"policies must be one of {', '.join(POLICIES)}, got {policies!r}")
    return [DEFAULT_MODULE_ID] if policies == "shared" else [f"player_{i}" for i in range(rules.players)]


def build_config(rules_preset: str, players: int | None, s: RllibSettings, env_runners: int, policies: str,
                 seed: int, mids: list[str]) -> Any:
    """The ``PPOConfig`` of a run (RLlib's default, current API stack: RLModule, Learner, EnvRunner).

    ``shared``: every seat is the one policy, and the env runners are
    :class:`~training.rllib_runner.BatchedEnvRunner` (``envs_per_runner`` games as arrays on the
    batched core, seat trajectories as RLlib's single-agent episodes). ``per-seat``: one policy per
    player, on RLlib's multi-agent runner over the AEC env (:mod:`training.rllib_env`), one game at
    a time through RLlib's per-step machinery (slower)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from training.rllib_env import PresidentMultiAgentEnv, env_config
    from training.rllib_module import MaskedMLPModule
    from training.rllib_runner import BatchedEnvRunner, rules_of, seat_spaces

    model = {"hidden": list(s.hidden), "activation": s.activation}
    cfg = env_config(rules_preset, players, s.episode, s.start_ranks, s.reward)
    config = PPOConfig()
    if policies == "shared":
        obs_space, act_space = seat_spaces(rules_of(cfg))
        config = (config
                  .environment(env_config=cfg, observation_space=obs_space, action_space=act_space,
                               disable_env_checking=True)
                  .env_runners(env_runner_cls=BatchedEnvRunner)
                  .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedMLPModule, model_config=model)))
    else:
        specs = {m: RLModuleSpec(module_class=MaskedMLPModule, model_config=model) for m in mids}
        config = (config
                  .environment(PresidentMultiAgentEnv, env_config=cfg,
                               # RLlib's pre-check steps the env with unmasked random actions, which the game refuses
                               disable_env_checking=True)
                  .multi_agent(policies=set(mids), policy_mapping_fn=_own_policy)
                  .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs)))
    return (
        config
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=s.envs_per_runner,
                     num_cpus_per_env_runner=1, rollout_fragment_length="auto")
        .learners(num_learners=s.learners, num_gpus_per_learner=s.gpus_per_learner)
        .training(train_batch_size_per_learner=s.train_batch, minibatch_size=s.minibatch, num_epochs=s.epochs,
                  lr=s.lr, gamma=s.gamma, lambda_=s.lambda_, clip_param=s.clip_param,
                  entropy_coeff=s.entropy_coeff, vf_loss_coeff=s.vf_loss_coeff)
        .debugging(seed=seed)
    )


# --------------------------------------------------------------------------- export
def export_agent(algo: Any, module_id: str, path: str | os.PathLike, rules: Rules, activation: str,
                 made_by: dict[str, Any]) -> Path:
    """The learner's policy ``module_id`` as an agent file: weights and JSON, nothing pickled."""
    from training.rllib_module import layers_from_state

    weights = algo.learner_group.get_weights(module_ids=[module_id])[module_id]
    return write_agent_file(path, rules, layers_from_state(weights), activation=activation, made_by=made_by)


def _export_all(algo: Any, mids: list[str], base: Path, rules: Rules, s: RllibSettings, made_by: dict[str, Any]
                ) -> tuple[Path, list[Path]]:
    """``BASE.agent.safetensors`` (the shared policy, or player 0's) and, per seat, ``BASE.player_K...``."""
    main = export_agent(algo, mids[0], base.with_name(base.name + ".agent.safetensors"), rules, s.activation, made_by)
    seats = [] if len(mids) == 1 else [
        export_agent(algo, m, base.with_name(f"{base.name}.{m}.agent.safetensors"), rules, s.activation,
                     made_by | {"policy": m}) for m in mids]
    return main, seats


# --------------------------------------------------------------------------- the run
def _metric(result: dict[str, Any], *path: str) -> float:
    node: Any = result
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return float("nan")
        node = node[key]
    return float(node)


def train_rllib(args: RllibTrainArgs) -> RllibTrainResult:
    """Train, checkpoint, export and evaluate (see the module docstring)."""
    started = time.time()
    rules = preset(args.preset, **({"players": args.players} if args.players else {}))
    s = rllib_settings(**args.settings)
    mids = module_ids(rules, args.policies)
    if args.env_runners < 0:
        raise ValueError(f"--env-runners must be 0 or more, got {args.env_runners}")
    if args.resume and not (Path(args.resume) / "learner_group").is_dir():
        raise ValueError(f"--resume {args.resume}: not an RLlib checkpoint folder (no learner_group/ in it); "
                         "give the checkpoint/ or checkpoints/iter_N/ folder of a run")
    if args.resume and not args.trust_pickle:
        raise ValueError(f"--resume {args.resume}: RLlib stores a checkpoint with pickle, and loading one can run "
                         "code stored in it; pass --trust-pickle (trust_pickle=True) if you trust where it came from")
    if args.resume:
        _check_resume_modules(Path(args.resume), mids, args.policies)
    check_out(args.out, args.resume, args.force)
    import torch

    torch.set_num_threads(args.threads)
    local_cpus = args.num_cpus or max(os.cpu_count() or 1, args.env_runners)
    if not args.address and s.learners + args.env_runners > local_cpus:   # Ray would wait for CPUs forever
        raise ValueError(f"--learners {s.learners} with --env-runners {args.env_runners}: each Learner and each env "
                         f"runner takes a CPU, and the local Ray here has {local_cpus}; give at most "
                         f"{max(local_cpus - args.env_runners, 0)} learner(s) (0: the update runs in this process), "
                         "or --address a cluster with the CPUs")
    ray = connect(args.address, num_cpus=None if args.address else local_cpus)   # nothing written if it fails
    gpus_needed = s.gpus_per_learner * max(s.learners, 1)
    gpus = float(ray.cluster_resources().get("GPU", 0))
    if gpus_needed > gpus:   # Ray would wait for them forever (or torch fail to find CUDA): say so now
        raise ValueError(f"--gpus-per-learner {s.gpus_per_learner:g} with {max(s.learners, 1)} learner(s) needs "
                         f"{gpus_needed:g} GPUs; the Ray cluster has {gpus:g}")
    out = prepare_out(args.out, args.resume, args.force)
    (out / "args.json").write_text(json.dumps({"args": asdict(args), "settings": asdict(s),
                                               "rules": rules.to_dict()}, indent=1, default=str))
    if args.env_runners > cluster_cpus(ray):
        print(f"note: {args.env_runners} env runners asked for, the cluster has {cluster_cpus(ray)} CPUs; "
              "the others wait until CPUs join", file=sys.stderr)
    algo = build_config(args.preset, args.players, s, args.env_runners, args.policies, args.seed, mids).build_algo()
    try:
        if args.resume:
            algo.restore_from_path(str(Path(args.resume).resolve()))
        nodes = runner_nodes(algo, ray)
        if args.progress:
            print(f"{len(nodes)} env runner(s) on {len(set(nodes))} node(s), {s.envs_per_runner} games each; "
                  f"{max(s.learners, 1)} learner(s)", flush=True)
        return _loop(algo, args, rules, s, mids, out, started, nodes)
    finally:
        algo.stop()


def _check_resume_modules(folder: Path, mids: list[str], policies: str) -> None:
    """A ``ValueError`` unless the checkpoint holds exactly this run's policies (read from its folder names, nothing
    unpickled): a checkpoint of ``per-seat`` policies, of other players, or of the shared policy before it was RLlib's
    ``default_policy`` (it was ``shared``) cannot be resumed as this run."""
    where = folder / "learner_group" / "learner" / "rl_module"
    if not where.is_dir():
        return                                  # not laid out as RLlib 2.60 lays it out: RLlib itself says what fails
    held = sorted(p.name for p in where.iterdir() if p.is_dir())
    if held != sorted(mids):
        raise ValueError(f"--resume {folder}: the checkpoint holds the policies {held}, this run ({policies} policies) "
                         f"needs {sorted(mids)}; resume with the settings that made it (a shared policy named "
                         "'shared' comes from an older version: start a new run)")


def runner_nodes(algo: Any, ray: Any) -> list[str]:
    """The Ray node id of every env runner (this process's node when it samples itself: ``--env-runners 0``)."""
    group = algo.env_runner_group
    if group.num_remote_env_runners() == 0:
        return [ray.get_runtime_context().get_node_id()]
    return list(group.foreach_env_runner(_node_id, local_env_runner=False))


def _node_id(env_runner: Any) -> str:
    """The node an env runner runs on (called inside the runner's actor)."""
    import ray

    return ray.get_runtime_context().get_node_id()


def _loop(algo: Any, args: RllibTrainArgs, rules: Rules, s: RllibSettings, mids: list[str], out: Path,
          started: float, nodes: list[str]) -> RllibTrainResult:
    progress_path = out / "progress.csv"
    if not progress_path.exists():
        with progress_path.open("w", newline="") as f:
            csv.writer(f).writerow(PROGRESS_FIELDS)
    decisions, iteration = 0, 0

    def made_by() -> dict[str, Any]:
        return {"preset": rules.name, "command": args.command(), "seed": args.seed, "timesteps": decisions,
                "code_version": code_version(), "backend": "rllib"}

    def checkpoint() -> tuple[Path, Path]:
        """RLlib's checkpoint of this iteration (to resume) and the agent file beside it (exported first: it needs
        only the learner, which runs in this process)."""
        where = out / "checkpoints" / f"iter_{iteration}"
        agent = _export_all(algo, mids, where, rules, s, made_by())[0]
        algo.save_to_path(str(where.resolve()))
        return where, agent

    while True:
        try:
            result = algo.train()
        except KeyboardInterrupt:
            try:
                where, agent = checkpoint()
            except Exception as e:  # noqa: BLE001 - Ctrl-C may have stopped Ray's workers as well
                agent = out / "checkpoints" / f"iter_{iteration}.agent.safetensors"
                if not agent.exists():   # nothing saved now: the periodic checkpoints are what is left
                    raise KeyboardInterrupt from None
                why = f"RLlib's checkpoint failed: {type(e).__name__}"
                raise RllibInterrupted(None, agent, iteration, why) from None
            raise RllibInterrupted(where, agent, iteration) from None
        iteration = int(result.get("training_iteration", iteration + 1))
        decisions = int(_metric(result, "num_env_steps_sampled_lifetime"))
        seconds = round(time.time() - started, 1)
        # the episode return of zero-sum self-play says nothing: the learner's figures do
        losses = [_metric(result, "learners", mids[0], k) for k in ("entropy", "policy_loss", "vf_loss")]
        with progress_path.open("a", newline="") as f:
            csv.writer(f).writerow([iteration, decisions, seconds,
                                    _metric(result, "env_runners", "num_episodes_lifetime"), *losses])
        if args.progress:
            print(f"iteration {iteration}: {decisions:,} decisions, {seconds:.0f} s; {mids[0]}: entropy "
                  f"{losses[0]:.3f}, value loss {losses[2]:.3f}", flush=True)
        done = (decisions >= args.timesteps or (args.iterations is not None and iteration >= args.iterations)
                or (args.minutes is not None and time.time() - started > 60 * args.minutes))
        if not done and args.checkpoint_every and iteration % args.checkpoint_every == 0:
            checkpoint()
        if done:
            break
    checkpoint = Path(algo.save_to_path(str((out / "checkpoint").resolve())))
    agent_path, seat_agents = _export_all(algo, mids, out / "model", rules, s, made_by())
    final: list[Matchup] = []
    if args.final_deals:
        from agents.agent_file import FileAgent

        learner = FileAgent(agent_path, rules, name="learner")
        final = [matchup(rules, learner, b, args.final_deals, seed=args.seed + 2, progress=args.progress)
                 for b in BASELINES]
    result_obj = RllibTrainResult(agent_path, checkpoint, decisions, iteration, time.time() - started, final,
                                  seat_agents, nodes)
    (out / "final.json").write_text(json.dumps(result_obj.to_dict(), indent=1))
    return result_obj


def format_result(result: RllibTrainResult) -> str:
    """The run in two lines and the final evaluation as a small table."""
    lines = [f"agent: {result.agent_path}  ({result.timesteps:,} decisions in {result.iterations} iterations, "
             f"{result.seconds / 60:.1f} min; RLlib checkpoint for --resume: {result.checkpoint_path})"]
    lines += [f"  per seat: {p}" for p in result.seat_agents]
    if result.final:
        lines.append(f"{'opponents':<10} {'deals':>6} {'learner pts/hand':>17} {'opponents pts/hand':>19}  "
                     "difference [95% CI]")
        for m in result.final:
            lines.append(f"{m.opponent:<10} {m.deals:>6} {m.learner_points:>+17.3f} {m.opponent_points:>+19.3f}  "
                         f"{m.diff:+.3f} [{m.diff_low:+.3f}, {m.diff_high:+.3f}]{'  beats' if m.wins else ''}")
    return "\n".join(lines)
