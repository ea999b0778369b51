"""Play: a session between one person and agents, kept in the server.

A :class:`PlaySession` holds one game (a batch of one :class:`State`), the agents in
the other seats and the records of its finished hands (as JSON lines). The agents move
as soon as it is their turn, within a time budget per request: when it runs out the game
is ``waiting`` and the next request lets them go on, so between two requests the game
waits for the person, for its agents, or is over. Each session has its own lock: agents
thinking in one game never hold up another. Every move of the person carries the number
of the decision it answers, so a move sent twice is refused, not made twice.

:class:`GameStore` keeps the sessions by token: a random string that only the browser
that started the game knows, so a reload finds the game again and another browser cannot
reach it. It holds at most ``max_games``, each client (address) at most
``games_per_client``: a client's new game replaces its own least recently used one, never
another client's; when the server is full, only a game idle for ``idle_seconds`` makes
room, else the new game is refused (503).

Under ``combinations poker`` a play is several engine decisions (a claim, then one pick
per card; docs/rules.md 45): :meth:`PlaySession.act` with the cards finds the claim
they make, checks the whole sequence on a copy of the game, then applies it decision
by decision, so the records keep every one and the log shows the play once, by name.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import Agent
from president_env.core import (
    OVER,
    PLAY,
    Rules,
    RulesError,
    claim_id,
    current_player,
    describe_action,
    init,
    make_keys,
    observe,
    pick_id,
    preset,
    step_inplace,
    tables,
)
from president_env.core.poker import claim_table, play_words, satisfies
from president_env.core.records import Recorder
from president_env.core.render import rank_name

from .agents import AgentRefused, AgentShelf
from .limits import Limits
from .seats import LastPlays
from .views import (
    NotFound,
    cards_view,
    decision_words,
    legal_moves,
    next_top,
    poker_quiet,
    prompt,
    seat_of,
    table_view,
)

MAX_SEED = 2**64 - 1            # a seed is any 64-bit number; the server draws its own from all of them


class GameError(ValueError):
    """A request the game refuses: the message says what was wrong (400)."""


class GameConflict(GameError):
    """A move that does not fit the game's moment: sent twice, while the agents move, or while another request
    holds the game (409)."""


class ServerFull(GameError):
    """No room for another live game (503)."""


@dataclass(frozen=True)
class GameSettings:
    """What the Play page asks for: the variant, the person's seat and the agents."""

    preset: str = "president"
    players: int | None = None              # None: the preset's
    seat: int = 0                           # the person's player number (its seat in the first hand)
    opponents: tuple[str, ...] = ("heuristic",)   # one spec for all, or one per opponent in player order
    seed: int | None = None                 # None: a random 64-bit seed (shown when the session ends)
    hands: int | None = None                # hands in the session (None: the preset's target points)
    random_ranks: bool = False              # start from random ranks: the first hand has an exchange
    options: Mapping[str, Any] = field(default_factory=dict)  # any other rule options

    def rules(self) -> Rules:
        """The rules these settings name; a bad preset or option raises :class:`GameError`."""
        overrides = dict(self.options)
        if self.players is not None:
            overrides["players"] = self.players
        if self.hands is not None:
            overrides["hands_per_session"] = self.hands
        try:
            return preset(self.preset, **overrides)
        except (RulesError, TypeError, ValueError, OverflowError) as e:
            raise GameError(str(e)[:2000]) from None


class PlaySession:
    """One session: the person is player ``human``; agents (built by ``shelf``) play the other seats."""

    def __init__(self, settings: GameSettings, shelf: AgentShelf | None = None, max_hands: int = 100,
                 agent_seconds: float = 5.0) -> None:
        rules = settings.rules()
        shelf = shelf or AgentShelf()
        P = rules.players
        if not 0 <= settings.seat < P:
            raise GameError(f"seat must be a player 0..{P - 1}, got {settings.seat}")
        specs = list(settings.opponents)
        if len(specs) == 1:
            specs *= P - 1
        if len(specs) != P - 1:
            raise GameError(f"{len(specs)} opponents given for {P} players: give one for all or {P - 1}")
        bots: list[Agent] = []
        for spec in specs:
            try:
                bots.append(shelf.build(spec, rules))   # by name only: never a path, never a pickle
            except AgentRefused as e:
                raise GameError(str(e)) from None
        seed = settings.seed if settings.seed is not None else secrets.randbits(64)
        if not 0 <= seed <= MAX_SEED:
            raise GameError(f"seed must be 0..{MAX_SEED}, got {seed}")
        self.rules, self.human, self.seed = rules, settings.seat, seed
        self.max_hands = max_hands
        self.stopped = False         # the session reached max_hands before its own end
        self.lock = threading.Lock()
        others = iter(specs)
        self.agents = ["you" if p == self.human else next(others) for p in range(P)]
        bot_iter = iter(bots)
        self.bots = {p: next(bot_iter) for p in range(P) if p != self.human}
        self.rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(P)]
        self.state = init(rules, keys=make_keys(1, seed), start_ranks="random" if settings.random_ranks else None)
        self.recorder = Recorder(rules, self.state, agents=self.agents)
        self.records: list[str] = []     # the finished hands' records, one JSON line each
        self.log: list[str] = [f"{rules.name}, {P} players. You are player {self.human}."]
        self.top: list[str] | None = None
        self.last = LastPlays(P)
        self.decisions = 0
        self._hand_start()
        self.advance(agent_seconds)

    # ------------------------------------------------------------------ reading
    @property
    def over(self) -> bool:
        return self.stopped or int(self.state.phase[0]) == OVER

    @property
    def waiting(self) -> bool:
        """Agents (or a forced move of the person) are still to move: the next request lets them."""
        if self.over:
            return False
        return int(current_player(self.state)[0]) != self.human or int(self.state.legal[0].sum()) == 1

    def who(self, p: int) -> str:
        return "you" if p == self.human else f"p{p} {self.agents[p]}"

    def view(self, log_tail: int = 400) -> dict[str, Any]:
        """What the person's page shows: the table from their seat, their cards and legal moves, the log."""
        st = self.state
        mine = not self.over and not self.waiting
        seat = seat_of(st, self.human)
        return {
            "you": self.human,
            "seed": str(self.seed) if self.over else None,   # it deals every hand: shown when the session ends
            "decision": self.decisions,
            "waiting": self.waiting,
            "table": table_view(self.rules, st, self.human, self.agents, top_cards=self.top, last=self.last.view()),
            "hand": cards_view(self.rules, st.hands[0, seat]),
            "your_turn": mine,
            "legal": legal_moves(self.rules, st) if mine else [],
            "log": self.log[-log_tail:],
            "hands_done": len(self.records),
            "over": self.over,
            "standings": sorted(({"player": p, "agent": self.agents[p], "points": int(st.points[0, p])}
                                 for p in range(self.rules.players)), key=lambda r: -r["points"]),
        }

    # ------------------------------------------------------------------ acting
    def act(self, action: int | None = None, cards: Sequence[str] | None = None,
            claim: int | str | None = None, decision: int | None = None, agent_seconds: float = 5.0) -> None:
        """The person's decision, by action id or by the cards it moves; then the agents play on (for at most
        ``agent_seconds``).

        ``decision`` is the number of the decision the move answers (the view's ``decision``): another number
        (a move sent twice, a page out of date) raises :class:`GameConflict`. In a poker play the cards make a
        claim and its picks (:meth:`poker_plays`): ``claim`` (an id or words, 'full house of sevens') names
        the claim when the cards make several, else the strongest legal one is made. Out of turn, an illegal
        id, or cards that make no legal move raise :class:`GameError` and change nothing."""
        if self.over:
            raise GameError("the session is over: start a new game")
        if self.waiting:
            raise GameConflict("the agents are still to move: fetch the game (GET /api/game) and move on your turn")
        if decision != self.decisions:
            raise GameConflict(f"this move answers decision {decision}, but the game is at decision {self.decisions}"
                               ": it was sent twice, or the page is out of date (reload it)")
        self._move(action, cards, claim)
        self.advance(agent_seconds)

    def _move(self, action: int | None, cards: Sequence[str] | None, claim: int | str | None) -> None:
        """The person's decision itself (checked; a refusal changes nothing)."""
        st = self.state
        actor = int(current_player(st)[0])
        if actor != self.human:  # cannot happen between requests; kept as a guard
            raise GameError(f"it is player {actor}'s turn, not yours")
        if (action is None) == (cards is None):
            raise GameError("give either an action id or the cards to play")
        if claim is not None and cards is None:
            raise GameError("a claim goes with the cards it plays ({\"cards\": [...], \"claim\": ...}); "
                            "to make a claim alone, send its action id")
        if cards is not None and self.poker_play_now():
            steps = self.poker_plays(cards, claim)[0]["steps"]   # checked on a copy: legal to the last pick
            self.decisions += 1
            for a in steps:
                self._apply(actor, a)
            return
        if claim is not None:
            raise GameError("a claim is made only in a play of poker combinations")
        moves = legal_moves(self.rules, st)
        if cards is not None:
            kinds = self._kinds(cards)
            found = [m for m in moves if sorted(m["cards"]) == sorted(cards)]  # these very cards
            if not found and self.rules.card_level:  # the engine picks which wild cards go
                found = [m for m in moves if self._natural_key(m["cards"]) == self._natural_key(cards)]
            elif not found and not self.rules.poker:  # rank-based rules: the suits are the engine's choice
                found = [m for m in moves if m["kinds"] == kinds]
            if not found:
                raise GameError(f"no legal {prompt(self.rules, st)} moves the cards {list(cards)}; legal: "
                                + "; ".join(f"{m['words']} ({' '.join(m['cards']) or '-'})" for m in moves))
            action = found[0]["id"]
        if not isinstance(action, int) or isinstance(action, bool) or action not in {m["id"] for m in moves}:
            raise GameError(f"action {action!r} is not legal now; legal: "
                            + ", ".join(f"{m['id']} {m['words']}" for m in moves))
        self.decisions += 1
        self._apply(actor, action)

    # ------------------------------------------------------------------ poker plays
    def poker_play_now(self) -> bool:
        """Whether the person's decision is a poker play (a claim, or a pick of a pending claim)."""
        return self.rules.poker and not self.over and prompt(self.rules, self.state) == "play" \
            and int(current_player(self.state)[0]) == self.human

    def poker_plays(self, cards: Sequence[str], claim: int | str | None = None) -> list[dict[str, Any]]:
        """The plays the person's ``cards`` can make now, strongest first (docs/rules.md 43-45).

        Each is ``{"id", "words", "play", "steps"}``: the claim id and words, the play in
        words ('full house, sevens over fours') and the decisions that make it (the claim, then
        a pick of each card in an order the rules allow), every one checked on a copy of the
        game. With a claim pending the cards are the ones still to pick. ``claim`` keeps only
        that claim. None: :class:`GameError` naming the cards and what is legal."""
        if not self.poker_play_now():
            raise GameError("there is no poker play of yours to make now")
        rules, st = self.rules, self.state
        names = list(cards)
        if not names:
            raise GameError("select the cards to play")
        self._kinds(names)  # unknown or not held
        ct = claim_table(rules)
        rev = bool(st.revolution[0])
        want = None if claim is None else self._claim_of(claim)
        pending = int(st.poker_claim[0])
        picked = [tables(rules).card_names[c] for c in np.flatnonzero(st.picked[0])]
        if pending:
            if want not in (None, pending):
                raise GameError(f"you have claimed {ct.words[pending]}: pick its cards; legal: {self._legal_list()}")
            if set(names) & set(picked):
                raise GameError(f"{', '.join(sorted(set(names) & set(picked)))} already picked: select the cards "
                                f"still to pick for {ct.words[pending]}; legal: {self._legal_list()}")
            made = [pending]
        else:
            made = [c for c in range(1, ct.X + 1) if satisfies(rules, c, names, rev)]
            if want is not None and want not in made:
                raise GameError(f"the cards {names} do not make a {ct.words[want]}"
                                + (f" (they make {', '.join(ct.words[c] for c in made)})" if made else "")
                                + f"; legal now: {self._legal_list()}")
            made = [want] if want is not None else made
            made.sort(key=lambda c: (-int(ct.strength[int(rev), c]), -c))
        plays = []
        for c in made:
            steps = self._poker_steps(0 if pending else c, names)
            if steps is not None:
                plays.append({"id": c, "words": ct.words[c], "play": play_words(rules, c, picked + names),
                              "steps": steps})
        if not plays:
            if pending:
                why = f"they do not complete {ct.words[pending]} (picked so far: {' '.join(picked) or 'none'})"
            elif made:
                why = f"they make {', '.join(ct.words[c] for c in made)}, not a legal play now"
            else:
                why = "they make no poker combination"
            raise GameError(f"no legal play of the cards {names}: {why}; legal now: {self._legal_list()}")
        return plays

    def _poker_steps(self, claim: int, names: list[str]) -> list[int] | None:
        """The claim (0: one is pending) and a pick of each card, on a copy of the game: the decisions,
        or None when one of them is illegal or the play is not made by the last pick."""
        copy = self.state.copy()
        steps = [claim] if claim else []
        if claim:
            if not copy.legal[0, claim]:
                return None
            step_inplace(self.rules, copy, np.array([claim]))
        left = list(names)
        while left:  # any order of picks makes the play; the first pick may be bound (lowest card, suit)
            ids = [pick_id(self.rules, n) for n in left]
            k = next((i for i, a in enumerate(ids) if copy.legal[0, a]), None)
            if k is None or int(current_player(copy)[0]) != self.human:
                return None
            step_inplace(self.rules, copy, np.array([ids[k]]))
            steps.append(ids[k])
            left.pop(k)
        return steps if int(copy.poker_claim[0]) == 0 else None

    def _claim_of(self, claim: int | str) -> int:
        """A claim named by id or words ('full house of sevens')."""
        ct = claim_table(self.rules)
        if isinstance(claim, bool) or not isinstance(claim, int | str):
            raise GameError(f"claim must be a claim id or its words, got {claim!r}")
        if isinstance(claim, int):
            if not 1 <= claim <= ct.X:
                raise GameError(f"claim {claim} is not a claim id (claims are 1..{ct.X})")
            return claim
        try:
            return claim_id(self.rules, claim)
        except ValueError as e:
            raise GameError(str(e)) from None

    def _legal_list(self) -> str:
        """The legal decisions in words, for a refusal."""
        return ", ".join(describe_action(self.rules, int(a)) for a in np.flatnonzero(self.state.legal[0]))

    def _natural_key(self, cards: Sequence[str]) -> tuple[list[str], int]:
        """Card-level rules: the natural cards named, and how many wild cards."""
        t = tables(self.rules)
        wild = {t.card_names[c] for c in np.flatnonzero(t.card_wild)}
        return sorted(n for n in cards if n not in wild), sum(n in wild for n in cards)

    def _kinds(self, cards: Sequence[str]) -> list[str]:
        """The kinds of cards named in a request, checked against the person's hand."""
        t = tables(self.rules)
        seat = seat_of(self.state, self.human)
        held = [t.card_names[c] for c in np.flatnonzero(self.state.hands[0, seat])]
        kind_of = {n: t.kinds[t.card_kind[c]] for c, n in enumerate(t.card_names)}
        for name in cards:
            if not isinstance(name, str) or name not in kind_of:
                raise GameError(f"unknown card {name!r}")
            if held.count(name) < list(cards).count(name):
                raise GameError(f"you do not hold {name}" + (" that often" if name in held else ""))
        return sorted(kind_of[n] for n in cards)

    def advance(self, seconds: float) -> None:
        """Let the agents move (and make the person's forced moves) until the person decides, the end, or
        ``seconds`` have passed after at least one agent move (then the game is :attr:`waiting`)."""
        deadline = time.monotonic() + seconds
        moved = False
        while not self.over:
            st = self.state
            actor = int(current_player(st)[0])
            legal = np.flatnonzero(st.legal[0])
            if actor == self.human:
                if legal.size != 1:
                    return
                self._apply(actor, int(legal[0]), note=" (your only move)")
                continue
            if moved and time.monotonic() > deadline:
                return
            obs = observe(self.rules, st, actor)
            try:
                a = int(self.bots[actor].act(obs, st.legal, self.rngs[actor])[0])
            except ValueError as e:   # an agent that cannot choose (a broken network): the game stays as it is
                raise GameError(f"{self.who(actor)} cannot move: {e}; start a new game with another agent") from None
            if not 0 <= a < st.legal.shape[1] or not st.legal[0, a]:
                raise GameError(f"{self.who(actor)} chose the illegal action {a}; start a new game with another agent")
            self._apply(actor, a)
            moved = True

    def _apply(self, actor: int, action: int, note: str = "") -> None:
        rules, st = self.rules, self.state
        before = st.copy()
        step_prompt = prompt(rules, st)
        before_finish = st.finish[0].copy()
        before_rev, before_dir = bool(st.revolution[0]), int(st.direction[0])
        my_seat = seat_of(st, self.human)
        before_mine = st.hands[0, my_seat].copy()
        finished = self.recorder.step(np.array([action]))
        t = tables(rules)
        if finished:
            cards = finished[0]["decisions"][-1]["cards"]
        else:
            cards = [t.card_names[c] for c in np.flatnonzero(st.moved[0])]
        if poker_quiet(rules, before, action, cards) and not finished:
            return  # a claim or a pick before the last: the play is shown once, when it is made
        words = decision_words(rules, before, action, cards)
        self.last.heard(rules, before, st, actor, action, words, cards)
        # Everyone sees a play's cards; a give-back or a merchant's pick only its maker (and its receiver, below).
        shown = cards if (step_prompt in ("play", "claim") or actor == self.human) else None
        self.log.append(f"{self.who(actor)}: {words}" + (f" ({' '.join(shown)})" if shown else "") + note)
        if finished:
            self._hand_over(finished[0])
            return
        if step_prompt not in ("play", "claim"):
            got = st.hands[0, my_seat] & ~before_mine
            if got.any():
                self.log.append(f"you receive {' '.join(t.card_names[c] for c in np.flatnonzero(got))}")
            if int(st.phase[0]) == PLAY:
                self.log.append("exchange done")
            return
        self.top = next_top(rules, st, cards, self.top)
        for s in np.flatnonzero((before_finish < 0) & (st.finish[0] >= 0)):
            self.log.append(f"{self.who(int(st.seat_player[0, s]))} finished: place {int(st.finish[0, s]) + 1}")
        if bool(st.revolution[0]) != before_rev:
            self.log.append("revolution: the rank order is reversed" if st.revolution[0]
                            else "counter-revolution: the rank order is back to normal")
        if int(st.direction[0]) != before_dir:
            self.log.append("the direction of play is reversed")
        if int(st.top_owner[0]) < 0 and int(st.phase[0]) == PLAY:
            leader = int(current_player(st)[0])
            self.log.append(f"trick over; {self.who(leader)} {'lead' if leader == self.human else 'leads'}")

    def _hand_over(self, rec: dict[str, Any]) -> None:
        st, P = self.state, self.rules.players
        self.records.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
        self.top = None
        self.log.append(f"hand {rec['hand']} over: " + ", ".join(
            f"{i + 1}. {self.who(p)} ({rank_name(i, P)}) {rec['points'][p]:+d}"
            for i, p in enumerate(rec["finish_order"])))
        if len(self.records) >= self.max_hands and int(st.phase[0]) != OVER:
            self.stopped = True
            self.log.append(f"the session stops here: this server plays at most {self.max_hands} hands a session")
        if self.over:
            self.log.append("session over. points: " + ", ".join(
                f"{self.who(p)} {int(st.points[0, p])}" for p in range(P)) + f". The seed was {self.seed}.")
        else:
            self._hand_start()

    def _hand_start(self) -> None:
        st, P = self.state, self.rules.players
        self.last.new_hand()
        self.log.append(f"hand {int(st.hand_no[0])}: {self.who(int(current_player(st)[0]))} to "
                        + ("lead" if int(st.phase[0]) == PLAY else "give back first"))
        ranks = [f"{self.who(int(st.seat_player[0, s]))} {rank_name(int(st.social[0, s]), P)}"
                 for s in range(P) if st.social[0, s] >= 0]
        if ranks:
            self.log.append("ranks: " + ", ".join(ranks))
        if (st.exposed[0] >= 0).any():
            names = tables(self.rules).card_names
            self.log.append("exposed cards (the piles went by them): " + ", ".join(
                f"{self.who(int(st.seat_player[0, s]))} {names[int(st.exposed[0, s])]}" for s in range(P)))
        header = self.recorder.current_header(0)
        for g in header["exchanges"] if header else []:
            show = self.human in (g["from"], g["to"])
            gives = "give" if g["from"] == self.human else "gives"
            self.log.append(f"exchange: {self.who(g['from'])} {gives} {len(g['cards'])} best card(s)"
                            + (f" ({' '.join(g['cards'])})" if show else "") + f" to {self.who(g['to'])}")


@dataclass
class _Live:
    game: PlaySession
    client: str
    used: float


class GameStore:
    """The sessions of this server by token, within :class:`~president_web.limits.Limits` (see the module doc)."""

    def __init__(self, limits: Limits | None = None, shelf: AgentShelf | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits or Limits()
        self.shelf = shelf or AgentShelf()
        self.clock = clock
        self._games: OrderedDict[str, _Live] = OrderedDict()   # least recently used first
        self.lock = threading.Lock()                             # the table of games only: never held while playing

    def __len__(self) -> int:
        return len(self._games)

    def new(self, settings: GameSettings, client: str = "") -> tuple[str, PlaySession]:
        """Start a session for ``client``; :class:`ServerFull` when there is no room (checked before and after
        the agents' first moves)."""
        with self.lock:
            self._make_room(client, dry_run=True)
        game = PlaySession(settings, self.shelf, self.limits.max_hands, self.limits.agent_seconds)
        token = secrets.token_urlsafe(24)
        with self.lock:
            self._make_room(client)
            self._games[token] = _Live(game, client, self.clock())
        return token, game

    def _make_room(self, client: str, dry_run: bool = False) -> None:
        lim = self.limits
        mine = [t for t, g in self._games.items() if g.client == client]
        if len(mine) >= lim.games_per_client:
            if not dry_run:
                del self._games[mine[0]]                 # the client's own least recently used game
            return
        if len(self._games) < lim.max_games:
            return
        now = self.clock()
        idle = next((t for t, g in self._games.items() if now - g.used > lim.idle_seconds), None)
        if idle is None:
            raise ServerFull(f"the server holds {lim.max_games} live games, its limit, and none has been idle for "
                             f"{lim.idle_seconds / 60:g} minutes; try again later")
        if not dry_run:
            del self._games[idle]

    def get(self, token: str | None) -> PlaySession:
        """The game of ``token``; :class:`NotFound` when there is none."""
        if not token:
            raise NotFound("no game token: start a game first")
        with self.lock:
            live = self._games.get(token)
            if live is not None:
                live.used = self.clock()
                self._games.move_to_end(token)
        if live is None:
            raise NotFound("no game with this token (it may have ended with a restart of the server, or made room "
                           "for a newer game of yours)")
        return live.game

    @contextlib.contextmanager
    def using(self, game: PlaySession) -> Iterator[PlaySession]:
        """Hold ``game``'s own lock for a request (:class:`GameConflict` if another request keeps it too long)."""
        if not game.lock.acquire(timeout=self.limits.lock_seconds):
            raise GameConflict("another request is using this game; try again")
        try:
            yield game
        finally:
            game.lock.release()
