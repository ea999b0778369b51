"""Per-rules constants and per-row holdings shared by the scripted agents.

Vocabulary as in :mod:`president_env.core.cards`: *kinds* are card ranks (jokers
last), *play ranks* are what a set is played as (every non-wild kind, then
``WILD`` for an all-wild set when wild cards exist). ``strength[rev, r]`` orders
play ranks, weakest 0, under the normal order (``rev = 0``) or a revolution.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from president_env.core import Rules, action_table, tables


@dataclass(frozen=True, eq=False)
class PlayConsts:
    K: int                     # kinds
    R: int                     # play ranks
    Rn: int                    # non-WILD play ranks
    S: int                     # largest set
    A: int                     # actions
    P: int                     # players
    has_wild: bool
    play_kind: np.ndarray      # (Rn,) kind of each non-WILD play rank
    wild_kinds: np.ndarray     # kinds that are wild
    kind_count: np.ndarray     # (K,) copies of each kind in the pack
    strength: np.ndarray       # (2, R) int
    act_rank: np.ndarray       # (A-1,) play rank of actions 1..A-1
    act_size: np.ndarray       # (A-1,) size of actions 1..A-1
    trump: np.ndarray          # (R,) bool
    reset: np.ndarray          # (R,) bool
    forbidden: np.ndarray      # (R,) bool: going out with this play rank is a forbidden finish
    forbidden_wild: bool       # a wild card is a forbidden card
    eight: int                 # play rank of the 8 under eight_cut, else -1
    joker_rank: np.ndarray     # (R,) bool: a joker rank (stays on top in a revolution)


@lru_cache(maxsize=128)
def play_consts(rules: Rules) -> PlayConsts:
    t = tables(rules)
    at = action_table(rules)
    Rn = t.n_natural_play
    names = t.play_ranks
    wild_kinds = np.flatnonzero(t.kind_wild)
    wild_names = {t.kinds[k] for k in wild_kinds}
    return PlayConsts(
        K=t.n_kinds, R=t.n_play_ranks, Rn=Rn, S=rules.max_set, A=at.n, P=rules.players,
        has_wild=t.has_wild, play_kind=t.play_kind[:Rn].copy(), wild_kinds=wild_kinds,
        kind_count=t.kind_count.astype(np.int64), strength=t.strength.astype(np.int64),
        act_rank=at.rank[1:].copy(), act_size=at.size[1:].copy(),
        trump=np.array([n in rules.trump_ranks for n in names], dtype=bool),
        reset=np.array([n in rules.reset_ranks for n in names], dtype=bool),
        forbidden=np.array([n in rules.forbidden_finish for n in names], dtype=bool),
        forbidden_wild=bool(wild_names & set(rules.forbidden_finish)),
        eight=names.index("8") if rules.eight_cut else -1,
        joker_rank=np.array([n in ("JK", "BJ", "RJ") for n in names], dtype=bool),
    )


def holdings(c: PlayConsts, hand: np.ndarray) -> np.ndarray:
    """(N, K) kind counts -> (N, R) cards held per play rank (the WILD column counts wild cards)."""
    held = np.zeros((hand.shape[0], c.R), dtype=np.int64)
    held[:, : c.Rn] = hand[:, c.play_kind]
    if c.has_wild:
        held[:, c.Rn] = hand[:, c.wild_kinds].sum(axis=1)
    return held
