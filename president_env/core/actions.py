"""The action table: id 0 is pass, then one id per (play rank, size), or per card combination.

Rank-based rules (every option of rule book section 8 but ``suit_rule`` and ``runs`` at its
default): ``id = 1 + rank * max_set + (size - 1)`` where ``rank`` indexes the play ranks of
:mod:`president_env.core.cards` (natural and joker ranks weakest first, then ``WILD`` for an
all-wild set) and ``size`` runs 1..``4 x decks``. During the exchange the same ids name a
give-back: a size-1 id gives one card of that rank (the lowest suit; for ``WILD`` the least
wild card).

Card-level rules (``suit_rule`` or ``runs`` on, :attr:`Rules.card_level`): after pass come
the *sets*, grouped by the rank-level id above and within it by the number of wild cards
(none first), each naming its natural cards exactly ("pair 7C 7H", "three 7D 7S + 1 wild");
then the *runs* ("run 5S 6S 7S": a suit, a lowest rank and a length). An action names the
natural cards; the wild cards it uses are the least wild cards held (like the rank-based
table, which takes wild cards last), except where suits are compared and wild cards have
suits (``Rules.names_wild_cards``): there a set names its wild cards too ("pair 7C + wild
2D"). In a run the engine plays the named natural card where held and a wild card for each
one missing. A give-back or trade names one card (a single's id). See ``docs/rules.md``
(card-level actions) for why this table and its sizes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import WILD, Tables, tables
from .rules import Rules

PASS = 0
_SIZE_WORDS = {1: "single", 2: "pair", 3: "three", 4: "four"}


@dataclass(frozen=True, eq=False)
class ActionTable:
    """Id <-> (rank, size), and on card-level rules the cards, for one rules object.

    Row 0 is pass (rank -1, size 0). On card-level rules ``cards[i]`` are the natural cards
    action ``i`` names, ``wild[i]`` its wild cards, ``run[i]`` its run length (0: a set; a
    run's ``rank`` is its lowest card's) and ``rank_id[i]`` the rank-level id of a set
    (-1 for a run)."""

    rank: np.ndarray   # (A,) play-rank index, -1 for pass
    size: np.ndarray   # (A,) cards in the set, 0 for pass
    names: tuple[str, ...]  # play rank name of each id ("" for pass)
    cards: tuple[tuple[str, ...], ...] = ()   # card-level: natural card names of each id
    wild: np.ndarray | None = None            # card-level: (A,) wild cards
    run: np.ndarray | None = None             # card-level: (A,) run length, 0 for a set
    rank_id: np.ndarray | None = None         # card-level: (A,) rank-level id of a set, 0 pass, -1 a run
    pick: np.ndarray | None = None            # poker: (A,) card-name index a pick names (poker.ClaimTable.pick_names),
    #                                           -1 for pass and the claims
    claim_words: tuple[str, ...] = ()         # poker: words of pass and each claim (poker.ClaimTable.words)
    wild_cards: tuple[tuple[str, ...], ...] = ()  # card-level under ``Rules.names_wild_cards``: the wild cards
    #                                           each set names ("2D"; "JK" for a wild joker), ``wild[i]`` of them;
    #                                           empty otherwise
    joker_as: tuple[str, ...] = ()            # under ``Rules.joker_stands_for``: the card the joker stands for
    #                                           ("9S"; "9*" the fifth 9 of a five-card set; a run's place below
    #                                           its lowest rank "<H" or above its highest ">H"), "" none
    run_lo: np.ndarray | None = None          # card-level: (A,) a run's lowest place in rank_order (-1: the
    #                                           virtual place below it, run_joker_ends), -9 for a set
    joker_pos: np.ndarray | None = None       # under ``Rules.joker_stands_for``: (A,) a run's joker place, -9 none

    @property
    def n(self) -> int:
        return len(self.rank)

    @property
    def card_level(self) -> bool:
        return self.run is not None

    @property
    def poker(self) -> bool:
        return self.pick is not None

    @property
    def names_joker(self) -> bool:
        """Whether actions name the card the joker stands for (``Rules.joker_stands_for``)."""
        return bool(self.joker_as)

    @property
    def names_wild(self) -> bool:
        """Whether sets name their wild cards (``Rules.names_wild_cards``), not only count them."""
        return bool(self.wild_cards)

    def words(self, i: int) -> str:
        """Action ``i`` in words: 'pair of 7s', or on card-level rules 'pair 7C 7H', 'run 5S 6S 7S', or in
        poker a claim ('full house of sevens') or a pick ('pick 7H')."""
        if self.poker:
            return f"pick {self.cards[i][0]}" if self.pick[i] >= 0 else self.claim_words[i]
        if not self.card_level or i == 0:
            return _words(self.names[i], int(self.size[i]))
        if self.joker_as:
            return _joker_words(self.cards[i], int(self.size[i]), int(self.run[i]), self.joker_as[i],
                                int(self.joker_pos[i] - self.run_lo[i]))
        named = self.wild_cards[i] if self.wild_cards else ()
        return _card_words(self.cards[i], int(self.size[i]), int(self.wild[i]), int(self.run[i]), named)

    def rows(self) -> list[dict]:
        """The table as plain rows {id, rank, size, words} (card-level: also cards, wild, run)."""
        out = []
        for i in range(self.n):
            row = {"id": i, "rank": self.names[i] or None, "size": int(self.size[i]), "words": self.words(i)}
            if self.card_level:
                row.update(cards=list(self.cards[i]), wild=int(self.wild[i]), run=int(self.run[i]))
                if self.wild_cards:
                    row.update(wild_cards=list(self.wild_cards[i]))
                if self.joker_as:
                    row.update(joker_as=self.joker_as[i] or None)
            if self.poker:
                row.update(cards=list(self.cards[i]), pick=bool(self.pick[i] >= 0))
            out.append(row)
        return out


@lru_cache(maxsize=128)
def action_table(rules: Rules) -> ActionTable:
    """The action table of ``rules`` (card-level when ``rules.card_level``)."""
    if rules.poker:
        return _poker_table(rules)
    if rules.card_level:
        return _card_level_table(rules, tables(rules))
    return rank_table(rules)


def _poker_table(rules: Rules) -> ActionTable:
    """Pass, the claims of :func:`poker.claim_table`, then one pick per card name (docs/rules.md 42)."""
    from .poker import claim_table

    ct = claim_table(rules)
    t = tables(rules)
    U = len(ct.pick_names)
    pick_rank = [int(t.kind_play[t.kinds.index(n[:-1])]) if n[:-1] not in rules.wild_ranks else t.n_play_ranks - 1
                 for n in ct.pick_names]
    rank = np.concatenate([ct.first_rank, pick_rank]).astype(np.int64)
    size = np.concatenate([ct.n * (np.arange(ct.X + 1) > 0), np.zeros(U, np.int64)]).astype(np.int64)
    names = ("",) + tuple(t.play_ranks[r] for r in rank[1:])
    return ActionTable(rank=rank, size=size, names=names,
                       cards=((),) * (ct.X + 1) + tuple((n,) for n in ct.pick_names),
                       pick=np.concatenate([np.full(ct.X + 1, -1), np.arange(U)]).astype(np.int64),
                       claim_words=ct.words)


@lru_cache(maxsize=128)
def rank_table(rules: Rules) -> ActionTable:
    """The rank-level (rank, size) table of ``rules``, even on card-level rules (where each set's
    ``rank_id`` points into it): what the scripted agents plan with."""
    t = tables(rules)
    S = rules.max_set
    R = t.n_play_ranks
    rank = np.concatenate([[-1], np.repeat(np.arange(R), S)]).astype(np.int64)
    size = np.concatenate([[0], np.tile(np.arange(1, S + 1), R)]).astype(np.int64)
    names = ("",) + tuple(t.play_ranks[r] for r in rank[1:])
    return ActionTable(rank=rank, size=size, names=names)


def _card_level_table(rules: Rules, t: Tables) -> ActionTable:
    """Pass; every set as (rank-level id, natural cards, wild cards); every run.

    A set's wild cards are a count, except under ``Rules.names_wild_cards`` (section 8 fine point 10),
    where the set names them too: ``pair 7C + wild 2D`` and ``pair 7C + wild 2C`` are two actions, and with
    threes wild as well ``pair 7C + wild 3D`` a third (their printed ranks matter to ``forbidden_finish``
    and to what the others see); the engine plays the named wild cards. Under ``Rules.joker_stands_for``
    (the UEC rules: one wild joker) a set names the suit the joker stands for (``pair 9D + JK as 9S``) and
    a run the joker's place (``run 6H JK 8H``), its virtual ends included with ``run_joker_ends``."""
    S = rules.max_set
    n_wild = int(t.card_wild.sum())
    copies: dict[str, int] = {}
    for name in t.card_names:
        copies[name] = copies.get(name, 0) + 1
    named = rules.names_wild_cards
    stands = rules.joker_stands_for
    wild_tokens = wild_card_names(t)
    for c in np.flatnonzero(t.card_wild):
        copies["*" + t.card_names[c]] = copies.get("*" + t.card_names[c], 0) + 1

    def combos(names: list[str], m: int, prefix: str = "") -> list[tuple[str, ...]]:
        return [c for c in itertools.combinations_with_replacement(names, m)
                if all(c.count(x) <= copies[prefix + x] for x in set(c))]

    def wild_parts(w: int) -> list[tuple[str, ...]]:
        return combos(wild_tokens, w, "*") if named else [()]

    def joker_parts(rank: str, combo: tuple[str, ...], w: int) -> list[str]:
        """Under joker_stands_for: the cards the one joker of a set may stand for (a suit the set lacks;
        the fifth card of a five-card set)."""
        if not stands or w == 0:
            return [""]
        if len(combo) == 4:
            return [rank + "*"]
        return [rank + suit for suit in rules.suit_order if rank + suit not in combo]

    rows: list[tuple] = [(-1, 0, (), 0, 0, 0, (), "", -9, -9)]  # rank, size, cards, wild, run, rank_id,
    #                                                              wild names, joker as, run lo, joker place
    for p, k in enumerate(t.play_kind):
        kind_names = [n for n in dict.fromkeys(t.card_names[c] for c in np.flatnonzero(t.card_kind == k))] \
            if k >= 0 else []
        for n in range(1, S + 1):
            rid = 1 + p * S + n - 1
            if k < 0:
                if n <= n_wild:
                    rows += [(p, n, (), n, 0, rid, wc, "", -9, -9) for wc in wild_parts(n)]
                continue
            if t.kind_high[k] and n > 1:
                continue
            for w in range(0, min(n - 1, n_wild) + 1):
                for combo in combos(kind_names, n - w):
                    rows += [(p, n, combo, w, 0, rid, wc, ja, -9, -9) for wc in wild_parts(w)
                             for ja in joker_parts(t.kinds[k], combo, w)]
    if rules.runs:
        rows += _runs(rules, t)
    rank = np.array([r[0] for r in rows], dtype=np.int64)
    return ActionTable(
        rank=rank, size=np.array([r[1] for r in rows], dtype=np.int64),
        names=("",) + tuple(t.play_ranks[r] for r in rank[1:]),
        cards=tuple(r[2] for r in rows), wild=np.array([r[3] for r in rows], dtype=np.int64),
        run=np.array([r[4] for r in rows], dtype=np.int64), rank_id=np.array([r[5] for r in rows], dtype=np.int64),
        wild_cards=tuple(r[6] for r in rows) if named else (),
        joker_as=tuple(r[7] for r in rows) if stands else (),
        run_lo=np.array([r[8] for r in rows], dtype=np.int64),
        joker_pos=np.array([r[9] for r in rows], dtype=np.int64) if stands else None,
    )


def wild_card_names(t: Tables) -> list[str]:
    """The names of the pack's wild cards, once each, in card order (wild ranks in ``rank_order``, each by
    suit, then ``JK``): the tokens a set names its wild cards by, and the engine's wild-card slots."""
    return list(dict.fromkeys(t.card_names[c] for c in np.flatnonzero(t.card_wild)))


def _runs(rules: Rules, t: Tables) -> list[tuple]:
    """Runs: per suit, per length, per lowest rank; natural ranks in rank_order, never through a wild one.
    Under ``Rules.joker_stands_for`` each window also comes with the joker in each of its places (after the
    run of natural cards alone), and with ``run_joker_ends`` windows reach one place past either end of
    rank_order, where the joker stands (JK 3H 4H, AH 2H JK)."""
    order = list(rules.rank_order)
    ok = [r not in rules.wild_ranks for r in order]
    names = set(t.card_names)
    stands = rules.joker_stands_for
    ends = 1 if rules.run_joker_ends else 0
    N = len(order)
    out = []
    for suit in rules.suit_order:
        for L in range(rules.runs, N + 1 + ends):
            for lo in range(-ends, N - L + 1 + ends):
                places = range(lo, lo + L)
                virtual = [x for x in places if x < 0 or x >= N]
                if len(virtual) > 1 or not all(ok[x] for x in places if 0 <= x < N):
                    continue
                natural = [x for x in places if 0 <= x < N]
                cards = tuple(order[x] + suit for x in natural
                              if order[x] + suit in names and order[x] + suit not in rules.high_cards)  # no high card
                if not cards:
                    continue
                low = int(t.kind_play[natural[0]])
                jokers = [None] if not stands else ([None] + natural if not virtual else virtual)
                for jx in jokers:
                    if stands and jx is None and len(cards) < L:
                        continue                          # named: a run without the joker holds every card
                    shown = tuple(c for x, c in zip(natural, cards, strict=False) if x != jx) if stands else cards
                    if stands and len(shown) < 2:
                        continue
                    if jx is None:
                        ja = ""
                    elif jx < 0:
                        ja = "<" + suit
                    elif jx >= N:
                        ja = ">" + suit
                    else:
                        ja = order[jx] + suit
                    out.append((low, L, shown, 0 if jx is None else 1, L, -1, (), ja, lo, -9 if jx is None else jx))
    return out


def n_actions(rules: Rules) -> int:
    if rules.card_level or rules.poker:
        return action_table(rules).n
    return 1 + tables(rules).n_play_ranks * rules.max_set


def action_id(rules: Rules, rank: str, size: int) -> int:
    """The id of playing ``size`` cards of ``rank`` ("7", "JK", "WILD"); on card-level rules use
    :func:`card_action_id`."""
    if rules.poker:
        raise ValueError("these rules play poker combinations: use claim_id(rules, words) and pick_id(rules, card)")
    if rules.card_level:
        raise ValueError("these rules name cards (suit_rule or runs): use card_action_id(rules, cards)")
    t = tables(rules)
    rank = "T" if str(rank) == "10" else str(rank).upper()
    if rank not in t.play_ranks:
        raise ValueError(f"{rank!r} is not a play rank under these rules; play ranks are {t.play_ranks}")
    if not 1 <= size <= rules.max_set:
        raise ValueError(f"size {size} out of range 1..{rules.max_set}")
    return 1 + t.play_ranks.index(rank) * rules.max_set + size - 1


def card_action_id(rules: Rules, cards: list[str] | tuple[str, ...], run: bool = False) -> int:
    """Card-level rules: the id of the set of ``cards`` (natural cards by name, wild cards by name or
    as ``"WILD"``: which wild cards go is the engine's choice; under ``Rules.names_wild_cards`` a set
    names its wild cards, "2D", and ``"WILD"`` is refused), or with ``run=True`` of the run whose window
    holds exactly the natural ``cards`` named (``["5S", "6S", "7S"]``)."""
    if not rules.card_level:
        raise ValueError("these rules are rank-based: use action_id(rules, rank, size)")
    t, at = tables(rules), action_table(rules)
    wild_cards = {t.card_names[c] for c in np.flatnonzero(t.card_wild)}
    names = [("T" + str(n)[2:] if str(n).startswith("10") else str(n)).upper() for n in cards]
    unknown = [n for n in names if n not in t.card_names and n != "WILD"]
    if unknown:
        raise ValueError(f"unknown card(s) {unknown} for these rules (cards look like 3C, TD, JK)")
    named = at.names_wild and not run
    if named and "WILD" in names:
        raise ValueError("these rules compare suits and a set names its wild cards: name the wild cards "
                         "(2D, not WILD)")
    natural = tuple(sorted(n for n in names if n not in wild_cards and n != "WILD"))
    wild = sorted(n for n in names if n in wild_cards or n == "WILD")
    for i in range(1, at.n):
        if bool(at.run[i]) != run or tuple(sorted(at.cards[i])) != natural:
            continue
        if run or (sorted(at.wild_cards[i]) == wild if named else at.wild[i] == len(wild)):
            return i
    raise ValueError(f"no {'run' if run else 'set'} of the cards {list(cards)} in the action table of these rules")


def claim_id(rules: Rules, words: str) -> int:
    """Poker: the id of a claim by its words ("pair of sevens", "full house of kings", "straight 3 to 7",
    "two pair, kings and sevens", "flush, ace high", "pair of wild cards"); see ``action_table(rules).rows()``."""
    from .poker import claim_table

    ct = claim_table(rules)
    want = " ".join(str(words).lower().split())
    for i in range(1, ct.X + 1):
        if ct.words[i].lower() == want:
            return i
    raise ValueError(f"no claim {words!r} under these rules; claims look like {ct.words[1]!r}, {ct.words[-1]!r}")


def pick_id(rules: Rules, card: str) -> int:
    """Poker: the id of picking (or giving back) a card named ``card`` ("7H", "2D")."""
    from .poker import claim_table

    ct = claim_table(rules)
    name = ("T" + str(card)[2:] if str(card).startswith("10") else str(card)).upper()
    if name not in ct.pick_names:
        raise ValueError(f"unknown card {card!r} for these rules (cards look like 3C, TD)")
    return ct.pick_id(name)


def _card_words(cards: tuple[str, ...], size: int, wild: int, run: int, wild_cards: tuple[str, ...] = ()) -> str:
    """'pair 7C 7H', 'three 7D 7S + 1 wild', or where sets name their wild cards 'pair 7C + wild 2D'
    ('pair of wild cards 2C 3D' alone)."""
    if run:
        return f"run {' '.join(cards)}" + (f" ({run} cards, {run - len(cards)} wild)" if len(cards) < run else "")
    if not cards:
        return _words(WILD, size) + (f" {' '.join(wild_cards)}" if wild_cards else "")
    if wild_cards:
        shown = " ".join(cards) + f" + wild {' '.join(wild_cards)}"
    else:
        shown = " ".join(cards) + (f" + {wild} wild" if wild else "")
    return f"{_SIZE_WORDS.get(size, f'{size} x')} {shown}"


def _joker_words(cards: tuple[str, ...], size: int, run: int, joker_as: str, place: int = -1) -> str:
    """Under ``Rules.joker_stands_for``: 'pair 9D + JK as 9S', 'five 9C 9D 9H 9S + JK', 'run 6H JK 8H'
    (the joker at ``place`` of the run, counted from its low end), 'run JK 3H 4H' (below the lowest rank)."""
    if run:
        shown = list(cards)
        if joker_as:
            shown.insert(place, "JK")
        return f"run {' '.join(shown)}"
    if not joker_as:
        return _card_words(cards, size, 0, 0)
    if joker_as.endswith("*"):
        return f"{'five' if size == 5 else _SIZE_WORDS.get(size, f'{size} x')} {' '.join(cards)} + JK"
    return f"{_SIZE_WORDS.get(size, f'{size} x')} {' '.join(cards)} + JK as {joker_as}"


def _words(name: str, size: int) -> str:
    if size == 0:
        return "pass"
    shown = "wild card" if name == WILD else name
    if size == 1:
        return f"single {shown}"
    count = _SIZE_WORDS.get(size, f"{size} x")
    return f"{count} {shown}s" if size > 2 else f"pair of {shown}s"


def describe_action(rules: Rules, action: int, exchange: bool = False, trade: bool = False,
                    claim: bool = False) -> str:
    """An action id in words: 'pass', 'pair of 7s', 'give back a 7' in the exchange, 'trade a 7'
    when ``trade`` (a merchant's pick under ``merchant_trade``), or 'claim a quick clear: pair of 7s' /
    'decline the quick clear' when ``claim`` (a player asked under ``quick_clear``)."""
    table = action_table(rules)
    if not 0 <= int(action) < table.n:
        raise ValueError(f"action {action} out of range 0..{table.n - 1}")
    name, size = table.names[action], int(table.size[action])
    if claim:
        return f"claim a quick clear: {table.words(action)}" if size else "decline the quick clear"
    if table.poker and (exchange or trade) and table.pick[action] >= 0:
        return f"{'trade' if trade else 'give back'} a {table.cards[action][0]}"
    if (exchange or trade) and size >= 1:
        card = table.cards[action][0] if table.card_level and table.cards[action] else None
        if card is None and table.names_wild and table.wild_cards[action]:
            card = f"wild {table.wild_cards[action][0]}"       # the wild card it names (fine point 9)
        card = card or ("wild card" if name == WILD else name)
        return f"{'trade' if trade else 'give back'} a {card}"
    return table.words(action)
