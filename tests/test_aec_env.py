"""The PettingZoo AEC environment: API and seed tests, turn order, rewards, deals, rendering, no leaks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import president_env
from president_env import PRESETS
from president_env.aec_env import format_observation_table, make_rules, observation_table, raw_env
from president_env.core import EXCHANGE, OVER, PLAY, IllegalActionError, State, current_player, tables
from president_env.core import observation as O


def first_legal_policy(obs: dict) -> int:
    """A deterministic policy that varies with the position (no rng)."""
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[int(obs["observation"].sum() * 7) % legal.size])


# --------------------------------------------------------------------------- PettingZoo's own tests
@pytest.mark.parametrize("name", PRESETS)
def test_api_and_seed_every_preset(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one hand per episode so that the play test reaches the end of the game; exchange from hand one
        api_test(president_env.env(name, episode="hand", start_ranks="random"), num_cycles=40)
        seed_test(lambda: president_env.env(name, episode="hand"), num_cycles=40)
        api_test(president_env.env(name), num_cycles=10)


@pytest.mark.parametrize("players", [3, 5, 7])
def test_api_and_seed_player_counts(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(president_env.env("president", players=players, episode="hand", reward="rank"), num_cycles=40)
        seed_test(lambda: president_env.env("president", players=players, start_ranks="random"), num_cycles=40)


def test_api_test_raises_no_warning_of_ours():
    # PettingZoo's api_test resets with an option the env does not know: ignored, without a warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(president_env.env("president", episode="hand"), num_cycles=10)
    ours = [w for w in caught if "president_env" in w.filename or "reset option" in str(w.message)]
    assert not ours, [str(w.message) for w in ours]
    env = president_env.env("president")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1, options={"something_else": 1})
    assert env.agents == env.possible_agents


def test_full_session_terminates_every_agent():
    env = president_env.env("president", players=4, target_points=3)
    env.reset(seed=3)
    seen_terminal = set()
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term:
            seen_terminal.add(agent)
            assert not obs["action_mask"].any()
        env.step(None if term or trunc else first_legal_policy(obs))
    assert seen_terminal == set(env.possible_agents)
    assert env.agents == []


# --------------------------------------------------------------------------- documentation
def test_docstring_table_is_the_core_layout():
    import president_env.aec_env as mod

    rules = make_rules("president")
    assert observation_table(rules) == O.layout(rules)
    table = format_observation_table(rules)
    assert "\n".join("    " + line for line in table.splitlines()) in mod.__doc__
    e = raw_env()
    assert e.observation_space("player_0")["observation"].shape == (O.size(rules),)


# --------------------------------------------------------------------------- agents and turn order
def test_agents_follow_the_core_and_move_seats():
    env = raw_env("president", players=5, target_points=6)
    env.reset(seed=11)
    seatings = set()
    steps = 0
    while not all(env.terminations.values()):
        st = env.core_state
        assert env.agent_selection == f"player_{int(current_player(st)[0])}"
        seatings.add(tuple(st.seat_player[0].tolist()))
        obs = env.observe(env.agent_selection)
        env.step(first_legal_policy(obs))
        steps += 1
    assert len(seatings) > 1, "reseating never moved anyone: the test did not cover people changing seats"


def test_only_the_agent_to_act_has_a_mask():
    env = raw_env("president")
    env.reset(seed=2)
    for _ in range(30):
        me = env.agent_selection
        for a in env.agents:
            m = env.observe(a)["action_mask"]
            assert m.dtype == np.int8
            assert m.any() == (a == me)
        np.testing.assert_array_equal(env.observe(me)["action_mask"], env.core_state.legal[0].astype(np.int8))
        env.step(first_legal_policy(env.observe(me)))


# --------------------------------------------------------------------------- episodes and start ranks
def test_episode_hand_is_one_hand():
    env = raw_env("president", episode="hand")
    assert env.rules.hands_per_session == 1
    env.reset(seed=4)
    ended = 0
    while not all(env.terminations.values()):
        env.step(first_legal_policy(env.observe(env.agent_selection)))
        ended += int(env.core_state.hand_over[0])
    assert ended == 1
    assert env.core_state.phase[0] == OVER


def test_episode_option_is_checked():
    with pytest.raises(ValueError, match="episode"):
        raw_env("president", episode="trick")
    with pytest.raises(ValueError, match="reward"):
        raw_env("president", reward="money")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("president", render_mode="rgb_array")


def test_random_start_ranks_play_the_exchange_first():
    env = raw_env("president", start_ranks="random")
    sl = O.slices(env.rules)
    for seed in range(5):
        env.reset(seed=seed)
        assert env.core_state.phase[0] == EXCHANGE
        obs = env.observe(env.agent_selection)["observation"]
        assert obs[sl["phase"]][EXCHANGE] == 1
        assert (obs[sl["social"]] > 0).all()
        assert obs[sl["exch_received"]].sum() > 0  # the receiver acts: it got the forced gift
    plain = raw_env("president")
    plain.reset(seed=0)
    assert plain.core_state.phase[0] == PLAY


# --------------------------------------------------------------------------- rewards
@pytest.mark.parametrize("scheme", ["points", "rank"])
def test_rewards_at_every_hand_end_to_every_agent(scheme):
    env = raw_env("president", players=4, target_points=5, reward=scheme)
    env.reset(seed=8)
    P = env.rules.players
    totals = dict.fromkeys(env.possible_agents, 0.0)
    hands = 0
    while not all(env.terminations.values()):
        env.step(first_legal_policy(env.observe(env.agent_selection)))
        st = env.core_state
        if st.hand_over[0]:
            hands += 1
            for i, a in enumerate(env.possible_agents):
                pos = int(st.last_finish[0, i])
                expected = float(st.hand_points[0, i]) if scheme == "points" else 1 - 2 * pos / (P - 1)
                assert env.rewards[a] == pytest.approx(expected)
                assert env.infos[a] == {"hand_position": pos, "hand_points": int(st.hand_points[0, i])}
            assert sorted(env.rewards.values()) != [0.0] * P
        else:
            assert all(r == 0 for r in env.rewards.values())
        for a in env.agents:
            totals[a] += env.rewards[a]
    assert hands >= 2
    if scheme == "points":
        # every agent's rewards add up to its own session points, as the core counts them
        for i, a in enumerate(env.possible_agents):
            assert totals[a] == env.core_state.points[0, i]


def test_rank_scheme_endpoints():
    env = raw_env("president", players=5, episode="hand", reward="rank")
    env.reset(seed=1)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term:
            final[agent] = reward
        env.step(None if term or trunc else first_legal_policy(obs))
    st = env.core_state
    by_pos = {int(st.last_finish[0, i]): final[a] for i, a in enumerate(env.possible_agents)}
    assert by_pos[0] == 1.0 and by_pos[4] == -1.0 and by_pos[2] == 0.0


def test_last_returns_each_agents_own_accumulated_reward():
    """The reward of last() for the agent to act is its own, never its neighbour's."""
    env = president_env.env("president", players=4, target_points=4)
    env.reset(seed=21)
    inner = env.unwrapped
    owed = dict.fromkeys(env.possible_agents, 0.0)
    checked_nonzero = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        assert reward == owed[agent]
        checked_nonzero += reward != 0
        owed[agent] = 0.0
        env.step(None if term or trunc else first_legal_policy(obs))
        st = inner.core_state
        if st.hand_over[0] and not term:
            for i, a in enumerate(inner.possible_agents):
                owed[a] += float(st.hand_points[0, i])
    assert checked_nonzero > 0


# --------------------------------------------------------------------------- illegal actions
def test_illegal_action_raises_naming_the_agent():
    env = president_env.env("president")
    env.reset(seed=0)
    agent = env.agent_selection
    obs, *_ = env.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
    with pytest.raises(IllegalActionError, match=f"{agent}: illegal action {bad}.*legal"):
        env.step(bad)
    raw = raw_env("president")
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="integer"):
        raw.step(None)
    with pytest.raises(IllegalActionError, match="integer"):
        raw.step(1.5)
    with pytest.raises(IllegalActionError, match="illegal action 999"):
        raw.step(999)
    raw.step(np.int64(first_legal_policy(raw.observe(raw.agent_selection))))  # NumPy integers are fine


def test_terminate_illegal_option():
    env = president_env.env("president", illegal_action="terminate", illegal_reward=-3.0)
    env.reset(seed=0)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[-1]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -3.0
    with pytest.raises(ValueError, match="illegal_action"):
        president_env.env("president", illegal_action="ignore")


# --------------------------------------------------------------------------- seeding
def test_same_seed_same_game_and_reset_streams():
    def trace(env, seeds):
        out = []
        for s in seeds:
            env.reset(seed=s)
            for _ in range(40):
                obs = env.observe(env.agent_selection)
                out.append(obs["observation"].copy())
                env.step(first_legal_policy(obs))
        return out

    a, b = raw_env("daifugo"), raw_env("daifugo")
    ta, tb = trace(a, [5, None, None]), trace(b, [5, None, None])
    assert all(np.array_equal(x, y) for x, y in zip(ta, tb, strict=True))
    c = raw_env("daifugo")
    tc = trace(c, [6])
    assert not all(np.array_equal(x, y) for x, y in zip(ta[:40], tc, strict=True))


# --------------------------------------------------------------------------- given deals
def _split(rules, seed=0):
    t = tables(rules)
    perm = np.random.default_rng(seed).permutation(t.n_cards)
    return {f"player_{p}": [t.card_names[c] for c in perm[p::rules.players]] for p in range(rules.players)}


@pytest.mark.parametrize("name", ["president", "double_deck", "daifugo", "deck_and_a_half"])
def test_reset_from_a_given_deal(name):
    env = raw_env(name)
    deal = _split(env.rules, seed=3)
    env.reset(seed=1, options={"deal": deal})
    t = tables(env.rules)
    sl = O.slices(env.rules)
    for p, agent in enumerate(env.possible_agents):
        want = np.zeros(t.n_kinds)
        for card in deal[agent]:
            want[t.kinds.index(card if card in ("JK", "BJ", "RJ") else card[0])] += 1
        np.testing.assert_array_equal(env.observe(agent)["observation"][sl["hand"]], want)
        seat = int(np.flatnonzero(env.core_state.seat_player[0] == p)[0])
        assert sorted(t.card_names[c] for c in np.flatnonzero(env.core_state.hands[0, seat])) == sorted(deal[agent])


def test_bad_deals_are_refused():
    env = raw_env("president")
    deal = _split(env.rules)
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"deal": {k: v for k, v in deal.items() if k != "player_3"}})
    with pytest.raises(ValueError, match="unknown"):
        env.reset(options={"deal": {**deal, "player_9": []}})
    bad = {k: list(v) for k, v in deal.items()}
    bad["player_0"][0] = "ZZ"
    with pytest.raises(ValueError, match="unknown card 'ZZ'"):
        env.reset(options={"deal": bad})
    bad = {k: list(v) for k, v in deal.items()}
    bad["player_0"][0] = bad["player_1"][0]  # one card twice, another not at all
    with pytest.raises(ValueError, match="more often than the pack"):
        env.reset(options={"deal": bad})
    bad = {k: list(v) for k, v in deal.items()}
    bad["player_0"].append(bad["player_1"].pop())  # a split of the pack, but 14/12/13/13
    with pytest.raises(ValueError, match="hand sizes"):
        env.reset(options={"deal": bad})
    bad = {k: list(v) for k, v in deal.items()}
    bad["player_0"].pop()
    with pytest.raises(ValueError, match="not dealt"):
        env.reset(options={"deal": bad})
    with pytest.raises(ValueError, match="dict"):
        env.reset(options={"deal": [1, 2]})


# --------------------------------------------------------------------------- render
def test_render_shows_only_the_viewers_hand(capsys):
    env = raw_env("president", render_mode="ansi")
    env.reset(seed=5)
    for _ in range(7):
        env.step(first_legal_policy(env.observe(env.agent_selection)))
    text = env.render()
    st = env.core_state
    names = set(tables(env.rules).card_names)
    shown = {tok for tok in text.split() if tok in names}
    me = int(current_player(st)[0])
    seat = int(np.flatnonzero(st.seat_player[0] == me)[0])
    mine = {tables(env.rules).card_names[c] for c in np.flatnonzero(st.hands[0, seat])}
    assert shown and shown <= mine
    human = raw_env("president", render_mode="human")
    human.reset(seed=5)
    assert human.render() is None
    out = capsys.readouterr().out
    assert "p0" in out or "player_0" in out


# --------------------------------------------------------------------------- no leak
def shuffle_hidden(rules, state: State, viewer: int, rng: np.random.Generator) -> State:
    """The same position with the other players' cards redealt among them (same counts per seat)."""
    st = state.copy()
    t = tables(rules)
    me = int(np.flatnonzero(st.seat_player[0] == viewer)[0])
    others = [s for s in range(rules.players) if s != me]
    pool = np.flatnonzero(st.hands[0, others].any(axis=0))
    pool = rng.permutation(pool)
    start = 0
    for s in others:
        n = int(st.n_cards[0, s])
        st.hands[0, s] = False
        st.hands[0, s, pool[start:start + n]] = True
        st.counts[0, s] = np.bincount(t.card_kind[pool[start:start + n]], minlength=t.n_kinds)
        start += n
    return st


@pytest.mark.parametrize("name,start", [("president", None), ("daifugo", "random"), ("double_deck", "random"),
                                        ("deck_and_a_half", "random"),
                                        ("huberes", None), ("expose_hands", "random"), ("merchants", "random"),
                                        ("sofia", None), ("hamish_allan", "random"), ("suit_ranking", "random"),
                                        ("follow_suit", None), ("reversing_colour", None),
                                        ("daifugo_runs", "random")])
def test_no_leak_of_hidden_cards(name, start):
    rng = np.random.default_rng(0)
    env = raw_env(name, start_ranks=start)
    changed_any = False
    for trial in range(12):
        env.reset(seed=trial)
        for _ in range(int(rng.integers(0, 60))):
            if all(env.terminations.values()):
                break
            env.step(first_legal_policy(env.observe(env.agent_selection)))
        real = env.core_state
        for p, agent in enumerate(env.possible_agents):
            before = env.observe(agent)
            env.core_state = shuffle_hidden(env.rules, real, p, rng)
            changed_any |= not np.array_equal(env.core_state.hands, real.hands)
            after = env.observe(agent)
            env.core_state = real
            np.testing.assert_array_equal(before["observation"], after["observation"])
            np.testing.assert_array_equal(before["action_mask"], after["action_mask"])
    assert changed_any, "the hidden cards were never changed: the test checked nothing"


def test_no_leak_of_a_merchants_choice():
    """The second merchant to choose sees the same observation whatever the first one chose."""
    from president_env.core.engine import exchange_kind

    for seed in range(3):
        seen = []
        for pick in range(3):
            env = raw_env("merchants", start_ranks="random")
            env.reset(seed=seed)
            while int(exchange_kind(env.rules, env.core_state)[0]) != 1:
                env.step(first_legal_policy(env.observe(env.agent_selection)))
            first = env.agent_selection
            legal = np.flatnonzero(env.observe(first)["action_mask"])
            env.step(int(legal[pick % legal.size]))
            assert int(exchange_kind(env.rules, env.core_state)[0]) == 2 and env.agent_selection != first
            obs = env.observe(env.agent_selection)
            seen.append((obs["observation"].copy(), obs["action_mask"].copy(), env.infos[env.agent_selection]))
        for obs, mask, info in seen[1:]:
            np.testing.assert_array_equal(obs, seen[0][0])
            np.testing.assert_array_equal(mask, seen[0][1])
            assert str(info) == str(seen[0][2])


def test_own_cards_do_show():
    """The counterpart of the no-leak test: swapping a card of the viewer's changes its observation."""
    env = raw_env("president")
    env.reset(seed=0)
    st = env.core_state.copy()
    before = env.observe("player_0")["observation"]
    t = tables(env.rules)
    s0 = int(np.flatnonzero(st.seat_player[0] == 0)[0])
    s1 = (s0 + 1) % 4
    mine = np.flatnonzero(st.hands[0, s0])
    theirs = [c for c in np.flatnonzero(st.hands[0, s1]) if t.card_kind[c] != t.card_kind[mine[0]]]
    a, b = mine[0], theirs[0]
    st.hands[0, s0, a], st.hands[0, s0, b] = False, True
    st.hands[0, s1, a], st.hands[0, s1, b] = True, False
    st.counts[0, s0] = np.bincount(t.card_kind[st.hands[0, s0]], minlength=t.n_kinds)
    env.core_state = st
    assert not np.array_equal(before, env.observe("player_0")["observation"])
