"""The time budget of ``president train --minutes M``: one deadline for the whole run, shared by its phases.

A run is the warm start (the teacher's self-play collected, then fitted), PPO, and the final
evaluation against the baselines; ``--minutes`` bounds all of it. The final evaluation's
time is reserved first: a short timed match against the first baseline at two sizes gives a
fixed cost and a cost per deal (:class:`EvalCost`; the line through two small matches
overestimates the larger ones, so the reserve errs long), and the deals that would take more
than half the budget are cut. Of the time left, the warm start gets ``warm_share``: its
self-play at most ``COLLECT_SHARE`` of that, its fit until the warm start's end (both stop
on time); PPO runs until the reserve, and the final evaluation plays last.

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

COLLECT_SHARE = 0.3          # of the warm start: the teacher's self-play, at most
FINAL_MAX_SHARE = 0.5        # of the budget: the final evaluation, at most (its deals are cut to fit)
TIMING_DEALS = (8, 32)       # the two sizes of the timed match


@dataclass(frozen=True)
class EvalCost:
    """Seconds a final evaluation of ``deals`` duplicate deals against one baseline takes on this machine."""

    fixed: float
    per_deal: float

    def seconds(self, deals: int) -> float:
        return self.fixed + self.per_deal * deals if deals > 0 else 0.0

    def deals_within(self, seconds: float) -> int:
        """The most deals that take at most ``seconds`` (at least 1)."""
        return max(1, int((seconds - self.fixed) / self.per_deal)) if self.per_deal > 0 else 1


def measure_eval_cost(rules: Rules, learner: Any, baseline: str, most_deals: int, seed: int = 0,
                      progress: bool = False) -> EvalCost:
    """Time short matches of ``learner`` against ``baseline`` (:data:`TIMING_DEALS`, no more than ``most_deals``,
    the largest evaluation to come): the line through the two, or through the origin and the one."""
    sizes = sorted({min(n, max(1, most_deals)) for n in TIMING_DEALS})
    seconds = []
    for deals in sizes:
        t0 = time.time()
        matchup(rules, learner, baseline, deals, seed=seed, progress=progress,
                desc=f"timing the final evaluation ({deals} deals)")
        seconds.append(time.time() - t0)
    if len(sizes) == 1:
        return EvalCost(fixed=0.0, per_deal=seconds[0] / sizes[0])
    (n1, n2), (t1, t2) = sizes, seconds
    per_deal = max((t2 - t1) / (n2 - n1), t2 / n2 / 4)   # never flat: noise can make t2 <= t1
    return EvalCost(fixed=max(0.0, t2 - per_deal * n2), per_deal=per_deal)


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
              warm_share: float) -> Plan:
    """The plan of a run started at ``started`` with ``minutes``, made at ``now`` (after timing the evaluation)."""
    if minutes <= 0:
        raise ValueError(f"--minutes must be positive, got {minutes:g}")
    if not 0 <= warm_share <= 1:
        raise ValueError(f"imitation_share must be 0..1, got {warm_share:g}")
    end = started + 60 * minutes
    left = max(0.0, end - now)
    final = {b: n for b, n in deals.items() if n > 0}
    seconds = sum(cost.seconds(n) for n in final.values()) if cost else 0.0
    if cost and seconds > FINAL_MAX_SHARE * left:        # cut every baseline's deals alike to fit
        each = FINAL_MAX_SHARE * left / len(final)
        final = {b: min(n, cost.deals_within(each)) for b, n in final.items()}
        seconds = sum(cost.seconds(n) for n in final.values())
    train_left = max(0.0, left - seconds)
    warm = warm_share * train_left
    return Plan(started=started, end=end, collect_end=now + COLLECT_SHARE * warm, warm_end=now + warm,
                ppo_end=now + train_left, final_deals=final, asked_deals={b: n for b, n in deals.items() if n > 0},
                final_seconds=seconds)
