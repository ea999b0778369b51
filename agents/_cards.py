"""Card-level rules (``suit_rule``, ``runs``) for the scripted agents: plan by rank, then pick the cards.

The scripted agents plan with the rank-level (rank, size) table: :func:`project` turns a
card-level mask into that table's mask (a (rank, size) is legal when some set of it is),
the agent picks a (rank, size), and :func:`pick_cards` turns it back into a card-level
id: the legal set of that (rank, size) with the fewest wild cards, then the fewest cards
taken out of a run the hand holds, then the weakest suits (under ``suit_rule rank`` the
strongest suit card is what beats, so it is kept). Runs are decided here: lead the
longest natural run the hand holds (unless the rank-level choice goes out), and beat a
run on top with the weakest natural run that does; otherwise the rank-level choice stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from president_env.core import Rules, action_table, tables
from president_env.core import observation as O
from president_env.core.actions import rank_table


@dataclass(frozen=True, eq=False)
class CardConsts:
    Js: int                    # set ids 1..Js, runs after
    A_rank: int
    proj: np.ndarray           # (Js, A_rank) float32: set -> its rank-level id
    set_rid: np.ndarray        # (Js,)
    set_w: np.ndarray          # (Js,) wild cards
    set_key: np.ndarray        # (2, Js) suit strength of its strongest natural card [normal, revolution]
    set_cards: np.ndarray      # (Js, C) float32 natural cards it names
    run_cards: np.ndarray      # (Jr, C) float32 natural cards a run names
    run_L: np.ndarray          # (Jr,)
    run_cmp: np.ndarray        # (2, Jr) strength of the card a run is compared by [normal, revolution]
    base_runs: np.ndarray      # (C, Jb) float32 the shortest runs (length ``runs``), by their cards
    base_len: np.ndarray       # (Jb,)


@lru_cache(maxsize=64)
def card_consts(rules: Rules) -> CardConsts:
    at, rt, t = action_table(rules), rank_table(rules), tables(rules)
    Js = int(np.sum(at.run[1:] == 0))
    C = t.n_cards
    names = np.array(t.card_names)
    cards = np.zeros((at.n, C), dtype=np.float32)
    for j in range(1, at.n):
        for n in set(at.cards[j]):
            cards[j, np.flatnonzero(names == n)[0]] = 1   # the first copy stands for the name
    set_rid = at.rank_id[1:Js + 1]
    proj = np.zeros((Js, rt.n), dtype=np.float32)
    proj[np.arange(Js), set_rid] = 1
    suit = t.card_suit
    hi = np.array([max((suit[np.flatnonzero(names == n)[0]] for n in at.cards[j]), default=-1)
                   for j in range(1, Js + 1)])
    lo = np.array([min((suit[np.flatnonzero(names == n)[0]] for n in at.cards[j]), default=4)
                   for j in range(1, Js + 1)])
    runs = np.arange(Js + 1, at.n)
    L = at.run[runs]
    st = t.strength
    lo_p = at.rank[runs]
    run_cmp = np.stack([st[0][lo_p + L - 1], st[1][lo_p]]) if runs.size else np.zeros((2, 0), np.int64)
    base = runs[(L == rules.runs) & np.array([len(at.cards[j]) == rules.runs for j in runs], dtype=bool)] \
        if runs.size else runs
    return CardConsts(
        Js=Js, A_rank=rt.n, proj=proj, set_rid=set_rid, set_w=at.wild[1:Js + 1],
        set_key=np.stack([hi, np.where(lo < 4, 3 - lo, -1)]), set_cards=cards[1:Js + 1],
        run_cards=cards[runs], run_L=L, run_cmp=run_cmp,
        base_runs=cards[base].T.copy(), base_len=at.run[base],
    )


def project(rules: Rules, mask: np.ndarray) -> np.ndarray:
    """(N, A) card-level mask -> (N, A_rank) rank-level mask: a (rank, size) is legal when one of its sets is."""
    k = card_consts(rules)
    out = np.zeros((mask.shape[0], k.A_rank), dtype=bool)
    out[:, 0] = mask[:, 0]
    out |= (mask[:, 1:k.Js + 1].astype(np.float32) @ k.proj) > 0
    return out


def pick_cards(rules: Rules, obs: np.ndarray, mask: np.ndarray, rank_choice: np.ndarray,
               play_runs: bool = True) -> np.ndarray:
    """The card-level id for each row's rank-level choice (0 stays pass), runs decided as the module says."""
    k = card_consts(rules)
    sl = O.slices(rules)
    N = mask.shape[0]
    ar = np.arange(N)
    own = obs[:, sl["own_cards"]]
    rev = (obs[:, sl["revolution"].start] > 0.5).astype(np.int64)
    in_run = np.zeros_like(own)
    if rules.runs and k.base_len.size:
        full = (own @ k.base_runs) >= k.base_len[None, :] - 0.5          # (N, Jb) runs held whole
        in_run = (full.astype(np.float32) @ k.base_runs.T) > 0
    cost = k.set_w[None, :] * 1000.0 + (in_run.astype(np.float32) @ k.set_cards.T) * 10.0 + k.set_key[rev]
    cand = mask[:, 1:k.Js + 1] & (k.set_rid[None, :] == rank_choice[:, None])
    cost = np.where(cand, cost, np.inf)
    best = np.argmin(cost, axis=1)
    out = np.where((rank_choice > 0) & np.isfinite(cost[ar, best]), best + 1, 0)
    if rules.runs and play_runs and k.run_L.size:
        runs = mask[:, k.Js + 1:]
        natural = runs & ((own @ k.run_cards.T) >= k.run_L[None, :] - 0.5)    # no wild card needed
        strength = k.run_cmp[rev]
        leading = obs[:, sl["leading"].start] > 0.5
        on_run = obs[:, sl["top_run"].start] > 0.5
        n_own = own.sum(axis=1)
        goes_out = rank_table(rules).size[rank_choice] >= n_own
        lead_key = np.where(natural, k.run_L[None, :] * 100.0 - strength, -np.inf)
        beat_key = np.where(natural, -strength.astype(np.float64), -np.inf)
        key = np.where(leading[:, None], lead_key, beat_key)
        j = np.argmax(key, axis=1)
        use = np.isfinite(key[ar, j]) & ((leading & ~goes_out) | on_run)
        out = np.where(use, k.Js + 1 + j, out)
    return out
