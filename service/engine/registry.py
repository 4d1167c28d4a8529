"""The games the service knows: every module in ``service.engine.games`` that defines ``GAME``."""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from . import games as games_pkg
from .base import Game
from .errors import UnknownGame


@cache
def all_games() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(games_pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{games_pkg.__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    return found


_BY_ID: dict[str, Game] = {}  # all_games() once it has been read: a plain lookup on every move


def get_game(game_id: str) -> Game:
    game = _BY_ID.get(game_id)
    if game is not None:
        return game
    _BY_ID.update(all_games())
    game = _BY_ID.get(game_id)
    if game is None:
        raise UnknownGame(f"There is no game '{game_id}'. Known games: {', '.join(all_games())}.", game=game_id)
    return game
