"""Randomised property tests of the batched core, for every preset and player count."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import player_counts

from president_env.core import EXCHANGE, OVER, PLAY, IllegalActionError, init, preset, step, tables
from president_env.core.cards import WILD
from president_env.core.rules import PRESETS, Rules
from president_env.core.state import field_names

# Rules no preset plays, played like the presets: name -> (the preset, the options changed). An option no preset
# uses gets a case here (docs/adding_a_variant.md), so that the random games below exercise it.
OPTION_CASES = {
    "uecda+optional": ("uecda", {"eleven_back": True, "six_reverse": True, "five_skip": True}),
    "locks_out+uec": ("locks_out", {"lead_may_pass": True, "trick_end": "all_passed", "pass_limit": 12,
                                    "eleven_back": True, "six_reverse": True, "five_skip": True, "lead_card": "5H",
                                    "reseat": False, "random_seats_every": 1, "rank_reset_every": 2}),
}
CASES = [(name, p) for name in PRESETS for p in player_counts(name)] + \
    [(name, p) for name, (base, _) in OPTION_CASES.items() for p in player_counts(base)]


def _rules(name: str, players: int, hands: int = 3) -> Rules:
    base, options = OPTION_CASES.get(name, (name, {}))
    return preset(base, players=players, hands_per_session=hands, **options)


def _random_legal(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(legal.shape) * legal).argmax(axis=1)


def reference_legal(rules: Rules, st, b: int) -> np.ndarray:
    """Legal actions of game b, restated one candidate at a time from sections 3-5 of the rule book."""
    t = tables(rules)
    S, R = rules.max_set, t.n_play_ranks
    out = np.zeros(1 + R * S, dtype=bool)
    phase = int(st.phase[b])
    if phase == OVER:
        out[0] = True
        return out
    seat = int(st.current[b])
    cnt = st.counts[b, seat]
    wild = int(sum(cnt[k] for k in range(t.n_kinds) if t.kind_wild[k]))
    nat = [int(cnt[t.play_kind[p]]) if t.play_ranks[p] != WILD else 0 for p in range(R)]
    if phase == EXCHANGE:
        for p in range(R):
            held = wild if t.play_ranks[p] == WILD else nat[p]
            out[1 + p * S] = held > 0
        return out
    claim = int(st.claim_rank[b])
    if claim >= 0:  # quick_clear: decline, or claim every natural card of the rank (section 8)
        out[0] = True
        out[1 + claim * S + nat[claim] - 1] = True
        return out
    top, ts = int(st.top_rank[b]), int(st.top_size[b])
    lead = top < 0
    rev = bool(st.revolution[b]) != bool(rules.eleven_back and st.eleven_back[b])   # the order in force
    strength = t.strength[int(rev)]
    name = t.play_ranks
    reset = {rules.revolution_reset_rank} if (rev and rules.revolution_reset_rank) else rules.reset_ranks
    power = rules.power
    power_floor = min((strength[name.index(r)] for r in power), default=None)
    d = rules.decks
    for p in range(R):
        for s in range(1, S + 1):
            if name[p] == WILD:
                have = wild >= s
            elif name[p] in rules.high_cards:  # a high card is played only as a single (section 8)
                have = nat[p] >= 1 and s == 1
            else:
                have = nat[p] >= 1 and nat[p] + wild >= s
            if not have:
                continue
            if lead:
                ok = True
            else:
                higher = strength[p] > strength[top]
                same = p == top
                rank_ok = higher or (rules.equal_rank_beats and same)
                if rules.size_rule == "equal":
                    ok = s == ts and rank_ok
                elif rules.size_rule == "at_least":
                    ok = s >= ts and rank_ok
                else:
                    ok = s > ts or (s == ts and rank_ok)
                if rules.wild_tie != "equal" and same and s == ts and name[p] != WILD:
                    natural = nat[p] >= s
                    top_natural = not st.top_wild[b]
                    if natural != top_natural:  # only the higher of the two beats (fine point 3)
                        ok = natural if rules.wild_tie == "natural_higher" else not natural
                ok |= name[p] == rules.transparent_rank and s == ts
                ok |= name[p] in rules.trump_ranks and higher
                ok |= name[p] in reset and s == 1
                ok |= rules.four_of_a_kind == "bomb" and s >= 4
                ok |= rules.complete_set_clears and same and int(st.top_count[b]) + s >= S
                if name[p] in power and s % d == 0 and s // d <= len(power[name[p]]):
                    n = s // d   # n cards of a power rank beat a set of n+1 .. list[n-1] below every power rank
                    ok |= strength[top] < power_floor and n * d < ts <= d * power[name[p]][n - 1]
            if st.first_lead[b] and p != t.lowest_play_rank:
                ok = False  # fine point 14: the first lead holds the lowest card, whatever a rule adds
            out[1 + p * S + s - 1] = ok
    lead_pass = rules.lead_may_pass and not st.first_lead[b]   # (the first lead must play the lowest card)
    out[0] = (not lead or lead_pass) and not (rules.compulsory_beat and out[1:].any())
    return out


@pytest.mark.parametrize("name,players", CASES)
def test_random_games_keep_every_invariant(name: str, players: int) -> None:
    rules = _rules(name, players)
    t = tables(rules)
    B = 12
    st = init(rules, B, seed=players)
    rng = np.random.default_rng(players)
    hands_seen = np.zeros(B, dtype=int)
    checked_ref = 0
    for _ in range(3000):
        if (st.phase == OVER).all():
            break
        live = st.phase != OVER
        # Cards are conserved: held + played + discarded = the pack.
        total = st.counts.sum(axis=1) + st.played + st.discarded
        assert (total[live] == t.kind_count).all()
        assert (st.hands.sum(axis=2) == st.n_cards).all()
        # A leader may never pass (but with lead_may_pass after the first lead); masks only offer cards held.
        leading = (st.phase == PLAY) & (st.top_rank < 0)
        assert (st.legal[leading, 0] == (rules.lead_may_pass & ~st.first_lead[leading])).all()
        assert st.legal.any(axis=1).all()
        # The mask matches the rule book, restated candidate by candidate (rank-level rules; the card-level
        # table is restated in tests/test_card_level.py and checked against ScalarGame in tests/test_scalar.py,
        # poker in tests/test_poker.py).
        for b in range(0, B, 3) if not rules.names_cards else ():
            np.testing.assert_array_equal(st.legal[b], reference_legal(rules, st, b), err_msg=f"game {b}")
            checked_ref += 1
        st = step(rules, st, _random_legal(st.legal, rng))
        if st.hand_over.any():
            ended = np.flatnonzero(st.hand_over)
            hands_seen[ended] += 1
            for b in ended:
                # The finishing order is a permutation and the points are the rule book's.
                assert sorted(st.last_finish[b]) == list(range(players))
                assert st.hand_points[b].tolist() == [rules.points[p] for p in st.last_finish[b]]
    assert (st.phase == OVER).all(), "every session of 3 hands ends"
    assert (hands_seen == 3).all()
    assert (st.points.sum(axis=1) == 3 * sum(rules.points)).all()
    assert checked_ref > 0 or rules.names_cards


@pytest.mark.parametrize("name", PRESETS)
def test_batch_equals_one_by_one_and_same_seed_same_game(name: str) -> None:
    rules = _rules(name, preset(name).players, hands=2)
    B = 5
    batch = init(rules, B, seed=7)
    singles = [init(rules, keys=batch.key[i : i + 1]) for i in range(B)]
    again = init(rules, B, seed=7)
    rngs = [np.random.default_rng(i) for i in range(B)]
    for _ in range(400):
        acts = np.array([_random_legal(batch.legal[i : i + 1], rngs[i])[0] for i in range(B)])
        batch = step(rules, batch, acts)
        again = step(rules, again, acts)
        singles = [step(rules, s, acts[i : i + 1]) for i, s in enumerate(singles)]
    for f in field_names():
        whole = getattr(batch, f)
        np.testing.assert_array_equal(whole, np.concatenate([getattr(s, f) for s in singles]), err_msg=f)
        np.testing.assert_array_equal(whole, getattr(again, f), err_msg=f)


def test_different_seeds_deal_differently() -> None:
    rules = preset("president")
    a, b = init(rules, 4, seed=1), init(rules, 4, seed=2)
    assert not np.array_equal(a.hands, b.hands)


def test_step_is_pure() -> None:
    rules = preset("president")
    st = init(rules, 3, seed=0)
    before = st.copy()
    step(rules, st, _random_legal(st.legal, np.random.default_rng(0)))
    for f in field_names():
        np.testing.assert_array_equal(getattr(st, f), getattr(before, f), err_msg=f)


def test_bad_actions_are_refused_with_a_clear_error() -> None:
    rules = preset("president")
    st = init(rules, 2, seed=0)
    legal = _random_legal(st.legal, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match=r"shape \(2,\)"):
        step(rules, st, legal[:1])
    with pytest.raises(IllegalActionError, match="integers"):
        step(rules, st, legal.astype(float))
    with pytest.raises(IllegalActionError, match="out of range"):
        step(rules, st, np.array([legal[0], 999]))
    bad = legal.copy()
    bad[1] = 0  # the leader may not pass
    with pytest.raises(IllegalActionError, match=r"game 1: illegal action 0 \(pass\)"):
        step(rules, st, bad)


def test_finished_sessions_only_pass_and_stay_put() -> None:
    rules = preset("president", hands_per_session=1)
    st = init(rules, 2, seed=3)
    rng = np.random.default_rng(0)
    while not (st.phase == OVER).all():
        st = step(rules, st, _random_legal(st.legal, rng))
    assert st.legal[:, 0].all() and not st.legal[:, 1:].any()
    after = step(rules, st, np.zeros(2, dtype=np.int64))
    np.testing.assert_array_equal(after.points, st.points)
    np.testing.assert_array_equal(after.hands, st.hands)


@pytest.mark.parametrize("name", ["president", "daifugo", "ass_poker"])
def test_stepping_where_equals_stepping_the_sub_batch(name: str) -> None:
    from president_env.core import step_inplace

    rules = _rules(name, preset(name).players)
    B = 8
    masked = init(rules, B, seed=11, start_ranks="random")
    ref = masked.copy()
    rng = np.random.default_rng(1)
    for _ in range(300):
        acts = _random_legal(masked.legal, rng)
        where = rng.random(B) < 0.6
        junk = np.where(where, acts, 999)  # actions of games not stepped are ignored
        step_inplace(rules, masked, junk, where=where)
        idx = np.flatnonzero(where)
        sub = ref.take(idx)
        step_inplace(rules, sub, acts[idx])
        ref.put(idx, sub)
        for f in field_names():
            if f in ("hand_over", "hand_points", "moved"):
                np.testing.assert_array_equal(getattr(masked, f)[idx], getattr(ref, f)[idx])
                continue
            np.testing.assert_array_equal(getattr(masked, f), getattr(ref, f), err_msg=f)
