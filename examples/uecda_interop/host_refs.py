"""Interop check (b): our UecdaServer core hosting five UECda clients, without a rules engine.

Each game is one trick: a random deal, the 3D holder leads, a play is accepted (9) when the
mover holds its cards, the lock flag is kept, and the game ends (flag 1; flag 2 after the last)
when the others have passed or at a play that needs the rules to go on (an 8, a lone joker, a
revolution, a player out). Every game has ranks drawn at random (``--unranked-first``: game 0
without), so the exchange runs: the lower classes give their best cards, the daifugo and the fugo
send exchange tables, read and checked here. See docs/uecda.md (Interop log).

    PYTHONPATH=. python examples/uecda_interop/host_refs.py PORT GAMES
"""

import argparse
import asyncio
import random

import numpy as np

from president_env.uecda import tables as T
from president_env.uecda.protocol import UecdaProtocolError
from president_env.uecda.server_net import ServerLimits, UecdaServer

EIGHT = T.column_of_rank("8")


def info_table(cards, hands, seats, classes, **kw) -> np.ndarray:
    base = dict(deal=False, exchange=0, my_turn=False, to_move=0, empty_table=False, eleven_back=False,
                revolution=False, lock=False, counts=tuple(len(h) for h in hands), classes=classes,
                seats=tuple(seats))
    base.update(kw)
    return T.TableInfo(**base).apply(cards)


def best(hand, n):
    """The n best cards: the joker, then rank high to low, equal ranks S, H, D, C."""
    def key(c):
        return (99, 0) if c == "JK" else (T.RANKS.index(c[0]), -"SHDC".index(c[1]))
    return sorted(hand, key=key)[-n:]


def suits(play):
    rows = {T.cell_of(c)[0] for c in play.cards}
    if play.joker is not None and play.joker[0] < 4:
        rows.add(play.joker[0])
    return rows


async def deal_and_exchange(srv, rng, game, ranked, stats):
    deck = [T.card_at(r, c) for r in range(4) for c in range(1, 14)] + ["JK"]
    rng.shuffle(deck)
    seats = list(range(5))
    rng.shuffle(seats)
    hands = [T.sort_cards(deck[p::5]) for p in range(5)]
    if not ranked:
        classes = (0,) * 5
        for p in range(5):
            await srv.send_table(p, info_table(T.cards_table(hands[p]), hands, seats, classes, deal=True, to_move=6),
                                 "deal table")
        return hands, seats, classes
    order = list(range(5))
    rng.shuffle(order)                       # order[k]: the player of class k
    classes = tuple(order.index(p) for p in range(5))
    counts = tuple(len(h) for h in hands)
    before = [list(h) for h in hands]
    for hi, lo, n in ((0, 4, 2), (1, 3, 1)):  # gifts: daihinmin -> daifugo, hinmin -> fugo
        for c in best(hands[order[lo]], n):
            hands[order[lo]].remove(c)
            hands[order[hi]].append(c)
    for k, p in enumerate(order):            # the upper classes see their gifts, the lower not yet their loss
        shown = hands[p] if k < 2 else before[p]
        await srv.send_table(p, info_table(T.cards_table(shown), hands, seats, classes, deal=True, to_move=6,
                                           exchange=(2, 1, 0, 0, 0)[k], counts=counts), "deal table")
    for hi, lo, n in ((0, 4, 2), (1, 3, 1)):
        answer = await srv.receive_answer(order[hi], "exchange table")
        try:
            give = T.hand_from_table(answer.table, "exchange table") if answer.ok else []
        except UecdaProtocolError as e:
            print("UNPARSED", e)
            give = []
        valid = len(give) == n and all(c in hands[order[hi]] for c in give)
        print(f"game {game}: class {hi} (player {order[hi]}) gives back {' '.join(give) or 'nothing'}"
              f" ({'valid' if valid else 'invalid: the strongest instead'})")
        stats["exchanges valid" if valid else "exchanges invalid"] += 1
        for c in give if valid else best(hands[order[hi]], n):
            hands[order[hi]].remove(c)
            hands[order[lo]].append(c)
    return [T.sort_cards(h) for h in hands], seats, classes


async def one_trick(srv, hands, seats, classes, last_game, stats):
    mover = next(p for p in range(5) if "3D" in hands[p])
    top, prev, lock, passed, log = np.zeros((8, 15), dtype=np.int64), None, False, set(), []
    while True:
        for p in range(5):
            await srv.send_table(p, info_table(T.cards_table(hands[p]), hands, seats, classes, my_turn=(p == mover),
                                               to_move=mover, empty_table=prev is None, lock=lock), "hand table")
        answer = await srv.receive_answer(mover, "play table")
        try:
            play = T.parse_play(answer.table)
        except UecdaProtocolError as e:
            stats["unparsed"] += 1
            print("UNPARSED", e, answer.table[:5].tolist())
            play = T.parse_play(T.play_table())
        held = all(c in hands[mover] for c in play.cards) and (play.joker is None or "JK" in hands[mover])
        ok = not play.is_pass and held
        stats["turns"] += 1
        stats["accepted" if ok else "passes" if play.is_pass else "not held"] += 1
        await srv.send_flag(mover, 9 if ok or (play.is_pass and prev is None) else 8, "accept flag")
        log.append(f"{mover}:{play.words() if ok else 'pass' if play.is_pass else 'NOT HELD ' + play.words()}")
        special = False
        if ok:
            for c in play.cards + (("JK",) if play.joker is not None else ()):
                hands[mover].remove(c)
            lock = lock or (prev is not None and suits(play) == suits(prev))
            special = (play.shape == "joker" or EIGHT in play.columns or (play.shape == "set" and play.size >= 4)
                       or (play.shape == "run" and play.size >= 5) or not hands[mover])
            top, prev = play.table(), play
            passed.clear()
        else:
            passed.add(mover)
        for p in range(5):
            await srv.send_table(p, info_table(top, hands, seats, classes, to_move=mover, lock=lock), "top table")
        end = special or len(passed) >= sum(1 for h in hands if h) - 1
        await srv.broadcast_flag((2 if last_game else 1) if end else 0, "game flag")
        if end:
            return log
        s = seats.index(mover)
        mover = next(seats[(s + k) % 5] for k in range(1, 6)
                     if hands[seats[(s + k) % 5]] and seats[(s + k) % 5] not in passed)


async def main(port: int, games: int, unranked_first: bool) -> None:
    import collections
    rng = random.Random(7)
    stats = collections.Counter()
    limits = ServerLimits(handshake_timeout=10, silence_limit=30)
    async with UecdaServer(port=port, limits=limits, on_log=print) as srv:
        await srv.wait_for_players(timeout=60)
        for game in range(games):
            hands, seats, classes = await deal_and_exchange(srv, rng, game, not (unranked_first and game == 0), stats)
            log = await one_trick(srv, hands, seats, classes, game == games - 1, stats)
            print(f"game {game}: " + ", ".join(log))
        print("done:", dict(stats))
        await asyncio.sleep(1.0)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("games", type=int)
    ap.add_argument("--unranked-first", action="store_true")
    a = ap.parse_args()
    asyncio.run(asyncio.wait_for(main(a.port, a.games, a.unranked_first), 300))
