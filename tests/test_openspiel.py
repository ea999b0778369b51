"""President as an OpenSpiel game (president_env.openspiel): OpenSpiel's checks, the AEC env's game, no leak."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import president_env
from president_env.core import PRESETS, Rules, RulesError, init, preset, tables

try:
    import pyspiel

    import president_env.openspiel as pos
except ImportError:  # the missing-extra test below still runs
    pyspiel = pos = None

needs_openspiel = pytest.mark.skipif(
    pyspiel is None, reason='OpenSpiel is not installed: pip install -e ".[openspiel]"')

# sessions of these presets run by default, the others with -m slow (a session takes a few seconds)
FAST_SESSIONS = ("president", "revolution", "suit_ranking")
SLOW_HANDS = ("double_deck",)   # 8 players and 104 cards: 6 s for one hand
SESSION_PRESETS = [n if n in FAST_SESSIONS else pytest.param(n, marks=pytest.mark.slow) for n in PRESETS]


def _random_play(state, rng: np.random.Generator, max_steps: int = 10_000):
    """Play ``state`` on with random chance outcomes and legal actions; returns the actions applied."""
    done = []
    for _ in range(max_steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            a = int(rng.choice(outcomes, p=probs))
        else:
            a = int(rng.choice(state.legal_actions()))
        state.apply_action(a)
        done.append(a)
    return done


@needs_openspiel
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_HANDS else n for n in PRESETS])
def test_random_sim_every_preset_single_hand(name):
    game = pyspiel.load_game(f"president(preset={name})")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@needs_openspiel
@pytest.mark.parametrize("name", SESSION_PRESETS)
def test_random_sim_sessions(name):
    game = pyspiel.load_game(f"president(preset={name},episode=session,max_hands=3)")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@needs_openspiel
def test_load_game_and_parameters():
    game = pyspiel.load_game("president(preset=daifugo,players=5,pass_rule=locks_out,reseat=0)")
    rules = game.rules
    assert rules == preset("daifugo", players=5, pass_rule="locks_out", reseat=False)
    assert game.num_players() == 5 and game.num_distinct_actions() == 57
    assert pyspiel.load_game("president(preset=double_deck,players=12)").num_players() == 12   # the most rules allow
    # any Rules: its parameters name the preset and what differs, and load back to the same rules
    custom = preset("asshole", rank_order="9 T J Q K A", trump_ranks={"A"}, exchange=(1,), target_points=None,
                    hands_per_session=4)
    g2 = pos.PresidentGame.from_rules(custom, episode="session")
    assert pyspiel.load_game(str(g2)).rules == custom


@needs_openspiel
def test_a_deck_and_a_half_is_its_preset_and_any_rules_with_it_round_trip():
    game = pyspiel.load_game("president(preset=deck_and_a_half,players=6)")
    assert game.rules == preset("deck_and_a_half", players=6) and game.rules.decks == 1.5
    assert pyspiel.load_game("president(decks=2,players=9)").rules.decks == 2   # decks stays an int parameter
    custom = Rules(decks=1.5, players=7, pass_rule="locks_out")
    g = pos.PresidentGame.from_rules(custom)
    assert g.get_parameters()["preset"] == "deck_and_a_half"
    assert pyspiel.load_game(str(g)).rules == custom
    with pytest.raises(RulesError, match=r"decks=3: must be 1, 1\.5"):
        pyspiel.load_game("president(decks=3)")


@pytest.mark.parametrize("text, words", [
    ("president(preset=nope)", "unknown preset 'nope'"),
    ("president(players=2)", "players"),
    ("president(episode=forever)", "episode"),
    ("president(reseat=5)", "reseat"),
    ("president(exchange=two)", "exchange"),
])
@needs_openspiel
def test_bad_parameters_are_named(text, words):
    with pytest.raises(Exception, match=words):
        pyspiel.load_game(text)


@pytest.mark.parametrize("params, words", [
    ({"preset": None}, "preset=None: must be a string"),
    ({"max_hands": "x"}, "max_hands='x': must be an integer"),
    ({"players": 2.5}, "players=2.5: must be an integer"),
    ({"nope": 1}, "unknown game parameter"),
])
@needs_openspiel
def test_parameters_of_the_wrong_type_are_named(params, words):
    from president_env.core import RulesError
    with pytest.raises(RulesError, match=words):
        pos.PresidentGame(params)


def _aec_deal(env) -> tuple[int, list[list[int]]]:
    st = env.unwrapped.game.to_state()
    by_player = [[] for _ in range(st.seat_player.shape[1])]
    for s, p in enumerate(st.seat_player[0].tolist()):
        by_player[p] = np.flatnonzero(st.hands[0, s]).tolist()
    return int(st.dealer[0]), by_player


@needs_openspiel
@pytest.mark.parametrize("name", ["president", "daifugo", "asshole", "klootzakken"])
def test_same_seed_and_actions_give_the_aec_envs_game(name):
    env = president_env.env(preset=name, episode="hand")
    game = pyspiel.load_game(f"president(preset={name})")
    for seed in range(3):
        env.reset(seed=seed)
        dealer, deal = _aec_deal(env)
        state = game.new_initial_state()
        for o in pos.chance_outcomes_for_deal(game, dealer, deal):
            assert state.is_chance_node()
            state.apply_action(o)
        rng = np.random.default_rng(seed)
        totals = np.zeros(game.num_players())
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[int(agent.split("_")[1])] += reward
            if term or trunc:
                env.step(None)
                continue
            p = int(agent.split("_")[1])
            assert state.current_player() == p
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), obs["observation"])
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            assert state.legal_actions() == legal
            a = int(rng.choice(legal))
            env.step(a)
            state.apply_action(a)
        assert state.is_terminal()
        np.testing.assert_array_equal(state.returns(), totals)


@needs_openspiel
def test_a_session_deals_each_hand_by_chance_as_the_key_would():
    rules = preset("president", hands_per_session=3)
    env = president_env.env(preset=rules, episode="session")
    env.reset(seed=7)
    game = pos.PresidentGame.from_rules(rules, episode="session")
    state = game.new_initial_state()
    dealer, deal = _aec_deal(env)
    for o in pos.chance_outcomes_for_deal(game, dealer, deal):
        state.apply_action(o)
    rng = np.random.default_rng(7)
    plain = rules.replace(exchange=(), exchange_back=None)
    hands_seen = 1
    while not env.unwrapped.game.over:
        g = env.unwrapped.game
        p = g.current_player
        if state.is_chance_node():   # a new hand: the key's deal, before the forced gifts
            st = g.to_state()
            dealt = init(plain, keys=st.key, start_ranks=st.last_finish, seat_player=st.seat_player,
                         dealer=st.dealer, hand_no=st.hand_no)
            by_player = [[] for _ in range(rules.players)]
            for s, q in enumerate(dealt.seat_player[0].tolist()):
                by_player[q] = np.flatnonzero(dealt.hands[0, s]).tolist()
            for q in range(rules.players - 1):
                for c in by_player[q]:
                    state.apply_action(c)
            hands_seen += 1
        assert state.current_player() == p
        np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), g.observe(p))
        assert state.legal_actions() == list(g.legal)
        a = int(rng.choice(g.legal))
        env.step(a)
        state.apply_action(a)
    assert hands_seen == 3 and state.is_terminal()
    np.testing.assert_array_equal(state.returns(), env.unwrapped.game.state.points[0])


def _deal_outcomes(game, dealer: int, deal: list[list[int]]) -> list[int]:
    return pos.chance_outcomes_for_deal(game, dealer, deal)


@needs_openspiel
@pytest.mark.parametrize("name", ["president", "suit_ranking"])
def test_information_states_hold_no_hidden_card(name):
    game = pyspiel.load_game(f"president(preset={name})")
    rng = np.random.default_rng(3)
    P = game.num_players()
    for trial in range(4):
        a = game.new_initial_state()
        deal_actions = []
        while a.is_chance_node():
            outcomes, probs = zip(*a.chance_outcomes(), strict=True)
            o = int(rng.choice(outcomes, p=probs))
            deal_actions.append(o)
            a.apply_action(o)
        sg = a.scalar_game
        st = sg.to_state()
        hands = [[] for _ in range(P)]
        for s, q in enumerate(st.seat_player[0].tolist()):
            hands[q] = np.flatnonzero(st.hands[0, s]).tolist()
        me = trial % P
        # the same deal for `me`, the other players' cards shuffled among them (the lowest card, which
        # makes its holder lead first, stays where it was: who leads is public)
        lowest = int(tables(game.rules).lowest_card)
        others = [q for q in range(P) if q != me]
        pool = [c for q in others for c in hands[q] if c != lowest]
        rng.shuffle(pool)
        alt = [list(h) for h in hands]
        i = 0
        for q in others:
            n = len([c for c in hands[q] if c != lowest])
            alt[q] = sorted(pool[i:i + n] + [c for c in hands[q] if c == lowest])
            i += n
        b = game.new_initial_state()
        for o in _deal_outcomes(game, deal_actions[0], alt):
            b.apply_action(o)
        differ = [q for q in others if sorted(alt[q]) != sorted(hands[q])]
        steps = 0
        while not a.is_terminal() and not b.is_terminal() and not a.is_chance_node():
            assert a.information_state_string(me) == b.information_state_string(me)
            np.testing.assert_array_equal(a.information_state_tensor(me), b.information_state_tensor(me))
            assert a.observation_string(me) == b.observation_string(me)
            for q in differ:   # the test can fail: another player's own cards do show in its view
                assert a.information_state_string(q) != b.information_state_string(q)
            common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
            if not common:
                break
            act = int(rng.choice(common))
            a.apply_action(act)
            b.apply_action(act)
            steps += 1
        assert steps > 0


@needs_openspiel
@pytest.mark.parametrize("name", ["president", "merchants", "daifugo"])
def test_resampling_keeps_the_information_state(name):
    game = pyspiel.load_game(f"president(preset={name},episode=session,max_hands=2)")
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    moved = 0
    for _ in range(60):
        _random_play_steps(state, rng, 1)
        if state.is_terminal():
            break
        if state.is_chance_node():
            continue
        p = state.current_player()
        new = state.resample_from_infostate(p, rng.random)
        assert new.information_state_string(p) == state.information_state_string(p)
        np.testing.assert_array_equal(new.scalar_game.observe(p), state.scalar_game.observe(p))
        assert new.legal_actions() == state.legal_actions()
        moved += str(new) != str(state)
    assert moved > 0     # hidden cards were dealt again


def _random_play_steps(state, rng, n):
    for _ in range(n):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


@needs_openspiel
def test_the_deal_gives_every_split_equal_probability():
    # 3 players, 8 cards: every split (560 of them, 3/3/2 or as the dealer decides) once, same probability
    game = pos.PresidentGame.from_rules(preset("president", players=3, rank_order="A 2"))
    total = 0.0
    splits = set()
    stack = [(game.new_initial_state(), 1.0)]
    while stack:
        s, pr = stack.pop()
        if not s.is_chance_node():
            total += pr
            splits.add(s.history_str())
            continue
        for o, q in s.chance_outcomes():
            c = s.child(o)
            stack.append((c, pr * q))
    assert abs(total - 1.0) < 1e-9
    assert len(splits) == 3 * 560


def test_missing_extra_names_the_install_command():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "try:\n    import president_env.openspiel\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'pip install -e ".[openspiel]"' in out


def _brute_force_nash_conv_of_uniform(game) -> float:
    """NashConv of the uniform random profile, by enumerating the tree here (not OpenSpiel's best response).

    A single hand of a small variant has no exchange, so every decision is public: a player's information
    set is (its dealt cards, the dealer, every decision since the deal)."""
    P = game.num_players()
    infos: dict[tuple, list] = {}          # information set -> [(history, reach of chance and the others)]
    info_of: dict[tuple, tuple] = {}       # history -> its information set
    states: dict[tuple, object] = {}

    def walk(s, reach, dealt, n_chance):
        h = tuple(s.history())
        states[h] = s
        if s.is_terminal():
            return
        if s.is_chance_node():
            for o, q in s.chance_outcomes():
                walk(s.child(o), reach * q, None, n_chance + 1)
            return
        if dealt is None:   # the deal has just ended: each player's cards, by player
            st = s.scalar_game.to_state()
            dealt = {int(q): tuple(np.flatnonzero(st.hands[0, seat])) for seat, q in enumerate(st.seat_player[0])}
        p = s.current_player()
        info = (p, dealt[p], h[0], h[n_chance:])
        info_of[h] = info
        infos.setdefault(info, []).append((h, reach))
        legal = s.legal_actions()
        for a in legal:
            walk(s.child(a), reach / len(legal), dealt, n_chance)

    walk(game.new_initial_state(), 1.0, None, 0)
    best: dict[tuple, int] = {}
    memo: dict[tuple, float] = {}

    def value(h, p, br):
        k = (h, p, br)
        if k in memo:
            return memo[k]
        s = states[h]
        if s.is_terminal():
            v = s.returns()[p]
        elif s.is_chance_node():
            v = sum(q * value(h + (o,), p, br) for o, q in s.chance_outcomes())
        elif br and s.current_player() == p:
            v = value(h + (best_action(info_of[h], p),), p, br)
        else:
            legal = s.legal_actions()
            v = sum(value(h + (a,), p, br) for a in legal) / len(legal)
        memo[k] = v
        return v

    def best_action(info, p):
        if info not in best:
            members = infos[info]
            # the others' reach includes p's own uniform choices above: a common factor within the set (perfect
            # recall), so it does not change which action is best
            legal = states[members[0][0]].legal_actions()
            totals = {a: sum(r * value(h + (a,), p, True) for h, r in members) for a in legal}
            best[info] = max(totals, key=totals.get)
        return best[info]

    return sum(value((), p, True) - value((), p, False) for p in range(P))


@needs_openspiel
def test_nash_conv_of_uniform_random_matches_a_brute_force_walk():
    from agents.exploitability import nash_conv_of_agents
    from agents.random_agent import RandomAgent
    from president_env.small_variants import small_variant

    rules = small_variant("micro")
    res = nash_conv_of_agents(rules, [RandomAgent(rules) for _ in range(rules.players)])
    expected = _brute_force_nash_conv_of_uniform(pos.PresidentGame.from_rules(rules))
    assert res.nash_conv > 0.1
    assert abs(res.nash_conv - expected) < 1e-9
    assert abs(sum(res.gains) - res.nash_conv) < 1e-9


@needs_openspiel
def test_exploitability_command_prints_the_profiles_nash_conv(capsys):
    from agents.exploitability import nash_conv_of_agents
    from agents.greedy import GreedyAgent
    from president_cli.main import main
    from president_env.small_variants import small_variant

    assert main(["exploitability", "--preset", "micro", "--agents", "greedy"]) == 0
    out = capsys.readouterr().out
    rules = small_variant("micro")
    res = nash_conv_of_agents(rules, [GreedyAgent(rules) for _ in range(3)])
    row = next(line for line in out.splitlines() if "greedy" in line)
    assert f"{res.nash_conv:.3f}" in row
    with pytest.raises(SystemExit) as exc:
        main(["exploitability", "--preset", "nope", "--agents", "greedy"])
    assert exc.value.code == 2
    assert "small variants are: micro" in capsys.readouterr().err


def test_small_variants_are_rules_and_unknown_names_list_both_kinds():
    from president_env.core import RulesError
    from president_env.small_variants import SMALL_VARIANTS, small_variant, variant_rules

    for name in SMALL_VARIANTS:
        r = small_variant(name)
        assert r.players == (4 if name == "tiny4_joker" else 3) and r.n_cards in (6, 8, 9) and r.name == name
        assert variant_rules(name) == r
    assert variant_rules("daifugo") == preset("daifugo")
    assert small_variant("tiny_locks").pass_rule == "locks_out" and small_variant("tiny").pass_rule == "may_replay"
    with pytest.raises(RulesError, match="small variants are: micro"):
        variant_rules("nope")


@needs_openspiel
def test_our_game_serializes_as_data_and_reads_back_without_unpickling(tmp_path):
    game = pyspiel.load_game("president(preset=revolution,episode=session,max_hands=2)")
    state = game.new_initial_state()
    _random_play(state, np.random.default_rng(3), max_steps=120)
    text = state.serialize()
    assert "__dict__" not in text and json.loads(text)["history"] == state.history()   # data, no pickle
    again = game.deserialize_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    assert again.observation_tensor(1) == state.observation_tensor(1)
    g2, s2 = pos.deserialize_game_and_state(pos.serialize_game_and_state(game, state))
    assert g2.rules == game.rules and str(s2) == str(state) and s2.legal_actions() == state.legal_actions()
    # OpenSpiel's own text runs a pickle: ours refuses it, whatever the pickle would do
    marker = tmp_path / "ran"
    payload = pyspiel.serialize_game_and_state(game, state).replace(
        "__dict__=", "__dict__=" + __import__("base64").b64encode(
            b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.").decode() + "\n#")
    for bad, words in [(payload, "not the JSON"), (state.serialize().replace("/1", "/9"), "format"),
                       (json.dumps({"format": pos.STATE_FORMAT, "history": [0, 999]}),
                        r"action 1 \(999\) is not legal"),
                       (json.dumps({"format": pos.STATE_FORMAT, "history": ["x"]}), "list of action ids")]:
        with pytest.raises(pos.StateTextError, match=words):
            game.deserialize_state(bad)
    with pytest.raises(pos.StateTextError, match="not the JSON"):
        pos.deserialize_game_and_state(payload)
    with pytest.raises(pos.StateTextError, match="preset=None"):
        pos.deserialize_game_and_state(json.dumps({"format": pos.GAME_FORMAT, "game": {"preset": None},
                                                   "history": []}))
    assert not marker.exists()
    with pytest.raises(pos.StateTextError, match="state_from_core"):
        game.state_from_core(init(game.play_rules, 1, seed=1)).serialize()
