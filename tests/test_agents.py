"""The agents: the batched interface, the scripted baselines on every preset, the registry and the SB3 wrapper."""

from __future__ import annotations

import warnings
import zipfile

import numpy as np
import pytest
from helpers import game, hand, move_name, play, play_sessions

from agents.base import Agent, decode
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.registry import agent_names, make_agent
from president_env.core import (
    PRESETS,
    Rules,
    current_player,
    exchange_kind,
    init,
    n_actions,
    observe,
    preset,
    step_inplace,
    tables,
)
from president_env.core import observation as O

BASELINES = ("random", "greedy", "heuristic")


def _act(rules: Rules, agent: Agent, st, rng=None) -> np.ndarray:
    rng = rng or np.random.default_rng(0)
    return agent.act(observe(rules, st, current_player(st)), st.legal, rng)




# --------------------------------------------------------------------------- every preset, only legal actions
@pytest.mark.parametrize("name", PRESETS)
def test_every_baseline_plays_only_legal_actions_on_every_preset(name: str) -> None:
    rules = preset(name, hands_per_session=3)
    decisions, exchanges = play_sessions(rules, list(BASELINES), games=12, seed=7, start_ranks="random")
    assert decisions > 0
    if rules.exchange_pairs:
        assert exchanges > 0  # the give-back decisions were exercised too


@pytest.mark.parametrize("players", [3, 5, 6, 8])
def test_baselines_play_legally_with_other_table_sizes(players: int) -> None:
    rules = preset("president", players=players, hands_per_session=2)
    assert play_sessions(rules, ["heuristic", "greedy", "random"], games=8, seed=players, start_ranks="random")[0] > 0


@pytest.mark.parametrize("options", [
    {"four_of_a_kind": "revolution_and_reverse", "equal_rank_beats": True, "equal_play_skips": True},
    {"transparent_rank": "7", "reset_ranks": {"2"}, "size_rule": "at_least"},
    {"jokers": 2, "joker_mode": "wild", "wild_ranks": {"JK", "3"}, "wild_tie": "natural_higher",
     "forbidden_finish": {"3", "JK"}, "pass_rule": "single_round"},
    {"decks": 2, "players": 6, "jokers": 1, "four_of_a_kind": "bomb", "complete_set_clears": True},
    {"president_must_win": True, "compulsory_beat": True, "pass_rule": "locks_out"},
    # the options of section 5 and 6 added with sofia, threes_high, hamish_allan, expose_hands and merchants
    {"decks": 2, "players": 8, "jokers": 1, "power_ranks": {"2": [2, 3, 4], "J": [3, 4], "JK": [4]},
     "merchant_trade": True, "exchange": [1]},
    {"four_of_a_kind": "revolution_and_reverse", "equal_rank_beats": True, "revolution_by_singles": True,
     "reset_ranks": {"2"}, "revolution_reset_rank": "3", "decks": 2, "players": 6, "hand_assignment": "expose"},
    {"players": 5, "power_ranks": {"A": [2]}, "transparent_rank": "3", "four_of_a_kind": "revolution",
     "revolution_reset_rank": "K", "compulsory_beat": True, "pass_rule": "locks_out"},
    # sets that name their wild cards' suits (section 8 fine point 10), with a wild joker and runs too
    {"suit_rule": "rank", "wild_ranks": {"2", "JK"}, "jokers": 1, "joker_mode": "wild", "runs": 3,
     "four_of_a_kind": "revolution"},
    {"suit_rule": "colour", "wild_ranks": {"9"}, "players": 5},
])
def test_baselines_play_legally_under_custom_rules(options: dict) -> None:
    rules = Rules(hands_per_session=3, **options)
    assert play_sessions(rules, list(BASELINES), games=8, seed=3, start_ranks="random")[0] > 0


def test_the_agents_spend_their_weakest_wild_card_where_the_suit_does_not_matter() -> None:
    # sets name their wild cards' suits (fine point 10): a lead of a pair of sevens takes the wild club
    from agents._cards import pick_cards
    from president_env.core.actions import card_action_id, rank_table

    rules = Rules(suit_rule="rank", wild_ranks={"9"}, rank_order="3 4 5 6 7 8 9", players=4, first_lead="dealer",
                  hands_per_session=1, exchange=(1,))
    st = game(rules, ["7C 9C 9S", "4C 4D", "5C 5D", "6C 6D"], rest_to=3)
    obs = observe(rules, st, current_player(st))
    club, spade = card_action_id(rules, ["7C", "9C"]), card_action_id(rules, ["7C", "9S"])
    assert st.legal[0, club] and st.legal[0, spade] and club != spade
    pair7 = 1 + tables(rules).play_ranks.index("7") * rules.max_set + 1
    assert rank_table(rules).size[pair7] == 2
    assert int(pick_cards(rules, obs, st.legal, np.array([pair7]))[0]) == club
    st.legal[0, club] = False                                   # the club not allowed: the spade it is
    assert int(pick_cards(rules, obs, st.legal, np.array([pair7]))[0]) == spade


# --------------------------------------------------------------------------- the interface
def test_act_checks_the_batch() -> None:
    rules = preset("president")
    agent = GreedyAgent(rules)
    st = init(rules, 2, seed=0)
    obs = observe(rules, st, current_player(st))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="observations must have shape"):
        agent.act(obs[:, :-1], st.legal, rng)
    with pytest.raises(ValueError, match="masks must have shape"):
        agent.act(obs, st.legal[:1], rng)
    with pytest.raises(ValueError, match="boolean"):
        agent.act(obs, st.legal.astype(np.int8), rng)
    empty = st.legal.copy()
    empty[1] = False
    with pytest.raises(ValueError, match="row 1 of the mask has no legal action"):
        agent.act(obs, empty, rng)
    with pytest.raises(TypeError, match="Generator"):
        agent.act(obs, st.legal, 0)
    assert agent.act(obs[:0], st.legal[:0], rng).shape == (0,)
    with pytest.raises(TypeError, match="Rules"):
        GreedyAgent("president")
    # an agent built for other rules refuses their observations
    with pytest.raises(ValueError, match="observations must have shape"):
        GreedyAgent(preset("president", players=5)).act(obs, st.legal, rng)


def test_decode_reads_back_what_the_observer_sees() -> None:
    rules = preset("daifugo")
    st = init(rules, 16, seed=3)
    rng = np.random.default_rng(1)
    agent = RandomAgent(rules)
    for _ in range(25):
        step_inplace(rules, st, _act(rules, agent, st, rng))
    cur = current_player(st)
    v = decode(rules, observe(rules, st, cur))
    seat = st.current.astype(np.int64)
    ar = np.arange(16)
    assert (v.hand == st.counts[ar, seat]).all()
    assert (v.played == st.played).all()
    assert (v.top_rank == st.top_rank).all()
    assert (v.top_size == st.top_size).all()
    assert (v.revolution == st.revolution).all()
    assert (v.phase == st.phase).all()
    assert (v.card_counts[:, 0] == st.n_cards[ar, seat]).all()
    assert v.my_turn.all()
    assert (v.leading == (st.top_rank < 0)).all()


@pytest.mark.parametrize("name", ["hamish_allan", "expose_hands", "merchants"])
def test_decode_reads_the_pieces_only_some_rules_have(name: str) -> None:
    rules = preset(name)
    st = init(rules, 24, seed=4, start_ranks="random")
    agent = RandomAgent(rules)
    rng = np.random.default_rng(2)
    seen_trading = seen_row = seen_exposed = False
    for _ in range(60):
        cur = current_player(st)
        v = decode(rules, observe(rules, st, cur))
        seat = st.current.astype(np.int64)
        ar = np.arange(24)
        assert (v.single_row == (st.single_row if rules.revolution_by_singles else 0)).all()
        if rules.merchant_trade:
            assert (v.trading == (exchange_kind(rules, st) > 0)).all()
            pick = st.trade_pick[ar, seat].astype(np.int64)
            expect = np.zeros_like(v.trade_pick)
            expect[ar[pick >= 0], tables(rules).card_kind[pick[pick >= 0]]] = 1
            assert (v.trade_pick == expect).all()
            seen_trading |= bool(v.trading.any())
        else:
            assert not v.trading.any() and not v.trade_pick.any()
        if rules.hand_assignment == "expose":
            rel = (seat[:, None] + np.arange(rules.players)[None, :]) % rules.players
            shown = np.take_along_axis(st.exposed.astype(np.int64), rel, axis=1)
            kind = np.where(shown >= 0, tables(rules).card_kind[np.maximum(shown, 0)], -1)
            assert (v.exposed == kind).all()
            seen_exposed |= bool((v.exposed >= 0).any())
        else:
            assert (v.exposed == -1).all()
        seen_row |= bool((v.single_row > 0).any())
        step_inplace(rules, st, _act(rules, agent, st, rng))
    assert seen_trading or not rules.merchant_trade
    assert seen_exposed or rules.hand_assignment != "expose"
    assert seen_row or not rules.revolution_by_singles


# --------------------------------------------------------------------------- random
def test_random_is_uniform_over_the_legal_actions() -> None:
    rules = preset("president")
    A = n_actions(rules)
    mask = np.zeros((40000, A), dtype=bool)
    legal = [0, 3, 17, 40, A - 1]
    mask[:, legal] = True
    obs = np.zeros((40000, O.size(rules)), dtype=np.float32)
    a = RandomAgent(rules).act(obs, mask, np.random.default_rng(5))
    counts = np.bincount(a, minlength=A)
    assert counts.sum() == 40000 and set(np.flatnonzero(counts)) == set(legal)
    # each legal action 1/5 of the time: 8000 expected, sd ~ 80
    assert np.abs(counts[legal] - 8000).max() < 400
    # the same generator state gives the same actions
    b = RandomAgent(rules).act(obs, mask, np.random.default_rng(5))
    assert (a == b).all()


# --------------------------------------------------------------------------- greedy
def _leader_game(rules: Rules, hands: list[str]):
    """Player 0 leads the first trick (first_lead dealer_left, dealer seat 3); the last player gets the rest."""
    return game(rules, hands, rest_to=rules.players - 1, dealer=rules.players - 1)


def test_greedy_leads_its_weakest_whole_set() -> None:
    rules = preset("president", first_lead="dealer_left")
    st = _leader_game(rules, ["4C 4D 5C 9C 9D 9H KC", "3C 3D", "3H 3S", "6C 6D"])
    assert int(current_player(st)[0]) == 0
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "4x2"


def test_greedy_prefers_a_whole_set_and_passes_only_when_it_cannot_play() -> None:
    rules = preset("president", first_lead="dealer_left")
    st = _leader_game(rules, ["7C 3D 3H 3S", "9C 9D KC 4D", "5C 5D 5H 4C", "6C 6D 6H 6S"])
    st = play(rules, st, (0, "7"))
    # player 1: the 9 would break a pair; the lone K is a whole set
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "K"
    st = play(rules, st, (1, "K"))
    # player 2 holds nothing above a K: pass is its only choice
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "pass"
    st = play(rules, st, (2, "pass"), (3, "pass"), (0, "pass"))
    # player 1 leads again: its weakest whole set, the 4 (not a 9 out of its pair)
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "4"


def test_greedy_breaks_a_set_when_no_whole_set_beats() -> None:
    rules = preset("president", first_lead="dealer_left")
    st = _leader_game(rules, ["7C 3D 3H 3S", "9C 9D QC QD", "5C 5D 5H 4C", "6C 6D 6H 6S"])
    st = play(rules, st, (0, "7"))
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "9"


def test_greedy_follows_the_revolution() -> None:
    rules = preset("revolution", first_lead="dealer_left")
    st = _leader_game(rules, ["4C 4D 5C 9C 9D KC", "3C 3D", "3H 3S", "6C 6D"])
    obs = observe(rules, st, current_player(st))
    agent = GreedyAgent(rules)
    assert move_name(rules, int(agent.act(obs, st.legal, np.random.default_rng(0))[0])) == "4x2"
    obs[:, O.slices(rules)["revolution"].start] = 1.0  # under a revolution the K is the weakest card
    assert move_name(rules, int(agent.act(obs, st.legal, np.random.default_rng(0))[0])) == "K"


def test_greedy_gives_back_its_weakest_card() -> None:
    rules = preset("president", exchange=(1,))
    # player 0 was Scum, player 1 President: 0 gives its best card (the 2) and 1 gives one back
    st = game(rules, ["2C 3C 4C", "5C 5D 8C AC", "6C 7C", "9C TC"], rest_to=3, start_ranks=[3, 0, 1, 2])
    assert st.phase[0] == 0 and int(current_player(st)[0]) == 1
    give = move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0]))
    held = [tables(rules).card_names[c][0] for c in np.flatnonzero(st.hands[0, st.current[0]])]
    strength = list(rules.rank_order)
    assert give == min(held, key=strength.index)


# --------------------------------------------------------------------------- heuristic
def test_heuristic_runs_out_with_its_control_before_its_last_loser() -> None:
    rules = preset("president", first_lead="dealer_left")
    # player 0 holds a 2 (nothing beats it) and a 5: lead the 2, keep the lead, then go out with the 5
    st = _leader_game(rules, ["2C 5C", "3C 4C 6C 7C", "3D 4D 6D 7D", "3H 4H 6H 7H"])
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st)[0])) == "2"
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "5"


def test_heuristic_does_not_finish_on_a_forbidden_rank() -> None:
    rules = preset("president", first_lead="dealer_left", forbidden_finish={"2"})
    st = _leader_game(rules, ["2C 5C", "3C 4C 6C 7C", "3D 4D 6D 7D", "3H 4H 6H 7H"])
    st = play(rules, st, (0, "2"))
    # it led its 2 and kept the lead (nothing beats a 2): now the 5 goes out
    st = play(rules, st, (1, "pass"), (2, "pass"), (3, "pass"))
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st)[0])) == "5"
    # and with a lone 2 on a trick of singles, it passes rather than finish on the 2
    st2 = _leader_game(rules, ["2C 5C", "3C 4C 6C 7C", "3D 4D 6D 7D", "3H 4H 6H 7H"])
    st2 = play(rules, st2, (0, "5"), (1, "6"))
    st2 = play(rules, st2, (2, "7"), (3, "pass"))
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st2)[0])) == "pass"


def test_heuristic_keeps_its_sets_whole_when_it_can_pass() -> None:
    rules = preset("president", first_lead="dealer_left")
    st = _leader_game(rules, ["7C 3D 3H 3S", "9C 9D QC QD 4D", "5C 5D 5H 4C", "6C 6D 6H 6S"])
    st = play(rules, st, (0, "7"))
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st)[0])) == "pass"


def test_heuristic_gives_back_a_lone_low_card_not_a_control() -> None:
    rules = preset("president", exchange=(1,))
    # the President (player 1) gets the Scum's 2; it holds a pair of 3s, a lone 4, an ace and twos
    st = game(rules, ["2C 6C 7C", "3C 3D 4C AC 2D", "8C 9C", "TC JC"], rest_to=3, start_ranks=[3, 0, 1, 2])
    assert st.phase[0] == 0 and int(current_player(st)[0]) == 1
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st)[0])) == "4"


def test_beat_chance_counts_the_opponents_power_plays() -> None:
    from agents._plays import play_consts
    from agents.heuristic_kernel import beat_chance, heuristic_tables

    def chance(rules, unseen):
        hopt, rk, _, pneed, holds = heuristic_tables(rules)
        p = np.empty((c.R, c.S))
        beat_chance(hopt, rk, pneed, holds, unseen[0], 0, 3, 0.0, p)
        return p
    # sofia: 2: [2, 3, 4], J: [3, 4], JK: [4]; the play ranks are 3 .. T Q K A 2 J JK
    for power in (True, False):
        rules = preset("sofia") if power else preset("sofia", power_ranks=())
        c = play_consts(rules)
        names = tables(rules).play_ranks
        unseen = np.zeros((1, c.R), dtype=np.int64)
        unseen[0, names.index("3")] = 4
        unseen[0, names.index("2")] = 1        # one two nobody has shown: no pair above the aces can be made
        p = chance(rules, unseen)
        ace, two = names.index("A"), names.index("2")
        # its holder beats a pair of aces with it (a three needs two twos, a four three)
        assert p[ace, 1:] == pytest.approx([1.0, 0.0, 0.0] if power else [0.0, 0.0, 0.0])
        assert p[ace, 0] == pytest.approx(1.0)            # a single ace: a higher single, by the normal rules
        assert p[two, 1] == pytest.approx(0.0)            # a pair of twos: power beats only ranks below the twos
        unseen[0, names.index("2")] = 0
        unseen[0, names.index("J")] = 1                   # one jack: a single jack beats a pair or three, not four
        p = chance(rules, unseen)
        assert p[ace, 1:] == pytest.approx([1.0, 1.0, 0.0] if power else [0.0, 0.0, 0.0])


def test_heuristic_takes_a_trick_of_pairs_with_one_power_two() -> None:
    # sofia: a single two beats a pair of aces. Player 1 holds every jack and both jokers, so nothing can
    # beat its two: it wins the trick with one card, keeps its jacks and jokers whole, and leads next.
    rules = preset("sofia", first_lead="dealer_left")
    st = game(rules, ["AC AD 3C 4C", "2C JC JD JH JS JK JK 5C", "3D 4D", "3H 4H"], rest_to=2, dealer=3)
    st = play(rules, st, (0, "Ax2"))
    agent = HeuristicAgent(rules)
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "2"
    st = play(rules, st, (1, "2"), (2, "pass"), (3, "pass"), (0, "pass"))
    assert int(current_player(st)[0]) == 1 and st.top_rank[0] < 0


def test_heuristic_knows_the_reset_rank_of_the_order_in_force() -> None:
    # hamish_allan: a single two resets the trick; under a revolution the ace does instead, and the two
    # is the weakest card. Leading a reset card hands the lead to the next player, so it keeps it.
    rules = preset("hamish_allan", first_lead="dealer_left")
    st = game(rules, ["6C 6D 6H 6S 2C 2D AC 9C 9D", "3C 4C", "3D 4D", "3H 4H"], rest_to=2, dealer=3)
    agent = HeuristicAgent(rules)
    # normal order: the twos reset, the ace and the nines are its losers: the weaker goes first
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "9x2"
    # the four sixes start a revolution (and reverse the direction); it leads again
    st = play(rules, st, (0, "6x4"), (3, "pass"), (2, "pass"), (1, "pass"))
    assert st.revolution[0] and int(current_player(st)[0]) == 0
    # now the ace resets (kept), and the pair of twos is its weakest loser
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "2x2"


def test_heuristic_keeps_a_reset_card_to_go_out_on() -> None:
    rules = preset("hamish_allan", first_lead="dealer_left")
    st = game(rules, ["KC 3C", "2C 5C 5D", "3D 4D", "3H 4H"], rest_to=2, dealer=3)
    st = play(rules, st, (0, "K"))
    agent = HeuristicAgent(rules)
    # the two may go on the king (a reset), but then the next player leads and it still holds its fives
    assert "2" in {move_name(rules, a) for a in np.flatnonzero(st.legal[0])}
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "pass"
    # with the two as its last card it goes out on anything
    st = game(rules, ["KC 3C", "2C", "3D 4D", "3H 4H 5C 5D"], rest_to=2, dealer=3)
    st = play(rules, st, (0, "K"))
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "2"


@pytest.mark.parametrize("cards,move", [
    ("4C 4D 5C 5D 6C", "7"),        # a revolution makes its low pairs strong: complete the row
    ("2C 2D AC AD KC KD", "pass"),  # a revolution would make its high pairs weak: keep the seven
])
def test_heuristic_judges_a_row_of_singles_that_flips_the_order(cards: str, move: str) -> None:
    # hamish_allan: the fourth single seven in a row starts a revolution
    rules = preset("hamish_allan", first_lead="dealer_left")
    st = game(rules, ["7C", "7D", "7H", "7S " + cards], rest_to=0, dealer=3)
    st = play(rules, st, (0, "7"), (1, "7"), (2, "7"))
    assert st.single_row[0] == 3
    assert move_name(rules, int(_act(rules, HeuristicAgent(rules), st)[0])) == move


def test_merchant_trade_gives_the_least_useful_card() -> None:
    # merchants (6 players, exchange [2, 1]): after the give-backs the players ranked 2 and 3 each give one
    # card of their choice. The heuristic gives a lone low card, not one out of a pair; greedy its weakest.
    rules = preset("merchants")
    hands = ["", "", "4C 4D 6C 9C 9D 9H KC KD 2C", "3C 5C 5D 8C 8D TC QC QD AC", "", ""]
    st = game(rules, hands, rest_to="spread", start_ranks=[0, 1, 2, 3, 4, 5])
    agent = HeuristicAgent(rules)
    while int(current_player(st)[0]) not in (2, 3):       # the President's and Vice-President's give-backs
        assert st.phase[0] == 0 and not decode(rules, observe(rules, st, current_player(st))).trading[0]
        st = play(rules, st, move_name(rules, int(_act(rules, agent, st)[0])))
    assert decode(rules, observe(rules, st, 2)).trading[0]
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "6"
    assert move_name(rules, int(_act(rules, GreedyAgent(rules), st)[0])) == "4"
    st = play(rules, st, (2, "6"))
    assert move_name(rules, int(_act(rules, agent, st)[0])) == "3"
    st = play(rules, st, (3, "3"))
    assert st.phase[0] == 1
    assert "3C" in hand(rules, st, 2) and "6C" not in hand(rules, st, 2)
    assert "6C" in hand(rules, st, 3) and "3C" not in hand(rules, st, 3)


def test_heuristic_beats_greedy_and_greedy_beats_random() -> None:
    from agents.arena import run_tournament
    rules = preset("president")
    res = run_tournament(rules, ["heuristic", "greedy", "random", "random"], deals=60, seed=11, rating=False)
    h, g, r1, r2 = res.entrants
    assert h.points_ci95[0] > g.points_ci95[1]
    assert g.points_ci95[0] > max(r1.points_ci95[1], r2.points_ci95[1])


# --------------------------------------------------------------------------- registry
def test_registry_builds_every_baseline_and_names_the_choices() -> None:
    rules = preset("president")
    for name in BASELINES:
        agent = make_agent(name, rules)
        assert agent.name == name and agent.rules == rules
    assert isinstance(make_agent(" Heuristic ", rules), HeuristicAgent)
    assert "ppo:FILE" in agent_names()
    with pytest.raises(ValueError, match="unknown agent 'clever'.*random, greedy, heuristic"):
        make_agent("clever", rules)
    with pytest.raises(ValueError, match="needs a model file"):
        make_agent("ppo:", rules)
    with pytest.raises(ValueError, match="unknown agent kind"):
        make_agent("dqn:model.zip", rules)
    with pytest.raises(FileNotFoundError, match="not found"):
        make_agent("ppo:/no/such/model.zip", rules)


# --------------------------------------------------------------------------- stable-baselines3 models
sb3 = pytest.importorskip("sb3_contrib")


def _tiny_model(rules: Rules, obs_size: int | None = None):
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Tiny(gym.Env):
        def __init__(self) -> None:
            self.observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_size or O.size(rules),), np.float32)
            self.action_space = gym.spaces.Discrete(n_actions(rules))

        def reset(self, seed=None, options=None):
            return np.zeros(self.observation_space.shape, np.float32), {}

        def step(self, action):
            return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(self.action_space.n, dtype=bool)

    return MaskablePPO("MlpPolicy", Tiny(), n_steps=8, batch_size=8, policy_kwargs={"net_arch": [8]},
                       device="cpu", seed=0)


def _trusted(spec: str, rules: Rules) -> Agent:
    """A stable-baselines3 zip loads only with trust_pickle (it can run code), with a warning that says so."""
    with pytest.warns(UserWarning, match="trust-pickle"):
        return make_agent(spec, rules, trust_pickle=True)


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    from agents.sb3_policy import save_model
    rules = preset("president", hands_per_session=2)
    path = save_model(_tiny_model(rules), tmp_path_factory.mktemp("m") / "model", rules, timesteps=0)
    return rules, path


def test_sb3_model_is_an_agent_that_plays_legally(saved_model) -> None:
    from agents.sb3_policy import read_metadata
    rules, path = saved_model
    meta = read_metadata(path)
    assert Rules.from_dict(meta["rules"]) == rules and meta["n_actions"] == n_actions(rules)
    for spec in (f"ppo:{path}", f"ppo-sample:{path}"):
        agent = _trusted(spec, rules)
        assert agent.name == spec
        play_sessions(rules, [agent, "greedy"], games=4, seed=1)
    # sampling draws from the given generator only: same seed, same actions
    sampler = _trusted(f"ppo-sample:{path}", rules)
    st = init(rules, 32, seed=2)
    obs = observe(rules, st, current_player(st))
    a = sampler.act(obs, st.legal, np.random.default_rng(9))
    b = sampler.act(obs, st.legal, np.random.default_rng(9))
    assert (a == b).all() and st.legal[np.arange(32), a].all()


def test_sb3_model_of_other_rules_is_refused(saved_model) -> None:
    from agents.sb3_policy import ModelError
    _, path = saved_model
    with pytest.raises(ModelError, match="other rules.*players: model 4, game 5"):
        _trusted(f"ppo:{path}", preset("president", players=5, hands_per_session=2))
    with pytest.raises(ModelError, match="other rules.*trump_ranks"):
        _trusted(f"ppo:{path}", preset("one_deuce_wins", hands_per_session=2))


def test_sb3_corrupt_and_unlabelled_files(saved_model, tmp_path) -> None:
    from agents.sb3_policy import METADATA_MEMBER, ModelError
    rules, path = saved_model
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"this is not a model")
    with pytest.raises(ValueError, match="junk.zip"):   # not a zip: read (and refused) as an agent file
        make_agent(f"ppo:{junk}", rules, trust_pickle=True)
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            dst.writestr(info, data[: len(data) // 3] if info.filename.endswith(".pth") else data)
    with pytest.raises(ModelError, match="could not load"):
        _trusted(f"ppo:{broken}", rules)
    bad_meta = tmp_path / "bad_meta.zip"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(bad_meta, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, b"{not json" if info.filename == METADATA_MEMBER else src.read(info.filename))
    with pytest.raises(ModelError, match="not valid JSON"):
        _trusted(f"ppo:{bad_meta}", rules)
    # a zip saved by SB3 directly (no president.json) loads with a warning, and its spaces are still checked
    plain = tmp_path / "plain.zip"
    _tiny_model(rules).save(plain)
    with pytest.warns(UserWarning, match="cannot be checked"), pytest.warns(UserWarning, match="trust-pickle"):
        make_agent(f"ppo:{plain}", rules, trust_pickle=True)
    other = tmp_path / "other.zip"
    _tiny_model(rules, obs_size=O.size(rules) + 3).save(other)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ModelError, match="observes shape"):
            make_agent(f"ppo:{other}", rules, trust_pickle=True)


def test_write_metadata_replaces_the_record(saved_model, tmp_path) -> None:
    from agents.sb3_policy import METADATA_MEMBER, read_metadata, write_metadata
    rules, path = saved_model
    copy = tmp_path / "copy.zip"
    copy.write_bytes(path.read_bytes())
    five = preset("president", players=5, hands_per_session=2)
    write_metadata(copy, five, note="relabelled")
    with zipfile.ZipFile(copy) as zf:
        assert zf.namelist().count(METADATA_MEMBER) == 1
    meta = read_metadata(copy)
    assert Rules.from_dict(meta["rules"]) == five and meta["note"] == "relabelled"
