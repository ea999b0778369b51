"""The AEC env as an RLlib ``MultiAgentEnv``: RLlib's own PettingZoo wrapper over ``president_env.raw_env``.

RLlib's :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv` turns an AEC game
into a multi-agent env with one agent acting per step, which is what President is
(the core says who acts: passes, skips, the exchange). Every step returns the next
agent's observation dict (``observation`` and ``action_mask``, unchanged, so the
masking module reads the mask where the env puts it) and its reward since it last
acted; at the end every agent gets its last observation and reward. One env step
is one decision, so RLlib's env steps are the learner's decisions. The env is the raw AEC
env, without PettingZoo's order and bounds checks (RLlib calls it in order, with actions of
the action space, and the env itself refuses an illegal one): they cost a tenth of a step.

``env_config`` keys: ``preset`` (a preset name), ``players``, ``episode`` (``"hand"`` or
``"session"``), ``start_ranks`` (``None`` or ``"random"``) and ``reward`` (``"points"``
or ``"rank"``), as in :func:`president_env.env`.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import president_env

ENV_KEYS = ("preset", "players", "episode", "start_ranks", "reward")


def env_config(preset: str, players: int | None = None, episode: str = "hand", start_ranks: str | None = "random",
               reward: str = "points") -> dict[str, Any]:
    """The ``env_config`` of :class:`PresidentMultiAgentEnv` (plain values: it travels to every EnvRunner)."""
    cfg: dict[str, Any] = {"preset": preset, "episode": episode, "start_ranks": start_ranks, "reward": reward}
    if players:
        cfg["players"] = int(players)
    return cfg


class PresidentMultiAgentEnv(PettingZooEnv):
    """``president_env.raw_env(**config)`` wrapped by RLlib's ``PettingZooEnv`` (agents ``player_0`` ..)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        unknown = sorted(set(config) - set(ENV_KEYS))
        if unknown:
            raise ValueError(f"unknown env_config key(s) {unknown}; keys: {', '.join(ENV_KEYS)}")
        super().__init__(president_env.raw_env(**config))
