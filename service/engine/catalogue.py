"""How a game describes itself to clients: players, options with defaults, and its moves."""
from __future__ import annotations

from typing import Any

from .base import Game


def describe(game: Game, full: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": game.id, "name": game.name, "summary": game.summary,
        "players": {"min": game.min_players, "max": game.max_players, "default": game.default_players},
        "options": {o.name: o.catalogue() for o in game.all_options()},
        "docs": f"/games/{game.id}",  # the rules page, served as HTML (docs/games/<id>.md)
    }
    if full:
        entry["moves"] = {
            name: {"description": a.doc, "params": {k: p.schema(refs=False) for k, p in a.params.items()},
                   "example": dict(a.example) if a.example else {"seat": 0, "action": name}}
            for name, a in game.actions.items()
        }
    return entry
