"""The kernels' workspace: every scratch view lies inside the array the caller allocates.

The rules functions write their scratch arrays without bounds checks (``kernel/views.py``); a view added
to ``scratch_views`` but not counted in ``scratch_size`` would write past the workspace. And the names the
rules functions read the kernels' tuples and state groups by (``kernel/fields.py``) agree with the lists
they stand for.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from president_env.core import PRESETS, State, preset, state
from president_env.core.kernel import fields as F
from president_env.core.kernel.consts import consts
from president_env.core.kernel.views import game_views, rules_views, scratch_views
from president_env.core.observation_layout import layout


@pytest.mark.parametrize("name", ["president", "double_deck", "daifugo_runs", "suit_ranking", "rich_man_poor_man"])
def test_every_scratch_view_lies_inside_the_workspace(name: str) -> None:
    c = consts(preset(name))
    base = c.workspace()
    assert base.shape == (c.scratch_words,)
    lo, hi = base.ctypes.data, base.ctypes.data + base.nbytes
    views = scratch_views(base, c.opt)
    for i, v in enumerate(views):
        assert v.size > 0 or i >= F.W_PICKED, f"view {i} of {name} is empty"
        assert lo <= v.ctypes.data and v.ctypes.data + v.nbytes <= hi, f"view {i} of {name} leaves the workspace"
    ends = sorted((v.ctypes.data, v.ctypes.data + v.nbytes) for v in views if v.size)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(ends)), "scratch views overlap"
    assert ends[-1][1] == hi, "the workspace counts words no view uses"
    np.asarray(base)  # the views hold no reference: base is kept alive to here


def test_every_slot_of_the_kernels_tuples_has_a_name() -> None:
    """The rules functions read the tuples G, T and W by the names of ``kernel/fields.py`` (``G[G_HANDS]``):
    a slot added to a tuple needs its name there, in the same place."""
    c = consts(preset("president"))
    st = State.empty(c.layout, 1)
    G = game_views(st.b8, st.b16, st.b32, st.key_buf, c.opt, 0)
    assert len(G) == len(F.GAME_VIEWS) == F.G_KEY + 1
    assert G[F.G_HANDS].shape == (c.layout.P, c.layout.C) and G[F.G_LEGAL].size == c.opt[F.O_A]
    T = rules_views(c.opt, c.tab)
    assert len(T) == 1 + len(F.TABLES) == F.T_SETLIST + 1
    assert np.array_equal(T[F.T_OPT], c.opt)
    for name in F.TABLES:
        assert np.array_equal(T[getattr(F, "T_" + name.upper())], c.table(name)), name
    base = c.workspace()
    W = scratch_views(base, c.opt)
    assert len(W) == len(F.SCRATCH_VIEWS) == F.W_NAMES + 1
    assert W[F.W_SEL].shape == (c.layout.C,)
    np.asarray(base)


def test_the_kernels_field_names_follow_the_states_field_lists() -> None:
    """kernel/fields.py takes its counts from core/state.py's field lists (S8_FIELDS ...); each name there must
    be its field's, in the same place (``TOP_RANK`` is ``"top_rank"``)."""
    for group in (state.S8_FIELDS, state.P8_FIELDS, state.PK8_FIELDS, state.K8_FIELDS, state.C8_FIELDS):
        for i, (name, _) in enumerate(group):
            assert getattr(F, name.upper()) == i, name
    for i, name in enumerate(state.I16_FIELDS):
        assert getattr(F, name.upper()) == i, name
    assert (F.NS8_, F.NP8_, F.NPK8_, F.NK8_, F.NC8_) == (state.NS8, state.NP8, state.NPK8, state.NK8, state.NC8)
    assert (F.EXCHANGE, F.PLAY, F.OVER) == (state.EXCHANGE, state.PLAY, state.OVER)
    for i, name in enumerate(F.OBS_PIECES):
        assert getattr(F, "OB_" + name.upper() + ("_OBS" if name == "top_cards" else "")) == i, name


def test_the_kernels_observation_pieces_are_the_layouts() -> None:
    """fields.OBS_PIECES names every piece observation_layout.layout can make, in its order."""
    for name in PRESETS:
        names = [piece[0] for piece in layout(preset(name))]
        assert set(names) <= set(F.OBS_PIECES), name
        assert names == sorted(names, key=F.OBS_PIECES.index), name
