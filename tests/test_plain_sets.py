"""The rank-level mask's fast path (``legal.plain_sets``) against the general one (``legal.rank_intervals``).

Rules with none of the options that widen section 4's plays (no wild or high cards, no trumps, no transparent
rank, no runs, no extra plays of section 5, the size rule ``equal``) take the fast path. Here every state of
random games of such rules gets its legal mask worked out again with the flag off, by the general path, and
the two must agree: both are the rule book's legal plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from president_env.core import init, preset, step_inplace
from president_env.core.kernel import fields as F
from president_env.core.kernel.consts import consts
from president_env.core.kernel.step import LEGAL
from president_env.core.rules import PRESETS, Rules

PLAIN = [n for n in PRESETS if consts(preset(n)).opt[F.O_PLAIN_SETS]]
VARIANTS = [
    preset("president", equal_rank_beats=True),
    preset("president", compulsory_beat=True, equal_rank_beats=True),
    preset("president", four_of_a_kind="revolution", players=5),
    preset("president", revolution_by_singles=True, equal_rank_beats=True, four_of_a_kind="revolution",
           pass_rule="locks_out", first_lead="dealer_left"),
    preset("double_deck", equal_rank_beats=True, players=6),
]


def test_which_rules_take_the_fast_path() -> None:
    assert "president" in PLAIN and "pagat_basic" in PLAIN
    for name in ("daifugo", "suit_ranking", "daifugo_runs", "rich_man_poor_man", "bombs", "asshole"):
        assert not consts(preset(name)).opt[F.O_PLAIN_SETS], name   # wild, trumps, extras, card-level, poker
    assert not consts(preset("president", size_rule="at_least")).opt[F.O_PLAIN_SETS]
    assert not consts(preset("president", four_of_a_kind="bomb")).opt[F.O_PLAIN_SETS]
    assert not consts(preset("president", transparent_rank="3")).opt[F.O_PLAIN_SETS]


def _general_mask(rules: Rules, st) -> np.ndarray:
    """The legal rows of ``st`` worked out by the general path (the same rules, the flag off)."""
    c = consts(rules)
    opt = c.opt.copy()
    opt[F.O_PLAIN_SETS] = 0
    work = st.copy()
    work.legal[:] = 0
    LEGAL[c.family](work.b8, work.b16, work.b32, work.key_buf, opt, c.tab, c.workspace())
    return work.legal.copy()


@pytest.mark.parametrize("rules", [preset(n) for n in PLAIN] + VARIANTS, ids=lambda r: r.name)
def test_fast_path_gives_the_general_paths_mask(rules: Rules) -> None:
    assert consts(rules).opt[F.O_PLAIN_SETS]
    st = init(rules, 48, seed=7)
    rng = np.random.default_rng(7)
    leads = plays = 0
    for _ in range(150):
        np.testing.assert_array_equal(st.legal, _general_mask(rules, st))
        leads += int((st.legal[:, 0] == 0).sum())
        plays += int(st.legal[:, 1:].any(axis=1).sum())
        step_inplace(rules, st, (rng.random(st.legal.shape) * st.legal).argmax(axis=1))
    assert leads > 100 and plays > 1000      # both branches of the fast path were compared
