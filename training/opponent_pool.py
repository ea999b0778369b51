"""Opponents for training, sampled per game: scripted baselines and snapshots of the learner.

The pool holds named members (``heuristic``, ``greedy``, ``random``, and frozen
copies of the learner's policy taken during training). Each new game draws, for
every opponent seat, one member with the pool's weights; the snapshot weight is
shared by the snapshots kept (the newest ``max_snapshots``), and goes to the
scripted members while there are none. The VecEnv asks :meth:`sample` when a game
starts and calls ``policies[i]`` on the rows whose opponent is member ``i``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.registry import make_agent
from president_env.core import Rules

SNAPSHOT = "snapshot"


class PolicyAgent(Agent):
    """An SB3 (maskable) policy acting as an agent: a frozen copy (``frozen=True``) or the live one."""

    def __init__(self, rules: Rules, policy: Any, name: str, deterministic: bool = False,
                 frozen: bool = True) -> None:
        super().__init__(rules)
        self.name = name
        self.deterministic = deterministic
        self.policy = copy.deepcopy(policy).to("cpu") if frozen else policy
        if frozen:
            self.policy.set_training_mode(False)

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        with torch.no_grad():     # a privileged critic's policy widens obs itself (training.privileged)
            actions, _ = self.policy.predict(obs, deterministic=self.deterministic, action_masks=mask)
        return np.asarray(actions, dtype=np.int64).reshape(-1)


class OpponentPool:
    """Weighted members, sampled per game and opponent seat."""

    def __init__(self, rules: Rules, weights: Mapping[str, float], max_snapshots: int = 5) -> None:
        scripted = sum(w for name, w in weights.items() if name != SNAPSHOT)
        if any(w < 0 for w in weights.values()) or scripted <= 0:
            raise ValueError(f"pool weights must be non-negative, with a positive weight on a scripted agent "
                             f"(the pool starts without snapshots), got {dict(weights)}")
        self.rules = rules
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.members: list[Agent] = [make_agent(name, rules) for name in weights if name != SNAPSHOT]
        self.snapshots: list[Agent] = []
        self._added = 0

    @property
    def policies(self) -> list[Agent]:
        """Members in index order: scripted first, then the snapshots kept."""
        return self.members + self.snapshots

    def names(self) -> list[str]:
        return [m.name for m in self.policies]

    def add_snapshot(self, policy: Any, label: str) -> None:
        """Freeze ``policy`` (an SB3 policy) into the pool; beyond ``max_snapshots`` it replaces the oldest.

        Slots are reused in place so that member indices already drawn stay valid.
        """
        snap = PolicyAgent(self.rules, policy, f"{SNAPSHOT}@{label}")
        if len(self.snapshots) < self.max_snapshots:
            self.snapshots.append(snap)
        else:
            self.snapshots[self._added % self.max_snapshots] = snap
        self._added += 1

    def probabilities(self) -> np.ndarray:
        """Sampling probability of each member of :attr:`policies`."""
        scripted = [self.weights[m.name] for m in self.members]
        snap = self.weights.get(SNAPSHOT, 0.0)
        if self.snapshots:
            p = scripted + [snap / len(self.snapshots)] * len(self.snapshots)
        else:
            p = scripted
        p = np.asarray(p, dtype=np.float64)
        return p / p.sum()

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, players - 1) member indices for n new games."""
        return rng.choice(len(self.policies), size=(n, self.rules.players - 1), p=self.probabilities())
