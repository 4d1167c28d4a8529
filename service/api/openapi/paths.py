"""The document's paths, read from the application's routes.

Each route of the Flask application gives the path, its methods and its path parameters; the view's
declaration (service/api/openapi/operations.py) gives the rest. The order is the application's: the order in
which its routes were registered. Flask's own routes for a blueprint's static files, and the routes declared
``@undocumented``, are left out; any other route without a declaration is an error, so that a new route
cannot be missing from the contract.
"""
from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flask import Flask
from werkzeug.routing import Rule

from ... import engine
from ..wsgi.limits import EXEMPT
from .operations import UNDOCUMENTED, Body, Operation, declared
from .shapes import BEARER, JSON, ref, too_many

VARIABLE = re.compile(r"<(?:[^<>:]+:)?([^<>:]+)>")
IMPLIED = frozenset({"HEAD", "OPTIONS"})  # Flask answers these for every GET route, and every route


def game_parameter() -> dict[str, Any]:
    return {"name": "game", "in": "path", "required": True, "description": "Game id (see GET /v1/games).",
            "schema": {"type": "string", "enum": sorted(engine.all_games())}}


def id_parameter(description: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": "id", "in": "path", "required": True}
    if description:
        out["description"] = description
    return out | {"schema": {"type": "string"}}


# A route variable as the contract names and describes it: the routes say <sid>, <tid>, <bid> (the view's
# argument), and the contract has always said {id}.
VARIABLES: dict[str, Callable[[], dict[str, Any]]] = {
    "game": game_parameter,
    "sid": lambda: id_parameter("The session id from POST /v1/sessions."),
    "tid": lambda: id_parameter("The tournament id."),
    "bid": lambda: id_parameter(None),
}


@dataclass(frozen=True)
class Route:
    """One method of one of the application's routes, with its declaration."""

    rule: Rule
    method: str
    operation: Operation

    @property
    def path(self) -> str:
        """The route's path as OpenAPI writes it: ``/v1/sessions/<sid>`` is ``/v1/sessions/{id}``."""
        return VARIABLE.sub(lambda m: "{" + str(path_parameter(m.group(1))["name"]) + "}", self.rule.rule)


def path_parameter(variable: str) -> dict[str, Any]:
    if variable not in VARIABLES:
        raise LookupError(f"the route variable <{variable}> is not described: add it to VARIABLES in {__name__}")
    return VARIABLES[variable]()


def is_static(rule: Rule) -> bool:
    """Flask's route for the static files of the app or a blueprint."""
    endpoint = str(rule.endpoint)
    return endpoint == "static" or endpoint.endswith(".static")


def documented_routes(app: Flask) -> Iterator[Route]:
    """The application's documented routes, one per method, in the order they were registered."""
    for rule in app.url_map.iter_rules():
        if is_static(rule):
            continue
        found = declared(app.view_functions[rule.endpoint])
        if found is None:
            raise LookupError(f"the route {rule.rule} ({rule.endpoint}) declares no operation: decorate its view "
                              "with @documented (or @undocumented) from service/api/openapi/operations.py")
        if found == UNDOCUMENTED:
            continue
        assert isinstance(found, Operation)
        for method in sorted(set(rule.methods or ()) - IMPLIED):
            yield Route(rule, method.lower(), found)


def operation(route: Route) -> dict[str, Any]:
    """The route's operation as openapi.yaml has it."""
    said = route.operation
    out: dict[str, Any] = {"operationId": said.operation_id, "summary": said.summary}
    if said.description:
        out["description"] = said.description
    if said.bearer:
        out["security"] = [{BEARER: []}]
    parameters = [path_parameter(v) for v in VARIABLE.findall(route.rule.rule)] + list(said.parameters)
    if parameters:
        out["parameters"] = parameters
    if said.body is not None:
        out["requestBody"] = request_body(said.body)
    out["responses"] = dict(said.responses)
    if route.rule.rule not in EXEMPT:  # probes and scrapes are never counted against a quota
        out["responses"].setdefault("429", too_many())
    return copy.deepcopy(out)  # the declarations share their parts; the document's operations must not


def request_body(body: Body) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": ref(body.schema)}
    example = body.example_value()
    if example is not None:
        media["example"] = example
    return {"required": body.required, "content": {JSON: media}}


def paths(app: Flask) -> dict[str, dict[str, Any]]:
    """Path -> method -> operation, for every documented route of the application."""
    out: dict[str, dict[str, Any]] = {}
    for route in documented_routes(app):
        out.setdefault(route.path, {})[route.method] = operation(route)
    return out
