"""Weighted worlds: deals of the hidden cards weighted by how likely the opponents' plays so far are.

:func:`president_env.core.resample.worlds_from_observation` deals the hidden cards uniformly among
the deals consistent with one observation. A player at the table knows more: it saw every play of
this hand, and an opponent holding some cards would have played differently. This module weights
each dealt world by the likelihood of the opponents' plays under a *policy model* (importance
sampling, then resampling by weight when plain worlds are wanted):

1. :class:`PublicHistory` is what one player saw of the hand's play phase: its own observation
   before each play (``observe`` of that player, nothing else of the state) and who made which
   play. :class:`HistoryRecorder` keeps one per game of a batch while the games are stepped.
2. :func:`weigh_worlds` deals ``proposals`` worlds uniformly from the player's observation now,
   rebuilds each world at the start of the play phase (each seat's hidden hand now plus the cards
   it has played since), replays the hand's plays through the engine and adds, at each opponent's
   play, the log-probability the model gives that play from that opponent's observation in that
   world. A world in which a recorded play would be illegal gets weight 0.
3. :func:`belief_worlds` draws ``n`` worlds from those by weight (``distinct``: ``n`` different
   proposals, without replacement; or ``systematic`` resampling, which repeats likely ones), ready for
   a search's rollouts.

Models (:data:`PolicyModel`: observations and legal masks -> log-probabilities) come from
:func:`heuristic_model` (the heuristic's choice with probability ``1 - eps``, the other legal
actions sharing ``eps``: a softmax over the score "is the heuristic's choice") and
:func:`network_model` (a network agent's masked softmax, ``zoo:NAME``). Importance weights, not
rejection: a whole hand's likelihood is often below 1e-6, so rejection against the bound 1 would
keep almost nothing (docs/search.md, "Weighted worlds").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from president_env.core import PLAY, Rules, observe, refresh_legal, step_inplace, tables
from president_env.core import observation as O
from president_env.core.resample import worlds_from_observation
from president_env.core.state import State

from .base import Agent, PolicyAgent
from .heuristic import HeuristicAgent

#: a policy model: (N, D) observations and (N, A) legal masks -> (N, A) log-probabilities of each action
PolicyModel = Callable[[np.ndarray, np.ndarray], np.ndarray]
MAX_PROPOSALS = 65536


@dataclass
class PublicHistory:
    """One player's view of the current hand's play phase, oldest first.

    ``obs[t]``: the player's observation just before play ``t``; ``actors[t]``: the seat that made it,
    counted from the player's seat (0 the player, 1 the next seat in the seat order); ``actions[t]``:
    the action id. Nothing else of the game is kept: this is what the player saw at the table."""

    obs: list[np.ndarray] = field(default_factory=list)
    actors: list[int] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)

    def copy(self) -> PublicHistory:
        """A copy whose lists can grow apart from this one's."""
        return PublicHistory(list(self.obs), list(self.actors), list(self.actions))


class HistoryRecorder:
    """A :class:`PublicHistory` for one observing player in each game of a batch, kept while the games are played.

    Call :meth:`record` with the state and the actions just before every ``step_inplace``; it reads
    only ``observe(rules, state, observer)``, who is to act and the public actions (a play is public)."""

    def __init__(self, rules: Rules, observers: int | np.ndarray, batch_size: int) -> None:
        self.rules = rules
        self.observers = np.broadcast_to(np.asarray(observers, dtype=np.int64), (batch_size,)).copy()
        if ((self.observers < 0) | (self.observers >= rules.players)).any():
            raise ValueError(f"observers must be players 0..{rules.players - 1}, got {self.observers.tolist()}")
        self.histories = [PublicHistory() for _ in range(batch_size)]
        self._hand = np.full(batch_size, -1, np.int64)

    def keep(self, idx: np.ndarray) -> None:
        """Keep only the games ``idx`` (in that order), as a batch dropping its finished games does."""
        idx = np.asarray(idx, dtype=np.int64)
        self.histories = [self.histories[i] for i in idx.tolist()]
        self.observers, self._hand = self.observers[idx], self._hand[idx]

    def record(self, state: State, actions: np.ndarray, where: np.ndarray | None = None) -> None:
        """Note the plays about to be made (``where``: only those games step)."""
        B = state.batch_size
        if B != len(self.histories):
            raise ValueError(f"the recorder keeps {len(self.histories)} games, the state has {B}")
        rows = np.flatnonzero((state.phase == PLAY) if where is None else (state.phase == PLAY) & where)
        new_hand = state.hand_no.astype(np.int64) != self._hand
        for b in np.flatnonzero(new_hand | (state.phase != PLAY)).tolist():
            if self._hand[b] != state.hand_no[b] or state.phase[b] != PLAY:
                self.histories[b] = PublicHistory()
                self._hand[b] = -1
        if rows.size == 0:
            return
        obs = observe(self.rules, state.take(rows), self.observers[rows])
        P = self.rules.players
        for i, b in enumerate(rows.tolist()):
            seat_obs = int(np.argmax(state.seat_player[b] == self.observers[b]))
            h = self.histories[b]
            h.obs.append(obs[i].copy())
            h.actors.append((int(state.current[b]) - seat_obs) % P)
            h.actions.append(int(actions[b]))
            self._hand[b] = int(state.hand_no[b])


class TableHistories:
    """Every player's own :class:`PublicHistory` in each game of a batch (one :class:`HistoryRecorder` per player):
    what a player that deals from a weighted belief is handed when it acts (the arena, the warm start's games)."""

    def __init__(self, rules: Rules, batch_size: int) -> None:
        self.recorders = [HistoryRecorder(rules, p, batch_size) for p in range(rules.players)]

    def views(self, rows: np.ndarray, players: np.ndarray) -> list[PublicHistory]:
        """The history of game ``rows[i]`` as player ``players[i]`` saw it, for each ``i``."""
        return [self.recorders[int(p)].histories[int(b)] for b, p in zip(rows.tolist(), players.tolist(), strict=True)]

    def record(self, state: State, actions: np.ndarray, where: np.ndarray | None = None) -> None:
        """:meth:`HistoryRecorder.record` for every player."""
        for rec in self.recorders:
            rec.record(state, actions, where=where)

    def keep(self, idx: np.ndarray) -> None:
        """:meth:`HistoryRecorder.keep` for every player."""
        for rec in self.recorders:
            rec.keep(idx)


def wants_history(agent: object) -> bool:
    """Whether ``agent`` deals its worlds from a weighted belief, so must be handed the hand's plays
    (``act_with_history``; a search with ``belief=heuristic`` or ``belief=zoo:NAME``)."""
    return getattr(agent, "belief_model", None) is not None


# --------------------------------------------------------------------------- policy models
def heuristic_model(rules: Rules, eps: float = 0.5) -> PolicyModel:
    """The heuristic as a policy: its choice with probability ``1 - eps``, the other legal actions ``eps`` shared."""
    if isinstance(eps, bool) or not isinstance(eps, int | float) or not 0.0 < eps < 1.0:
        raise ValueError(f"heuristic_model: eps must be a number strictly between 0 and 1, got {eps!r}")
    agent = HeuristicAgent(rules)
    rng = np.random.default_rng(0)          # the heuristic draws nothing

    def model(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        choice = agent.act(obs, mask, rng)
        n = mask.sum(axis=1, keepdims=True)
        other = np.log(np.where(n > 1, eps / np.maximum(n - 1, 1), 1.0))
        out = np.where(mask, other, -np.inf)
        out[np.arange(len(choice)), choice] = np.where(n[:, 0] > 1, np.log1p(-eps), 0.0)
        return out

    return model


def network_model(agent: Agent, temperature: float = 4.0) -> PolicyModel:
    """A network agent's masked softmax of its logits over ``temperature`` (``zoo:NAME``, ``ppo:FILE``)."""
    if not isinstance(agent, PolicyAgent):
        raise ValueError(f"network_model: agent must be a network agent (zoo:NAME, ppo:FILE), got {agent.name!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or not 0.0 < temperature < 1e6:
        raise ValueError(f"network_model: temperature must be a positive number, got {temperature!r}")

    def model(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.where(mask, np.asarray(agent.logits(obs, mask), dtype=np.float64) / temperature, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=1, keepdims=True))

    return model


# --------------------------------------------------------------------------- the worlds at the start of the play
def _played_by_seat(rules: Rules, history: PublicHistory, now: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Cards each seat (world numbering) has played since the history began: (P, K) by kind, (P, C) by card."""
    sl = O.slices(rules)
    P = rules.players
    t = tables(rules)
    rows = np.stack(history.obs + [now])
    kinds = np.rint(rows[:, sl["played"]]).astype(np.int64)
    by_kind = np.zeros((P, t.n_kinds), np.int64)
    by_card = np.zeros((P, t.n_cards), bool) if "played_cards" in sl else None
    cards = rows[:, sl["played_cards"]] > 0.5 if by_card is not None else None
    for i, seat in enumerate(history.actors):
        by_kind[seat] += np.maximum(kinds[i + 1] - kinds[i], 0)
        if by_card is not None:
            by_card[seat] |= cards[i + 1] & ~cards[i]
    return by_kind, by_card


def rewind(rules: Rules, history: PublicHistory, worlds: State, now: np.ndarray) -> tuple[State, np.ndarray]:
    """Each world of ``worlds`` (dealt from the observation ``now``, the player in seat 0) as it stood before the
    history's first play: every hidden hand given back the cards its seat has played since. Returns the states
    and (M,) whether the world fits (its hands hold what the counts then say)."""
    t = tables(rules)
    M = worlds.batch_size
    start = worlds_from_observation(rules, history.obs[0][None], 1, np.random.default_rng(0))
    st = start.take(np.zeros(M, np.int64))
    by_kind, by_card = _played_by_seat(rules, history, now)
    kind = t.card_kind.astype(np.int64)
    onehot = np.eye(t.n_kinds, dtype=np.int64)[kind]
    if by_card is not None:                       # card-level rules: cards by id
        hands = worlds.hands.copy()
        hands[:, 1:] |= by_card[None, 1:]
        hands[:, 0] = st.hands[:, 0]
    else:                                         # kinds only: any ids of each kind, seat by seat
        counts = worlds.counts.astype(np.int64) + by_kind[None]
        counts[:, 0] = st.counts[:, 0]
        if rules.president_must_win:              # cards discarded since: the fallen President's hand
            gone = np.maximum(worlds.discarded.astype(np.int64) - st.discarded.astype(np.int64), 0)
            fallen = np.argmax(st.social == 0, axis=1)
            other = (st.social == 0).any(axis=1) & (fallen != 0)     # the player's own hand it knew
            counts[np.arange(M), fallen] += np.where(other[:, None], gone, 0)
        cum = np.cumsum(counts, axis=1)                                         # (M, P, K)
        first = np.searchsorted(kind, np.arange(t.n_kinds))
        within = np.arange(t.n_cards) - first[kind]                            # (C,)
        hi = cum[:, :, kind]                                                    # (M, P, C)
        lo = hi - counts[:, :, kind]
        hands = (lo <= within) & (within < hi)
    st.hands[:] = hands
    st.counts[:] = (hands.astype(np.int64) @ onehot).astype(st.counts.dtype)
    fits = (hands.sum(axis=2) == st.n_cards.astype(np.int64)).all(axis=1) & (hands.sum(axis=1) <= 1).all(axis=1)
    seat0 = history.actors[0]
    st.current[:] = seat0
    no_top = st.top_rank < 0
    st.leader[:] = np.where(no_top, seat0, st.leader)
    sl = O.slices(rules)
    first_hand = (st.social < 0).any(axis=1)
    nothing_played = np.rint(history.obs[0][sl["played"]]).sum() == 0
    if rules.first_lead == "lowest_card" and rules.lead_card is None and nothing_played:
        st.first_lead[:] = first_hand & no_top
    refresh_legal(rules, st)
    return st, fits


def history_log_likelihood(rules: Rules, history: PublicHistory, worlds: State, now: np.ndarray,
                           model: PolicyModel | None) -> np.ndarray:
    """(M,) log-likelihood of the opponents' plays in ``history`` in each world (``-inf``: a play was illegal
    there). ``worlds`` come from :func:`worlds_from_observation` of ``now``; ``model`` None counts only legality."""
    return histories_log_likelihood(rules, [history], [worlds], [now], model)[0]


def histories_log_likelihood(rules: Rules, histories: list[PublicHistory], worlds: list[State],
                             nows: list[np.ndarray], model: PolicyModel | None) -> list[np.ndarray]:
    """:func:`history_log_likelihood` of several decisions at once (each its own history, worlds and observation
    now): their replays stepped together, one model call a step for all of them; the same numbers."""
    n = [w.batch_size for w in worlds]
    out = [np.zeros(m) for m in n]
    todo = [i for i, h in enumerate(histories) if len(h)]
    if not todo:
        return out
    rewound = [rewind(rules, histories[i], worlds[i], nows[i]) for i in todo]
    st = State.concat([r[0] for r in rewound])
    alive = np.concatenate([r[1] for r in rewound])
    M = st.batch_size
    row = np.repeat(np.arange(len(todo)), [n[i] for i in todo])
    length = np.array([len(histories[i]) for i in todo])
    ll = np.where(alive, 0.0, -np.inf)
    ar = np.arange(M)
    for t in range(int(length.max())):
        going = length > t
        seat = np.array([histories[i].actors[t] if g else 0 for i, g in zip(todo, going, strict=True)])[row]
        action = np.array([histories[i].actions[t] if g else 0 for i, g in zip(todo, going, strict=True)])[row]
        active = alive & going[row]
        ok = active & (st.current == seat) & st.legal[ar, action]
        ll[active & ~ok] = -np.inf
        alive &= ok | ~active
        rows = np.flatnonzero(ok & (seat != 0))
        if rows.size and model is not None:
            sub = st.take(rows)
            logp = model(observe(rules, sub, seat[rows]), sub.legal)[np.arange(rows.size), action[rows]]
            ll[rows] += logp
            alive[rows[~np.isfinite(logp)]] = False
        step_inplace(rules, st, action, where=ok)
        if not (alive & (length[row] > t + 1)).any():
            break
    for k, i in enumerate(todo):
        out[i] = ll[row == k]
    return out


# --------------------------------------------------------------------------- weighted worlds
@dataclass
class WeightedWorlds:
    """Worlds with importance weights: ``worlds`` (M states, the player in seat 0), ``log_likelihood`` (M,),
    ``weights`` (M,) summing to 1 (uniform when no world fits the plays: ``fitted`` False)."""

    worlds: State
    log_likelihood: np.ndarray
    weights: np.ndarray
    fitted: bool

    @property
    def ess(self) -> float:
        """The effective number of worlds, 1 / sum(w^2)."""
        return float(1.0 / np.sum(self.weights ** 2))


def _check(n: object, what: str, high: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= high:
        raise ValueError(f"{what} must be an integer 1..{high}, got {n!r}")
    return int(n)


def weigh_worlds(rules: Rules, history: PublicHistory, now: np.ndarray, proposals: int, rng: np.random.Generator,
                 model: PolicyModel | None) -> WeightedWorlds:
    """``proposals`` worlds dealt uniformly from the player's observation ``now`` (as ``worlds_from_observation``
    deals them, from ``rng``), weighted by the likelihood of the opponents' plays in ``history`` under ``model``
    (``None``: uniform weights; the same worlds)."""
    proposals = _check(proposals, "proposals", MAX_PROPOSALS)
    now = np.asarray(now, dtype=np.float32)
    if now.ndim != 1 or now.shape[0] != O.size(rules):
        raise ValueError(f"now must be one observation row of {O.size(rules)} numbers, got shape {now.shape}")
    if not isinstance(history, PublicHistory):
        raise TypeError(f"history must be a PublicHistory, got {type(history).__name__}")
    if rules.poker:
        raise ValueError(f"weighted worlds: rules {rules.name!r} (combinations poker) are not supported")
    worlds = worlds_from_observation(rules, now[None], proposals, rng)
    if model is None:
        ll = np.zeros(proposals)
    else:
        ll = history_log_likelihood(rules, history, worlds, now, model)
    w, fitted = _weights(ll)
    return WeightedWorlds(worlds, ll, w, fitted)


#: how the ``n`` worlds are drawn from the weighed proposals: ``systematic`` (systematic resampling: about
#: ``n * w`` copies of a proposal of weight ``w``, so at most about the effective number of proposals are distinct)
#: or ``distinct`` (``n`` different proposals, drawn one after another without replacement with probability in
#: proportion to their weight; repeats only where fewer than ``n`` proposals fit the plays; the default: repeated
#: worlds made the search no stronger, docs/search.md "Different worlds")
DRAWS = ("systematic", "distinct")


def belief_worlds(rules: Rules, history: PublicHistory, now: np.ndarray, n: int, rng: np.random.Generator,
                  model: PolicyModel | None, proposals: int = 256, draw: str = "distinct") -> State:
    """``n`` worlds drawn by weight (``draw``: :data:`DRAWS`) from :func:`weigh_worlds`' ``proposals``."""
    n = _check(n, "n", MAX_PROPOSALS)
    draw = check_draw(draw)
    ww = weigh_worlds(rules, history, now, proposals, rng, model)
    return ww.worlds.take(draw_indices(ww.weights, n, rng.random(), draw))


def check_draw(draw: object, what: str = "draw") -> str:
    """``draw`` if it is one of :data:`DRAWS`; otherwise ``ValueError`` naming ``what``."""
    if draw not in DRAWS:
        raise ValueError(f"{what} must be one of {', '.join(DRAWS)}, got {draw!r}")
    return str(draw)


def draw_indices(weights: np.ndarray, n: int, u: float, draw: str = "distinct") -> np.ndarray:
    """The indices of ``n`` proposals drawn by ``draw`` (:data:`DRAWS`) from normalised ``weights`` and the random
    number ``u`` (0..1): systematic resampling from the offset ``u``, or (``distinct``) the Gumbel top-``n`` of the
    log-weights, the Gumbel noise from a generator seeded by ``u``, topped up by systematic resampling where fewer
    than ``n`` weights are above 0."""
    return _distinct(weights, n, u) if draw == "distinct" else _systematic(weights, n, u)


def _distinct(weights: np.ndarray, n: int, u: float) -> np.ndarray:
    """The indices of ``n`` different draws without replacement, each in proportion to ``weights`` among those not
    yet drawn (the Gumbel top-``n``; the noise from a generator seeded by ``u``), then systematic draws where fewer
    than ``n`` weights are above 0."""
    live = weights > 0
    g = np.random.default_rng(int(u * 2.0 ** 53)).gumbel(size=weights.size)
    keys = np.where(live, np.log(np.where(live, weights, 1.0)) + g, -np.inf)
    top = np.argsort(-keys, kind="stable")[: min(n, int(live.sum()))]
    if top.size < n:
        top = np.concatenate([top, _systematic(weights, n - top.size, u)])
    return top


def _systematic(weights: np.ndarray, n: int, u: float) -> np.ndarray:
    """The indices of ``n`` draws by systematic resampling of ``weights`` from the offset ``u``."""
    idx = np.searchsorted(np.cumsum(weights), (u + np.arange(n)) / n, side="right")
    return np.minimum(idx, weights.size - 1)


def _weights(ll: np.ndarray) -> tuple[np.ndarray, bool]:
    """Normalised importance weights from log-likelihoods (uniform, and False, when no world fits)."""
    fitted = bool(np.isfinite(ll).any())
    if fitted:
        w = np.exp(ll - ll[np.isfinite(ll)].max())
        w[~np.isfinite(ll)] = 0.0
    else:
        w = np.ones(ll.size)
    return w / w.sum(), fitted


@dataclass
class Proposals:
    """Worlds dealt for several decisions, not yet weighed (:func:`draw_proposals`): per row, ``dealt`` (its
    proposals, or its ``n`` uniform worlds where the history is empty) and ``offset`` (the systematic
    resampling's draw; None for a row dealt uniformly)."""

    histories: list[PublicHistory]
    nows: np.ndarray
    dealt: list[State]
    offsets: list[float | None]


def draw_proposals(rules: Rules, histories: list[PublicHistory], nows: np.ndarray, n: int,
                   rng: np.random.Generator, proposals: int = 256) -> Proposals:
    """The draws of :func:`belief_worlds_many` from ``rng``, in the order of one :func:`belief_worlds` call a row
    (a row with no plays yet: ``n`` uniform worlds); weigh them with :func:`weigh_proposals`."""
    n = _check(n, "n", MAX_PROPOSALS)
    proposals = _check(proposals, "proposals", MAX_PROPOSALS)
    nows = np.asarray(nows, dtype=np.float32)
    if nows.ndim != 2 or nows.shape[0] != len(histories) or nows.shape[1] != O.size(rules):
        raise ValueError(f"nows must be {len(histories)} observation rows of {O.size(rules)} numbers, "
                         f"got shape {nows.shape}")
    if rules.poker:
        raise ValueError(f"weighted worlds: rules {rules.name!r} (combinations poker) are not supported")
    dealt, offsets = [], []
    for h, now in zip(histories, nows, strict=True):
        if len(h) == 0:
            dealt.append(worlds_from_observation(rules, now[None], n, rng))
            offsets.append(None)
        else:
            dealt.append(worlds_from_observation(rules, now[None], proposals, rng))
            offsets.append(rng.random())
    return Proposals(list(histories), nows, dealt, offsets)


def weigh_proposals(rules: Rules, drawn: list[Proposals], n: int, model: PolicyModel,
                    draw: str = "distinct") -> list[State]:
    """``n`` worlds a row of every :class:`Proposals` (one ``State`` each, rows in order), all rows' replays
    stepped together: the worlds :func:`belief_worlds` gives each row alone (with the same ``draw``)."""
    draw = check_draw(draw)
    rows = [(k, i) for k, d in enumerate(drawn) for i, u in enumerate(d.offsets) if u is not None]
    lls = histories_log_likelihood(rules, [drawn[k].histories[i] for k, i in rows],
                                   [drawn[k].dealt[i] for k, i in rows], [drawn[k].nows[i] for k, i in rows], model)
    out = [list(d.dealt) for d in drawn]
    for (k, i), ll in zip(rows, lls, strict=True):
        out[k][i] = drawn[k].dealt[i].take(draw_indices(_weights(ll)[0], n, drawn[k].offsets[i], draw))
    return [State.concat(o) for o in out]


def belief_worlds_many(rules: Rules, histories: list[PublicHistory], nows: np.ndarray, n: int,
                       rng: np.random.Generator, model: PolicyModel, proposals: int = 256,
                       draw: str = "distinct") -> State:
    """:func:`belief_worlds` for several decisions (``n`` worlds each, in the order of the rows), drawn from ``rng``
    as one call a row in turn would draw them, the weighing of all rows stepped together; a row whose history is
    empty gets ``n`` uniform worlds (``worlds_from_observation``), as a search deals before the hand's first play."""
    return weigh_proposals(rules, [draw_proposals(rules, histories, nows, n, rng, proposals)], n, model, draw)[0]


# --------------------------------------------------------------------------- the quality of a belief
def worlds_seat_order(state: State, b: int, player: int) -> np.ndarray:
    """The seats of game ``b`` of ``state`` in the numbering of the worlds dealt from ``player``'s observation
    (``player`` in seat 0, the others following it in seat order, whatever the direction of play): index a
    per-seat array of the real game with it, such as ``state.hands[b][order]``, to compare it with the worlds."""
    P = state.seat_player.shape[1]
    seat = int(np.argmax(state.seat_player[b] == player))
    return (seat + np.arange(P)) % P


def holder_log_prob(rules: Rules, worlds: State, weights: np.ndarray, hidden: np.ndarray, alpha: float = 0.5,
                    prior: float = 2.0) -> float:
    """The mean log-probability a belief puts on the true holder of each hidden card.

    ``worlds`` (M states, the player in seat 0) with ``weights`` (M,) are the belief; ``hidden`` is the truth in
    the worlds' seat numbering: (P, K) cards of each kind per seat (rules without card identity) or (P, C) bool
    (card-level rules), the player's own row ignored. The belief that a card of kind ``k`` (or the card ``c``) is in
    seat ``s`` is its weighted share there, counted as over the effective number of worlds E = ``1 / sum(w^2)``
    (normalised weights) and smoothed by ``alpha`` worlds' worth spread over the seats holding cards, then shrunk
    toward the plain (equally weighted, smoothed) share over all M worlds with ``prior`` worlds' worth:
    ``(E * weighted + prior * plain) / (E + prior)``. Equal weights give the plain share exactly."""
    w = np.asarray(weights, dtype=np.float64)
    M = worlds.batch_size
    if w.shape != (M,) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights must be {M} finite non-negative numbers, not all zero")
    for name, v in (("alpha", alpha), ("prior", prior)):
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    w = w / w.sum()
    holders = worlds.n_cards[0].astype(np.int64) > 0
    holders[0] = False
    if not holders.any():
        return 0.0
    seats = np.flatnonzero(holders)
    have = (worlds.hands if rules.card_level else worlds.counts)[:, seats].astype(np.float64)   # (M, S, X)
    truth = np.asarray(hidden)[seats].astype(np.float64)
    plain = have.sum(axis=0)
    plain = (plain + alpha) / (plain.sum(axis=0, keepdims=True) + alpha * len(seats))
    ess = 1.0 / np.sum(w ** 2)
    mass = ess * np.tensordot(w, have, axes=1)                          # counts in ess worlds
    share = (mass + alpha) / (mass.sum(axis=0, keepdims=True) + alpha * len(seats))
    p = (ess * share + prior * plain) / (ess + prior)
    n = truth.sum()
    return float((truth * np.log(p)).sum() / n) if n > 0 else 0.0
