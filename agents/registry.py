"""Agents by name: ``make_agent("greedy", rules)``, ``make_agent("ppo:models/run1.zip", rules)``.

=====================  ==========================================================
spec                   agent
=====================  ==========================================================
``random``             uniform over the legal actions
``greedy``             weakest whole set, passes only when it cannot play
``heuristic``          the strong hand-written player
``ppo:FILE``           an agent file (``*.agent.safetensors``), most likely legal action
``ppo-sample:FILE``    the same, sampling from its masked action distribution
``zoo:NAME``           the zoo's trained agent for preset NAME (``president zoo``)
``cfr:FILE``           a small variant's CFR+ average policy (``president cfr``, :mod:`agents.cfr`),
                       looked up by observation, sampled
``search``             determinized search with heuristic rollouts (:mod:`agents.search`);
                       settings after a colon: ``search:worlds=8,actions=5,rollouts=40``,
                       ``search:policy=zoo:president`` (another agent as the rollout policy)
``ismcts``             OpenSpiel's MCTS over resampled worlds (:mod:`agents.openspiel_bot`,
                       needs ``pip install -e ".[openspiel]"``); settings after a colon:
                       ``ismcts:sims=200,worlds=8,uct=2,rollouts=1``
=====================  ==========================================================

An agent file is data: weights and JSON (:mod:`agents.agent_file`). A stable-baselines3
zip can carry pickled Python that runs when it loads, so ``ppo:MODEL.zip`` is refused
unless ``trust_pickle=True`` (``--trust-pickle`` on the command line), and then loads
with a warning; ``president export-agent MODEL.zip OUT`` converts one without unpickling.
"""

from __future__ import annotations

import re
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
ZOO_PREFIX = "zoo"
CFR_PREFIX = "cfr"
SEARCH = "search"
ISMCTS = "ismcts"
#: search settings that may name another agent (``search:policy=zoo:president``): the registry builds it, so that
#: :mod:`agents.search` never imports this module (imports run one way: registry -> search)
SEARCH_AGENT_SETTINGS = ("policy", "fallback", "belief")


def agent_names() -> list[str]:
    """The names :func:`make_agent` understands (model specs take a file after the colon)."""
    return (list(SCRIPTED) + [f"{p}:FILE" for p in MODEL_PREFIXES] + [f"{ZOO_PREFIX}:NAME", f"{CFR_PREFIX}:FILE"]
            + [SEARCH, f"{SEARCH}:SETTINGS", ISMCTS, f"{ISMCTS}:SETTINGS"])


def split_specs(text: str) -> list[str]:
    """A comma-separated list of agent specs; ``search:worlds=8,actions=5`` keeps its settings together
    (an item ``NAME=VALUE`` without a colon continues the spec before it)."""
    out: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if out and re.match(r"\w+=", item) and ":" in out[-1]:
            out[-1] += "," + item
        else:
            out.append(item)
    return out


def make_agent(spec: str, rules: Rules, trust_pickle: bool = False) -> Agent:
    """Build the agent ``spec`` names for ``rules``; an unknown name raises ``ValueError`` listing the choices.

    ``trust_pickle`` allows ``ppo:MODEL.zip`` (a stable-baselines3 zip, which can run code when it loads)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}; choices: {', '.join(agent_names())}")
    spec = spec.strip()
    if ":" in spec:
        prefix, path = spec.split(":", 1)
        prefix = prefix.strip().lower()
        if prefix in MODEL_PREFIXES:
            if not path:
                raise ValueError(f"agent spec {spec!r} needs a model file after the colon, e.g. ppo:models/run.zip")
            return _model_agent(path.strip(), rules, prefix == "ppo", spec, trust_pickle)
        if prefix == SEARCH:
            return _search_agent(path, rules, spec)
        if prefix == ISMCTS:
            return _ismcts_agent(path, rules, spec)
        if prefix == CFR_PREFIX:
            if not path.strip():
                raise ValueError(f"agent spec {spec!r} needs a cfr file after the colon, e.g. cfr:m.cfr.safetensors")
            from .cfr import CfrAgent

            return CfrAgent(path.strip(), rules, name=spec)
        if prefix == ZOO_PREFIX:
            from .agent_file import FileAgent
            from .zoo import zoo_path

            return FileAgent(zoo_path(path), rules, deterministic=True, name=spec)
        raise ValueError(f"unknown agent kind {prefix!r} in {spec!r}; choices: {', '.join(agent_names())}")
    key = spec.lower()
    if key == SEARCH:
        return _search_agent("", rules, spec)
    if key == ISMCTS:
        return _ismcts_agent("", rules, spec)
    if key not in SCRIPTED:
        raise ValueError(f"unknown agent {spec!r}; choices: {', '.join(agent_names())}")
    return SCRIPTED[key](rules)


def _search_agent(settings: str, rules: Rules, spec: str) -> Agent:
    """``search`` with its settings (``worlds=8,actions=5``); a bad one raises ``ValueError`` naming it."""
    from .search import SearchAgent, parse_settings

    try:
        kwargs: dict[str, object] = parse_settings(settings)
        for key in SEARCH_AGENT_SETTINGS:       # an agent spec as the rollout policy or fallback: built here
            value = kwargs.get(key)
            if isinstance(value, str) and ":" in value and value.split(":")[0].strip().lower() != SEARCH:
                kwargs[key] = make_agent(value, rules)
        return SearchAgent(rules, name=spec, **kwargs)  # type: ignore[arg-type]
    except ValueError as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None


def _ismcts_agent(settings: str, rules: Rules, spec: str) -> Agent:
    """OpenSpiel's MCTS over resampled worlds (imports OpenSpiel only now)."""
    from .openspiel_bot import OpenSpielMCTSAgent, parse_settings

    try:
        kwargs = parse_settings(settings)
        return OpenSpielMCTSAgent(rules, name=spec, **kwargs)  # type: ignore[arg-type]
    except ValueError as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None


def _model_agent(path: str, rules: Rules, deterministic: bool, spec: str, trust_pickle: bool) -> Agent:
    """An agent file, or (only when trusted) a stable-baselines3 zip."""
    import zipfile
    from pathlib import Path

    from .agent_file import AgentFileError, FileAgent

    if Path(path).is_file() and zipfile.is_zipfile(path):
        if not trust_pickle:
            raise AgentFileError(
                f"{path} is a stable-baselines3 zip, and loading one can run code stored in it (pickle); "
                f"convert it with `president export-agent {path} OUT.agent.safetensors` (reads only its tensors), "
                "or pass --trust-pickle (trust_pickle=True) if you trust where it came from")
        import warnings

        warnings.warn(f"loading {path} with pickle (--trust-pickle): a stable-baselines3 zip can run code "
                      "from the file when it loads", UserWarning, stacklevel=3)
        from .sb3_policy import SB3Agent

        return SB3Agent(path, rules, deterministic=deterministic, name=spec)
    return FileAgent(path, rules, deterministic=deterministic, name=spec)
