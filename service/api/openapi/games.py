"""The per-game part of openapi.yaml: for every game, the operations that take its moves and options, typed.

The generic operations (``/v1/games/{game}/new``, ``/move``, ``/replay``) take any game's moves, so a body's
``move`` can only be described as ``{seat, action, ...}``. A client generator needs an operation whose body
names the game's own ``<Game>Move`` and ``<Game>Options`` to give an app's compiler something to check. The
contract therefore also lists, for each game, the same three URLs with the game's id in place of ``{game}``
(``/v1/games/femkort/move``...). They are the URLs the generic routes already serve (OpenAPI matches a
concrete path before a templated one), so nothing changes on the server and no existing client breaks; only
the description is sharper. Which operations have these twins, and their operationIds, is declared at their
routes (``per_game``, service/api/http/games.py). A discriminator could not do this: a stateless move's body
does not name its game (it is inside the state), and the action names (``play``, ``pass``) are shared by many
games.

The per-game bodies are the generic ones as apispec made them from the marshmallow schemas, with the fields
that hold a move or options pointing at the game's schemas: ``<Game>DealSpec``, ``<Game>MoveRequest``,
``<Game>ReplayRequest`` and the answer ``<Game>Envelope`` (whose ``legal_moves`` are ``<Game>Move`` values, so a
bot can post one back as it is). tests/contract checks that each has exactly its generic body's fields.
"""
from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from ... import engine
from .paths import Route
from .shapes import JSON, ref

# Per-game body -> (the generic body it refines, {field: what the field holds in the per-game body}).
MOVES, OPTIONS = "move", "options"
REFINED: dict[str, tuple[str, dict[str, str]]] = {
    "DealSpec": ("DealSpec", {"options": OPTIONS}),
    "MoveRequest": ("MoveRequest", {"move": MOVES}),
    "ReplayRequest": ("ReplayRequest", {"options": OPTIONS, "moves": "moves"}),
    "Envelope": ("Envelope", {"legal_moves": "moves"}),
}


def camel(gid: str) -> str:
    """A game id as the prefix of its schemas' names: ``three_card_loo`` -> ``ThreeCardLoo``."""
    return "".join(part.capitalize() for part in gid.split("_"))


def _refined_field(kind: str, game: str, generic: dict[str, Any]) -> dict[str, Any]:
    """The per-game description of one field of a generic body (``generic`` is that field's schema)."""
    prefix = camel(game)
    if kind == MOVES:
        return ref(f"{prefix}Move")
    if kind == "moves":
        out = {k: v for k, v in generic.items() if k not in ("items", "$ref")}
        out["items"] = ref(f"{prefix}Move")
        return out
    # options: nullable as in the generic body, but the game's own options
    return {"anyOf": [ref(f"{prefix}Options"), {"type": "null"}], "default": None,
            "description": f"{engine.get_game(game).name} options (absent or null: every default)."}


def game_bodies(generic: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every game's bodies, from the generic bodies' schemas (``generic``: name -> schema, as apispec made them)."""
    out: dict[str, dict[str, Any]] = {}
    for gid, game in engine.all_games().items():
        for suffix, (base, fields) in REFINED.items():
            body = copy.deepcopy(generic[base])
            for name, kind in fields.items():
                body["properties"][name] = _refined_field(kind, gid, body["properties"][name])
            body["description"] = f"{game.name}: the body of {base}, with this game's moves and options."
            out[f"{camel(gid)}{suffix}"] = body
    return out


def game_paths(routes: Iterable[Route], generic: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """For every game, each operation whose route declares ``per_game`` again on the game's own URL, with the
    game's typed bodies (``generic``: the document's paths)."""
    typed = [route for route in routes if route.operation.per_game]
    out: dict[str, Any] = {}
    for gid, game in engine.all_games().items():
        for route in typed:
            operation = typed_operation(generic[route.path][route.method], gid, game.name)
            operation["operationId"] = str(route.operation.per_game).format(camel(gid))
            out[route.path.replace("{game}", gid)] = {route.method: operation}
    return out


def typed_operation(generic: dict[str, Any], gid: str, name: str) -> dict[str, Any]:
    """A generic operation on a game's own URL: no game parameter, no unknown game, the game's own bodies."""
    prefix = camel(gid)
    operation = copy.deepcopy(generic)
    operation["tags"] = [gid]
    operation["parameters"] = []
    operation["summary"] = f"{name}: {operation['summary'][0].lower()}{operation['summary'][1:]}"
    media = operation["requestBody"]["content"][JSON]
    media["schema"] = ref(prefix + _component(media["schema"]))
    media.pop("example", None)
    operation["responses"].pop("404", None)  # the game is known: its id is the path
    for response in operation["responses"].values():
        content = response.get("content", {}).get(JSON)
        if content is not None and _component(content["schema"]) in REFINED:
            content["schema"] = ref(prefix + _component(content["schema"]))
    return operation


def _component(schema: dict[str, Any]) -> str:
    return str(schema.get("$ref", "")).rsplit("/", 1)[-1]
