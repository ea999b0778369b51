"""Positions from random play, for tests that feed agents and networks observation rows."""

from __future__ import annotations

import numpy as np

from president_env.core import OVER, current_player, init, observe, step


def positions(rules, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n, D) observations and (n, A) legal masks of the player to act, from random play of 64 games with random
    start ranks."""
    st = init(rules, batch_size=64, seed=seed, start_ranks="random")
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < n and not (st.phase == OVER).all():
        live = st.phase != OVER
        obs.append(observe(rules, st, current_player(st))[live])
        masks.append(st.legal[live])
        st = step(rules, st, ((rng.random(st.legal.shape) + 1) * st.legal).argmax(axis=1))
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]
