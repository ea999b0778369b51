"""The legal actions of a poker decision, stated plainly from :func:`poker.satisfies` and :func:`poker.beats`.

:func:`reference_poker_mask` tries every subset of the hand (brute force, no counting) for every claim, so
it is slow (seconds on a 13-card lead) but says exactly what docs/rules.md choice 45 says. Tests call it on
hand-built situations and on positions of random games, against the compiled engine's mask
(``kernel/poker.py``, which counts the hand's cards instead of trying subsets).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from .cards import tables
from .poker import beats, best_suit, claim_table, satisfies
from .rules import Rules

__all__ = ["reference_poker_mask", "first_pick_suit_ok"]


def _subsets(cards: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The distinct multisets of ``n`` of the cards (copies of a card are the same card)."""
    if n < 0 or n > len(cards):
        return []
    return sorted(set(combinations(sorted(cards), n)))


def first_pick_suit_ok(rules: Rules, card: str, top_card_names: Sequence[str], revolution: bool) -> bool:
    """Choice 45: on the top's own claim the first pick is a card whose suit beats the top's best suit (or
    equals it, with ``equal_rank_beats``); suits compare reversed under a revolution."""
    mine = best_suit(rules, [card], revolution)
    theirs = best_suit(rules, list(top_card_names), revolution)
    return mine > theirs or (mine == theirs and rules.equal_rank_beats)


def reference_poker_mask(rules: Rules, hand_card_names: Iterable[str], picked_names: Iterable[str], claim: int,
                         top_claim: int, top_card_names: Iterable[str], revolution: bool,
                         first_lead: bool) -> set[int]:
    """The legal action ids of a poker play decision (docs/rules.md choice 45).

    ``hand_card_names``: the cards held (picked ones included); ``picked_names``: those picked so far for the
    pending ``claim`` (0: no claim pending); ``top_claim``/``top_card_names``: the play on top (0 and () on a
    lead); ``first_lead``: the first lead of a hand under ``first_lead lowest_card``.

    No claim pending: pass where allowed (never on a lead; not under ``compulsory_beat`` while a claim is
    legal), and every claim some subset of the hand satisfies that leads or beats the top (a bomb under
    ``four_of_a_kind bomb`` beats anything), holding the lowest card on the first lead. A claim pending: the
    pick of every card name c such that some completion of the picked cards plus one more c, from the hand,
    satisfies the claim and beats the top (holding the lowest card on the first lead); the first pick is the
    lowest card on the first lead, and on the top's own claim (not beating as a bomb) a card whose suit beats
    the top's best suit (:func:`first_pick_suit_ok`)."""
    ct = claim_table(rules)
    t = tables(rules)
    hand = sorted(hand_card_names)
    picked = sorted(picked_names)
    top = list(top_card_names)
    rev = bool(revolution)
    lowest = t.card_names[t.lowest_card]
    left = Counter(hand)
    left.subtract(Counter(picked))
    if any(v < 0 for v in left.values()):
        raise ValueError(f"picked cards {picked} are not all in the hand {hand}")
    rest = sorted(left.elements())

    def ok(x: int, cards: Sequence[str]) -> bool:
        return (satisfies(rules, x, cards, rev) and beats(rules, x, cards, top_claim, top, rev)
                and (not first_lead or lowest in cards))

    legal: set[int] = set()
    if claim == 0:
        if picked:
            raise ValueError("cards are picked only for a pending claim")
        by_n = {n: _subsets(hand, n) for n in range(1, 6)}
        for x in range(1, ct.X + 1):
            if any(ok(x, p) for p in by_n[int(ct.n[x])]):
                legal.add(x)
        if top_claim != 0 and not (rules.compulsory_beat and legal):
            legal.add(0)
        return legal
    n = int(ct.n[claim])
    if len(picked) >= n:
        raise ValueError(f"claim {claim} has {n} cards; {len(picked)} are picked already")
    as_bomb = top_claim != 0 and rules.four_of_a_kind == "bomb" and bool(ct.bomb[claim])
    for more in _subsets(rest, n - len(picked)):
        if not ok(claim, picked + list(more)):
            continue
        for c in set(more):
            if not picked:
                if first_lead and c != lowest:
                    continue
                if claim == top_claim and not as_bomb and not first_pick_suit_ok(rules, c, top, rev):
                    continue
            legal.add(ct.pick_id(c))
    return legal
