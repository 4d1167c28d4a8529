"""The OpenAPI description of the session endpoints and /readyz (merged by service/api/openapi/spec.py); their
bodies are the marshmallow schemas' (service/api/schemas/requests.py, service/api/schemas/answers.py)."""
from __future__ import annotations

from typing import Any

from ..http.errors import RETRY_AFTER
from .spec import PROBLEM, json_body, ok, problem_response, ref, too_large

BEARER = "bearerAuth"


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


# A spectator needs no token; a seat's token gives that seat's view. OpenAPI says this with the alternatives
# [{}, {bearerAuth: []}], but openapi-python-client (0.29, its issue #1372) then demands an authenticated
# client for the call, which a spectator does not have. These operations therefore list no requirement (so
# generators offer the plain call) and name the optional token in their description; a generated
# authenticated client still sends it.
OPTIONAL_TOKEN = ("\n\nAuthentication is optional: without a token the answer is a spectator's; with a seat's "
                  "token (`Authorization: Bearer <token>`, the bearerAuth scheme) it is that seat's. A token that "
                  "is not one of this session's is 401.")


def event_schemas() -> dict[str, Any]:
    """The events of the stream, one schema each (the stream's ``text/event-stream`` schema is their union,
    told apart by ``event``), with the JSON each one's ``data`` line holds as its ``contentSchema``."""
    def event(name: str, data: dict[str, Any], description: str, with_id: bool = False) -> dict[str, Any]:
        props: dict[str, Any] = {"event": {"type": "string", "const": name},
                                 "data": {"type": "string", "contentMediaType": "application/json",
                                          "contentSchema": data}}
        if with_id:
            props["id"] = {"type": "string", "pattern": "^[0-9]+$", "description": "The session's version."}
        return {"type": "object", "description": description, "required": ["event", "data", *(["id"] if with_id else [])],
                "properties": props}

    def notice(props: dict[str, Any], description: str) -> dict[str, Any]:
        return {"type": "object", "description": description, "required": list(props), "properties": props}

    detail = {"type": "string"}
    version = {"type": "integer", "minimum": 0}
    variants = {
        "view": event("view", ref("SessionView"), "This seat's view (a spectator's) at version `id`.", True),
        "gap": event("gap", ref("StreamGap"), "Versions were missed beyond what the stream resends; the current "
                                              "view follows."),
        "end": event("end", ref("StreamEnd"), "The match is over (after the view of its last move); the stream "
                                              "closes."),
        "gone": event("gone", ref("StreamProblem"), "The session expired; the stream closes."),
        "error": event("error", ref("StreamProblem"), "The store is unavailable; the stream closes (reconnect "
                                                      "with Last-Event-ID)."),
    }
    names = {name: f"SessionEvent{name.capitalize()}" for name in variants}
    return {
        "StreamGap": notice({"code": {"type": "string", "const": "gap"}, "last_event_id": version,
                             "version": version, "detail": detail}, "The data of a `gap` event."),
        "StreamEnd": notice({"version": version, "detail": detail}, "The data of an `end` event."),
        "StreamProblem": notice({"code": {"type": "string", "enum": ["session_not_found", "store_unavailable"]},
                                 "detail": detail}, "The data of a `gone` or an `error` event."),
        **{names[name]: schema for name, schema in variants.items()},
        "SessionEventStream": {
            "description": "The events of GET /v1/sessions/{id}/events, told apart by `event`; each `data` line "
                           "is JSON of its contentSchema. (Comment lines and `retry:` are not events.)",
            "oneOf": [ref(n) for n in names.values()],
            "discriminator": {"propertyName": "event",
                              "mapping": {name: f"#/components/schemas/{n}" for name, n in names.items()}}},
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
    return {
        "/v1/sessions": {"post": {
            "operationId": "createSession", "summary": "Start a session: the referee keeps the state.",
            "requestBody": json_body(ref("SessionCreate"), {"game": "femkort", "players": 4}),
            "responses": {"201": created, "400": bad, "413": too_large("sessions.create"),
                          "422": problem_response("Unknown game, invalid options, deal or player count; "
                                                  "limit_exceeded: more explicit deals than MAX_DEALS or than "
                                                  "the match can ever deal, or a session larger than "
                                                  "MAX_SESSION_BYTES."),
                          "503": unavailable()}}},
        "/v1/sessions/{id}": {"get": {
            "operationId": "getSession", "summary": "A seat's view (spectator without a token); long-polls with "
                                                    "after and wait.",
            "description": "The long-poll: with `after` and `wait`, the answer comes once the version is above "
                           "`after`, or after `wait` seconds as it is then." + OPTIONAL_TOKEN,
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
            "description": EVENTS_DESCRIPTION + OPTIONAL_TOKEN,
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
                        "content": {"text/event-stream": {"schema": ref("SessionEventStream")}}},
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
            "responses": {"200": ok(ref("Readiness"))}}},
    }


__all__ = ["paths", "security_schemes", "event_schemas", "PROBLEM"]
