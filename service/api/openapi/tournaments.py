"""What the bot and tournament routes (service/api/http/bots.py, tournaments.py) share in openapi.yaml; their
bodies are the marshmallow schemas of service/api/schemas/tournaments.py."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .operations import Body, View, documented
from .shapes import malformed, ok, problem_response, ref, unauthorized

BAD = malformed()
NO_REDIS = problem_response("store_unavailable: Redis is down or slow (try again); tournaments_need_redis: this "
                            "instance keeps sessions in its memory (no REDIS_URL), and hosted tournaments need Redis.")
NO_TOURNAMENT = problem_response("tournament_not_found: no such tournament.")
STREAM_ID = {"type": "string", "pattern": "^([0-9]{1,20}-[0-9]{1,20})?$"}
STREAM_PARAMETERS = (
    {"name": "Last-Event-ID", "in": "header", "required": False,
     "description": "The id of the last event received: the stream goes on after it.", "schema": STREAM_ID},
    {"name": "after", "in": "query", "required": False,
     "description": "The same as Last-Event-ID, for a client that cannot set headers.", "schema": STREAM_ID})
STANDINGS_FORMAT = {"name": "format", "in": "query", "required": False,
                    "schema": {"type": "string", "enum": ["json", "csv", "md"]}}
TOURNAMENT_EXAMPLE = {"description": {"name": "club night", "format": "swiss", "rounds": 3, "seed": "c0ffee",
                                      "games": [{"game": "femkort", "players": 2, "boards": 1,
                                                 "clock": {"move_ms": 10000, "policy": "forfeit"}}],
                                      "absent": {"grace_s": 30, "then": "forfeit"}, "start": None},
                      "registration": {"until": "2030-01-31T19:00:00Z"}}

BOT_EVENTS = """The bot's events, each `event: <name>`, `id: <stream id>` and one line of JSON `data`:

- `match_started`: `{"tournament", "match", "round", "game", "session", "seat", "token", "clock", "url"}`: play
  seat `seat` of session `session` through the session API with `token` (its seat token). Its clock starts
  only once this announcement is written. Announcements are at least once: deduplicate by `match`.
- `match_ended`: `{"tournament", "match", "session", "result"}`.
- `tournament_finished`: `{"tournament"}`.

Holding this stream is the bot's "connected": a comment (`: keep-alive`) comes every BOT_HEARTBEAT seconds,
and the bot counts as connected until three heartbeats have passed without its stream. Without
`Last-Event-ID` (or `after`) the stream starts from its oldest kept event; it closes after EVENTS_MAX seconds
(reconnect with `Last-Event-ID`)."""

TOURNAMENT_EVENTS = """The tournament's events, each `event: <name>`, `id: <stream id>` and one line of JSON `data`:
`round_started`, `preflight` (which entries' bots were absent and what the absent policy did), `match_started`,
`match_ended`, `standings_changed`, `entry_withdrawn`, `paused`, `resumed`, `cancelled`, `tournament_finished`.
Comments are heartbeats. Without `Last-Event-ID` (or `after`) the stream starts from its oldest kept event."""


def no_token(which: str) -> dict[str, Any]:
    return unauthorized(f"unauthorized: {which} is missing, malformed or unknown.")


def organiser_action(operation_id: str, summary: str, refusals: str,
                     withdrawal: bool = False) -> Callable[[View], View]:
    """An organiser's action on a tournament: the organiser token, the status after it; 409 with the
    ``refusals`` said. A ``withdrawal`` names the bot it withdraws."""
    responses = {"200": ok(ref("TournamentStatus"), "Done; the tournament's status now."),
                 "401": no_token("the organiser token"),
                 "403": problem_response("forbidden: the token is not this tournament's organiser's."),
                 "404": NO_TOURNAMENT, "409": problem_response(refusals), "503": NO_REDIS}
    return documented(operation_id, summary, bearer=True,
                      description="Authorization: Bearer <the organiser token from POST /v1/tournaments>.",
                      body=Body("Withdrawal", {"bot": "<bot id>"}) if withdrawal else None,
                      responses={**responses, "400": BAD} if withdrawal else responses)
