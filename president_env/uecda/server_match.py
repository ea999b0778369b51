"""A UECda match as the reference server runs it, on our engine: :func:`run_match`.

The engine (preset ``uecda``) deals, redraws the seats every 3 games, resets the ranks every 100, plays
the forced gifts and judges every play. Each of the five players is either local (a function
``act(obs, mask) -> action id``) or a remote UECda client seated by a :class:`.server_net.UecdaServer`.
The remote clients get the messages in the order of ``docs/uecda.md``: the deal table, the exchange
tables (daifugo, then fugo), and each turn a hand table, the mover's play and its accept flag (9, or 8
for a rejected play, which counts as a pass), the top table and the game flag (0, 1, 2 after the last
game). A remote give-back that is not the right number of held cards is replaced by the giver's
strongest cards, as the reference server does. Records are our engine's (:class:`.records.Recorder`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from president_env.core.actions import action_table
from president_env.core.cards import tables as card_tables
from president_env.core.engine import current_player, init
from president_env.core.observation import observe
from president_env.core.records import Recorder
from president_env.core.rules import Rules
from president_env.core.state import EXCHANGE, OVER, State
from president_env.core.uecda_import import _single_id

from .moves import action_of_play, action_table_of
from .protocol import UecdaProtocolError
from .server_net import UecdaServer
from .tables import PLAYERS, Play, cards_table, hand_from_table, parse_play

__all__ = ["MatchResult", "run_match"]

Act = Callable[[np.ndarray, np.ndarray], int]
_RANK_ORDER = "3456789TJQKA2"
_SUIT_ORDER = "CDHS"


def _strength(card: str) -> tuple[int, int]:
    return (99, 9) if card == "JK" else (_RANK_ORDER.index(card[0]), _SUIT_ORDER.index(card[1]))


@dataclass
class MatchResult:
    """What a match gave: its records, points and places by player, plays rejected by player."""

    names: list[str]
    records: list[dict[str, Any]] = field(default_factory=list)
    points: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    places: list[list[int]] = field(default_factory=lambda: [[0] * PLAYERS for _ in range(PLAYERS)])
    rejected: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    bad_exchanges: list[int] = field(default_factory=lambda: [0] * PLAYERS)
    times_us: list[list[int]] = field(default_factory=list)   # by game: microseconds each decision took

    @property
    def games(self) -> int:
        """Games played."""
        return len(self.records)


def _info_rows(st: State, mover: int, deal: bool = False, rotation: int = 0) -> np.ndarray:
    """Rows 5-6 of a server table from the state (counts, classes, seats by player; our player q is the
    clients' player (q - rotation) % 5)."""
    rows = np.zeros((2, 15), dtype=np.int64)
    sp = st.seat_player[0].astype(int)
    rows[0, 3] = 6 if deal else (mover - rotation) % PLAYERS
    rows[0, 4] = int(st.top_rank[0] < 0)
    rows[0, 5] = int(bool(st.eleven_back[0]))
    rows[0, 6] = int(bool(st.revolution[0]))
    rows[0, 7] = int(st.lock[0] != 0)
    for s in range(PLAYERS):
        p = (int(sp[s]) - rotation) % PLAYERS
        rows[1, p] = int(st.n_cards[0, s])
        rows[1, 5 + p] = max(int(st.social[0, s]), 0)
        rows[1, 10 + s] = p
    return rows


async def run_match(rules: Rules, local: dict[int, Act], names: list[str], games: int, *,  # noqa: C901 - one loop
                    server: UecdaServer | None = None, seed: int = 0,
                    log: Callable[[str], None] = print, result: MatchResult | None = None,
                    rotation: int = 0, last: bool = True) -> MatchResult:
    """Play ``games`` games; players in ``local`` act through their function, the others are ``server``'s remote
    clients (a started :class:`.server_net.UecdaServer` whose players have connected). ``result``, when given,
    is filled as the games end (what an interrupted match had finished stays in it).

    ``rotation`` (duplicate matches): our player ``q`` is the remote client number ``(q - rotation) % 5``, and
    every player number in the tables is told that way, so each client stays the player it connected as;
    ``local``, ``names`` and the result are by our players. ``last``: the match ends with these games (the
    last game flag is 2, else 1: more games follow)."""
    if not 1 <= games <= rules.hands_per_session:
        raise ValueError(f"games must be 1..{rules.hands_per_session} (one session of the preset), got {games}")
    remote = [p for p in range(PLAYERS) if p not in local]
    if remote and server is None:
        raise ValueError(f"players {remote} are remote, but no server is given")
    key = int(np.random.default_rng(seed).integers(1, 2**62))
    st = init(rules, keys=np.array([key], dtype=np.uint64))
    rec = Recorder(rules, st, agents=names, sessions=[0])
    if result is None:
        result = MatchResult(names=list(names))
    result.names = list(names)
    names_of = card_tables(rules).card_names
    sizes = action_table(rules).size

    def label(p: int) -> int:
        return (p - rotation) % PLAYERS

    async def send(p: int, table: np.ndarray, what: str) -> None:
        await server.send_table(label(p), table, what)

    async def broadcast(table: np.ndarray, what: str) -> None:
        for p in remote:
            await server.send_table(label(p), table, what)

    async def broadcast_flag(v: int, what: str) -> None:
        for p in remote:
            await server.send_flag(label(p), v, what)

    def local_action(p: int) -> int:
        s = rec.state
        return int(local[p](observe(rules, s, p)[0], s.legal[0].copy()))

    def clock() -> int:
        return time.perf_counter_ns() // 1000

    for g in range(games):
        st = rec.state
        if st.phase[0] == OVER:
            break
        times: list[int] = []           # one per decision of the game (what the UECda record's moves show)
        header = rec.current_header()
        assert header is not None
        ranked = header["prev_ranks"] is not None
        deal = header["deal"]
        # (a) the deal tables: the receivers with their gifts, the givers before giving, counts as dealt
        if remote:
            got: dict[int, list[str]] = {p: [] for p in range(PLAYERS)}
            for gift in header["exchanges"]:
                got[gift["to"]] += gift["cards"]
            info = _info_rows(st, 6, deal=True, rotation=rotation)
            info[0, 4] = 0
            for p in range(PLAYERS):
                info[1, label(p)] = len(deal[p])
            for p in remote:
                t = cards_table(list(deal[p]) + got[p])
                t[5:7] = info
                t[5, 0] = 1
                cls = header["prev_ranks"][p] if ranked else -1
                t[5, 1] = rules.exchange[cls] if ranked and cls < len(rules.exchange) else 0
                await send(p, t, "deal table")
        # (b) the exchange: the daifugo's give-backs, then the fugo's
        while rec.state.phase[0] == EXCHANGE:
            giver = int(current_player(rec.state)[0])
            if giver in local:
                t0 = clock()
                a = local_action(giver)
                times.append(clock() - t0)
                rec.step(np.array([a]))
                continue
            s = rec.state
            held = [names_of[c] for c in np.flatnonzero(s.hands[0, list(s.seat_player[0]).index(giver)])]
            n = rules.exchange[int(s.social[0, list(s.seat_player[0]).index(giver)])]
            t0 = clock()
            answer = await server.receive_answer(label(giver), "exchange table")
            took = clock() - t0
            try:
                cards = hand_from_table(answer.table, "exchange table")
            except UecdaProtocolError:
                cards = []
            if len(cards) != n or len(set(cards)) != n or any(c not in held for c in cards):
                result.bad_exchanges[giver] += 1
                log(f"game {g}: player {giver} gave back {cards or 'nothing'}, not {n} of its cards; its strongest "
                    f"cards go instead")
                cards = sorted(held, key=_strength)[-n:]
            for c in cards:
                if rec.state.phase[0] != EXCHANGE or int(current_player(rec.state)[0]) != giver:
                    break
                times.append(took)
                took = 0
                rec.step(np.array([_single_id(rules, c)]))
        # (c) the turns
        top_rows = np.zeros((5, 15), dtype=np.int64)
        top_play: Play | None = None
        while True:
            st = rec.state
            mover = int(current_player(st)[0])
            info = _info_rows(st, mover, rotation=rotation)
            if info[0, 4]:
                top_play = None
            sp = list(st.seat_player[0])
            for p in remote:
                t = cards_table([names_of[c] for c in np.flatnonzero(st.hands[0, sp.index(p)])])
                t[5:7] = info
                t[5, 2] = int(p == mover)
                await send(p, t, "hand table")
            t0 = clock()
            if mover in local:
                a = local_action(mover)
                times.append(clock() - t0)
                sent = action_table_of(rules, a, top_play, reversed_order=bool(info[0, 6]) != bool(info[0, 5]))
            else:
                answer = await server.receive_answer(label(mover), "play table")
                times.append(clock() - t0)
                sent = answer.table
                try:
                    play = parse_play(sent, "play table")
                    a = action_of_play(rules, play)
                    words = play.words()
                except UecdaProtocolError as e:
                    a, words = None, str(e)
                if a is None or not st.legal[0, a]:
                    if a != 0:
                        result.rejected[mover] += 1
                        hand = [names_of[c] for c in np.flatnonzero(st.hands[0, sp.index(mover)])]
                        why = ("no play of our action table" if a is None else
                               f"refused by our rules on top {top_play.words() if top_play else 'nothing'}"
                               f"{' (locked)' if info[0, 7] else ''}")
                        log(f"game {g}: player {mover} ({names[mover]}) submitted {words}: {why}; its hand "
                            f"{' '.join(hand)}; a pass, answered 8")
                    a, flag = 0, 8
                else:
                    flag = 9 if a != 0 or info[0, 4] else 8
                await server.send_flag(label(mover), flag, "accept flag")
            if a != 0:
                top_rows = np.asarray(sent)[:5].astype(np.int64).copy()
                top_play = parse_play(sent)
            before = st.n_cards[0].copy()
            size = int(sizes[a])
            out = rec.step(np.array([a]))
            ended = bool(out)
            if ended:
                after = info.copy()
                seat = sp.index(mover)
                after[1, label(mover)] = int(before[seat]) - size
            else:
                after = _info_rows(rec.state, mover, rotation=rotation)
            after[0, 2] = 0
            after[0, 3] = label(mover)
            if remote:
                t = np.zeros((8, 15), dtype=np.int64)
                t[:5] = top_rows
                t[5:7] = after
                await broadcast(t, "top table")
                await broadcast_flag((2 if g == games - 1 and last else 1) if ended else 0, "game flag")
            if not ended and rec.state.top_rank[0] < 0:
                top_rows[:] = 0      # the trick is over: the reference server clears its stage after sending it
            if ended:
                result.times_us.append(times)
                for r in out:
                    result.records.append(r)
                    for place, p in enumerate(r["finish_order"]):
                        result.places[p][place] += 1
                    for p in range(PLAYERS):
                        result.points[p] += int(r["points"][p])
                log(f"game {g + 1}: places {' '.join(map(str, out[-1]['finish_order']))}; points {result.points}")
                break
    return result
