"""The games the service knows: every module in ``service.engine.games`` that defines ``GAME``."""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType

from . import games as games_pkg
from .base import Game
from .errors import UnknownGame


def _found() -> Mapping[str, Game]:
    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(games_pkg.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{games_pkg.__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    return MappingProxyType(found)


_GAMES = _found()  # read once, when the engine is imported, and never changed


def all_games() -> Mapping[str, Game]:
    """Every game by id."""
    return _GAMES


def get_game(game_id: str) -> Game:
    game = _GAMES.get(game_id)
    if game is None:
        raise UnknownGame(f"There is no game '{game_id}'. Known games: {', '.join(_GAMES)}.", game=game_id)
    return game
