"""The UECda record reader (president_env/core/uecda_record.py) on the committed server records
(tests/data/uecda, see its README), on hand-written moves of every notation, and on bad input."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from president_env.core.uecda_record import (
    DECK,
    UecdaRecordError,
    parse_card,
    parse_move,
    parse_uecda_record,
    read_uecda_record,
)

DATA = Path(__file__).resolve().parent / "data" / "uecda"
GAMES = {  # every committed record and its number of games
    "blaux5.dat": 100,
    "devkit_game29.dat": 1,
    "devkit_games95-102.dat": 8,
    "lilovyy_10games.dat": 10,
    "lilovyy_no_ranks_6games.dat": 6,
}
SMALL = (DATA / "devkit_game29.dat").read_text(encoding="utf-8")   # lines: 1 player, 2 /*, 3 score, 4 class,
#                         5 seat, 6 dealt, 7 changed, 8 original, 9 play, 10 result, 11 */


def _lines(text: str = SMALL) -> list[str]:
    return text.split("\n")


def _with(line_no: int, new: str, text: str = SMALL) -> str:
    """``text`` with line ``line_no`` (1-based) replaced by ``new``."""
    lines = _lines(text)
    lines[line_no - 1] = new
    return "\n".join(lines)


def _refused(data: str | bytes, source: str = "t.dat") -> UecdaRecordError:
    with pytest.raises(UecdaRecordError) as info:
        parse_uecda_record(data, source)
    assert isinstance(info.value, ValueError)
    return info.value


# ---------------------------------------------------------------- the committed records


def test_every_committed_record_is_listed():
    assert sorted(p.name for p in DATA.glob("*.dat")) == sorted(GAMES)


@pytest.fixture(scope="module")
def records():
    return {name: read_uecda_record(DATA / name) for name in GAMES}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_committed_record_is_consistent(records, name):
    rec = records[name]
    assert len(rec.games) == GAMES[name]
    assert rec.source == str(DATA / name)
    assert len(rec.players) == 5
    previous = None
    for g in rec.games:
        assert g.number == rec.games.index(g)
        # the reference server writes no "game N" line; blaux5.dat (written by another tool) has them
        assert g.index == (g.number if name == "blaux5.dat" else None)
        for perm in (g.classes, g.seats, g.result):
            assert sorted(perm) == [0, 1, 2, 3, 4]
        for hands in (g.dealt, g.original):          # 53 cards, each once, 11 11 11 10 10
            assert sorted(c for h in hands for c in h) == sorted(DECK)
            assert sorted(len(h) for h in hands) == [10, 10, 11, 11, 11]
        # the three 11-card hands as dealt sit at three seats in a row (from the daifugo when ranked)
        eleven = sorted(g.seats[p] for p in range(5) if len(g.dealt[p]) == 11)
        assert any(sorted((s + k) % 5 for k in range(3)) == eleven for s in range(5))
        if g.with_ranks:
            assert len(g.dealt[g.classes.index(0)]) == 11
            assert sorted(len(c) for c in g.changed) == [0, 1, 1, 2, 2]
        assert g.exchange_problems() == ()           # original = dealt + received - changed
        if previous is not None:                     # the class line carries the previous result
            assert g.classes == previous.result
        played = Counter(c for m in g.plays for c in m.all_cards)
        assert max(played.values()) == 1 and set(played) <= set(DECK)
        assert not g.ended_by_pass_limit
        # every card is played but the last player's: the hand ends when four are out
        last = g.finish_order[-1]
        assert set(DECK) - set(played) <= set(g.original[last])
        assert all(m.time_us is not None and m.time_us >= 0 for m in g.plays)
        previous = g


def test_lilovyy_10games_values(records):
    rec = records["lilovyy_10games.dat"]
    assert rec.players == ("maLilovyy",) * 5
    g0, g1 = rec.games[0], rec.games[1]
    assert not g0.with_ranks and g0.changed == ((),) * 5 and g0.original == g0.dealt
    assert g0.seats == (3, 2, 0, 4, 1) and g0.seat_players == (2, 4, 1, 0, 3)
    assert g0.dealt[0] == ("3C", "3S", "4S", "5C", "5S", "6C", "7H", "8C", "JD", "QH", "2S")
    assert g0.result == (3, 4, 2, 0, 1) and g0.finish_order == (3, 4, 2, 0, 1)
    first = g0.plays[0]
    assert (first.token, first.shape, first.cards, first.joker, first.time_us) == ("s-k[654]", "single", ("KS",),
                                                                                   False, 654)
    pair = g0.plays[8]
    assert pair.token == "cd-k(d)[174]"
    assert (pair.shape, pair.cards, pair.joker, pair.joker_as, pair.suits, pair.size) == (
        "set", ("KC",), True, "KD", ("C", "D"), 2)
    assert g0.plays[-1].token == "c-6[43851]" and len(g0.plays) == 114
    assert g1.with_ranks and g1.classes == (3, 4, 2, 0, 1)
    assert g1.changed == (("JK",), ("AC", "AS"), (), ("4C", "TD"), ("KD",))
    assert g1.received(3) == ("AC", "AS") and g1.received(1) == ("4C", "TD")
    assert g1.received(4) == ("JK",) and g1.received(2) == ()
    assert g1.original[4][-1] == "JK" and "JK" not in g1.original[0]
    assert [g.seats for g in rec.games[2:5]] == [(3, 2, 0, 4, 1), (0, 2, 1, 4, 3), (0, 2, 1, 4, 3)]


def test_blaux5_values(records):
    rec = records["blaux5.dat"]
    assert rec.players == ("blauweregen",) * 5
    g0 = rec.games[0]
    assert g0.line == 2 and g0.end_line == 12 and g0.score == ()
    assert g0.classes == (0, 1, 2, 3, 4) and g0.seats == (4, 2, 0, 1, 3)
    run = next(m for m in g0.plays if m.token == "h-678(7)[98]")
    assert (run.shape, run.cards, run.joker_as, run.rank, run.ranks, run.suits, run.size) == (
        "run", ("6H", "8H"), "7H", "6", ("6", "7", "8"), ("H",), 3)
    assert g0.plays[0].token == "d-3[269244]" and g0.plays[0].cards == ("3D",)
    assert g0.result == (1, 0, 4, 2, 3)
    assert sum(g.with_ranks for g in rec.games) == 99


def test_devkit_extracts(records):
    g = records["devkit_game29.dat"].games[0]
    low = g.plays[0]
    assert low.token == "s--34(-)[2]"
    assert (low.shape, low.cards, low.joker, low.joker_as, low.rank, low.ranks) == (
        "run", ("3S", "4S"), True, "-S", "-", ("-", "3", "4"))
    assert "3D" in g.original[2] and "JK" in g.original[2]     # the holder of 3D leads, here without it
    games = records["devkit_games95-102.dat"].games
    assert [g.with_ranks for g in games] == [True] * 5 + [False] + [True] * 2    # the reset of game 100
    assert [g.seats for g in games].count(games[0].seats) == 1                   # redraw before game 96


# ---------------------------------------------------------------- hand-written notation


@pytest.mark.parametrize("text, name", [("c3", "3C"), ("dt", "TD"), ("hj", "JH"), ("sq", "QS"), ("ck", "KC"),
                                        ("da", "AD"), ("h2", "2H"), ("s9", "9S"), ("jo", "JK")])
def test_cards(text, name):
    assert parse_card(text) == name


@pytest.mark.parametrize("text", ["C3", "3c", "c1", "ct0", "jk", "JO", "x3", ""])
def test_not_cards(text):
    with pytest.raises(ValueError, match="is not a card"):
        parse_card(text)


@pytest.mark.parametrize("token, shape, cards, joker, joker_as, ranks, suits, time_us", [
    ("p[140]", "pass", (), False, None, (), (), 140),
    ("p", "pass", (), False, None, (), (), None),
    ("jk[87]", "single", (), True, None, (), (), 87),
    ("s-3[5]", "single", ("3S",), False, None, ("3",), ("S",), 5),
    ("ch-t[43554]", "set", ("TC", "TH"), False, None, ("T",), ("C", "H"), 43554),
    ("ds-9(s)[284960]", "set", ("9D",), True, "9S", ("9",), ("D", "S"), 284960),
    ("cdhs-t(s)[1]", "set", ("TC", "TD", "TH"), True, "TS", ("T",), ("C", "D", "H", "S"), 1),
    ("cdhsx-7(cdhsx)[0]", "set", ("7C", "7D", "7H", "7S"), True, "7X", ("7",), ("C", "D", "H", "S", "X"), 0),
    ("cdhsx-7[3]", "set", ("7C", "7D", "7H", "7S"), True, "7X", ("7",), ("C", "D", "H", "S", "X"), 3),
    ("c-tjqka[9]", "run", ("TC", "JC", "QC", "KC", "AC"), False, None, ("T", "J", "Q", "K", "A"), ("C",), 9),
    ("h-678(7)[98]", "run", ("6H", "8H"), True, "7H", ("6", "7", "8"), ("H",), 98),
    ("h--34(-)[2]", "run", ("3H", "4H"), True, "-H", ("-", "3", "4"), ("H",), 2),
    ("s-a2+(+)[7]", "run", ("AS", "2S"), True, "+S", ("A", "2", "+"), ("S",), 7),
    ("d-qka2(q)[11]", "run", ("KD", "AD", "2D"), True, "QD", ("Q", "K", "A", "2"), ("D",), 11),
])
def test_moves(token, shape, cards, joker, joker_as, ranks, suits, time_us):
    m = parse_move(token)
    assert (m.token, m.shape, m.cards, m.joker, m.joker_as, m.ranks, m.suits, m.time_us) == (
        token, shape, cards, joker, joker_as, ranks, suits, time_us)
    assert m.rank == (ranks[0] if ranks else None)
    assert m.size == len(cards) + joker and m.is_pass == (shape == "pass")
    assert m.all_cards == cards + (("JK",) if joker else ())


@pytest.mark.parametrize("token, why", [
    ("P[1]", "a move is p, jk"), ("pass", "a move is p, jk"), ("[5]", "no move"), ("s-3[12", "time must be digits"),
    ("s-3[1a]", "time must be digits"), ("s-3[1][2]", "time must be digits"), ("-3", "no suit"), ("s-", "no rank"),
    ("z-3", "suit 'z'"), ("S-3", "suit 'S'"), ("hd-9", "out of the order"), ("dd-9", "repeat"),
    ("s-1", "rank '1'"), ("s-+", "rank '+'"), ("ds-9(h)", "not among the set's suits"), ("ds-9(ds)", "one suit"),
    ("ds-9()", "one suit"), ("s-3(s)", "written jk"), ("cdhx-7", "needs all four suits"),
    ("cdhsx-7(s)", "five-card set's joker part"), ("h-679(7)", "not consecutive"), ("h-876", "not consecutive"),
    ("h-67", "at least 3"), ("dh-678", "one suit"), ("h-678(9)", "not one of the run's ranks"),
    ("h--34", "virtual rank"), ("h-a2+(a)", "virtual rank"), ("h-678(7", "one '( ... )'"), ("h-678)", "without '('"),
    ("h-6z8", "rank 'z'"),
])
def test_bad_moves(token, why):
    with pytest.raises(ValueError, match="^" + re.escape(repr(token))) as info:
        parse_move(token)
    assert why in str(info.value)


def test_game_lines_and_blank_lines_and_crlf():
    text = SMALL.replace("/* \n", "/* \ngame 29\n") + "\n" + SMALL.split("\n", 1)[1].replace("/* \n", "/* \ngame 30\n")
    rec = parse_uecda_record(text.replace("\n", "\r\n").encode(), "two.dat")
    assert [g.index for g in rec.games] == [29, 30] and [g.number for g in rec.games] == [0, 1]
    assert [g.line for g in rec.games] == [2, 14] and rec.games[1].plays == rec.games[0].plays
    assert rec.source == "two.dat"


# ---------------------------------------------------------------- refusals


def test_corrupt_card_names_line_and_field():
    e = _refused(_with(6, _lines()[5].replace("c4", "zz")), "game.dat")
    assert str(e).startswith("game.dat line 6: dealt: card 'zz' is not a card")
    assert (e.source, e.line, e.field) == ("game.dat", 6, "dealt")


def test_truncated_file():
    e = _refused("\n".join(_lines()[:9]))                                  # cut after the play line
    assert (e.line, e.field) == (9, "*/")
    assert "ends inside game 0 (opened at line 2; last line 9)" in str(e)
    second = SMALL.split("\n", 1)[1]
    e = _refused(SMALL + second[:second.index("original")])               # a second game cut after 'changed'
    assert e.line == 17 and "ends inside game 1 (opened at line 12; last line 17)" in str(e)
    e = _refused(SMALL + second[:400])                                    # ... or in the middle of a line
    assert (e.line, e.field) == (18, "original") and "player 3's hand has no closing '}'" in str(e)


def test_truncated_real_file(tmp_path):
    data = (DATA / "lilovyy_10games.dat").read_bytes()
    cut = tmp_path / "cut.dat"
    cut.write_bytes(data[:data.rindex(b"\n", 0, len(data) // 2) + 1])   # whole lines, to a game's play line
    with pytest.raises(UecdaRecordError, match=r"cut\.dat line 49: \*/: the file ends inside game 4 \(opened at "
                                               r"line 42; last line 49\)"):
        read_uecda_record(cut)
    cut.write_bytes(data[:len(data) // 2])                                # mid-line: that line is refused
    with pytest.raises(UecdaRecordError, match=r"cut\.dat line 50: result: expected 5 values \(players 0..4\), "
                                               r"found 4"):
        read_uecda_record(cut)


@pytest.mark.parametrize("field, line", [("class", 4), ("seat", 5), ("dealt", 6), ("changed", 7), ("original", 8),
                                         ("play", 9), ("result", 10)])
def test_missing_field(field, line):
    lines = _lines()
    assert lines[line - 1].startswith(field)
    del lines[line - 1]
    e = _refused("\n".join(lines))
    assert (e.line, e.field) == (10, field) and f"game 0 (opened at line 2) has no '{field}' line" in str(e)


@pytest.mark.parametrize("result, why", [("0 1 2 3 3", "is not a permutation of 0..4"),
                                         ("0 1 2 3", "expected 5 values"), ("0 1 2 3 4 5", "expected 5 values"),
                                         ("0 1 2 3 -4", "'-4' is not a non-negative integer"),
                                         ("0 1 2 3 x", "'x' is not"), ("0 1 2 3 ٤", "is not a non-negative")])
def test_bad_result(result, why):
    e = _refused(_with(10, "result " + result))
    assert (e.line, e.field) == (10, "result") and why in str(e)


def test_bad_class_and_seat():
    assert _refused(_with(4, "class 0 0 1 2 3")).line == 4
    assert _refused(_with(5, "seat 1 2 3 4 5")).field == "seat"


def test_non_utf8_byte():
    data = SMALL.encode().replace(b"result", b"res\xffult")
    e = _refused(data)
    assert (e.line, e.field) == (10, "encoding") and "byte 0xff at column 4 is not UTF-8" in str(e)
    e = _refused(b"player a b c d e\n/*\n\x00\x01")
    assert e.line == 3 and "control character 0x00 at column 1" in str(e)
    e = _refused(b"\xfe\xff" + SMALL.encode())
    assert e.line == 1 and "0xfe at column 1" in str(e)
    e = _refused(SMALL.replace("score", "sc\ud800ore"))
    assert (e.line, e.field) == (3, "encoding") and "lone surrogate U+D800 at column 3" in str(e)
    e = _refused(SMALL.replace("\n", "\r"))                               # old Mac line ends: one line
    assert e.line == 1 and "control character 0x0d" in str(e)


@pytest.mark.parametrize("line, new, field, why", [
    (6, "dealt { c4 } { d4 } { c3 } { h3 } ", "dealt", "expected 5 hands in braces, found 4"),
    (7, "changed { h2 s2 } { d4 d7 } { } { h3 } { d2 } { } ", "changed", "expected 5 hands in braces, found 6"),
    (6, _lines()[5].replace("h4", "c4"), "dealt", "card 4C appears twice in player 0's hand"),
    (6, _lines()[5].replace("d4", "c4"), "dealt", "card 4C is in the hands of players 0 and 1"),
    (6, _lines()[5].replace(" jo", ""), "dealt", "the five hands hold 52 cards, not 53 (missing: JK)"),
    (8, _lines()[7].replace("{ c3", "{ c3 c4"), "original", "card 4C is in the hands of players 0 and 2"),
    (7, "changed { h2 s2 { d4 d7 } { } { h3 } { d2 } ", "changed", "'{' inside player 0's hand"),
    (7, "changed { h2 s2 } { d4 d7 } { } { h3 } { d2 ", "changed", "player 4's hand has no closing '}'"),
    (7, "changed h2 { d4 d7 } { } { h3 } { d2 } ", "changed", "expected '{' to open player 0's hand, found 'h2'"),
    (9, "play s--34(-)[2] p[43131] zz-9[3]", "play", "token 3: 'zz-9[3]'"),
    (3, "game x", "game", "expected one non-negative game index"),
    (3, "game 1 2", "game", "expected one non-negative game index"),
    (3, "scores", "scores", "unknown field 'scores'"),
    (5, "class 4 0 2 1 3", "class", "second 'class' line in game 0 (opened at line 2) (first at line 4)"),
    (3, "/*", "/*", "a new game opens inside game 0 (opened at line 2), which has no '*/'"),
    (11, "*/ x", "*/", "unexpected text after '*/'"),
    (2, "/* game 0", "/*", "unexpected text after '/*'"),
    (1, "player a b c d", "player", "expected 5 names, found 4"),
    (1, "players a b c d e", "players", "the first line must be 'player'"),
])
def test_refusals(line, new, field, why):
    e = _refused(_with(line, new))
    assert (e.line, e.field) == (line, field)
    assert str(e) == f"t.dat line {line}: {field}: {e.problem}" and why in e.problem


def test_text_outside_a_game_and_empty_files():
    e = _refused(SMALL + "result 0 1 2 3 4\n")
    assert (e.line, e.field) == (12, "result") and "expected '/*' to open game 1" in str(e)
    e = _refused("")
    assert (e.line, e.field) == (1, "player") and "empty" in str(e)
    assert parse_uecda_record("player a b c d e\n\n").games == ()
    long = "x" * 5000
    e = _refused(SMALL + long)
    assert e.line == 12 and len(str(e)) < 200                  # long junk is shortened in the message


def test_exchange_problems_are_reported_not_refused():
    lines = _lines()
    lines[7] = lines[7].replace("h2 s2 } { c3", "} { c3 h2 s2")   # the daifugo's gifts moved to player 2
    g = parse_uecda_record("\n".join(lines)).games[0]
    problems = g.exchange_problems()
    assert "player 1: original is not dealt + received - changed" in problems
    assert "player 2: original is not dealt + received - changed" in problems


def test_mutated_bytes_give_only_record_errors():
    """Random byte edits of a real record: each is parsed or refused with UecdaRecordError, nothing else."""
    base = SMALL.encode()
    rng = random.Random(41)
    refused = 0
    for _ in range(400):
        b = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(b))
            kind = rng.randrange(3)
            if kind == 0:
                b[pos] = rng.randrange(256)
            elif kind == 1:
                del b[pos:pos + rng.randint(1, 30)]
            else:
                b[pos:pos] = bytes([rng.randrange(256)])
        try:
            parse_uecda_record(bytes(b), "m.dat")
        except UecdaRecordError as e:
            refused += 1
            assert str(e).startswith(f"m.dat line {e.line}: ") and 1 <= e.line <= 12
    assert refused > 300


def test_a_hostile_file_is_refused_before_it_fills_memory(tmp_path, monkeypatch):
    """Limits (uecda_record.MAX_RECORD_BYTES, MAX_MOVES_PER_GAME): named, never parsed into memory."""
    import president_env.core.uecda_record as U

    many = tmp_path / "many.dat"
    many.write_text("player a b c d e\n/*\nplay " + "p " * (U.MAX_MOVES_PER_GAME + 1) + "\n")
    with pytest.raises(UecdaRecordError, match=r"many\.dat line 3: play: 2,001 moves, more than a game can take"):
        read_uecda_record(many)
    monkeypatch.setattr(U, "MAX_RECORD_BYTES", 1000)
    big = tmp_path / "big.dat"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(UecdaRecordError, match=r"big\.dat line 1: file: more than 1,000 bytes"):
        read_uecda_record(big)
