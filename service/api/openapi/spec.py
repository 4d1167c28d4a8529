"""Builds openapi.yaml from the code: the routes, the request and answer bodies, every game's options and moves.

The bodies come from the marshmallow schemas, through apispec's marshmallow plugin: the request schemas that
check what clients send (service/api/schemas/requests.py) and the schemas of the answers (service/api/schemas/answers.py). A
field that loads a plain JSON value the engine checks names, in its metadata, the component written here that
describes it (``Move``, ``State``, ``Seat``...). Each game's move and options schemas are made from its
definition. ``python -m service.api.openapi`` rewrites openapi.yaml; tests/contract/test_openapi.py fails when
the committed file differs from what the code describes, so the contract never drifts.
"""
from __future__ import annotations

import sys
from importlib import metadata
from typing import Any

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from marshmallow import Schema, fields

from ... import engine
from ...engine import CARD_PATTERN, Game
from ..schemas import answers, requests as schemas, tournaments as tournament_schemas
from ..wsgi.limits import body_limit
from ...paths import ROOT
from .games import camel, game_bodies, game_paths

JSON = "application/json"
PROBLEM = "application/problem+json"
# The bodies, by their component names: request schemas, then answers (the names openapi.yaml has always used).
# A schema nested in another is named before it, so that the other refers to it by that name.
BODIES: dict[str, type[Schema]] = {
    "DealSpec": schemas.DealSpec, "ReplayEnd": schemas.ReplayEnd, "ReplayRequest": schemas.Replay,
    "MoveRequest": schemas.MoveRequest, "LegalMovesRequest": schemas.LegalMovesRequest,
    "ViewRequest": schemas.ViewRequest, "Clock": schemas.ClockSpec, "SessionCreate": schemas.SessionCreate,
    "SessionMove": schemas.SessionMove, "SessionEnd": schemas.SessionEnd,
    **{name: getattr(answers, name) for name in (
        "Result", "Envelope", "Problem", "Deal", "PlayerRange", "GameSummary", "GameList", "LegalMoves", "SeatView",
        "Health", "Readiness", "SeatToken", "SessionCreated", "ClockSeat", "ClockState", "PresenceSeat",
        "SessionView", "SessionEvent", "LogEntry", "SessionLog")},
    **{name: getattr(tournament_schemas, name) for name in tournament_schemas.BODIES},  # bots and tournaments
}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def too_large(endpoint: str) -> dict[str, Any]:
    """413: the endpoint's body limit (service/api/wsgi/limits.py)."""
    return problem_response(f"payload_too_large: the body is larger than this endpoint's {body_limit(endpoint) // 1024} "
                            "KiB.")


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


# A legal-move entry may carry, beside a concrete value, the range of values a parameter may take
# (`{"amount": {"min": 1, "max": 9}}`); a move posted with it is taken as it is, the key read by nobody, so a bot
# can post back the entry it chose. Described without constraints, as the service enforces none.
RANGES = {"description": "Legal moves only: each numeric parameter's range, {min, max} (the entry's own value is "
                         "one of them). Ignored, whatever it holds, in a move that is posted."}


def move_schema(game: Game) -> dict[str, Any]:
    variants = []
    for name, action in game.actions.items():
        props: dict[str, Any] = {"seat": {"type": "integer", "minimum": 0},
                                 "action": {"type": "string", "const": name}}
        props.update({k: p.schema() for k, p in action.params.items()})
        props["ranges"] = RANGES
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


def primitives() -> dict[str, Any]:
    """The components a field's metadata points at: values the engine checks, described here once."""
    return {
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
    }


def game_schemas() -> dict[str, Any]:
    out = {}
    for gid, game in engine.all_games().items():
        out[f"{camel(gid)}Move"] = move_schema(game)
        out[f"{camel(gid)}Options"] = options_schema(game)
    return out


def documented(self: FieldConverterMixin, field: fields.Field[Any], ret: dict[str, Any],
               **kwargs: Any) -> dict[str, Any]:
    """apispec attribute function for what its own steps do not say: a field whose metadata names a
    ``component`` is documented as a reference to it (with the field's description), not as the plain type it
    loads; ``json_schema`` adds keywords apispec does not pass on (``contentMediaType``). It runs before apispec's
    nullable step, which then makes an ``allow_none`` field ``anyOf: [the reference, null]``."""
    out: dict[str, Any] = dict(field.metadata.get("json_schema", {}))
    name = field.metadata.get("component")
    if name is not None:
        description = ret.get("description")
        ret.clear()
        out["$ref"] = f"#/components/schemas/{name}"
        if description:
            out["description"] = description
    return out


def new_spec() -> APISpec:
    plugin = MarshmallowPlugin()
    spec = APISpec(title=TITLE, version=package_version(), openapi_version="3.1.0", plugins=[plugin],
                   info={"description": INFO},
                   servers=[{"url": "/", "description": "The service that serves this document "
                                                        "(./deploy/serve.sh: http://127.0.0.1:8000)."}])
    converter = plugin.converter
    assert converter is not None
    converter.add_attribute_function(documented)  # type: ignore[no-untyped-call]
    steps = converter.attribute_functions
    steps.insert(steps.index(converter.field2nullable), steps.pop())
    return spec


def too_many(creating: bool) -> dict[str, Any]:
    """429: a client's quota (REQUEST_QUOTA; and SESSION_QUOTA when creating a session) is used up."""
    which = "SESSION_QUOTA or REQUEST_QUOTA" if creating else "REQUEST_QUOTA"
    out = problem_response(f"too_many_requests: this client's quota ({which}) is used up for now.")
    out["headers"] = {"Retry-After": {"required": True, "description": "Seconds until the quota's window ends.",
                                      "schema": {"type": "string", "pattern": "^[0-9]+$"}}}
    return out


def stateless_paths() -> dict[str, Any]:
    ex = example_exchange()
    errors_post = {"400": problem_response("The body is not JSON or not of the documented shape."),
                   "404": problem_response("Unknown game."),
                   "422": problem_response("Illegal move, invalid state, options, deal, player count or seat; "
                                           "state_tampered: a sealed state that does not authenticate, a "
                                           "plain one when states are sealed, or (REQUIRE_STATE_TAG) a plain "
                                           "state without its valid state_tag; limit_exceeded: more explicit "
                                           "deals than MAX_DEALS, or than the match can ever deal, or (replay) "
                                           "more moves than MAX_MOVES, counted before any entry is checked.")}

    def errors(endpoint: str) -> dict[str, Any]:
        return {**errors_post, "413": too_large(endpoint)}
    gp = [game_param()]
    deal_spec = ref("DealSpec")
    return {
        "/v1/games": {"get": {"operationId": "listGames", "summary": "The catalogue of games.",
                              "responses": {"200": ok(ref("GameList"))}}},
        "/v1/games/{game}": {"get": {"operationId": "getGame", "summary": "One game with its move vocabulary.",
                                     "parameters": gp, "responses": {"200": ok(ref("GameSummary")),
                                                                     "404": problem_response("Unknown game.")}}},
        "/v1/games/{game}/new": {"post": {
            "operationId": "newMatch", "summary": "Deal a new match (seeded or explicit deals).", "parameters": gp,
            "requestBody": json_body(deal_spec, {"players": 4, "options": {}, "seed": "00ff"}),
            "responses": {"201": ok(ref("Envelope"), "The new match."), **errors("games.new")}}},
        "/v1/games/{game}/move": {"post": {
            "operationId": "applyMove", "summary": "Adjudicate a move: the next state, or why it is illegal.",
            "parameters": gp,
            "requestBody": json_body(ref("MoveRequest"), ex),
            "responses": {"200": ok(ref("Envelope"), "The move was legal."), **errors("games.move")}}},
        "/v1/games/{game}/legal-moves": {"post": {
            "operationId": "legalMoves", "summary": "Every legal move now (optionally of one seat).",
            "parameters": gp,
            "requestBody": json_body(ref("LegalMovesRequest"), {"state": ex["state"], "seat": ex["move"]["seat"]}),
            "responses": {"200": ok(ref("LegalMoves")), **errors("games.legal")}}},
        "/v1/games/{game}/view": {"post": {
            "operationId": "viewState", "summary": "What one seat (or a spectator, seat null) may see.",
            "parameters": gp,
            "requestBody": json_body(ref("ViewRequest"), {"state": ex["state"], "seat": 0}),
            "responses": {"200": ok(ref("SeatView")), **errors("games.view")}}},
        "/v1/games/{game}/replay": {"post": {
            "operationId": "replayMatch", "summary": "Replay a whole match from its seed/deals and moves.",
            "parameters": gp,
            "requestBody": json_body(ref("ReplayRequest"), {"players": 3, "seed": "c0ffee", "moves": [ex["move"]]}),
            "responses": {"200": ok(ref("Envelope"), "The final state."), **errors("games.replay")}}},
    }


def ops_paths() -> dict[str, Any]:
    return {
        "/healthz": {"get": {"operationId": "healthz", "summary": "The process is up.",
                             "responses": {"200": ok(ref("Health"))}}},
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


def with_page(response: dict[str, Any]) -> dict[str, Any]:
    """A page's 404: a problem, or an HTML page for a client whose Accept prefers HTML (a browser)."""
    content = {**response["content"], "text/html": {"schema": {"type": "string"}}}
    return {**response, "description": response["description"] + " A browser (Accept preferring text/html) is "
                                                                  "shown an HTML page instead.", "content": content}


def page_paths() -> dict[str, Any]:
    """The pages for people: the API docs, the rules, the table view (service/web; docs/table.md)."""
    table_id = {"name": "id", "in": "path", "required": True, "description": "The session id.",
                "schema": {"type": "string"}}
    no_table = with_page(problem_response("not_found: the id is not a session id's shape. (A well-formed id's page "
                                          "loads and says when the session does not exist.)"))
    return {
        "/": {"get": {"operationId": "landingPage", "summary": "The landing page: the games, links to their rules "
                                                                "and to the API docs.",
                      "responses": {"200": html_page("The landing page.")}}},
        "/docs": {"get": {"operationId": "apiDocs", "summary": "This document in Swagger UI (served from the "
                                                                "service's own files).",
                          "responses": {"200": html_page("Swagger UI")}}},
        "/games/{game}": {"get": {"operationId": "gameRules", "summary": "A game's rules page (the catalogue's "
                                                                         "`docs` link).",
                                  "parameters": [game_param()],
                                  "responses": {"200": html_page("The rules as HTML."),
                                                "404": with_page(problem_response("Unknown game."))}}},
        "/client/card-referee.js": {"get": {
            "operationId": "browserClient",
            "summary": "The TypeScript client (clients/typescript) bundled for browsers: a classic script that "
                       "defines the global `CardRefereeClient` (CardReferee, Session, ProblemError...).",
            "responses": {"200": {"description": "The script.",
                                  "content": {"text/javascript": {"schema": {"type": "string"}}}}}}},
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


# The contract's own name: client generators name their package after it (openapi-python-client:
# card-referee-api-client), which must not be a name of this project's packages (card-referee, and
# card-referee-client, the Python client in clients/python).
TITLE = "Card Referee API"
EXTRA_PATHS: list[Any] = []  # other modules (sessions, operations) add their paths here


INFO = ("Rules adjudication for card games: is a move legal, and if not why; the next state; the legal moves; "
        "per-seat views; final scores and payoffs. Errors are application/problem+json with a stable `code` (and "
        "`reason` for illegal moves).")


def build() -> dict[str, Any]:
    from . import sessions as sessions, tournaments as tournaments
    stateless = stateless_paths()
    paths = {**stateless, **ops_paths(), **sessions.paths(), **tournaments.paths(), **page_paths(),
             **game_paths(stateless)}
    for extra in EXTRA_PATHS:
        paths.update(extra())
    spec = new_spec()
    for name, schema in {**primitives(), **game_schemas()}.items():
        spec.components.schema(name, schema)
    for name, body in BODIES.items():
        # A schema's DESCRIPTION, not its Meta.description: with that, apispec leaves out the additionalProperties
        # that Meta.unknown says.
        description = getattr(body, "DESCRIPTION", None)
        spec.components.schema(name, {"description": description} if description else None, schema=body)
    generic = spec.to_dict()["components"]["schemas"]
    for name, schema in {**game_bodies(generic), **sessions.event_schemas()}.items():
        spec.components.schema(name, schema)
    for name, scheme in sessions.security_schemes().items():
        spec.components.security_scheme(name, scheme)
    for path, operations in paths.items():
        if path not in ("/healthz", "/readyz", "/metrics"):
            for operation in operations.values():
                operation["responses"]["429"] = too_many(path == "/v1/sessions")
        spec.path(path=path, operations=operations)
    out = spec.to_dict()
    return {key: out[key] for key in ("openapi", "info", "servers", "paths", "components")}


class _Dumper(yaml.SafeDumper):
    """Writes a dict used in several places in full each time: generators read YAML aliases unevenly."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def render() -> str:
    return str(yaml.dump(build(), Dumper=_Dumper, sort_keys=False, width=110, allow_unicode=True))


def main() -> None:
    out = ROOT / "openapi.yaml"
    out.write_text(render())
    sys.stdout.write(f"wrote {out}\n")

