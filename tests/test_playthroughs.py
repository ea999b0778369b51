"""Golden playthroughs (one seeded hand per preset, step by step) and the text rendering.

Each preset has ``tests/playthroughs/<preset>.txt``: seed 0, random legal actions
from ``numpy.random.default_rng(0)``, one hand from random ranks (so the exchange
is played), the preset's players. A change in the rules engine, the records or the
rendering that alters any game shows up here as a diff. Regenerate after an
intended change with::

    PRESIDENT_REGEN_PLAYTHROUGHS=1 pytest tests/test_playthroughs.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import numpy as np
import pytest

from president_env.core import PRESETS, card_names, init, preset, step_inplace
from president_env.core.records import random_actions
from president_env.core.render import play_one_hand, playthrough, rank_name, render

DIR = Path(__file__).parent / "playthroughs"
REGEN = os.environ.get("PRESIDENT_REGEN_PLAYTHROUGHS") == "1"


@pytest.mark.parametrize("name", PRESETS)
def test_playthrough_matches_golden_file(name):
    text = playthrough(preset(name), seed=0)
    path = DIR / f"{name}.txt"
    if REGEN:
        DIR.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing; regenerate with PRESIDENT_REGEN_PLAYTHROUGHS=1"
    golden = path.read_text(encoding="utf-8")
    if text != golden:
        diff = "".join(list(difflib.unified_diff(golden.splitlines(True), text.splitlines(True),
                                                 str(path), "regenerated"))[:60])
        pytest.fail(f"playthrough of {name} differs from {path} "
                    f"(intended? set PRESIDENT_REGEN_PLAYTHROUGHS=1):\n{diff}")


def test_every_preset_has_a_file_and_no_other_files_exist():
    assert sorted(p.stem for p in DIR.glob("*.txt")) == sorted(PRESETS)


def test_playthrough_is_one_hand_with_its_exchange():
    rec = play_one_hand(preset("president"), seed=0)
    text = playthrough(preset("president"), seed=0)
    assert rec["hand"] == 0 and rec["prev_ranks"] is not None
    assert text.count("\ndecision ") == len(rec["decisions"])
    assert text.count("(exchange):") == 3 and text.count("forced gift:") == 2
    assert playthrough(preset("president"), seed=1) != text


# --------------------------------------------------------------------------- render
def _mid_game(name="president", seed=2, steps=9):
    rules = preset(name)
    st = init(rules, batch_size=3, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        step_inplace(rules, st, random_actions(st.legal, rng))
    return rules, st


def _hand_column(text: str, seat: int) -> str:
    row = [line for line in text.splitlines() if line[3:].split()[:1] == [str(seat)]][0]
    return row


def test_render_shows_every_hand_without_a_viewer():
    rules, st = _mid_game()
    text = render(rules, st, game=1)
    for s in range(rules.players):
        row = _hand_column(text, s)
        assert row.endswith(" ".join(card_names(rules, st.hands[1, s])))
        assert f"p{int(st.seat_player[1, s])}" in row


def test_render_hides_other_hands_from_a_viewer():
    rules, st = _mid_game()
    viewer = int(st.seat_player[0, 2])
    text = render(rules, st, game=0, viewer=viewer)
    for s in range(rules.players):
        row = _hand_column(text, s)
        mine = " ".join(card_names(rules, st.hands[0, s]))
        if s == 2:
            assert row.endswith(mine)
        else:
            assert row.endswith("(hidden)") and mine not in text


def test_render_names_the_top_play_and_its_owner():
    rules, st = _mid_game()
    b = int(np.argmax(st.top_owner >= 0))
    assert st.top_owner[b] >= 0
    owner = int(st.top_owner[b])
    text = render(rules, st, game=b)
    top = text.splitlines()[1]
    assert top.startswith("top: ") and f"by seat {owner} (p{int(st.seat_player[b, owner])})" in top
    assert "phase play" in text and "revolution no" in text


def test_render_refuses_a_bad_game_or_viewer():
    rules, st = _mid_game()
    with pytest.raises(ValueError, match="game 3 out of range"):
        render(rules, st, game=3)
    with pytest.raises(ValueError, match="viewer must be a player"):
        render(rules, st, viewer=4)


@pytest.mark.parametrize(("pos", "players", "name"), [
    (0, 4, "President"), (1, 4, "Vice-President"), (2, 4, "Vice-Scum"), (3, 4, "Scum"),
    (1, 3, "Citizen"), (2, 6, "Citizen"), (-1, 4, "-"),
])
def test_rank_names(pos, players, name):
    assert rank_name(pos, players) == name
