"""The pack a rules object implies: card kinds, card names, and rank strength.

Vocabulary used across the core:

* a *card* is one physical card, indexed ``0..C-1``; cards are sorted by kind, then
  suit (weakest first in ``suit_order``: C < D < H < S by default), then deck copy, so
  "lowest suit first" is "lowest index first";
* a *kind* is a card rank: the natural ranks in ``rank_order``, then the jokers
  (``JK``, or ``BJ``/``RJ``), then each high card of ``high_cards`` (``3C``: a kind of
  its own, above the jokers), indexed ``0..K-1``;
* a *play rank* is what a set of cards can be played as: every kind that is not
  wild, in strength order, then ``WILD`` (an all-wild set) when wild cards exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .rules import Rules

SUITS = ("C", "D", "H", "S")
WILD = "WILD"


@dataclass(frozen=True, eq=False)
class Tables:
    """Fixed lookup arrays derived once from a :class:`Rules`."""

    kinds: tuple[str, ...]            # K kind names, weakest natural first, jokers last
    card_kind: np.ndarray             # (C,) int  kind of each card
    card_names: tuple[str, ...]       # (C,) "3C", "JK", ...
    kind_wild: np.ndarray             # (K,) bool
    card_wild: np.ndarray             # (C,) bool
    kind_count: np.ndarray            # (K,) int  copies of each kind in the pack
    kind_high: np.ndarray             # (K,) bool a high card's own kind (high_cards)
    play_ranks: tuple[str, ...]       # (R,) play rank names ("WILD" last if any)
    play_kind: np.ndarray             # (R,) int  kind of each play rank (-1 for WILD)
    kind_play: np.ndarray             # (K,) int  play rank of each kind (-1 for wild kinds)
    strength: np.ndarray              # (2, R) int  rank strength, [normal, revolution]
    n_natural_play: int               # play ranks that are natural kinds or jokers (not WILD)
    has_wild: bool
    best_key: np.ndarray              # (C,) int  exchange order: larger = better card
    lowest_card: int                  # the card that must open the first hand (lowest_card)
    lowest_play_rank: int             # its play rank
    card_suit: np.ndarray             # (C,) int  printed suit's place in suit_order (0 weakest), -1 for a joker
    n_naturals: int                   # natural ranks (the first kinds, in rank_order)

    @property
    def n_cards(self) -> int:
        return len(self.card_names)

    @property
    def n_kinds(self) -> int:
        return len(self.kinds)

    @property
    def n_play_ranks(self) -> int:
        return len(self.play_ranks)


@lru_cache(maxsize=128)
def tables(rules: Rules) -> Tables:
    """The lookup tables for ``rules`` (cached: rules objects are hashable)."""
    naturals = list(rules.rank_order)
    highs = list(rules.high_cards)
    kinds = naturals + list(rules.joker_ranks) + highs
    kind_wild = np.array([k in rules.wild_ranks for k in kinds], dtype=bool)
    kind_high = np.array([k in highs for k in kinds], dtype=bool)

    card_kind: list[int] = []
    names: list[str] = []
    for k, name in enumerate(kinds):
        if name in ("JK", "BJ", "RJ"):
            copies = rules.joker_packs * (rules.jokers if name == "JK" else 1)
            card_kind += [k] * copies
            names += [name] * copies
        elif kind_high[k]:
            card_kind += [k] * int(rules.decks)   # (high cards are refused with a deck and a half)
            names += [name] * int(rules.decks)
        else:
            for suit in rules.suit_order:
                if name + suit in highs:
                    continue
                card_kind += [k] * rules.suit_copies(suit)
                names += [name + suit] * rules.suit_copies(suit)
    card_kind_a = np.array(card_kind, dtype=np.int64)
    kind_count = np.bincount(card_kind_a, minlength=len(kinds))

    non_wild = [k for k in range(len(kinds)) if not kind_wild[k]]
    play_ranks = [kinds[k] for k in non_wild]
    play_kind = list(non_wild)
    has_wild = bool(kind_wild.any())
    if has_wild:
        play_ranks.append(WILD)
        play_kind.append(-1)
    kind_play = np.full(len(kinds), -1, dtype=np.int64)
    for p, k in enumerate(non_wild):
        kind_play[k] = p

    # Strength: naturals in rank order; jokers, high cards and WILD stay on top in a revolution.
    n_nat = sum(1 for k in non_wild if kinds[k] not in ("JK", "BJ", "RJ") and not kind_high[k])
    R = len(play_ranks)
    normal = np.arange(R)
    revolution = normal.copy()
    revolution[:n_nat] = n_nat - 1 - normal[:n_nat]
    strength = np.stack([normal, revolution]).astype(np.int16)

    # Exchange order (fine point 11, section 8 fine point 9): jokers first (RJ, BJ, JK), other wilds,
    # high cards (their kinds come after the jokers), then naturals high to low; within a kind the
    # highest suit first.
    n_kinds = len(kinds)
    joker_order = {"JK": 0, "BJ": 1, "RJ": 2}
    best = np.zeros(len(card_kind), dtype=np.int64)
    for c, k in enumerate(card_kind):
        name = kinds[k]
        if name in joker_order:
            tier = 2 * n_kinds + joker_order[name]
        elif kind_wild[k]:
            tier = n_kinds + k
        else:
            tier = k
        best[c] = tier * 1000 + c  # higher card index = higher suit within a kind

    lowest_kind = next(k for k in range(n_kinds)
                       if not kind_wild[k] and kinds[k] not in joker_order and not kind_high[k])
    lowest_card = int(np.flatnonzero(card_kind_a == lowest_kind)[0])
    return Tables(
        kinds=tuple(kinds),
        card_kind=card_kind_a,
        card_names=tuple(names),
        kind_wild=kind_wild,
        card_wild=kind_wild[card_kind_a],
        kind_count=kind_count,
        kind_high=kind_high,
        play_ranks=tuple(play_ranks),
        play_kind=np.array(play_kind, dtype=np.int64),
        kind_play=kind_play,
        strength=strength,
        n_natural_play=len(non_wild),
        has_wild=has_wild,
        best_key=best,
        lowest_card=lowest_card,
        lowest_play_rank=int(kind_play[lowest_kind]),
        card_suit=np.array([rules.suit_order.index(n[-1]) if n not in joker_order else -1 for n in names],
                           dtype=np.int64),
        n_naturals=len(naturals),
    )


def card_index(rules: Rules, names: list[str] | tuple[str, ...]) -> np.ndarray:
    """Card names to a (C,) count-free boolean hand; duplicates take the next copy.

    Raises ``ValueError`` naming any unknown card or a card named more often than
    the pack holds it.
    """
    t = tables(rules)
    hand = np.zeros(t.n_cards, dtype=bool)
    for raw in names:
        name = _normalise(raw)
        slots = [c for c, n in enumerate(t.card_names) if n == name]
        if not slots:
            raise ValueError(f"unknown card {raw!r} for these rules (cards look like 3C, TD, JK)")
        free = [c for c in slots if not hand[c]]
        if not free:
            raise ValueError(f"card {raw!r} named more often than the pack holds it ({len(slots)})")
        hand[free[0]] = True
    return hand


def printed_rank(name: str) -> str:
    """The rank printed on a card: ``"3"`` for ``"3C"`` (a high card too), ``"JK"`` for a joker."""
    return name if name in ("JK", "BJ", "RJ") else name[:-1]


def card_names(rules: Rules, hand: np.ndarray) -> list[str]:
    """A (C,) boolean hand as a sorted list of card names."""
    names = tables(rules).card_names
    return [names[c] for c in np.flatnonzero(hand)]


def _normalise(name: str) -> str:
    s = str(name).strip().upper()
    if s.startswith("10"):
        s = "T" + s[2:]
    return s
