"""Our records of uecda hands written in the UECda record format: every action's token reads back as that
action, and the competition's records, imported then written, read back as the same games (cards, seats,
exchange, every move) and import again to the same hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from president_env.core.uecda_export import format_uecda_record, move_token, uecda_card
from president_env.core.uecda_import import import_games, move_action, uecda_rules
from president_env.core.uecda_record import parse_move, parse_uecda_record

DATA = Path(__file__).parent / "data" / "uecda"
RULES = uecda_rules()


def test_every_action_is_written_as_a_token_that_reads_back_as_it():
    from president_env.core.actions import action_table

    n = action_table(RULES).n
    tokens = [move_token(RULES, a) for a in range(n)]
    assert len(set(tokens)) == n                         # no two actions share a token
    for a, token in enumerate(tokens):
        assert move_action(RULES, parse_move(token)) == a, token
    assert move_token(RULES, 0, 140) == "p[140]"
    with pytest.raises(ValueError, match="out of range"):
        move_token(RULES, n)


@pytest.mark.parametrize("card, text", [("3C", "c3"), ("TD", "dt"), ("AS", "sa"), ("2H", "h2"), ("JK", "jo")])
def test_cards_are_suit_then_rank_in_lowercase(card, text):
    assert uecda_card(card) == text


@pytest.mark.parametrize("name", ["lilovyy_10games.dat", "lilovyy_no_ranks_6games.dat", "devkit_games95-102.dat"])
def test_imported_records_written_back_are_the_same_games(name):
    source = DATA / name
    original = parse_uecda_record(source.read_text(), str(source))
    records = import_games(source)
    text = format_uecda_record(RULES, records, original.players, numbered=False)
    again = parse_uecda_record(text, "written")
    assert again.players == original.players
    assert len(again.games) == len(original.games)
    for a, b in zip(original.games, again.games, strict=True):
        assert (b.seats, b.dealt, b.changed, b.original, b.result) == (a.seats, a.dealt, a.changed, a.original,
                                                                       a.result)
        if a.with_ranks:
            assert b.classes == a.classes
        assert [m.token.split("[")[0] for m in b.plays] == [m.token.split("[")[0] for m in a.plays]


def test_written_records_import_to_the_same_hands(tmp_path):
    source = DATA / "lilovyy_10games.dat"
    records = import_games(source)
    times = [[7] * len(r["decisions"]) for r in records]
    path = tmp_path / "out.dat"
    path.write_text(format_uecda_record(RULES, records, ["a", "b c", "d", "e", "f"], times_us=times))
    back = import_games(path)
    for r, s in zip(records, back, strict=True):
        assert [d["action"] for d in s["decisions"]] == [d["action"] for d in r["decisions"]]
        assert s["deal"] == r["deal"] and s["finish_order"] == r["finish_order"] and s["seats"] == r["seats"]
    assert parse_uecda_record(path.read_text(), "out").players == ("a", "b_c", "d", "e", "f")
    with pytest.raises(ValueError, match="times_us has"):
        format_uecda_record(RULES, records[:1], ["a"] * 5, times_us=[[1]])
