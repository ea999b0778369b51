"""Duplicate-deal tournaments: seat rotations, reproducibility, the intervals, the JSON of ``president evaluate``."""

from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest

from agents.arena import run_tournament, seatings
from agents.greedy import GreedyAgent
from president_cli import evaluate
from president_env.core import preset


class CountingGreedy(GreedyAgent):
    """Greedy play that counts its decisions and draws from its generator (so it is not shared)."""

    deterministic = False

    def __init__(self, rules) -> None:
        super().__init__(rules)
        self.calls = 0
        self.rows = 0

    def _act(self, obs, mask, rng):
        self.calls += 1
        self.rows += len(obs)
        return super()._act(obs, mask, rng)


# --------------------------------------------------------------------------- rotations
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_entrant_takes_every_seat_once_per_deal(players: int) -> None:
    seats = seatings(players, deals=50, rotations="cyclic", rng=np.random.default_rng(1))
    assert seats.shape == (50, players, players)
    for d in range(50):
        for s in range(players):
            assert sorted(seats[d, :, s]) == list(range(players))   # each seat: every entrant once
        for q in range(players):
            assert sorted(seats[d, q]) == list(range(players))      # each rotation: a seating
    # who sits after whom changes from deal to deal
    after_zero = {int(seats[d, 0, 1]) for d in range(50)}
    assert after_zero == set(range(1, players))


def test_fixed_and_all_rotations() -> None:
    fixed = seatings(4, 3, "fixed")
    assert (fixed[:, 0] == [0, 1, 2, 3]).all() and (fixed[:, 1] == [1, 2, 3, 0]).all()
    every = seatings(4, 2, "all")
    assert every.shape == (2, 24, 4) and len({tuple(r) for r in every[0]}) == 24
    with pytest.raises(ValueError, match="8 players|40320"):
        seatings(8, 1, "all")
    with pytest.raises(ValueError, match="rotations must be one of"):
        seatings(4, 1, "spiral")


@pytest.mark.parametrize("rotations,per_deal", [("cyclic", 1), ("fixed", 1), ("all", 6)])
def test_tournament_counts_every_seat(rotations: str, per_deal: int) -> None:
    rules = preset("president", hands_per_session=1)
    res = run_tournament(rules, ["greedy", "random", "greedy", "random"], deals=5, seed=3, rotations=rotations)
    # sessions each entrant started in each seat: the same for every entrant and every seat
    assert (res.seat_counts == 5 * per_deal).all()
    assert res.sessions == 5 * 4 * per_deal and res.hands == res.sessions


def test_identical_deterministic_players_come_out_exactly_level() -> None:
    # Four separate greedy entrants: whoever sits in a seat plays it the same way, so if every entrant
    # really plays every seat of every deal, all four get exactly the same figures, deal by deal.
    rules = preset("president", hands_per_session=1)
    agents = [CountingGreedy(rules) for _ in range(4)]
    res = run_tournament(rules, agents, deals=40, seed=5, rotations="fixed", rating=False)
    ppd = res.per_deal_points
    assert (ppd == ppd[:, :1]).all()
    e = res.entrants
    assert len({x.points_per_hand for x in e}) == 1 and len({x.president_rate for x in e}) == 1
    assert math.isclose(e[0].mean_position, 2.5) and math.isclose(e[0].president_rate, 0.25)
    assert all(a.calls > 0 for a in agents)
    assert sum(a.rows for a in agents) == res.decisions


# --------------------------------------------------------------------------- reproducibility
def _figures(res) -> dict:
    d = res.to_dict()
    d.pop("seconds")
    return d


def test_same_seed_same_figures_other_seed_other_figures() -> None:
    rules = preset("daifugo")
    entrants = ["heuristic", "greedy", "random", "random"]
    a = run_tournament(rules, entrants, deals=20, seed=42)
    b = run_tournament(rules, entrants, deals=20, seed=42)
    c = run_tournament(rules, entrants, deals=20, seed=43)
    assert _figures(a) == _figures(b)
    assert (a.per_deal_points == b.per_deal_points).all()
    assert _figures(a) != _figures(c)


def test_batch_size_splits_deals_without_changing_deterministic_play() -> None:
    rules = preset("president", hands_per_session=2)
    a = run_tournament(rules, ["heuristic", "greedy", "greedy", "heuristic"], deals=12, seed=1, batch_size=8)
    b = run_tournament(rules, ["heuristic", "greedy", "greedy", "heuristic"], deals=12, seed=1)
    assert (a.per_deal_points == b.per_deal_points).all()


@pytest.mark.parametrize("name", ["sofia", "threes_high", "hamish_allan", "expose_hands", "merchants"])
def test_tournament_on_the_new_presets_counts_every_seat_and_repeats(name: str) -> None:
    # whole hands with exchanges (and the merchants' trades), every entrant in every seat of every deal
    rules = preset(name)
    entrants = ["heuristic", "greedy"] + ["random"] * (rules.players - 2)
    a = run_tournament(rules, entrants, deals=3, seed=4, hands_per_session=2, rating=False)
    b = run_tournament(rules, entrants, deals=3, seed=4, hands_per_session=2, rating=False)
    assert (a.seat_counts == 3).all()
    assert a.sessions == 3 * rules.players and a.hands == 2 * a.sessions
    assert (a.per_deal_points == b.per_deal_points).all() and a.decisions == b.decisions


# --------------------------------------------------------------------------- intervals
def test_two_copies_of_one_agent_come_out_level_within_their_intervals() -> None:
    rules = preset("president")
    res = run_tournament(rules, ["greedy", "greedy", "random", "random"], deals=150, seed=8, rating=False)
    g1, g2, r1, r2 = res.entrants
    for x, y in ((g1, g2), (r1, r2)):
        # the copies' figures are anticorrelated (one field, zero-sum points), so compare them deal by deal:
        # the 95% interval of the per-deal difference holds 0 (one mean inside the other's interval is a
        # stricter test that copies fail in about half the seeds)
        d = res.per_deal_points[:, x.index] - res.per_deal_points[:, y.index]
        assert abs(d.mean()) <= 1.959963984540054 * d.std(ddof=1) / math.sqrt(len(d))
        assert max(x.points_ci95[0], y.points_ci95[0]) < min(x.points_ci95[1], y.points_ci95[1])
    # while the different agents are far apart
    assert min(g1.points_ci95[0], g2.points_ci95[0]) > max(r1.points_ci95[1], r2.points_ci95[1])


def test_intervals_are_over_deals() -> None:
    rules = preset("president", hands_per_session=2)
    res = run_tournament(rules, ["heuristic", "greedy", "random", "random"], deals=30, seed=2, rating=False)
    for e in res.entrants:
        x = res.per_deal_points[:, e.index]
        half = 1.959963984540054 * x.std(ddof=1) / math.sqrt(len(x))
        assert math.isclose(e.points_per_hand, x.mean())
        assert np.allclose(e.points_ci95, (x.mean() - half, x.mean() + half))
        assert e.president_ci95[0] <= e.president_rate <= e.president_ci95[1]
        assert 1 <= e.mean_position <= 4
    # zero-sum scoring: the entrants' points per hand add up to zero in every deal
    assert np.allclose(res.per_deal_points.sum(axis=1), 0)
    h = res.head_to_head
    assert np.allclose(h + h.T + np.eye(4), 1)   # no ties in finishing order


def test_more_deals_narrow_the_interval() -> None:
    rules = preset("president", hands_per_session=2)
    small = run_tournament(rules, ["greedy", "random", "random", "random"], deals=20, seed=4, rating=False)
    large = run_tournament(rules, ["greedy", "random", "random", "random"], deals=180, seed=4, rating=False)
    width = [r.entrants[0].points_ci95[1] - r.entrants[0].points_ci95[0] for r in (small, large)]
    assert width[1] < width[0] / 2


def test_hands_per_session_and_bad_arguments() -> None:
    rules = preset("president")
    res = run_tournament(rules, ["greedy"] * 4, deals=3, seed=0, hands_per_session=3)
    assert res.hands == res.sessions * 3 and res.rules.hands_per_session == 3
    with pytest.raises(ValueError, match="3 entrants given for 4 players"):
        run_tournament(rules, ["greedy"] * 3, deals=3)
    with pytest.raises(ValueError, match="deals must be a positive integer"):
        run_tournament(rules, ["greedy"] * 4, deals=0)
    with pytest.raises(ValueError, match="hands_per_session"):
        run_tournament(rules, ["greedy"] * 4, deals=2, hands_per_session=0)
    with pytest.raises(ValueError, match="other rules"):
        run_tournament(rules, [GreedyAgent(preset("daifugo"))] + ["greedy"] * 3, deals=2)


def test_rating_orders_the_entrants() -> None:
    rules = preset("president", hands_per_session=3)
    res = run_tournament(rules, ["heuristic", "random", "random", "random"], deals=40, seed=6)
    h, *rs = res.entrants
    assert all(e.rating_mu is not None for e in res.entrants)
    assert h.rating_ordinal > max(r.rating_ordinal for r in rs)


# --------------------------------------------------------------------------- president evaluate
def _evaluate(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="president")
    evaluate.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["evaluate", *argv])
    return args.func(args)


def test_evaluate_writes_one_json_entrant_per_name_in_order(tmp_path, capsys) -> None:
    out = tmp_path / "res.json"
    assert _evaluate(["--preset", "president", "--players", "5", "--agents", "random,heuristic,random,greedy,random",
                      "--games", "6", "--seed", "3", "--hands", "2", "--json", str(out), "--no-progress"]) == 0
    data = json.loads(out.read_text())
    names = ["random", "heuristic", "random", "greedy", "random"]
    assert [e["agent"] for e in data["entrants"]] == names
    assert [e["index"] for e in data["entrants"]] == list(range(5))
    for e in data["entrants"]:
        lo, hi = e["points_ci95"]
        assert lo <= e["points_per_hand"] <= hi
        for key in ("president_rate", "scum_rate", "mean_position"):
            assert isinstance(e[key], float)
    assert data["players"] == 5 and data["deals"] == 6 and data["sessions"] == 30 and data["hands"] == 60
    assert data["seat_counts"] == [[6] * 5] * 5
    text = capsys.readouterr().out
    assert "head to head" in text and "1:heuristic" in text and "points/hand" in text
    # entrant 0 against the mean of the others, deal by deal (the zoo's measure), printed and written
    first = data["first_minus_others"]
    others = np.mean([e["points_per_hand"] for e in data["entrants"][1:]])
    assert first["mean"] == pytest.approx(data["entrants"][0]["points_per_hand"] - others)
    assert first["ci95"][0] < first["mean"] < first["ci95"][1]
    assert f"0:random minus the mean of the others: {first['mean']:+.3f}" in text
    # the same command gives the same figures
    again = tmp_path / "again.json"
    _evaluate(["--preset", "president", "--players", "5", "--agents", "random,heuristic,random,greedy,random",
               "--games", "6", "--seed", "3", "--hands", "2", "--json", str(again), "--no-progress"])
    assert json.loads(again.read_text())["entrants"] == data["entrants"]


@pytest.mark.parametrize("agents,message", [
    ("greedy,random,random", "3 agent"),
    ("greedy,random,,random", "empty name"),
    ("greedy,random,random,wizard", "unknown agent 'wizard'"),
    ("greedy,random,random,ppo:/nowhere/model.zip", "not found"),
])
def test_evaluate_names_a_bad_agent_list(agents: str, message: str) -> None:
    from president_cli.core_commands import UsageError
    with pytest.raises(UsageError, match=message):
        _evaluate(["--preset", "president", "--agents", agents, "--games", "2", "--no-progress"])
