"""President in Gymnasium's registry: ``gymnasium.make("president/President-v0")`` after ``import president_env``.

The id is versioned as Gymnasium versions its own (``CartPole-v1``) and PettingZoo its
modules (``president_v0``, the AEC env's ``metadata["name"]``): the version goes up when
the same seeds and actions can give other observations, rewards or games, and
docs/api.md says so. Gymnasium 1.x has no plugin entry points, so the ids exist once
``president_env`` is imported (``gymnasium.make("president_env:president/President-v0")``
imports it for you).
"""

from __future__ import annotations

ENV_ID = "president/President-v0"
"""The single-agent env (``training.gym_env.PresidentGymEnv``); ``make_vec`` gives ``training.vector_env``'s."""


def register_envs() -> None:
    """Register :data:`ENV_ID` with Gymnasium (once; importing ``president_env`` does it)."""
    import gymnasium

    if ENV_ID in gymnasium.registry:
        return
    gymnasium.register(
        id=ENV_ID,
        entry_point="training.gym_env:PresidentGymEnv",
        vector_entry_point="training.vector_env:make_vec",
    )
