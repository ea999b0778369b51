"""Scenarios for the rank-based options added with the rest of the seeds, and the fine points
settled with them (rules.md sections 5 and 6, fine points 6, 7, 14, 15, 17), on hand-built hands.

Every scenario runs on both engines: the batched engine through ``helpers`` and, at the end of
each test, ``ScalarGame`` replaying the same moves (``both``), compared field by field.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import actor, game, hand, legal_moves, move_id, play, top

from president_env.core import (
    EXCHANGE,
    PLAY,
    Rules,
    RulesError,
    ScalarGame,
    card_names,
    init,
    observe,
    preset,
    step,
    tables,
)
from president_env.core.observation import slices
from president_env.core.state import field_names


def R(**options) -> Rules:
    """Four players, one hand per session, the dealer (seat 0) leads."""
    base = {"players": 4, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,)}
    base.update(options)
    return Rules(**base)


def both(r: Rules, st0, *moves: str | tuple[int, str]):
    """Play ``moves`` on the batched engine and on ScalarGame from ``st0``; assert they agree; return the state."""
    st = play(r, st0, *moves)
    g = ScalarGame.from_state(r, st0)
    for mv in moves:
        g.step(move_id(r, mv[1] if isinstance(mv, tuple) else mv))
    ref = g.to_state()
    for f in field_names():
        np.testing.assert_array_equal(getattr(st, f), getattr(ref, f), err_msg=f)
    for p in range(r.players):
        np.testing.assert_array_equal(observe(r, st, p)[0], g.observe(p))
    return st


def moved(r: Rules, st) -> list[str]:
    return card_names(r, st.moved[0])


# =========================================================================== fine point 14
class TestFirstLeadHoldsTheLowestCard:
    """Under first_lead lowest_card every first lead contains the lowest card, whatever a rule adds."""

    @pytest.mark.parametrize("options", [
        {"four_of_a_kind": "bomb"},
        {"reset_ranks": {"T"}},
        {"trump_ranks": {"T"}},
        {"complete_set_clears": True},
        {"power_ranks": {"T": (2,)}},
    ])
    def test_only_plays_holding_3c(self, options) -> None:
        r = R(first_lead="lowest_card", **options)
        st = game(r, ["3C 3D TC TD TH TS", "4C", "5C", "6C"], rest_to="spread", dealer=3)
        assert actor(st) == 0
        moves = legal_moves(r, st)
        assert moves and all(m.split("x")[0] == "3" for m in moves), moves
        st = both(r, st, (0, "3x2"))
        assert moved(r, st) == ["3C", "3D"]

    def test_the_preset_of_the_issue(self) -> None:
        r = preset("bombs", hands_per_session=1)
        st = game(r, ["3C 3D TC TD TH TS", "4C", "5C", "6C"], rest_to="spread", dealer=3)
        assert legal_moves(r, st) == {"3", "3x2"}

    def test_later_leads_are_free(self) -> None:
        r = R(first_lead="lowest_card", four_of_a_kind="bomb", rank_order="3 4 5 T")
        st = game(r, ["3C TC TD TH TS", "4C 4D", "5C 5D", "3D 3H 3S 4H"], rest_to="spread", dealer=3)
        st = both(r, st, (0, "3"), (1, "4"), (2, "5"), (3, "pass"), (0, "pass"), (1, "pass"))
        assert actor(st) == 2 and top(r, st) is None
        st = both(r, st, (2, "5"), (3, "pass"), (0, "Tx4"))  # a bomb: the trick ends, the bomber leads
        assert top(r, st) is None and actor(st) == 1 or hand(r, st, 0) == []


# =========================================================================== fine point 6
class TestCompleteSetFinePoint6:
    def test_a_transparent_set_counts_as_the_rank_it_beat(self) -> None:
        r = R(complete_set_clears=True, transparent_rank="3", rank_order="3 4 5 6 7 8")
        st = game(r, ["7C 7D 8C", "3C 3D 4C", "7H 7S 5C", "6C 6D"], rest_to="spread")
        st = both(r, st, (0, "7x2"), (1, "3x2"))
        # the transparent pair counted as two sevens: four sevens, the trick ended, player 1 leads
        assert top(r, st) is None and actor(st) == 1
        # without the transparent rank a pair of threes cannot even be played on the sevens
        plain = r.replace(transparent_rank=None)
        st = game(plain, ["7C 7D 8C", "3C 3D 4C", "7H 7S 5C", "6C 6D"], rest_to="spread")
        assert "3x2" not in legal_moves(plain, play(plain, st, (0, "7x2")))

    def test_a_lead_of_four_clears(self) -> None:
        r = R(complete_set_clears=True, rank_order="3 4 5 6 7 8")
        st = game(r, ["7C 7D 7H 7S 3C", "4C", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x4"))
        assert top(r, st) is None and actor(st) == 0

    def test_the_size_rule_need_not_hold(self) -> None:
        r = R(complete_set_clears=True, rank_order="3 4 5 6 7 8")
        st = game(r, ["7C 3C", "7D 7H 7S", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7"))
        assert "7x3" in legal_moves(r, st)  # 1 + 3 = four sevens: allowed although sizes differ
        st = both(r, st, (1, "7x3"))
        assert top(r, st) is None and actor(st) == 1


# =========================================================================== fine point 7
class TestSkipsFinePoint7:
    def test_a_count_that_comes_back_round_replays(self) -> None:
        r = R(equal_rank_beats=True, equal_play_skips=True, players=3, rank_order="3 4 5 6 7 8 9",
              size_rule="at_least")
        st = game(r, ["5C 9C 9D", "5D 5H 5S 8C", "6C 6D"], rest_to="spread")
        # player 1's triple on a single five skips 3 - 1 + 1 = 3 players with cards: round to itself
        st = both(r, st, (0, "5"), (1, "5x3"))
        assert actor(st) == 1 and top(r, st) == "5x3"
        assert "pass" in legal_moves(r, st)

    def test_under_single_round_a_skipped_player_loses_its_turn(self) -> None:
        r = R(equal_rank_beats=True, equal_play_skips=True, pass_rule="single_round", rank_order="3 4 5 6 7 8 9")
        st = game(r, ["5C 9C", "5D 8C", "6C 9D", "7C 9H"], rest_to="spread")
        st = both(r, st, (0, "5"), (1, "5"))  # skips player 2
        assert actor(st) == 3
        assert bool(st.passed[0, 2])  # its one turn is gone
        st = both(r, st, (3, "7"))
        assert top(r, st) is None and actor(st) == 3  # everyone had a turn: the trick is over


# =========================================================================== fine point 15
class TestTransparentOnAllWildFinePoint15:
    def test_the_transparent_set_becomes_an_all_wild_set(self) -> None:
        r = R(jokers=2, joker_mode="wild", wild_ranks={"JK"}, transparent_rank="3", rank_order="3 4 5 6",
              wild_tie="natural_higher")
        st = game(r, ["JK JK 4C", "3C 3D 5C", "6C 6D", "4D 5D"], rest_to="spread")
        st = both(r, st, (0, "WILDx2"), (1, "3x2"))
        assert top(r, st) == "WILDx2" and not bool(st.top_wild[0])
        # all-wild sets of one size are equal whatever wild_tie says: nothing of size 2 beats it now
        assert legal_moves(r, st) == {"pass"}


# =========================================================================== power_ranks
class TestPowerRanks:
    def sofia(self, **o) -> Rules:
        return preset("sofia", first_lead="dealer", hands_per_session=1, **o)

    def test_a_single_two_beats_a_pair_of_aces(self) -> None:
        r = self.sofia()
        st = game(r, ["AC AD 3C", "2C 4C", "JC 5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Ax2"))
        assert legal_moves(r, st) == {"pass", "2"}
        st = both(r, st, (1, "2"))
        assert top(r, st) == "2" and actor(st) == 2  # it stays on top as a single two; the trick goes on
        assert legal_moves(r, st) == {"pass", "J"}  # and is beaten by the normal rules

    def test_the_sizes_of_each_power_rank(self) -> None:
        r = self.sofia()
        # jacks: one beats a pair or a triple, two beat a four; a joker beats a four
        # (the formula: n cards beat more than n and at most sizes[n-1] cards)
        st = game(r, ["KC KD KH KS 3C", "JC JD JK 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Kx4"))
        assert legal_moves(r, st) == {"pass", "Jx2", "JK"}
        st = game(r, ["KC KD KH 3C", "JC JD JK 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Kx3"))
        assert legal_moves(r, st) == {"pass", "J", "Jx2", "JK"}
        st = game(r, ["KC KD KH 3C", "2C 2D 2H 2S 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Kx3"))
        assert legal_moves(r, st) == {"pass", "2x2", "2x3"}  # two twos beat a triple; three by the normal rules

    def test_against_n_or_fewer_cards_normal_rules(self) -> None:
        r = self.sofia()
        st = game(r, ["AC AD 3C", "2C 2D 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Ax2"))
        assert legal_moves(r, st) == {"pass", "2", "2x2"}  # the pair of twos by the normal rules
        st = game(r, ["AC 3C", "2C 2D 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "A"))
        assert legal_moves(r, st) == {"pass", "2"}  # a single by the normal rules; a pair beats no single

    def test_only_on_ranks_below_every_power_rank(self) -> None:
        r = self.sofia()
        st = game(r, ["2C 2D 3C", "JC 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "2x2"))
        assert legal_moves(r, st) == {"pass"}  # a pair of twos is not below every power rank

    def test_two_decks_double_every_number(self) -> None:
        r = Rules(players=4, decks=2, first_lead="dealer", hands_per_session=1, exchange=(1,),
                  power_ranks={"2": (2,)})
        st = game(r, ["AC AD AH 3C", "2C 2D 2H", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Ax3"))
        assert legal_moves(r, st) == {"pass", "2x2", "2x3"}  # two twos count as one against 3..4 cards
        st = game(r, ["AC AD 3C", "2C 2D 2H", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Ax2"))
        assert legal_moves(r, st) == {"pass", "2x2"}  # against two cards: the normal rules
        st = game(r, ["AC AD AH AS 3C", "2C 4C", "5C", "6C"], rest_to=3)
        st = both(r, st, (0, "Ax4"))
        assert legal_moves(r, st) == {"pass"}  # a single two has no power with two decks

    def test_judged_by_the_order_in_force(self) -> None:
        r = Rules(players=4, first_lead="dealer", hands_per_session=1, exchange=(1,),
                  four_of_a_kind="revolution", power_ranks={"2": (2,)}, rank_order="3 4 5 6 7 8 9 T J Q K A 2")
        st = game(r, ["QC QD QH QS 4C 4D 3C", "2C 2D 5C", "6C", "7C"], rest_to=3)
        st = both(r, st, (0, "Qx4"), (1, "pass"), (2, "pass"), (3, "pass"))
        assert bool(st.revolution[0]) and actor(st) == 0
        st = both(r, st, (0, "4x2"))
        # in the revolution the two is the lowest rank: a four is not below it, no power
        assert legal_moves(r, st) == {"pass"}
        normal = game(r, ["4C 4D 3C", "2C 5C", "6C", "7C"], rest_to=3)
        assert legal_moves(r, play(r, normal, (0, "4x2"))) == {"pass", "2"}

    def test_validation(self) -> None:
        with pytest.raises(RulesError, match="power_ranks.*entry 1 must be 2..4"):
            Rules(power_ranks={"2": (1,)})
        with pytest.raises(RulesError, match="power_ranks.*wild"):
            Rules(jokers=1, joker_mode="wild", wild_ranks={"JK"}, power_ranks={"JK": (4,)})
        with pytest.raises(RulesError, match="power_ranks.*not in the deck"):
            Rules(power_ranks={"JK": (4,)})
        assert Rules(power_ranks="2:2,3,4 J:3,4").power == {"2": (2, 3, 4), "J": (3, 4)}
        assert Rules.from_dict(preset("sofia").to_dict()) == preset("sofia")


# =========================================================================== revolution_by_singles
class TestRevolutionBySingles:
    def hamish(self, **o) -> Rules:
        base = {"first_lead": "dealer", "hands_per_session": 1, "president_must_win": False}
        base.update(o)
        return preset("hamish_allan", **base)

    def test_four_singles_in_a_row_start_a_revolution(self) -> None:
        r = self.hamish()
        st = game(r, ["7C 9C KC", "7D 9D KD", "7H 9H", "7S 9S"], rest_to="spread")
        st = both(r, st, (0, "7"), (1, "7"), (2, "pass"), (3, "7"))
        assert not bool(st.revolution[0]) and int(st.single_row[0]) == 3
        st = both(r, st, (0, "pass"), (1, "pass"), (2, "7"))
        assert bool(st.revolution[0])
        assert int(st.direction[0]) == -1  # revolution_and_reverse turns the direction too

    def test_another_play_breaks_the_row(self) -> None:
        r = self.hamish()
        st = game(r, ["7C 7D 9C", "7H 9D KD", "7S 9H", "8S 9S"], rest_to="spread")
        st = both(r, st, (0, "7"), (1, "7"), (2, "7"))
        assert int(st.single_row[0]) == 3
        st = both(r, st, (3, "8"), (0, "pass"), (1, "pass"), (2, "pass"))
        assert not bool(st.revolution[0]) and int(st.single_row[0]) == 0

    def test_a_transparent_single_counts_as_the_rank_it_beat(self) -> None:
        r = self.hamish()
        st = game(r, ["7C 9C KC", "7D 9D KD", "3H 9H", "7S 9S"], rest_to="spread")
        st = both(r, st, (0, "7"), (1, "7"), (2, "3"), (3, "7"))
        assert bool(st.revolution[0])

    def test_a_pair_on_an_equal_pair_does_not_count(self) -> None:
        r = self.hamish()
        st = game(r, ["7C 7D 9C", "7H 7S 9D", "5C", "6C"], rest_to="spread")
        st = both(r, st, (0, "7x2"), (1, "7x2"))
        assert not bool(st.revolution[0]) and int(st.single_row[0]) == 0

    def test_validation(self) -> None:
        with pytest.raises(RulesError, match="revolution_by_singles.*equal_rank_beats"):
            Rules(revolution_by_singles=True, four_of_a_kind="revolution")
        with pytest.raises(RulesError, match="revolution_by_singles.*four_of_a_kind"):
            Rules(revolution_by_singles=True, equal_rank_beats=True)


# =========================================================================== revolution_reset_rank
class TestRevolutionResetRank:
    def test_the_ace_resets_only_in_a_revolution(self) -> None:
        r = preset("hamish_allan", first_lead="dealer", hands_per_session=1, president_must_win=False)
        st = game(r, ["KC KD KH KS 4C 5C", "AC 2C 6C", "8C 9C", "TC JC"], rest_to="spread")
        st = both(r, st, (0, "4"))
        assert "A" in legal_moves(r, st) and "2" in legal_moves(r, st)
        st2 = both(r, st, (1, "2"))  # outside a revolution the two is the reset card: next player leads
        assert top(r, st2) is None and actor(st2) == 2
        # a revolution (counter-clockwise from now on): the ace becomes the reset rank, the two does not
        st = game(r, ["KC KD KH KS 4C 5C", "AC 2C 6C", "8C 9C", "TC JC"], rest_to="spread")
        st = both(r, st, (0, "Kx4"), (3, "pass"), (2, "pass"), (1, "pass"), (0, "5"))
        assert bool(st.revolution[0]) and actor(st) == 3
        st = both(r, st, (3, "pass"), (2, "pass"))
        assert actor(st) == 1
        assert "A" in legal_moves(r, st)
        st3 = both(r, st, (1, "A"))
        assert top(r, st3) is None and actor(st3) == 0  # reset: the next player with cards leads
        assert "2" not in legal_moves(r, st)  # the two is the lowest rank now (fine point 16), no reset card

    def test_validation(self) -> None:
        with pytest.raises(RulesError, match="revolution_reset_rank.*four_of_a_kind"):
            Rules(revolution_reset_rank="A")
        with pytest.raises(RulesError, match="revolution_reset_rank.*trump_ranks"):
            Rules(revolution_reset_rank="2", trump_ranks={"2"}, four_of_a_kind="revolution")


# =========================================================================== hand_assignment expose
class TestExpose:
    def test_piles_go_by_their_exposed_card(self) -> None:
        r = preset("expose_hands", exchange=(), hands_per_session=1)
        plain = r.replace(hand_assignment="deal")
        t = tables(r)
        for seed in range(20):
            st = init(r, 1, seed=seed, start_ranks="random")
            ref = init(plain, keys=st.key, start_ranks="random")
            # the same piles, handed out differently
            assert sorted(map(tuple, st.hands[0].tolist())) == sorted(map(tuple, ref.hands[0].tolist()))
            shown = st.exposed[0].astype(int)
            assert (shown >= 0).all() and st.hands[0, np.arange(r.players), shown].all()
            # President's card is the best, then the Vice-President's, ...
            by_rank = [int(shown[np.flatnonzero(st.social[0] == k)[0]]) for k in range(r.players)]
            keys = [int(t.best_key[c]) for c in by_rank]
            names = [t.card_names[c] for c in by_rank]
            assert all(a >= b or names[i] == names[i + 1] for i, (a, b) in enumerate(zip(keys, keys[1:], strict=False)))
            # each exposed card is the last card dealt to its pile: the plain deal's seat holds it
            for s in range(r.players):
                assert ref.hands[0, :, shown[s]].any()

    def test_the_exposed_cards_are_public_and_leak_nothing_else(self) -> None:
        r = preset("expose_hands", hands_per_session=1)
        st = init(r, 1, seed=5, start_ranks="random")
        sl = slices(r)["exposed"]
        t = tables(r)
        for p in range(r.players):
            o = observe(r, st, p)[0, sl].reshape(r.players, t.n_kinds)
            seat = int(np.flatnonzero(st.seat_player[0] == p)[0])
            for j in range(r.players):
                s = (seat + j) % r.players
                assert o[j].sum() == 1 and o[j, t.card_kind[st.exposed[0, s]]] == 1

    def test_a_first_hand_exposes_nothing(self) -> None:
        r = preset("expose_hands", hands_per_session=1)
        st = init(r, 3, seed=0)
        assert (st.exposed == -1).all()
        assert not observe(r, st, 0)[:, slices(r)["exposed"]].any()

    def test_records_keep_the_exposed_cards(self) -> None:
        from president_env.core.records import Recorder, random_actions, replay

        r = preset("expose_hands", hands_per_session=2)
        rec = Recorder(r, init(r, 2, seed=1, start_ranks="random"))
        rng = np.random.default_rng(0)
        recs = rec.run(lambda s: random_actions(s.legal, rng))
        assert all(len(x["exposed"]) == r.players for x in recs)
        for x in recs:
            replay(x)
        bad = dict(recs[0])
        bad["exposed"] = list(reversed(bad["exposed"]))
        with pytest.raises(ValueError, match="exposed"):
            replay(bad)
        bad["exposed"] = bad["exposed"][:2]
        with pytest.raises(ValueError, match="exposed: expected one card name per player"):
            replay(bad)

    def test_a_hand_dealt_by_hand_shows_nothing_and_still_replays(self) -> None:
        from helpers import deal

        from president_env.core.records import Recorder, random_actions, replay

        r = preset("expose_hands", hands_per_session=2)
        d = deal(r, ["3C 4C", "5C", "6C", "7C"], rest_to="spread")[None]
        st = init(r, keys=np.array([1], dtype=np.uint64), deal=d, start_ranks=np.array([[0, 1, 2, 3]]))
        assert (st.exposed == -1).all()
        rng = np.random.default_rng(0)
        recs = Recorder(r, st, deal=d).run(lambda s: random_actions(s.legal, rng))
        assert recs[0]["exposed"] is None and len(recs[1]["exposed"]) == 4  # the next hand is dealt: it shows
        for x in recs:
            replay(x)


# =========================================================================== merchant_trade
class TestMerchantTrade:
    def merchants(self, **o) -> Rules:
        return preset("merchants", hands_per_session=1, **o)

    def deal_game(self, r):
        # by player; player p was ranked p last hand (0 = President), so players 2 and 3 are the merchants
        hands = ["3C 4C 5C 6C 7C 8C 9C TC", "3D 4D 5D 6D 7D 8D 9D TD", "3H 4H 5H 6H 7H 8H 9H TH",
                 "3S 4S 5S 6S 7S 8S 9S TS", "JC JD JH JS QC QD QH QS", "KC KD KH KS AC AD AH AS 2C 2D 2H 2S"]
        return game(r, hands, start_ranks=[0, 1, 2, 3, 4, 5], dealer=0)

    def test_the_middle_pair_trades_after_the_give_backs(self) -> None:
        r = self.merchants()
        st = self.deal_game(r)
        assert r.merchant_pairs == ((2, 3),)
        # give-backs: President two cards, Vice-President one
        st = both(r, st, (0, "3"), (0, "4"), (1, "3"))
        assert int(st.phase[0]) == EXCHANGE and actor(st) == 2
        before3 = observe(r, st, 3)
        st = both(r, st, (2, "T"))
        assert "TH" in hand(r, st, 2)  # not moved yet
        assert int(st.trade_pick[0, 2]) >= 0 and moved(r, st) == ["TH"]
        assert actor(st) == 3
        # the second merchant's observation does not show the first one's choice
        np.testing.assert_array_equal(observe(r, st, 3)[:, :slices(r)["my_turn"].start],
                                      before3[:, :slices(r)["my_turn"].start])
        np.testing.assert_array_equal(observe(r, st, 3)[:, slices(r)["trade_pick"]],
                                      before3[:, slices(r)["trade_pick"]])
        assert observe(r, st, 2)[0, slices(r)["trade_pick"]].sum() == 1
        st = both(r, st, (3, "3"))
        assert "3S" in hand(r, st, 2) and "TH" in hand(r, st, 3)
        assert "TH" not in hand(r, st, 2) and "3S" not in hand(r, st, 3)
        assert int(st.phase[0]) == PLAY and (st.trade_pick == -1).all()
        assert moved(r, st) == ["3S"]

    def test_the_first_choice_cannot_depend_on_anything_the_second_may_see(self) -> None:
        r = self.merchants()
        base = both(r, self.deal_game(r), (0, "3"), (0, "4"), (1, "3"))
        obs = [observe(r, both(r, base, (2, m)), 3) for m in ("3", "5", "T")]
        for o in obs[1:]:
            np.testing.assert_array_equal(o, obs[0])

    def test_trading_flag(self) -> None:
        r = self.merchants()
        st = self.deal_game(r)
        flag = slices(r)["trading"].start
        assert observe(r, st, 0)[0, flag] == 0
        st = both(r, st, (0, "3"), (0, "4"), (1, "3"))
        assert observe(r, st, 2)[0, flag] == 1

    def test_validation_and_pairs(self) -> None:
        with pytest.raises(RulesError, match="merchant_trade.*no two players"):
            Rules(players=5, merchant_trade=True)
        assert Rules(players=8, merchant_trade=True).merchant_pairs == ((2, 3), (4, 5))
        assert Rules(players=7, merchant_trade=True).merchant_pairs == ((2, 3),)
        assert Rules(players=4, exchange=(1,), merchant_trade=True).merchant_pairs == ((1, 2),)

    def test_records_replay_the_trades(self) -> None:
        from president_env.core.records import Recorder, random_actions, replay

        r = preset("merchants", players=8, hands_per_session=2)
        rec = Recorder(r, init(r, 2, seed=1, start_ranks="random"))
        rng = np.random.default_rng(0)
        recs = rec.run(lambda s: random_actions(s.legal, rng))
        for x in recs:
            replay(x)
        ex = [d for d in recs[0]["decisions"] if len(d["cards"]) == 1][:7]
        assert len(ex) == 7


def test_step_keeps_new_fields_pure() -> None:
    r = preset("merchants", hands_per_session=1)
    st = init(r, 2, seed=0, start_ranks="random")
    before = st.copy()
    step(r, st, (np.random.default_rng(0).random(st.legal.shape) * st.legal).argmax(axis=1))
    for f in ("trade_pick", "exposed", "single_row"):
        np.testing.assert_array_equal(getattr(st, f), getattr(before, f))
