"""Builds openapi.yaml from the code: the routes' shapes plus every game's options and moves.

``python -m service.api.openapi`` rewrites openapi.yaml; tests/contract/test_openapi.py fails when
the committed file differs from what the code describes, so the contract never drifts.
"""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from .. import engine
from ..engine import CARD_PATTERN, Game

ROOT = Path(__file__).resolve().parents[2]
JSON = "application/json"
PROBLEM = "application/problem+json"
ILLEGAL_REASONS = ["not_your_turn", "card_not_in_hand", "must_follow_suit", "must_head_trick", "must_trump",
                   "must_overtrump", "wrong_phase", "unknown_action", "match_over", "invalid_parameters"]
CODES = ["illegal_move", "invalid_state", "invalid_deal", "invalid_options", "unknown_game", "invalid_request",
         "state_tampered", "version_conflict", "session_not_found", "forbidden", "unauthorized",
         "store_unavailable", "not_found", "method_not_allowed", "payload_too_large", "internal_error",
         "idempotency_key_reused", "too_many_requests", "limit_exceeded", "match_over", "abort_too_late"]


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def problem_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM: {"schema": ref("Problem")}}}


def json_body(schema: dict[str, Any], example: Any = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": schema}
    if example is not None:
        media["example"] = example
    return {"required": True, "content": {JSON: media}}


def ok(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def game_param() -> dict[str, Any]:
    return {"name": "game", "in": "path", "required": True, "description": "Game id (see GET /v1/games).",
            "schema": {"type": "string", "enum": sorted(engine.all_games())}}


def move_schema(game: Game) -> dict[str, Any]:
    variants = []
    for name, action in game.actions.items():
        props: dict[str, Any] = {"seat": {"type": "integer", "minimum": 0},
                                 "action": {"type": "string", "const": name}}
        props.update({k: p.schema() for k, p in action.params.items()})
        variants.append({"type": "object", "description": action.doc, "required": ["seat", "action", *(k for k, p in action.params.items() if not p.optional)],
                         "properties": props, "additionalProperties": False})
    return {"title": f"{game.name} move", "oneOf": variants}


def options_schema(game: Game) -> dict[str, Any]:
    props = {}
    for o in game.all_options():
        entry = dict(o.catalogue())
        entry.pop("default_rule", None)
        entry.pop("maximum_rule", None)
        schema_type = entry.pop("type")
        if o.schema:
            props[o.name] = {k: v for k, v in o.schema.items()} | {"description": o.doc}
            continue
        entry["type"] = {"choice": "string"}.get(o.kind, schema_type)
        if entry.get("default") is None:
            entry.pop("default", None)
        props[o.name] = entry
    return {"title": f"{game.name} options", "type": "object", "properties": props, "additionalProperties": False}


def example_exchange() -> dict[str, Any]:
    state = engine.new_match("femkort", 3, {}, "c0ffee")
    move = engine.legal_moves(state)[0]
    return {"state": state, "move": move}


def components() -> dict[str, Any]:
    games = engine.all_games()
    schemas: dict[str, Any] = {
        "Card": {"type": "string", "pattern": CARD_PATTERN, "description": "Rank then suit, e.g. QS; JK a joker."},
        "Seat": {"type": "integer", "minimum": 0},
        "Move": {"type": "object", "required": ["seat", "action"],
                 "properties": {"seat": ref("Seat"), "action": {"type": "string"}},
                 "additionalProperties": True,
                 "description": "A move: seat and action, plus the action's parameters (see the game's moves). "
                                "In legal_moves a parameter may be a range {min, max}."},
        "State": {"type": "object", "description": "The whole match as plain JSON (or a sealed state).",
                  "additionalProperties": True},
        "StateTag": {"type": "string", "description": (
            "The service's HMAC tag of the plain state beside it (absent when states are sealed). Send it back "
            "unchanged with the unchanged state as `state_tag` and the service trusts the state without the full "
            "consistency check; without it, or when it does not match, the state is checked in full, or, in "
            "integrity mode (REQUIRE_STATE_TAG=1), refused with 422 state_tampered. docs/integrity.md.")},
        "Result": {"type": "object", "required": ["scores", "payoffs", "ranking"], "additionalProperties": True,
                   "properties": {"scores": {"type": "array", "items": {"type": "number"}},
                                  "payoffs": {"type": "array", "items": {"type": "integer"}},
                                  "ranking": {"type": "array", "items": ref("Seat")},
                                  "ended_by": {"type": "string",
                                               "enum": ["play", "timeout", "concession", "abort"],
                                               "description": "How the match ended (docs/sessions.md)."},
                                  "forfeited": nullable({**ref("Seat"), "description": "The seat that forfeited "
                                                         "(a timeout or a concession), ranked last."}),
                                  "penalties": {"type": "array", "items": {"type": "integer"},
                                                "description": "Sessions with the penalty policy: each seat's "
                                                               "timeouts the service answered with a move."}}},
        "Envelope": {
            "type": "object", "required": ["state", "to_act", "legal_moves", "events", "finished", "result"],
            "properties": {"state": ref("State"), "state_tag": ref("StateTag"),
                           "to_act": {"type": "array", "items": ref("Seat")},
                           "legal_moves": {"type": "array", "items": ref("Move")},
                           "events": {"type": "array", "items": {"type": "object"}},
                           "finished": {"type": "boolean"}, "result": nullable(ref("Result")),
                           "valid_declarations": {
                               "type": "array", "items": ref("Card"),
                               "description": "Jewel only: the cards whose discard would leave the seat to act a "
                                              "valid declaration, in canonical order (empty unless it holds 17 "
                                              "cards and may declare). docs/games/jewel.md."}}},
        "Problem": {
            "type": "object", "required": ["type", "title", "status", "detail", "code"],
            "properties": {"type": {"type": "string"}, "title": {"type": "string"},
                           "status": {"type": "integer"}, "detail": {"type": "string"},
                           "code": {"type": "string", "enum": CODES},
                           "reason": {"type": "string", "description": "Why a move is illegal. Shared codes: "
                                      + ", ".join(ILLEGAL_REASONS) + "; each game adds its own (see its docs)."},
                           "index": {"type": "integer", "description": "replay: the first illegal move"},
                           "limit": {"type": "string", "enum": ["deals", "session_bytes", "moves"],
                                     "description": "limit_exceeded: which limit"},
                           "option": {"type": "string"}, "card": {"type": "string"},
                           "errors": {"type": "object"}},
            "additionalProperties": True},
        "Deal": {"type": "object", "required": ["hands", "rest"], "additionalProperties": False,
                 "properties": {"hands": {"type": "array", "items": {"type": "array", "items": ref("Card")}},
                                "rest": {"type": "array", "items": ref("Card")},
                                "chosen": {"type": "array", "minItems": 2, "maxItems": 2,
                                           "items": {"type": "string", "enum": ["C", "D", "H", "S"]},
                                           "description": "Stýrivolt with chosen_suits_method \"preset\" "
                                                          "only: the deal's two chosen suits, primary first."}}},
        "DealSpec": {"type": "object", "additionalProperties": False, "properties": deal_spec_properties()},
        "ReplayRequest": {"type": "object", "additionalProperties": False, "required": ["moves"],
                          "properties": {**deal_spec_properties(),
                                         "moves": {"type": "array", "items": ref("Move")},
                                         "end": nullable(ref("ReplayEnd"))}},
        "ReplayEnd": {
            "type": "object", "additionalProperties": False, "required": ["by", "seat"],
            "description": "How a session's match ended other than by play, applied after the moves (a session's "
                           "log gives it as replay.end): a timeout or a concession forfeits for `seat`, an abort "
                           "ends the match with no winner (422 abort_too_late once the moves complete a trick or "
                           "settle a deal; 422 match_over when the moves finish the match). docs/sessions.md.",
            "properties": {"by": {"type": "string", "enum": ["timeout", "concession", "abort"]},
                           "seat": ref("Seat")}},
        "GameSummary": {
            "type": "object", "required": ["id", "name", "players", "options", "summary"],
            "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "summary": {"type": "string"},
                           "docs": {"type": "string"},
                           "players": {"type": "object", "required": ["min", "max"],
                                       "properties": {"min": {"type": "integer"}, "max": {"type": "integer"},
                                                      "default": {"type": "integer"}}},
                           "options": {"type": "object", "additionalProperties": {"type": "object"}},
                           "moves": {"type": "object", "additionalProperties": {"type": "object"}}}},
    }
    for gid, game in games.items():
        schemas[f"{_camel(gid)}Move"] = move_schema(game)
        schemas[f"{_camel(gid)}Options"] = options_schema(game)
    return {"schemas": schemas}


def deal_spec_properties() -> dict[str, Any]:
    return {
        "players": nullable({"type": "integer", "description": "Outside the game's range: 422 invalid_request."}),
        "options": nullable({"type": "object", "description": "Game options; see the game's Options schema."}),
        "seed": nullable({"type": "string", "pattern": "^[0-9a-fA-F]{1,128}$"}),
        "deal": nullable(ref("Deal")),
        "deals": nullable({"type": "array", "items": ref("Deal")})}


def too_many(creating: bool) -> dict[str, Any]:
    """429: a client's quota (REQUEST_QUOTA; and SESSION_QUOTA when creating a session) is used up."""
    which = "SESSION_QUOTA or REQUEST_QUOTA" if creating else "REQUEST_QUOTA"
    out = problem_response(f"too_many_requests: this client's quota ({which}) is used up for now.")
    out["headers"] = {"Retry-After": {"required": True, "description": "Seconds until the quota's window ends.",
                                      "schema": {"type": "string", "pattern": "^[0-9]+$"}}}
    return out


def _camel(gid: str) -> str:
    return "".join(part.capitalize() for part in gid.split("_"))


def stateless_paths() -> dict[str, Any]:
    ex = example_exchange()
    errors_post = {"400": problem_response("The body is not JSON or not of the documented shape."),
                   "404": problem_response("Unknown game."),
                   "413": problem_response("The body is too large."),
                   "422": problem_response("Illegal move, invalid state, options, deal, player count or seat; "
                                           "state_tampered: a sealed state that does not authenticate, a "
                                           "plain one when states are sealed, or (REQUIRE_STATE_TAG) a plain "
                                           "state without its valid state_tag; limit_exceeded: more explicit "
                                           "deals than MAX_DEALS, or than the match can ever deal.")}
    gp = [game_param()]
    deal_spec = ref("DealSpec")
    return {
        "/v1/games": {"get": {"operationId": "listGames", "summary": "The catalogue of games.",
                              "responses": {"200": ok({"type": "object", "required": ["games"],
                                                       "properties": {"games": {"type": "array",
                                                                                "items": ref("GameSummary")}}})}}},
        "/v1/games/{game}": {"get": {"operationId": "getGame", "summary": "One game with its move vocabulary.",
                                     "parameters": gp, "responses": {"200": ok(ref("GameSummary")),
                                                                     "404": problem_response("Unknown game.")}}},
        "/v1/games/{game}/new": {"post": {
            "operationId": "newMatch", "summary": "Deal a new match (seeded or explicit deals).", "parameters": gp,
            "requestBody": json_body(deal_spec, {"players": 4, "options": {}, "seed": "00ff"}),
            "responses": {"201": ok(ref("Envelope"), "The new match."), **errors_post}}},
        "/v1/games/{game}/move": {"post": {
            "operationId": "applyMove", "summary": "Adjudicate a move: the next state, or why it is illegal.",
            "parameters": gp,
            "requestBody": json_body({"type": "object", "required": ["state", "move"], "additionalProperties": False,
                                      "properties": {"state": ref("State"), "state_tag": nullable(ref("StateTag")),
                                                     "move": ref("Move")}}, ex),
            "responses": {"200": ok(ref("Envelope"), "The move was legal."), **errors_post}}},
        "/v1/games/{game}/legal-moves": {"post": {
            "operationId": "legalMoves", "summary": "Every legal move now (optionally of one seat).",
            "parameters": gp,
            "requestBody": json_body({"type": "object", "required": ["state"], "additionalProperties": False,
                                      "properties": {"state": ref("State"), "state_tag": nullable(ref("StateTag")),
                                                     "seat": nullable(ref("Seat"))}},
                                     {"state": ex["state"], "seat": ex["move"]["seat"]}),
            "responses": {"200": ok({"type": "object", "required": ["legal_moves", "to_act"],
                                     "properties": {"legal_moves": {"type": "array", "items": ref("Move")},
                                                    "to_act": {"type": "array", "items": ref("Seat")}}}),
                          **errors_post}}},
        "/v1/games/{game}/view": {"post": {
            "operationId": "viewState", "summary": "What one seat (or a spectator, seat null) may see.",
            "parameters": gp,
            "requestBody": json_body({"type": "object", "required": ["state"], "additionalProperties": False,
                                      "properties": {"state": ref("State"), "state_tag": nullable(ref("StateTag")),
                                                     "seat": nullable(ref("Seat"))}},
                                     {"state": ex["state"], "seat": 0}),
            "responses": {"200": ok({"type": "object", "required": ["view"],
                                     "properties": {"view": {"type": "object"}, "seat": nullable(ref("Seat"))}}),
                          **errors_post}}},
        "/v1/games/{game}/replay": {"post": {
            "operationId": "replayMatch", "summary": "Replay a whole match from its seed/deals and moves.",
            "parameters": gp,
            "requestBody": json_body(ref("ReplayRequest"), {"players": 3, "seed": "c0ffee", "moves": [ex["move"]]}),
            "responses": {"200": ok(ref("Envelope"), "The final state."), **errors_post}}},
    }


def ops_paths() -> dict[str, Any]:
    return {
        "/healthz": {"get": {"operationId": "healthz", "summary": "The process is up.",
                             "responses": {"200": ok({"type": "object"})}}},
        "/metrics": {"get": {"operationId": "metrics", "summary": "Prometheus metrics (text format).",
                             "responses": {"200": {"description": "Metrics", "content": {
                                 "text/plain": {"schema": {"type": "string"}}}}}}},
        "/openapi.yaml": {"get": {"operationId": "openapi", "summary": "This document.",
                                  "responses": {"200": {"description": "OpenAPI document",
                                                        "content": {"application/yaml": {"schema": {
                                                            "type": "string"}}}}}}},
    }


def html_page(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def page_paths() -> dict[str, Any]:
    """The pages for people: the API docs, the rules, the table view (service/web; docs/table.md)."""
    table_id = {"name": "id", "in": "path", "required": True, "description": "The session id.",
                "schema": {"type": "string"}}
    no_table = problem_response("not_found: the id is not a session id's shape. (A well-formed id's page loads "
                                "and says when the session does not exist.)")
    return {
        "/docs": {"get": {"operationId": "apiDocs", "summary": "This document in Swagger UI (served from the "
                                                                "service's own files).",
                          "responses": {"200": html_page("Swagger UI")}}},
        "/games/{game}": {"get": {"operationId": "gameRules", "summary": "A game's rules page (the catalogue's "
                                                                         "`docs` link).",
                                  "parameters": [game_param()],
                                  "responses": {"200": html_page("The rules as HTML."),
                                                "404": problem_response("Unknown game.")}}},
        "/table/{id}": {"get": {
            "operationId": "tablePage",
            "summary": "The table in a browser: a spectator's, or a seat's with `#token=<seat token>` in the URL "
                       "fragment (never sent to the server; the page sends it as an Authorization header).",
            "parameters": [table_id], "responses": {"200": html_page("The table page."), "404": no_table}}},
        "/table/{id}/replay": {"get": {
            "operationId": "tableReplay", "summary": "A finished session stepped through move by move.",
            "parameters": [table_id], "responses": {"200": html_page("The replay page."), "404": no_table}}},
    }


def package_version() -> str:
    try:
        return metadata.version("card-referee")
    except metadata.PackageNotFoundError:  # a checkout used without installing it
        return "0+unknown"


EXTRA_PATHS: list[Any] = []  # other modules (sessions, operations) add their paths here


def build() -> dict[str, Any]:
    from . import openapi_sessions as sessions
    paths = {**stateless_paths(), **ops_paths(), **sessions.paths(), **page_paths()}
    for extra in EXTRA_PATHS:
        paths.update(extra())
    for path, operations in paths.items():
        if path not in ("/healthz", "/readyz", "/metrics"):
            for operation in operations.values():
                operation["responses"]["429"] = too_many(path == "/v1/sessions")
    parts = components()
    parts["schemas"].update(sessions.schemas())
    parts["securitySchemes"] = sessions.security_schemes()
    return {
        "openapi": "3.1.0",
        "info": {"title": "Card Referee", "version": package_version(),
                 "description": "Rules adjudication for card games: is a move legal, and if not why; the next "
                                "state; the legal moves; per-seat views; final scores and payoffs. Errors are "
                                "application/problem+json with a stable `code` (and `reason` for illegal moves)."},
        "servers": [{"url": "/", "description": "The service that serves this document (./deploy/serve.sh: "
                                               "http://127.0.0.1:8000)."}],
        "paths": paths,
        "components": parts,
    }


def render() -> str:
    return yaml.safe_dump(build(), sort_keys=False, width=110, allow_unicode=True)


def main() -> None:
    out = ROOT / "openapi.yaml"
    out.write_text(render())
    sys.stdout.write(f"wrote {out}\n")


if __name__ == "__main__":
    main()
