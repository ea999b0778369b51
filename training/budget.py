"""The time budget of ``president train --minutes M``: one deadline for the whole run, shared by its phases.

A run is the warm start (the teacher's self-play collected, then fitted), PPO, and the final
evaluation against the baselines; ``--minutes`` bounds all of it. The final evaluation's
time is reserved first: a short timed match against the first baseline, grown to the deals
asked (:class:`EvalCost`, which errs long), and the deals that would take more than half the
budget are cut. Of the time left, the warm start gets ``warm_share``: its
self-play at most ``collect_share`` of that (the setting ``imitation_collect_share``), its fit
until the warm start's end (both stop on time); PPO runs until the reserve, and the final evaluation plays last.

Without ``--minutes`` there is no plan: every phase runs to its size (``--timesteps``, the
settings' ``imitation_decisions`` and ``imitation_epochs``, ``--final-deals``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from president_env.core import Rules
from training.evaluate import matchup

FINAL_MAX_SHARE = 0.5        # of the budget: the final evaluation, at most (its deals are cut to fit)
TIMING_DEALS = 32            # the timed match
# A tournament's time grows slower than its deals while the batch is small: the batched core steps every game at
# once, and more games cost little more a step. Measured on the 2-core machine (president, the learner against
# three heuristics): 16 deals 2.4 s, 64 deals 4.3 s, 300 deals 9.8 s, 1,000 deals 24.6 s, 3,000 deals 71 s; under
# load 32 deals 10 s, 175 deals 18.5 s. Grown as the square root of the deals up to ten times the timed match
# (300 deals: 9.8 s from 3.1 s), then in proportion, the estimate errs long.
SQRT_UP_TO = 10


@dataclass(frozen=True)
class EvalCost:
    """A timed match of ``deals`` duplicate deals that took ``seconds``, grown to more deals (see above)."""

    deals: int
    seconds: float

    def estimate(self, deals: int) -> float:
        """Seconds ``deals`` deals against one baseline take (at least the timed match's, for fewer deals)."""
        if deals <= 0:
            return 0.0
        x = max(1.0, deals / self.deals)
        return self.seconds * (x ** 0.5 if x <= SQRT_UP_TO else SQRT_UP_TO ** 0.5 * x / SQRT_UP_TO)

    def deals_within(self, seconds: float) -> int:
        """The most deals that take at most ``seconds`` by :meth:`estimate` (at least 1)."""
        if seconds < self.seconds:   # not even the timed match fits: one deal
            return 1
        r = seconds / self.seconds
        x = r * r if r <= SQRT_UP_TO ** 0.5 else r * SQRT_UP_TO ** 0.5
        return int(self.deals * x + 1e-9)


def measure_eval_cost(rules: Rules, learner: Any, baseline: str, most_deals: int, seed: int = 0,
                      progress: bool = False) -> EvalCost:
    """Time a short match of ``learner`` against ``baseline``: :data:`TIMING_DEALS` deals, or ``most_deals`` (the
    largest evaluation to come) when fewer."""
    deals = max(1, min(TIMING_DEALS, most_deals))
    t0 = time.time()
    matchup(rules, learner, baseline, deals, seed=seed, progress=progress,
            desc=f"timing the final evaluation ({deals} deals)")
    return EvalCost(deals, max(time.time() - t0, 1e-3))


@dataclass(frozen=True)
class Plan:
    """The deadlines (``time.time()`` values) of a run's phases and the final evaluation's deals."""

    started: float
    end: float                     # the whole run's deadline
    collect_end: float             # the warm start's self-play
    warm_end: float                # the warm start's fit
    ppo_end: float                 # PPO; the final evaluation's reserve follows
    final_deals: dict[str, int]    # deals against each baseline (cut when they would not fit)
    asked_deals: dict[str, int]    # what --final-deals asked for
    final_seconds: float           # the final evaluation's estimated time

    def describe(self) -> str:
        """One line for the person who started the run."""
        def at(t: float) -> str:
            s = max(0, round(t - self.started))
            return f"{s // 60}:{s % 60:02d}"

        deals = " + ".join(f"{n} vs {b}" for b, n in self.final_deals.items())
        cut = "" if self.final_deals == self.asked_deals else " (cut to fit half the budget)"
        final = f"final evaluation from {at(self.ppo_end)} ({deals} deals{cut})" if deals else "no final evaluation"
        return (f"budget {at(self.end)}: warm start until {at(self.warm_end)}, PPO until {at(self.ppo_end)}, "
                f"{final}")


def make_plan(started: float, minutes: float, now: float, cost: EvalCost | None, deals: Mapping[str, int],
              warm_share: float, collect_share: float) -> Plan:
    """The plan of a run started at ``started`` with ``minutes``, made at ``now`` (after timing the evaluation)."""
    if minutes <= 0:
        raise ValueError(f"--minutes must be positive, got {minutes:g}")
    if not 0 <= warm_share <= 1:
        raise ValueError(f"imitation_share must be 0..1, got {warm_share:g}")
    if not 0 <= collect_share <= 1:
        raise ValueError(f"imitation_collect_share must be 0..1, got {collect_share:g}")
    end = started + 60 * minutes
    left = max(0.0, end - now)
    final = {b: n for b, n in deals.items() if n > 0}
    seconds = sum(cost.estimate(n) for n in final.values()) if cost else 0.0
    if cost and seconds > FINAL_MAX_SHARE * left:        # cut every baseline's deals alike to fit
        each = FINAL_MAX_SHARE * left / len(final)
        final = {b: min(n, cost.deals_within(each)) for b, n in final.items()}
        seconds = sum(cost.estimate(n) for n in final.values())
    train_left = max(0.0, left - seconds)
    warm = warm_share * train_left
    return Plan(started=started, end=end, collect_end=now + collect_share * warm, warm_end=now + warm,
                ppo_end=now + train_left, final_deals=final, asked_deals={b: n for b, n in deals.items() if n > 0},
                final_seconds=seconds)
