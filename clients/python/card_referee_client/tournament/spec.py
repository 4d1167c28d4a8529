"""What a tournament is: its bots, its games (with player counts, options, clocks, boards) and its format.

Written as JSON (docs/tournaments.md has a full example)::

    {"name": "club night", "format": "round_robin", "seed": "<hex>", "parallel": 4,
     "bots": [{"name": "alice", "url": "http://127.0.0.1:9001/"},
              {"name": "bob", "command": ["{python}", "-m", "card_referee_client", "bot", "random",
                                          "--url={url}", "--session={session}", "--token={token}"]}],
     "games": [{"game": "femkort", "players": 2, "options": {}, "boards": 1,
                "clock": {"move_ms": 2000, "policy": "forfeit"}}]}
"""
from __future__ import annotations

import hashlib
import secrets
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

FORMATS = ("round_robin", "swiss")
DEFAULT_ANSWER_MS = 10_000  # how long a bot may think when its game has no clock
# the words a program bot's command may hold; {python} is the interpreter running the runner
PLACEHOLDERS = ("url", "session", "token", "seat", "game", "python")
# a session's time control, as POST /v1/sessions takes it (docs/sessions.md, "Time controls")
CLOCK_KEYS = ("move_ms", "bank_ms", "increment_ms", "policy")
CLOCK_POLICIES = ("forfeit", "auto", "penalty")
CLOCK_MIN_MS, CLOCK_MAX_MS = 100, 24 * 3600 * 1000
# a hosted tournament's policy for an entry whose bot is not connected when a round starts (docs/tournaments.md)
ABSENT_THEN = ("forfeit", "withdraw")
DEFAULT_ABSENT: dict[str, Any] = {"grace_s": 30, "then": "forfeit"}


class SpecError(ValueError):
    """The tournament's description is wrong; the message says where."""


@dataclass(frozen=True)
class BotSpec:
    """A bot: an HTTP endpoint (``url``) or a program joining with its seat token (``command``, whose words may
    hold ``{url}``, ``{session}``, ``{token}``, ``{seat}`` and ``{game}``); in a hosted tournament neither (the
    bot connects to the service with its own token)."""
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
    seed_drawn: bool = field(default=False, compare=False)  # no seed in the description: this one was drawn
    absent: dict[str, Any] | None = None  # hosted only: {"grace_s", "then"} for an entry not connected
    start: str | None = None              # hosted only: when round 1 starts (RFC 3339), None: on the start action

    def board_seed(self, round_index: int, board: int) -> str:
        """The seed of a board: every table of a round plays board ``board`` from the same seed (64 hex digits)."""
        text = f"{self.seed}|round {round_index}|board {board}".encode()
        return hashlib.sha256(text).hexdigest()

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same tournament: everything but how many matches are played at once."""
        return {k: v for k, v in self.to_json().items() if k != "parallel"}

    def to_json(self) -> dict[str, Any]:
        doc = {"name": self.name, "format": self.format, "seed": self.seed, "rounds": self.rounds,
               "parallel": self.parallel, "answer_ms": self.answer_ms,
               "bots": [_bot_json(b) for b in self.bots],
               "games": [{"game": g.game, "players": g.players, "options": g.options, "clock": g.clock,
                          "boards": g.boards, "duplicate": g.duplicate} for g in self.games]}
        if self.absent is not None:
            doc.update(absent=self.absent, start=self.start)
        return doc


def _bot_json(bot: BotSpec) -> dict[str, Any]:
    if bot.url:
        return {"name": bot.name, "url": bot.url}
    return {"name": bot.name, **({"command": list(bot.command)} if bot.command else {})}


def load(raw: dict[str, Any]) -> TournamentSpec:
    """A TournamentSpec from its JSON form; SpecError names the first thing wrong."""
    if not isinstance(raw, dict):
        raise SpecError("the description must be a JSON object")
    fmt = raw.get("format", "round_robin")
    if fmt not in FORMATS:
        raise SpecError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    bots = tuple(_bot(b, i) for i, b in enumerate(_list(raw, "bots")))
    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        raise SpecError("bot names must be unique")
    games = tuple(_game(g, i, len(bots)) for i, g in enumerate(_list(raw, "games")))
    return _common(raw, fmt, bots, games)


def load_hosted(description: dict[str, Any], entries: Sequence[str] | None) -> TournamentSpec:
    """A hosted tournament's description (the local one without ``bots``, plus ``absent`` and ``start``) with
    its entries (bot names) as the bots; ``entries`` None while registration is open (player counts are then
    checked against the field only once it is known). SpecError names the first thing wrong."""
    if not isinstance(description, dict):
        raise SpecError("the description must be a JSON object")
    names = list(entries) if entries is not None else []
    raw = {**description, "bots": [{"name": n} for n in names]}
    fmt = raw.get("format", "round_robin")
    if fmt not in FORMATS:
        raise SpecError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if len(set(names)) != len(names):
        raise SpecError("an entry may enter only once")
    field_size = len(names) if entries is not None else None
    games = tuple(_game(g, i, field_size) for i, g in enumerate(_list(raw, "games")))
    base = _common(raw, fmt, tuple(BotSpec(n) for n in names), games)
    return replace(base, absent=_absent(description.get("absent")), start=_start(description.get("start")))


def _common(raw: dict[str, Any], fmt: str, bots: tuple[BotSpec, ...], games: tuple[GameSpec, ...]
            ) -> TournamentSpec:
    rounds = raw.get("rounds", 0)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
        raise SpecError(f"'rounds' must be a whole number, not {rounds!r}")
    if fmt == "swiss" and rounds < 1:
        raise SpecError("a Swiss tournament needs 'rounds' (1 or more)")
    seed = str(raw.get("seed") or secrets.token_hex(16)).lower()
    if not seed or not all(c in "0123456789abcdef" for c in seed):
        raise SpecError(f"seed must be hex digits (0-9, a-f), not {raw.get('seed')!r}")
    return TournamentSpec(name=str(raw.get("name", "tournament")), format=fmt, bots=bots, games=games, seed=seed,
                          rounds=rounds, parallel=_whole(raw, "parallel", 4, 1),
                          answer_ms=_whole(raw, "answer_ms", DEFAULT_ANSWER_MS, 1), seed_drawn=not raw.get("seed"))


def _absent(raw: Any) -> dict[str, Any]:
    if raw is None:
        return dict(DEFAULT_ABSENT)
    if not isinstance(raw, dict) or set(raw) - {"grace_s", "then"}:
        raise SpecError("'absent' must be an object with 'grace_s' and 'then'")
    grace = raw.get("grace_s", DEFAULT_ABSENT["grace_s"])
    if not isinstance(grace, (int, float)) or isinstance(grace, bool) or not 0 <= grace <= 24 * 3600:
        raise SpecError(f"'absent': 'grace_s' must be a number of seconds from 0 to 86400, not {grace!r}")
    then = raw.get("then", DEFAULT_ABSENT["then"])
    if then not in ABSENT_THEN:
        raise SpecError(f"'absent': 'then' must be one of {', '.join(ABSENT_THEN)}, not {then!r}")
    return {"grace_s": grace, "then": then}


def _start(raw: Any) -> str | None:
    if raw is None:
        return None
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00")) if isinstance(raw, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise SpecError(f"'start' must be an RFC 3339 time with its offset (2026-01-31T19:00:00Z) or null, not {raw!r}")
    return str(raw)


def _whole(raw: dict[str, Any], key: str, default: int, least: int) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise SpecError(f"'{key}' must be a whole number of at least {least}, not {value!r}")
    return value


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
    if command is not None:
        _check_words(raw["name"], command)
    if url is not None:
        parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme != "http" or not parts.hostname:
            raise SpecError(f"bot {raw['name']!r}: 'url' must be an http:// address, not {url!r}")
    return BotSpec(raw["name"], url=url, command=tuple(command) if command else None)


def _game(raw: Any, i: int, field_size: int | None) -> GameSpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("game"), str):
        raise SpecError(f"games[{i}] needs a 'game'")
    players = raw.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players < 2 \
            or (field_size is not None and players > field_size):
        raise SpecError(f"games[{i}]: 'players' must be a whole number from 2 to the number of bots"
                        + (f" ({field_size})" if field_size is not None else ""))
    boards = raw.get("boards", 1)
    if not isinstance(boards, int) or boards < 1:
        raise SpecError(f"games[{i}]: 'boards' must be 1 or more")
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        raise SpecError(f"games[{i}]: 'options' must be an object")
    return GameSpec(game=raw["game"], players=players, options=dict(options), clock=_clock(raw.get("clock"), i),
                    boards=boards, duplicate=bool(raw.get("duplicate", True)))


def _check_words(name: str, command: list[str]) -> None:
    fill = dict.fromkeys(PLACEHOLDERS, "x")
    for word in command:
        try:
            word.format(**fill)
        except (KeyError, IndexError, ValueError) as exc:
            raise SpecError(f"bot {name!r}: the word {word!r} of 'command' holds an unknown placeholder ({exc}); "
                            f"known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)}") from exc


def _clock(clock: Any, i: int) -> dict[str, Any] | None:
    """The game's time control, checked as the service checks it, so that a bad one stops the run before round 1."""
    if clock is None:
        return None
    where = f"games[{i}]: 'clock'"
    if not isinstance(clock, dict):
        raise SpecError(f"{where} must be an object")
    unknown = sorted(set(clock) - set(CLOCK_KEYS))
    if unknown:
        raise SpecError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(CLOCK_KEYS)})")
    for key in ("move_ms", "bank_ms", "increment_ms"):
        value = clock.get(key)
        least = 0 if key == "increment_ms" else CLOCK_MIN_MS
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or not least <= value <= CLOCK_MAX_MS):
            raise SpecError(f"{where}: {key!r} must be a whole number of ms from {least} to {CLOCK_MAX_MS}")
    if clock.get("move_ms") is None and clock.get("bank_ms") is None:
        raise SpecError(f"{where}: give 'move_ms', 'bank_ms' or both")
    if clock.get("policy", "forfeit") not in CLOCK_POLICIES:
        raise SpecError(f"{where}: 'policy' must be one of {', '.join(CLOCK_POLICIES)}")
    return dict(clock)
