"""The search agent's rollouts with the heuristic in every seat, compiled: one call plays them all.

A rollout plays one world (a game state) from a candidate action to the end of the hand, or until
player 0 is out, with the heuristic choosing every decision that has more than one legal action; its
value is the points player 0's place is worth. :func:`heuristic_rollouts` runs a batch of worlds one
after another in compiled code: the rules' step (:mod:`president_env.core.kernel`), the observation of
the player to act and the heuristic's decision (:mod:`agents.heuristic_kernel`) each a compiled call,
with no Python between decisions. It plays exactly what stepping the batch from Python with
``HeuristicAgent.act`` plays (tested): the heuristic sees only its observation, as before.

Rank-level rules only (plays named by a rank and a size); under card-level and poker rules the search
agent steps its rollouts from Python.
"""

from __future__ import annotations

import numpy as np

from president_env.core import Rules
from president_env.core.kernel import fields as F
from president_env.core.kernel.consts import consts
from president_env.core.kernel.jit import compile_for, guard_cache, inlined, njit
from president_env.core.kernel.observe import observe_game
from president_env.core.kernel.step import step_rank
from president_env.core.kernel.views import game_views, rules_views, scratch_views
from president_env.core.state import State

from . import heuristic_kernel as hk
from .heuristic_kernel import agent_params, decide, heuristic_tables

guard_cache(__file__, hk.__file__)

@inlined
def _play_out(b8, b16, b32, keys, opt, tab, first, base, obs, mask, hopt, rk, kd, pneed, holds, par, values):
    T, W = rules_views(opt, tab), scratch_views(base, opt)
    A = opt[F.O_A]
    points = T[F.T_POINTS]
    for b in range(b8.shape[0]):
        G = game_views(b8, b16, b32, keys, opt, b)
        s8, p8, legal, pts = G[F.G_S8], G[F.G_P8], G[F.G_LEGAL], G[F.G_PTS]
        a = first[b]
        if a < 0 or a >= A or legal[a] == 0:
            return b
        while True:
            step_rank(G, T, a, W)
            if s8[F.PHASE] == F.OVER:                   # the hand (the session of one hand) is over
                values[b] = pts[F.HAND_POINTS, 0]
                break
            place = p8[F.FINISH, 0]
            if place >= 0:                              # player 0 is out: its place is taken for good
                values[b] = points[0, place]
                break
            n, a = 0, 0
            for i in range(A):
                mask[i] = legal[i] != 0
                if mask[i]:
                    if n == 0:
                        a = i
                    n += 1
            if n > 1:
                for i in range(obs.shape[0]):
                    obs[i] = 0.0
                observe_game(G, T, p8[F.SEAT_PLAYER, s8[F.CURRENT]], obs)
                a = decide(hopt, rk, kd, pneed, holds, par, obs, mask)
    return -1


@njit(_nrt=False)
def _rollouts_entry(b8, b16, b32, keys, opt, tab, first, base, obs, mask, hopt, rk, kd, pneed, holds, par, values):
    return _play_out(b8, b16, b32, keys, opt, tab, first, base, obs, mask, hopt, rk, kd, pneed, holds, par, values)


def supported(rules: Rules) -> bool:
    """Whether :func:`heuristic_rollouts` plays these rules (the rank-level table)."""
    return not (rules.card_level or rules.poker)


def heuristic_rollouts(rules: Rules, worlds: State, first: np.ndarray, agent: object) -> np.ndarray:
    """Play ``first[b]`` in world ``b`` (edited in place), then the rest of the hand with the heuristic
    ``agent`` (its tuning numbers) in every seat: (B,) points of player 0. ``rules`` must be a session of one
    hand (the search agent's ``rollout_rules``); a ``first`` action that is not legal raises ``ValueError``."""
    if not supported(rules):
        raise ValueError(f"compiled rollouts need rank-level rules; {rules.name} names cards or poker hands")
    c = consts(rules)
    first = np.ascontiguousarray(first, dtype=np.int64)
    if first.shape != (worlds.batch_size,):
        raise ValueError(f"one first action per world: {worlds.batch_size} worlds, got shape {first.shape}")
    values = np.zeros(worlds.batch_size, dtype=np.float64)
    args = (worlds.b8, worlds.b16, worlds.b32, worlds.key_buf, c.opt, c.tab, first, c.workspace(),
            np.zeros(int(c.opt[F.O_D_OBS]), np.float32), np.zeros(int(c.opt[F.O_A]), np.bool_),
            *heuristic_tables(rules), agent_params(agent), values)
    compile_for(_rollouts_entry, args, "heuristic rollouts")
    bad = _rollouts_entry(*args)
    if bad >= 0:
        raise ValueError(f"world {bad}: first action {int(first[bad])} is not legal there")
    return values
