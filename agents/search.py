"""``search``: determinized search (PIMC) with heuristic rollouts, on the batched engine.

For each decision with more than one legal action the agent

1. deals the hidden cards again ``worlds`` times, consistent with its observation
   (:func:`president_env.core.resample.worlds_from_observation`);
2. takes up to ``actions`` candidate actions: the heuristic's choice, the greedy agent's,
   pass, the strongest play, then the others weakest first;
3. plays every candidate in every world and the rest of the hand with the rollout
   policy (``heuristic`` by default) in every seat, its own included, all worlds and
   candidates of all rows as one batch of the engine; a rollout's value is the points
   the hand gives the agent;
4. plays the candidate with the best mean, but only when it beats the heuristic's choice
   by ``z`` standard errors of the paired difference (the worlds are common to the
   candidates); where search cannot tell moves apart it plays the heuristic's choice
   (``fallback=policy``: the rollout policy's choice, first candidate and fallback alike).

``belief=heuristic`` (or a network spec, ``belief=zoo:president``) deals step 1's worlds from the
weighted belief of :mod:`agents.belief` instead, when the caller gives each row's view of the hand's
plays (:meth:`SearchAgent.act_with_history`); without it (``act``, the arena) the worlds are uniform.

``rollouts`` caps the rollouts of one decision (worlds x candidates): with more
candidates than it allows at ``worlds`` worlds, fewer worlds are used (at least 2).
``stats`` counts decisions, searched decisions and rollouts, so a budget can be checked
without clocks. Settings come from the spec: ``search:worlds=16,actions=6,rollouts=96``.
It sees only observations and masks, like every agent; randomness comes from ``rng``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from president_env.core import OVER, Rules, current_player, observe, step_inplace
from president_env.core.resample import worlds_from_observation
from president_env.core.state import State

from .agent_file import one_blas_thread
from .base import Agent, PolicyAgent
from .belief import (
    PolicyModel,
    Proposals,
    PublicHistory,
    belief_worlds_many,
    check_draw,
    draw_proposals,
    heuristic_model,
    network_model,
    weigh_proposals,
)
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .rollouts import heuristic_rollouts, supported

ROLLOUT_POLICIES = {"heuristic": HeuristicAgent, "greedy": GreedyAgent, "random": RandomAgent}
#: setting -> (type, default, lowest allowed, highest allowed, meaning)
SETTINGS: dict[str, tuple[type, object, float, float, str]] = {
    "worlds": (int, 8, 1, 4096, "deals of the hidden cards per decision"),
    "actions": (int, 5, 1, 256, "candidate actions searched per decision (the heuristic's first)"),
    "rollouts": (int, 0, 0, 65536, "most rollouts (worlds x candidates) per decision; 0: worlds x actions"),
    "z": (float, 1.0, 0.0, 1e12, "standard errors a candidate must beat the heuristic's choice by"),
    "policy": (str, "heuristic", 0, 0, "rollout policy: " + ", ".join(ROLLOUT_POLICIES) + ", or an agent spec "
               "such as zoo:president"),
    "fallback": (str, "heuristic", 0, 0, "the first candidate and the choice kept when search cannot tell: "
                 "heuristic, policy (the rollout policy's choice), or an agent spec such as zoo:president"),
    "batch": (int, 4096, 1, 65536, "most rollouts stepped together (memory, not play)"),
    "prior": (str, "heuristic", 0, 0, "how candidates are chosen: heuristic (the heuristic's choice, greedy's, pass, "
              "the strongest play, then the weakest first), or policy (the rollout policy's most likely actions first; "
              "it must be a network: zoo:NAME, ppo:FILE)"),
    "belief": (str, "uniform", 0, 0, "how the worlds are dealt: uniform, heuristic (weighted by the likelihood of the "
               "opponents' plays this hand under the heuristic), or a network spec such as zoo:president (under it); "
               "a weighted belief needs the hand's plays (act_with_history), and deals uniformly without them"),
    "proposals": (int, 256, 1, 65536, "worlds dealt and weighed per decision for a weighted belief"),
    "draw": (str, "distinct", 0, 0, "how a weighted belief draws its worlds from the proposals: distinct "
             "(different proposals, by weight) or systematic (resampling by weight; repeats a likely world)"),
}
#: the most rollouts one decision may take (worlds x actions, or rollouts): one game state each, in memory at once
MAX_BUDGET = 65536


@dataclass
class SearchStats:
    """Counters since the agent was built: decisions, decisions searched, rollouts, the most of one decision."""

    decisions: int = 0
    searched: int = 0
    rollouts: int = 0
    max_rollouts: int = 0
    cpu_seconds: float = 0.0     # process CPU time spent choosing (not wall time: other work does not count)
    believed: int = 0            # searched decisions whose worlds were drawn from a weighted belief


def parse_settings(text: str) -> dict[str, object]:
    """``"worlds=32,rollouts=256"`` -> settings; an unknown name or a bad value raises ``ValueError`` naming it."""
    out: dict[str, object] = {}
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"search setting {item!r} must be NAME=VALUE; settings: {', '.join(SETTINGS)}")
        name, value = (x.strip() for x in item.split("=", 1))
        if name not in SETTINGS:
            raise ValueError(f"unknown search setting {name!r}; settings: {', '.join(SETTINGS)}")
        kind = SETTINGS[name][0]
        if kind is int and len(value.strip().lstrip("+-")) > 20:
            raise ValueError(f"search setting {name}: {len(value)} digits is no count this agent takes")
        try:
            out[name] = kind(value)
        except ValueError:
            raise ValueError(f"search setting {name}={value!r} is not {'an integer' if kind is int else 'a number'}"
                             ) from None
    return out


class SearchAgent(Agent):
    """Determinized (PIMC) search over resampled worlds with heuristic rollouts; see the module doc."""

    name = "search"
    deterministic = False

    def __init__(self, rules: Rules, worlds: int = 8, actions: int = 5, rollouts: int = 0, z: float = 1.0,
                 policy: str | Agent = "heuristic", batch: int = 4096, fallback: str | Agent = "heuristic",
                 prior: str = "heuristic", belief: str | Agent = "uniform", proposals: int = 256,
                 draw: str = "distinct", name: str | None = None) -> None:
        super().__init__(rules)
        for key, value in (("worlds", worlds), ("actions", actions), ("rollouts", rollouts), ("z", z),
                           ("batch", batch), ("proposals", proposals)):
            kind, _, low, high, _ = SETTINGS[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or (
                    kind is int and (not np.isfinite(value) or value != int(value))):
                raise ValueError(f"search setting {key} must be {'an integer' if kind is int else 'a number'}, "
                                 f"got {value!r}")
            if not np.isfinite(value) or not low <= value <= high:
                raise ValueError(f"search setting {key} must be {low:g}..{high:g}, got {value!r}")
        budget = rollouts or worlds * actions
        if budget > MAX_BUDGET:
            raise ValueError(f"search settings worlds={worlds}, actions={actions}, rollouts={rollouts} allow "
                             f"{budget} rollouts a decision; at most {MAX_BUDGET} (set rollouts= to cap them)")
        if isinstance(policy, Agent):           # a policy built by the caller (the web page's agents by name)
            pass
        elif policy not in ROLLOUT_POLICIES and (":" not in policy or policy.split(":")[0] == "search"):
            raise ValueError(f"search setting policy={policy!r} is not a rollout policy; choices: "
                             f"{', '.join(ROLLOUT_POLICIES)}, or an agent spec such as zoo:president")
        if rollouts and rollouts < 2 * min(actions, 2):
            raise ValueError(f"search setting rollouts={rollouts} is too small: a decision needs at least 2 worlds "
                             f"of 2 candidates ({2 * min(actions, 2)} rollouts)")
        self.worlds, self.actions, self.rollouts, self.z = int(worlds), int(actions), int(rollouts), float(z)
        self.batch = int(batch)
        self.policy_name = policy.name if isinstance(policy, Agent) else policy
        self.rollout_rules = rules.replace(hands_per_session=1)
        if isinstance(policy, Agent):
            if policy.rules != rules:
                raise ValueError(f"search setting policy: {policy.name} was built for other rules")
            self.policy: Agent = policy
        elif policy in ROLLOUT_POLICIES:
            self.policy = ROLLOUT_POLICIES[policy](rules)
        else:                                   # a spec: the registry builds it (agents.registry imports this module)
            raise ValueError(f"search setting policy={policy!r} is an agent spec: build it first and pass the agent "
                             f"(agents.registry.make_agent does for the spec search:policy={policy})")
        fallback_agent = None
        if isinstance(fallback, Agent):         # built by the caller (the web page's agents by name)
            if fallback.rules != rules:
                raise ValueError(f"search setting fallback: {fallback.name} was built for other rules")
            fallback_agent, fallback = fallback, fallback.name
        elif fallback not in ("heuristic", "policy"):
            if ":" not in fallback or fallback.split(":")[0] == "search":
                raise ValueError(f"search setting fallback={fallback!r} must be heuristic, policy, or an agent spec "
                                 f"such as zoo:president (not search)")
            raise ValueError(f"search setting fallback={fallback!r} is an agent spec: build it first and pass the "
                             f"agent (agents.registry.make_agent does for the spec search:fallback={fallback})")
        if prior not in ("heuristic", "policy"):
            raise ValueError(f"search setting prior={prior!r} must be heuristic or policy")
        if prior == "policy" and not isinstance(self.policy, PolicyAgent):
            raise ValueError(f"search setting prior=policy needs a network as the rollout policy (zoo:NAME, ppo:FILE), "
                             f"got policy={self.policy_name}")
        self.prior = prior
        self.fallback_name = "policy" if prior == "policy" else fallback
        if self.fallback_name == "heuristic":
            self.fallback: Agent = HeuristicAgent(rules)
        elif self.fallback_name == "policy":
            self.fallback = self.policy
        else:
            self.fallback = fallback_agent
        self.belief_name, self.belief_model = _belief(rules, belief)
        self.proposals = int(proposals)
        self.draw = check_draw(draw, "search setting draw")
        self._histories: list[PublicHistory] | None = None
        self.greedy = GreedyAgent(rules)
        self.stats = SearchStats()
        if name:
            self.name = name

    def budget(self) -> int:
        """The most rollouts one decision may use."""
        return self.rollouts or self.worlds * self.actions

    # ------------------------------------------------------------------ acting
    def report(self) -> str:
        """One line on the work done so far: decisions, rollouts, CPU time per decision."""
        s = self.stats
        per = 1e3 * s.cpu_seconds / max(s.decisions, 1)
        per_searched = 1e3 * s.cpu_seconds / max(s.searched, 1)
        believed = f", {s.believed} dealt from the {self.belief_name} belief" if self.belief_model else ""
        return (f"{self.name}: {s.decisions} decisions ({s.searched} searched{believed}), {s.rollouts} rollouts "
                f"(at most {s.max_rollouts} a decision, budget {self.budget()}), {per:.1f} ms CPU a decision "
                f"({per_searched:.1f} ms a searched one)")

    def act_with_history(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                         histories: list[PublicHistory]) -> np.ndarray:
        """:meth:`act` with each row's view of the hand's plays (``agents.belief.HistoryRecorder``), from which a
        weighted ``belief`` deals its worlds; under ``belief=uniform`` the same as :meth:`act`."""
        if not isinstance(histories, list | tuple) or len(histories) != np.asarray(obs).shape[0] or not all(
                isinstance(h, PublicHistory) for h in histories):
            raise ValueError(f"{self.name}: histories must be one agents.belief.PublicHistory per observation row")
        self._histories = list(histories)
        try:
            return self.act(obs, mask, rng)
        finally:
            self._histories = None

    def act_grouped_with_history(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator],
                                 bounds: np.ndarray, histories: list[PublicHistory]) -> np.ndarray:
        """:meth:`act_grouped` with each row's view of the hand's plays: what :meth:`act_with_history` gives each
        group alone with its generator, the groups' weighing and rollouts stepped together (a tournament)."""
        if not isinstance(histories, list | tuple) or len(histories) != np.asarray(obs).shape[0] or not all(
                isinstance(h, PublicHistory) for h in histories):
            raise ValueError(f"{self.name}: histories must be one agents.belief.PublicHistory per observation row")
        self._histories = list(histories)
        try:
            return self.act_grouped(obs, mask, rngs, bounds)
        finally:
            self._histories = None

    def merge_work(self, copies: list[SearchAgent]) -> None:
        """Add the work of ``copies`` of this agent, each taken as it is now and then played elsewhere (the Ray
        tournament's tasks), to this agent's counters, as if it had played their decisions itself."""
        before = SearchStats(**self.stats.__dict__)
        for c in copies:
            for f in ("decisions", "searched", "rollouts", "cpu_seconds", "believed"):
                setattr(self.stats, f, getattr(self.stats, f) + getattr(c.stats, f) - getattr(before, f))
            self.stats.max_rollouts = max(self.stats.max_rollouts, c.stats.max_rollouts)

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        t0 = time.process_time()
        try:
            return self._choose(obs, mask, rng)
        finally:
            self.stats.cpu_seconds += time.process_time() - t0

    def _choose(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        base = np.asarray(self.fallback.act(obs, mask, rng), dtype=np.int64)
        out = base.copy()
        self.stats.decisions += obs.shape[0]
        todo = np.flatnonzero(mask.sum(axis=1) > 1)
        if todo.size == 0:
            return out
        cands = self._candidates(obs[todo], mask[todo], base[todo], rng)
        per_row = max(1, self.batch // self.budget())
        for i in range(0, todo.size, per_row):
            rows = slice(i, i + per_row)
            hist = None if self._histories is None else [self._histories[j] for j in todo[rows]]
            out[todo[rows]] = self._search(obs[todo[rows]], cands[rows], rng, hist)
        return out

    def _candidates(self, obs: np.ndarray, mask: np.ndarray, base: np.ndarray,
                    rng: np.random.Generator) -> list[list[int]]:
        """Candidate actions per row, the fallback's choice first, at most ``actions``."""
        if self.prior == "policy":              # the network's most likely legal actions (its arg max first)
            z = np.where(mask, np.asarray(self.policy.logits(obs, mask), dtype=np.float64), -np.inf)
            order = np.argsort(-z, axis=1, kind="stable")[:, : self.actions]
            n_legal = mask.sum(axis=1)
            return [[int(a) for a in order[r, : min(self.actions, int(n_legal[r]))]] for r in range(obs.shape[0])]
        greedy = self.greedy.act(obs, mask, rng)
        out = []
        for r in range(obs.shape[0]):
            legal = np.flatnonzero(mask[r]).tolist()
            order = [int(base[r]), int(greedy[r])] + ([0] if mask[r, 0] else []) + [legal[-1]] + legal
            seen: list[int] = []
            for a in order:
                if a not in seen:
                    seen.append(a)
                if len(seen) == self.actions:
                    break
            out.append(seen)
        return out

    def _act_grouped(self, obs: np.ndarray, mask: np.ndarray, rngs: list[np.random.Generator],
                     bounds: np.ndarray) -> np.ndarray:
        """Groups of rows, each with its own generator (a tournament's deals), as one call per group would play
        them: each group's worlds are dealt from its generator in the chunks that call would use, and the
        rollouts of all groups are stepped together (up to ``batch`` at a time). Only when the fallback and the
        rollout policy draw nothing (the heuristic, the greedy agent, ``zoo:``); otherwise one call per group."""
        hist_all = self._histories
        if not (getattr(self.fallback, "deterministic", False) and getattr(self.policy, "deterministic", False)):
            if hist_all is None:
                return super()._act_grouped(obs, mask, rngs, bounds)
            out = np.zeros(obs.shape[0], dtype=np.int64)
            try:
                for k, rng in enumerate(rngs):          # one call per group, each with its rows' histories
                    a, b = int(bounds[k]), int(bounds[k + 1])
                    if b > a:
                        self._histories = hist_all[a:b]
                        out[a:b] = self._act(obs[a:b], mask[a:b], rng)
            finally:
                self._histories = hist_all
            return out
        t0 = time.process_time()
        try:
            base = np.asarray(self.fallback.act(obs, mask, rngs[0]), dtype=np.int64)   # draws nothing
            out = base.copy()
            self.stats.decisions += obs.shape[0]
            todo = np.flatnonzero(mask.sum(axis=1) > 1)
            if todo.size == 0:
                return out
            cands = self._candidates(obs[todo], mask[todo], base[todo], rngs[0])
            per_row = max(1, self.batch // self.budget())
            group = np.searchsorted(bounds, todo, side="right") - 1
            pending: list[tuple[np.ndarray, tuple]] = []

            def flush() -> None:
                worlds = State.concat([plan[0] for _, plan in pending])
                values = self._rollout(worlds, np.concatenate([plan[1] for _, plan in pending]), rngs[0])
                start = 0
                for pos, plan in pending:
                    size = plan[1].size
                    out[todo[pos]] = self._decide([cands[j] for j in pos], plan, values[start:start + size])
                    start += size
                pending.clear()

            chunks = []                                          # the chunks of a call on each group alone
            for k, rng in enumerate(rngs):
                pos_k = np.flatnonzero(group == k)
                chunks += [(pos_k[i:i + per_row], rng) for i in range(0, pos_k.size, per_row)]
            for block in self._deal_chunks(obs, todo, chunks):
                for pos, worlds in block:
                    pending.append((pos, self._plan_worlds([cands[j] for j in pos], worlds)))
                    if sum(plan[1].size for _, plan in pending) >= self.batch:
                        flush()
            if pending:
                flush()
            return out
        finally:
            self.stats.cpu_seconds += time.process_time() - t0

    def _search(self, obs: np.ndarray, cands: list[list[int]], rng: np.random.Generator,
                hist: list[PublicHistory] | None = None) -> np.ndarray:
        """The chosen action of each row (see the module doc)."""
        plan = self._plan(obs, cands, rng, hist)
        return self._decide(cands, plan, self._rollout(plan[0], plan[1], rng))

    def _plan(self, obs: np.ndarray, cands: list[list[int]], rng: np.random.Generator,
              hist: list[PublicHistory] | None = None) -> tuple[State, np.ndarray, np.ndarray, np.ndarray]:
        """The rollouts of the rows' decisions: (worlds, one per rollout; first actions; candidates a row;
        worlds a row), the worlds dealt from ``rng`` (from the weighted belief where ``hist`` gives the plays)."""
        if hist is not None and self.belief_model is not None:   # the rows' weighing stepped together
            self.stats.believed += sum(len(h) > 0 for h in hist)
            worlds = belief_worlds_many(self.rules, hist, obs, self.worlds, rng, self.belief_model, self.proposals,
                                        self.draw)
        else:
            worlds = worlds_from_observation(self.rules, obs, self.worlds, rng)
        return self._plan_worlds(cands, worlds)

    def _deal_chunks(self, obs: np.ndarray, todo: np.ndarray,
                     chunks: list[tuple[np.ndarray, np.random.Generator]]) -> Iterator[list[tuple[np.ndarray, State]]]:
        """The worlds of each chunk (rows ``todo[pos]`` dealt from its generator, in order, as :meth:`_plan` deals
        them), in blocks of (pos, worlds). With the hand's plays and a weighted belief, a block's proposals are
        weighed together (up to 32,768 of them at once)."""
        hist_all = self._histories
        if hist_all is None or self.belief_model is None:
            for pos, rng in chunks:
                yield [(pos, worlds_from_observation(self.rules, obs[todo[pos]], self.worlds, rng))]
            return
        block: list[np.ndarray] = []
        drawn: list[Proposals] = []
        size = 0
        for i, (pos, rng) in enumerate(chunks):
            hist = [hist_all[j] for j in todo[pos]]
            self.stats.believed += sum(len(h) > 0 for h in hist)
            drawn.append(draw_proposals(self.rules, hist, obs[todo[pos]], self.worlds, rng, self.proposals))
            block.append(pos)
            size += sum(d.batch_size for d in drawn[-1].dealt)
            if size >= 32768 or i == len(chunks) - 1:
                yield list(zip(block, weigh_proposals(self.rules, drawn, self.worlds, self.belief_model, self.draw),
                               strict=True))
                block, drawn, size = [], [], 0

    def _plan_worlds(self, cands: list[list[int]], worlds: State) -> tuple[State, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_plan` from the rows' dealt worlds (``worlds`` of each row in turn)."""
        R, W = len(cands), self.worlds
        n_c = np.array([len(c) for c in cands])
        if self.rollouts:
            w_r = np.clip(self.rollouts // n_c, 2, W)
            n_c = np.minimum(n_c, self.rollouts // w_r)
        else:
            w_r = np.full(R, W)
        wid, acts = [], []
        for r in range(R):
            for w in range(int(w_r[r])):
                for i in range(int(n_c[r])):
                    wid.append(r * W + w)
                    acts.append(cands[r][i])
        return worlds.take(np.array(wid)), np.array(acts, dtype=np.int64), n_c, w_r

    def _decide(self, cands: list[list[int]], plan: tuple, values: np.ndarray) -> np.ndarray:
        """The chosen action of each row from its rollouts' values (and the counts of the work)."""
        _, acts, n_c, w_r = plan
        R = len(cands)
        n_roll = n_c * w_r
        self.stats.searched += R
        self.stats.rollouts += int(n_roll.sum())
        self.stats.max_rollouts = max(self.stats.max_rollouts, int(n_roll.max()))
        choice = np.empty(R, dtype=np.int64)
        start = 0
        for r in range(R):
            k, w = int(n_c[r]), int(w_r[r])
            v = values[start:start + k * w].reshape(w, k)
            start += k * w
            choice[r] = cands[r][self._pick(v)]
        assert start == acts.size
        return choice

    def _pick(self, v: np.ndarray) -> int:
        """The candidate to play from (worlds, candidates) values: 0 (the heuristic's) unless clearly beaten."""
        mean = v.mean(axis=0)
        best = int(np.argmax(mean))
        if best == 0 or mean[best] <= mean[0]:
            return 0
        diff = v[:, best] - v[:, 0]
        if v.shape[0] < 2:
            return best
        se = diff.std(ddof=1) / np.sqrt(v.shape[0])
        return best if diff.mean() > self.z * se else 0

    def _rollout(self, st, first: np.ndarray, rng: np.random.Generator) -> np.ndarray:  # noqa: ANN001 - a State
        """Play ``first`` in every world, then the hand with the rollout policy until player 0 (seat 0) is out:
        the points of its finishing position (a place, once taken, does not change)."""
        rules = self.rollout_rules
        if type(self.policy) is HeuristicAgent and supported(rules):   # one compiled call (agents/rollouts.py)
            return heuristic_rollouts(rules, st, first, self.policy)
        return self._rollout_stepped(st, first, rng)

    def _rollout_stepped(self, st, first: np.ndarray, rng: np.random.Generator) -> np.ndarray:  # noqa: ANN001
        """:meth:`_rollout` stepped from Python, the rollout policy acting on each step's batch of decisions (a
        network's products on one BLAS thread, the limit set once for all of them)."""
        with one_blas_thread():
            return self._play_out(st, first, rng)

    def _play_out(self, st, first: np.ndarray, rng: np.random.Generator) -> np.ndarray:  # noqa: ANN001
        rules = self.rollout_rules
        points = np.asarray(rules.points, dtype=np.float64)
        n = st.batch_size
        value = np.zeros(n, dtype=np.float64)
        gid = np.arange(n)
        step_inplace(rules, st, first)
        res = np.zeros(n, dtype=bool)
        while True:
            over = st.phase == OVER
            new = (over | (st.finish[:, 0] >= 0)) & ~res
            now_over, now_out = new & over, new & ~over
            value[gid[now_over]] = st.hand_points[now_over, 0]
            value[gid[now_out]] = points[st.finish[now_out, 0]]
            res |= new
            if res.all():
                return value
            if res.sum() * 4 >= res.size:           # drop resolved games now and then
                keep = np.flatnonzero(~res)
                st, gid, res = st.take(keep), gid[keep], res[keep]
            legal = st.legal
            actions = np.argmax(legal, axis=1)
            choose = np.flatnonzero((legal.sum(axis=1) > 1) & ~res)
            if choose.size:
                o = observe(rules, st, current_player(st))
                actions[choose] = self.policy.act(o[choose], legal[choose], rng)
            step_inplace(rules, st, actions)


def _belief(rules: Rules, belief: str | Agent) -> tuple[str, PolicyModel | None]:
    """The ``belief`` setting's name and policy model (None: uniform worlds)."""
    if isinstance(belief, Agent):               # a network built by the registry (search:belief=zoo:president)
        if not isinstance(belief, PolicyAgent):
            raise ValueError(f"search setting belief: {belief.name} is not a network (zoo:NAME, ppo:FILE)")
        if belief.rules != rules:
            raise ValueError(f"search setting belief: {belief.name} was built for other rules")
        return belief.name, network_model(belief)
    if belief == "uniform":
        return belief, None
    if belief == "heuristic":
        return belief, heuristic_model(rules)
    if isinstance(belief, str) and ":" in belief and belief.split(":")[0] != "search":
        raise ValueError(f"search setting belief={belief!r} is an agent spec: build it first and pass the agent "
                         f"(agents.registry.make_agent does for the spec search:belief={belief})")
    raise ValueError(f"search setting belief={belief!r} must be uniform, heuristic, or a network spec such as "
                     f"zoo:president")
