"""One scenario per option of sections 2 to 6 of the rule book, on hand-built hands.

Each test deals chosen cards (``helpers.game``) under a small custom rules object (few
ranks, few players) and asserts the legal moves and the effect of each step. Player
``i`` sits in seat ``i`` unless a test says otherwise; seats run clockwise.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import actor, finish, game, hand, legal_moves, move_id, n_cards, play, seat_of, top

from president_env.core import EXCHANGE, OVER, PLAY, IllegalActionError, Rules, card_names, init, preset, step


def R(**options) -> Rules:
    """Three players, one hand per session, the named player (dealer seat) leads."""
    base = {"players": 3, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,)}
    base.update(options)
    return Rules(**base)


def moved(r: Rules, st) -> list[str]:
    return card_names(r, st.moved[0])


# =========================================================================== section 2: who leads
class TestFirstLead:
    def test_dealer_left(self) -> None:
        r = R(first_lead="dealer_left", rank_order="3 4 5 6")
        for dealer, leader in ((0, 1), (1, 2), (2, 0)):
            st = game(r, ["3C 3D", "4C", "5C 5D"], rest_to=2, dealer=dealer)
            assert actor(st) == leader
            assert "pass" not in legal_moves(r, st)

    def test_dealer_left_counter_clockwise(self) -> None:
        r = R(first_lead="dealer_left", rank_order="3 4 5 6", direction="counter_clockwise")
        st = game(r, ["3C", "4C", "5C"], rest_to=2, dealer=0)
        assert actor(st) == 2

    def test_dealer(self) -> None:
        r = R(first_lead="dealer", rank_order="3 4 5 6")
        for dealer in range(3):
            st = game(r, ["3C 3D", "4C", "5C 5D"], rest_to=2, dealer=dealer)
            assert actor(st) == dealer
        # no restriction on the lead: any rank and size held
        st = game(r, ["3C 3D", "4C", "5C 5D"], rest_to=2, dealer=0)
        assert legal_moves(r, st) == {"3", "3x2"}
        st = game(r, ["3C 3D 6S", "4C", "5C 5D"], rest_to=2, dealer=0)
        assert legal_moves(r, st) == {"3", "3x2", "6"}

    def test_lowest_card_leads_and_must_be_played(self) -> None:
        r = R(first_lead="lowest_card", rank_order="3 4 5 6")
        for dealer in range(3):
            st = game(r, ["4C 4D 6H", "3C 3H 5C 5D", "3D"], rest_to=0, dealer=dealer)
            assert actor(st) == 1
            # the lead must contain the 3C: only sets of threes
            assert legal_moves(r, st) == {"3", "3x2"}
        st = play(r, st, (1, "3"))
        assert moved(r, st) == ["3C"]
        # later leads are free again
        st = play(r, st, (2, "pass"), (0, "4"), (1, "5"), (2, "pass"), (0, "pass"))
        assert actor(st) == 1 and top(r, st) is None
        assert legal_moves(r, st) == {"3", "5"}

    def test_lowest_card_pair_includes_3c(self) -> None:
        r = R(first_lead="lowest_card", rank_order="3 4 5 6")
        st = game(r, ["4C", "3S 3C 5C", "3D"], rest_to=0)
        st = play(r, st, (1, "3x2"))
        assert moved(r, st) == ["3C", "3S"]

    @pytest.mark.parametrize("dealer,direction,leader", [
        (0, "clockwise", 2),          # dealer's left is seat 1 (no 3C), then seat 2
        (1, "clockwise", 2),          # dealer's left is seat 2
        (2, "clockwise", 0),          # dealer's left is seat 0
        (1, "counter_clockwise", 0),  # dealer's left is seat 0
        (0, "counter_clockwise", 2),  # dealer's left is seat 2
        (2, "counter_clockwise", 0),  # seat 1 has none, then seat 0
    ])
    def test_lowest_card_two_decks(self, dealer: int, direction: str, leader: int) -> None:
        """Two 3C: the first holder in the direction of play from the dealer's left leads."""
        r = R(first_lead="lowest_card", rank_order="3 4 5", decks=2, direction=direction)
        st = game(r, ["3C 4C", "3D 3H 4D", "3C 5C"], rest_to=1, dealer=dealer)
        assert actor(st) == leader
        assert legal_moves(r, st) == {"3"}
        st = play(r, st, "3")
        assert moved(r, st) == ["3C"]

    def test_lowest_card_is_4c_when_threes_are_wild(self) -> None:
        r = R(first_lead="lowest_card", rank_order="3 4 5 6", wild_ranks={"3"})
        st = game(r, ["3C 3D 5C", "4D 6C", "4C 3H 6D"], rest_to=1, dealer=0)
        assert actor(st) == 2
        # a set of fours, with or without the wild three; not the wild card alone, not the six
        assert legal_moves(r, st) == {"4", "4x2"}
        st = play(r, st, (2, "4x2"))
        assert moved(r, st) == ["3H", "4C"]
        assert top(r, st) == "4x2"


    def test_lowest_card_with_another_rank_order(self) -> None:
        """Klootzakken ranks 7 to 3: the lowest card is the 7C."""
        r = preset("klootzakken", players=3, hands_per_session=1)
        assert r.first_lead == "lowest_card"
        st = game(r, ["3C 8C", "7D 9C", "7C 7H 2C"], rest_to=0, dealer=0)
        assert actor(st) == 2
        assert legal_moves(r, st) == {"7", "7x2"}


class TestLeadAfterFirst:
    def _after_exchange(self, r: Rules, ranks: list[int]):
        st = game(r, ["3C 4C", "3D 5C", "3H 6C"], rest_to=1, start_ranks=ranks, seat_player=[0, 1, 2])
        assert st.phase[0] == EXCHANGE
        # President gives back one card (exchange [1]): the lowest they hold
        pres = ranks.index(0)
        assert actor(st) == pres
        low = min(hand(r, st, pres), key=lambda c: "3456".index(c[0]))
        st = play(r, st, (pres, low[0]))
        assert st.phase[0] == PLAY
        return st

    def test_president_leads_later_hands(self) -> None:
        r = R(lead_after_first="president", rank_order="3 4 5 6", first_lead="lowest_card")
        st = self._after_exchange(r, [2, 0, 1])
        assert actor(st) == 1
        assert "pass" not in legal_moves(r, st)
        assert len(legal_moves(r, st)) > 1  # no lowest-card restriction on a later hand

    def test_scum_leads_later_hands(self) -> None:
        r = R(lead_after_first="scum", rank_order="3 4 5 6", first_lead="lowest_card")
        st = self._after_exchange(r, [2, 0, 1])
        assert actor(st) == 0

    @pytest.mark.parametrize("lead_after_first", ["president", "scum"])
    def test_second_hand_of_a_session(self, lead_after_first: str) -> None:
        """Play a whole first hand; the next hand is led by its President (or Scum)."""
        r = R(lead_after_first=lead_after_first, rank_order="3 4 5", hands_per_session=2, reseat=False)
        st = game(r, ["3C", "4C", "5C 5D"], rest_to=2, dealer=0)
        # 0 leads 3 and goes out first; 1 plays 4 and goes out second; 2 is Scum
        st = play(r, st, (0, "3"), (1, "4"))
        assert st.hand_over[0] and st.hand_no[0] == 1
        assert list(st.last_finish[0]) == [0, 1, 2]
        assert st.phase[0] == EXCHANGE
        st = play(r, st, (0, legal_moves_first(r, st)))
        assert st.phase[0] == PLAY
        assert actor(st) == (0 if lead_after_first == "president" else 2)


def legal_moves_first(r: Rules, st) -> str:
    """Any legal move (sorted by action id) of game 0."""
    return sorted(legal_moves(r, st), key=lambda m: move_id(r, m))[0]


# =========================================================================== section 3: a trick
class TestPassRule:
    HANDS = ["3C 6C", "4C 7C", "5C 8C"]

    def test_may_replay(self) -> None:
        r = R(pass_rule="may_replay", rank_order="3 4 5 6 7 8 9")
        st = game(r, self.HANDS, rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "5"))
        # player 1 passed, yet may play on the five
        st = play(r, st, (0, "pass"))
        assert actor(st) == 1
        assert legal_moves(r, st) == {"pass", "7"}
        st = play(r, st, (1, "7"), (2, "8"))
        assert finish(st) == [-1, -1, 0]  # player 2 went out first
        st = play(r, st, (0, "9"))
        assert top(r, st) == "9" and actor(st) == 1
        st = play(r, st, (1, "pass"))  # player 2 has no cards: nobody else can act
        assert actor(st) == 0 and top(r, st) is None

    def test_locks_out(self) -> None:
        r = R(pass_rule="locks_out", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["3C 6C", "4C 7C", "5C 8C 8D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "5"))
        # player 1 is locked out: from 0 the turn goes straight to 2
        st = play(r, st, (0, "6"))
        assert actor(st) == 2
        st = play(r, st, (2, "8"))
        assert actor(st) == 0
        st = play(r, st, (0, "pass"))
        # 0 and 1 have passed: the trick ends, 2 leads, and everyone may play again
        assert actor(st) == 2 and top(r, st) is None
        assert not st.passed[0].any()

    def test_single_round(self) -> None:
        r = R(pass_rule="single_round", rank_order="3 4 5 6 7 8 9")
        st = game(r, self.HANDS, rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "5"))
        # each of 1 and 2 had its one turn: the trick ends, the leader gets no second turn
        assert actor(st) == 2 and top(r, st) is None
        st = play(r, st, (2, "8"), (0, "9"))
        assert actor(st) == 1
        st = play(r, st, (1, "pass"))
        assert actor(st) == 0 and top(r, st) is None

    def test_single_round_every_player_plays(self) -> None:
        r = R(pass_rule="single_round", rank_order="3 4 5 6 7 8 9", players=4)
        st = game(r, ["3C 9C", "4C", "5C", "6C 9D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "4"), (2, "5"), (3, "6"))
        # 1 and 2 went out; 3 made the last play and leads
        assert actor(st) == 3 and top(r, st) is None
        assert finish(st)[1:3] == [0, 1]


class TestCompulsoryBeat:
    def test_pass_is_masked_when_a_play_exists(self) -> None:
        r = R(compulsory_beat=True, rank_order="3 4 5 6 7")
        st = game(r, ["3C 3D 7C", "4C 4D", "5C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"))
        assert legal_moves(r, st) == {"4"}  # must beat
        st = play(r, st, (1, "4"))
        assert legal_moves(r, st) == {"5"}
        st = play(r, st, (2, "5"))
        # player 2 went out; 0 (who also holds the other sixes) must beat the five
        assert legal_moves(r, st) == {"6", "7"}
        st = play(r, st, (0, "7"))
        assert legal_moves(r, st) == {"pass"}  # 1 cannot beat a 7: pass is allowed

    def test_without_compulsory_pass_is_always_allowed(self) -> None:
        r = R(rank_order="3 4 5 6 7")
        st = game(r, ["3C 3D 7C", "4C 4D", "5C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"))
        assert legal_moves(r, st) == {"pass", "4"}

    def test_leader_may_not_pass_even_without_compulsory(self) -> None:
        r = R(rank_order="3 4 5")
        st = game(r, ["3C", "4C", "5C"], rest_to=0, dealer=1)
        assert "pass" not in legal_moves(r, st)
        with pytest.raises(IllegalActionError):
            play(r, st, "pass")


class TestDirection:
    def test_counter_clockwise_turn_order(self) -> None:
        r = R(direction="counter_clockwise", rank_order="3 4 5 6 7", players=4)
        st = game(r, ["3C 7C", "4C 4D", "5C 5D", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (3, "6"), (2, "pass"), (1, "pass"), (0, "7"), (3, "pass"), (2, "pass"))
        assert actor(st) == 1
        st = play(r, st, (1, "pass"))
        assert actor(st) == 0 and top(r, st) is None

    def test_clockwise_turn_order(self) -> None:
        r = R(rank_order="3 4 5 6 7", players=4)
        st = game(r, ["3C 7C", "4C 4D", "5C 5D", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "4"), (2, "5"), (3, "6"))
        assert actor(st) == 0

    @pytest.mark.parametrize("direction,extra", [("clockwise", 1), ("counter_clockwise", 2)])
    def test_deal_direction(self, direction: str, extra: int) -> None:
        """16 cards to 3 players: the first seat dealt, the dealer's left, gets the extra card."""
        r = R(direction=direction, rank_order="3 4 5 6", first_lead="dealer_left")
        for seed in range(5):
            st = init(r, keys=np.array([seed], dtype=np.uint64), dealer=0)
            counts = list(st.n_cards[0])
            assert counts[extra] == 6 and sorted(counts) == [5, 5, 6]


# =========================================================================== section 4: what beats what
class TestSizeRule:
    # player 1 holds singles, pairs and threes of several ranks to answer a pair of fives
    HANDS = ["5C 5D 8C", "4C 4D 6C 6D 6H 7C 9C 9D", "3C"]

    def _after_pair_of_fives(self, size_rule: str):
        r = R(size_rule=size_rule, rank_order="3 4 5 6 7 8 9")
        st = game(r, self.HANDS, rest_to=2, dealer=0)
        return r, play(r, st, (0, "5x2"))

    def test_equal(self) -> None:
        r, st = self._after_pair_of_fives("equal")
        assert legal_moves(r, st) == {"pass", "6x2", "9x2"}

    def test_at_least(self) -> None:
        r, st = self._after_pair_of_fives("at_least")
        assert legal_moves(r, st) == {"pass", "6x2", "6x3", "9x2"}

    def test_bigger_beats_any(self) -> None:
        r, st = self._after_pair_of_fives("bigger_beats_any")
        # any three beats a pair whatever its rank; a pair needs a higher rank
        assert legal_moves(r, st) == {"pass", "6x2", "6x3", "9x2"}
        r = R(size_rule="bigger_beats_any", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["8C 8D 9C", "4C 4D 4H 6C 7C", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8x2"))
        assert legal_moves(r, st) == {"pass", "4x3"}
        st = play(r, st, (1, "4x3"))
        assert top(r, st) == "4x3"
        # a single nine does not beat three fours (smaller), while at_least would not allow it either
        assert "9" not in legal_moves(r, st)

    def test_single_is_beaten_by_bigger_sets_only_if_higher_under_at_least(self) -> None:
        r = R(size_rule="at_least", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["8C 9C", "4C 4D 9D 9H", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8"))
        assert legal_moves(r, st) == {"pass", "9", "9x2"}


class TestEqualRankBeats:
    def test_off(self) -> None:
        r = R(rank_order="3 4 5 6 7")
        st = game(r, ["5C 5D 7C", "5H 5S 6C", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5"))
        assert legal_moves(r, st) == {"pass", "6"}

    def test_on(self) -> None:
        r = R(rank_order="3 4 5 6 7", equal_rank_beats=True)
        st = game(r, ["5C 5D 7C", "5H 5S 6C", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5"))
        assert legal_moves(r, st) == {"pass", "5", "6"}
        st = play(r, st, (1, "5"))
        assert top(r, st) == "5" and actor(st) == 2  # no skipping without equal_play_skips
        st = play(r, st, (2, "pass"), (0, "5"))
        assert top(r, st) == "5" and actor(st) == 1

    def test_on_respects_the_size_rule(self) -> None:
        r = R(rank_order="3 4 5 6 7", equal_rank_beats=True)
        st = game(r, ["5C 5D 7C", "5H 5S 6C", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x2"))
        assert legal_moves(r, st) == {"pass", "5x2"}


class TestEqualPlaySkips:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 9", "equal_rank_beats": True, "equal_play_skips": True,
                     "players": 4} | kw))

    def test_equal_play_skips_the_next_player(self) -> None:
        r = self._rules()
        st = game(r, ["5C 9C", "5D 9D", "6C 9H", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5"))
        assert actor(st) == 3  # player 2 skipped
        st = play(r, st, (3, "7"))
        assert actor(st) == 0  # a higher play does not skip

    def test_a_higher_play_does_not_skip(self) -> None:
        r = self._rules()
        st = game(r, ["5C 9C", "6D 9D", "6C 9H", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "6"))
        assert actor(st) == 2

    def test_two_equal_cards_on_one_skip_two(self) -> None:
        r = self._rules(size_rule="at_least")
        st = game(r, ["5C 9C", "5D 5H 9D", "6C 9H", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5x2"))
        assert actor(st) == 0  # players 2 and 3 skipped

    def test_three_equal_cards_on_one_skip_three(self) -> None:
        """From player 1: 2, 3, 0 are skipped; the next player is 1 again."""
        r = self._rules(size_rule="bigger_beats_any")
        st = game(r, ["5C 9C", "5D 5H 5S 9D", "6C 9H", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5x3"))
        assert actor(st) == 1
        assert top(r, st) == "5x3" and st.top_owner[0] == seat_of(st, 1)

    def test_skip_counts_only_players_with_cards(self) -> None:
        r = self._rules()
        # player 2 goes out on the first trick; later an equal play by 1 skips 3, not 2
        st = game(r, ["4C 5C 9C", "3C 5D 9D", "6C", "3D 7C 9S"], rest_to=0, dealer=1)
        st = play(r, st, (1, "3"), (2, "6"))
        assert finish(st)[2] == 0
        st = play(r, st, (3, "pass"), (0, "pass"), (1, "pass"))
        assert actor(st) == 3 and top(r, st) is None  # 2 is out: the next player with cards leads
        st = play(r, st, (3, "3"), (0, "4"), (1, "pass"), (3, "pass"), (0, "5"), (1, "5"))
        assert actor(st) == 0  # 3 skipped, 2 has no cards

    def test_two_players_left_you_act_again(self) -> None:
        r = self._rules(players=3)
        st = game(r, ["4C 5C 9C", "5D 9D", "8C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "4"), (1, "pass"), (2, "8"))  # player 2 goes out
        assert finish(st)[2] == 0
        st = play(r, st, (0, "pass"), (1, "pass"))
        assert actor(st) == 0 and top(r, st) is None
        st = play(r, st, (0, "5"), (1, "5"))
        # the only other player with cards is skipped: player 1 immediately plays again
        assert actor(st) == 1
        assert top(r, st) == "5" and st.top_owner[0] == seat_of(st, 1)
        assert "9" in legal_moves(r, st)

    def test_an_equal_play_that_goes_out_still_skips(self) -> None:
        r = self._rules()
        st = game(r, ["5C 9C", "5D", "6C 9H", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5"))
        assert finish(st)[1] == 0
        assert actor(st) == 3

    def test_locked_out_players_count_for_the_skip(self) -> None:
        """Fine point 7: the count runs over players with cards, locked out or not."""
        r = self._rules(pass_rule="locks_out")
        st = game(r, ["5C 6C 9C", "4C 9D", "3C 9H", "6D 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "pass"), (2, "pass"), (3, "6"), (0, "6"))
        # the skip lands on 1 (locked out); 2 is locked out too: 3 acts
        assert actor(st) == 3

    def test_skipped_players_may_play_later_under_may_replay(self) -> None:
        r = self._rules()
        st = game(r, ["5C 9C", "5D 9D", "6C 8C", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5"), (3, "7"), (0, "pass"), (1, "pass"))
        assert actor(st) == 2 and legal_moves(r, st) == {"pass", "8"}

    def test_single_round_skipped_player_has_had_its_turn(self) -> None:
        r = self._rules(pass_rule="single_round")
        st = game(r, ["5C 9C", "5D 9D", "6C 8C", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5"))
        assert actor(st) == 3  # 2 skipped
        st = play(r, st, (3, "pass"))
        # 0 led, 2 was skipped, 3 passed: the trick ends and 1 leads
        assert top(r, st) is None and actor(st) == 1

    def test_single_round_skip_that_uses_up_the_turns_ends_the_trick(self) -> None:
        """Fine points 7 and 8: a skipped player has had its turn; when none is left, the trick ends."""
        r = self._rules(pass_rule="single_round")
        st = game(r, ["5C 9C", "4C 9D", "5D 8C", "7C 9S"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "pass"), (2, "5"))
        # 3 is skipped; 0 led and 1 had its turn: nobody else can act, 2 leads
        assert top(r, st) is None and actor(st) == 2


class TestWildRanks:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 2", "wild_ranks": {"2"}} | kw))

    def test_wild_joins_a_rank(self) -> None:
        r = self._rules()
        st = game(r, ["5C 6C 2C 2D", "3C 7C 7D", "4C"], rest_to=2, dealer=0)
        # 5 or 6 with up to two wild cards, or the wild cards alone
        assert legal_moves(r, st) == {"5", "5x2", "5x3", "6", "6x2", "6x3", "WILD", "WILDx2"}
        st = play(r, st, (0, "5x3"))
        assert moved(r, st) == ["5C", "2C", "2D"]
        assert top(r, st) == "5x3" and bool(st.top_wild[0])

    def test_engine_takes_natural_cards_first(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5H 2D", "3C 7C 7D", "4C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x2"))
        assert moved(r, st) == ["5C", "5H"] and not st.top_wild[0]
        assert hand(r, st, 0) == ["2D"]

    def test_wild_cards_fill_a_beat(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5H 3D", "7C 2D", "4C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x2"))
        assert legal_moves(r, st) == {"pass", "7x2"}
        st = play(r, st, (1, "7x2"))
        assert top(r, st) == "7x2"

    def test_all_wild_set_ranks_above_every_rank(self) -> None:
        r = self._rules(jokers=1)  # a (non-wild) high joker exists
        st = game(r, ["JK 8C", "2C 2D", "3C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "JK"))
        assert legal_moves(r, st) == {"pass", "WILD"}
        st = play(r, st, (1, "WILD"))
        assert top(r, st) == "WILD"
        # all-wild sets of one size are equal: one wild card does not beat another
        assert "WILD" not in legal_moves(r, st)

    def test_all_wild_sets_stay_on_top_under_revolution(self) -> None:
        r = self._rules(four_of_a_kind="revolution", rank_order="3 4 5 6 7 8 2")
        st = game(r, ["6C 6D 6H 6S 3D", "2C 8C", "4C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "6x4"))
        assert st.revolution[0]
        st = play(r, st, (1, "pass"), (2, "pass"))
        st = play(r, st, (0, "3"))
        # under revolution the 8 is lower than the 3, the wild card still beats it
        assert legal_moves(r, st) == {"pass", "WILD"}

    def test_a_wild_rank_is_never_a_play_rank(self) -> None:
        from president_env.core import tables

        r = self._rules()
        assert "2" not in tables(r).play_ranks and tables(r).play_ranks[-1] == "WILD"
        with pytest.raises(ValueError):
            move_id(r, "2")


class TestWildTie:
    """Two pairs of sevens, one with a wild card: which is higher (fine point 3)."""

    def _start(self, wild_tie: str, first: str, **kw):
        r = R(rank_order="3 4 5 6 7 8 2", wild_ranks={"2"}, wild_tie=wild_tie, **kw)
        if first == "natural":
            hands = ["7C 7D 3C", "7H 2C 4C", "5C"]
        else:
            hands = ["7C 2C 3C", "7D 7H 4C", "5C"]
        st = game(r, hands, rest_to=2, dealer=0)
        st = play(r, st, (0, "7x2"))
        assert bool(st.top_wild[0]) == (first == "wild")
        return r, st

    @pytest.mark.parametrize("first", ["natural", "wild"])
    def test_equal(self, first: str) -> None:
        r, st = self._start("equal", first)
        assert "7x2" not in legal_moves(r, st)

    def test_natural_higher(self) -> None:
        r, st = self._start("natural_higher", "wild")
        assert "7x2" in legal_moves(r, st)
        st = play(r, st, (1, "7x2"))
        assert not st.top_wild[0] and top(r, st) == "7x2"
        r, st = self._start("natural_higher", "natural")
        assert "7x2" not in legal_moves(r, st)

    def test_wild_higher(self) -> None:
        r, st = self._start("wild_higher", "natural")
        assert "7x2" in legal_moves(r, st)
        st = play(r, st, (1, "7x2"))
        assert st.top_wild[0]
        r, st = self._start("wild_higher", "wild")
        assert "7x2" not in legal_moves(r, st)

    @pytest.mark.parametrize("wild_tie,first", [("natural_higher", "natural"), ("wild_higher", "wild")])
    def test_the_lower_never_beats_the_higher_even_with_equal_rank_beats(self, wild_tie: str, first: str) -> None:
        r, st = self._start(wild_tie, first, equal_rank_beats=True)
        assert "7x2" not in legal_moves(r, st)

    @pytest.mark.parametrize("wild_tie", ["equal", "natural_higher", "wild_higher"])
    def test_equal_rank_beats_lets_equal_sets_beat(self, wild_tie: str) -> None:
        # two natural pairs: wild_tie does not apply, equal_rank_beats does
        r = R(rank_order="3 4 5 6 7 8 2", wild_ranks={"2"}, wild_tie=wild_tie, equal_rank_beats=True)
        st = game(r, ["7C 7D 3C", "7H 7S 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "7x2"))
        assert "7x2" in legal_moves(r, st)


class TestTransparentRank:
    def _rules(self, **kw) -> Rules:
        return R(rank_order="3 4 5 6 7 8 9", transparent_rank="3", **kw)

    def test_beats_any_set_of_its_size_and_takes_its_rank(self) -> None:
        r = self._rules()
        st = game(r, ["8C 8D 9C", "3C 3D 3H 4C", "7C 9D 9H"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8x2"))
        assert legal_moves(r, st) == {"pass", "3x2"}
        st = play(r, st, (1, "3x2"))
        assert top(r, st) == "8x2"  # counts as the rank it beat
        assert legal_moves(r, st) == {"pass", "9x2"}

    def test_as_a_lead_it_has_its_own_rank(self) -> None:
        r = self._rules()
        st = game(r, ["3C 9C", "4C 8C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "3"))
        assert top(r, st) == "3"
        assert legal_moves(r, st) == {"pass", "4", "8"}

    def test_another_size_is_an_ordinary_play(self) -> None:
        r = self._rules(size_rule="at_least")
        st = game(r, ["8C 9C", "3C 3D 4C 4D", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8"))
        # a single 3 beats the single 8; a pair of threes is an ordinary (too low) pair
        assert legal_moves(r, st) == {"pass", "3"}
        st = game(r, ["4C 9C", "3C 3D 6C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "4"))
        assert legal_moves(r, st) == {"pass", "3", "6"}
        st = play(r, st, (1, "3"))
        assert top(r, st) == "4"  # transparent single on a single: the four's rank

    def test_transparent_on_transparent(self) -> None:
        r = self._rules()
        st = game(r, ["3C 9C", "3D 8C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "3"))
        st = play(r, st, (1, "3"))
        assert top(r, st) == "3"


# =========================================================================== section 5: special plays
class TestTrumpRanks:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 2", "trump_ranks": {"2"}} | kw))

    def test_trump_beats_any_lower_play_of_any_size_and_ends_the_trick(self) -> None:
        r = self._rules()
        st = game(r, ["7C 7D 7H 3C", "2C 2D 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "7x3"))
        assert legal_moves(r, st) == {"pass", "2", "2x2"}
        st = play(r, st, (1, "2"))
        assert top(r, st) is None and actor(st) == 1  # the trick ended; the trump player leads

    def test_several_trump_cards_at_once(self) -> None:
        r = self._rules()
        st = game(r, ["7C 3C", "2C 2D 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "7"), (1, "2x2"))
        assert top(r, st) is None and actor(st) == 1 and hand(r, st, 1) == ["4C"]

    def test_trump_does_not_beat_a_higher_rank(self) -> None:
        r = self._rules(jokers=1)  # the high joker ranks above the 2
        st = game(r, ["JK 3C", "2C 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "JK"))
        assert legal_moves(r, st) == {"pass"}

    def test_led_trump_ends_the_trick(self) -> None:
        r = self._rules()
        st = game(r, ["2C 3C", "4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "2"))
        assert top(r, st) is None and actor(st) == 0 and legal_moves(r, st) == {"3"}

    def test_trump_as_last_card_next_player_with_cards_leads(self) -> None:
        r = self._rules()
        st = game(r, ["7C 3C", "2C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "7"), (1, "2"))
        assert finish(st)[1] == 0
        assert top(r, st) is None and actor(st) == 2

    def test_trump_under_revolution_beats_nothing_but_still_ends_the_trick(self) -> None:
        """Fine point 9."""
        r = self._rules(four_of_a_kind="revolution")
        st = game(r, ["6C 6D 6H 6S 5C 8C", "2C 2D 3C", "7C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "6x4"))
        assert st.revolution[0]
        st = play(r, st, (1, "pass"), (2, "pass"))
        st = play(r, st, (0, "5"))
        # under revolution the 2 is the lowest rank: it beats nothing, the 3 beats the 5
        assert legal_moves(r, st) == {"pass", "3"}
        st = play(r, st, (1, "3"), (2, "pass"), (0, "pass"))
        assert actor(st) == 1 and top(r, st) is None
        st = play(r, st, (1, "2"))  # led, it still ends the trick
        assert top(r, st) is None and actor(st) == 1


class TestResetRanks:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 2", "reset_ranks": {"2"}} | kw))

    def test_single_reset_on_any_play_next_player_leads(self) -> None:
        r = self._rules()
        st = game(r, ["8C 8D 3C", "2C 4C", "5C 6C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8x2"))
        assert legal_moves(r, st) == {"pass", "2"}
        st = play(r, st, (1, "2"))
        assert top(r, st) is None and actor(st) == 2

    def test_reset_on_a_higher_rank(self) -> None:
        r = self._rules(jokers=1)
        st = game(r, ["JK 3C", "2C 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "JK"))
        assert legal_moves(r, st) == {"pass", "2"}

    def test_led_single_reset_next_player_leads(self) -> None:
        r = self._rules()
        st = game(r, ["2C 3C", "4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "2"))
        assert top(r, st) is None and actor(st) == 1

    def test_a_pair_of_reset_cards_is_an_ordinary_pair(self) -> None:
        r = self._rules()
        st = game(r, ["8C 8D 3C", "2C 2D 4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8x2"))
        assert legal_moves(r, st) == {"pass", "2", "2x2"}
        st = play(r, st, (1, "2x2"))
        assert top(r, st) == "2x2" and actor(st) == 2

    def test_reset_as_last_card(self) -> None:
        r = self._rules(players=4)
        st = game(r, ["8C 3C", "2C", "5C", "6C"], rest_to=3, dealer=0)
        st = play(r, st, (0, "8"), (1, "2"))
        assert finish(st)[1] == 0 and top(r, st) is None and actor(st) == 2


class TestFourOfAKind:
    HANDS = ["5C 5D 5H 5S 8C", "6C 6D 6H 6S 4C", "3C 9C"]

    def _rules(self, value: str, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 9", "four_of_a_kind": value} | kw))

    def test_none(self) -> None:
        r = self._rules("none")
        st = game(r, self.HANDS, rest_to=2, dealer=0)
        st = play(r, st, (0, "8"))
        assert legal_moves(r, st) == {"pass"}  # no single above the 8; fours are plain sets
        st = play(r, st, (1, "pass"), (2, "9"), (0, "pass"), (1, "pass"), (2, "3"))
        st = play(r, st, (0, "pass"), (1, "4"))
        st = play(r, st, (2, "pass"), (0, "pass"))
        st = play(r, st, (1, "6x4"))
        assert not st.revolution[0] and top(r, st) == "6x4" and actor(st) == 2

    def test_bomb_on_any_play_ends_the_trick(self) -> None:
        r = self._rules("bomb")
        st = game(r, self.HANDS, rest_to=2, dealer=0)
        st = play(r, st, (0, "8"))
        assert legal_moves(r, st) == {"pass", "6x4"}
        st = play(r, st, (1, "6x4"))
        assert top(r, st) is None and actor(st) == 1

    def test_bomb_on_a_higher_pair(self) -> None:
        r = self._rules("bomb")
        st = game(r, ["9C 9D 3C", "4C 4D 4H 4S", "8C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "9x2"))
        assert legal_moves(r, st) == {"pass", "4x4"}

    def test_led_bomb_ends_the_trick(self) -> None:
        r = self._rules("bomb")
        st = game(r, self.HANDS, rest_to=2, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert top(r, st) is None and actor(st) == 0

    def test_bomb_with_wild_cards(self) -> None:
        r = self._rules("bomb", rank_order="3 4 5 6 7 8 9 2", wild_ranks={"2"})
        st = game(r, ["9C 3C", "4C 4D 4H 2C 5C", "8C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "9"))
        assert "4x4" in legal_moves(r, st)
        st = play(r, st, (1, "4x4"))
        assert top(r, st) is None and actor(st) == 1

    def test_revolution_reverses_rank_order_from_the_next_play(self) -> None:
        r = self._rules("revolution")
        st = game(r, ["5C 5D 5H 5S 8C", "3D 4C 6C 6D 6H 6S 7C", "3C 9C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert st.revolution[0]
        # the next play is already judged in reverse: a four of sixes no longer beats
        assert legal_moves(r, st) == {"pass"}
        st = play(r, st, (1, "pass"), (2, "pass"))
        st = play(r, st, (0, "8"))
        assert legal_moves(r, st) == {"pass", "3", "4", "6", "7"}
        # a second four restores the order
        st = game(r, ["5C 5D 5H 5S 8C", "6C 6D 6H 6S 7C", "3C 9C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x4"), (1, "pass"), (2, "pass"), (0, "8"), (1, "7"), (2, "pass"))
        assert actor(st) == 1 and top(r, st) is None
        st = play(r, st, (1, "6x4"))
        assert not st.revolution[0]
        assert actor(st) == 2
        assert legal_moves(r, st) == {"pass"}  # the six-four is beaten only by a higher four (none left)

    def test_revolution_with_wild_cards_counts_them(self) -> None:
        r = self._rules("revolution", rank_order="3 4 5 6 7 8 9 2", wild_ranks={"2"})
        st = game(r, ["5C 5D 5H 2C 8C", "6C 7C", "3C 9C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert st.revolution[0] and bool(st.top_wild[0])

    def test_revolution_and_reverse(self) -> None:
        r = self._rules("revolution_and_reverse", players=4)
        st = game(r, ["5C 5D 5H 5S 8C", "6C 7C", "3C 4C", "3D 4D"], rest_to=1, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert st.revolution[0] and st.direction[0] == -1
        assert actor(st) == 3  # the direction reversed before the next player was worked out
        st = play(r, st, (3, "pass"), (2, "pass"), (1, "pass"))
        assert actor(st) == 0 and top(r, st) is None
        st = play(r, st, (0, "8"))
        assert actor(st) == 3 and legal_moves(r, st) == {"pass", "3", "4"}


class TestCompleteSetClears:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 9", "complete_set_clears": True, "players": 4} | kw))

    def test_pair_on_pair_completes_the_four(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5D 3C", "5H 5S 4C", "6C 6D", "7C 7D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5x2"))
        assert legal_moves(r, st) == {"pass", "5x2"}
        st = play(r, st, (1, "5x2"))
        assert top(r, st) is None and actor(st) == 1

    def test_the_size_rule_need_not_hold(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5D 5H 3C", "5S 4C", "6C 6D", "7C 7D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5x3"))
        assert legal_moves(r, st) == {"pass", "5"}
        st = play(r, st, (1, "5"))
        assert top(r, st) is None and actor(st) == 1

    def test_not_before_the_count_reaches_four(self) -> None:
        r = self._rules()
        st = game(r, ["5C 3C", "5D 4C 9C", "6C 6D", "7C 7D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"))
        assert legal_moves(r, st) == {"pass", "9"}

    def test_count_across_consecutive_plays_and_passes(self) -> None:
        r = self._rules(equal_rank_beats=True)
        st = game(r, ["5C 3C", "5D 4C", "6C 6D", "5H 5S 7D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5"), (1, "5"), (2, "pass"))
        assert int(st.top_count[0]) == 2
        st = play(r, st, (3, "5x2"))
        assert top(r, st) is None and actor(st) == 3

    def test_a_led_four_clears(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5D 5H 5S 3C", "4C", "6C", "7C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert top(r, st) is None and actor(st) == 0

    def test_two_decks_need_eight(self) -> None:
        r = self._rules(decks=2)
        st = game(r, ["5C 5C 5D 5D 3C", "5H 5H 4C", "5S 5S 6C", "7C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "5x4"))
        assert top(r, st) == "5x4"
        assert "5x2" not in legal_moves(r, st)


class TestEightCut:
    def _rules(self, **kw) -> Rules:
        return R(**({"rank_order": "3 4 5 6 7 8 9", "eight_cut": True} | kw))

    def test_an_eight_ends_the_trick(self) -> None:
        r = self._rules()
        st = game(r, ["5C 3C", "8C 4C", "9C 6C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5"), (1, "8"))
        assert top(r, st) is None and actor(st) == 1

    def test_a_pair_of_eights_ends_the_trick(self) -> None:
        r = self._rules()
        st = game(r, ["5C 5D 3C", "8C 8D 4C", "9C 6C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5x2"), (1, "8x2"))
        assert top(r, st) is None and actor(st) == 1

    def test_a_led_eight_ends_the_trick(self) -> None:
        r = self._rules()
        st = game(r, ["8C 3C", "4C", "9C 6C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "8"))
        assert top(r, st) is None and actor(st) == 0

    def test_without_eight_cut_an_eight_is_ordinary(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 9")
        st = game(r, ["5C 3C", "8C 4C", "9C 6C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "5"), (1, "8"))
        assert top(r, st) == "8" and actor(st) == 2


class TestForbiddenFinish:
    def test_finishing_with_a_forbidden_rank_takes_the_worst_place(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 2", forbidden_finish={"2"}, players=4)
        st = game(r, ["3C 4C", "2C", "5C", "6C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "2"))
        assert finish(st) == [-1, 3, -1, -1]  # out first, but last
        st = play(r, st, (2, "pass"), (3, "pass"), (0, "pass"))
        assert actor(st) == 2 and top(r, st) is None
        st = play(r, st, (2, "5"))
        assert finish(st) == [-1, 3, 0, -1]  # the next one out takes the best place

    def test_places_fill_from_both_ends(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 2", forbidden_finish={"2"}, players=4)
        st = game(r, ["3C 3D", "4C 2C", "5C", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "4"), (2, "5"))
        assert finish(st) == [-1, -1, 0, -1]
        st = play(r, st, (3, "6"), (0, "pass"), (1, "2"))
        assert finish(st) == [-1, 3, 0, -1]
        st = play(r, st, (3, "pass"), (0, "pass"))
        # 1 went out: 3 leads (next with cards after 1 is... 2 is out, so 3)
        assert actor(st) == 3 and top(r, st) is None
        st = play(r, st, (3, "6"))
        # player 3 went out: the hand ended, and player 0 took the place that was left
        assert st.hand_over[0] and list(st.last_finish[0]) == [2, 3, 0, 1]

    def test_a_wild_joker_counts_as_jk(self) -> None:
        """Fine point 10: a wild joker standing in for a five still counts as JK."""
        r = R(rank_order="3 4 5 6 7 8", jokers=1, joker_mode="wild", wild_ranks={"JK"},
              forbidden_finish={"JK"}, players=4)
        st = game(r, ["3C 4C 4D", "5C JK", "6C", "7C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "4x2"))
        st = play(r, st, (1, "5x2"))
        assert moved(r, st) == ["5C", "JK"]
        assert finish(st)[1] == 3

    def test_a_non_forbidden_last_play_takes_the_best_place(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 2", forbidden_finish={"2"}, players=4)
        st = game(r, ["3C 4C", "5C", "2C 6C", "7C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "5"))
        assert finish(st) == [-1, 0, -1, -1]


class TestPresidentMustWin:
    def _start(self, **kw):
        r = R(**({"rank_order": "3 4 5 6 7 8 9", "president_must_win": True, "players": 4} | kw))
        # player 0 is President, 3 is Scum: the Scum's best card (8C) goes to 0, who gives back the 3C
        st = game(r, ["3C 4C 5C", "9C 9D", "6C", "7C 8C"], rest_to=1, start_ranks=[0, 1, 2, 3],
                  seat_player=[0, 1, 2, 3])
        assert st.phase[0] == EXCHANGE and hand(r, st, 0) == ["3C", "4C", "5C", "8C"]
        st = play(r, st, (0, "3"))
        assert hand(r, st, 0) == ["4C", "5C", "8C"] and hand(r, st, 3) == ["3C", "7C"]
        return r, st

    def test_the_president_falls_when_another_player_goes_out_first(self) -> None:
        r, st = self._start()
        st = play(r, st, (0, "4"), (1, "pass"), (2, "6"))
        assert finish(st) == [3, -1, 0, -1]
        assert n_cards(st)[0] == 0 and int(st.discarded[0].sum()) == 2
        assert actor(st) == 3  # the former President no longer plays

    def test_no_fall_when_the_president_goes_out_first(self) -> None:
        r, st = self._start()
        st = play(r, st, (0, "4"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "5"), (1, "pass"), (2, "pass"))
        st = play(r, st, (3, "7"), (0, "8"))
        assert finish(st) == [0, -1, -1, -1]
        assert int(st.discarded[0].sum()) == 0 and n_cards(st)[2] == 1

    def test_a_forbidden_finish_does_not_trigger_it(self) -> None:
        """Fine point 10: only a player taking first place makes the President fall."""
        r, st = self._start(forbidden_finish={"6"})
        st = play(r, st, (0, "4"), (1, "pass"), (2, "6"))
        assert finish(st) == [-1, -1, 3, -1]
        assert n_cards(st)[0] == 2
        st = play(r, st, (3, "7"), (0, "pass"), (1, "pass"))
        assert actor(st) == 3 and top(r, st) is None
        st = play(r, st, (3, "3"))
        # 3 takes first place: now the President falls, to the worst place left
        assert st.hand_over[0] and list(st.last_finish[0]) == [2, 1, 3, 0]

    def test_without_the_option_nobody_falls(self) -> None:
        r, st = self._start(president_must_win=False)
        st = play(r, st, (0, "4"), (1, "pass"), (2, "6"))
        assert finish(st) == [-1, -1, 0, -1] and n_cards(st)[0] == 2


# =========================================================================== section 6: between hands
class TestExchange:
    def test_forced_gifts_are_the_best_cards(self) -> None:
        """Fine point 11: jokers first (RJ, BJ), then naturals high to low, the highest suit first."""
        r = Rules(players=4, rank_order="3 4 5 6 7 8", jokers=2, joker_mode="high_ranked", exchange=(3, 1),
                  hands_per_session=1)
        # ranks by player: 0 President, 1 Vice-President, 2 Vice-Scum, 3 Scum
        st = game(r, ["3C 3D", "4C 4D", "8H 8C 7S", "BJ RJ 8S 6C"], rest_to=0,
                  start_ranks=[0, 1, 2, 3], seat_player=[0, 1, 2, 3])
        assert st.phase[0] == EXCHANGE
        assert {"RJ", "BJ", "8S"} <= set(hand(r, st, 0))
        assert hand(r, st, 3) == ["6C"]
        assert hand(r, st, 1) == ["4C", "4D", "8H"]  # 8H goes before 8C
        assert hand(r, st, 2) == ["7S", "8C"]

    @pytest.mark.parametrize("scum,gift", [("BJ RJ 2S", "RJ"), ("BJ 2S", "BJ"), ("2H 2S 2D", "2S")])
    def test_the_single_best_card(self, scum: str, gift: str) -> None:
        """RJ before BJ before any natural; the highest suit first."""
        r = Rules(players=4, rank_order="3 4 5 6 7 8 2", jokers=2, joker_mode="high_ranked", exchange=(1,),
                  hands_per_session=1)
        st = game(r, ["3C", "3D", "3H", scum], rest_to=1, start_ranks=[0, 1, 2, 3], seat_player=[0, 1, 2, 3])
        assert hand(r, st, 0) == sorted(["3C", gift], key=lambda c: r.rank_order.index(c[0]) if c[0] in
                                        r.rank_order else 99)
        assert gift not in hand(r, st, 3) and len(hand(r, st, 3)) == len(scum.split()) - 1

    def test_wild_cards_come_after_jokers_and_before_naturals(self) -> None:
        r = Rules(players=4, rank_order="3 4 5 6 7 8 2", jokers=1, joker_mode="wild", wild_ranks={"JK", "3"},
                  exchange=(3,), hands_per_session=1)
        st = game(r, ["4C", "4D", "5C", "8S 3C JK 2S 2H"], rest_to=1,
                  start_ranks=[0, 1, 2, 3], seat_player=[0, 1, 2, 3])
        assert hand(r, st, 0) == ["3C", "4C", "2S", "JK"]
        assert hand(r, st, 3) == ["8S", "2H"]

    def test_give_back_decisions(self) -> None:
        """Gifts first (Scum to President, Vice-Scum to Vice-President), then the give-backs in that order."""
        r = Rules(players=4, rank_order="3 4 5 6 7 8", exchange=(2, 1), hands_per_session=1)
        hands = ["3C 4C 5C 6C 7C 8C", "3D 4D 5D 6D 7D 8D", "3H 4H 5H 6H 7H 8H", "3S 4S 5S 6S 7S 8S"]
        st = game(r, hands, start_ranks=[0, 1, 2, 3], seat_player=[0, 1, 2, 3])
        assert n_cards(st) == [8, 7, 5, 4]
        assert hand(r, st, 0) == ["3C", "4C", "5C", "6C", "7C", "7S", "8C", "8S"]
        assert hand(r, st, 1) == ["3D", "4D", "5D", "6D", "7D", "8D", "8H"]
        # the President decides first: one card of any rank held (the new 8S included)
        assert actor(st) == 0
        assert legal_moves(r, st) == {"3", "4", "5", "6", "7", "8"}
        st = play(r, st, (0, "8"))
        assert "8C" in hand(r, st, 3) and "8S" in hand(r, st, 0)  # the lowest suit of the rank goes
        assert actor(st) == 0 and st.phase[0] == EXCHANGE
        st = play(r, st, (0, "8"))
        assert "8S" in hand(r, st, 3)  # returning what just arrived is allowed
        assert actor(st) == 1
        assert legal_moves(r, st) == {"3", "4", "5", "6", "7", "8"}
        st = play(r, st, (1, "3"))
        assert "3D" in hand(r, st, 2)
        assert st.phase[0] == PLAY and n_cards(st) == [6, 6, 6, 6]
        assert actor(st) == 0  # the President leads
        assert hand(r, st, 3) == ["3S", "4S", "5S", "6S", "8C", "8S"]
        # what each seat gave and received this exchange, per kind (3 4 5 6 7 8)
        assert st.exch_in[0, seat_of(st, 3)].tolist() == [0, 0, 0, 0, 0, 2]
        assert st.exch_out[0, seat_of(st, 3)].tolist() == [0, 0, 0, 0, 1, 1]

    def test_exchange_back_differs(self) -> None:
        """Butthead: give [2, 1], give back [3, 2]."""
        r = Rules(players=4, rank_order="3 4 5 6 7 8", exchange=(2, 1), exchange_back=(3, 2), hands_per_session=1)
        hands = ["3C 4C 5C 6C 7C 8C", "3D 4D 5D 6D 7D 8D", "3H 4H 5H 6H 7H 8H", "3S 4S 5S 6S 7S 8S"]
        st = game(r, hands, start_ranks=[0, 1, 2, 3], seat_player=[0, 1, 2, 3])
        assert n_cards(st) == [8, 7, 5, 4]
        st = play(r, st, (0, "3"), (0, "4"), (0, "5"), (1, "3"), (1, "4"))
        assert st.phase[0] == PLAY
        assert n_cards(st) == [5, 5, 7, 7]

    @pytest.mark.parametrize("players,pairs", [(3, 1), (4, 2), (5, 2), (6, 3), (7, 3)])
    def test_fewer_players_than_the_list_needs(self, players: int, pairs: int) -> None:
        """[3, 2, 1]: only the first players // 2 entries apply."""
        r = Rules(players=players, exchange=(3, 2, 1), hands_per_session=1)
        st = init(r, keys=np.array([7], dtype=np.uint64), start_ranks=np.arange(players)[None])
        # by seat (reseated: President in seat 0, Scum in the last seat)
        got = (st.exch_in[0].sum(axis=1) - st.exch_out[0].sum(axis=1)).tolist()
        want = [0] * players
        for k, n in enumerate((3, 2, 1)[:pairs]):
            want[k] += n
            want[players - 1 - k] -= n
        assert got == want
        decisions = 0
        while st.phase[0] == EXCHANGE:
            st = play(r, st, sorted(legal_moves(r, st))[0])
            decisions += 1
        assert decisions == sum((3, 2, 1)[:pairs])

    def test_no_exchange_on_the_first_hand(self) -> None:
        r = Rules(players=4, hands_per_session=1)
        st = init(r, seed=3)
        assert st.phase[0] == PLAY and not st.exch_in.any()

    def test_wild_give_back_gives_the_least_wild_card(self) -> None:
        r = Rules(players=4, rank_order="3 4 5 6 7 8 2", jokers=1, joker_mode="wild", wild_ranks={"JK", "2"},
                  exchange=(1,), hands_per_session=1)
        st = game(r, ["JK 2S 3C", "4C", "5C", "8S"], rest_to="spread", start_ranks=[0, 1, 2, 3],
                  seat_player=[0, 1, 2, 3])
        assert "WILD" in legal_moves(r, st) and "2" not in legal_moves(r, st)
        before = set(hand(r, st, 0))
        st = play(r, st, (0, "WILD"))
        given = before - set(hand(r, st, 0))
        assert len(given) == 1 and given.pop()[0] == "2"  # a 2, not the joker


class TestSessionFlow:
    """reseat, scoring, target_points, hands_per_session: play whole hands quickly."""

    @staticmethod
    def _finish_hand(r: Rules, st):
        """Play on (the highest legal move each turn) until the hand is over."""
        st = play(r, st, max(legal_moves(r, st), key=lambda m: move_id(r, m)))
        while not st.hand_over[0]:
            st = play(r, st, max(legal_moves(r, st), key=lambda m: move_id(r, m)))
        return st

    def test_reseat(self) -> None:
        r = Rules(players=4, rank_order="3 4 5 6", first_lead="dealer", hands_per_session=2, exchange=(1,))
        st = game(r, ["3C", "6S", "4C", "5C"], rest_to=3, dealer=2)
        st = play(r, st, (2, "4"), (3, "pass"), (0, "pass"), (1, "6"))
        assert finish(st) == [-1, 1, 0, -1]
        st = play(r, st, (3, "pass"), (0, "pass"))
        assert actor(st) == 3  # 1 and 2 are out: 3 leads
        st = self._finish_hand(r, st)  # 3 plays out everything; 0 can never beat with the 3C
        assert list(st.last_finish[0]) == [3, 1, 0, 2]
        # President (2) in seat 0, then the finishing order clockwise; the Scum (0) deals
        assert list(st.seat_player[0]) == [2, 1, 3, 0]
        assert st.dealer[0] == 3
        assert list(st.social[0]) == [0, 1, 2, 3]

    def test_no_reseat_keeps_seats_and_the_scum_deals(self) -> None:
        r = Rules(players=3, rank_order="3 4 5", first_lead="dealer", hands_per_session=2, exchange=(1,),
                  reseat=False)
        st = game(r, ["3C", "4C", "5C"], rest_to=0, dealer=1)
        st = play(r, st, (1, "4"), (2, "5"))
        assert st.hand_over[0] and list(st.last_finish[0]) == [2, 0, 1]
        assert list(st.seat_player[0]) == [0, 1, 2]
        assert st.dealer[0] == 0

    @pytest.mark.parametrize("direction,seats", [("clockwise", [0, 1, 2, 3]), ("counter_clockwise", [0, 3, 2, 1])])
    def test_reseat_follows_the_direction_of_play(self, direction: str, seats: list[int]) -> None:
        r = Rules(players=4, direction=direction, hands_per_session=1)
        st = init(r, keys=np.array([1], dtype=np.uint64), start_ranks=np.array([[0, 1, 2, 3]]))
        # seat of each player (by rank): the President in seat 0, the Vice-President next in play...
        assert [seat_of(st, p) for p in range(4)] == seats
        assert st.dealer[0] == seats[3]  # the Scum deals

    @pytest.mark.parametrize("value", ["revolution", "revolution_and_reverse"])
    def test_revolution_and_direction_reset_each_hand(self, value: str) -> None:
        r = Rules(players=3, rank_order="3 4 5", first_lead="dealer", hands_per_session=2, exchange=(1,),
                  four_of_a_kind=value)
        st = game(r, ["3C 3D 3H 3S", "4C", "5C"], rest_to=2, dealer=0)
        st = play(r, st, (0, "3x4"))
        assert st.revolution[0] and finish(st)[0] == 0
        st = play(r, st, "pass", "pass")
        st = self._finish_hand(r, st)
        assert st.hand_no[0] == 1 and not st.revolution[0] and st.direction[0] == 1

    @pytest.mark.parametrize("scoring,points", [
        (None, [2, 1, -1, -2]),
        ((3, 1), [3, 1, 0, 0]),
        ((2, 1, 0, -5), [2, 1, 0, -5]),
    ])
    def test_scoring_and_padding(self, scoring, points) -> None:
        r = Rules(players=4, rank_order="3 4 5 6", first_lead="dealer", hands_per_session=1, scoring=scoring)
        assert list(r.points) == points
        st = game(r, ["6S", "3C", "4C", "5C"], rest_to=0, dealer=1)
        st = play(r, st, (1, "3"), (2, "4"), (3, "5"))
        assert st.hand_over[0] and st.phase[0] == OVER
        assert list(st.last_finish[0]) == [3, 0, 1, 2]
        assert list(st.hand_points[0]) == [points[3], points[0], points[1], points[2]]
        assert list(st.points[0]) == list(st.hand_points[0])

    @pytest.mark.parametrize("target,over", [(2, True), (3, False)])
    def test_target_points(self, target: int, over: bool) -> None:
        r = Rules(players=3, rank_order="3 4 5", first_lead="dealer", target_points=target, exchange=(1,))
        st = game(r, ["3C", "4C", "5C"], rest_to=0, dealer=1)
        st = play(r, st, (1, "4"), (2, "5"))
        assert st.hand_over[0] and list(st.points[0]) == [-2, 2, 0]
        assert (st.phase[0] == OVER) == over
        if over:
            assert legal_moves(r, st) == {"pass"}
            with pytest.raises(IllegalActionError):
                play(r, st, "3")
        else:
            assert st.hand_no[0] == 1 and st.phase[0] == EXCHANGE

    def test_hands_per_session_wins_over_target(self) -> None:
        r = Rules(players=3, rank_order="3 4 5", first_lead="dealer", target_points=1, hands_per_session=2,
                  exchange=(1,))
        st = game(r, ["3C", "4C", "5C"], rest_to=0, dealer=1)
        st = play(r, st, (1, "4"), (2, "5"))
        assert st.hand_over[0] and st.phase[0] != OVER and st.hand_no[0] == 1
        st = self._finish_hand(r, st)
        assert st.phase[0] == OVER and st.hand_no[0] == 2


class TestExtraCardsTo:
    """52 cards to 5 players: two seats get 11. Ranks by player, seats fixed (no reseat)."""

    RANKS = [3, 0, 4, 1, 2]  # player 1 President (seat 1), 4 Vice-Scum... player 2 Scum (seat 2)

    def _dealt(self, value: str, seed: int, ranks=RANKS) -> list[int]:
        r = Rules(players=5, extra_cards_to=value, reseat=False, hands_per_session=1)
        st = init(r, keys=np.array([seed], dtype=np.uint64), start_ranks=None if ranks is None else np.array([ranks]))
        # cards dealt to each seat, before the exchange moved any
        return (st.n_cards[0] - st.exch_in[0].sum(axis=1) + st.exch_out[0].sum(axis=1)).tolist()

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_first_dealt(self, seed: int) -> None:
        # the Scum (seat 2) deals; dealing starts at the dealer's left: seats 3 and 4 get 11
        assert self._dealt("first_dealt", seed) == [10, 10, 10, 11, 11]

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_top_ranks(self, seed: int) -> None:
        # dealing starts at the President (seat 1) and goes round: seats 1 and 2
        assert self._dealt("top_ranks", seed) == [10, 11, 11, 10, 10]

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_bottom_ranks(self, seed: int) -> None:
        # the Scum (seat 2) first, then the Vice-Scum (player 0, rank 3, seat 0)
        assert self._dealt("bottom_ranks", seed) == [11, 10, 11, 10, 10]

    @pytest.mark.parametrize("value", ["first_dealt", "top_ranks", "bottom_ranks"])
    def test_first_hand_deals_from_the_dealers_left(self, value: str) -> None:
        r = Rules(players=5, extra_cards_to=value, hands_per_session=1)
        st = init(r, keys=np.array([4], dtype=np.uint64), dealer=2)
        assert st.n_cards[0].tolist() == [10, 10, 10, 11, 11]


# =========================================================================== section 3 and fine points
class TestTrickEnd:
    def test_clearing_plays_when_led(self) -> None:
        """Fine point 5: a led trump, bomb or eight clears and the player leads; a led reset: the next player."""
        cases = [
            (dict(trump_ranks={"9"}), "9", 0),
            (dict(four_of_a_kind="bomb"), "5x4", 0),
            (dict(eight_cut=True), "8", 0),
            (dict(reset_ranks={"9"}), "9", 1),
            (dict(reset_ranks={"8"}, eight_cut=True), "8", 0),  # two rules fit: the player leads
            (dict(trump_ranks={"8"}, eight_cut=True), "8", 0),
        ]
        for options, lead, leader in cases:
            r = R(rank_order="3 4 5 6 7 8 9", **options)
            st = game(r, ["5C 5D 5H 5S 8C 9C 3C", "4C", "6C"], rest_to=2, dealer=0)
            st = play(r, st, (0, lead))
            assert top(r, st) is None and actor(st) == leader, options

    def test_trick_winner_out_next_player_with_cards_leads(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 9", players=4)
        st = game(r, ["3C 4C", "9C", "5C 5D", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "9"))
        assert finish(st)[1] == 0
        st = play(r, st, (2, "pass"), (3, "pass"), (0, "pass"))
        assert actor(st) == 2 and top(r, st) is None

    def test_trick_winner_out_counter_clockwise(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 9", players=4, direction="counter_clockwise")
        st = game(r, ["3C 4C", "5C 5D", "6C 6D", "9C"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (3, "9"))
        st = play(r, st, (2, "pass"), (1, "pass"), (0, "pass"))
        assert actor(st) == 2 and top(r, st) is None

    def test_the_last_play_goes_out_and_nobody_else_can_act(self) -> None:
        """Fine point 8: after any action, the trick ends when only the owner could act."""
        r = R(rank_order="3 4 5 6 7 8 9", pass_rule="locks_out")
        st = game(r, ["3C 4C", "5C", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "6"))
        assert actor(st) == 0
        st = play(r, st, (0, "pass"))
        assert actor(st) == 2 and top(r, st) is None
        assert not st.passed[0].any()

    def test_may_replay_all_others_pass_since_the_last_play(self) -> None:
        r = R(rank_order="3 4 5 6 7 8 9", players=4)
        st = game(r, ["3C 9C", "4C 7C", "5C 8C", "6C 6D"], rest_to=0, dealer=0)
        st = play(r, st, (0, "3"), (1, "pass"), (2, "pass"), (3, "6"), (0, "pass"), (1, "7"))
        # 2 and 3 and 0 passed before the 7: they may play again
        assert actor(st) == 2 and legal_moves(r, st) == {"pass", "8"}
        st = play(r, st, (2, "pass"), (3, "pass"), (0, "pass"))
        assert actor(st) == 1 and top(r, st) is None

    def test_hand_ends_when_one_player_has_cards(self) -> None:
        r = R(rank_order="3 4 5 6", players=4)
        st = game(r, ["3C", "4C", "5C", "6C"], rest_to=3, dealer=0)
        st = play(r, st, (0, "3"), (1, "4"), (2, "5"))
        assert st.hand_over[0] and st.phase[0] == OVER
        assert list(st.last_finish[0]) == [0, 1, 2, 3]


def test_step_does_not_mutate_its_input() -> None:
    r = R(rank_order="3 4 5 6")
    st = game(r, ["3C 4C", "5C", "6C"], rest_to=0, dealer=0)
    before = st.copy()
    step(r, st, np.array([move_id(r, "3")]))
    assert before == st and before is not st
