"""``president import-uecda``: the UECda reference server's records replay under the preset ``uecda``.

The records in ``tests/data/uecda/`` were written by the reference server (``README.md`` there says how):
every game imports, every move is legal, every result equal, and what is written verifies with
``president replay --check``. A record changed by one move or one result stops the import at that game
and move, by name.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from cli_run import run_cli

from president_cli.main import main
from president_env.core import preset
from president_env.core.records import read_records, replay, verify
from president_env.core.uecda_import import (
    SERVER_MAX_PLAYS,
    UecdaImportError,
    UecdaTruncatedGame,
    import_game,
    import_games,
    move_action,
)
from president_env.core.uecda_record import parse_move, read_uecda_record

DATA = Path(__file__).parent / "data" / "uecda"
FILES = sorted(DATA.glob("*.dat"))


def test_the_committed_records_are_there() -> None:
    assert len(FILES) >= 3 and any(f.name == "blaux5.dat" for f in FILES)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_game_imports_and_replays(path: Path) -> None:
    parsed = read_uecda_record(path)
    records = import_games(path)
    assert len(records) == len(parsed.games) > 0
    for rec, game in zip(records, parsed.games, strict=True):
        end = replay(rec)
        places = [rec["finish_order"].index(p) for p in range(5)]
        assert places == list(game.result)
        plays = [d for d in rec["decisions"] if d["cards"] or d["action"] == 0]
        assert len(rec["decisions"]) == len(game.plays) + (3 if game.with_ranks else 0)
        assert len(plays) >= len(game.plays)
        assert end.hand_points[0].tolist() == [preset("uecda").points[p] for p in places]
        verify(rec)                           # the deal is marked as imported: no key check
        assert rec["deal_source"].startswith("uecda ")


def test_a_game_the_server_cut_at_128_moves_is_named_as_cut() -> None:
    # A 10-game match of a trained agent (player 4) and four FujiGokoro clients on the reference server
    # (docs/uecda.md, interop run (e)). Game 1 went on past 128 moves; the server writes at most 128 moves of a
    # game (GameRecord::pushPlay), so the record stops with players 0 and 1 still holding cards.
    path = DATA / "truncated" / "interop_trained_10games.dat"
    parsed = read_uecda_record(path)
    rules = preset("uecda")
    for game in parsed.games:
        if game.number == 1:
            assert len(game.plays) == SERVER_MAX_PLAYS
            cut = (r"game 1 \(line 12\): the record holds the game's first 128 moves only .* "
                   r"\(player 0 is to move\): every recorded move is legal under uecda")
            with pytest.raises(UecdaTruncatedGame, match=cut):
                import_game(rules, game, str(path), tuple(parsed.players))
        else:
            rec = import_game(rules, game, str(path), tuple(parsed.players))
            assert [rec["finish_order"].index(p) for p in range(5)] == list(game.result)
    with pytest.raises(UecdaTruncatedGame):
        import_games(path)                    # the library's import of a whole file is strict


def test_a_game_short_of_its_end_under_128_moves_is_not_taken_for_a_cut_one() -> None:
    path = DATA / "blaux5.dat"
    parsed = read_uecda_record(path)
    game = parsed.games[0]
    short = replace(game, plays=game.plays[:-1])
    with pytest.raises(UecdaImportError, match=r"moves end before the hand does by our rules") as info:
        import_game(preset("uecda"), short, str(path), tuple(parsed.players))
    assert not isinstance(info.value, UecdaTruncatedGame)


def test_the_cli_skips_a_cut_game_by_name_and_imports_the_rest(tmp_path: Path, capsys) -> None:
    src = DATA / "truncated" / "interop_trained_10games.dat"
    out = tmp_path / "imported.jsonl"
    code, err = run_cli(["import-uecda", str(src), "--out", str(out), "--no-progress"], capsys)
    assert code == 0, err
    assert "skipped: " in err and "game 1 (line 12)" in err
    records = read_records(out)
    assert [r["deal_source"].rsplit(" ", 1)[1] for r in records] == ["0", "2", "3", "4", "5", "6", "7", "8", "9"]
    main(["replay", str(out), "--check"])
    assert capsys.readouterr().out.startswith("ok: ")


def test_the_files_cover_the_rules() -> None:
    """Between them the records play the joker in runs and sets, exchanges, hands without ranks, locks."""
    moves = [m for f in FILES for g in read_uecda_record(f).games for m in g.plays]
    games = [g for f in FILES for g in read_uecda_record(f).games]
    assert any(m.shape == "run" and m.joker for m in moves) and any(m.shape == "set" and m.joker for m in moves)
    assert any(m.shape == "single" and m.joker for m in moves)
    assert any(g.with_ranks for g in games) and any(not g.with_ranks for g in games)


def test_move_tokens_map_to_the_action_table() -> None:
    r = preset("uecda")
    from president_env.core import describe_action

    for token, words in (("ds-9(s)", "pair 9D + JK as 9S"), ("h-678(7)", "run 6H JK 8H"), ("jk", "single wild card"),
                         ("s--34(-)", "run JK 3S 4S"), ("c-ka2+(+)", "run KC AC 2C JK"), ("p", "pass"),
                         ("chs-3", "three 3C 3H 3S")):
        assert describe_action(r, move_action(r, parse_move(token))) == words, token


def _changed(tmp_path: Path, old: str, new: str) -> Path:
    text = (DATA / "blaux5.dat").read_text()
    assert old in text
    out = tmp_path / "changed.dat"
    out.write_text(text.replace(old, new, 1))
    return out


def test_an_illegal_move_stops_the_import_naming_game_and_move(tmp_path: Path) -> None:
    bad = _changed(tmp_path, "d-4[439146]", "d-5[439146]")
    with pytest.raises(UecdaImportError, match=r"changed\.dat: game 0 \(line 2\), move 1 'd-5\[439146\]' by player "
                                                r"\d: our rules refuse 'single 5D'"):
        import_games(bad)


def test_a_different_result_stops_the_import(tmp_path: Path) -> None:
    bad = _changed(tmp_path, "result 1 0 4 2 3", "result 0 1 4 2 3")
    with pytest.raises(UecdaImportError, match=r"game 0 \(line 2\): result: our rules give places \[1, 0, 4, 2, 3\], "
                                                r"the record says \[0, 1, 4, 2, 3\]"):
        import_games(bad)


def test_a_move_after_the_hand_ends_is_refused(tmp_path: Path) -> None:
    bad = _changed(tmp_path, "s-9[81] \nresult", "s-9[81] p[1] \nresult")
    with pytest.raises(UecdaImportError, match=r"game 0 .*the hand ended at move"):
        import_games(bad)


def test_the_cli_writes_records_that_verify(tmp_path: Path, capsys) -> None:
    src = next(f for f in FILES if f.name != "blaux5.dat")
    out = tmp_path / "imported.jsonl"
    code, err = run_cli(["import-uecda", str(src), "--out", str(out), "--no-progress"], capsys)
    assert code == 0, err
    assert len(read_records(out)) == len(read_uecda_record(src).games)
    main(["replay", str(out), "--check"])
    assert capsys.readouterr().out.startswith("ok: ")
    code, err = run_cli(["import-uecda", str(src), "--out", str(out)], capsys)
    assert code == 2 and "already exists" in err


def test_the_cli_names_a_bad_record_and_writes_nothing(tmp_path: Path, capsys) -> None:
    bad = _changed(tmp_path, "d-4[439146]", "d-5[439146]")
    out = tmp_path / "x.jsonl"
    code, err = run_cli(["import-uecda", str(bad), "--out", str(out), "--no-progress"], capsys)
    assert code == 1 and "move 1 'd-5[439146]'" in err and not out.exists()
    garbage = tmp_path / "garbage.dat"
    garbage.write_bytes(b"player a b c d e\n/*\nclass 0 1 2 3 \xff\n")
    code, err = run_cli(["import-uecda", str(garbage), "--out", str(out), "--no-progress"], capsys)
    assert code == 1 and "garbage.dat line 3" in err


def test_a_game_ended_by_pass_limit_gets_a_key_that_repeats_the_places() -> None:
    """The places left at pass_limit are drawn from our key; the import finds a key that repeats the record's."""
    r = preset("uecda", pass_limit=4)
    src = read_uecda_record(DATA / "blaux5.dat").games[0]
    plays = src.plays        # cut after the first four passes in a row (nobody is out yet): the hand ends there
    cut = next(i for i in range(len(plays) - 3) if all(m.is_pass for m in plays[i:i + 4])) + 4
    keys = set()
    for order in ((0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (2, 0, 4, 1, 3)):
        rec = import_game(r, replace(src, plays=plays[:cut], result=order), "cut.dat", tuple("abcde"))
        replay(rec)
        assert [rec["finish_order"].index(p) for p in range(5)] == list(order)
        keys.add(rec["key"])
    assert len(keys) == 3
