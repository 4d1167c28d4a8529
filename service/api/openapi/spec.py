"""Builds openapi.yaml from the code: the routes, the request and answer bodies, every game's options and moves.

The paths, their methods and path parameters are the application's routes (service/api/openapi/paths.py);
what each operation answers, and the rest, is declared at its route (service/api/openapi/operations.py). The
bodies come from the marshmallow schemas, through apispec's marshmallow plugin: the request schemas that check
what clients send (service/api/schemas/requests.py) and the schemas of the answers
(service/api/schemas/answers.py). A field that loads a plain JSON value the engine checks names, in its
metadata, the component written here that describes it (``Move``, ``State``, ``Seat``...). Each game's move
and options schemas are made from its definition. ``python -m service.api.openapi`` rewrites openapi.yaml;
tests/contract/test_openapi.py fails when the committed file differs from what the code describes, so the
contract never drifts.
"""
from __future__ import annotations

import sys
from importlib import metadata
from typing import Any

import yaml
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.field_converter import FieldConverterMixin
from flask import Flask
from marshmallow import Schema, fields

from ... import engine
from ...engine import CARD_PATTERN, Game
from ..schemas import answers, requests as schemas, tournaments as tournament_schemas
from ...paths import ROOT
from . import sessions
from .games import camel, game_bodies, game_paths
from .paths import documented_routes, paths
from .shapes import ref

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
        required = ["seat", "action", *(k for k, p in action.params.items() if not p.optional)]
        variants.append({"type": "object", "description": action.doc, "required": required, "properties": props,
                         "additionalProperties": False})
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


def field_as_component(self: FieldConverterMixin, field: fields.Field[Any], ret: dict[str, Any],
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
    converter.add_attribute_function(field_as_component)  # type: ignore[no-untyped-call]
    steps = converter.attribute_functions
    steps.insert(steps.index(converter.field2nullable), steps.pop())
    return spec


def package_version() -> str:
    try:
        return metadata.version("card-referee")
    except metadata.PackageNotFoundError:  # a checkout used without installing it
        return "0+unknown"


# The contract's own name: client generators name their package after it (openapi-python-client:
# card-referee-api-client), which must not be a name of this project's packages (card-referee, and
# card-referee-client, the Python client in clients/python).
TITLE = "Card Referee API"


INFO = ("Rules adjudication for card games: is a move legal, and if not why; the next state; the legal moves; "
        "per-seat views; final scores and payoffs. Errors are application/problem+json with a stable `code` (and "
        "`reason` for illegal moves).")


def build(app: Flask) -> dict[str, Any]:
    """The document describing ``app``: its routes' paths, the bodies' schemas, every game's typed twins."""
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
    routes = paths(app)
    for path, operations in {**routes, **game_paths(documented_routes(app), routes)}.items():
        spec.path(path=path, operations=operations)
    out = spec.to_dict()
    return {key: out[key] for key in ("openapi", "info", "servers", "paths", "components")}


class _Dumper(yaml.SafeDumper):
    """Writes a dict used in several places in full each time: generators read YAML aliases unevenly."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def render(app: Flask) -> str:
    return str(yaml.dump(build(app), Dumper=_Dumper, sort_keys=False, width=110, allow_unicode=True))


def write(app: Flask) -> None:
    out = ROOT / "openapi.yaml"
    out.write_text(render(app))
    sys.stdout.write(f"wrote {out}\n")
