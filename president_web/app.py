"""The web app: a FastAPI server with a plain HTML, CSS and JavaScript page (no build step).

==========================================  ====================================================
endpoint                                    what it does
==========================================  ====================================================
``GET /``                                   the page (Watch and Play); ``/favicon.ico`` its icon
``GET /api/meta``                           presets (players, source), agent names, the zoo, the agent
                                            files of ``--agents-dir`` by name (``files``)
``GET /api/records``                        the records file given on the command line, if any
``POST /api/records?name=F``                upload a records file (the JSON-lines text as the body,
                                            ``application/x-ndjson``); answers its id (known only
                                            to the uploader) and hands
``GET /api/records/{id}``                   the hands of a records file
``GET /api/records/{id}/{i}?viewer=V``      hand ``i`` as frames, every hand shown or player V's view, a
                                            page at a time (``&start=F``: from frame F; the answer's
                                            ``next`` is the next page's ``start``, ``total`` the frames)
``POST /api/game``                          start a session: ``{"preset", "players", "seat",
                                            "opponents", "seed", "hands", "random_ranks", "options"}``;
                                            answers ``{"token", "view"}``
``GET /api/game``                           the session of the token in header ``X-Game-Token`` (its
                                            agents go on if they ran out of time: ``"waiting"``)
``POST /api/game/action``                   the person's move: ``{"decision": n, "action": id}`` or
                                            ``{"decision": n, "cards": [...]}`` (poker: also
                                            ``"claim"``, an id or words, when the cards make several
                                            claims); ``n`` is the view's ``decision``
``POST /api/game/claims``                   poker: the plays ``{"cards": [...]}`` can make now,
                                            strongest first (the page's Play button and claim list)
``GET /api/game/records``                   the finished hands as a records file (JSON lines)
==========================================  ====================================================

Every refusal is an HTTP error whose JSON body ``{"error": ...}`` says what was wrong; a
refused move changes nothing. The token (192 random bits) is the only key to a game.
What the server refuses before a request reaches these endpoints (its Host, another
site's origin, a body that is not JSON or too large) is :mod:`.guard`'s; what it holds
in memory is bounded by :class:`~president_web.limits.Limits`; the agents a request may
name are :mod:`.agents`'.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from agents.registry import SCRIPTED
from agents.zoo import zoo_names
from president_env.core import PRESETS, preset
from president_env.core.rules import PRESET_TABLE

from .agents import AgentShelf
from .games import MAX_SEED, GameConflict, GameError, GameSettings, GameStore, PlaySession, ServerFull
from .guard import Guard
from .limits import Limits
from .views import NotFound
from .watch import MAX_NAME, RecordsError, RecordSet, RecordStore, UploadsFull

STATIC = Path(__file__).resolve().parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")   # the names of a server on this machine only
UPLOAD_PATH = "/api/records"


class GameRequest(BaseModel):
    """The Play form."""

    model_config = ConfigDict(extra="forbid", strict=True)
    preset: str = Field(default="president", max_length=100)
    players: int | None = Field(default=None, ge=1, le=64)
    seat: int = Field(default=0, ge=0, le=63)
    opponents: list[str] = Field(default_factory=lambda: ["heuristic"], min_length=1, max_length=63)
    seed: int | Annotated[str, Field(max_length=20)] | None = None   # a string: decimal digits (a page's
    #                                                                      numbers stop at 2**53)
    hands: int | None = Field(default=None, ge=1)
    random_ranks: bool = False
    options: dict[str, Any] = Field(default_factory=dict, max_length=100)


def _seed(value: int | str | None) -> int | None:
    """The request's seed as a number: 0..MAX_SEED, given as an integer or its decimal digits."""
    if isinstance(value, str):
        if not value.isascii() or not value.isdigit():
            raise GameError(f"seed must be an integer 0..{MAX_SEED} (or its decimal digits), got {value[:30]!r}")
        value = int(value)
    if value is not None and not 0 <= value <= MAX_SEED:
        raise GameError(f"seed must be 0..{MAX_SEED}, got {value}")
    return value


class ActionRequest(BaseModel):
    """A move: the decision it answers (the view's ``decision``), and an action id or the cards it plays (or gives
    back); in poker the claim the cards make."""

    model_config = ConfigDict(extra="forbid", strict=True)
    decision: int = Field(ge=0, le=10**9)
    action: int | None = Field(default=None, ge=0, le=2**16)
    cards: list[str] | None = Field(default=None, max_length=200)
    claim: int | str | None = None


class ClaimsRequest(BaseModel):
    """Poker: the cards of a play to be, selected on the page."""

    model_config = ConfigDict(extra="forbid", strict=True)
    cards: list[str] = Field(max_length=200)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def client_of(request: Request) -> str:
    """Who sent a request, for the per-client limits: its address."""
    return request.client.host if request.client else "unknown"


def create_app(records: RecordSet | None = None, *, limits: Limits | None = None, agents_dirs: Sequence[str] = (),
               allowed_hosts: Sequence[str] = LOCAL_HOSTS) -> FastAPI:
    """The app; ``records`` (a parsed records file) is listed for every visitor under the id ``cli``.

    ``limits`` bound what it holds (:class:`~president_web.limits.Limits`); ``agents_dirs`` are the folders whose
    agent files requests may name (``ppo:NAME``); ``allowed_hosts`` the names it answers to (the Host header)."""
    limits = limits or Limits()
    app = FastAPI(title="President", docs_url=None, redoc_url=None, openapi_url=None)
    shelf = AgentShelf(agents_dirs)
    games = GameStore(limits, shelf)
    sets = RecordStore(limits)
    if records is not None:
        sets.add(records, "cli")
    app.state.games, app.state.records, app.state.limits = games, sets, limits
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, body_bytes=limits.body_bytes,
                       upload_bytes=limits.upload_bytes, upload_path=UPLOAD_PATH, in_flight=limits.requests_per_client,
                       busy_bytes=limits.busy_bytes, request_bytes=limits.request_bytes,
                       upload_factor=limits.upload_factor)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> JSONResponse:
        return _error(404, str(exc.args[0]))

    @app.exception_handler(GameError)
    @app.exception_handler(RecordsError)
    async def refused(request: Request, exc: ValueError) -> JSONResponse:
        status = 409 if isinstance(exc, GameConflict) else 503 if isinstance(exc, ServerFull) else \
            413 if isinstance(exc, UploadsFull) else 400
        return _error(status, str(exc))  # a refused move or file changes nothing

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where or 'request'}: {err.get('msg', 'invalid')}")
        return _error(400, "; ".join(parts))

    @app.get("/")
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:   # browsers ask for it before they read the page's icon link
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/meta")
    def meta() -> dict[str, Any]:
        return {
            "presets": [{"name": n, "players": preset(n).players, "from": PRESET_TABLE[n][0]} for n in PRESETS],
            "agents": list(SCRIPTED),
            "zoo": zoo_names(),
            "files": shelf.names(),
        }

    _watch_routes(app, sets)
    _play_routes(app, games)
    return app


def _watch_routes(app: FastAPI, sets: RecordStore) -> None:
    """The Watch endpoints: records files and their hands as frames."""

    @app.get("/api/records")
    def record_sets() -> dict[str, Any]:
        return {"sets": sets.listing()}

    @app.post(UPLOAD_PATH)
    async def upload(request: Request, name: str = "upload.jsonl") -> JSONResponse:
        if len(name) > MAX_NAME:
            return _error(400, f"name: at most {MAX_NAME} characters")
        body = await request.body()   # at most Limits.upload_bytes: the guard has read it
        parsed = await run_in_threadpool(RecordSet.parse, name, body)
        set_id = sets.add(parsed, client=client_of(request))
        return JSONResponse({"id": set_id, "name": parsed.name, "hands": parsed.summaries()})

    @app.get("/api/records/{set_id}")
    def record_set(set_id: str) -> JSONResponse:
        found = sets.get(set_id)
        return JSONResponse({"id": set_id, "name": found.name, "hands": found.summaries()})

    @app.get("/api/records/{set_id}/{index}")
    def hand_frames(set_id: str, index: int, viewer: str = "all", start: int = 0) -> JSONResponse:
        found = sets.get(set_id)
        if viewer == "all":
            who = None
        else:
            try:
                who = int(viewer)
            except ValueError:
                return _error(400, f"viewer must be 'all' or a player number, got {viewer!r}")
        return JSONResponse(found.frames(index, who, start, sets.limits.frames_per_answer))


def _play_routes(app: FastAPI, games: GameStore) -> None:
    """The Play endpoints: a session by token (header ``X-Game-Token``), each request holding only its own game."""
    seconds = games.limits.agent_seconds

    def game_of(x_game_token: str | None = Header(default=None)) -> PlaySession:
        return games.get(x_game_token)

    @app.post("/api/game")
    def new_game(req: GameRequest, request: Request) -> JSONResponse:
        if req.hands is not None and req.hands > games.limits.max_hands:
            raise GameError(f"hands must be 1..{games.limits.max_hands} on this server, got {req.hands}")
        settings = GameSettings(preset=req.preset, players=req.players, seat=req.seat,
                                opponents=tuple(req.opponents), seed=_seed(req.seed), hands=req.hands,
                                random_ranks=req.random_ranks, options=req.options)
        token, game = games.new(settings, client_of(request))
        with games.using(game):
            return JSONResponse({"token": token, "view": game.view()})

    @app.get("/api/game")
    def get_game(game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.using(game):
            if game.waiting:
                game.advance(seconds)
            return JSONResponse(game.view())

    @app.post("/api/game/action")
    def act(req: ActionRequest, game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.using(game):
            game.act(action=req.action, cards=req.cards, claim=req.claim, decision=req.decision,
                     agent_seconds=seconds)
            return JSONResponse(game.view())

    @app.post("/api/game/claims")
    def claims(req: ClaimsRequest, game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.using(game):
            plays = game.poker_plays(req.cards)
        return JSONResponse({"cards": req.cards, "claims": [
            {"id": p["id"], "words": p["words"], "play": p["play"]} for p in plays]})

    @app.get("/api/game/records")
    def game_records(game: PlaySession = Depends(game_of)) -> PlainTextResponse:
        with games.using(game):
            if not game.over:   # a record holds the session's key, which deals the hands still to come
                raise GameConflict("the records come when the session is over (they hold the key that deals "
                                   "the hands still to come)")
            text = "".join(line + "\n" for line in game.records)
        return PlainTextResponse(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="president-{game.rules.name}-seed{game.seed}.jsonl"'})
