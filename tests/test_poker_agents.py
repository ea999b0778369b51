"""The scripted agents under poker combinations (``rich_man_poor_man``, agents/_poker.py): legal claims and
picks at every table size, picks that complete any legal claim, and the heuristic's choices on built hands."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import game, play_sessions, player_counts

from agents import _poker
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from president_env.core import Rules, State, current_player, init, observe, preset, step, step_inplace, terminated
from president_env.core.actions import claim_id, pick_id
from president_env.core.poker import claim_table

RMPM = "rich_man_poor_man"


def P(**options) -> Rules:
    """rich_man_poor_man, four players, one hand per session, the dealer (player 0) leading."""
    base = {"players": 4, "first_lead": "dealer", "hands_per_session": 1, "exchange": (1,)}
    base.update(options)
    return preset(RMPM, **base)


def words(r: Rules, a: int) -> str:
    ct = claim_table(r)
    return "pass" if a == 0 else ct.words[a] if a <= ct.X else ct.pick_names[a - ct.X - 1]


def move(r: Rules, st: State, claim: str, *cards: str) -> State:
    """A play by the player to act (claim, then its cards), or a pass."""
    st = step(r, st, np.array([0 if claim == "pass" else claim_id(r, claim)]))
    for c in cards:
        st = step(r, st, np.array([pick_id(r, c)]))
    return st


def decide(r: Rules, st: State, agent) -> int:
    return int(agent.act(observe(r, st, current_player(st)), st.legal, np.random.default_rng(0))[0])


def turn(r: Rules, st: State, agent) -> list[str]:
    """The agent's whole turn in words: its claim and its picks in order, or ``["pass"]``."""
    out, who = [], int(current_player(st)[0])
    while int(current_player(st)[0]) == who and int(st.phase[0]) == 1:
        a = decide(r, st, agent)
        out.append(words(r, a))
        st = step(r, st, np.array([a]))
        if a == 0:
            break
    return out


# --------------------------------------------------------------------------- legal at every table size


@pytest.mark.parametrize("players", [p for p in player_counts(RMPM) if p != 4])   # 4: test_agents' preset test
def test_both_agents_play_only_legal_actions_at_every_table_size(players: int) -> None:
    rules = preset(RMPM, players=players, hands_per_session=1)
    assert play_sessions(rules, ["heuristic", "greedy", "random"], games=6, seed=players, start_ranks="random")[0] > 0


@pytest.mark.parametrize("options", [
    {"players": 3, "four_of_a_kind": "revolution"},
    {"players": 6, "decks": 2},
    {"players": 5, "four_of_a_kind": "bomb", "equal_rank_beats": True},
])
def test_both_agents_play_legally_under_other_poker_options(options: dict) -> None:
    rules = preset(RMPM, hands_per_session=1, **options)
    assert play_sessions(rules, ["heuristic", "greedy"], games=4, seed=1, start_ranks="random")[0] > 0


@pytest.mark.parametrize("options", [{}, {"players": 3, "four_of_a_kind": "revolution"}])
def test_picks_complete_any_legal_claim(options: dict) -> None:
    """After a claim chosen at random from the mask, every pick is legal and a card of the preferred
    completion (but the first pick on the top's own claim, which the mask binds to a higher suit)."""
    rules = preset(RMPM, hands_per_session=1, **options)
    k = _poker.consts(rules)
    games = 40
    st = init(rules, games, seed=5, start_ranks="random")
    rng = np.random.default_rng(5)
    picks = 0
    while not terminated(st).all():
        obs = observe(rules, st, current_player(st))
        u = rng.random(st.legal.shape)
        u[~st.legal] = -1
        a = np.argmax(u, axis=1)
        p = _poker.observe_poker(rules, obs)
        rows = np.flatnonzero((p.claim > 0) & (p.v.phase == 1) & ~terminated(st))
        if rows.size:
            q = _poker.observe_poker(rules, obs[rows])
            chosen = _poker.pick(rules, q, st.legal[rows])
            assert st.legal[rows, chosen].all()
            want, w, fsuit = _poker.complete(k, q.g, q.cell, q.wsuit, q.claim, q.rev, q.first, q.top, q.top_suit)
            got = np.rint(q.picked.astype(np.float32) @ k.rank_mat).astype(np.int64)
            got_w = np.rint(q.picked.astype(np.float32) @ k.wsuit_mat).sum(axis=1)
            name = chosen - 1 - k.X
            r_, s_, w_ = k.pk.name_r[name], k.pk.name_s[name], k.pk.name_w[name]
            inside = np.where(w_, got_w < w, want[np.arange(rows.size), np.maximum(r_, 0)] >
                              got[np.arange(rows.size), np.maximum(r_, 0)])
            inside &= (fsuit < 0) | (s_ == fsuit)
            own_first = (q.claim == q.top) & ~q.picked.any(axis=1)
            assert (inside | own_first).all()
            a[rows] = chosen
            picks += rows.size
        step_inplace(rules, st, a)
    assert picks > 500


# --------------------------------------------------------------------------- the heuristic's choices
def test_heuristic_passes_rather_than_spend_a_wild_two_on_a_low_single() -> None:
    r = P()
    st = game(r, ["4C 5S 6S 8H TC JC QC", "2S 7C 7D 9C 9D KH KD", "3S 3H 3D 5C 5D 6C 6D", ""], rest_to=3)
    st = move(r, st, "single 4", "4C")
    # every beat breaks a pair or spends the two: the heuristic passes, greedy breaks its weakest pair
    assert turn(r, st, HeuristicAgent(r)) == ["pass"]
    assert turn(r, st, GreedyAgent(r)) == ["single 7", "7C"]


def test_heuristic_spends_the_wild_two_when_it_leaves_one_loser_or_the_top_is_the_last_chance() -> None:
    r = P()
    # the two wins the trick and the 3 goes out on the next lead
    st = game(r, ["4C 5S 6S 8H TC JC QC", "2S 3D", "3S 3H 8D 5C 5D 6C 6D", ""], rest_to=3)
    st = move(r, st, "single 4", "4C")
    assert turn(r, st, HeuristicAgent(r)) == ["single wild card", "2S"]
    # with a full hand, but the leader has one card left: stop it now
    st = game(r, ["4C 5S", "2S 7C 7D 9C 9D KH KD", "3S 3H 3D 5C 5D 6C 6D", ""], rest_to=3)
    st = move(r, st, "single 4", "4C")
    assert turn(r, st, HeuristicAgent(r)) == ["single wild card", "2S"]


def test_heuristic_keeps_a_made_full_house_together() -> None:
    r = P()
    hand1 = "7C 7D 7H 4C 4D 9S KH"
    # it leads it whole, the pair of fours under the three sevens (not the 9 and a wild card)
    st = game(r, [hand1, "3S 3H 8D", "5S 5H 8C", ""], rest_to=3)
    assert turn(r, st, HeuristicAgent(r)) == ["full house of sevens", "4C", "4D", "7C", "7H", "7D"]
    assert turn(r, st, GreedyAgent(r)) == ["pair of fours", "4C", "4D"]
    # and does not spend its pair of fours on a pair of threes (greedy does)
    st = game(r, ["3S 3H 8D", hand1, "5S 5H 8C", ""], rest_to=3)
    st = move(r, st, "pair of threes", "3S", "3H")
    assert turn(r, st, HeuristicAgent(r)) == ["pass"]
    assert turn(r, st, GreedyAgent(r)) == ["pair of fours", "4C", "4D"]


def test_heuristic_leads_its_weakest_combination() -> None:
    r = P()
    # a straight of lone cards goes first (greedy leads its lowest card)
    st = game(r, ["3C 4D 5H 6S 7C 9D 9H KS", "3S 3H 8D", "5S 5D 8C", ""], rest_to=3)
    assert turn(r, st, HeuristicAgent(r)) == ["straight 3 to 7", "3C", "4D", "5H", "6S", "7C"]
    assert turn(r, st, GreedyAgent(r)) == ["single 3", "3C"]
    # without a 5-card hand: its weakest group whole, the pair of fives before the lone eight
    st = game(r, ["5C 5D 8S 9H KD QS", "3S 3H 8D", "5S 5H 8C", ""], rest_to=3)
    assert turn(r, st, HeuristicAgent(r)) == ["pair of fives", "5C", "5D"]


def test_heuristic_beats_the_top_with_a_higher_suit_and_keeps_its_two() -> None:
    r = P()
    st = game(r, ["7H 7S 4C 9C TC", "7C 7D 2C 8S JS QS KD", "3S 3H 3D 5C 5D 6C 6D", ""], rest_to=3)
    st = move(r, st, "pair of sevens", "7H", "7S")
    # the top's own claim: the first card must beat hearts (the 7D), then the other natural seven
    assert turn(r, st, HeuristicAgent(r)) == ["pair of sevens", "7D", "7C"]


# --------------------------------------------------------------------------- picks shared by both agents
@pytest.mark.parametrize("agent", [HeuristicAgent, GreedyAgent])
@pytest.mark.parametrize("hand1, claim, cards", [
    ("7C 7H 7D 2S 9C", "pair of sevens", ["7C", "7H"]),              # naturals, weakest suits: the 7D stays
    ("7C 7S 7H 7D 3C 3D 9H JS", "four sevens", ["9H", "7C", "7S", "7H", "7D"]),   # a lone kicker, not a 3
    ("7C 7S 7H 9C 4C 4D 2S", "full house of sevens", ["4C", "4D", "7C", "7S", "7H"]),  # no wild for the pair
    ("3H 5H 9H JH KH 6S", "flush, king high", ["3H", "5H", "9H", "JH", "KH"]),
])
def test_picks_take_naturals_before_wild_cards_and_the_weakest_suits(agent, hand1: str, claim: str,
                                                                      cards: list[str]) -> None:
    r = P()
    st = game(r, [hand1, "3S 8D", "5S 8C", ""], rest_to=3)
    st = move(r, st, claim)
    assert turn(r, st, agent(r)) == cards


# --------------------------------------------------------------------------- the exchange
def test_give_backs_under_poker() -> None:
    r = P()
    # player 1 is President: it gets the Scum's best card (the 2D) and gives one back
    st = game(r, ["2D 6C 7C", "3C 3D 4C AC 2S", "8C 9C", "TC JC"], rest_to=3, start_ranks=[3, 0, 1, 2])
    assert int(st.phase[0]) == 0 and int(current_player(st)[0]) == 1
    assert words(r, decide(r, st, HeuristicAgent(r))) == "4C"      # the lone low card, not a three of a pair
    assert words(r, decide(r, st, GreedyAgent(r))) == "3C"         # the weakest card


def test_heuristic_beats_greedy_and_greedy_beats_random() -> None:
    from agents.arena import run_tournament
    rules = preset(RMPM)
    res = run_tournament(rules, ["heuristic", "greedy", "random", "random"], deals=30, seed=11, hands_per_session=1,
                         rating=False)
    h, g, r1, r2 = res.entrants
    assert h.points_ci95[0] > g.points_ci95[1]
    assert g.points_ci95[0] > max(r1.points_ci95[1], r2.points_ci95[1])
