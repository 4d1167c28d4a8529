"""The pre-flight: everything a tournament needs, checked before round 1 so that no session is created for a
tournament that cannot be played (docs/tournaments.md, "Pre-flight").

The description itself is checked when it is loaded (spec.py: formats, players, boards, clocks, bot entries).
Here, against the world:

- each game with its player count and options is dealt once by the stateless ``POST /v1/games/{game}/new``,
  which creates nothing: an unknown game, a player count the game does not take or a bad option is the
  service's own refusal, quoted;
- each HTTP bot is reached with ``GET <url>``: any HTTP answer counts (the package's bots answer
  ``{"protocol": "card-referee-bot/1"}``); a refused connection is tried again for up to ``REACH_SECONDS``
  (a bot started just before the runner may not listen yet), then reported;
- each program bot's executable is found (on ``PATH``, or as a path) and may be run.
"""
from __future__ import annotations

import http.client
import os
import shutil
import sys
import time
import urllib.parse

from ..client import Client
from ..errors import CardRefereeError, ProblemError
from .spec import BotSpec, GameSpec, TournamentSpec

REACH_SECONDS = 5.0
RETRY_SECONDS = 0.2


def preflight(spec: TournamentSpec, client: Client) -> list[str]:
    """Every problem found, one sentence each; empty when the tournament can start."""
    problems = [p for i, game in enumerate(spec.games) if (p := check_game(client, game, i))]
    problems += [p for bot in spec.bots if (p := check_bot(bot))]
    return problems


def check_game(client: Client, game: GameSpec, i: int) -> str | None:
    try:
        client.new(game.game, game.players, game.options)
    except ProblemError as exc:
        return f"games[{i}] ({game.label}): the service refuses it: {exc.detail or exc.code}"
    except CardRefereeError as exc:
        return f"games[{i}] ({game.label}): could not be checked: {exc}"
    return None


def check_bot(bot: BotSpec) -> str | None:
    if bot.url is not None:
        problem = reach(bot.url)
        return None if problem is None else f"bot {bot.name!r} cannot be reached at {bot.url}: {problem}"
    program = program_path((bot.command or ("",))[0])
    if program is None:
        word = (bot.command or ("",))[0]
        return (f"bot {bot.name!r}: the program {word!r} is not found (not on PATH, or not an executable file); "
                "write its path, or {python} for the interpreter running the runner")
    return None


def program_path(word: str) -> str | None:
    """The executable a program bot's first word names ({python}: this interpreter), or None."""
    word = word.replace("{python}", sys.executable)
    if os.sep in word:
        return word if os.path.isfile(word) and os.access(word, os.X_OK) else None
    return shutil.which(word)


def reach(url: str) -> str | None:
    """None when something answers HTTP at ``url`` within REACH_SECONDS, else what went wrong."""
    deadline = time.monotonic() + REACH_SECONDS
    while True:
        problem = _get(url)
        if problem is None or not problem.startswith("ConnectionRefusedError") or time.monotonic() >= deadline:
            return problem
        time.sleep(RETRY_SECONDS)


def _get(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=REACH_SECONDS)
    try:
        conn.request("GET", parts.path or "/")
        conn.getresponse().read()
    except (OSError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    return None
