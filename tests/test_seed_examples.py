"""The worked examples of the source texts, replayed action by action.

* Seed 000 (pagat's President page): the A-to-E play table in its three forms: the
  basic game (``may_replay``), "no playing after passing" (``locks_out``, Australia)
  and single-round play. The next leader is C, E and E.
* Seed 004 (Asshole): the example sequence at the end of the text under the
  ``asshole`` preset (single round, at least as many cards, a 2 is a trump).

Players A..E (or Player 1..4) are players 0..4, sitting in seats 0..4 clockwise.
"""

from __future__ import annotations

import pytest
from helpers import actor, finish, game, hand, legal_moves, n_cards, play, top

from president_env.core import EXCHANGE, preset

A, B, C, D, E = range(5)

# Seed 000: A holds the fours and jacks, D the sixes, E the nines and kings, C the aces; a spare
# low card each so that nobody runs out during the example; B holds the rest and only passes.
HANDS_000 = ["4C 4D JC JD 3C", "", "AC AD 3S", "6C 6D 3D", "9C 9D KC KD 3H"]


def _rules_000(form: str, via_preset: bool):
    """The basic game of seed 000 (5 players, the dealer's left leads) with a pass rule."""
    if via_preset and form != "may_replay":
        return preset(form, players=5, first_lead="dealer_left")
    return preset("pagat_basic", players=5, pass_rule=form)


def _start_000(form: str, via_preset: bool = False, hands=HANDS_000):
    r = _rules_000(form, via_preset)
    st = game(r, hands, rest_to=B, dealer=E)  # E deals: A, on the dealer's left, leads
    assert actor(st) == A and top(r, st) is None
    return r, st


# | A | B | C | D | E |
# | 44 | Pass | Pass | 66 | 99 |
# | JJ | Pass | Pass | Pass | KK |
# | Pass | Pass | AA | Pass | Pass |
# | Pass | Pass |
# C then starts again by leading any card or set.
BASIC = [(A, "4x2"), (B, "pass"), (C, "pass"), (D, "6x2"), (E, "9x2"),
         (A, "Jx2"), (B, "pass"), (C, "pass"), (D, "pass"), (E, "Kx2"),
         (A, "pass"), (B, "pass"), (C, "Ax2"), (D, "pass"), (E, "pass"),
         (A, "pass"), (B, "pass")]

# No playing after passing: B and C are skipped once they have passed.
# | 44 | Pass | Pass | 66 | 99 |
# | JJ | (B, C locked out) | Pass | KK |
# | Pass |
LOCKS_OUT = [(A, "4x2"), (B, "pass"), (C, "pass"), (D, "6x2"), (E, "9x2"),
             (A, "Jx2"), (D, "pass"), (E, "Kx2"),
             (A, "pass")]

# Single-round play: | 44 | Pass | Pass | 66 | 99 |  "A does not get a chance to beat E's pair of 9's."
SINGLE_ROUND = [(A, "4x2"), (B, "pass"), (C, "pass"), (D, "6x2"), (E, "9x2")]


@pytest.mark.parametrize("via_preset", [False, True])
@pytest.mark.parametrize("form,moves,leader", [
    ("may_replay", BASIC, C),
    ("locks_out", LOCKS_OUT, E),
    ("single_round", SINGLE_ROUND, E),
])
def test_seed_000_play_table(form: str, moves, leader: int, via_preset: bool) -> None:
    r, st = _start_000(form, via_preset)
    for i, (who, mv) in enumerate(moves):
        assert actor(st) == who, f"move {i}: expected player {'ABCDE'[who]} to act"
        assert mv in legal_moves(r, st)
        st = play(r, st, mv)
        if i < len(moves) - 1:
            assert top(r, st) is not None, f"the trick ended early, after move {i}"
    # the trick is over: the winner leads any card or set, and everyone may play again
    assert top(r, st) is None
    assert actor(st) == leader
    assert "pass" not in legal_moves(r, st)
    assert not st.passed[0].any()
    assert all(n > 0 for n in n_cards(st))


def test_seed_000_basic_a_pass_does_not_stop_you_playing_later() -> None:
    r, st = _start_000("may_replay")
    st = play(r, st, *BASIC[:5])
    # A led and nobody has beaten the nines; B and C passed before and may still play
    st = play(r, st, (A, "Jx2"))
    assert actor(st) == B and {"Qx2", "Ax2", "2x2"} <= legal_moves(r, st)
    st = play(r, st, (B, "pass"))
    assert actor(st) == C and legal_moves(r, st) == {"pass", "Ax2"}


def test_seed_000_locks_out_skips_players_who_passed() -> None:
    r, st = _start_000("locks_out")
    st = play(r, st, *LOCKS_OUT[:6])  # ... A plays two jacks
    assert actor(st) == D  # B and C passed in this trick: they cannot play again until the next lead
    st = play(r, st, (D, "pass"), (E, "Kx2"))
    assert actor(st) == A
    # under may_replay C could now play the aces; locked out, C never gets the turn
    st = play(r, st, (A, "pass"))
    assert actor(st) == E and hand(r, st, C) == ["3S", "AC", "AD"]


def test_seed_000_single_round_leader_gets_no_second_turn() -> None:
    r, st = _start_000("single_round")
    st = play(r, st, *SINGLE_ROUND[:4])
    assert actor(st) == E and top(r, st) == "6x2"
    st = play(r, st, (E, "9x2"))
    assert actor(st) == E and top(r, st) is None  # A does not get a chance to beat the nines
    assert hand(r, st, A) == ["3C", "JC", "JD"]


def test_seed_000_aces_were_cs_last_cards_then_d_leads() -> None:
    """'if the two aces were C's last two cards, it would then be D's turn to play anything'."""
    hands = list(HANDS_000)
    hands[C] = "AC AD"
    r, st = _start_000("may_replay", hands=hands)
    st = play(r, st, *BASIC[:12], (C, "Ax2"))
    assert finish(st)[C] == 0  # C is out first: President
    st = play(r, st, (D, "pass"), (E, "pass"), (A, "pass"), (B, "pass"))
    assert top(r, st) is None and actor(st) == D


# =========================================================================== seed 004
P1, P2, P3, P4 = range(4)


def _asshole():
    r = preset("asshole")
    assert r.pass_rule == "single_round" and r.size_rule == "at_least" and r.trump_ranks == {"2"}
    return r


def test_seed_004_first_tricks() -> None:
    """The first four tricks of the example (Player 1 dealt, so Player 1 leads)."""
    r = _asshole()
    hands = ["3C 5C AC AD AH", "5D 6C 6D 2C", "6H 8C 8D 5H 5S", "7C 4C 9C 9D 9H 7D 7H"]
    st = game(r, hands, rest_to="spread", dealer=P1)
    assert n_cards(st) == [13, 13, 13, 13]
    assert actor(st) == P1

    # Player 1 single 3 / Player 2 single 5 / Player 3 single 6 / Player 4 single 7:
    # "Player 4 takes trick, because everybody already has played."
    st = play(r, st, (P1, "3"), (P2, "5"), (P3, "6"), (P4, "7"))
    assert top(r, st) is None and actor(st) == P4

    # Player 4 single 4 / Player 1 single 5 / Player 2 two 6s / Player 3 two 8s: Player 3 takes it.
    st = play(r, st, (P4, "4"), (P1, "5"))
    assert {"6", "6x2"} <= legal_moves(r, st)  # at least as many cards: a pair on a single
    st = play(r, st, (P2, "6x2"))
    assert "8" not in legal_moves(r, st) and "8x2" in legal_moves(r, st)  # no single on a pair
    st = play(r, st, (P3, "8x2"))
    assert top(r, st) is None and actor(st) == P3

    # Player 3 two 5s / Player 4 three 9s / Player 1 pass / Player 2 pass: Player 4 takes it.
    st = play(r, st, (P3, "5x2"), (P4, "9x3"), (P1, "pass"), (P2, "pass"))
    assert top(r, st) is None and actor(st) == P4

    # Player 4 two 7s / Player 1 three aces / Player 2 a two / Player 3 cannot play: Player 2 leads.
    st = play(r, st, (P4, "7x2"), (P1, "Ax3"))
    assert "2" in legal_moves(r, st)  # a single 2 on three aces
    st = play(r, st, (P2, "2"))
    assert top(r, st) is None and actor(st) == P2
    assert n_cards(st) == [13 - 5, 13 - 4, 13 - 5, 13 - 7]


def test_seed_004_end_of_the_hand() -> None:
    """The end of the example: a player out of cards, the next player leads, the last one is Asshole.

    The hands are those the players hold at that point of the example (Player 2 holds the
    rest of the pack and only passes).
    """
    r = _asshole()
    hands = ["JC TC TD", "", "QC QD JD JH QH QS", "KC KD"]
    st = game(r, hands, rest_to=P2, dealer=P1)
    assert actor(st) == P1

    # Player 1 single J / Player 2 pass / Player 3 two queens / Player 4 two kings*:
    # Player 4 takes the trick and is out: President. Player 1 leads instead.
    st = play(r, st, (P1, "J"), (P2, "pass"), (P3, "Qx2"), (P4, "Kx2"))
    assert finish(st) == [-1, -1, -1, 0]
    assert top(r, st) is None and actor(st) == P1

    # Player 1 two 10s* / Player 2 pass / Player 3 two jacks: Player 1 is out (Vice President),
    # Player 3 takes the trick and still leads.
    st = play(r, st, (P1, "Tx2"))
    assert finish(st) == [1, -1, -1, 0]
    st = play(r, st, (P2, "pass"), (P3, "Jx2"))
    assert top(r, st) is None and actor(st) == P3

    # Player 3 two queens*: out (Shithead); Player 2 does not even get to play: Asshole.
    assert n_cards(st)[P2] == 52 - 11
    st = play(r, st, (P3, "Qx2"))
    assert st.hand_over[0]
    assert list(st.last_finish[0]) == [1, 3, 2, 0]
    assert list(st.hand_points[0]) == [1, -2, -1, 2]

    # Next hand: the Asshole gives the President their highest card, the President gives one back.
    assert st.phase[0] == EXCHANGE and actor(st) == P4
    assert n_cards(st)[P4] == 14 and n_cards(st)[P2] == 12
