"""One game of President in plain Python: the single-game fast path of the batched engine.

:class:`ScalarGame` plays exactly the game :mod:`president_env.core.engine` plays (the
engine is the specification), but for one session and with plain ints and lists, so a
decision costs a few microseconds instead of the ~150 small NumPy calls the batched
engine makes per step. It converts to and from a batch-of-one :class:`State` field by
field (``from_state`` / ``to_state``), and its observation equals
:func:`president_env.core.observation.observe`.

.. code-block:: python

    g = ScalarGame.new(rules, seed=0)       # the same game as engine.init(rules, keys=make_keys(1, 0))
    while not g.over:
        g.step(g.legal[0])                  # g.legal: sorted legal action ids
    g.to_state()                            # a State with batch size 1

What stays in NumPy: the first deal of a session (``new`` calls ``engine.init``) and the
shuffle of every later deal (the engine's counter-based hash of (key, hand number)), once
per hand. Everything per decision (legal actions, plays, passes, give-backs, going out,
scoring, reseating, the forced exchange) is plain Python.
"""

from __future__ import annotations

import operator
from bisect import insort
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from . import engine as E
from . import observation as O
from .actions import describe_action
from .rules import Rules
from .state import EXCHANGE, OVER, PLAY, State, field_names

__all__ = ["ScalarGame"]


# --------------------------------------------------------------------------- constants
@dataclass(eq=False)
class _Tab:
    """Per-rules constants as plain Python values (and a lazily filled interval cache)."""

    rules: Rules
    P: int
    C: int
    K: int
    R: int
    Rn: int
    S: int
    A: int
    D: int
    d: int
    play_kind: tuple[int, ...]
    card_kind: tuple[int, ...]
    kind_start: tuple[int, ...]
    wild_kinds: tuple[int, ...]
    has_wild: bool
    trump_play: tuple[bool, ...]
    reset_ranks: tuple[tuple[int, ...], tuple[int, ...]]   # [normal order, revolution]
    power_lut: tuple[tuple[tuple[int, ...], ...], ...]    # [rank][top size] -> sizes that beat it by power
    power_floor: tuple[int, int]
    has_power: bool
    high_play: tuple[bool, ...]
    kind_high: tuple[bool, ...]
    card_wild: tuple[bool, ...]
    quick_clear: bool
    forbidden_kind: tuple[bool, ...]
    transparent: int
    eight: int
    points: tuple[int, ...]
    give: tuple[int, ...]
    ex_decider: tuple[int, ...]
    ex_partner: tuple[int, ...]
    ex_kind: tuple[int, ...]
    ident_key: tuple[int, ...]
    strength: tuple[tuple[int, ...], tuple[int, ...]]
    lowest_play_rank: int
    lowest_cards: tuple[int, ...]
    best_key: tuple[int, ...]
    act_rank: tuple[int, ...]
    act_size: tuple[int, ...]
    revolutions: bool
    reverses: bool
    bomb: bool
    single_round: bool
    may_replay: bool
    skips: bool
    wild_tie: bool
    extras: bool
    extra_obs: bool
    # observation: offsets of the pieces
    off: dict[str, int]
    onehot_top: tuple[tuple[int, ...], ...]
    onehot_size: tuple[tuple[int, ...], ...]
    onehot_owner: tuple[tuple[int, ...], ...]
    onehot_phase: tuple[tuple[int, ...], ...]
    rel: tuple[tuple[int, ...], ...]
    zeros_p: tuple[int, ...]
    int8_fields: tuple[tuple[str, tuple[int, ...], int, bool], ...]
    intervals: dict[tuple, tuple] = field(default_factory=dict)


@lru_cache(maxsize=128)
def _tab(rules: Rules) -> _Tab:
    c = E._consts(rules)
    t = c.t
    P, R, S = c.P, c.R, c.S
    Rn = t.n_natural_play
    kinds = t.kinds
    off = {name: o for name, o, _, _ in O.layout(rules)}

    def onehots(n: int, none_first: bool = False) -> tuple[tuple[int, ...], ...]:
        rows = [tuple(int(i == j) for i in range(n)) for j in range(n)]
        return (((0,) * n,) + tuple(rows)) if none_first else tuple(rows)

    return _Tab(
        rules=rules, P=P, C=c.C, K=c.K, R=R, Rn=Rn, S=S, A=c.A, D=O.size(rules), d=c.d,
        play_kind=tuple(int(k) for k in t.play_kind),
        card_kind=tuple(int(k) for k in t.card_kind),
        kind_start=tuple(int(s) for s in c.kind_starts),
        wild_kinds=tuple(int(k) for k in c.wild_kinds),
        has_wild=bool(t.has_wild),
        trump_play=tuple(bool(x) for x in c.trump_play),
        reset_ranks=tuple(tuple(int(r) for r in np.flatnonzero(row)) for row in c.reset_play),
        power_lut=tuple(tuple(tuple(int(x) + 1 for x in np.flatnonzero(c.power_lut[r, ts])) for ts in range(S + 1))
                        for r in range(R)),
        power_floor=(int(c.power_floor[0]), int(c.power_floor[1])),
        has_power=c.has_power,
        high_play=tuple(bool(x) for x in c.high_play),
        kind_high=tuple(bool(x) for x in t.kind_high),
        card_wild=tuple(bool(x) for x in t.card_wild),
        quick_clear=rules.quick_clear,
        forbidden_kind=tuple((k[:-1] if t.kind_high[i] else k) in rules.forbidden_finish  # a high card: its print
                             for i, k in enumerate(kinds)),
        transparent=int(c.transparent), eight=int(c.eight),
        points=tuple(int(x) for x in c.points),
        give=tuple(int(g) for g in c.give),
        ex_decider=tuple(int(x) for x in c.ex_decider),
        ex_partner=tuple(int(x) for x in c.ex_partner),
        ex_kind=tuple(int(x) for x in c.ex_kind),
        ident_key=tuple(int(x) for x in c.ident_key),
        strength=(tuple(int(x) for x in t.strength[0]), tuple(int(x) for x in t.strength[1])),
        lowest_play_rank=int(t.lowest_play_rank),
        lowest_cards=tuple(int(x) for x in c.lowest_cards),
        best_key=tuple(int(x) for x in t.best_key),
        act_rank=tuple(int(x) for x in c.act_rank),
        act_size=tuple(int(x) for x in c.act_size),
        revolutions=rules.four_of_a_kind in ("revolution", "revolution_and_reverse"),
        reverses=rules.four_of_a_kind == "revolution_and_reverse",
        bomb=rules.four_of_a_kind == "bomb",
        single_round=rules.pass_rule == "single_round",
        may_replay=rules.pass_rule == "may_replay",
        skips=rules.equal_play_skips,
        wild_tie=rules.wild_tie != "equal" and bool(t.has_wild),
        extras=bool(c.reset_play.any()) or rules.four_of_a_kind == "bomb" or rules.complete_set_clears
        or c.has_power,
        extra_obs=rules.revolution_by_singles or rules.hand_assignment == "expose" or rules.merchant_trade
        or rules.quick_clear,
        off=off,
        onehot_top=onehots(R + 1),
        onehot_size=onehots(S, none_first=True),
        onehot_owner=onehots(P),
        onehot_phase=onehots(3),
        rel=tuple(tuple((s + c.d * j) % P for j in range(P)) for s in range(P)),
        zeros_p=(0,) * P,
        int8_fields=_int8_fields(E._empty(c, 1)),
    )


def _int8_fields(st: State) -> tuple[tuple[str, tuple[int, ...], int, bool], ...]:
    """(name, shape, size, is bool) of the int8 and bool fields of a batch-of-one State, in field order
    (the order ``to_state`` lays them out in)."""
    out = []
    for name in field_names():
        a = getattr(st, name)
        if a.dtype in (np.int8, np.bool_):
            out.append((name, a.shape, a.size, a.dtype == np.bool_))
    return tuple(out)


def _intervals(tb: _Tab, top_rank: int, ts: int, rev: bool, top_wild: bool, natural: bool,
               first_lead: bool) -> tuple[tuple[int, int, int, int], ...]:
    """Per play rank, the size interval ``lo..hi`` the engine's ``_play_mask`` allows before the
    player's holdings cap it: rows (rank, action id of size 0, lo, hi) with ``lo <= hi``.

    ``natural``: whether the player can make a set of the top's rank and size from natural
    cards only (it matters only under ``wild_tie``)."""
    rules = tb.rules
    R, S, Rn = tb.R, tb.S, tb.Rn
    strength = tb.strength[1 if (rev and tb.revolutions) else 0]
    lead = top_rank < 0
    top_str = strength[max(top_rank, 0)]
    big = S + 1
    rows = []
    for r in range(R):
        higher = strength[r] > top_str
        same = r == top_rank
        ok = (higher or same) if rules.equal_rank_beats else higher
        if rules.size_rule == "equal":
            lo, hi = (ts, ts) if ok else (big, 0)
        elif rules.size_rule == "at_least":
            lo, hi = (ts, big) if ok else (big, 0)
        else:  # bigger_beats_any
            lo, hi = (ts if ok else ts + 1), big
        if tb.wild_tie and same and r != Rn:
            nat = natural and r < Rn
            differ = nat != (not top_wild)
            tie = (nat and top_wild) if rules.wild_tie == "natural_higher" else (not nat and not top_wild)
            tie = tie and differ
            if tie:
                lo, hi = min(lo, ts), max(hi, ts)
            elif differ:
                lo = max(lo, ts + 1)
        if r == tb.transparent:
            lo, hi = ts, max(hi, ts)
        if tb.trump_play[r] and higher:
            lo, hi = 1, big
        if lead:
            lo, hi = 1, big
        if first_lead and r != tb.lowest_play_rank:
            hi = 0
        lo, hi = max(lo, 1), min(hi, S)
        if lo <= hi:
            rows.append((r, r * S, lo, hi))
    return tuple(rows)


def _action_id(action: Any) -> int:
    if isinstance(action, (bool, np.bool_)):
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}") from None


def _deep(v: Any) -> Any:
    """A copy of nested lists (other values are immutable or shared constants)."""
    return [_deep(x) for x in v] if isinstance(v, list) else v


# --------------------------------------------------------------------------- the game
class ScalarGame:
    """One session of President, stepped in plain Python; the batched engine's game exactly.

    Fields mirror :class:`State` (one game, no batch axis) as ints and lists: by seat
    ``counts`` (P lists of K), ``n_cards``, ``passed``, ``finish``, ``social``, ``exch_in``,
    ``exch_out``; by player ``points``, ``hand_points``, ``last_finish``; ``hands[seat][kind]``
    is the sorted list of card indices held; ``moved`` the sorted card indices the last action
    moved; ``legal`` the sorted legal action ids.
    """

    __slots__ = (
        "rules", "_t", "key", "hand_no", "phase", "seat_player", "player_seat", "dealer", "social",
        "hands", "counts", "n_cards", "current", "leader", "top_rank", "top_size", "top_owner",
        "top_wild", "top_count", "first_lead", "passed", "finish", "next_best", "next_worst",
        "revolution", "direction", "played", "discarded", "exch_step", "exch_in", "exch_out",
        "points", "hand_points", "hand_over", "last_finish", "single_row", "exposed", "trade_pick",
        "top_own", "qc_count", "claim_rank", "claim_next", "moved", "legal",
    )

    def __init__(self, rules: Rules) -> None:
        """An empty game; build one with :meth:`new` or :meth:`from_state`."""
        self.rules = rules
        self._t = _tab(rules)

    # ------------------------------------------------------------------ building
    @classmethod
    def new(cls, rules: Rules, seed: int | np.random.Generator | None = None, **init_kwargs: Any) -> ScalarGame:
        """Start a session as ``engine.init(rules, 1, seed, **init_kwargs)`` does (keys, start_ranks, deal, ...)."""
        return cls.from_state(rules, E.init(rules, 1, seed, **init_kwargs))

    @classmethod
    def from_state(cls, rules: Rules, state: State, b: int = 0) -> ScalarGame:
        """Game ``b`` of a batched ``state`` (a copy: the state is not shared). Legal actions are recomputed."""
        if not 0 <= b < state.batch_size:
            raise ValueError(f"game {b} is not in a batch of {state.batch_size}")
        return cls.from_states(rules, state, np.array([b]))[0]

    @classmethod
    def from_states(cls, rules: Rules, state: State, idx: np.ndarray) -> list[ScalarGame]:
        """Games ``idx`` of a batched ``state``, converted together (one NumPy read per field)."""
        idx = np.asarray(idx, dtype=np.int64)
        tb = _tab(rules)
        if state.hands.shape[1:] != (tb.P, tb.C) or state.counts.shape[2] != tb.K:
            raise ValueError(f"state does not fit these rules: hands {state.hands.shape[1:]}, expected {(tb.P, tb.C)}")
        sub = state.take(idx)
        names = [n for n in ScalarGame.__slots__ if n not in ("rules", "_t", "hands", "player_seat", "moved", "legal")]
        cols = {n: getattr(sub, n).tolist() for n in names}
        games = []
        P, K, card_kind = tb.P, tb.K, tb.card_kind
        g_idx, s_idx, c_idx = np.nonzero(sub.hands)
        hands = [[[[] for _ in range(K)] for _ in range(P)] for _ in range(idx.size)]
        for gi, s, card in zip(g_idx.tolist(), s_idx.tolist(), c_idx.tolist(), strict=True):
            hands[gi][s][card_kind[card]].append(card)
        mg, mc = np.nonzero(sub.moved)
        moved: list[list[int]] = [[] for _ in range(idx.size)]
        for gi, card in zip(mg.tolist(), mc.tolist(), strict=True):
            moved[gi].append(card)
        for i in range(idx.size):
            g = cls(rules)
            for n in names:
                setattr(g, n, cols[n][i])
            g.hands = hands[i]
            g.moved = moved[i]
            g.player_seat = [0] * P
            for s, p in enumerate(g.seat_player):
                g.player_seat[p] = s
            g._refresh_legal()
            games.append(g)
        return games

    @staticmethod
    def to_states(games: list[ScalarGame]) -> State:
        """Several games as one batched :class:`State` (one NumPy call per dtype)."""
        tb = games[0]._t
        buf = np.array([g._int8_flat() for g in games], dtype=np.int8)
        n = len(games)
        fields = {
            "key": np.array([g.key for g in games], dtype=np.uint64),
            "hand_no": np.array([g.hand_no for g in games], dtype=np.int32),
            "points": np.array([g.points for g in games], dtype=np.int32),
            "hand_points": np.array([g.hand_points for g in games], dtype=np.int32),
        }
        i = 0
        for name, shape, size, is_bool in tb.int8_fields:
            a = buf[:, i:i + size].reshape((n,) + shape[1:])
            fields[name] = a.view(np.bool_) if is_bool else a
            i += size
        return State(**fields)

    def _int8_flat(self) -> list[int]:
        """The int8 and bool fields, flattened in the order of ``_tab.int8_fields``."""
        tb = self._t
        P, C = tb.P, tb.C
        hands = [0] * (P * C)
        for s, h in enumerate(self.hands):
            base = s * C
            for held in h:
                for card in held:
                    hands[base + card] = 1
        moved = [0] * C
        for card in self.moved:
            moved[card] = 1
        legal = [0] * tb.A
        for a in self.legal:
            legal[a] = 1
        values = {
            "phase": (self.phase,), "seat_player": self.seat_player, "dealer": (self.dealer,), "social": self.social,
            "hands": hands, "counts": [x for row in self.counts for x in row], "n_cards": self.n_cards,
            "current": (self.current,), "leader": (self.leader,), "top_rank": (self.top_rank,),
            "top_size": (self.top_size,), "top_owner": (self.top_owner,), "top_wild": (self.top_wild,),
            "top_count": (self.top_count,), "first_lead": (self.first_lead,), "passed": self.passed,
            "finish": self.finish, "next_best": (self.next_best,), "next_worst": (self.next_worst,),
            "revolution": (self.revolution,), "direction": (self.direction,), "played": self.played,
            "discarded": self.discarded, "exch_step": (self.exch_step,),
            "exch_in": [x for row in self.exch_in for x in row], "exch_out": [x for row in self.exch_out for x in row],
            "hand_over": (self.hand_over,), "last_finish": self.last_finish, "moved": moved, "legal": legal,
            "single_row": (self.single_row,), "exposed": self.exposed, "trade_pick": self.trade_pick,
            "top_own": (self.top_own,), "qc_count": (self.qc_count,), "claim_rank": (self.claim_rank,),
            "claim_next": (self.claim_next,),
        }
        flat: list[int] = []
        for name, _, _, _ in tb.int8_fields:
            flat += values[name]
        return flat

    def to_state(self) -> State:
        """This game as a batch-of-one :class:`State`, equal field by field to the engine's.

        The int8 and bool fields are views of one int8 buffer (built in one NumPy call)."""
        return ScalarGame.to_states([self])

    def copy(self) -> ScalarGame:
        """An independent copy."""
        g = ScalarGame.__new__(ScalarGame)
        for name in ScalarGame.__slots__:
            setattr(g, name, _deep(getattr(self, name)))
        return g

    # ------------------------------------------------------------------ reading
    @property
    def current_player(self) -> int:
        """The player (not seat) to act."""
        return self.seat_player[self.current]

    @property
    def over(self) -> bool:
        """Whether the session is over."""
        return self.phase == OVER

    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal-action mask (a new array)."""
        m = np.zeros(self._t.A, dtype=bool)
        m[self.legal] = True
        return m

    def observe(self, player: int) -> np.ndarray:
        """(D,) float32 observation of ``player``: ``observation.observe`` of this game."""
        tb = self._t
        P = tb.P
        seat = self.player_seat[player]
        rel = tb.rel[seat]
        top = self.top_rank
        phase = self.phase
        v = self.counts[seat] + self.played
        if top < 0:
            v += tb.onehot_top[tb.R]
            v += tb.onehot_size[0]
            v += tb.zeros_p
        else:
            v += tb.onehot_top[top]
            v += tb.onehot_size[self.top_size]
            v += tb.onehot_owner[(tb.d * (self.top_owner - seat)) % P]
        my_turn = self.current == seat and phase != OVER
        n_cards, passed, finish, social, points, sp = (
            self.n_cards, self.passed, self.finish, self.social, self.points, self.seat_player)
        v += [self.top_wild, self.top_count, my_turn and top < 0 and phase == PLAY, my_turn]
        v += [n_cards[s] for s in rel]
        v += [passed[s] for s in rel]
        v += [finish[s] + 1 for s in rel]
        v += [social[s] + 1 for s in rel]
        v += [points[sp[s]] for s in rel]
        v += [self.revolution, self.direction * tb.d]
        v += tb.onehot_phase[phase]
        v += self.exch_out[seat]
        v += self.exch_in[seat]
        if tb.extra_obs:
            self._observe_extra(v, seat, rel)
        return np.array(v, dtype=np.float32)

    def _observe_extra(self, v: list, seat: int, rel: tuple[int, ...]) -> None:
        """The pieces only some rules have, in ``observation.layout`` order."""
        tb = self._t
        rules = self.rules
        if rules.revolution_by_singles:
            v.append(self.single_row)
        if rules.hand_assignment == "expose":
            K, ck = tb.K, tb.card_kind
            for s in rel:
                row = [0] * K
                if self.exposed[s] >= 0:
                    row[ck[self.exposed[s]]] = 1
                v += row
        if rules.merchant_trade:
            step = self.exch_step
            v.append(self.phase == EXCHANGE and step < len(tb.ex_kind) and tb.ex_kind[step] > 0)
            row = [0] * tb.K
            if self.trade_pick[seat] >= 0:
                row[tb.card_kind[self.trade_pick[seat]]] = 1
            v += row
        if rules.quick_clear:
            v.append(self.current == seat and self.phase != OVER and self.claim_rank >= 0)
            v.append(self.qc_count)

    # ------------------------------------------------------------------ legal actions
    def _refresh_legal(self) -> None:
        phase = self.phase
        if phase == PLAY:
            self.legal = self._play_legal()
        elif phase == EXCHANGE:
            tb = self._t
            cnt = self.counts[self.current]
            S, pk = tb.S, tb.play_kind
            ids = [1 + r * S for r in range(tb.Rn) if cnt[pk[r]] > 0]
            if tb.has_wild and sum(cnt[k] for k in tb.wild_kinds) > 0:
                ids.append(1 + tb.Rn * S)
            self.legal = ids
        else:
            self.legal = [0]

    def _play_legal(self) -> list[int]:
        tb = self._t
        cnt = self.counts[self.current]
        if self.claim_rank >= 0:  # quick_clear: claim every natural card of the rank, or decline
            r = self.claim_rank
            return [0, 1 + r * tb.S + cnt[tb.play_kind[r]] - 1]
        top = self.top_rank
        ts = self.top_size
        pk = tb.play_kind
        has_wild = tb.has_wild
        w = sum(cnt[k] for k in tb.wild_kinds) if has_wild else 0
        natural = False
        if tb.wild_tie and 0 <= top < tb.Rn:
            natural = cnt[pk[top]] >= ts
        key = (top, ts, self.revolution, self.top_wild, natural, self.first_lead)
        rows = tb.intervals.get(key)
        if rows is None:
            rows = tb.intervals[key] = _intervals(tb, top, ts, self.revolution, self.top_wild, natural,
                                                  self.first_lead)
        S = tb.S
        ids: list[int] = []
        if not tb.extras:
            for r, base, lo, hi in rows:
                k = pk[r]
                if k < 0:
                    cap = w
                elif has_wild:
                    n = cnt[k]
                    cap = (n + w if n + w < S else S) if n else 0
                else:
                    cap = cnt[k]
                if cap > 1 and tb.high_play[r]:  # a high card is played only as a single
                    cap = 1
                if cap < hi:
                    hi = cap
                if lo <= hi:
                    ids.extend(range(base + lo, base + hi + 1))
        else:
            ids = self._legal_with_extras(rows, cnt, w)
        if top >= 0 and not (ids and self.rules.compulsory_beat):
            ids.insert(0, 0)
        return ids

    def _legal_with_extras(self, rows: tuple, cnt: list[int], w: int) -> list[int]:
        """Legal plays when reset cards, bombs or complete sets add sizes outside the intervals."""
        tb = self._t
        S, R, pk = tb.S, tb.R, tb.play_kind
        sizes: list[set[int]] = [set() for _ in range(R)]
        caps = []
        for r in range(R):
            k = pk[r]
            if k < 0:
                caps.append(w)
            elif tb.has_wild:
                n = cnt[k]
                caps.append(min(n + w, S) if n else 0)
            else:
                caps.append(cnt[k])
            if caps[-1] > 1 and tb.high_play[r]:
                caps[-1] = 1
        for r, _, lo, hi in rows:
            sizes[r].update(range(lo, min(hi, caps[r]) + 1))
        rev = self.revolution
        for r in tb.reset_ranks[rev]:
            if caps[r] >= 1:
                sizes[r].add(1)
        if tb.bomb:
            for r in range(R):
                sizes[r].update(range(4, min(caps[r], S) + 1))
        top = self.top_rank
        if self.rules.complete_set_clears and top >= 0:
            sizes[top].update(range(max(S - self.top_count, 1), min(caps[top], S) + 1))
        if tb.has_power and top >= 0:
            strength = tb.strength[1 if (rev and tb.revolutions) else 0]
            if strength[top] < tb.power_floor[1 if (rev and tb.revolutions) else 0]:
                ts = self.top_size
                for r in range(R):
                    for m in tb.power_lut[r][ts]:
                        if m <= caps[r]:
                            sizes[r].add(m)
        if self.first_lead:  # fine point 14: whatever a rule adds, the first lead holds the lowest card
            return [tb.lowest_play_rank * S + s for s in sorted(sizes[tb.lowest_play_rank])]
        return [r * S + s for r in range(R) for s in sorted(sizes[r])]

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Apply one action (an id in ``legal``); raises :class:`IllegalActionError` otherwise."""
        tb = self._t
        if type(action) is not int:
            action = _action_id(action)
        if action not in self.legal:
            self._illegal(action)
        self.hand_over = False
        self.hand_points = [0] * tb.P
        phase = self.phase
        if phase == PLAY and action == 0 and self.claim_rank >= 0:  # quick_clear: the claim is declined
            self.current = self.claim_next
            self.claim_rank = self.claim_next = -1
            self.moved = []
            self.legal = self._play_legal()
        elif phase == PLAY:
            if self._play(action):
                last = self.moved
                self._end_hand()
                self.moved = last
        elif phase == EXCHANGE:
            self._give_back(action)
        else:
            self.moved = []

    def _illegal(self, a: int) -> None:
        A = self._t.A
        if not 0 <= a < A:
            raise E.IllegalActionError(f"game 0: action {a} is out of range 0..{A - 1}")
        ex = self.phase == EXCHANGE
        words = {i: describe_action(self.rules, i, exchange=ex) for i in self.legal}
        raise E.IllegalActionError(
            f"game 0: illegal action {a} ({describe_action(self.rules, a, exchange=ex)}) "
            f"for seat {self.current}; legal: {words}"
        )

    def _seat_after(self, start: int, direction: int, ok: list) -> int:
        P = self._t.P
        for i in range(1, P + 1):
            s = (start + direction * i) % P
            if ok[s]:
                return s
        return (start + direction) % P

    def _take(self, seat: int, rank: int, size: int) -> tuple[list[int], bool]:
        """Remove and return the cards of a play: natural cards lowest suit first, then wild cards."""
        tb = self._t
        hand = self.hands[seat]
        counts = self.counts[seat]
        played = self.played
        k = tb.play_kind[rank]
        if k >= 0:
            held = hand[k]
            n = len(held)
            if n >= size:
                sel = held[:size]
                del held[:size]
                counts[k] -= size
                played[k] += size
                return sel, False
            sel = held[:]
            held.clear()
            counts[k] = 0
            played[k] += n
            need = size - n
        else:
            sel = []
            need = size
        for wk in tb.wild_kinds:
            if need == 0:
                break
            held = hand[wk]
            m = min(need, len(held))
            if m:
                sel += held[:m]
                del held[:m]
                counts[wk] -= m
                played[wk] += m
                need -= m
        sel.sort()
        return sel, True

    def _play(self, a: int) -> bool:  # noqa: C901 - one block per option, as the engine's _play
        """A play or pass of the seat to act; returns whether the hand ended."""
        tb = self._t
        rules = self.rules
        P, S = tb.P, tb.S
        cur = self.current
        size = tb.act_size[a]
        rank = tb.act_rank[a]
        passed = self.passed
        old_rank = self.top_rank
        old_size = self.top_size
        n_cards = self.n_cards
        clear_self = clear_next = claim_play = False
        if size:
            sel, has_wild = self._take(cur, rank, size)
            if tb.quick_clear:  # natural cards of the play's own rank in consecutive plays at the top
                claim_play = self.claim_rank >= 0
                nat_n = size - sum(1 for card in sel if tb.card_wild[card]) if has_wild else size
                self.qc_count = self.qc_count + nat_n if rank == self.top_own else nat_n
                self.top_own = rank
                self.claim_rank = self.claim_next = -1
            n_cards[cur] -= size
            self.moved = sel
            eff = rank
            if rank == tb.transparent and old_rank >= 0 and size == old_size:
                eff = old_rank
            if rules.complete_set_clears:
                self.top_count = self.top_count + size if eff == old_rank else size
            self.top_rank = eff
            self.top_size = size
            self.top_owner = cur
            self.top_wild = has_wild
            self.first_lead = False
            if tb.may_replay:
                for s in range(P):
                    passed[s] = False
            elif tb.single_round:
                passed[cur] = True
            reset = size == 1 and rank in tb.reset_ranks[self.revolution]  # the order before the play
            flip = size >= 4
            if rules.revolution_by_singles:
                row = (self.single_row + 1) if (size == 1 and eff == old_rank and old_size == 1) else int(size == 1)
                self.single_row = row
                flip = flip or (size == 1 and (row == 4 or (row == 8 and S == 8)))
            if tb.revolutions and flip:
                self.revolution = not self.revolution
                if tb.reverses:
                    self.direction = -self.direction
            clear_self = (tb.trump_play[rank] or (tb.bomb and size >= 4) or rank == tb.eight
                          or (rules.complete_set_clears and self.top_count >= S) or claim_play)
            clear_next = not clear_self and reset
            if n_cards[cur] == 0:
                self._go_out(cur, sel)
        else:
            self.moved = []
            passed[cur] = True

        alive = [n > 0 for n in n_cards]
        ended = sum(alive) <= 1
        direction = self.direction
        owner = self.top_owner
        can_act = [alive[s] and not passed[s] for s in range(P)]
        trick_end = clear_self or clear_next or not any(can_act[s] for s in range(P) if s != owner)
        start = cur
        again = False
        if tb.skips and size and rank == old_rank and not trick_end and not ended:
            start, again = self._skip(cur, size - old_size + 1, alive)
            can_act = [alive[s] and not passed[s] for s in range(P)]
            if tb.single_round and not any(can_act[s] for s in range(P) if s != owner):
                trick_end = True
        nxt = cur if again else self._seat_after(start, direction, can_act)
        claimer = -1
        if tb.quick_clear and size and not (claim_play or clear_self or clear_next or ended):
            claimer = self._claimer(rank, cur)
        if trick_end:
            owner = cur if clear_next else owner
            if not clear_next and alive[owner]:
                leader = owner
            else:
                leader = self._seat_after(owner, direction, alive)
            nxt = leader
            self.top_rank = -1
            self.top_size = 0
            self.top_owner = -1
            self.top_wild = False
            self.top_count = 0
            self.single_row = 0
            self.top_own, self.qc_count = -1, 0
            for s in range(P):
                passed[s] = False
            self.leader = leader
        if claimer >= 0:  # the claimer decides first; then the normal turn goes on
            self.claim_rank, self.claim_next = rank, nxt
            nxt = claimer
        self.current = nxt
        if ended:
            self.phase = OVER
            self.legal = [0]
        else:
            self.legal = self._play_legal()
        return ended

    def _claimer(self, rank: int, cur: int) -> int:
        """quick_clear: the seat other than ``cur`` holding every remaining natural card of ``rank``, enough
        to make 4 x decks with those at the top of the trick; -1 when none (the engine's ``_claimer``)."""
        tb = self._t
        k = tb.play_kind[rank]
        if k < 0 or tb.kind_high[k]:
            return -1
        need = tb.S - self.qc_count
        for s in range(tb.P):
            if s != cur and self.counts[s][k] == need and need > 0:
                return s
        return -1

    def _go_out(self, seat: int, sel: list[int]) -> None:
        tb = self._t
        rules = self.rules
        worst = False
        if rules.forbidden_finish:
            fk, ck = tb.forbidden_kind, tb.card_kind
            worst = any(fk[ck[c]] for c in sel)
        if worst:
            pos = self.next_worst
            self.next_worst -= 1
        else:
            pos = self.next_best
            self.next_best += 1
        self.finish[seat] = pos
        if rules.president_must_win and not worst and pos == 0 and 0 in self.social:
            pres = self.social.index(0)
            if pres != seat and self.n_cards[pres] > 0:
                self.finish[pres] = self.next_worst
                self.next_worst -= 1
                cnt = self.counts[pres]
                self.discarded = [x + y for x, y in zip(self.discarded, cnt, strict=True)]
                self.counts[pres] = [0] * tb.K
                self.hands[pres] = [[] for _ in range(tb.K)]
                self.n_cards[pres] = 0

    def _skip(self, cur: int, k: int, alive: list[bool]) -> tuple[int, bool]:
        """equal_play_skips (fine point 7), as the engine's ``_skip``: (seat to search from, acts again)."""
        P = self._t.P
        d = self.direction
        seats = [(cur + d * j) % P for j in range(1, P + 1)]
        cum, total = [], 0
        for s in seats:
            total += alive[s]
            cum.append(total)
        cur_alive = alive[cur]
        n_others = total - cur_alive
        again = bool(cur_alive and k >= total)
        kk = k if cur_alive else (k - 1) % max(n_others, 1) + 1
        j = next((i for i, c in enumerate(cum) if c >= kk), 0)
        if self._t.single_round and not again:
            for i in range(j + 1):
                if alive[seats[i]]:
                    self.passed[seats[i]] = True
        return seats[j], again

    def _transfer(self, giver: int, recv: int, cards: list[int]) -> None:
        ck = self._t.card_kind
        gh, rh = self.hands[giver], self.hands[recv]
        gc, rc = self.counts[giver], self.counts[recv]
        go, ri = self.exch_out[giver], self.exch_in[recv]
        for card in cards:
            k = ck[card]
            gh[k].remove(card)
            insort(rh[k], card)
            gc[k] -= 1
            rc[k] += 1
            go[k] += 1
            ri[k] += 1
        n = len(cards)
        self.n_cards[giver] -= n
        self.n_cards[recv] += n
        self.moved = sorted(cards)

    def _give_back(self, a: int) -> None:
        """One exchange decision: a card of the named rank, lowest suit (the least wild card for WILD).

        A give-back moves it at once; a merchant's first pick waits in ``trade_pick``; the second
        pick moves both cards (the engine's ``_give_back``)."""
        tb = self._t
        recv = self.current
        k = tb.play_kind[tb.act_rank[a]]
        hand = self.hands[recv]
        if k >= 0:
            card = hand[k][0]
        else:
            card = next(hand[wk][0] for wk in tb.wild_kinds if hand[wk])
        social = self.social
        step = self.exch_step
        partner = social.index(tb.ex_partner[step])
        kind = tb.ex_kind[step]
        if kind == 1:
            self.trade_pick[recv] = card
            self.moved = [card]
        else:
            self._transfer(recv, partner, [card])
            if kind == 2:
                self._transfer(partner, recv, [self.trade_pick[partner]])
                self.trade_pick[partner] = -1
                self.moved = [card]
        self.exch_step += 1
        n = len(tb.ex_kind)
        if self.exch_step >= n:
            self.current = self.leader
            self.phase = PLAY
        else:
            self.current = social.index(tb.ex_decider[self.exch_step])
        self._refresh_legal()

    # ------------------------------------------------------------------ between hands
    def _end_hand(self) -> None:
        """Score the hand, then end the session or reseat and deal the next hand (the engine's ``_end_hand``)."""
        tb = self._t
        rules = self.rules
        P = tb.P
        finish = self.finish
        for s in range(P):
            if finish[s] < 0:
                finish[s] = self.next_best
        self.hand_over = True
        pos_by_player = [0] * P
        for s, p in enumerate(self.seat_player):
            pos_by_player[p] = finish[s]
        self.last_finish = pos_by_player
        self.hand_points = [tb.points[pos] for pos in pos_by_player]
        self.points = [x + y for x, y in zip(self.points, self.hand_points, strict=True)]
        self.hand_no += 1
        if rules.hands_per_session is not None:
            over = self.hand_no >= rules.hands_per_session
        else:
            over = max(self.points) >= rules.target_points
        if over:
            self.phase = OVER
            self.legal = [0]
            return
        self.phase = PLAY
        if rules.reseat:
            sp = [0] * P
            for p, r in enumerate(pos_by_player):
                sp[(r * tb.d) % P] = p
            self.seat_player = sp
            for s, p in enumerate(sp):
                self.player_seat[p] = s
        self.social = [pos_by_player[p] for p in self.seat_player]
        self.dealer = self.social.index(P - 1)
        self._start_hand()

    def _deal(self) -> list[list[list[int]]]:
        """The engine's ``_deal`` for a hand with ranks: shuffle from (key, hand number), one card at a time.

        Under ``hand_assignment expose`` the piles go by their last (face-up) card and ``exposed`` is set."""
        tb = self._t
        P, C, d = tb.P, tb.C, tb.d
        social = self.social
        extra = self.rules.extra_cards_to
        if extra == "bottom_ranks":  # the Scum first, then the Vice-Scum, on up the ranking
            order = [social.index(P - 1 - i) for i in range(P)]
        else:
            start = social.index(0) if extra == "top_ranks" else (self.dealer + d) % P
            order = [(start + d * i) % P for i in range(P)]
        noise = E._hash(np.array([[self.key]], dtype=np.uint64), E._SALT_DEAL,
                        np.array([[self.hand_no]], dtype=np.int32), np.arange(C)[None, :])
        perm = np.argsort(noise, axis=1)[0].tolist()
        ck = tb.card_kind
        hands: list[list[list[int]]] = [[[] for _ in range(tb.K)] for _ in range(P)]
        for i, card in enumerate(perm):
            hands[order[i % P]][ck[card]].append(card)
        for h in hands:
            for cards in h:
                cards.sort()
        self.exposed = [-1] * P
        if self.rules.hand_assignment == "expose":
            shown = [perm[j + P * ((C - 1 - j) // P)] for j in range(P)]
            ik = tb.ident_key
            best = sorted(range(P), key=lambda j: -ik[shown[j]])  # stable: ties go to the pile dealt first
            piles = [hands[order[j]] for j in best]
            hands = [None] * P  # type: ignore[list-item]
            for k, j in enumerate(best):
                seat = social.index(k)
                hands[seat] = piles[k]
                self.exposed[seat] = shown[j]
        return hands

    def _start_hand(self) -> None:
        """Deal, play the forced exchange, set who acts (the engine's ``_start_hand``, for a hand with ranks)."""
        tb = self._t
        P, K = tb.P, tb.K
        self.hands = hands = self._deal()
        self.counts = [[len(cards) for cards in h] for h in hands]
        self.n_cards = [sum(cnt) for cnt in self.counts]
        self.phase = PLAY
        self.top_rank, self.top_size, self.top_owner, self.top_wild, self.top_count = -1, 0, -1, False, 0
        self.passed = [False] * P
        self.finish = [-1] * P
        self.next_best, self.next_worst = 0, P - 1
        self.revolution = False
        self.direction = tb.d
        self.played = [0] * K
        self.discarded = [0] * K
        self.exch_step = 0
        self.exch_in = [[0] * K for _ in range(P)]
        self.exch_out = [[0] * K for _ in range(P)]
        self.moved = []
        self.first_lead = False
        self.single_row = 0
        self.trade_pick = [-1] * P
        self.top_own, self.qc_count, self.claim_rank, self.claim_next = -1, 0, -1, -1
        social = self.social
        seat_of_rank = [social.index(r) for r in range(P)]
        self.leader = self.current = seat_of_rank[0 if self.rules.lead_after_first == "president" else P - 1]
        if tb.ex_kind:
            bk = tb.best_key
            for k, n in enumerate(tb.give):
                giver, recv = seat_of_rank[P - 1 - k], seat_of_rank[k]
                held = [c for cards in self.hands[giver] for c in cards]
                best = sorted(held, key=bk.__getitem__, reverse=True)[:n]
                self._transfer(giver, recv, best)
            self.phase = EXCHANGE
            self.current = seat_of_rank[tb.ex_decider[0]]
        self._refresh_legal()
