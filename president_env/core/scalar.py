"""One game at a time: a batch of one, stepped by the same compiled rules as any batch.

:class:`ScalarGame` is a thin view of a batch-of-one :class:`State`: its ``step``, ``legal``
and ``observe`` call the compiled kernels directly (one call each, few arguments), so a
decision of one game costs a few microseconds through Python, without a second implementation
of the rules. The AEC env, the VecEnv's tail, resampling and the search agent use it.

.. code-block:: python

    g = ScalarGame.new(rules, seed=0)       # the same game as engine.init(rules, keys=make_keys(1, 0))
    while not g.over:
        g.step(g.legal[0])                  # g.legal: sorted legal action ids
    g.to_state()                            # a State with batch size 1 (a copy)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import engine as E
from .actions import describe_action
from .kernel import fields as F
from .kernel.consts import consts
from .kernel.observe import observe_batch
from .kernel.step import LEGAL, STEP
from .observation import compile_observe
from .rules import Rules
from .state import EXCHANGE, OVER, State

__all__ = ["ScalarGame"]

_ONE = np.ones(1, dtype=np.bool_)


def _action_id(action: Any) -> int:
    if isinstance(action, (bool, np.bool_)):
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise E.IllegalActionError(f"game 0: actions must be integers, got {action!r}") from None


class ScalarGame:
    """One session of President: a batch-of-one :class:`State` (``state``) and the compiled rules.

    Fields read as Python values (``phase``, ``current``, ``seat_player``, ``hand_over``, ``hand_points``,
    ``last_finish``, ``legal`` the sorted legal ids); ``state`` holds everything else (a batch of one)."""

    __slots__ = ("rules", "state", "_opt", "_tab", "_act", "_A", "_step", "_work")

    def __init__(self, rules: Rules, state: State) -> None:
        c = consts(rules)
        if state.batch_size != 1 or state.layout != c.layout:
            raise ValueError(f"ScalarGame needs a batch of one game of these rules, got {state!r}")
        self.rules, self.state = rules, state
        self._opt, self._tab = c.opt, c.tab
        self._A = c.layout.A
        self._act = np.zeros(1, dtype=np.int64)
        self._step = STEP[c.family]
        self._work = c.workspace()

    # ------------------------------------------------------------------ building
    @classmethod
    def new(cls, rules: Rules, seed: int | np.random.Generator | None = None, **init_kwargs: Any) -> ScalarGame:
        """Start a session as ``engine.init(rules, 1, seed, **init_kwargs)`` does (keys, start_ranks, deal, ...)."""
        return cls(rules, E.init(rules, 1, seed, **init_kwargs))

    @classmethod
    def from_state(cls, rules: Rules, state: State, b: int = 0) -> ScalarGame:
        """Game ``b`` of a batched ``state`` (a copy: the state is not shared). Legal actions are recomputed."""
        if not 0 <= b < state.batch_size:
            raise ValueError(f"game {b} is not in a batch of {state.batch_size}")
        return cls.from_states(rules, state, np.array([b]))[0]

    @classmethod
    def from_states(cls, rules: Rules, state: State, idx: np.ndarray) -> list[ScalarGame]:
        """Games ``idx`` of a batched ``state`` (copies), their legal actions recomputed."""
        c = consts(rules)
        if state.layout != c.layout:
            raise ValueError(f"state does not fit these rules: {state.layout}, expected {c.layout}")
        sub = state.take(np.asarray(idx, dtype=np.int64))
        LEGAL[c.family](sub.b8, sub.b16, sub.b32, sub.key_buf, c.opt, c.tab, c.workspace())
        return [cls(rules, sub.take(np.array([i]))) for i in range(sub.batch_size)]

    @staticmethod
    def to_states(games: list[ScalarGame]) -> State:
        """Several games as one batched :class:`State` (copies)."""
        return State.concat([g.state for g in games])

    def to_state(self) -> State:
        """This game as a batch-of-one :class:`State` (a copy)."""
        return self.state.copy()

    def copy(self) -> ScalarGame:
        """An independent copy."""
        return ScalarGame(self.rules, self.state.copy())

    # ------------------------------------------------------------------ reading
    @property
    def phase(self) -> int:
        return int(self.state.b8[0, F.PHASE])

    @property
    def current(self) -> int:
        """The seat to act."""
        return int(self.state.b8[0, F.CURRENT])

    @property
    def current_player(self) -> int:
        """The player (not seat) to act."""
        return int(self.state.seat_player[0, self.state.b8[0, F.CURRENT]])

    @property
    def seat_player(self) -> list[int]:
        return self.state.seat_player[0].tolist()

    @property
    def over(self) -> bool:
        """Whether the session is over."""
        return self.state.b8[0, F.PHASE] == OVER

    @property
    def hand_over(self) -> bool:
        return bool(self.state.b8[0, F.HAND_OVER])

    @property
    def hand_points(self) -> list[int]:
        return self.state.hand_points[0].tolist()

    @property
    def last_finish(self) -> list[int]:
        return self.state.last_finish[0].tolist()

    @property
    def legal(self) -> list[int]:
        """The sorted legal action ids."""
        return self.state.legal[0].nonzero()[0].tolist()

    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal-action mask (a new array)."""
        return self.state.legal[0].copy()

    def observe(self, player: int) -> np.ndarray:
        """(D,) float32 observation of ``player`` (a new array)."""
        st = self.state
        out = np.empty((1, int(self._opt[F.O_D_OBS])), dtype=np.float32)
        self._act[0] = player
        if not observe_batch.__dict__.get("overloads", True):
            compile_observe(self.rules, st, self._act, out)
        observe_batch(st.b8, st.b16, st.b32, st.key_buf, self._opt, self._tab, self._act, out)
        return out[0]

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Apply one action (an id in ``legal``); raises :class:`IllegalActionError` otherwise."""
        if type(action) is not int:
            action = _action_id(action)
        st = self.state
        if not (0 <= action < self._A and st.legal[0, action]):
            self._illegal(action)
        self._act[0] = action
        self._step(st.b8, st.b16, st.b32, st.key_buf, self._opt, self._tab, self._act, _ONE, self._work)

    def _illegal(self, a: int) -> None:
        A = self._A
        if not 0 <= a < A:
            raise E.IllegalActionError(f"game 0: action {a} is out of range 0..{A - 1}")
        ex = self.phase == EXCHANGE
        words = {i: describe_action(self.rules, i, exchange=ex) for i in self.legal}
        raise E.IllegalActionError(
            f"game 0: illegal action {a} ({describe_action(self.rules, a, exchange=ex)}) "
            f"for seat {self.current}; legal: {words}"
        )
