"""The UEC standard rules (rule book section 9, ../shared/spec/uecda.md section 1): scenario tests with
hand-built hands, one class per option, and the preset ``uecda``.

Moves are the action table's own words ("single 3S", "pair 9D + JK as 9S", "run 6H JK 8H", "single wild
card"), so a test reads as the rule it checks.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from helpers import actor, game, hand, n_cards

from president_env.core import (
    Rules,
    RulesError,
    action_table,
    init,
    observe,
    preset,
    refresh_legal,
    step,
    step_inplace,
)
from president_env.core.observation_layout import slices

P5 = list(range(5))


def U(**options) -> Rules:
    """The preset ``uecda``, one hand per session, with ``options`` changed."""
    base = {"hands_per_session": 1}
    base.update(options)
    return preset("uecda", **base)


@lru_cache(maxsize=32)
def _ids(r: Rules) -> dict[str, int]:
    at = action_table(r)
    out = {at.words(i): i for i in range(at.n)}
    assert len(out) == at.n, "two actions with the same words"
    return out


def aid(r: Rules, move: str) -> int:
    return _ids(r)[move]


def moves(r: Rules, st) -> set[str]:
    at = action_table(r)
    return {at.words(int(i)) for i in np.flatnonzero(st.legal[0])}


def go(r: Rules, st, *mvs: tuple[int, str]):
    for who, mv in mvs:
        assert actor(st) == who, f"expected player {who} to act before {mv!r}, but player {actor(st)} acts"
        st = step(r, st, np.array([aid(r, mv)]))
    return st


def deal5(r: Rules, hands: list[str], rest_to: int = 4, **kw):
    """Five hands by player (player i in seat i), the rest of the pack to ``rest_to``."""
    return game(r, hands, rest_to=rest_to, seat_player=P5, **kw)


# =========================================================================== the preset
class TestPreset:
    def test_the_uecda_preset_has_the_columns_of_the_spec(self) -> None:
        r = preset("uecda")
        assert (r.players, r.decks, r.jokers, r.joker_mode, r.wild_ranks) == (5, 1, 1, "wild", frozenset({"JK"}))
        assert (r.lead_card, r.lead_may_pass, r.trick_end, r.suit_lock) == ("3D", True, "all_passed", "exact")
        assert (r.run_beat, r.run_joker_ends, r.run_revolution, r.five_card_set) == ("clear_above", True, 5, True)
        assert (r.random_seats_every, r.rank_reset_every, r.pass_limit) == (3, 100, 20)
        assert r.points == (5, 4, 3, 2, 1) and r.hands_per_session == 1000 and r.max_set == 5
        assert not (r.eleven_back or r.six_reverse or r.five_skip)

    def test_the_joker_names_the_card_it_stands_for(self) -> None:
        r = preset("uecda")
        words = set(_ids(r))
        assert {"pair 9D + JK as 9S", "pair 9D + JK as 9C", "five 9C 9D 9H 9S + JK", "run 6H JK 8H",
                "run JK 3H 4H", "run AH 2H JK", "single wild card"} <= words
        assert "pair 9D + JK as 9D" not in words and "run JK 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2H JK" not in words


# =========================================================================== lead_card
class TestLeadCard:
    def test_the_holder_of_3d_leads_and_need_not_play_it(self) -> None:
        r = U()
        st = deal5(r, ["4C 5C", "3D 9C", "6C", "7C", "8C"])
        assert actor(st) == 1
        assert "single 9C" in moves(r, st) and "single 3D" in moves(r, st)
        st = go(r, st, (1, "single 9C"))
        assert actor(st) == 2

    def test_after_the_exchange_the_new_holder_leads(self) -> None:
        r = U(rank_reset_every=None)
        # player 4 (the daihinmin) holds 3D; it gives its two best cards; the daifugo (0) gives 3D back? No:
        # the daifugo (player 0) receives and chooses two cards for player 4; here it gives 3D it was dealt
        st = deal5(r, ["3D 4C 5C JK", "3H 9C", "6C 6D", "7C 7D", "8C 8D"], start_ranks=[0, 1, 2, 3, 4])
        assert st.phase[0] == 0
        assert actor(st) == 0
        st = go(r, st, (0, "single 3D"), (0, "single 4C"))
        assert actor(st) == 1                     # the fugo's give-back
        st = go(r, st, (1, "single 3H"))
        assert "3D" in hand(r, st, 4) and actor(st) == 4   # the card moved: its new holder leads


# =========================================================================== lead_may_pass and trick_end
class TestTrickEnd:
    def test_the_leader_may_pass_and_the_next_player_leads(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C 6C", "7C", "8D", "9D"])
        assert "pass" in moves(r, st)
        st = go(r, st, (0, "pass"))
        assert actor(st) == 1 and st.top_rank[0] == -1 and "pass" in moves(r, st)

    def test_a_trick_of_passes_only_goes_back_to_who_was_to_lead(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C 6C", "7C TC", "8D", "9D"])
        st = go(r, st, (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"))
        assert actor(st) == 0 and st.top_rank[0] == -1 and not st.passed[0].any()

    def test_the_owner_of_the_last_play_may_beat_its_own_play(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C KC 6D", "7C TC", "8D", "9D"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"))
        assert actor(st) == 1                     # everyone else passed: the owner again, the trick goes on
        assert "single KC" in moves(r, st) and "pass" in moves(r, st)
        st = go(r, st, (1, "single KC"))
        assert actor(st) == 1 and st.top_rank[0] >= 0   # the others stay locked out

    def test_the_trick_ends_when_the_owner_passes_too(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C KC", "7C TC", "8D", "9D"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"),
                (1, "pass"))
        assert actor(st) == 1 and st.top_rank[0] == -1 and not st.passed[0].any()

    def test_off_the_trick_ends_when_the_others_have_passed(self) -> None:
        r = U(trick_end="others_passed")
        st = deal5(r, ["3D 4C", "5C KC", "7C TC", "8D", "9D"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"))
        assert actor(st) == 1 and st.top_rank[0] == -1

    def test_a_leader_may_not_pass_with_the_option_off(self) -> None:
        r = U(lead_may_pass=False)
        st = deal5(r, ["3D 4C", "5C 6C", "7C", "8D", "9D"])
        assert "pass" not in moves(r, st)


# =========================================================================== suit_lock
class TestSuitLock:
    def test_two_plays_of_the_same_suits_lock_the_trick(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C 6H QC", "9C TH JH", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"))
        assert st.lock[0] == 1                    # clubs (suit_order C D H S: bit 0)
        assert moves(r, st) == {"pass", "single 9C"}
        st = go(r, st, (2, "single 9C"), (3, "pass"), (4, "pass"), (0, "pass"))
        assert moves(r, st) == {"pass", "single QC"}   # 6H does not follow the lock

    def test_different_suits_do_not_lock(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5H 6H 7C", "8C", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single 5H"))
        assert st.lock[0] == 0 and "single 8C" in moves(r, st)

    def test_the_jokers_suit_is_the_suit_it_stands_for(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C 4S", "5C 5S 9D JK", "6C 6S 7C 7H", "TD", "JD"])
        st = go(r, st, (0, "pair 4C 4S"), (1, "pair 5C + JK as 5S"))
        assert st.lock[0] == 0b1001               # clubs and spades, the joker's spade included
        assert moves(r, st) == {"pass", "pair 6C 6S"}

    def test_a_lone_joker_ignores_the_lock_and_clears_it(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "5C", "6C JK", "TD", "JD"], rest_to=3)
        st = go(r, st, (0, "single 4C"), (1, "single 5C"))
        assert st.lock[0] == 1 and "single wild card" in moves(r, st)
        st = go(r, st, (2, "single wild card"))
        assert st.lock[0] == 0

    def test_the_lock_ends_with_the_trick(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C 4H", "5C 5H", "6C 6H", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"), (2, "single 6C"))
        st = go(r, st, (3, "pass"), (4, "pass"), (0, "pass"), (1, "pass"), (2, "pass"))
        assert st.lock[0] == 0 and st.top_rank[0] == -1

    def test_off_nothing_locks(self) -> None:
        r = U(suit_lock="none")
        st = deal5(r, ["3D 4C", "5C 6H 7C", "8C 8H 9H", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"))
        assert {"single 8C", "single 8H", "single 9H"} <= moves(r, st)


# =========================================================================== spade_three_beats_joker
class TestSpadeThree:
    def test_the_single_3s_beats_a_lone_joker_and_ends_the_trick(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C", "JK 9C", "3S 2C", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single wild card"))
        assert moves(r, st) == {"pass", "single 3S"}   # not the 2C: a lone joker tops every single
        st = go(r, st, (2, "single 3S"))
        assert actor(st) == 2 and st.top_rank[0] == -1  # the 3S player leads the next trick

    def test_the_3s_beats_the_joker_under_a_revolution_too(self) -> None:
        r = U()
        st = deal5(r, ["3D 4C 4D 4H 4S", "JK 9C", "3S 2C", "TD", "JD"])
        st = go(r, st, (0, "four 4C 4D 4H 4S"), (1, "pass"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"))
        assert st.revolution[0]
        st = go(r, st, (0, "single 3D"), (1, "single wild card"))
        assert "single 3S" in moves(r, st)

    def test_off_nothing_beats_a_lone_joker(self) -> None:
        r = U(spade_three_beats_joker=False)
        st = deal5(r, ["3D 4C", "JK 9C", "3S 2C", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single wild card"))
        assert moves(r, st) == {"pass"}


# =========================================================================== runs: clear_above, joker ends
class TestRuns:
    def test_a_run_beats_a_run_from_above_its_highest_card(self) -> None:
        r = U()
        st = deal5(r, ["3D 3H 4H 5H", "4C 5C 6C 6D 7D 8D", "9C", "TD", "JD"])
        st = go(r, st, (0, "run 3H 4H 5H"))
        legal = moves(r, st)
        assert "run 6D 7D 8D" in legal and "run 4C 5C 6C" not in legal

    def test_highest_higher_lets_an_overlapping_run_beat(self) -> None:
        r = U(run_beat="highest_higher")
        st = deal5(r, ["3D 3H 4H 5H", "4C 5C 6C 6D 7D 8D", "9C", "TD", "JD"])
        st = go(r, st, (0, "run 3H 4H 5H"))
        assert {"run 6D 7D 8D", "run 4C 5C 6C"} <= moves(r, st)

    def test_under_a_revolution_a_run_beats_from_below_its_lowest_card(self) -> None:
        r = U(rank_reset_every=None)
        st = deal5(r, ["3D 9H TH JH", "4C 5C 6C 7C 7D 8D 9D", "9C", "TD", "JD"])
        st.revolution[0] = 1
        refresh_legal(r, st)
        st = go(r, st, (0, "run 9H TH JH"))
        legal = moves(r, st)
        assert {"run 4C 5C 6C", "run 5C 6C 7C"} <= legal and "run 7D 8D 9D" not in legal

    def test_the_joker_stands_at_a_virtual_end(self) -> None:
        r = U()
        st = deal5(r, ["3D 3H 4H JK", "AC 2C", "9C", "TD", "JD"], rest_to=2)
        assert {"run JK 3H 4H", "run 3H 4H JK"} <= moves(r, st) and "run 3H JK 5H" not in moves(r, st)
        st = go(r, st, (0, "run JK 3H 4H"))
        assert hand(r, st, 0) == ["3D"] and st.top_lo[0] == 0

    def test_a_run_above_the_two_is_the_highest(self) -> None:
        r = U()
        st = deal5(r, ["3D AH 2H JK", "QC KC AC", "9C", "TD", "JD"], rest_to=2)
        st = go(r, st, (0, "run AH 2H JK"))
        assert "run QC KC AC" not in moves(r, st)

    def test_off_no_virtual_end(self) -> None:
        r = U(run_joker_ends=False)
        assert "run JK 3H 4H" not in _ids(r) and "run 3H JK 5H" in _ids(r)

    def test_a_run_of_five_starts_a_revolution_and_four_does_not(self) -> None:
        r = U()
        st = deal5(r, ["3D 4H 5H 6H 7H 9H", "4C TC", "9C", "TD", "JD"], rest_to=2)
        st = go(r, st, (0, "run 4H 5H 6H 7H"))
        assert st.revolution[0] == 0
        st = deal5(r, ["3D 9H TH JH QH KH", "4C TC", "9C", "TD", "JD"], rest_to=2)
        st = go(r, st, (0, "run 9H TH JH QH KH"))
        assert st.revolution[0] == 1

    def test_a_wild_eight_in_a_run_cuts(self) -> None:
        r = U()
        st = deal5(r, ["3D 7H 9H JK", "TC", "9C", "TD", "JD"], rest_to=2)
        st = go(r, st, (0, "run 7H JK 9H"))
        assert actor(st) == 0 and st.top_rank[0] == -1   # cut: the trick ends, the player leads

    def test_off_a_wild_eight_does_not_cut(self) -> None:
        r = U(eight_cut_by_wild=False)
        st = deal5(r, ["3D 7H 9H JK", "TC", "9C", "TD", "JD"], rest_to=2)
        st = go(r, st, (0, "run 7H JK 9H"))
        assert actor(st) == 1


# =========================================================================== five_card_set
class TestFiveCardSet:
    def test_four_of_a_rank_and_the_joker_are_a_set_of_five_and_revolt(self) -> None:
        r = U()
        st = deal5(r, ["3D 9C 9D 9H 9S JK", "TC", "KC", "TD", "JD"], rest_to=2)
        assert "five 9C 9D 9H 9S + JK" in moves(r, st)
        st = go(r, st, (0, "five 9C 9D 9H 9S + JK"))
        assert st.revolution[0] == 1 and n_cards(st)[0] == 1

    def test_off_no_set_of_five(self) -> None:
        r = U(five_card_set=False)
        assert r.max_set == 4 and "five 9C 9D 9H 9S + JK" not in _ids(r)


# =========================================================================== pass_limit
class TestPassLimit:
    def test_the_hand_ends_after_the_passes_in_a_row(self) -> None:
        r = U(pass_limit=5)
        st = deal5(r, ["3D 4C", "5C 6C", "7C", "8D", "9D"])
        st = go(r, st, (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"))
        assert st.pass_run[0] == 4
        st = step(r, st, np.array([0]))
        assert st.hand_over[0] and sorted(st.last_finish[0].tolist()) == P5

    def test_a_play_resets_the_count(self) -> None:
        r = U(pass_limit=5)
        st = deal5(r, ["3D 4C 6D", "5C 6C", "7C 8C", "8D", "9D"])
        st = go(r, st, (0, "pass"), (1, "pass"))
        assert st.pass_run[0] == 2
        st = go(r, st, (2, "single 7C"))
        assert st.pass_run[0] == 0
        st = go(r, st, (3, "pass"), (4, "pass"))
        assert st.pass_run[0] == 2 and not st.hand_over[0] and actor(st) == 2

    def test_the_places_left_are_drawn_from_the_key(self) -> None:
        r = U(pass_limit=1)
        places = set()
        for seed in range(12):
            st = deal5(r, ["3D 4C", "5C 6C", "7C", "8D", "9D"], seed=seed)
            st = go(r, st, (0, "pass"))
            places.add(tuple(st.last_finish[0].tolist()))
            again = go(r, deal5(r, ["3D 4C", "5C 6C", "7C", "8D", "9D"], seed=seed), (0, "pass"))
            assert again.last_finish[0].tolist() == st.last_finish[0].tolist()
        assert len(places) > 3


# =========================================================================== seats and ranks between hands
class TestSession:
    def test_seats_are_redrawn_every_k_hands_and_ranks_reset(self) -> None:
        r = preset("uecda", hands_per_session=7, rank_reset_every=6)
        B = 16
        st = init(r, B, seed=3)
        rng = np.random.default_rng(0)
        seats = [{0: st.seat_player[b].tolist()} for b in range(B)]
        exchanged: list[dict[int, bool]] = [{0: bool(st.phase[b] == 0)} for b in range(B)]
        while not (st.phase == 2).all():
            a = np.array([rng.choice(np.flatnonzero(m)) for m in st.legal])
            step_inplace(r, st, a)
            for b in np.flatnonzero(st.hand_over & (st.phase != 2)):
                h = int(st.hand_no[b])
                seats[b][h] = st.seat_player[b].tolist()
                exchanged[b][h] = bool(st.phase[b] == 0)
        for b in range(B):                        # hands 0, 3 and 6 drawn; 0 and 6 without ranks
            assert [exchanged[b][h] for h in range(7)] == [False, True, True, True, True, True, False]
            assert seats[b][0] == seats[b][1] == seats[b][2] and seats[b][3] == seats[b][4] == seats[b][5]
        assert sum(seats[b][3] != seats[b][0] for b in range(B)) > B // 2

    def test_same_seed_same_seats(self) -> None:
        r = preset("uecda")
        a, b = init(r, 8, seed=9), init(r, 8, seed=9)
        assert (a.seat_player == b.seat_player).all() and len({tuple(x) for x in a.seat_player}) > 1


# =========================================================================== the optional rules
class TestOptionalRules:
    def test_eleven_back_reverses_the_order_until_the_trick_ends(self) -> None:
        r = U(eleven_back=True)
        st = deal5(r, ["3D JC 4S", "5C TD QH", "KC", "AD", "2D"])
        st = go(r, st, (0, "single JC"))
        assert st.eleven_back[0] and moves(r, st) == {"pass", "single 5C", "single TD"}
        st = go(r, st, (1, "single TD"), (2, "pass"), (3, "pass"), (4, "pass"), (0, "pass"), (1, "pass"))
        assert not st.eleven_back[0]

    def test_six_reverse_turns_the_direction(self) -> None:
        r = U(six_reverse=True)
        st = deal5(r, ["3D 6C 4S", "5C TD", "KC", "AD", "2D"])
        st = go(r, st, (0, "single 6C"))
        assert actor(st) == 4 and st.direction[0] == -1

    def test_five_skip_skips_the_next_seat(self) -> None:
        r = U(five_skip=True)
        st = deal5(r, ["3D 5C 4S", "6C TD", "KC", "AD", "2D"])
        st = go(r, st, (0, "single 5C"))
        assert actor(st) == 2

    def test_a_lone_joker_triggers_nothing(self) -> None:
        r = U(five_skip=True, eleven_back=True)
        st = deal5(r, ["3D JK 4S", "6C TD", "KC", "AD", "2D"])
        st = go(r, st, (0, "single wild card"))
        assert actor(st) == 1 and not st.eleven_back[0]


# =========================================================================== what a player sees
class TestObservation:
    def test_the_lock_and_the_passes_are_named_pieces(self) -> None:
        r = U(eleven_back=True)
        st = deal5(r, ["3D 4C", "5C 6H 7C", "8C 8H 9H", "TD", "JD"])
        st = go(r, st, (0, "single 4C"), (1, "single 5C"), (2, "pass"))
        sl = slices(r)
        o = observe(r, st, np.array([3]))[0]
        assert o[sl["lock"]].tolist() == [1, 0, 0, 0] and o[sl["top_suits"]].tolist() == [1, 0, 0, 0]
        assert o[sl["pass_run"]][0] == 1 and o[sl["eleven_back"]][0] == 0

    def test_other_presets_keep_their_observation(self) -> None:
        for name in ("president", "daifugo_runs"):
            assert not {"lock", "top_suits", "pass_run", "eleven_back", "top_run_low"} & set(slices(preset(name)))


# =========================================================================== refusals
@pytest.mark.parametrize("options, words", [
    ({"lead_card": "3X"}, "lead_card"),
    ({"lead_card": "JK"}, "lead_card"),
    ({"pass_rule": "may_replay"}, "lead_may_pass"),
    ({"lead_may_pass": False, "pass_rule": "may_replay"}, "trick_end"),
    ({"jokers": 2}, "one wild joker"),
    ({"runs": 0, "run_beat": "highest_higher", "run_joker_ends": False, "run_revolution": 0,
      "eight_cut_by_wild": False, "suit_lock": "none", "spade_three_beats_joker": False,
      "five_card_set": False, "runs_x": 1}, "unknown option"),
    ({"run_revolution": 2}, "run_revolution"),
    ({"eight_cut": False}, "eight_cut_by_wild"),
    ({"reseat": True}, "random_seats_every"),
    ({"pass_limit": 0}, "pass_limit"),
    ({"pass_limit": 101}, "pass_limit"),
    ({"rank_reset_every": True}, "rank_reset_every"),
])
def test_impossible_uec_combinations_are_refused_by_name(options, words) -> None:
    with pytest.raises(RulesError, match=words):
        preset("uecda", **options)


def test_the_run_options_need_runs() -> None:
    base = {"players": 5, "jokers": 1, "joker_mode": "wild", "wild_ranks": {"JK"}}
    for opt, v in (("run_beat", "clear_above"), ("run_joker_ends", True), ("run_revolution", 5)):
        with pytest.raises(RulesError, match=f"{opt}.*needs runs"):
            Rules(**base, **{opt: v})


# =========================================================================== measuring agents under uecda
def test_a_matchup_plays_sessions_of_three_hands_where_the_rules_play_more() -> None:
    """uecda's sessions are the competition's 1,000 hands: a matchup (training/evaluate.py) cuts them to 3 and
    still takes an agent object built for the preset's own rules."""
    from agents.arena import run_tournament
    from agents.registry import make_agent
    from training.evaluate import MAX_MATCH_HANDS, match_hands, matchup

    r = preset("uecda")
    assert match_hands(r) == MAX_MATCH_HANDS == 3
    assert match_hands(preset("president")) is None and match_hands(U()) is None
    result = run_tournament(r, [make_agent("greedy", r)] + ["random"] * 4, 2, hands_per_session=3, rating=False)
    assert result.sessions == 10 and result.hands == 30
    m = matchup(r, make_agent("greedy", r), "random", 4)
    assert m.deals == 4 and m.learner_points > m.opponent_points + 1    # baselines: +4.35 against +2.06
    with pytest.raises(ValueError, match="built for other rules"):
        run_tournament(r, [make_agent("greedy", r.replace(pass_limit=10))] + ["random"] * 4, 1,
                       hands_per_session=3, rating=False)
