"""Build one game from hand-built hands and drive it with readable moves.

Tests import it as ``from helpers import ...`` (pytest puts ``tests/`` on the path).

Moves are written as short strings:

* ``"pass"``;
* ``"7"`` a single seven, ``"7x2"`` a pair of sevens, ``"WILDx3"`` three wild cards
  (``"T"`` or ``"10"`` for tens, ``"JK"``/``"BJ"``/``"RJ"`` for jokers);
* during the exchange, ``"7"`` names the rank of the card given back.

Hands are lists of card names (``["3C", "3D", "JK"]``) or one string (``"3C 3D JK"``),
one per *player* (player ``i`` sits in seat ``i`` unless ``seat_player`` or reseating
from ``start_ranks`` says otherwise).

Typical use::

    r = Rules(players=3, rank_order="3 4 5 6", hands_per_session=1)
    st = game(r, ["3C 4C", "5C 5D", "6C"], rest_to=2, dealer=2)
    assert legal_moves(r, st) == {"3", "3x2"}
    st = play(r, st, (0, "3"), (1, "pass"))   # (player expected to act, move)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from president_env.core import (
    Rules,
    State,
    action_id,
    action_table,
    card_index,
    card_names,
    current_player,
    init,
    observe,
    step,
    step_inplace,
    tables,
    terminated,
)

Hand = str | Sequence[str]


def _names(hand: Hand) -> list[str]:
    return hand.split() if isinstance(hand, str) else list(hand)


def deal(rules: Rules, hands: Sequence[Hand], rest_to: int | str | None = None) -> np.ndarray:
    """A (P, C) bool deal by player from card names.

    ``rest_to``: where the cards nobody was given go: ``None`` (there must be none),
    a player number, or ``"spread"`` (one at a time, lowest card first, each to the
    player holding fewest cards so far, lowest player number on ties).
    Raises ``ValueError`` on a wrong number of hands, a card given twice, or cards left over.
    """
    P = rules.players
    if len(hands) != P:
        raise ValueError(f"expected {P} hands (one per player), got {len(hands)}")
    t = tables(rules)
    out = np.zeros((P, t.n_cards), dtype=bool)
    taken = np.zeros(t.n_cards, dtype=bool)
    for p, cards in enumerate(hands):
        for raw in _names(cards):
            name = card_names(rules, card_index(rules, [raw]))[0]  # raises on an unknown name
            free = [c for c, n in enumerate(t.card_names) if n == name and not taken[c]]
            if not free:
                raise ValueError(f"player {p}: card {raw!r} given more often than the pack holds it")
            taken[free[0]] = out[p, free[0]] = True
    rest = np.flatnonzero(~taken)
    if rest.size:
        if rest_to is None:
            raise ValueError(f"cards {card_names(rules, ~taken)} were given to nobody (pass rest_to=)")
        if rest_to == "spread":
            for c in rest:
                p = int(np.argmin(out.sum(axis=1)))
                out[p, c] = True
        else:
            out[int(rest_to), rest] = True
    return out


def game(
    rules: Rules,
    hands: Sequence[Hand],
    *,
    rest_to: int | str | None = None,
    dealer: int = 0,
    start_ranks: Sequence[int] | None = None,
    seat_player: Sequence[int] | None = None,
    seed: int = 0,
) -> State:
    """One session (batch of 1) dealt ``hands`` (by player).

    ``start_ranks`` gives each player's last-hand finishing position (0 = President), so
    the hand opens with the forced exchange; ``dealer`` is the dealer's *seat*.
    """
    d = deal(rules, hands, rest_to)[None]
    sr = None if start_ranks is None else np.asarray(start_ranks)[None]
    sp = None if seat_player is None else np.asarray(seat_player)[None]
    return init(rules, keys=np.array([seed], dtype=np.uint64), deal=d, dealer=dealer, start_ranks=sr,
                seat_player=sp)


def move_id(rules: Rules, move: str) -> int:
    """``"pass"`` -> 0, ``"7x2"`` -> the id of a pair of sevens."""
    m = move.strip()
    if m.lower() == "pass":
        return 0
    rank, _, size = m.partition("x")
    return action_id(rules, rank, int(size) if size else 1)


def move_name(rules: Rules, action: int) -> str:
    """Inverse of :func:`move_id`: ``0`` -> ``"pass"``, a pair of sevens -> ``"7x2"``."""
    table = action_table(rules)
    if action == 0:
        return "pass"
    size = int(table.size[action])
    return table.names[action] if size == 1 else f"{table.names[action]}x{size}"


def legal_moves(rules: Rules, st: State, game_no: int = 0) -> set[str]:
    """The legal actions of one game as move strings."""
    return {move_name(rules, int(a)) for a in np.flatnonzero(st.legal[game_no])}


def actor(st: State) -> int:
    """The player (not seat) to act in game 0."""
    return int(current_player(st)[0])


def seat_of(st: State, player: int) -> int:
    """The seat of ``player`` in game 0."""
    return int(np.flatnonzero(st.seat_player[0] == player)[0])


def hand(rules: Rules, st: State, player: int) -> list[str]:
    """The cards ``player`` holds in game 0, sorted."""
    return card_names(rules, st.hands[0, seat_of(st, player)])


def n_cards(st: State) -> list[int]:
    """Cards held by each player (by player, not seat) in game 0."""
    return [int(st.n_cards[0, seat_of(st, p)]) for p in range(st.seat_player.shape[1])]


def finish(st: State) -> list[int]:
    """This hand's finishing positions by player in game 0 (-1 still playing)."""
    return [int(st.finish[0, seat_of(st, p)]) for p in range(st.seat_player.shape[1])]


def top(rules: Rules, st: State) -> str | None:
    """The play on top of game 0 as a move string (effective rank), or None when leading."""
    if st.top_rank[0] < 0:
        return None
    name = tables(rules).play_ranks[int(st.top_rank[0])]
    size = int(st.top_size[0])
    return name if size == 1 else f"{name}x{size}"


def play(rules: Rules, st: State, *moves: str | tuple[int, str]) -> State:
    """Apply ``moves`` to game 0 in order and return the new state.

    A move is a string, or ``(player, move)`` to also assert that ``player`` is the one
    to act. An illegal move raises the engine's ``IllegalActionError``.
    """
    for mv in moves:
        if isinstance(mv, tuple):
            who, mv = mv
            if actor(st) != who:
                raise AssertionError(f"expected player {who} to act before {mv!r}, but player {actor(st)} acts")
        st = step(rules, st, np.array([move_id(rules, mv)]))
    return st


def play_all(rules: Rules, st: State, moves: Iterable[tuple[int, str]]) -> State:
    """:func:`play` over an iterable of ``(player, move)`` pairs."""
    return play(rules, st, *moves)


def player_counts(name: str) -> list[int]:
    """Every player count preset ``name`` allows (3 to 8, 10 with a deck and a half, 12 with two decks;
    merchant_trade needs two players between the exchanging pairs)."""
    from president_env.core.rules import MAX_PLAYERS, RulesError, preset

    top = MAX_PLAYERS[preset(name).decks]
    out = []
    for p in range(3, top + 1):
        try:
            preset(name, players=p)
        except RulesError:
            continue
        out.append(p)
    return out


def random_records(rules: Rules, keys: Sequence[int], seed: int = 0, start_ranks=None) -> list[dict]:
    """The records of sessions ``keys`` played with uniformly random legal actions (one generator per key)."""
    from president_env.core.records import Recorder

    st = init(rules, keys=np.asarray(keys, dtype=np.uint64), start_ranks=start_ranks)
    rngs = [np.random.default_rng([seed, int(k)]) for k in keys]
    rec = Recorder(rules, st, sessions=list(range(len(keys))))
    out: list[dict] = []
    while not rec.done:
        u = np.stack([g.random(rec.state.legal.shape[1]) for g in rngs])
        out += rec.step(np.where(rec.state.legal, u, -1.0).argmax(axis=1))
    return out


def play_sessions(rules: Rules, names: list, games: int, seed: int, start_ranks=None) -> tuple[int, int]:
    """Play whole sessions through the core (which raises on any illegal action), checking every agent answer
    is legal; player p uses names[p % n] (a spec or an Agent). Returns (decisions, exchange decisions)."""
    from agents.base import Agent
    from agents.registry import make_agent

    agents = [n if isinstance(n, Agent) else make_agent(n, rules) for n in names]
    st = init(rules, games, seed=seed, start_ranks=start_ranks)
    rng = np.random.default_rng(seed)
    decisions = exchanges = 0
    while not terminated(st).all():
        cur = current_player(st)
        obs = observe(rules, st, cur)
        actions = np.zeros(games, dtype=np.int64)
        for i, agent in enumerate(agents):
            idx = np.flatnonzero((cur % len(agents) == i) & ~terminated(st))
            if idx.size:
                a = agent.act(obs[idx], st.legal[idx], rng)
                assert a.shape == (idx.size,) and a.dtype == np.int64
                assert st.legal[idx, a].all(), f"{agent.name} chose an illegal action"
                actions[idx] = a
        exchanges += int((st.phase == 0).sum())
        decisions += int((~terminated(st)).sum())
        step_inplace(rules, st, actions)
    return decisions, exchanges
