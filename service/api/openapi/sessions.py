"""What the session routes (service/api/http/sessions.py, events.py) share in openapi.yaml: their refusals, the
session id's parameters, the events of the stream and the bearer scheme of the seats' tokens. Their bodies are
the marshmallow schemas' (service/api/schemas/requests.py, service/api/schemas/answers.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..http.errors import RETRY_AFTER
from .operations import Body, View, documented
from .shapes import BEARER, malformed, ok, problem_response, ref, retry_after, unauthorized

BAD = malformed()
NOT_FOUND = problem_response("session_not_found: no such session (a wrong id, or it expired).")
UNAVAILABLE = problem_response("store_unavailable: Redis is down or slow. Try again after Retry-After seconds.",
                               retry_after(f"Seconds to wait (currently {RETRY_AFTER})."))
UNAUTHORIZED = unauthorized("unauthorized: the token is missing, malformed or not one of this session's.")
VERSION = {"type": "integer", "minimum": 0, "maximum": 999999999999999}
AFTER = {"name": "after", "in": "query", "required": False, "description": "Wait until the version is above this.",
         "schema": VERSION}
WAIT = {"name": "wait", "in": "query", "required": False,
        "description": "Seconds to wait at most (capped by LONG_POLL_MAX).",
        "schema": {"type": "number", "minimum": 0, "maximum": 999999999}}
IDEMPOTENCY_KEY = {"name": "Idempotency-Key", "in": "header", "required": False,
                   "description": "Send the same key again to get the first answer, never a second move.",
                   "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"}}
LAST_EVENT_ID = {"name": "Last-Event-ID", "in": "header", "required": False,
                 "description": "The id (version) of the last event received: the stream resends every later "
                                "version, or a gap notice and the current view. Empty means none.",
                 "schema": {"type": "string", "pattern": "^[0-9]{0,15}$"}}
EVENTS_AFTER = {"name": "after", "in": "query", "required": False,
                "description": "The same as Last-Event-ID, for a first connection that cannot set headers "
                               "(Last-Event-ID wins when both are sent).",
                "schema": VERSION}
# What POST /v1/sessions links to: every operation on the session it made.
LINKS = {name: {"operationId": operation_id, "parameters": {"id": "$response.body#/id"}}
         for name, operation_id in (("GetSession", "getSession"), ("GetSessionLog", "getSessionLog"),
                                    ("SubmitMove", "submitMove"), ("ConcedeSession", "concedeSession"),
                                    ("AbortSession", "abortSession"))}
REPLAYED = {"Idempotent-Replayed": {
    "required": False, "description": "true when this is the stored answer to an earlier request with the same "
                                      "Idempotency-Key.", "schema": {"type": "string", "enum": ["true"]}}}

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
        required = ["event", "data", *(["id"] if with_id else [])]
        return {"type": "object", "description": description, "required": required, "properties": props}

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


def ending(operation_id: str, summary: str, refusals: str) -> Callable[[View], View]:
    """A concession or an abort: the seat's token, an optional reason, the seat's view after it; 409 with the
    ``refusals`` said."""
    return documented(
        operation_id, summary, bearer=True, body=Body("SessionEnd", {"reason": "my bot crashed"}, required=False),
        responses={"200": ok(ref("SessionView"), "Your seat's view after it."),
                   "400": problem_response("invalid_request: the body is not the documented shape."),
                   "401": UNAUTHORIZED, "404": NOT_FOUND, "409": problem_response(refusals), "503": UNAVAILABLE})


def security_schemes() -> dict[str, Any]:
    return {BEARER: {"type": "http", "scheme": "bearer",
                     "description": "A seat token from POST /v1/sessions (one per seat)."}}
