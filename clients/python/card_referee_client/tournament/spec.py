"""What a tournament is: its bots, its games (with player counts, options, clocks, boards) and its format.

Written as JSON (docs/tournaments.md has a full example)::

    {"name": "club night", "format": "round_robin", "seed": "<hex>", "parallel": 4,
     "bots": [{"name": "alice", "url": "http://127.0.0.1:9001/"},
              {"name": "bob", "command": ["python", "-m", "card_referee_client.bots", "random",
                                          "--url", "{url}", "--session", "{session}", "--token", "{token}"]}],
     "games": [{"game": "femkort", "players": 2, "options": {}, "boards": 1,
                "clock": {"move_ms": 2000, "policy": "forfeit"}}]}
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

FORMATS = ("round_robin", "swiss")
DEFAULT_ANSWER_MS = 10_000  # how long a bot may think when its game has no clock


class SpecError(ValueError):
    """The tournament's description is wrong; the message says where."""


@dataclass(frozen=True)
class BotSpec:
    """A bot: an HTTP endpoint (``url``) or a program joining with its seat token (``command``, whose words may
    hold ``{url}``, ``{session}``, ``{token}``, ``{seat}`` and ``{game}``)."""
    name: str
    url: str | None = None
    command: tuple[str, ...] | None = None


@dataclass(frozen=True)
class GameSpec:
    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    clock: dict[str, Any] | None = None
    boards: int = 1           # boards (deals from one seed) each table plays per round
    duplicate: bool = True    # every table of a round plays the same boards, once per rotation of the seats

    @property
    def label(self) -> str:
        return f"{self.game}/{self.players}"


@dataclass(frozen=True)
class TournamentSpec:
    name: str
    format: str
    bots: tuple[BotSpec, ...]
    games: tuple[GameSpec, ...]
    seed: str
    rounds: int = 0           # Swiss: rounds per game; round robin: worked out from the field
    parallel: int = 4         # matches played at once
    answer_ms: int = DEFAULT_ANSWER_MS

    def board_seed(self, round_index: int, board: int) -> str:
        """The seed of a board: every table of a round plays board ``board`` from the same seed (64 hex digits)."""
        text = f"{self.seed}|round {round_index}|board {board}".encode()
        return hashlib.sha256(text).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "format": self.format, "seed": self.seed, "rounds": self.rounds,
                "parallel": self.parallel, "answer_ms": self.answer_ms,
                "bots": [{"name": b.name, **({"url": b.url} if b.url else {"command": list(b.command or ())})}
                         for b in self.bots],
                "games": [{"game": g.game, "players": g.players, "options": g.options, "clock": g.clock,
                           "boards": g.boards, "duplicate": g.duplicate} for g in self.games]}


def load(raw: dict[str, Any]) -> TournamentSpec:
    """A TournamentSpec from its JSON form; SpecError names the first thing wrong."""
    fmt = raw.get("format", "round_robin")
    if fmt not in FORMATS:
        raise SpecError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    bots = tuple(_bot(b, i) for i, b in enumerate(_list(raw, "bots")))
    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        raise SpecError("bot names must be unique")
    games = tuple(_game(g, i, len(bots)) for i, g in enumerate(_list(raw, "games")))
    rounds = int(raw.get("rounds", 0))
    if fmt == "swiss" and rounds < 1:
        raise SpecError("a Swiss tournament needs 'rounds' (1 or more)")
    seed = str(raw.get("seed") or secrets.token_hex(16)).lower()
    if not all(c in "0123456789abcdef" for c in seed):
        raise SpecError("seed must be hex digits")
    return TournamentSpec(name=str(raw.get("name", "tournament")), format=fmt, bots=bots, games=games, seed=seed,
                          rounds=rounds, parallel=max(1, int(raw.get("parallel", 4))),
                          answer_ms=int(raw.get("answer_ms", DEFAULT_ANSWER_MS)))


def _list(raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key)
    if not isinstance(value, list) or not value:
        raise SpecError(f"'{key}' must be a non-empty list")
    return value


def _bot(raw: Any, i: int) -> BotSpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise SpecError(f"bots[{i}] needs a 'name'")
    url, command = raw.get("url"), raw.get("command")
    if (url is None) == (command is None):
        raise SpecError(f"bot {raw['name']!r} needs exactly one of 'url' and 'command'")
    if command is not None and (not isinstance(command, list) or not command
                                or not all(isinstance(w, str) for w in command)):
        raise SpecError(f"bot {raw['name']!r}: 'command' must be a list of strings")
    return BotSpec(raw["name"], url=url, command=tuple(command) if command else None)


def _game(raw: Any, i: int, field_size: int) -> GameSpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("game"), str):
        raise SpecError(f"games[{i}] needs a 'game'")
    players = raw.get("players")
    if not isinstance(players, int) or not 2 <= players <= field_size:
        raise SpecError(f"games[{i}]: 'players' must be a whole number from 2 to the number of bots ({field_size})")
    boards = raw.get("boards", 1)
    if not isinstance(boards, int) or boards < 1:
        raise SpecError(f"games[{i}]: 'boards' must be 1 or more")
    return GameSpec(game=raw["game"], players=players, options=dict(raw.get("options") or {}),
                    clock=raw.get("clock"), boards=boards, duplicate=bool(raw.get("duplicate", True)))
