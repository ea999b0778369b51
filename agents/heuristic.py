"""``heuristic``: a strong hand-written player, vectorised over the batch.

How it thinks (NumPy over the whole batch; it reads only its observation):

* **Card counting.** The cards nobody has shown yet are the pack minus the cards
  played this hand minus its own hand. For every set (rank, size) it estimates the
  chance that some opponent can beat it, taking each unseen card to be with any
  opponent still holding cards: a higher rank of that size (wild cards counted),
  and, as the variant says, a bigger set (``bigger_beats_any``), the same rank
  (``equal_rank_beats``), a transparent set of its size, a trump, a bomb, or a
  power play (``power_ranks``: n power cards against a bigger set of a rank below
  every power rank, so only n of them need be in one hand). A set is *safe* when
  that chance is under 25%, or when it ends the trick at once with the player to
  lead again (trumps, bombs, eights under ``eight_cut``, a completed set under
  ``complete_set_clears``). Under ``locks_out`` and ``single_round`` a play also
  wins the trick when no one else can still act in it.
* **Planning the hand.** The hand is split into groups, one per rank (wild cards
  form a group of their own). Safe groups are *controls*: each wins a lead back.
  The others are *losers*, which have to be led or dumped on a lower play.
* **Leading.** Go out if it can. With at most one loser left it runs out: it
  leads its controls (the cards it may not finish on first) and keeps the loser
  for last. Otherwise it leads its weakest loser whole; when an opponent is down
  to one card it leads a set of two or more, or else its strongest single.
* **Following.** Go out if it can. Dump the weakest loser that fits. Spend a
  control only when it wins the trick and the plan needs the lead (no more than
  one loser more than the controls it keeps) or an opponent is down to three
  cards; otherwise pass and keep it. Break a set or spend wild cards only when
  that wins the trick without leaving it more losers.
* **Knowing the variant.** A play of four under ``revolution`` is judged with the
  rank order turned around: played when the reversed order leaves it fewer
  losers, kept otherwise; under ``revolution_by_singles`` so is the single that
  completes a row (losers first, then the strength of the cards it keeps). A power
  or transparent play wins the trick when the set it leaves on top is safe. Reset
  cards are those of the order in force (``revolution_reset_rank`` under a
  revolution): never losers nor controls, since a single one goes on anything; it
  keeps them to go out on rather than lead one or spend one on a trick (the next
  player would lead), and an opponent's reset does not count against its sets.
  Under ``forbidden_finish`` it never goes out on a
  forbidden card while anything else is legal, avoids plays that would leave it
  only forbidden cards, and leads those first when running out. ``compulsory_beat``
  takes away its passes, so it then plays its cheapest legal set.
* **Exchange.** It gives back its least useful cards: the weakest single cards
  first, then cards from triples, then from pairs; never a control, joker, wild
  card, trump, power or reset card or eight (``eight_cut``) while anything else is
  left. A merchant's trade (``merchant_trade``) gives its least useful card the same way.
* **Poker combinations** (``combinations poker``): the same plan (controls and losers by
  rank groups, counted the same way) chooses a claim, then its cards are picked one by
  one: it leads natural 5-card hands and its weakest groups whole, keeps made hands and
  wild twos, and picks naturals before wild cards, weakest suits first (agents/_poker.py).
"""

from __future__ import annotations

import numpy as np

from ._cards import pick_cards, project
from ._poker import act as poker_act
from .base import Agent
from .heuristic_kernel import RESET_WEIGHT, SAFE_BELOW, agent_params, decide_rows, heuristic_tables


class HeuristicAgent(Agent):
    """Plans its hand around its controls, counts cards and knows the variant (see the module docstring).

    The thinking is compiled, one decision at a time (:mod:`agents.heuristic_kernel`); the numbers below tune
    it (a subclass or an instance may change them)."""

    name = "heuristic"
    deterministic = True

    #: a set counts as safe when the chance that an opponent can beat it is below this
    safe_below: float = SAFE_BELOW
    #: while following, keep a control unless it leaves at most this many more losers than controls
    spare_controls: int = 1
    #: ... or an opponent has at most this many cards left
    near_out: int = 3
    #: score taken off a play that leaves only cards it may not finish on
    stuck_penalty: float = 300.0
    #: how likely an opponent holding a reset card is taken to end a trick with it (a reset does not give
    #: the lead to its player, and the heuristic itself keeps its resets to go out on)
    reset_weight: float = RESET_WEIGHT

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.rules.poker:  # a claim, then its cards one by one (agents/_poker.py)
            return poker_act(self.rules, obs, mask, smart=True)
        if self.rules.card_level:  # plan by rank, then pick the cards (agents/_cards.py)
            return pick_cards(self.rules, obs, mask, self._act_rank(obs, project(self.rules, mask), rng))
        return self._act_rank(obs, mask, rng)

    def _act_rank(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The choice on the rank-level table (plays named by rank and size) of each row."""
        out = np.empty(obs.shape[0], dtype=np.int64)
        decide_rows(*heuristic_tables(self.rules), agent_params(self), np.ascontiguousarray(obs, dtype=np.float32),
                    np.ascontiguousarray(mask, dtype=np.bool_), out)
        return out
