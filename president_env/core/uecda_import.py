"""Import the UECda reference server's game records: replay each game under the preset ``uecda``.

:func:`import_games` reads a ``.dat`` file (:mod:`.uecda_record`), and for every game starts the
engine from the recorded deal, seats and classes, plays the recorded exchange (the forced gifts must
be the engine's, the give-backs are the recorded choices) and every recorded move, and compares the
hands after the exchange and the finishing places with the record. It stops at the first difference
with a :class:`UecdaImportError` naming the file, the game, the move and what differs: a move our
rules refuse means that our rules and the server's disagree.

What it returns are this project's records (:mod:`.records`), one per game, which
``president replay --check`` verifies. Their deal comes from the UECda record, not from their key,
and says so (``deal_source``). The key of a game that ended by ``pass_limit`` is the first key
(counting from one derived from the file's name and the game) whose draw of the places left is the
one the server drew (the server's random draw cannot be repeated; ours can, from the key).

The reference server keeps at most a game's first :data:`SERVER_MAX_PLAYS` (128) moves in its record
(FujiGokoroUECda ``src/core/record.hpp``, ``GameRecord::pushPlay``: the rest is dropped without a mark).
A game whose 128 recorded moves are all legal but end before the hand does by our rules raises
:class:`UecdaTruncatedGame`: its end is not in the record, so it cannot be replayed or verified.
``president import-uecda`` skips such games and names each one; :func:`import_games` raises.
"""

from __future__ import annotations

import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .actions import action_table, describe_action
from .cards import tables
from .engine import _hash, current_player, init
from .kernel.deal import SALT_PASS_LIMIT
from .records import Recorder, _deal_from_names
from .rules import Rules, preset
from .state import EXCHANGE
from .uecda_record import UecdaGame, UecdaMove, UecdaRecord, read_uecda_record

#: tries of keys for a game that ended by pass_limit (the places left are drawn from the key)
MAX_KEY_TRIES = 100_000
#: the most moves of a game the reference server writes in its record (GameRecord::pushPlay)
SERVER_MAX_PLAYS = 128


class UecdaImportError(ValueError):
    """A UECda record that does not replay under our rules: names the file, the game and the move."""


class UecdaTruncatedGame(UecdaImportError):
    """A game the reference server's record cut at :data:`SERVER_MAX_PLAYS` moves: legal so far, its end missing."""


def uecda_rules() -> Rules:
    """The rules the competition's records are replayed under: the preset ``uecda``."""
    return preset("uecda")


@lru_cache(maxsize=8)
def _lookup(rules: Rules) -> dict[tuple, int]:
    """(shape, natural cards sorted, the card the joker stands for) -> action id, for every play."""
    at = action_table(rules)
    out: dict[tuple, int] = {}
    for i in range(1, at.n):
        ja = at.joker_as[i] if at.joker_as else ""
        run = bool(at.run[i])
        if run and ja[:1] in ("<", ">"):
            ja = ("-" if ja[0] == "<" else "+") + ja[1:]
        elif not run and ja.endswith("*"):
            ja = ja[:-1] + "X"
        joker = int(at.wild[i]) > 0
        shape = "run" if run else ("single" if int(at.size[i]) == 1 else "set")
        out[(shape, tuple(sorted(at.cards[i])), joker, ja or None)] = i
    return out


def move_action(rules: Rules, move: UecdaMove) -> int:
    """The action id of a recorded move (0 for a pass); raises KeyError for a move our table lacks."""
    if move.is_pass:
        return 0
    table = _lookup(rules)
    ja = move.joker_as
    if move.shape == "run" and ja and ja[0] in "-+":
        ja = ja[0] + ja[-1]
    return table[(move.shape, tuple(sorted(move.cards)), move.joker, ja)]



@lru_cache(maxsize=64)
def _single_id(rules: Rules, card: str) -> int:
    """The id that gives one card back in the exchange (a single; the joker: the single wild card)."""
    at = action_table(rules)
    for i in range(1, at.n):
        if int(at.size[i]) == 1 and not int(at.run[i]):
            if (card == "JK" and not at.cards[i]) or at.cards[i] == (card,):
                return i
    raise KeyError(card)


def _base_key(source: str, game: UecdaGame) -> int:
    return (zlib.crc32(f"{Path(source).name}/{game.number}".encode()) << 20) + 1


def _pass_limit_key(rules: Rules, game: UecdaGame, start_key: int, holding: list[int], seat_player: list[int],
                    where: str) -> int:
    """The first key from ``start_key`` whose pass_limit draw gives the players in ``holding`` (by seat) the
    places the record gives them (kernel.play.pass_limit_end: the smallest hash takes the best place left)."""
    want = sorted(holding, key=lambda s: game.result[seat_player[s]])
    seats = np.array(holding, dtype=np.uint64)
    keys = np.arange(start_key, start_key + MAX_KEY_TRIES, dtype=np.uint64)
    h = _hash(keys[:, None], SALT_PASS_LIMIT, 0, seats[None, :])        # (tries, holders)
    order = np.argsort(h, axis=1, kind="stable")
    match = (np.asarray(holding)[order] == np.asarray(want)[None, :]).all(axis=1)
    if not match.any():
        raise UecdaImportError(f"{where}: no key of {MAX_KEY_TRIES} repeats the server's draw of the places "
                               f"left at pass_limit")
    return int(keys[int(np.argmax(match))])


def import_game(rules: Rules, game: UecdaGame, source: str, names: tuple[str, ...], key: int | None = None
                ) -> dict[str, Any]:
    """One game as our record, replayed move by move (raises :class:`UecdaImportError` at the first
    difference)."""
    where = f"{source}: game {game.number} (line {game.line})"
    P = rules.players
    t = tables(rules)
    if key is None:
        key = _base_key(source, game)
    try:
        deal = _deal_from_names(rules, [list(h) for h in game.dealt])
    except ValueError as e:
        raise UecdaImportError(f"{where}: dealt: {e}") from None
    seat_player = list(game.seat_players)
    ranks = np.array([game.classes]) if game.with_ranks else None
    st = init(rules, keys=np.array([key], dtype=np.uint64), deal=deal[None], start_ranks=ranks,
              seat_player=np.array([seat_player]))
    rec = Recorder(rules, st, agents=list(names), sessions=[game.number], deal=deal[None])
    st = rec.state
    names_of = t.card_names

    def held(player: int) -> list[str]:
        seat = seat_player.index(player)
        return sorted(names_of[c] for c in np.flatnonzero(st.hands[0, seat]))

    # The exchange: the forced gifts are the engine's; the give-backs are the recorded choices.
    if game.with_ranks:
        header = rec.current_header()
        for gift in header["exchanges"]:
            recorded = sorted(game.changed[gift["from"]])
            if sorted(gift["cards"]) != recorded:
                raise UecdaImportError(f"{where}: changed: player {gift['from']} gives {sorted(gift['cards'])} by "
                                       f"our rules (its best cards), the record says {recorded}")
        pending = {p: list(game.changed[p]) for p in range(P)}
        while st.phase[0] == EXCHANGE:
            giver = int(current_player(st)[0])
            card = next((c for c in pending[giver] if c in held(giver)), None)
            if card is None:
                raise UecdaImportError(f"{where}: changed: player {giver} chooses a card to give back, but none "
                                       f"of the record's {list(game.changed[giver])} is in its hand {held(giver)}")
            pending[giver].remove(card)
            rec.step(np.array([_single_id(rules, card)]))
    elif any(game.changed):
        raise UecdaImportError(f"{where}: changed: a hand without ranks has no exchange")
    for p in range(P):
        if held(p) != sorted(game.original[p]):
            raise UecdaImportError(f"{where}: original: after the exchange player {p} holds {held(p)} by our "
                                   f"rules, the record says {sorted(game.original[p])}")

    out: list[dict[str, Any]] = []
    for i, mv in enumerate(game.plays):
        mover = int(current_player(st)[0])
        here = f"{where}, move {i} {mv.token!r} by player {mover}"
        if out:
            raise UecdaImportError(f"{here}: the hand ended at move {i - 1} by our rules, the record goes on")
        try:
            a = move_action(rules, mv)
        except KeyError:
            raise UecdaImportError(f"{here}: no action of the uecda table plays {list(mv.all_cards)}"
                                   + (f" with the joker as {mv.joker_as}" if mv.joker_as else "")) from None
        if not st.legal[0, a]:
            legal = [describe_action(rules, int(j)) for j in np.flatnonzero(st.legal[0])]
            raise UecdaImportError(f"{here}: our rules refuse {describe_action(rules, a)!r}; the legal moves "
                                   f"are {legal[:12]}{' ...' if len(legal) > 12 else ''}")
        if rules.pass_limit and a == 0 and int(st.pass_run[0]) + 1 >= rules.pass_limit and key == _base_key(
                source, game) and i == len(game.plays) - 1:
            # the hand ends by pass_limit: replay with a key whose draw of the places left is the server's
            holding = [s for s in range(P) if st.n_cards[0, s] > 0]
            return import_game(rules, game, source, names,
                               _pass_limit_key(rules, game, key + 1, holding, seat_player, here))
        out += rec.step(np.array([a]))
    if not out:
        to_move = int(current_player(st)[0])
        if len(game.plays) >= SERVER_MAX_PLAYS:
            raise UecdaTruncatedGame(
                f"{where}: the record holds the game's first {len(game.plays)} moves only (the reference server "
                f"writes at most {SERVER_MAX_PLAYS} a game) and the hand goes on by our rules (player {to_move} is "
                f"to move): every recorded move is legal under uecda, the game's end is not in the record")
        raise UecdaImportError(f"{where}: the record's {len(game.plays)} moves end before the hand does by our "
                               f"rules (player {to_move} is to move)")
    record = out[0]
    places = [record["finish_order"].index(p) for p in range(P)]
    if places != list(game.result):
        raise UecdaImportError(f"{where}: result: our rules give places {places}, the record says "
                               f"{list(game.result)}")
    record["deal_source"] = f"uecda {Path(source).name} game {game.number}"
    return record


def import_games(path: str | Path, rules: Rules | None = None) -> list[dict[str, Any]]:
    """Every game of the UECda record at ``path`` as our records (raises :class:`UecdaImportError` at the first
    difference or game cut at 128 moves (:class:`UecdaTruncatedGame`), :class:`~.uecda_record.UecdaRecordError`
    for a file that is not a UECda record)."""
    rules = rules or uecda_rules()
    parsed: UecdaRecord = read_uecda_record(path)
    return [import_game(rules, g, str(path), tuple(parsed.players)) for g in parsed.games]


__all__ = ["MAX_KEY_TRIES", "SERVER_MAX_PLAYS", "UecdaImportError", "UecdaTruncatedGame", "import_game", "import_games",
           "move_action", "uecda_rules"]
