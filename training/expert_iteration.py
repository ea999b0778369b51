"""Expert iteration: the network learns the moves a search makes with the network's own help.

    president train --method expert-iteration --preset president --init zoo:president --out runs/exit

Reads top to bottom: the rules and the settings (the ``exit_*`` rows of :mod:`training.hyperparams`);
the network: resumed from a checkpoint (``--resume``), read from an agent file (``--init zoo:NAME`` or
``--init FILE``), or a new one warm-started on the heuristic's self-play (:mod:`training.imitation`),
saved as iteration 0. Then each iteration

1. plays self-play games (whole sessions, ``exit_games`` at a time) with the search agent
   (:class:`agents.search.SearchAgent`, settings ``exit_search``) in every seat, the network of the
   iteration before as its prior and rollout policy (``prior=policy``: its most likely moves are the
   candidates, its arg max the move kept unless another clearly beats it; ``prior=heuristic`` in
   ``exit_search``: its arg max, then the greedy agent's move, pass, the strongest play and the weakest),
   and records each of its
   ``exit_decisions`` decisions: the observation, the legal mask, the move the search chose and the
   player's discounted points from there on (as the warm start does);
2. fits the network to them (:func:`training.imitation.pretrain`): the policy by cross-entropy on the
   masked logits against the search's moves, the value head by regression on the points; the
   cross-entropy and the share of moves the network's arg max gets right are measured on the whole
   iteration's data before and after the fit;
3. saves ``checkpoints/iter_K.exit.safetensors`` (every weight, value head included, and the run's
   history: what ``--resume`` reads) and ``checkpoints/iter_K.agent.safetensors`` (the policy as an
   ordinary agent file, the network the next iteration's search plays with).

Search in every seat, not search against the network: every decision of a game is then a search decision,
so every one is a target, and the games are the self-play the network will be asked to play. The targets are
the search's moves (hard targets): its choice is a paired test of the candidates' rollout values against the
network's own move, not a visit distribution to copy.

The network is the policy of the PPO trainer (SB3's ``MlpPolicy`` with a value head: the same layers, the
same agent file). A run is seeded: iteration K's games and fit draw from ``(seed, K)`` alone, so the same
seed gives the same decisions, targets and weights, and a resumed run the ones it would have had unbroken.
``--minutes`` bounds the whole run as for PPO (:mod:`training.budget`): the final evaluation timed and
reserved, the warm start its ``imitation_share`` of the rest, then the iterations; an iteration is begun only
while the last one would still fit, and its self-play and fit stop on time. Ctrl-C keeps every finished
iteration and says which checkpoint continues the run. Checkpoints are safetensors and JSON: nothing is
unpickled.

Outputs in ``--out``: ``model.agent.safetensors`` (the agent file), ``model.exit.safetensors`` (the last
checkpoint, for ``--resume``), ``checkpoints/``, ``iterations.csv`` (a row per iteration: decisions, seconds,
loss and accuracy before and after the fit), ``final.json`` (the final evaluation).
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from torch.nn import functional as F
from tqdm import tqdm

from agents.agent_file import ACTIVATIONS, FileAgent, code_version, sb3_layers, write_agent_file
from agents.base import PolicyAgent, rules_mismatch
from agents.registry import make_agent
from agents.search import SearchAgent, parse_settings
from president_env.aec_env import observation_box
from president_env.core import Rules, n_actions
from president_env.core.files import atomic_writer
from president_env.core.jsonio import JSONInputError, loads
from president_env.small_variants import variant_rules
from training.budget import Plan, make_plan, measure_eval_cost
from training.evaluate import Matchup, matchup
from training.hyperparams import TrainSettings, settings_for
from training.imitation import Demonstrations, collect, pretrain
from training.init_network import ACTIVATION_FNS, architecture, load_policy_layers, read_init_agent
from training.run_dir import prepare_out

BASELINES = ("heuristic", "greedy")
FORMAT = "president-exit/1"
META_KEY = "president-exit"
STATE_SUFFIX = ".exit.safetensors"
#: search settings the trainer sets itself: the network is the rollout policy and the fallback (and, unless
#: ``prior=heuristic`` says otherwise, the prior)
FIXED_SEARCH = ("policy", "fallback")
PRIORS = ("policy", "heuristic")
CURVE_FIELDS = ("iteration", "decisions", "searched", "seconds", "loss_before", "loss_after", "accuracy_before",
                "accuracy_after", "epochs", "value_loss")


@dataclass
class ExitArgs:
    """Arguments of ``president train --method expert-iteration``."""

    preset: str = "president"
    players: int | None = None
    out: str = "runs/exit"
    seed: int = 0
    iterations: int | None = None      # iterations in all (a resumed run counts its own); None: exit_iterations
    minutes: float | None = None       # the whole run's wall-clock budget (training.budget)
    init: str | None = None            # an agent file to start from (zoo:NAME, ppo:FILE or a path); None: warm start
    resume: str | None = None          # a checkpoint, checkpoints/iter_K.exit.safetensors or model.exit.safetensors
    final_deals: int = 1000            # duplicate deals of the final evaluation against each baseline (0: none)
    force: bool = False                # write into a non-empty ``out`` (or over later iterations when resuming)
    progress: bool = True
    threads: int = 1
    settings: dict[str, Any] = field(default_factory=dict)  # overrides of TrainSettings

    def command(self) -> str:
        """The command line that makes this run (written into the agent files)."""
        parts = ["president train --method expert-iteration", f"--preset {self.preset}", f"--out {self.out}",
                 f"--seed {self.seed}"]
        for flag, value in (("--players", self.players), ("--iterations", self.iterations),
                            ("--init", self.init), ("--resume", self.resume)):
            if value is not None:
                parts.append(f"{flag} {value}")
        if self.minutes is not None:
            parts.append(f"--minutes {self.minutes:g}")
        parts += [f"--set {k}={json.dumps(v, separators=(',', ':'))}" for k, v in sorted(self.settings.items())]
        return " ".join(parts)


class ExitInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: ``checkpoint`` is the last finished iteration's (``None`` before iteration 0 was saved)."""

    def __init__(self, checkpoint: Path | None, iteration: int) -> None:
        said = (f"interrupted in iteration {iteration + 1}: iterations up to {iteration} are saved, the last in "
                f"{checkpoint}" if checkpoint else "interrupted before the first checkpoint: nothing to resume")
        super().__init__(said)
        self.checkpoint, self.iteration = checkpoint, iteration


class CheckpointError(ValueError):
    """A file ``--resume`` cannot continue from: the message names it and says why."""


@dataclass
class ExitResult:
    agent_path: Path
    checkpoint_path: Path
    curve_path: Path
    iterations: int
    decisions: int
    seconds: float
    final: list[Matchup]

    def to_dict(self) -> dict[str, Any]:
        return {"agent_path": str(self.agent_path), "checkpoint_path": str(self.checkpoint_path),
                "curve_path": str(self.curve_path), "iterations": self.iterations, "decisions": self.decisions,
                "seconds": self.seconds, "final": [m.to_dict() for m in self.final]}


# --------------------------------------------------------------------------- settings
def search_settings(s: TrainSettings, rules: Rules) -> dict[str, Any]:
    """``exit_search`` as SearchAgent keywords, checked (a bad one is a ``ValueError`` naming the setting)."""
    try:
        kwargs = parse_settings(s.exit_search)
        fixed = sorted(set(kwargs) & set(FIXED_SEARCH))
        if fixed:
            raise ValueError(f"{', '.join(fixed)} cannot be set: the network being trained is the search's "
                             "rollout policy and fallback")
        prior = kwargs.setdefault("prior", "policy")
        if prior not in PRIORS:
            raise ValueError(f"prior={prior!r} must be policy (the network's likeliest moves are the candidates) or "
                             f"heuristic (the network's move, then greedy's, pass, the strongest, the weakest)")
        belief = kwargs.get("belief")
        if isinstance(belief, str) and ":" in belief:     # a network's spec (belief=zoo:president): built here
            kwargs["belief"] = make_agent(belief, rules)
        SearchAgent(rules, **{k: v for k, v in kwargs.items() if k != "prior"})    # the ranges, checked by the agent
    except ValueError as e:
        raise ValueError(f"setting exit_search={s.exit_search!r}: {e}") from None
    return kwargs


def iteration_seed(seed: int, iteration: int) -> int:
    """The seed of iteration ``iteration``'s games and fit: from the run's seed and the iteration alone."""
    return int(np.random.SeedSequence([seed, iteration]).generate_state(1)[0])


# --------------------------------------------------------------------------- the network
def new_policy(rules: Rules, hidden: list[int], activation: str, seed: int) -> Any:
    """SB3's maskable actor-critic MLP (the PPO trainer's network) for ``rules``, seeded."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(seed)
    fn = ACTIVATION_FNS[activation]
    policy = MaskableActorCriticPolicy(observation_box(rules), gymnasium.spaces.Discrete(n_actions(rules)),
                                       lambda _: 1e-3, net_arch=list(hidden), activation_fn=fn)
    policy.set_training_mode(False)
    return policy


def activation_of(policy: Any) -> str:
    return policy.activation_fn.__name__.lower()


def policy_from_agent_file(rules: Rules, spec: str, seed: int) -> Any:
    """A new network whose policy is the agent file's (``zoo:NAME``, ``ppo:FILE`` or a path); its value head new."""
    agent = read_init_agent(rules, spec)
    hidden, activation = architecture(agent)
    policy = new_policy(rules, hidden, activation, seed)
    load_policy_layers(policy, agent)
    return policy


class NetworkAgent(PolicyAgent):
    """The network's policy as an agent (its most likely legal move), run in NumPy as its agent file would be."""

    def __init__(self, rules: Rules, policy: Any, name: str = "network") -> None:
        super().__init__("<network in training>", rules, deterministic=True, name=name)
        self.layers = [(w.astype(np.float32), b.astype(np.float32)) for w, b in sb3_layers(policy.state_dict())]
        self._act_fn = ACTIVATIONS[activation_of(policy)]

    logits = FileAgent.logits


def imitation_loss(policy: Any, demos: Demonstrations, chunk: int = 8192) -> tuple[float, float]:
    """The mean cross-entropy of the network's masked logits against the recorded moves, and the share of them its
    arg max plays, over the decisions with a choice (a forced move costs nothing and says nothing)."""
    rows = np.flatnonzero(demos.legal_counts() > 1)
    n = rows.size
    if n == 0:
        return float("nan"), float("nan")
    policy.set_training_mode(False)
    loss = hits = 0.0
    with torch.no_grad():
        for start in range(0, n, chunk):
            i = rows[start:start + chunk]
            obs = torch.as_tensor(demos.obs[i])
            mask = torch.as_tensor(demos.mask_rows(i))
            acts = torch.as_tensor(demos.actions[i])
            latent_pi, _ = policy.mlp_extractor(policy.extract_features(obs))
            logits = policy.action_net(latent_pi).masked_fill(~mask, -1e8)
            loss += F.cross_entropy(logits, acts, reduction="sum").item()
            hits += (logits.argmax(-1) == acts).sum().item()
    return loss / n, hits / n


# --------------------------------------------------------------------------- checkpoints
def made_by(rules: Rules, args: ExitArgs, iteration: int, decisions: int) -> dict[str, Any]:
    return {"preset": rules.name, "command": args.command(), "seed": args.seed, "method": "expert-iteration",
            "iteration": iteration, "timesteps": int(decisions), "code_version": code_version()}


def save_checkpoint(policy: Any, path: Path, rules: Rules, args: ExitArgs, history: list[dict[str, Any]]) -> Path:
    """``path``.exit.safetensors (every weight and the history: for ``--resume``) and ``path``.agent.safetensors
    (the policy as an agent file); returns the agent file. Both written to a temporary file and renamed."""
    from safetensors.torch import save

    iteration = len(history)           # the history's rows are iterations 1, 2, ...
    decisions = sum(int(row["decisions"]) for row in history)
    made = made_by(rules, args, iteration, decisions)
    meta = {"format": FORMAT, "rules": rules.to_dict(), "iteration": iteration, "hidden": hidden_of(policy),
            "activation": activation_of(policy), "history": history, "made_by": made}
    state = {k: v.detach().contiguous() for k, v in policy.state_dict().items()}
    data = save(state, metadata={META_KEY: json.dumps(meta)})
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path.with_name(path.name + STATE_SUFFIX), binary=True) as f:
        f.write(data)
    return write_agent_file(path.with_name(path.name + ".agent.safetensors"), rules, sb3_layers(policy.state_dict()),
                            activation=activation_of(policy), made_by=made)


def hidden_of(policy: Any) -> list[int]:
    return [int(w.shape[0]) for w, _ in sb3_layers(policy.state_dict())[:-1]]


def load_checkpoint(path: str, rules: Rules, seed: int) -> tuple[Any, list[dict[str, Any]]]:
    """The network and the history of a checkpoint written by :func:`save_checkpoint`, checked against ``rules``."""
    from safetensors import SafetensorError, safe_open
    from safetensors.torch import load

    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"--resume {path}: no such file (give checkpoints/iter_K{STATE_SUFFIX} or "
                              f"model{STATE_SUFFIX} of a run)")
    try:
        with safe_open(str(p), "pt") as f:
            raw = (f.metadata() or {}).get(META_KEY)
        meta = loads(raw) if isinstance(raw, str) else None
        state = load(p.read_bytes())
    except (SafetensorError, OSError, JSONInputError, ValueError) as e:
        raise CheckpointError(f"--resume {path}: not a readable checkpoint ({str(e)[:200]})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        hint = " (an agent file starts a run with --init)" if p.name.endswith(".agent.safetensors") else ""
        raise CheckpointError(f"--resume {path}: not a checkpoint of expert iteration{hint}; give "
                              f"checkpoints/iter_K{STATE_SUFFIX} or model{STATE_SUFFIX}")
    why = rules_mismatch(path, meta, rules, "checkpoint")
    if why:
        raise CheckpointError(why)
    history = meta.get("history")
    ok = (isinstance(history, list) and all(isinstance(r, dict) for r in history)
          and [r.get("iteration") for r in history] == list(range(1, len(history) + 1))
          and all(isinstance(r.get("decisions"), int) for r in history)
          and isinstance(meta.get("hidden"), list) and meta.get("activation") in ("tanh", "relu"))
    if not ok:
        raise CheckpointError(f"--resume {path}: its metadata lacks the history or the network's shape")
    policy = new_policy(rules, meta["hidden"], meta["activation"], seed)
    try:
        policy.load_state_dict(state)
    except RuntimeError as e:
        raise CheckpointError(f"--resume {path}: its tensors do not fit the network ({str(e)[:200]})") from None
    return policy, history


def write_curve(path: Path, history: list[dict[str, Any]]) -> None:
    """``iterations.csv``: the history, written whole (a resumed run's file is the checkpoint's history and on)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CURVE_FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(history)
    with atomic_writer(path) as f:
        f.write(buf.getvalue())


# --------------------------------------------------------------------------- the run
def _say(args: ExitArgs, line: str) -> None:
    if args.progress:
        tqdm.write(line, file=sys.stderr)


def _check_later_iterations(out: Path, done: int, force: bool) -> None:
    """Resuming from iteration ``done`` would write over a later iteration's checkpoint in ``out``: refused unless
    ``force``."""
    names = (p.name[len("iter_"):-len(STATE_SUFFIX)] for p in (out / "checkpoints").glob(f"iter_*{STATE_SUFFIX}"))
    later = sorted(k for k in (int(n) for n in names if n.isdigit()) if k > done)
    if later and not force:
        raise CheckpointError(f"--out {out} holds iteration {later[-1]} of this run and the checkpoint resumed is "
                              f"iteration {done}: the run would write over iterations {later[0]}..{later[-1]}; "
                              f"resume from checkpoints/iter_{later[-1]}{STATE_SUFFIX}, give another --out, or "
                              "--force")


def _given_network(rules: Rules, args: ExitArgs) -> tuple[Any, list[dict[str, Any]]] | None:
    """The network of ``--resume`` (with its history) or ``--init`` (no history), read before any work; ``None``
    when the run starts from a new network."""
    if args.resume:
        return load_checkpoint(args.resume, rules, args.seed)
    if args.init:
        return policy_from_agent_file(rules, args.init, args.seed), []
    return None


def _warm_start(rules: Rules, s: TrainSettings, args: ExitArgs, plan_of: Any) -> tuple[Any, Plan | None]:
    """A new network fitted to the heuristic's self-play (:mod:`training.imitation`), and the plan of ``--minutes``."""
    policy = new_policy(rules, list(s.net_arch), "tanh", args.seed)
    plan = plan_of(policy, bool(s.imitation_decisions))
    if s.imitation_decisions:
        demos = collect(rules, s.imitation_teacher, s.imitation_decisions, s.gamma, seed=args.seed,
                        deadline=plan.collect_end if plan else None, progress=args.progress)
        stats = pretrain(policy, demos, s.imitation_epochs, batch_size=s.imitation_batch, seed=args.seed,
                         deadline=plan.warm_end if plan else None, progress=args.progress)
        _say(args, f"iteration 0, warm start: {len(demos.actions):,} {s.imitation_teacher} decisions, "
                   f"{stats['epochs']:g} epoch(s), {stats.get('accuracy', 0):.1%} of its moves imitated")
    return policy, plan


def train_exit(args: ExitArgs, started: float | None = None) -> ExitResult:
    """Expert iteration (see the module doc); ``started`` (a ``time.time()``, default now) begins the budget.
    Ctrl-C raises :class:`ExitInterrupted` naming the last finished iteration's checkpoint."""
    started = started or time.time()
    torch.set_num_threads(args.threads)
    rules = variant_rules(args.preset, **({"players": args.players} if args.players else {}))
    s = settings_for(rules.name, **args.settings)
    if s.privileged_critic:
        raise ValueError("the setting privileged_critic=true is for PPO (president train --method ppo): expert "
                         "iteration fits no critic to the whole deal; leave it out")
    search_kwargs = search_settings(s, rules)
    total = args.iterations if args.iterations is not None else s.exit_iterations
    if not 0 <= total <= 100_000:
        raise ValueError(f"--iterations must be 0..100000, got {total}")
    for name in ("init", "resume"):
        if getattr(args, name) is not None and not getattr(args, name).strip():
            raise ValueError(f"--{name} is empty: give a file, or leave --{name} out")
    if args.init and args.resume:
        raise ValueError("--init starts a run, --resume continues one: give one of them")
    given = _given_network(rules, args)        # a bad --init or --resume is refused before any work
    if args.resume:
        _check_later_iterations(Path(args.out), len(given[1]), args.force)
    out = prepare_out(args.out, args.resume, args.force)
    (out / "args.json").write_text(json.dumps({"args": asdict(args), "settings": asdict(s),
                                               "rules": rules.to_dict()}, indent=1, default=str))
    deals = {b: args.final_deals for b in BASELINES} if args.final_deals else {}

    def plan_of(policy: Any, warm: bool) -> Plan | None:
        if args.minutes is None:
            return None
        learner = NetworkAgent(rules, policy, "learner")
        cost = measure_eval_cost(rules, learner, BASELINES[0], max(deals.values()), seed=args.seed + 3,
                                 progress=args.progress) if deals else None
        plan = make_plan(started, args.minutes, time.time(), cost, deals, s.imitation_share if warm else 0.0,
                         s.imitation_collect_share)
        _say(args, f"budget {args.minutes:g} min: iterations until {(plan.ppo_end - started) / 60:.1f} min, then "
                   f"the final evaluation ({' + '.join(f'{n} vs {b}' for b, n in plan.final_deals.items()) or 'none'})")
        return plan

    saved: Path | None = None          # the last finished iteration's checkpoint
    history: list[dict[str, Any]] = []
    try:
        if given is None:
            (policy, plan), history = _warm_start(rules, s, args, plan_of), []
        else:
            (policy, history), plan = given, plan_of(given[0], False)
            _say(args, f"starting after iteration {len(history)}: the network of "
                       f"{args.resume or args.init}")
        if not history:
            save_checkpoint(policy, out / "checkpoints" / "iter_0", rules, args, history)
            saved = out / "checkpoints" / f"iter_0{STATE_SUFFIX}"
        else:
            saved = Path(args.resume)
        last_seconds = 0.0
        while (k := len(history) + 1) <= total:
            t0 = time.time()
            if plan and t0 + last_seconds > plan.ppo_end:
                _say(args, f"iteration {k}: not begun, the budget's time for iterations is spent")
                break
            row = _iteration(rules, s, args, search_kwargs, policy, k, total, plan)
            if row is None:
                break
            row["seconds"] = round(time.time() - t0, 1)
            save_checkpoint(policy, out / "checkpoints" / f"iter_{k}", rules, args, history + [row])
            history.append(row)
            saved = out / "checkpoints" / f"iter_{k}{STATE_SUFFIX}"
            write_curve(out / "iterations.csv", history)
            last_seconds = time.time() - t0
            _say(args, f"{_describe(row, total)} (run {(time.time() - started) / 60:.1f} min)")
        done = len(history)
        agent_path = save_checkpoint(policy, out / "model", rules, args, history)
    except KeyboardInterrupt:
        raise ExitInterrupted(saved, len(history)) from None

    final_deals = plan.final_deals if plan else deals
    learner = FileAgent(agent_path, rules, name="learner")
    final = [matchup(rules, learner, b, n, seed=args.seed + 2, progress=args.progress,
                     desc=f"final evaluation vs {b}") for b, n in final_deals.items() if n]
    result = ExitResult(agent_path, out / f"model{STATE_SUFFIX}", out / "iterations.csv", done,
                        sum(int(r["decisions"]) for r in history), time.time() - started, final)
    (out / "final.json").write_text(json.dumps(result.to_dict(), indent=1))
    return result


def _iteration(rules: Rules, s: TrainSettings, args: ExitArgs, search_kwargs: dict[str, Any], policy: Any,
               k: int, total: int, plan: Plan | None) -> dict[str, Any] | None:
    """Iteration ``k``: the search's self-play with the network as it is, then the fit of ``policy`` (in place) to
    its moves; the iteration's row of the history, or ``None`` when the budget's deadline came before any decision
    was recorded."""
    seed = iteration_seed(args.seed, k)
    search = SearchAgent(rules, policy=NetworkAgent(rules, policy), fallback="policy", name="search", **search_kwargs)
    now = time.time()
    collect_end = plan.ppo_end - 0.1 * max(0.0, plan.ppo_end - now) if plan else None
    demos = collect(rules, search, s.exit_decisions, s.gamma, seed=seed, batch_size=s.exit_games,
                    deadline=collect_end, progress=args.progress,
                    desc=f"iteration {k}/{total} 1/2: search self-play")
    if len(demos.actions) == 0:
        _say(args, f"iteration {k}: the budget's time ran out before a hand was finished; not saved")
        return None
    loss_before, acc_before = imitation_loss(policy, demos)
    stats = pretrain(policy, demos, s.exit_epochs, batch_size=s.exit_batch, lr=s.exit_learning_rate, seed=seed,
                     deadline=plan.ppo_end if plan else None, progress=args.progress,
                     desc=f"iteration {k}/{total} 2/2: fitting the network")
    loss_after, acc_after = imitation_loss(policy, demos)
    return {"iteration": k, "decisions": len(demos.actions), "loss_before": _number(loss_before),
            "loss_after": _number(loss_after), "accuracy_before": _number(acc_before),
            "accuracy_after": _number(acc_after), "epochs": stats["epochs"],
            "value_loss": _number(stats.get("value_loss", math.nan)),
            "searched": search.stats.searched, "cut": bool(demos.timed_out or stats["timed_out"])}


def _number(x: float) -> float | None:
    """A figure of the history (JSON in the checkpoint): rounded, ``None`` when there is none (NaN)."""
    return round(float(x), 6) if math.isfinite(x) else None


def _describe(row: dict[str, Any], total: int) -> str:
    """The line an iteration prints."""
    def f(x: float | None, spec: str) -> str:
        return "n/a" if x is None else format(x, spec)

    return (f"iteration {row['iteration']}/{total}: {row['decisions']:,} search decisions, fit {row['epochs']:g} "
            f"epoch(s): loss {f(row['loss_before'], '.4f')} -> {f(row['loss_after'], '.4f')}, accuracy "
            f"{f(row['accuracy_before'], '.1%')} -> {f(row['accuracy_after'], '.1%')}; {row['seconds']:.0f} s")


def format_result(result: ExitResult) -> str:
    """The final evaluation as the PPO trainer's table."""
    from training.train import matchup_table

    return (f"agent: {result.agent_path}  ({result.iterations} iteration(s), {result.decisions:,} search decisions, "
            f"{result.seconds / 60:.1f} min; checkpoint for --resume: {result.checkpoint_path})\n"
            + matchup_table(result.final))
