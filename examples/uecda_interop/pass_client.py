"""Interop check (a): our UecdaClient in one seat of a UECda server, passing every turn.

Decodes every table the server sends (hand tables, info rows, top tables) and counts what it
saw; any table our decoders reject is printed. See docs/uecda.md (Interop log).

    PYTHONPATH=. python examples/uecda_interop/pass_client.py PORT
"""

import collections
import sys

from president_env.uecda import tables as T
from president_env.uecda.protocol import UecdaProtocolError
from president_env.uecda.server_net import UecdaClient


def main(port: int) -> None:
    conn = UecdaClient("127.0.0.1", port, name="president-pass", timeout=120)
    print("player number", conn.connect())
    games, errors = 0, 0
    shapes, answers = collections.Counter(), collections.Counter()
    while True:
        deal = conn.receive_table("deal table")
        info = T.read_info(deal, "deal table")
        hand = T.hand_from_table(deal, "deal table")
        if games < 2:
            print(f"game {games}: deal table [5][0]={int(deal[5][0])}; hand {' '.join(hand)}; {info}")
        if info.exchange > 0:    # daifugo or fugo: give back the lowest cards
            conn.send_table(T.cards_table(hand[:info.exchange]), "exchange table")
        first = True
        while True:
            t = conn.receive_table("hand table")
            now = T.read_info(t, "hand table")
            held = T.hand_from_table(t, "hand table")
            if first and games < 2:
                print(f"  first hand table: {len(held)} cards, to move {now.to_move}, seats {now.seats}, "
                      f"classes {now.classes}")
                first = False
            if now.my_turn:
                conn.send_table(T.play_table(), "play table")     # always pass
                answers[f"answer {conn.receive_flag('accept flag')}"] += 1
            top = conn.receive_table("top table")
            try:
                play = T.parse_play(top, "top table")
                shapes[play.shape] += 1
                if play.joker is not None:
                    shapes["with joker: " + play.words()] += 1
            except UecdaProtocolError as e:
                errors += 1
                print("DECODE ERROR", e)
            T.read_info(top, "top table")
            flag = conn.receive_flag("game flag")
            if flag:
                break
        games += 1
        if flag == 2:
            break
    print(f"games {games}; top tables by shape {dict(shapes)}; our answers {dict(answers)}; decode errors {errors}")
    conn.close()


if __name__ == "__main__":
    main(int(sys.argv[1]))
