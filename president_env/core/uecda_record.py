"""Read the game records of the UECda reference server (the ``.dat`` format).

The format is section 4 of ``shared/spec/uecda.md``; what this reader follows is the writer
itself, ``GameRecord::toString`` and ``toRecordString`` in YuriCat/FujiGokoroUECda
(``src/core/record.cc``, ``src/core/daifugo.cc``). A file is::

    player NAME0 NAME1 NAME2 NAME3 NAME4
    /*
    game 0                      (optional: the reference server does not write it)
    score
    class 0 1 2 3 4             (class of players 0..4 before the hand)
    seat 4 2 0 1 3              (seat of players 0..4)
    dealt { c3 s3 ... } x5      (hands as dealt, before the exchange)
    changed { ... } x5          (the cards each player gave in the exchange)
    original { ... } x5         (hands after the exchange)
    play s-k[654] p[140] ...    (every turn: move[time in microseconds])
    result 3 4 2 0 1            (finishing place of players 0..4, 0 = daifugo)
    */
    ... more games ...

Cards are written suit then rank, lowercase (``c3``, ``dt``, ``sa``, ``h2``), the joker ``jo``;
this module gives them the project's names (``3C``, ``TD``, ``AS``, ``2H``, ``JK``). A move is
``p`` (pass), ``jk`` (a lone joker), a set ``ds-9(s)`` (its suits, the joker's included, ``-``, the
rank, the joker's suits in parentheses), a five-card set ``cdhsx-7(cdhsx)`` (suit ``x``; the
parenthesis may be absent), or a run ``h-678(7)`` (one suit, every rank low to high, the joker's
rank in parentheses; ``-`` and ``+`` are the virtual ranks below 3 and above 2: ``h--34(-)``,
``s-a2+(+)``).

:func:`read_uecda_record` and :func:`parse_uecda_record` give a :class:`UecdaRecord`; a file that
is not such a record raises :class:`UecdaRecordError` (a ``ValueError``) naming the file, the line,
the field and the fault. Nothing is repaired or skipped.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

__all__ = [
    "DECK", "JOKER", "MAX_MOVES_PER_GAME", "MAX_RECORD_BYTES", "N_PLAYERS", "UecdaGame", "UecdaMove",
    "UecdaRecord", "UecdaRecordError",
    "parse_card", "parse_move", "parse_uecda_record", "read_uecda_record",
]

N_PLAYERS = 5
#: limits on what a record may hold (a hostile file is refused, not parsed into memory): bytes of a file, and
#: moves of a game (53 cards played one at a time with the 19 passes the pass limit allows between plays, and more)
MAX_RECORD_BYTES = 32 * 1024 * 1024
MAX_MOVES_PER_GAME = 2_000
JOKER = "JK"
SUITS = ("C", "D", "H", "S")                       # the project's suit order, weakest first
RANKS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2")
_RANK_OF = {"3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9",
            "t": "T", "j": "J", "q": "Q", "k": "K", "a": "A", "2": "2"}
_RUN_RANKS = "-3456789tjqka2+"                     # a run's ranks, '-' below 3 and '+' above 2
_SUIT_OF = {"c": "C", "d": "D", "h": "H", "s": "S"}
#: The 53 cards of a UECda deck, project names, in the writer's order (rank, then suit C D H S).
DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS) + (JOKER,)
_ORDER = {c: i for i, c in enumerate(DECK)}
_FIELDS = ("game", "score", "class", "seat", "dealt", "changed", "original", "play", "result")
_REQUIRED = ("class", "seat", "dealt", "changed", "original", "play", "result")
_TOKEN = re.compile(r"[{}]|[^\s{}]+")
_MOVE_TIME = re.compile(r"([^\[\]]*)(?:\[([0-9]+)\])?")


class UecdaRecordError(ValueError):
    """A file that is not a well-formed UECda record: ``"<source> line <n>: <field>: <problem>"``.

    ``source``, ``line`` (1-based), ``field`` (the record keyword, ``"encoding"`` or ``"move"``) and
    ``problem`` are kept as attributes."""

    def __init__(self, source: str, line: int, field: str, problem: str) -> None:
        self.source, self.line, self.field, self.problem = source, line, field, problem
        super().__init__(f"{source} line {line}: {field}: {problem}")


class _Bad(Exception):
    """An error inside one field; the line reader adds the source, line and field."""


@dataclass(frozen=True)
class UecdaMove:
    """One ``play`` token.

    ``shape`` is ``"pass"``, ``"single"`` (one card, a lone joker included), ``"set"`` (2 to 5
    cards of one rank) or ``"run"``. ``cards`` are the natural cards played (project names, rank
    then suit order; the joker is never in it); ``joker`` says whether the joker was played too.
    ``joker_as`` is the card the joker stands for, rank then suit: ``"9S"``; in a run at a virtual
    end ``"-H"`` (below 3) or ``"+H"`` (above 2); in a five-card set ``"7X"`` (the record's fifth
    suit ``x``); ``None`` for a lone joker and for moves without the joker. ``rank`` is a set's
    rank or a run's lowest rank (possibly ``"-"``), ``ranks`` every rank the move covers low to high
    (the joker's included), ``suits`` the suits as written (the joker's included; ``"X"`` in a
    five-card set); all three are empty for a pass or a lone joker. ``time_us`` is the time in
    brackets (microseconds the server waited), ``None`` if the token has none. ``token`` is the
    token as written, time included."""

    token: str
    shape: str
    cards: tuple[str, ...]
    joker: bool
    joker_as: str | None
    rank: str | None
    ranks: tuple[str, ...]
    suits: tuple[str, ...]
    time_us: int | None

    @property
    def is_pass(self) -> bool:
        """Whether the move is a pass (an illegal submission is recorded as one too)."""
        return self.shape == "pass"

    @property
    def size(self) -> int:
        """Cards played, the joker included (0 for a pass)."""
        return len(self.cards) + int(self.joker)

    @property
    def all_cards(self) -> tuple[str, ...]:
        """The cards that leave the hand: ``cards`` plus ``"JK"`` when the joker is played."""
        return self.cards + ((JOKER,) if self.joker else ())


@dataclass(frozen=True)
class UecdaGame:
    """One game (hand) of a record. Per-player tuples are indexed by player number 0..4.

    ``number`` is the game's place in the file (0 first); ``index`` the ``game N`` line's value or
    ``None`` when the line is absent (records of the reference server); ``line`` and ``end_line``
    the lines of ``/*`` and ``*/``. ``classes`` are the classes before the hand (0 daifugo ..
    4 daihinmin; meaningless in a hand without ranks), ``seats`` the seat of each player,
    ``dealt``/``changed``/``original`` hands as card-name tuples in the file's order, ``plays`` the
    moves in order, ``result`` the finishing place of each player, ``score`` the tokens of the
    ``score`` line (empty in the server's records)."""

    number: int
    index: int | None
    line: int
    end_line: int
    score: tuple[str, ...]
    classes: tuple[int, ...]
    seats: tuple[int, ...]
    dealt: tuple[tuple[str, ...], ...]
    changed: tuple[tuple[str, ...], ...]
    original: tuple[tuple[str, ...], ...]
    plays: tuple[UecdaMove, ...]
    result: tuple[int, ...]

    @property
    def with_ranks(self) -> bool:
        """Whether the hand had an exchange (some ``changed`` hand is not empty)."""
        return any(self.changed)

    @property
    def seat_players(self) -> tuple[int, ...]:
        """The player at each seat, seat 0 first (the inverse of ``seats``)."""
        inv = [0] * N_PLAYERS
        for p, s in enumerate(self.seats):
            inv[s] = p
        return tuple(inv)

    @property
    def finish_order(self) -> tuple[int, ...]:
        """Players from first place (daifugo) to last (the inverse of ``result``)."""
        inv = [0] * N_PLAYERS
        for p, r in enumerate(self.result):
            inv[r] = p
        return tuple(inv)

    @property
    def ended_by_pass_limit(self) -> bool:
        """Whether the last move is a pass: the writer's sign of a hand cut short (``setTerminated``)."""
        return bool(self.plays) and self.plays[-1].is_pass

    def received(self, player: int) -> tuple[str, ...]:
        """The cards ``player`` received in the exchange, by ``classes``: the daifugo gets the
        daihinmin's ``changed`` cards, the fugo the hinmin's, and back (empty without ranks)."""
        if not self.with_ranks:
            return ()
        partner = {0: 4, 1: 3, 3: 1, 4: 0}.get(self.classes[player])
        if partner is None:
            return ()
        return self.changed[self.classes.index(partner)]

    def exchange_problems(self) -> tuple[str, ...]:
        """How ``dealt``, ``changed`` and ``original`` disagree, one sentence a fault; empty when
        every player's ``original`` is ``dealt`` + received - ``changed`` and the counts given
        are 2, 1, 0, 1, 2 by class (all 0 without ranks). Not checked on reading: the server logs
        an invalid give-back as submitted though it then moves the chooser's strongest cards."""
        out = []
        if not self.with_ranks:
            for p in range(N_PLAYERS):
                if Counter(self.dealt[p]) != Counter(self.original[p]):
                    out.append(f"player {p}: original differs from dealt in a hand without exchange")
            return tuple(out)
        for p in range(N_PLAYERS):
            want = (2, 1, 0, 1, 2)[self.classes[p]]
            if len(self.changed[p]) != want:
                out.append(f"player {p} (class {self.classes[p]}) gave {len(self.changed[p])} cards, not {want}")
            hand = Counter(self.dealt[p]) + Counter(self.received(p))
            gave = Counter(self.changed[p])
            if gave - hand:
                out.append(f"player {p} gave {sorted(gave - hand, key=_ORDER.get)} it did not hold")
            if hand - gave != Counter(self.original[p]):
                out.append(f"player {p}: original is not dealt + received - changed")
        return tuple(out)


@dataclass(frozen=True)
class UecdaRecord:
    """A parsed record file: ``source`` (the name errors use), the five ``players`` names (player
    order) and the ``games`` in file order."""

    source: str
    players: tuple[str, ...]
    games: tuple[UecdaGame, ...]


def parse_card(text: str) -> str:
    """The project name of a record card: ``"c3"`` -> ``"3C"``, ``"dt"`` -> ``"TD"``, ``"jo"`` -> ``"JK"``.

    Raises ``ValueError`` for anything else (the writer is lowercase: ``"C3"`` is refused)."""
    if text == "jo":
        return JOKER
    if len(text) == 2 and text[0] in _SUIT_OF and text[1] in _RANK_OF:
        return _RANK_OF[text[1]] + _SUIT_OF[text[0]]
    raise ValueError(f"card {text!r} is not a card (suit c d h s, then rank 3-9 t j q k a 2; or jo)")


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def parse_move(token: str) -> UecdaMove:
    """Parse one ``play`` token (``"ds-9(s)[284960]"``) into a :class:`UecdaMove`.

    Raises ``ValueError`` naming the fault when the token is not a move the writer can produce."""
    m = _MOVE_TIME.fullmatch(token)
    if m is None:
        raise ValueError(f"{token!r}: the time must be digits in brackets at the end ('s-3[120]')")
    body, time_text = m.group(1), m.group(2)
    time_us = int(time_text) if time_text is not None else None
    if body == "":
        raise ValueError(f"{token!r}: no move before the time")
    if body == "p":
        return UecdaMove(token, "pass", (), False, None, None, (), (), time_us)
    if body == "jk":
        return UecdaMove(token, "single", (), True, None, None, (), (), time_us)
    if "-" not in body:
        raise ValueError(f"{token!r}: a move is p, jk, or suits '-' ranks (like ds-9(s) or h-678(7))")
    suit_text, rest = body.split("-", 1)
    joker_text: str | None = None
    if "(" in rest:
        rank_text, _, tail = rest.partition("(")
        if not tail.endswith(")") or ")" in tail[:-1] or "(" in tail:
            raise ValueError(f"{token!r}: the joker's part must be one '( ... )' at the end")
        joker_text = tail[:-1]
    else:
        rank_text = rest
        if ")" in rest:
            raise ValueError(f"{token!r}: ')' without '('")
    if not suit_text:
        raise ValueError(f"{token!r}: no suit before '-'")
    for ch in suit_text:
        if ch not in "cdhsx":
            raise ValueError(f"{token!r}: suit {ch!r} is not one of c d h s x")
    if list(suit_text) != sorted(set(suit_text), key="cdhsx".index):
        raise ValueError(f"{token!r}: suits {suit_text!r} repeat or are out of the order c d h s x")
    if not rank_text:
        raise ValueError(f"{token!r}: no rank after '-'")
    if len(rank_text) == 1:
        return _parse_set(token, suit_text, rank_text, joker_text, time_us)
    return _parse_run(token, suit_text, rank_text, joker_text, time_us)


def _parse_set(token: str, suit_text: str, rank_text: str, joker_text: str | None,
               time_us: int | None) -> UecdaMove:
    if rank_text not in _RANK_OF:
        raise ValueError(f"{token!r}: rank {rank_text!r} is not one of 3-9 t j q k a 2")
    rank = _RANK_OF[rank_text]
    suits = tuple("X" if ch == "x" else _SUIT_OF[ch] for ch in suit_text)
    if "x" in suit_text:                                   # five-card set: four naturals and the joker
        if suit_text != "cdhsx":
            raise ValueError(f"{token!r}: suit x (the joker's fifth card) needs all four suits: cdhsx")
        if joker_text not in (None, "cdhsx"):
            raise ValueError(f"{token!r}: a five-card set's joker part is (cdhsx), not ({joker_text})")
        return UecdaMove(token, "set", tuple(rank + s for s in SUITS), True, rank + "X", rank,
                         (rank,), suits, time_us)
    if joker_text is None:
        shape = "single" if len(suits) == 1 else "set"
        return UecdaMove(token, shape, tuple(rank + s for s in suits), False, None, rank, (rank,), suits, time_us)
    if len(joker_text) != 1 or joker_text not in _SUIT_OF:
        raise ValueError(f"{token!r}: the joker stands for one suit of c d h s, not ({joker_text})")
    if joker_text not in suit_text:
        raise ValueError(f"{token!r}: the joker's suit {joker_text!r} is not among the set's suits {suit_text!r}")
    if len(suits) == 1:
        raise ValueError(f"{token!r}: a lone joker is written jk")
    joker_suit = _SUIT_OF[joker_text]
    cards = tuple(rank + s for s in suits if s != joker_suit)
    return UecdaMove(token, "set", cards, True, rank + joker_suit, rank, (rank,), suits, time_us)


def _parse_run(token: str, suit_text: str, rank_text: str, joker_text: str | None,
               time_us: int | None) -> UecdaMove:
    if len(suit_text) != 1 or suit_text == "x":
        raise ValueError(f"{token!r}: a run has one suit of c d h s, not {suit_text!r}")
    suit = _SUIT_OF[suit_text]
    for ch in rank_text:
        if ch not in _RUN_RANKS:
            raise ValueError(f"{token!r}: rank {ch!r} is not one of - 3-9 t j q k a 2 +")
    start = _RUN_RANKS.index(rank_text[0])
    if rank_text != _RUN_RANKS[start:start + len(rank_text)]:
        raise ValueError(f"{token!r}: ranks {rank_text!r} are not consecutive from low to high")
    if len(rank_text) < 3:
        raise ValueError(f"{token!r}: a run has at least 3 cards, not {len(rank_text)}")
    if joker_text is not None and (len(joker_text) != 1 or joker_text not in rank_text):
        raise ValueError(f"{token!r}: the joker's rank ({joker_text}) is not one of the run's ranks {rank_text!r}")
    for virtual in "-+":
        if virtual in rank_text and joker_text != virtual:
            raise ValueError(f"{token!r}: rank {virtual!r} (a virtual rank) can only be the joker's")
    ranks = tuple(_RANK_OF.get(ch, ch) for ch in rank_text)
    cards = tuple(r + suit for ch, r in zip(rank_text, ranks, strict=True) if ch != joker_text)
    joker_as = None if joker_text is None else _RANK_OF.get(joker_text, joker_text) + suit
    return UecdaMove(token, "run", cards, joker_text is not None, joker_as, ranks[0], ranks, (suit,), time_us)


def _ints(tokens: list[str]) -> tuple[int, ...]:
    if len(tokens) != N_PLAYERS:
        raise _Bad(f"expected {N_PLAYERS} values (players 0..4), found {len(tokens)}")
    out = []
    for t in tokens:
        if not t.isdigit() or not t.isascii():
            raise _Bad(f"{t!r} is not a non-negative integer")
        out.append(int(t))
    if sorted(out) != list(range(N_PLAYERS)):
        raise _Bad(f"{' '.join(tokens)} is not a permutation of 0..4")
    return tuple(out)


def _hands(tokens: list[str]) -> tuple[tuple[str, ...], ...]:
    hands: list[tuple[str, ...]] = []
    i = 0
    while i < len(tokens):
        if tokens[i] != "{":
            raise _Bad(f"expected '{{' to open player {len(hands)}'s hand, found {tokens[i]!r}")
        try:
            j = tokens.index("}", i + 1)
        except ValueError:
            raise _Bad(f"player {len(hands)}'s hand has no closing '}}'") from None
        names = []
        for t in tokens[i + 1:j]:
            if t == "{":
                raise _Bad(f"'{{' inside player {len(hands)}'s hand")
            try:
                names.append(parse_card(t))
            except ValueError as e:
                raise _Bad(str(e)) from None
        dup = [c for c, n in Counter(names).items() if n > 1]
        if dup:
            raise _Bad(f"card {dup[0]} appears twice in player {len(hands)}'s hand")
        hands.append(tuple(names))
        i = j + 1
    if len(hands) != N_PLAYERS:
        raise _Bad(f"expected {N_PLAYERS} hands in braces, found {len(hands)}")
    return tuple(hands)


def _full_deck(hands: tuple[tuple[str, ...], ...]) -> None:
    owner: dict[str, int] = {}
    for p, hand in enumerate(hands):
        for c in hand:
            if c in owner:
                raise _Bad(f"card {c} is in the hands of players {owner[c]} and {p}")
            owner[c] = p
    if len(owner) != len(DECK):
        missing = [c for c in DECK if c not in owner]
        raise _Bad(f"the five hands hold {len(owner)} cards, not {len(DECK)} (missing: {' '.join(missing)})")


def _plays(tokens: list[str]) -> tuple[UecdaMove, ...]:
    if len(tokens) > MAX_MOVES_PER_GAME:
        raise _Bad(f"{len(tokens):,} moves, more than a game can take ({MAX_MOVES_PER_GAME:,}: 53 cards, at most "
                   "20 passes in a row between plays)")
    out = []
    for k, t in enumerate(tokens):
        try:
            out.append(parse_move(t))
        except ValueError as e:
            raise _Bad(f"token {k + 1}: {e}") from None
    return tuple(out)


def _decode_lines(data: bytes | str, source: str) -> list[str]:
    if isinstance(data, str):
        raw_lines: list = data.split("\n")
    else:
        raw_lines = data.split(b"\n")
    lines = []
    for n, raw in enumerate(raw_lines, 1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise UecdaRecordError(source, n, "encoding",
                                       f"byte 0x{raw[e.start]:02x} at column {e.start + 1} is not UTF-8 text") from None
        if raw.endswith("\r"):
            raw = raw[:-1]
        for col, ch in enumerate(raw, 1):
            if (ord(ch) < 32 and ch != "\t") or ord(ch) == 127:
                raise UecdaRecordError(source, n, "encoding", f"control character {ord(ch):#04x} at column {col}")
            if 0xD800 <= ord(ch) <= 0xDFFF:
                raise UecdaRecordError(source, n, "encoding", f"lone surrogate U+{ord(ch):04X} at column {col}")
        lines.append(raw)
    return lines


def parse_uecda_record(data: bytes | str, source: str = "<record>") -> UecdaRecord:
    """Parse the text (or bytes, UTF-8) of a UECda record; ``source`` names it in errors.

    Raises :class:`UecdaRecordError` on the first fault: a missing, repeated or unknown field,
    a hand count other than 5, a card that is not a card or is held twice, ``dealt``/``original``
    that are not the 53-card deck, ``class``/``seat``/``result`` that are not permutations of
    0..4, a move token the writer cannot produce, a game without ``*/`` or bytes that are not
    UTF-8 text."""
    lines = _decode_lines(data, source)
    players: tuple[str, ...] | None = None
    games: list[UecdaGame] = []
    current: dict | None = None   # the open game's fields: keyword -> (line, value)
    open_line = 0
    last_line = 0
    for n, line in enumerate(lines, 1):
        tokens = _TOKEN.findall(line)
        if not tokens:
            continue
        last_line = n
        key, args = tokens[0], tokens[1:]
        if players is None:
            if key != "player":
                raise UecdaRecordError(source, n, _short(key), "the first line must be 'player' and the five names")
            if len(args) != N_PLAYERS:
                raise UecdaRecordError(source, n, "player", f"expected {N_PLAYERS} names, found {len(args)}"
                                       " (a name with a space cannot be told apart)")
            players = tuple(args)
            continue
        if current is None:
            if key != "/*":
                raise UecdaRecordError(source, n, _short(key),
                                       f"expected '/*' to open game {len(games)}, found {_short(line.strip())!r}")
            if args:
                raise UecdaRecordError(source, n, "/*", f"unexpected text after '/*': {_short(' '.join(args))!r}")
            current, open_line = {}, n
            continue
        label = f"game {len(games)} (opened at line {open_line})"
        if key == "/*":
            raise UecdaRecordError(source, n, "/*", f"a new game opens inside {label}, which has no '*/'")
        if key == "*/":
            if args:
                raise UecdaRecordError(source, n, "*/", f"unexpected text after '*/': {_short(' '.join(args))!r}")
            missing = [f for f in _REQUIRED if f not in current]
            if missing:
                raise UecdaRecordError(source, n, missing[0], f"{label} has no '{missing[0]}' line")
            games.append(_game(current, len(games), open_line, n))
            current = None
            continue
        if key not in _FIELDS:
            raise UecdaRecordError(source, n, _short(key), f"unknown field {_short(key)!r} in {label}")
        if key in current:
            raise UecdaRecordError(source, n, key, f"second '{key}' line in {label} (first at line {current[key][0]})")
        try:
            current[key] = (n, _field(key, args))
        except _Bad as e:
            raise UecdaRecordError(source, n, key, str(e)) from None
    if players is None:
        raise UecdaRecordError(source, max(last_line, 1), "player", "no 'player' line: the file is empty")
    if current is not None:
        raise UecdaRecordError(source, last_line, "*/", f"the file ends inside game {len(games)} (opened at line "
                                                        f"{open_line}; last line {last_line}) with no '*/'")
    return UecdaRecord(source, players, tuple(games))


def _field(key: str, args: list[str]) -> object:
    if key == "game":
        if len(args) != 1 or not args[0].isascii() or not args[0].isdigit():
            raise _Bad(f"expected one non-negative game index, found {' '.join(args)!r}")
        return int(args[0])
    if key == "score":
        return tuple(args)
    if key in ("class", "seat", "result"):
        return _ints(args)
    if key in ("dealt", "changed", "original"):
        hands = _hands(args)
        if key != "changed":
            _full_deck(hands)
        return hands
    return _plays(args)


def _game(f: dict, number: int, line: int, end_line: int) -> UecdaGame:
    def get(key: str, default: object = None) -> object:
        return f[key][1] if key in f else default

    return UecdaGame(
        number=number, index=get("game"), line=line, end_line=end_line, score=get("score", ()),
        classes=get("class"), seats=get("seat"), dealt=get("dealt"), changed=get("changed"),
        original=get("original"), plays=get("play"), result=get("result"),
    )


def read_uecda_record(path: str | os.PathLike[str]) -> UecdaRecord:
    """Read and parse the record file at ``path`` (errors name it as given); a file of more than
    :data:`MAX_RECORD_BYTES` is refused before it is read."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise UecdaRecordError(os.fspath(path), 1, "file", f"more than {MAX_RECORD_BYTES:,} bytes (a 1,000-game "
                               "match is about 1.2 MB); split it into files of fewer games")
    return parse_uecda_record(data, os.fspath(path))
