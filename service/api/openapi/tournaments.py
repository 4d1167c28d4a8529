"""The OpenAPI description of the bot and tournament endpoints (merged by service/api/openapi/spec.py); their bodies
are the marshmallow schemas of service/api/schemas/tournaments.py."""
from __future__ import annotations

from typing import Any

from .spec import JSON, game_param, html_page, json_body, ok, problem_response, ref
from .sessions import BEARER

BAD = problem_response("invalid_request: the body, a query parameter or a header is malformed.")
NO_REDIS = problem_response("store_unavailable: Redis is down or slow (try again); tournaments_need_redis: this "
                            "instance keeps sessions in its memory (no REDIS_URL), and hosted tournaments need Redis.")
NO_TOURNAMENT = problem_response("tournament_not_found: no such tournament.")

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


def tid_param() -> dict[str, Any]:
    return {"name": "id", "in": "path", "required": True, "description": "The tournament id.",
            "schema": {"type": "string"}}


def stream_params() -> list[dict[str, Any]]:
    pattern = "^([0-9]{1,20}-[0-9]{1,20})?$"
    return [{"name": "Last-Event-ID", "in": "header", "required": False,
             "description": "The id of the last event received: the stream goes on after it.",
             "schema": {"type": "string", "pattern": pattern}},
            {"name": "after", "in": "query", "required": False,
             "description": "The same as Last-Event-ID, for a client that cannot set headers.",
             "schema": {"type": "string", "pattern": pattern}}]


def event_stream(description: str) -> dict[str, Any]:
    return {"description": description, "headers": {"Cache-Control": {"schema": {"type": "string",
                                                                                 "enum": ["no-store"]}}},
            "content": {"text/event-stream": {"schema": {"type": "string"}}}}


def unauthorized(which: str) -> dict[str, Any]:
    out = problem_response(f"unauthorized: {which} is missing, malformed or unknown.")
    out["headers"] = {"WWW-Authenticate": {"required": True, "schema": {"type": "string"}}}
    return out


def organiser_action(operation_id: str, summary: str, refusals: str, body: bool = False) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": operation_id, "summary": summary, "security": [{BEARER: []}],
        "description": "Authorization: Bearer <the organiser token from POST /v1/tournaments>.",
        "parameters": [tid_param()],
        "responses": {"200": ok(ref("TournamentStatus"), "Done; the tournament's status now."),
                      "401": unauthorized("the organiser token"),
                      "403": problem_response("forbidden: the token is not this tournament's organiser's."),
                      "404": NO_TOURNAMENT, "409": problem_response(refusals), "503": NO_REDIS}}
    if body:
        op["requestBody"] = json_body(ref("Withdrawal"), {"bot": "<bot id>"})
        op["responses"]["400"] = BAD
    return {"post": op}


def bot_paths() -> dict[str, Any]:
    created = ok(ref("BotCreated"), "The bot, with its token (shown only now).")
    created["headers"] = {"Location": {"required": True, "schema": {"type": "string"}}}
    return {
        "/v1/bots": {"post": {
            "operationId": "createBot", "summary": "Register a bot for hosted tournaments.",
            "requestBody": json_body(ref("BotCreate"), {"name": "greedy-1", "owner": "ada@example.org"}),
            "responses": {"201": created, "400": BAD,
                          "409": problem_response("bot_name_taken: another bot has that name."), "503": NO_REDIS}}},
        "/v1/bots/{id}": {"get": {
            "operationId": "getBot", "summary": "A bot: whether it is connected, and its ratings per game.",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": ok(ref("Bot")), "404": problem_response("bot_not_found: no such bot."),
                          "503": NO_REDIS}}},
        "/v1/bots/me/events": {"get": {
            "operationId": "botEvents", "summary": "The bot's event stream: the matches it is to play.",
            "description": BOT_EVENTS, "security": [{BEARER: []}], "parameters": stream_params(),
            "responses": {"200": event_stream("The bot's events."), "400": BAD,
                          "401": unauthorized("the bot token"), "503": NO_REDIS}}},
        "/v1/games/{game}/ladder": {"get": {
            "operationId": "gameLadder", "summary": "Every rated bot of a game, best first (by ordinal).",
            "parameters": [game_param()],
            "responses": {"200": ok(ref("Ladder")), "404": problem_response("unknown_game: no such game."),
                          "503": NO_REDIS}}},
    }


def tournament_paths() -> dict[str, Any]:
    created = ok(ref("TournamentCreated"), "The tournament, with its organiser token (shown only now).")
    created["headers"] = {"Location": {"required": True, "schema": {"type": "string"}}}
    example = {"description": {"name": "club night", "format": "swiss", "rounds": 3, "seed": "c0ffee",
                               "games": [{"game": "femkort", "players": 2, "boards": 1,
                                          "clock": {"move_ms": 10000, "policy": "forfeit"}}],
                               "absent": {"grace_s": 30, "then": "forfeit"}, "start": None},
               "registration": {"until": "2030-01-31T19:00:00Z"}}
    standings = {"description": "The standings so far: JSON, or the local runner's results.csv / results.md.",
                 "content": {JSON: {"schema": ref("Standings")}, "text/csv": {"schema": {"type": "string"}},
                             "text/markdown": {"schema": {"type": "string"}}}}
    return {
        "/v1/tournaments": {"post": {
            "operationId": "createTournament", "summary": "Create a hosted tournament: the service pairs, plays, "
                                                          "ranks and publishes.",
            "requestBody": json_body(ref("TournamentCreate"), example),
            "responses": {"201": created, "400": BAD,
                          "422": problem_response("invalid_description (the message says what is wrong), "
                                                  "unknown_bot (an entry is not a bot's id)."),
                          "503": NO_REDIS}}},
        "/v1/tournaments/{id}": {"get": {
            "operationId": "getTournament", "summary": "Status, entries, rounds with their sessions, standings, "
                                                       "progress and incidents.",
            "parameters": [tid_param()],
            "responses": {"200": ok(ref("TournamentView")), "404": NO_TOURNAMENT, "503": NO_REDIS}}},
        "/v1/tournaments/{id}/standings": {"get": {
            "operationId": "tournamentStandings", "summary": "The standings as JSON, CSV or Markdown (by Accept, "
                                                             "or ?format=).",
            "parameters": [tid_param(), {"name": "format", "in": "query", "required": False,
                                         "schema": {"type": "string", "enum": ["json", "csv", "md"]}}],
            "responses": {"200": standings, "400": BAD, "404": NO_TOURNAMENT, "503": NO_REDIS}}},
        "/v1/tournaments/{id}/events": {"get": {
            "operationId": "tournamentEvents", "summary": "The tournament's event stream.",
            "description": TOURNAMENT_EVENTS, "parameters": [tid_param(), *stream_params()],
            "responses": {"200": event_stream("The tournament's events."), "400": BAD, "404": NO_TOURNAMENT,
                          "503": NO_REDIS}}},
        "/v1/tournaments/{id}/records": {"get": {
            "operationId": "tournamentRecords", "summary": "The archive: description, pairings, every match's "
                                                           "record, the published standings and the ratings.",
            "parameters": [tid_param()],
            "responses": {"200": ok(ref("Archive")), "404": NO_TOURNAMENT, "503": NO_REDIS}}},
        "/v1/tournaments/{id}/entries": {"post": {
            "operationId": "enterTournament", "summary": "Enter the bot whose token this is, while registration "
                                                         "is open.",
            "security": [{BEARER: []}], "parameters": [tid_param()],
            "responses": {"201": ok(ref("TournamentStatus"), "Entered (or had entered already)."),
                          "401": unauthorized("the bot token"), "404": NO_TOURNAMENT,
                          "409": problem_response("registration_closed: registration is closed."),
                          "503": NO_REDIS}}},
        "/v1/tournaments/{id}/start": organiser_action(
            "startTournament", "Start now (closing registration).",
            "already_started, too_few_entries, tournament_over."),
        "/v1/tournaments/{id}/pause": organiser_action(
            "pauseTournament", "Pause: no new match starts; the matches in flight finish and are recorded.",
            "not_running, tournament_over."),
        "/v1/tournaments/{id}/resume": organiser_action("resumeTournament", "Resume a paused tournament.",
                                                        "not_paused, tournament_over."),
        "/v1/tournaments/{id}/cancel": organiser_action("cancelTournament", "Cancel: nothing more is played.",
                                                        "tournament_over."),
        "/v1/tournaments/{id}/withdraw": organiser_action(
            "withdrawEntry", "Withdraw an entry: it is paired no more, its matches in flight are conceded for it.",
            "not_an_entry, tournament_over.", body=True),
    }


def page_paths() -> dict[str, Any]:
    return {"/tournaments/{id}": {"get": {
        "operationId": "tournamentPage",
        "summary": "A tournament in a browser: live standings, the current round's tables (each linking to "
                   "/table/{session}), progress and time left, updated from the tournament's event stream.",
        "parameters": [tid_param()],
        "responses": {"200": html_page("The tournament page."),
                      "404": problem_response("not_found: the id is not a tournament id's shape. (A well-formed "
                                              "id's page loads and says when there is no such tournament.)")}}}}


def paths() -> dict[str, Any]:
    return {**bot_paths(), **tournament_paths(), **page_paths()}

