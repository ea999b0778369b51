"""Agents for President: one batched policy interface, scripted baselines, trained models, tournaments.

``make_agent("heuristic", rules)`` builds an agent by name (``random``, ``greedy``,
``heuristic``, ``ppo:FILE``); ``agent.act(obs, mask, rng)`` picks one legal action
per row. :mod:`agents.arena` runs duplicate-deal tournaments on the batched core.
"""

from .base import Agent, ObsView, decode
from .registry import agent_names, make_agent

__all__ = ["Agent", "ObsView", "decode", "agent_names", "make_agent"]
