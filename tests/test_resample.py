"""Resampling the hidden cards (president_env.core.resample): what the observer sees never changes,
cards are conserved, known cards stay put, and the rest are dealt uniformly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from president_env.core import (
    OVER,
    PLAY,
    PRESETS,
    ScalarGame,
    State,
    current_player,
    init,
    observe,
    preset,
    step_inplace,
    tables,
)
from president_env.core.records import random_actions
from president_env.core.resample import WORLD_FIELDS, resample, resample_game, worlds_from_observation
from president_env.core.state import field_names

# What resample may change: the hidden hands and what derives from them.
CHANGED = {"hands", "counts", "discarded", "trade_pick", "poker_claim", "picked", "legal"}


def random_states(rules, seed: int, games: int = 24, max_steps: int = 90) -> State:
    """Games of ``rules`` stopped after a random number of random legal steps (exchanges included)."""
    rng = np.random.default_rng(seed)
    st = State.concat([init(rules, batch_size=games // 2, seed=seed),            # a first hand, no ranks
                       init(rules, batch_size=games - games // 2, seed=seed + 1, start_ranks="random")])
    stop = rng.integers(0, max_steps, games)
    snaps: list[State | None] = [None] * games
    for t in range(max_steps):
        for b in np.flatnonzero(stop == t):
            snaps[b] = st.take(np.array([b]))
        step_inplace(rules, st, random_actions(st.legal, rng))
    out = State.concat([s for s in snaps if s is not None])
    return out.take(np.flatnonzero(out.phase != OVER))


def kinds_total(st: State) -> np.ndarray:
    return st.counts.sum(axis=1).astype(np.int64) + st.discarded + st.played


@pytest.mark.parametrize("name", PRESETS)
def test_resample_keeps_the_observation_and_conserves_cards(name):
    rules = preset(name)
    st = random_states(rules, seed=PRESETS.index(name))
    rng = np.random.default_rng(1)
    n = 3
    idx = np.repeat(np.arange(st.batch_size), n)
    changed_any = False
    for player in range(rules.players):
        w = resample(rules, st, player, n, rng)
        assert w.batch_size == st.batch_size * n
        np.testing.assert_array_equal(observe(rules, w, player), observe(rules, st, player)[idx])
        assert (w.hands.sum(axis=1) <= 1).all(), "a card in two hands"
        np.testing.assert_array_equal(w.hands.sum(axis=2), w.n_cards)
        np.testing.assert_array_equal(w.n_cards, st.n_cards[idx])
        K = w.counts.shape[2]
        onehot = np.eye(K, dtype=np.int64)[tables(rules).card_kind]
        np.testing.assert_array_equal(w.hands.astype(np.int64) @ onehot, w.counts)
        np.testing.assert_array_equal(kinds_total(w), kinds_total(st)[idx])
        seat = np.argmax(st.seat_player == player, axis=1)[idx]
        np.testing.assert_array_equal(w.hands[np.arange(w.batch_size), seat], st.hands[idx, seat])
        assert w.legal.any(axis=1).all()
        for f in field_names():
            if f not in CHANGED:
                np.testing.assert_array_equal(getattr(w, f), getattr(st, f)[idx], err_msg=f)
        changed_any |= bool((w.hands != st.hands[idx]).any())
        # a resampled world plays on: one legal step in every game
        step_inplace(rules, w, random_actions(w.legal, rng))
    assert changed_any, "nothing was dealt again"


@pytest.mark.parametrize("name", PRESETS)
def test_worlds_from_observation_match_the_observation(name):
    rules = preset(name)
    st = random_states(rules, seed=100 + PRESETS.index(name))
    cur = current_player(st)
    obs = observe(rules, st, cur)
    w = worlds_from_observation(rules, obs, 2, np.random.default_rng(2))
    np.testing.assert_array_equal(observe(rules, w, 0), np.repeat(obs, 2, axis=0))
    np.testing.assert_array_equal(w.legal, np.repeat(st.legal, 2, axis=0))   # the same decision
    np.testing.assert_array_equal(kinds_total(w), np.repeat(kinds_total(st), 2, axis=0))


def exchanged(rules, seed: int, games: int = 64) -> State:
    """Sessions with ranks right after every exchange decision (random give-backs), before any play."""
    rng = np.random.default_rng(seed)
    st = init(rules, batch_size=games, seed=seed, start_ranks="random")
    while (st.phase != PLAY).any():
        step_inplace(rules, st, random_actions(st.legal, rng), where=st.phase != PLAY)
    return st


def seat_of_rank(st: State, rank: int) -> np.ndarray:
    return np.argmax(st.social == rank, axis=1)


def test_cards_given_in_the_exchange_stay_with_the_receiver():
    rules = preset("president")
    st = exchanged(rules, seed=3)
    ar = np.arange(st.batch_size)
    rng = np.random.default_rng(4)
    n = 20
    idx = np.repeat(ar, n)
    pres, scum = seat_of_rank(st, 0), seat_of_rank(st, 3)
    # The President knows where its give-backs went; Scum knows where its best cards went.
    for giver, receiver, kept_back in ((pres, scum, False), (scum, pres, True)):
        player = st.seat_player[ar, giver]
        w = resample(rules, st, player, n, rng)
        sent = st.exch_out[ar, giver].astype(np.int64)
        if kept_back:                                   # the President may have given some back
            sent = np.maximum(sent - st.exch_in[ar, giver], 0)
        held = w.counts[np.arange(w.batch_size), receiver[idx]].astype(np.int64)
        assert (held >= sent[idx]).all()
        assert sent.sum() > 0


def test_a_forced_giver_keeps_nothing_better_than_what_it_gave():
    rules = preset("president")
    st = exchanged(rules, seed=5)
    ar = np.arange(st.batch_size)
    pres, scum = seat_of_rank(st, 0), seat_of_rank(st, 3)
    w = resample(rules, st, st.seat_player[ar, pres], 20, np.random.default_rng(6))
    idx = np.repeat(ar, 20)
    got = st.exch_in[ar, pres]                           # Scum's two best cards, by kind (kinds: weakest first)
    worst = np.argmax(got > 0, axis=1)
    gave_back = st.exch_out[ar, pres]
    held = w.counts[np.arange(w.batch_size), scum[idx]].astype(np.int64)
    K = held.shape[1]
    better = np.arange(K)[None, :] > worst[idx][:, None]
    assert (held[better] <= gave_back[idx][better]).all()
    # and it is a real restriction: the President's view does not fix Scum's hand
    assert (w.counts[np.arange(w.batch_size), scum[idx]] != st.counts[idx, scum[idx]]).any()


def test_exposed_cards_stay_on_their_pile_until_given():
    rules = preset("expose_hands")
    st = init(rules, batch_size=32, seed=7, start_ranks="random")   # forced gifts made, no give-back yet
    ar = np.arange(st.batch_size)
    kind = tables(rules).card_kind
    scum = seat_of_rank(st, 3)
    n = 10
    w = resample(rules, st, st.seat_player[ar, scum], n, np.random.default_rng(8))
    idx = np.repeat(ar, n)
    checked = 0
    for rank in (0, 1):                                  # President and Vice-President have given nothing yet
        s = seat_of_rank(st, rank)
        assert (st.exch_out[ar, s] == 0).all() and (st.exposed[ar, s] >= 0).all()
        k = kind[st.exposed[ar, s]]
        held = w.counts[np.arange(w.batch_size), s[idx], k[idx]]
        assert (held >= 1).all()
        checked += 1
    # the kind is known, the rest of the pile is not
    s = seat_of_rank(st, 0)
    assert (w.counts[np.arange(w.batch_size), s[idx]] != st.counts[idx, s[idx]]).any()


def test_the_first_leader_holds_the_lowest_card():
    rules = preset("president")
    st = init(rules, batch_size=32, seed=9)              # first hand: the holder of the 3 of clubs leads
    assert st.first_lead.all()
    lowest = tables(rules).lowest_card
    ar = np.arange(32)
    other = (st.current.astype(np.int64) + 1) % 4
    w = resample(rules, st, st.seat_player[ar, other], 8, np.random.default_rng(10))
    cur = w.current.astype(np.int64)
    assert w.hands[np.arange(w.batch_size), cur, lowest].all()


@pytest.mark.parametrize("start", ["first_hand", "after_exchange"])
def test_under_lead_card_the_leader_holds_it_and_need_not_play_it(start):
    # uecda: the holder of the 3 of diamonds leads every hand's first trick with any play. The worlds of
    # another seat give the leader that card; the leader's own worlds keep its free choice (a world that
    # kept first_lead's "must play the lowest card" let search choose a play the real game refused)
    rules = preset("uecda")
    st = init(rules, batch_size=32, seed=9) if start == "first_hand" else exchanged(rules, seed=9, games=32)
    assert not st.first_lead.any()
    ar = np.arange(32)
    cur = st.current.astype(np.int64)
    d3 = tables(rules).card_names.index("3D")
    assert st.hands[ar, cur, d3].all()
    other = (cur + 1) % rules.players
    w = resample(rules, st, st.seat_player[ar, other], 8, np.random.default_rng(10))
    assert w.hands[np.arange(w.batch_size), w.current.astype(np.int64), d3].all()
    np.testing.assert_array_equal(kinds_total(w), np.repeat(kinds_total(st), 8, axis=0))
    obs = observe(rules, st, current_player(st))
    worlds = worlds_from_observation(rules, obs, 2, np.random.default_rng(2))
    np.testing.assert_array_equal(worlds.legal, np.repeat(st.legal, 2, axis=0))


def test_resample_game_matches_the_batched_resample():
    rules = preset("president")
    g = ScalarGame.new(rules, 11, start_ranks="random")
    while g.phase != PLAY:
        g.step(g.legal[0])
    for _ in range(9):
        g.step(g.legal[-1])
    player = (g.current_player + 1) % 4
    games = resample_game(rules, g, player, 6, np.random.default_rng(12))
    assert len(games) == 6
    for h in games:
        np.testing.assert_array_equal(h.observe(player), g.observe(player))
        np.testing.assert_array_equal(h.state.n_cards, g.state.n_cards)
        assert sorted(h.legal) == sorted(h.legal_mask().nonzero()[0].tolist())
    assert len({h.state.hands.tobytes() for h in games}) > 1
    again = resample_game(rules, g, player, 6, np.random.default_rng(12))
    assert [h.state.hands.tobytes() for h in again] == [h.state.hands.tobytes() for h in games]   # seeded


def chi2_limit(dof: int, z: float = 4.75) -> float:
    """Wilson-Hilferty upper quantile of chi-square (z = 4.75: p about 1e-6, a generous threshold)."""
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def landing_counts(w: State, n: int, cards: np.ndarray, places: list[int]) -> np.ndarray:
    """(cards, places) how often each card landed in each seat over the copies."""
    return np.stack([w.hands[:, places, c].sum(axis=0) for c in cards])


def test_hidden_cards_land_uniformly_without_constraints():
    rules = preset("president")
    st = init(rules, batch_size=1, seed=13)
    rng = np.random.default_rng(14)
    for _ in range(11):                                   # some play, no exchange in the first hand
        step_inplace(rules, st, random_actions(st.legal, rng))
    player = int(current_player(st)[0])
    seat = int(np.argmax(st.seat_player[0] == player))
    places = [s for s in range(4) if s != seat]
    n = 6000
    w = resample(rules, st, player, n, np.random.default_rng(15))
    hidden = np.flatnonzero(st.hands[0, places].any(axis=0))
    obs_counts = landing_counts(w, n, hidden, places)
    sizes = st.n_cards[0, places].astype(np.int64)
    expected = n * sizes / sizes.sum()
    chi2 = float((((obs_counts - expected) ** 2) / expected).sum())
    dof = len(hidden) * (len(places) - 1)
    assert chi2 < chi2_limit(dof), (chi2, dof)


def test_hidden_cards_land_as_a_uniform_consistent_deal_with_a_restricted_giver():
    """Against a rejection-sampling reference: deal the hidden cards uniformly, keep deals that fit."""
    rules = preset("president")
    st = exchanged(rules, seed=16, games=16)
    got = st.exch_in[np.arange(16), seat_of_rank(st, 0)] > 0
    b = int(np.argmax(np.argmax(got, axis=1) == 11))    # worst gift an ace: Scum holds no two (and the reference
    assert np.argmax(got[b]) == 11                      # accepts often enough)
    st = st.take(np.array([b]))
    pres, scum = int(seat_of_rank(st, 0)[0]), int(seat_of_rank(st, 3)[0])
    player = int(st.seat_player[0, pres])
    kind = tables(rules).card_kind
    places = [s for s in range(4) if s != pres]
    hidden = np.flatnonzero(st.hands[0, places].any(axis=0))
    gave_back = st.exch_out[0, pres].astype(np.int64)
    worst = int(np.argmax(st.exch_in[0, pres] > 0))
    # reference: the give-backs' kinds placed at Scum (random copies), the rest dealt uniformly,
    # deals where Scum's other cards include a kind better than the worst it gave rejected
    ref_rng = np.random.default_rng(17)
    sizes = st.n_cards[0, places].astype(np.int64).copy()
    si = places.index(scum)
    forbidden = np.arange(st.counts.shape[2]) > worst    # nothing played yet: beyond the give-backs, none
    ref = np.zeros((len(hidden), len(places)))
    accepted = 0
    while accepted < 4000:
        fixed = np.concatenate([ref_rng.choice(hidden[kind[hidden] == k], gave_back[k], replace=False)
                                for k in np.flatnonzero(gave_back)]).astype(np.int64)
        rest = ref_rng.permutation(np.setdiff1d(hidden, fixed))
        free = sizes.copy()
        free[si] -= fixed.size
        owner = np.repeat(np.arange(len(places)), free)
        if forbidden[kind[rest[owner == si]]].any():
            continue
        accepted += 1
        ref[np.searchsorted(hidden, rest), owner] += 1
        ref[np.searchsorted(hidden, fixed), si] += 1
    n = 4000
    w = resample(rules, st, player, n, np.random.default_rng(18))
    mine = landing_counts(w, n, hidden, places).astype(float)
    # two-sample chi-square over the cells with enough mass
    tot = mine + ref
    ok = tot > 10
    chi2 = float((((mine - ref) ** 2)[ok] / tot[ok]).sum())
    dof = int(ok.sum()) - len(hidden)
    assert chi2 < chi2_limit(max(dof, 1)), (chi2, dof)


def test_resample_is_seeded_and_checks_its_arguments():
    rules = preset("president")
    st = init(rules, batch_size=4, seed=19)
    a = resample(rules, st, 0, 3, np.random.default_rng(20))
    b = resample(rules, st, 0, 3, np.random.default_rng(20))
    np.testing.assert_array_equal(a.hands, b.hands)
    with pytest.raises(ValueError, match="player"):
        resample(rules, st, 4, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n"):
        resample(rules, st, 0, 0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        resample(rules, st, 0, 1, 5)


def test_poker_claim_in_progress_is_kept_for_its_player_and_hidden_from_the_others():
    rules = preset("rich_man_poor_man")
    st = random_states(rules, seed=3, games=48)
    pending = np.flatnonzero(st.picked.any(axis=1))
    assert pending.size, "no claim in progress among the random positions"
    st = st.take(pending)
    rng = np.random.default_rng(0)
    actor = st.seat_player[np.arange(st.batch_size), st.current.astype(np.int64)].astype(np.int64)
    own = resample(rules, st, actor, 2, rng)
    np.testing.assert_array_equal(own.poker_claim, np.repeat(st.poker_claim, 2))
    np.testing.assert_array_equal(own.picked, np.repeat(st.picked, 2, axis=0))
    other = resample(rules, st, (actor + 1) % rules.players, 2, rng)
    assert (other.poker_claim == 0).all() and not other.picked.any()
    assert other.legal.any(axis=1).all()


def test_every_state_field_says_where_a_world_takes_it_from():
    """A new State field must be restored from the observation (or said unknowable) in
    resample.WORLD_FIELDS, or search would play its worlds under the field's default without a word."""
    missing = sorted(set(field_names()) - set(WORLD_FIELDS))
    assert not missing, f"president_env/core/resample.py: WORLD_FIELDS says nothing of {missing}"
    assert not set(WORLD_FIELDS) - set(field_names()), "WORLD_FIELDS names fields State no longer has"
