"""A UECda client's view of the game: server tables -> an engine State -> the agent's observation.

:class:`TableMirror` keeps a State of our engine (preset ``uecda``, one game) that mirrors the server's
game as a player at the table knows it. Its own hand is the real one; the other players' hands hold the
cards it cannot see, dealt at random so that every count is right (as
:mod:`president_env.core.resample` deals hidden cards). When another player plays cards its made-up hand
lacks, they are swapped in from another hidden hand first, so every public fact (counts, the cards
played, the top, passes, lock, revolution) follows the server's tables, and the observation
(:func:`president_env.core.observation.observe`) holds only what the player sees.

:func:`play_match` runs a whole match on a connected :class:`.server_net.UecdaClient` with a function
``act(obs, mask) -> action id``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from president_env.core.actions import describe_action
from president_env.core.cards import tables as card_tables
from president_env.core.engine import current_player, init, refresh_legal, step_inplace
from president_env.core.observation import observe
from president_env.core.rules import Rules
from president_env.core.state import EXCHANGE, OVER, PLAY, State

from .moves import action_of_play, action_table_of
from .protocol import UecdaProtocolError
from .tables import PLAYERS, Play, TableInfo, cards_table, hand_from_table, parse_play, read_info

__all__ = ["MatchStats", "MirrorError", "TableMirror", "play_match"]

# exchange order of the cards (the engine's and the server's): joker, then rank high to low, then S H D C
_RANK_ORDER = "3456789TJQKA2"
_SUIT_ORDER = "CDHS"


def _strength(card: str) -> tuple[int, int]:
    if card == "JK":
        return 99, 9
    return _RANK_ORDER.index(card[0]), _SUIT_ORDER.index(card[1])


class MirrorError(UecdaProtocolError):
    """The server's tables contradict what the mirror knows (a play from a card we hold, a count that does
    not add up, a player to move our rules do not give)."""


Act = Callable[[np.ndarray, np.ndarray], int]


class TableMirror:
    """One game as a player ``me`` at a UECda table sees it, kept in an engine State (see the module)."""

    def __init__(self, rules: Rules, me: int, seed: int = 0) -> None:
        self.rules = rules
        self.me = int(me)
        self.rng = np.random.default_rng(seed)
        t = card_tables(rules)
        self.names: list[str] = list(t.card_names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.kind = np.asarray(t.card_kind)
        self.st: State | None = None
        self.info: TableInfo | None = None
        self.hand_before: list[str] = []
        self.hand_no = 0

    # ------------------------------------------------------------------ helpers
    @property
    def state(self) -> State:
        """The game's State (raises :class:`MirrorError` before the deal table)."""
        if self.st is None:
            raise MirrorError("no deal table yet: the game has not started")
        return self.st

    def seat(self, player: int) -> int:
        """The seat of ``player``."""
        return list(self.state.seat_player[0]).index(player)

    def held(self, player: int) -> list[str]:
        """Cards player holds in the mirror (the real hand for ``me``, made-up ones for the others)."""
        return sorted(self.names[c] for c in np.flatnonzero(self.state.hands[0, self.seat(player)]))

    def to_move(self) -> int:
        """The player our engine has to move."""
        return int(current_player(self.state)[0])

    def _swap(self, s: int, c: int, h: int, d: int) -> None:
        """Seat s takes card c from seat h and gives it card d."""
        st = self.state
        hands, counts = st.hands[0], st.counts[0]
        hands[s, c], hands[h, c], hands[s, d], hands[h, d] = True, False, False, True
        counts[s, self.kind[c]] += 1
        counts[h, self.kind[c]] -= 1
        counts[s, self.kind[d]] -= 1
        counts[h, self.kind[d]] += 1

    def make_hold(self, player: int, cards: list[str]) -> None:
        """Swap hidden cards so that ``player`` (not ``me``) holds ``cards``; raises :class:`MirrorError` when a
        card is ours or already played."""
        st = self.state
        s = self.seat(player)
        need = {self.index[c] for c in cards}
        mine = self.seat(self.me)
        for c in sorted(need):
            if st.hands[0, s, c]:
                continue
            holders = np.flatnonzero(st.hands[0, :, c])
            if len(holders) == 0:
                raise MirrorError(f"player {player} plays {self.names[c]}, which was played before")
            h = int(holders[0])
            if h == mine and player != self.me:
                raise MirrorError(f"player {player} plays {self.names[c]}, which is in our hand")
            if player == self.me:
                raise MirrorError(f"the server says we play {self.names[c]}, which we do not hold")
            spare = [d for d in np.flatnonzero(st.hands[0, s]) if d not in need]
            if not spare:
                raise MirrorError(f"player {player} plays {len(cards)} cards but holds {int(st.n_cards[0, s])}")
            self._swap(s, c, h, int(self.rng.choice(spare)))
        refresh_legal(self.rules, st)

    # ------------------------------------------------------------------ the deal
    def on_deal(self, table: np.ndarray) -> TableInfo:
        """A deal table: start the game's State (the hidden cards dealt at random, our gifts placed)."""
        info = read_info(table, "deal table")
        hand = hand_from_table(table, "deal table")
        P, me = PLAYERS, self.me
        counts = list(info.counts)
        if sum(counts) != 53:
            raise MirrorError(f"deal table row 6 cells 0-4: counts {counts} do not add up to 53")
        ranked = info.ranked
        cls = info.classes
        by_class = {c: p for p, c in enumerate(cls)} if ranked else {}
        received: list[str] = []
        my_class = cls[me] if ranked else -1
        n_get = dict(enumerate(self.rules.exchange)) if ranked else {}
        if my_class in (0, 1) and n_get.get(my_class, 0):
            n = n_get[my_class]
            received = sorted(hand, key=_strength)[-n:]
        pre = [c for c in hand if c not in received]
        if ranked and len(pre) != counts[me]:
            if len(hand) == counts[me] or (my_class in (3, 4) and len(hand) == counts[me] + n_get.get(4 - my_class, 0)):
                for k, n in n_get.items():      # counts after the forced gifts: back to the counts as dealt
                    counts[by_class[k]] -= n
                    counts[by_class[P - 1 - k]] += n
        if len(pre) != counts[me]:
            raise MirrorError(f"deal table: we hold {len(hand)} cards, row 6 says {info.counts[me]}")
        deal_names: list[list[str]] = [[] for _ in range(P)]
        deal_names[me] = list(pre)
        pool = sorted((c for c in self.names if c not in hand), key=_strength)
        if received:                            # the giver held nothing better than what it gave
            giver = by_class[P - 1 - my_class]
            deal_names[giver] = list(received) + pool[:counts[giver] - len(received)]
            pool = pool[counts[giver] - len(received):]
        rest = list(self.rng.permutation(pool))
        for p in range(P):
            if p == me or deal_names[p]:
                continue
            deal_names[p], rest = rest[:counts[p]], rest[counts[p]:]
        if rest or any(len(deal_names[p]) != counts[p] for p in range(P)):
            raise MirrorError(f"deal table: counts {counts} do not fit a 53-card pack with our {len(hand)} cards")
        deal = np.zeros((1, P, len(self.names)), dtype=bool)
        for p in range(P):
            for c in deal_names[p]:
                deal[0, p, self.index[c]] = True
        ranks = np.array([list(cls)]) if ranked else None
        keys = np.array([int(self.rng.integers(1, 2**62))], dtype=np.uint64)
        self.st = init(self.rules, keys=keys, deal=deal, start_ranks=ranks, seat_player=np.array([list(info.seats)]),
                       hand_no=1 if ranked else 0)
        if ranked and self.st.phase[0] != EXCHANGE and any(n_get.values()):
            raise MirrorError("deal table: a hand with ranks but our engine starts no exchange")
        if my_class in (0, 1) and self.held(me) != sorted(hand):
            raise MirrorError(f"deal table: after the forced gifts we hold {self.held(me)} by our rules, the table "
                              f"says {sorted(hand)}")
        self.info = info
        self.hand_before = hand
        self.hand_no = int(self.st.hand_no[0])
        return info

    # ------------------------------------------------------------------ the exchange
    def give_back(self, act: Act) -> list[str]:
        """Our give-back cards (we are the daifugo or fugo): the engine's exchange steps up to and including ours,
        other givers' choices made up; our choices from ``act``."""
        st = self.state
        mine: list[str] = []
        while st.phase[0] == EXCHANGE:
            p = self.to_move()
            if p != self.me:
                if mine:
                    break
                self._step(self._any_legal())
                continue
            before = set(self.held(self.me))
            a = act(observe(self.rules, st, self.me)[0], st.legal[0].copy())
            self._step(a)
            mine += sorted(before - set(self.held(self.me)))
        return mine

    def finish_exchange(self, hand: list[str]) -> None:
        """The first hand table after the deal: finish the exchange (what we received from a give-back is in
        ``hand``, our hand now) and check our hand."""
        st = self.state
        if st.phase[0] == EXCHANGE:
            while st.phase[0] == EXCHANGE:
                p = self.to_move()
                if p == self.me:
                    raise MirrorError("the exchange asks us for a card, but the server has gone on to play")
                gets = self._receiver_of(p)
                if gets == self.me:
                    got = sorted(set(hand) - set(self.held(self.me)))
                    if got:
                        self.make_hold(p, got[:1])
                        self._step(self._single(got[0]))
                        continue
                self._step(self._any_legal())
        if self.held(self.me) != sorted(hand):
            raise MirrorError(f"hand table: after the exchange we hold {sorted(hand)}, our rules give "
                              f"{self.held(self.me)}")

    def _receiver_of(self, giver: int) -> int:
        soc = self.state.social[0]
        seat = self.seat(giver)
        want = self.rules.players - 1 - int(soc[seat])
        for s in range(self.rules.players):
            if int(soc[s]) == want:
                return int(self.state.seat_player[0, s])
        return -1

    def _single(self, card: str) -> int:
        from president_env.core.uecda_import import _single_id
        return _single_id(self.rules, card)

    def _any_legal(self) -> int:
        legal = np.flatnonzero(self.state.legal[0])
        return int(legal[0])

    def _step(self, a: int) -> None:
        st = self.state
        if not st.legal[0, a]:
            raise MirrorError(f"player {self.to_move()}: our rules refuse {describe_action(self.rules, a)!r}")
        step_inplace(self.rules, st, np.array([a]))

    # ------------------------------------------------------------------ play
    def start_play(self, info: TableInfo) -> None:
        """The first hand table's player to move leads: the lead card (3D) is placed with it if hidden."""
        st = self.state
        mover = info.to_move
        if self.to_move() == mover:
            return
        lead = self.rules.lead_card
        if lead and mover != self.me and lead not in self.held(self.me):
            self.make_hold(mover, [lead])
        seat = self.seat(mover)
        st.leader[0] = seat
        st.current[0] = seat
        refresh_legal(self.rules, st)

    def our_action(self, act: Act) -> int:
        """Our play (an action id) from ``act``, on the mirror's observation and mask."""
        st = self.state
        if st.phase[0] != PLAY or self.to_move() != self.me:
            raise MirrorError(f"the server asks us to play, but by our rules player {self.to_move()} is to move")
        return int(act(observe(self.rules, st, self.me)[0], st.legal[0].copy()))

    def on_top(self, table: np.ndarray, before: TableInfo | None) -> tuple[int, int]:
        """A top table after a turn: apply the acting player's play or pass; return (player, action id)."""
        info = read_info(table, "top table")
        st = self.state
        actor = info.to_move
        if st.phase[0] != PLAY:
            return actor, -1
        if self.to_move() != actor:
            raise MirrorError(f"top table [5][3]: player {actor} acted, our rules have player {self.to_move()} to "
                              f"move")
        seat = self.seat(actor)
        had = int(st.n_cards[0, seat])
        now = info.counts[actor]
        if now == had:
            a = 0
        else:
            play = parse_play(table, "top table")
            a = action_of_play(self.rules, play)
            if a is None:
                raise MirrorError(f"top table: player {actor} played {play.words()}, which our rules have no "
                                  f"action for")
            if play.size != had - now:
                raise MirrorError(f"top table: player {actor} went from {had} to {now} cards with {play.words()}")
            if actor != self.me:
                need = list(play.cards) + (["JK"] if play.joker is not None else [])
                self.make_hold(actor, need)
        self._step(a)
        self.info = info
        return actor, a


@dataclass
class MatchStats:
    """What a client saw in a match."""

    games: int = 0
    moves: int = 0
    rejected: int = 0
    points: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    places: list[list[int]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def play_match(client, rules: Rules, act: Act, me: int, seed: int = 0,
               log: Callable[[str], None] = print, max_games: int | None = None, verbose: bool = False) -> MatchStats:
    """Play on ``client`` (a connected :class:`.server_net.UecdaClient`, player number ``me``) until the server
    says the last game is over (flag 2) or ``max_games`` games; our moves from ``act(obs, mask)``; ``verbose``
    logs every turn."""
    stats = MatchStats()
    scoring = list(rules.scoring) if rules.scoring else [5, 4, 3, 2, 1]
    game = 0
    while True:
        mirror = TableMirror(rules, me, seed=seed + game)
        info = mirror.on_deal(client.receive_table("deal table"))
        if stats.places and info.ranked:        # the classes are the last game's places: the server's word
            told = sorted(range(PLAYERS), key=lambda q: info.classes[q])
            if told != stats.places[-1]:
                for place, p in enumerate(stats.places[-1]):
                    stats.points[p] -= scoring[place] if place < len(scoring) else 0
                for place, p in enumerate(told):
                    stats.points[p] += scoring[place] if place < len(scoring) else 0
                stats.places[-1] = told
        mirror.state.points[0, :] = stats.points    # the session's points so far, as the observation shows them
        if info.exchange > 0:
            cards = mirror.give_back(act)
            client.send_table(cards_table(cards), "exchange table")
        first = True
        out_order: list[int] = []
        flag = 0
        top: Play | None = None
        while True:
            t = client.receive_table("hand table")
            hinfo = read_info(t, "hand table")
            if first:
                mirror.finish_exchange(hand_from_table(t, "hand table"))
                mirror.start_play(hinfo)
                first = False
            if hinfo.empty_table:
                top = None
            if hinfo.my_turn:
                a = mirror.our_action(act)
                sent = action_table_of(rules, a, top, reversed_order=bool(hinfo.revolution) != bool(hinfo.eleven_back))
                client.send_table(sent, "play table")
                answer = client.receive_flag("accept flag")
                stats.moves += 1
                if answer == 8 and a != 0:
                    stats.rejected += 1
                    msg = (f"REJECTED by the server: game {game}, our {describe_action(rules, a)} "
                           f"({parse_play(sent).words()}); our rules and the server's disagree")
                    stats.messages.append(msg)
                    log(msg)
            tt = client.receive_table("top table")
            actor, a = mirror.on_top(tt, hinfo)
            if a > 0:
                top = parse_play(tt, "top table")
            if verbose:
                log(f"  game {game + 1}: player {actor} " + (top.words() if a > 0 and top is not None else "pass")
                    + f" -> {describe_action(rules, a) if a >= 0 else '?'}")
            for p, n in enumerate(read_info(tt, "top table").counts):
                if n == 0 and p not in out_order:
                    out_order.append(p)
            flag = client.receive_flag("game flag")
            if flag in (1, 2):
                break
            if flag != 0:
                raise UecdaProtocolError(f"game flag: {flag} is not 0, 1 or 2")
        st = mirror.state
        if int(st.hand_no[0]) != mirror.hand_no or st.phase[0] == OVER:    # the mirror's hand ended too
            order = [int(p) for p in np.argsort(st.last_finish[0], kind="stable")]
        else:
            order = out_order + [p for p in range(PLAYERS) if p not in out_order]
        if len(set(order)) == PLAYERS:      # (after a hand ended by pass_limit the next deal's classes correct it)
            for place, p in enumerate(order):
                stats.points[p] += scoring[place] if place < len(scoring) else 0
        stats.places.append(order)
        stats.games += 1
        game += 1
        log(f"game {stats.games}: places {' '.join(str(p) for p in order)}; our points {stats.points[me]} "
            f"(all {stats.points}); rejected {stats.rejected}")
        if flag == 2 or (max_games is not None and stats.games >= max_games):
            return stats
