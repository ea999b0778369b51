"""One game alone and the same game in a batch: the same game (``core.scalar.ScalarGame``, a batch of one).

The engine steps a batch as a loop over games; a game must play the same whether it is stepped alone
or beside others (no state leaks from one game of a batch into another). Every test plays random legal
games in lockstep: a batch on ``step_inplace`` and one ``ScalarGame`` per game, with the same actions.
After every step the whole State (field by field, dtypes included), the legal actions and every
player's observation must be equal. Each hand-built rule set also checks that the option it is about
really came up in play, so a test cannot pass by never reaching the code it is about.
"""

from __future__ import annotations

import numpy as np
import pytest

import president_env
from president_env.core import (
    EXCHANGE,
    OVER,
    PRESETS,
    IllegalActionError,
    Rules,
    State,
    init,
    preset,
    step_inplace,
    tables,
)
from president_env.core import engine as E
from president_env.core import observation as O
from president_env.core.actions import action_table
from president_env.core.scalar import ScalarGame
from president_env.core.state import field_names


def assert_same(rules: Rules, st: State, twins: list[ScalarGame], where: str) -> None:
    mine = State.concat([g.to_state() for g in twins])
    for name in field_names():
        a, b = getattr(st, name), getattr(mine, name)
        assert a.dtype == b.dtype, f"{where}: {name} dtype {a.dtype} != {b.dtype}"
        if not np.array_equal(a, b):
            bad = int(np.flatnonzero((a != b).reshape(a.shape[0], -1).any(axis=1))[0])
            raise AssertionError(f"{where}: field {name} differs in game {bad}:\nengine {a[bad]}\nscalar {b[bad]}")
    for g, row in zip(twins, st.legal, strict=True):
        assert g.legal == np.flatnonzero(row).tolist(), where
    for p in range(rules.players):
        want = O.observe(rules, st, p)
        got = np.stack([g.observe(p) for g in twins])
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want, err_msg=f"{where}: observation of player {p}")
    # Every (game, player) at once: observe() on the batch repeated P times, players as an array.
    B, P = st.batch_size, rules.players
    want = O.observe(rules, st.take(np.repeat(np.arange(B), P)), np.tile(np.arange(P), B))
    got = np.stack([g.observe(p) for g in twins for p in range(P)])
    if not np.array_equal(got, want):
        bad = int(np.flatnonzero((got != want).any(axis=1))[0])
        np.testing.assert_array_equal(got[bad], want[bad], err_msg=f"{where}: game {bad // P}, player {bad % P}")


def events(rules: Rules, before: State, after: State, actions: np.ndarray) -> set[str]:
    """Which options visibly fired in this batched step (read from the engine's states)."""
    t = tables(rules)
    out = set()
    played = actions > 0
    play = played & (before.phase == 1)
    if (after.revolution != before.revolution).any():
        out.add("revolution")
    if (after.direction != before.direction).any():
        out.add("reverse")
    if (after.discarded.sum(axis=1) > 0).any():
        out.add("president_falls")
    if (play & after.top_wild).any():
        out.add("wild_play")
    if (before.phase == EXCHANGE).any():
        out.add("give_back")
    if (after.hand_over & (after.phase != OVER)).any():
        out.add("next_hand")
    if (after.phase == OVER).any():
        out.add("session_over")
    table = action_table(rules)
    if rules.poker:
        return out | poker_events(rules, before, after, actions)
    for b in np.flatnonzero(play & ~after.hand_over):
        a = int(actions[b])
        rank, size = int(table.rank[a]), int(table.size[a])
        name = t.play_ranks[rank]
        cleared = after.top_rank[b] < 0
        if table.card_level:
            out |= card_events(rules, before, after, b, a)
            if table.run[a]:
                continue
        if rank == before.top_rank[b] and size == before.top_size[b]:
            if bool(before.top_wild[b]) != bool(after.top_wild[b]):
                out.add("wild_tie_beat")
            else:
                out.add("equal_beat")
        if name == rules.transparent_rank and after.top_rank[b] not in (-1, rank):
            out.add("transparent")
        if cleared and name in rules.reset_ranks and size == 1:
            out.add("reset")
        if cleared and name in rules.trump_ranks:
            out.add("trump")
        if cleared and rules.eight_cut and name == "8":
            out.add("eight_cut")
        if cleared and rules.four_of_a_kind == "bomb" and size >= 4:
            out.add("bomb")
        if cleared and rules.complete_set_clears and rank == before.top_rank[b]:
            out.add("complete_set")
        if rules.equal_play_skips and rank == before.top_rank[b] and not cleared:
            out.add("skip")
        if after.finish[b].max() == rules.players - 1 and (after.finish[b] < 0).sum() > 1:
            out.add("forbidden_finish")
        if rules.pass_rule == "single_round" and cleared and before.top_rank[b] >= 0:
            out.add("round_over")
    return out


def card_events(rules: Rules, before: State, after: State, b: int, a: int) -> set[str]:
    """Card-level rules: which section-8 situations a play (action ``a`` in game ``b``) made."""
    t, table = tables(rules), action_table(rules)
    out = set()
    cleared = after.top_rank[b] < 0
    on_set = before.top_rank[b] >= 0 and before.top_run[b] == 0
    if before.claim_rank[b] >= 0:
        out.add("claim")
    if table.run[a]:
        out.add("run_lead" if before.top_rank[b] < 0 else "run_beats_run")
        if (after.moved[b] & t.card_wild).any():
            out.add("run_with_wild")
        if cleared:
            out.add("run_clears")
        return out
    if before.top_run[b] > 0:
        out.add("set_on_run")  # a trump, bomb, power or reset play
    if not on_set:
        return out
    top = np.flatnonzero(before.top_cards[b])
    suits = {rules.suit_order[t.card_suit[c]] for c in top if t.card_suit[c] >= 0}
    if table.rank[a] == before.top_rank[b] and table.size[a] == before.top_size[b]:
        if rules.suit_rule == "rank":
            out.add("suit_beat")
        if rules.suit_rule == "colour":
            out.add("colour_reversed")
    if rules.suit_rule == "follow" and before.top_size[b] == 1 and table.size[a] == 1 and table.cards[a]:
        mine = table.cards[a][0][-1]
        if suits and mine in suits:
            out.add("followed_suit")
    return out


def poker_events(rules: Rules, before: State, after: State, actions: np.ndarray) -> set[str]:
    """Poker: the kinds of the plays made in this step, and the situations of choices 44-46 they made."""
    from president_env.core import poker as PK

    ct = PK.claim_table(rules)
    out = set()
    in_play = before.phase == 1
    play = in_play & (actions > 0)
    made = play & after.moved.any(axis=1)
    for b in np.flatnonzero(made):
        claim = int(before.poker_claim[b])
        out.add("poker " + PK.KIND_NAMES[int(ct.kind[claim])])
        if claim == before.top_claim[b]:
            out.add("poker_same_claim")
        bomb = bool(ct.bomb[claim]) and rules.four_of_a_kind == "bomb"
        if bomb and not after.hand_over[b] and after.top_claim[b] == 0:
            out.add("bomb")
        if bomb and before.top_claim[b] and ct.n[claim] != ct.n[before.top_claim[b]]:
            out.add("poker_bomb_on_other_count")
        if after.finish[b].max() == rules.players - 1 and (after.finish[b] < 0).sum() > 1:
            out.add("forbidden_finish")
    if (in_play & (actions == 0)).any():
        out.add("pass")
    if rules.pass_rule == "single_round" and (in_play & (before.top_claim > 0) & (after.top_claim == 0)
                                              & ~after.hand_over).any():
        out.add("round_over")
    return out


def lockstep(rules: Rules, batch: int, seed: int, steps: int, start_ranks=None) -> set[str]:
    """Random legal play on a batch and its games one at a time (``ScalarGame``), compared after every
    step: stepping a game alone plays it as the batch does; the events seen."""
    rng = np.random.default_rng(seed)
    st = init(rules, batch, seed, start_ranks=start_ranks)
    twins = [ScalarGame.from_state(rules, st, b) for b in range(batch)]
    assert_same(rules, st, twins, "init")
    seen: set[str] = set()
    for i in range(steps):
        noise = rng.random(st.legal.shape)
        actions = np.argmax(np.where(st.legal, noise, -1.0), axis=1)
        before = st.copy()
        step_inplace(rules, st, actions)
        for g, a in zip(twins, actions.tolist(), strict=True):
            g.step(a)
        assert_same(rules, st, twins, f"step {i}, actions {actions.tolist()}")
        seen |= events(rules, before, st, actions)
        if (st.phase == OVER).all():
            break
    return seen


PLAYER_COUNTS = {"double_deck": (8, 12, 5), "huberes": (6, 4, 8), "merchants": (6, 7, 8),
                 "rich_man_poor_man": (4, 3, 7), "uecda": (5, 6, 8)}   # uecda scores five places


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_in_lockstep(name):
    seen = set()
    for i, players in enumerate(PLAYER_COUNTS.get(name, (4, 3, 8))):
        rules = preset(name, players=players, hands_per_session=2)
        seen |= lockstep(rules, batch=4, seed=i, steps=800, start_ranks="random" if i == 1 else None)
    assert {"next_hand", "session_over", "give_back"} <= seen


@pytest.mark.parametrize("players", [5, 6, 7])
def test_player_counts_and_longer_sessions(players):
    rules = preset("president", players=players, target_points=5)
    seen = lockstep(rules, batch=3, seed=players, steps=1500)
    assert {"next_hand", "session_over", "give_back"} <= seen


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_poker_player_counts(players):
    """rich_man_poor_man (combinations poker) at 3 to 7 players: claims, picks and plays in lockstep."""
    rules = preset("rich_man_poor_man", players=players, hands_per_session=2)
    seen = lockstep(rules, batch=3, seed=players, steps=2000)
    seen |= lockstep(rules, batch=2, seed=10 + players, steps=1000, start_ranks="random")
    assert {"next_hand", "session_over", "give_back", "pass", "poker set", "wild_play"} <= seen
    assert len({e for e in seen if e.startswith("poker ")}) >= 3, sorted(seen)


SHORT = "3 4 5 6 7 8 9 T"  # a short deck: sets of four and complete sets come up often in random play
SPECIAL = {
    "transparent": (Rules(players=4, transparent_rank="3", target_points=4), {"transparent"}),
    "transparent_wild": (Rules(players=5, transparent_rank="5", jokers=1, joker_mode="wild",
                               wild_ranks={"JK", "2"}, target_points=4), {"transparent", "wild_play"}),
    "reset": (Rules(players=5, reset_ranks={"2"}, target_points=4), {"reset"}),
    "reset_trump_bomb": (Rules(players=3, rank_order=SHORT, reset_ranks={"T"}, trump_ranks={"9"},
                               four_of_a_kind="bomb", target_points=8), {"reset", "trump", "bomb"}),
    "wild_tie_natural": (preset("daifugo", players=4, wild_tie="natural_higher", target_points=8),
                         {"wild_tie_beat", "wild_play"}),
    "wild_tie_wild": (preset("huberes", players=5, wild_tie="wild_higher", target_points=8),
                      {"wild_tie_beat", "wild_play"}),
    "wild_tie_equal_beats": (preset("daifugo", players=5, wild_tie="wild_higher", equal_rank_beats=True,
                                     target_points=4), {"equal_beat", "wild_play"}),
    "skips_locks_out": (Rules(players=5, equal_rank_beats=True, equal_play_skips=True, pass_rule="locks_out",
                              target_points=4), {"skip"}),
    "skips_single_round": (Rules(players=6, equal_rank_beats=True, equal_play_skips=True,
                                 pass_rule="single_round", target_points=4), {"skip", "round_over"}),
    "skips_bigger_beats_any": (Rules(players=3, equal_rank_beats=True, equal_play_skips=True,
                                     size_rule="bigger_beats_any", direction="counter_clockwise",
                                     target_points=4), {"skip"}),
    "revolution_and_reverse": (Rules(players=3, rank_order=SHORT, four_of_a_kind="revolution_and_reverse",
                                     exchange=(1,), target_points=8), {"revolution", "reverse"}),
    "president_must_win": (Rules(players=5, president_must_win=True, target_points=6), {"president_falls"}),
    "complete_set": (Rules(players=4, complete_set_clears=True, equal_rank_beats=True, target_points=4),
                     {"complete_set"}),
    "complete_set_two_decks": (Rules(players=4, decks=2, rank_order=SHORT, complete_set_clears=True,
                                     equal_rank_beats=True, size_rule="at_least", target_points=8),
                               {"complete_set"}),
    "bomb": (Rules(players=3, rank_order=SHORT, four_of_a_kind="bomb", target_points=8), {"bomb"}),
    "compulsory_locks_out": (Rules(players=4, compulsory_beat=True, pass_rule="locks_out", target_points=4),
                             set()),
    "eight_cut_forbidden": (Rules(players=5, eight_cut=True, forbidden_finish={"2", "8"},
                                  extra_cards_to="bottom_ranks", target_points=4),
                            {"eight_cut", "forbidden_finish"}),
    "no_exchange_no_reseat": (Rules(players=4, exchange=(), reseat=False, lead_after_first="scum",
                                    extra_cards_to="top_ranks", hands_per_session=3), {"next_hand"}),
    # Card-level rules (section 8: suit_rule, runs)
    "suit_rank_wild_revolution": (Rules(players=4, rank_order=SHORT, suit_rule="rank", wild_ranks={"9"},
                                        four_of_a_kind="revolution", equal_rank_beats=True, target_points=6),
                                  {"suit_beat", "revolution", "wild_play"}),
    "suit_rank_wild_tie_two_decks": (Rules(players=5, decks=2, suit_rule="rank", wild_ranks={"2"},
                                           wild_tie="natural_higher", target_points=4), {"suit_beat", "wild_play"}),
    "follow_wild_jokers": (Rules(players=4, suit_rule="follow", jokers=2, joker_mode="wild", wild_ranks={"JK"},
                                 high_cards=("JD",), target_points=4), {"followed_suit", "wild_play"}),
    "colour_bigger_beats_any": (Rules(players=4, rank_order=SHORT, suit_rule="colour", size_rule="bigger_beats_any",
                                      complete_set_clears=True, target_points=6), {"colour_reversed"}),
    "runs_wild_quick_clear": (Rules(players=4, runs=3, jokers=2, joker_mode="wild", wild_ranks={"JK", "2"},
                                    quick_clear=True, eight_cut=True, four_of_a_kind="revolution", target_points=4),
                              {"run_lead", "run_beats_run", "run_with_wild", "claim"}),
    "runs_trump_reset_bomb": (Rules(players=3, rank_order=SHORT, runs=3, trump_ranks={"T"}, reset_ranks={"3"},
                                    four_of_a_kind="bomb", complete_set_clears=True, equal_play_skips=True,
                                    equal_rank_beats=True, target_points=8),
                              {"run_lead", "run_beats_run", "set_on_run"}),
    "runs_two_decks_suits": (Rules(players=6, decks=2, runs=4, suit_rule="rank", wild_ranks={"2"},
                                   pass_rule="single_round", target_points=4), {"run_lead", "suit_beat"}),
    # Poker combinations (docs/rules.md choices 41-48)
    "poker_bomb_compulsory": (preset("rich_man_poor_man", players=3, rank_order=SHORT + " 2", four_of_a_kind="bomb",
                                     compulsory_beat=True, target_points=6),
                              {"bomb", "poker_bomb_on_other_count", "poker four of a kind"}),
    "poker_revolution_equal": (preset("rich_man_poor_man", players=3, rank_order=SHORT, wild_ranks={"9"},
                                      four_of_a_kind="revolution_and_reverse", equal_rank_beats=True,
                                      pass_rule="single_round", direction="counter_clockwise", target_points=6),
                               {"revolution", "reverse", "poker_same_claim", "round_over"}),
    "poker_two_decks": (Rules(players=5, decks=2, combinations="poker", rank_order=SHORT, wild_ranks={"T"},
                              suit_order=("S", "H", "D", "C"), first_lead="dealer", forbidden_finish={"T"},
                              president_must_win=True, pass_rule="locks_out", target_points=4),
                        {"poker five of a kind", "poker flush", "forbidden_finish"}),
    "poker_merchants_expose": (preset("rich_man_poor_man", players=6, merchant_trade=True, hand_assignment="expose",
                                      exchange=(1, 1), target_points=4), {"give_back", "poker set"}),
}


@pytest.mark.parametrize("case", list(SPECIAL))
def test_special_options_in_lockstep(case):
    rules, wanted = SPECIAL[case]
    seen = lockstep(rules, batch=4, seed=0, steps=250)
    seen |= lockstep(rules, batch=4, seed=1, steps=250, start_ranks="random")
    if rules.poker:  # a poker play takes a claim and a pick per card: a third batch for the rarer claims
        seen |= lockstep(rules, batch=4, seed=3, steps=250)
    assert wanted <= seen, f"never came up in play: {sorted(wanted - seen)}"


def test_given_start_ranks_deal_and_dealer():
    rules = preset("butthead", players=5, hands_per_session=2)
    ranks = np.array([[3, 0, 4, 1, 2], [1, 2, 3, 4, 0]])
    st = init(rules, 2, 5, start_ranks=ranks, dealer=np.array([1, 3]))
    twins = [ScalarGame.from_state(rules, st, b) for b in range(2)]
    assert_same(rules, st, twins, "init from ranks")
    assert [g.phase for g in twins] == [EXCHANGE, EXCHANGE]


def test_new_is_engine_init():
    rules = preset("daifugo")
    g = ScalarGame.new(rules, 9, start_ranks="random")
    assert_same(rules, init(rules, 1, 9, start_ranks="random"), [g], "new")


def test_illegal_actions_raise():
    rules = preset("president")
    g = ScalarGame.new(rules, 0)
    illegal = next(a for a in range(1, 53) if a not in g.legal)
    with pytest.raises(IllegalActionError, match=rf"illegal action {illegal} \(.*legal: \{{"):
        g.step(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        g.step(53)
    with pytest.raises(IllegalActionError, match="out of range"):
        g.step(-1)
    with pytest.raises(IllegalActionError, match="integers"):
        g.step(1.0)
    with pytest.raises(IllegalActionError, match="integers"):
        g.step(True)
    with pytest.raises(IllegalActionError, match="illegal action 0"):
        g.step(0)  # the leader may not pass
    before = g.to_state()
    assert_same(rules, before, [g], "a refused action changes nothing")
    g.step(np.int64(g.legal[0]))  # NumPy integers are fine


def test_copy_is_independent_and_round_trip():
    rules = preset("huberes")
    g = ScalarGame.new(rules, 4, start_ranks="random")
    for _ in range(30):
        g.step(g.legal[-1])
    h = g.copy()
    snapshot = g.to_state()
    while not h.over:
        h.step(h.legal[0])
    assert_same(rules, snapshot, [g], "copy")
    assert_same(rules, snapshot, [ScalarGame.from_state(rules, snapshot)], "from_state(to_state)")
    with pytest.raises(ValueError, match="fit these rules"):
        ScalarGame.from_state(preset("president"), snapshot)


def test_aec_env_observes_its_core_state():
    env = president_env.raw_env("revolution", players=5, target_points=3, start_ranks="random")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    while not all(env.terminations.values()):
        st = env.core_state
        for p, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            np.testing.assert_array_equal(obs["observation"], O.observe(env.rules, st, p)[0])
            mine = p == env.game.current_player
            np.testing.assert_array_equal(obs["action_mask"], st.legal[0].astype(np.int8) * mine)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    assert steps > 50


def test_batch_conversions_equal_the_single_ones() -> None:
    rules = preset("daifugo", players=5)
    st = E.init(rules, 9, seed=4, start_ranks="random")
    rng = np.random.default_rng(2)
    for _ in range(40):
        st = E.step(rules, st, (rng.random(st.legal.shape) * st.legal).argmax(axis=1))
    idx = np.array([7, 0, 3, 3])
    many = ScalarGame.from_states(rules, st, idx)
    one = [ScalarGame.from_state(rules, st, int(b)) for b in idx]
    for a, b in zip(many, one, strict=True):
        assert a.state == b.state and a.legal == b.legal
    together, apart = ScalarGame.to_states(many), State.concat([g.to_state() for g in one])
    for f in field_names():
        np.testing.assert_array_equal(getattr(together, f), getattr(apart, f), err_msg=f)
        assert getattr(together, f).dtype == getattr(apart, f).dtype
    np.testing.assert_array_equal(together.hands, st.hands[idx])
