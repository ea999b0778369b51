"""A rules object as the data the compiled rules read: one int64 ``opt`` array and one int32 ``tab``.

``opt`` holds every option as a number (``opt[O_SUIT_RULE]``), the sizes of the game and the place
of each table in ``tab``; ``tab`` holds the tables one after another (rows of ``fields``: ``act``,
``card``, ``play``, ...). Options are data, not Python branches: the same compiled code plays
every rules object, and an option that is off costs at most a branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from .. import observation_layout as O
from ..actions import action_table, wild_card_names
from ..cards import printed_rank, tables
from ..poker import claim_table
from ..rules import Rules
from ..state import Layout
from . import fields as F
from .views import scratch_size_py


@dataclass(frozen=True, eq=False)
class Consts:
    """The packed rules: ``opt`` (N_OPT,) int64 and ``tab`` (n,) int32, and the state layout."""

    opt: np.ndarray
    tab: np.ndarray
    layout: Layout
    family: int          # the action table's family: 0 rank-level, 1 card-level, 2 poker (kernel.step)

    @cached_property
    def scratch_words(self) -> int:
        """int64 words of a kernel workspace (``views.scratch_size``), counted once."""
        return int(scratch_size_py(self.opt))

    def workspace(self) -> np.ndarray:
        """A scratch array for one call of a kernel entry point (its last argument): the rules functions
        allocate nothing themselves."""
        return np.empty(self.scratch_words, dtype=np.int64)

    def table(self, name: str) -> np.ndarray:
        """The 2-D table ``name`` of :data:`fields.TABLES` (a read-only view of ``tab``)."""
        i = F.O_TABLES + 3 * F.TABLES.index(name)
        off, rows, cols = (int(x) for x in self.opt[i:i + 3])
        return self.tab[off:off + rows * cols].reshape(rows, cols)


def _index(options: tuple[str, ...], value: str) -> int:
    return options.index(value)


def consts(rules: Rules) -> Consts:
    """The packed rules of ``rules``. Kept on the rules object after the first call (hashing a rules object
    costs microseconds, a one-game step about as much), and shared between equal rules objects."""
    c = rules.__dict__.get("_kernel_consts")
    if c is None:
        c = _consts(rules)
        object.__setattr__(rules, "_kernel_consts", c)
    return c


@lru_cache(maxsize=128)
def _consts(rules: Rules) -> Consts:  # noqa: C901 - one table after another
    t = tables(rules)
    at = action_table(rules)
    P, C, K, R, S, A = rules.players, t.n_cards, t.n_kinds, t.n_play_ranks, rules.max_set, at.n
    d = 1 if rules.direction == "clockwise" else -1
    lay = Layout(P=P, C=C, K=K, A=A)
    opt = np.zeros(F.N_OPT, dtype=np.int64)
    tabs: dict[str, np.ndarray] = {}

    def play_row(ranks: frozenset[str]) -> np.ndarray:
        return np.array([t.play_ranks[p] in ranks for p in range(R)], dtype=np.int32)

    # ------------------------------------------------------------------ actions
    act = np.zeros((6, A), dtype=np.int32)
    act[F.A_RANK] = at.rank
    act[F.A_SIZE] = at.size
    act[F.A_PICK] = -1
    if at.card_level:
        act[F.A_RUN] = at.run
        act[F.A_WILD] = at.wild
        act[F.A_RID] = at.rank_id
    if at.poker:
        act[F.A_PICK] = at.pick
    tabs["act"] = act

    # ------------------------------------------------------------------ cards
    suit = t.card_suit
    first_copy: dict[str, int] = {}
    for i, name in enumerate(t.card_names):
        first_copy.setdefault(name, i)
    nat_kinds = t.n_naturals
    printed = (suit >= 0) & ~t.card_wild
    suit_letter = np.array([rules.suit_order[s] if s >= 0 else "" for s in suit])
    card = np.zeros((15, C), dtype=np.int32)
    card[F.C_KIND] = t.card_kind
    card[F.C_SUIT] = suit
    card[F.C_WILD] = t.card_wild
    card[F.C_BEST] = t.best_key
    card[F.C_IDENT] = t.best_key[[first_copy[n] for n in t.card_names]]
    card[F.C_FORBID] = [printed_rank(n) in rules.forbidden_finish for n in t.card_names]
    card[F.C_RED] = np.isin(suit_letter, ["D", "H"]) & printed
    card[F.C_BLACK] = np.isin(suit_letter, ["C", "S"]) & printed
    card[F.C_FSUIT] = np.where(printed, suit, -1)
    card[F.C_NAT8] = [(k < nat_kinds and not t.card_wild[c] and t.kinds[k] == "8")
                      for c, k in enumerate(t.card_kind)]
    wild_slot = {n: i for i, n in enumerate(wild_card_names(t))}      # a wild card's slot: its name's place
    card[F.C_SLOT] = [wild_slot[n] if t.card_wild[c] else -1 for c, n in enumerate(t.card_names)]
    card[F.C_FIRST] = [first_copy[n] for n in t.card_names]
    card[F.C_NATPOS] = [(int(suit[c]) * nat_kinds + int(k)) if (k < nat_kinds and not t.card_wild[c]) else -1
                        for c, k in enumerate(t.card_kind)]
    lowest_name = t.card_names[t.lowest_card]
    lowest = [c for c, n in enumerate(t.card_names) if n == lowest_name]
    card[F.C_LOWEST] = [n == lowest_name for n in t.card_names]
    card[F.C_NAME] = -1
    tabs["card"] = card

    # ------------------------------------------------------------------ play ranks and kinds
    play = np.zeros((9, R), dtype=np.int32)
    play[F.PL_KIND] = t.play_kind
    play[F.PL_STR0] = t.strength[0]
    play[F.PL_STR1] = t.strength[1]
    play[F.PL_TRUMP] = play_row(rules.trump_ranks)
    reset_normal = play_row(rules.reset_ranks)
    rrr = rules.revolution_reset_rank
    play[F.PL_RESET0] = reset_normal
    play[F.PL_RESET1] = play_row(frozenset({rrr})) if rrr is not None else reset_normal
    play[F.PL_HIGH] = (t.kind_high[t.play_kind] & (t.play_kind >= 0))
    kind = np.zeros((7, K), dtype=np.int32)
    kind[F.K_PLAY] = t.kind_play
    kind[F.K_WILD] = t.kind_wild
    kind[F.K_HIGH] = t.kind_high
    kind[F.K_START] = np.searchsorted(t.card_kind, np.arange(K))
    kind[F.K_COUNT] = t.kind_count
    kind[F.K_FORBID] = [(k[:-1] if t.kind_high[i] else k) in rules.forbidden_finish for i, k in enumerate(t.kinds)]
    kind[F.K_SUITED] = [i < nat_kinds for i in range(K)]
    ks = np.full((K, 4), -1, dtype=np.int32)
    for c in range(C - 1, -1, -1):
        if suit[c] >= 0 and not t.kind_high[t.card_kind[c]]:
            ks[t.card_kind[c], suit[c]] = c
    tabs["kind"], tabs["ks"] = kind, ks

    # ------------------------------------------------------------------ power, exchange, points
    power = np.zeros((R * (S + 1), S), dtype=np.int32)
    for rank, most in rules.power_ranks:
        p = t.play_ranks.index(rank)
        for n, hi in enumerate(most, start=1):
            m = n * rules.decks
            for ts in range(m + 1, rules.decks * hi + 1):
                if ts <= S:
                    power[p * (S + 1) + ts, m - 1] = 1
    power_ranks = [t.play_ranks.index(r) for r, _ in rules.power_ranks]
    floor = t.strength[:, power_ranks].min(axis=1) if power_ranks else np.zeros(2, np.int64)
    pairs = rules.exchange_pairs
    sched = [(k, P - 1 - k, 0) for k, (_, back) in enumerate(pairs) for _ in range(back)]
    if rules.merchant_trade:
        sched += [x for hi, lo in rules.merchant_pairs for x in ((hi, lo, 1), (lo, hi, 2))]
    tabs["power"] = power
    tabs["sched"] = np.array(sched, dtype=np.int32).reshape(-1, 3).T.copy()
    tabs["give"] = np.array([g for g, _ in pairs], dtype=np.int32).reshape(1, -1)
    tabs["points"] = np.array(rules.points, dtype=np.int32).reshape(1, -1)

    # ------------------------------------------------------------------ card-level sets and runs
    A_rank = 1 + R * S
    sets = np.zeros((F.SF_WS0 + len(wild_slot), A if at.card_level else 0), dtype=np.int32)
    rid = np.zeros((2, A_rank if at.card_level else 0), dtype=np.int32)
    runs = np.zeros((F.N_RUN_FIELDS, 0), dtype=np.int32)
    Js = Jr = W = 0
    if at.card_level:
        Js = int(np.sum(at.run[1:] == 0))
        Jr = A - 1 - Js
        name_index = {n: i for i, n in reversed(list(enumerate(t.card_names)))}
        sets[F.SF_HI] = -1
        sets[F.SF_LO] = 4
        sets[F.SF_FSUIT] = -1
        for j in range(1, Js + 1):
            p = int(at.rank[j])
            k = int(t.play_kind[p])
            names = at.cards[j]
            sts = [int(suit[name_index[n]]) for n in names if suit[name_index[n]] >= 0]   # printed suits
            wnames = at.wild_cards[j] if at.names_wild else ()
            sts_all = sts + [int(suit[name_index[x]]) for x in wnames if suit[name_index[x]] >= 0]
            sets[F.SF_P, j], sets[F.SF_N, j], sets[F.SF_W, j] = p, at.size[j], at.wild[j]
            sets[F.SF_HI, j] = max(sts_all, default=-1)
            sets[F.SF_LO, j] = min(sts_all, default=4)
            sets[F.SF_RED, j] = sum(rules.suit_order[s] in "DH" for s in sts)
            sets[F.SF_BLACK, j] = sum(rules.suit_order[s] in "CS" for s in sts)
            sets[F.SF_COLOUR, j] = bool(sts) and at.wild[j] == 0
            sets[F.SF_FSUIT, j] = sts[0] if (at.size[j] == 1 and at.wild[j] == 0 and sts) else -1
            sets[F.SF_LOW, j] = lowest_name in names
            sets[F.SF_RID, j] = at.rank_id[j]
            suited = k >= 0 and k < nat_kinds and not t.kind_high[k]
            sets[F.SF_SUITLESS, j] = not suited
            if suited:
                for n in names:
                    sets[F.SF_NEED0 + int(suit[name_index[n]]), j] += 1
            else:
                sets[F.SF_NEED0, j] = len(names)
            for x in wnames:
                sets[F.SF_WS0 + wild_slot[x], j] += 1
            suits = {int(suit[name_index[n]]) for n in names if suit[name_index[n]] >= 0}
            ja = at.joker_as[j] if at.names_joker else ""
            if ja.endswith("*"):
                suits |= {0, 1, 2, 3}
            elif ja:
                suits.add(rules.suit_order.index(ja[-1]))
            sets[F.SF_SUITS, j] = sum(1 << x for x in suits)
        W = int(at.wild[1:Js + 1].max()) if Js else 0
        for p in range(R):
            idx = np.flatnonzero(at.rank[1:Js + 1] == p) + 1
            if idx.size:
                play[F.PL_SET_START, p], play[F.PL_SET_LEN, p] = idx[0], idx.size
        for r in range(1, A_rank):
            idx = np.flatnonzero(at.rank_id[1:Js + 1] == r) + 1
            if idx.size:
                rid[F.RID_START, r], rid[F.RID_LEN, r] = idx[0], idx.size
        runs = np.zeros((F.N_RUN_FIELDS, Jr), dtype=np.int32)
        for i, j in enumerate(range(Js + 1, A)):
            lo_p = int(at.rank[j])
            L = int(at.run[j])
            lo_x = int(at.run_lo[j])                         # the lowest place (-1: below rank_order)
            nlo, nhi = max(lo_x, 0), min(lo_x + L, t.n_naturals)
            runs[F.R_SUIT, i] = suit[name_index[at.cards[j][0]]]
            runs[F.R_LEN, i] = L
            runs[F.R_LOPOS, i] = t.play_kind[lo_p]
            runs[F.R_LO, i], runs[F.R_NLO, i], runs[F.R_NN, i] = lo_x, nlo, nhi - nlo
            runs[F.R_JPOS, i] = at.joker_pos[j] if at.names_joker else F.NO_JOKER
            lo_p, hi_p = int(t.kind_play[nlo]), int(t.kind_play[nhi - 1])   # the compared cards: natural (a
            #                                                  virtual end is compared by place: cards.run_mask)
            runs[F.R_CMP0, i] = hi_p
            runs[F.R_CMP1, i] = lo_p
            runs[F.R_STR0, i] = t.strength[0][hi_p]
            runs[F.R_STR1, i] = t.strength[1][lo_p]
            runs[F.R_LOW, i] = lowest_name in at.cards[j]
        order = list(zip(runs[F.R_SUIT], runs[F.R_LEN], strict=True))
        if order != sorted(order):
            raise AssertionError("runs must come by suit, then length (cards.run_mask skips by them)")
        for i in range(Jr - 1, -1, -1):
            same_suit = i + 1 < Jr and runs[F.R_SUIT, i + 1] == runs[F.R_SUIT, i]
            runs[F.R_NEXT_SUIT, i] = runs[F.R_NEXT_SUIT, i + 1] if same_suit else i + 1
            same_len = same_suit and runs[F.R_LEN, i + 1] == runs[F.R_LEN, i]
            runs[F.R_NEXT_LEN, i] = runs[F.R_NEXT_LEN, i + 1] if same_len else i + 1
            same_lo = same_len and runs[F.R_LO, i + 1] == runs[F.R_LO, i]
            runs[F.R_NEXT_LO, i] = runs[F.R_NEXT_LO, i + 1] if same_lo else i + 1
    # the sets by what they take from a hand (a rank, its natural cards' suits, a number of wild cards), so a
    # hand's legal sets are found from the cards it holds (cards.card_mask) without reading every set
    nat_mask = sum((sets[F.SF_NEED0 + s] > 0).astype(np.int64) << s for s in range(4)) * (sets[F.SF_SUITLESS] == 0)
    keys = (sets[F.SF_P].astype(np.int64) * 16 + nat_mask) * (W + 1) + sets[F.SF_W]
    setlist = np.arange(1, Js + 1, dtype=np.int32)
    setlist = setlist[np.argsort(keys[1:Js + 1], kind="stable")]
    counts = np.bincount(keys[1:Js + 1], minlength=R * 16 * (W + 1)) if Js else np.zeros(0, np.int64)
    if Js:
        n_of = sets[F.SF_N, 1:Js + 1].astype(np.int64)
        n_min = np.full(counts.size, 99, np.int64)
        n_max = np.zeros(counts.size, np.int64)
        np.minimum.at(n_min, keys[1:Js + 1], n_of)
        np.maximum.at(n_max, keys[1:Js + 1], n_of)
        setkey = np.stack([np.cumsum(counts) - counts, counts, n_min, n_max])
    else:
        setkey = np.zeros((4, 0), np.int64)
    tabs["sets"], tabs["rid"], tabs["runs"] = sets, rid, runs
    tabs["setkey"], tabs["setlist"] = setkey, setlist.reshape(1, -1)

    # ------------------------------------------------------------------ poker
    claims = np.zeros((13, 0), dtype=np.int32)
    picks = np.zeros((4, 0), dtype=np.int32)
    natkind = np.zeros((1, 0), dtype=np.int32)
    X = U = NRp = 0
    if rules.poker:
        ct = claim_table(rules)
        X, U, NRp = ct.X, len(ct.pick_names), ct.NR
        claims = np.zeros((13, X + 1), dtype=np.int32)
        claims[F.CL_N], claims[F.CL_KIND], claims[F.CL_KEY], claims[F.CL_KEY2] = ct.n, ct.kind, ct.key, ct.key2
        claims[F.CL_W0:F.CL_W4 + 1] = ct.window.T
        claims[F.CL_STR0], claims[F.CL_STR1] = ct.strength[0], ct.strength[1]
        claims[F.CL_BOMB], claims[F.CL_FIRST] = ct.bomb, ct.first_rank
        picks = np.zeros((4, U), dtype=np.int32)
        for u, name in enumerate(ct.pick_names):
            picks[F.PK_S, u] = rules.suit_order.index(name[-1])
            wild = name[:-1] in rules.wild_ranks
            picks[F.PK_W, u] = wild
            picks[F.PK_R, u] = -1 if wild else ct.naturals.index(name[:-1])
            picks[F.PK_FIRST, u] = first_copy[name]
        card[F.C_NAME] = [ct.pick_names.index(n) for n in t.card_names]
        natkind = ct.nat_kind.astype(np.int32).reshape(1, -1)
    tabs["claims"], tabs["picks"], tabs["natkind"] = claims, picks, natkind

    # ------------------------------------------------------------------ observation pieces
    offs = {name: off for name, off, _, _ in O.layout(rules)}
    tabs["obs"] = np.array([offs.get(name, -1) for name in F.OBS_PIECES], dtype=np.int32).reshape(1, -1)

    # ------------------------------------------------------------------ options
    o = opt
    o[F.O_P], o[F.O_C], o[F.O_K], o[F.O_R], o[F.O_S], o[F.O_A] = P, C, K, R, S, A
    o[F.O_DECKS], o[F.O_DIR], o[F.O_RN], o[F.O_NNAT] = int(rules.decks), d, t.n_natural_play, nat_kinds
    o[F.O_WILD_PLAY] = R - 1 if t.has_wild else -1
    o[F.O_HAS_WILD] = t.has_wild
    o[F.O_OP8:F.O_N8 + 1] = lay.offsets()
    o[F.O_N32] = lay.n32
    o[F.O_PASS_RULE] = _index(("may_replay", "locks_out", "single_round"), rules.pass_rule)
    o[F.O_COMPULSORY] = rules.compulsory_beat
    o[F.O_SIZE_RULE] = _index(("equal", "at_least", "bigger_beats_any"), rules.size_rule)
    o[F.O_EQUAL_RANK_BEATS] = rules.equal_rank_beats
    o[F.O_SKIPS] = rules.equal_play_skips
    o[F.O_WILD_TIE] = _index(("equal", "natural_higher", "wild_higher"), rules.wild_tie) if t.has_wild else 0
    o[F.O_FOUR] = _index(("none", "bomb", "revolution", "revolution_and_reverse"), rules.four_of_a_kind)
    o[F.O_COMPLETE_SET] = rules.complete_set_clears
    o[F.O_EIGHT] = t.play_ranks.index("8") if rules.eight_cut else -1
    o[F.O_TRANSPARENT] = t.play_ranks.index(rules.transparent_rank) if rules.transparent_rank in t.play_ranks else -1
    o[F.O_HAS_POWER] = bool(power_ranks)
    o[F.O_POWER_FLOOR0], o[F.O_POWER_FLOOR1] = int(floor[0]), int(floor[1])
    o[F.O_MUST_WIN] = rules.president_must_win
    o[F.O_HAS_FORBIDDEN] = bool(rules.forbidden_finish)
    o[F.O_REV_SINGLES] = rules.revolution_by_singles
    o[F.O_REV_RESET] = rrr is not None
    o[F.O_HAS_RESET] = bool(reset_normal.any()) or rrr is not None
    o[F.O_FIRST_LEAD] = _index(("dealer_left", "lowest_card", "dealer"), rules.first_lead)
    o[F.O_LEAD_AFTER] = _index(("president", "scum"), rules.lead_after_first)
    o[F.O_EXTRA_TO] = _index(("first_dealt", "top_ranks", "bottom_ranks"), rules.extra_cards_to)
    o[F.O_RESEAT] = rules.reseat
    o[F.O_HANDS_PER_SESSION] = -1 if rules.hands_per_session is None else rules.hands_per_session
    o[F.O_TARGET] = -1 if rules.target_points is None else rules.target_points
    o[F.O_EXPOSE] = rules.hand_assignment == "expose"
    o[F.O_MERCHANT] = rules.merchant_trade
    o[F.O_QUICK_CLEAR] = rules.quick_clear
    o[F.O_SUIT_RULE] = _index(("none", "rank", "follow", "colour"), rules.suit_rule)
    o[F.O_RUNS] = rules.runs
    o[F.O_POKER] = rules.poker
    o[F.O_CARD_LEVEL] = rules.card_level
    o[F.O_NAMED_WILD] = at.names_wild
    o[F.O_HAS_HIGH] = bool(t.kind_high.any())
    o[F.O_HAS_TRUMP] = bool(play[F.PL_TRUMP].any())
    o[F.O_LOWEST_PLAY] = t.lowest_play_rank
    o[F.O_N_LOWEST] = len(lowest)
    o[F.O_LOWEST0] = lowest[0]
    o[F.O_LOWEST1] = lowest[-1]
    o[F.O_N_EX] = len(sched)
    o[F.O_N_GIVE] = len(pairs)
    o[F.O_JS], o[F.O_JR], o[F.O_X], o[F.O_U], o[F.O_NRP], o[F.O_W] = Js, Jr, X, U, NRp, W
    o[F.O_D_OBS] = O.size(rules)
    o[F.O_A_RANK] = A_rank
    o[F.O_HAS_EXTRAS] = (bool(o[F.O_HAS_RESET]) or bool(power_ranks) or rules.four_of_a_kind == "bomb"
                         or rules.complete_set_clears or (rules.card_level and bool(play[F.PL_TRUMP].any())))
    # Rank-level sets with none of the options that widen section 4's plays (legal.plain_sets' fast path)
    # The UEC options (section 9)
    o[F.O_LEAD_CARD] = t.card_names.index(rules.lead_card) if rules.lead_card else -1
    o[F.O_LEAD_MAY_PASS] = rules.lead_may_pass
    o[F.O_ALL_PASSED] = rules.trick_end == "all_passed"
    o[F.O_SUIT_LOCK] = rules.suit_lock != "none"
    o[F.O_SPADE3] = -1
    if rules.spade_three_beats_joker:
        o[F.O_SPADE3] = next(j for j in range(1, Js + 1) if at.cards[j] == ("3S",) and at.wild[j] == 0)
    o[F.O_WILD_SINGLE] = R - 1 if t.has_wild else -1
    o[F.O_CLEAR_ABOVE] = rules.run_beat == "clear_above"
    o[F.O_RUN_ENDS] = rules.run_joker_ends
    o[F.O_RUN_REV] = rules.run_revolution
    o[F.O_EIGHT_WILD] = rules.eight_cut_by_wild
    o[F.O_SEATS_EVERY] = rules.random_seats_every or 0
    o[F.O_RESET_EVERY] = rules.rank_reset_every or 0
    o[F.O_PASS_LIMIT] = rules.pass_limit or 0
    o[F.O_ELEVEN], o[F.O_SIX], o[F.O_FIVE] = rules.eleven_back, rules.six_reverse, rules.five_skip
    o[F.O_JOKER_NAMED] = at.names_joker

    def place(rank: str) -> int:
        return rules.rank_order.index(rank) if rank in rules.rank_order and rank not in rules.wild_ranks else -99

    o[F.O_RANK_J], o[F.O_RANK_6], o[F.O_RANK_5], o[F.O_RANK_8] = place("J"), place("6"), place("5"), place("8")
    o[F.O_PLAIN_SETS] = (not rules.card_level and not rules.poker and not t.has_wild and rules.size_rule == "equal"
                         and not o[F.O_HAS_HIGH] and not o[F.O_HAS_TRUMP] and o[F.O_TRANSPARENT] < 0
                         and not o[F.O_HAS_EXTRAS] and rules.runs == 0 and R == t.n_natural_play)
    tabs["play"] = play

    parts, off = [], 0
    for i, name in enumerate(F.TABLES):
        a = np.ascontiguousarray(tabs[name], dtype=np.int32)
        if a.ndim != 2:
            raise AssertionError(f"table {name} must be 2-D, got {a.shape}")
        o[F.O_TABLES + 3 * i: F.O_TABLES + 3 * i + 3] = off, a.shape[0], a.shape[1]
        parts.append(a.reshape(-1))
        off += a.size
    tab = np.concatenate(parts) if parts else np.zeros(0, np.int32)
    opt.setflags(write=False)
    tab.setflags(write=False)
    return Consts(opt=opt, tab=tab, layout=lay, family=2 if rules.poker else 1 if rules.card_level else 0)
