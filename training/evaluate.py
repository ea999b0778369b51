"""Evaluate a learner against the scripted baselines in duplicate-deal tournaments.

The learner sits with ``players - 1`` copies of one baseline; every deal is played
once per rotation of the seats (see :mod:`agents.arena`). The headline figure is
the learner's points per hand minus the baselines' mean, with a 95% interval over
deals (the deal is the independent unit).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from agents.arena import Z95, run_tournament
from agents.base import Agent
from president_env.core import Rules


@dataclass(frozen=True)
class Matchup:
    """The learner against ``players - 1`` copies of ``opponent``."""

    opponent: str
    deals: int
    learner_points: float      # points per hand
    opponent_points: float     # the opponents' mean points per hand
    diff: float                # learner - opponents
    diff_low: float            # 95% interval on diff, over deals
    diff_high: float
    president_rate: float
    scum_rate: float

    @property
    def wins(self) -> bool:
        """More points per hand than the opponents, with an interval that excludes zero."""
        return self.diff_low > 0

    def to_dict(self) -> dict:
        return asdict(self) | {"wins": self.wins}


#: a matchup's sessions end after this many hands when the rules' own sessions are longer (``uecda``'s are the
#: competition's 1,000 hands): a hand's points do not depend on hands far behind it, and 3 hands cover uecda's
#: seat redraws (every 3 hands) and its exchanges
MAX_MATCH_HANDS = 3


def match_hands(rules: Rules) -> int | None:
    """The hands of a matchup's session: the rules' own session, or :data:`MAX_MATCH_HANDS` hands where the rules
    play more than that many hands (None: the rules' own end, a target of points)."""
    if rules.hands_per_session is not None and rules.hands_per_session > MAX_MATCH_HANDS:
        return MAX_MATCH_HANDS
    return None


def matchup(rules: Rules, learner: Agent | str, opponent: str, deals: int, seed: int = 0,
            progress: bool = False, desc: str | None = None) -> Matchup:
    """Play ``learner`` against ``players - 1`` copies of ``opponent`` over ``deals`` duplicate deals
    (``desc`` names the progress bar); sessions of at most :data:`MAX_MATCH_HANDS` hands where the rules' own
    sessions are longer (:func:`match_hands`)."""
    entrants = [learner] + [opponent] * (rules.players - 1)
    result = run_tournament(rules, entrants, deals, seed=seed, progress=progress, rating=False,
                            hands_per_session=match_hands(rules),
                            desc=desc or f"{rules.name}: vs {opponent} x{rules.players - 1}")
    per_deal = result.per_deal_points                        # (deals, E)
    diffs = per_deal[:, 0] - per_deal[:, 1:].mean(axis=1)
    half = Z95 * diffs.std(ddof=1) / np.sqrt(len(diffs)) if len(diffs) > 1 else float("inf")
    me = result.entrants[0]
    return Matchup(
        opponent=opponent, deals=deals,
        learner_points=float(me.points_per_hand),
        opponent_points=float(np.mean([e.points_per_hand for e in result.entrants[1:]])),
        diff=float(diffs.mean()), diff_low=float(diffs.mean() - half), diff_high=float(diffs.mean() + half),
        president_rate=float(me.president_rate), scum_rate=float(me.scum_rate),
    )
