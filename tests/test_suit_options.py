"""Scenarios for the section 8 options whose moves the (rank, size) action table names: ``suit_order``,
``high_cards`` and ``quick_clear`` (rules.md section 8 and its fine points 4, 5, 8, 9), on hand-built hands.

Every scenario runs on both engines (``both``: the batched engine, and ``ScalarGame`` replaying the same
moves, compared field by field and observation by observation).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import actor, game, hand, legal_moves, move_id, play, top
from test_options_more import both, moved

from president_env.core import Rules, RulesError, init, observe, preset, tables
from president_env.core.observation import slices


def R(**options) -> Rules:
    """Four players, one hand per session, the dealer (seat 0) leads; ranks 3 to 9 unless told."""
    base = {"players": 4, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,),
            "rank_order": "3 4 5 6 7 8 9"}
    base.update(options)
    return Rules(**base)


# =========================================================================== suit_order
class TestSuitOrder:
    def test_the_lowest_card_is_in_the_weakest_suit(self) -> None:
        r = R(first_lead="lowest_card", suit_order="S H D C")
        assert tables(r).card_names[tables(r).lowest_card] == "3S"
        st = game(r, ["3C 3D 4C", "3S 5C", "3H 6C", "7C"], rest_to="spread", dealer=0)
        assert actor(st) == 1                      # the holder of 3S leads, not the holder of 3C
        assert legal_moves(r, st) == {"3"}
        st = both(r, st, (1, "3"))
        assert moved(r, st) == ["3S"]

    def test_lowest_suit_first_follows_the_order(self) -> None:
        r = R(suit_order="D C S H")
        st = game(r, ["7C 7D 7H 3C", "4C", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"))
        assert moved(r, st) == ["7D", "7C"]        # D and C are the weakest suits; H stays

    def test_best_cards_and_give_backs_go_by_the_order(self) -> None:
        r = R(suit_order="S H D C")
        # player 3 (Scum) gives its best card to player 0 (President): the two of clubs, strongest suit
        st = game(r, ["3C 3D 4C", "5C", "6C", "9S 9H 9C 4D"], rest_to="spread", start_ranks=[0, 1, 2, 3])
        assert "9C" in hand(r, st, 0) and "9S" in hand(r, st, 3)
        st = both(r, st, (0, "3"))                  # the President gives back a 3: the weakest suit, 3D
        assert moved(r, st) == ["3D"]

    def test_exposed_piles_tie_by_the_order(self) -> None:
        from president_env.core.kernel import fields as F
        from president_env.core.kernel.consts import consts

        default, spades_low = R(), R(suit_order="S H D C")
        for rules, stronger in ((default, "7S"), (spades_low, "7C")):
            names = tables(rules).card_names
            ident = consts(rules).table("card")[F.C_IDENT]      # the exposed piles' order (fine point 9)
            key = {names[c]: int(ident[c]) for c in range(len(names))}
            assert max(("7C", "7D", "7H", "7S"), key=key.get) == stronger

    @pytest.mark.parametrize("value", ["C D H", "C C D H", "C D H X", "C D H S S"])
    def test_not_the_four_suits_is_refused(self, value) -> None:
        with pytest.raises(RulesError, match="suit_order.*four suits"):
            R(suit_order=value)


# =========================================================================== high_cards
class TestHighCards:
    def test_above_every_natural_rank_and_joker_below_an_all_wild_set(self) -> None:
        r = R(jokers=1, high_cards="JD", rank_order="3 4 5 6 7 8 9 T J Q K A 2")
        st = game(r, ["2C 3C", "JK 4C", "JD 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "2"), (1, "JK"))
        assert "JD" in legal_moves(r, st)
        st = both(r, st, (2, "JD"))
        assert legal_moves(r, play(r, st, (3, "pass"))) == {"pass"}  # nothing beats it: not the two, not JK
        w = R(jokers=2, joker_mode="wild", wild_ranks={"JK"}, high_cards="9C")
        st = game(w, ["9C 3C", "JK 4C", "5C", "6C"], rest_to="spread")
        st = both(w, st, (0, "9C"))
        assert "WILD" in legal_moves(w, st)          # an all-wild set beats a high card

    def test_each_beats_the_named_cards_before_it(self) -> None:
        r = R(high_cards="3C 3S")
        st = game(r, ["3C 4C", "3S 5C", "6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "3C"))
        assert "3S" in legal_moves(r, st)
        st = both(r, st, (1, "3S"))
        assert top(r, st) == "3S"
        st2 = game(r, ["3S 4C", "3C 5C", "6C", "7C"], rest_to="spread")
        st2 = both(r, st2, (0, "3S"))
        assert "3C" not in legal_moves(r, st2)

    def test_only_singles_and_the_natural_rank_keeps_the_rest(self) -> None:
        r = R(decks=2, players=5, high_cards="7D", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["7D 7D 7C 7C 7H 3C", "7H 4C", "7S 5C", "7S 6C", "8C"], rest_to="spread")
        moves = legal_moves(r, st)
        assert "7D" in moves and "7Dx2" not in moves
        assert "7x3" in moves and "7x4" not in moves      # the natural sevens: 7C 7C 7H
        st = both(r, st, (0, "7x3"))
        assert sorted(moved(r, st)) == ["7C", "7C", "7H"]

    def test_they_stay_on_top_under_a_revolution(self) -> None:
        r = R(high_cards="9C", four_of_a_kind="revolution")
        st = game(r, ["5C 5D 5H 5S 9C", "4C 3D", "6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "5x4"))                  # revolution: threes are now the highest naturals
        assert bool(st.revolution[0])
        st = both(r, st, (1, "pass"), (2, "pass"), (3, "pass"), (0, "9C"))
        assert top(r, st) == "9C"
        assert legal_moves(r, st) == {"pass"}        # player 1 holds 3D, the best natural now: still lower

    def test_never_trump_reset_or_transparent(self) -> None:
        # the printed rank's role does not follow the card: 9C is not a trump, 9D not a reset
        r = R(high_cards="9C", trump_ranks={"9"}, rank_order="3 4 5 6 7 8 9")
        st = game(r, ["9C 3C", "4C 4D", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "3"), (1, "4"))
        st = both(r, st, (2, "pass"), (3, "pass"), (0, "9C"))
        assert top(r, st) == "9C" and actor(st) == 1   # the trick goes on: no trump clear
        r = R(high_cards="9D", reset_ranks={"9"})
        st = game(r, ["9D 3C", "4C 4D", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "3"), (1, "4"), (2, "pass"), (3, "pass"), (0, "9D"))
        assert top(r, st) == "9D"

    def test_a_transparent_single_or_a_reset_may_be_played_on_one_a_trump_may_not(self) -> None:
        r = R(high_cards="9C", transparent_rank="3")
        st = game(r, ["9C 4C", "3D 5C", "6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "9C"))
        assert "3" in legal_moves(r, st)
        st = both(r, st, (1, "3"))
        assert top(r, st) == "9C"                    # the transparent single counts as the card it beat
        r = R(high_cards="9C", reset_ranks={"4"})
        st = game(r, ["9C 5C", "4D 5D", "6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "9C"), (1, "4"))
        assert top(r, st) is None and actor(st) == 2   # the reset ended the trick; the next player leads
        r = R(high_cards="9C", trump_ranks={"8"})
        st = game(r, ["9C 5C", "8D 5D", "6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "9C"))
        assert "8" not in legal_moves(r, st)

    def test_forbidden_finish_reads_the_printed_rank(self) -> None:
        r = R(high_cards="9C", forbidden_finish={"9"})
        st = game(r, ["9C", "4C 4D", "5C 5D", "6C 6D"], rest_to=3)
        st = both(r, st, (0, "9C"))
        assert int(st.finish[0, 0]) == 3             # out on a forbidden card: the worst place

    def test_the_lowest_card_is_not_a_high_card(self) -> None:
        r = preset("black_threes", hands_per_session=1)
        assert tables(r).card_names[tables(r).lowest_card] == "3D"
        st = init(r, 64, seed=1)
        t = tables(r)
        for b in range(64):
            lead = st.current[b]
            assert st.hands[b, lead, t.lowest_card]
            plays = np.flatnonzero(st.legal[b])
            assert all(t.play_ranks[(a - 1) // r.max_set] == "3" for a in plays)

    def test_best_cards_are_jokers_wild_cards_high_cards_then_naturals(self) -> None:
        r = R(jokers=1, high_cards="4C", exchange=(2,))
        st = game(r, ["5C", "6C", "7C", "JK 4C 9S 9D"], rest_to="spread", start_ranks=[0, 1, 2, 3])
        assert {"JK", "4C"} <= set(hand(r, st, 0)) and "9S" in hand(r, st, 3)

    @pytest.mark.parametrize("value, words", [
        ("3X", "not a card name"), ("1C", "not a card name"), ("JK", "not a card name"),
        ("TC", "not in the deck"), ("3C 3C", "appears twice"), ("3C 3D 3H 3S", "takes every card"),
    ])
    def test_bad_high_cards_are_refused(self, value, words) -> None:
        with pytest.raises(RulesError, match=f"high_cards.*{words}"):
            R(high_cards=value)

    def test_a_wild_card_cannot_be_high(self) -> None:
        with pytest.raises(RulesError, match="high_cards.*wild"):
            R(high_cards="3C", wild_ranks={"3"})


# =========================================================================== quick_clear
def _claims(r: Rules, st) -> bool:
    return int(st.claim_rank[0]) >= 0


class TestQuickClear:
    def test_the_holder_of_the_rest_may_claim_and_then_leads(self) -> None:
        r = R(quick_clear=True)
        st = game(r, ["7C 7D 3C", "4C", "7H 7S 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"))
        assert _claims(r, st) and actor(st) == 2     # asked out of turn, before player 1
        assert legal_moves(r, st) == {"pass", "7x2"}
        st = both(r, st, (2, "7x2"))
        assert moved(r, st) == ["7H", "7S"]
        assert top(r, st) is None and actor(st) == 2 and not _claims(r, st)

    def test_a_declined_claim_lets_the_normal_turn_go_on(self) -> None:
        r = R(quick_clear=True)
        st = game(r, ["7C 7D 3C", "8C 8D 4C", "7H 7S 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"), (2, "pass"))
        assert not _claims(r, st) and actor(st) == 1 and top(r, st) == "7x2"
        assert not bool(st.passed[0, 2])             # a declined claim is not a pass
        st = both(r, st, (1, "8x2"))
        assert not _claims(r, st)                    # nobody holds the other eights

    def test_the_player_who_played_is_not_asked(self) -> None:
        r = R(quick_clear=True)
        st = game(r, ["7C 7D 7H 7S 3C", "4C", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"))
        assert not _claims(r, st) and actor(st) == 1

    def test_only_natural_cards_at_the_top_count(self) -> None:
        r = R(quick_clear=True, jokers=1, joker_mode="wild", wild_ranks={"JK"})
        st = game(r, ["7C JK 3C", "4C", "7D 7H 7S", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"))                 # 7C and the wild joker: one natural seven on top
        assert _claims(r, st) and actor(st) == 2 and legal_moves(r, st) == {"pass", "7x3"}
        st2 = game(r, ["7C JK 3C", "7S 4C", "7D 7H", "6C"], rest_to="spread")
        st2 = both(r, st2, (0, "7x2"))
        assert not _claims(r, st2)                   # two on top, but only one natural: 7D 7H are not enough

    def test_consecutive_plays_of_the_rank_count(self) -> None:
        r = R(quick_clear=True, equal_rank_beats=True)
        st = game(r, ["7C 3C", "7D 4C", "7H 7S 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7"))
        assert not _claims(r, st)                    # 7D 7H 7S are not in one hand
        st = both(r, st, (1, "7"))
        assert _claims(r, st) and actor(st) == 2
        st = both(r, st, (2, "7x2"))
        assert top(r, st) is None and actor(st) == 2

    def test_a_clearing_play_is_not_followed_by_a_claim(self) -> None:
        r = R(quick_clear=True, eight_cut=True)
        st = game(r, ["8C 8D 3C", "4C", "8H 8S 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "8x2"))
        assert not _claims(r, st) and actor(st) == 0   # the eight cut the trick

    def test_locked_out_players_are_asked(self) -> None:
        r = R(quick_clear=True, pass_rule="locks_out")
        st = game(r, ["5C 9C", "6C", "9D 9H 9S 3C", "7C"], rest_to="spread")
        st = both(r, st, (0, "5"), (1, "6"), (2, "pass"), (3, "7"))
        assert bool(st.passed[0, 2])                 # player 2 is locked out of this trick
        st = both(r, st, (0, "9"))
        assert _claims(r, st) and actor(st) == 2
        st = both(r, st, (2, "9x3"))
        assert top(r, st) is None and actor(st) == 2

    def test_a_transparent_set_is_claimed_by_its_own_rank(self) -> None:
        r = R(quick_clear=True, transparent_rank="3", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["9C 4C", "3C 5C", "3D 3H 3S 9D 9H 9S", "6C"], rest_to="spread")
        st = both(r, st, (0, "9"))
        assert _claims(r, st) and legal_moves(r, st) == {"pass", "9x3"}
        st = both(r, st, (2, "pass"), (1, "3"))      # the transparent three counts as a nine on top ...
        assert top(r, st) == "9"
        assert _claims(r, st) and legal_moves(r, st) == {"pass", "3x3"}   # ... but is claimed as a three

    def test_a_claim_of_four_or_more_is_a_four_of_a_kind(self) -> None:
        r = R(quick_clear=True, decks=2, players=5, four_of_a_kind="revolution")
        st = game(r, ["7C 7D 7H 3C", "4C", "7S 7C 7D 7H 7S", "6C", "8C"], rest_to="spread")
        st = both(r, st, (0, "7x3"))
        assert _claims(r, st) and legal_moves(r, st) == {"pass", "7x5"}
        st = both(r, st, (2, "7x5"))
        assert bool(st.revolution[0]) and top(r, st) is None and actor(st) == 2

    def test_a_claim_after_the_trick_ended_takes_the_lead(self) -> None:
        r = R(quick_clear=True, pass_rule="single_round")
        hands = ["5C 3C", "6C 7D 7H 7S", "4C", "7C 4D"]
        st = both(r, game(r, hands, rest_to="spread"), (0, "5"), (1, "6"), (2, "pass"), (3, "7"))
        # every player had its one turn: the trick is over, and player 1 holds the other sevens
        assert top(r, st) is None and _claims(r, st) and actor(st) == 1
        declined = both(r, st, (1, "pass"))
        assert actor(declined) == 3 and top(r, declined) is None   # the trick's winner leads
        st = both(r, st, (1, "7x3"))
        assert moved(r, st) == ["7D", "7H", "7S"] and actor(st) == 1 and top(r, st) is None

    def test_a_declined_claim_keeps_the_single_round_turn(self) -> None:
        r = R(quick_clear=True, pass_rule="single_round")
        st = game(r, ["5C 3C", "6C 3D", "4C 7C", "7D 7H 7S 4D"], rest_to="spread")
        st = both(r, st, (0, "5"), (1, "6"), (2, "7"))
        assert _claims(r, st) and actor(st) == 3
        declined = both(r, st, (3, "pass"))
        assert actor(declined) == 3 and top(r, declined) == "7"   # its normal single-round turn follows
        st = both(r, st, (3, "7x3"))
        assert top(r, st) is None and actor(st) == 3

    def test_the_claimer_going_out_passes_the_lead_on(self) -> None:
        r = R(quick_clear=True)
        st = game(r, ["7C 7D 3C 3D", "4C 4D", "7H 7S", "6C 6D"], rest_to=3)
        st = both(r, st, (0, "7x2"), (2, "7x2"))
        assert int(st.finish[0, 2]) == 0 and actor(st) == 3 and top(r, st) is None

    def test_the_observation_says_a_claim_is_asked(self) -> None:
        r = R(quick_clear=True)
        st = game(r, ["7C 7D 3C", "4C", "7H 7S 5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"))
        sl = slices(r)
        for p in range(4):
            o = observe(r, st, p)[0]
            assert o[sl["claiming"].start] == (p == 2)
            assert o[sl["clear_count"].start] == 2

    def test_the_heuristic_claims_and_greedy_too(self) -> None:
        from agents.registry import make_agent

        r = R(quick_clear=True)
        st = game(r, ["7C 7D 3C", "4C", "7H 7S 5C", "6C"], rest_to="spread")
        st = play(r, st, (0, "7x2"))
        for name in ("heuristic", "greedy"):
            a = make_agent(name, r).act(observe(r, st, 2), st.legal, np.random.default_rng(0))
            assert int(a[0]) == move_id(r, "7x2"), name

    def test_high_cards_are_never_claimed(self) -> None:
        r = R(quick_clear=True, high_cards="3C", equal_rank_beats=True)
        st = game(r, ["3D 4C", "3C 5C", "3H 3S 6C", "7C"], rest_to="spread")
        st = both(r, st, (0, "3"))
        assert not _claims(r, st)                    # 3C is no natural three: 3H 3S are not four with 3D
