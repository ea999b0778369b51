"""``president play``: a person's input drives a session; what it shows, bad input, quitting."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from president_cli.core_commands import UsageError
from president_cli.main import main
from president_cli.play import move_lines, parse_opponents, play_session, read_choice
from president_env.core import (
    PRESETS,
    claim_id,
    describe_action,
    init,
    make_keys,
    pick_id,
    preset,
    step_inplace,
    tables,
)
from president_env.core.records import iter_records, replay, replay_steps

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK|BJ|RJ)\b")


def _play(rules, text, human=0, seed=1, opponents=None, **kw):
    out = io.StringIO()
    opponents = opponents or ["heuristic"] * (rules.players - 1)
    res = play_session(rules, opponents, human=human, seed=seed, inp=io.StringIO(text), out=out, **kw)
    return res, out.getvalue()


def _menus(text):
    """The numbered menus shown, in order: each a list of the words offered."""
    menus, cur = [], None
    for line in text.splitlines():
        if line in ("your moves:", "give back a card:"):
            cur = []
            menus.append(cur)
        elif cur is not None and re.match(r"^  \d+\) ", line):
            cur += _entries(line)
        else:
            cur = None
    return [[words for _, words in sorted(menu)] for menu in menus]


def _entries(line):
    """(number, words) of each move on a menu line (a long menu is laid out in columns)."""
    return [(int(n), w) for n, w in re.findall(r"(\d+)\) (.*?)(?=\s{2,}\d+\) |$)", line.strip())]


def test_a_long_menu_is_laid_out_in_columns_read_down():
    moves = [f"claim number {i}" for i in range(130)]
    lines = move_lines(moves, width=100)
    assert len(lines) < 130 // 2 and all(len(line) <= 100 for line in lines)
    found = [e for line in lines for e in _entries(line)]
    assert sorted(found) == [(i + 1, m) for i, m in enumerate(moves)]      # each move once, by its number
    assert [n for n, _ in _entries(lines[0])][:2] == [1, len(lines) + 1]    # read down the columns
    assert move_lines(moves[:5], width=100) == [f"  {i + 1}) {m}" for i, m in enumerate(moves[:5])]


# --------------------------------------------------------------------------- reading a choice
def test_read_choice_reprompts_on_bad_input():
    out = io.StringIO()
    k = read_choice(5, io.StringIO("abc\n0\n7\n\n 3 \n"), out)
    assert k == 2
    text = out.getvalue()
    assert "'abc' is not a move number" in text
    assert "there is no move 0" in text and "there is no move 7" in text
    assert "please type the number of a move, 1 to 5" in text
    assert text.count("[1-5, ? table, q quit]") == 5   # asked again after each bad line


@pytest.mark.parametrize("text", ["q\n", "QUIT\n", ""])
def test_read_choice_quit_and_end_of_input(text):
    out = io.StringIO()
    assert read_choice(3, io.StringIO(text), out) is None
    if text == "":
        assert "(end of input)" in out.getvalue()


def test_read_choice_redraw():
    assert read_choice(3, io.StringIO("?\n"), io.StringIO()) == "redraw"


def test_read_choice_refuses_an_empty_menu():
    with pytest.raises(ValueError, match="at least one choice"):
        read_choice(0, io.StringIO("1\n"), io.StringIO())


# --------------------------------------------------------------------------- a session
def test_session_plays_to_the_end_and_records_legal_hands():
    rules = preset("president", hands_per_session=2)
    res, text = _play(rules, "1\n" * 2000)
    assert res.finished and res.hands == 2
    assert len(res.records) == 2
    for rec in res.records:
        replay(rec)  # every decision, the person's included, was legal and is re-derived
    assert res.points == list(np.sum([r["points"] for r in res.records], axis=0))
    assert "The session is over after 2 hand(s)" in text
    assert "hand 0 over" in text and "hand 1 over" in text
    human_decisions = [d for r in res.records for d in r["decisions"] if d["agent"] == 0 and len(d["legal"]) > 1]
    assert res.decisions == len(human_decisions) > 0
    # "1" picks the first move offered, which is the lowest legal id.
    assert all(d["action"] == d["legal"][0] for d in human_decisions)
    # The second hand starts from the first hand's ranks: its exchange is announced.
    assert "===== hand 1 =====" in text and "exchange:" in text.split("===== hand 1 =====")[1]


def test_menus_offer_exactly_the_legal_moves_in_words():
    rules = preset("president", hands_per_session=1)
    res, text = _play(rules, "2\n" * 2000, seed=4)
    (rec,) = res.records
    asked = [d for d in rec["decisions"] if d["agent"] == 0 and len(d["legal"]) > 1]
    menus = _menus(text)
    assert len(menus) == len(asked)
    for menu, d in zip(menus, asked, strict=True):
        assert menu == [describe_action(rules, a) for a in d["legal"]]
        assert d["action"] == d["legal"][1]


def test_the_table_shows_only_the_players_own_cards_sorted():
    rules = preset("president", hands_per_session=1)
    res, text = _play(rules, "1\n" * 2000, seed=2, human=1, width=200)   # the wide table: cards in a column
    (rec,) = res.records
    order = tables(rules).card_names
    for step in replay_steps(rec):
        if step.decision["agent"] == 1 and len(step.decision["legal"]) > 1:
            seat = int(np.flatnonzero(step.before.seat_player[0] == 1)[0])
            mine = [order[c] for c in np.flatnonzero(step.before.hands[0, seat])]
            break
    first_table = text.split("president (4 players)", 1)[1].split("your moves:", 1)[0]
    assert CARD.findall(first_table) == mine           # own cards, in the pack's (rank, suit) order
    assert first_table.count("(hidden)") == 3          # the others' hands are not shown
    for p in (0, 2, 3):                                # their counts are
        assert re.search(rf"p{p} heuristic\s+\d+", first_table)
    assert "top:" in first_table and "rank" in first_table and "points" in first_table


def test_bad_input_gets_a_message_and_does_not_change_the_game():
    rules = preset("president", hands_per_session=1)
    clean, clean_text = _play(rules, "1\n" * 2000, seed=3)
    noisy, noisy_text = _play(rules, "hello\n0\n99\n\n?\n" + "1\n" * 2000, seed=3)
    assert "'hello' is not a move number" in noisy_text
    assert "there is no move 0" in noisy_text and "there is no move 99" in noisy_text
    assert "please type the number of a move" in noisy_text
    assert noisy.finished and noisy.points == clean.points
    assert [d["action"] for d in noisy.records[0]["decisions"]] == [d["action"] for d in clean.records[0]["decisions"]]
    # "?" drew the table again: one more table than the clean run.
    assert noisy_text.count("president (4 players)") == clean_text.count("president (4 players)") + 1


def test_same_seed_and_input_same_transcript():
    rules = preset("revolution", hands_per_session=2)
    a = _play(rules, "1\n" * 2000, seed=9)[1]
    b = _play(rules, "1\n" * 2000, seed=9)[1]
    c = _play(rules, "1\n" * 2000, seed=10)[1]
    assert a == b and a != c


@pytest.mark.parametrize("text, why", [("q\n", None), ("", "(end of input)")])
def test_quitting_or_end_of_input_leaves_cleanly(text, why):
    rules = preset("president", hands_per_session=3)
    res, out = _play(rules, text, seed=0)
    assert not res.finished and res.hands == 0 and res.records == []
    assert "You left the game." in out and "Points so far:" in out
    if why:
        assert why in out


def test_exchange_give_backs_are_offered_by_number():
    rules = preset("president", hands_per_session=1)
    seed = 5
    st = init(rules, keys=make_keys(1, seed), start_ranks="random")
    president = int(np.flatnonzero(st.last_finish[0] == 0)[0])
    res, text = _play(rules, "x\n" + "1\n" * 2000, seed=seed, human=president, start_ranks="random")
    (rec,) = res.records
    give_backs = rules.exchange_pairs[0][1]
    first = rec["decisions"][:give_backs]
    assert all(d["agent"] == president for d in first)          # the President gives back first
    menus = _menus(text)
    assert menus[0] == [describe_action(rules, a, exchange=True) for a in first[0]["legal"]]
    assert all(m.startswith("give back a ") for m in menus[0])
    assert "'x' is not a move number" in text
    # The gift the person received is named; the card they gave back is shown to them.
    scum = [g for g in rec["exchanges"] if g["to"] == president][0]
    head = text.split("give back a card:", 1)[0]
    assert f"[{' '.join(c[:-1] for c in scum['cards'])}]" in head
    assert f"you: give back {first[0]['cards'][0]} to p{scum['from']}" in text


def test_other_players_give_backs_stay_hidden():
    rules = preset("president", hands_per_session=1)
    seed = 5
    st = init(rules, keys=make_keys(1, seed), start_ranks="random")
    # Sit as the Vice-Scum: the President gives back to the Scum, and the person sees no card of it.
    vice_scum = int(np.flatnonzero(st.last_finish[0] == 2)[0])
    res, text = _play(rules, "1\n" * 2000, seed=seed, human=vice_scum, start_ranks="random")
    (rec,) = res.records
    president = int(np.flatnonzero(st.last_finish[0] == 0)[0])
    lines = [ln for ln in text.splitlines() if ln.startswith(f"  p{president} heuristic: gives back")]
    assert len(lines) == rules.exchange_pairs[0][1]
    assert all(ln.endswith("gives back a card to p" + str(rec["exchanges"][0]["from"]) + " heuristic") for ln in lines)
    assert not CARD.search(" ".join(lines))


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_plays_a_hand_with_an_exchange(name):
    rules = preset(name, hands_per_session=1)
    res, text = _play(rules, "1\n" * 5000, seed=7, start_ranks="random")
    assert res.finished and res.hands == 1
    replay(res.records[0])
    assert "finishing order:" in text


# --------------------------------------------------------------------------- opponents and the command line
def test_parse_opponents():
    assert parse_opponents(None, 4) == ["heuristic"] * 3
    assert parse_opponents("greedy", 5) == ["greedy"] * 4
    assert parse_opponents("greedy, random,heuristic", 4) == ["greedy", "random", "heuristic"]
    with pytest.raises(UsageError, match="names 2 agents"):
        parse_opponents("greedy,random", 4)
    with pytest.raises(UsageError, match="empty entry"):
        parse_opponents("greedy,,random", 4)


def test_play_command_runs_on_stdin_and_writes_replayable_records(tmp_path, monkeypatch, capsys):
    path = tmp_path / "mine.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 2000))
    rc = main(["play", "--preset", "one_deuce_wins", "--players", "5", "--hands", "2", "--seed", "3",
               "--seat", "2", "--opponents", "greedy,random,heuristic,greedy", "--record", str(path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "preset one_deuce_wins, 5 players, seed 3. You are player 2" in out
    assert "p0 greedy, p1 random, p3 heuristic, p4 greedy" in out
    assert "The session is over after 2 hand(s)" in out
    recs = list(iter_records(path))
    assert len(recs) == 2 and recs[0]["agents"] == ["greedy", "random", "you", "heuristic", "greedy"]
    assert main(["replay", str(path), "--check"]) == 0
    assert main(["replay", str(path), "--index", "1", "--viewer", "2"]) == 0
    shown = capsys.readouterr().out
    assert "p2 you" in shown and "(hidden)" in shown


@pytest.mark.parametrize("argv, message", [
    (["--opponents", "nosuch"], "unknown agent 'nosuch'"),
    (["--opponents", "greedy,random"], "names 2 agents"),
    (["--seat", "4"], "--seat must be a player 0..3"),
    (["--players", "13"], "players=13"),
    (["--opponents", "ppo:"], "needs a model file"),
])
def test_play_command_usage_errors(argv, message, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as e:
        main(["play", "--seed", "1", *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_play_command_unknown_preset(capsys):
    with pytest.raises(SystemExit) as e:
        main(["play", "--preset", "nosuch"])
    assert e.value.code == 2
    assert "unknown preset 'nosuch'" in capsys.readouterr().err


def test_special_plays_are_announced():
    skipped = revolution = False
    for seed in range(4):
        text = _play(preset("ass_poker", hands_per_session=2), "1\n" * 5000, seed=seed)[1]
        skipped |= "same rank as the top: the next 1 player(s) with cards are skipped" in text
        text = _play(preset("daifugo", hands_per_session=2), "1\n" * 5000, seed=seed)[1]
        revolution |= "REVOLUTION: the rank order is reversed" in text
    assert skipped and revolution


@pytest.mark.parametrize("claim, cards, play", [
    ("pair of threes", ["3H"], "pair of threes (3C 3H)"),
    ("full house of threes", ["3H", "3D", "6C", "6H"], "full house, threes over sixes (3C 3H 3D 6C 6H)"),
])
def test_poker_a_claim_then_its_picks_make_a_play_named_once(claim, cards, play):
    # rich_man_poor_man, seed 0: you lead the first trick holding 3C 3H 3D 6C 6H 6D 7S 7H 8H 8D 9C KC KS
    rules = preset("rich_man_poor_man", hands_per_session=1)
    st = init(rules, keys=make_keys(1, 0))
    numbers = []

    def choose(action: int) -> None:   # the menu number of ``action``, and make it
        numbers.append(list(np.flatnonzero(st.legal[0])).index(action) + 1)
        step_inplace(rules, st, np.array([action]))

    choose(claim_id(rules, claim))
    assert list(np.flatnonzero(st.legal[0])) == [pick_id(rules, "3C")]   # the first lead holds 3C: made for you
    step_inplace(rules, st, np.array([pick_id(rules, "3C")]))
    for card in cards:
        choose(pick_id(rules, card))
    res, text = _play(rules, "".join(f"{n}\n" for n in numbers) + "q\n", seed=0)
    menus = _menus(text)
    assert claim in menus[0] and all(not w.startswith("pick") for w in menus[0])   # claims by name
    assert len(menus) == 1 + len(cards) + 1   # the claims; a menu per pick; the next turn (quit)
    assert all(w.startswith("pick ") for menu in menus[1:-1] for w in menu) and f"pick {cards[0]}" in menus[1]
    assert f"claimed: {claim} (picked: 3C)" in text   # the table shows the pending claim and the picks
    assert f"  you: {play}" in text   # the play, by name, once: on its last pick
    assert f"  you: {claim}\n" not in text and "you: pick" not in text
    assert res.decisions == 1 + len(cards)
    for line in text.splitlines():   # nobody's claims or picks before the last are shown
        if re.match(r"  (you|p\d \w+): ", line) and not re.search(r": -?\d+$", line):   # not the points
            assert line.endswith((")", ": pass")) and "pick" not in line, line
