"""The search agent (agents/search.py): legal play on every preset, seeded, within its rollout budget,
the heuristic's choice where search cannot tell; its spec's settings; the docs' example search player."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.arena import run_tournament
from agents.heuristic import HeuristicAgent
from agents.registry import make_agent, split_specs
from agents.search import SearchAgent
from president_env.core import EXCHANGE, OVER, PRESETS, current_player, init, observe, preset, step_inplace
from president_env.core.records import random_positions

DOC = Path(__file__).resolve().parents[1] / "docs" / "search.md"


def decisions(rules, seed: int, games: int = 6, steps: int = 25):
    """Observation rows and masks of the players to act in random positions (exchange ones included)."""
    return random_positions(rules, seed, games, steps)


@pytest.mark.parametrize("name", PRESETS)
def test_search_chooses_legal_actions_on_every_preset(name):
    rules = preset(name)
    obs, mask = decisions(rules, PRESETS.index(name))        # random positions, with and without ranks
    agent = SearchAgent(rules, worlds=2, actions=3)
    actions = agent.act(obs, mask, np.random.default_rng(0))
    assert mask[np.arange(len(actions)), actions].all()
    assert agent.stats.searched == int((mask.sum(axis=1) > 1).sum()) > 0


@pytest.mark.parametrize("name", ["president", "daifugo", "bombs", "jokers_high", "merchants", "quick_clears",
                                  "hamish_allan", "sofia"])
def test_compiled_rollouts_play_as_the_stepped_ones(name):
    # the heuristic's rollouts in one compiled call (agents/rollouts.py) against the same rollouts stepped from
    # Python with HeuristicAgent.act on each step's batch: the same points for every world
    from president_env.core.resample import worlds_from_observation

    rules = preset(name)
    agent = SearchAgent(rules)
    obs, mask = decisions(rules, 3 + PRESETS.index(name))
    rng = np.random.default_rng(1)
    values = []
    for i in rng.choice(len(obs), size=12, replace=False):
        worlds = worlds_from_observation(rules, obs[i:i + 1], 6, rng)
        first = rng.choice(np.flatnonzero(mask[i]), size=6)
        compiled = agent._rollout(worlds.take(np.arange(6)), first, rng)
        stepped = agent._rollout_stepped(worlds.take(np.arange(6)), first, rng)
        np.testing.assert_array_equal(compiled, stepped)
        values.extend(compiled)
    assert len(set(values)) > 1                              # not one value for everything


def test_compiled_rollouts_refuse_an_illegal_first_action():
    from agents.rollouts import heuristic_rollouts
    from president_env.core.resample import worlds_from_observation

    rules = preset("president")
    obs, mask = decisions(rules, 2)
    i = int(np.flatnonzero(~mask[:, 0])[0])                  # a decision where passing is not legal
    worlds = worlds_from_observation(rules, obs[i:i + 1], 3, np.random.default_rng(0))
    agent = SearchAgent(rules)
    with pytest.raises(ValueError, match=r"world 0: first action 0 is not legal there"):
        heuristic_rollouts(agent.rollout_rules, worlds, np.zeros(3, dtype=np.int64), agent.policy)
    with pytest.raises(ValueError, match=r"one first action per world: 3 worlds"):
        heuristic_rollouts(agent.rollout_rules, worlds, np.zeros(2, dtype=np.int64), agent.policy)
    with pytest.raises(ValueError, match=r"rank-level rules"):
        heuristic_rollouts(preset("suit_ranking", hands_per_session=1), worlds, np.zeros(3, dtype=np.int64),
                           agent.policy)


def test_search_plays_a_whole_hand_with_the_exchange():
    rules = preset("president", hands_per_session=1)
    agent, other = SearchAgent(rules, worlds=2, actions=3), HeuristicAgent(rules)
    st = init(rules, batch_size=1, seed=4, start_ranks=[[0, 1, 2, 3]])   # player 0 is President: it gives back
    rng = np.random.default_rng(0)
    gave_back = 0
    while st.phase[0] != OVER:                                # an illegal action would raise
        p = int(current_player(st)[0])
        gave_back += int(p == 0 and st.phase[0] == EXCHANGE)
        step_inplace(rules, st, (agent if p == 0 else other).act(observe(rules, st, p), st.legal, rng))
    assert gave_back == 2 and agent.stats.decisions > 2 and agent.stats.searched > 0


def test_search_is_reproducible_with_a_seed_and_legal():
    rules = preset("president")
    obs, mask = decisions(rules, 1)
    a = SearchAgent(rules, worlds=4, actions=4).act(obs, mask, np.random.default_rng(5))
    b = SearchAgent(rules, worlds=4, actions=4).act(obs, mask, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert mask[np.arange(len(a)), a].all()


def test_search_respects_its_rollout_budget():
    rules = preset("president")
    obs, mask = decisions(rules, 2)
    many = mask.sum(axis=1) >= 5
    capped = SearchAgent(rules, worlds=8, actions=5, rollouts=12)
    capped.act(obs, mask, np.random.default_rng(0))
    s = capped.stats
    assert s.decisions == len(obs) and s.searched == int((mask.sum(axis=1) > 1).sum())
    assert 0 < s.max_rollouts <= 12 and s.rollouts <= 12 * s.searched
    free = SearchAgent(rules, worlds=8, actions=5)
    free.act(obs[many], mask[many], np.random.default_rng(0))
    assert free.stats.max_rollouts == 40                    # 8 worlds x 5 candidates
    assert free.stats.rollouts == 40 * int(many.sum())


def test_search_keeps_the_heuristic_choice_when_it_cannot_tell():
    rules = preset("president")
    obs, mask = decisions(rules, 3)
    base = HeuristicAgent(rules).act(obs, mask, np.random.default_rng(0))
    never = SearchAgent(rules, worlds=3, actions=4, z=1e9).act(obs, mask, np.random.default_rng(0))
    np.testing.assert_array_equal(never, base)
    eager = SearchAgent(rules, worlds=6, actions=4, z=0).act(obs, mask, np.random.default_rng(0))
    assert (eager != base).any()                            # with no margin search does change some choices


def test_search_can_fall_back_on_its_rollout_policy():
    from agents.greedy import GreedyAgent

    rules = preset("president")
    obs, mask = decisions(rules, 5)
    greedy = GreedyAgent(rules).act(obs, mask, np.random.default_rng(0))
    agent = make_agent("search:worlds=3,actions=3,z=1e9,policy=greedy,fallback=policy", rules)
    np.testing.assert_array_equal(agent.act(obs, mask, np.random.default_rng(0)), greedy)
    with pytest.raises(ValueError, match="fallback"):
        make_agent("search:fallback=zoo", rules)
    with pytest.raises(ValueError, match="not search"):
        make_agent("search:fallback=search:worlds=2", rules)


def test_search_can_fall_back_on_another_agent():
    # fallback=zoo:president: the network plays unless the heuristic's rollouts find a clearly better move; with
    # an impossible margin it plays the network's moves exactly, and it searches from the network's choice
    rules = preset("president")
    obs, mask = decisions(rules, 6)
    zoo = make_agent("zoo:president", rules).act(obs, mask, np.random.default_rng(0))
    agent = make_agent("search:worlds=3,actions=3,z=1e9,fallback=zoo:president", rules)
    np.testing.assert_array_equal(agent.act(obs, mask, np.random.default_rng(0)), zoo)
    assert agent.fallback_name == "zoo:president" and agent.stats.searched > 0
    free = make_agent("search:worlds=4,actions=4,z=0,fallback=zoo:president", rules)
    chosen = free.act(obs, mask, np.random.default_rng(0))
    assert mask[np.arange(len(chosen)), chosen].all() and (chosen != zoo).any()
    with pytest.raises(ValueError, match="other rules"):
        SearchAgent(rules, fallback=HeuristicAgent(preset("daifugo")))


def test_search_takes_other_agents_built():
    """agents.search does not import the registry (imports run one way): an agent spec as the rollout policy or the
    fallback is built by make_agent's search: spec, and SearchAgent given the bare spec says so."""
    rules = preset("president")
    for key in ("policy", "fallback"):
        with pytest.raises(ValueError, match=f"{key}='zoo:president' is an agent spec: build it first"):
            SearchAgent(rules, **{key: "zoo:president"})
    built = make_agent("zoo:president", rules)
    agent = SearchAgent(rules, worlds=2, actions=2, policy=built, fallback=built)
    assert agent.policy is built and agent.fallback is built and agent.fallback_name == "zoo:president"


def test_search_specs_and_their_errors():
    rules = preset("president")
    agent = make_agent("search:worlds=4,actions=3,rollouts=10,z=0.5,policy=greedy", rules)
    assert (agent.worlds, agent.actions, agent.rollouts, agent.z, agent.policy_name) == (4, 3, 10, 0.5, "greedy")
    assert make_agent("search", rules).budget() == 40
    for spec, words in (("search:worlds=x", "worlds"), ("search:depth=3", "depth"), ("search:worlds=0", "worlds"),
                        ("search:policy=ppo", "policy"), ("search:z=-1", "z"), ("search:worlds", "NAME=VALUE"),
                        ("search:rollouts=1", "rollouts")):
        with pytest.raises(ValueError, match=words):
            make_agent(spec, rules)
    assert split_specs("search:worlds=4,actions=3,heuristic,zoo:president") == [
        "search:worlds=4,actions=3", "heuristic", "zoo:president"]
    assert split_specs("search:policy=zoo:president,z=2,ppo:a=b.agent.safetensors") == [
        "search:policy=zoo:president,z=2", "ppo:a=b.agent.safetensors"]
    zoo = make_agent("search:worlds=2,actions=2,policy=zoo:president", rules)
    assert zoo.policy.name == "zoo:president"                # a trained agent as the rollout policy
    obs, mask = decisions(rules, 4)
    actions = zoo.act(obs, mask, np.random.default_rng(0))
    assert mask[np.arange(len(actions)), actions].all()


def test_the_documented_search_player_runs():
    """docs/search.md shows a search player written from the public API; run it."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert code, "docs/search.md has no python example"
    scope: dict = {}
    exec(compile(code[0], str(DOC), "exec"), scope)   # the project's own docs
    rules = preset("president", hands_per_session=1)
    player = scope["TinySearch"](rules, worlds=3)
    res = run_tournament(rules, [player, "heuristic", "heuristic", "heuristic"], deals=1, rotations="fixed",
                         rating=False)
    assert res.hands == 4


def test_search_serves_in_the_vec_env_opponent_pool():
    pytest.importorskip("torch")
    from training.opponent_pool import OpponentPool
    from training.vec_env import PresidentVecEnv

    pool = OpponentPool(preset("president"), {"search:worlds=2,actions=2": 1.0})
    assert isinstance(pool.members[0], SearchAgent) and pool.members[0].worlds == 2
    env = PresidentVecEnv(num_envs=3, preset="president", opponents=pool, seed=0, hands_per_session=1)
    env.reset()
    for _ in range(6):
        masks = env.action_masks()
        env.step(np.argmax(masks, axis=1))                  # the learner's first legal action
    assert pool.members[0].stats.decisions > 0


def test_evaluate_and_play_take_search_specs(capsys, monkeypatch):
    import io

    from president_cli.main import main
    from president_cli.play import parse_opponents

    rc = main(["evaluate", "--preset", "president", "--hands", "1", "--games", "1", "--rotations", "fixed",
               "--agents", "search:worlds=2,actions=2,heuristic,heuristic,heuristic", "--no-progress"])
    out = " ".join(capsys.readouterr().out.split())                       # the console wraps long lines
    assert rc == 0 and "0:search:worlds=2,actions=2" in out
    assert "rollouts (at most 4 a decision, budget 4)" in out             # the agent's own report
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--preset", "president", "--games", "1",
              "--agents", "search:worlds=2,depth=3,heuristic,heuristic,heuristic"])
    assert exc.value.code == 2 and "unknown search setting 'depth'" in capsys.readouterr().err
    assert parse_opponents("search:worlds=2,actions=2", 4) == ["search:worlds=2,actions=2"] * 3
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 500))
    rc = main(["play", "--preset", "president", "--hands", "1", "--seed", "2",
               "--opponents", "search:worlds=2,actions=2"])
    assert rc == 0 and "The session is over after 1 hand(s)" in capsys.readouterr().out


def test_bench_search_reports_one_row_per_spec(capsys):
    import importlib
    import sys

    bench_dir = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, bench_dir)
    try:
        bench = importlib.import_module("bench_search")
    finally:
        sys.path.remove(bench_dir)
    rows = bench.main(["--specs", "search:worlds=2,actions=2,greedy", "--decisions", "3"])
    assert [r["spec"] for r in rows] == ["search:worlds=2,actions=2", "greedy"]
    assert rows[0]["decisions"] == 3 and rows[0]["max_rollouts"] == 4
    assert "searched decisions one at a time" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["president", "daifugo", "rich_man_poor_man"])
def test_search_with_policy_priors_takes_the_networks_likeliest_actions(name):
    """``prior=policy``: the candidates are the zoo network's most likely legal actions, its arg max first; with
    no margin for search to beat it the agent plays the network's choice, and it is legal and seeded."""
    rules = preset(name)
    obs, mask = decisions(rules, 7)
    agent = make_agent(f"search:worlds=3,actions=3,policy=zoo:{name},prior=policy", rules)
    net = make_agent(f"zoo:{name}", rules)
    rng = np.random.default_rng(0)
    base = net.act(obs, mask, rng)
    cands = agent._candidates(obs, mask, base, rng)
    z = np.where(mask, net.logits(obs, mask), -np.inf)
    for r, c in enumerate(cands):
        assert c[0] == base[r] and len(c) == min(3, int(mask[r].sum()))
        assert list(np.sort(z[r, c])[::-1]) == list(z[r, c])           # in the network's order
        assert z[r, c[-1]] >= np.sort(z[r])[::-1][len(c) - 1]        # the likeliest ones
    a = agent.act(obs, mask, np.random.default_rng(1))
    assert mask[np.arange(len(a)), a].all()
    np.testing.assert_array_equal(a, make_agent(f"search:worlds=3,actions=3,policy=zoo:{name},prior=policy", rules)
                                  .act(obs, mask, np.random.default_rng(1)))
    never = make_agent(f"search:worlds=3,actions=3,policy=zoo:{name},prior=policy,z=1e9", rules)
    np.testing.assert_array_equal(never.act(obs, mask, np.random.default_rng(1)), base)
    with pytest.raises(ValueError, match="prior=policy needs a network"):
        make_agent("search:prior=policy", rules)
    with pytest.raises(ValueError, match="prior='best' must be heuristic or policy"):
        make_agent("search:prior=best", rules)
