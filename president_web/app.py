"""The web app: a FastAPI server with a plain HTML, CSS and JavaScript page (no build step).

==========================================  ====================================================
endpoint                                    what it does
==========================================  ====================================================
``GET /``                                   the page (Watch and Play); ``/favicon.ico`` its icon
``GET /api/meta``                           presets (players, source), agent names, the zoo
``GET /api/records``                        the records file given on the command line, if any
``POST /api/records?name=F``                upload a records file (the JSON-lines text as the body);
                                            answers its id (known only to the uploader) and hands
``GET /api/records/{id}``                   the hands of a records file
``GET /api/records/{id}/{i}?viewer=V``      hand ``i`` as frames, every hand shown or player V's view
``POST /api/game``                          start a session: ``{"preset", "players", "seat",
                                            "opponents", "seed", "hands", "random_ranks", "options"}``;
                                            answers ``{"token", "view"}``
``GET /api/game``                           the session of the token in header ``X-Game-Token``
``POST /api/game/action``                   the person's move: ``{"action": id}`` or ``{"cards": [...]}``
                                            (poker: also ``"claim"``, an id or words, when the cards
                                            make several claims)
``POST /api/game/claims``                   poker: the plays ``{"cards": [...]}`` can make now,
                                            strongest first (the page's Play button and claim list)
``GET /api/game/records``                   the finished hands as a records file (JSON lines)
==========================================  ====================================================

Every refusal is an HTTP error whose JSON body ``{"error": ...}`` says what was wrong; a
refused move changes nothing. The token (192 random bits) is the only key to a game.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from agents.registry import SCRIPTED
from agents.zoo import zoo_names
from president_env.core import PRESETS, preset
from president_env.core.records import write_records
from president_env.core.rules import PRESET_TABLE

from .games import GameError, GameSettings, GameStore, PlaySession
from .views import NotFound
from .watch import MAX_RECORDS_BYTES, RecordsError, RecordSet, RecordStore

STATIC = Path(__file__).resolve().parent / "static"


class GameRequest(BaseModel):
    """The Play form."""

    model_config = ConfigDict(extra="forbid", strict=True)
    preset: str = "president"
    players: int | None = None
    seat: int = 0
    opponents: list[str] = Field(default_factory=lambda: ["heuristic"])
    seed: int | None = None
    hands: int | None = Field(default=None, ge=1)
    random_ranks: bool = False
    options: dict[str, Any] = Field(default_factory=dict)


class ActionRequest(BaseModel):
    """A move: an action id, or the cards it plays (or gives back); in poker the claim the cards make."""

    model_config = ConfigDict(extra="forbid", strict=True)
    action: int | None = None
    cards: list[str] | None = None
    claim: int | str | None = None


class ClaimsRequest(BaseModel):
    """Poker: the cards of a play to be, selected on the page."""

    model_config = ConfigDict(extra="forbid", strict=True)
    cards: list[str]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(records: RecordSet | None = None, max_games: int = 64) -> FastAPI:
    """The app; ``records`` (a parsed records file) is listed for every visitor under the id ``cli``."""
    app = FastAPI(title="President", docs_url=None, redoc_url=None)
    games = GameStore(limit=max_games)
    sets = RecordStore()
    if records is not None:
        sets.add(records, "cli")
    app.state.games, app.state.records = games, sets
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> JSONResponse:
        return _error(404, str(exc.args[0]))

    @app.exception_handler(GameError)
    @app.exception_handler(RecordsError)
    async def refused(request: Request, exc: ValueError) -> JSONResponse:
        return _error(400, str(exc))  # a refused move or file changes nothing

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
        }

    _watch_routes(app, sets)
    _play_routes(app, games)
    return app


def _watch_routes(app: FastAPI, sets: RecordStore) -> None:
    """The Watch endpoints: records files and their hands as frames."""

    @app.get("/api/records")
    def record_sets() -> dict[str, Any]:
        return {"sets": sets.listing()}

    @app.post("/api/records")
    async def upload(request: Request, name: str = "upload.jsonl") -> JSONResponse:
        body = await request.body()
        if len(body) > MAX_RECORDS_BYTES:
            return _error(413, f"{name}: larger than {MAX_RECORDS_BYTES // 2**20} MB")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return _error(400, f"{name}: not UTF-8 text (a records file is JSON lines)")
        parsed = RecordSet.parse(name, text)
        set_id = sets.add(parsed)
        return JSONResponse({"id": set_id, "name": parsed.name, "hands": parsed.summaries()})

    @app.get("/api/records/{set_id}")
    def record_set(set_id: str) -> JSONResponse:
        found = sets.get(set_id)
        return JSONResponse({"id": set_id, "name": found.name, "hands": found.summaries()})

    @app.get("/api/records/{set_id}/{index}")
    def hand_frames(set_id: str, index: int, viewer: str = "all") -> JSONResponse:
        found = sets.get(set_id)
        if viewer == "all":
            who = None
        else:
            try:
                who = int(viewer)
            except ValueError:
                return _error(400, f"viewer must be 'all' or a player number, got {viewer!r}")
        return JSONResponse(found.frames(index, who))


def _play_routes(app: FastAPI, games: GameStore) -> None:
    """The Play endpoints: a session by token (header ``X-Game-Token``)."""

    def game_of(x_game_token: str | None = Header(default=None)) -> PlaySession:
        return games.get(x_game_token)

    @app.post("/api/game")
    def new_game(req: GameRequest) -> JSONResponse:
        settings = GameSettings(preset=req.preset, players=req.players, seat=req.seat,
                                opponents=tuple(req.opponents), seed=req.seed, hands=req.hands,
                                random_ranks=req.random_ranks, options=req.options)
        token, game = games.new(settings)
        return JSONResponse({"token": token, "view": game.view()})

    @app.get("/api/game")
    def get_game(game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.lock:
            return JSONResponse(game.view())

    @app.post("/api/game/action")
    def act(req: ActionRequest, game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.lock:
            game.act(action=req.action, cards=req.cards, claim=req.claim)
            return JSONResponse(game.view())

    @app.post("/api/game/claims")
    def claims(req: ClaimsRequest, game: PlaySession = Depends(game_of)) -> JSONResponse:
        with games.lock:
            plays = game.poker_plays(req.cards)
        return JSONResponse({"cards": req.cards, "claims": [
            {"id": p["id"], "words": p["words"], "play": p["play"]} for p in plays]})

    @app.get("/api/game/records")
    def game_records(game: PlaySession = Depends(game_of)) -> PlainTextResponse:
        buf = io.StringIO()
        with games.lock:
            write_records(buf, game.records)
        return PlainTextResponse(buf.getvalue(), media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="president-{game.rules.name}-seed{game.seed}.jsonl"'})
