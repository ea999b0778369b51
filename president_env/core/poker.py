"""Poker combinations (``combinations poker``): the claims, their order, and what each one is.

A poker play is a *claim* (the combination the player says it makes: "full house of
sevens") and then its cards, picked one at a time (``docs/rules.md`` choices 41-48).
This module holds the claim table of a rules object (:func:`claim_table`), the
strength of every claim in both orders, the words for claims and plays, and
:func:`satisfies`, the plain statement of what each claim is: the reference the
engines are tested against.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import tables
from .rules import Rules

# Claim kinds.
SET, TWO_PAIR, WILD_SET, STRAIGHT, FLUSH, FULL_HOUSE, FOUR, STRAIGHT_FLUSH, FIVE = range(9)
KIND_NAMES = ("set", "two pair", "wild", "straight", "flush", "full house", "four of a kind", "straight flush",
              "five of a kind")
_TYPE_ORDER = {SET: 0, TWO_PAIR: 0, STRAIGHT: 1, FLUSH: 2, FULL_HOUSE: 3, FOUR: 4, STRAIGHT_FLUSH: 5, FIVE: 6,
               WILD_SET: 9}
BOMB_KINDS = (FOUR, FIVE)   # and five wild cards: the plays of four or more cards of one rank (choice 46)

_PLURAL = {"2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes", "7": "sevens", "8": "eights",
           "9": "nines", "T": "tens", "J": "jacks", "Q": "queens", "K": "kings", "A": "aces"}
_ONE = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight", "9": "nine",
        "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_COUNT = {1: "single", 2: "pair", 3: "three", 4: "four", 5: "five"}


@dataclass(frozen=True, eq=False)
class ClaimTable:
    """The claims of a poker rules object: ids ``1..X`` of the action table (0 is pass).

    Natural ranks are indexed ``0..NR-1`` in ``rank_order`` without the wild ranks. Per claim id
    (index 0 is pass): ``n`` cards, ``kind``, ``key`` (the rank of a set, full house, four or five,
    the high pair of two pair, a flush's q, a straight's lowest rank), ``key2`` (two pair's low
    pair, else -1), ``window`` (a straight's five natural ranks, else -1) and ``strength[rev]``
    (comparable between claims of one count; higher beats)."""

    naturals: tuple[str, ...]     # (NR,) natural rank names, weakest first
    nat_kind: np.ndarray          # (NR,) kind index of each natural rank
    n: np.ndarray                 # (X+1,)
    kind: np.ndarray              # (X+1,)
    key: np.ndarray               # (X+1,)
    key2: np.ndarray              # (X+1,)
    window: np.ndarray            # (X+1, 5)
    strength: np.ndarray          # (2, X+1) [normal, revolution]
    bomb: np.ndarray              # (X+1,) bool four/five of a kind, five wild (four_of_a_kind applies)
    first_rank: np.ndarray        # (X+1,) play rank shown as top_rank (choice 47), -1 for pass
    words: tuple[str, ...]        # (X+1,)
    pick_names: tuple[str, ...]   # (U,) card names of the pick ids, weakest first
    n_wild: int                   # wild cards in the pack

    @property
    def X(self) -> int:
        return len(self.n) - 1

    @property
    def NR(self) -> int:
        return len(self.naturals)

    def pick_id(self, name: str) -> int:
        """The action id of picking a card named ``name``."""
        return 1 + self.X + self.pick_names.index(name)


@lru_cache(maxsize=64)
def claim_table(rules: Rules) -> ClaimTable:
    """The claims of ``rules`` (``combinations poker``), in the order of docs/rules.md choice 42."""
    if not rules.poker:
        raise ValueError("claim_table needs combinations 'poker'")
    t = tables(rules)
    order = list(rules.rank_order)
    nats = [r for r in order if r not in rules.wild_ranks]
    NR = len(nats)
    n_wild = int(t.card_wild.sum())
    windows = []
    for lo in range(len(order) - 4):
        ranks = order[lo:lo + 5]
        if not any(r in rules.wild_ranks for r in ranks):
            windows.append([nats.index(r) for r in ranks])
    rows: list[tuple[int, int, int, int, list[int]]] = [(0, -1, -1, -1, [-1] * 5)]  # n, kind, key, key2, window
    for n in (1, 2, 3):
        rows += [(n, SET, q, -1, [-1] * 5) for q in range(NR)]
        if n_wild >= n:
            rows.append((n, WILD_SET, -1, -1, [-1] * 5))
    # Two pair needs two different ranks: four cards of one rank, wild cards included, are no play
    # (section 8 fine point 7), so there is no (q, q) claim and no claim of four wild cards.
    rows += [(4, TWO_PAIR, h, lo, [-1] * 5) for h in range(NR) for lo in range(h)]
    rows += [(5, STRAIGHT, w[0], -1, w) for w in windows]
    rows += [(5, FLUSH, q, -1, [-1] * 5) for q in range(NR)]
    rows += [(5, FULL_HOUSE, q, -1, [-1] * 5) for q in range(NR)]
    rows += [(5, FOUR, q, -1, [-1] * 5) for q in range(NR)]
    rows += [(5, STRAIGHT_FLUSH, w[0], -1, w) for w in windows]
    rows += [(5, FIVE, q, -1, [-1] * 5) for q in range(NR)]
    if n_wild >= 5:
        rows.append((5, WILD_SET, -1, -1, [-1] * 5))

    n = np.array([r[0] for r in rows], dtype=np.int64)
    kind = np.array([r[1] for r in rows], dtype=np.int64)
    key = np.array([r[2] for r in rows], dtype=np.int64)
    key2 = np.array([r[3] for r in rows], dtype=np.int64)
    window = np.array([r[4] for r in rows], dtype=np.int64)
    strength = np.full((2, len(rows)), -1, dtype=np.int64)
    for rev in (0, 1):
        tup = [_strength_tuple(NR, *r[:4], r[4], rev) for r in rows]
        for cnt in range(1, 6):
            ids = [i for i in range(1, len(rows)) if rows[i][0] == cnt]
            ordered = sorted({tup[i] for i in ids})
            for i in ids:
                strength[rev, i] = ordered.index(tup[i])
    nat_kind = np.array([t.kinds.index(r) for r in nats], dtype=np.int64)
    wild_play = t.n_play_ranks - 1
    first = np.full(len(rows), -1, dtype=np.int64)
    for i, (_, k, q, _, w) in enumerate(rows[1:], start=1):
        if k == WILD_SET:
            first[i] = wild_play
        else:
            top = w[4] if k in (STRAIGHT, STRAIGHT_FLUSH) else q
            first[i] = int(t.kind_play[nat_kind[top]])
    picks = tuple(dict.fromkeys(t.card_names))
    table = ClaimTable(
        naturals=tuple(nats), nat_kind=nat_kind, n=n, kind=kind, key=key, key2=key2, window=window,
        strength=strength, bomb=np.isin(kind, BOMB_KINDS) | ((kind == WILD_SET) & (n == 5)),
        first_rank=first, words=(), pick_names=picks, n_wild=n_wild)
    words = ("pass",) + tuple(claim_words(table, i) for i in range(1, len(rows)))
    object.__setattr__(table, "words", words)
    return table


def _strength_tuple(NR: int, n: int, kind: int, key: int, key2: int, window: list[int], rev: int) -> tuple:
    if n == 0:
        return (-1,)
    s = (lambda q: NR - 1 - q) if rev else (lambda q: q)
    order = _TYPE_ORDER[kind]
    if kind == WILD_SET:
        return (order,)
    if kind == TWO_PAIR:
        a, b = s(key), s(key2)
        return (order, max(a, b), min(a, b))
    if kind in (STRAIGHT, STRAIGHT_FLUSH):
        return (order, max(s(window[0]), s(window[4])))
    return (order, s(key))


# --------------------------------------------------------------------------- words
def claim_words(ct: ClaimTable, i: int) -> str:
    """Claim ``i`` in words: 'pair of sevens', 'full house of sevens', 'straight 3 to 7'."""
    n, k, q, q2 = int(ct.n[i]), int(ct.kind[i]), int(ct.key[i]), int(ct.key2[i])
    names = ct.naturals
    if i == 0:
        return "pass"
    if k == WILD_SET:
        return "single wild card" if n == 1 else f"{_COUNT[n]} wild cards" if n > 2 else "pair of wild cards"
    if k == SET:
        r = names[q]
        return f"single {r}" if n == 1 else f"pair of {_PLURAL[r]}" if n == 2 else f"three {_PLURAL[r]}"
    if k == TWO_PAIR:
        return f"two pair, {_PLURAL[names[q]]} and {_PLURAL[names[q2]]}"
    if k in (STRAIGHT, STRAIGHT_FLUSH):
        w = ct.window[i]
        return f"{'straight flush' if k == STRAIGHT_FLUSH else 'straight'} {names[w[0]]} to {names[w[4]]}"
    if k == FLUSH:
        return f"flush, {_ONE[names[q]]} high"
    if k == FULL_HOUSE:
        return f"full house of {_PLURAL[names[q]]}"
    if k == FOUR:
        return f"four {_PLURAL[names[q]]}"
    return f"five {_PLURAL[names[q]]}"


def play_words(rules: Rules, claim: int, cards: list[str] | tuple[str, ...]) -> str:
    """A made play in words, naming what its claim leaves open: 'full house, sevens over fours',
    'four sevens and a king', 'flush, ace high (hearts)'."""
    ct = claim_table(rules)
    k, q = int(ct.kind[claim]), int(ct.key[claim])
    natural = [c for c in cards if c[:-1] not in rules.wild_ranks]
    if k == FULL_HOUSE:
        other = [c[:-1] for c in natural if c[:-1] != ct.naturals[q]]
        over = _PLURAL[other[0]] if other else "two wild cards"
        return f"full house, {_PLURAL[ct.naturals[q]]} over {over}"
    if k == FOUR:
        other = [c[:-1] for c in natural if c[:-1] != ct.naturals[q]]
        fifth = f"a {_ONE[other[0]]}" if other else "a wild card"
        return f"four {_PLURAL[ct.naturals[q]]} and {fifth}"
    if k == FLUSH:
        suit = cards[0][-1]
        return f"flush, {_ONE[ct.naturals[q]]} high ({_SUIT_NAMES[suit]})"
    if k == STRAIGHT_FLUSH:
        return f"{claim_words(ct, claim)} ({_SUIT_NAMES[cards[0][-1]]})"
    return claim_words(ct, claim)


# --------------------------------------------------------------------------- the reference
def satisfies(rules: Rules, claim: int, cards: list[str] | tuple[str, ...], revolution: bool = False) -> bool:
    """Whether the cards (names) make claim ``claim`` (docs/rules.md choice 43). Written for clarity,
    not speed: the scalar engine and the tests use it; the batched engine counts instead."""
    ct = claim_table(rules)
    n, k, q, q2 = int(ct.n[claim]), int(ct.kind[claim]), int(ct.key[claim]), int(ct.key2[claim])
    if claim <= 0 or len(cards) != n:
        return False
    wild = [c for c in cards if c[:-1] in rules.wild_ranks]
    nat = [c for c in cards if c[:-1] not in rules.wild_ranks]
    ranks = [ct.naturals.index(c[:-1]) for c in nat]
    w = len(wild)
    if k == WILD_SET:
        return not nat
    if not nat:
        return False   # an all-wild play claims only the wild claim of its count
    if k == SET or k == FIVE:
        return all(r == q for r in ranks)
    if k == TWO_PAIR:  # two different ranks q > q2 (fine point 7)
        return all(r in (q, q2) for r in ranks) and ranks.count(q) <= 2 and ranks.count(q2) <= 2
    if k == FULL_HOUSE:
        others = {r for r in ranks if r != q}
        return ranks.count(q) <= 3 and len(others) <= 1 and all(ranks.count(p) <= 2 for p in others)
    if k == FOUR:
        return ranks.count(q) + w >= 4
    if k in (STRAIGHT, STRAIGHT_FLUSH):
        win = [int(x) for x in ct.window[claim]]
        if any(r not in win for r in ranks) or len(set(ranks)) != len(ranks):
            return False
        return k == STRAIGHT or len({c[-1] for c in cards}) == 1
    if k == FLUSH:
        if len({c[-1] for c in cards}) != 1:
            return False
        pos = (lambda r: ct.NR - 1 - r) if revolution else (lambda r: r)
        if any(pos(r) > pos(q) for r in ranks):
            return False
        return q in ranks or w > 0
    raise AssertionError(k)


def best_suit(rules: Rules, cards: list[str] | tuple[str, ...], revolution: bool = False) -> int:
    """The play's best suit as a strength (0 weakest): its strongest suit in ``suit_order``, reversed
    under a revolution (choice 44)."""
    places = [rules.suit_order.index(c[-1]) for c in cards]
    return max(3 - p for p in places) if revolution else max(places)


def beats(rules: Rules, claim: int, cards: list[str] | tuple[str, ...], top_claim: int,
          top_cards: list[str] | tuple[str, ...], revolution: bool = False) -> bool:
    """Whether the play (claim, cards) beats the top (top_claim, top_cards), or leads when top_claim is 0
    (choice 44; a bomb under ``four_of_a_kind bomb`` beats anything, choice 46)."""
    ct = claim_table(rules)
    if top_claim == 0 or (rules.four_of_a_kind == "bomb" and ct.bomb[claim]):
        return True
    if ct.n[claim] != ct.n[top_claim]:
        return False
    rev = int(revolution)
    a, b = int(ct.strength[rev, claim]), int(ct.strength[rev, top_claim])
    if a != b:
        return a > b
    sa, sb = best_suit(rules, cards, revolution), best_suit(rules, top_cards, revolution)
    return sa > sb or (sa == sb and rules.equal_rank_beats)
