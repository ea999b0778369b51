"""``president play``: a person plays a whole session in the terminal against agents.

* ``president play [--preset NAME] [--players N] [--opponents heuristic,ppo:FILE,...] [--seed S] [--seat K]``

The person is one player (``--seat``: the player number, which is also the seat of
the first hand; with reseating players move seats by rank). Before each of their
decisions the table is drawn as ``president replay --tables`` draws it (the play on
top and who made it, every seat's card count, pass state, place, rank and points,
and only their own cards, sorted), then the legal moves are offered by number, in
words. The opponents' moves are shown as they happen, with the cards they played.
The exchange is played too: forced gifts are announced (with the cards when the
person gives or receives them) and the give-back choices are offered by number.
``q`` (or the end of the input) leaves the game; ``?`` draws the table again.

:func:`play_session` does the work on any pair of text streams, so a test can drive it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents.base import Agent
from agents.registry import agent_names, make_agent, split_specs
from president_cli.argtypes import UsageError, float_range, hands_count, preset_name, seed_value
from president_cli.core_commands import rules_from_args, writable_output
from president_env.core import (
    EXCHANGE,
    OVER,
    PLAY,
    Rules,
    State,
    action_table,
    current_player,
    describe_action,
    init,
    make_keys,
    observe,
    tables,
)
from president_env.core.engine import exchange_kind
from president_env.core.poker import play_words
from president_env.core.records import Recorder, write_records
from president_env.core.render import rank_name, render

QUIT_WORDS = ("q", "quit", "exit")
REDRAW_WORDS = ("?", "t", "table")


@dataclass
class PlayResult:
    """How a session of :func:`play_session` ended."""

    finished: bool                  # the session reached its end (False: the person quit or input ended)
    hands: int                      # hands finished
    points: list[int]               # session points by player
    decisions: int                  # decisions the person made (forced single moves not counted)
    records: list[dict[str, Any]] = field(default_factory=list, repr=False)  # one game record per finished hand
    interrupted: bool = False       # the session stopped on Ctrl-C


# --------------------------------------------------------------------------- input
def read_choice(n: int, inp: TextIO, out: TextIO, prompt: str = "your move") -> int | str | None:
    """Ask for a number 1..n until one comes; return it 0-based.

    Returns ``None`` when the person quits (``q``) or the input ends, and ``"redraw"``
    for ``?``. Anything else (not a number, out of range, empty) gets a message
    naming what was wrong and another chance.
    """
    if n < 1:
        raise ValueError(f"read_choice needs at least one choice, got n={n}")
    while True:
        out.write(f"{prompt} [1-{n}, ? table, q quit]: ")
        out.flush()
        line = inp.readline()
        if line == "":
            out.write("\n(end of input)\n")
            return None
        text = line.strip()
        low = text.lower()
        if low in QUIT_WORDS:
            return None
        if low in REDRAW_WORDS:
            return "redraw"
        if not text:
            out.write(f"please type the number of a move, 1 to {n} (or q to quit)\n")
            continue
        try:
            k = int(text)
        except ValueError:
            out.write(f"{text!r} is not a move number: type a number from 1 to {n} (or q to quit)\n")
            continue
        if not 1 <= k <= n:
            out.write(f"there is no move {k}: type a number from 1 to {n} (or q to quit)\n")
            continue
        return k - 1


# --------------------------------------------------------------------------- opponents
def parse_opponents(text: str | None, players: int) -> list[str]:
    """``"heuristic"`` (one spec for every opponent) or one spec per opponent, comma separated."""
    n = players - 1
    if text is None or not text.strip():
        return ["heuristic"] * n
    specs = split_specs(text)
    if any(not s for s in specs):
        raise UsageError(f"--opponents {text!r} has an empty entry; give agent names separated by commas")
    if len(specs) == 1:
        return specs * n
    if len(specs) != n:
        raise UsageError(f"--opponents names {len(specs)} agents; give one for all opponents or one for each of "
                         f"the {n} opponents")
    return specs


def build_opponents(rules: Rules, specs: Sequence[str | Agent], trust_pickle: bool = False) -> list[Agent]:
    """Agents from specs (``make_agent``); a bad spec raises :class:`UsageError` naming it."""
    out: list[Agent] = []
    for spec in specs:
        if isinstance(spec, Agent):
            out.append(spec)
            continue
        try:
            out.append(make_agent(spec, rules, trust_pickle=trust_pickle))
        except (ValueError, OSError, ImportError) as e:
            raise UsageError(f"opponent {spec!r}: {e}") from None
    return out


# --------------------------------------------------------------------------- what happened
def _cards(rules: Rules, row: np.ndarray) -> str:
    names = tables(rules).card_names
    return " ".join(names[c] for c in np.flatnonzero(row))


def _kinds(rules: Rules, counts: np.ndarray) -> str:
    kinds = tables(rules).kinds
    return " ".join(k for k, n in zip(kinds, counts, strict=True) for _ in range(int(n)))


class _Table:
    """Names and small helpers for one session seen by player ``human``."""

    def __init__(self, rules: Rules, human: int, opponents: Sequence[str]) -> None:
        self.rules, self.human = rules, human
        it = iter(opponents)
        self.agents = ["you" if p == human else next(it) for p in range(rules.players)]

    def who(self, p: int) -> str:
        return "you" if p == self.human else f"p{p} {self.agents[p]}"

    def hand_start(self, st: State) -> list[str]:
        """The head of a new hand: seats, ranks, the forced gifts of the exchange."""
        rules, P = self.rules, self.rules.players
        sp = st.seat_player[0]
        lines = ["", f"===== hand {int(st.hand_no[0])} ====="]
        seats = []
        for s in range(P):
            p = int(sp[s])
            rank = rank_name(int(st.social[0, s]), P)
            seats.append(f"{s}: {self.who(p)}" + (f" ({rank})" if rank != "-" else ""))
        lines.append(f"seats: {', '.join(seats)}; dealer seat {int(st.dealer[0])}")
        if (st.social[0] >= 0).all():
            for k, (give, back) in enumerate(rules.exchange_pairs):
                gs = int(np.flatnonzero(st.social[0] == P - 1 - k)[0])
                rs = int(np.flatnonzero(st.social[0] == k)[0])
                g, r = int(sp[gs]), int(sp[rs])
                what = f"{give} best card(s)"
                if self.human in (g, r):
                    what += f" [{_kinds(rules, st.exch_out[0, gs])}]"
                gives = "give" if g == self.human else "gives"
                lines.append(f"exchange: {self.who(g)} ({rank_name(P - 1 - k, P)}) {gives} {what} to "
                             f"{self.who(r)} ({rank_name(k, P)}), who then chooses {back} card(s) to give back")
            if (st.exposed[0] >= 0).any():
                names = tables(rules).card_names
                lines.append("exposed cards (the piles went by them): " + ", ".join(
                    f"{self.who(int(sp[s]))} {names[int(st.exposed[0, s])]}" for s in range(P)))
            for hi, lo in rules.merchant_pairs:
                a, b = (int(sp[int(np.flatnonzero(st.social[0] == k)[0])]) for k in (hi, lo))
                lines.append(f"merchants: {self.who(a)} and {self.who(b)} then each choose a card to trade")
        seat = int(np.flatnonzero(sp == self.human)[0])
        lines.append(f"your cards: {_cards(rules, st.hands[0, seat])}")
        return lines

    def after_step(self, before: State, after: State, actor: int, action: int, moved: np.ndarray,
                   note: str = "") -> list[str]:
        """What one decision that did not end the hand did, as the person at the table sees it.

        ``note`` follows the first line. Others' give-backs are shown without the card.
        """
        rules, P = self.rules, self.rules.players
        lines: list[str] = []
        kind = int(exchange_kind(rules, before)[0])
        if kind > 0:  # a merchant's pick: the first waits unseen; the second moves both cards
            picks = "choose" if actor == self.human else "chooses"
            lines.append(f"  {self.who(actor)}: {picks} a card to trade"
                         + (f" ({_cards(rules, moved)})" if actor == self.human else "") + note)
            if kind == 2:
                seat = int(np.flatnonzero(after.seat_player[0] == self.human)[0])
                traded = (after.exch_in[0] - before.exch_in[0]).sum(axis=1) > 0
                if traded[seat]:
                    got = _kinds(rules, after.exch_in[0, seat] - before.exch_in[0, seat])
                    lines.append(f"  the merchants swap: you receive {got}")
                else:
                    lines.append("  the merchants swap their cards")
            if int(after.phase[0]) == PLAY:
                lines.append("  exchange done")
                seat = int(np.flatnonzero(after.seat_player[0] == self.human)[0])
                lines.append(f"  your cards: {_cards(rules, after.hands[0, seat])}")
            return lines
        if int(before.phase[0]) == EXCHANGE:  # a give-back: the card goes to the seat whose exch_in grew
            got = (after.exch_in[0] - before.exch_in[0]).sum(axis=1)
            to = int(before.seat_player[0, int(np.argmax(got))]) if got.any() else None
            gives = "give" if actor == self.human else "gives"
            what = f"{gives} back {_cards(rules, moved) if self.human in (actor, to) else 'a card'}"
            lines.append(f"  {self.who(actor)}: {what}" + (f" to {self.who(to)}" if to is not None else "") + note)
            if int(after.phase[0]) == PLAY:
                lines.append("  exchange done")
                seat = int(np.flatnonzero(after.seat_player[0] == self.human)[0])
                lines.append(f"  your cards: {_cards(rules, after.hands[0, seat])}")
            return lines
        if rules.poker and action:  # a claim and its picks show once, as the play they make on the last pick
            if not moved.any():
                return lines
            words = _poker_play(rules, before, moved)
        else:
            words = describe_action(rules, action, claim=int(before.claim_rank[0]) >= 0)
        lines.append(f"  {self.who(actor)}: {words}" + (f" ({_cards(rules, moved)})" if action else "") + note)
        for s in np.flatnonzero((before.finish[0] < 0) & (after.finish[0] >= 0)):
            pos = int(after.finish[0, s])
            lines.append(f"  {self.who(int(after.seat_player[0, s]))} finished: place {pos + 1} of {P}")
        if rules.equal_play_skips and action and int(after.top_owner[0]) >= 0:
            rank = int(action_table(rules).rank[action])
            if rank == int(before.top_rank[0]):
                k = int(action_table(rules).size[action]) - int(before.top_size[0]) + 1
                lines.append(f"  same rank as the top: the next {k} player(s) with cards are skipped")
        if bool(after.revolution[0]) != bool(before.revolution[0]):
            lines.append("  REVOLUTION: the rank order is reversed" if after.revolution[0]
                         else "  counter-revolution: the rank order is back to normal")
        if int(after.direction[0]) != int(before.direction[0]):
            lines.append("  the direction of play is reversed")
        if int(after.top_owner[0]) < 0 and int(after.phase[0]) == PLAY:
            cur = int(after.current[0])
            lines.append(f"  trick over; {self.who(int(after.seat_player[0, cur]))} to lead")
        return lines

    def hand_over(self, st: State) -> list[str]:
        """The result of the hand that just ended: finishing order, points of the hand, session totals."""
        P = self.rules.players
        fin = st.last_finish[0].astype(int)
        order = np.argsort(fin, kind="stable")
        lines = [f"hand {int(st.hand_no[0]) - 1} over. finishing order:"]
        for i, p in enumerate(order):
            lines.append(f"  {i + 1}. {self.who(int(p))} ({rank_name(i, P)}) {int(st.hand_points[0, p]):+d} "
                         f"(session total {int(st.points[0, p])})")
        return lines

    def standings(self, st: State) -> list[str]:
        pts = st.points[0].astype(int)
        order = np.argsort(-pts, kind="stable")
        return [f"  {self.who(int(p))}: {int(pts[p])}" for p in order]


# --------------------------------------------------------------------------- the session
def play_session(
    rules: Rules,
    opponents: Sequence[str | Agent],
    human: int = 0,
    seed: int = 0,
    inp: TextIO | None = None,
    out: TextIO | None = None,
    *,
    start_ranks: str | None = None,
    delay: float = 0.0,
    auto_single: bool = True,
    width: int | None = None,
) -> PlayResult:
    """Play one session with a person at player ``human`` reading ``inp`` and writing ``out``.

    ``opponents`` are agent specs or :class:`Agent` objects for the other players in
    player order. The session's key is ``make_keys(1, seed)`` (the same game as
    ``president_env.env(...).reset(seed=seed)``); the opponents draw from
    ``numpy.random.SeedSequence(seed)``. With ``auto_single`` a decision with one
    legal move is made for the person and shown. ``delay`` pauses after each
    opponent move (seconds). Lines keep within ``width`` columns (default: the
    terminal's, 80 when unknown).
    """
    inp = sys.stdin if inp is None else inp
    out = sys.stdout if out is None else out
    P = rules.players
    if not 0 <= human < P:
        raise UsageError(f"--seat must be a player 0..{P - 1}, got {human}")
    if len(opponents) != P - 1:
        raise UsageError(f"{len(opponents)} opponents given for {P} players: give {P - 1}")
    bots = build_opponents(rules, opponents)
    for b in bots:
        if b.rules != rules:
            raise UsageError(f"opponent {b.name} was built for other rules than this game's")
    names = [spec if isinstance(spec, str) else spec.name for spec in opponents]
    table = _Table(rules, human, names)
    agent_of = dict(zip([p for p in range(P) if p != human], bots, strict=True))
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(P)]

    st = init(rules, keys=make_keys(1, seed), start_ranks=start_ranks)
    rec = Recorder(rules, st, agents=table.agents)
    records: list[dict[str, Any]] = []
    decisions = 0

    width = width or shutil.get_terminal_size((80, 24)).columns

    def say(lines: Sequence[str]) -> None:
        for line in (part for item in lines for part in item.split("\n")):
            out.write(wrap(line, width) + "\n")
        out.flush()

    say([f"President: preset {rules.name}, {P} players, seed {seed}. You are player {human}; opponents: "
         + ", ".join(table.who(p) for p in range(P) if p != human) + ".",
         "Type the number of a move; ? draws the table again; q quits."])
    say(table.hand_start(st))
    try:
        while int(st.phase[0]) != OVER:
            actor = int(current_player(st)[0])
            legal = np.flatnonzero(st.legal[0])
            ex = int(st.phase[0]) == EXCHANGE
            if actor == human:
                if auto_single and legal.size == 1:
                    action = int(legal[0])
                    note = " (your only move)"
                else:
                    action = None
                    draw = True
                    while action is None:
                        if draw:
                            say(["", render(rules, st, viewer=human, agents=table.agents, width=width)])
                            trade = ex and int(exchange_kind(rules, st)[0]) > 0
                            claim = not ex and int(st.claim_rank[0]) >= 0
                            head = ("choose a card to trade:" if trade else "give back a card:") if ex else (
                                "you may claim a quick clear:" if claim else "your moves:")
                            say([head] + move_lines([describe_action(rules, int(a), exchange=ex, trade=trade,
                                                                     claim=claim) for a in legal], width))
                            draw = False
                        choice = read_choice(len(legal), inp, out, ("your trade" if trade else "your give-back") if ex
                                             else "your move")
                        if choice is None:
                            say(["You left the game.", "Points so far:", *table.standings(st)])
                            return PlayResult(False, int(st.hand_no[0]), st.points[0].astype(int).tolist(),
                                              decisions, records)
                        if choice == "redraw":
                            draw = True
                            continue
                        action = int(legal[int(choice)])
                    decisions += 1
                    note = ""
            else:
                note = ""
                obs = observe(rules, st, actor)
                action = int(bots_act(agent_of[actor], obs, st.legal, rngs[actor]))
                if delay > 0:
                    time.sleep(delay)
            before = st.copy()
            finished = rec.step(np.array([action]))
            records += finished
            if finished:
                last = finished[0]["decisions"][-1]["cards"]  # the cards of the play that ended the hand
                words = (_poker_play(rules, before, st.moved[0]) if rules.poker and action
                         else describe_action(rules, action))
                say([f"  {table.who(actor)}: {words}" + (f" ({' '.join(last)})" if last else "")
                     + note] + table.hand_over(st))
                if int(st.phase[0]) != OVER:
                    say(table.hand_start(st))
                continue
            say(table.after_step(before, st, actor, action, st.moved[0], note))
    except KeyboardInterrupt:  # Ctrl-C: stop here like quitting, so the finished hands are kept
        say(["", "Interrupted: the session stops here.", "Points so far:", *table.standings(st)])
        return PlayResult(False, int(st.hand_no[0]), st.points[0].astype(int).tolist(), decisions, records,
                          interrupted=True)

    say(["", f"The session is over after {int(st.hand_no[0])} hand(s). Final points:", *table.standings(st)])
    return PlayResult(True, int(st.hand_no[0]), st.points[0].astype(int).tolist(), decisions, records)


def _poker_play(rules: Rules, before: State, moved: np.ndarray) -> str:
    """The poker play a last pick made, by name: 'full house, sevens over fours'."""
    names = [tables(rules).card_names[c] for c in np.flatnonzero(moved)]
    return play_words(rules, int(before.poker_claim[0]), names)


def wrap(line: str, width: int) -> str:
    """A line of text broken at spaces to ``width`` columns, the follow-on lines indented under it."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)


def move_lines(moves: Sequence[str], width: int | None = None, one_column_up_to: int = 24) -> list[str]:
    """The numbered moves, one per line; a long list (a free lead of poker claims) in columns, read down.

    ``width`` is the terminal's (default: its current width, 100 when unknown)."""
    items = [f"{i + 1}) {m}" for i, m in enumerate(moves)]
    if len(items) <= one_column_up_to:
        return ["  " + it for it in items]
    width = width or shutil.get_terminal_size((100, 24)).columns
    cell = max(len(it) for it in items) + 2
    cols = max(1, (width - 2) // cell)
    rows = -(-len(items) // cols)
    return ["  " + "".join(items[r + c * rows].ljust(cell) for c in range(cols) if r + c * rows < len(items)).rstrip()
            for r in range(rows)]


def bots_act(agent: Agent, obs: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> int:
    """One agent decision for a batch of one, checked to be legal."""
    a = int(agent.act(obs, legal, rng)[0])
    if not legal[0, a]:
        raise RuntimeError(f"agent {agent.name} chose illegal action {a}")
    return a


# --------------------------------------------------------------------------- command line
def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``play`` to the ``president`` parser."""
    p = subparsers.add_parser(
        "play", help="play a session in the terminal against agents",
        description="Play a whole session of President in the terminal against agents: your hand sorted, the "
                    "play on top, the others' card counts, ranks and points, and your legal moves by number.")
    p.add_argument("--preset", type=preset_name, default="president", help="the variant (default: president)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the preset's)")
    p.add_argument("--opponents", default="heuristic",
                   help="one agent for every opponent, or one per opponent in player order, comma separated: "
                        f"{', '.join(agent_names())} (default: heuristic)")
    p.add_argument("--seed", type=seed_value, default=None, help="seed of the deals and the agents (default: random)")
    p.add_argument("--seat", type=int, default=0,
                   help="your player number, which is your seat in the first hand (default 0)")
    p.add_argument("--hands", type=hands_count, default=None,
                   help="hands in the session (default: play to the preset's target points)")
    p.add_argument("--random-ranks", action="store_true",
                   help="start from random ranks, so the first hand has an exchange")
    p.add_argument("--delay", type=float_range(0, 60), default=0.0,
                   help="seconds to pause after each opponent move, 0..60 (default 0)")
    p.add_argument("--record", type=Path, default=None,
                   help="write the hands played to this JSON-lines file (show them with president replay)")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow ppo:MODEL.zip (a stable-baselines3 zip can run code from the file when it loads; "
                        "prefer an agent file: president export-agent)")
    p.set_defaults(func=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    """Play a session on standard input and output."""
    rules = rules_from_args(args)
    if not 0 <= args.seat < rules.players:
        raise UsageError(f"--seat must be a player 0..{rules.players - 1}, got {args.seat}")
    if args.record is not None:
        writable_output(args.record, "--record")   # before the session, not after it
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 1_000_000)
    specs = build_opponents(rules, parse_opponents(args.opponents, rules.players), trust_pickle=args.trust_pickle)
    result = play_session(rules, specs, human=args.seat, seed=seed, inp=sys.stdin, out=sys.stdout,
                          start_ranks="random" if args.random_ranks else None, delay=args.delay)
    if args.record is not None and result.records:
        try:
            write_records(args.record, result.records)   # through a temporary file, renamed when complete
        except (OSError, ValueError) as e:
            raise UsageError(f"cannot write {args.record}: {getattr(e, 'strerror', None) or e}") from None
        print(f"{len(result.records)} hand(s) written to {args.record}; show one with: "
              f"president replay {args.record} --index 0")
    if args.seed is None:
        print(f"(this game was seed {seed}: play it again with --seed {seed})")
    return 130 if result.interrupted else 0
