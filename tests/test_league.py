"""The league (agents.league, president league): its tables, its figures, Ctrl-C, the command's errors."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from agents.arena import run_tournament
from agents.heuristic import HeuristicAgent
from agents.league import LeagueInterrupted, draw_tables, run_league
from president_cli.main import main
from president_env.core import preset

BASIC = ["heuristic", "greedy", "random", "search:worlds=2,actions=2"]


def short(name: str = "president"):
    return preset(name).replace(hands_per_session=2)


@pytest.mark.parametrize("agents, players, tables", [(5, 4, 10), (7, 4, 21), (6, 5, 12), (4, 4, 3), (9, 3, 30)])
def test_tables_seat_every_agent_and_every_pair_about_as_often(agents, players, tables):
    seating = draw_tables(agents, players, tables, np.random.default_rng(0))
    assert seating.shape == (tables, players)
    assert all(len(set(row)) == players for row in seating)              # an agent sits once at a table
    count = np.bincount(seating.ravel(), minlength=agents)
    assert count.max() - count.min() <= 1
    met = np.zeros((agents, agents), int)
    for row in seating:
        for a, b in combinations(row, 2):
            met[a, b] += 1
            met[b, a] += 1
    pairs = met[np.triu_indices(agents, 1)]
    expected = tables * players * (players - 1) / (agents * (agents - 1))
    assert pairs.max() - pairs.min() <= max(2, expected / 2)               # no pair left out or crowded
    again = draw_tables(agents, players, tables, np.random.default_rng(0))
    np.testing.assert_array_equal(seating, again)


def test_a_table_needs_enough_agents():
    with pytest.raises(ValueError, match="3 agents cannot fill a table of 4"):
        draw_tables(3, 4, 2, np.random.default_rng(0))
    rules = short()
    with pytest.raises(ValueError, match="more than once"):
        run_league(rules, ["heuristic", "greedy", "heuristic", "random"], tables=1, deals=1)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="tables must be a positive integer"):
            run_league(rules, BASIC, tables=bad, deals=1)


def test_the_league_ranks_and_is_the_seed_s():
    rules = short()
    agents = BASIC + ["zoo:president"]
    result = run_league(rules, agents, tables=5, deals=6, seed=3)
    ranked = [e.agent for e in result.ranking()]
    assert ranked[-1] == "random" and ranked.index("heuristic") < ranked.index("greedy")
    by_name = {e.agent: e for e in result.entries}
    assert by_name["heuristic"].rating_ci95[0] > by_name["random"].rating_ci95[1]
    assert sum(e.tables for e in result.entries) == 5 * rules.players
    assert all(e.deals == e.tables * 6 for e in result.entries)
    # margins are over the table's mean: every deal's margins add up to zero
    assert abs(sum(e.margin * e.deals for e in result.entries)) < 1e-9
    np.testing.assert_array_equal(result.meetings, result.meetings.T)
    met = result.meetings > 0
    np.testing.assert_allclose((result.ahead + result.ahead.T)[met], 1.0)   # one of two is ahead in every hand
    assert np.isnan(np.diag(result.ahead)).all()
    same = run_league(rules, agents, tables=5, deals=6, seed=3)
    assert [e.to_dict() for e in same.entries] == [e.to_dict() for e in result.entries]
    other = run_league(rules, agents, tables=5, deals=6, seed=4)
    assert [e.to_dict() for e in other.entries] != [e.to_dict() for e in result.entries]
    json.dumps(result.to_dict())                                       # plain JSON values


def test_a_table_is_the_tournament_of_its_seed():
    """One table of exactly the table's agents: its deals are a duplicate tournament's, and the margin is the
    tournament's first-minus-others difference scaled by (P - 1) / P."""
    rules = short()
    result = run_league(rules, BASIC, tables=1, deals=5, seed=11)
    seed = int(np.random.SeedSequence(11).spawn(2)[1].generate_state(1, np.uint32)[0])
    row = [BASIC[a] for a in result.seating[0]]
    tour = run_tournament(rules, row, 5, seed=seed, rating=False)
    np.testing.assert_allclose(result.tables[0].per_deal_points, tour.per_deal_points)
    P = rules.players
    for seat, name in enumerate(row):
        entry = next(e for e in result.entries if e.agent == name)
        assert entry.margin == pytest.approx(tour.difference(seat)[0] * (P - 1) / P)


class Interrupting(HeuristicAgent):
    """The heuristic until its ``calls``-th call, then Ctrl-C."""

    def __init__(self, rules, calls: int) -> None:
        super().__init__(rules)
        self.name, self.calls = "interrupting", calls

    def _act(self, obs, mask, rng):
        self.calls -= 1
        if self.calls < 0:
            raise KeyboardInterrupt
        return super()._act(obs, mask, rng)


def test_ctrl_c_keeps_the_tables_that_finished():
    rules = short()
    calls = []

    class Counting(HeuristicAgent):
        name = "counting"

        def _act(self, obs, mask, rng):
            calls.append(1)
            return super()._act(obs, mask, rng)

    agents = [Counting(rules), "greedy", "random", "search:worlds=2,actions=2"]
    whole = run_league(rules, agents, tables=3, deals=2, seed=5)
    per_table = len(calls) // 3
    with pytest.raises(LeagueInterrupted) as exc:
        run_league(rules, [Interrupting(rules, per_table + per_table // 2)] + agents[1:], tables=3, deals=2,
                   seed=5)
    kept = exc.value.result
    assert exc.value.finished == 1 and kept is not None and kept.partial
    assert kept.tables[0].per_deal_points.tolist() == whole.tables[0].per_deal_points.tolist()
    with pytest.raises(LeagueInterrupted) as exc:
        run_league(rules, [Interrupting(rules, 0)] + agents[1:], tables=3, deals=2, seed=5)
    assert exc.value.result is None and exc.value.finished == 0


def test_the_command_prints_the_ranking_and_writes_json(tmp_path, capsys):
    out = tmp_path / "league.json"
    args = ["league", "--preset", "president", "--agents", "heuristic,greedy,random,search:worlds=2,actions=2",
            "--tables", "2", "--deals", "2", "--hands", "1", "--seed", "1", "--json", str(out), "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "search:worlds=2,actions=2" in printed and "rating" in printed and "ahead" in printed
    data = json.loads(out.read_text())
    assert data["tables_played"] == 2 and len(data["ranking"]) == 4
    assert {r["agent"] for r in data["ranking"]} == {"heuristic", "greedy", "random", "search:worlds=2,actions=2"}
    before = out.read_text()
    with pytest.raises(SystemExit) as exc:                              # never silently over a file
        main(args)
    assert exc.value.code == 2 and out.read_text() == before
    assert "exists" in capsys.readouterr().err
    assert main(args + ["--force"]) == 0


@pytest.mark.parametrize("agents, words", [
    ("heuristic,greedy,random", "3 agent(s) for tables of 4"),
    ("heuristic,greedy,random,greedy", "greedy more than once"),
    ("heuristic,greedy,random,nope", "agent 'nope'"),
    ("heuristic,greedy,random,,zoo:president", "empty name"),
])
def test_the_command_s_errors_name_what_was_wrong(agents, words, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["league", "--preset", "president", "--agents", agents, "--no-progress"])
    assert exc.value.code == 2
    assert words in capsys.readouterr().err


def test_strengths_recover_the_points_an_agent_adds_whoever_it_meets():
    """Synthetic tables: agent a makes s_a - mean(s at its table) + noise a hand; the fit finds s within its
    intervals, though the raw margins of agents that met stronger tables are lower."""
    from types import SimpleNamespace

    from agents.league import fit_strengths

    rng = np.random.default_rng(0)
    true = np.array([0.6, 0.3, 0.0, -0.2, -0.7])
    true -= true.mean()
    seating = np.array([[0, 1, 2, 3], [0, 1, 2, 4], [1, 2, 3, 4], [0, 2, 3, 4], [0, 1, 3, 4]] * 4)
    results = []
    for row in seating:
        mean = true[row] - true[row].mean()
        results.append(SimpleNamespace(deals=200, per_deal_points=3 + mean + rng.normal(0, 0.5, (200, 4))))
    s, half = fit_strengths(5, seating, results)
    assert abs(s.sum()) < 1e-9
    assert (np.abs(s - true) < half).all() and (half < 0.05).all()
    s, half = fit_strengths(6, seating, results)                    # an agent at no table: no figure
    assert np.isnan(s[5]) and np.isnan(half[5]) and np.isfinite(s[:5]).all()


def test_the_tables_fit_80_columns_with_long_names():
    from rich.console import Console

    from president_cli.league import print_league

    rules = short()
    result = run_league(rules, ["heuristic", "greedy", "random", "search:worlds=2,actions=2,z=0.5,rollouts=4"],
                        tables=1, deals=1)
    console = Console(width=80, record=True)
    print_league(result, console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text and ("+0." in text or "-0." in text)
