"""The OpenAPI description of the session endpoints and /readyz (merged by service/api/openapi.py)."""
from __future__ import annotations

from typing import Any

from .. import engine
from .errors import RETRY_AFTER
from .openapi import PROBLEM, deal_spec_properties, json_body, nullable, ok, problem_response, ref

BEARER = "bearerAuth"
SID_PATTERN = "^[A-Za-z0-9_-]{16,64}$"


def _problem(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    out = problem_response(description)
    if headers:
        out["headers"] = headers
    return out


def unavailable() -> dict[str, Any]:
    return _problem("store_unavailable: Redis is down or slow. Try again after Retry-After seconds.",
                    {"Retry-After": {"required": True, "description": f"Seconds to wait (currently {RETRY_AFTER}).",
                                     "schema": {"type": "string", "pattern": "^[0-9]+$"}}})


def unauthorized() -> dict[str, Any]:
    return _problem("unauthorized: the token is missing, malformed or not one of this session's.",
                    {"WWW-Authenticate": {"required": True, "schema": {"type": "string"}}})


def not_found() -> dict[str, Any]:
    return problem_response("session_not_found: no such session (a wrong id, or it expired).")


def sid_param() -> dict[str, Any]:
    return {"name": "id", "in": "path", "required": True, "description": "The session id from POST /v1/sessions.",
            "schema": {"type": "string"}}


EVENTS_DESCRIPTION = """Events, each `event: <name>` and one line of JSON `data`:

- `view` (with `id:` the session's version): exactly what `GET /v1/sessions/{id}` answers this seat after
  that move (the `SessionView` schema). The first is the current view, or with `Last-Event-ID` every later
  version in order.
- `gap`: `{"code": "gap", "last_event_id", "version", "detail"}` when the client missed more versions than
  the stream resends (100), or its id is ahead of the session; the current `view` follows.
- `end`: `{"version", "detail"}` after the view of the move that finished the match; the stream closes.
- `gone`: the session expired; `error`: `{"code": "store_unavailable"}`, then the stream closes (reconnect
  with `Last-Event-ID`).

A comment line (`: keep-alive`) comes every EVENTS_HEARTBEAT seconds, and the stream closes after
EVENTS_MAX seconds (reconnect with `Last-Event-ID`). `retry:` asks EventSource to wait 2 s before
reconnecting."""


def schemas() -> dict[str, Any]:
    seat_list = {"type": "array", "items": ref("Seat")}
    return {
        "SessionCreate": {
            "type": "object", "required": ["game"], "additionalProperties": False,
            "properties": {"game": {"type": "string", "enum": sorted(engine.all_games())},
                           **deal_spec_properties(),
                           "clock": nullable(ref("Clock")),
                           "seed": nullable({"type": "string", "pattern": "^[0-9a-fA-F]{32,128}$",
                                             "description": "Hex, 128 bits at least: its SHA-256 is published at "
                                                            "creation (docs/fair-dealing.md). Drawn when absent."})}},
        "Clock": {
            "type": "object", "additionalProperties": False,
            "description": "A time control: a limit per move and/or a bank per match (with an increment added "
                           "after each move made in time), at least one of the two; what happens when a seat's "
                           "time is up is the policy (docs/sessions.md, \"Time controls\").",
            "properties": {
                "move_ms": nullable({"type": "integer", "minimum": 100, "maximum": 86400000}),
                "bank_ms": nullable({"type": "integer", "minimum": 100, "maximum": 86400000}),
                "increment_ms": {"type": "integer", "minimum": 0, "maximum": 86400000, "default": 0},
                "policy": {"type": "string", "enum": ["forfeit", "auto", "penalty"], "default": "forfeit"}}},
        "ClockState": {
            "type": "object", "required": ["policy", "move_ms", "bank_ms", "increment_ms", "server_time_ms", "seats"],
            "properties": {
                "policy": {"type": "string", "enum": ["forfeit", "auto", "penalty"]},
                "move_ms": nullable({"type": "integer"}), "bank_ms": nullable({"type": "integer"}),
                "increment_ms": {"type": "integer"},
                "server_time_ms": {"type": "integer", "description": "The service's clock (epoch ms) when it answered."},
                "seats": {"type": "array", "items": {
                    "type": "object", "required": ["seat", "remaining_ms", "deadline_ms", "running"],
                    "properties": {
                        "seat": ref("Seat"),
                        "remaining_ms": nullable({"type": "integer", "description": "Bank left now (null without a bank)."}),
                        "deadline_ms": nullable({"type": "integer", "description": "Epoch ms when this seat times "
                                                                                   "out, while its clock runs."}),
                        "running": {"type": "boolean"}}}}}},
        "Presence": {
            "type": "array", "description": "Which seats hold an event stream or a long-poll now, and since when.",
            "items": {"type": "object", "required": ["seat", "connected", "since"],
                      "properties": {"seat": ref("Seat"), "connected": {"type": "boolean"},
                                     "since": nullable({"type": "string", "format": "date-time"})}}},
        "SessionEnd": {
            "type": "object", "additionalProperties": False,
            "properties": {"reason": nullable({"type": "string", "maxLength": 200,
                                               "description": "Why; shown in the public log."})}},
        "SessionCreated": {
            "type": "object", "required": ["id", "version", "seats", "commitment"],
            "properties": {
                "id": {"type": "string", "pattern": SID_PATTERN}, "version": {"type": "integer", "minimum": 0},
                "game": {"type": "string"}, "players": {"type": "integer"}, "options": {"type": "object"},
                "seats": {"type": "array", "items": {
                    "type": "object", "required": ["seat", "token"],
                    "properties": {"seat": ref("Seat"), "token": {
                        "type": "string", "description": "Bearer token of this seat: give it only to that player. "
                                                         "The service keeps only its SHA-256."}}}},
                "commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$",
                               "description": "SHA-256 (hex) of the seed's bytes; see docs/fair-dealing.md."},
                "deals_commitment": nullable({"type": "string", "pattern": "^[0-9a-f]{64}$"}),
                "explicit_deals": {"type": "integer", "minimum": 0},
                "clock": nullable({**ref("Clock"), "description": "The time control, as the service reads it."}),
                "expires_in": {"type": "integer", "description": "Seconds the session lives without a move."}}},
        "SessionView": {
            "type": "object",
            "required": ["id", "version", "view", "legal_moves", "to_act", "finished", "result"],
            "properties": {
                "id": {"type": "string"}, "game": {"type": "string"},
                "version": {"type": "integer", "minimum": 0, "description": "Moves accepted so far."},
                "seat": nullable(ref("Seat")), "view": {"type": "object",
                                                        "description": "What this seat (or a spectator) may see."},
                "legal_moves": {"type": "array", "items": ref("Move"),
                                "description": "This seat's legal moves now (none for a spectator)."},
                "to_act": seat_list, "finished": {"type": "boolean"}, "result": nullable(ref("Result")),
                "clock": nullable(ref("ClockState")), "presence": ref("Presence")}},
        "SessionEvent": {
            "type": "object", "required": ["event", "data"],
            "description": "One event of the stream (OpenAPI 3.1: the schema of each event, not of the stream).",
            "properties": {
                "event": {"type": "string", "enum": ["view", "gap", "end", "gone", "error"]},
                "data": {"type": "string", "contentMediaType": "application/json",
                         "description": "One line of JSON: a SessionView for `view`, else {code?, detail, ...}."},
                "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The version (view events)."},
                "retry": {"type": "integer", "minimum": 0}}},
        "SessionMove": {
            "type": "object", "required": ["move"], "additionalProperties": False,
            "properties": {"move": ref("Move"), "version": nullable(
                {"type": "integer", "minimum": 0,
                 "description": "The version you decided on; 409 version_conflict if the session has moved on."})}},
        "LogEntry": {
            "type": "object", "required": ["version", "time", "type", "seat"],
            "description": "A move (`type` move: action, move, hidden), or how the match ended or a seat gave up "
                           "(`type` timeout, concession or abort: reason, ends).",
            "properties": {
                "version": {"type": "integer", "minimum": 1}, "time": {"type": "string", "format": "date-time"},
                "at": {"type": "string", "format": "date-time", "description": "The same as time."},
                "type": {"type": "string", "enum": ["move", "timeout", "concession", "abort"]},
                "seat": ref("Seat"), "action": {"type": "string"},
                "move": {"type": "object", "description": "The move with its public parameters only."},
                "hidden": {"type": "array", "items": {"type": "string"},
                           "description": "Parameters withheld until the match ends (e.g. discards)."},
                "elapsed_ms": {"type": "integer", "description": "The time the seat used on this turn."},
                "auto": {"type": "boolean", "description": "The service made this move for the seat."},
                "timeout": {"type": "boolean", "description": "...because the seat's time was up."},
                "penalty": {"type": "boolean", "description": "...and it counts as a penalty (penalty policy)."},
                "reason": nullable({"type": "string"}),
                "ends": {"type": "boolean", "description": "This entry ended the match (false: a concession "
                                                           "under the auto policy; the service plays on)."}}},
        "SessionLog": {
            "type": "object", "required": ["id", "version", "finished", "commitment", "entries", "seed"],
            "properties": {
                "id": {"type": "string"}, "game": {"type": "string"}, "players": {"type": "integer"},
                "options": {"type": "object"}, "version": {"type": "integer"}, "finished": {"type": "boolean"},
                "commitment": {"type": "string"}, "deals_commitment": nullable({"type": "string"}),
                "created": {"type": "string", "format": "date-time"},
                "clock": nullable(ref("Clock")),
                "entries": {"type": "array", "items": ref("LogEntry")},
                "seed": nullable({"type": "string", "description": "Revealed once the match is finished."}),
                "deals": nullable({"type": "array", "items": ref("Deal")}),
                "replay": nullable({**ref("ReplayRequest"),
                                    "description": "Once finished: the body to POST to /v1/games/{game}/replay."}),
                "result": nullable(ref("Result"))}},
    }


def end_operation(operation_id: str, summary: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A concession or an abort: the seat's token, an optional reason, the seat's view after it."""
    return {"operationId": operation_id, "summary": summary, "security": [{BEARER: []}],
            "parameters": [sid_param()],
            "requestBody": {"required": False, "content": {"application/json": {
                "schema": ref("SessionEnd"), "example": {"reason": "my bot crashed"}}}},
            "responses": {"200": ok(ref("SessionView"), "Your seat's view after it."),
                          "400": problem_response("invalid_request: the body is not the documented shape."),
                          "401": unauthorized(), "404": not_found(), **extra, "503": unavailable()}}


def security_schemes() -> dict[str, Any]:
    return {BEARER: {"type": "http", "scheme": "bearer",
                     "description": "A seat token from POST /v1/sessions (one per seat)."}}


def paths() -> dict[str, Any]:
    bad = problem_response("invalid_request: the body, a query parameter or a header is malformed.")
    links = {"GetSession": {"operationId": "getSession", "parameters": {"id": "$response.body#/id"}},
             "GetSessionLog": {"operationId": "getSessionLog", "parameters": {"id": "$response.body#/id"}},
             "SubmitMove": {"operationId": "submitMove", "parameters": {"id": "$response.body#/id"}},
             "ConcedeSession": {"operationId": "concedeSession", "parameters": {"id": "$response.body#/id"}},
             "AbortSession": {"operationId": "abortSession", "parameters": {"id": "$response.body#/id"}}}
    created = ok(ref("SessionCreated"), "The session, with one token per seat.")
    created["headers"] = {"Location": {"required": True, "schema": {"type": "string"}}}
    created["links"] = links
    moved = ok(ref("SessionView"), "The move was accepted; this seat's view after it.")
    moved["headers"] = {"Idempotent-Replayed": {
        "required": False, "description": "true when this is the stored answer to an earlier request with the "
                                          "same Idempotency-Key.", "schema": {"type": "string", "enum": ["true"]}}}
    optional_auth: list[dict[str, list[str]]] = [{}, {BEARER: []}]
    return {
        "/v1/sessions": {"post": {
            "operationId": "createSession", "summary": "Start a session: the referee keeps the state.",
            "requestBody": json_body(ref("SessionCreate"), {"game": "femkort", "players": 4}),
            "responses": {"201": created, "400": bad, "413": problem_response("The body is too large."),
                          "422": problem_response("Unknown game, invalid options, deal or player count; "
                                                  "limit_exceeded: more explicit deals than MAX_DEALS or than "
                                                  "the match can ever deal, or a session larger than "
                                                  "MAX_SESSION_BYTES."),
                          "503": unavailable()}}},
        "/v1/sessions/{id}": {"get": {
            "operationId": "getSession", "summary": "A seat's view (spectator without a token); long-polls with "
                                                    "after and wait.",
            "security": optional_auth,
            "parameters": [sid_param(),
                           {"name": "after", "in": "query", "required": False,
                            "description": "Wait until the version is above this.",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 999999999999999}},
                           {"name": "wait", "in": "query", "required": False,
                            "description": "Seconds to wait at most (capped by LONG_POLL_MAX).",
                            "schema": {"type": "number", "minimum": 0, "maximum": 999999999}}],
            "responses": {"200": ok(ref("SessionView")), "400": bad, "401": unauthorized(), "404": not_found(),
                          "503": unavailable()}}},
        "/v1/sessions/{id}/moves": {"post": {
            "operationId": "submitMove", "summary": "Make a move with your seat's token.",
            "security": [{BEARER: []}],
            "parameters": [sid_param(),
                           {"name": "Idempotency-Key", "in": "header", "required": False,
                            "description": "Send the same key again to get the first answer, never a second move.",
                            "schema": {"type": "string", "minLength": 1, "maxLength": 255,
                                       "pattern": "^[!-~]+$"}}],
            "requestBody": json_body(ref("SessionMove"), {"move": {"seat": 1, "action": "play", "card": "QS"}}),
            "responses": {"200": moved, "400": bad, "401": unauthorized(),
                          "403": problem_response("forbidden: the move's seat is not your token's seat."),
                          "404": not_found(),
                          "409": problem_response("version_conflict: the session is no longer at that version "
                                                  "(the body's version says where it is)."),
                          "413": problem_response("The body is too large (4096 bytes at most)."),
                          "422": problem_response("illegal_move (with a reason), idempotency_key_reused, or "
                                                  "limit_exceeded: the session holds MAX_MOVES moves, or its "
                                                  "state would outgrow MAX_SESSION_BYTES."),
                          "503": unavailable()}}},
        "/v1/sessions/{id}/events": {"get": {
            "operationId": "sessionEvents",
            "summary": "Server-Sent Events: this seat's view (a spectator's without a token) after every move.",
            "description": EVENTS_DESCRIPTION,
            "security": optional_auth,
            "parameters": [sid_param(),
                           {"name": "Last-Event-ID", "in": "header", "required": False,
                            "description": "The id (version) of the last event received: the stream resends "
                                           "every later version, or a gap notice and the current view. Empty "
                                           "means none.",
                            "schema": {"type": "string", "pattern": "^[0-9]{0,15}$"}},
                           {"name": "after", "in": "query", "required": False,
                            "description": "The same as Last-Event-ID, for a first connection that cannot set "
                                           "headers (Last-Event-ID wins when both are sent).",
                            "schema": {"type": "integer", "minimum": 0, "maximum": 999999999999999}}],
            "responses": {
                "200": {"description": "The event stream (see the description for its events).",
                        "headers": {"Cache-Control": {"schema": {"type": "string", "enum": ["no-store"]}}},
                        "content": {"text/event-stream": {"schema": ref("SessionEvent")}}},
                "204": {"description": "The match is over and the client has its last event: nothing will "
                                       "follow (EventSource stops reconnecting)."},
                "400": bad, "401": unauthorized(), "404": not_found(), "503": unavailable()}}},
        "/v1/sessions/{id}/concede": {"post": end_operation(
            "concedeSession", "Give up: by the session's policy the match ends now with your seat last "
                              "(forfeit, penalty, no time control), or the service plays for you (auto).",
            {"409": problem_response("match_over: the match is over already.")})},
        "/v1/sessions/{id}/abort": {"post": end_operation(
            "abortSession", "Call the match off before its first trick is completed: finished, nobody wins "
                            "(result ended_by abort, payoffs all 0).",
            {"409": problem_response("abort_too_late: a trick has been completed (or a deal settled); "
                                     "match_over: the match is over already.")})},
        "/v1/sessions/{id}/log": {"get": {
            "operationId": "getSessionLog", "summary": "The public move log; the seed and every move once finished.",
            "parameters": [sid_param()],
            "responses": {"200": ok(ref("SessionLog")), "404": not_found(), "503": unavailable()}}},
        "/readyz": {"get": {
            "operationId": "readyz",
            "summary": "Ready to serve; `sessions` says whether the session store answers (the stateless "
                       "endpoints work either way, so this is 200 even when Redis is down).",
            "responses": {"200": ok({"type": "object", "required": ["status", "store", "sessions"],
                                     "properties": {"status": {"type": "string", "enum": ["ready"]},
                                                    "store": {"type": "string", "enum": ["redis", "memory"]},
                                                    "sessions": {"type": "string",
                                                                 "enum": ["ok", "unavailable"]}}})}}},
    }


__all__ = ["paths", "schemas", "security_schemes", "PROBLEM"]
