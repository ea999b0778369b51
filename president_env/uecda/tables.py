"""UECda card tables <-> the project's card names (``shared/spec/uecda.md`` sections 2, 3.4, 3.6).

Rows 0-4 of a table hold cards: row S 0, H 1, D 2, C 3; columns 1..13 are the ranks
3, 4, ..., K, A, 2 (the project's names ``3S`` ... ``2C``); the held joker is
[4][1] = 2. In a *play* the joker is a 2 in the cell of the card it stands for (in a
run also column 0 or 14, a virtual rank below 3 or above 2); in a five-card set the
four natural cards of a rank hold 1 and [4][rank's column] holds 2; a lone joker is a
2 in any cell of rows 0-3. Rows 5 and 6 of a server table carry the state of the game
(:class:`TableInfo`); row 7 is unused.

Nothing here needs the rules engine: a play table is checked for its *form* (one
joker, cells that make a single, a set or a run), not for legality.

Errors: tables that come from the network raise :class:`UecdaProtocolError` naming the
row and cell; the builders raise ``ValueError`` for arguments that name no card or no
play.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .protocol import COLS, ROWS, UecdaProtocolError, as_table

RANKS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2")   # columns 1..13
SUIT_ROWS = ("S", "H", "D", "C")                                              # rows 0..3
JOKER = "JK"
JOKER_CELL = (4, 1)          # the held joker in a hand or exchange table
LOW_END, HIGH_END = 0, 14    # virtual run ends a joker may stand at (run_joker_ends)
PLAYERS = 5
_PROJECT_SUIT_ORDER = "CDHS"  # the project sorts cards by rank, then suit C < D < H < S
_ALL_CARDS = 53


# ---------------------------------------------------------------------------------------------
# Cells and card names
# ---------------------------------------------------------------------------------------------

def _normalise(card: str) -> str:
    s = str(card).strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    return s


def cell_of(card: str) -> tuple[int, int]:
    """The cell of a card: ``"3S"`` -> (0, 1), ``"2C"`` -> (3, 13), ``"JK"`` -> (4, 1) (the held joker).

    Accepts lower case and ``10`` for ``T``. Raises ``ValueError`` for a name that is no card."""
    s = _normalise(card)
    if s == JOKER:
        return JOKER_CELL
    if len(s) == 2 and s[0] in RANKS and s[1] in SUIT_ROWS:
        return SUIT_ROWS.index(s[1]), RANKS.index(s[0]) + 1
    raise ValueError(f"unknown card {card!r} (cards look like 3S, TD, 2C, JK)")


def card_at(row: int, col: int) -> str:
    """The card of a cell: (0, 1) -> ``"3S"``, (4, 1) -> ``"JK"``.

    Raises ``ValueError`` for a cell that holds no card."""
    if 0 <= row < 4 and 1 <= col <= 13:
        return RANKS[col - 1] + SUIT_ROWS[row]
    if (row, col) == JOKER_CELL:
        return JOKER
    raise ValueError(f"cell [{row}][{col}] holds no card (cards: rows 0-3, columns 1-13; the joker [4][1])")


def column_of_rank(rank: str) -> int:
    """The column of a rank: ``"3"`` -> 1, ``"2"`` -> 13 (``"10"`` is ``"T"``). Raises ``ValueError``."""
    r = _normalise(rank)
    r = "T" if r == "10" else r
    if r not in RANKS:
        raise ValueError(f"unknown rank {rank!r} (ranks are {' '.join(RANKS)})")
    return RANKS.index(r) + 1


def _card_key(card: str) -> tuple[int, int]:
    """Project order: rank 3..2, then suit C < D < H < S; the joker last."""
    if card == JOKER:
        return 99, 0
    return RANKS.index(card[0]), _PROJECT_SUIT_ORDER.index(card[1])


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Card names in the project's order (rank 3..2, then suit C < D < H < S, the joker last)."""
    return sorted((card_at(*cell_of(c)) for c in cards), key=_card_key)


def cards_table(cards: Iterable[str]) -> np.ndarray:
    """A hand or exchange table: each natural card 1 in its cell, the joker [4][1] = 2; rows 5-7 zero.

    Raises ``ValueError`` for a name that is no card or a card named twice."""
    t = np.zeros((ROWS, COLS), dtype=np.int64)
    for card in cards:
        r, c = cell_of(card)
        if t[r, c]:
            raise ValueError(f"card {card!r} named twice")
        t[r, c] = 2 if (r, c) == JOKER_CELL else 1
    return t


def hand_from_table(table, what: str = "hand table") -> list[str]:
    """The cards of a hand (or exchange) table, in the project's order.

    Rows 0-4 only (the info rows are read by :func:`read_info`). Raises
    :class:`UecdaProtocolError` naming the row and cell of a value that is not 0, 1 or
    2, a 1 outside the natural cards, or a 2 anywhere but [4][1]."""
    t = as_table(table, what)
    _check_card_values(t, what)
    cards = []
    for r, c in np.argwhere(t[:5] != 0):
        r, c, v = int(r), int(c), int(t[r, c])
        if v == 2:
            if (r, c) != JOKER_CELL:
                raise UecdaProtocolError(f"{what} row {r} cell {c}: 2 (the joker) outside [4][1], where a hand holds "
                                         "it")
            cards.append(JOKER)
        elif r == 4 or not 1 <= c <= 13:
            raise UecdaProtocolError(f"{what} row {r} cell {c}: 1 is outside the natural cards (rows 0-3, columns "
                                     "1-13)")
        else:
            cards.append(card_at(r, c))
    return sorted(cards, key=_card_key)


def _check_card_values(t: np.ndarray, what: str) -> None:
    bad = (t[:5] != 0) & (t[:5] != 1) & (t[:5] != 2)
    if bad.any():
        r, c = (int(x) for x in np.argwhere(bad)[0])
        raise UecdaProtocolError(f"{what} row {r} cell {c}: {int(t[r, c])} is not a card value (0, 1 or 2)")


# ---------------------------------------------------------------------------------------------
# Rows 5 and 6: the state of the game
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableInfo:
    """Rows 5 and 6 of a server table (spec section 3.4).

    ``to_move`` is 6 in the deal table; ``exchange`` is the number of cards the
    receiver chooses to give back (2 daifugo, 1 fugo, else 0); ``counts``,
    ``classes`` are per player 0..4 (class 0 daifugo .. 4 daihinmin, all 0 in a hand
    without ranks); ``seats[s]`` is the player at seat s."""

    deal: bool                      # [5][0] 1 in the deal table
    exchange: int                   # [5][1] cards to choose in the exchange
    my_turn: bool                   # [5][2]
    to_move: int                    # [5][3] the player to move (6 in the deal table)
    empty_table: bool               # [5][4] a new trick
    eleven_back: bool               # [5][5]
    revolution: bool                # [5][6]
    lock: bool                      # [5][7] suit lock (shibari)
    counts: tuple[int, ...]         # [6][0..4] cards held by players 0..4
    classes: tuple[int, ...]        # [6][5..9] classes of players 0..4
    seats: tuple[int, ...]          # [6][10..14] the player at seats 0..4

    @property
    def ranked(self) -> bool:
        """Whether the hand is played with ranks (classes differ; [U] ``isInitGame`` tests [6][5] == [6][6])."""
        return len(set(self.classes)) > 1

    def seat_of(self, player: int) -> int:
        """The seat of ``player``."""
        return self.seats.index(player)

    def rows(self) -> np.ndarray:
        """Rows 5 and 6 as a (2, 15) array (the rest of row 5 zero)."""
        out = np.zeros((2, COLS), dtype=np.int64)
        out[0, :8] = [int(self.deal), self.exchange, int(self.my_turn), self.to_move, int(self.empty_table),
                      int(self.eleven_back), int(self.revolution), int(self.lock)]
        out[1, 0:5] = self.counts
        out[1, 5:10] = self.classes
        out[1, 10:15] = self.seats
        return out

    def apply(self, table) -> np.ndarray:
        """A copy of ``table`` with rows 5 and 6 set from this info."""
        t = as_table(table).copy()
        t[5:7] = self.rows()
        return t


def read_info(table, what: str = "table") -> TableInfo:
    """Rows 5 and 6 of a server table as a :class:`TableInfo`.

    Raises :class:`UecdaProtocolError` naming the row and cell of a value out of its
    range (a flag not 0 or 1, an exchange count not 0-2, a player to move not 0-4 or
    6, a card count not 0-53, a class not 0-4), or seats that are not the players
    0-4 once each. Cells [5][8..14] and row 7 are not read."""
    t = as_table(table, what)

    def cell(r: int, c: int, ok: Iterable[int], words: str) -> int:
        v = int(t[r, c])
        if v not in ok:
            raise UecdaProtocolError(f"{what} row {r} cell {c}: {v} is not {words}")
        return v

    flag = (0, 1)
    deal = cell(5, 0, flag, "a deal flag (0 or 1)")
    exchange = cell(5, 1, range(3), "a number of cards to exchange (0, 1 or 2)")
    my_turn = cell(5, 2, flag, "a turn flag (0 or 1)")
    to_move = cell(5, 3, (0, 1, 2, 3, 4, 6), "a player to move (0-4, or 6 in the deal table)")
    empty = cell(5, 4, flag, "an empty-table flag (0 or 1)")
    eleven = cell(5, 5, flag, "an 11-back flag (0 or 1)")
    revolution = cell(5, 6, flag, "a revolution flag (0 or 1)")
    lock = cell(5, 7, flag, "a lock flag (0 or 1)")
    counts = tuple(cell(6, p, range(_ALL_CARDS + 1), "a card count (0-53)") for p in range(PLAYERS))
    classes = tuple(cell(6, 5 + p, range(PLAYERS), "a class (0-4)") for p in range(PLAYERS))
    seats = tuple(cell(6, 10 + s, range(PLAYERS), "a player (0-4)") for s in range(PLAYERS))
    if sorted(seats) != list(range(PLAYERS)):
        raise UecdaProtocolError(f"{what} row 6 cells 10-14: seats {' '.join(map(str, seats))} are not the players "
                                 "0-4 once each")
    return TableInfo(deal=bool(deal), exchange=exchange, my_turn=bool(my_turn), to_move=to_move,
                     empty_table=bool(empty), eleven_back=bool(eleven), revolution=bool(revolution), lock=bool(lock),
                     counts=counts, classes=classes, seats=seats)


# ---------------------------------------------------------------------------------------------
# Play tables
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Play:
    """A submitted play in the form of spec section 3.6, checked for form only (not legality).

    ``cards`` are the natural cards (project order); ``joker`` the cell the joker
    stands in, or None; ``shape`` one of ``pass``, ``single``, ``set`` (2 to 5
    cards, the joker counted), ``run`` or ``joker`` (a lone joker)."""

    cards: tuple[str, ...]
    joker: tuple[int, int] | None
    shape: str

    @property
    def size(self) -> int:
        """Cards played, the joker counted."""
        return len(self.cards) + (self.joker is not None)

    @property
    def is_pass(self) -> bool:
        return self.shape == "pass"

    @property
    def joker_as(self) -> str | None:
        """The card the joker stands for in a set or run (``"9S"``); None without a joker, for a lone joker, a
        five-card set or a virtual run end (:attr:`joker_column` says which)."""
        if self.joker is None or self.shape == "joker":
            return None
        r, c = self.joker
        return card_at(r, c) if r < 4 and 1 <= c <= 13 else None

    @property
    def joker_column(self) -> int | None:
        """The column the joker stands in (0 and 14: a run's virtual ends), None without one."""
        return None if self.joker is None else self.joker[1]

    @property
    def columns(self) -> tuple[int, ...]:
        """The columns the play covers, joker included, low to high (empty for pass and a lone joker)."""
        if self.shape in ("pass", "joker"):
            return ()
        cols = {cell_of(c)[1] for c in self.cards}
        if self.joker is not None:
            cols.add(self.joker[1])
        return tuple(sorted(cols))

    def table(self) -> np.ndarray:
        """The play as an 8x15 table (rows 5-7 zero)."""
        t = np.zeros((ROWS, COLS), dtype=np.int64)
        for card in self.cards:
            t[cell_of(card)] = 1
        if self.joker is not None:
            t[self.joker] = 2
        return t

    def words(self) -> str:
        """'pass', 'single 3S', 'set 9D 9H + JK as 9S', 'run 3S 4S + JK at column 0', 'lone joker'."""
        if self.shape == "pass":
            return "pass"
        if self.shape == "joker":
            return "lone joker"
        text = f"{self.shape} {' '.join(self.cards)}"
        if self.joker is not None:
            r, c = self.joker
            if self.joker_as:
                text += f" + JK as {self.joker_as}"
            elif r == 4:
                text += " + JK (five-card set)"
            else:
                text += f" + JK at column {c} ({'below 3' if c == LOW_END else 'above 2'})"
        return text


def parse_play(table, what: str = "play table") -> Play:
    """A play table (rows 0-4; rows 5-7 are ignored) as a :class:`Play`.

    Raises :class:`UecdaProtocolError` naming the row and cell for a table that is no
    play: a value not 0, 1 or 2; a 2 in two cells; a 1 outside rows 0-3 and columns
    1-13; a joker in row 4 except in the five-card set form; a lone joker in row 4
    (the reference server rejects [4][1]); cells neither in one column (a set) nor in
    one row (a run); a run with a gap or shorter than 3."""
    t = as_table(table, what)
    _check_card_values(t, what)
    rows = t[:5]
    twos = [(int(r), int(c)) for r, c in np.argwhere(rows == 2)]
    if len(twos) > 1:
        where = ", ".join(f"row {r} cell {c}" for r, c in twos)
        raise UecdaProtocolError(f"{what}: a 2 (the joker) in {len(twos)} cells ({where}); the pack has one joker")
    ones = [(int(r), int(c)) for r, c in np.argwhere(rows == 1)]
    for r, c in ones:
        if r == 4:
            raise UecdaProtocolError(f"{what} row 4 cell {c}: 1 in the joker row (natural cards are in rows 0-3)")
        if not 1 <= c <= 13:
            raise UecdaProtocolError(f"{what} row {r} cell {c}: 1 outside the ranks (natural cards are in columns "
                                     "1-13; columns 0 and 14 hold only a joker at a run's end)")
    joker = twos[0] if twos else None
    if not ones:
        if joker is None:
            return Play((), None, "pass")
        if joker[0] == 4:
            raise UecdaProtocolError(f"{what} row 4 cell {joker[1]}: a lone joker in the joker row (a lone joker is "
                                     "a 2 in a cell of rows 0-3; the reference server rejects [4][1])")
        return Play((), joker, "joker")
    cards = tuple(sorted((card_at(r, c) for r, c in ones), key=_card_key))
    ones_cols = {c for _, c in ones}
    if joker is not None and joker[0] == 4:
        jc = joker[1]
        if len(ones) == 4 and ones_cols == {jc}:
            return Play(cards, joker, "set")
        found = ", ".join(f"row {r} cell {c}" for r, c in ones)
        raise UecdaProtocolError(f"{what} row 4 cell {jc}: a joker in the joker row makes a five-card set only "
                                 f"with the four natural cards of column {jc} (found {found})")
    cells = ones + ([joker] if joker is not None else [])
    cols = sorted(c for _, c in cells)
    if len({c for _, c in cells}) == 1:
        return Play(cards, joker, "single" if len(cells) == 1 else "set")
    row_set = {r for r, _ in cells}
    if len(row_set) == 1:
        r = cells[0][0]
        missing = [c for c in range(cols[0], cols[-1] + 1) if c not in cols]
        if missing:
            raise UecdaProtocolError(f"{what} row {r}: cells {' '.join(map(str, cols))} are not consecutive (a run "
                                     f"has no gap; cell {missing[0]} is empty)")
        if len(cells) < 3:
            raise UecdaProtocolError(f"{what} row {r} cells {' '.join(map(str, cols))}: two cards of one suit are no "
                                     "play (a set is one column, a run at least 3 cells of one row)")
        return Play(cards, joker, "run")
    where = ", ".join(f"row {r} cell {c}" for r, c in sorted(cells))
    raise UecdaProtocolError(f"{what}: {where} are neither a set (one column) nor a run (one row)")


# ---------------------------------------------------------------------------------------------
# Building play tables
# ---------------------------------------------------------------------------------------------

def play_table(cards: Iterable[str] = (), joker: tuple[int, int] | None = None) -> np.ndarray:
    """A play table from natural cards and the cell the joker stands in (None: no joker).

    No cards and no joker is a pass. Raises ``ValueError`` for a name that is no
    natural card, a card named twice, a joker cell outside rows 0-4 and columns
    0-14 or on a natural card, or a result that is no play (:func:`parse_play`)."""
    t = np.zeros((ROWS, COLS), dtype=np.int64)
    for card in cards:
        r, c = cell_of(card)
        if (r, c) == JOKER_CELL and _normalise(card) == JOKER:
            raise ValueError("name the joker by its cell (joker=...), not among the natural cards")
        if t[r, c]:
            raise ValueError(f"card {card!r} named twice")
        t[r, c] = 1
    if joker is not None:
        jr, jc = (int(x) for x in joker)
        if not (0 <= jr <= 4 and 0 <= jc <= 14):
            raise ValueError(f"joker cell [{jr}][{jc}] is outside rows 0-4 and columns 0-14")
        if t[jr, jc]:
            raise ValueError(f"joker cell [{jr}][{jc}] holds the natural card {card_at(jr, jc)}")
        t[jr, jc] = 2
    try:
        parse_play(t)
    except UecdaProtocolError as e:
        raise ValueError(str(e)) from None
    return t


def set_table(cards: Iterable[str], joker_as: str | None = None, *, five: bool = False) -> np.ndarray:
    """A single or set: natural cards of one rank, the joker standing for the card ``joker_as`` (``"9S"``).

    ``five=True`` with the four natural cards of a rank is the five-card set form (the
    joker at [4][rank's column]). Raises ``ValueError`` for mixed ranks, a ``joker_as``
    of another rank or already among ``cards``, or ``five`` without four cards."""
    cards = list(cards)
    cols = {cell_of(c)[1] for c in cards}
    if len(cols) > 1:
        raise ValueError(f"a set is one rank: {' '.join(cards)}")
    if five:
        if len(cards) != 4 or joker_as is not None:
            raise ValueError("a five-card set is the four natural cards of a rank and the joker (give no joker_as)")
        return play_table(cards, (4, cols.pop()))
    if joker_as is None:
        return play_table(cards)
    jr, jc = cell_of(joker_as)
    if jr == 4:
        raise ValueError("joker_as names the card the joker stands for (9S), not the joker")
    if cols and jc not in cols:
        raise ValueError(f"the joker as {joker_as} is not of the rank of {' '.join(cards)}")
    return play_table(cards, (jr, jc))


def run_table(suit: str, low: int, length: int, joker: int | None = None) -> np.ndarray:
    """A run of ``suit`` over columns ``low .. low+length-1`` (1..13 for 3..2), the joker at column ``joker``.

    With the joker, ``low`` may be 0 (the joker at column 0 below the 3) or the run may
    end at 14 (the joker above the 2): ``run_joker_ends``. Raises ``ValueError`` for a
    run shorter than 3, a column outside 0-14, natural cards outside 1-13, or a joker
    column outside the run."""
    s = _normalise(suit)
    if s not in SUIT_ROWS:
        raise ValueError(f"unknown suit {suit!r} (suits are S, H, D, C)")
    if length < 3:
        raise ValueError(f"a run is at least 3 cards, not {length}")
    cols = list(range(low, low + length))
    if cols[0] < 0 or cols[-1] > 14:
        raise ValueError(f"run over columns {cols[0]}-{cols[-1]} leaves the table (columns 0-14)")
    if joker is not None and joker not in cols:
        raise ValueError(f"joker column {joker} is outside the run's columns {cols[0]}-{cols[-1]}")
    row = SUIT_ROWS.index(s)
    naturals = []
    for c in cols:
        if c == joker:
            continue
        if not 1 <= c <= 13:
            raise ValueError(f"column {c} holds no natural card (a run reaches column {c} only with the joker there)")
        naturals.append(card_at(row, c))
    return play_table(naturals, None if joker is None else (row, joker))


def lone_joker_table(top_suit_row: int | None = None, reversed_order: bool = False) -> np.ndarray:
    """A lone joker as the public client [C] sends it: a 2 at column 14 (column 0 under a reversed order), in row 0
    on an empty table, else in the row after the top single's suit (so it never matches the lock)."""
    row = 0 if top_suit_row is None else (int(top_suit_row) + 1) % 4
    return play_table((), (row, 0 if reversed_order else 14))
