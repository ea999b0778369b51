"""A deck and a half (``decks 1.5``, rule book section 1 and section 10 fine point 18) and the preset
``deck_and_a_half`` (seed 004), on hand-built hands.

The pack is one full pack plus the hearts and spades of a second: six cards of each natural rank, one
club and one diamond of each; jokers are dealt for one pack. Wherever the rule book counts ``4 x decks``
(the largest set, ``complete_set_clears``, ``quick_clear``) the count is six.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import actor, game, hand, legal_moves, play, top

from president_env.core import Rules, RulesError, init, preset, tables
from president_env.core.actions import action_id, describe_action, n_actions
from president_env.core.records import Recorder, random_actions, read_records, replay, write_records
from president_env.core.rules import MAX_PLAYERS


def R(**options) -> Rules:
    base = {"decks": 1.5, "players": 3, "rank_order": "3 4 5 6 7", "hands_per_session": 1}
    return Rules(**(base | options))


# --------------------------------------------------------------------------- the pack
def test_the_pack_has_six_of_each_rank_one_club_and_one_diamond() -> None:
    r = preset("deck_and_a_half")
    t = tables(r)
    assert r.n_cards == len(t.card_names) == 78
    assert r.max_set == r.copies_per_rank == 6
    for rank in r.rank_order:
        names = [n for n in t.card_names if n[:-1] == rank]
        assert sorted(names) == sorted([rank + "C", rank + "D", rank + "H", rank + "H", rank + "S", rank + "S"])
    assert t.card_names[t.lowest_card] == "3C" and t.card_names.count("3C") == 1


@pytest.mark.parametrize("jokers, mode, names", [(1, "high", ["JK"]), (2, "high", ["JK", "JK"]),
                                                 (2, "high_ranked", ["BJ", "RJ"])])
def test_jokers_are_dealt_for_one_pack(jokers: int, mode: str, names: list[str]) -> None:
    r = R(jokers=jokers, joker_mode=mode)
    t = tables(r)
    assert sorted(n for n in t.card_names if n in ("JK", "BJ", "RJ")) == names
    assert r.n_cards == 30 + jokers


def test_the_preset_is_president_with_a_deck_and_a_half_five_players_and_extra_cards_to_the_top() -> None:
    r = preset("deck_and_a_half")
    assert (r.decks, r.players, r.extra_cards_to) == (1.5, 5, "top_ranks")
    differ = {k for k, v in r.to_dict().items() if v != preset("president").to_dict()[k] and k != "name"}
    assert differ == {"decks", "players", "extra_cards_to"}


def test_a_deal_gives_every_card_once_and_the_top_ranks_the_extra_cards() -> None:
    r = preset("deck_and_a_half", hands_per_session=2)
    st = init(r, batch_size=8, seed=3)
    assert (st.hands.sum(axis=1) == 1).all()                 # each of the 78 cards dealt once, in every game
    assert (np.sort(st.n_cards.astype(int), axis=1) == [15, 15, 16, 16, 16]).all()   # 78 cards to 5 players
    st = init(r, batch_size=8, seed=3, start_ranks="random")
    assert (st.hands.sum(axis=1) == 1).all()
    # with ranks the deal starts at the President, so the top three get 16; after the forced gifts (2, 1)
    # President 18, Vice-President 17, the middle 16, Vice-Scum 14, Scum 13
    for b in range(8):
        by_position = st.n_cards[b, np.argsort(st.social[b])].astype(int)
        assert by_position.tolist() == [18, 17, 16, 14, 13]


# --------------------------------------------------------------------------- sets of six
def _led(r: Rules, hands: list[str]):
    """Hands dealt so that player 0 leads (dealer_left, dealer the last seat); the rest of the pack to the last
    player."""
    return game(r, hands, rest_to=r.players - 1, dealer=r.players - 1)


def test_six_of_a_rank_is_one_play() -> None:
    r = R(first_lead="dealer_left")
    st = _led(r, ["5C 5D 5H 5H 5S 5S 3C", "4C 4D", "6C 6D"])
    assert {"5", "5x2", "5x3", "5x4", "5x5", "5x6"} <= legal_moves(r, st)
    st = play(r, st, (0, "5x6"))
    assert top(r, st) == "5x6" and hand(r, st, 0) == ["3C"]
    assert n_actions(r) == 1 + 5 * 6
    assert describe_action(r, action_id(r, "5", 6)) == "6 x 5s"
    with pytest.raises(ValueError, match=r"out of range 1\.\.6"):
        action_id(r, "5", 7)


def test_a_complete_set_is_six_cards_of_a_rank() -> None:
    r = R(first_lead="dealer_left", complete_set_clears=True, players=4)
    st = _led(r, ["5C 5D 3C", "5H 5H 5S 5S 4C", "6C 6D", "7C"])
    st = play(r, st, (0, "5x2"))
    assert "5x4" in legal_moves(r, st) and "5x2" not in legal_moves(r, st)   # 2 + 4 = 6; 2 + 2 is not
    st = play(r, st, (1, "5x4"))
    assert top(r, st) is None and actor(st) == 1                             # the set of six cleared


def test_four_of_six_is_not_a_complete_set() -> None:
    r = R(first_lead="dealer_left", complete_set_clears=True, players=4)
    st = _led(r, ["5C 5D 3C", "5H 5S 4C", "6C 6D", "7C"])
    st = play(r, st, (0, "5x2"))
    assert legal_moves(r, st) == {"pass"}          # with one deck 5H 5S would complete the four
    r1 = r.replace(decks=1)
    st1 = game(r1, ["5C 5D 3C", "5H 5S 4C", "6C 6D", "7C"], rest_to=3, dealer=3)
    assert "5x2" in legal_moves(r1, play(r1, st1, (0, "5x2")))


def test_a_complete_set_counts_consecutive_plays_to_six() -> None:
    r = R(first_lead="dealer_left", complete_set_clears=True, equal_rank_beats=True, players=4)
    st = _led(r, ["5C 5D 3C", "5H 5H 4C", "5S 5S 6C", "7C"])
    st = play(r, st, (0, "5x2"), (1, "5x2"))       # four fives on top: the trick goes on
    assert top(r, st) == "5x2" and actor(st) == 2
    st = play(r, st, (2, "5x2"))                   # the fifth and sixth complete the set
    assert top(r, st) is None and actor(st) == 2


def test_quick_clear_needs_the_rest_of_six() -> None:
    r = R(first_lead="dealer_left", quick_clear=True, players=4)
    st = _led(r, ["7C 7D 3C", "4C", "7H 7H 7S 7S 5C", "6C"])
    st = play(r, st, (0, "7x2"))
    assert int(st.claim_rank[0]) >= 0 and actor(st) == 2     # the other four sevens: 2 + 4 = 6
    assert legal_moves(r, st) == {"pass", "7x4"}
    st = play(r, st, (2, "7x4"))
    assert top(r, st) is None and actor(st) == 2
    st = _led(r, ["7C 7D 3C", "4C 7S", "7H 7H 7S 5C", "6C"])
    st = play(r, st, (0, "7x2"))
    assert int(st.claim_rank[0]) < 0                          # three are not the rest of six


def test_a_four_of_a_kind_of_six_still_revolts() -> None:
    r = R(first_lead="dealer_left", four_of_a_kind="revolution")
    st = _led(r, ["6C 6D 6H 6H 3C", "4C 7C", "5C"])
    st = play(r, st, (0, "6x4"))
    assert bool(st.revolution[0])


# --------------------------------------------------------------------------- the first lead
def test_the_first_lead_holds_the_single_3c() -> None:
    r = preset("deck_and_a_half", hands_per_session=1)
    holders = []
    for seed in range(6):
        st = init(r, batch_size=1, seed=seed)
        seat = int(st.current[0])
        assert hand(r, st, int(st.seat_player[0, seat]))[0] == "3C"
        moves = legal_moves(r, st)
        assert moves and all(m.split("x")[0] == "3" for m in moves)
        holders.append(seat)
    assert len(set(holders)) > 1


def test_a_first_lead_without_3c_is_refused_even_with_other_threes() -> None:
    r = R()
    st = game(r, ["3H 3H 4C", "3C 5C", "3D 3S 3S"], rest_to=2)
    assert actor(st) == 1
    assert legal_moves(r, st) == {"3"}


# --------------------------------------------------------------------------- refusals (fine point 18)
@pytest.mark.parametrize("option, value", [
    ("power_ranks", {"2": (2, 3, 4)}),
    ("revolution_by_singles", True),
    ("suit_order", ("D", "C", "H", "S")),
    ("suit_rule", "rank"),
    ("high_cards", ("3C",)),
    ("runs", 3),
    ("combinations", "poker"),
])
def test_options_refused_with_a_deck_and_a_half_are_named(option: str, value) -> None:
    extra = {"equal_rank_beats": True, "four_of_a_kind": "revolution"} if option == "revolution_by_singles" else {}
    if option == "combinations":
        extra = {"jokers": 0}
    Rules(**({option: value, "decks": 1} | extra))           # allowed with one deck
    with pytest.raises(RulesError, match=rf"^{option}=.*decks 1\.5.*fine point 18"):
        Rules(**({option: value, "decks": 1.5, "players": 5} | extra))


@pytest.mark.parametrize("decks", [1.25, 3, 0, "1.5", True, None, [1]])
def test_other_deck_counts_are_refused(decks) -> None:
    with pytest.raises(RulesError, match=r"^decks=.*must be 1, 1\.5 \(a deck and a half\) or 2"):
        Rules(decks=decks)


def test_players_up_to_ten_with_a_deck_and_a_half() -> None:
    assert MAX_PLAYERS[1.5] == 10
    assert preset("deck_and_a_half", players=10).players == 10
    assert preset("deck_and_a_half", players=6).smallest_hand == 13
    with pytest.raises(RulesError, match=r"^players=11: must be 3..10 with 1.5 deck"):
        preset("deck_and_a_half", players=11)


def test_whole_float_decks_from_json_are_whole() -> None:
    assert Rules(decks=2.0).decks == 2 and isinstance(Rules(decks=2.0).decks, int)
    assert Rules(decks=2.0) == Rules(decks=2)


# --------------------------------------------------------------------------- records
def test_a_recorded_hand_round_trips_and_replays(tmp_path) -> None:
    r = preset("deck_and_a_half", hands_per_session=1)
    rules_back = Rules.from_dict(json.loads(json.dumps(r.to_dict())))
    assert rules_back == r and rules_back.decks == 1.5
    st = init(r, batch_size=2, seed=11)
    rng = np.random.default_rng(0)
    records = Recorder(r, st).run(lambda s: random_actions(s.legal, rng))
    assert records
    path = tmp_path / "d.jsonl"
    write_records(path, records)
    for record in read_records(path):
        assert record["rules"]["decks"] == 1.5
        replay(record)
