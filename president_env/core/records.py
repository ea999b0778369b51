"""Game records (rule book section 9): record, write, read, replay and verify.

A record is one finished hand of one session, as one JSON object (a JSON-lines
file holds one record a line). Its fields, in order:

================  ==============================================================
field             meaning
================  ==============================================================
``format``        ``"president-record/1"``
``preset``        the preset name (``rules["name"]``; ``"custom"`` when built by hand)
``rules``         every option value, ``Rules.to_dict()``
``session``       the session's number (index in the batch unless given)
``key``           the session's 64-bit key (drives the deals of its later hands)
``hand``          hands of the session finished before this one (0 = first hand)
``agents``        agent names by player number
``seats``         the player in each seat (seat 0 first)
``dealer``        the dealer's seat
``prev_ranks``    by player: the previous hand's finishing positions, ``null`` if none
``deal``          by player: card names after the deal, before the exchange
``exposed``       only under ``hand_assignment expose``: by player, the card shown face up
                  on the pile it took (``null`` in a hand without ranks)
``exchanges``     the forced gifts in order: ``{"from", "to", "cards"}`` (players)
``decisions``     every decision in order, give-backs (and merchant trades) first:
                  ``{"agent", "action", "cards", "legal"}``: the player, the action
                  id, the cards it played, gave back or chose to trade, the legal
                  action ids then
``finish_order``  players from first place (President) to last
``points``        the points of this hand, by player
``deal_source``   only in a record whose deal comes from elsewhere (``president
                  import-uecda``: ``"uecda FILE game N"``): the deal is not its key's
================  ==============================================================

:func:`replay` rebuilds the start of the hand with :func:`~president_env.core.engine.init`
and steps every decision, re-deriving each legal list, each card moved, the
exchange, the finishing order and the points; it raises :class:`ReplayError`
naming the decision and the difference on any mismatch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from .actions import describe_action
from .cards import tables
from .engine import current_player, init, step_inplace
from .files import atomic_writer
from .jsonio import MAX_LINE_BYTES, JSONInputError, LineTooLong, loads, read_lines
from .rules import MAX_HANDS_PER_SESSION, Rules, RulesError
from .scalar import ScalarGame
from .state import EXCHANGE, OVER, PLAY, State

FORMAT = "president-record/1"
MAX_PLAYER = 63            # player, seat and rank numbers a record may hold (any rules have at most 12 players)
MAX_ACTION = 2**24 - 1     # action ids a record may hold: above every rules' action count (two-deck tables
#                            naming wild cards' suits pass 100,000); the replay checks each against the table
INT32 = 2**31 - 1          # points are 32-bit in the engine
INT64 = 2**63 - 1


class RecordError(ValueError):
    """A record (or a line of a records file) that is not well formed."""


class ReplayError(ValueError):
    """A record that does not replay: the engine derives something different."""


# --------------------------------------------------------------------------- stepping
def may_end_hand(rules: Rules, st: State) -> np.ndarray:
    """(B,) the games whose next decision may end the hand: a play with at most three players holding cards
    (one goes out, and under president_must_win the President falls too), or under ``pass_limit`` the pass
    that reaches the limit."""
    out = (st.phase == PLAY) & ((st.n_cards > 0).sum(axis=1) <= 3)
    if rules.pass_limit:
        out |= (st.phase == PLAY) & (st.pass_run.astype(np.int64) + 1 >= rules.pass_limit)
    return out


def _stop_rules(rules: Rules) -> Rules:
    """The same rules, but every session ends with the hand being played."""
    return rules.replace(hands_per_session=1)


def _step_recording(
    rules: Rules, stop: Rules, st: State, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray, State | None]:
    """Step ``st`` in place and return the cards each action moved.

    Games whose hand ends are also stepped from a copy under rules that end the
    session there, which gives the state as it stood at the end of the hand (the
    engine has dealt the next hand in ``st``) and cross-checks the scoring.
    Returns (moved (B, C), games whose hand ended, those games as they stood
    when their hand ended).
    """
    actions = np.asarray(actions)
    maybe = np.flatnonzero(may_end_hand(rules, st))
    before = st.take(maybe) if maybe.size else None
    step_inplace(rules, st, actions)
    moved = st.moved.copy()
    ended = np.flatnonzero(st.hand_over)
    if ended.size == 0:
        return moved, ended, None
    pos = np.searchsorted(maybe, ended)
    if before is None or (pos >= maybe.size).any() or (maybe[np.minimum(pos, maybe.size - 1)] != ended).any():
        raise RuntimeError("a hand ended in a game where records.may_end_hand said it could not")
    sub = before.take(pos)
    step_inplace(stop, sub, actions[ended])
    if not (np.array_equal(sub.last_finish, st.last_finish[ended])
            and np.array_equal(sub.hand_points, st.hand_points[ended])):
        raise RuntimeError("the engine scored a hand differently when the session ended with it")
    moved[ended] = sub.moved
    return moved, ended, sub


def _by_player(seat_player: np.ndarray, by_seat: np.ndarray) -> np.ndarray:
    """(B, P, ...) by seat -> by player."""
    out = np.empty_like(by_seat)
    out[np.arange(by_seat.shape[0])[:, None], seat_player.astype(np.int64)] = by_seat
    return out


def _forced_gifts(rules: Rules, deal_by_seat: np.ndarray, st: State) -> list[list[tuple[int, int, np.ndarray]]]:
    """Per game: the forced gifts (giver player, receiver player, (C,) cards) that turned the deal into ``st``."""
    B, P = st.batch_size, rules.players
    out: list[list[tuple[int, int, np.ndarray]]] = [[] for _ in range(B)]
    has_ranks = (st.social >= 0).all(axis=1)
    seat_of_rank = np.argsort(st.social, axis=1)
    for b in np.flatnonzero(has_ranks):
        for k in range(len(rules.exchange_pairs)):
            giver, recv = int(seat_of_rank[b, P - 1 - k]), int(seat_of_rank[b, k])
            cards = deal_by_seat[b, giver] & ~st.hands[b, giver]
            out[b].append((int(st.seat_player[b, giver]), int(st.seat_player[b, recv]), cards))
    return out


def _at_hand_start(st: State) -> np.ndarray:
    """(B,) whether each game is at the start of a hand (no decision made yet)."""
    return (
        (st.phase != OVER)
        & (st.played == 0).all(axis=1)
        & (st.discarded == 0).all(axis=1)
        & (st.top_owner < 0)
        & ~st.passed.any(axis=1)
        & (st.exch_step == 0)
    )


# --------------------------------------------------------------------------- recorder
class Recorder:
    """Steps a batch of sessions on the core and collects one record per finished hand.

    ``state`` must be at the start of a hand in every game (as :func:`init` returns
    it); if it was built with ``deal=``, pass the same ``deal`` here. ``agents``
    names the agents by player number; ``sessions`` numbers the games (default
    0..B-1). :meth:`step` applies one action per game (pass, 0, for finished
    sessions) and returns the records of the hands that step finished.
    """

    def __init__(self, rules: Rules, state: State, agents: Sequence[str] | None = None,
                 sessions: Sequence[int] | np.ndarray | None = None, deal: np.ndarray | None = None) -> None:
        self.rules = rules
        self.state = state
        self._stop = _stop_rules(rules)
        # Dealing under these rules repeats a hand's deal without its forced gifts.
        self._plain = rules.replace(exchange=(), exchange_back=None)
        self._names = tables(rules).card_names
        B, P = state.batch_size, rules.players
        if agents is None:
            agents = [f"player{p}" for p in range(P)]
        self.agents = [str(a) for a in agents]
        if len(self.agents) != P:
            raise ValueError(f"agents must name {P} players, got {len(self.agents)}: {self.agents}")
        self.sessions = np.arange(B) if sessions is None else np.asarray(sessions, dtype=np.int64).reshape(-1)
        if self.sessions.shape != (B,):
            raise ValueError(f"sessions must hold {B} numbers, got shape {self.sessions.shape}")
        live = state.phase != OVER
        bad = live & ~_at_hand_start(state)
        if bad.any():
            raise ValueError(f"game {int(np.argmax(bad))} is not at the start of a hand; record from a fresh init()")
        self._headers: list[dict[str, Any] | None] = [None] * B
        self._start = np.full(B, np.iinfo(np.int64).max, dtype=np.int64)  # step where each game's hand began
        self._log: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._base = 0  # step number of self._log[0]
        self._t = 0
        idx = np.flatnonzero(live)
        if deal is not None:
            deal = np.asarray(deal, dtype=bool)
            first = np.take_along_axis(deal, state.seat_player.astype(np.int64)[:, :, None], axis=1)
            self._new_hands(idx, given=first[idx])
        else:
            self._new_hands(idx)

    @property
    def done(self) -> bool:
        """Every session is over."""
        return bool((self.state.phase == OVER).all())

    def _new_hands(self, idx: np.ndarray, given: np.ndarray | None = None) -> None:
        """Write the headers of the hands that just started in games ``idx``."""
        if idx.size == 0:
            return
        st = self.state.take(idx)
        rules = self.rules
        has_ranks = (st.social >= 0).all(axis=1)
        deal = st.hands.copy()
        if given is not None:
            deal = given.copy()
        else:
            r = np.flatnonzero(has_ranks)
            if r.size:
                # The dealt cards before the forced gifts: deal again with no exchange.
                sub = st.take(r)
                plain = init(self._plain, keys=sub.key,
                             start_ranks=sub.last_finish, seat_player=sub.seat_player, dealer=sub.dealer,
                             hand_no=sub.hand_no)
                deal[r] = plain.hands
        exposed_p = _by_player(st.seat_player, st.exposed)
        # Check: the deal rebuilds this very state (as replay() will rebuild it).
        for grp in (np.flatnonzero(has_ranks), np.flatnonzero(~has_ranks)):
            if grp.size == 0:
                continue
            g = st.take(grp)
            shown = exposed_p[grp] if rules.hand_assignment == "expose" and has_ranks[grp[0]] else None
            rebuilt = init(rules, keys=g.key, deal=_by_player(g.seat_player, deal[grp]),
                           start_ranks=g.last_finish if has_ranks[grp[0]] else None,
                           seat_player=g.seat_player, dealer=g.dealer, hand_no=g.hand_no, exposed=shown)
            self._check_start(rebuilt, g, idx[grp])
        gifts = _forced_gifts(rules, deal, st)
        deal_p = _by_player(st.seat_player, deal)
        for j, b in enumerate(idx):
            self._headers[b] = {
                "format": FORMAT,
                "preset": rules.name,
                "rules": rules.to_dict(),
                "session": int(self.sessions[b]),
                "key": int(st.key[j]),
                "hand": int(st.hand_no[j]),
                "agents": list(self.agents),
                "seats": st.seat_player[j].astype(int).tolist(),
                "dealer": int(st.dealer[j]),
                "prev_ranks": st.last_finish[j].astype(int).tolist() if has_ranks[j] else None,
                "deal": [self._card_list(deal_p[j, p]) for p in range(rules.players)],
                "exchanges": [{"from": g, "to": r, "cards": self._card_list(c)} for g, r, c in gifts[j]],
            }
            if rules.hand_assignment == "expose":
                shown = exposed_p[j].tolist()
                self._headers[b]["exposed"] = ([self._names[c] for c in shown]
                                               if has_ranks[j] and min(shown) >= 0 else None)
        self._start[idx] = self._t

    def current_header(self, game: int = 0) -> dict[str, Any] | None:
        """The header (deal, forced gifts, seats, ...) of the hand game ``game`` is playing, or None when its
        session is over."""
        header = self._headers[game]
        return None if header is None else dict(header)

    @staticmethod
    def _check_start(replayed: State, st: State, idx: np.ndarray) -> None:
        for name in ("hands", "current", "phase", "legal", "seat_player", "social", "exposed"):
            same = (getattr(replayed, name) == getattr(st, name)).reshape(st.batch_size, -1).all(axis=1)
            if not same.all():
                b = int(idx[np.argmin(same)])
                raise RuntimeError(f"game {b}: the recorded deal does not rebuild the hand's start ({name} differs)")

    def _card_list(self, row: np.ndarray) -> list[str]:
        return [self._names[c] for c in np.flatnonzero(row)]

    def step(self, actions: np.ndarray) -> list[dict[str, Any]]:
        """Apply one action per game; return the records of the hands this step finished."""
        st = self.state
        live = st.phase != OVER
        agent = current_player(st)
        legal = st.legal.copy()
        moved, ended, _ = _step_recording(self.rules, self._stop, st, actions)
        self._log.append((agent, np.asarray(actions).astype(np.int64), legal, moved))
        self._t += 1
        out: list[dict[str, Any]] = []
        for b in ended:
            out.append(self._finish(int(b)))
        if ended.size:
            self._start[ended] = np.iinfo(np.int64).max
            self._new_hands(ended[st.phase[ended] != OVER])
        self._start[~live] = np.iinfo(np.int64).max
        # Forget steps no hand in progress needs.
        keep_from = int(min(self._start.min(), self._t))
        drop = keep_from - self._base
        if drop > 0:
            del self._log[:drop]
            self._base = keep_from
        return out

    def _finish(self, b: int) -> dict[str, Any]:
        header = self._headers[b]
        assert header is not None
        start = int(self._start[b]) - self._base
        decisions = []
        for agent, action, legal, moved in self._log[start:]:
            decisions.append({
                "agent": int(agent[b]),
                "action": int(action[b]),
                "cards": self._card_list(moved[b]),
                "legal": np.flatnonzero(legal[b]).tolist(),
            })
        pos = self.state.last_finish[b].astype(np.int64)
        rec = dict(header)
        rec["decisions"] = decisions
        rec["finish_order"] = np.argsort(pos, kind="stable").tolist()
        rec["points"] = self.state.hand_points[b].astype(int).tolist()
        self._headers[b] = None
        return rec

    def run(self, policy: Callable[[State], np.ndarray], max_steps: int | None = None) -> list[dict[str, Any]]:
        """Step with ``policy(state) -> (B,) actions`` until every session is over; return all records."""
        out: list[dict[str, Any]] = []
        n = 0
        while not self.done:
            if max_steps is not None and n >= max_steps:
                raise RuntimeError(f"sessions not over after {max_steps} steps")
            out.extend(self.step(policy(self.state)))
            n += 1
        return out


def random_actions(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) uniformly random legal action ids for a (B, A) legal mask, drawn from ``rng``."""
    legal = np.asarray(legal, dtype=bool)
    if not legal.any(axis=1).all():
        raise ValueError("every game needs at least one legal action")
    return np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)


def random_positions(rules: Rules, seed: int, games: int = 8, steps: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Observation rows and legal masks of the player to act in ``games`` games of random legal play (half of
    them first hands, half with ranks from a last hand, so with an exchange), for ``steps`` decisions or until
    every game is over: positions to feed agents (benchmarks, golden choices, tests)."""
    from .observation import observe

    rng = np.random.default_rng(seed)
    st = State.concat([init(rules, batch_size=games // 2, seed=seed),
                       init(rules, batch_size=games - games // 2, seed=seed + 1, start_ranks="random")])
    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(st.phase != OVER)
        if live.size == 0:
            break
        obs.append(observe(rules, st, current_player(st))[live])
        masks.append(st.legal[live])
        step_inplace(rules, st, random_actions(st.legal, rng))
    return np.concatenate(obs), np.concatenate(masks)


# --------------------------------------------------------------------------- files
def write_records(dest: str | Path | IO[str], records: Iterable[dict[str, Any]]) -> int:
    """Write records as JSON lines to a path or an open text file; return how many.

    A path is replaced only once every record is written (:func:`~president_env.core.files.atomic_writer`):
    an interrupted write leaves the earlier file as it was."""
    if isinstance(dest, (str, Path)):
        with atomic_writer(dest) as f:
            return write_records(f, records)
    n = 0
    for rec in records:
        dest.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        n += 1
    return n


def iter_numbered_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each record of a JSON-lines file (blank lines are skipped).

    Raises :class:`RecordError` naming the file and line for a file that cannot be read, a
    line that is not UTF-8, longer than :data:`~president_env.core.jsonio.MAX_LINE_BYTES` or not
    JSON within the limits of :mod:`president_env.core.jsonio`, and a missing, ill-typed or
    out-of-range field. No line is held in memory beyond that limit.
    """
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, after the generator is done
    except OSError as e:
        raise RecordError(f"{path}: cannot read ({e.strerror})") from None
    with f:
        yield from _checked_lines(read_lines(f), str(path))


def iter_record_lines(lines: Iterable[str | bytes], source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line of JSON-lines text (str or UTF-8 bytes), checked
    field by field; a :class:`RecordError` names ``source`` and the line."""
    return _checked_lines(enumerate(lines, start=1), source)


def _too_long(source: str, lineno: int) -> str:
    return f"{source}:{lineno}: longer than {MAX_LINE_BYTES} bytes, the most a line may take"


def _checked_lines(numbered: Iterable[tuple[int, str | bytes]], source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    lines = iter(numbered)
    while True:
        try:
            lineno, line = next(lines)
        except StopIteration:
            return
        except LineTooLong as e:
            raise RecordError(_too_long(source, e.lineno)) from None
        if len(line) > MAX_LINE_BYTES:
            raise RecordError(_too_long(source, lineno))
        if not line.strip():
            continue
        try:
            rec = loads(line)
        except JSONInputError as e:
            raise RecordError(f"{source}:{lineno}: {e}") from None
        try:
            validate_record(rec)
        except RecordError as e:
            raise RecordError(f"{source}:{lineno}: {e}") from None
        yield lineno, rec


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file, one at a time (see :func:`iter_numbered_records`)."""
    for _, rec in iter_numbered_records(path):
        yield rec


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """All records of a JSON-lines file (see :func:`iter_records`)."""
    return list(iter_records(path))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_in(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: _is_int(v) and low <= v <= high


def _ints_in(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(_is_int(x) and low <= x <= high for x in v)


def _str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


_PLAYER = (_int_in(0, MAX_PLAYER), f"an integer 0..{MAX_PLAYER}")
_PLAYERS = (_ints_in(0, MAX_PLAYER), f"a list of integers 0..{MAX_PLAYER}")
_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "format": (lambda v: v == FORMAT, f"the string {FORMAT!r}"),
    "preset": (lambda v: isinstance(v, str), "a string"),
    "rules": (lambda v: isinstance(v, dict), "an object of option values"),
    "session": (_int_in(-INT64 - 1, INT64), "a 64-bit integer"),
    "key": (_int_in(0, 2**64 - 1), "an integer 0..2**64-1"),
    "hand": (_int_in(0, MAX_HANDS_PER_SESSION), f"an integer 0..{MAX_HANDS_PER_SESSION}"),
    "agents": (_str_list, "a list of strings"),
    "seats": _PLAYERS,
    "dealer": _PLAYER,
    "prev_ranks": (lambda v: v is None or _ints_in(0, MAX_PLAYER)(v), f"null or a list of integers 0..{MAX_PLAYER}"),
    "deal": (lambda v: isinstance(v, list) and all(_str_list(h) for h in v), "a list of lists of card names"),
    "exchanges": (lambda v: isinstance(v, list), "a list"),
    "decisions": (lambda v: isinstance(v, list), "a list"),
    "finish_order": _PLAYERS,
    "points": (_ints_in(-INT32 - 1, INT32), "a list of 32-bit integers"),
}
_SUB_FIELDS: dict[str, dict[str, tuple[Callable[[Any], bool], str]]] = {
    "exchanges": {"from": _PLAYER, "to": _PLAYER, "cards": (_str_list, "a list of card names")},
    "decisions": {"agent": _PLAYER, "action": (_int_in(0, MAX_ACTION), f"an integer 0..{MAX_ACTION}"),
                  "cards": (_str_list, "a list of card names"),
                  "legal": (_ints_in(0, MAX_ACTION), f"a list of integers 0..{MAX_ACTION}")},
}


def validate_record(rec: Any) -> None:
    """Check a record's fields and types (not its play: see :func:`replay`); raise :class:`RecordError`."""
    if not isinstance(rec, dict):
        raise RecordError(f"a record must be a JSON object, got {type(rec).__name__}")
    for name, (ok, what) in _FIELDS.items():
        if name not in rec:
            raise RecordError(f"missing field {name!r}")
        if not ok(rec[name]):
            raise RecordError(f"field {name!r} must be {what}, got {rec[name]!r:.80}")
    for name, subs in _SUB_FIELDS.items():
        for i, item in enumerate(rec[name]):
            if not isinstance(item, dict):
                raise RecordError(f"field {name}[{i}] must be an object, got {item!r:.80}")
            for sub, (ok, what) in subs.items():
                if sub not in item:
                    raise RecordError(f"missing field {name}[{i}].{sub}")
                if not ok(item[sub]):
                    raise RecordError(f"field {name}[{i}].{sub} must be {what}, got {item[sub]!r:.80}")
    source = rec.get("deal_source")
    if source is not None and not (isinstance(source, str) and 0 < len(source) <= 200):
        raise RecordError(f"field 'deal_source' must be null or a string of 1..200 characters, got {source!r:.80}")
    shown = rec.get("exposed")
    if shown is not None and not _str_list(shown):
        raise RecordError(f"field 'exposed' must be null or a list of card names, got {shown!r:.80}")


# --------------------------------------------------------------------------- replay
@dataclass
class ReplayStep:
    """One replayed decision: ``before`` and ``after`` are batches of one game.

    ``after`` is the state right after the decision; after the hand's last
    decision it is the finished hand (phase over), not the next hand's deal.
    """

    index: int
    decision: dict[str, Any]
    before: State | None
    after: State | None


def rules_of(record: dict[str, Any]) -> Rules:
    """The rules a record was played under (raises :class:`ReplayError` if they are not valid)."""
    try:
        rules = Rules.from_dict(record["rules"])
    except (RulesError, TypeError, ValueError) as e:
        raise ReplayError(f"rules: {e}") from None
    if record["preset"] != rules.name:
        raise ReplayError(f"preset {record['preset']!r} differs from the rules' name {rules.name!r}")
    return rules


def start_state(record: dict[str, Any]) -> tuple[Rules, State]:
    """The rules and the state at the start of the recorded hand (forced gifts made), checked."""
    validate_record(record)
    rules = rules_of(record)
    P = rules.players
    for name in ("agents", "seats", "deal", "points", "finish_order"):
        if len(record[name]) != P:
            raise ReplayError(f"{name}: {P} players play these rules, the record lists {len(record[name])}")
    deal = _deal_from_names(rules, record["deal"])[None]
    if record["prev_ranks"] is not None and len(record["prev_ranks"]) != P:
        raise ReplayError(f"prev_ranks: expected {P} positions, got {len(record['prev_ranks'])}")
    exposed = _exposed_from_names(rules, record, deal[0])
    try:
        st = init(rules, keys=np.array([record["key"]], dtype=np.uint64), deal=deal,
                  start_ranks=None if record["prev_ranks"] is None else np.array([record["prev_ranks"]]),
                  seat_player=np.array([record["seats"]]), dealer=record["dealer"], hand_no=record["hand"],
                  exposed=exposed)
    except ValueError as e:
        raise ReplayError(f"hand start: {e}") from None
    deal_by_seat = np.take_along_axis(deal, st.seat_player.astype(np.int64)[:, :, None], axis=1)
    names = tables(rules).card_names
    gifts = [{"from": g, "to": r, "cards": [names[c] for c in np.flatnonzero(cards)]}
             for g, r, cards in _forced_gifts(rules, deal_by_seat, st)[0]]
    if gifts != record["exchanges"]:
        raise ReplayError(f"exchanges: the deal gives {gifts}, the record says {record['exchanges']}")
    return rules, st


def _exposed_from_names(rules: Rules, record: dict[str, Any], deal: np.ndarray) -> np.ndarray | None:
    """(1, P) exposed card index by player from the record's ``exposed`` (hand_assignment expose), or None."""
    shown = record.get("exposed")
    if rules.hand_assignment != "expose":
        if shown is not None:
            raise ReplayError("exposed: the record shows exposed cards, but these rules deal the hands "
                              "(hand_assignment deal)")
        return None
    if record["prev_ranks"] is None:
        if shown is not None:
            raise ReplayError("exposed: a hand without ranks exposes no cards, but the record lists some")
        return None
    if shown is None:  # a hand dealt by hand (init with deal= and no exposed=) shows nothing
        return None
    P = rules.players
    if not isinstance(shown, list) or len(shown) != P or not all(isinstance(x, str) for x in shown):
        raise ReplayError(f"exposed: expected one card name per player ({P}) under hand_assignment expose, "
                          f"got {shown!r:.80}")
    names = tables(rules).card_names
    out = np.full((1, P), -1, dtype=np.int64)
    for p, name in enumerate(shown):
        held = [c for c in np.flatnonzero(deal[p]) if names[c] == name]
        if not held:
            raise ReplayError(f"exposed: player {p}'s pile showed {name!r}, which is not in its deal")
        out[0, p] = held[0]
    return out


def _deal_from_names(rules: Rules, deal: list[list[str]]) -> np.ndarray:
    """(P, C) cards by player from card names; copies of a name (two decks, jokers) go out in turn."""
    t = tables(rules)
    slots: dict[str, list[int]] = {}
    for c, name in enumerate(t.card_names):
        slots.setdefault(name, []).append(c)
    out = np.zeros((len(deal), t.n_cards), dtype=bool)
    for p, names in enumerate(deal):
        for name in names:
            kind_slots = slots.get(name)
            if kind_slots is None:
                raise ReplayError(f"deal of player {p}: unknown card {name!r} for these rules")
            free = [c for c in kind_slots if not out[:, c].any()]
            if not free:
                raise ReplayError(f"deal of player {p}: card {name!r} is dealt more often than the pack holds it")
            out[p, free[0]] = True
    missing = [t.card_names[c] for c in np.flatnonzero(~out.any(axis=0))]
    if missing:
        raise ReplayError(f"deal: cards of the pack dealt to nobody: {missing}")
    return out


def _diff(derived: list, recorded: list) -> str:
    missing = [x for x in derived if x not in recorded]
    extra = [x for x in recorded if x not in derived]
    return f"derived {derived}, recorded {recorded} (recorded lacks {missing}, has extra {extra})"


def replay_steps(record: dict[str, Any]) -> Iterator[ReplayStep]:
    """Replay a record decision by decision, checking everything; yield each step.

    Raises :class:`ReplayError` naming the decision index and the difference on
    any mismatch (and :class:`RecordError` for a malformed record).
    """
    return _replay(record, keep_states=True)


def _replay(record: dict[str, Any], keep_states: bool) -> Iterator[ReplayStep]:
    """:func:`replay_steps`; without ``keep_states`` the steps carry no states (``before`` and ``after``
    None) but the last, whose ``after`` is the finished hand: :func:`replay` needs no more, and copies of
    the state at every decision would cost more than the decision."""
    rules, st = start_state(record)
    stop = _stop_rules(rules)
    names = tables(rules).card_names
    decisions = record["decisions"]
    game = ScalarGame(rules, st)            # the batch of one, stepped in place
    ended: State | None = None
    for i, d in enumerate(decisions):
        if ended is not None:
            raise ReplayError(f"decision {i}: the hand ended at decision {i - 1}, "
                              f"but the record has {len(decisions) - i} more decision(s)")
        phase = "exchange" if game.phase == EXCHANGE else "play"
        where = f"decision {i} ({phase})"
        agent = game.current_player
        if agent != d["agent"]:
            raise ReplayError(f"{where}: player {agent} is to act, the record says player {d['agent']}")
        legal = game.legal
        if legal != d["legal"]:
            raise ReplayError(f"{where}: legal action ids differ: {_diff(legal, d['legal'])}")
        a = d["action"]
        if a not in legal:
            raise ReplayError(f"{where}: action {a} is not legal; legal ids are {legal}")
        before = st.copy() if keep_states else None
        # Only some decisions can end a hand (may_end_hand): keep the game as it stood, to step it again below.
        may_end = bool(may_end_hand(rules, st)[0])
        kept = game.copy() if may_end else None
        game.step(a)
        moved = st.moved[0]
        if game.hand_over:
            if kept is None:
                raise RuntimeError("a hand ended in a game where records.may_end_hand said it could not")
            # The same decision under rules that end the session with this hand gives the hand as it stood
            # at its end (the engine has dealt the next hand in ``st``) and cross-checks the scoring.
            at_end = ScalarGame(stop, kept.state)
            at_end.step(a)
            if at_end.last_finish != game.last_finish or at_end.hand_points != game.hand_points:
                raise RuntimeError("the engine scored a hand differently when the session ended with it")
            ended = at_end.state
            moved = ended.moved[0]
        cards = [names[c] for c in np.flatnonzero(moved)]
        if cards != d["cards"]:
            words = describe_action(rules, a, exchange=phase == "exchange")
            raise ReplayError(f"{where}: action {a} ({words}) moved {cards}, the record says {d['cards']}")
        after = ended if ended is not None else (st.copy() if keep_states else None)
        yield ReplayStep(i, d, before, after)
    if ended is None:
        raise ReplayError(f"the record's {len(decisions)} decision(s) end before the hand does")
    order = np.argsort(ended.last_finish[0].astype(np.int64), kind="stable").tolist()
    if order != record["finish_order"]:
        raise ReplayError(f"finish_order: derived {order}, recorded {record['finish_order']}")
    points = ended.hand_points[0].astype(int).tolist()
    if points != record["points"]:
        raise ReplayError(f"points: derived {points}, recorded {record['points']}")


def dealt_cards(record: dict[str, Any]) -> list[list[str]]:
    """By player, the cards the record's key deals for its hand (its number, seats, dealer and the previous
    hand's ranks), before the forced gifts: what :class:`Recorder` writes as ``deal``."""
    rules, start = start_state(record)   # checks the record's fields and their lengths
    plain = rules
    if record["prev_ranks"] is not None:  # dealing with no exchange repeats the deal without its gifts
        plain = rules.replace(exchange=(), exchange_back=None)
    try:
        st = init(plain, keys=np.array([record["key"]], dtype=np.uint64),
                  start_ranks=None if record["prev_ranks"] is None else np.array([record["prev_ranks"]]),
                  seat_player=start.seat_player, dealer=record["dealer"], hand_no=record["hand"])
    except (ValueError, RulesError) as e:
        raise ReplayError(f"deal: the key cannot deal this hand ({e})") from None
    names = tables(rules).card_names
    by_player = _by_player(st.seat_player, st.hands)[0]
    return [[names[c] for c in np.flatnonzero(row)] for row in by_player]


def check_deal(record: dict[str, Any]) -> None:
    """Raise :class:`ReplayError` unless the record's ``deal`` is what its key deals, naming the hand, the
    player and the seat whose cards differ. (A hand dealt by hand, ``Recorder(deal=...)``, fails too: its
    cards do not come from its key.)"""
    derived = dealt_cards(record)
    for p, (mine, theirs) in enumerate(zip(derived, record["deal"], strict=True)):
        if sorted(mine) != sorted(theirs):
            seat = record["seats"].index(p) if p in record["seats"] else "?"
            raise ReplayError(f"deal: hand {record['hand']} of session {record['session']}: the key deals player "
                              f"{p} (seat {seat}) {mine}, the record says {theirs}")


def verify(record: dict[str, Any]) -> State:
    """:func:`replay` the record and :func:`check_deal` it: every decision and the cards themselves (but for a
    record whose ``deal_source`` says its deal came from elsewhere, an imported game: its key did not deal it)."""
    end = replay(record)
    if record.get("deal_source") is None:
        check_deal(record)
    return end


def replay(record: dict[str, Any]) -> State:
    """Replay and verify a record; return the state at the end of the hand (a batch of one).

    Raises :class:`ReplayError` on any difference, naming the decision index.
    """
    last: ReplayStep | None = None
    for last in _replay(record, keep_states=False):  # noqa: B007 - the loop runs the checks
        pass
    if last is None:
        raise ReplayError("the record has no decisions")
    return last.after
