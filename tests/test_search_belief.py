"""The search agent's ``belief`` setting: worlds from the weighted belief where the hand's plays are given, the
default unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from agents.belief import HistoryRecorder, PublicHistory
from agents.registry import make_agent
from agents.search import SearchAgent
from president_env.core import OVER, current_player, init, observe, preset, step_inplace


def play(rules, spec: str, seed: int, games: int = 3, with_history: bool = True):
    """``spec`` as player 0 against three heuristics; its actions in order, the agent, the final points."""
    st = init(rules, batch_size=games, seed=seed)
    agent, heur = make_agent(spec, rules), make_agent("heuristic", rules)
    rng = np.random.default_rng(seed)
    rec = HistoryRecorder(rules, 0, games)
    chosen = []
    while not (st.phase == OVER).all():
        live = st.phase != OVER
        player = current_player(st)
        acts = np.zeros(games, np.int64)
        others = np.flatnonzero(live & (player != 0))
        if others.size:
            sub = st.take(others)
            acts[others] = heur.act(observe(rules, sub, player[others]), sub.legal, rng)
        mine = np.flatnonzero(live & (player == 0))
        if mine.size:
            sub = st.take(mine)
            obs = observe(rules, sub, 0)
            if with_history:
                acts[mine] = agent.act_with_history(obs, sub.legal, rng, [rec.histories[b] for b in mine])
            else:
                acts[mine] = agent.act(obs, sub.legal, rng)
            assert sub.legal[np.arange(mine.size), acts[mine]].all()
            chosen.extend(acts[mine].tolist())
        rec.record(st, acts, where=live)
        step_inplace(rules, st, acts, where=live)
    return chosen, agent, st.points.copy()


def test_the_default_and_uniform_play_as_before_with_or_without_the_history():
    rules = preset("president").replace(hands_per_session=1)
    plain = play(rules, "search", seed=3, with_history=False)
    told = play(rules, "search", seed=3)
    uniform = play(rules, "search:belief=uniform,proposals=16", seed=3)
    assert plain[0] == told[0] == uniform[0]
    np.testing.assert_array_equal(plain[2], uniform[2])
    assert told[1].stats.believed == 0
    assert "belief" not in told[1].report()


@pytest.mark.parametrize("spec", ["search:belief=heuristic,proposals=32", "search:belief=zoo:daifugo,proposals=32"])
def test_a_weighted_belief_deals_the_worlds_once_the_hand_has_plays(spec):
    rules = preset("daifugo").replace(hands_per_session=1)
    a = play(rules, spec, seed=5, games=2)
    b = play(rules, spec, seed=5, games=2)
    assert a[0] == b[0]                                    # same seed, same game
    agent = a[1]
    assert 0 < agent.stats.believed <= agent.stats.searched
    assert f"dealt from the {agent.belief_name} belief" in agent.report()
    c = play(rules, spec, seed=5, games=2, with_history=False)    # without the plays: uniform worlds
    assert c[1].stats.believed == 0


def test_bad_belief_settings_are_named():
    rules = preset("president")
    with pytest.raises(ValueError, match="belief='greedy'"):
        make_agent("search:belief=greedy", rules)
    with pytest.raises(ValueError, match="belief: heuristic is not a network"):
        SearchAgent(rules, belief=make_agent("heuristic", rules))
    with pytest.raises(ValueError, match="belief='zoo:president' is an agent spec"):
        SearchAgent(rules, belief="zoo:president")
    with pytest.raises(ValueError, match="proposals"):
        make_agent("search:belief=heuristic,proposals=0", rules)
    agent = make_agent("search:belief=heuristic", rules)
    st = init(rules, batch_size=2, seed=0)
    with pytest.raises(ValueError, match="histories"):
        agent.act_with_history(observe(rules, st, current_player(st)), st.legal, np.random.default_rng(0),
                               [PublicHistory()])


def test_the_arena_hands_a_belief_search_the_plays_and_stays_the_same_for_any_batch():
    from agents.arena import run_tournament

    rules = preset("president")
    results = []
    for batch in (1, 64):
        agent = make_agent("search:belief=heuristic,proposals=16,worlds=4", rules)
        r = run_tournament(rules, [agent, "heuristic", "heuristic", "heuristic"], deals=2, seed=9,
                           rotations="cyclic", hands_per_session=2, batch_size=batch, rating=False)
        assert 0 < agent.stats.believed <= agent.stats.searched
        results.append(np.asarray(r.per_deal_points))
    np.testing.assert_array_equal(results[0], results[1])


def _positions(rules, games: int, seed: int):
    """States of ``games`` games (heuristics in every seat) at a decision of player 0 some plays into the hand,
    with player 0's histories."""
    st = init(rules, batch_size=games, seed=seed)
    heur, rng = make_agent("heuristic", rules), np.random.default_rng(seed)
    rec = HistoryRecorder(rules, 0, games)
    want = np.random.default_rng(seed).integers(3, 12, size=games)
    waiting = np.ones(games, bool)
    for _ in range(200):
        player = current_player(st)
        waiting &= ~((player == 0) & (np.array([len(h) for h in rec.histories]) >= want) & (st.legal.sum(1) > 1))
        if not waiting.any():
            break
        acts = heur.act(observe(rules, st, player), st.legal, rng)
        rec.record(st, acts, where=waiting)
        step_inplace(rules, st, acts, where=waiting)
    assert not waiting.any()
    return st, [h.copy() for h in rec.histories]


@pytest.mark.parametrize("policy,draw", [("heuristic", "systematic"), ("random", "systematic"),
                                         ("heuristic", "distinct")])
def test_grouped_calls_with_histories_play_as_one_call_a_group(policy, draw):
    """The arena's path (groups of rows, each with its generator, the weighing stepped together) gives every group
    what a call on it alone gives, whether the rollouts are stepped together (heuristic) or per group (random)."""
    rules = preset("president").replace(hands_per_session=1)
    st, hist = _positions(rules, 12, seed=21)
    obs, legal = observe(rules, st, 0), st.legal
    bounds = np.array([0, 2, 3, 6, 12])
    spec = f"search:belief=heuristic,proposals=24,worlds=3,actions=4,z=0,policy={policy},draw={draw}"   # z=0
    grouped = make_agent(spec, rules)
    got = grouped.act_grouped_with_history(obs, legal, [np.random.default_rng(k) for k in range(4)], bounds, hist)
    alone = make_agent(spec, rules)
    want = np.concatenate([alone.act_with_history(obs[a:b], legal[a:b], np.random.default_rng(k), hist[a:b])
                           for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))])
    np.testing.assert_array_equal(got, want)
    assert grouped.stats.believed == alone.stats.believed == 12
    assert grouped.stats.rollouts == alone.stats.rollouts
    with pytest.raises(ValueError, match="histories"):
        grouped.act_grouped_with_history(obs, legal, [np.random.default_rng(0)], np.array([0, 12]), hist[:5])


@pytest.mark.parametrize("draw", ["systematic", "distinct"])
def test_the_rows_weighed_together_get_the_worlds_each_gets_alone(draw):
    from agents.belief import belief_worlds, belief_worlds_many, heuristic_model

    rules = preset("daifugo").replace(hands_per_session=1)
    st, hist = _positions(rules, 4, seed=8)
    hist[2] = PublicHistory()                         # a row before the hand's first play: uniform worlds
    obs, model = observe(rules, st, 0), heuristic_model(rules)
    many = belief_worlds_many(rules, hist, obs, 5, np.random.default_rng(3), model, proposals=40, draw=draw)
    rng = np.random.default_rng(3)
    from president_env.core.resample import worlds_from_observation
    alone = [belief_worlds(rules, h, o, 5, rng, model, proposals=40, draw=draw) if len(h) else
             worlds_from_observation(rules, o[None], 5, rng) for h, o in zip(hist, obs, strict=True)]
    for i, w in enumerate(alone):
        np.testing.assert_array_equal(many.hands[5 * i:5 * i + 5], w.hands)
    assert len({many.hands[5 * i:5 * i + 5].tobytes() for i in range(4)}) == 4


def test_distinct_draws_take_different_proposals_in_proportion_to_their_weight():
    """``draw=distinct``: n different proposals, never one of weight 0 while another is left; the first drawn is
    drawn in proportion to the weights (the Gumbel top-1 is a draw from them); repeats only when fewer than n fit."""
    from agents.belief import draw_indices

    def _distinct(w, n, u):
        return draw_indices(w, n, u, "distinct")

    def _systematic(w, n, u):
        return draw_indices(w, n, u, "systematic")

    w = np.array([0.5, 0.0, 0.2, 0.1, 0.1, 0.05, 0.05, 0.0])
    for u in np.linspace(0.01, 0.99, 25):
        idx = _distinct(w, 5, float(u))
        assert len(set(idx.tolist())) == 5 and (w[idx] > 0).all()
    assert len(set(_systematic(w, 6, 0.5).tolist())) < 6                  # 0.5 of the weight: three copies
    us = np.random.default_rng(0).random(4000)
    first = np.bincount([_distinct(w, 1, float(u))[0] for u in us], minlength=w.size) / us.size
    np.testing.assert_allclose(first, w, atol=0.03)
    few = _distinct(w, 8, 0.3)                                              # 6 above zero: all of them, 2 repeats
    assert set(few[:6].tolist()) == {0, 2, 3, 4, 5, 6} and (w[few] > 0).all() and few.size == 8


def test_a_bad_draw_is_named():
    from agents.belief import belief_worlds_many, heuristic_model

    rules = preset("president")
    with pytest.raises(ValueError, match="search setting draw must be one of systematic, distinct, got 'best'"):
        make_agent("search:belief=heuristic,draw=best", rules)
    st, hist = _positions(rules.replace(hands_per_session=1), 2, seed=4)
    with pytest.raises(ValueError, match="draw must be one of systematic, distinct"):
        belief_worlds_many(rules, hist, observe(rules, st, 0), 3, np.random.default_rng(0), heuristic_model(rules),
                           proposals=8, draw="best")


def test_the_draw_setting_reaches_the_worlds():
    """Under ``z=0`` the worlds decide: drawn as different proposals they are not the resampled ones, so some move
    differs, while each draw replays itself; ``distinct`` is the default."""
    rules = preset("president").replace(hands_per_session=1)
    spec = "search:belief=heuristic,proposals=24,worlds=6,actions=4,z=0"
    systematic = play(rules, f"{spec},draw=systematic", seed=12, games=4)[0]
    distinct = play(rules, f"{spec},draw=distinct", seed=12, games=4)[0]
    assert distinct == play(rules, spec, seed=12, games=4)[0]
    assert distinct != systematic
