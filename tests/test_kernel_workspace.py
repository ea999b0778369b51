"""The kernels' workspace: every scratch view lies inside the array the caller allocates.

The rules functions write their scratch arrays without bounds checks (``kernel/views.py``); a view added
to ``scratch_views`` but not counted in ``scratch_size`` would write past the workspace.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from president_env.core import preset
from president_env.core.kernel.consts import consts
from president_env.core.kernel.views import scratch_views


@pytest.mark.parametrize("name", ["president", "double_deck", "daifugo_runs", "suit_ranking", "rich_man_poor_man"])
def test_every_scratch_view_lies_inside_the_workspace(name: str) -> None:
    c = consts(preset(name))
    base = c.workspace()
    assert base.shape == (c.scratch_words,)
    lo, hi = base.ctypes.data, base.ctypes.data + base.nbytes
    views = scratch_views(base, c.opt)
    for i, v in enumerate(views):
        assert v.size > 0 or i >= 11, f"view {i} of {name} is empty"
        assert lo <= v.ctypes.data and v.ctypes.data + v.nbytes <= hi, f"view {i} of {name} leaves the workspace"
    ends = sorted((v.ctypes.data, v.ctypes.data + v.nbytes) for v in views if v.size)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(ends)), "scratch views overlap"
    assert ends[-1][1] == hi, "the workspace counts words no view uses"
    np.asarray(base)  # the views hold no reference: base is kept alive to here
