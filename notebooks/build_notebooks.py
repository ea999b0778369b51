"""Write the notebooks of this folder from the cell sources below, and run them so they are stored with their outputs.

    python notebooks/build_notebooks.py --execute          # write and run all four (10 to 20 minutes, 2 cores)
    python notebooks/build_notebooks.py --execute 03_train_and_evaluate.ipynb   # one of them
    python notebooks/build_notebooks.py                    # write them without outputs (to read the sources)

Edit the cells here, run this with ``--execute``, and commit the .ipynb files it writes:
they are stored with their outputs, figures included, so a reader sees the results
without running anything (tests/test_notebooks.py checks that they are, that their
sources are the cells below, and that each stays under 1 MB). Every notebook reads
``PRESIDENT_NB_SMALL=1`` from the environment to run with tiny sizes: the tests run
them that way, in a temporary folder, and never write here.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

BUDGET = '''import os

SMALL = os.environ.get("PRESIDENT_NB_SMALL", "") not in ("", "0")  # tiny sizes for CI
print("budget:", "small (PRESIDENT_NB_SMALL)" if SMALL else "default")'''

# --------------------------------------------------------------------------- 01
NB01 = [
    new_markdown_cell("""# 01 Rules and variants

Every preset of the rule book played with **uniformly random legal actions** on the
batched core, many sessions at once. For each variant we measure:

* **hand length**: decisions per hand (plays, passes and the exchange's give-backs);
* **lead changes** per hand: how often a trick is led by a different player than
  the one who led the trick before;
* **first-player advantage**: points of the player who led first in the hand, minus
  the mean points of that hand's players (first hands of a session only: in later
  hands the President leads, which is the next figure);
* **President advantage**: points in the next hand by last hand's rank (the former
  President and the former Scum), minus the hand's mean, which shows what the
  exchange is worth.

Random play is a baseline of the *rules*, not of good play: it shows how long a
variant's hands are and how much the rules themselves favour a seat or a rank.

Set `PRESIDENT_NB_SMALL=1` for a quick run with tiny sizes (what CI does)."""),
    new_code_cell(BUDGET + '''

import time

import matplotlib.pyplot as plt
import numpy as np

from president_env.core import OVER, PLAY, PRESETS, current_player, init, make_keys, preset, step_inplace
from president_env.core.rules import PRESET_TABLE

GAMES = 16 if SMALL else 1000   # sessions per preset, stepped as one batch
HANDS = 2 if SMALL else 8       # hands per session
SEED = 0'''),
    new_markdown_cell("## The presets\n\nName, the source seeds, and the options that differ from the defaults "
                      "(`president variants` prints the same table)."),
    new_code_cell('''def option_text(v):
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(v)) + "}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)

for name, (source, options) in PRESET_TABLE.items():
    diff = ", ".join(f"{k}={option_text(v)}" for k, v in options.items()) or "(the defaults)"
    print(f"{name:15s} {preset(name).players:2d} players  {source:28s} {diff}")'''),
    new_markdown_cell("""## Simulation

`simulate` steps `GAMES` sessions of `HANDS` hands each in one batch and returns one
row per finished hand. A decision is a *lead* when the game is in the play phase
and nothing is on top (`top_owner < 0`); the player to act then leads the trick."""),
    new_code_cell('''def simulate(rules, games, hands, seed=0):
    """Random legal play; per finished hand: its number, decisions, lead changes, first leader, points, last ranks."""
    r = rules.replace(hands_per_session=hands)
    B, P = games, r.players
    st = init(r, keys=make_keys(B, seed))
    rng = np.random.default_rng(seed)
    decisions = np.zeros(B, np.int64)
    changes = np.zeros(B, np.int64)
    last_leader = np.full(B, -1)
    first_leader = np.full(B, -1)
    prev_finish = np.full((B, P), -1)           # by player: positions in the session's previous hand
    out = {k: [] for k in ("hand", "decisions", "lead_changes", "first_leader", "points", "prev_finish")}
    while not (st.phase == OVER).all():
        live = st.phase != OVER
        cur = current_player(st)
        lead = (st.phase == PLAY) & (st.top_owner < 0)
        changes += lead & (last_leader >= 0) & (cur != last_leader)
        first = lead & (first_leader < 0)
        first_leader[first] = cur[first]
        last_leader[lead] = cur[lead]
        decisions += live
        u = rng.random(st.legal.shape)
        step_inplace(r, st, np.where(st.legal, u, -1.0).argmax(axis=1))
        ho = np.flatnonzero(st.hand_over)
        if ho.size:
            out["hand"].append(st.hand_no[ho] - 1)
            out["decisions"].append(decisions[ho].copy())
            out["lead_changes"].append(changes[ho].copy())
            out["first_leader"].append(first_leader[ho].copy())
            out["points"].append(st.hand_points[ho].copy())
            out["prev_finish"].append(prev_finish[ho].copy())
            prev_finish[ho] = st.last_finish[ho]
            decisions[ho] = 0
            changes[ho] = 0
            last_leader[ho] = -1
            first_leader[ho] = -1
    return {k: np.concatenate(v) for k, v in out.items()}


def mean_ci(x):
    """Mean and the half-width of its normal 95% interval."""
    x = np.asarray(x, dtype=float)
    if x.size < 2:
        return float(x.mean()), 0.0
    return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(x.size))'''),
    new_code_cell('''t0 = time.perf_counter()
results = {}
for name in PRESETS:
    results[name] = simulate(preset(name), GAMES, HANDS, seed=SEED)
print(f"{len(PRESETS)} presets x {GAMES} sessions x {HANDS} hands in {time.perf_counter() - t0:.1f} s")

summary = {}
for name, h in results.items():
    P = h["points"].shape[1]
    rows = np.arange(len(h["hand"]))
    rel = h["points"] - h["points"].mean(axis=1, keepdims=True)     # points relative to the hand's mean
    first_hand = h["hand"] == 0
    later = h["hand"] > 0
    summary[name] = {
        "players": P,
        "hands": len(rows),
        "decisions": mean_ci(h["decisions"]),
        "lead_changes": mean_ci(h["lead_changes"]),
        "first_player": mean_ci(rel[rows, h["first_leader"]][first_hand]),
        "president": mean_ci(rel[later][h["prev_finish"][later] == 0]),
        "scum": mean_ci(rel[later][h["prev_finish"][later] == P - 1]),
    }

print(f"{'preset':15s} {'P':>2s} {'hands':>6s} {'decisions':>10s} {'lead chg':>9s} {'1st player':>11s} "
      f"{'ex-President':>13s} {'ex-Scum':>8s}")
for name, s in summary.items():
    print(f"{name:15s} {s['players']:2d} {s['hands']:6d} {s['decisions'][0]:10.1f} {s['lead_changes'][0]:9.1f} "
          f"{s['first_player'][0]:+11.2f} {s['president'][0]:+13.2f} {s['scum'][0]:+8.2f}")'''),
    new_code_cell('''# Sanity checks: every session played all its hands; each hand has a decision per player at least.
for name, h in results.items():
    assert summary[name]["hands"] == GAMES * HANDS, name
    assert (h["decisions"] >= summary[name]["players"]).all(), name
    assert (h["first_leader"] >= 0).all(), name'''),
    new_markdown_cell("## Hand length and lead changes"),
    new_code_cell('''names = list(results)
fig, axes = plt.subplots(1, 2, figsize=(14, 5))
axes[0].boxplot([results[n]["decisions"] for n in names], showfliers=False)
axes[0].set_title("decisions per hand (random legal play)")
axes[1].boxplot([results[n]["lead_changes"] for n in names], showfliers=False)
axes[1].set_title("lead changes per hand")
for ax in axes:
    ax.set_xticks(range(1, len(names) + 1), names, rotation=60, ha="right")
    ax.grid(axis="y", alpha=0.3)
fig.tight_layout()
plt.show()'''),
    new_markdown_cell("""`double_deck` (8 players, 104 cards) has by far the longest hands and the most
lead changes. Among the four-player presets the trick rules shape the rest: under
`single_round` (and `asshole`, which uses it) every other player gets one turn per
trick, so tricks are short and the lead changes most often; the size rules of
`asshole` and `ass_poker` let a set beat more plays, which shortens hands."""),
    new_markdown_cell("## First-player and President advantage"),
    new_code_cell('''x = np.arange(len(names))
fig, axes = plt.subplots(1, 2, figsize=(14, 5))
m, ci = zip(*(summary[n]["first_player"] for n in names))
axes[0].bar(x, m, yerr=ci, capsize=3, color="tab:blue")
axes[0].set_title("first hand: points of the first leader minus the hand's mean")
w = 0.4
m1, c1 = zip(*(summary[n]["president"] for n in names))
m2, c2 = zip(*(summary[n]["scum"] for n in names))
axes[1].bar(x - w / 2, m1, w, yerr=c1, capsize=3, label="last hand's President")
axes[1].bar(x + w / 2, m2, w, yerr=c2, capsize=3, label="last hand's Scum")
axes[1].set_title("next hand: points minus the hand's mean, by last hand's rank")
axes[1].legend()
for ax in axes:
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(x, names, rotation=60, ha="right")
    ax.grid(axis="y", alpha=0.3)
fig.tight_layout()
plt.show()'''),
    new_markdown_cell("""Error bars are 95% intervals over hands (hands of one session are not independent,
so read them as a guide). With the default budget, leading the first hand is worth
a little in nearly every variant (in `threes_high` and `hamish_allan` it is within
noise of nothing). The exchange moves points from the former Scum to the former
President even when nobody plays well: the Scum gives its best cards away and gets
the President's choice of cards back. It is worth most in `huberes`, where three
cards go up and the wild cards with them; a scoring of `[2, 1, 0, ...]`
(`pagat_basic`, `daifugo`) makes every gap smaller, since the bottom places lose
nothing. `hamish_allan` turns it round: under `president_must_win` the President
drops to last whenever another player goes out first, which random play makes
likely, so the former President loses and the former Scum gains."""),
]

# --------------------------------------------------------------------------- 02
NB02 = [
    new_markdown_cell("""# 02 Baseline tournament

A duplicate-deal tournament (`agents.arena.run_tournament`) between the scripted
baselines: `heuristic`, `greedy` and two `random` players. Every deal is played
once for every rotation of the entrants over the seats, so each entrant gets every
seat with the same cards; the deal is the independent unit for the 95% intervals.

Set `PRESIDENT_NB_SMALL=1` for a quick run with tiny sizes (what CI does)."""),
    new_code_cell(BUDGET + '''

import matplotlib.pyplot as plt
import numpy as np

from agents.arena import run_tournament
from president_env.core import preset

PRESETS_RUN = ["president", "daifugo"]
ENTRANTS = ["heuristic", "greedy", "random", "random"]
DEALS = 4 if SMALL else 1000          # duplicate deals per preset
HANDS = 2 if SMALL else None          # None: whole sessions, to the preset's target points
SEED = 0'''),
    new_code_cell('''results = {}
for name in PRESETS_RUN:
    rules = preset(name, players=len(ENTRANTS))
    results[name] = run_tournament(rules, ENTRANTS, deals=DEALS, seed=SEED, hands_per_session=HANDS)
    r = results[name]
    print(f"{name}: {r.deals} deals x {len(ENTRANTS)} rotations = {r.sessions} sessions, {r.hands} hands, "
          f"{r.decisions} decisions in {r.seconds:.1f} s")'''),
    new_markdown_cell("## The table"),
    new_code_cell('''def label(e):
    return f"{e.index}:{e.agent}"

for name, r in results.items():
    print(f"\\n{name} ({r.rules.players} players, {r.deals} deals)")
    print(f"{'entrant':14s} {'points/hand':>12s} {'95% interval':>18s} {'President':>10s} {'Scum':>6s} "
          f"{'mean place':>11s} {'rating':>7s}")
    for e in sorted(r.entrants, key=lambda e: -e.points_per_hand):
        lo, hi = e.points_ci95
        rating = f"{e.rating_ordinal:7.2f}" if e.rating_ordinal is not None else "      -"
        print(f"{label(e):14s} {e.points_per_hand:+12.3f} {f'[{lo:+.3f}, {hi:+.3f}]':>18s} "
              f"{e.president_rate:10.1%} {e.scum_rate:6.1%} {e.mean_position:11.2f} {rating}")'''),
    new_code_cell('''# Sanity checks: every entrant started every seat equally often (cyclic rotations), and the
# per-deal figures are what the table averages.
for name, r in results.items():
    assert (r.seat_counts == r.deals).all(), name
    assert r.per_deal_points.shape == (r.deals, len(ENTRANTS)), name
    for e in r.entrants:
        assert np.isclose(r.per_deal_points[:, e.index].mean(), e.points_per_hand), name'''),
    new_markdown_cell("## Points per hand with 95% intervals"),
    new_code_cell('''fig, ax = plt.subplots(figsize=(9, 4.5))
width = 0.8 / len(results)
for j, (name, r) in enumerate(results.items()):
    x = np.arange(len(ENTRANTS)) + (j - (len(results) - 1) / 2) * width
    m = np.array([e.points_per_hand for e in r.entrants])
    lo = np.array([e.points_ci95[0] for e in r.entrants])
    hi = np.array([e.points_ci95[1] for e in r.entrants])
    ax.bar(x, m, width, yerr=[m - lo, hi - m], capsize=4, label=name)
ax.set_xticks(np.arange(len(ENTRANTS)), [f"{i}:{a}" for i, a in enumerate(ENTRANTS)])
ax.axhline(0, color="black", lw=0.8)
ax.set_ylabel("points per hand")
ax.set_title("baselines in a duplicate tournament")
ax.legend()
ax.grid(axis="y", alpha=0.3)
plt.show()'''),
    new_markdown_cell("""Points depend on the preset's scoring (`daifugo` scores `[2, 1, 0, 0]`, so even
the last place loses nothing): compare entrants within a preset, not across. The
two `random` entrants are separate entrants with the same policy; their intervals
should overlap, which is a quick check of the seating's fairness."""),
    new_markdown_cell("## Head to head\n\nThe share of hands in which the row entrant finished ahead of the column "
                      "entrant."),
    new_code_cell('''fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.5), squeeze=False)
for ax, (name, r) in zip(axes[0], results.items()):
    im = ax.imshow(r.head_to_head, vmin=0, vmax=1, cmap="RdBu")
    labels = [f"{i}:{a}" for i, a in enumerate(r.names)]
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if i != j:
                ax.text(j, i, f"{r.head_to_head[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title(name)
fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8)
plt.show()'''),
]

# --------------------------------------------------------------------------- 03
NB03 = [
    new_markdown_cell("""# 03 Train and evaluate

A small MaskablePPO run on the batched VecEnv (`training.train`, the code behind
`president train`), its learning curve, and the trained model in a duplicate
tournament against the scripted baselines.

The default budget (200,000 learner steps) is a short run that shows the workflow
in a few minutes (the stored run trained for 6.6 minutes on a two-core CPU that
other jobs kept more than twice as busy as it has cores); `president train` with a
larger budget (see the README) is how the zoo's agents are trained.

Set `PRESIDENT_NB_SMALL=1` for a quick run with tiny sizes (what CI does)."""),
    new_code_cell(BUDGET + '''

import csv
import tempfile
from collections import defaultdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from agents.arena import run_tournament
from president_env.core import preset
from training.train import TrainArgs, train

PRESET = "president"
PLAYERS = 4
SEED = 0
if SMALL:
    TIMESTEPS, EVAL_EVERY, EVAL_DEALS, FINAL_DEALS = 2_048, 1_024, 4, 4
    SETTINGS = {"n_envs": 16, "n_steps": 32, "batch_size": 256,    # a tiny rollout for a smoke run
                "imitation_decisions": 2_000, "imitation_epochs": 1}
else:
    TIMESTEPS, EVAL_EVERY, EVAL_DEALS, FINAL_DEALS = 200_000, 50_000, 50, 200
    SETTINGS = {"imitation_decisions": 100_000}   # else the preset's row of training/hyperparams.py
OUT = Path(tempfile.mkdtemp(prefix="president_nb03_"))
print("writing to", OUT)'''),
    new_markdown_cell("""## Training

`TrainArgs` holds the arguments of `president train`; `settings` overrides the
preset's row of `training/hyperparams.py`. The policy is first warm-started by
imitating the `heuristic` player's self-play (`imitation_decisions` decisions;
fewer here than `president train` uses), then trained by MaskablePPO, holding
every seat of each game but one (`learner_seats`), against a pool of scripted
baselines and snapshots of itself in the last seat, and evaluated against
`heuristic` and `greedy` every `eval_every` steps (the learning curve, `eval.csv`)."""),
    new_code_cell('''args = TrainArgs(
    preset=PRESET, players=PLAYERS, timesteps=TIMESTEPS, out=str(OUT), seed=SEED,
    eval_deals=EVAL_DEALS, final_deals=FINAL_DEALS, checkpoint_every=TIMESTEPS, progress=False,
    settings={**SETTINGS, "eval_every": EVAL_EVERY, "snapshot_every": EVAL_EVERY},
)
result = train(args)
print(f"{result.timesteps:,} learner steps in {result.seconds:.0f} s")
print("model:", result.model_path)
print("learning curve:", result.curve_path)'''),
    new_markdown_cell("""## Learning curve

Each evaluation plays the learner against three copies of one baseline over
duplicate deals; the figure is the learner's points per hand minus the
baselines', with its 95% interval over deals. Above zero, the learner is ahead."""),
    new_code_cell('''with open(result.curve_path, newline="") as f:
    curve = list(csv.DictReader(f))
print(f"{len(curve)} evaluations")
by_opponent = defaultdict(list)
for row in curve:
    by_opponent[row["opponent"]].append(row)

fig, ax = plt.subplots(figsize=(8, 4))
for opponent, rows in by_opponent.items():
    x = np.array([int(r["timesteps"]) for r in rows])
    y = np.array([float(r["diff"]) for r in rows])
    lo = np.array([float(r["diff_low"]) for r in rows])
    hi = np.array([float(r["diff_high"]) for r in rows])
    ax.plot(x, y, marker="o", label=f"vs {opponent}")
    ax.fill_between(x, lo, hi, alpha=0.2)
ax.axhline(0, color="black", lw=0.8)
ax.set_xlabel("learner steps")
ax.set_ylabel("points per hand, learner - baselines")
ax.set_title(f"{PRESET}: learning curve")
ax.legend()
ax.grid(alpha=0.3)
plt.show()'''),
    new_markdown_cell("## Final evaluation\n\nThe saved model against three copies of each baseline "
                      "(`FINAL_DEALS` duplicate deals)."),
    new_code_cell('''head = ["opponents", "deals", "learner", "them", "difference [95% interval]", "beats"]
print(f"{head[0]:10s} {head[1]:>6s} {head[2]:>8s} {head[3]:>7s} {head[4]:>28s} {head[5]}")
for m in result.final:
    print(f"{m.opponent:10s} {m.deals:6d} {m.learner_points:+8.3f} {m.opponent_points:+7.3f} "
          f"{m.diff:+10.3f} [{m.diff_low:+.3f}, {m.diff_high:+.3f}] {'yes' if m.wins else 'no'}")'''),
    new_markdown_cell("""## The model as an agent

A trained agent is an agent like any other (`ppo:FILE`, with the agent file
`model.agent.safetensors` that `train` writes: weights and JSON, safe to share):
here one seat each for the model, `heuristic`, `greedy` and `random`. The same spec works for
`president play --opponents ppo:FILE` and the tournament commands."""),
    new_code_cell('''rules = preset(PRESET, players=PLAYERS)
entrants = [f"ppo:{result.agent_path}", "heuristic", "greedy", "random"]
res = run_tournament(rules, entrants, deals=FINAL_DEALS, seed=SEED + 3)
labels = ["ppo (trained)" if a.startswith("ppo:") else a for a in res.names]
print(f"{res.deals} deals, {res.sessions} sessions, {res.hands} hands")
for e, name in sorted(zip(res.entrants, labels), key=lambda t: -t[0].points_per_hand):
    lo, hi = e.points_ci95
    print(f"{name:14s} {e.points_per_hand:+.3f} [{lo:+.3f}, {hi:+.3f}]  President {e.president_rate:.1%}")

fig, ax = plt.subplots(figsize=(7, 4))
m = np.array([e.points_per_hand for e in res.entrants])
lo = np.array([e.points_ci95[0] for e in res.entrants])
hi = np.array([e.points_ci95[1] for e in res.entrants])
ax.bar(range(len(m)), m, yerr=[m - lo, hi - m], capsize=4)
ax.set_xticks(range(len(m)), labels)
ax.axhline(0, color="black", lw=0.8)
ax.set_ylabel("points per hand")
ax.set_title(f"{PRESET}: the trained model at a table of baselines")
plt.show()'''),
    new_markdown_cell("""## Strong opponents from the zoo

The package ships trained agents, one per preset, that beat three copies of the
heuristic (`docs/zoo.md`, `president zoo`): `zoo:NAME` is an agent spec like
`heuristic`. Here the model just trained sits with the zoo's `president` agent and
two heuristics."""),
    new_code_cell('''from agents.zoo import zoo_entries, zoo_specs

rows = zoo_entries()
for row, spec in zip(rows, zoo_specs(rows)):     # zoo:NAME is a preset's newest generation, zoo:NAME@K generation K
    h = row["vs_heuristic"]
    print(f"{spec:20s} vs heuristic {h['diff']:+.3f} [{h['low']:+.3f}, {h['high']:+.3f}]")

names = ["ppo (trained)", "zoo:president", "heuristic", "heuristic"]
res = run_tournament(rules, [f"ppo:{result.agent_path}", "zoo:president", "heuristic", "heuristic"],
                     deals=FINAL_DEALS, seed=SEED + 4)
for e, name in sorted(zip(res.entrants, names), key=lambda t: -t[0].points_per_hand):
    lo, hi = e.points_ci95
    print(f"{name:14s} {e.points_per_hand:+.3f} [{lo:+.3f}, {hi:+.3f}]")'''),
]

# --------------------------------------------------------------------------- 04
NB04 = [
    new_markdown_cell("""# 04 Exploitability on a small variant

NashConv is the sum over players of what each would gain by switching to a best response while
the others keep their policies: zero exactly at a Nash equilibrium, and a measure of a policy that
does not depend on which opponents one picked. `agents.nash_conv` computes it exactly, compiled, by
walking a hand's whole game tree, so we use a small variant (`president_env.small_variants`):
`tiny_revolution`, three players, four kings and four aces, equal ranks beat and four singles of a
rank in a row revolt. It is where the heuristic is exploitable (NashConv 1.907).

We follow NashConv against wall-clock time for

* **CFR+** (`agents.cfr`, compiled: every iteration walks the whole tree), its average policy;
* **MCCFR** (external sampling, compiled, on the same tree: an iteration is one sampled walk per
  player), its average policy;
* **PPO**, the project's `president train` with the zoo's recipe on the same variant, its
  checkpoints as deterministic agent files (the network's most likely legal action);
* the **heuristic**, **greedy** and **uniform random** baselines (fixed policies: one value each).

Set `PRESIDENT_NB_SMALL=1` for a quick run with tiny budgets (what the tests do)."""),
    new_code_cell(BUDGET + """

import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt

from agents.agent_file import FileAgent
from agents.cfr import solve
from agents.greedy import GreedyAgent
from agents.heuristic import HeuristicAgent
from agents.nash_conv import game_tree, nash_conv_of_agents, nash_conv_of_tree
from agents.random_agent import RandomAgent
from president_env.small_variants import SMALL_VARIANT_TABLE, small_variant

VARIANT = "tiny_revolution"
rules = small_variant(VARIANT)
print(VARIANT, "-", SMALL_VARIANT_TABLE[VARIANT][0])
SOLVER_SECONDS = 3 if SMALL else 60      # each solver's time (the tree's building and NashConv evaluations not counted)
PPO_MINUTES = 0.4 if SMALL else 4        # the whole training run, warm start and final evaluation included
EVALS = 3 if SMALL else 8                # PPO checkpoints evaluated"""),
    new_markdown_cell("""## The game tree and the fixed baselines

The tree is built once (every deal, every decision) and shared by the solvers and the baselines'
NashConv."""),
    new_code_cell("""t0 = time.perf_counter()
tree = game_tree(rules)
print(f"{tree.n_decisions:,} decisions, {tree.n_infosets:,} information states: built in "
      f"{time.perf_counter() - t0:.1f} s")
baseline = {}
for name, agent in (("heuristic", HeuristicAgent), ("greedy", GreedyAgent), ("random", RandomAgent)):
    res = nash_conv_of_tree(tree, [agent(rules) for _ in range(rules.players)])
    baseline[name] = res.nash_conv
    gains = [round(g, 3) for g in res.gains]
    print(f"{name:10s} NashConv {res.nash_conv:.3f}  gains {gains}  ({res.seconds:.1f} s)")"""),
    new_markdown_cell("""## CFR+ and MCCFR

Both keep regrets at the tree's information states (a player's sequence of observations) and
report the NashConv of their average policy, measured after 1, 2, 4, 8, ... iterations by the
exact best response (its time not counted). CFR+ converges to an equilibrium in two-player
zero-sum games; three players have no such guarantee, NashConv still says how far each is."""),
    new_code_cell("""curves = {}
for algorithm in ("cfr+", "mccfr"):
    res = solve(rules, seconds=SOLVER_SECONDS, tree=tree, algorithm=algorithm, seed=0)
    curves[algorithm] = [(p.seconds, p.nash_conv) for p in res.curve]
    last = res.curve[-1]
    first_below = next((p for p in res.curve if p.nash_conv < baseline["heuristic"] / 100), None)
    when = f"{first_below.seconds:.2f} s" if first_below else "not within the budget"
    print(f"{algorithm:6s} {last.iteration:>9,} iterations in {last.seconds:5.1f} s: NashConv {last.nash_conv:.5f};"
          f" below 1% of the heuristic's after {when}")"""),
    new_markdown_cell("""## PPO

The project's training (`training.train.train`, as `president train --preset tiny_revolution`: the
zoo's recipe, a warm start that imitates the heuristic, then PPO in self-play against a pool), with a
checkpoint (and its agent file) every few thousand learner decisions; the time of a checkpoint is
when its file was written, from the start of the run. Each checkpoint's NashConv is exact, over the
tree cut to its (deterministic) profile."""),
    new_code_cell("""from training.train import TrainArgs, train

out = Path(tempfile.mkdtemp(prefix="president_nb04_"))
t_start = time.time()
result = train(TrainArgs(preset=VARIANT, minutes=PPO_MINUTES, out=str(out), force=True, seed=0,
                         final_deals=50, checkpoint_every=2000 if SMALL else 20000, progress=False))
files = sorted(out.glob("checkpoints/*.agent.safetensors"), key=lambda f: f.stat().st_mtime)
files = files[:: max(1, len(files) // EVALS)][-EVALS:] + [Path(result.agent_path)]
ppo_curve = []
for f in files:
    seconds = f.stat().st_mtime - t_start
    res = nash_conv_of_agents(rules, [FileAgent(f, rules) for _ in range(rules.players)])
    ppo_curve.append((seconds, res.nash_conv))
    print(f"PPO {seconds:6.1f} s ({f.name}): NashConv {res.nash_conv:.3f}")"""),
    new_code_cell("""fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(*zip(*curves["cfr+"]), "o-", label="CFR+, average policy")
ax.plot(*zip(*curves["mccfr"]), "^-", label="MCCFR (external sampling), average policy")
ax.plot(*zip(*ppo_curve), "s-", label="PPO (president train), checkpoints")
ax.axhline(baseline["heuristic"], color="C3", ls="--", label="heuristic")
ax.axhline(baseline["greedy"], color="C4", ls="-.", label="greedy")
ax.axhline(baseline["random"], color="grey", ls=":", label="uniform random")
ax.axhline(baseline["heuristic"] / 100, color="C3", ls=":", lw=0.8, label="1% of the heuristic's")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("seconds of training (log; the solvers' after the tree is built, PPO's from its start)")
ax.set_ylabel("NashConv (points a hand)")
ax.set_title(f"Exploitability on {VARIANT} (one hand, 3 players)")
ax.legend(fontsize=8)
fig.tight_layout()
if not SMALL:
    fig.savefig(Path("..") / "docs" / "img" / "exploitability.png", dpi=110)
plt.show()"""),
]

NOTEBOOKS = {
    "01_rules_and_variants.ipynb": NB01,
    "02_baseline_tournament.ipynb": NB02,
    "03_train_and_evaluate.ipynb": NB03,
    "04_exploitability.ipynb": NB04,
}


def make(cells: list) -> nbformat.NotebookNode:
    """A notebook of ``cells`` with no outputs, for the python3 kernel (cell ids by position, so builds repeat)."""
    for i, cell in enumerate(cells):
        cell["id"] = f"cell-{i:02d}"
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 3600) -> nbformat.NotebookNode:
    """Run ``nb`` top to bottom in a python3 kernel started in ``cwd`` (figures inline); its outputs are kept."""
    import os

    from nbclient import NotebookClient

    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")  # the kernel inherits it
    NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def main(argv: list[str] | None = None) -> None:
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Write the notebooks (and run them, to store their outputs).")
    parser.add_argument("names", nargs="*", help=f"notebooks to write (default: all of {', '.join(NOTEBOOKS)})")
    parser.add_argument("--execute", action="store_true", help="run each one and store its outputs")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(NOTEBOOKS))
    if unknown:
        parser.error(f"unknown notebook(s) {unknown}; notebooks are {', '.join(NOTEBOOKS)}")
    for name in args.names or NOTEBOOKS:
        path = HERE / name
        nb = make(NOTEBOOKS[name])
        if args.execute:
            print("running", path, flush=True)
            t0 = time.time()
            execute(nb, HERE)
            print(f"  {time.time() - t0:.0f} s", flush=True)
        nbformat.write(nb, path)
        print("wrote", path, f"({path.stat().st_size // 1000} KB)")


if __name__ == "__main__":
    main()
