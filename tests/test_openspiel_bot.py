"""The ``ismcts`` agent (agents.openspiel_bot): OpenSpiel's MCTS over resampled worlds."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from agents.registry import agent_names, make_agent, split_specs
from president_env.core import init, observe, preset
from president_env.core.resample import resample
from president_env.core.scalar import ScalarGame

try:
    import pyspiel  # noqa: F401
except ImportError:  # the missing-extra test below still runs
    pyspiel = None

needs_openspiel = pytest.mark.skipif(
    pyspiel is None, reason='OpenSpiel is not installed: pip install -e ".[openspiel]"')

SMALL = "ismcts:sims=4,worlds=2"


def _mask(agent, legal) -> np.ndarray:
    m = np.zeros((1, agent.n_actions), dtype=bool)
    m[0, legal] = True
    return m


def _play_hand(agent, rules, seed: int) -> list[int]:
    """One hand with the agent in every seat; asserts every action is legal; returns the actions."""
    one = rules.replace(hands_per_session=1)
    sg = ScalarGame.new(one, seed)
    rng = np.random.default_rng(seed)
    done = []
    while not sg.over:
        p = sg.current_player
        legal = list(sg.legal)
        a = int(agent.act(sg.observe(p)[None], _mask(agent, legal), rng)[0])
        assert a in legal, (a, legal)
        sg.step(a)
        done.append(a)
    return done


@needs_openspiel
@pytest.mark.parametrize("name", ["president", "revolution", "suit_ranking"])
def test_plays_legal_actions(name):
    rules = preset(name)
    agent = make_agent(SMALL, rules)
    for seed in (1, 2):
        assert _play_hand(agent, rules, seed)
    assert agent.stats.searched > 0 and agent.stats.simulations >= 4 * agent.stats.searched


@needs_openspiel
def test_same_seed_same_actions():
    rules = preset("president")
    a, b = make_agent(SMALL, rules), make_agent(SMALL, rules)
    assert _play_hand(a, rules, 7) == _play_hand(b, rules, 7)


def _decision_with_choices(rules, seed: int):
    """A batch-of-one state where the player to act has at least 3 legal actions, and that player."""
    one = rules.replace(hands_per_session=1)
    sg = ScalarGame.new(one, seed)
    while len(sg.legal) < 3:
        sg.step(sg.legal[0])
    return one, sg.to_state(), sg.current_player, list(sg.legal)


@needs_openspiel
def test_does_not_read_hidden_cards():
    rules = preset("president")
    one, st, p, legal = _decision_with_choices(rules, 3)
    worlds = resample(one, st, p, 2, np.random.default_rng(0))     # the others' cards dealt again
    assert not np.array_equal(worlds.hands[0], worlds.hands[1])
    obs = observe(one, worlds, np.array([p, p]))
    assert np.array_equal(obs[0], obs[1])
    agent = make_agent("ismcts:sims=16,worlds=4", rules)
    got = [int(agent.act(obs[i:i + 1], _mask(agent, legal), np.random.default_rng(11))[0]) for i in range(2)]
    assert got[0] == got[1] and got[0] in legal
    # a different seed may choose differently, but always legally
    assert int(agent.act(obs[:1], _mask(agent, legal), np.random.default_rng(12))[0]) in legal


@needs_openspiel
def test_batch_rows_each_legal():
    rules = preset("president")
    st = init(rules.replace(hands_per_session=1), 3, seed=5)
    from president_env.core import current_player

    agent = make_agent(SMALL, rules)
    obs = observe(rules, st, current_player(st))
    actions = agent.act(obs, st.legal, np.random.default_rng(0))
    assert actions.shape == (3,) and st.legal[np.arange(3), actions].all()


@pytest.mark.parametrize("spec", ["ismcts:sims=-1", "ismcts:sims=0", "ismcts:sims=x", "ismcts:nope=3",
                                  "ismcts:sims", "ismcts:worlds=8,sims=4", "ismcts:uct=-1",
                                  "ismcts:rollouts=0", "ismcts:sims=" + "9" * 30])
def test_bad_settings_refused(spec):
    """Refused before OpenSpiel is imported: the message is the same with or without it."""
    with pytest.raises(ValueError, match="ismcts"):
        make_agent(spec, preset("president"))


def test_registry_names_it_and_splits_its_settings():
    assert "ismcts" in agent_names() and "ismcts:SETTINGS" in agent_names()
    assert split_specs("ismcts:sims=8,worlds=2,heuristic") == ["ismcts:sims=8,worlds=2", "heuristic"]


def test_registry_does_not_import_openspiel():
    code = ("import sys, agents.registry\n"
            "print('pyspiel' in sys.modules, 'agents.openspiel_bot' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_missing_openspiel_names_the_install_command():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "from agents.registry import make_agent\nfrom president_env.core import preset\n"
            "try:\n    make_agent('ismcts', preset('president'))\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install -e ".[openspiel]"' in out and "ismcts" in out


@needs_openspiel
def test_evaluate_runs_with_it(capsys):
    from president_cli.main import main

    rc = main(["evaluate", "--preset", "president", "--agents", f"{SMALL},heuristic,heuristic,heuristic",
               "--games", "1", "--hands", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert rc in (0, None)
    assert "0:ismcts:sims=4,worlds=2" in out and "points/hand" in out
    assert "simulations" in out and "ms CPU" in out


@needs_openspiel
def test_evaluate_refuses_a_bad_setting(capsys):
    from president_cli.main import main

    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--preset", "president", "--agents", "ismcts:sims=-1,heuristic,heuristic,heuristic",
              "--games", "1", "--hands", "1", "--no-progress"])
    assert e.value.code not in (0, None)
    assert "sims" in capsys.readouterr().err


def test_evaluate_without_openspiel_names_the_install_command():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "from president_cli.main import main\n"
            "sys.exit(main(['evaluate', '--preset', 'president', '--agents', 'ismcts,heuristic,heuristic,heuristic',"
            " '--games', '1', '--hands', '1', '--no-progress']))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode != 0
    assert 'pip install -e ".[openspiel]"' in res.stderr and "Traceback" not in res.stderr


@needs_openspiel
def test_state_from_core_is_the_same_position():
    import president_env.openspiel as pos

    rules = preset("president")
    one, st, p, legal = _decision_with_choices(rules, 4)
    game = pos.PresidentGame.from_rules(rules, episode="hand")
    s = game.state_from_core(st)
    assert s.current_player() == p and s.legal_actions() == legal
    assert np.array_equal(np.asarray(s.observation_tensor(p)), observe(one, st, np.array([p]))[0])
    sg = ScalarGame.from_state(one, st)
    while not s.is_terminal():      # the same moves end the same way
        a = s.legal_actions()[-1]
        s.apply_action(a)
        sg.step(a)
    assert sg.over and s.returns() == [float(x) for x in sg.hand_points]
