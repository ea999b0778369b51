"""The batched state as a few packed buffers, and its fields as NumPy views of them.

A batch of B games is four arrays with a leading batch axis: ``b8`` (B, N8) int8 holds every
int8 and bool field of a game, ``b16`` (B, 2) int16 the poker claims, ``b32`` (B, 1 + 2P) int32
the hand number and the points, ``key`` (B,) uint64 the per-game key. The compiled rules
(:mod:`president_env.core.kernel`) take these few arrays, so one call costs little whatever the
number of fields, and reads them through views by field group (below). Python code reads the
fields by name (``state.top_rank``, ``state.hands``): each is a view of the buffers, with the
shape and dtype the field has always had (bool fields are int8 bytes seen as bool).

Groups of the int8 buffer, in order (indices are compile-time constants of the kernels):

=========  =============  ===============================================================
group      shape / game   fields
=========  =============  ===============================================================
``s8``     (NS8,)         one number per game: ``S8_FIELDS``
``p8``     (NP8, P)       one per seat: ``P8_FIELDS``
``pk8``    (NPK8, P, K)   per seat and kind: ``PK8_FIELDS``
``k8``     (NK8, K)       per kind: ``K8_FIELDS``
``c8``     (NC8, C)       per card (bool): ``C8_FIELDS``
``hands``  (P, C)         cards held by seat (bool)
``legal``  (A,)           legal actions now (bool)
=========  =============  ===============================================================

and of the int32 buffer: ``hand_no``, then ``points`` (P) and ``hand_points`` (P) by player.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

EXCHANGE, PLAY, OVER = 0, 1, 2
PHASE_NAMES = ("exchange", "play", "over")

# Field groups of the int8 buffer (name, is bool). The position in a tuple is the field's index; kernel/fields.py
# takes each group's size from here and names each index (TOP_RANK ...) in the same order: a new field needs its
# name there too (the import fails otherwise).
S8_FIELDS = (
    ("phase", False), ("dealer", False), ("current", False), ("leader", False), ("top_rank", False),
    ("top_size", False), ("top_owner", False), ("top_wild", True), ("top_count", False), ("first_lead", True),
    ("next_best", False), ("next_worst", False), ("revolution", True), ("direction", False), ("exch_step", False),
    ("hand_over", True), ("single_row", False), ("top_own", False), ("qc_count", False), ("claim_rank", False),
    ("claim_next", False), ("top_run", False), ("lock", False), ("top_suits", False), ("top_lo", False),
    ("eleven_back", True), ("pass_run", False),
)
P8_FIELDS = (
    ("seat_player", False), ("social", False), ("n_cards", False), ("passed", True), ("finish", False),
    ("last_finish", False), ("exposed", False), ("trade_pick", False),
)
PK8_FIELDS = (("counts", False), ("exch_in", False), ("exch_out", False))
K8_FIELDS = (("played", False), ("discarded", False))
C8_FIELDS = (("top_cards", True), ("played_cards", True), ("moved", True), ("picked", True))
I16_FIELDS = ("poker_claim", "top_claim")
I32_FIELDS = ("hand_no", "points", "hand_points")   # hand_no (1), points (P), hand_points (P)

# The order of State's fields (the order of the dataclass this class replaced).
FIELD_ORDER = (
    "key", "hand_no", "phase", "seat_player", "dealer", "social", "hands", "counts", "n_cards", "current", "leader",
    "top_rank", "top_size", "top_owner", "top_wild", "top_count", "first_lead", "passed", "finish", "next_best",
    "next_worst", "revolution", "direction", "played", "discarded", "exch_step", "exch_in", "exch_out", "points",
    "hand_points", "hand_over", "last_finish", "single_row", "exposed", "trade_pick", "top_own", "qc_count",
    "claim_rank", "claim_next", "top_run", "lock", "top_suits", "top_lo", "eleven_back", "pass_run",
    "top_cards", "played_cards", "moved", "poker_claim", "picked",
    "top_claim", "legal",
)
NS8, NP8, NPK8, NK8, NC8 = len(S8_FIELDS), len(P8_FIELDS), len(PK8_FIELDS), len(K8_FIELDS), len(C8_FIELDS)

# The value of each int8 field in a new (empty) game: -1 where -1 means "none".
_NONE_FIELDS = frozenset({"top_rank", "top_owner", "top_own", "claim_rank", "claim_next", "social", "finish",
                          "last_finish", "exposed", "trade_pick"})


@dataclass(frozen=True)
class Layout:
    """Where each field lives, for games of P seats, C cards, K kinds and A actions."""

    P: int
    C: int
    K: int
    A: int

    @property
    def o_p8(self) -> int:
        return NS8

    @property
    def o_pk8(self) -> int:
        return self.o_p8 + NP8 * self.P

    @property
    def o_k8(self) -> int:
        return self.o_pk8 + NPK8 * self.P * self.K

    @property
    def o_c8(self) -> int:
        return self.o_k8 + NK8 * self.K

    @property
    def o_hands(self) -> int:
        return self.o_c8 + NC8 * self.C

    @property
    def o_legal(self) -> int:
        return self.o_hands + self.P * self.C

    @property
    def n8(self) -> int:
        return self.o_legal + self.A

    @property
    def n32(self) -> int:
        return 1 + 2 * self.P

    def offsets(self) -> np.ndarray:
        """(o_p8, o_pk8, o_k8, o_c8, o_hands, o_legal, n8) for the kernels."""
        return np.array([self.o_p8, self.o_pk8, self.o_k8, self.o_c8, self.o_hands, self.o_legal, self.n8],
                        dtype=np.int64)


@lru_cache(maxsize=256)
def _field_specs(lay: Layout) -> dict[str, tuple[str, int, tuple[int, ...], bool]]:
    """name -> (buffer, offset, shape per game, is bool)."""
    P, C, K, A = lay.P, lay.C, lay.K, lay.A
    out: dict[str, tuple[str, int, tuple[int, ...], bool]] = {}
    for i, (name, is_bool) in enumerate(S8_FIELDS):
        out[name] = ("b8", i, (), is_bool)
    for i, (name, is_bool) in enumerate(P8_FIELDS):
        out[name] = ("b8", lay.o_p8 + i * P, (P,), is_bool)
    for i, (name, is_bool) in enumerate(PK8_FIELDS):
        out[name] = ("b8", lay.o_pk8 + i * P * K, (P, K), is_bool)
    for i, (name, is_bool) in enumerate(K8_FIELDS):
        out[name] = ("b8", lay.o_k8 + i * K, (K,), is_bool)
    for i, (name, is_bool) in enumerate(C8_FIELDS):
        out[name] = ("b8", lay.o_c8 + i * C, (C,), is_bool)
    out["hands"] = ("b8", lay.o_hands, (P, C), True)
    out["legal"] = ("b8", lay.o_legal, (A,), True)
    out["poker_claim"] = ("b16", 0, (), False)
    out["top_claim"] = ("b16", 1, (), False)
    out["hand_no"] = ("b32", 0, (), False)
    out["points"] = ("b32", 1, (P,), False)
    out["hand_points"] = ("b32", 1 + P, (P,), False)
    out["key"] = ("key", 0, (), False)
    return out


def empty_buffers(lay: Layout, B: int, direction: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The buffers of B new games: every field zero, or -1 where -1 means none; ``direction`` as given."""
    b8 = np.zeros((B, lay.n8), dtype=np.int8)
    specs = _field_specs(lay)
    for name in _NONE_FIELDS:
        _, off, shape, _ = specs[name]
        b8[:, off:off + int(np.prod(shape, dtype=np.int64))] = -1
    b8[:, specs["direction"][1]] = direction
    return b8, np.zeros((B, 2), dtype=np.int16), np.zeros((B, lay.n32), dtype=np.int32), np.zeros(B, dtype=np.uint64)


class State:
    """B independent sessions of President: four packed buffers, read and written through field views.

    Fields by seat are indexed by seat (seats are numbered clockwise and players move between
    them when reseating); fields by player by the player (agent) number; ``seat_player[b, s]``
    is the player in seat ``s``. Every field is a view: writing into it (``state.hands[0, 1, 5] =
    True``) changes the game; assigning a new array to a field copies it in.

    ==============  ==========  ======  =====================================================
    field           shape       dtype   meaning
    ==============  ==========  ======  =====================================================
    key             (B,)        uint64  per-game seed: drives every deal of the session
    hand_no         (B,)        int32   hands finished so far in the session
    phase           (B,)        int8    EXCHANGE, PLAY or OVER (session finished)
    seat_player     (B,P)       int8    player sitting in each seat
    dealer          (B,)        int8    seat that dealt this hand
    social          (B,P)       int8    by seat: last hand's finishing position (0 = President), -1 none
    hands           (B,P,C)     bool    by seat: cards held
    counts          (B,P,K)     int8    by seat: cards held per kind
    n_cards         (B,P)       int8    by seat: cards held
    current         (B,)        int8    seat to act
    leader          (B,)        int8    seat that led (or will lead) the current trick
    top_rank        (B,)        int8    play rank on top (effective rank), -1 when leading
    top_size        (B,)        int8    cards in the play on top, 0 when leading
    top_owner       (B,)        int8    seat that made the play on top, -1 when leading
    top_wild        (B,)        bool    the play on top contains wild cards
    top_count       (B,)        int8    cards of the top's rank in consecutive plays (complete_set_clears)
    first_lead      (B,)        bool    the coming lead must contain the lowest card
    passed          (B,P)       bool    by seat: passed since the last play (may_replay), this trick
                                        (locks_out), had its turn (single_round)
    finish          (B,P)       int8    by seat: finishing position this hand, -1 still playing
    next_best       (B,)        int8    best finishing position not yet taken
    next_worst      (B,)        int8    worst finishing position not yet taken
    revolution      (B,)        bool    rank order reversed
    direction       (B,)        int8    +1 clockwise (seat s -> s+1), -1 counter-clockwise
    played          (B,K)       int8    cards played this hand, per kind (public)
    discarded       (B,K)       int8    cards that left play unseen (president_must_win)
    exch_step       (B,)        int8    exchange decisions made this hand (give-backs, then trades)
    exch_in         (B,P,K)     int8    by seat: cards received in this hand's exchange
    exch_out        (B,P,K)     int8    by seat: cards given in this hand's exchange
    points          (B,P)       int32   by player: session totals
    hand_points     (B,P)       int32   by player: points of the hand that just ended (else 0)
    hand_over       (B,)        bool    the last step ended a hand
    last_finish     (B,P)       int8    by player: positions of the last finished hand, -1 none
    single_row      (B,)        int8    singles of the top's rank in a row (revolution_by_singles)
    exposed         (B,P)       int8    by seat: card exposed on the pile it took (expose), -1 none
    trade_pick      (B,P)       int8    by seat: merchant card chosen, not yet moved, -1 none
    top_own         (B,)        int8    own play rank of the last play this trick, -1 none (quick_clear)
    qc_count        (B,)        int8    natural cards of that rank at the top (quick_clear)
    claim_rank      (B,)        int8    play rank the player to act may claim as a quick clear, -1 none
    claim_next      (B,)        int8    seat that acts if the claim is declined, -1 none
    top_run         (B,)        int8    run length of the play on top, 0 for a set (runs)
    lock            (B,)        int8    suit_lock: the locked suits as four bits (suit_order place), 0 none
    top_suits       (B,)        int8    suit_lock: the suits of the play on top as four bits (the joker's: the
                                        suit it stands for; a lone joker: 0)
    top_lo          (B,)        int8    runs: the lowest place in rank_order of the run on top, + 1 (0: below
                                        the lowest rank, run_joker_ends)
    eleven_back     (B,)        bool    eleven_back: a J has reversed the order until the trick ends
    pass_run        (B,)        int8    pass_limit: passes in a row (across tricks; a play resets it)
    top_cards       (B,C)       bool    the cards of the play on top (card-level rules, poker)
    played_cards    (B,C)       bool    cards played this hand (card-level rules, poker)
    moved           (B,C)       bool    cards the last action played or gave
    poker_claim     (B,)        int16   poker: the claim the player to act is picking cards for, 0 none
    picked          (B,C)       bool    poker: the cards it has picked so far (still in its hand)
    top_claim       (B,)        int16   poker: the claim of the play on top, 0 when leading
    legal           (B,A)       bool    legal actions now (only pass once the session is over)
    ==============  ==========  ======  =====================================================
    """

    __slots__ = ("b8", "b16", "b32", "key_buf", "layout", "__dict__")   # __dict__: the field views, made once

    def __init__(self, layout: Layout, b8: np.ndarray, b16: np.ndarray, b32: np.ndarray, key: np.ndarray) -> None:
        B = key.shape[0]
        if b8.shape != (B, layout.n8) or b16.shape != (B, 2) or b32.shape != (B, layout.n32) or key.ndim != 1:
            raise ValueError(f"state buffers do not fit the layout {layout}: {b8.shape}, {b16.shape}, {b32.shape}, "
                             f"{key.shape}")
        self.layout = layout
        self.b8, self.b16, self.b32, self.key_buf = b8, b16, b32, key

    # ------------------------------------------------------------------ building
    @classmethod
    def empty(cls, layout: Layout, batch_size: int, direction: int = 1) -> State:
        return cls(layout, *empty_buffers(layout, batch_size, direction))

    @classmethod
    def from_fields(cls, **fields: np.ndarray) -> State:
        """A state from one array per field (every field of :data:`FIELD_ORDER`), copied into new buffers."""
        missing = set(FIELD_ORDER) - set(fields)
        extra = set(fields) - set(FIELD_ORDER)
        if missing or extra:
            raise ValueError(f"State fields: missing {sorted(missing)}, unknown {sorted(extra)}")
        hands = np.asarray(fields["hands"])
        B, P, C = hands.shape
        K, A = int(np.asarray(fields["counts"]).shape[2]), int(np.asarray(fields["legal"]).shape[1])
        lay = Layout(P=P, C=C, K=K, A=A)
        st = cls.empty(lay, B)
        for name in FIELD_ORDER:
            setattr(st, name, fields[name])
        return st

    # ------------------------------------------------------------------ fields
    def _view(self, name: str) -> np.ndarray:
        buf_name, off, shape, is_bool = _field_specs(self.layout)[name]
        if buf_name == "key":
            return self.key_buf
        buf = {"b8": self.b8, "b16": self.b16, "b32": self.b32}[buf_name]
        B = buf.shape[0]
        n = int(np.prod(shape, dtype=np.int64))
        v = buf[:, off] if not shape else buf[:, off:off + n].reshape((B,) + shape)
        return v.view(np.bool_) if is_bool else v

    def __getattr__(self, name: str) -> np.ndarray:
        if name not in _FIELD_SET:
            raise AttributeError(f"State has no field {name!r}")
        v = self.__dict__[name] = self._view(name)     # found there from now on, without this call
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FIELD_SET:
            target = getattr(self, name)
            target[...] = value
            return
        object.__setattr__(self, name, value)

    @property
    def batch_size(self) -> int:
        return int(self.key_buf.shape[0])

    def buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.b8, self.b16, self.b32, self.key_buf

    # ------------------------------------------------------------------ batches
    def copy(self) -> State:
        return State(self.layout, self.b8.copy(), self.b16.copy(), self.b32.copy(), self.key_buf.copy())

    def take(self, idx: np.ndarray) -> State:
        """The sub-batch ``idx`` (a copy)."""
        return State(self.layout, self.b8[idx], self.b16[idx], self.b32[idx], self.key_buf[idx])

    def put(self, idx: np.ndarray, sub: State) -> None:
        """Write the sub-batch ``sub`` back at ``idx`` (in place)."""
        self.b8[idx] = sub.b8
        self.b16[idx] = sub.b16
        self.b32[idx] = sub.b32
        self.key_buf[idx] = sub.key_buf

    @staticmethod
    def concat(states: list[State]) -> State:
        """Join states of the same rules along the batch axis."""
        lay = states[0].layout
        if any(s.layout != lay for s in states):
            raise ValueError("State.concat: states of different rules")
        return State(lay, *(np.concatenate([s.buffers()[i] for s in states]) for i in range(4)))

    def __reduce__(self):
        """Pickled and copied as its buffers (the field views are remade, over the new buffers)."""
        return (State, (self.layout, self.b8, self.b16, self.b32, self.key_buf))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.layout == other.layout and all(np.array_equal(a, b) for a, b in zip(
            self.buffers(), other.buffers(), strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"State(batch_size={self.batch_size}, players={self.layout.P}, cards={self.layout.C})"


_FIELD_SET = frozenset(FIELD_ORDER)


def field_names() -> tuple[str, ...]:
    return FIELD_ORDER
