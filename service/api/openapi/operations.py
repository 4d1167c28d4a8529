"""What a route says about itself in openapi.yaml, declared where the route is.

A view is decorated under its route::

    @bp.post("/v1/sessions/<sid>/moves")
    @documented("submitMove", "Make a move with your seat's token.", bearer=True, body=Body("SessionMove", ...),
                responses={"200": ..., "404": ...})
    def submit(sid: str) -> Response: ...

The path, the method and the path parameters are not repeated here: service/api/openapi/paths.py reads them
from the application's routes. A route outside the contract (a page's own files) says so with
``@undocumented``; the generator refuses a route that says neither.

This module imports nothing of the service, so that any module declaring a route may import it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

View = TypeVar("View", bound=Callable[..., Any])
Json = dict[str, Any]
_ATTRIBUTE = "openapi_operation"
UNDOCUMENTED = "undocumented"


@dataclass(frozen=True)
class Body:
    """A request body: the component describing it, an example (or a function making one when the document is
    built: an example played by the engine), and whether a request must have one."""

    schema: str
    example: Any = None
    required: bool = True

    def example_value(self) -> Any:
        return self.example() if callable(self.example) else self.example


@dataclass(frozen=True)
class Operation:
    """One operation of the document, less what the route itself says (its path, method and path parameters).

    ``parameters`` are the query and header parameters (the path's come first, from the route); ``per_game``,
    when set, is the operationId of each game's typed twin of this operation, with ``{}`` for the game
    (service/api/openapi/games.py)."""

    operation_id: str
    summary: str
    responses: Mapping[str, Json]
    description: str | None = None
    bearer: bool = False
    parameters: Sequence[Json] = ()
    body: Body | None = None
    per_game: str | None = None


def documented(operation_id: str, summary: str, *, responses: Mapping[str, Json], description: str | None = None,
               bearer: bool = False, parameters: Sequence[Json] = (), body: Body | None = None,
               per_game: str | None = None) -> Callable[[View], View]:
    """Declares the view's operation (see Operation); the view itself is unchanged."""
    operation = Operation(operation_id, summary, responses, description, bearer, tuple(parameters), body, per_game)

    def declare(view: View) -> View:
        setattr(view, _ATTRIBUTE, operation)
        return view
    return declare


def undocumented(view: View) -> View:
    """Declares a route that is no operation of the contract: it serves a page's own files."""
    setattr(view, _ATTRIBUTE, UNDOCUMENTED)
    return view


def declared(view: Callable[..., Any]) -> Operation | str | None:
    """What the view declares: its Operation, UNDOCUMENTED, or None when it declares nothing."""
    found: Operation | str | None = getattr(view, _ATTRIBUTE, None)
    return found
