"""Deal the hidden cards again: worlds consistent with what one player knows (for search agents).

A player sees its own hand, the cards played, everyone's card count and its own part of the
exchange, never the others' cards. A *determinized* search (PIMC, information-set MCTS) plays
out many guesses of the hidden cards; this module makes the guesses.

:func:`resample` takes a batched :class:`State` and a player and returns ``n`` copies of every
game in which the cards the player cannot see are dealt again at random. The player's own
hand, every card count and everything public stay as they are, so
``observe(rules, copy, player)`` is the same in every copy. What the player knows about the
hidden cards is what its observation holds; from it the deal keeps:

* cards it gave in this hand's exchange (give-backs, forced gifts, a merchant's trade) stay
  with the player it gave them to, less as many of each kind as have been played since
  (the observation does not say who played them) and, for a forced giver, less those of the
  kind it got back;
* a forced gift it received was the giver's best cards, so the giver keeps nothing of a kind
  better than the worst card it gave, beyond what the player gave it back (once a card of such
  a kind has been played, the giver may hold any number of that kind up to what it was given);
* under ``hand_assignment expose`` the card shown face up on a seat's pile stays with that seat
  while it has given nothing in the exchange, less as many of that kind as have been played;
* the player to make the first lead holds the lowest card (under ``lead_card`` the player to lead
  a hand's first trick holds that card); a player asked to claim a quick clear holds the cards of
  the claim;
* cards that left play unseen (``president_must_win``: the fallen President's hand) are hidden
  too: their kinds are dealt again with the rest, their number kept.

Every hidden card that no such fact places is dealt uniformly at random over the hidden
places (each other seat's free slots and the unseen discards), the forbidden kinds kept out
of the forced giver's hand. :func:`resample_game` does the same for a :class:`ScalarGame`.

:func:`worlds_from_observation` is the other way in: from observation rows alone (all an
:class:`agents.base.Agent` sees) it builds full states in which the observer is player 0 at
seat 0, with the hidden cards dealt as :func:`resample` deals them. Search agents roll these
worlds out with the batched engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import observation as O
from .cards import tables
from .engine import init, refresh_legal
from .kernel import fields as F
from .kernel.consts import consts
from .rules import Rules
from .scalar import ScalarGame
from .state import EXCHANGE, PLAY, State

__all__ = ["resample", "resample_game", "worlds_from_observation", "knowledge", "Knowledge"]


# --------------------------------------------------------------------------- constants
@dataclass(frozen=True, eq=False)
class _RC:
    P: int
    C: int
    K: int
    card_kind: np.ndarray      # (C,)
    kind_onehot: np.ndarray    # (C, K) int16
    kind_tier: np.ndarray      # (K,) exchange order of the kind (larger = better card)
    lowest_kind: int
    lowest_cards: np.ndarray   # card ids of the lowest card
    lead_card: int             # lead_card's id (its holder leads every hand's first trick), -1 without
    n_pairs: int               # exchange pairs that apply
    gives: tuple[int, ...]     # forced gifts per pair
    sched: np.ndarray          # (E, 3) decider rank, partner rank, kind (0 give-back, 1 first pick, 2 second)
    merchant: tuple[tuple[int, int], ...]


@lru_cache(maxsize=128)
def _rc(rules: Rules) -> _RC:
    t = tables(rules)
    k = consts(rules)
    K = t.n_kinds
    first = np.searchsorted(t.card_kind, np.arange(K))
    sched = k.table("sched").T.astype(np.int64)                 # (E, 3): decider, partner, kind
    give = tuple(int(g) for g in k.table("give")[0])
    return _RC(
        P=rules.players, C=t.n_cards, K=K, card_kind=t.card_kind.astype(np.int64),
        kind_onehot=np.eye(K, dtype=np.int16)[t.card_kind],
        kind_tier=(t.best_key[first] // 1000).astype(np.int64),
        lowest_kind=int(t.card_kind[t.lowest_card]),
        lowest_cards=np.flatnonzero(k.table("card")[F.C_LOWEST]).astype(np.int64),
        lead_card=t.card_names.index(rules.lead_card) if rules.lead_card else -1,
        n_pairs=len(give), gives=give, sched=sched,
        merchant=tuple(rules.merchant_pairs) if rules.merchant_trade else (),
    )


# --------------------------------------------------------------------------- what the observer knows
@dataclass
class Knowledge:
    """What one observer knows about the hidden cards of B games (places: seats 0..P-1, then the discards).

    ``forced[b, q, k]``: cards of kind ``k`` known to be in place ``q``; ``forbid[b, q, k]``: place ``q``
    holds no other card of kind ``k`` than the forced ones; ``size[b, q]``: cards in place ``q`` (0 for
    the observer's own seat, which is not hidden)."""

    seat: np.ndarray     # (B,) the observer's seat
    size: np.ndarray     # (B, P+1)
    forced: np.ndarray   # (B, P+1, K)
    forbid: np.ndarray   # (B, P+1, K) bool


def _gave(rc: _RC, social: np.ndarray, phase: np.ndarray, exch_step: np.ndarray) -> np.ndarray:
    """(B, P) by seat: the seat has given cards away in this hand's exchange (a public fact: the counts show it)."""
    B, P = social.shape
    gave = np.zeros((B, P), dtype=bool)
    has_ranks = (social >= 0).all(axis=1)
    if not has_ranks.any() or rc.sched.shape[0] == 0 and not rc.gives:
        return gave
    rank_seat = np.argsort(np.where(has_ranks[:, None], social, np.arange(P)), axis=1)   # (B, P) seat of rank
    ar = np.arange(B)
    for k, n in enumerate(rc.gives):
        if n > 0:
            gave[ar, rank_seat[:, P - 1 - k]] |= has_ranks
    in_exchange = phase == EXCHANGE
    done_steps = np.where(in_exchange, exch_step.astype(np.int64), rc.sched.shape[0])
    for i, (dec, part, kind) in enumerate(rc.sched.tolist()):
        done = has_ranks & (i < done_steps)
        if kind in (0, 2):
            gave[ar, rank_seat[:, dec]] |= done
        if kind == 2:
            gave[ar, rank_seat[:, part]] |= done
    return gave


def knowledge(rules: Rules, state: State, player: int | np.ndarray) -> Knowledge:
    """What ``player`` (an int or one per game) knows of the hidden cards of each game (see the module doc)."""
    rc = _rc(rules)
    B, P, K = state.batch_size, rc.P, rc.K
    ar = np.arange(B)
    pl = np.broadcast_to(np.asarray(player, dtype=np.int64), (B,))
    o = np.argmax(state.seat_player == pl[:, None], axis=1)
    n_cards = state.n_cards.astype(np.int64)
    size = np.zeros((B, P + 1), np.int64)
    size[:, :P] = n_cards
    size[ar, o] = 0
    size[:, P] = state.discarded.sum(axis=1, dtype=np.int64)
    known = np.zeros((B, P + 1, K), np.int64)
    forbid = np.zeros((B, P + 1, K), bool)
    played = state.played.astype(np.int64)
    social = state.social.astype(np.int64)
    has_ranks = (social >= 0).all(axis=1)
    out = state.exch_out[ar, o].astype(np.int64)
    inn = state.exch_in[ar, o].astype(np.int64)

    # The observer's exchange partner and what it knows went there.
    if has_ranks.any():
        rank_seat = np.argsort(np.where(has_ranks[:, None], social, np.arange(P)), axis=1)
        r_o = social[ar, o]
        pairs = rc.n_pairs
        partner_rank = _partner_rank(rc, r_o, has_ranks, P)
        ok = has_ranks & (partner_rank >= 0)
        partner = rank_seat[ar, np.maximum(partner_rank, 0)]
        forced_giver = ok & (r_o >= P - pairs) & (r_o < P) & np.array(
            [rc.gives[P - 1 - r] > 0 if 0 <= P - 1 - r < pairs else False for r in r_o.tolist()], dtype=bool)
        sent = out - np.where(forced_giver[:, None], inn, 0)
        g = np.flatnonzero(ok)
        known[g, partner[g]] += np.maximum(sent[g], 0)
        # A forced gift received: the giver kept nothing better than the worst card it gave.
        receiver = ok & (r_o < pairs) & (inn.sum(axis=1) > 0)
        for b in np.flatnonzero(receiver).tolist():
            got = np.flatnonzero(inn[b] > 0)
            worst = rc.kind_tier[got].min()
            # kinds given back are allowed as many as were given (all forced while none of them is played)
            forbid[b, partner[b]] = (rc.kind_tier > worst) & ((out[b] == 0) | (played[b] == 0))

    # Cards shown face up on the piles (hand_assignment expose).
    if rules.hand_assignment == "expose":
        gave = _gave(rc, social, state.phase, state.exch_step)
        ex = state.exposed.astype(np.int64)
        bb, ss = np.nonzero((ex >= 0) & ~gave & (np.arange(P)[None, :] != o[:, None]))
        known[bb, ss, rc.card_kind[ex[bb, ss]]] += 1

    forced = np.maximum(known - played[:, None, :], 0)
    # The first lead holds the lowest card; a player asked to claim holds the claim's cards.
    cur = state.current.astype(np.int64)
    first = state.first_lead & (cur != o) & (state.phase == PLAY)
    forced[first, cur[first], rc.lowest_kind] = np.maximum(forced[first, cur[first], rc.lowest_kind], 1)
    lead = _leads_with_card(rc, state, o)
    if lead.any():
        kind = rc.card_kind[rc.lead_card]
        forced[lead, cur[lead], kind] = np.maximum(forced[lead, cur[lead], kind], 1)
    if rules.quick_clear:
        cl = np.flatnonzero((state.claim_rank >= 0) & (cur != o) & (state.phase == PLAY))
        if cl.size:
            kind = tables(rules).play_kind[state.claim_rank[cl].astype(np.int64)]
            held = state.counts[cl, cur[cl], kind].astype(np.int64)
            forced[cl, cur[cl], kind] = np.maximum(forced[cl, cur[cl], kind], held)
    forced[:, :P][n_cards == 0] = 0
    forced[ar, o] = 0
    forced[:, P] = 0
    forbid[ar, o] = False
    return Knowledge(seat=o, size=size, forced=forced, forbid=forbid)


# --------------------------------------------------------------------------- the deal
def _deal_hidden(rules: Rules, state: State, kn: Knowledge, rng: np.random.Generator) -> State:
    """One new deal of the hidden cards of every game of ``state`` (a copy), as :class:`Knowledge` allows."""
    rc = _rc(rules)
    B, P, C = state.batch_size, rc.P, rc.C
    Q = P + 1
    ar = np.arange(B)
    o = kn.seat
    hands = state.hands
    others = hands.copy()
    others[ar, o] = False
    in_others = others.any(axis=1)                                   # (B, C)
    out_of_hands = ~hands.any(axis=1)
    if hasattr(state, "played_cards"):       # card-level rules: the cards played are known by card
        out_of_hands &= ~state.played_cards
    # Discarded cards have no ids: take that many out-of-hand ids of each kind.
    disc = state.discarded.astype(np.int64)
    pool = in_others.copy()
    if disc.any():
        rank_out = _rank_within_kind(rc, out_of_hands)
        pool |= out_of_hands & (rank_out < disc[:, rc.card_kind])
    kind = rc.card_kind

    # 1. forced cards: a random choice of the pool's cards of each kind.
    u = rng.random((B, C))
    key = np.where(pool, kind[None, :] + u, np.inf)
    order = np.argsort(key, axis=1)
    pool_sorted = np.take_along_axis(pool, order, axis=1)
    kinds_sorted = kind[order]
    pool_kind = pool.astype(np.int64) @ rc.kind_onehot.astype(np.int64)          # (B, K)
    start = np.cumsum(pool_kind, axis=1) - pool_kind                                 # first sorted position of kind
    r_sorted = np.arange(C)[None, :] - np.take_along_axis(start, kinds_sorted, axis=1)
    cumL = np.cumsum(kn.forced, axis=1)                                              # (B, Q, K)
    cum_sorted = np.take_along_axis(cumL, np.broadcast_to(kinds_sorted[:, None, :], (B, Q, C)), axis=2)
    place_sorted = (cum_sorted <= r_sorted[:, None, :]).sum(axis=1)                  # Q = free
    place_sorted = np.where(pool_sorted, place_sorted, -1)
    place = np.empty((B, C), np.int64)
    np.put_along_axis(place, order, place_sorted, axis=1)

    # 2. free cards: the restricted place (forbidden kinds) first, then the others uniformly.
    free_slots = kn.size - kn.forced.sum(axis=2)                                     # (B, Q)
    free = place == Q
    restricted = kn.forbid.any(axis=2)                                               # (B, Q)
    if restricted.any():
        for q in range(Q):
            rows = np.flatnonzero(restricted[:, q])
            if rows.size == 0:
                continue
            bad = kn.forbid[rows, q][:, kind]                                        # (R, C)
            ok = free[rows] & ~bad
            k2 = np.where(ok, rng.random((rows.size, C)), np.inf)
            o2 = np.argsort(k2, axis=1)
            take = np.arange(C)[None, :] < free_slots[rows, q][:, None]
            chosen = np.zeros((rows.size, C), bool)
            np.put_along_axis(chosen, o2, take, axis=1)
            chosen &= ok
            pr = place[rows]
            pr[chosen] = q
            place[rows] = pr
            free[rows] &= ~chosen
            fs = free_slots[rows]
            fs[:, q] = 0
            free_slots[rows] = fs
    k3 = np.where(free, rng.random((B, C)), np.inf)
    o3 = np.argsort(k3, axis=1)
    cum_free = np.cumsum(free_slots, axis=1)                                         # (B, Q)
    j = np.arange(C)
    q3 = (cum_free[:, None, :] <= j[None, :, None]).sum(axis=2)                     # (B, C) place of j-th
    free_sorted = np.take_along_axis(free, o3, axis=1)
    q3 = np.where(free_sorted, q3, -2)
    place_free = np.empty((B, C), np.int64)
    np.put_along_axis(place_free, o3, q3, axis=1)
    place = np.where(free, place_free, place)

    new = state.copy()
    new_hands = np.zeros((B, P, C), bool)
    seat_cards = (place >= 0) & (place < P)
    bb, cc = np.nonzero(seat_cards)
    new_hands[bb, place[bb, cc], cc] = True
    new_hands[ar, o] = hands[ar, o]
    _fix_first_lead(rc, state, new_hands, o)
    new.hands[:] = new_hands
    new.counts[:] = (new_hands.astype(np.int16) @ rc.kind_onehot).astype(new.counts.dtype)
    new.discarded[:] = ((place == P).astype(np.int16) @ rc.kind_onehot).astype(new.discarded.dtype)
    # Hidden merchant picks: a random card of the picker's new hand.
    tp = state.trade_pick.astype(np.int64)
    bs, ss = np.nonzero((tp >= 0) & (np.arange(P)[None, :] != o[:, None]))
    if bs.size:
        r = np.where(new_hands[bs, ss], rng.random((bs.size, C)), -1.0)
        new.trade_pick[bs, ss] = np.argmax(r, axis=1)
    if rules.poker:  # another player's claim in progress is hidden: in the new deal it has not claimed yet
        hidden = new.current.astype(np.int64) != o
        new.poker_claim[hidden] = 0
        new.picked[hidden] = False
    refresh_legal(rules, new)
    return new


def _rank_within_kind(rc: _RC, mask: np.ndarray) -> np.ndarray:
    """(B, C) for each card, how many cards of its kind before it are in ``mask``."""
    cs = np.cumsum(mask, axis=1)
    before = cs - mask
    first = np.searchsorted(rc.card_kind, np.arange(rc.K))
    base = np.where(first > 0, cs[:, np.maximum(first - 1, 0)], 0)                  # (B, K)
    return before - base[:, rc.card_kind]


def _leads_with_card(rc: _RC, state: State, o: np.ndarray) -> np.ndarray:
    """(B,) bool: under ``lead_card``, another seat than the observer is to make a hand's first lead, so it
    holds the lead card (nothing played yet in the hand, nobody out, nothing on the table)."""
    B = state.current.shape[0]
    if rc.lead_card < 0:
        return np.zeros(B, bool)
    cur = state.current.astype(np.int64)
    return ((state.phase == PLAY) & (cur != o) & (state.played.sum(axis=1) == 0) & (state.top_size == 0)
            & (state.finish < 0).all(axis=1))


def _fix_first_lead(rc: _RC, state: State, hands: np.ndarray, o: np.ndarray) -> None:
    """The player to make the first lead must hold a lowest card (under ``lead_card``: that card): swap one
    in (same kind, counts unchanged)."""
    cur = state.current.astype(np.int64)
    rows = np.flatnonzero(state.first_lead & (cur != o) & (state.phase == PLAY))
    for b in rows.tolist():
        _swap_in(rc, hands, b, int(cur[b]), [int(c) for c in rc.lowest_cards if not hands[b, o[b], c]])
    for b in np.flatnonzero(_leads_with_card(rc, state, o)).tolist():
        _swap_in(rc, hands, b, int(cur[b]), [rc.lead_card])


def _swap_in(rc: _RC, hands: np.ndarray, b: int, s: int, cards: list[int]) -> None:
    """Seat ``s`` of game ``b`` gets the first of ``cards`` (unless it holds one already) from its holder,
    who takes a card of the same kind from ``s`` in exchange."""
    if hands[b, s, cards].any():
        return
    low = cards[0]
    holder = int(np.argmax(hands[b, :, low]))
    mine = np.flatnonzero(hands[b, s] & (rc.card_kind == rc.card_kind[low]))[0]
    hands[b, holder, low], hands[b, s, low] = False, True
    hands[b, s, mine], hands[b, holder, mine] = False, True


# --------------------------------------------------------------------------- public entry points
def resample(rules: Rules, state: State, player: int | np.ndarray, n: int,
             rng: np.random.Generator) -> State:
    """``n`` copies of every game of ``state`` (game-major: copies of game ``b`` at ``b*n .. b*n+n-1``)
    with the cards ``player`` cannot see dealt again at random, consistent with what it knows.

    Only the hidden hands and what derives from them change (``hands``, ``counts``, ``discarded``,
    the other merchants' hidden ``trade_pick``, another player's poker claim in progress and its picks,
    ``legal``); ``observe(rules, copy, player)`` equals
    the original's. ``player`` is an int or one player per game."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n (copies per game) must be a positive integer, got {n!r}")
    B = state.batch_size
    pl = np.broadcast_to(np.asarray(player, dtype=np.int64), (B,))
    if ((pl < 0) | (pl >= rules.players)).any():
        raise ValueError(f"player must be 0..{rules.players - 1}, got {pl.tolist()}")
    kn = knowledge(rules, state, pl)
    idx = np.repeat(np.arange(B), n)
    rep = state.take(idx)
    kn_rep = Knowledge(seat=kn.seat[idx], size=kn.size[idx], forced=kn.forced[idx], forbid=kn.forbid[idx])
    return _deal_hidden(rules, rep, kn_rep, rng)


def resample_game(rules: Rules, game: ScalarGame, player: int, n: int,
                  rng: np.random.Generator) -> list[ScalarGame]:
    """:func:`resample` for one :class:`ScalarGame`: ``n`` new games (the input is unchanged)."""
    worlds = resample(rules, game.to_state(), int(player), n, rng)
    return ScalarGame.from_states(rules, worlds, np.arange(n))


# --------------------------------------------------------------------------- worlds from observations
# Every field of State, and where _state_from_observation takes it from. A field added to State must be added
# here, and restored from the observation (or said unknowable), or tests/test_resample.py fails: otherwise
# search would silently play its worlds under a default value of the new field (docs/adding_a_variant.md).
WORLD_FIELDS: dict[str, str] = {
    "key": "fixed: 0 (a world's own deal is drawn by resample)", "hand_no": "fixed: 0",
    "phase": "observation: phase", "seat_player": "fixed: the observer is player 0 in seat 0",
    "dealer": "observation: social, or the seat before the observer", "social": "observation: social",
    "hands": "the observer's hand from the observation; the others dealt by resample",
    "counts": "derived from hands", "n_cards": "observation: card_counts", "current": "fixed: the observer",
    "leader": "observation: social and phase", "top_rank": "observation: top", "top_size": "observation: top",
    "top_owner": "observation: top_owner", "top_wild": "observation: top_wild",
    "top_count": "observation: top_count", "first_lead": "derived: phase, social, played and top",
    "passed": "observation: passed", "finish": "observation: finish", "next_best": "derived from finish",
    "next_worst": "derived from finish", "revolution": "observation: revolution",
    "direction": "observation: direction", "played": "observation: played",
    "discarded": "derived: cards unseen", "exch_step": "observation: the exchange pieces",
    "exch_in": "observation: the exchange pieces", "exch_out": "observation: the exchange pieces",
    "points": "observation: points", "hand_points": "fixed: 0 (no hand has ended in a world)",
    "hand_over": "fixed: false", "last_finish": "observation: social", "single_row": "observation: single_row",
    "exposed": "observation: exposed", "trade_pick": "observation: the merchant's pick",
    "top_own": "observation: top", "qc_count": "observation: clear_count",
    "claim_rank": "observation: top and the quick-clear claim", "claim_next": "derived: who may still claim",
    "top_run": "observation: top_run", "top_cards": "observation: top_cards",
    "lock": "observation: lock (suit_lock)", "top_suits": "observation: top_suits (suit_lock)",
    "top_lo": "observation: top_run_low (the rules that compare runs by place; 0 elsewhere, unread)",
    "eleven_back": "observation: eleven_back", "pass_run": "observation: pass_run (pass_limit)",
    "played_cards": "observation: played_cards", "moved": "fixed: false",
    "poker_claim": "observation: the pending claim", "picked": "observation: picked",
    "top_claim": "observation: the claim on top", "legal": "derived: refresh_legal",
}


def worlds_from_observation(rules: Rules, obs: np.ndarray, n: int, rng: np.random.Generator) -> State:
    """States (``n`` per observation row, row-major) consistent with observation rows of the player to act.

    The observer is player 0 in seat 0 (seats follow the observation's relative order) and acts
    now; ``observe(rules, world, 0)`` equals its row. The hidden cards are dealt as
    :func:`resample` deals them. Facts the observation does not hold are set plainly: the game's
    key and hand number are 0 (a rollout of the rest of the hand with
    ``rules.replace(hands_per_session=1)`` stops at its end), other players' exchange pieces
    are zero except the observer's partner's, which mirror the observer's."""
    base = _state_from_observation(rules, np.asarray(obs, dtype=np.float32))
    return resample(rules, base, 0, n, rng)


def _state_from_observation(rules: Rules, obs: np.ndarray) -> State:  # noqa: C901 - one block per piece
    """One full state per observation row (any deal of the hidden cards that fits the counts)."""
    if obs.ndim != 2 or obs.shape[1] != O.size(rules):
        raise ValueError(f"observations must have shape (N, {O.size(rules)}) for these rules, got {obs.shape}")
    rc = _rc(rules)
    t = tables(rules)
    N, P, C, K = obs.shape[0], rc.P, rc.C, rc.K
    sl = O.slices(rules)
    d = 1 if rules.direction == "clockwise" else -1
    rel_seat = (d * np.arange(P)) % P                 # relative j -> seat

    def ints(name: str) -> np.ndarray:
        return np.rint(obs[:, sl[name]]).astype(np.int64)

    def by_seat(a: np.ndarray) -> np.ndarray:
        out = np.empty_like(a)
        out[:, rel_seat] = a
        return out

    def onehot(name: str) -> tuple[np.ndarray, np.ndarray]:
        piece = obs[:, sl[name]]
        return piece.any(axis=1), np.argmax(piece, axis=1)

    st = init(rules, batch_size=N, seed=0)            # every field present, then overwritten
    ar = np.arange(N)
    st.key[:] = 0
    st.hand_no[:] = 0
    st.seat_player[:] = np.arange(P)
    _, phase = onehot("phase")
    st.phase[:] = phase
    social = by_seat(ints("social") - 1)
    st.social[:] = social
    has_ranks = (social >= 0).all(axis=1)
    st.dealer[:] = np.where(has_ranks, np.argmax(social == P - 1, axis=1), (-d) % P)
    counts_rel = ints("card_counts")
    n_cards = by_seat(counts_rel)
    st.n_cards[:] = n_cards
    own = ints("hand")
    played = ints("played")
    st.played[:] = played
    st.current[:] = 0
    has_top, top_r = onehot("top_rank")
    top = np.where(top_r == t.n_play_ranks, -1, top_r)
    st.top_rank[:] = top
    has_top = top >= 0
    _, ts = onehot("top_size")
    st.top_size[:] = np.where(has_top, ts + 1, 0)
    _, towner = onehot("top_owner")
    st.top_owner[:] = np.where(has_top, rel_seat[towner], -1)
    st.top_wild[:] = obs[:, sl["top_wild"].start] > 0.5
    st.top_count[:] = np.rint(obs[:, sl["top_count"].start])
    st.passed[:] = by_seat(obs[:, sl["passed"]] > 0.5)
    finish = by_seat(ints("finished") - 1)
    st.finish[:] = finish
    taken = np.zeros((N, P), bool)
    bb, ss = np.nonzero(finish >= 0)
    taken[bb, finish[bb, ss]] = True
    nb = np.argmin(np.concatenate([taken, np.zeros((N, 1), bool)], axis=1), axis=1)
    nw = P - 1 - np.argmin(np.concatenate([taken[:, ::-1], np.zeros((N, 1), bool)], axis=1), axis=1)
    st.next_best[:] = nb
    st.next_worst[:] = nw
    st.revolution[:] = obs[:, sl["revolution"].start] > 0.5
    st.direction[:] = np.rint(obs[:, sl["direction"].start]).astype(np.int64) * d
    st.points[:] = by_seat(ints("points"))
    st.hand_points[:] = 0
    st.hand_over[:] = False
    st.last_finish[:] = social
    st.moved[:] = False

    # Exchange: the observer's pieces, the partner's mirror, the decision it is at.
    out, inn = ints("exch_given"), ints("exch_received")
    st.exch_out[:] = 0
    st.exch_in[:] = 0
    st.exch_out[:, 0] = out
    st.exch_in[:, 0] = inn
    E = rc.sched.shape[0]
    exch_step = np.zeros(N, np.int64)
    rank_seat = np.argsort(np.where(has_ranks[:, None], social, np.arange(P)), axis=1)
    if has_ranks.any():
        r_o = social[:, 0]
        partner_rank = _partner_rank(rc, r_o, has_ranks, P)
        ok = has_ranks & (partner_rank >= 0)
        partner = rank_seat[ar, np.maximum(partner_rank, 0)]
        st.exch_in[ar[ok], partner[ok]] = out[ok]
        st.exch_out[ar[ok], partner[ok]] = inn[ok]
        exch_step[:] = np.where(has_ranks, E, 0)
        ex = np.flatnonzero(phase == EXCHANGE)
        for b in ex.tolist():
            mine = np.flatnonzero(rc.sched[:, 0] == r_o[b])
            done = int(out[b].sum()) if mine.size and rc.sched[mine[0], 2] == 0 else 0
            exch_step[b] = (mine[0] if mine.size else 0) + done
    st.exch_step[:] = exch_step
    lead_rank = 0 if rules.lead_after_first == "president" else P - 1
    st.leader[:] = np.where((phase == EXCHANGE) & has_ranks, rank_seat[:, lead_rank],
                            np.where(has_top, st.top_owner, 0))

    # Optional pieces.
    if rules.revolution_by_singles:
        st.single_row[:] = np.rint(obs[:, sl["single_row"].start])
    if rules.quick_clear:
        st.qc_count[:] = np.rint(obs[:, sl["clear_count"].start])
        st.top_own[:] = top
        claiming = obs[:, sl["claiming"].start] > 0.5
        st.claim_rank[:] = np.where(claiming, top, -1)
        alive = n_cards > 0
        nxt = np.zeros(N, np.int64)
        for b in np.flatnonzero(claiming).tolist():
            owner = int(st.top_owner[b])
            for step in range(1, P + 1):
                s = (owner + d * step) % P
                if alive[b, s] and not st.passed[b, s]:
                    nxt[b] = s
                    break
        st.claim_next[:] = np.where(claiming, nxt, -1)

    # Hands: the observer's cards (lowest ids of each kind), then the rest of the pack, seat by seat
    # (the discards last); resample() deals them properly.
    kind = rc.card_kind
    first_id = np.searchsorted(kind, np.arange(K))
    within = np.arange(C) - first_id[kind]                                   # copy index within its kind
    if "own_cards" in sl:                                                    # card-level rules: cards by id
        mine = obs[:, sl["own_cards"]] > 0.5
        played_ids = obs[:, sl["played_cards"]] > 0.5
        rest = ~mine & ~played_ids
        st.played_cards[:] = played_ids
        st.top_cards[:] = obs[:, sl["top_cards"]] > 0.5
        if "top_run" in sl:
            run = np.rint(obs[:, sl["top_run"].start]).astype(np.int64)
            st.top_run[:] = run
            st.top_size[:] = np.where(run > 0, st.top_cards.sum(axis=1), st.top_size)
    else:
        mine = within[None, :] < own[:, kind]
        rest = ~mine & (within[None, :] < (t.kind_count[kind][None, :] - played[:, kind]))
    # the UEC pieces (section 9): the lock and the top's suits as four bits, the run's lowest place, 11-back,
    # the passes in a row
    bits = 1 << np.arange(4)
    if "lock" in sl:
        st.lock[:] = (np.rint(obs[:, sl["lock"]]).astype(np.int64) * bits).sum(axis=1)
        st.top_suits[:] = (np.rint(obs[:, sl["top_suits"]]).astype(np.int64) * bits).sum(axis=1)
    for name, field in (("top_run_low", "top_lo"), ("eleven_back", "eleven_back"), ("pass_run", "pass_run")):
        if name in sl:
            getattr(st, field)[:] = np.rint(obs[:, sl[name].start]).astype(np.int64)
    hands = np.zeros((N, P, C), bool)
    hands[:, 0] = mine
    sizes = n_cards.copy()
    sizes[:, 0] = 0
    cum = np.cumsum(sizes, axis=1)
    pos = np.cumsum(rest, axis=1) - 1
    seat_of = (cum[:, None, :] <= pos[:, :, None]).sum(axis=2)               # P = beyond the seats: discarded
    bb, cc = np.nonzero(rest & (seat_of < P))
    hands[bb, seat_of[bb, cc], cc] = True
    st.hands[:] = hands
    st.counts[:] = (hands.astype(np.int16) @ rc.kind_onehot).astype(st.counts.dtype)
    disc = rest & (seat_of >= P)
    st.discarded[:] = (disc.astype(np.int16) @ rc.kind_onehot).astype(st.discarded.dtype)
    st.first_lead[:] = False
    if rules.first_lead == "lowest_card" and rules.lead_card is None:   # lead_card: the lead holds, not plays, it
        st.first_lead[:] = ((phase == PLAY) & ~has_ranks & (played.sum(axis=1) == 0) & ~has_top
                            & (obs[:, sl["my_turn"].start] > 0.5) & (finish < 0).all(axis=1)
                            & hands[:, 0, rc.lowest_cards].any(axis=1))

    if rules.poker:  # the claim on top (public), and the observer's own claim in progress and its picks
        on_top = obs[:, sl["top_claim"]]
        st.top_claim[:] = np.where(on_top.any(axis=1), np.argmax(on_top, axis=1) + 1, 0)
        mine_claim = obs[:, sl["claim"]]
        st.poker_claim[:] = np.where(mine_claim.any(axis=1), np.argmax(mine_claim, axis=1) + 1, 0)
        st.picked[:] = (obs[:, sl["picked"]] > 0.5) & hands[:, 0]

    if rules.hand_assignment == "expose":
        shown = obs[:, sl["exposed"]].reshape(N, P, K)
        has = shown.any(axis=2)
        ek = np.argmax(shown, axis=2)
        exposed = np.full((N, P), -1, np.int64)
        for b, j in zip(*np.nonzero(has), strict=True):
            s = rel_seat[j]
            k = ek[b, j]
            ids = np.flatnonzero((kind == k) & hands[b, s])
            exposed[b, s] = ids[0] if ids.size else first_id[k]
        st.exposed[:] = exposed
    if rules.merchant_trade:
        st.trade_pick[:] = -1
        tp = ints("trade_pick")
        for b in np.flatnonzero(tp.sum(axis=1) > 0).tolist():
            k = int(np.argmax(tp[b]))
            st.trade_pick[b, 0] = np.flatnonzero((kind == k) & hands[b, 0])[0]
        if E:
            step = np.minimum(exch_step, E - 1)
            second = (phase == EXCHANGE) & (rc.sched[step, 2] == 2)
            for b in np.flatnonzero(second).tolist():
                s = rank_seat[b, rc.sched[step[b], 1]]
                ids = np.flatnonzero(hands[b, s])
                if ids.size:
                    st.trade_pick[b, s] = ids[0]
    refresh_legal(rules, st)
    return st


def _partner_rank(rc, r_o: np.ndarray, has_ranks: np.ndarray, P: int) -> np.ndarray:
    """The finishing rank of the player each observer exchanged (or traded) with this hand, -1 none."""
    partner_rank = np.full(r_o.shape[0], -1, np.int64)
    in_pair = has_ranks & ((r_o < rc.n_pairs) | (r_o >= P - rc.n_pairs))
    partner_rank[in_pair] = P - 1 - r_o[in_pair]
    for hi, lo in rc.merchant:
        partner_rank[r_o == hi] = lo
        partner_rank[r_o == lo] = hi
    return partner_rank
