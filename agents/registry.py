"""Agents by name: ``make_agent("greedy", rules)``, ``make_agent("ppo:models/run1.zip", rules)``.

=====================  ==========================================================
spec                   agent
=====================  ==========================================================
``random``             uniform over the legal actions
``greedy``             weakest whole set, passes only when it cannot play
``heuristic``          the strong hand-written player
``ppo:FILE``           a saved MaskablePPO zip, most likely legal action
``ppo-sample:FILE``    the same, sampling from its masked action distribution
=====================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable

from president_env.core import Rules

from .base import Agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent

SCRIPTED: dict[str, Callable[[Rules], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
}
MODEL_PREFIXES = ("ppo", "ppo-sample")


def agent_names() -> list[str]:
    """The names :func:`make_agent` understands (model specs take a file after the colon)."""
    return list(SCRIPTED) + [f"{p}:FILE" for p in MODEL_PREFIXES]


def make_agent(spec: str, rules: Rules) -> Agent:
    """Build the agent ``spec`` names for ``rules``; an unknown name raises ``ValueError`` listing the choices."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}; choices: {', '.join(agent_names())}")
    spec = spec.strip()
    if ":" in spec:
        prefix, path = spec.split(":", 1)
        prefix = prefix.strip().lower()
        if prefix in MODEL_PREFIXES:
            if not path:
                raise ValueError(f"agent spec {spec!r} needs a model file after the colon, e.g. ppo:models/run.zip")
            from .sb3_policy import SB3Agent
            return SB3Agent(path, rules, deterministic=prefix == "ppo", name=spec)
        raise ValueError(f"unknown agent kind {prefix!r} in {spec!r}; choices: {', '.join(agent_names())}")
    key = spec.lower()
    if key not in SCRIPTED:
        raise ValueError(f"unknown agent {spec!r}; choices: {', '.join(agent_names())}")
    return SCRIPTED[key](rules)
