"""Per-rules constants and per-row holdings shared by the scripted agents.

Vocabulary as in :mod:`president_env.core.cards`: *kinds* are card ranks (jokers
last), *play ranks* are what a set is played as (every non-wild kind, then
``WILD`` for an all-wild set when wild cards exist). ``strength[rev, r]`` orders
play ranks, weakest 0, under the normal order (``rev = 0``) or a revolution; the
tables that depend on the order in force (``reset``, ``power_floor``) are indexed
the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from president_env.core import Rules, tables
from president_env.core.actions import rank_table


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
    reset: np.ndarray          # (2, R) bool: single reset cards [normal order, revolution] (revolution_reset_rank)
    forbidden: np.ndarray      # (R,) bool: going out with this play rank is a forbidden finish
    forbidden_wild: bool       # a wild card is a forbidden card
    eight: int                 # play rank of the 8 under eight_cut, else -1
    joker_rank: np.ndarray     # (R,) bool: a joker rank (stays on top in a revolution)
    power: np.ndarray          # (R,) bool: a power rank (power_ranks)
    power_need: np.ndarray     # (R, S+1) int: fewest cards of a power rank beating a set of each size, 0 none
    power_floor: np.ndarray    # (2,) strength of the weakest power rank [normal, revolution]: power beats sets below it
    transparent: int           # play rank of transparent_rank, or -1
    flip_row: tuple[int, ...]  # revolution_by_singles: the lengths of a row of singles that flip the order


@lru_cache(maxsize=128)
def play_consts(rules: Rules) -> PlayConsts:
    t = tables(rules)
    at = rank_table(rules)
    Rn = t.n_natural_play
    names = t.play_ranks
    wild_kinds = np.flatnonzero(t.kind_wild)
    wild_names = {t.kinds[k] for k in wild_kinds}
    S = rules.max_set
    reset = np.array([n in rules.reset_ranks for n in names], dtype=bool)
    rrr = rules.revolution_reset_rank
    reset_rev = np.array([n == rrr for n in names], dtype=bool) if rrr is not None else reset
    # power_ranks as the engine reads them: n x decks cards beat a set of more than that and at most
    # sizes[n-1] x decks cards; the fewest cards that do it, per top size
    power_need = np.zeros((len(names), S + 1), dtype=np.int64)
    for rank, most in rules.power_ranks:
        p = names.index(rank)
        for n, hi in enumerate(most, start=1):
            m = n * rules.decks
            for size in range(m + 1, min(rules.decks * hi, S) + 1):
                if power_need[p, size] == 0:
                    power_need[p, size] = m
    power = power_need.any(axis=1)
    strength = t.strength.astype(np.int64)
    floor = strength[:, power].min(axis=1) if power.any() else np.full(2, len(names), dtype=np.int64)
    flip_row: tuple[int, ...] = ()
    if rules.revolution_by_singles:
        flip_row = (4, 8) if S == 8 else (4,)
    return PlayConsts(
        K=t.n_kinds, R=t.n_play_ranks, Rn=Rn, S=rules.max_set, A=at.n, P=rules.players,
        has_wild=t.has_wild, play_kind=t.play_kind[:Rn].copy(), wild_kinds=wild_kinds,
        kind_count=t.kind_count.astype(np.int64), strength=strength,
        act_rank=at.rank[1:].copy(), act_size=at.size[1:].copy(),
        trump=np.array([n in rules.trump_ranks for n in names], dtype=bool),
        reset=np.stack([reset, reset_rev]),
        forbidden=np.array([n in rules.forbidden_finish for n in names], dtype=bool),
        forbidden_wild=bool(wild_names & set(rules.forbidden_finish)),
        eight=names.index("8") if rules.eight_cut else -1,
        joker_rank=np.array([n in ("JK", "BJ", "RJ") for n in names], dtype=bool),
        power=power, power_need=power_need, power_floor=floor,
        transparent=names.index(rules.transparent_rank) if rules.transparent_rank in names else -1,
        flip_row=flip_row,
    )


def holdings(c: PlayConsts, hand: np.ndarray) -> np.ndarray:
    """(N, K) kind counts -> (N, R) cards held per play rank (the WILD column counts wild cards)."""
    held = np.zeros((hand.shape[0], c.R), dtype=np.int64)
    held[:, : c.Rn] = hand[:, c.play_kind]
    if c.has_wild:
        held[:, c.Rn] = hand[:, c.wild_kinds].sum(axis=1)
    return held
