"""Scenarios for poker combinations (``combinations poker``, preset ``rich_man_poor_man``): every sentence of
docs/rules.md choices 41 to 48 on hand-built hands, first against the reference predicates of
``core.poker`` (``satisfies``, ``beats``, ``best_suit``), then through both engines (the batched engine and
``ScalarGame``, the fixture ``eng``).

A play is a claim, then its cards picked one by one. Moves are written as the claim's words
(``"pair of sevens"``, ``"full house of eights"``, ``"straight 3 to 7"``, ``"flush, ace high"``) and card
names (``"7H"``, ``"2D"``). Unless a test says otherwise: rich_man_poor_man (twos wild, suits
C < S < H < D), four players, one hand per session, the dealer (player 0) leads, and the cards nobody is given
go to player 3. Every expected set below is derived by hand from docs/rules.md.
"""

from __future__ import annotations

import copy
from itertools import combinations

import numpy as np
import pytest
from helpers import actor, game, hand, player_counts, random_records

from president_env.core import (
    EXCHANGE,
    OVER,
    PLAY,
    IllegalActionError,
    Rules,
    RulesError,
    ScalarGame,
    State,
    action_id,
    action_table,
    card_names,
    describe_action,
    init,
    n_actions,
    observe,
    preset,
    step,
    tables,
)
from president_env.core.actions import claim_id, pick_id
from president_env.core.poker import beats, best_suit, claim_table, play_words, satisfies
from president_env.core.records import ReplayError, replay

RMPM = preset("rich_man_poor_man")


def P(**options) -> Rules:
    """rich_man_poor_man with four players, one hand per session, the dealer (seat 0) leading."""
    base = {"players": 4, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,)}
    base.update(options)
    return preset("rich_man_poor_man", **base)


def C(words: str, r: Rules = RMPM) -> int:
    return claim_id(r, words)


def cards(s: str) -> list[str]:
    return s.split()


_ONE = {"3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine", "T": "ten",
        "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


# =========================================================================== choice 41: the rules
def test_the_preset_builds() -> None:
    r = RMPM
    assert r.combinations == "poker" and r.poker and not r.card_level and r.names_cards
    assert tuple(r.suit_order) == ("C", "S", "H", "D") and set(r.wild_ranks) == {"2"}
    assert r.jokers == 0 and r.size_rule == "equal" and r.wild_tie == "equal"


REFUSED = [
    ({"runs": 3}, "runs"),
    ({"suit_rule": "rank"}, "suit_rule"),
    ({"suit_rule": "follow"}, "suit_rule"),
    ({"suit_rule": "colour"}, "suit_rule"),
    ({"high_cards": "3C"}, "high_cards"),
    ({"quick_clear": True}, "quick_clear"),
    ({"trump_ranks": {"A"}}, "trump_ranks"),
    ({"reset_ranks": {"3"}}, "reset_ranks"),
    ({"power_ranks": {"A": (2,)}, "wild_ranks": set()}, "power_ranks"),
    ({"transparent_rank": "3"}, "transparent_rank"),
    ({"complete_set_clears": True}, "complete_set_clears"),
    ({"equal_play_skips": True, "equal_rank_beats": True}, "equal_play_skips"),
    ({"revolution_by_singles": True, "equal_rank_beats": True, "four_of_a_kind": "revolution"},
     "revolution_by_singles"),
    ({"revolution_reset_rank": "A", "four_of_a_kind": "revolution"}, "revolution_reset_rank"),
    ({"size_rule": "at_least"}, "size_rule"),
    ({"size_rule": "bigger_beats_any"}, "size_rule"),
    ({"jokers": 2}, "jokers"),
    ({"jokers": 1, "joker_mode": "wild", "wild_ranks": {"2", "JK"}}, "jokers"),
    ({"eight_cut": True}, "eight_cut"),
    ({"wild_tie": "natural_higher"}, "wild_tie"),
    ({"wild_tie": "wild_higher"}, "wild_tie"),
]


@pytest.mark.parametrize("options, field", REFUSED)
def test_every_refused_option_raises_naming_it(options, field) -> None:
    with pytest.raises(RulesError, match=field) as err:
        preset("rich_man_poor_man", **options)
    assert "poker" in str(err.value)
    # the same options are fine without poker: the refusal is the poker one
    assert not preset("rich_man_poor_man", combinations="sets", **options).poker


@pytest.mark.parametrize("options", [
    {"four_of_a_kind": "revolution"}, {"four_of_a_kind": "bomb"}, {"four_of_a_kind": "revolution_and_reverse"},
    {"equal_rank_beats": True}, {"decks": 2}, {"decks": 2, "players": 8}, {"compulsory_beat": True},
    {"pass_rule": "locks_out"}, {"pass_rule": "single_round"}, {"direction": "counter_clockwise"},
    {"forbidden_finish": {"2"}}, {"president_must_win": True}, {"players": 6, "merchant_trade": True},
    {"hand_assignment": "expose"}, {"rank_order": "3 4 5 6 7 8 9 2"}, {"suit_order": "C D H S"},
    {"wild_ranks": set()}, {"first_lead": "dealer_left"}, {"exchange": (1,)}, {"scoring": (2, 1)},
])
def test_every_other_option_applies(options) -> None:
    assert preset("rich_man_poor_man", **options).poker


def test_three_to_seven_players() -> None:
    assert set(range(3, 8)) <= set(player_counts("rich_man_poor_man"))
    for p in range(3, 8):
        r = preset("rich_man_poor_man", players=p)
        st = init(r, 2, seed=p)
        assert st.legal.shape == (2, 222) and st.legal.any(axis=1).all()


# =========================================================================== choice 42: the action table
def test_the_table_counts() -> None:
    ct = claim_table(RMPM)
    assert ct.X == 169 and n_actions(RMPM) == 222 and action_table(RMPM).n == 222
    # 13 singles, pairs, threes; 66 two pairs of two different ranks (no (q, q), no four wild cards: fine
    # point 7); 8 straights (3-7 .. T-A), 12 flushes, full houses, fours, 8 straight flushes, 12 fives; no five
    # wild cards in one deck (four twos)
    kinds = [int(n) for n in ct.n[1:]]
    assert [kinds.count(n) for n in (1, 2, 3, 4, 5)] == [13, 13, 13, 66, 64]
    assert len(ct.pick_names) == 52 and ct.naturals == tuple("3456789TJQKA")
    two = preset("rich_man_poor_man", decks=2)
    assert claim_table(two).X == 170 and n_actions(two) == 223                     # + five wild cards
    assert claim_table(two).words[170] == "five wild cards"


@pytest.mark.parametrize("i, words", [
    (0, "pass"), (1, "single 3"), (5, "single 7"), (12, "single A"), (13, "single wild card"),
    (14, "pair of threes"), (25, "pair of aces"), (26, "pair of wild cards"), (27, "three threes"),
    (39, "three wild cards"), (40, "two pair, fours and threes"), (41, "two pair, fives and threes"),
    (42, "two pair, fives and fours"), (105, "two pair, aces and kings"),
    (106, "straight 3 to 7"), (113, "straight T to A"), (114, "flush, three high"),
    (125, "flush, ace high"), (126, "full house of threes"), (137, "full house of aces"), (138, "four threes"),
    (149, "four aces"), (150, "straight flush 3 to 7"), (157, "straight flush T to A"), (158, "five threes"),
    (169, "five aces"),
])
def test_claim_ids_in_the_order_of_choice_42(i, words) -> None:
    at = action_table(RMPM)
    assert at.words(i) == words and claim_table(RMPM).words[i] == words
    if i:
        assert claim_id(RMPM, words) == i


def test_claim_sizes_and_ranks() -> None:
    at, t = action_table(RMPM), tables(RMPM)

    def rank(i: int) -> str:
        return t.play_ranks[int(at.rank[i])]

    for words, n, r in [("single 7", 1, "7"), ("pair of wild cards", 2, "WILD"), ("three kings", 3, "K"),
                        ("two pair, kings and sevens", 4, "K"),
                        ("straight 3 to 7", 5, "7"), ("flush, ace high", 5, "A"), ("full house of sevens", 5, "7"),
                        ("four sevens", 5, "7"), ("straight flush 9 to K", 5, "K"), ("five aces", 5, "A")]:
        assert int(at.size[C(words)]) == n, words
        assert rank(C(words)) == r, words                                         # choice 47


def test_picks_one_per_card_name_weakest_first() -> None:
    at = action_table(RMPM)
    names = [f"{r}{s}" for r in "3456789TJQKA2" for s in "CSHD"]
    for k, name in enumerate(names):
        i = 170 + k
        assert pick_id(RMPM, name) == i and at.cards[i] == (name,) and at.words(i) == f"pick {name}"
        assert int(at.size[i]) == 0
        assert describe_action(RMPM, i, exchange=True) == f"give back a {name}"
    assert pick_id(RMPM, "10H") == pick_id(RMPM, "TH") == pick_id(RMPM, "th")
    rows = at.rows()
    assert [r["id"] for r in rows if r["pick"]] == list(range(170, 222))
    assert rows[C("full house of sevens")]["words"] == "full house of sevens" and not rows[143]["pick"]


def test_claim_words_round_trip() -> None:
    ct = claim_table(RMPM)
    for i in range(1, ct.X + 1):
        assert claim_id(RMPM, ct.words[i]) == i
        assert claim_id(RMPM, "  " + ct.words[i].upper().replace(" ", "  ") + " ") == i
    for bad in ("straight J to 2", "straight A to 5", "five wild cards", "pair of twos", "single 2",
                "two pair, sevens and sevens", "four wild cards"):           # no four cards of one rank
        with pytest.raises(ValueError):
            claim_id(RMPM, bad)
    with pytest.raises(ValueError):
        pick_id(RMPM, "JK")
    with pytest.raises(ValueError, match="claim_id"):
        action_id(RMPM, "7", 2)


def test_straights_never_pass_through_a_wild_rank() -> None:
    r = preset("rich_man_poor_man", wild_ranks={"7"})
    ct = claim_table(r)
    straights = [w for w in ct.words if w.startswith("straight ") and "flush" not in w]
    assert straights == ["straight 8 to Q", "straight 9 to K", "straight T to A", "straight J to 2"]
    assert len(ct.naturals) == 12 and "7" not in ct.naturals


# =========================================================================== choice 43: what each claim is
SATISFIES = [
    # singles, pairs, threes: naturals of q or wild, at least one natural
    ("single 7", "7H", True), ("single 7", "2H", False), ("single 7", "8H", False),
    ("single wild card", "2H", True), ("single wild card", "7H", False),
    ("pair of sevens", "7C 7D", True), ("pair of sevens", "7C 2D", True), ("pair of sevens", "2C 2D", False),
    ("pair of sevens", "7C 8C", False), ("pair of sevens", "7C", False), ("pair of wild cards", "2C 2D", True),
    ("pair of wild cards", "7C 2D", False),
    ("three sevens", "7C 7D 2S", True), ("three sevens", "7C 2S 2D", True), ("three sevens", "2C 2S 2D", False),
    ("three wild cards", "2C 2S 2D", True),
    # two pair
    ("two pair, aces and sevens", "7C 7D 2S 2H", True),            # the pair of aces all wild (choice 43)
    ("two pair, kings and sevens", "KC KD 7C 2S", True), ("two pair, kings and sevens", "KC KD 7C 7D", True),
    ("two pair, kings and sevens", "7C 7D 7H KC", False),          # at most two naturals of a pair
    ("two pair, kings and sevens", "KC KD QC 7C", False), ("two pair, kings and sevens", "2C 2D 2H 2S", False),
    ("two pair, kings and sevens", "7C 7D 7H 7S", False), ("two pair, kings and sevens", "7C 7D 7H 2S", False),
    ("two pair, kings and threes", "3C 3H 2C 2H", True),          # the wild pair stands for kings
    # straights: one card per rank of the window, wild cards anywhere, no wrap-around, stops at the ace
    ("straight 3 to 7", "3C 4D 5H 6S 7C", True), ("straight 3 to 7", "3C 4D 2H 6S 7C", True),
    ("straight 3 to 7", "3C 4D 5H 6S 2C", True), ("straight 3 to 7", "2C 4D 5H 6S 7C", True),
    ("straight 3 to 7", "3C 3D 5H 6S 7C", False), ("straight 3 to 7", "3C 4D 5H 6S 8C", False),
    ("straight 3 to 7", "QC KD AH 3C 4D", False), ("straight T to A", "TC JD QH KS AC", True),
    ("straight T to A", "JC QD KH AS 2C", True), ("straight 9 to K", "JC QD KH AS 2C", False),
    ("straight 3 to 7", "2C 2D 2H 2S 5C", True),
    # flushes: one suit, wild cards of that suit only, every natural at or below q, q held or a wild card for it
    ("flush, ace high", "3H 7H 9H JH AH", True), ("flush, ace high", "3H 7H 9H JH 2H", True),
    ("flush, ace high", "3H 7H 9H JH 2S", False), ("flush, ace high", "3H 7H 9H JH KH", False),
    ("flush, king high", "3H 7H 9H JH KH", True), ("flush, queen high", "3H 7H 9H JH 2H", True),
    ("flush, jack high", "3H 7H 9H JH 2H", True), ("flush, ten high", "3H 7H 9H JH 2H", False),
    ("flush, ace high", "3H 7H 9H JH AD", False),
    ("flush, seven high", "3H 4H 5H 6H 7H", True), ("straight flush 3 to 7", "3H 4H 5H 6H 7H", True),
    ("straight 3 to 7", "3H 4H 5H 6H 7H", True),
    # full house: three of q (naturals or wild), two of one other rank (naturals or wild)
    ("full house of sevens", "7C 7D 7H KC KD", True), ("full house of sevens", "7C 7D 2H KC KD", True),
    ("full house of sevens", "7C 7D 2H KC 2D", True), ("full house of sevens", "7C 7D 7H 2C 2D", True),
    ("full house of sevens", "7C 7D 2H 2C 2D", True), ("full house of sevens", "KC KD 2S 2H 2D", True),
    ("full house of kings", "7C 7D 2H KC KD", True),               # the claim decides: kings over sevens
    ("full house of sevens", "7C 7D 7H 7S KC", False), ("full house of sevens", "7C 7D 7H KC QC", False),
    ("full house of kings", "7C 7D 7H KC KD", False),
    # four of a kind and any fifth card
    ("four sevens", "7C 7D 7H 7S KC", True), ("four sevens", "7C 7D 7H 2S KC", True),
    ("four sevens", "7C 7D 7H 7S 2C", True), ("four sevens", "7C 7D 7H KC KD", False),
    ("four kings", "7C 7D 7H 7S KC", False), ("four kings", "KC 2C 2S 2H 2D", True),
    ("four sevens", "KC 2C 2S 2H 2D", True), ("four sevens", "7C 7D 7H 7S", False),
    # straight flush, five of a kind
    ("straight flush 3 to 7", "3H 4H 2H 6H 7H", True), ("straight flush 3 to 7", "3H 4H 2S 6H 7H", False),
    ("straight flush 3 to 7", "3H 4H 5H 6H 7C", False),
    ("five sevens", "7C 7D 7H 7S 2C", True), ("five sevens", "7C 7D 7H 7S KC", False),
    ("five sevens", "2C 2S 2H 2D 7C", True),
]


@pytest.mark.parametrize("words, hand_, ok", SATISFIES)
def test_satisfies(words, hand_, ok) -> None:
    assert satisfies(RMPM, C(words), cards(hand_)) is ok


def test_a_set_of_cards_may_satisfy_several_claims() -> None:
    play = cards("7C 7D 7H 2S 2D")
    ct = claim_table(RMPM)
    made = {ct.words[i] for i in range(1, ct.X + 1) if satisfies(RMPM, i, play)}
    # five sevens; four sevens (any fifth card); full house of sevens over a wild pair. Not a full house of
    # another rank over the sevens: three natural sevens cannot be its pair
    assert made == {"five sevens", "four sevens", "full house of sevens"}


def test_flush_claims_under_a_revolution() -> None:
    # q is the play's lowest card under a revolution: every natural at or below q in the order in force
    h = cards("3H 7H 9H JH AH")
    assert satisfies(RMPM, C("flush, three high"), h, revolution=True)
    assert not satisfies(RMPM, C("flush, three high"), h)
    assert not satisfies(RMPM, C("flush, ace high"), h, revolution=True)
    assert not satisfies(RMPM, C("flush, seven high"), h, revolution=True)
    w = cards("7H 9H JH AH 2H")
    assert {q for q in "3456789TJQKA" if satisfies(RMPM, C(f"flush, {_ONE[q]} high"), w, revolution=True)} == \
        set("34567")
    assert {q for q in "3456789TJQKA" if satisfies(RMPM, C(f"flush, {_ONE[q]} high"), w)} == set("A")


def test_two_decks() -> None:
    r = preset("rich_man_poor_man", decks=2)
    assert satisfies(r, C("five sevens", r), cards("7C 7C 7S 7H 7D"))          # natural five of a kind
    assert satisfies(r, C("flush, ace high", r), cards("AH AH 3H 5H 7H"))        # ranks need not differ
    assert satisfies(r, C("five wild cards", r), cards("2C 2C 2S 2H 2D"))
    assert not satisfies(r, C("five sevens", r), cards("2C 2C 2S 2H 2D"))
    assert not satisfies(r, C("straight 3 to 7", r), cards("3C 3C 5H 6S 7C"))


# =========================================================================== choice 44: what beats what
def test_best_suit() -> None:
    order = {s: i for i, s in enumerate("CSHD")}
    assert best_suit(RMPM, cards("7C 2D")) == order["D"]
    assert best_suit(RMPM, cards("7H 7S")) == order["H"]
    assert best_suit(RMPM, cards("3D 4S 5C 6C 7S")) == order["D"]               # over all cards, not the highest
    assert best_suit(RMPM, cards("7H 7S"), revolution=True) == 3 - order["S"]   # reversed: spades now beat hearts
    assert best_suit(RMPM, cards("7C 7D"), revolution=True) == 3


BEATS = [
    # (claim, cards, top claim, top cards, revolution, beats)
    ("single 8", "8C", "single 7", "7D", False, True),
    ("single 7", "7D", "single 8", "8C", False, False),
    ("single 7", "7D", "single 7", "7H", False, True),            # D > H
    ("single 7", "7H", "single 7", "7D", False, False),
    ("single 7", "7S", "single 7", "7C", False, True),
    ("pair of sevens", "7C 2D", "pair of sevens", "7H 7S", False, True),   # a wild card keeps its suit
    ("pair of sevens", "7H 7S", "pair of sevens", "7C 2D", False, False),
    ("pair of sevens", "7C 7S", "pair of sevens", "7H 2C", False, False),  # S < H
    ("three eights", "8C 8S 2C", "three sevens", "7H 7D 2D", False, True),
    ("single wild card", "2C", "single A", "AD", False, True),               # wild claims above every natural
    ("single A", "AD", "single wild card", "2C", False, False),
    ("pair of wild cards", "2C 2S", "pair of aces", "AH AD", False, True),
    ("single wild card", "2D", "single wild card", "2H", False, True),       # among themselves by suit
    ("single wild card", "2H", "single wild card", "2D", False, False),
    # two pair: the higher pair, then the lower pair, then the suit
    ("two pair, kings and threes", "KC KS 3C 3S", "two pair, queens and jacks", "QH QD JH JD", False, True),
    ("two pair, queens and jacks", "QH QD JH JD", "two pair, kings and threes", "KC KS 3C 3S", False, False),
    ("two pair, kings and fours", "KC KS 4C 4S", "two pair, kings and threes", "KH KD 3H 3D", False, True),
    ("two pair, kings and threes", "KC KS 3C 3S", "two pair, kings and threes", "KH KD 3H 3D", False, False),
    ("two pair, kings and threes", "KH KD 3H 3D", "two pair, kings and threes", "KC KS 3C 3S", False, True),
    ("two pair, aces and queens", "AC AS QH QD", "two pair, aces and jacks", "AH AD JH JD", False, True),
    # the type order
    ("flush, six high", "3H 4H 5H 6H 2H", "straight T to A", "TC JD QH KS AD", False, True),
    ("straight T to A", "TC JD QH KS AD", "flush, six high", "3H 4H 5H 6H 2H", False, False),
    ("full house of threes", "3C 3S 3H 4C 4S", "flush, ace high", "9D TD JD KD AD", False, True),
    ("four threes", "3C 3S 3H 3D 4C", "full house of aces", "AC AS AH KC KS", False, True),
    ("straight flush 3 to 7", "3H 4H 5H 6H 7H", "four aces", "AC AS AH AD KC", False, True),
    ("five threes", "3C 3S 3H 3D 2C", "straight flush T to A", "TD JD QD KD AD", False, True),
    ("four aces", "AC AS AH AD KC", "straight flush 3 to 7", "3H 4H 5H 6H 7H", False, False),
    # within a type
    ("straight 4 to 8", "4C 5C 6C 7C 8S", "straight 3 to 7", "3D 4D 5D 6D 7H", False, True),
    ("straight 3 to 7", "3S 4S 5C 6C 7D", "straight 3 to 7", "3C 4C 5S 6S 7H", False, True),
    ("straight 3 to 7", "3D 4S 5C 6C 7S", "straight 3 to 7", "3C 4C 5S 6S 7H", False, True),
    ("straight 3 to 7", "3S 4S 5C 6C 7S", "straight 3 to 7", "3C 4C 5S 6S 7H", False, False),
    ("flush, ace high", "4D 5D 8D TD 2D", "flush, king high", "3H 7H 9H JH KH", False, True),  # 2D stands for A
    ("flush, ace high", "3H 7H 9H JH AH", "flush, ace high", "4D 5D 8D TD AD", False, False),
    ("flush, ace high", "4D 5D 8D TD AD", "flush, ace high", "3H 7H 9H JH AH", False, True),
    ("full house of eights", "8C 8D 8H 3C 3D", "full house of sevens", "7C 7D 7H AC AD", False, True),
    ("four eights", "8C 8D 8H 8S 3C", "four sevens", "7C 7D 7H 7S AC", False, True),
    # the lead's count: nothing beats a play of another count (without a bomb)
    ("pair of aces", "AC AD", "single 3", "3C", False, False),
    ("single A", "AD", "pair of threes", "3C 3D", False, False),
    ("five aces", "AC AS AH AD 2C", "two pair, fours and threes", "3C 3S 4H 4D", False, False),
    ("two pair, fours and threes", "3C 3S 4H 4D", "single 3", "3C", False, False),
    # equal plays (same claim, same best suit) beat only with equal_rank_beats
    ("pair of sevens", "7S 2D", "pair of sevens", "7C 7D", False, False),
    # a lead
    ("single 3", "3C", "pass", "", False, True),
    # under a revolution: ranks and suits reverse, the type order and wild claims do not
    ("single 7", "7D", "single 8", "8C", True, True),
    ("single 8", "8C", "single 7", "7D", True, False),
    ("single 7", "7C", "single 7", "7D", True, True),
    ("single 7", "7D", "single 7", "7C", True, False),
    ("pair of sevens", "7H 7S", "pair of sevens", "7C 2D", True, False),   # the club is the strongest now
    ("pair of sevens", "7C 7D", "pair of sevens", "7H 7S", True, True),
    ("single wild card", "2D", "single 3", "3C", True, True),
    ("single 3", "3C", "single wild card", "2D", True, False),
    ("single wild card", "2C", "single wild card", "2D", True, True),
    ("two pair, fours and threes", "4C 4S 3C 3S", "two pair, aces and kings", "AC AS KH KD", True, True),
    ("two pair, fives and threes", "5C 5S 3C 3S", "two pair, fives and fours", "5C 5S 4H 4D", True, True),
    ("two pair, fives and fours", "5C 5S 4H 4D", "two pair, fives and threes", "5C 5S 3C 3S", True, False),
    ("straight 3 to 7", "3C 4C 5S 6S 7H", "straight 4 to 8", "4D 5D 6D 7D 8S", True, True),
    ("straight 4 to 8", "4D 5D 6D 7D 8S", "straight 3 to 7", "3C 4C 5S 6S 7H", True, False),
    ("flush, three high", "3S 5S 8S TS KS", "flush, four high", "4D 6D 9D JD AD", True, True),
    ("flush, four high", "4D 6D 9D JD AD", "flush, three high", "3S 5S 8S TS KS", True, False),
    ("flush, three high", "3H 7H 9H JH AH", "straight T to A", "TC JD QH KS AD", True, True),
    ("straight 3 to 7", "3C 4C 5S 6S 7H", "flush, three high", "3H 7H 9H JH AH", True, False),
    ("five aces", "AC AS AH AD 2C", "four threes", "3C 3S 3H 3D 4C", True, True),
    ("four threes", "3C 3S 3H 3D 4C", "full house of threes", "3C 3S 3H 4C 4S", True, True),
    ("full house of threes", "3C 3S 3H 4C 4S", "full house of aces", "AC AS AH KC KS", True, True),
]


@pytest.mark.parametrize("claim, play, top, top_cards, rev, ok", BEATS)
def test_beats(claim, play, top, top_cards, rev, ok) -> None:
    t = 0 if top == "pass" else C(top)
    assert satisfies(RMPM, C(claim), cards(play), revolution=rev)
    if t:
        assert satisfies(RMPM, t, cards(top_cards), revolution=rev)
    assert beats(RMPM, C(claim), cards(play), t, cards(top_cards), revolution=rev) is ok


def test_equal_plays_beat_with_equal_rank_beats() -> None:
    r = preset("rich_man_poor_man", equal_rank_beats=True)
    assert beats(r, C("pair of sevens"), cards("7S 2D"), C("pair of sevens"), cards("7C 7D"))
    assert not beats(r, C("pair of sevens"), cards("7C 2H"), C("pair of sevens"), cards("7S 7D"))
    two = preset("rich_man_poor_man", decks=2)
    assert not beats(two, C("single 7"), ["7H"], C("single 7"), ["7H"])
    assert beats(two.replace(equal_rank_beats=True), C("single 7"), ["7H"], C("single 7"), ["7H"])
    five_wild = C("five wild cards", two)
    assert beats(two, five_wild, cards("2C 2C 2S 2H 2D"), C("five aces", two), cards("AC AC AS AH AD"))
    assert beats(two, five_wild, cards("2C 2S 2H 2D 2D"), five_wild, cards("2C 2C 2S 2H 2H"))


@pytest.mark.parametrize("claim, bomb", [
    ("four sevens", True), ("five sevens", True), ("two pair, sevens and threes", False),
    ("full house of sevens", False), ("straight flush 3 to 7", False)])
def test_bomb_claims(claim, bomb) -> None:
    r = preset("rich_man_poor_man", four_of_a_kind="bomb")
    assert bool(claim_table(r).bomb[C(claim)]) is bomb
    play = {"four sevens": "7C 7S 7H 7D 3C", "five sevens": "7C 7S 7H 7D 2C",
            "two pair, sevens and threes": "7C 7S 3H 3D",
            "full house of sevens": "7C 7S 7H 3C 3S", "straight flush 3 to 7": "3H 4H 5H 6H 7H"}[claim]
    # a bomb beats any play, whatever its count or claim
    assert beats(r, C(claim), cards(play), C("single A"), ["AD"]) is bomb
    assert beats(r, C(claim), cards(play), C("five aces"), cards("AC AS AH AD 2D")) is bomb
    assert beats(r, C(claim), cards(play), 0, [])


def test_five_wild_cards_are_a_bomb_claim() -> None:
    two = preset("rich_man_poor_man", decks=2, four_of_a_kind="bomb")
    assert bool(claim_table(two).bomb[C("five wild cards", two)])
    assert beats(two, C("five wild cards", two), cards("2C 2C 2S 2H 2D"), C("single 3", two), ["3C"])


# =========================================================================== choice 48: words
@pytest.mark.parametrize("claim, play, words", [
    ("full house of sevens", "7C 7S 7H 4C 4D", "full house, sevens over fours"),
    ("two pair, kings and sevens", "KC KS 7C 2D", "two pair, kings and sevens"),
    ("straight 3 to 7", "3C 4D 5H 6S 7C", "straight 3 to 7"),
    ("flush, ace high", "3H 7H 9H JH AH", "flush, ace high (hearts)"),
    ("four sevens", "7C 7S 7H 7D KC", "four sevens and a king"),
    ("five sevens", "7C 7S 7H 7D 2C", "five sevens"),
    ("pair of wild cards", "2C 2D", "pair of wild cards"),
])
def test_play_words(claim, play, words) -> None:
    assert play_words(RMPM, C(claim), cards(play)) == words


# =========================================================================== the engines
class Table:
    """One hand-built game (batch of 1) on the batched engine or on ScalarGame, driven by claims and picks."""

    def __init__(self, r: Rules, eng: str, hands, rest_to=3, **kw) -> None:
        self.r, self.eng, self.ct = r, eng, claim_table(r)
        st = game(r, hands, rest_to=rest_to, **kw)
        self._st = st
        self._g = ScalarGame.from_state(r, st) if eng == "scalar" else None

    @property
    def st(self) -> State:
        return self._g.to_state() if self._g is not None else self._st

    def legal(self) -> list[int]:
        if self._g is not None:
            return sorted(int(a) for a in self._g.legal)
        return np.flatnonzero(self._st.legal[0]).tolist()

    def step(self, a: int) -> None:
        if self._g is not None:
            self._g.step(int(a))
        else:
            self._st = step(self.r, self._st, np.array([a]))

    # ----------------------------------------------------------------- reading
    def claims(self) -> set[str]:
        """The legal pass and claims, by words."""
        return {self.ct.words[a] for a in self.legal() if a <= self.ct.X}

    def picks(self) -> set[str]:
        """The legal picks, by card name."""
        return {self.ct.pick_names[a - self.ct.X - 1] for a in self.legal() if a > self.ct.X}

    def actor(self) -> int:
        return actor(self.st)

    def hand(self, p: int) -> set[str]:
        return set(hand(self.r, self.st, p))

    def top(self) -> tuple[str | None, set[str]]:
        st = self.st
        c = int(st.top_claim[0])
        return (self.ct.words[c] if c else None), set(card_names(self.r, st.top_cards[0]))

    def picked(self) -> list[str]:
        return card_names(self.r, self.st.picked[0])

    # ----------------------------------------------------------------- moves
    def passes(self, *who: int) -> Table:
        for p in who:
            assert self.actor() == p, f"expected player {p} to pass, but player {self.actor()} acts"
            self.step(0)
        return self

    def claim(self, who: int, words: str) -> Table:
        assert self.actor() == who, f"expected player {who} to claim {words!r}, but player {self.actor()} acts"
        self.step(claim_id(self.r, words))
        return self

    def pick(self, *names: str) -> Table:
        for n in names:
            self.step(pick_id(self.r, n))
        return self

    def play(self, who: int, words: str, *names: str) -> Table:
        """Claim and pick, checking that nothing is played before the last pick (choice 45)."""
        st0 = self.st
        cid = claim_id(self.r, words)
        assert len(names) == int(self.ct.n[cid]), "a play picks its claim's count"
        self.claim(who, words)
        for k, n in enumerate(names):
            st = self.st
            assert self.actor() == who and int(st.poker_claim[0]) == cid
            assert sorted(self.picked()) == sorted(names[:k])
            assert 0 not in self.legal() and min(self.legal()) > self.ct.X     # picks only: no pass, no claim
            for f in ("top_claim", "top_rank", "top_size", "top_cards", "n_cards", "hands", "revolution",
                      "top_owner", "played"):
                np.testing.assert_array_equal(getattr(st, f), getattr(st0, f), err_msg=f"{f} before pick {k}")
            self.pick(n)
        st = self.st
        assert int(st.poker_claim[0]) == 0 and not st.picked[0].any()
        if int(st.phase[0]) == PLAY and not bool(st.hand_over[0]):
            assert sorted(card_names(self.r, st.moved[0])) == sorted(names)
        return self


@pytest.fixture(params=["batched", "scalar"])
def eng(request) -> str:
    return request.param


# --------------------------------------------------------------------------- choice 45: decisions of a play
class TestAPlay:
    def test_the_claims_of_a_lead(self, eng) -> None:
        t = Table(P(), eng, ["7C 7D 2S KH", "3C", "3D", ""])
        assert t.actor() == 0
        assert t.claims() == {"single 7", "single K", "single wild card", "pair of sevens", "pair of kings",
                              "three sevens", "two pair, kings and sevens"}            # no pass on a lead
        assert t.picks() == set()

    def test_the_play_is_made_on_the_last_pick(self, eng) -> None:
        r = P()
        t = Table(r, eng, ["7C 7D 2S KH", "3C", "3D", ""])
        t.claim(0, "pair of kings")
        assert t.actor() == 0 and t.top() == (None, set()) and int(t.st.poker_claim[0]) == C("pair of kings")
        assert t.picks() == {"KH", "2S"}
        t.pick("2S")
        assert t.actor() == 0 and t.picked() == ["2S"] and t.top() == (None, set())
        assert t.picks() == {"KH"} and t.hand(0) == {"7C", "7D", "2S", "KH"}
        t.pick("KH")
        st = t.st
        assert t.actor() == 1 and t.top() == ("pair of kings", {"KH", "2S"})
        assert int(st.top_size[0]) == 2 and tables(r).play_ranks[int(st.top_rank[0])] == "K"   # choice 47
        assert t.hand(0) == {"7C", "7D"} and t.picked() == [] and int(st.poker_claim[0]) == 0
        assert set(card_names(r, st.moved[0])) == {"KH", "2S"}

    def test_the_play_takes_the_picked_cards(self, eng) -> None:
        t = Table(P(), eng, ["7C 7D 2S 4C", "3C", "3D", ""])
        t.claim(0, "pair of sevens")
        assert t.picks() == {"7C", "7D", "2S"}
        t.pick("7D")
        assert t.picks() == {"7C", "2S"}                      # 7D is taken; 4C never completes a pair of sevens
        t.pick("2S")
        assert t.top() == ("pair of sevens", {"7D", "2S"}) and t.hand(0) == {"7C", "4C"}

    def test_two_decks_a_pick_takes_one_copy(self, eng) -> None:
        r = P(decks=2)
        t = Table(r, eng, ["7C 7C 4D", "3C", "3D", ""])
        t.claim(0, "pair of sevens")
        assert t.picks() == {"7C"}
        t.pick("7C")
        assert t.picks() == {"7C"} and t.picked() == ["7C"]
        t.pick("7C")
        assert card_names(r, t.st.top_cards[0]) == ["7C", "7C"] and t.hand(0) == {"4D"}

    def test_the_claims_that_beat_a_pair(self, eng) -> None:
        t = Table(P(), eng, ["7H 7S 4C", "7C 2D 8C 8D 5C 5D AH", "3C", ""])
        t.play(0, "pair of sevens", "7H", "7S")
        assert t.actor() == 1
        # sevens with 2D (D beats H), eights, aces with 2D; not fives, no single, no three: the lead's count
        assert t.claims() == {"pass", "pair of sevens", "pair of eights", "pair of aces"}

    @pytest.mark.parametrize("claim, first, then", [
        ("pair of sevens", {"2D"}, ("2D", {"7C"})),          # the top's own claim: the first pick beats H
        ("pair of eights", {"8C", "8D", "2D"}, ("8C", {"8D", "2D"})),
        ("pair of aces", {"AH", "2D"}, ("2D", {"AH"})),
    ])
    def test_the_picks_after_a_claim(self, eng, claim, first, then) -> None:
        t = Table(P(), eng, ["7H 7S 4C", "7C 2D 8C 8D 5C 5D AH", "3C", ""])
        t.play(0, "pair of sevens", "7H", "7S").claim(1, claim)
        assert t.picks() == first
        t.pick(then[0])
        assert t.picks() == then[1]
        t.pick(sorted(then[1])[0])
        assert t.actor() == 2 and t.top()[0] == claim

    def test_a_pair_of_sevens_with_2d_beats_7h_7s(self, eng) -> None:
        t = Table(P(), eng, ["7H 7S 4C", "7C 2D 3D", "3C", ""])
        t.play(0, "pair of sevens", "7H", "7S")
        assert t.claims() == {"pass", "pair of sevens"}          # not a pair of threes with 2D: lower
        t.play(1, "pair of sevens", "2D", "7C")
        assert t.top() == ("pair of sevens", {"7C", "2D"}) and t.actor() == 2

    @pytest.mark.parametrize("hand1, claims, first", [
        ("7D 2C 3C", {"pass", "pair of sevens"}, {"7D"}),          # the wild card is a club: 7D must come first
        ("7C 2S 3D", {"pass"}, None),                               # best suit S, below the top's H
    ])
    def test_wild_cards_keep_their_suit(self, eng, hand1, claims, first) -> None:
        t = Table(P(), eng, ["7H 7S 4C", hand1, "3S", ""])
        t.play(0, "pair of sevens", "7H", "7S")
        assert t.claims() == claims
        if first:
            t.claim(1, "pair of sevens")
            assert t.picks() == first

    def test_threes_by_rank_then_suit(self, eng) -> None:
        t = Table(P(), eng, ["9C 9S 2H 4C", "9H 9D 2S 8C 8S 8H 5C", "3C", ""])
        t.play(0, "three nines", "9C", "9S", "2H")
        # nines with 9D (D beats the top's H), eights are lower; no pair, no single
        assert t.claims() == {"pass", "three nines"}
        t.claim(1, "three nines")
        assert t.picks() == {"9D"}                                     # 9H only equals hearts, 2S is below
        t.pick("9D")
        assert t.picks() == {"9H", "2S"}

    def test_the_leads_count_is_kept(self, eng) -> None:
        t = Table(P(), eng, ["7H 4C", "8C 8D 9S 9H 9D", "3C", ""])
        t.play(0, "single 7", "7H")
        assert t.claims() == {"pass", "single 8", "single 9"}

    def test_a_single_of_the_tops_rank_needs_a_higher_suit(self, eng) -> None:
        t = Table(P(), eng, ["7H 4C", "7C 7S 7D 3D", "3C", ""])
        t.play(0, "single 7", "7H")
        assert t.claims() == {"pass", "single 7"}
        t.claim(1, "single 7")
        assert t.picks() == {"7D"}                                 # not 7C nor 7S: below hearts
        t2 = Table(P(), eng, ["7H 4C", "7C 7S 3D", "3C", ""])
        t2.play(0, "single 7", "7H")
        assert t2.claims() == {"pass"}

    @pytest.mark.parametrize("erb", [False, True])
    def test_an_equal_play_beats_only_with_equal_rank_beats(self, eng, erb) -> None:
        t = Table(P(equal_rank_beats=erb), eng, ["7C 7D 4C", "7S 2D 4D", "3C", ""])
        t.play(0, "pair of sevens", "7C", "7D")
        assert t.claims() == ({"pass", "pair of sevens"} if erb else {"pass"})   # 7S 2D: best D, as the top's
        if erb:
            t.claim(1, "pair of sevens")
            assert t.picks() == {"2D"}                              # D equals the top's best suit; S does not
            t.pick("2D")
            assert t.picks() == {"7S"}

    def test_pass_and_claims_are_not_legal_after_a_claim(self, eng) -> None:
        t = Table(P(), eng, ["7H 4C", "8C 9S 3D", "3C", ""])
        t.play(0, "single 7", "7H").claim(1, "single 9")
        assert t.legal() == [pick_id(t.r, "9S")]

    def test_compulsory_beat(self, eng) -> None:
        t = Table(P(compulsory_beat=True), eng, ["7H 4C", "8C 3D", "3C", ""])
        t.play(0, "single 7", "7H")
        assert t.claims() == {"single 8"}
        t = Table(P(compulsory_beat=True), eng, ["7H 4C", "3D 4D", "3C", ""])
        t.play(0, "single 7", "7H")
        assert t.claims() == {"pass"}

    def test_an_illegal_action_names_itself(self, eng) -> None:
        t = Table(P(), eng, ["7C 7D 2S KH", "3C", "3D", ""])
        with pytest.raises(IllegalActionError, match="pair of aces"):
            t.step(C("pair of aces"))
        with pytest.raises(IllegalActionError, match=r"\(pass\)"):
            t.step(0)
        t.claim(0, "pair of kings")
        with pytest.raises(IllegalActionError, match="pick 7C"):
            t.step(pick_id(t.r, "7C"))
        with pytest.raises(IllegalActionError, match="single K"):
            t.step(C("single K"))


# --------------------------------------------------------------------------- each claim type through the engine
class TestClaimTypes:
    def test_wild_claims_beat_every_natural_claim_of_their_count(self, eng) -> None:
        t = Table(P(), eng, ["AH AD 4C", "2C 2S 3D KC KD", "3C", ""])
        t.play(0, "pair of aces", "AH", "AD")
        assert t.claims() == {"pass", "pair of wild cards"}
        t = Table(P(), eng, ["2H 4C", "2C 2D AS", "3C", ""])
        t.play(0, "single wild card", "2H")
        assert t.claims() == {"pass", "single wild card"}             # not the ace: below every wild claim
        t.claim(1, "single wild card")
        assert t.picks() == {"2D"}                                     # 2C is below 2H

    def test_two_pair(self, eng) -> None:
        t = Table(P(), eng, ["KC KH 7C 7H 4C", "KS KD 7S 2D 8C 8D 3C", "3S", ""])
        t.play(0, "two pair, kings and sevens", "KC", "KH", "7C", "7H")
        assert t.claims() == {"pass", "two pair, kings and eights", "two pair, kings and sevens"}
        t.claim(1, "two pair, kings and sevens")
        assert t.picks() == {"KD", "2D"}                               # the first pick beats H
        t.pick("KD")
        assert t.picks() == {"KS", "7S", "2D"}
        t.pick("7S")
        assert t.picks() == {"KS", "2D"}
        t.pick("2D", "KS")
        assert t.top() == ("two pair, kings and sevens", {"KS", "KD", "7S", "2D"}) and t.actor() == 2

    def test_two_pair_by_the_higher_pair_first(self, eng) -> None:
        t = Table(P(), eng, ["QC QS JC JS 4C", "KC KS 3C 3S 4D", "3H", ""])
        t.play(0, "two pair, queens and jacks", "QC", "QS", "JC", "JS")
        assert t.claims() == {"pass", "two pair, kings and threes"}

    @pytest.mark.parametrize("fok", ["revolution", "bomb"])
    def test_four_of_one_rank_is_played_only_with_a_fifth_card(self, eng, fok) -> None:
        # fine point 7: two pair needs two different ranks; four of a kind takes a fifth card
        t = Table(P(four_of_a_kind=fok), eng, ["7C 7D 7H 7S 4C", "3C", "3D", ""])
        assert "four sevens" in t.claims()
        assert not {c for c in t.claims() if c.startswith("two pair")}
        t.play(0, "four sevens", "7C", "7D", "7H", "7S", "4C")
        assert bool(t.st.revolution[0]) is (fok == "revolution")

    def test_four_cards_of_one_rank_alone_are_no_play(self, eng) -> None:
        t = Table(P(), eng, ["7C 7D 7H 7S", "3C", "3D", ""])
        assert not {c for c in t.claims() if c.startswith(("two pair", "four"))}
        t = Table(P(), eng, ["2C 2D 2H 2S", "3C", "3D", ""])          # four wild twos: no claim of four cards
        assert t.claims() == {"single wild card", "pair of wild cards", "three wild cards"}

    def test_a_real_two_pair_is_still_offered(self, eng) -> None:
        t = Table(P(), eng, ["3C 3H 2C 2H", "4C", "4D", ""])
        fours = {c for c in t.claims() if c.startswith("two pair")}
        assert "two pair, threes and threes" not in fours
        assert "two pair, aces and threes" in fours and "two pair, fours and threes" in fours   # the wild pair
        assert len(fours) == 11                                        # threes with each of the 11 other ranks

    def test_straights_on_a_lead(self, eng) -> None:
        t = Table(P(), eng, ["3C 4D 5H 6S 7C 8C 2D QH", "3S", "3D", ""])
        assert {c for c in t.claims() if c.startswith("straight")} == {
            "straight 3 to 7", "straight 4 to 8", "straight 5 to 9"}   # 6-T needs two wild cards

    def test_a_straight_stops_at_the_ace(self, eng) -> None:
        t = Table(P(), eng, ["JC QC KD AH 2S 3C 4D", "3S", "3D", ""])
        assert {c for c in t.claims() if c.startswith("straight")} == {"straight T to A"}   # 2S stands for the T

    def test_wild_cards_fill_gaps_and_picks_come_in_any_order(self, eng) -> None:
        t = Table(P(), eng, ["3C 4D 4H 5H 6S 7C 2D", "3S", "3D", ""])
        t.claim(0, "straight 3 to 7")
        assert t.picks() == {"3C", "4D", "4H", "5H", "6S", "7C", "2D"}
        t.pick("4D")
        assert t.picks() == {"3C", "5H", "6S", "7C", "2D"}             # one card per rank: not 4H
        t.pick("2D")
        assert t.picks() == {"3C", "5H", "6S", "7C"}
        t.pick("3C", "5H")
        assert t.picks() == {"6S", "7C"}                               # the wild card stands for the other
        t.pick("7C")
        st = t.st
        assert t.top() == ("straight 3 to 7", {"4D", "2D", "3C", "5H", "7C"}) and t.hand(0) == {"4H", "6S"}
        assert tables(t.r).play_ranks[int(st.top_rank[0])] == "7" and int(st.top_size[0]) == 5   # choice 47

    def test_a_higher_straight(self, eng) -> None:
        t = Table(P(), eng, ["4C 5C 6C 7C 8S 3H", "5D 6D 7D 8D 9H 3S", "3C", ""])
        t.play(0, "straight 4 to 8", "4C", "5C", "6C", "7C", "8S")
        assert t.claims() == {"pass", "straight 5 to 9"}

    @pytest.mark.parametrize("hand1, claims, first", [
        ("3S 4S 5C 6C 7D KC", {"pass", "straight 3 to 7"}, {"7D"}),
        ("3D 4S 5C 6C 7S KC", {"pass", "straight 3 to 7"}, {"3D"}),   # the best suit is over every card
        ("3S 4S 5C 6C 7S KC", {"pass"}, None),
    ])
    def test_the_same_straight_by_its_best_suit(self, eng, hand1, claims, first) -> None:
        t = Table(P(), eng, ["3C 4C 5S 6S 7H 9C", hand1, "3H", ""])
        t.play(0, "straight 3 to 7", "3C", "4C", "5S", "6S", "7H")
        assert t.claims() == claims
        if first:
            t.claim(1, "straight 3 to 7")
            assert t.picks() == first

    def test_flushes_on_a_lead(self, eng) -> None:
        t = Table(P(), eng, ["3H 7H 9H JH 2H 2S KC", "3S", "3D", ""])
        assert {c for c in t.claims() if c.startswith("flush")} == {
            "flush, jack high", "flush, queen high", "flush, king high", "flush, ace high"}
        t.claim(0, "flush, queen high")
        assert t.picks() == {"3H", "7H", "9H", "JH", "2H"}              # 2S is a wild card of another suit
        t.pick("3H", "7H", "9H", "JH", "2H")
        assert t.top() == ("flush, queen high", {"3H", "7H", "9H", "JH", "2H"})
        assert tables(t.r).play_ranks[int(t.st.top_rank[0])] == "Q"      # choice 47: the q the wild card is

    @pytest.mark.parametrize("top_hand, hand1, claims", [
        ("4C 6C 8C TC KC 3D", "3S 5S 7S 9S KS 4D", {"pass", "flush, king high"}),   # S beats C
        ("4D 6D 8D TD KD 3C", "3S 5S 7S 9S KS 4C", {"pass"}),                        # S is below D
        ("4C 6C 8C TC KC 3D", "3S 5S 7S 9S QS 4D", {"pass"}),                        # queen high is lower
    ])
    def test_a_flush_on_a_flush(self, eng, top_hand, hand1, claims) -> None:
        t = Table(P(), eng, [top_hand, hand1, "3H", ""])
        t.play(0, "flush, king high", *top_hand.split()[:5])
        assert t.claims() == claims

    def test_full_house(self, eng) -> None:
        t = Table(P(), eng, ["7C 7S 7H 3C 3S 4C", "8C 8S 2D 4D 4S 6C", "3H", ""])
        t.play(0, "full house of sevens", "7C", "7S", "7H", "3C", "3S")
        assert t.claims() == {"pass", "full house of eights"}            # fours over eights is lower
        t.claim(1, "full house of eights")
        assert t.picks() == {"8C", "8S", "2D", "4D", "4S"}
        t.pick("8C", "8S", "4D")
        assert t.picks() == {"2D", "4S"}

    def test_three_wild_cards_make_a_full_house_of_any_rank(self, eng) -> None:
        t = Table(P(), eng, ["7C 7S 7H 3C 3S 4C", "2C 2S 2H KC KD", "3H", ""])
        t.play(0, "full house of sevens", "7C", "7S", "7H", "3C", "3S")
        higher = {f"full house of {r}" for r in ("eights", "nines", "tens", "jacks", "queens", "kings", "aces")}
        # sevens too (with KD the play's best suit D beats the top's H); four and five kings beat a full house
        assert t.claims() == {"pass", "full house of sevens", "four kings", "five kings"} | higher
        t.claim(1, "full house of sevens")
        assert t.picks() == {"KD"}                                     # the only card above hearts
        t.pick("KD")
        assert t.picks() == {"2C", "2S", "2H", "KC"}

    def test_three_wild_sevens_tie_on_the_best_suit(self, eng) -> None:
        t = Table(P(), eng, ["7C 7S 7D 3C 3S 4C", "2C 2S 2H KC KH", "3H", ""])
        t.play(0, "full house of sevens", "7C", "7S", "7D", "3C", "3S")
        assert "full house of sevens" not in t.claims() and "full house of eights" in t.claims()
        t = Table(P(equal_rank_beats=True), eng, ["7C 7S 7H 3C 3S 4C", "2C 2S 2H KC KS", "3H", ""])
        t.play(0, "full house of sevens", "7C", "7S", "7H", "3C", "3S")
        assert "full house of sevens" in t.claims()                     # H against H: equal
        t.claim(1, "full house of sevens")
        assert t.picks() == {"2H"}

    def test_four_of_a_kind_and_any_fifth_card(self, eng) -> None:
        t = Table(P(), eng, ["7C 7S 7H 7D 3C KD", "3S", "3D", ""])
        assert {c for c in t.claims() if int(claim_table(t.r).n[C(c)]) == 5} == {"four sevens"}
        t.claim(0, "four sevens")
        assert t.picks() == {"7C", "7S", "7H", "7D", "3C", "KD"}
        t.pick("3C")
        assert t.picks() == {"7C", "7S", "7H", "7D"}
        t.pick("7C", "7S", "7H")
        assert t.picks() == {"7D"}
        t.pick("7D")
        assert t.top() == ("four sevens", {"7C", "7S", "7H", "7D", "3C"}) and t.hand(0) == {"KD"}

    def test_four_of_a_kind_by_its_four(self, eng) -> None:
        t = Table(P(), eng, ["7C 7S 7H 7D AC 3C", "8C 8S 8H 8D 4C", "3S", ""])
        t.play(0, "four sevens", "7C", "7S", "7H", "7D", "AC")
        assert t.claims() == {"pass", "four eights"}
        t = Table(P(), eng, ["7C 7S 7H 7D AC 3C", "6C 6S 6H 6D AD", "3S", ""])
        t.play(0, "four sevens", "7C", "7S", "7H", "7D", "AC")
        assert t.claims() == {"pass"}

    def test_one_suit_is_a_straight_flush_a_flush_and_a_straight(self, eng) -> None:
        t = Table(P(), eng, ["3H 4H 5H 6H 7H 9C", "3S", "3D", ""])
        assert {c for c in t.claims() if int(claim_table(t.r).n[C(c)]) == 5} == {
            "straight flush 3 to 7", "flush, seven high", "straight 3 to 7"}

    @pytest.mark.parametrize("top_hand, top_claim, hand1, claims", [
        ("TC JS QH KD AC 4C", "straight T to A", "3H 5H 7H 9H JH 4D", {"pass", "flush, jack high"}),
        ("3H 5H 7H 9H JH 4D", "flush, jack high", "TC JS QD KD AS 4C", {"pass"}),
        ("3D 5D 7D 9D AD 4C", "flush, ace high", "8C 8S 8H 3C 3S", {"pass", "full house of eights"}),
        ("7C 7S 7H 7D 3C 4C", "four sevens", "3H 4H 5H 6H 2H", {"pass", "straight flush 3 to 7"}),
        ("3H 4H 5H 6H 7H KC", "straight flush 3 to 7", "9C 9S 9H 9D 2S", {"pass", "five nines"}),
    ])
    def test_a_higher_type_beats_any_lower_type(self, eng, top_hand, top_claim, hand1, claims) -> None:
        t = Table(P(), eng, [top_hand, hand1, "3S" if "3S" not in hand1 + top_hand else "6S", ""])
        t.play(0, top_claim, *top_hand.split()[:5])
        assert t.claims() == claims


# --------------------------------------------------------------------------- the first lead (choice 45)
class TestFirstLead:
    def test_only_claims_that_can_hold_3c(self, eng) -> None:
        r = P(first_lead="lowest_card")
        t = Table(r, eng, ["3C 3S 7D 2H KC", "4C", "4S", ""], dealer=2)
        assert t.actor() == 0
        assert t.claims() == {"single 3", "pair of threes", "three threes", "two pair, sevens and threes",
                              "two pair, kings and threes"}        # not a pair of sevens, a single K, a wild single
        t.claim(0, "two pair, kings and threes")
        assert t.picks() == {"3C"}                                   # 3S and 2H would complete it, but 3C first
        t.pick("3C")
        assert t.picks() == {"3S", "KC", "2H"}
        t.pick("2H", "KC", "3S")
        assert t.top() == ("two pair, kings and threes", {"3C", "3S", "KC", "2H"}) and t.actor() == 1

    def test_the_second_lead_is_free(self, eng) -> None:
        r = P(first_lead="lowest_card")
        t = Table(r, eng, ["3C 7D 7H", "4C", "4S", ""], dealer=2)
        t.claim(0, "single 3")
        assert t.picks() == {"3C"}
        t.pick("3C").passes(1, 2, 3)
        assert t.actor() == 0 and t.top() == (None, set())
        assert t.claims() == {"single 7", "pair of sevens"}


# --------------------------------------------------------------------------- revolution and bombs (choice 46)
def _revolt(eng: str, rest: str, hand1: str, hand2: str = "3C", **options) -> Table:
    """Player 0 plays four sevens and KC under four_of_a_kind revolution, everyone passes: player 0 leads again."""
    t = Table(P(four_of_a_kind="revolution", **options), eng, ["7C 7S 7H 7D KC " + rest, hand1, hand2, ""])
    t.claim(0, "four sevens").pick("7C", "7S", "7H", "7D")
    assert not bool(t.st.revolution[0])                              # not before the last pick
    t.pick("KC")
    assert bool(t.st.revolution[0])
    t.passes(1, 2, 3)
    assert t.actor() == 0 and t.top() == (None, set())
    return t


class TestRevolution:
    def test_ranks_compare_reversed(self, eng) -> None:
        t = _revolt(eng, "8H", "6C 9D")
        t.play(0, "single 8", "8H")
        assert t.claims() == {"pass", "single 6"}

    def test_suits_compare_reversed(self, eng) -> None:
        t = _revolt(eng, "8H", "8C 8D")
        t.play(0, "single 8", "8H")
        assert t.claims() == {"pass", "single 8"}
        t.claim(1, "single 8")
        assert t.picks() == {"8C"}                                     # the club is the strongest suit now

    def test_straights_compare_by_their_lowest_rank(self, eng) -> None:
        t = _revolt(eng, "4D 5D 6D 8D 2S", "3C 4S 5C 6H 2H", "9C")
        t.play(0, "straight 4 to 8", "4D", "5D", "6D", "8D", "2S")
        assert t.claims() == {"pass", "straight 3 to 7"}
        assert tables(t.r).play_ranks[int(t.st.top_rank[0])] == "8"    # choice 47: the highest in rank_order
        plain = Table(P(), eng, ["4D 5D 6D 8D 2S 9H", "3C 4S 5C 6H 2H", "9C", ""])
        plain.play(0, "straight 4 to 8", "4D", "5D", "6D", "8D", "2S")
        assert plain.claims() == {"pass"}

    def test_flush_claims_and_keys_under_a_revolution(self, eng) -> None:
        t = _revolt(eng, "9H JH KH AH 2H", "3S 4S 6S TS QS")
        nine_down = {f"flush, {_ONE[q]} high" for q in "3456789"}
        assert {c for c in t.claims() if c.startswith("flush")} == nine_down   # q is the lowest card now
        t.play(0, "flush, nine high", "9H", "JH", "KH", "AH", "2H")
        assert t.claims() == {"pass", "flush, three high"}
        plain = Table(P(), eng, ["9H JH KH AH 2H 4C", "3S", "3D", ""])
        assert {c for c in plain.claims() if c.startswith("flush")} == {"flush, ace high"}

    def test_the_type_order_does_not_turn(self, eng) -> None:
        t = _revolt(eng, "3D 4D 5C 6C 2C", "8S 9S JS QS KS")
        t.play(0, "straight 3 to 7", "3D", "4D", "5C", "6C", "2C")
        assert t.claims() == {"pass", "flush, eight high"}

    def test_wild_claims_stay_above_naturals(self, eng) -> None:
        t = _revolt(eng, "3H", "2C 4D")
        t.play(0, "single 3", "3H")
        assert t.claims() == {"pass", "single wild card"}

    @pytest.mark.parametrize("play, revolt", [
        (("five sevens", "7C", "7S", "7H", "7D", "2C"), True),
        (("two pair, sevens and threes", "7C", "7S", "2H", "2D"), False),
        (("full house of sevens", "7C", "7S", "7H", "2C", "2S"), False),
    ])
    def test_which_plays_start_one(self, eng, play, revolt) -> None:
        t = Table(P(four_of_a_kind="revolution"), eng, ["7C 7S 7H 7D 2C 2S 2H 2D 4C", "3C", "3D", ""])
        t.play(0, *play)
        assert bool(t.st.revolution[0]) is revolt


class TestBomb:
    def test_a_four_of_a_kind_on_a_single_ends_the_trick(self, eng) -> None:
        t = Table(P(four_of_a_kind="bomb"), eng, ["9C 4C", "8C 8S 8H 8D 3D 4D", "3C", ""])
        t.play(0, "single 9", "9C")
        assert t.claims() == {"pass", "four eights"}                   # not two pair of eights: no bomb
        t.play(1, "four eights", "8C", "8S", "8H", "8D", "3D")
        assert t.top() == (None, set()) and t.actor() == 1 and int(t.st.top_claim[0]) == 0

    def test_a_bomb_led_ends_the_trick(self, eng) -> None:
        t = Table(P(four_of_a_kind="bomb"), eng, ["7C 7S 7H 7D 3C 4C", "3S", "3D", ""])
        t.play(0, "four sevens", "7C", "7S", "7H", "7D", "3C")
        assert t.top() == (None, set()) and t.actor() == 0

    def test_four_and_five_of_a_kind_on_a_pair(self, eng) -> None:
        t = Table(P(four_of_a_kind="bomb"), eng, ["9C 9S 4C", "8C 8S 8H 8D 2D 4D", "3C", ""])
        t.play(0, "pair of nines", "9C", "9S")
        assert t.claims() == {"pass", "four eights", "five eights"}

    def test_four_wild_cards_bomb_as_four_of_any_rank(self, eng) -> None:
        t = Table(P(four_of_a_kind="bomb"), eng, ["9C 4C", "2C 2S 2H 2D 5C", "3C", ""])
        t.play(0, "single 9", "9C")
        fours = {f"four {w}" for w in ("threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
                                       "jacks", "queens", "kings", "aces")}
        # the four wild cards as four of any rank with 5C, or five fives; four wild cards alone are no play
        assert t.claims() == {"pass", "single wild card", "five fives"} | fours

    def test_without_bombs_a_four_of_a_kind_keeps_the_count(self, eng) -> None:
        t = Table(P(), eng, ["9C 4C", "8C 8S 8H 8D 3D 4D", "3C", ""])
        t.play(0, "single 9", "9C")
        assert t.claims() == {"pass"}


# --------------------------------------------------------------------------- the exchange (choice 42)
class TestExchange:
    def test_the_give_back_is_a_pick(self, eng) -> None:
        r = P()
        t = Table(r, eng, ["7C 7H 3C 4D", "5C", "6C", "9S 3D"], start_ranks=[0, 1, 2, 3])
        st = t.st
        assert int(st.phase[0]) == EXCHANGE and t.actor() == 0
        held = t.hand(0)
        assert "2D" in held                                          # the Scum's best card: a wild two, diamonds
        assert set(t.legal()) == {pick_id(r, c) for c in held}       # one pick per card held, nothing else
        t.step(pick_id(r, "7H"))
        assert card_names(r, t.st.moved[0]) == ["7H"]
        assert "7H" in t.hand(3) and "7H" not in t.hand(0) and "7C" in t.hand(0)
        assert int(t.st.phase[0]) == PLAY

    def test_merchant_trades_are_picks(self, eng) -> None:
        r = preset("rich_man_poor_man", players=6, merchant_trade=True, hands_per_session=1, first_lead="dealer",
                   exchange=(1,))
        assert r.merchant_pairs == ((1, 2), (3, 4))
        hands = ["3C 3D 3H 3S", "7C 7D 4C 4D", "8C 8H 4H 4S", "9C 9D 5C 5D", "6C 6H 5H 5S", "9H 9S 6D 6S"]
        t = Table(r, eng, hands, rest_to=0, start_ranks=[0, 1, 2, 3, 4, 5])
        t.step(pick_id(r, "3C"))                                     # the President's give-back
        chosen = {1: "7D", 2: "8H", 3: "9D", 4: "6H"}
        while int(t.st.phase[0]) == EXCHANGE:
            p = t.actor()
            assert set(t.legal()) == {pick_id(r, c) for c in t.hand(p)}, p
            t.step(pick_id(r, chosen.pop(p)))
        assert chosen == {}
        assert "8H" in t.hand(1) and "7D" in t.hand(2) and "6H" in t.hand(3) and "9D" in t.hand(4)


# --------------------------------------------------------------------------- observation (choice 45)
def _claimed_and_picked():
    r = P()
    st0 = game(r, ["7C 7D 2S 4C", "3C", "3D", ""], rest_to=3)
    st1 = step(r, st0, np.array([C("pair of sevens")]))
    a = step(r, st1, np.array([pick_id(r, "7C")]))
    b = step(r, st1, np.array([pick_id(r, "7D")]))
    return r, st0, st1, a, b


def test_the_others_see_no_claim_and_no_pick() -> None:
    r, st0, st1, a, b = _claimed_and_picked()
    for p in (1, 2, 3):                                              # the others see nothing until the play
        np.testing.assert_array_equal(observe(r, st0, p), observe(r, st1, p))
        np.testing.assert_array_equal(observe(r, a, p), observe(r, b, p))
    for s in (st1, a):
        g = ScalarGame.from_state(r, s)
        for p in range(4):
            np.testing.assert_array_equal(g.observe(p), observe(r, s, p)[0])


def test_the_player_sees_its_claim_and_picks() -> None:
    from president_env.core.observation import slices

    r, st0, st1, a, b = _claimed_and_picked()
    assert {"claim", "picked"} <= set(slices(r))
    sl = slices(r)
    assert not np.array_equal(observe(r, st0, 0)[:, sl["claim"]], observe(r, st1, 0)[:, sl["claim"]])
    assert not observe(r, st1, 0)[:, sl["picked"]].any()
    assert not np.array_equal(observe(r, a, 0)[:, sl["picked"]], observe(r, b, 0)[:, sl["picked"]])


# --------------------------------------------------------------------------- records (section 9)
def _plays(rules: Rules, rec: dict) -> list[tuple[int, int, list[str]]]:
    """(decision index of the last pick, claim, cards) of every play of a record; checks the picks add up."""
    ct = claim_table(rules)
    n_back = sum(b for _, b in rules.exchange_pairs) if rec["prev_ranks"] is not None else 0
    out = []
    claim, picks = 0, []
    for i, d in enumerate(rec["decisions"]):
        a = d["action"]
        if i < n_back:
            continue
        if claim == 0:
            assert a <= ct.X and d["cards"] == [], (i, d)            # a pass or a claim moves nothing
            if a:
                claim, picks = a, []
            continue
        assert a > ct.X, (i, d)                                        # after a claim, only picks
        picks.append(ct.pick_names[a - ct.X - 1])
        if len(picks) == int(ct.n[claim]):
            assert sorted(d["cards"]) == sorted(picks), (i, d)
            out.append((i, claim, picks))
            claim = 0
        else:
            assert d["cards"] == [], (i, d)                           # nothing moves before the last pick
    assert claim == 0
    return out


@pytest.mark.parametrize("options", [{}, {"four_of_a_kind": "revolution"}, {"four_of_a_kind": "bomb"}])
def test_records_replay_poker_hands(options) -> None:
    rules = preset("rich_man_poor_man", hands_per_session=2, **options)
    records = random_records(rules, [5, 6])
    assert len(records) == 4
    n_plays = 0
    for rec in records:
        assert rec["preset"] == "rich_man_poor_man" and rec["rules"]["combinations"] == "poker"
        end = replay(rec)
        assert end.hand_points[0].tolist() == rec["points"]
        plays = _plays(rules, rec)
        n_plays += len(plays)
        for _, claim, picked in plays:     # (a flush is read in the order in force, which the record does not say)
            assert satisfies(rules, claim, picked) or satisfies(rules, claim, picked, revolution=True)
    assert n_plays > 20


def test_a_record_with_another_last_pick_fails() -> None:
    rules = preset("rich_man_poor_man", hands_per_session=1)
    ct = claim_table(rules)
    for key in range(20):
        (rec,) = random_records(rules, [key], seed=key)
        for i, _claim, _picked in _plays(rules, rec):
            d = rec["decisions"][i]
            other = [b for b in d["legal"] if b != d["action"] and b > ct.X]
            if other:
                bad = copy.deepcopy(rec)
                bad["decisions"][i]["action"] = other[0]
                with pytest.raises(ReplayError, match=rf"decision {i}"):
                    replay(bad)
                return
    pytest.fail("no last pick with a choice of cards in 20 hands")


# --------------------------------------------------------------------------- random positions, by brute force
def _reference(r: Rules, st: State) -> set[int] | None:
    """The legal ids of game 0 stated from choice 45 with satisfies/beats over every subset of the hand
    (None when the hand is too big to try every subset quickly)."""
    ct, t = claim_table(r), tables(r)
    seat = int(st.current[0])
    held = [t.card_names[c] for c in np.flatnonzero(st.hands[0, seat])]
    if int(st.phase[0]) == EXCHANGE:
        return {ct.pick_id(c) for c in held}
    if int(st.phase[0]) == OVER:
        return {0}
    if len(held) > 9:
        return None
    rev = bool(st.revolution[0])
    top = int(st.top_claim[0])
    top_cards = card_names(r, st.top_cards[0])
    low = f"{ct.naturals[0]}{r.suit_order[0]}"
    first = r.first_lead == "lowest_card" and bool(st.first_lead[0])
    claim = int(st.poker_claim[0])

    def good(c: int, play: list[str]) -> bool:
        return satisfies(r, c, play, rev) and beats(r, c, play, top, top_cards, rev) and (not first or low in play)

    if claim == 0:
        out = set()
        for n in range(1, 6):
            ids = [i for i in range(1, ct.X + 1) if int(ct.n[i]) == n      # (beats decides; this only prunes)
                   and (not top or n == int(ct.n[top]) or (r.four_of_a_kind == "bomb" and ct.bomb[i]))]
            for combo in combinations(held, n):
                for i in ids:
                    if i not in out and good(i, list(combo)):
                        out.add(i)
        if top and not (r.compulsory_beat and out):
            out.add(0)
        return out
    picked = card_names(r, st.picked[0])
    rest = list(held)
    for c in picked:
        rest.remove(c)
    n, out = int(ct.n[claim]), set()
    for k, c in enumerate(rest):
        if not picked:
            if first and c != low:
                continue
            if claim == top:
                mine, theirs = best_suit(r, [c], rev), best_suit(r, top_cards, rev)
                if not (mine > theirs or (mine == theirs and r.equal_rank_beats)):
                    continue
        others = rest[:k] + rest[k + 1:]
        if any(good(claim, picked + [c] + list(more)) for more in combinations(others, n - len(picked) - 1)):
            out.add(ct.pick_id(c))
    return out


@pytest.mark.parametrize("options", [{}, {"four_of_a_kind": "revolution", "equal_rank_beats": True},
                                     {"four_of_a_kind": "bomb", "compulsory_beat": True}])
def test_random_positions_match_the_reference(options) -> None:
    r = preset("rich_man_poor_man", players=6, hands_per_session=2, **options)   # small hands: 8 or 9 cards
    st = init(r, 1, seed=7)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(600):
        if int(st.phase[0]) == OVER:
            break
        want = _reference(r, st)
        got = set(np.flatnonzero(st.legal[0]).tolist())
        assert got                                                    # a claim offered can always be completed
        if want is not None:
            assert got == want, (f"claim {int(st.poker_claim[0])} picked {card_names(r, st.picked[0])} "
                                 f"top {int(st.top_claim[0])} {card_names(r, st.top_cards[0])}: "
                                 f"extra {sorted(got - want)} missing {sorted(want - got)}")
            checked += 1
        legal = np.flatnonzero(st.legal[0])
        st = step(r, st, np.array([legal[rng.integers(legal.size)]]))
    assert checked > 100
