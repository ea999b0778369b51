"""The compiled exact best response and NashConv (agents.nash_conv) against a hand-computed game, OpenSpiel's
``nash_conv`` on the small variants (micro by default, the others with ``-m slow``) and through the CLI."""

from __future__ import annotations

import numpy as np
import pytest
from cli_run import run_cli

from agents.agent_file import write_agent_file
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.nash_conv import (
    GameTree,
    agent_probabilities,
    agent_probability_table,
    game_tree,
    nash_conv_of_agents,
    nash_conv_of_behaviour,
    nash_conv_of_tree,
)
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from president_cli.main import main
from president_env.core import observation as O
from president_env.core.actions import n_actions
from president_env.small_variants import SMALL_VARIANTS, small_variant

try:
    import pyspiel
except ImportError:  # pragma: no cover - the openspiel extra is optional
    pyspiel = None

needs_openspiel = pytest.mark.skipif(
    pyspiel is None, reason='OpenSpiel is not installed: pip install -e ".[openspiel]"')


def _hand_tree() -> GameTree:
    """A two-player betting game small enough to solve by hand.

    Chance deals player 0 a high or a low card (1/2 each); player 0, who sees it, folds (-1 to it) or bets;
    after a bet player 1, who does not see the card, passes (+1 to player 0) or calls (+2 to player 0 with
    the high card, -2 with the low one). Nodes level by level: 0 high, 1 low (player 0's two information
    states); 2 fold, 3 bet | 4 fold, 5 bet (3 and 5: player 1's one information state); 6 pass, 7 call |
    8 pass, 9 call."""
    parent = np.array([-1, -1, 0, 0, 1, 1, 3, 3, 5, 5])
    first_child = np.array([2, 4, 0, 6, 0, 8, 0, 0, 0, 0])
    n_children = np.array([2, 2, 0, 2, 0, 2, 0, 0, 0, 0])
    player = np.array([0, 0, -1, 1, -1, 1, -1, -1, -1, -1], np.int8)
    returns = np.zeros((10, 2))
    for n, r0 in ((2, -1), (4, -1), (6, 1), (7, 2), (8, 1), (9, -2)):
        returns[n] = (r0, -r0)
    infoset = np.array([0, 1, -1, 2, -1, 2, -1, -1, -1, -1])
    depth = np.array([0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    none = np.zeros(0, np.int64)
    return GameTree(rules=small_variant("micro"), parent=parent, first_child=first_child, n_children=n_children,
                    child_slot=np.array([0, 0, 0, 1, 0, 1, 0, 1, 0, 1]), child_action=np.zeros(10, np.int64),
                    player=player, root_weight=np.array([0.5, 0.5] + [0.0] * 8), returns=returns, infoset=infoset,
                    n_infosets=3, infoset_actions=np.array([2, 2, 2]), query=np.full(10, -1), query_obs=none,
                    query_mask=none, query_player=none, depth=depth, seconds=0.0)


def test_a_hand_computed_game_nash_conv():
    # uniform play: player 0 gets 1/2 (-1) + 1/2 (1/2 (+1) + 1/2 (+2)) = +1/4 with the high card, -3/4 with the
    # low one: -1/4 in all. Its best response bets high (+3/2) and low (-1/2): +1/2, a gain of 3/4. Player 1
    # cannot tell the cards apart: pass loses 1 after either bet, call loses 2 or wins 2: calling is best
    # (0 against -1/2 summed over the two bets), worth 1/2 (+1 -2) / 2 + 1/2 (+1 +2) / 2 = +1/2 to it, a gain
    # of 1/4 over its +1/4. Were it to see the card (pass high, call low) it would gain 1/2.
    tree = _hand_tree()
    res = nash_conv_of_behaviour(tree, np.array([1, 1] + [0.5] * 8))
    assert res.values == pytest.approx((-0.25, 0.25), abs=1e-12)
    assert res.gains == pytest.approx((0.75, 0.25), abs=1e-12)
    assert res.nash_conv == pytest.approx(1.0, abs=1e-12)
    # player 0 always bets, player 1 always calls: each gets 0 (+2 high, -2 low); player 0 would rather fold
    # the low card (-1, not -2), player 1 cannot do better than call (passing loses 1 after either bet)
    pure = np.array([1, 1, 0, 1, 0, 1, 0, 1, 0, 1], float)
    res = nash_conv_of_behaviour(tree, pure)
    assert res.values == pytest.approx((0.0, 0.0), abs=1e-12)
    assert res.gains == pytest.approx((0.5, 0.0), abs=1e-12)    # fold the low card: -1 instead of -2, 1/2 each deal
    with pytest.raises(ValueError, match="one probability per node"):
        nash_conv_of_behaviour(tree, np.ones(3))


def test_the_tree_counts_the_decisions_and_information_sets_of_the_openspiel_game():
    # the counts that president_env.small_variants documents (OpenSpiel's information state strings)
    for name, decisions, infosets in (("micro", 8_262, 348), ("tiny", 256_140, 7_392)):
        tree = game_tree(small_variant(name))
        assert (tree.n_decisions, tree.n_infosets) == (decisions, infosets), name
        roots = tree.parent < 0
        assert tree.root_weight[roots].sum() == pytest.approx(1.0, abs=1e-12)
        assert roots.sum() == 3 * (90 if name == "micro" else 560)
        # a node's children are its legal actions, in increasing order, right after the ones of the nodes before
        dec = np.flatnonzero(tree.player >= 0)
        assert (tree.parent[tree.first_child[dec]] == dec).all()
        assert (tree.child_slot[tree.first_child[dec] + tree.n_children[dec] - 1] == tree.n_children[dec] - 1).all()
        later = np.flatnonzero(tree.child_slot > 0)
        assert (tree.parent[later - 1] == tree.parent[later]).all()
        assert (tree.child_action[later - 1] < tree.child_action[later]).all()


def test_a_tree_cut_to_a_deterministic_profile_gives_the_whole_tree_s_nash_conv():
    for name in ("micro", "tiny"):
        rules = small_variant(name)
        whole = game_tree(rules)
        for agents in ([GreedyAgent(rules)] * 3, [HeuristicAgent(rules), GreedyAgent(rules), GreedyAgent(rules)],
                       [RandomAgent(rules), GreedyAgent(rules), HeuristicAgent(rules)]):
            cut = game_tree(rules, agents)
            a, b = nash_conv_of_tree(cut, agents), nash_conv_of_tree(whole, agents)
            assert a.gains == pytest.approx(b.gains, abs=1e-12) and a.values == pytest.approx(b.values, abs=1e-12)
            assert cut.n_decisions < whole.n_decisions      # each deterministic player's unplayed actions are cut
            assert (cut.child_prob[cut.parent >= 0] >= 0).all() and cut.child_prob.max() <= 1
        with pytest.raises(ValueError, match="cut to another profile"):
            nash_conv_of_tree(cut, [GreedyAgent(rules)] * 3)
    # uniform random plays every action: nothing is cut
    rules = small_variant("micro")
    assert game_tree(rules, [RandomAgent(rules)] * 3).n_decisions == 8_262


def test_batched_probabilities_are_each_observation_s():
    rules = small_variant("micro")
    tree = game_tree(rules)
    obs, mask = tree.query_obs, tree.query_mask
    for agent in (RandomAgent(rules), GreedyAgent(rules), HeuristicAgent(rules)):
        table = agent_probability_table(agent, obs, mask, chunk=37)
        assert np.allclose(table.sum(axis=1), 1.0) and not (table[~mask] != 0).any()
        for i in range(0, len(obs), 7):
            one = np.zeros(mask.shape[1])
            for a, p in agent_probabilities(agent, obs[i], mask[i]).items():
                one[a] = p
            assert np.array_equal(table[i], one), (agent.name, i)


def test_nash_conv_names_a_profile_of_the_wrong_size():
    rules = small_variant("micro")
    with pytest.raises(ValueError, match="the game has 3 players; 2 agents were given"):
        nash_conv_of_agents(rules, [RandomAgent(rules)] * 2)
    with pytest.raises(ValueError, match="the game has 3 players; 4 agents were given"):
        nash_conv_of_tree(game_tree(rules), [RandomAgent(rules)] * 4)


def _sampled_network(tmp_path, rules) -> str:
    """A small random network as ``ppo-sample:`` (a stochastic profile that is not uniform)."""
    rng = np.random.default_rng(45)
    sizes = [O.size(rules), 16, n_actions(rules)]
    layers = [(rng.normal(0, 0.5, (sizes[i + 1], sizes[i])).astype(np.float32),
               rng.normal(0, 0.5, sizes[i + 1]).astype(np.float32)) for i in range(2)]
    return str(write_agent_file(tmp_path / "net.agent.safetensors", rules, layers))


def _profile(spec: str, rules, tmp_path) -> list:
    specs = spec.split("+")
    specs = specs * rules.players if len(specs) == 1 else specs
    out = []
    for s in specs:
        if s == "sampled":
            s = f"ppo-sample:{_sampled_network(tmp_path, rules)}"
        out.append(make_agent(s, rules))
    return out


def _compare_with_openspiel(variant: str, spec: str, tmp_path):  # noqa: ANN202 - a NashConvResult
    from agents.exploitability import nash_conv_of_agents as openspiel_nash_conv

    rules = small_variant(variant)
    agents = _profile(spec, rules, tmp_path)
    ours = nash_conv_of_agents(rules, agents)
    theirs = openspiel_nash_conv(rules, agents)
    assert ours.nash_conv == pytest.approx(theirs.nash_conv, abs=1e-9)
    assert ours.gains == pytest.approx(theirs.gains, abs=1e-9)
    assert ours.values == pytest.approx(theirs.values, abs=1e-9)
    return ours


@needs_openspiel
@pytest.mark.parametrize("spec", ["random", "sampled+greedy+random"])
def test_micro_matches_openspiel(spec, tmp_path):
    assert _compare_with_openspiel("micro", spec, tmp_path).nash_conv > 0.5     # far from an equilibrium


SLOW_CASES = [(v, s) for v in SMALL_VARIANTS for s in ("greedy", "random", "heuristic+random+random", "sampled")
              if (v, s) != ("micro", "random")]


@needs_openspiel
@pytest.mark.slow
@pytest.mark.parametrize(("variant", "spec"), SLOW_CASES)
def test_small_variants_match_openspiel(variant, spec, tmp_path):
    # OpenSpiel takes seconds on micro, minutes on tiny, hours on tiny_revolution's stochastic profiles
    if variant == "tiny_revolution" and spec != "greedy":
        pytest.skip("OpenSpiel's best response of a stochastic profile of tiny_revolution takes hours")
    if variant in ("tiny_joker", "tiny4_joker"):
        pytest.skip(f"{variant}'s tree (3.3 and 23 million decisions) is too large for OpenSpiel's best response in "
                    "Python")
    _compare_with_openspiel(variant, spec, tmp_path)


def _row(out: str, label: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith("│ " + label + " "))
    return [c.strip() for c in line.strip("│").split("│")]


@needs_openspiel
def test_cli_engines_print_the_same_table(capsys):
    assert main(["exploitability", "--preset", "micro", "--agents", "greedy,heuristic+random+random"]) == 0
    compiled = capsys.readouterr().out
    assert main(["exploitability", "--preset", "micro", "--agents", "greedy,heuristic+random+random",
                 "--engine", "openspiel"]) == 0
    openspiel = capsys.readouterr().out
    assert "compiled engine" in compiled and "openspiel engine" in openspiel
    for label in ("greedy", "heuristic+random+random"):
        a, b = _row(compiled, label), _row(openspiel, label)
        assert a[:-1] == b[:-1], (a, b)             # every column but the seconds
    assert _row(compiled, "greedy")[1] == "0.800"


def test_cli_names_a_bad_engine_and_a_profile_of_the_wrong_size(capsys):
    code, err = run_cli(["exploitability", "--preset", "micro", "--agents", "random", "--engine", "fast"], capsys)
    assert code == 2 and "invalid choice: 'fast'" in err and "compiled" in err and "openspiel" in err
    code, err = run_cli(["exploitability", "--preset", "micro", "--agents", "random+greedy"], capsys)
    assert code == 2 and "names 2 agents for 3 players" in err


def test_cli_refuses_a_preset_s_tree_before_any_work(capsys):
    code, err = run_cli(["exploitability", "--preset", "president", "--agents", "random"], capsys)
    assert code == 2 and "--preset president: an exact best response over a hand of president" in err, err
    assert "deals, each a root of the tree" in err and "would need about" in err and "small variants" in err


@pytest.mark.slow
def test_tiny_joker_is_where_the_heuristic_is_exploitable_without_a_revolution():
    # about ten seconds and a gigabyte: 3.3 million decisions (docs/openspiel.md gives the table)
    rules = small_variant("tiny_joker")
    tree = game_tree(rules)
    assert (tree.n_decisions, tree.n_infosets) == (3_340_620, 30_468)
    heuristic = nash_conv_of_tree(tree, [HeuristicAgent(rules)] * 3)
    greedy = nash_conv_of_tree(tree, [GreedyAgent(rules)] * 3)
    assert heuristic.nash_conv == pytest.approx(3 / 7, abs=1e-9) and min(heuristic.gains) > 0.14
    assert greedy.nash_conv > 1.0 and max(abs(v) for v in heuristic.values) < 1e-9


def test_a_tree_that_outgrows_the_memory_is_refused_before_the_level_that_would_not_fit(monkeypatch):
    import president_env.core.memory as memory
    from agents.nash_conv import tree_memory_estimate

    rules = small_variant("micro")
    first, deals = tree_memory_estimate(rules)
    assert deals == 270 and first < 1e6             # micro's estimate before any work: well under a megabyte
    monkeypatch.setattr(memory, "available_bytes", lambda: 1_000_000)
    with pytest.raises(memory.MemoryEstimateError, match=r"hand of micro \(its tree: [\d,]+ nodes so far, [\d,]+ at "
                                                         r"the next level\) would need about"):
        game_tree(rules)
