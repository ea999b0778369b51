"""``random``: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Picks each legal action with equal probability (pass included when legal)."""

    name = "random"
    uniform_draws = True

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(mask.shape)
        u[~mask] = -1.0
        return np.argmax(u, axis=1)

    def _act_uniform(self, obs: np.ndarray, mask: np.ndarray, u: np.ndarray) -> np.ndarray:
        return np.argmax(np.where(mask, u, -1.0), axis=1)
