"""President as an OpenSpiel game: every preset and any :class:`Rules`, registered as ``president``.

Importing this module registers the game with ``pyspiel.register_game``::

    import pyspiel
    import president_env.openspiel
    game = pyspiel.load_game("president(preset=daifugo)")

Game parameters: ``preset`` (a preset name, or a small variant of
:mod:`president_env.small_variants`: ``micro``, ``tiny``, ...), ``episode`` (``"hand"``: one hand, the default, or
``"session"``: hands until the session ends), ``max_hands`` (the session's cap when the rules set no
``hands_per_session``: OpenSpiel's games are finite) and one parameter per rule option
(``players=5``, ``pass_rule=locks_out``): an int option or a bool option (``0`` / ``1``) is an int
parameter, ``-1`` meaning the preset's value; every other option is a string parameter, ``""``
meaning the preset's value, ``"none"`` for ``None``, lists as text (``exchange=2 1``,
``trump_ranks=2``). ``decks`` is an int parameter (``decks=2``); a deck and a half is
``preset=deck_and_a_half`` (with any other option changed), and :meth:`PresidentGame.from_rules` writes
rules with ``decks`` 1.5 that way. :meth:`PresidentGame.from_rules` makes the game of any ``Rules``.

The deal is chance nodes: first the dealer's seat (the first hand of a session, as the engine
draws it from the key), then the cards one at a time, player 0's first, each player's cards in
increasing card order, with the probabilities that make every split of the pack equally likely
(so one chance history is one deal, and exact tree walks see each deal once). The last player's
cards are the rest. In a session every later hand is dealt the same way (its dealer comes from the
rules). A decision is the project's action id (:mod:`president_env.core.actions`); the legal
actions are the engine's. Returns are the rule book's points (the session's total in a session).

Observations are the project's observation vector (:mod:`president_env.core.observation`, one flat
float32 array with the same named pieces); during a deal only the ``hand`` (and, on rules that
name cards, ``own_cards``) pieces are filled. The information state is the sequence of the
player's observations after every action so far (perfect recall, and nothing about hidden cards
since no observation holds any): its string is one line per observation, its tensor (single hands
only) the observations stacked in ``max_game_length + 1`` rows, zero past the present.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import typing
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "president_env.openspiel needs OpenSpiel (the open-spiel package); install it with "
        'pip install -e ".[openspiel]"') from exc

from president_env.core import engine as E
from president_env.core import observation as O
from president_env.core.actions import describe_action, n_actions
from president_env.core.cards import tables
from president_env.core.jsonio import JSONInputError, loads
from president_env.core.resample import resample_game
from president_env.core.rules import PRESET_TABLE, Rules, RulesError
from president_env.core.scalar import ScalarGame
from president_env.core.state import EXCHANGE
from president_env.small_variants import SMALL_VARIANT_TABLE, variant_rules

__all__ = [
    "SHORT_NAME", "EPISODES", "DEFAULT_MAX_HANDS", "PresidentGame", "PresidentState", "PresidentObserver",
    "rules_from_params", "params_for_rules", "chance_outcomes_for_deal", "serialize_game_and_state",
    "deserialize_game_and_state", "StateTextError",
]

SHORT_NAME = "president"
EPISODES = ("hand", "session")
DEFAULT_MAX_HANDS = 30

_HINTS = typing.get_type_hints(Rules)
_OPTIONS = tuple(f.name for f in fields(Rules) if f.name != "name")
# decks (1, 1.5 or 2) is an int parameter like the others: a deck and a half comes from preset=deck_and_a_half
_INT_OPTIONS = tuple(o for o in _OPTIONS if _HINTS[o] in (int, bool, int | None, int | float))
_BOOL_OPTIONS = tuple(o for o in _OPTIONS if _HINTS[o] is bool)
_INT_TUPLE_OPTIONS = tuple(o for o in _OPTIONS if _HINTS[o] in (tuple[int, ...], tuple[int, ...] | None))


def _parameter_specification() -> dict[str, Any]:
    spec: dict[str, Any] = {"preset": "president", "episode": "hand", "max_hands": DEFAULT_MAX_HANDS}
    for o in _OPTIONS:
        spec[o] = -1 if o in _INT_OPTIONS else ""
    return spec


_PARAMS = _parameter_specification()


def _option_value(name: str, value: Any) -> Any:
    """A game parameter's value as a ``Rules`` option (``RulesError`` names a bad one)."""
    if name in _BOOL_OPTIONS:
        if value not in (0, 1):
            raise RulesError(f"game parameter {name}={value!r}: a bool option takes 0 or 1 (-1: the preset's)")
        return bool(value)
    if name in _INT_OPTIONS:
        if value == 0 and _HINTS[name] == int | None:
            return None
        return int(value)
    text = str(value).strip()
    if text.lower() == "none":
        return None
    if name in _INT_TUPLE_OPTIONS:
        try:
            return tuple(int(x) for x in text.replace(",", " ").split())
        except ValueError:
            raise RulesError(f"game parameter {name}={text!r}: expected integers, as in {name}=2 1") from None
    return text


def rules_from_params(params: dict[str, Any]) -> tuple[Rules, str, int]:
    """The rules, episode and session cap of OpenSpiel game parameters (bad ones raise ``RulesError``)."""
    unknown = sorted(set(params) - set(_PARAMS))
    if unknown:
        raise RulesError(f"unknown game parameter(s) {unknown}; parameters are: {', '.join(_PARAMS)}")
    for name, value in params.items():    # OpenSpiel's parameters are typed: an int parameter is an int
        want = numbers.Integral if isinstance(_PARAMS[name], int) else str
        if not isinstance(value, want):
            kind = "a string" if want is str else "an integer"
            raise RulesError(f"game parameter {name}={value!r}: must be {kind} (default {_PARAMS[name]!r})")
    p = {**_PARAMS, **params}
    episode = str(p["episode"])
    if episode not in EPISODES:
        raise RulesError(f"game parameter episode={episode!r}: must be one of {', '.join(EPISODES)}")
    max_hands = int(p["max_hands"])
    if not 1 <= max_hands <= 1_000_000:
        raise RulesError(f"game parameter max_hands={max_hands}: must be 1..1,000,000")
    overrides = {o: _option_value(o, p[o]) for o in _OPTIONS if p[o] != _PARAMS[o]}
    rules = variant_rules(str(p["preset"]), **overrides)
    return rules, episode, max_hands


def params_for_rules(rules: Rules, episode: str = "hand", max_hands: int = DEFAULT_MAX_HANDS) -> dict[str, Any]:
    """Game parameters that describe ``rules`` (its preset, and the options that differ from it)."""
    base_name = rules.name if rules.name in PRESET_TABLE or rules.name in SMALL_VARIANT_TABLE else "president"
    if rules.decks == 1.5 and variant_rules(base_name).decks != 1.5:
        base_name = "deck_and_a_half"     # the int parameter decks cannot say 1.5; this preset's decks does
    base = variant_rules(base_name).to_dict()
    mine = rules.to_dict()
    params: dict[str, Any] = {"preset": base_name, "episode": episode, "max_hands": max_hands}
    for o in _OPTIONS:
        if mine[o] == base[o]:
            continue
        v = getattr(rules, o)
        if o in _BOOL_OPTIONS:
            params[o] = int(v)
        elif o in _INT_OPTIONS:
            params[o] = 0 if v is None else int(v)
        elif v is None:
            params[o] = "none"
        elif o == "power_ranks":
            params[o] = " ".join(f"{r}:{','.join(map(str, s))}" for r, s in v)
        elif isinstance(v, (tuple, frozenset)):
            params[o] = " ".join(map(str, sorted(v) if isinstance(v, frozenset) else v))
        else:
            params[o] = str(v)
    if rules_from_params(params)[0] != rules:
        raise RulesError(f"these rules cannot be written as game parameters: {rules.to_dict()}")
    return params


_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="President (Scum, Daifugo and house rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=12,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


def _hand_bound(rules: Rules) -> int:
    """An upper bound on the actions (chance outcomes and decisions) of one hand."""
    C, P = rules.n_cards, rules.players
    return 1 + C + 2 * C + (C + 1) * (P + 2)


class PresidentGame(pyspiel.Game):
    """President under one ``Rules`` object, as an OpenSpiel Python game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """Build from game parameters (see the module doc); ``RulesError`` on a bad one."""
        params = dict(params or {})
        rules, episode, max_hands = rules_from_params(params)
        self.episode = episode
        self.max_hands = max_hands
        if episode == "hand":
            play_rules = rules.replace(hands_per_session=1)
        elif rules.hands_per_session is None:
            play_rules = rules.replace(hands_per_session=max_hands)
        else:
            play_rules = rules
        self.rules = rules
        self.play_rules = play_rules
        self.hands = int(play_rules.hands_per_session or max_hands)
        P = rules.players
        pts = list(rules.points)[:P]
        zero = sum(pts) == 0
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero else pyspiel.GameType.Utility.GENERAL_SUM
        self.obs_size = O.size(rules)
        self.max_length = _hand_bound(rules) * self.hands
        gtype = pyspiel.GameType(
            short_name=SHORT_NAME, long_name=_GAME_TYPE.long_name, dynamics=_GAME_TYPE.dynamics,
            chance_mode=_GAME_TYPE.chance_mode, information=_GAME_TYPE.information, utility=utility,
            reward_model=_GAME_TYPE.reward_model, max_num_players=_GAME_TYPE.max_num_players,
            min_num_players=_GAME_TYPE.min_num_players, provides_information_state_string=True,
            provides_information_state_tensor=episode == "hand", provides_observation_string=True,
            provides_observation_tensor=True, parameter_specification=_PARAMS)
        info_kwargs: dict[str, Any] = {}
        if zero:
            info_kwargs["utility_sum"] = 0.0
        info = pyspiel.GameInfo(
            num_distinct_actions=n_actions(rules), max_chance_outcomes=max(rules.n_cards, P), num_players=P,
            min_utility=float(min(pts) * self.hands), max_utility=float(max(pts) * self.hands),
            max_game_length=self.max_length, **info_kwargs)
        full = {**_PARAMS, **params}
        super().__init__(gtype, info, full)
        self._t = tables(rules)
        self._slices = O.slices(rules)
        self._layout = O.layout(rules)
        self._texts: dict[bytes, str] = {}
        self._first_sizes: dict[int, list[int]] = {}

    @classmethod
    def from_rules(cls, rules: Rules, episode: str = "hand", max_hands: int = DEFAULT_MAX_HANDS) -> PresidentGame:
        """The game of any ``Rules`` (its parameters name its preset and the options that differ)."""
        return cls(params_for_rules(rules, episode, max_hands))

    def new_initial_state(self) -> PresidentState:
        """The start of a game: a chance node (the dealer, then the cards)."""
        return PresidentState(self)

    def state_from_core(self, state: Any, b: int = 0) -> PresidentState:
        """A state of this game at game ``b`` of a core :class:`State` (a copy), past its deal.

        For search from a position: a world of :func:`president_env.core.resample.worlds_from_observation`
        becomes a state that OpenSpiel's algorithms can play on. Its history starts there: each
        player's information state is its observation of ``state``, returns count from zero (in a
        session, the points so far stay in the observation). The state must fit ``play_rules``
        (for ``episode="hand"``: its hand is the game's last)."""
        P = self.num_players()
        new = PresidentState(self)
        new._from_core = True        # its history does not start at the game's start: not written as data
        p = new._p
        p.sg = ScalarGame.from_state(self.play_rules, state, b)
        p.deal = None
        p.rows = [(p.sg.observe(q),) for q in range(P)]
        return new

    def deserialize_state(self, text: str) -> PresidentState:
        """The state ``text`` (from :meth:`PresidentState.serialize`) describes, its history replayed and checked.

        Data only, never a pickle: OpenSpiel's own ``Game.deserialize_state`` of a Python game unpickles the
        state's attributes (this method replaces it when called from Python; C++ callers still reach
        OpenSpiel's, see docs/openspiel.md). A bad text raises :class:`StateTextError` saying why."""
        data = _state_data(text, "state")
        return _replayed(self, data.get("history"))

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> PresidentObserver:
        """The observer of information states (``perfect_recall``) or of observations."""
        return PresidentObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    # -------------------------------------------------------------- helpers shared by states
    def deal_state_row(self, cards: list[int]) -> np.ndarray:
        """The observation of a player during a deal: its cards so far, nothing else."""
        row = np.zeros(self.obs_size, np.float32)
        kinds = self._t.card_kind
        hand = row[self._slices["hand"]]
        for c in cards:
            hand[kinds[c]] += 1
        if "own_cards" in self._slices:
            row[self._slices["own_cards"]][cards] = 1
        return row

    def row_string(self, row: np.ndarray) -> str:
        """One observation as text: its nonzero pieces, ``name=v,v,...`` (cached: rows repeat across a tree)."""
        key = row.tobytes()
        text = self._texts.get(key)
        if text is None:
            parts = []
            nz = set(np.flatnonzero(row).tolist())
            values = row.tolist()
            for name, off, length, _ in self._layout:
                if any(i in nz for i in range(off, off + length)):
                    parts.append(name + "=" + ",".join(f"{v:g}" for v in values[off:off + length]))
            text = " ".join(parts) if parts else "-"
            if len(self._texts) > 500_000:
                self._texts.clear()
            self._texts[key] = text
        return text


@dataclass
class _Deal:
    """A deal in progress: sizes and cards by player, and what the hand starts from."""

    sizes: list[int]
    cards: list[list[int]]
    dealer: int | None                 # None: the dealer is the next chance outcome
    seat_player: list[int] | None      # later hands of a session: the seating ...
    ranks: list[int] | None            # ... last hand's positions by player
    hand_no: int
    points: list[int]


class _Shared:
    """Holds references that a clone shares (deep copies return the same object)."""

    def __init__(self, game: PresidentGame) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self

    def __reduce__(self) -> tuple:
        g = self.game
        return (_shared_from_params, (dict(g.get_parameters()),))


def _shared_from_params(params: dict[str, Any]) -> _Shared:
    return _Shared(PresidentGame(params))


class _Play:
    """The mutable part of a state (copied by ``clone``): the engine's game or the deal in progress."""

    def __init__(self) -> None:
        self.sg: ScalarGame | None = None
        self.deal: _Deal | None = None
        self.rows: list[tuple[np.ndarray, ...]] = []     # per player: observations so far
        self.rewards: list[float] = []
        self.returns: list[float] = []

    def __deepcopy__(self, memo: dict) -> _Play:
        new = _Play()
        new.sg = self.sg.copy() if self.sg is not None else None
        new.deal = copy.deepcopy(self.deal)
        new.rows = list(self.rows)      # tuples of arrays that are never written: shared
        new.rewards = list(self.rewards)
        new.returns = list(self.returns)
        return new


def _first_sizes(game: PresidentGame, dealer: int) -> list[int]:
    """Cards dealt to each player in a session's first hand when ``dealer`` deals (cached per game)."""
    sizes = game._first_sizes.get(dealer)
    if sizes is None:
        st = E.init(game.play_rules, 1, keys=np.zeros(1, np.uint64), dealer=dealer)
        sizes = game._first_sizes[dealer] = _dealt_sizes_by_player(st)
    return list(sizes)


def _dealt_sizes_by_player(st: Any) -> list[int]:
    """Cards each player was dealt in the hand ``st`` (batch of one) starts: held, less the exchange."""
    by_seat = st.n_cards[0].astype(np.int64) - st.exch_in[0].sum(axis=1) + st.exch_out[0].sum(axis=1)
    sizes = [0] * by_seat.shape[0]
    for s, p in enumerate(st.seat_player[0].tolist()):
        sizes[p] = int(by_seat[s])
    return sizes


class PresidentState(pyspiel.State):
    """A state of :class:`PresidentGame`: a deal in progress, a decision, or the end."""

    def __init__(self, game: PresidentGame) -> None:
        """The first chance node of a game."""
        super().__init__(game)
        P = game.num_players()
        self._sh = _Shared(game)
        self._p = _Play()
        self._p.deal = _Deal(sizes=[], cards=[[] for _ in range(P)], dealer=None, seat_player=None, ranks=None,
                             hand_no=0, points=[0] * P)
        first = game.deal_state_row([])
        self._p.rows = [(first,) for _ in range(P)]
        self._p.rewards = [0.0] * P
        self._p.returns = [0.0] * P

    # -------------------------------------------------------------- reading
    def serialize(self) -> str:
        """The state as data: JSON of its action history (chance outcomes included), which
        :meth:`PresidentGame.deserialize_state` replays. OpenSpiel's own serialization of a Python state
        pickles its attributes; this one never does."""
        if getattr(self, "_from_core", False):
            raise StateTextError("a state from state_from_core starts past the game's start: its history "
                                 "cannot rebuild it, so it is not written as data")
        return json.dumps({"format": STATE_FORMAT, "history": [int(a) for a in self.history()]})

    @property
    def game_object(self) -> PresidentGame:
        """The :class:`PresidentGame` of this state."""
        return self._sh.game

    @property
    def scalar_game(self) -> ScalarGame | None:
        """The engine's game (a copy), or None during a deal."""
        return None if self._p.sg is None else self._p.sg.copy()

    def current_player(self) -> int:
        """The player to act, ``CHANCE`` during a deal, ``TERMINAL`` at the end."""
        p = self._p
        if p.sg is None:
            return pyspiel.PlayerId.CHANCE
        if p.sg.over:
            return pyspiel.PlayerId.TERMINAL
        return int(p.sg.current_player)

    def is_terminal(self) -> bool:
        """Whether the game (the hand, or the session) is over."""
        return self._p.sg is not None and self._p.sg.over

    def _legal_actions(self, player: int) -> list[int]:
        sg = self._p.sg
        if sg is None or sg.over or player != sg.current_player:
            return []
        return list(sg.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome, probability): a dealer's seat, or the next card of the player being dealt to."""
        d = self._p.deal
        if d is None:
            return []
        if d.dealer is None:
            P = len(d.cards)
            return [(s, 1.0 / P) for s in range(P)]
        p, m = self._next_receiver()
        taken = {c for cs in d.cards for c in cs}
        last = d.cards[p][-1] if d.cards[p] else -1
        free = [c for c in range(self._sh.game.rules.n_cards) if c > last and c not in taken]
        n = len(free)
        total = math.comb(n, m)
        out = []
        for i, c in enumerate(free):
            w = math.comb(n - 1 - i, m - 1)
            if w:
                out.append((c, w / total))
        return out

    def _next_receiver(self) -> tuple[int, int]:
        """(player, cards it still needs) for the next card of the deal."""
        d = self._p.deal
        assert d is not None
        for p, size in enumerate(d.sizes):
            if len(d.cards[p]) < size:
                return p, size - len(d.cards[p])
        raise AssertionError("the deal is complete")

    # -------------------------------------------------------------- acting
    def _apply_action(self, action: int) -> None:
        p = self._p
        game = self._sh.game
        if p.sg is None:
            self._apply_chance(int(action))
            return
        sg = p.sg
        sg.step(int(action))
        P = game.num_players()
        rewards = [0.0] * P
        if sg.hand_over:
            rewards = [float(x) for x in sg.hand_points]
            p.returns = [a + b for a, b in zip(p.returns, rewards, strict=True)]
        p.rewards = rewards
        if sg.hand_over and not sg.over:
            self._start_next_hand()
            return
        self._append_rows([sg.observe(q) for q in range(P)])

    def _append_rows(self, rows: list[np.ndarray]) -> None:
        p = self._p
        p.rows = [old + (r,) for old, r in zip(p.rows, rows, strict=True)]

    def _apply_chance(self, outcome: int) -> None:
        p = self._p
        game = self._sh.game
        d = p.deal
        assert d is not None
        P = game.num_players()
        if d.dealer is None:
            if not 0 <= outcome < P:
                raise ValueError(f"chance outcome {outcome} is not a dealer's seat 0..{P - 1}")
            d.dealer = outcome
            d.sizes = _first_sizes(game, outcome)
        else:
            legal = dict(self.chance_outcomes())
            if outcome not in legal:
                raise ValueError(f"chance outcome {outcome} is not a card the deal can give now: {sorted(legal)}")
            q, _ = self._next_receiver()
            d.cards[q] = d.cards[q] + [outcome]
        # the last player with cards to receive takes the rest
        waiting = [q for q in range(P) if len(d.cards[q]) < d.sizes[q]] if d.sizes else [0]
        if len(waiting) == 1:
            q = waiting[0]
            taken = {c for cs in d.cards for c in cs}
            d.cards[q] = d.cards[q] + [c for c in range(game.rules.n_cards) if c not in taken]
            waiting = []
        if d.sizes and not waiting:
            self._finish_deal()
        else:
            self._append_rows([game.deal_state_row(d.cards[q]) for q in range(P)])

    def _finish_deal(self) -> None:
        p = self._p
        game = self._sh.game
        d = p.deal
        assert d is not None
        P, C = game.num_players(), game.rules.n_cards
        deal = np.zeros((1, P, C), dtype=bool)
        for q, cs in enumerate(d.cards):
            deal[0, q, cs] = True
        kwargs: dict[str, Any] = {"keys": np.zeros(1, np.uint64), "dealer": d.dealer, "deal": deal,
                                  "hand_no": d.hand_no}
        if d.ranks is not None:
            kwargs["start_ranks"] = np.array([d.ranks])
            kwargs["seat_player"] = np.array([d.seat_player])
        st = E.init(game.play_rules, 1, **kwargs)
        st.points[0] = d.points
        p.sg = ScalarGame.from_state(game.play_rules, st)
        p.deal = None
        self._append_rows([p.sg.observe(q) for q in range(P)])

    def _start_next_hand(self) -> None:
        """A hand ended within the session: deal the next one by chance (the engine's own deal is dropped)."""
        p = self._p
        game = self._sh.game
        st = p.sg.to_state()
        P = game.num_players()
        p.deal = _Deal(
            sizes=_dealt_sizes_by_player(st), cards=[[] for _ in range(P)], dealer=int(st.dealer[0]),
            seat_player=st.seat_player[0].tolist(), ranks=st.last_finish[0].tolist(), hand_no=int(st.hand_no[0]),
            points=st.points[0].tolist())
        p.sg = None
        self._append_rows([game.deal_state_row([]) for _ in range(P)])

    # -------------------------------------------------------------- text and returns
    def _action_to_string(self, player: int, action: int) -> str:
        game = self._sh.game
        if player == pyspiel.PlayerId.CHANCE:
            d = self._p.deal
            if d is not None and d.dealer is None:
                return f"dealer: seat {action}"
            names = game._t.card_names
            return f"deal card {action} ({names[action]})" if 0 <= action < len(names) else f"card {action}"
        sg = self._p.sg
        exchange = sg is not None and sg.phase == EXCHANGE
        return describe_action(game.rules, int(action), exchange=exchange)

    def rewards(self) -> list[float]:
        """Points of the hand the last decision ended (else zeros).

        As in OpenSpiel's own games, a decision's reward stays through the chance nodes (the next
        deal) that follow it: OpenSpiel reads rewards at decision and terminal nodes."""
        return list(self._p.rewards)

    def returns(self) -> list[float]:
        """Points so far, by player (the hand's, or the session's total)."""
        return list(self._p.returns)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PresidentState:
        """A state with ``player_id``'s information state whose hidden cards are dealt again.

        During play the hidden cards come from :func:`president_env.core.resample.resample_game`
        (seeded from ``probability_sampler()``); during a deal the cards already dealt to the
        others are shuffled among them. The other players' earlier observations are kept as they
        were: their information states in the new state are not rebuilt from the new cards."""
        seed = int(probability_sampler() * 2**53)
        rng = np.random.default_rng(seed)
        new = self.clone()
        p = new._p
        if p.sg is not None:
            if not p.sg.over:
                p.sg = resample_game(self._sh.game.play_rules, p.sg, int(player_id), 1, rng)[0]
            return new
        d = p.deal
        assert d is not None
        others = [q for q in range(len(d.cards)) if q != player_id]
        pool = [c for q in others for c in d.cards[q]]
        rng.shuffle(pool)
        i = 0
        for q in others:
            n = len(d.cards[q])
            d.cards[q] = sorted(pool[i:i + n])
            i += n
        return new

    def __str__(self) -> str:
        """The table as text (every hand shown), or the deal so far."""
        p = self._p
        game = self._sh.game
        names = game._t.card_names
        if p.sg is None:
            d = p.deal
            assert d is not None
            hands = " | ".join(f"p{q}: {' '.join(names[c] for c in cs)}" for q, cs in enumerate(d.cards))
            return f"dealing (dealer {d.dealer}) {hands}"
        st = p.sg.to_state()
        lines = []
        for s in range(game.num_players()):
            q = int(st.seat_player[0, s])
            held = " ".join(names[c] for c in np.flatnonzero(st.hands[0, s]))
            lines.append(f"seat {s} p{q}: {held}")
        return "\n".join(lines) + f"\npoints {st.points[0].tolist()} to act: {self.current_player()}"


class PresidentObserver:
    """OpenSpiel's observer of a :class:`PresidentState`: named pieces of one flat float32 array.

    ``perfect_recall`` (information states): the piece ``observations``, one row per observation
    since the start (``max_game_length + 1`` rows; single hands only). Otherwise the project's
    observation, its pieces named as in :func:`president_env.core.observation.layout`."""

    def __init__(self, game: PresidentGame, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("president observes what one player knows: private_info SINGLE_PLAYER and public_info")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        D = game.obs_size
        if self.perfect_recall:
            rows = game.max_length + 1 if game.episode == "hand" else 1
            self.tensor = np.zeros(rows * D, np.float32)
            self.dict = {"observations": self.tensor.reshape(rows, D)}
        else:
            self.tensor = np.zeros(D, np.float32)
            self.dict = {name: self.tensor[off:off + n] for name, off, n, _ in game._layout}

    def set_from(self, state: PresidentState, player: int) -> None:
        """Fill ``tensor`` with ``player``'s view of ``state``."""
        rows = state._p.rows[player]
        if self.perfect_recall:
            out = self.dict["observations"]
            out.fill(0)
            n = min(len(rows), out.shape[0])
            if n:
                out[:n] = np.stack(rows[-n:])
        else:
            self.tensor[:] = rows[-1]

    def string_from(self, state: PresidentState, player: int) -> str:
        """``player``'s view of ``state`` as text."""
        rows = state._p.rows[player]
        text = state.game_object.row_string
        if self.perfect_recall:
            return f"p{player}\n" + "\n".join(text(r) for r in rows)
        return f"p{player} {text(rows[-1])}"


pyspiel.register_game(_GAME_TYPE, PresidentGame)


def chance_outcomes_for_deal(game: PresidentGame, dealer: int, deal_by_player: list[list[int]]) -> list[int]:
    """The chance outcomes that deal ``deal_by_player`` (card indices) with ``dealer`` in the first hand."""
    sizes = _first_sizes(game, dealer)
    got = [len(cs) for cs in deal_by_player]
    if got != sizes:
        raise ValueError(f"the deal gives {got} cards by player; with dealer seat {dealer} the rules deal {sizes}")
    out = [int(dealer)]
    last = max((q for q in range(len(sizes)) if sizes[q]), default=0)
    for q, cs in enumerate(deal_by_player):
        if q != last:
            out += sorted(int(c) for c in cs)
    return out


# ------------------------------------------------------------------ serialization as data
STATE_FORMAT = "president-openspiel-state/1"
GAME_FORMAT = "president-openspiel-game-and-state/1"


class StateTextError(ValueError):
    """Serialized text that does not describe a state of the game: the message says why."""


def serialize_game_and_state(game: PresidentGame, state: PresidentState) -> str:
    """``game`` and ``state`` as data: JSON of the game's parameters and the state's action history.

    Use it, with :func:`deserialize_game_and_state`, in place of ``pyspiel.serialize_game_and_state``,
    whose reading back unpickles (runs) whatever the text holds."""
    params = {k: (int(v) if isinstance(v, numbers.Integral) else str(v)) for k, v in game.get_parameters().items()}
    history = json.loads(state.serialize())["history"]
    return json.dumps({"format": GAME_FORMAT, "game": params, "history": history})


def deserialize_game_and_state(text: str) -> tuple[PresidentGame, PresidentState]:
    """The game and state of :func:`serialize_game_and_state`'s text: the parameters checked, the history
    replayed action by action (each one legal there). Never unpickles; a bad text raises
    :class:`StateTextError` naming what was wrong."""
    data = _state_data(text, "game and state")
    params = data.get("game")
    if not isinstance(params, dict):
        raise StateTextError("game and state: 'game' must be an object of game parameters")
    try:
        game = PresidentGame(params)
    except RulesError as e:
        raise StateTextError(f"game and state: {e}") from None
    return game, _replayed(game, data.get("history"))


def _state_data(text: str | bytes, what: str) -> dict[str, Any]:
    want = STATE_FORMAT if what == "state" else GAME_FORMAT
    try:
        data = loads(text)
    except JSONInputError as e:
        raise StateTextError(f"{what}: not the JSON of {want} ({e}); OpenSpiel's own format (a pickle) is "
                             "not read") from None
    if not isinstance(data, dict) or data.get("format") != want:
        raise StateTextError(f"{what}: not {want} (its 'format' field)")
    return data


def _replayed(game: PresidentGame, history: Any) -> PresidentState:
    """A new state of ``game`` with ``history`` applied, each action checked legal where it is applied."""
    if not isinstance(history, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in history):
        raise StateTextError("state: 'history' must be a list of action ids (integers)")
    if len(history) > game.max_game_length() + game.max_chance_nodes_in_history():
        raise StateTextError(f"state: {len(history)} actions, longer than any game of these rules")
    state = game.new_initial_state()
    for i, a in enumerate(history):
        if state.is_terminal():
            raise StateTextError(f"state: the game is over after {i} actions, but the history has {len(history)}")
        legal = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        if a not in legal:
            raise StateTextError(f"state: action {i} ({a}) is not legal there")
        state.apply_action(a)
    return state
