"""The engine's poker masks (docs/rules.md choices 41-48) against the plain reference, one game at a time.

* :func:`reference_poker_mask` (brute force over subsets with ``satisfies`` and ``beats``) on hand-built
  situations: a lead, the first lead, the first-pick suit rule, ``equal_rank_beats``, bombs,
  ``compulsory_beat``, a flush under a revolution, two decks;
* the engine's legal ids (a game stepped alone, ``ScalarGame``) equal :func:`reference_poker_mask` at random
  positions of random games: the engine counts cards, the reference tries every subset of the hand;
* stepping: a claim moves nothing and the same player picks next, a pick takes the first copy held, the
  last pick makes the play; the exchange's give-backs are picks.

tests/test_poker.py drives the engine through the scenarios of the rule book.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import game

from president_env.core import EXCHANGE, OVER, PLAY, Rules, preset, refresh_legal, tables
from president_env.core.actions import claim_id, pick_id
from president_env.core.poker import claim_table
from president_env.core.poker_reference import reference_poker_mask
from president_env.core.scalar import ScalarGame

RMPM = preset("rich_man_poor_man")   # suits C < S < H < D, twos wild
PACKS = {
    "rich_man_poor_man": RMPM,
    "two_wild_ranks_two_decks": Rules(combinations="poker", decks=2, players=5, wild_ranks={"2", "7"}),
    "no_wild_short": Rules(combinations="poker", rank_order="3 4 5 6 7 8 9", players=3),
    "wild_inside_the_order": Rules(combinations="poker", rank_order="A 2 3 4 5 6 7 8 9", wild_ranks={"5"},
                                   players=3, suit_order=("S", "H", "C", "D")),
}


def ids(rules: Rules, *words: str) -> set[int]:
    """Claim ids by their words ('pass' is 0)."""
    return {0 if w == "pass" else claim_id(rules, w) for w in words}


def picks(rules: Rules, *cards: str) -> set[int]:
    return {pick_id(rules, c) for c in cards}


def mask(rules: Rules, hand: str, picked: str = "", claim: str | None = None, top: str | None = None,
         top_cards: str = "", rev: bool = False, first: bool = False) -> set[int]:
    return reference_poker_mask(rules, hand.split(), picked.split(), claim_id(rules, claim) if claim else 0,
                                claim_id(rules, top) if top else 0, top_cards.split(), rev, first)


# --------------------------------------------------------------------------- the reference, hand-built
def test_a_lead() -> None:
    r = RMPM
    assert mask(r, "7C 7D 2S KH") == ids(r, "single 7", "single K", "single wild card", "pair of sevens",
                                          "pair of kings", "three sevens", "two pair, kings and sevens")
    # two wild cards make a pair of any other rank with the sevens (choice 43); never four sevens (fine point 7)
    ranks = ("threes", "fours", "fives", "sixes", "eights", "nines", "tens", "jacks", "queens", "kings", "aces")
    high = {claim_id(r, f"two pair, {p} and sevens") for p in ranks[4:]}
    low = {claim_id(r, f"two pair, sevens and {p}") for p in ranks[:4]}
    assert {x for x in mask(r, "7C 7D 2S 2H") if claim_table(r).n[x] == 4} == high | low


def test_the_first_lead_holds_the_lowest_card() -> None:
    r = RMPM
    assert mask(r, "3C 3D 4C 2D", first=True) == ids(r, "single 3", "pair of threes", "three threes",
                                                      "two pair, fours and threes")
    assert mask(r, "3C 3D 4C 2D", claim="pair of threes", first=True) == picks(r, "3C")
    assert mask(r, "3C 3D 4C 2D", picked="3C", claim="pair of threes", first=True) == picks(r, "3D", "2D")
    assert mask(r, "4C 4D", first=True) == set()   # nothing holds 3C (the engine never asks this)


def test_the_first_pick_on_the_tops_own_claim_beats_its_best_suit() -> None:
    r = RMPM   # C < S < H < D: 7H 7S has best suit H
    assert mask(r, "7C 7D 2S", top="pair of sevens", top_cards="7H 7S") >= ids(r, "pass", "pair of sevens")
    assert mask(r, "7C 7D 2S", claim="pair of sevens", top="pair of sevens", top_cards="7H 7S") == picks(r, "7D")
    assert mask(r, "7C 7D 2S", picked="7D", claim="pair of sevens", top="pair of sevens",
                top_cards="7H 7S") == picks(r, "7C", "2S")
    # best suit H against H: only with equal_rank_beats, and the first pick is the H card
    assert claim_id(r, "pair of sevens") not in mask(r, "7C 2H", top="pair of sevens", top_cards="7H 7S")
    erb = preset("rich_man_poor_man", equal_rank_beats=True)
    assert claim_id(erb, "pair of sevens") in mask(erb, "7C 2H", top="pair of sevens", top_cards="7H 7S")
    assert mask(erb, "7C 2H", claim="pair of sevens", top="pair of sevens", top_cards="7H 7S") == picks(erb, "2H")
    # a higher claim of the count is free of the suit rule
    assert mask(r, "8C 8S 2C", claim="pair of eights", top="pair of sevens", top_cards="7H 7S") == \
        picks(r, "8C", "8S", "2C")


def test_the_count_of_the_lead_and_bombs() -> None:
    r = RMPM
    hand = "9C 9D 9H 9S 4C"
    assert mask(r, hand, top="single 3", top_cards="3C") == ids(r, "pass", "single 4", "single 9")
    bomb = preset("rich_man_poor_man", four_of_a_kind="bomb")
    assert mask(bomb, hand, top="single 3", top_cards="3C") == ids(bomb, "pass", "single 4", "single 9",
                                                                  "four nines")
    assert mask(bomb, hand, claim="four nines", top="single 3", top_cards="3C") == picks(bomb, *hand.split())
    assert mask(bomb, hand, picked="9C 9D 9H", claim="four nines", top="single 3", top_cards="3C") == \
        picks(bomb, "9S", "4C")


def test_compulsory_beat() -> None:
    r = preset("rich_man_poor_man", compulsory_beat=True)
    assert mask(r, "9C 4C", top="single 8", top_cards="8D") == ids(r, "single 9")
    assert mask(r, "7C 4C", top="single 8", top_cards="8D") == ids(r, "pass")


def test_a_flush_under_a_revolution() -> None:
    r = preset("rich_man_poor_man", four_of_a_kind="revolution")
    hand = "3H 5H 8H TH KH"
    assert claim_id(r, "flush, king high") in mask(r, hand)
    assert claim_id(r, "flush, three high") in mask(r, hand, rev=True)
    assert claim_id(r, "flush, king high") not in mask(r, hand, rev=True)
    # a wild card of the suit stands for a higher card: under a revolution, a lower one
    assert {claim_id(r, "flush, king high"), claim_id(r, "flush, ace high")} <= mask(r, "3H 5H 8H TH 2H")
    assert claim_id(r, "flush, ace high") not in mask(r, "3H 5H 8H TH 2C")
    low = {x for x in mask(r, "5H 8H TH KH 2H", rev=True) if "flush" in claim_table(r).words[x]}
    assert low == ids(r, "flush, five high", "flush, four high", "flush, three high")


def test_two_decks_pick_a_card_twice() -> None:
    r = Rules(combinations="poker", decks=2, players=5, wild_ranks={"2"})
    assert mask(r, "7C 7C 5D", claim="pair of sevens") == picks(r, "7C")
    assert mask(r, "7C 7C 5D", picked="7C", claim="pair of sevens") == picks(r, "7C")
    with pytest.raises(ValueError, match="not all in the hand"):
        mask(r, "7C 5D", picked="7C 7C", claim="three sevens")


# --------------------------------------------------------------------------- the engine, one game
def _names(rules: Rules, cards) -> list[str]:
    return [tables(rules).card_names[c] for c in cards]


def v(g: ScalarGame, name: str):
    """Field ``name`` of the game as Python values (a card field as the list of its cards)."""
    a = getattr(g.state, name)[0]
    if a.ndim == 0:
        return a.item()
    if name in ("picked", "moved", "top_cards"):
        return np.flatnonzero(a).tolist()
    return a.tolist()


def held(g: ScalarGame) -> list[int]:
    return np.flatnonzero(g.state.hands[0, g.current]).tolist()


def _check(rules: Rules, g: ScalarGame) -> None:
    hand = _names(rules, held(g))
    want = reference_poker_mask(rules, hand, _names(rules, v(g, "picked")), v(g, "poker_claim"), v(g, "top_claim"),
                                _names(rules, v(g, "top_cards")), v(g, "revolution"), v(g, "first_lead"))
    assert g.legal == sorted(want), (hand, v(g, "picked"), v(g, "poker_claim"), v(g, "top_claim"),
                                     v(g, "top_cards"), v(g, "revolution"))


RANDOM = {
    "rich_man_poor_man_6": preset("rich_man_poor_man", players=6, hands_per_session=2),
    "revolution_equal": preset("rich_man_poor_man", players=7, four_of_a_kind="revolution_and_reverse",
                               equal_rank_beats=True, hands_per_session=2),
    "bomb_compulsory": Rules(combinations="poker", players=4, rank_order="3 4 5 6 7 8 9 T", wild_ranks={"9"},
                             four_of_a_kind="bomb", compulsory_beat=True, hands_per_session=2),
    "two_decks": Rules(combinations="poker", players=5, decks=2, rank_order="5 6 7 8 9 T", wild_ranks={"T"},
                       four_of_a_kind="revolution", pass_rule="single_round", hands_per_session=2),
}


@pytest.mark.parametrize("name", list(RANDOM))
def test_random_positions_match_the_reference(name: str) -> None:
    """Every play decision of random games on hands of at most 7 cards (the reference is slow), and the
    first lead of each hand."""
    r = RANDOM[name]
    rnd = random.Random(3)
    checked = same = 0
    for seed in range(3):
        g = ScalarGame.new(r, seed=seed)
        while not g.over:
            if g.phase == PLAY and (v(g, "n_cards")[g.current] <= 7 or v(g, "first_lead")):
                _check(r, g)
                checked += 1
                same += v(g, "top_claim") > 0 and v(g, "poker_claim") == v(g, "top_claim")
            g.step(rnd.choice(g.legal))
    assert checked > 200 and same > 0


def test_claims_picks_and_the_play() -> None:
    r = RMPM
    st = game(r, ["3C 7C 7D 2S KH", "3D 8C", "4C 9C", "5C"], rest_to=3)
    g = ScalarGame.from_state(r, st)
    assert g.current == 0 and v(g, "first_lead")
    assert claim_id(r, "pair of threes") in g.legal   # 3C and the wild 2S
    g.step(claim_id(r, "pair of threes"))
    assert (g.current, v(g, "poker_claim"), v(g, "picked"), v(g, "moved")) == (0, claim_id(r, "pair of threes"), [], [])
    assert g.legal == sorted(picks(r, "3C"))
    g.step(pick_id(r, "3C"))
    assert v(g, "picked") == _card(r, "3C") and v(g, "moved") == [] and v(g, "n_cards")[0] == 5
    assert g.legal == sorted(picks(r, "2S"))
    g.step(pick_id(r, "2S"))
    assert v(g, "moved") == sorted(_card(r, "3C") + _card(r, "2S")) and v(g, "picked") == []
    assert v(g, "poker_claim") == 0
    assert (v(g, "top_claim"), v(g, "top_size"), v(g, "top_owner"), v(g, "top_wild"), v(g, "first_lead")) == \
        (claim_id(r, "pair of threes"), 2, 0, True, False)
    assert v(g, "top_rank") == int(claim_table(r).first_rank[v(g, "top_claim")]) and v(g, "n_cards")[0] == 3
    assert g.current == 1 and 0 in g.legal
    state = g.to_state()
    assert int(state.top_claim[0]) == v(g, "top_claim") and state.top_cards[0].sum() == 2


def _card(rules: Rules, name: str, copy: int = 0) -> list[int]:
    return [[c for c, n in enumerate(tables(rules).card_names) if n == name][copy]]


def test_two_decks_a_pick_takes_the_first_copy_held() -> None:
    r = Rules(combinations="poker", decks=2, players=3, rank_order="3 4 5 6 7 8 9", first_lead="dealer_left",
              hands_per_session=1, exchange=())
    st = game(r, ["7C 7C 4D", "3C 3D", "5C"], rest_to=2, dealer=2)
    g = ScalarGame.from_state(r, st)
    assert g.current == 0
    g.step(claim_id(r, "pair of sevens"))
    g.step(pick_id(r, "7C"))
    assert v(g, "picked") == _card(r, "7C", 0) and g.legal == [pick_id(r, "7C")]
    g.step(pick_id(r, "7C"))
    assert v(g, "moved") == _card(r, "7C", 0) + _card(r, "7C", 1)


def test_the_exchange_gives_back_by_pick() -> None:
    r = preset("rich_man_poor_man", players=4, hands_per_session=2)
    g = ScalarGame.new(r, seed=5, start_ranks=np.array([[0, 1, 2, 3]]))
    assert g.phase == EXCHANGE
    mine = sorted({pick_id(r, n) for n in _names(r, held(g))})
    assert g.legal == mine
    a = g.legal[0]
    name = claim_table(r).pick_names[a - 1 - claim_table(r).X]
    first = min(c for c in held(g) if tables(r).card_names[c] == name)
    g.step(a)
    assert v(g, "moved") == [first]


def test_a_two_deck_first_lead_holds_either_copy() -> None:
    """The first-lead player holds only the second copy of the lowest card: every claim holds it (the batch and
    the game alone agree)."""
    r = Rules(combinations="poker", decks=2, rank_order="3 4 5 6 7", players=3, exchange=(), hands_per_session=1)
    st = game(r, ["3C 5H 6D", "3C 4C", "3D"], rest_to=2)   # player 0 is dealt the first 3C
    # give player 0 the second copy instead, player 1 the first
    first, second = _card(r, "3C", 0)[0], _card(r, "3C", 1)[0]
    st.hands[0, :, [first, second]] = st.hands[0, :, [second, first]]
    st.current[0] = int(np.flatnonzero(st.hands[0, :, second])[0])
    st.leader[0] = st.current[0]
    st.first_lead[0] = True
    refresh_legal(r, st)
    g = ScalarGame.from_state(r, st)
    assert [claim_table(r).words[a] for a in g.legal] == ["single 3"]
    assert np.flatnonzero(st.legal[0]).tolist() == g.legal, [claim_table(r).words[a]
                                                              for a in np.flatnonzero(st.legal[0])]


def test_over_has_only_pass() -> None:
    r = preset("rich_man_poor_man", players=3, hands_per_session=1)
    g = ScalarGame.new(r, seed=0)
    rnd = random.Random(0)
    while not g.over:
        g.step(rnd.choice(g.legal))
    assert g.phase == OVER and g.legal == [0]
