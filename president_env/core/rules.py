"""The frozen rules object, its validation, and the named presets.

Every option of sections 1 to 6 of the rule book (``docs/rules.md``) is one field
of :class:`Rules`. A rules object is checked when it is built: an impossible
combination raises :class:`RulesError` naming the option and the value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NATURAL_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
JOKER_RANKS = ("JK", "BJ", "RJ")
SUITS = ("C", "D", "H", "S")
DEFAULT_RANK_ORDER = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2")
DECKS = (1, 1.5, 2)                  # decks: one pack, a deck and a half (fine point 18), two packs
MAX_PLAYERS = {1: 8, 1.5: 10, 2: 12}  # players by decks (section 1)
# Bounds that keep a session inside the engine's 32-bit counters (points, hand numbers).
MAX_SCORE = 1000                    # |points| one place may score in a hand (scoring)
MAX_HANDS_PER_SESSION = 1_000_000   # hands_per_session, and hand numbers
MAX_TARGET_POINTS = 1_000_000       # target_points

_CHOICES: dict[str, tuple[str, ...]] = {
    "joker_mode": ("high", "high_ranked", "wild"),
    "extra_cards_to": ("first_dealt", "top_ranks", "bottom_ranks"),
    "first_lead": ("dealer_left", "lowest_card", "dealer"),
    "lead_after_first": ("president", "scum"),
    "pass_rule": ("may_replay", "locks_out", "single_round"),
    "direction": ("clockwise", "counter_clockwise"),
    "size_rule": ("equal", "at_least", "bigger_beats_any"),
    "wild_tie": ("equal", "natural_higher", "wild_higher"),
    "four_of_a_kind": ("none", "bomb", "revolution", "revolution_and_reverse"),
    "hand_assignment": ("deal", "expose"),
    "suit_rule": ("none", "rank", "follow", "colour"),
    "combinations": ("sets", "poker"),
    "trick_end": ("others_passed", "all_passed"),
    "suit_lock": ("none", "exact"),
    "run_beat": ("highest_higher", "clear_above"),
}
_BOOLS = (
    "compulsory_beat",
    "equal_rank_beats",
    "equal_play_skips",
    "complete_set_clears",
    "eight_cut",
    "president_must_win",
    "revolution_by_singles",
    "reseat",
    "merchant_trade",
    "quick_clear",
    "lead_may_pass",
    "spade_three_beats_joker",
    "run_joker_ends",
    "five_card_set",
    "eight_cut_by_wild",
    "eleven_back",
    "six_reverse",
    "five_skip",
)
# Options that are a count or None (off): (option, least, most). pass_limit is counted in one byte.
_COUNTS = (("random_seats_every", 1, MAX_HANDS_PER_SESSION), ("rank_reset_every", 1, MAX_HANDS_PER_SESSION),
           ("pass_limit", 1, 100))
_RANK_SETS = ("wild_ranks", "trump_ranks", "reset_ranks", "forbidden_finish")


class RulesError(ValueError):
    """An impossible option value or combination of options."""


def _rank_tuple(value: Any, option: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    try:
        items = tuple(str(v).upper() if str(v).lower() != "10" else "T" for v in value)
    except TypeError:
        raise RulesError(f"{option}: expected a list of ranks, got {value!r}") from None
    return items


def _power_tuple(value: Any) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """``power_ranks`` as sorted (rank, sizes) pairs, from a mapping, pairs, or text like ``"2:2,3,4 J:3,4"``."""
    if value is None:
        return ()
    if isinstance(value, str):
        pairs = []
        for item in value.split():
            rank, sep, sizes = item.partition(":")
            if not sep or not sizes:
                raise RulesError(f"power_ranks: expected items like '2:2,3,4', got {item!r}")
            pairs.append((rank, sizes.split(",")))
        value = pairs
    elif isinstance(value, Mapping):
        value = list(value.items())
    try:
        items = [(_rank_tuple([rank], "power_ranks")[0], _int_tuple(sizes, f"power_ranks[{rank}]"))
                 for rank, sizes in value]
    except (TypeError, ValueError) as e:
        if isinstance(e, RulesError):
            raise
        raise RulesError(f"power_ranks: expected a mapping rank -> list of sizes, got {value!r}") from None
    ranks = [r for r, _ in items]
    if len(set(ranks)) != len(ranks):
        raise RulesError(f"power_ranks: a rank appears twice in {value!r}")
    return tuple(sorted(items))


def _name_tuple(value: Any, option: str) -> tuple[str, ...]:
    """Card or suit names as an upper-case tuple, from a list or text like ``"3C 3S"``."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    try:
        return tuple(str(v).strip().upper().replace("10", "T", 1) for v in value)
    except TypeError:
        raise RulesError(f"{option}: expected a list of names, got {value!r}") from None


def _int_tuple(value: Any, option: str) -> tuple[int, ...]:
    if isinstance(value, int):
        value = (value,)
    try:
        out = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise RulesError(f"{option}: expected a list of integers, got {value!r}") from None
    if any(isinstance(v, bool) for v in value):
        raise RulesError(f"{option}: expected integers, got {value!r}")
    return out


@dataclass(frozen=True)
class Rules:
    """One variant of President: every option of the rule book, validated.

    Build one directly (``Rules(players=5, pass_rule="locks_out")``), from a preset
    (``Rules.preset("daifugo", players=5)``), or change one (``rules.replace(...)``).
    Lists are stored as tuples and rank sets as frozensets, so rules are hashable.
    """

    # 1. Cards and deal
    rank_order: tuple[str, ...] = DEFAULT_RANK_ORDER
    decks: int | float = 1   # 1, 1.5 (a deck and a half: fine point 18) or 2
    jokers: int = 0
    joker_mode: str = "high"
    players: int = 4
    extra_cards_to: str = "first_dealt"
    # 2. Who leads
    first_lead: str = "lowest_card"
    lead_after_first: str = "president"
    # 3. A trick
    pass_rule: str = "may_replay"
    compulsory_beat: bool = False
    direction: str = "clockwise"
    # 4. What beats what
    size_rule: str = "equal"
    equal_rank_beats: bool = False
    equal_play_skips: bool = False
    wild_ranks: frozenset[str] = field(default_factory=frozenset)
    wild_tie: str = "equal"
    transparent_rank: str | None = None
    # 5. Special plays
    trump_ranks: frozenset[str] = field(default_factory=frozenset)
    reset_ranks: frozenset[str] = field(default_factory=frozenset)
    four_of_a_kind: str = "none"
    complete_set_clears: bool = False
    eight_cut: bool = False
    forbidden_finish: frozenset[str] = field(default_factory=frozenset)
    president_must_win: bool = False
    power_ranks: tuple[tuple[str, tuple[int, ...]], ...] = ()
    revolution_by_singles: bool = False
    revolution_reset_rank: str | None = None
    # 6. Between hands
    exchange: tuple[int, ...] = (2, 1)
    exchange_back: tuple[int, ...] | None = None
    reseat: bool = True
    scoring: tuple[int, ...] | None = None
    target_points: int | None = 11
    hands_per_session: int | None = None
    hand_assignment: str = "deal"
    merchant_trade: bool = False
    # 8. Suit-aware play (the options whose moves the (rank, size) action table names)
    suit_order: tuple[str, ...] = SUITS
    high_cards: tuple[str, ...] = ()
    quick_clear: bool = False
    # 8. Suit-aware play (options that need the card-level action table)
    suit_rule: str = "none"
    runs: int = 0
    combinations: str = "sets"
    # 9. The UEC standard rules (docs/uecda.md; ../shared/spec/uecda.md section 1): off by default
    lead_card: str | None = None
    lead_may_pass: bool = False
    trick_end: str = "others_passed"
    suit_lock: str = "none"
    spade_three_beats_joker: bool = False
    run_beat: str = "highest_higher"
    run_joker_ends: bool = False
    run_revolution: int = 0
    five_card_set: bool = False
    eight_cut_by_wild: bool = False
    random_seats_every: int | None = None
    rank_reset_every: int | None = None
    pass_limit: int | None = None
    eleven_back: bool = False
    six_reverse: bool = False
    five_skip: bool = False
    # The preset this object came from ("custom" when built by hand).
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "rank_order", _rank_tuple(self.rank_order, "rank_order"))
        for opt in _RANK_SETS:
            set_(self, opt, frozenset(_rank_tuple(getattr(self, opt), opt)))
        for opt in ("transparent_rank", "revolution_reset_rank"):
            if getattr(self, opt) is not None:
                set_(self, opt, _rank_tuple([getattr(self, opt)], opt)[0])
        set_(self, "power_ranks", _power_tuple(self.power_ranks))
        set_(self, "suit_order", _name_tuple(self.suit_order, "suit_order"))
        set_(self, "high_cards", _name_tuple(self.high_cards, "high_cards"))
        if isinstance(self.lead_card, str):
            set_(self, "lead_card", _name_tuple([self.lead_card], "lead_card")[0])
        set_(self, "exchange", _int_tuple(self.exchange, "exchange"))
        if self.exchange_back is not None:
            set_(self, "exchange_back", _int_tuple(self.exchange_back, "exchange_back"))
        if self.scoring is not None:
            set_(self, "scoring", _int_tuple(self.scoring, "scoring"))
        if isinstance(self.decks, float) and self.decks in (1.0, 2.0):
            set_(self, "decks", int(self.decks))   # 2.0 from a JSON file is two decks
        self._validate()

    # ------------------------------------------------------------------ checks
    def _validate(self) -> None:  # noqa: C901 - one check per rule of the book
        def bad(option: str, value: Any, why: str) -> RulesError:
            return RulesError(f"{option}={value!r}: {why}")

        for opt, choices in _CHOICES.items():
            if getattr(self, opt) not in choices:
                raise bad(opt, getattr(self, opt), f"must be one of {', '.join(choices)}")
        for opt in _BOOLS:
            if not isinstance(getattr(self, opt), bool):
                raise bad(opt, getattr(self, opt), "must be true or false")
        if self.decks not in DECKS or isinstance(self.decks, bool):
            raise bad("decks", self.decks, "must be 1, 1.5 (a deck and a half) or 2")
        for opt in ("jokers", "players"):
            v = getattr(self, opt)
            if not isinstance(v, int) or isinstance(v, bool):
                raise bad(opt, v, "must be an integer")
        ro = self.rank_order
        unknown = [r for r in ro if r not in NATURAL_RANKS]
        if unknown:
            raise bad("rank_order", " ".join(ro), f"unknown rank(s) {unknown}; ranks are {' '.join(NATURAL_RANKS)}")
        if len(set(ro)) != len(ro):
            raise bad("rank_order", " ".join(ro), "a rank appears twice")
        if not ro:
            raise bad("rank_order", "", "the deck needs at least one rank")
        if not 0 <= self.jokers <= 2:
            raise bad("jokers", self.jokers, "must be 0, 1 or 2 per deck")
        max_players = MAX_PLAYERS[self.decks]
        if not 3 <= self.players <= max_players:
            raise bad("players", self.players, f"must be 3..{max_players} with {self.decks} deck(s)")
        if len(ro) + (self.jokers > 0) < 2:
            raise bad("rank_order", " ".join(ro), "the pack needs at least two kinds of card (ranks, or a rank "
                      "and jokers): with one kind no play can beat another")
        if self.n_cards < self.players:
            raise bad("players", self.players, f"the pack has {self.n_cards} cards, fewer than the players: "
                      "every player must be dealt at least one card")

        deck_ranks = set(ro) | set(self.joker_ranks)
        for opt in _RANK_SETS:
            extra = sorted(getattr(self, opt) - deck_ranks)
            if extra:
                raise bad(opt, sorted(getattr(self, opt)), f"rank(s) {extra} are not in the deck")
        for opt in ("transparent_rank", "revolution_reset_rank"):
            if getattr(self, opt) is not None and getattr(self, opt) not in deck_ranks:
                raise bad(opt, getattr(self, opt), "is not a rank in the deck")

        wild = self.wild_ranks
        if self.joker_mode == "wild":
            if self.jokers == 0:
                raise bad("joker_mode", "wild", "needs jokers >= 1")
            if "JK" not in wild:
                raise bad("wild_ranks", sorted(wild), "joker_mode 'wild' needs JK in wild_ranks")
        elif "JK" in wild or "BJ" in wild or "RJ" in wild:
            raise bad("wild_ranks", sorted(wild),
                      f"jokers are wild only with joker_mode 'wild', not {self.joker_mode!r}")
        if not [r for r in ro if r not in wild]:
            raise bad("wild_ranks", sorted(wild), "leaves no natural (non-wild) rank in the deck")

        roles = {
            "wild_ranks": set(wild),
            "trump_ranks": set(self.trump_ranks),
            "reset_ranks": set(self.reset_ranks),
            "transparent_rank": {self.transparent_rank} - {None},
        }
        names = list(roles)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                both = roles[a] & roles[b]
                if both:
                    raise bad(b, sorted(roles[b]) if b != "transparent_rank" else self.transparent_rank,
                              f"rank(s) {sorted(both)} already have a role in {a}")

        self._validate_section5(bad, deck_ranks)
        self._validate_section8(bad)
        self._validate_uec(bad)
        if self.decks == 1.5:
            self._validate_deck_and_a_half(bad)
        if self.equal_play_skips and not self.equal_rank_beats:
            raise bad("equal_play_skips", True, "needs equal_rank_beats")
        if self.eight_cut and ("8" not in ro or "8" in wild):
            raise bad("eight_cut", True, "needs 8 as a natural rank in the deck")

        for opt in ("exchange", "exchange_back"):
            v = getattr(self, opt)
            if v is None:
                continue
            if any(n < 1 for n in v):
                raise bad(opt, list(v), "every entry must be at least 1")
            if max(v, default=0) > self.smallest_hand:
                raise bad(opt, list(v), f"larger than the smallest hand ({self.smallest_hand} cards)")
        if self.exchange_back is not None and len(self.exchange_back) != len(self.exchange):
            raise bad("exchange_back", list(self.exchange_back),
                      f"must have the same length as exchange {list(self.exchange)}")
        if self.scoring is not None and len(self.scoring) > self.players:
            raise bad("scoring", list(self.scoring), f"has more entries than players ({self.players})")
        if self.scoring is not None and any(abs(v) > MAX_SCORE for v in self.scoring):
            raise bad("scoring", list(self.scoring), f"every entry must be -{MAX_SCORE}..{MAX_SCORE}")
        for opt, most in (("target_points", MAX_TARGET_POINTS), ("hands_per_session", MAX_HANDS_PER_SESSION)):
            v = getattr(self, opt)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= most):
                raise bad(opt, v, f"must be an integer 1..{most} or None")
        if self.target_points is None and self.hands_per_session is None:
            raise bad("target_points", None, "a session needs target_points or hands_per_session")
        if self.target_points is not None and self.hands_per_session is None and max(self.points) <= 0:
            raise bad("target_points", self.target_points,
                      f"scoring {list(self.points)} gives nobody a point, so the target is never reached and, "
                      "without hands_per_session, the session never ends")
        if self.merchant_trade and not self.merchant_pairs:
            raise bad("merchant_trade", True,
                      f"{self.players} players with exchange {list(self.exchange)} leave no two players "
                      "between the exchanging pairs to trade")

    def _validate_section5(self, bad: Any, deck_ranks: set[str]) -> None:
        """power_ranks, revolution_by_singles and revolution_reset_rank."""
        revolutions = self.four_of_a_kind in ("revolution", "revolution_and_reverse")
        for rank, sizes in self.power_ranks:
            shown = {r: list(v) for r, v in self.power_ranks}
            if rank not in deck_ranks:
                raise bad("power_ranks", shown, f"rank {rank!r} is not in the deck")
            if rank in self.wild_ranks:
                raise bad("power_ranks", shown, f"rank {rank!r} is wild, and a wild rank is never the rank of a play")
            if not 1 <= len(sizes) <= 3:
                raise bad("power_ranks", shown, f"rank {rank!r}: give 1 to 3 sizes (for 1, 2, 3 cards)")
            for n, most in enumerate(sizes, start=1):
                if not n < most <= 4:
                    raise bad("power_ranks", shown,
                              f"rank {rank!r}: {n} card(s) may beat sets of more than {n} and at most 4 cards, "
                              f"so entry {n} must be {n + 1}..4, got {most}")
        if self.revolution_by_singles:
            if not self.equal_rank_beats:
                raise bad("revolution_by_singles", True, "needs equal_rank_beats")
            if not revolutions:
                raise bad("revolution_by_singles", True,
                          f"needs four_of_a_kind 'revolution' or 'revolution_and_reverse', not {self.four_of_a_kind!r}")
        r = self.revolution_reset_rank
        if r is not None:
            if not revolutions:
                raise bad("revolution_reset_rank", r,
                          f"needs four_of_a_kind 'revolution' or 'revolution_and_reverse', not {self.four_of_a_kind!r}")
            for opt in ("wild_ranks", "trump_ranks"):
                if r in getattr(self, opt):
                    raise bad("revolution_reset_rank", r, f"rank {r!r} already has a role in {opt}")
            if r == self.transparent_rank:
                raise bad("revolution_reset_rank", r, f"rank {r!r} already has a role in transparent_rank")

    def _validate_section8(self, bad: Any) -> None:
        """suit_order, high_cards, runs and combinations."""
        if isinstance(self.runs, bool) or not isinstance(self.runs, int):
            raise bad("runs", self.runs, "expected 0 (no runs) or a run length of 3 or more")
        longest = stretch = 0  # runs never pass through a wild rank
        for r in self.rank_order:
            stretch = 0 if r in self.wild_ranks else stretch + 1
            longest = max(longest, stretch)
        if self.runs and not 3 <= self.runs <= longest:
            raise bad("runs", self.runs, f"expected 0 (no runs) or a run length from 3 to {longest} "
                      "(the most consecutive ranks of rank_order that are not wild)")
        if sorted(self.suit_order) != sorted(SUITS):
            raise bad("suit_order", " ".join(self.suit_order), "must name the four suits C D H S once each, "
                      "weakest first")
        hc = self.high_cards
        for card in hc:
            rank, suit = card[:-1], card[-1:]
            if len(card) < 2 or suit not in SUITS or rank not in NATURAL_RANKS:
                raise bad("high_cards", list(hc), f"{card!r} is not a card name (rank then suit: 3C, JD, TH)")
            if rank not in self.rank_order:
                raise bad("high_cards", list(hc), f"{card!r}: rank {rank!r} is not in the deck")
            if rank in self.wild_ranks:
                raise bad("high_cards", list(hc), f"{card!r}: rank {rank!r} is wild, and a card has one role")
        if len(set(hc)) != len(hc):
            raise bad("high_cards", list(hc), "a card appears twice")
        for rank in {card[:-1] for card in hc}:
            if sum(card[:-1] == rank for card in hc) == len(SUITS):
                raise bad("high_cards", list(hc), f"takes every card of rank {rank!r}, which leaves no natural "
                          f"{rank!r}; leave {rank!r} out of rank_order instead")
        if self.combinations == "poker":
            self._validate_poker(bad)

    def _validate_uec(self, bad: Any) -> None:  # noqa: C901 - one check per option
        """The UEC options (section 9; ../shared/spec/uecda.md section 1): each one's needs, by name."""
        for opt, least, most in _COUNTS:
            v = getattr(self, opt)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not least <= v <= most):
                raise bad(opt, v, f"must be an integer {least}..{most} or None (off)")
        if self.lead_card is not None:
            card = self.lead_card
            if not isinstance(card, str) or len(card) < 2 or card[-1] not in SUITS or card[:-1] not in self.rank_order:
                raise bad("lead_card", card, "must name a natural card of the deck (rank then suit: 3D)")
            if card[:-1] in self.wild_ranks or card in self.high_cards:
                raise bad("lead_card", card, "is a wild or high card; name a plain natural card")
            if self.decks != 1:
                raise bad("lead_card", card, "needs decks 1 (one copy of the card says who leads)")
        locks_out = self.pass_rule == "locks_out"
        if self.lead_may_pass and not locks_out:
            raise bad("lead_may_pass", True, f"needs pass_rule 'locks_out', not {self.pass_rule!r}")
        if self.trick_end == "all_passed" and not locks_out:
            raise bad("trick_end", "all_passed", f"needs pass_rule 'locks_out', not {self.pass_rule!r}")
        if self.combinations == "poker":
            for opt in ("lead_may_pass", "spade_three_beats_joker", "five_card_set", "eleven_back",
                        "six_reverse", "five_skip"):
                if getattr(self, opt):
                    raise bad(opt, True, "is not allowed with combinations 'poker'")
            if self.suit_lock != "none":
                raise bad("suit_lock", self.suit_lock, "is not allowed with combinations 'poker'")
        one_joker = (self.joker_mode == "wild" and self.jokers == 1 and self.decks == 1
                     and self.wild_ranks == frozenset({"JK"}))
        for opt, on in (("suit_lock", self.suit_lock != "none"), ("run_joker_ends", self.run_joker_ends),
                        ("five_card_set", self.five_card_set), ("spade_three_beats_joker",
                                                                self.spade_three_beats_joker)):
            if on and not one_joker:
                raise bad(opt, getattr(self, opt), "needs one wild joker as the only wild card (decks 1, jokers 1, "
                          "joker_mode 'wild', wild_ranks {JK}): the action names the card it stands for")
        if self.spade_three_beats_joker and ("3" not in self.rank_order or "3S" in self.high_cards):
            raise bad("spade_three_beats_joker", True, "needs the 3 of spades as a natural card")
        for opt in ("run_beat", "run_joker_ends", "run_revolution", "eight_cut_by_wild"):
            v = getattr(self, opt)
            if v not in (0, False, "highest_higher") and not self.runs:
                raise bad(opt, v, "needs runs")
        rr = self.run_revolution
        if isinstance(rr, bool) or not isinstance(rr, int) or rr < 0 or (rr and rr < self.runs):
            raise bad("run_revolution", rr, f"must be 0 (off) or a run length of at least runs ({self.runs})")
        if rr and self.four_of_a_kind not in ("revolution", "revolution_and_reverse"):
            raise bad("run_revolution", rr, "needs four_of_a_kind 'revolution' or 'revolution_and_reverse'")
        if self.eight_cut_by_wild and not self.eight_cut:
            raise bad("eight_cut_by_wild", True, "needs eight_cut")
        if self.random_seats_every is not None and self.reseat:
            raise bad("random_seats_every", self.random_seats_every, "needs reseat false (seats are drawn, not "
                      "taken by rank)")
        for opt, rank in (("eleven_back", "J"), ("six_reverse", "6"), ("five_skip", "5")):
            if getattr(self, opt) and (rank not in self.rank_order or rank in self.wild_ranks):
                raise bad(opt, True, f"needs {rank} as a natural rank in the deck")
        if self.five_card_set and self.size_rule != "equal":
            raise bad("five_card_set", True, f"needs size_rule 'equal', not {self.size_rule!r}")

    def _validate_deck_and_a_half(self, bad: Any) -> None:
        """Fine point 18: with ``decks 1.5`` the options whose two-deck meaning doubles a count, and the
        suit-aware options of section 8 (the second pack has no clubs or diamonds), are refused."""
        refused = {
            "power_ranks": bool(self.power_ranks), "revolution_by_singles": self.revolution_by_singles,
            "suit_order": self.suit_order != SUITS, "suit_rule": self.suit_rule != "none",
            "high_cards": bool(self.high_cards), "runs": self.runs != 0, "combinations": self.combinations != "sets",
        }
        for opt, on in refused.items():
            if on:
                value = getattr(self, opt)
                if opt == "power_ranks":
                    value = {r: list(v) for r, v in value}
                elif isinstance(value, tuple):
                    value = " ".join(value) if opt == "suit_order" else list(value)
                raise bad(opt, value, "is not allowed with decks 1.5 (a deck and a half: rule book section 10 "
                          "fine point 18)")

    def _validate_poker(self, bad: Any) -> None:
        """Section 8 fine point 7: the options refused with poker combinations, and ours (docs/rules.md 41)."""
        refused = {
            "runs": self.runs != 0, "suit_rule": self.suit_rule != "none", "high_cards": bool(self.high_cards),
            "quick_clear": self.quick_clear, "trump_ranks": bool(self.trump_ranks),
            "reset_ranks": bool(self.reset_ranks), "power_ranks": bool(self.power_ranks),
            "transparent_rank": self.transparent_rank is not None,
            "complete_set_clears": self.complete_set_clears, "equal_play_skips": self.equal_play_skips,
            "revolution_by_singles": self.revolution_by_singles,
            "revolution_reset_rank": self.revolution_reset_rank is not None,
            # ours: a poker play has no one rank for an eight cut, and no size rule applies (a follow has
            # the lead's count); jokers have no suit to make a flush with; ties are decided by
            # equal_rank_beats alone
            "size_rule": self.size_rule != "equal", "jokers": self.jokers != 0, "eight_cut": self.eight_cut,
            "wild_tie": self.wild_tie != "equal",
        }
        for opt, on in refused.items():
            if on:
                raise bad(opt, getattr(self, opt) if not isinstance(getattr(self, opt), frozenset)
                          else sorted(getattr(self, opt)), "is not allowed with combinations 'poker' "
                          "(rule book section 8 fine point 7; docs/rules.md choice 41)")

    # ------------------------------------------------------------- derived
    @property
    def joker_ranks(self) -> tuple[str, ...]:
        """The joker ranks in the deck (empty without jokers)."""
        if self.jokers == 0:
            return ()
        if self.joker_mode == "high_ranked":
            return ("BJ", "RJ")[: self.jokers]
        return ("JK",)

    @property
    def high_ranks(self) -> tuple[str, ...]:
        """The printed ranks of the high cards (one entry per high card)."""
        return tuple(card[:-1] for card in self.high_cards)

    @property
    def copies_per_rank(self) -> int:
        """Cards of each natural rank in the pack: 4 x decks (six with a deck and a half)."""
        return int(4 * self.decks)

    @property
    def joker_packs(self) -> int:
        """Packs whose jokers are dealt: ``decks``, but one with a deck and a half (fine point 18)."""
        return 1 if self.decks == 1.5 else int(self.decks)

    def suit_copies(self, suit: str) -> int:
        """Copies of each card of ``suit``: ``decks``; with a deck and a half two of hearts and spades, one of
        clubs and diamonds (the second pack is its hearts and spades)."""
        if self.decks == 1.5:
            return 2 if suit in ("H", "S") else 1
        return int(self.decks)

    @property
    def n_cards(self) -> int:
        """Cards in the pack."""
        return self.copies_per_rank * len(self.rank_order) + self.joker_packs * self.jokers

    @property
    def smallest_hand(self) -> int:
        return self.n_cards // self.players

    @property
    def max_set(self) -> int:
        """The largest set that can be played: 4 x decks (six with a deck and a half), 5 with
        ``five_card_set`` (four of a rank and the wild joker)."""
        return self.copies_per_rank + (1 if self.five_card_set else 0)

    @property
    def points(self) -> tuple[int, ...]:
        """Points by finishing position, padded to ``players`` entries."""
        if self.scoring is not None:
            base = list(self.scoring)
        elif self.players == 3:
            base = [2, 0, -2]
        else:
            base = [2, 1] + [0] * (self.players - 4) + [-1, -2]
        return tuple(base + [0] * (self.players - len(base)))

    @property
    def exchange_pairs(self) -> tuple[tuple[int, int], ...]:
        """(cards given up, cards given back) per pair, from the top down, as played."""
        back = self.exchange_back if self.exchange_back is not None else self.exchange
        n = min(len(self.exchange), self.players // 2)
        return tuple(zip(self.exchange[:n], back[:n], strict=True))

    @property
    def merchant_pairs(self) -> tuple[tuple[int, int], ...]:
        """(higher, lower) finishing positions of the players who trade under ``merchant_trade``:
        the players ranked between the exchanging pairs, paired from the top of the middle."""
        n = len(self.exchange_pairs)
        middle = list(range(n, self.players - n))
        return tuple((middle[i], middle[i + 1]) for i in range(0, len(middle) - 1, 2))

    @property
    def card_level(self) -> bool:
        """Whether the action table is the card-level table of sets and runs (``suit_rule`` or ``runs``
        on) rather than (rank, size). Poker has a table of its own: see :attr:`poker`."""
        return self.suit_rule != "none" or self.runs > 0 or self.suit_lock != "none" or self.spade_three_beats_joker

    @property
    def joker_stands_for(self) -> bool:
        """Whether an action names the card the wild joker stands for (a set: its suit; a run: its place),
        as the UEC rules need (``suit_lock`` reads the joker's suit; ``run_joker_ends`` puts it at a run's
        virtual end; records and the protocol name it)."""
        return (self.suit_lock != "none" or self.run_joker_ends or self.five_card_set
                or self.spade_three_beats_joker)

    @property
    def names_wild_cards(self) -> bool:
        """Whether a set names its wild cards too (section 8 fine point 10): where a suit is compared
        (``suit_rule`` ``rank``, ``follow`` or ``colour``) and some wild card has a printed suit (a wild
        natural rank). Otherwise the engine chooses the wild cards (the least wild first)."""
        return self.suit_rule != "none" and any(r in self.rank_order for r in self.wild_ranks)

    @property
    def poker(self) -> bool:
        """``combinations poker``: a play is a claimed poker combination, then its cards one by one."""
        return self.combinations == "poker"

    @property
    def names_cards(self) -> bool:
        """Whether actions, records and observations name cards (card-level table or poker)."""
        return self.card_level or self.poker

    @property
    def power(self) -> dict[str, tuple[int, ...]]:
        """``power_ranks`` as a dict rank -> sizes."""
        return dict(self.power_ranks)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        _check_option_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON values (sets sorted, tuples as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, frozenset):
                v = sorted(v)
            elif f.name == "power_ranks":
                v = {rank: list(sizes) for rank, sizes in v}
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys are an error."""
        _check_option_names(data)
        return cls(**dict(data))

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The named preset of section 7, with any options overridden."""
        return preset(name, **overrides)


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


def _check_option_names(options: Iterable[str]) -> None:
    unknown = [k for k in options if k not in OPTION_NAMES]
    if unknown:
        raise RulesError(f"unknown option(s) {unknown}; options are: {', '.join(OPTION_NAMES)}")


# Section 7 of the rule book: name -> (source seeds, options that differ).
PRESET_TABLE: dict[str, tuple[str, dict[str, Any]]] = {
    "president": ("seeds 001, 002", {}),
    "pagat_basic": ("seed 000 basic game", {"first_lead": "dealer_left", "exchange": (1,), "scoring": (2, 1)}),
    "asshole": ("seed 004 first version", {
        "pass_rule": "single_round", "size_rule": "at_least", "trump_ranks": {"2"},
        "first_lead": "dealer", "exchange": (1,), "extra_cards_to": "top_ranks"}),
    "ass_poker": ("seed 004 second version", {
        "size_rule": "bigger_beats_any", "equal_rank_beats": True, "equal_play_skips": True,
        "trump_ranks": {"2"}}),
    "locks_out": ("seeds 000, 001 (Australia)", {"pass_rule": "locks_out"}),
    "single_round": ("seed 000", {"pass_rule": "single_round"}),
    "compulsory": ("seed 000", {"compulsory_beat": True}),
    "revolution": ("seeds 000, 001, 002", {"four_of_a_kind": "revolution"}),
    "bombs": ("seed 001", {"four_of_a_kind": "bomb"}),
    "complete_set": ("seed 001", {"complete_set_clears": True}),
    "one_deuce_wins": ("seeds 000, 002", {"trump_ranks": {"2"}}),
    "jokers_high": ("seeds 000, 002", {"jokers": 2, "joker_mode": "high_ranked", "trump_ranks": {"BJ", "RJ"}}),
    "daifugo": ("seeds 001, 002", {
        "jokers": 2, "joker_mode": "wild", "wild_ranks": {"JK"}, "eight_cut": True,
        "four_of_a_kind": "revolution", "forbidden_finish": {"2", "8", "JK"},
        "direction": "counter_clockwise", "extra_cards_to": "bottom_ranks", "scoring": (2, 1)}),
    "klootzakken": ("seed 000", {
        "rank_order": ("7", "8", "9", "T", "J", "Q", "K", "A", "2", "3"), "reseat": False,
        "exchange": (2,), "lead_after_first": "scum"}),
    "huberes": ("seed 000 (Hűbéres)", {
        "players": 6, "jokers": 2, "joker_mode": "wild", "wild_ranks": {"2", "3", "JK"},
        "exchange": (3, 2, 1)}),
    "butthead": ("seed 000", {"exchange": (2, 1), "exchange_back": (3, 2)}),
    "double_deck": ("seeds 002, 004", {"decks": 2, "players": 8}),
    "sofia": ("seed 000 (jokers, jacks and twos high)", {
        "rank_order": ("3", "4", "5", "6", "7", "8", "9", "T", "Q", "K", "A", "2", "J"), "jokers": 2,
        "power_ranks": {"2": (2, 3, 4), "J": (3, 4), "JK": (4,)}}),
    "threes_high": ("seed 000 (threes high, below the two)", {
        "rank_order": ("4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "3", "2"), "transparent_rank": "4",
        "power_ranks": {"3": (4,)}, "trump_ranks": {"2"}}),
    "hamish_allan": ("seed 000 (Hamish Allan's revolution, hats, transparent threes)", {
        "equal_rank_beats": True, "four_of_a_kind": "revolution_and_reverse", "revolution_by_singles": True,
        "transparent_rank": "3", "reset_ranks": {"2"}, "revolution_reset_rank": "A", "president_must_win": True}),
    "expose_hands": ("seed 000 (expose a card to assign hands)", {"hand_assignment": "expose"}),
    "merchants": ("seed 000 (trading cards)", {"players": 6, "merchant_trade": True}),
    "black_threes": ("seed 000 (black threes high)", {"high_cards": ("3C", "3S")}),
    "jack_of_diamonds": ("seed 000 (jack of diamonds high)", {"high_cards": ("JD",)}),
    "quick_clears": ("seed 002 (quick clears)", {"quick_clear": True}),
    "suit_ranking": ("seed 000 (suit ranking, Theodore Hwa)", {"suit_rule": "rank"}),
    "follow_suit": ("seed 000 (following suit)", {"suit_rule": "follow"}),
    "reversing_colour": ("seed 000 (reversing colour)", {"suit_rule": "colour"}),
}
PRESET_TABLE["daifugo_runs"] = ("seed 001 (Daifugo with sequences)", {**PRESET_TABLE["daifugo"][1], "runs": 3})
PRESET_TABLE["rich_man_poor_man"] = ("seed 000 first section (Rich Man, Poor Man)", {
    "combinations": "poker", "suit_order": ("C", "S", "H", "D"), "wild_ranks": {"2"}})
PRESET_TABLE["deck_and_a_half"] = ("seed 004 (5-6 players, a deck and a half)", {
    "decks": 1.5, "players": 5, "extra_cards_to": "top_ranks"})
PRESET_TABLE["uecda"] = ("UECda reference server (docs/uecda.md)", {
    "players": 5, "jokers": 1, "joker_mode": "wild", "wild_ranks": {"JK"}, "extra_cards_to": "top_ranks",
    "pass_rule": "locks_out", "four_of_a_kind": "revolution", "eight_cut": True, "runs": 3, "reseat": False,
    "scoring": (5, 4, 3, 2, 1), "target_points": None, "hands_per_session": 1000, "lead_card": "3D",
    "lead_may_pass": True, "trick_end": "all_passed", "suit_lock": "exact", "spade_three_beats_joker": True,
    "run_beat": "clear_above", "run_joker_ends": True, "run_revolution": 5, "five_card_set": True,
    "eight_cut_by_wild": True, "random_seats_every": 3, "rank_reset_every": 100, "pass_limit": 20})
PRESET_ALIASES = {"hubéres": "huberes", "hűbéres": "huberes"}
PRESETS: tuple[str, ...] = tuple(PRESET_TABLE)


def preset(name: str, **overrides: Any) -> Rules:
    """Build the preset ``name`` (section 7), with ``overrides`` applied on top."""
    key = PRESET_ALIASES.get(name.lower(), name.lower())
    if key not in PRESET_TABLE:
        raise RulesError(f"unknown preset {name!r}; presets are: {', '.join(PRESETS)}")
    _check_option_names(overrides)
    options = dict(PRESET_TABLE[key][1])
    options.update(overrides)
    return Rules(name=key, **options)


def preset_differences(name: str) -> dict[str, Any]:
    """The options in which preset ``name`` differs from the defaults."""
    return dict(PRESET_TABLE[PRESET_ALIASES.get(name, name)][1])
