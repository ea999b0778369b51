"""``greedy``: the lowest legal set that keeps its other sets whole; pass only when it cannot play.

Among the legal plays it takes, in this order of preference:

1. a set that uses exactly the cards it holds of that rank (no wild cards, nothing
   left behind), the weakest first;
2. otherwise a set that breaks one rank but keeps the wild cards, the weakest
   (then smallest) first;
3. otherwise a set that needs wild cards, the weakest first.

It passes only when no play is legal. In the exchange it gives back its weakest
cards. "Weakest" follows the rank order in force (a revolution turns it around).
Under poker combinations it claims in the same tiers (a claim that needs no wild card
and takes whole groups first; the weakest play on a lead, the weakest claim that beats
on a follow) and picks the claim's weakest cards, naturals first (agents/_poker.py).
"""

from __future__ import annotations

import numpy as np

from ._cards import pick_cards, project
from ._plays import holdings, play_consts
from ._poker import act as poker_act
from .base import Agent, decode


class GreedyAgent(Agent):
    """Plays its weakest whole set; passes only when it has no legal play."""

    name = "greedy"
    deterministic = True

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.rules.poker:  # a claim, then its cards one by one (agents/_poker.py)
            return poker_act(self.rules, obs, mask, smart=False)
        if self.rules.card_level:  # plan by rank, then pick the cards (agents/_cards.py)
            return pick_cards(self.rules, obs, mask, self._act_rank(obs, project(self.rules, mask), rng))
        return self._act_rank(obs, mask, rng)

    def _act_rank(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        c = play_consts(self.rules)
        v = decode(self.rules, obs)
        held = holdings(c, v.hand)[:, c.act_rank]                 # (N, A-1) cards of each action's rank
        size = c.act_size[None, :]
        strength = c.strength[v.revolution.astype(np.int64)][:, c.act_rank]
        exchange = (v.phase == 0)[:, None]
        uses_wild = size > held
        exact = size == held
        S1 = c.S + 1
        play_key = ((uses_wild * 2 + ~exact) * (c.R + 1) + strength) * S1 + size
        give_key = strength * S1 + size
        key = np.where(exchange, give_key, play_key).astype(np.float64)
        key[~mask[:, 1:]] = np.inf
        best = np.argmin(key, axis=1)
        can_play = np.isfinite(key[np.arange(len(best)), best])
        return np.where(can_play, best + 1, 0)
