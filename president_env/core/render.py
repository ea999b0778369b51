"""Text rendering: one game of a batch as a table, and a recorded hand step by step.

:func:`render` draws one game: the rules and phase, the play on top and its owner,
and one row per seat (player, cards held, pass state, finishing place, social
rank, session points, and the hand: all hands when ``viewer`` is None, else only
the viewer's). :func:`format_record` replays a record (checking it) and prints it
decision by decision; :func:`playthrough` plays one seeded hand with random legal
actions and formats it (the golden files under ``tests/playthroughs``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from .actions import describe_action
from .cards import tables
from .engine import exchange_kind, init
from .poker import play_words
from .records import Recorder, random_actions, replay_steps, rules_of
from .rules import Rules
from .state import EXCHANGE, OVER, PHASE_NAMES, State

PASS_WORDS = {"may_replay": "passed", "locks_out": "locked", "single_round": "had turn"}  # the passed column


def rank_name(position: int, players: int) -> str:
    """A finishing position (0 = first) as a social rank: President ... Scum."""
    if position < 0:
        return "-"
    if position == 0:
        return "President"
    if position == players - 1:
        return "Scum"
    if players >= 4 and position == 1:
        return "Vice-President"
    if players >= 4 and position == players - 2:
        return "Vice-Scum"
    return "Citizen"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _player_name(p: int, agents: Sequence[str] | None) -> str:
    return f"p{p}" if agents is None else f"p{p} {agents[p]}"


def top_words(rules: Rules, state: State, game: int = 0, agents: Sequence[str] | None = None) -> str:
    """The play on top in words, with its owner ('nothing: seat 2 (p2) leads' when empty)."""
    b = game
    if state.phase[b] == OVER:
        return "nothing (session over)"
    if state.phase[b] == EXCHANGE:
        return "nothing (exchange)"
    owner = int(state.top_owner[b])
    if owner < 0:
        cur = int(state.current[b])
        return f"nothing: seat {cur} ({_player_name(int(state.seat_player[b, cur]), agents)}) leads"
    size, rank = int(state.top_size[b]), int(state.top_rank[b])
    wild = " with wild cards" if state.top_wild[b] else ""
    who = _player_name(int(state.seat_player[b, owner]), agents)
    if rules.poker:  # the combination's name and its cards
        names = [tables(rules).card_names[c] for c in np.flatnonzero(state.top_cards[b])]
        return f"{play_words(rules, int(state.top_claim[b]), names)}: {' '.join(names)} by seat {owner} ({who})"
    if rules.card_level:  # the cards themselves (a run, or a set whose suits matter)
        names = [tables(rules).card_names[c] for c in np.flatnonzero(state.top_cards[b])]
        kind = f"run of {size}" if int(state.top_run[b]) else ("single" if size == 1 else f"set of {size}")
        return f"{kind} {' '.join(names)} by seat {owner} ({who})"
    aid = 1 + rank * rules.max_set + size - 1
    return f"{describe_action(rules, aid)}{wild} by seat {owner} ({who})"


def render(rules: Rules, state: State, game: int = 0, viewer: int | None = None,
           agents: Sequence[str] | None = None, width: int | None = None) -> str:
    """One game of ``state`` as a text table.

    ``viewer`` is a player number: only that player's cards are shown (the others
    as a count); ``None`` shows every hand. ``agents`` optionally names the players.
    ``width`` (a terminal's columns) keeps every line within it: the head breaks at its
    ``|`` and the cards move from the table's last column to lines of their own below it.
    """
    B, P = state.batch_size, rules.players
    if not 0 <= game < B:
        raise ValueError(f"game {game} out of range 0..{B - 1}")
    if viewer is not None and not 0 <= viewer < P:
        raise ValueError(f"viewer must be a player 0..{P - 1} or None, got {viewer}")
    if agents is not None and len(agents) != P:
        raise ValueError(f"agents must name {P} players, got {len(agents)}")
    b = game
    t = tables(rules)
    phase = int(state.phase[b])
    direction = "clockwise" if state.direction[b] > 0 else "counter-clockwise"
    hand = f"hand {int(state.hand_no[b])}" if phase != OVER else f"after {int(state.hand_no[b])} hand(s)"
    lines = [
        f"{rules.name} ({P} players) | {hand} | phase {PHASE_NAMES[phase]} | "
        f"dealer seat {int(state.dealer[b])} | {direction} | revolution {'yes' if state.revolution[b] else 'no'}",
        f"top: {top_words(rules, state, b, agents)}",
    ]
    uec = []                            # the UEC options' public state (rule book section 9)
    if rules.suit_lock != "none":
        locked = [rules.suit_order[x] for x in range(4) if int(state.lock[b]) >> x & 1]
        uec.append(f"lock {' '.join(locked) if locked else 'none'}")
    if rules.eleven_back:
        uec.append(f"11-back {'yes' if state.eleven_back[b] else 'no'}")
    if rules.pass_limit:
        uec.append(f"passes in a row {int(state.pass_run[b])} of {rules.pass_limit}")
    if uec:
        lines.append(" | ".join(uec))
    if rules.poker and state.poker_claim[b] > 0:  # a play in progress: its claim and the cards picked so far
        picked = " ".join(t.card_names[c] for c in np.flatnonzero(state.picked[b])) or "none yet"
        lines.append(f"claimed: {describe_action(rules, int(state.poker_claim[b]))} (picked: {picked})")
    played = [f"{k}x{int(n)}" for k, n in zip(t.kinds, state.played[b], strict=True) if n]
    if played:
        lines.append("played: " + " ".join(played))
    if state.discarded[b].any():
        lines.append("discarded: " + " ".join(f"{k}x{int(n)}" for k, n in zip(t.kinds, state.discarded[b],
                                                                                 strict=True) if n))
    if phase == EXCHANGE:
        total = sum(back for _, back in rules.exchange_pairs)
        step = int(state.exch_step[b])
        if step < total:
            lines.append(f"exchange: give-back {step + 1} of {total}")
        else:
            lines.append(f"exchange: merchant trade, pick {step - total + 1} of {2 * len(rules.merchant_pairs)}")
    if (state.exposed[b] >= 0).any():
        lines.append("exposed: " + ", ".join(
            f"seat {s} {t.card_names[int(state.exposed[b, s])]}" for s in range(P) if state.exposed[b, s] >= 0))

    header = ["", "seat", "player", "cards", PASS_WORDS[rules.pass_rule], "place", "rank", "points", "hand"]
    rows = []
    for s in range(P):
        p = int(state.seat_player[b, s])
        acting = phase != OVER and int(state.current[b]) == s
        fin = int(state.finish[b, s])
        cards = [t.card_names[c] for c in np.flatnonzero(state.hands[b, s])]
        shown = " ".join(cards) if viewer is None or viewer == p else ("(hidden)" if cards else "")
        rows.append([
            ">" if acting else "", str(s), _player_name(p, agents), str(int(state.n_cards[b, s])),
            "yes" if state.passed[b, s] else "", _ordinal(fin + 1) if fin >= 0 else "-",
            rank_name(int(state.social[b, s]), P), str(int(state.points[b, p])), shown,
        ])
    table = _columns([header, *rows])
    if width is None or max(map(len, lines + table)) <= width:
        return "\n".join(lines + table)
    lines = [part for line in lines for part in _fit(line, width)]
    lines += _columns([r[:-1] for r in [header, *rows]])
    for s, r in enumerate(rows):
        if r[-1] and r[-1] != "(hidden)":
            lines += _fit(f"cards of seat {s} ({r[2]}): {r[-1]}", width)
    return "\n".join(lines)


def _columns(rows: list[list[str]]) -> list[str]:
    """Rows of cells as lines of left-aligned columns two spaces apart."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _fit(line: str, width: int) -> list[str]:
    """A line broken to ``width`` columns: at its ``" | "`` first, else at spaces; follow-on lines indented."""
    if len(line) <= width:
        return [line]
    parts = line.split(" | ")
    if len(parts) > 1:
        out = [parts[0]]
        for part in parts[1:]:
            if len(out[-1]) + 3 + len(part) <= width:
                out[-1] += " | " + part
            else:
                out.append("  " + part)
        return [piece for o in out for piece in _fit(o, width)]
    return textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False) or [line]


def _legal_words(rules: Rules, legal: Sequence[int], exchange: bool, trade: bool = False, claim: bool = False) -> str:
    return ", ".join(f"{a} {describe_action(rules, a, exchange=exchange, trade=trade, claim=claim)}" for a in legal)


def format_record(record: dict[str, Any], viewer: int | None = None, tables_every_step: bool = False) -> str:
    """A record replayed (and so checked) decision by decision, as text.

    Shows the start table, then for each decision the play on top, the acting
    player's hand (unless ``viewer`` is someone else), the legal actions in words
    and the action taken with its cards; then the end table, finishing order and
    points. ``tables_every_step`` draws the full table before every decision.
    """
    rules = rules_of(record)
    agents = record["agents"]
    if agents == [f"player{p}" for p in range(len(agents))]:
        agents = None  # default names: "p0" says it all
    out = [
        f"record: preset {record['preset']}, session {record['session']}, hand {record['hand']}, "
        f"{rules.players} players, dealer seat {record['dealer']}",
        "seats: " + ", ".join(f"{s}: {_player_name(p, agents)}" for s, p in enumerate(record["seats"])),
    ]
    if record["prev_ranks"] is not None:
        out.append("previous ranks: " + ", ".join(
            f"{_player_name(p, agents)} {rank_name(r, rules.players)}" for p, r in enumerate(record["prev_ranks"])))
    for p, cards in enumerate(record["deal"]):
        if viewer is None or viewer == p:
            out.append(f"dealt to {_player_name(p, agents)}: {' '.join(cards)}")
    if record.get("exposed"):
        out.append("exposed: " + ", ".join(
            f"{_player_name(p, agents)} {card}" for p, card in enumerate(record["exposed"])))
    for g in record["exchanges"]:
        out.append(f"forced gift: {_player_name(g['from'], agents)} -> {_player_name(g['to'], agents)}: "
                   f"{' '.join(g['cards'])}")
    last = None
    for step in replay_steps(record):
        st, b = step.before, 0
        ex = int(st.phase[b]) == EXCHANGE
        trade = ex and int(exchange_kind(rules, st)[b]) > 0
        claim = not ex and int(st.claim_rank[b]) >= 0
        d = step.decision
        if step.index == 0 or tables_every_step:
            out += ["", render(rules, st, viewer=viewer, agents=agents)]
        seat = int(st.current[b])
        out.append("")
        out.append(f"decision {step.index} ({'exchange' if ex else 'quick clear' if claim else 'play'}): seat {seat}, "
                   f"{_player_name(d['agent'], agents)}")
        if not ex:
            out.append(f"  top: {top_words(rules, st, b, agents)}")
            counts = " ".join(str(int(n)) for n in st.n_cards[b])
            out.append(f"  cards by seat: {counts}")
        if viewer is None or viewer == d["agent"]:
            hand = " ".join(tables(rules).card_names[c] for c in np.flatnonzero(st.hands[b, seat]))
            out.append(f"  hand: {hand}")
            out.append(f"  legal: {_legal_words(rules, d['legal'], ex, trade, claim)}")
        words = describe_action(rules, d["action"], exchange=ex, trade=trade, claim=claim)
        out.append(f"  action: {d['action']} {words}" + (f" -> {' '.join(d['cards'])}" if d["cards"] else ""))
        last = step
    assert last is not None
    out += ["", render(rules, last.after, viewer=viewer, agents=agents), ""]
    out.append("finishing order: " + ", ".join(
        f"{_player_name(p, agents)} ({rank_name(i, rules.players)})" for i, p in enumerate(record["finish_order"])))
    out.append("points: " + ", ".join(f"{_player_name(p, agents)} {v:+d}" for p, v in enumerate(record["points"])))
    return "\n".join(out) + "\n"


def play_one_hand(rules: Rules, seed: int = 0) -> dict[str, Any]:
    """The record of one hand with random legal actions (a Generator seeded with ``seed``).

    The hand starts from random ranks drawn from the seed, so it has an exchange
    when the rules have one.
    """
    r1 = rules.replace(hands_per_session=1)
    st = init(r1, batch_size=1, seed=seed, start_ranks="random")
    rng = np.random.default_rng(seed)
    rec = Recorder(r1, st)
    records = rec.run(lambda s: random_actions(s.legal, rng), max_steps=100_000)
    return records[0]


def playthrough(rules: Rules, seed: int = 0) -> str:
    """A golden playthrough: one seeded hand of ``rules`` step by step (see :func:`play_one_hand`)."""
    head = f"# playthrough: preset {rules.name}, {rules.players} players, seed {seed}, one hand from random ranks\n"
    return head + format_record(play_one_hand(rules, seed))
