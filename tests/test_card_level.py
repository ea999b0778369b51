"""Scenarios for the section 8 options that need the card-level action table: ``suit_rule`` (``rank``,
``follow``, ``colour``) and ``runs`` (rules.md section 8 and its fine points 1, 2, 3, 5, 6, 9), on
hand-built hands; then the card-level give-backs, records and random games of the new presets.

Moves are written as the natural cards an action names, in deck order, as ``action_table`` lists them:
``"7C"``, ``"7C 7H"``, ``"7C +1"`` (one wild card added), ``"+2"`` (two wild cards alone), and where
a set names its wild cards (``Rules.names_wild_cards``) ``"7C +9S"`` (a wild 9S), ``"+9C 9D"``,
``"run 5S 6S 7S"`` (a run names every card of its window, wild cards standing for the ones not held),
``"pass"``.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from helpers import actor, game, hand, legal_moves, play, player_counts, random_records, seat_of, top

from president_env.core import (
    EXCHANGE,
    OVER,
    PLAY,
    Rules,
    RulesError,
    action_table,
    card_names,
    describe_action,
    init,
    preset,
    step,
    tables,
)
from president_env.core.records import ReplayError, replay
from president_env.core.rules import PRESETS

NEW_PRESETS = ("suit_ranking", "follow_suit", "reversing_colour", "daifugo_runs")


def R(**options) -> Rules:
    """Four players, one hand per session, the dealer (seat 0) leads; ranks 3 to 9 unless told."""
    base = {"players": 4, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,),
            "rank_order": "3 4 5 6 7 8 9"}
    base.update(options)
    return Rules(**base)


FULL = "3 4 5 6 7 8 9 T J Q K A 2"
WILD_JOKERS = {"jokers": 2, "joker_mode": "wild", "wild_ranks": {"JK"}}


# --------------------------------------------------------------------------- moves by cards
def _name(r: Rules, i: int) -> str:
    at = action_table(r)
    if i == 0:
        return "pass"
    cards = " ".join(at.cards[i])
    if int(at.run[i]):  # a window with a high card in it names fewer cards than its length
        return f"run {cards}" + (f" ({int(at.run[i])})" if len(at.cards[i]) < int(at.run[i]) else "")
    w = int(at.wild[i])
    if at.names_wild and w:
        w = " ".join(at.wild_cards[i])
    return (f"{cards} +{w}" if cards else f"+{w}") if w else cards


@lru_cache(maxsize=64)
def _ids(r: Rules) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(action_table(r).n):
        n = _name(r, i)
        assert n not in out, f"two actions named {n!r}"
        out[n] = i
    return out


def aid(r: Rules, move: str) -> int:
    """The id of ``move`` (raises KeyError when the table has no such action)."""
    return _ids(r)[" ".join(move.split())]


def moves(r: Rules, st) -> set[str]:
    """The legal actions of game 0 by name."""
    return {_name(r, int(i)) for i in np.flatnonzero(st.legal[0])}


def go(r: Rules, st, *mvs: tuple[int, str]):
    """Play ``(player, move)`` pairs on game 0, checking who acts."""
    for who, mv in mvs:
        assert actor(st) == who, f"expected player {who} to act before {mv!r}, but player {actor(st)} acts"
        st = step(r, st, np.array([aid(r, mv)]))
    return st


def moved(r: Rules, st) -> list[str]:
    return card_names(r, st.moved[0])


def on_top(r: Rules, st) -> list[str]:
    return card_names(r, st.top_cards[0])


# =========================================================================== suit_rule rank
class TestSuitRank:
    def test_a_single_is_beaten_by_its_rank_in_a_higher_suit_not_a_lower(self) -> None:
        r = R(suit_rule="rank")
        st = game(r, ["7D 3C", "7C 7H 4C", "7S 5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7D"))
        assert "7H" in moves(r, st) and "7C" not in moves(r, st)
        st = go(r, st, (1, "7H"))
        assert top(r, st) == "7" and on_top(r, st) == ["7H"]
        assert "7S" in moves(r, st)                              # spades beat hearts
        base = R()                                               # without the rule, the same rank never beats
        st0 = game(base, ["7D 3C", "7C 7H 4C", "7S 5C", "6C"], rest_to=3)
        assert "7" not in legal_moves(base, play(base, st0, (0, "7")))

    def test_a_lower_suit_never_beats_even_with_equal_rank_beats(self) -> None:
        r = R(suit_rule="rank", equal_rank_beats=True)
        st = go(r, game(r, ["7D 3C", "7C 7H 4C", "5C", "6C"], rest_to=3), (0, "7D"))
        assert "7H" in moves(r, st) and "7C" not in moves(r, st)

    def test_a_set_plays_the_cards_it_names(self) -> None:
        r = R(suit_rule="rank")
        st = game(r, ["7C 7D 7H 3C", "4C", "5C", "6C"], rest_to=3)
        assert {"7C 7D", "7C 7H", "7D 7H", "7C", "7D", "7H", "7C 7D 7H"} <= moves(r, st)
        st = go(r, st, (0, "7D 7H"))
        assert moved(r, st) == ["7D", "7H"] and on_top(r, st) == ["7D", "7H"] and "7C" in hand(r, st, 0)

    def test_a_set_names_the_suits_of_its_wild_cards(self) -> None:
        # section 8 fine point 10: with a suit rule, 7C + 9C and 7C + 9S are two actions (nines wild)
        r = R(suit_rule="rank", wild_ranks={"9"})
        assert r.names_wild_cards and action_table(r).names_wild
        st = game(r, ["7C 9C 9S 3C", "4C", "5C", "6C"], rest_to=3)
        assert {"7C +9C", "7C +9S", "7C +9C 9S", "+9C", "+9S", "+9C 9S"} <= moves(r, st)
        assert "7C +9D" not in moves(r, st)                       # no wild diamond held
        assert go(r, st, (0, "7C +9S")) is not None and moved(r, go(r, st, (0, "7C +9S"))) == ["7C", "9S"]
        assert moved(r, go(r, st, (0, "7C +9C"))) == ["7C", "9C"]

    def test_a_chosen_wild_card_beats_where_the_weakest_does_not(self) -> None:
        r = R(suit_rule="rank", wild_ranks={"9"})
        st = game(r, ["7D 7H 3C", "7C 9C 9S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7D 7H"))
        assert "7C +9S" in moves(r, st)                           # 9S: a spade beats the hearts on top
        assert "7C +9C" not in moves(r, st)                       # the weakest wild card, 9C: clubs only
        st = go(r, st, (1, "7C +9S"))
        assert on_top(r, st) == ["7C", "9S"] and "9C" in hand(r, st, 1)

    def test_two_wild_ranks_name_each_wild_card(self) -> None:
        # section 8 fine point 10: the player chooses the wild cards too; with fours and nines wild, 7C + 4S and
        # 7C + 9S are two actions (one id named the suit and played the lowest wild spade)
        r = R(suit_rule="rank", wild_ranks={"9", "4"})
        st = game(r, ["7C 9S 4S 3C", "5C", "6C", "8C"], rest_to=3)
        assert {"7C +4S 9S", "7C +4S", "7C +9S", "+4S", "+9S", "+4S 9S"} <= moves(r, st)
        assert moved(r, go(r, st, (0, "7C +4S"))) == ["4S", "7C"]
        assert moved(r, go(r, st, (0, "7C +9S"))) == ["7C", "9S"]
        words = {describe_action(r, _ids(r)[m]) for m in ("7C +4S", "7C +9S")}
        assert words == {"pair 7C + wild 4S", "pair 7C + wild 9S"}

    def test_two_wild_ranks_let_the_player_keep_the_card_it_may_finish_on(self) -> None:
        # the case: 3D and 2D both wild, twos forbidden to finish on: lead 2D, go out on 3D
        r = R(suit_rule="rank", rank_order="3 4 5 6 7 8 9 T J Q K A 2", wild_ranks={"3", "2"},
              forbidden_finish={"2"}, first_lead="dealer_left")
        st = game(r, ["3D 2D", "5C 6C", "7C 8C", "9C TC"], rest_to=3, dealer=3)
        assert {"+2D", "+3D", "+3D 2D"} <= moves(r, st)
        st = go(r, st, (0, "+2D"))
        assert moved(r, st) == ["2D"] and hand(r, st, 0) == ["3D"]
        st = go(r, st, (1, "pass"), (2, "pass"), (3, "pass"))
        st = go(r, st, (0, "+3D"))
        assert int(st.finish[0, 0]) == 0                         # first place: 3D is no forbidden finish
        st2 = go(r, game(r, ["3D 2D", "5C 6C", "7C 8C", "9C TC"], rest_to=3, dealer=3), (0, "+3D"))
        st2 = go(r, st2, (1, "pass"), (2, "pass"), (3, "pass"), (0, "+2D"))
        assert int(st2.finish[0, 0]) == 3                        # finishing on 2D takes the worst place

    def test_a_wild_give_back_names_its_card(self) -> None:
        r = R(suit_rule="rank", wild_ranks={"9", "4"})
        st = game(r, ["7C 3C 5D 4S", "5C", "6C", "9S 8C"], rest_to=3, start_ranks=[0, 1, 2, 3])
        assert int(st.phase[0]) == EXCHANGE and actor(st) == 0 and "9S" in hand(r, st, 0)   # the Scum's best
        gives = {m for m in moves(r, st) if m.startswith("+")}
        assert gives == {"+4S", "+9S"}
        words = {describe_action(r, _ids(r)[m], exchange=True) for m in gives}
        assert words == {"give back a wild 4S", "give back a wild 9S"}
        assert moved(r, go(r, st, (0, "+9S"))) == ["9S"]

    def test_two_decks_name_each_wild_suit_with_its_copies(self) -> None:
        r = R(suit_rule="rank", wild_ranks={"9"}, decks=2)
        st = game(r, ["7C 9S 9S 9C 4C", "7D 7H 3C", "5C", "6C"], rest_to=3)
        assert {"7C +9S", "7C +9C", "7C +9S 9S", "7C +9C 9S", "+9S 9S", "+9C 9S 9S"} <= moves(r, st)
        assert moved(r, go(r, st, (0, "7C +9S 9S"))) == ["7C", "9S", "9S"]
        st = go(r, st, (0, "7C +9C"))
        assert "7D 7H" in moves(r, st)                         # hearts beat the wild club
        st = go(r, game(r, ["7C 9S 9S 9C 4C", "7D 7H 3C", "5C", "6C"], rest_to=3), (0, "7C +9S"))
        assert "7D 7H" not in moves(r, st)                     # not the wild spade

    def test_a_wild_card_is_given_back_by_its_suit(self) -> None:
        r = R(suit_rule="colour", wild_ranks={"9"})
        st = game(r, ["7C 3C 4D", "5C", "6C", "9S 9D 8C"], rest_to=3, start_ranks=[0, 1, 2, 3])
        assert int(st.phase[0]) == EXCHANGE and actor(st) == 0 and "9S" in hand(r, st, 0)   # the best card came
        assert moves(r, st) == {"7C", "3C", "4D", "+9S"}
        st = go(r, st, (0, "+9S"))
        assert moved(r, st) == ["9S"] and "9S" in hand(r, st, 3)

    def test_sets_of_one_rank_compare_by_their_strongest_suit(self) -> None:
        r = R(suit_rule="rank")
        st = game(r, ["7C 7H 3C", "7D 7S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7C 7H"))
        assert "7D 7S" in moves(r, st)                           # S beats H
        st = game(r, ["7C 7S 3C", "7D 7H 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7C 7S"))
        assert "7D 7H" not in moves(r, st)                       # both above 7C, but H is below S

    @pytest.mark.parametrize("equal", [False, True])
    def test_a_tie_on_the_strongest_suit_falls_back_to_equal_rank_beats(self, equal) -> None:
        r = R(suit_rule="rank", decks=2, equal_rank_beats=equal)
        # 7C 7S and 7H 7S: the strongest cards tie (S), the second cards do not count
        st = game(r, ["7C 7S 3C", "7H 7S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7C 7S"))
        assert ("7H 7S" in moves(r, st)) == equal
        st = game(r, ["7H 3C", "7H 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7H"))
        assert ("7H" in moves(r, st)) == equal

    @pytest.mark.parametrize("tie, natural_beats, wild_beats", [
        ("equal", False, False), ("natural_higher", True, False), ("wild_higher", False, True)])
    def test_then_wild_tie_decides(self, tie, natural_beats, wild_beats) -> None:
        r = R(suit_rule="rank", decks=2, jokers=1, joker_mode="wild", wild_ranks={"JK"}, wild_tie=tie)
        st = game(r, ["7S JK 3C", "7C 7S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7S +1"))
        assert bool(st.top_wild[0])
        assert ("7C 7S" in moves(r, st)) == natural_beats        # both strongest S: a tie
        st = game(r, ["7C 7S 3C", "7S JK 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7C 7S"))
        assert ("7S +1" in moves(r, st)) == wild_beats

    def test_the_suit_decides_before_wild_tie(self) -> None:
        r = R(suit_rule="rank", jokers=1, joker_mode="wild", wild_ranks={"JK"}, wild_tie="natural_higher")
        st = game(r, ["7H JK 3C", "7C 7D 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7H +1"))
        assert "7C 7D" not in moves(r, st)                       # natural, but D is below H
        st = game(r, ["7D JK 3C", "7C 7H 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7D +1"))
        assert "7C 7H" in moves(r, st)

    def test_wild_cards_keep_their_printed_suit(self) -> None:
        r = R(suit_rule="rank", wild_ranks={"9"})
        st = game(r, ["7D 7H 3C", "7C 9S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7D 7H"))
        assert "7C +9S" in moves(r, st)                           # 9S stands in: its spade is the strongest suit
        st = go(r, st, (1, "7C +9S"))
        assert sorted(moved(r, st)) == ["7C", "9S"]
        st = game(r, ["7D 7H 3C", "7C 9C 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "7D 7H"))
        assert "7C +9C" not in moves(r, st)                       # 7C and 9C: clubs only

    def test_all_wild_sets_stay_equal(self) -> None:
        r = R(suit_rule="rank", wild_ranks={"9"})
        st = game(r, ["9C 3C", "9S 4C", "5C", "6C"], rest_to=3)
        st = go(r, st, (0, "+9C"))
        assert moved(r, st) == ["9C"]
        assert "+9S" not in moves(r, st)                          # 9S alone is an all-wild single: equal
        r = R(suit_rule="rank", wild_ranks={"9"}, equal_rank_beats=True)
        st = go(r, game(r, ["9C 3C", "9S 4C", "5C", "6C"], rest_to=3), (0, "+9C"))
        assert "+9S" in moves(r, st)

    def test_a_higher_rank_still_beats_whatever_its_suit(self) -> None:
        r = R(suit_rule="rank")
        st = go(r, game(r, ["7S 3C", "8C 4C", "5C", "6C"], rest_to=3), (0, "7S"))
        assert "8C" in moves(r, st)

    def test_a_revolution_reverses_the_suit_order(self) -> None:
        r = R(suit_rule="rank", four_of_a_kind="revolution")
        hands = ["9C 9D 9H 9S 5D 5H 3C", "5C 5S 4C", "6C 6D", "8C 8D"]
        st = game(r, hands, rest_to=3)
        st = go(r, st, (0, "9C 9D 9H 9S"), (1, "pass"), (2, "pass"), (3, "pass"))
        assert bool(st.revolution[0]) and top(r, st) is None
        st = go(r, st, (0, "5D 5H"))
        assert "5C 5S" in moves(r, st)                           # the set holding the club is lower: it beats
        hands = ["9C 9D 9H 9S 5C 5S 3C", "5D 5H 4C", "6C 6D", "8C 8D"]
        st = game(r, hands, rest_to=3)
        st = go(r, st, (0, "9C 9D 9H 9S"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "5C 5S"))
        assert "5D 5H" not in moves(r, st)
        hands = ["9C 9D 9H 9S 5H 3C", "5D 5S 4C", "6C 6D", "8C 8D"]
        st = game(r, hands, rest_to=3)
        st = go(r, st, (0, "9C 9D 9H 9S"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "5H"))
        assert "5D" in moves(r, st) and "5S" not in moves(r, st)


# =========================================================================== suit_rule follow
class TestFollowSuit:
    def test_a_natural_single_is_beaten_only_by_a_higher_single_of_its_suit(self) -> None:
        r = R(suit_rule="follow", size_rule="at_least")
        st = game(r, ["5H 3C", "4H 6H 6C 7C 7D 8H 8D", "3D", "3H"], rest_to=3)
        st = go(r, st, (0, "5H"))
        assert moves(r, st) == {"pass", "6H", "8H"}              # not 4H (lower), 6C, 7C, 7D, nor any pair
        st = go(r, st, (1, "6H"))
        assert on_top(r, st) == ["6H"]
        base = R(size_rule="at_least")                            # the same hands without the rule
        st0 = play(base, game(base, ["5H 3C", "4H 6H 6C 7C 7D 8H 8D", "3D", "3H"], rest_to=3), (0, "5"))
        assert {"6", "7", "7x2", "8x2"} <= legal_moves(base, st0)

    @pytest.mark.parametrize("options, single", [
        ({"jokers": 1}, "JK"),                                   # a joker of joker_mode high
        ({"jokers": 1, "joker_mode": "wild", "wild_ranks": {"JK"}}, "+1"),
        ({"wild_ranks": {"9"}}, "+9C"),                           # a wild nine: its printed club binds nothing
    ])
    def test_a_joker_or_wild_single_follows_any_suit(self, options, single) -> None:
        r = R(suit_rule="follow", **options)
        wild = "JK" if "jokers" in options else "9C"
        st = go(r, game(r, ["5H 3C", f"{wild} 6C", "4C", "3D"], rest_to=3), (0, "5H"))
        assert single in moves(r, st) and "6C" not in moves(r, st)

    @pytest.mark.parametrize("options, hand1, beat, clears", [
        ({"trump_ranks": {"9"}}, "9C 9D 4C", "9C", True),
        ({"trump_ranks": {"9"}}, "9C 9D 4C", "9C 9D", True),
        ({"four_of_a_kind": "bomb"}, "8C 8D 8H 8S 4C", "8C 8D 8H 8S", True),
        ({"reset_ranks": {"3"}}, "3D 4C", "3D", False),
    ])
    def test_trump_bomb_and_reset_still_beat_a_bound_single(self, options, hand1, beat, clears) -> None:
        r = R(suit_rule="follow", **options)
        st = go(r, game(r, ["5H 3C", hand1, "6C", "7C"], rest_to=3), (0, "5H"))
        assert beat in moves(r, st)
        st = go(r, st, (1, beat))
        assert top(r, st) is None and actor(st) == (1 if clears else 2)

    def test_under_a_revolution_the_higher_single_is_the_lower_rank(self) -> None:
        r = R(suit_rule="follow", four_of_a_kind="revolution")
        st = game(r, ["9C 9D 9H 9S 5H 3C", "4H 6H 4C", "8C 8D", "8H 8S"], rest_to=3)
        st = go(r, st, (0, "9C 9D 9H 9S"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "5H"))
        assert "4H" in moves(r, st) and "6H" not in moves(r, st) and "4C" not in moves(r, st)

    def test_led_pairs_are_not_bound(self) -> None:
        r = R(suit_rule="follow")
        st = go(r, game(r, ["5C 5H 3C", "6D 6S 4C", "7C", "8C"], rest_to=3), (0, "5C 5H"))
        assert "6D 6S" in moves(r, st)                          # neither card is a heart or a club
        st = go(r, st, (1, "6D 6S"))
        assert on_top(r, st) == ["6D", "6S"]

    def test_equal_plays_are_bound_too(self) -> None:
        r = R(suit_rule="follow", decks=2, equal_rank_beats=True)
        st = go(r, game(r, ["5H 3C", "5C 5H 4C", "6C", "7C"], rest_to=3), (0, "5H"))
        assert "5H" in moves(r, st) and "5C" not in moves(r, st)

    @pytest.mark.parametrize("options, lead", [
        ({"jokers": 1}, "JK"),
        ({"jokers": 1, "joker_mode": "wild", "wild_ranks": {"JK"}}, "+1"),
    ])
    def test_a_joker_or_wild_single_on_top_binds_nothing(self, options, lead) -> None:
        r = R(suit_rule="follow", transparent_rank="3", **options)
        st = go(r, game(r, ["JK 4C", "3C 3D 5C", "3H 3S 6C", "7C"], rest_to=3), (0, lead))
        assert {"3C", "3D"} <= moves(r, st)                      # transparent singles of any suit
        st = go(r, st, (1, "3D"))
        # the transparent 3D is a natural single on top: it binds to diamonds, and P2 has none
        assert "3H" not in moves(r, st) and "3S" not in moves(r, st)
        base = R(transparent_rank="3", **options)
        st0 = play(base, game(base, ["JK 4C", "3C 3D 5C", "3H 3S 6C", "7C"], rest_to=3),
                   (0, "JK" if lead == "JK" else "WILD"), (1, "3"))
        assert "3" in legal_moves(base, st0)                     # without follow, a transparent three beats it

    def test_a_complete_set_is_not_bound(self) -> None:
        r = R(suit_rule="follow", complete_set_clears=True)
        st = go(r, game(r, ["5H 3C", "5C 5D 5S 4C", "6C", "7C"], rest_to=3), (0, "5H"))
        assert "5C 5D 5S" in moves(r, st)
        st = go(r, st, (1, "5C 5D 5S"))
        assert top(r, st) is None and actor(st) == 1


# =========================================================================== suit_rule colour
class TestReversingColour:
    def test_reversed_colours_beat_the_same_rank(self) -> None:
        r = R(suit_rule="colour")
        st = go(r, game(r, ["7C 3C", "7D 7S 4C", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "7D" in moves(r, st) and "7S" not in moves(r, st)   # red on black: yes; black on black: no
        st = go(r, game(r, ["7C 3C", "7D 4C", "7H 7S 5C", "6C"], rest_to=3), (0, "7C"), (1, "7D"))
        assert "7S" in moves(r, st) and "7H" not in moves(r, st)   # the top is now the red 7D
        st = go(r, st, (2, "7S"))
        assert on_top(r, st) == ["7S"] and top(r, st) == "7"
        st = go(r, game(r, ["7C 7S 3C", "7D 7H 4C", "5C", "6C"], rest_to=3), (0, "7C 7S"))
        assert "7D 7H" in moves(r, st)                          # red-red on black-black
        st = go(r, game(r, ["7C 7D 3C", "7H 7S 4C", "5C", "6C"], rest_to=3), (0, "7C 7D"))
        assert "7H 7S" in moves(r, st)                          # one of each on one of each
        st = go(r, game(r, ["7C 7H 3C", "7D 7S 8C 8D", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "8C" in moves(r, st) and "8D" in moves(r, st)     # a higher rank beats whatever its colours

    def test_an_equal_play_without_reversal_is_refused_even_with_equal_rank_beats(self) -> None:
        r = R(suit_rule="colour", equal_rank_beats=True)
        st = go(r, game(r, ["7C 3C", "7S 4C", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "7S" not in moves(r, st)
        r = R(suit_rule="colour", equal_rank_beats=True, decks=2)
        st = go(r, game(r, ["7C 7S 3C", "7C 7D 7H 4C", "5C", "6C"], rest_to=3), (0, "7C 7S"))
        assert "7D 7H" in moves(r, st)                           # red-red on black-black
        assert "7C 7D" not in moves(r, st) and "7C 7H" not in moves(r, st)   # one of each: nothing reversed
        base = R(equal_rank_beats=True)
        st0 = play(base, game(base, ["7C 3C", "7S 4C", "5C", "6C"], rest_to=3), (0, "7"))
        assert "7" in legal_moves(base, st0)

    def test_wild_cards_and_jokers_cannot_reverse(self) -> None:
        r = R(suit_rule="colour", jokers=1, joker_mode="wild", wild_ranks={"JK"})
        st = go(r, game(r, ["7C 7S 3C", "7D JK 4C", "5C", "6C"], rest_to=3), (0, "7C 7S"))
        assert "7D +1" not in moves(r, st)
        r = R(suit_rule="colour", wild_ranks={"9"})               # a wild nine counts as no colour, printed red
        st = go(r, game(r, ["7C 7S 3C", "7D 9H 4C", "5C", "6C"], rest_to=3), (0, "7C 7S"))
        assert "7D +9H" not in moves(r, st)
        r = R(suit_rule="colour", jokers=2, equal_rank_beats=True)
        st = go(r, game(r, ["JK 3C", "JK 4C", "5C", "6C"], rest_to=3), (0, "JK"))
        assert "JK" not in moves(r, st)                          # jokers have no colour
        base = R(jokers=2, equal_rank_beats=True)
        st0 = play(base, game(base, ["JK 3C", "JK 4C", "5C", "6C"], rest_to=3), (0, "JK"))
        assert "JK" in legal_moves(base, st0)

    def test_colour_replaces_wild_tie_for_same_rank_plays(self) -> None:
        opts = {"jokers": 1, "joker_mode": "wild", "wild_ranks": {"JK"}, "wild_tie": "natural_higher"}
        r = R(suit_rule="colour", **opts)
        st = go(r, game(r, ["7C JK 3C", "7D 7H 4C", "5C", "6C"], rest_to=3), (0, "7C +1"))
        assert "7D 7H" not in moves(r, st)
        base = R(**opts)
        st0 = play(base, game(base, ["7C JK 3C", "7D 7H 4C", "5C", "6C"], rest_to=3), (0, "7x2"))
        assert "7x2" in legal_moves(base, st0)                   # natural_higher alone would allow it

    def test_a_complete_set_is_allowed_anyway(self) -> None:
        r = R(suit_rule="colour", complete_set_clears=True)
        st = go(r, game(r, ["7C 3C", "7D 7H 7S 4C", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "7D 7H 7S" in moves(r, st)                        # not a reversal, not the size: a complete set
        assert "7S" not in moves(r, st)
        st = go(r, st, (1, "7D 7H 7S"))
        assert top(r, st) is None and actor(st) == 1

    def test_a_bigger_set_beats_by_its_size_under_bigger_beats_any(self) -> None:
        r = R(suit_rule="colour", size_rule="bigger_beats_any")
        st = go(r, game(r, ["7C 3C", "7H 7S 4C", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "7H 7S" in moves(r, st)                          # bigger: colours do not matter
        assert "7H" in moves(r, st) and "7S" not in moves(r, st)  # the same size still has to reverse
        r = R(suit_rule="colour", size_rule="at_least", equal_rank_beats=True)
        st = go(r, game(r, ["7C 3C", "7H 7S 4C", "5C", "6C"], rest_to=3), (0, "7C"))
        assert "7H 7S" not in moves(r, st)                       # at_least: a bigger set of the rank must reverse
        assert "7H" in moves(r, st)


    def test_a_reversing_play_is_an_equal_play_that_skips(self) -> None:
        r = R(suit_rule="colour", equal_rank_beats=True, equal_play_skips=True)
        st = go(r, game(r, ["7C 3C", "7D 4C", "5C", "6C"], rest_to=3), (0, "7C"), (1, "7D"))
        assert actor(st) == 3                                    # 7D on 7C: same rank, player 2 is skipped

    def test_a_quick_clear_claim_names_the_remaining_cards(self) -> None:
        r = R(suit_rule="colour", quick_clear=True)
        st = go(r, game(r, ["7C 7D 3C", "4C", "7H 7S 5C", "6C"], rest_to=3), (0, "7C 7D"))
        assert int(st.claim_rank[0]) >= 0 and actor(st) == 2
        assert moves(r, st) == {"pass", "7H 7S"}
        st = go(r, st, (2, "7H 7S"))
        assert moved(r, st) == ["7H", "7S"] and top(r, st) is None and actor(st) == 2


# =========================================================================== runs
def _run_ranks(cards: tuple[str, ...]) -> list[str]:
    return [c[0] for c in cards]


class TestRuns:
    def test_the_table_has_runs_from_the_length_up(self) -> None:
        r = R(runs=3)
        at = action_table(r)
        lengths = sorted({int(x) for x in at.run if x})
        assert lengths == [3, 4, 5, 6, 7]
        for i in np.flatnonzero(at.run):
            cards = at.cards[i]
            assert len({c[1] for c in cards}) == 1 and len(cards) == at.run[i] == at.size[i]
        assert aid(r, "run 3S 4S 5S") and aid(r, "run 3C 4C 5C 6C 7C 8C 9C")
        with pytest.raises(KeyError):
            aid(r, "run 5S 6S")

    def test_a_run_is_led_and_lies_on_top(self) -> None:
        r = R(runs=3)
        st = game(r, ["4S 5S 6S 7S 9H", "3C", "3D", "3H"], rest_to=3)
        assert {"run 4S 5S 6S", "run 5S 6S 7S", "run 4S 5S 6S 7S"} <= moves(r, st)
        assert "run 6S 7S 8S" not in moves(r, st) and "run 3S 4S 5S" not in moves(r, st)
        st = go(r, st, (0, "run 5S 6S 7S"))
        assert moved(r, st) == ["5S", "6S", "7S"] and on_top(r, st) == ["5S", "6S", "7S"]
        assert int(st.top_run[0]) == 3 and top(r, st) == "7x3"   # on top as its highest card
        assert "4S" in hand(r, st, 0) and "5S" not in hand(r, st, 0)

    def test_a_run_is_beaten_only_by_a_higher_run_of_its_length(self) -> None:
        r = R(runs=3)
        st = game(r, ["5S 6S 7S 3C", "5H 6H 7H 8H 9H 9C 9D 9S", "4D 5D 6D", "3D"], rest_to=3)
        st = go(r, st, (0, "run 5S 6S 7S"))
        # not the equal run 5H-7H, not a run of four or five, not the three nines
        assert moves(r, st) == {"pass", "run 6H 7H 8H", "run 7H 8H 9H"}
        st = go(r, st, (1, "pass"))
        assert moves(r, st) == {"pass"}                          # 4D-6D is lower

    def test_under_a_revolution_the_lower_run_wins(self) -> None:
        r = R(runs=3, four_of_a_kind="revolution")
        st = game(r, ["9C 9D 9H 9S 5S 6S 7S", "4H 5H 6H 7H 8H", "3C 4C", "3D 4D"], rest_to=3)
        st = go(r, st, (0, "9C 9D 9H 9S"), (1, "pass"), (2, "pass"), (3, "pass"))
        assert bool(st.revolution[0])
        st = go(r, st, (0, "run 5S 6S 7S"))
        assert top(r, st) == "5x3"                               # on top as its highest card now: the five
        assert moves(r, st) == {"pass", "run 4H 5H 6H"}

    def test_wild_cards_fill_gaps_anywhere(self) -> None:
        r = R(runs=3, **WILD_JOKERS)
        st = game(r, ["5S 7S JK", "3C", "3D", "3H"], rest_to=3)
        runs = {m for m in moves(r, st) if m.startswith("run")}
        assert "run 5S 6S 7S" in runs                            # the joker stands for 6S
        st = go(r, st, (0, "run 5S 6S 7S"))
        assert moved(r, st) == ["5S", "7S", "JK"] and top(r, st) == "7x3"
        st = game(r, ["5S 6S JK", "3C", "3D", "3H"], rest_to=3)
        runs = {m for m in moves(r, st) if m.startswith("run")}
        assert {"run 4S 5S 6S", "run 5S 6S 7S"} <= runs          # at either end
        assert "run 3S 4S 5S" not in runs                        # two missing, one joker
        st = go(r, st, (0, "run 4S 5S 6S"))
        assert moved(r, st) == ["5S", "6S", "JK"] and top(r, st) == "6x3"

    def test_a_run_needs_a_natural_card_and_takes_the_named_ones_held(self) -> None:
        r = R(runs=3, **WILD_JOKERS)
        st = game(r, ["6S JK JK 3C", "4C", "4D", "4H"], rest_to=3)
        runs = {m for m in moves(r, st) if m.startswith("run")}
        # two jokers and one natural card: every window of three around 6S or 3C; never 7S-9S, 7D-9D ...
        assert runs == {"run 4S 5S 6S", "run 5S 6S 7S", "run 6S 7S 8S", "run 3C 4C 5C"}
        st = game(r, ["5S 6S 7S JK", "3C", "3D", "3H"], rest_to=3)
        st = go(r, st, (0, "run 5S 6S 7S"))
        assert moved(r, st) == ["5S", "6S", "7S"] and "JK" in hand(r, st, 0)
        r = R(runs=3, jokers=2, joker_mode="wild", wild_ranks={"JK", "9"})   # three wild cards: enough for a run
        st = game(r, ["9C JK JK 6S", "3C", "3D", "3H"], rest_to=3)
        runs = {m for m in moves(r, st) if m.startswith("run")}
        assert runs == {"run 4S 5S 6S", "run 5S 6S 7S", "run 6S 7S 8S",
                        "run 3S 4S 5S 6S", "run 4S 5S 6S 7S", "run 5S 6S 7S 8S"}   # never three wild cards alone

    def test_never_through_a_wild_rank(self) -> None:
        r = R(runs=3, wild_ranks={"6"})
        at = action_table(r)
        for i in np.flatnonzero(at.run):
            ranks = _run_ranks(at.cards[i])
            assert "6" not in ranks and not {"5", "7"} <= set(ranks), at.words(i)
        st = game(r, ["3S 4S 6D", "3C", "3D", "3H"], rest_to=3)
        assert "run 3S 4S 5S" in moves(r, st)                    # the wild six stands for 5S
        st = go(r, st, (0, "run 3S 4S 5S"))
        assert moved(r, st) == ["3S", "4S", "6D"]
        st = game(r, ["5S 7S 6D", "3C", "3D", "3H"], rest_to=3)
        assert not any(m.startswith("run") for m in moves(r, st))

    def test_no_wrap_and_the_top_rank_may_end_a_run(self) -> None:
        r = R(runs=3, rank_order=FULL)
        at = action_table(r)
        order = list(r.rank_order)
        for i in np.flatnonzero(at.run):
            pos = [order.index(x) for x in _run_ranks(at.cards[i])]
            assert pos == list(range(pos[0], pos[0] + len(pos))), at.words(i)   # consecutive, never 2 then 3
        assert "run AS 2S 3S" not in _ids(r) and "run 2S 3S 4S" not in _ids(r)
        st = game(r, ["KS AS 2S 3S 4H", "3C", "3D", "3H"], rest_to=3)
        assert {m for m in moves(r, st) if m.startswith("run")} == {"run KS AS 2S"}
        st = go(r, st, (0, "run KS AS 2S"))
        assert top(r, st) == "2x3"

    def test_sets_never_beat_runs_nor_runs_sets(self) -> None:
        r = R(runs=3, size_rule="at_least")
        st = go(r, game(r, ["5S 6S 7S 3C", "8C 8D 8H 9C 9D 9H", "4C", "4D"], rest_to=3),
                (0, "run 5S 6S 7S"))
        assert moves(r, st) == {"pass"}
        st = go(r, game(r, ["4C 4D 4H 3C", "5H 6H 7H 8H", "3D", "3H"], rest_to=3), (0, "4C 4D 4H"))
        assert moves(r, st) == {"pass"}

    @pytest.mark.parametrize("options, hand1, beat, leads", [
        ({"trump_ranks": {"9"}}, "9C 9D 4C", "9C", 1),
        ({"trump_ranks": {"9"}}, "9C 9D 4C", "9C 9D", 1),
        ({"four_of_a_kind": "bomb"}, "4C 4D 4H 4S 3D", "4C 4D 4H 4S", 1),
        ({"reset_ranks": {"3"}}, "3D 4C", "3D", 2),
    ])
    def test_trump_bomb_and_reset_beat_a_run(self, options, hand1, beat, leads) -> None:
        r = R(runs=3, **options)
        st = go(r, game(r, ["5S 6S 7S 3C", hand1, "8C", "8D"], rest_to=3), (0, "run 5S 6S 7S"))
        assert beat in moves(r, st)
        st = go(r, st, (1, beat))
        assert top(r, st) is None and actor(st) == leads and int(st.top_run[0]) == 0

    def test_a_trump_compares_with_the_runs_highest_card(self) -> None:
        r = R(runs=3, trump_ranks={"8"})
        st = go(r, game(r, ["5S 6S 7S 3C", "8C 4C", "4D", "4H"], rest_to=3), (0, "run 5S 6S 7S"))
        assert "8C" in moves(r, st)
        st = go(r, game(r, ["7S 8S 9S 3C", "8C 4C", "4D", "4H"], rest_to=3), (0, "run 7S 8S 9S"))
        assert "8C" not in moves(r, st)                          # the run's nine is above the trump eight

    def test_a_power_play_beats_a_run_as_a_set_of_its_size(self) -> None:
        r = R(runs=3, rank_order=FULL, power_ranks={"A": (3,)})  # one ace beats a set of 2 or 3 below aces
        st = go(r, game(r, ["5S 6S 7S 3C", "AC 4C", "4D", "4H"], rest_to=3), (0, "run 5S 6S 7S"))
        assert "AC" in moves(r, st)
        st = go(r, st, (1, "AC"))
        assert top(r, st) == "A" and actor(st) == 2              # a power play does not end the trick
        st = go(r, game(r, ["5S 6S 7S 8S 3C", "AC 4C", "4D", "4H"], rest_to=3), (0, "run 5S 6S 7S 8S"))
        assert "AC" not in moves(r, st)                          # four cards: more than the list allows
        st = go(r, game(r, ["QS KS AS 3C", "AC 4C", "4D", "4H"], rest_to=3), (0, "run QS KS AS"))
        assert "AC" not in moves(r, st)                          # its highest card is not below the aces

    @pytest.mark.parametrize("hand0, run, cuts", [
        ("7S 8S 9S 3C", "run 7S 8S 9S", True),                   # neither its lowest nor its highest is the 8
        ("6S 7S 8S 3C", "run 6S 7S 8S", True),
        ("7S JK 9S 3C", "run 7S 8S 9S", False),                  # a wild joker standing for 8 does not cut
        ("4S 5S 6S 3C", "run 4S 5S 6S", False),
    ])
    def test_eight_cut_needs_a_natural_eight_in_the_run(self, hand0, run, cuts) -> None:
        r = R(runs=3, eight_cut=True, **WILD_JOKERS)
        st = go(r, game(r, [hand0, "4C", "4D", "4H"], rest_to=3), (0, run))
        if cuts:
            assert top(r, st) is None and actor(st) == 0
        else:
            assert top(r, st) is not None and actor(st) == 1

    @pytest.mark.parametrize("hand0, run, forbidden, place", [
        ("7S 8S 9S", "run 7S 8S 9S", {"8"}, 3),
        ("4S 5S 6S", "run 4S 5S 6S", {"8"}, 0),
        ("4S JK 6S", "run 4S 5S 6S", {"JK"}, 3),                 # the joker standing for 5S counts as JK
    ])
    def test_forbidden_finish_looks_at_every_card_of_a_run(self, hand0, run, forbidden, place) -> None:
        r = R(runs=3, forbidden_finish=forbidden, **WILD_JOKERS)
        st = go(r, game(r, [hand0, "4C 4D", "5C 5D", "6C 6D"], rest_to=3), (0, run))
        assert int(st.finish[0, seat_of(st, 0)]) == place

    def test_a_run_of_four_is_not_a_revolution(self) -> None:
        r = R(runs=3, four_of_a_kind="revolution")
        st = go(r, game(r, ["4S 5S 6S 7S 3C", "5H 6H 7H 8H", "3D", "3H"], rest_to=3),
                (0, "run 4S 5S 6S 7S"))
        assert not bool(st.revolution[0])
        assert "run 5H 6H 7H 8H" in moves(r, st)                 # the normal order: the higher run beats

    def test_a_run_of_four_is_not_a_bomb(self) -> None:
        r = R(runs=3, four_of_a_kind="bomb")
        st = go(r, game(r, ["4S 5S 6S 7S 3C", "5H 6H 7H 8H", "3D", "3H"], rest_to=3),
                (0, "run 4S 5S 6S 7S"))
        assert top(r, st) == "7x4" and actor(st) == 1            # the trick goes on
        st = go(r, game(r, ["3C 3D 9C", "4S 5S 6S 7S", "9D", "9H"], rest_to=3), (0, "3C 3D"))
        assert "run 4S 5S 6S 7S" not in moves(r, st)

    def test_the_first_lead_holds_the_lowest_card_a_run_may(self) -> None:
        r = R(runs=3, first_lead="lowest_card")
        st = game(r, ["3C 4C 5C 6C 9H", "3D 4D 5D", "3H", "3S"], rest_to=3, dealer=3)
        assert actor(st) == 0
        assert moves(r, st) == {"3C", "run 3C 4C 5C", "run 3C 4C 5C 6C"}
        st = go(r, st, (0, "run 3C 4C 5C"))
        assert moved(r, st) == ["3C", "4C", "5C"]

    def test_a_first_lead_set_holds_the_lowest_card_itself(self) -> None:
        r = R(suit_rule="rank", first_lead="lowest_card")
        st = game(r, ["3C 3D 3H 9H", "4C", "4D", "4H"], rest_to=3, dealer=3)
        assert actor(st) == 0
        assert moves(r, st) == {"3C", "3C 3D", "3C 3H", "3C 3D 3H"}   # not 3D, 3H nor 3D 3H
        st = go(r, st, (0, "3C 3H"))
        assert moved(r, st) == ["3C", "3H"]

    def test_transparent_sets_complete_sets_and_quick_clears_do_not_apply_to_runs(self) -> None:
        r = R(runs=3, transparent_rank="3")
        st = go(r, game(r, ["7S 8S 9S 4C", "3C 3D 3H 3S 4H 5H", "6C", "6D"], rest_to=3),
                (0, "run 7S 8S 9S"))
        assert moves(r, st) == {"pass"}                          # neither three threes nor the run 3H-5H
        r = R(runs=3, complete_set_clears=True)
        st = go(r, game(r, ["5S 6S 7S 3C", "7C 7D 7H", "4C", "4D"], rest_to=3), (0, "run 5S 6S 7S"))
        assert moves(r, st) == {"pass"}
        r = R(runs=3, quick_clear=True)
        st = go(r, game(r, ["5S 6S 7S 3C", "4C", "7C 7D 7H", "4D"], rest_to=3), (0, "run 5S 6S 7S"))
        assert int(st.claim_rank[0]) == -1 and actor(st) == 1
        st = go(r, game(r, ["7S 3C", "4C", "7C 7D 7H", "4D"], rest_to=3), (0, "7S"))
        assert int(st.claim_rank[0]) >= 0 and actor(st) == 2    # a single seven would be claimed

    @pytest.mark.parametrize("options, hand0, run", [
        ({}, "4C 5C 6C 7C 3C", "run 4C 5C 6C 7C"),                                 # four natural cards
        ({"rank_order": FULL, "wild_ranks": {"2", "3"}, "first_lead": "dealer"},   # the case: 4C-9C, 2S wild
         "4C 5C 6C 8C 9C 2S TD", "run 4C 5C 6C 7C 8C 9C"),
    ])
    def test_a_long_run_does_not_clear_as_a_complete_set(self, options, hand0, run) -> None:
        # section 8 fine point 6: complete sets do not apply to runs, however many cards the run has
        r = R(runs=4, complete_set_clears=True, **options)
        hands = [hand0, "3D 8D", "3H 8H", "3S 8S"] if not options else [hand0, "4D 5D", "4H 5H", "4S 5S"]
        st = go(r, game(r, hands, rest_to=3), (0, run))
        assert top(r, st) is not None and int(st.top_count[0]) == 0   # the run stays on top, counting no rank
        assert actor(st) == 1                                          # the next player acts; nobody leads again
        assert "pass" in moves(r, st)

    def test_two_decks_take_each_rank_once(self) -> None:
        r = R(runs=3, decks=2)
        st = go(r, game(r, ["5S 5S 6S 7S 3C", "4C", "4D", "4H"], rest_to=3), (0, "run 5S 6S 7S"))
        assert moved(r, st) == ["5S", "6S", "7S"] and hand(r, st, 0).count("5S") == 1

    def test_plain_jokers_are_never_run_cards(self) -> None:
        r = R(runs=3, jokers=1)
        assert not any("JK" in action_table(r).cards[i] for i in np.flatnonzero(action_table(r).run))
        st = game(r, ["4S JK 6S", "3C", "3D", "3H"], rest_to=3)
        assert not any(m.startswith("run") for m in moves(r, st))

    def test_high_cards_are_never_run_cards(self) -> None:
        r = R(runs=3, high_cards="5S")
        st = game(r, ["4S 5S 6S 3C", "4C", "4D", "4H"], rest_to=3)
        assert "run 4S 5S 6S" not in moves(r, st)                # 5S is no natural five
        r = R(runs=3, high_cards="5S", jokers=1, joker_mode="wild", wild_ranks={"JK"})
        st = game(r, ["4S 5S 6S JK 3C", "4C", "4D", "4H"], rest_to=3)
        assert "run 4S 6S (3)" in moves(r, st)     # the window 4S-6S: the joker stands for the five
        assert not any("5S" in m and m.startswith("run") for m in moves(r, st))
        st = go(r, st, (0, "run 4S 6S (3)"))
        assert moved(r, st) == ["4S", "6S", "JK"] and "5S" in hand(r, st, 0)


# =========================================================================== validation
@pytest.mark.parametrize("options, field", [
    ({"runs": 2}, "runs"),
    ({"runs": 1}, "runs"),
    ({"runs": -3}, "runs"),
    ({"runs": True}, "runs"),
    ({"runs": 8, "rank_order": "3 4 5 6 7 8 9"}, "runs"),        # only seven natural ranks
    ({"runs": 7, "rank_order": "3 4 5 6 7 8 9", "wild_ranks": {"9"}}, "runs"),   # six of them not wild
    ({"suit_rule": "x"}, "suit_rule"),
    ({"suit_rule": "suit"}, "suit_rule"),
])
def test_bad_values_are_refused_naming_the_option(options, field) -> None:
    with pytest.raises(RulesError, match=field):
        Rules(**options)


def test_the_longest_runs_are_accepted() -> None:
    assert Rules(runs=7, rank_order="3 4 5 6 7 8 9").runs == 7
    assert Rules(runs=13).card_level and Rules(suit_rule="colour").card_level
    assert not Rules().card_level


# =========================================================================== exchange
class TestGiveBacksNameACard:
    def test_the_give_back_gives_exactly_the_card_named(self) -> None:
        r = R(suit_rule="rank")
        st = game(r, ["7C 7H 3C 4D", "5C", "6C", "9S 3D"], rest_to=3, start_ranks=[0, 1, 2, 3])
        assert int(st.phase[0]) == EXCHANGE and actor(st) == 0 and "9S" in hand(r, st, 0)
        held = hand(r, st, 0)
        assert moves(r, st) == set(held)                         # one action per card held, nothing else
        st = go(r, st, (0, "7H"))
        assert moved(r, st) == ["7H"]
        assert "7H" in hand(r, st, 3) and "7C" in hand(r, st, 0) and "7H" not in hand(r, st, 0)
        assert int(st.phase[0]) == PLAY

    def test_a_wild_card_is_given_back_as_the_wild_single(self) -> None:
        r = R(runs=3, **WILD_JOKERS)
        st = game(r, ["7C 3C 4D", "5C", "6C", "9S JK JK"], rest_to=3, start_ranks=[0, 1, 2, 3])
        assert "JK" in hand(r, st, 0) and "+1" in moves(r, st)
        st = go(r, st, (0, "+1"))
        assert moved(r, st) == ["JK"] and hand(r, st, 0).count("JK") == 0

    def test_merchant_trades_name_a_card(self) -> None:
        r = Rules(players=6, merchant_trade=True, suit_rule="colour", hands_per_session=1, first_lead="dealer",
                  exchange=(1,))
        assert r.merchant_pairs == ((1, 2), (3, 4))
        hands = ["3C 3D 3H 3S", "7C 7D 4C 4D", "8C 8H 4H 4S", "9C 9D 5C 5D", "6C 6H 5H 5S", "9H 9S 6D 6S"]
        st = game(r, hands, rest_to=0, start_ranks=[0, 1, 2, 3, 4, 5])
        st = go(r, st, (0, "3C"))                                # the President's give-back
        picks = {1: "7D", 2: "8H", 3: "9D", 4: "6H"}
        while int(st.phase[0]) == EXCHANGE:
            p = actor(st)
            assert moves(r, st) == set(hand(r, st, p)), p       # any one card held, by name
            st = go(r, st, (p, picks.pop(p)))
        assert picks == {}
        assert "8H" in hand(r, st, 1) and "7D" in hand(r, st, 2) and "7C" in hand(r, st, 1)
        assert "6H" in hand(r, st, 3) and "9D" in hand(r, st, 4) and "9C" in hand(r, st, 3)


# =========================================================================== records
def _cards_match(rules: Rules, rec: dict) -> None:
    """Each decision moved the cards its action names, plus its wild cards; a give-back the card it names."""
    at, t = action_table(rules), tables(rules)
    wild_names = {n for n, w in zip(t.card_names, t.card_wild, strict=True) if w}
    n_back = sum(b for _, b in rules.exchange_pairs) if rec["prev_ranks"] is not None else 0
    for i, d in enumerate(rec["decisions"]):
        a, cards = d["action"], Counter(d["cards"])
        named = Counter(at.cards[a])
        if i < n_back:
            assert sum(cards.values()) == 1, (i, d)
            assert cards == named or (not named and set(cards) <= wild_names), (i, d)
            continue
        assert sum(cards.values()) == int(at.size[a]), (i, d)
        natural = Counter({c: n for c, n in cards.items() if c not in wild_names})
        if int(at.run[a]):
            assert natural and not natural - named, (i, d)       # the named cards held, wild cards for the rest
        else:
            assert natural == named and sum(cards.values()) - sum(natural.values()) == int(at.wild[a]), (i, d)


@pytest.mark.parametrize("name", NEW_PRESETS)
def test_records_of_the_new_presets_replay(name) -> None:
    rules = preset(name, hands_per_session=2)
    records = random_records(rules, [5, 6])
    assert len(records) == 4
    for rec in records:
        assert rec["preset"] == name and rec["rules"]["suit_rule"] == rules.suit_rule
        assert rec["rules"]["runs"] == rules.runs
        end = replay(rec)
        assert end.hand_points[0].tolist() == rec["points"]
        _cards_match(rules, rec)


@pytest.mark.parametrize("name", NEW_PRESETS)
def test_a_record_with_other_cards_of_the_same_rank_fails(name) -> None:
    import copy

    rules = preset(name, hands_per_session=1)
    at = action_table(rules)
    for key in range(20):
        (rec,) = random_records(rules, [key], seed=key)
        for i, d in enumerate(rec["decisions"]):
            a = d["action"]
            if a == 0 or int(at.run[a]):
                continue
            other = [b for b in d["legal"] if b != a and at.rank_id[b] == at.rank_id[a]]
            if other:
                bad = copy.deepcopy(rec)
                bad["decisions"][i]["action"] = other[0]
                with pytest.raises(ReplayError, match=rf"decision {i} .*moved"):
                    replay(bad)
                return
    pytest.fail("no decision with a choice of cards in 20 hands")


def test_runs_appear_in_daifugo_runsrandom_records() -> None:
    rules = preset("daifugo_runs", hands_per_session=1)
    at = action_table(rules)
    records = random_records(rules, list(range(12)))
    runs = [d for rec in records for d in rec["decisions"] if int(at.run[d["action"]])]
    assert runs, "random play of twelve hands never played a run"


# =========================================================================== random games
CASES = [(name, p) for name in NEW_PRESETS for p in player_counts(name)]


def test_every_new_preset_is_a_preset_and_card_level() -> None:
    assert set(NEW_PRESETS) <= set(PRESETS)
    for name in NEW_PRESETS:
        assert preset(name).card_level
    assert preset("daifugo_runs").runs == 3 and preset("daifugo_runs").eight_cut
    assert {n: preset(n).suit_rule for n in NEW_PRESETS[:3]} == {
        "suit_ranking": "rank", "follow_suit": "follow", "reversing_colour": "colour"}
    assert len(player_counts("daifugo_runs")) >= 1 and all(len(player_counts(n)) == 6 for n in NEW_PRESETS[:3])


def _check_mask(rules: Rules, st, b: int) -> None:
    """Every legal action of game b uses only cards the player to act holds."""
    at, t = action_table(rules), tables(rules)
    seat = int(st.current[b])
    held = st.hands[b, seat]
    names = Counter(t.card_names[c] for c in np.flatnonzero(held & ~t.card_wild))
    n_wild = int((held & t.card_wild).sum())
    legal = np.flatnonzero(st.legal[b])
    if int(st.phase[b]) == OVER:
        assert legal.tolist() == [0]
        return
    if int(st.phase[b]) == EXCHANGE:
        assert 0 not in legal
    for a in legal:
        if a == 0:
            continue
        named = Counter(at.cards[a])
        if int(at.run[a]):
            have = sum((named & names).values())
            assert have >= 1 and int(at.run[a]) - have <= n_wild, (b, at.words(a))
        else:
            assert not named - names and int(at.wild[a]) <= n_wild, (b, at.words(a))
            if int(st.phase[b]) == EXCHANGE:
                assert int(at.size[a]) == 1, (b, at.words(a))


@pytest.mark.parametrize("name,players", CASES)
def test_random_games_of_the_new_presets(name: str, players: int) -> None:
    rules = preset(name, players=players, hands_per_session=2)
    t = tables(rules)
    B = 6
    st = init(rules, B, seed=players)
    rng = np.random.default_rng(players)
    for _ in range(3000):
        if (st.phase == OVER).all():
            break
        live = st.phase != OVER
        # cards are conserved, by kind and card by card
        total = st.counts.sum(axis=1) + st.played + st.discarded
        assert (total[live] == t.kind_count).all()
        assert (st.hands.sum(axis=2) == st.n_cards).all()
        assert (st.hands.sum(axis=1) <= 1).all()                  # no card in two hands
        playing = live & (st.phase == PLAY)
        assert not (st.hands.any(axis=1) & st.played_cards)[playing].any()
        leading = playing & (st.top_rank < 0)
        assert not st.legal[leading, 0].any()                   # a leader never passes
        assert st.legal.any(axis=1).all()
        for b in range(B):
            _check_mask(rules, st, b)
        before = st.hands[np.arange(B), st.current.astype(np.int64)].copy()
        acts = (rng.random(st.legal.shape) * st.legal).argmax(axis=1)
        st = step(rules, st, acts)
        moved_ok = ~st.moved | before
        assert moved_ok[live].all()                              # only held cards move
    assert (st.phase == OVER).all(), "every session of 2 hands ends"
    assert (st.points.sum(axis=1) == 2 * sum(rules.points)).all()


def _card_level_rule_sets() -> list:
    from test_random_rules import draw_rules

    drawn = [r for _, r in draw_rules(5, 120).kept if r.card_level and not r.poker]
    return [preset(n) for n in ("suit_ranking", "follow_suit", "reversing_colour", "daifugo_runs")] + drawn


def test_the_set_and_run_tables_are_indexed_as_the_compiled_mask_reads_them() -> None:
    # kernel/cards.py card_mask reads only the sets whose natural cards' suits are among the suits the player
    # holds of their rank, with no more wild cards than it holds (setkey/setlist), and run_mask skips the rest
    # of a suit's runs from the first longer than the suit's cards plus wild cards (runs by suit, then length)
    from president_env.core.kernel import fields as F
    from president_env.core.kernel.consts import consts

    rule_sets = _card_level_rule_sets()
    assert len(rule_sets) > 20
    for rules in rule_sets:
        c = consts(rules)

        def table(name: str, c=c) -> np.ndarray:
            i = F.TABLES.index(name)
            off, rows, cols = c.opt[F.O_TABLES + 3 * i:F.O_TABLES + 3 * i + 3]
            return c.tab[off:off + rows * cols].reshape(rows, cols)

        sets, play_t, setkey, setlist = table("sets"), table("play"), table("setkey"), table("setlist")[0]
        Js, W1 = int(c.opt[F.O_JS]), int(c.opt[F.O_W]) + 1
        assert sorted(setlist) == list(range(1, Js + 1)), rules.name          # every set once
        for key in range(setkey.shape[1]):
            p, m, w = key // (16 * W1), key // W1 % 16, key % W1
            start, n = setkey[F.SK_START, key], setkey[F.SK_LEN, key]
            for j in setlist[start:start + n]:
                suits = 0 if sets[F.SF_SUITLESS, j] else sum(1 << s for s in range(4) if sets[F.SF_NEED0 + s, j])
                assert (sets[F.SF_P, j], suits, sets[F.SF_W, j]) == (p, m, w), (rules.name, j, key)
                natural = sets[F.SF_NEED0, j] if sets[F.SF_SUITLESS, j] else sets[F.SF_NEED0:F.SF_NEED0 + 4, j].sum()
                wild_rank = play_t[F.PL_KIND, p] < 0
                assert natural == (0 if wild_rank else sets[F.SF_N, j] - sets[F.SF_W, j]), (rules.name, j)
        runs = table("runs")
        Jr = runs.shape[1]
        for i in range(Jr):
            later = range(i + 1, Jr)
            next_suit = next((x for x in later if runs[F.R_SUIT, x] != runs[F.R_SUIT, i]), Jr)
            next_len = next((x for x in later if (runs[F.R_SUIT, x], runs[F.R_LEN, x])
                             != (runs[F.R_SUIT, i], runs[F.R_LEN, i])), Jr)
            assert (runs[F.R_NEXT_SUIT, i], runs[F.R_NEXT_LEN, i]) == (next_suit, next_len), (rules.name, i)
            assert all(runs[F.R_SUIT, x] != runs[F.R_SUIT, i] or runs[F.R_LEN, x] >= runs[F.R_LEN, i]
                       for x in later), (rules.name, i)


# --------------------------------------------------------------------------- rank: a joker against a suited card
@pytest.mark.parametrize("equal_rank_beats", [False, True])
def test_a_joker_never_beats_a_transparent_card_counting_as_a_joker(equal_rank_beats: bool) -> None:
    # section 8 fine point 1: a transparent 4D on a JK counts as a joker but keeps its suit; a joker has none,
    # so the 4D's set holds the strongest suit card and is higher: no tie, equal_rank_beats does not apply
    r = R(suit_rule="rank", jokers=2, transparent_rank="4", equal_rank_beats=equal_rank_beats,
          first_lead="dealer_left")
    st = game(r, ["JK 5C", "4D 6C", "JK 7C", "8C 9C"], rest_to=3, dealer=3)
    st = go(r, st, (0, "JK"), (1, "4D"))
    assert top(r, st) == "JK" and on_top(r, st) == ["4D"]
    assert "JK" not in moves(r, st)
    # the other way round: a transparent card still beats a joker, whatever the suits (choice 33)
    st = go(r, game(r, ["JK 5C", "4C 6C", "JK 7C", "8C 9C"], rest_to=3, dealer=3), (0, "JK"))
    assert "4C" in moves(r, st)


def test_a_joker_on_a_joker_is_still_a_tie_for_equal_rank_beats() -> None:
    r = R(suit_rule="rank", jokers=2, equal_rank_beats=True, first_lead="dealer_left")
    st = go(r, game(r, ["JK 5C", "JK 6C", "7C", "8C 9C"], rest_to=3, dealer=3), (0, "JK"))
    assert "JK" in moves(r, st)
    r2 = r.replace(equal_rank_beats=False)
    st = go(r2, game(r2, ["JK 5C", "JK 6C", "7C", "8C 9C"], rest_to=3, dealer=3), (0, "JK"))
    assert "JK" not in moves(r2, st)
