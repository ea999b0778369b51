"""A league: mixed tables of any number of agents, one rating table.

``run_league(rules, ["zoo:president", "search", "heuristic", "greedy", "random"], tables=10, deals=50)`` seats
``rules.players`` of the agents at each table, plays each table as a duplicate-deal tournament
(:func:`agents.arena.run_tournament`: every deal once per rotation of the seats, whole sessions), and rates
every agent from every deal of every table.

Tables
------
The tables are drawn from the seed, one at a time: the agent that has sat at the fewest tables first, then
each next seat to the agent with the fewest tables, then the fewest meetings with those already seated, ties
broken at random. So every agent sits at about ``tables * players / agents`` tables and meets every other
about as often. An agent is built once and sits at its tables as itself (an agent given twice is refused: it
would be rated against itself). Table ``t`` plays the deals of its own seed, drawn from the league's.

Figures
-------
* **rating**: OpenSkill's Plackett-Luce model, one update per deal of each table, the table's agents ranked
  by their points a hand over that deal's rotations (duplicate deals: the cards' luck is shared, so a deal's
  ranking is skill and seat order only). Deals are taken in turn across tables (deal 0 of every table, then
  deal 1, ...), so that no table's deals all come last. Shown as ``mu`` with ``mu +- 1.96 sigma``; the table is
  sorted by the ordinal ``mu - 3 sigma`` as OpenSkill ranks by default.
* **margin**: an agent's points a hand minus the mean of its table's, per deal, and the mean over every deal
  it played with a 95% interval (the deal is the unit; tables are independent). It depends on whom the
  agent met, which the rating accounts for and the margin does not.
* **strength**: points a hand above the league's average agent, adjusted for whom it met: the least-squares
  fit of every deal's margins by ``margin_a = s_a - mean of s over a's table`` (the ``s`` adding up to zero),
  its 95% intervals from the deals' residuals (clustered by deal, the rotations of one deal together). Where
  the rating uses only each deal's order of finish, the strength uses the points, as ``president evaluate``
  does.
* **ahead**: ``ahead[i][j]``, the share of the hands ``i`` and ``j`` played at one table in which ``i``
  finished ahead of ``j`` (empty where they never met).

Same rules, agents, seed, tables and deals: same league.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from president_env.core import Rules

from .arena import Z95, TournamentInterrupted, TournamentResult, run_tournament
from .base import Agent
from .registry import make_agent


@dataclass
class LeagueEntry:
    """One agent's figures over the whole league."""

    agent: str
    index: int
    tables: int
    deals: int
    hands: int
    rating_mu: float
    rating_sigma: float
    margin: float                     # points a hand minus its table's mean, per deal, averaged over its deals
    margin_ci95: tuple[float, float]
    strength: float = math.nan        # points a hand above the league's average agent, fitted (module doc)
    strength_ci95: tuple[float, float] = (math.nan, math.nan)

    @property
    def ordinal(self) -> float:
        """OpenSkill's conservative rank value, ``mu - 3 sigma``."""
        return self.rating_mu - 3 * self.rating_sigma

    @property
    def rating_ci95(self) -> tuple[float, float]:
        return self.rating_mu - Z95 * self.rating_sigma, self.rating_mu + Z95 * self.rating_sigma

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "index": self.index, "tables": self.tables, "deals": self.deals,
                "hands": self.hands, "rating_mu": self.rating_mu, "rating_sigma": self.rating_sigma,
                "rating_ci95": list(self.rating_ci95), "ordinal": self.ordinal, "margin": self.margin,
                "margin_ci95": list(self.margin_ci95), "strength": self.strength,
                "strength_ci95": list(self.strength_ci95)}


@dataclass
class LeagueResult:
    """A league's figures: ``entries`` in the order the agents were given (``ranking()`` sorts them)."""

    rules: Rules
    agents: list[str]
    seating: np.ndarray                 # (tables played, players) the agent at each seat of each table
    deals: int                          # deals a table
    seed: int
    seconds: float
    entries: list[LeagueEntry]
    ahead: np.ndarray                   # (A, A) share of shared hands row finished ahead of column; nan: never met
    meetings: np.ndarray                # (A, A) hands each pair played at one table
    tables: list[TournamentResult] = field(default_factory=list)
    tables_asked: int = 0
    partial_deals: int = 0              # deals of an interrupted last table that count (0: none)

    @property
    def partial(self) -> bool:
        return len(self.tables) < self.tables_asked or self.partial_deals > 0

    def ranking(self) -> list[LeagueEntry]:
        """The entries, the highest ordinal first."""
        return sorted(self.entries, key=lambda e: (-e.ordinal, e.index))

    def to_dict(self) -> dict[str, Any]:
        ahead = [[None if math.isnan(x) else round(float(x), 6) for x in row] for row in self.ahead]
        return {
            "preset": self.rules.name, "players": self.rules.players, "rules": self.rules.to_dict(),
            "agents": self.agents, "seed": self.seed, "deals_per_table": self.deals,
            "tables_asked": self.tables_asked, "tables_played": len(self.tables),
            "seconds": round(self.seconds, 3),
            "ranking": [e.to_dict() for e in self.ranking()],
            "seating": self.seating.tolist(),
            "ahead": {"meaning": "share of the hands both played at one table that the row agent finished ahead "
                                 "of the column agent (null: they never met)", "table": ahead},
            "meetings": self.meetings.tolist(),
        }


def draw_tables(agents: int, players: int, tables: int, rng: np.random.Generator) -> np.ndarray:
    """(tables, players) agent indices: each table's seats to the agents with the fewest tables so far, then the
    fewest meetings with those already seated, ties at random (see the module doc)."""
    if players > agents:
        raise ValueError(f"a league of {agents} agents cannot fill a table of {players}: give at least {players} "
                         f"agents (for copies of one agent at one table, use a tournament: president evaluate)")
    count = np.zeros(agents, np.int64)
    met = np.zeros((agents, agents), np.int64)
    out = np.zeros((tables, players), np.int64)
    for t in range(tables):
        seated: list[int] = []
        for _ in range(players):
            free = [a for a in range(agents) if a not in seated]
            noise = rng.random(len(free))
            key = [(count[a], int(met[a, seated].sum()) if seated else 0, noise[i]) for i, a in enumerate(free)]
            seated.append(free[min(range(len(free)), key=key.__getitem__)])
        out[t] = seated
        count[seated] += 1
        for a in seated:
            met[a, seated] += 1
        met[seated, seated] -= 1
    return out


def run_league(rules: Rules, agents: Sequence[str | Agent], tables: int, deals: int, seed: int = 0, *,
               hands_per_session: int | None = None, progress: bool = False, trust_pickle: bool = False
               ) -> LeagueResult:
    """Play the league (see the module doc). ``agents`` are specs (``"zoo:president"``, ``"search:worlds=16"``)
    or built :class:`Agent` objects. Ctrl-C raises :class:`LeagueInterrupted` holding the figures of the tables
    (and of the last table's deals) that finished."""
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules object, got {type(rules).__name__}")
    for name, value, low in (("tables", tables, 1), ("deals", deals, 1)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    names = [a if isinstance(a, str) else a.name for a in agents]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"agent(s) {', '.join(twice)} given more than once: each agent sits in the league once")
    if len(names) < 2:
        raise ValueError(f"a league needs at least 2 agents, got {len(names)}")
    if hands_per_session is not None:
        rules = rules.replace(hands_per_session=hands_per_session)
    built = [a if isinstance(a, Agent) else make_agent(a, rules, trust_pickle=trust_pickle) for a in agents]
    seat_seq, *table_seqs = np.random.SeedSequence(seed).spawn(tables + 1)
    seating = draw_tables(len(names), rules.players, tables, np.random.default_rng(seat_seq))
    results: list[TournamentResult] = []
    partial: TournamentResult | None = None
    t0 = time.perf_counter()
    try:
        for t, row in enumerate(seating):
            desc = f"table {t + 1}/{tables}"
            table_seed = int(table_seqs[t].generate_state(1, np.uint32)[0])
            results.append(run_tournament(rules, [built[a] for a in row], deals, seed=table_seed,
                                          hands_per_session=hands_per_session, progress=progress,
                                          rating=False, desc=desc))
    except TournamentInterrupted as e:
        partial = e.result
        played = results + ([partial] if partial is not None else [])
        result = summarise_league(rules, names, seating[:len(played)], deals, seed,
                                  time.perf_counter() - t0, played, tables)
        result.partial_deals = partial.deals if partial is not None else 0
        raise LeagueInterrupted(result if played else None, len(results), tables) from None
    return summarise_league(rules, names, seating, deals, seed, time.perf_counter() - t0, results, tables)


class LeagueInterrupted(KeyboardInterrupt):
    """Ctrl-C during a league: ``result`` has the tables that finished (and the finished deals of the one being
    played), None when nothing had finished."""

    def __init__(self, result: LeagueResult | None, finished: int, tables: int) -> None:
        super().__init__(f"interrupted after {finished:,} of {tables:,} tables")
        self.result, self.finished, self.tables = result, finished, tables


def summarise_league(rules: Rules, names: list[str], seating: np.ndarray, deals: int, seed: int, seconds: float,
                     results: list[TournamentResult], tables_asked: int) -> LeagueResult:
    """The league's figures from its tables' tournaments (``seating[t]``: the agents of ``results[t]``)."""
    from openskill.models import PlackettLuce

    A = len(names)
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    margins: list[list[float]] = [[] for _ in range(A)]
    n_tables, n_hands = np.zeros(A, np.int64), np.zeros(A, np.int64)
    ahead_hands, meetings = np.zeros((A, A)), np.zeros((A, A), np.int64)
    for row, res in zip(seating, results, strict=True):
        n_tables[row] += 1
        n_hands[row] += res.hands
        ahead_hands[np.ix_(row, row)] += res.head_to_head * res.hands
        meetings[np.ix_(row, row)] += res.hands
        ppd = res.per_deal_points
        for seat, a in enumerate(row):
            margins[a].extend((ppd[:, seat] - ppd.mean(axis=1)).tolist())
    for d in range(max((r.deals for r in results), default=0)):    # deal d of every table, then deal d + 1
        for row, res in zip(seating, results, strict=True):
            if d < res.deals:
                teams = model.rate([[ratings[a]] for a in row], scores=[float(x) for x in res.per_deal_points[d]])
                for a, team in zip(row, teams, strict=True):
                    ratings[a] = team[0]
    np.fill_diagonal(meetings, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ahead = np.where(meetings > 0, ahead_hands / np.maximum(meetings, 1), np.nan)
    strength, half_width = fit_strengths(A, seating, results)
    entries = []
    for a in range(A):
        m = np.asarray(margins[a])
        mean = float(m.mean()) if m.size else math.nan
        half = Z95 * float(m.std(ddof=1)) / math.sqrt(m.size) if m.size > 1 else 0.0
        entries.append(LeagueEntry(agent=names[a], index=a, tables=int(n_tables[a]), deals=int(m.size),
                                   hands=int(n_hands[a]), rating_mu=float(ratings[a].mu),
                                   rating_sigma=float(ratings[a].sigma), margin=mean,
                                   margin_ci95=(mean - half, mean + half), strength=float(strength[a]),
                                   strength_ci95=(float(strength[a] - half_width[a]),
                                                  float(strength[a] + half_width[a]))))
    return LeagueResult(rules=rules, agents=names, seating=np.asarray(seating), deals=deals, seed=seed,
                        seconds=seconds, entries=entries, ahead=ahead, meetings=meetings, tables=list(results),
                        tables_asked=tables_asked)


def fit_strengths(agents: int, seating: np.ndarray, results: Sequence[TournamentResult]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Each agent's strength and the half-width of its 95% interval (module doc): least squares of the deals'
    margins on ``s_a - mean(s at the table)``, the minimum-norm solution (its ``s`` add up to zero: the design's
    rows do), cluster-robust covariance with a deal's margins as one cluster. NaN for an agent with no deal."""
    rows, targets, clusters = [], [], []
    for row, res in zip(seating, results, strict=True):
        P = len(row)
        design = np.zeros((P, agents))
        design[np.arange(P), row] = 1.0
        design[:, row] -= 1.0 / P
        ppd = res.per_deal_points
        for d in range(res.deals):
            rows.append(design)
            targets.append(ppd[d] - ppd[d].mean())
            clusters.append(P)
    if not rows:
        return np.full(agents, np.nan), np.full(agents, np.nan)
    X, y = np.concatenate(rows), np.concatenate(targets)
    bread = np.linalg.pinv(X.T @ X)
    s = bread @ X.T @ y
    resid = y - X @ s
    meat = np.zeros((agents, agents))
    start = 0
    for n in clusters:
        g = X[start:start + n].T @ resid[start:start + n]
        meat += np.outer(g, g)
        start += n
    cov = bread @ meat @ bread
    G = len(clusters)
    cov *= G / max(G - 1, 1)                       # the small-sample factor of clustered errors
    half = Z95 * np.sqrt(np.clip(np.diag(cov), 0, None))
    seen = np.zeros(agents, bool)
    seen[np.unique(seating)] = True
    return np.where(seen, s, np.nan), np.where(seen, half, np.nan)
