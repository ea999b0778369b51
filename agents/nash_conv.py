"""An exact best response and NashConv of a profile of our agents, compiled (no OpenSpiel needed).

The game is the single-hand OpenSpiel game of :mod:`president_env.openspiel` (``episode="hand"``),
walked with our own batched engine: the deal is one chance node (the dealer's seat, uniform, then
every split of the pack that dealer's hand sizes allow, equally likely: one chance history of the
OpenSpiel game each), then the decisions. A player's information state is, as in the OpenSpiel
game, the sequence of its observations after every action so far (the deal's rows included); two
histories share one when those sequences are equal. Sequences are compared by a 128-bit hash that
folds each observation in (two independent 64-bit hashes: a collision among a few million states
has a chance below 10^-25).

:func:`game_tree` builds the tree level by level with the engine (each level one batched step),
keeping flat arrays: parent, child range, player to act, returns, information state and the
distinct (player, observation, legal actions) each decision shows; each agent is asked once per
distinct observation it is shown (:func:`agent_probability_table`). Given the profile, the tree is
cut to what its NashConv reads (below an action the profile never takes, only the best response
of the player who took it goes on): a deterministic profile's tree is a small part of the whole.
Then the profile's values and each player's best response are passes over those arrays in numba.
The best response is the standard one: at each of its information states the best responder takes
the action with the most value summed over the histories there, each weighted by the chance and the
other players' reach. NashConv is the sum over players of best-response value minus profile value.
"""

from __future__ import annotations

import functools
import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numba
import numpy as np

from president_env.core import engine as E
from president_env.core import observation as O
from president_env.core.actions import n_actions
from president_env.core.cards import tables
from president_env.core.memory import check_fits
from president_env.core.rules import Rules
from president_env.core.state import OVER

from .base import Agent, PolicyAgent
from .random_agent import RandomAgent

__all__ = ["GameTree", "NashConvResult", "game_tree", "nash_conv_of_agents", "nash_conv_of_tree",
           "nash_conv_of_behaviour", "agent_probabilities", "agent_probability_table", "tree_memory_estimate",
           "check_tree_fits", "deal_count"]

_SEEDS = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD6E8FEB86659FD93))


# --------------------------------------------------------------------------- hashing (numba)
@numba.njit(cache=True, nogil=True)
def _mix(x: np.uint64) -> np.uint64:   # pragma: no cover - compiled
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@numba.njit(cache=True, nogil=True)
def _hash_rows(words: np.ndarray, extra: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """out[b, j] = hash j of row b of ``words`` (uint32) and the number ``extra[b]``: two multiply-xor chains
    with different odd multipliers, each mixed at the end."""
    B, D = words.shape
    k0 = np.uint64(0x9E3779B97F4A7C15)
    k1 = np.uint64(0xD6E8FEB86659FD93)
    for b in range(B):
        h0 = np.uint64(extra[b]) ^ np.uint64(0x2545F4914F6CDD1D)
        h1 = np.uint64(extra[b]) ^ np.uint64(0x632BE59BD9B4E019)
        for d in range(D):
            w = np.uint64(words[b, d])
            h0 = (h0 ^ w) * k0 + np.uint64(d)
            h1 = (h1 + w) * k1 ^ (h1 >> np.uint64(29))
        out[b, 0] = _mix(h0)
        out[b, 1] = _mix(h1)


@numba.njit(cache=True, nogil=True)
def _fold(prev: np.ndarray, parent: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """out[b] = the sequence hash prev[parent[b]] followed by the row hash rows[b] (each of the two hashes)."""
    for b in range(out.shape[0]):
        for j in range(2):
            out[b, j] = _mix(prev[parent[b], j] * np.uint64(0x9E3779B97F4A7C15) ^ rows[b, j])


@numba.njit(cache=True, nogil=True)
def _row_hash(words: np.ndarray, extra: np.uint64, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The two hashes of one row of uint32 ``words`` and the number ``extra``, as :func:`_hash_rows` computes them."""
    k0 = np.uint64(0x9E3779B97F4A7C15)
    k1 = np.uint64(0xD6E8FEB86659FD93)
    h0 = extra ^ np.uint64(0x2545F4914F6CDD1D)
    h1 = extra ^ np.uint64(0x632BE59BD9B4E019)
    for d in range(words.shape[0]):
        w = np.uint64(words[d])
        h0 = (h0 ^ w) * k0 + np.uint64(d)
        h1 = (h1 + w) * k1 ^ (h1 >> np.uint64(29))
    out[0] = _mix(h0)
    out[1] = _mix(h1)


@numba.njit(cache=True, nogil=True)
def _level_keys(words: np.ndarray, prev: np.ndarray, parent: np.ndarray, who: np.ndarray, legal: np.ndarray,
                seq: np.ndarray, infoset_key: np.ndarray, query_key: np.ndarray) -> None:  # pragma: no cover
    """One level of the tree: ``words`` (B, P, D) the players' observations (as uint32), ``prev`` (M, P, 2) the
    sequence hashes of the level above, ``parent`` (B,) each node's parent there, ``who`` (B,) the player to act
    (-1 at a terminal), ``legal`` (B, A). Fills ``seq`` (B, P, 2) (each player's sequence, this observation
    folded in), ``infoset_key`` (B, 2) (the acting player's sequence) and ``query_key`` (B, 2) (the hash of its
    observation, its legal actions and the player)."""
    B, P, D = words.shape
    A = legal.shape[1]
    h = np.empty(2, np.uint64)
    for b in range(B):
        for q in range(P):
            _row_hash(words[b, q], np.uint64(0), h)
            for j in range(2):
                seq[b, q, j] = _mix(prev[parent[b], q, j] * np.uint64(0x9E3779B97F4A7C15) ^ h[j])
        p = who[b]
        if p < 0:
            continue
        bits = np.uint64(p + 1)
        for a in range(A):                # the legal actions, 64 to a word, folded into the extra number
            if legal[b, a]:
                bits = _mix(bits ^ np.uint64(a + 1) * np.uint64(0xD6E8FEB86659FD93))
        _row_hash(words[b, p], bits, h)
        query_key[b, 0] = h[0]
        query_key[b, 1] = h[1]
        infoset_key[b, 0] = seq[b, p, 0]
        infoset_key[b, 1] = seq[b, p, 1]


def _row_hashes(rows: np.ndarray, extra: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    out = np.empty((rows.shape[0], 2), np.uint64)
    _hash_rows(rows.view(np.uint32), np.ascontiguousarray(extra, dtype=np.int64), out)
    return out


def _fold_hashes(prev: np.ndarray, parent: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.empty((len(parent), 2), np.uint64)
    _fold(prev, np.ascontiguousarray(parent, dtype=np.int64), rows, out)
    return out


# --------------------------------------------------------------------------- the deal
def _first_sizes(play_rules: Rules, dealer: int) -> list[int]:
    """Cards dealt to each player in a hand that ``dealer`` deals (as the OpenSpiel game counts them)."""
    return list(_first_sizes_cached(play_rules, dealer))


@functools.lru_cache(maxsize=64)
def _first_sizes_cached(play_rules: Rules, dealer: int) -> tuple[int, ...]:
    st = E.init(play_rules, 1, keys=np.zeros(1, np.uint64), dealer=dealer)
    by_seat = st.n_cards[0].astype(np.int64) - st.exch_in[0].sum(axis=1) + st.exch_out[0].sum(axis=1)
    sizes = [0] * by_seat.shape[0]
    for s, p in enumerate(st.seat_player[0].tolist()):
        sizes[p] = int(by_seat[s])
    return tuple(sizes)


def _splits(cards: tuple[int, ...], sizes: list[int]):
    """Every split of ``cards`` into hands of ``sizes`` (each hand in increasing order)."""
    if len(sizes) == 1:
        yield (cards,)
        return
    for first in combinations(cards, sizes[0]):
        rest = tuple(c for c in cards if c not in first)
        for others in _splits(rest, sizes[1:]):
            yield (first, *others)


def _multinomial(n: int, sizes: Sequence[int]) -> int:
    out, left = 1, n
    for s in sizes:
        out *= math.comb(left, s)
        left -= s
    return out


def deal_count(rules: Rules) -> int:
    """Chance histories of a hand's deal: over the dealer's seats, the splits of the pack its sizes allow."""
    play_rules = rules.replace(hands_per_session=1)
    return sum(_multinomial(rules.n_cards, _first_sizes(play_rules, d)) for d in range(rules.players))


# --------------------------------------------------------------------------- the tree
@dataclass
class GameTree:
    """A hand's game tree as flat arrays, nodes numbered level by level (a node's children follow it,
    contiguous, in increasing action order).

    ``player[n]`` is the player to act (-1 at a terminal), ``parent[n]`` (-1 at a root: a deal),
    ``first_child``/``n_children`` the children's range, ``child_slot[n]`` which legal action of its
    parent led to ``n`` (its rank among the parent's legal actions; ``child_action[n]`` its id, -1 at
    a root), ``root_weight[n]`` the chance probability of a root's deal, ``returns[n]`` (N, P) the
    hand's points at a terminal, ``infoset[n]`` the information state of the player to act (an index,
    -1 at terminals), ``query[n]`` the distinct (player, observation, legal actions) the node shows
    (-1 at terminals), ``depth[n]`` the length of the players' observation sequences there (within an
    information state it is the same). ``query_obs``/``query_mask``/``query_player`` hold each
    distinct query once. A tree cut to a profile (``game_tree(rules, agents)``) keeps ``agents`` and
    ``child_prob[n]``, the profile's probability of the action that led to ``n``; its stubs are
    childless nodes with player -1 and no returns."""

    rules: Rules
    parent: np.ndarray
    first_child: np.ndarray
    n_children: np.ndarray
    child_slot: np.ndarray
    child_action: np.ndarray
    player: np.ndarray
    root_weight: np.ndarray
    returns: np.ndarray
    infoset: np.ndarray
    n_infosets: int
    infoset_actions: np.ndarray
    query: np.ndarray
    query_obs: np.ndarray
    query_mask: np.ndarray
    query_player: np.ndarray
    depth: np.ndarray
    seconds: float
    agents: tuple[Agent, ...] | None = None
    child_prob: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        """Nodes of the tree past the deal (decisions and terminals)."""
        return int(self.parent.shape[0])

    @property
    def n_decisions(self) -> int:
        """Decision nodes."""
        return int((self.player >= 0).sum())


#: bytes a node of :class:`GameTree` takes while NashConv runs (its arrays, the passes' work arrays
#: and the level being built), by players ``P``: a rough upper bound
def _node_bytes(P: int) -> int:
    return 160 + 24 * P


def tree_memory_estimate(rules: Rules) -> tuple[float, int]:
    """A lower bound on the memory of :func:`nash_conv_of_agents` on ``rules``: (bytes, deals).

    Counted are the deals (each a root of the tree) and, below each, one node per card of the
    smallest hand (a hand lasts at least that many decisions); the whole tree holds many more."""
    deals = deal_count(rules)
    play_rules = rules.replace(hands_per_session=1)
    least = min(min(s for s in _first_sizes(play_rules, d) if s) for d in range(rules.players))
    return float(deals) * (least + 1) * _node_bytes(rules.players), deals


def check_tree_fits(rules: Rules) -> None:
    """Refuse (:class:`~president_env.core.memory.MemoryEstimateError`, with the estimate) a tree that
    cannot fit in the memory available, before any work."""
    need, deals = tree_memory_estimate(rules)
    check_fits(f"an exact best response over a hand of {rules.name} ({deals:,} deals, each a root of the tree)", need)


def _deal_prefixes(rules: Rules, play_rules: Rules) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """Every deal of the first hand: (dealers, deals (R, P, C) bool, chance probabilities (R,),
    each player's observation-sequence hash through the deal (R, P, 2))."""
    P, C = rules.players, rules.n_cards
    D = O.size(rules)
    sl = O.slices(rules)
    kinds = tables(rules).card_kind
    dealers, deals, weights, prefixes = [], [], [], []
    cache: dict[tuple, np.ndarray] = {}

    def deal_row(cards: Sequence[int]) -> np.ndarray:
        row = np.zeros(D, np.float32)
        hand = row[sl["hand"]]
        for c in cards:
            hand[kinds[c]] += 1
        if "own_cards" in sl:
            row[sl["own_cards"]][list(cards)] = 1
        return row

    def prefix(sizes: tuple[int, ...], q: int, hand: tuple[int, ...]) -> np.ndarray:
        """q's observation rows through the deal (as :class:`president_env.openspiel.PresidentState` appends them)."""
        key = (sizes, q, hand)
        h = cache.get(key)
        if h is not None:
            return h
        got = [0] * P
        rows = [deal_row([])]                      # the initial state's row
        while True:
            waiting = [p for p in range(P) if got[p] < sizes[p]]
            if len(waiting) == 1:                  # the last player takes the rest: the deal ends, no deal row
                break
            if not waiting:
                break
            rows.append(deal_row(hand[:got[q]]))
            r = waiting[0]                         # the next card goes to the first player still short
            got[r] += 1
        hs = _row_hashes(np.stack(rows), np.zeros(len(rows)))
        seq = np.array([_SEEDS[0], _SEEDS[1]], np.uint64)[None]
        for i in range(len(rows)):
            seq = _fold_hashes(seq, np.zeros(1, np.int64), hs[i:i + 1])
        h = cache[key] = seq[0]
        return h

    for d in range(P):
        sizes = tuple(_first_sizes(play_rules, d))
        n = _multinomial(C, sizes)
        splits = list(_splits(tuple(range(C)), list(sizes)))
        deal = np.zeros((len(splits), P, C), bool)
        pre = np.zeros((len(splits), P, 2), np.uint64)
        for i, split in enumerate(splits):
            for q, cs in enumerate(split):
                deal[i, q, list(cs)] = True
                pre[i, q] = prefix(sizes, q, cs)
        dealers += [d] * len(splits)
        deals.append(deal)
        weights += [1.0 / P / n] * len(splits)
        prefixes.append(pre)
    return dealers, np.concatenate(deals), np.array(weights), np.concatenate(prefixes)


def _unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first index of each distinct row, each row's distinct index) of an (N, k) uint64 array, exactly (sorted
    on the first column; on the rare tie of distinct rows there, on every column)."""
    keys = np.ascontiguousarray(keys)
    order = np.argsort(keys[:, 0], kind="stable")
    s = keys[order]
    same0 = s[1:, 0] == s[:-1, 0]
    diff = (s[1:] != s[:-1]).any(axis=1)
    if (same0 & diff).any():                     # a collision of the first column: sort on them all
        order = np.lexsort(keys.T[::-1])
        s = keys[order]
        diff = (s[1:] != s[:-1]).any(axis=1)
    new = np.concatenate([[True], diff])
    ids = np.cumsum(new) - 1
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = ids
    return order[new], inverse


def _by_agent(agents: Sequence[Agent]) -> list[tuple[Agent, list[int]]]:
    """Each distinct agent object of a profile with the players it seats."""
    out: list[tuple[Agent, list[int]]] = []
    for p, a in enumerate(agents):
        for agent, seats in out:
            if agent is a:
                seats.append(p)
                break
        else:
            out.append((a, [p]))
    return out


def game_tree(rules: Rules, agents: Sequence[Agent] | None = None) -> GameTree:
    """The single-hand game tree of ``rules`` (refused first, with :func:`check_tree_fits`, when it cannot fit).

    With ``agents`` (one per player) the tree is cut to what their NashConv reads: below an action a
    profile never takes, only the histories of the player who took it are kept (its best response may
    take it; nobody else's reaches there), and below a second such action of another player nothing
    (a childless stub, reached with probability zero by every best response and by the profile).
    A deterministic profile's tree is then a small part of the whole. The agents are asked level by
    level, once per distinct observation; such a tree serves only :func:`nash_conv_of_tree` of these
    agents."""
    check_tree_fits(rules)
    P = rules.players
    if agents is not None and len(agents) != P:
        raise ValueError(f"the game has {P} players; {len(agents)} agents were given")
    t0 = time.perf_counter()
    play_rules = rules.replace(hands_per_session=1)
    dealers, deals, weights, prefixes = _deal_prefixes(rules, play_rules)
    R = len(dealers)
    st = E.init(play_rules, R, keys=np.zeros(R, np.uint64), dealer=np.array(dealers, np.int8), deal=deals,
                hand_no=0)
    D = O.size(rules)
    A = n_actions(rules)
    seq = prefixes                                  # (expanded nodes of the level above, players, 2) sequence hashes
    par = np.arange(R)                              # each expanded node's row there
    ex = np.arange(R)                               # the level's expanded nodes (the others are stubs)
    sets = np.full(R, (1 << P) - 1, np.int64)       # players whose best response may reach each node
    rows_by_dealer = np.array([_deal_rows(play_rules, d, P) for d in range(P)], np.int64)
    parents = [np.full(R, -1, np.int64)]
    slots = [np.zeros(R, np.int64)]
    actions = [np.full(R, -1, np.int64)]
    probs_to = [np.ones(R)]
    depths = [rows_by_dealer[np.array(dealers, np.int64)]]
    players, rets, iskeys, nchild, queries = [], [], [], [], []
    q_obs: list[np.ndarray] = []
    q_mask: list[np.ndarray] = []
    q_player: list[np.ndarray] = []
    q_index: dict[tuple[int, int], int] = {}
    table = np.zeros((0, A))                        # the profile's probabilities by query (with agents)
    base = 0
    while True:
        B = len(sets)
        obs_e = np.empty((len(ex), P, D), np.float32)
        for q in range(P):
            obs_e[:, q] = O.observe(play_rules, st, q)
        over_e = st.phase == OVER
        who_e = E.current_player(st)
        who_e[over_e] = -1
        legal_e = st.legal
        seq_e = np.empty((len(ex), P, 2), np.uint64)
        isk_e = np.zeros((len(ex), 2), np.uint64)
        qk_e = np.zeros((len(ex), 2), np.uint64)
        _level_keys(obs_e.view(np.uint32), seq, par, who_e, legal_e, seq_e, isk_e, qk_e)
        who = np.full(B, -1, np.int64)
        who[ex] = who_e
        players.append(who.astype(np.int8))
        ret = np.zeros((B, P), np.float64)
        if over_e.any():
            ret[ex[over_e]] = st.hand_points[over_e]
        rets.append(ret)
        isk = np.zeros((B, 2), np.uint64)
        isk[ex] = isk_e
        iskeys.append(isk)
        live_e = np.flatnonzero(~over_e)
        nc = np.zeros(B, np.int64)
        nc[ex[live_e]] = legal_e[live_e].sum(axis=1)
        nchild.append(nc)
        qid = np.full(B, -1, np.int64)
        if len(live_e):
            first, inv = _unique_rows(qk_e[live_e])
            ids = np.empty(len(first), np.int64)
            fresh = []
            for j, key in enumerate(map(tuple, qk_e[live_e][first].tolist())):
                g = q_index.get(key)
                if g is None:
                    g = q_index[key] = len(q_index)
                    fresh.append(j)
                ids[j] = g
            rep = live_e[first[fresh]]
            q_obs.append(obs_e[rep, who_e[rep]])
            q_mask.append(legal_e[rep])
            q_player.append(who_e[rep])
            if agents is not None and len(rep):
                new = np.zeros((len(rep), A))
                for agent, seats in _by_agent(agents):      # one call per agent object, whatever seats it has
                    mine = np.flatnonzero(np.isin(who_e[rep], seats))
                    if len(mine):
                        new[mine] = agent_probability_table(agent, q_obs[-1][mine], q_mask[-1][mine])
                table = np.concatenate([table, new])
            qid[ex[live_e]] = ids[inv]
        queries.append(qid)
        if not len(live_e):
            break
        # the next level, before it is made: refused when the tree so far and it cannot fit
        n_next = int(nc.sum())
        state_bytes = sum(b[:1].nbytes for b in st.buffers()) + P * D * 4 + P * 16
        check_fits(f"an exact best response over a hand of {rules.name} (its tree: {base + B:,} nodes so far, "
                   f"{n_next:,} at the next level)", (base + B + n_next) * _node_bytes(P) + n_next * state_bytes)
        pidx, acts = np.nonzero(legal_e[live_e])
        parent_e = live_e[pidx]                       # each child's parent, as a row of the expanded nodes
        parent_level = ex[parent_e]
        if agents is not None:
            prob = table[qid[parent_level], acts]
            mover = np.int64(1) << who_e[parent_e]
            child_sets = np.where(prob > 0, sets[parent_level], sets[parent_level] & mover)
        else:
            prob = np.ones(len(pidx))
            child_sets = sets[parent_level]
        first_slot = np.concatenate([[0], np.cumsum(nc[ex[live_e]])[:-1]])
        parents.append(base + parent_level)
        slots.append(np.arange(len(pidx)) - first_slot[pidx])
        actions.append(acts.astype(np.int64))
        probs_to.append(prob)
        depths.append(depths[-1][parent_level] + 1)
        keep = np.flatnonzero(child_sets != 0)
        children = st.take(parent_e[keep])
        E.step_inplace(play_rules, children, acts[keep].astype(np.int64))
        seq, par, ex, sets = seq_e, parent_e[keep], keep, child_sets
        base += B
        st = children
    parent = np.concatenate(parents)
    player = np.concatenate(players)
    n_children = np.concatenate(nchild)
    N = len(parent)
    first_child = np.zeros(N, np.int64)
    # children follow level by level: a level's children start where the next level starts
    starts = np.cumsum([0] + [len(p) for p in players])
    for lev in range(len(players)):
        a, b = starts[lev], starts[lev + 1]
        first_child[a:b] = b + np.concatenate([[0], np.cumsum(n_children[a:b])[:-1]])
    root_weight = np.zeros(N)
    root_weight[:R] = weights
    # information states: (player, sequence hash) of each decision
    isk = np.concatenate(iskeys)
    dec = player >= 0
    infoset = np.full(N, -1, np.int64)
    keyed = np.concatenate([isk[dec], player[dec, None].astype(np.uint64)], axis=1)
    _, inv = _unique_rows(keyed)
    infoset[dec] = inv
    n_infosets = int(inv.max()) + 1 if len(inv) else 0
    infoset_actions = np.zeros(n_infosets, np.int64)
    infoset_actions[infoset[dec]] = n_children[dec]
    return GameTree(rules=rules, parent=parent, first_child=first_child, n_children=n_children,
                    child_slot=np.concatenate(slots), child_action=np.concatenate(actions), player=player,
                    root_weight=root_weight, returns=np.concatenate(rets), infoset=infoset, n_infosets=n_infosets,
                    infoset_actions=infoset_actions, query=np.concatenate(queries), query_obs=np.concatenate(q_obs),
                    query_mask=np.concatenate(q_mask), query_player=np.concatenate(q_player).astype(np.int64),
                    depth=np.concatenate(depths), seconds=time.perf_counter() - t0,
                    agents=None if agents is None else tuple(agents),
                    child_prob=None if agents is None else np.concatenate(probs_to))


def _deal_rows(play_rules: Rules, dealer: int, P: int) -> int:
    """Observation rows each player has when the hand's first decision comes: the initial one, the one
    after the dealer's seat, one after each card the chance nodes deal, and the first play row."""
    sizes = _first_sizes(play_rules, dealer)
    got = [0] * P
    n = 1
    while True:
        waiting = [p for p in range(P) if got[p] < sizes[p]]
        if len(waiting) <= 1:
            break
        n += 1
        got[waiting[0]] += 1
    return n + 1


# --------------------------------------------------------------------------- the profile
def agent_probabilities(agent: Agent, obs: np.ndarray, mask: np.ndarray) -> dict[int, float]:
    """The probability of each legal action of ``agent`` at one observation.

    Deterministic agents (greedy, heuristic, ``ppo:``) put probability one on their choice;
    ``random`` is uniform over the legal actions; ``ppo-sample:`` is the network's masked softmax;
    any other agent that draws random numbers (``search``) acts with a generator seeded from its
    observation, so it is a fixed deterministic policy of the game."""
    legal = np.flatnonzero(mask)
    if isinstance(agent, RandomAgent):
        return {int(a): 1.0 / len(legal) for a in legal}
    if hasattr(agent, "action_probabilities"):     # a stochastic table policy (cfr:FILE): its probabilities
        p = agent.action_probabilities(obs[None], mask[None])[0]
        return {int(a): float(p[a]) for a in legal if p[a] > 0}
    if isinstance(agent, PolicyAgent) and not agent.deterministic:
        z = agent._finite_logits(obs[None], mask[None])[0][legal]   # PolicyError when the network overflows
        e = np.exp(z - z.max())
        return {int(a): float(p) for a, p in zip(legal, e / e.sum(), strict=True)}
    seed = int.from_bytes(hashlib.blake2b(obs.tobytes() + mask.tobytes(), digest_size=8).digest(), "little")
    a = int(agent.act(obs[None], mask[None], np.random.default_rng(seed))[0])
    return {a: 1.0}


def agent_probability_table(agent: Agent, obs: np.ndarray, mask: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """(N, A) float64: :func:`agent_probabilities` of ``agent`` at each row of ``obs`` (N, D) and ``mask`` (N, A).

    Deterministic rule agents (greedy, heuristic) are asked in batches of ``chunk`` rows; networks
    (``ppo:``, ``ppo-sample:``) one row at a time, as OpenSpiel's :class:`~agents.exploitability.AgentPolicy`
    asks them: a batch's matrix products may round a logit differently in its last bit."""
    N, A = mask.shape
    out = np.zeros((N, A), np.float64)
    if N == 0:
        return out
    if isinstance(agent, RandomAgent):
        return mask / mask.sum(axis=1, keepdims=True)
    if hasattr(agent, "action_probabilities"):     # a stochastic table policy (cfr:FILE), in one call
        return np.asarray(agent.action_probabilities(obs, mask), dtype=np.float64)
    if agent.deterministic and not isinstance(agent, PolicyAgent):
        rng = np.random.default_rng(0)       # never drawn from: the agent is deterministic
        for s in range(0, N, chunk):
            a = agent.act(obs[s:s + chunk], mask[s:s + chunk], rng)
            out[np.arange(s, s + len(a)), a] = 1.0
        return out
    for i in range(N):
        for a, p in agent_probabilities(agent, obs[i], mask[i]).items():
            out[i, a] = p
    return out


@numba.njit(cache=True, nogil=True)
def _profile_values(first_child: np.ndarray, n_children: np.ndarray, child_prob: np.ndarray,
                    returns: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """(N, P): each node's expected returns under the profile (children follow their parent)."""
    N, P = returns.shape
    v = np.zeros((N, P))
    for n in range(N - 1, -1, -1):
        k = n_children[n]
        if k == 0:
            for p in range(P):
                v[n, p] = returns[n, p]
        else:
            f = first_child[n]
            for c in range(f, f + k):
                for p in range(P):
                    v[n, p] += child_prob[c] * v[c, p]
    return v


@numba.njit(cache=True, nogil=True)
def _best_response_value(i: int, parent: np.ndarray, first_child: np.ndarray, n_children: np.ndarray,
                         child_prob: np.ndarray, player: np.ndarray, returns: np.ndarray, root_weight: np.ndarray,
                         infoset: np.ndarray, iset_off: np.ndarray, order: np.ndarray,
                         bounds: np.ndarray) -> float:  # pragma: no cover - compiled
    """Player ``i``'s best-response value against the others' profile: at each of its information states
    the action with the most counterfactual value (the others' and chance's reach times the value)."""
    N = parent.shape[0]
    reach = np.empty(N)
    for n in range(N):
        q = parent[n]
        if q < 0:
            reach[n] = root_weight[n]
        elif player[q] == i:
            reach[n] = reach[q]
        else:
            reach[n] = reach[q] * child_prob[n]
    v = np.zeros(N)
    Q = np.zeros(iset_off[-1])
    best = np.full(iset_off.shape[0] - 1, -1, np.int64)
    for g in range(bounds.shape[0] - 2, -1, -1):
        for j in range(bounds[g], bounds[g + 1]):
            n = order[j]
            k = n_children[n]
            f = first_child[n]
            if k == 0:
                v[n] = returns[n, i]
            elif player[n] != i:
                s = 0.0
                for c in range(f, f + k):
                    s += child_prob[c] * v[c]
                v[n] = s
            else:
                o = iset_off[infoset[n]]
                for c in range(k):
                    Q[o + c] += reach[n] * v[f + c]
        for j in range(bounds[g], bounds[g + 1]):
            n = order[j]
            if n_children[n] == 0 or player[n] != i:
                continue
            I = infoset[n]
            if best[I] < 0:
                o = iset_off[I]
                b = 0
                for c in range(1, iset_off[I + 1] - o):
                    if Q[o + c] > Q[o + b]:
                        b = c
                best[I] = b
            v[n] = v[first_child[n] + best[I]]
    total = 0.0
    for n in range(N):
        if parent[n] < 0:
            total += root_weight[n] * v[n]
    return total


@dataclass(frozen=True)
class NashConvResult:
    """NashConv of a profile: ``gains[p]`` is player p's best-response value minus its value in the profile."""

    nash_conv: float
    gains: tuple[float, ...]
    values: tuple[float, ...]
    seconds: float


def nash_conv_of_tree(tree: GameTree, agents: Sequence[Agent]) -> NashConvResult:
    """NashConv of ``agents`` (one per player) over a :func:`game_tree` (its seconds: the agents' queries and
    the passes, not the tree's building)."""
    P = tree.rules.players
    if len(agents) != P:
        raise ValueError(f"the game has {P} players; {len(agents)} agents were given")
    t0 = time.perf_counter()
    if tree.agents is not None:
        if len(tree.agents) != len(agents) or any(a is not b for a, b in zip(tree.agents, agents, strict=True)):
            raise ValueError("this tree was cut to another profile (game_tree(rules, agents)): build it again for "
                             "these agents, or without agents for any profile")
        res = nash_conv_of_behaviour(tree, tree.child_prob)
        return NashConvResult(res.nash_conv, res.gains, res.values, time.perf_counter() - t0)
    A = tree.query_mask.shape[1]
    table = np.zeros((len(tree.query_player), A))
    for agent, seats in _by_agent(agents):
        rows = np.flatnonzero(np.isin(tree.query_player, seats))
        table[rows] = agent_probability_table(agent, tree.query_obs[rows], tree.query_mask[rows])
    child_prob = np.ones(tree.n_nodes)
    nonroot = tree.parent >= 0
    child_prob[nonroot] = table[tree.query[tree.parent[nonroot]], tree.child_action[nonroot]]
    res = nash_conv_of_behaviour(tree, child_prob)
    return NashConvResult(res.nash_conv, res.gains, res.values, time.perf_counter() - t0)


def nash_conv_of_behaviour(tree: GameTree, child_prob: np.ndarray) -> NashConvResult:
    """NashConv of the behaviour strategy profile that takes the action to node ``n`` with probability
    ``child_prob[n]`` (roots: unused), over ``tree`` (only its node arrays are read): the profile's values,
    then each player's best response, in numba."""
    t0 = time.perf_counter()
    P = tree.returns.shape[1]
    child_prob = np.ascontiguousarray(child_prob, dtype=np.float64)
    if child_prob.shape != (tree.n_nodes,):
        raise ValueError(f"child_prob must have one probability per node ({tree.n_nodes}), got {child_prob.shape}")
    v = _profile_values(tree.first_child, tree.n_children, child_prob, tree.returns)
    roots = tree.parent < 0
    values = tuple(float(x) for x in tree.root_weight[roots] @ v[roots])
    iset_off = np.concatenate([[0], np.cumsum(tree.infoset_actions)]).astype(np.int64)
    order = np.argsort(tree.depth, kind="stable")
    d = tree.depth[order]
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(d)) + 1, [len(d)]]).astype(np.int64)
    player = tree.player.astype(np.int64)
    gains = []
    for i in range(P):
        br = _best_response_value(i, tree.parent, tree.first_child, tree.n_children, child_prob, player,
                                  tree.returns, tree.root_weight, tree.infoset, iset_off, order, bounds)
        gains.append(br - values[i])
    return NashConvResult(float(sum(gains)), tuple(gains), values, time.perf_counter() - t0)


def nash_conv_of_agents(rules: Rules, agents: Sequence[Agent]) -> NashConvResult:
    """NashConv of ``agents`` (one per player, player 0 first) in a single hand of ``rules``, exact and compiled
    (refused before any work when the tree cannot fit in memory: :func:`check_tree_fits`), over the tree cut to
    the profile (``game_tree(rules, agents)``). Its seconds count everything: the tree, the agents' queries and
    the passes."""
    P = rules.players
    if len(agents) != P:
        raise ValueError(f"the game has {P} players; {len(agents)} agents were given")
    t0 = time.perf_counter()
    tree = game_tree(rules, agents)
    res = nash_conv_of_tree(tree, agents)
    return NashConvResult(res.nash_conv, res.gains, res.values, time.perf_counter() - t0)
