"""``core.set_threads``: a batch shared out over numba's threads plays exactly the games of one core."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from president_env.core import init, preset, set_threads, step_inplace

# numba starts as many threads as the process may use: under `taskset -c 0` (one core) there is no second one
pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                                reason="this process may use one CPU only (numba has one thread)")


def _play(rules, threads: int, steps: int = 150) -> list[bytes]:
    set_threads(threads)
    try:
        st = init(rules, 37, seed=5, start_ranks="random")      # 37: the threads' shares differ in size
        rng = np.random.default_rng(9)
        seen = []
        for _ in range(steps):
            pri = rng.random(st.legal.shape) * st.legal
            step_inplace(rules, st, pri.argmax(axis=1))
            seen.append(st.b8.tobytes() + st.b16.tobytes() + st.b32.tobytes())
        return seen
    finally:
        set_threads(1)


def test_two_threads_play_the_games_of_one_core():
    rules = preset("president", hands_per_session=3)
    assert _play(rules, 2) == _play(rules, 1)


def test_an_illegal_action_under_threads_steps_no_game():
    rules = preset("president")
    set_threads(2)
    try:
        st = init(rules, 8, seed=1)
        before = st.copy()
        actions = st.legal.argmax(axis=1)
        actions[5] = int(np.flatnonzero(~st.legal[5])[-1])
        with pytest.raises(ValueError, match="game 5: illegal action"):
            step_inplace(rules, st, actions)
        assert st == before
    finally:
        set_threads(1)


@pytest.mark.parametrize("bad", [0, -1, 10**6, 1.5, True, "2"])
def test_a_thread_count_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="threads must be an integer from 1 to"):
        set_threads(bad)


def test_a_slow_first_compilation_shows_a_progress_line(monkeypatch, capsys):
    import numba

    if numba.config.DISABLE_JIT:
        pytest.skip("NUMBA_DISABLE_JIT=1: nothing is compiled")

    from president_env.core.kernel import jit

    @numba.njit
    def add_one(x):
        return x + 1

    monkeypatch.setattr(jit, "SHOW_AFTER_S", 0.0)
    jit.compile_for(add_one, (np.int64(1),), "a test kernel")
    err = capsys.readouterr().err
    assert "compiling the rules engine (a test kernel)" in err and "compiled (a test kernel) in" in err
    assert add_one(np.int64(1)) == 2
    jit.compile_for(add_one, (np.int64(1),), "a test kernel")     # compiled already: nothing to say
    assert capsys.readouterr().err == ""
