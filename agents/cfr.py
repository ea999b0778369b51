"""CFR+ over the exact single-hand game tree of a small variant, and its average policy as an agent (``cfr:FILE``).

:func:`solve` runs CFR+ (regret matching+, alternating updates: one player's regrets at a time,
linear averaging: iteration t's strategy weighted by t) compiled with numba over the whole
:class:`~agents.nash_conv.GameTree` of a variant (no profile cut), at the tree's information states
(perfect recall: the player's sequence of observations). Every ``every`` iterations it measures the
NashConv of the average policy with :func:`~agents.nash_conv.nash_conv_of_behaviour` (an independent
exact best response), giving a curve of (iteration, seconds, NashConv).

An agent sees one observation, not the sequence of them, so :class:`CfrAgent` keys its policy by a
hash of the observation row and the legal mask. Where several information states show one such key
(those of different players whose observations agree: an observation does not name the seat; and
one player's histories that its current observation does not tell apart), the file stores their
reach-weighted average: each history's probability
(chance and the average profile) times its information state's average policy, summed and
normalised (an unweighted average where no history of the key is reached). That agent is then a
slightly different profile from the solver's, and its own NashConv (``president exploitability
--agents cfr:F``) may be larger. A file (``*.cfr.safetensors``) is data only: the keys and
probabilities as tensors, and JSON metadata naming the rules it was solved for (never pickle).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numba
import numpy as np

from president_env.core import Rules, n_actions
from president_env.core import observation as O
from president_env.core.files import atomic_writer

from .base import Agent, rules_mismatch
from .nash_conv import GameTree, game_tree, nash_conv_of_behaviour

__all__ = ["CfrAgent", "CfrFileError", "CfrPoint", "CfrResult", "observation_key", "read_cfr_file", "solve",
           "write_cfr_file", "SUFFIX"]

SUFFIX = ".cfr.safetensors"
META_KEY = "president-cfr"
ALGORITHMS = ("cfr+", "mccfr")
CHUNK_SECONDS = 1.0     # the longest compiled call between two looks at Ctrl-C
FORMAT = 1
MAX_HEADER_BYTES = 1 << 20


class CfrFileError(ValueError):
    """A ``cfr:`` file that cannot be used: missing, corrupt, or made for other rules."""


# --------------------------------------------------------------------------- the solver (numba)
@numba.njit(cache=True, nogil=True)
def _regret_match(regret: np.ndarray, iset_off: np.ndarray, sigma: np.ndarray) -> None:  # pragma: no cover
    """sigma = the positive regrets normalised at each information state (uniform where none is positive)."""
    for I in range(iset_off.shape[0] - 1):
        o, e = iset_off[I], iset_off[I + 1]
        s = 0.0
        for j in range(o, e):
            if regret[j] > 0:
                s += regret[j]
        for j in range(o, e):
            if s > 0:
                sigma[j] = regret[j] / s if regret[j] > 0 else 0.0
            else:
                sigma[j] = 1.0 / (e - o)


@numba.njit(cache=True, nogil=True)
def _cfr_plus(iterations: int, done: int, parent: np.ndarray, first_child: np.ndarray, n_children: np.ndarray,
              child_slot: np.ndarray, player: np.ndarray, returns: np.ndarray, root_weight: np.ndarray,
              infoset: np.ndarray, iset_off: np.ndarray, iset_player: np.ndarray, regret: np.ndarray,
              avg: np.ndarray, sigma: np.ndarray, r_acc: np.ndarray, reach_i: np.ndarray, reach_o: np.ndarray,
              v: np.ndarray) -> None:  # pragma: no cover - compiled
    """``iterations`` CFR+ iterations after ``done``: for each player in turn, regret matching+, the reaches
    (its own, the others' and chance's), the values backwards with its counterfactual regrets, then its regrets
    clipped at zero; its average policy gains its reach times the strategy, weighted by the iteration number."""
    N, P = returns.shape
    for t in range(done + 1, done + iterations + 1):
        for i in range(P):
            _regret_match(regret, iset_off, sigma)
            for n in range(N):
                q = parent[n]
                if q < 0:
                    reach_i[n] = 1.0
                    reach_o[n] = root_weight[n]
                else:
                    s = sigma[iset_off[infoset[q]] + child_slot[n]]
                    if player[q] == i:
                        reach_i[n] = reach_i[q] * s
                        reach_o[n] = reach_o[q]
                    else:
                        reach_i[n] = reach_i[q]
                        reach_o[n] = reach_o[q] * s
            for n in range(N - 1, -1, -1):
                k = n_children[n]
                if k == 0:
                    v[n] = returns[n, i]
                    continue
                f = first_child[n]
                o = iset_off[infoset[n]]
                s = 0.0
                for a in range(k):
                    s += sigma[o + a] * v[f + a]
                v[n] = s
                if player[n] == i:
                    ro = reach_o[n]
                    ri = reach_i[n] * t
                    for a in range(k):
                        r_acc[o + a] += ro * (v[f + a] - s)
                        avg[o + a] += ri * sigma[o + a]
            for I in range(iset_off.shape[0] - 1):
                if iset_player[I] != i:
                    continue
                for j in range(iset_off[I], iset_off[I + 1]):
                    r = regret[j] + r_acc[j]
                    regret[j] = r if r > 0 else 0.0
                    r_acc[j] = 0.0


@numba.njit(cache=True, nogil=True)
def _seed_numba(seed: int) -> None:  # pragma: no cover - compiled
    np.random.seed(seed)


@numba.njit(cache=True, nogil=True)
def _mccfr_external(iterations: int, roots: np.ndarray, root_cdf: np.ndarray, first_child: np.ndarray,
                    n_children: np.ndarray, player: np.ndarray, returns: np.ndarray, infoset: np.ndarray,
                    iset_off: np.ndarray, regret: np.ndarray, avg: np.ndarray, stack: np.ndarray, order: np.ndarray,
                    pick: np.ndarray, sig: np.ndarray, v: np.ndarray) -> None:  # pragma: no cover - compiled
    """``iterations`` of external-sampling MCCFR: for each player in turn (the traverser), one deal drawn by its
    chance probability, then the tree walked with every action of the traverser and one sampled action of each
    other player; the traverser's sampled counterfactual regrets are added (plain regret matching, regrets may
    go negative) and each other player's strategy at the nodes it reached is added to its average ("simple"
    averaging, unbiased since its reach is sampled). numba's generator draws (seed it with ``_seed_numba``)."""
    P = returns.shape[1]
    for _ in range(iterations):
        for i in range(P):
            j = np.searchsorted(root_cdf, np.random.random() * root_cdf[-1], side="right")
            top, m = 1, 0
            stack[0] = roots[min(j, roots.shape[0] - 1)]
            while top > 0:                      # pre-order: the sampled subtree
                top -= 1
                n = stack[top]
                order[m] = n
                m += 1
                k = n_children[n]
                if k == 0:
                    continue
                f = first_child[n]
                o = iset_off[infoset[n]]
                s = 0.0
                for a in range(k):
                    if regret[o + a] > 0:
                        s += regret[o + a]
                for a in range(k):
                    if s > 0:
                        sig[f + a] = regret[o + a] / s if regret[o + a] > 0 else 0.0
                    else:
                        sig[f + a] = 1.0 / k
                if player[n] == i:
                    for a in range(k):
                        stack[top] = f + a
                        top += 1
                else:
                    u = np.random.random()
                    c = 0.0
                    pick[n] = k - 1
                    for a in range(k):
                        c += sig[f + a]
                        if u < c:
                            pick[n] = a
                            break
                    stack[top] = f + pick[n]
                    top += 1
                    for a in range(k):
                        avg[o + a] += sig[f + a]
            for q in range(m - 1, -1, -1):         # post-order: values and the traverser's regrets
                n = order[q]
                k = n_children[n]
                if k == 0:
                    v[n] = returns[n, i]
                    continue
                f = first_child[n]
                if player[n] == i:
                    s = 0.0
                    for a in range(k):
                        s += sig[f + a] * v[f + a]
                    v[n] = s
                    o = iset_off[infoset[n]]
                    for a in range(k):
                        regret[o + a] += v[f + a] - s
                else:
                    v[n] = v[f + pick[n]]


@numba.njit(cache=True, nogil=True)
def _normalise(avg: np.ndarray, iset_off: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    for I in range(iset_off.shape[0] - 1):
        o, e = iset_off[I], iset_off[I + 1]
        s = 0.0
        for j in range(o, e):
            s += avg[j]
        for j in range(o, e):
            out[j] = avg[j] / s if s > 0 else 1.0 / (e - o)


@numba.njit(cache=True, nogil=True)
def _by_query(parent: np.ndarray, first_child: np.ndarray, n_children: np.ndarray, child_prob: np.ndarray,
              child_action: np.ndarray, root_weight: np.ndarray, query: np.ndarray, num: np.ndarray,
              den: np.ndarray, num1: np.ndarray, den1: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sum, at each query (distinct observation and legal mask), the histories' policies weighted by their reach
    (``num``/``den``) and unweighted (``num1``/``den1``)."""
    N = parent.shape[0]
    reach = np.empty(N)
    for n in range(N):
        q = parent[n]
        reach[n] = root_weight[n] if q < 0 else reach[q] * child_prob[n]
    for n in range(N):
        k = n_children[n]
        if k == 0:
            continue
        g = query[n]
        f = first_child[n]
        den[g] += reach[n]
        den1[g] += 1.0
        for c in range(f, f + k):
            num[g, child_action[c]] += reach[n] * child_prob[c]
            num1[g, child_action[c]] += child_prob[c]


# --------------------------------------------------------------------------- the solver (Python)
@dataclass(frozen=True)
class CfrPoint:
    """One point of the curve: NashConv of the average policy after ``iteration`` iterations, ``seconds`` of
    solving so far (the tree and the iterations; the NashConv measurements not counted)."""

    iteration: int
    seconds: float
    nash_conv: float


@dataclass
class CfrResult:
    """The solver's state: the tree, the regrets and average-policy sums (flat, each information state's
    actions at ``iset_off[I]:iset_off[I + 1]`` in the order of its legal actions) and the curve."""

    rules: Rules
    tree: GameTree
    iset_off: np.ndarray
    regret: np.ndarray
    avg_sum: np.ndarray
    iterations: int = 0
    seconds: float = 0.0
    curve: list[CfrPoint] = field(default_factory=list)
    algorithm: str = "cfr+"
    interrupted: bool = False      # stopped by Ctrl-C between two chunks (its last iterations not measured)

    def average_policy(self) -> np.ndarray:
        """The average policy, flat per information state (uniform where it was never reached)."""
        out = np.empty_like(self.avg_sum)
        _normalise(self.avg_sum, self.iset_off, out)
        return out

    def child_prob(self) -> np.ndarray:
        """The average policy as the probability of the action leading to each node (roots: 1)."""
        t = self.tree
        pol = self.average_policy()
        out = np.ones(t.n_nodes)
        nonroot = t.parent >= 0
        out[nonroot] = pol[self.iset_off[t.infoset[t.parent[nonroot]]] + t.child_slot[nonroot]]
        return out

    def nash_conv(self) -> float:
        """NashConv of the average policy (:func:`~agents.nash_conv.nash_conv_of_behaviour`)."""
        return nash_conv_of_behaviour(self.tree, self.child_prob()).nash_conv

    def observation_table(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The average policy keyed as :class:`CfrAgent` looks it up: (keys (K, 16) uint8, probabilities (K, A),
        how many keys several information states of one player show), reach-weighted where keys alias (the
        players' information states that show one key, too: an observation does not name the seat)."""
        t = self.tree
        Q, A = t.query_mask.shape
        num, num1 = np.zeros((Q, A)), np.zeros((Q, A))
        den, den1 = np.zeros(Q), np.zeros(Q)
        _by_query(t.parent, t.first_child, t.n_children, self.child_prob(), t.child_action, t.root_weight,
                  t.query, num, den, num1, den1)
        keys = [observation_key(t.query_obs[g], t.query_mask[g]) for g in range(Q)]
        index: dict[bytes, int] = {}
        kid = np.array([index.setdefault(k, len(index)) for k in keys], np.int64)
        K = len(index)
        kn, kd, kn1, kd1 = np.zeros((K, A)), np.zeros(K), np.zeros((K, A)), np.zeros(K)
        np.add.at(kn, kid, num)
        np.add.at(kd, kid, den)
        np.add.at(kn1, kid, num1)
        np.add.at(kd1, kid, den1)
        reached = kd > 0
        probs = np.where(reached[:, None], kn / np.where(reached, kd, 1.0)[:, None], kn1 / kd1[:, None])
        probs /= probs.sum(axis=1, keepdims=True)
        dec = t.n_children > 0
        pairs = np.unique(np.stack([kid[t.query[dec]], t.infoset[dec], t.player[dec].astype(np.int64)], axis=1),
                          axis=0)
        per_player = np.zeros((K, t.returns.shape[1]), np.int64)
        np.add.at(per_player, (pairs[:, 0], pairs[:, 2]), 1)
        key_arr = np.frombuffer(b"".join(index), np.uint8).reshape(K, 16)
        return key_arr, probs, int((per_player > 1).any(axis=1).sum())


def _new_result(rules: Rules, tree: GameTree) -> CfrResult:
    off = np.concatenate([[0], np.cumsum(tree.infoset_actions)]).astype(np.int64)
    return CfrResult(rules=rules, tree=tree, iset_off=off, regret=np.zeros(off[-1]), avg_sum=np.zeros(off[-1]))


def solve(rules: Rules, iterations: int | None = None, seconds: float | None = None, every: int | None = None,
          progress: Callable[[CfrPoint], None] | None = None, tree: GameTree | None = None,
          algorithm: str = "cfr+", seed: int = 0) -> CfrResult:
    """CFR+ (``algorithm="cfr+"``) or external-sampling MCCFR (``"mccfr"``, its samples drawn from ``seed``)
    on the single-hand game of ``rules`` for ``iterations`` iterations or ``seconds`` of solving (the
    tree's building included), whichever is given (both: the first reached). An MCCFR iteration is one
    sampled walk for each player, far cheaper than CFR+'s walk of the whole tree.

    NashConv of the average policy is measured every ``every`` iterations (``None``: after 1, 2, 4, 8, ...
    iterations) and at the end, each point handed to ``progress`` as it comes; its time is not counted in
    the curve's seconds. ``tree`` (a :func:`~agents.nash_conv.game_tree` of ``rules`` without agents) skips
    building it. The compiled iterations run in chunks of about a second; a Ctrl-C (in the main thread) stops
    the solve between two of them and returns what it has, ``interrupted`` set and its last iterations not
    measured (a second Ctrl-C raises KeyboardInterrupt)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer from 0 to 2**32 - 1, got {seed!r}")
    if iterations is None and seconds is None:
        raise ValueError("solve needs iterations or seconds (or both), got neither")
    if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be positive, got {seconds!r}")
    if every is not None and (not isinstance(every, int) or every < 1):
        raise ValueError(f"every must be a positive integer, got {every!r}")
    t0 = time.perf_counter()
    if tree is None:
        tree = game_tree(rules)
    elif tree.agents is not None:
        raise ValueError("the tree was cut to a profile (game_tree(rules, agents)): CFR needs the whole tree")
    res = _new_result(rules, tree)
    N = tree.n_nodes
    res.algorithm = algorithm
    returns = np.ascontiguousarray(tree.returns, np.float64)
    player = tree.player.astype(np.int64)
    if algorithm == "cfr+":
        iset_player = np.zeros(tree.n_infosets, np.int64)      # whose regrets each information state holds
        iset_player[tree.infoset[player >= 0]] = player[player >= 0]
        args = (tree.parent, tree.first_child, tree.n_children, tree.child_slot, player, returns, tree.root_weight,
                tree.infoset, res.iset_off, iset_player, res.regret, res.avg_sum, np.zeros(len(res.regret)),
                np.zeros(len(res.regret)), np.empty(N), np.empty(N), np.empty(N))

        def step(n: int) -> None:
            _cfr_plus(n, res.iterations, *args)
    else:
        roots = np.flatnonzero(tree.parent < 0).astype(np.int64)
        margs = (roots, np.cumsum(tree.root_weight[roots]), tree.first_child, tree.n_children,
                 player, returns, tree.infoset, res.iset_off, res.regret, res.avg_sum,
                 np.empty(N, np.int64), np.empty(N, np.int64), np.zeros(N, np.int64), np.zeros(N), np.empty(N))
        _seed_numba(seed)

        def step(n: int) -> None:
            _mccfr_external(n, *margs)
    solving = time.perf_counter() - t0     # seconds of solving, the measurements left out
    next_point = every if every is not None else 1
    per_iter = 0.0
    with _interrupt_flag() as interrupted:
        while not interrupted:
            left = None if iterations is None else iterations - res.iterations
            if left == 0 or (seconds is not None and solving >= seconds):
                break
            n = next_point - res.iterations
            if left is not None:
                n = min(n, left)
            if per_iter > 0:        # chunks of about a second: Ctrl-C is heard between them
                n = max(1, min(n, int(CHUNK_SECONDS / per_iter)))
                if seconds is not None:
                    n = max(1, min(n, int((seconds - solving) / per_iter) + 1))
            s0 = time.perf_counter()
            step(n)
            dt = time.perf_counter() - s0
            solving += dt
            per_iter = dt / n
            res.iterations += n
            if res.iterations == next_point:
                _measure(res, solving, progress)
                next_point = res.iterations + every if every is not None else 2 * res.iterations
        res.seconds = solving
        res.interrupted = bool(interrupted)
        if not res.interrupted and (not res.curve or res.curve[-1].iteration != res.iterations):
            _measure(res, solving, progress)
    return res


class _Flag(list):
    """Truthy once set (a list so that the signal handler can append to it)."""


@contextlib.contextmanager
def _interrupt_flag() -> Iterator[_Flag]:
    """A flag that the first Ctrl-C (SIGINT) sets instead of raising, so a solve stops between chunks with its work
    whole; a second Ctrl-C raises KeyboardInterrupt as usual. Outside the main thread: a flag never set."""
    flag = _Flag()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, frame: Any) -> None:  # noqa: ARG001 - the signal module's signature
        if flag:
            raise KeyboardInterrupt
        flag.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def _measure(res: CfrResult, solving: float, progress: Callable[[CfrPoint], None] | None) -> None:
    point = CfrPoint(res.iterations, solving, res.nash_conv())
    res.curve.append(point)
    if progress is not None:
        progress(point)


# --------------------------------------------------------------------------- the file
def observation_key(obs: np.ndarray, mask: np.ndarray) -> bytes:
    """The 16-byte key of one decision as an agent sees it: its observation row (float32) and legal mask."""
    o = np.ascontiguousarray(obs, dtype=np.float32).tobytes()
    m = np.ascontiguousarray(mask, dtype=bool).tobytes()
    return hashlib.blake2b(o + b"|" + m, digest_size=16).digest()


def write_cfr_file(path: str | os.PathLike, result: CfrResult) -> Path:
    """Write ``result``'s average policy, keyed by observation (:meth:`CfrResult.observation_table`), as a
    safetensors file with the rules in its JSON metadata."""
    from safetensors.numpy import save

    keys, probs, aliased = result.observation_table()
    last = result.curve[-1] if result.curve and result.curve[-1].iteration == result.iterations else None
    meta: dict[str, Any] = {
        "format": FORMAT, "rules": result.rules.to_dict(), "variant": result.rules.name,
        "observation_size": O.size(result.rules), "n_actions": n_actions(result.rules),
        "algorithm": result.algorithm, "iterations": result.iterations, "seconds": round(result.seconds, 3),
        "nash_conv": None if last is None else last.nash_conv, "information_states": result.tree.n_infosets,
        "keys": int(len(keys)), "aliased_keys": aliased,
    }
    data = save({"keys": keys, "probs": probs.astype(np.float64)}, metadata={META_KEY: json.dumps(meta)})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, binary=True) as f:
        f.write(data)
    return path


def read_cfr_file(path: str | os.PathLike, rules: Rules) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """(metadata, keys (K, 16) uint8, probabilities (K, A)) of a ``cfr:`` file made for ``rules``; a missing,
    corrupt or foreign file raises :class:`CfrFileError` naming what was wrong."""
    path = Path(path)
    if not path.is_file():
        raise CfrFileError(f"{path}: no such cfr file (write one with `president cfr --out {path}`)")
    raw = path.read_bytes()
    if len(raw) < 8:
        raise CfrFileError(f"{path}: not a cfr file (too short to be safetensors: {len(raw)} bytes)")
    n = int.from_bytes(raw[:8], "little")
    if n > min(MAX_HEADER_BYTES, len(raw) - 8):
        raise CfrFileError(f"{path}: not a cfr file (no safetensors header within the file: corrupt or truncated)")
    try:
        header = json.loads(raw[8:8 + n])
        meta = json.loads(header["__metadata__"][META_KEY])
    except (ValueError, KeyError, TypeError) as e:
        raise CfrFileError(f"{path}: not a cfr file (no {META_KEY!r} metadata in its safetensors header: "
                           f"{type(e).__name__} {e})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or "rules" not in meta:
        raise CfrFileError(f"{path}: not a cfr file of format {FORMAT} (its metadata: {str(meta)[:200]})")
    why = rules_mismatch(path, meta, rules, "cfr file")
    if why is not None:
        raise CfrFileError(why)
    from safetensors import SafetensorError
    from safetensors.numpy import load

    try:
        tensors = load(raw)
    except (SafetensorError, ValueError) as e:
        raise CfrFileError(f"{path}: a corrupt cfr file (its tensors: {e})") from None
    keys, probs = tensors.get("keys"), tensors.get("probs")
    A = n_actions(rules)
    if keys is None or probs is None or keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 16 \
            or probs.shape != (keys.shape[0], A):
        raise CfrFileError(f"{path}: a corrupt cfr file (needs keys (K, 16) uint8 and probs (K, {A}); has "
                           f"{ {k: (v.dtype.name, v.shape) for k, v in tensors.items()} })")
    if not (np.isfinite(probs).all() and (probs >= 0).all() and np.allclose(probs.sum(axis=1), 1.0)):
        raise CfrFileError(f"{path}: a corrupt cfr file (a row of probs is not a probability distribution)")
    if len({bytes(k) for k in keys}) != len(keys):
        raise CfrFileError(f"{path}: a corrupt cfr file (a key appears twice)")
    return meta, keys, probs


# --------------------------------------------------------------------------- the agent
class CfrAgent(Agent):
    """The average policy of :func:`solve` read from a ``cfr:`` file, looked up by a hash of the observation and
    the legal mask (:func:`observation_key`; information states that share one are stored as their
    reach-weighted average). An observation the file does not hold (another variant's session, a later hand)
    gets the uniform policy over its legal actions; ``misses`` counts them."""

    deterministic = False

    def __init__(self, path: str | os.PathLike, rules: Rules, name: str | None = None) -> None:
        super().__init__(rules)
        self.meta, keys, probs = read_cfr_file(path, rules)
        self.table = {bytes(k): i for i, k in enumerate(keys)}
        self.probs = probs
        self.misses = 0
        self.name = name or f"cfr:{path}"

    def action_probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(N, A): the probability of each action at each row (zero on illegal actions)."""
        obs, mask = self.check_batch(obs, mask)
        out = np.zeros(mask.shape)
        for r in range(obs.shape[0]):
            i = self.table.get(observation_key(obs[r], mask[r]))
            p = self.probs[i] * mask[r] if i is not None else None
            if p is None or p.sum() <= 0:
                self.misses += 1
                p = mask[r].astype(np.float64)
            out[r] = p / p.sum()
        return out

    def _act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        p = self.action_probabilities(obs, mask)
        c = np.cumsum(p, axis=1)
        u = rng.random(len(p))[:, None] * c[:, -1:]
        a = (c <= u).sum(axis=1)
        a = np.minimum(a, p.shape[1] - 1)
        bad = ~mask[np.arange(len(a)), a]        # rounding at the top: the last legal action
        if bad.any():
            a[bad] = np.array([np.flatnonzero(m)[-1] for m in mask[bad]])
        return a
