"""The rules object: the presets of section 7, overrides, refused combinations, round trips.

The expected option values are written out here from the rule book (docs: rules.md
sections 1-7 and fine point 13), not read back from the implementation's preset table.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from president_env.core import PRESETS, Rules, RulesError, preset

# Section 1-6 defaults, as the rule book states them.
DEFAULTS = {
    "rank_order": ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"),
    "decks": 1,
    "jokers": 0,
    "joker_mode": "high",
    "players": 4,
    "extra_cards_to": "first_dealt",
    "first_lead": "lowest_card",
    "lead_after_first": "president",
    "pass_rule": "may_replay",
    "compulsory_beat": False,
    "direction": "clockwise",
    "size_rule": "equal",
    "equal_rank_beats": False,
    "equal_play_skips": False,
    "wild_ranks": frozenset(),
    "wild_tie": "equal",
    "transparent_rank": None,
    "trump_ranks": frozenset(),
    "reset_ranks": frozenset(),
    "four_of_a_kind": "none",
    "complete_set_clears": False,
    "eight_cut": False,
    "forbidden_finish": frozenset(),
    "president_must_win": False,
    "power_ranks": (),
    "revolution_by_singles": False,
    "revolution_reset_rank": None,
    "exchange": (2, 1),
    "reseat": True,
    "target_points": 11,
    "hands_per_session": None,
    "hand_assignment": "deal",
    "merchant_trade": False,
    "suit_order": ("C", "D", "H", "S"),
    "high_cards": (),
    "quick_clear": False,
    # section 9 (the UEC options): off
    "lead_card": None,
    "lead_may_pass": False,
    "trick_end": "others_passed",
    "suit_lock": "none",
    "spade_three_beats_joker": False,
    "run_beat": "highest_higher",
    "run_joker_ends": False,
    "run_revolution": 0,
    "five_card_set": False,
    "eight_cut_by_wild": False,
    "random_seats_every": None,
    "rank_reset_every": None,
    "pass_limit": None,
    "eleven_back": False,
    "six_reverse": False,
    "five_skip": False,
}
# Points by finishing position for the default scoring (section 6).
DEFAULT_POINTS = {3: (2, 0, -2), 4: (2, 1, -1, -2), 5: (2, 1, 0, -1, -2), 8: (2, 1, 0, 0, 0, 0, -1, -2)}

# Section 7: the options each preset changes ("scoring [2, 1, 0, ...]" is checked as points).
PRESET_OPTIONS: dict[str, dict] = {
    "president": {},
    "pagat_basic": {"first_lead": "dealer_left", "exchange": (1,), "scoring": (2, 1)},
    "asshole": {"pass_rule": "single_round", "size_rule": "at_least", "trump_ranks": frozenset({"2"}),
                "first_lead": "dealer", "exchange": (1,), "extra_cards_to": "top_ranks"},
    "ass_poker": {"size_rule": "bigger_beats_any", "equal_rank_beats": True, "equal_play_skips": True,
                  "trump_ranks": frozenset({"2"})},
    "locks_out": {"pass_rule": "locks_out"},
    "single_round": {"pass_rule": "single_round"},
    "compulsory": {"compulsory_beat": True},
    "revolution": {"four_of_a_kind": "revolution"},
    "bombs": {"four_of_a_kind": "bomb"},
    "complete_set": {"complete_set_clears": True},
    "one_deuce_wins": {"trump_ranks": frozenset({"2"})},
    "jokers_high": {"jokers": 2, "joker_mode": "high_ranked", "trump_ranks": frozenset({"BJ", "RJ"})},
    "daifugo": {"jokers": 2, "joker_mode": "wild", "wild_ranks": frozenset({"JK"}), "eight_cut": True,
                "four_of_a_kind": "revolution", "forbidden_finish": frozenset({"2", "8", "JK"}),
                "direction": "counter_clockwise", "extra_cards_to": "bottom_ranks", "scoring": (2, 1)},
    "klootzakken": {"rank_order": ("7", "8", "9", "T", "J", "Q", "K", "A", "2", "3"), "reseat": False,
                    "exchange": (2,), "lead_after_first": "scum"},
    "huberes": {"players": 6, "jokers": 2, "joker_mode": "wild", "wild_ranks": frozenset({"2", "3", "JK"}),
                "exchange": (3, 2, 1)},
    "butthead": {"exchange": (2, 1), "exchange_back": (3, 2)},
    "double_deck": {"decks": 2, "players": 8},
    "deck_and_a_half": {"decks": 1.5, "players": 5, "extra_cards_to": "top_ranks"},
    # the UEC standard rules (../shared/spec/uecda.md section 2: the `uecda` column of section 1)
    "uecda": {"players": 5, "jokers": 1, "joker_mode": "wild", "wild_ranks": frozenset({"JK"}),
              "extra_cards_to": "top_ranks", "pass_rule": "locks_out", "four_of_a_kind": "revolution",
              "eight_cut": True, "runs": 3, "reseat": False, "scoring": (5, 4, 3, 2, 1), "target_points": None,
              "hands_per_session": 1000, "lead_card": "3D", "lead_may_pass": True, "trick_end": "all_passed",
              "suit_lock": "exact", "spade_three_beats_joker": True, "run_beat": "clear_above",
              "run_joker_ends": True, "run_revolution": 5, "five_card_set": True, "eight_cut_by_wild": True,
              "random_seats_every": 3, "rank_reset_every": 100, "pass_limit": 20},
    # power_ranks {2: [2, 3, 4], J: [3, 4], JK: [4]}, stored as sorted (rank, sizes) pairs
    "sofia": {"rank_order": ("3", "4", "5", "6", "7", "8", "9", "T", "Q", "K", "A", "2", "J"), "jokers": 2,
              "power_ranks": (("2", (2, 3, 4)), ("J", (3, 4)), ("JK", (4,)))},
    "threes_high": {"rank_order": ("4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "3", "2"),
                    "transparent_rank": "4", "power_ranks": (("3", (4,)),), "trump_ranks": frozenset({"2"})},
    "hamish_allan": {"equal_rank_beats": True, "four_of_a_kind": "revolution_and_reverse",
                     "revolution_by_singles": True, "transparent_rank": "3", "reset_ranks": frozenset({"2"}),
                     "revolution_reset_rank": "A", "president_must_win": True},
    "expose_hands": {"hand_assignment": "expose"},
    "merchants": {"players": 6, "merchant_trade": True},
    "black_threes": {"high_cards": ("3C", "3S")},
    "jack_of_diamonds": {"high_cards": ("JD",)},
    "quick_clears": {"quick_clear": True},
    "suit_ranking": {"suit_rule": "rank"},
    "follow_suit": {"suit_rule": "follow"},
    "reversing_colour": {"suit_rule": "colour"},
    "daifugo_runs": {"jokers": 2, "joker_mode": "wild", "wild_ranks": frozenset({"JK"}), "eight_cut": True,
                     "four_of_a_kind": "revolution", "forbidden_finish": frozenset({"2", "8", "JK"}),
                     "direction": "counter_clockwise", "extra_cards_to": "bottom_ranks", "scoring": (2, 1),
                     "runs": 3},
    "rich_man_poor_man": {"combinations": "poker", "suit_order": ("C", "S", "H", "D"), "wild_ranks": frozenset({"2"})},
}


def _check_preset(r: Rules, name: str, overrides: dict | None = None) -> None:
    """Every option of ``r`` is the default, the preset's value, or the override."""
    expected = dict(DEFAULTS) | PRESET_OPTIONS[name] | (overrides or {})
    scoring = expected.pop("scoring", None)
    for option, value in expected.items():
        assert getattr(r, option) == value, f"{name}: {option} is {getattr(r, option)!r}, expected {value!r}"
    # exchange_back: "same as exchange" unless the preset says otherwise
    back = expected.get("exchange_back", expected["exchange"])
    assert [b for _, b in r.exchange_pairs] == list(back)[: len(r.exchange_pairs)]
    if scoring is None:
        assert r.points == DEFAULT_POINTS.get(r.players, r.points)
        assert r.points[0] == 2 and r.points[-1] == -2
    else:  # [2, 1, 0, ...]: padded with zeros
        assert r.points == tuple(scoring) + (0,) * (r.players - len(scoring))


def test_the_preset_list_is_section_7() -> None:
    assert set(PRESETS) == set(PRESET_OPTIONS)


@pytest.mark.parametrize("name", sorted(PRESET_OPTIONS))
def test_preset_has_exactly_the_listed_options(name: str) -> None:
    r = preset(name)
    _check_preset(r, name)
    assert r.name == name
    assert Rules.preset(name) == r


def test_president_preset_is_the_defaults() -> None:
    assert preset("president") == Rules()
    assert Rules().points == (2, 1, -1, -2)
    assert Rules(players=3).points == (2, 0, -2)
    assert Rules(players=6).points == (2, 1, 0, 0, -1, -2)


@pytest.mark.parametrize("alias", ["hubéres", "Hubéres", "HUBERES", "hűbéres"])
def test_huberes_accent_aliases(alias: str) -> None:
    r = preset(alias)
    assert r == preset("huberes")
    _check_preset(r, "huberes")


@pytest.mark.parametrize("name,overrides", [
    ("president", {"players": 5}),
    ("daifugo", {"players": 6}),
    ("double_deck", {"players": 12}),
    ("asshole", {"players": 5, "decks": 2}),
    ("huberes", {"players": 4}),
    ("revolution", {"four_of_a_kind": "revolution_and_reverse", "target_points": 21}),
    ("klootzakken", {"exchange": (1,), "reseat": True}),
])
def test_preset_overrides(name: str, overrides: dict) -> None:
    r = preset(name, **overrides)
    _check_preset(r, name, overrides)
    assert r != preset(name)


def test_replace_changes_one_option_and_keeps_the_rest() -> None:
    r = preset("daifugo").replace(players=5)
    _check_preset(r, "daifugo", {"players": 5})
    assert hash(r) == hash(preset("daifugo", players=5))


# --------------------------------------------------------------------------- refusals
def _refused(option: str, build) -> RulesError:
    with pytest.raises(RulesError) as err:
        build()
    assert option in str(err.value), f"message does not name {option!r}: {err.value}"
    return err.value


def test_unknown_preset() -> None:
    e = _refused("not_a_game", lambda: preset("not_a_game"))
    assert "president" in str(e)  # lists the presets


@pytest.mark.parametrize("build", [
    lambda: preset("president", frobnicate=1),
    lambda: Rules().replace(frobnicate=1),
    lambda: Rules.from_dict({"frobnicate": 1}),
])
def test_unknown_option(build) -> None:
    _refused("frobnicate", build)


@pytest.mark.parametrize("option,value", [
    ("pass_rule", "sometimes"), ("size_rule", "bigger"), ("first_lead", "dealer_right"),
    ("lead_after_first", "vice"), ("direction", "up"), ("wild_tie", "random"), ("joker_mode", "low"),
    ("four_of_a_kind", "boom"), ("extra_cards_to", "nobody"), ("decks", 3), ("jokers", 3),
    ("players", 2), ("compulsory_beat", "yes"), ("rank_order", ("3", "4", "X")), ("rank_order", ("3", "3", "4")),
    ("trump_ranks", {"1"}), ("transparent_rank", "Z"), ("target_points", 0), ("hands_per_session", -1),
    ("exchange", (0,)),
    ("hand_assignment", "shuffle"), ("merchant_trade", "yes"), ("revolution_by_singles", 1),
    ("revolution_reset_rank", "Z"), ("power_ranks", "2-2"), ("power_ranks", "2:"), ("power_ranks", {"2": ["x"]}),
    ("power_ranks", 5), ("power_ranks", (("2", (2,)), ("2", (3,)))),
])
def test_unknown_values(option: str, value) -> None:
    _refused(option, lambda: Rules(**{option: value}))


@pytest.mark.parametrize("option,kwargs", [
    # section 1 and the introduction: 13 players with one deck
    ("players", {"players": 13}),
    ("players", {"players": 9}),
    ("players", {"players": 13, "decks": 2}),
    # the introduction: equal_play_skips without equal_rank_beats
    ("equal_play_skips", {"equal_play_skips": True}),
    # fine point 13: a rank with two roles among wild, trump, reset and transparent
    ("trump_ranks", {"wild_ranks": {"2"}, "trump_ranks": {"2"}}),
    ("reset_ranks", {"wild_ranks": {"2"}, "reset_ranks": {"2"}}),
    ("transparent_rank", {"wild_ranks": {"2"}, "transparent_rank": "2"}),
    ("reset_ranks", {"trump_ranks": {"2"}, "reset_ranks": {"2"}}),
    ("transparent_rank", {"trump_ranks": {"2"}, "transparent_rank": "2"}),
    ("transparent_rank", {"reset_ranks": {"7"}, "transparent_rank": "7"}),
    # joker_mode wild without JK in wild_ranks, and the reverse
    ("wild_ranks", {"jokers": 2, "joker_mode": "wild"}),
    ("wild_ranks", {"jokers": 2, "joker_mode": "wild", "wild_ranks": {"2"}}),
    ("wild_ranks", {"jokers": 2, "joker_mode": "high", "wild_ranks": {"JK"}}),
    ("joker_mode", {"jokers": 0, "joker_mode": "wild", "wild_ranks": set()}),
    # high_ranked jokers as wild
    ("wild_ranks", {"jokers": 2, "joker_mode": "high_ranked", "wild_ranks": {"BJ"}}),
    ("wild_ranks", {"jokers": 2, "joker_mode": "high_ranked", "wild_ranks": {"RJ", "BJ"}}),
    # a deck with no natural rank
    ("wild_ranks", {"rank_order": ("2", "3"), "wild_ranks": {"2", "3"}}),
    ("wild_ranks", {"rank_order": ("2",), "jokers": 1, "joker_mode": "wild", "wild_ranks": {"2", "JK"},
                    "exchange": (1,)}),
    ("rank_order", {"rank_order": ()}),
    # an exchange larger than the smallest hand (3 ranks, 4 players: 3 cards each)
    ("exchange", {"rank_order": ("3", "4", "5"), "exchange": (4,)}),
    ("exchange_back", {"rank_order": ("3", "4", "5"), "exchange": (1,), "exchange_back": (4,)}),
    ("exchange", {"players": 8, "exchange": (7,)}),
    # no target and no hand count
    ("target_points", {"target_points": None, "hands_per_session": None}),
    # options that name ranks must name ranks of the deck
    ("eight_cut", {"rank_order": ("3", "4", "5", "6", "7"), "eight_cut": True}),
    ("forbidden_finish", {"forbidden_finish": {"JK"}}),
    ("trump_ranks", {"rank_order": ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"),
                     "trump_ranks": {"2"}}),
    # power_ranks: entry n (n cards) must be n+1..4; 1 to 3 entries; a rank of the deck, not wild
    ("power_ranks", {"power_ranks": {"2": [1]}}),
    ("power_ranks", {"power_ranks": {"2": [5]}}),
    ("power_ranks", {"power_ranks": {"J": [3, 2]}}),
    ("power_ranks", {"power_ranks": {"J": [3, 4, 3]}}),
    ("power_ranks", {"power_ranks": {"2": [2, 3, 4, 4]}}),
    ("power_ranks", {"power_ranks": {"2": []}}),
    ("power_ranks", {"power_ranks": {"JK": [4]}}),
    ("power_ranks", {"rank_order": ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"),
                     "power_ranks": "2:2"}),
    ("power_ranks", {"wild_ranks": {"2"}, "power_ranks": {"2": [2]}}),
    ("power_ranks", {"jokers": 2, "joker_mode": "wild", "wild_ranks": {"JK"}, "power_ranks": {"JK": [4]}}),
    # revolution_by_singles needs equal_rank_beats and a four_of_a_kind revolution
    ("revolution_by_singles", {"revolution_by_singles": True, "four_of_a_kind": "revolution"}),
    ("revolution_by_singles", {"revolution_by_singles": True, "equal_rank_beats": True}),
    ("revolution_by_singles", {"revolution_by_singles": True, "equal_rank_beats": True, "four_of_a_kind": "bomb"}),
    # revolution_reset_rank needs a four_of_a_kind revolution and a rank with no other role
    ("revolution_reset_rank", {"revolution_reset_rank": "A"}),
    ("revolution_reset_rank", {"revolution_reset_rank": "A", "four_of_a_kind": "bomb"}),
    ("revolution_reset_rank", {"revolution_reset_rank": "2", "four_of_a_kind": "revolution", "wild_ranks": {"2"}}),
    ("revolution_reset_rank", {"revolution_reset_rank": "2", "four_of_a_kind": "revolution", "trump_ranks": {"2"}}),
    ("revolution_reset_rank", {"revolution_reset_rank": "3", "four_of_a_kind": "revolution",
                               "transparent_rank": "3"}),
    ("revolution_reset_rank", {"revolution_reset_rank": "JK", "four_of_a_kind": "revolution"}),
    # merchant_trade needs two players between the exchanging pairs
    ("merchant_trade", {"merchant_trade": True}),
    ("merchant_trade", {"merchant_trade": True, "players": 5}),
    ("merchant_trade", {"merchant_trade": True, "players": 6, "exchange": (3, 2, 1)}),
    ("merchant_trade", {"merchant_trade": True, "players": 3, "exchange": (1,)}),
])
def test_impossible_combinations(option: str, kwargs: dict) -> None:
    _refused(option, lambda: Rules(**kwargs))
    # the same refusal through a preset and through replace
    _refused(option, lambda: preset("president", **kwargs))
    _refused(option, lambda: Rules().replace(**kwargs))


def test_possible_neighbours_of_the_refusals_build() -> None:
    """The refusals above are not blanket: the nearby legal combinations build."""
    Rules(players=8)
    Rules(players=12, decks=2)
    Rules(equal_rank_beats=True, equal_play_skips=True)
    Rules(wild_ranks={"3"}, trump_ranks={"2"}, reset_ranks={"A"}, transparent_rank="7")
    Rules(jokers=2, joker_mode="wild", wild_ranks={"JK"})
    Rules(jokers=1, joker_mode="high_ranked", trump_ranks={"BJ"})
    Rules(rank_order=("2", "3"), wild_ranks={"2"}, exchange=(1,))
    Rules(rank_order=("3", "4", "5"), exchange=(3,))
    Rules(target_points=None, hands_per_session=3)
    Rules(target_points=5, hands_per_session=None)
    Rules(power_ranks={"2": [2, 3, 4], "J": [3, 4]})
    Rules(jokers=2, power_ranks={"JK": [4]})
    Rules(decks=2, players=8, power_ranks={"2": [4]})
    Rules(transparent_rank="3", trump_ranks={"2"}, power_ranks={"A": [2]})
    Rules(revolution_by_singles=True, equal_rank_beats=True, four_of_a_kind="revolution")
    Rules(revolution_by_singles=True, equal_rank_beats=True, four_of_a_kind="revolution_and_reverse")
    Rules(revolution_reset_rank="A", four_of_a_kind="revolution")
    Rules(revolution_reset_rank="2", four_of_a_kind="revolution", reset_ranks={"2"})
    Rules(merchant_trade=True, players=6)
    Rules(merchant_trade=True, players=4, exchange=(1,))
    Rules(merchant_trade=True, players=8, exchange=(3, 2, 1))
    Rules(hand_assignment="expose", players=5)


def test_refusal_message_names_the_value() -> None:
    e = _refused("players", lambda: Rules(players=13))
    assert "13" in str(e)
    e = _refused("equal_play_skips", lambda: Rules(equal_play_skips=True))
    assert "equal_rank_beats" in str(e)
    e = _refused("power_ranks", lambda: Rules(power_ranks={"J": [3, 2]}))
    assert "'J'" in str(e) and "3..4" in str(e)
    e = _refused("revolution_by_singles", lambda: Rules(revolution_by_singles=True, four_of_a_kind="revolution"))
    assert "equal_rank_beats" in str(e)
    e = _refused("revolution_reset_rank", lambda: Rules(revolution_reset_rank="A"))
    assert "four_of_a_kind" in str(e)
    e = _refused("merchant_trade", lambda: Rules(merchant_trade=True, players=5))
    assert "5 players" in str(e)


# --------------------------------------------------------------------------- section 5-6 options
POWER_STORED = (("2", (2, 3, 4)), ("J", (3, 4)), ("JK", (4,)))


@pytest.mark.parametrize("given", [
    {"2": [2, 3, 4], "J": [3, 4], "JK": [4]},
    {"JK": (4,), "J": (3, 4), "2": (2, 3, 4)},               # order does not matter
    [("J", [3, 4]), ("2", [2, 3, 4]), ("JK", [4])],           # (rank, sizes) pairs
    "2:2,3,4 J:3,4 JK:4",                                     # text, as --set gives it
    "jk:4 j:3,4 2:2,3,4",                                     # ranks in any case
    POWER_STORED,
])
def test_power_ranks_parse_to_sorted_pairs(given) -> None:
    r = Rules(jokers=2, power_ranks=given)
    assert r.power_ranks == POWER_STORED
    assert r.power == {"2": (2, 3, 4), "J": (3, 4), "JK": (4,)}
    assert r == preset("sofia", rank_order=DEFAULTS["rank_order"])
    assert hash(r) == hash(Rules(jokers=2, power_ranks=POWER_STORED))


def test_power_ranks_ten_and_single_size() -> None:
    assert Rules(power_ranks="10:2").power_ranks == (("T", (2,)),)
    assert Rules(power_ranks={"A": 3}).power_ranks == (("A", (3,)),)
    assert Rules(power_ranks=None).power_ranks == ()
    assert Rules(power_ranks={}).power == {}


def test_power_ranks_to_dict_from_dict() -> None:
    r = preset("sofia")
    d = r.to_dict()
    assert d["power_ranks"] == {"2": [2, 3, 4], "J": [3, 4], "JK": [4]}
    back = Rules.from_dict(json.loads(json.dumps(d)))
    assert back == r and back.power_ranks == POWER_STORED
    assert Rules().to_dict()["power_ranks"] == {}
    assert Rules.from_dict(Rules().to_dict()) == Rules()
    t = preset("threes_high").to_dict()
    assert t["power_ranks"] == {"3": [4]} and Rules.from_dict(t) == preset("threes_high")


def test_new_options_round_trip_through_replace_and_dict() -> None:
    r = Rules(players=8, equal_rank_beats=True, four_of_a_kind="revolution_and_reverse", revolution_by_singles=True,
              revolution_reset_rank="A", power_ranks="K:2,3", hand_assignment="expose", merchant_trade=True)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["revolution_by_singles"] is True and d["revolution_reset_rank"] == "A"
    assert d["hand_assignment"] == "expose" and d["merchant_trade"] is True
    assert d["power_ranks"] == {"K": [2, 3]}
    assert Rules.from_dict(d) == r
    assert r.replace(merchant_trade=False).merchant_pairs == r.merchant_pairs  # a property of the seats
    assert r.replace(revolution_reset_rank=None).revolution_reset_rank is None
    assert preset("hamish_allan", revolution_reset_rank="k").revolution_reset_rank == "K"


@pytest.mark.parametrize("players,exchange,pairs", [
    (6, (2, 1), ((2, 3),)),
    (7, (2, 1), ((2, 3),)),             # the odd one out (position 4) does not trade
    (8, (2, 1), ((2, 3), (4, 5))),
    (4, (1,), ((1, 2),)),
    (6, (1,), ((1, 2), (3, 4))),
    (8, (3, 2, 1), ((3, 4),)),
])
def test_merchant_pairs(players: int, exchange: tuple, pairs: tuple) -> None:
    r = Rules(players=players, exchange=exchange, merchant_trade=True)
    assert r.merchant_pairs == pairs
    assert preset("merchants").merchant_pairs == ((2, 3),)


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", sorted(PRESET_OPTIONS))
def test_to_dict_from_dict_round_trip(name: str) -> None:
    r = preset(name)
    d = r.to_dict()
    d2 = json.loads(json.dumps(d))  # plain JSON values only
    back = Rules.from_dict(d2)
    assert back == r
    assert back.name == r.name
    assert hash(back) == hash(r)
    assert {f.name for f in dataclasses.fields(Rules)} == set(d)


def test_round_trip_of_a_custom_rules_object() -> None:
    r = Rules(players=5, rank_order=("7", "8", "9", "T"), decks=2, jokers=1, joker_mode="wild",
              wild_ranks={"JK", "7"}, trump_ranks={"T"}, transparent_rank="8", wild_tie="natural_higher",
              exchange=(1,), exchange_back=(2,), scoring=(3, 1), hands_per_session=4, target_points=None)
    back = Rules.from_dict(r.to_dict())
    assert back == r
    assert back.wild_ranks == frozenset({"JK", "7"})
    assert back.points == (3, 1, 0, 0, 0)
    assert back.exchange_pairs == ((1, 2),)


def test_rules_are_frozen_and_hashable() -> None:
    r = preset("president")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.players = 5  # type: ignore[misc]
    assert len({preset("president"), Rules(), preset("bombs")}) == 2
