"""Every limit of the web server, in one place (docs/web.md lists them; tests/test_web_security.py checks each).

The server holds in memory only what these bound: the live games (each at most
``max_hands`` hands of records), the uploaded records files (their bytes, not parsed),
and the requests in progress (their bodies and the answers being built, ``busy_bytes``
together; a Watch answer is a page of ``frames_per_answer`` frames). A limit reached is a refusal with a status
and a message, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one server holds and takes (``create_app(limits=...)``)."""

    max_games: int = 256              # live games in the server (503 when every one is in use)
    games_per_client: int = 16        # a client's own live games: its least recently used goes for a new one
    idle_seconds: float = 3600.0      # a game or upload untouched this long may be dropped to make room for another
    agent_seconds: float = 5.0        # agents' moves per request; past it the answer says "waiting" and the next
    #                                   request (GET /api/game) lets them go on
    max_hands: int = 100              # hands of one session (the session stops there)
    body_bytes: int = 64 * 1024       # a JSON request body
    upload_bytes: int = 16 * MIB      # one uploaded records file
    uploads_bytes: int = 64 * MIB     # every upload held, together
    uploads_per_client_bytes: int = 32 * MIB   # one client's uploads: its least recently used go first
    lock_seconds: float = 10.0        # a request waits this long for a game another request is using (then 409)
    requests_per_client: int = 8      # requests of one client (address) in progress at once (then 429)
    busy_bytes: int = 128 * MIB       # the memory of every request in progress together (then 503, Retry-After):
    #                                   an upload counts upload_factor times its body, any other request_bytes
    request_bytes: int = 2 * MIB      # a request other than an upload: its body (64 KB at most) and its answer
    upload_factor: int = 4            # an upload's body, its copy and its parsed lines: about 3.5 times its bytes
    frames_per_answer: int = 50       # Watch: a hand's frames come a page of this many at a time (a frame of
    #                                   8 players and 108 cards is about 12 KB of JSON)

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not value > 0:
                raise ValueError(f"limit {name} must be positive, got {value!r}")
        if self.games_per_client > self.max_games:
            raise ValueError("games_per_client cannot exceed max_games")
        if self.upload_bytes * self.upload_factor > self.busy_bytes or self.request_bytes > self.busy_bytes:
            raise ValueError("limits must let one request in: upload_bytes * upload_factor and request_bytes "
                             "at most busy_bytes")
        if self.upload_bytes > self.uploads_per_client_bytes or self.uploads_per_client_bytes > self.uploads_bytes:
            raise ValueError("limits must satisfy upload_bytes <= uploads_per_client_bytes <= uploads_bytes")
