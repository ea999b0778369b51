"""Training settings per preset: one table, not copied scripts.

``settings_for(preset)`` returns the defaults below updated with the preset's row.
Every field is a keyword of :class:`TrainSettings`.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from president_env.aec_env import EPISODES, REWARD_SCHEMES
from training.settings_check import Setting, check_overrides


@dataclass(frozen=True)
class TrainSettings:
    """MaskablePPO and self-play settings for one variant."""

    n_envs: int = 256                 # games in the batched VecEnv
    n_steps: int = 64                 # learner decisions per game per rollout
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 1e-4       # small: PPO refines the warm-started policy
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    net_arch: tuple[int, ...] = (256, 256)
    episode: str = "hand"             # train on single hands ...
    start_ranks: str = "random"       # ... that start from random ranks, so every hand has an exchange
    reward: str = "points"            # the rule book's points: what the tournament measures
    # Opponent pool, sampled per game: weights of the scripted baselines and of
    # earlier snapshots of the learner (self-play).
    # Learner seats per game (training.seat_rollout): k > 1 puts the learner's current policy in k
    # seats of every game, each a trajectory of its own, and the pool in the rest; k <= 0 means
    # players + k (-1: all seats but one); 1 is SB3's own loop over the VecEnv (one seat per game).
    learner_seats: int = -1
    pool: dict[str, float] = field(default_factory=lambda: {"heuristic": 0.6, "greedy": 0.1, "random": 0.05,
                                                             "snapshot": 0.25})
    # Warm start (training.imitation): fit the policy to a teacher's self-play first (0 = off).
    imitation_decisions: int = 600_000
    imitation_epochs: int = 8
    imitation_teacher: str = "heuristic"
    imitation_batch: int = 512        # minibatch of the fit: in a short budget more, smaller steps imitate better
    imitation_share: float = 0.5      # with --minutes: the warm start's share of the time before the final evaluation
    imitation_collect_share: float = 0.3  # of the warm start's time: the teacher's games at most (the fit the rest)
    imitation_games: int = 512        # games the teacher plays at once: a slow teacher needs few, so hands end in time
    snapshot_every: int = 500_000     # learner steps between snapshots added to the pool
    max_snapshots: int = 5
    eval_every: int = 1_000_000       # learner steps between evaluations against the baselines
    eval_deals: int = 200             # duplicate deals per evaluation
    # Asymmetric actor-critic (training.privileged): the critic sees the other seats' hands too, the actor (and
    # the agent file) only the observation. Off: today's recipe, unchanged.
    privileged_critic: bool = False
    # Expert iteration (``--method expert-iteration``, training.expert_iteration): each iteration the search,
    # with the network as its prior and rollout policy, plays every seat of exit_games games at a time until
    # exit_decisions decisions are recorded; the network is then fitted to its moves for exit_epochs epochs.
    exit_iterations: int = 10
    exit_decisions: int = 20_000
    exit_games: int = 32
    # SearchAgent settings (agents/search.py) but policy, prior and fallback: z=2, not the agent's 1, so that a
    # move other than the network's is a target only when the worlds clearly favour it (fewer noisy targets)
    exit_search: str = "worlds=16,actions=3,z=2"
    exit_epochs: int = 4
    exit_learning_rate: float = 3e-4
    exit_batch: int = 512


DEFAULTS = TrainSettings()

BIG = 10**12  # an upper bound for counts of steps
#: What each setting takes (``--set NAME=VALUE`` is checked against it).
SPECS: dict[str, Setting] = {
    "n_envs": Setting("int", 1, 4096),
    "n_steps": Setting("int", 1, 100_000),
    "batch_size": Setting("int", 1, 1_000_000),
    "n_epochs": Setting("int", 1, 1000),
    "learning_rate": Setting("float", 1e-12, 1.0),
    "gamma": Setting("float", 0.0, 1.0),
    "gae_lambda": Setting("float", 0.0, 1.0),
    "clip_range": Setting("float", 1e-6, 10.0),
    "ent_coef": Setting("float", 0.0, 10.0),
    "vf_coef": Setting("float", 0.0, 10.0),
    "net_arch": Setting("ints", 1, 4096),
    "episode": Setting("str", choices=EPISODES),
    "start_ranks": Setting("str", choices=("random", None)),
    "reward": Setting("str", choices=REWARD_SCHEMES),
    "learner_seats": Setting("int", -11, 12),
    "pool": Setting("weights", 0.0, 1e6),
    "imitation_decisions": Setting("int", 0, 100_000_000),
    "imitation_epochs": Setting("int", 0, 1000),
    "imitation_teacher": Setting("str"),
    "imitation_batch": Setting("int", 1, 1_000_000),
    "imitation_share": Setting("float", 0.0, 1.0),
    "imitation_collect_share": Setting("float", 0.0, 1.0),
    "imitation_games": Setting("int", 1, 100_000),
    "snapshot_every": Setting("int", 1, BIG),
    "max_snapshots": Setting("int", 1, 1000),
    "eval_every": Setting("int", 1, BIG),
    "eval_deals": Setting("int", 1, 1_000_000),
    "privileged_critic": Setting("bool"),
    "exit_iterations": Setting("int", 0, 100_000),
    "exit_decisions": Setting("int", 1, 100_000_000),
    "exit_games": Setting("int", 1, 4096),
    "exit_search": Setting("str"),
    "exit_epochs": Setting("int", 1, 1000),
    "exit_learning_rate": Setting("float", 1e-12, 1.0),
    "exit_batch": Setting("int", 1, 1_000_000),
}

# Per-preset differences from the defaults.
# Rows marked "zoo" are what made that preset's newest zoo agent (docs/zoo.md): few choices (single_round,
# and asshole and compulsory in their first generation) learn more against a heuristic-heavy pool than
# against themselves; daifugo_runs' file fits the zoo's 1 MB with a smaller network. "zoo 2": a second
# generation (issue 28) whose warm start imitates the search agent's self-play (SEARCH_TEACHER) instead of
# the heuristic's, or (daifugo_runs) the heuristic's for a quarter of the hour, then PPO with the learner
# alone among heuristics (SOLO); "zoo 3": a third, the same with imitation_share 0.9.
SEARCH_TEACHER = {"imitation_teacher": "search:worlds=32,actions=8", "imitation_decisions": 2_000_000}
THIN = {"learner_seats": 2, "pool": {"heuristic": 0.85, "greedy": 0.05, "snapshot": 0.1}}
THIN_SEARCH = {**THIN, **SEARCH_TEACHER, "imitation_share": 0.9}    # most of the time to the search's games
SOLO = {"learner_seats": 1, "pool": {"heuristic": 1.0}, "learning_rate": 3e-4, "ent_coef": 0.003}  # among heuristics
SOLO_SEARCH = {**SOLO, **SEARCH_TEACHER, "imitation_share": 0.9}
# Named recipes, for `president train --recipe NAME` (its --set values win over them): the rows above are built
# from them. `solo` is the quickstart's: the learner alone among three heuristics.
RECIPES: dict[str, dict[str, Any]] = {"solo": SOLO, "thin": THIN, "solo_search": SOLO_SEARCH,
                                      "thin_search": THIN_SEARCH}


def recipe_settings(name: str) -> dict[str, Any]:
    """The settings of recipe ``name`` (a copy); ``ValueError`` naming the recipes for an unknown one."""
    if name not in RECIPES:
        raise ValueError(f"unknown recipe {name!r}; recipes are: {', '.join(RECIPES)}")
    return copy.deepcopy(RECIPES[name])


PER_PRESET: dict[str, dict[str, Any]] = {
    "double_deck": {"n_envs": 128, "batch_size": 2048},
    "huberes": {"n_envs": 192},
    "single_round": THIN,                                                                               # zoo
    "asshole": THIN_SEARCH,                                                                             # zoo 2
    "compulsory": SOLO_SEARCH,                                                                          # zoo 3
    "pagat_basic": SOLO_SEARCH,                                                                         # zoo 2
    "daifugo_runs": {**SOLO, "net_arch": (128, 128), "imitation_share": 0.25},                          # zoo 2
    "butthead": THIN_SEARCH,                                                                            # zoo 2
    "bombs": THIN_SEARCH,                                                                               # zoo 2
    "deck_and_a_half": SOLO,                                                                            # zoo
    # uecda's second generation went on from the first's model (--resume runs/zoo/uecda_e/model.zip, not a
    # setting) with the first generation in the pool: "zoo:uecda" meant zoo:uecda@1 then (docs/zoo.md, attempt 9)
    "uecda": {**SOLO, "net_arch": (128, 128), "imitation_share": 0.125, "learner_seats": 3,               # zoo 2
              "pool": {"heuristic": 0.75, "zoo:uecda": 0.1, "greedy": 0.05, "snapshot": 0.1}},
}


def learner_seats(s: TrainSettings, players: int) -> int:
    """The number of seats the learner holds in each game of ``players``."""
    k = s.learner_seats if s.learner_seats > 0 else players + s.learner_seats
    if not 1 <= k <= players:
        raise ValueError(f"learner_seats={s.learner_seats} gives {k} seats of {players} players; "
                         f"give 1..{players}, or 0..{1 - players} to count from the number of players")
    return k


def settings_for(preset: str, **overrides: Any) -> TrainSettings:
    """The settings of ``preset`` (its row of :data:`PER_PRESET` over the defaults), with ``overrides``
    (checked against :data:`SPECS`: a wrong type or range raises ``ValueError`` naming the setting)."""
    changes = copy.deepcopy(PER_PRESET.get(preset, {}))     # rows share THIN's pool: never hand it out
    changes.update(overrides)
    return dataclasses.replace(DEFAULTS, **check_overrides("training", SPECS, changes))
