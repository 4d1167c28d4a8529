"""Bots: a function ``choose(view, legal_moves) -> move`` made into a player, and two example strategies.

Two ways to field a bot (docs/tournaments.md has the details):

- **An HTTP endpoint** (:func:`serve_bot`): the tournament runner posts each decision to it, with the seat's view,
  its legal moves and its clock, and takes the move it answers within the seat's time. The runner holds the
  seat's token; the bot never talks to the service.

      POST <bot URL>   {"protocol": "card-referee-bot/1", "game", "session", "seat", "version",
                        "view", "legal_moves", "clock", "time_ms"}
      200              {"move": {...one of legal_moves, a range resolved...}}

  Anything else (no answer in ``time_ms``, a non-200 status, a body without a move) is the bot's failure, and
  the runner handles it as docs/tournaments.md declares.

- **A program that joins with its seat token** (:func:`play_seat`): it reads its view, waits for its turn with
  the long-poll and posts its own moves; ``card-referee bot random --url URL --session ID --token=T`` is one.

The examples: :func:`random_bot` (a uniformly random legal move) and :func:`greedy_bot` (for trick games: the
lowest card that wins the trick so far, else the lowest card it may play).
"""
from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .client import SeatClient
from .errors import VersionConflict
from .models import Move, SeatAnswer

Choose = Callable[[dict[str, Any], list[Move]], Move]
PROTOCOL = "card-referee-bot/1"
RANKS = "23456789TJQKA"
# Davoserjazz plays these hands with aces low (docs/games/davoserjazz.md); every other game here has them high.
ACES_LOW_HANDS = frozenset({"few", "clubs", "first_last"})


def concrete(move: Move, rng: random.Random | None = None) -> Move:
    """A legal-moves entry ready to post: each parameter given as a range (``ranges``) set to a value of it
    (its minimum, or a random value with ``rng``)."""
    ranges = move.get("ranges")
    if not ranges:
        return move
    out = dict(move)
    for key, span in ranges.items():
        out[key] = span["min"] if rng is None else rng.randint(span["min"], span["max"])
    return out


# ----- the example strategies -------------------------------------------------------------------------
def random_bot(seed: int | None = None) -> Choose:
    """A bot that plays a uniformly random legal move (``seed`` makes it repeatable)."""
    rng = random.Random(seed)

    def choose(view: dict[str, Any], legal_moves: list[Move]) -> Move:
        return concrete(rng.choice(legal_moves), rng)
    return choose


def card_strength(card: str, aces_low: bool) -> int:
    if card == "JK":
        return len(RANKS) + 1
    rank = RANKS.index(card[0]) + 1
    return 0 if aces_low and card[0] == "A" else rank


def greedy_bot() -> Choose:
    """For trick games without trumps: play the lowest card that beats the trick so far (leading, the lowest
    card); when no card wins, the lowest card allowed. Any move that is not a card play: the first one listed."""

    def choose(view: dict[str, Any], legal_moves: list[Move]) -> Move:
        plays = [m for m in legal_moves if m.get("action") == "play" and isinstance(m.get("card"), str)]
        if not plays:
            return concrete(legal_moves[0])
        aces_low = view.get("hand_name") in ACES_LOW_HANDS
        trick = view.get("trick") or {}
        played = [p[1] for p in trick.get("plays", [])] if isinstance(trick, dict) else []

        def strength(m: Move) -> int:
            return card_strength(m["card"], aces_low)
        if played:
            led = played[0][-1]
            best = max((c for c in played if c[-1] == led), key=lambda c: card_strength(c, aces_low))
            winners = [m for m in plays if m["card"][-1] == led
                       and card_strength(m["card"], aces_low) > card_strength(best, aces_low)]
            if winners:
                return min(winners, key=strength)
        return min(plays, key=strength)
    return choose


STRATEGIES: dict[str, Callable[[], Choose]] = {"random": random_bot, "greedy": greedy_bot}


# ----- a bot as an HTTP endpoint --------------------------------------------------------------------
class BotServer:
    """``choose`` served over HTTP on ``host:port`` (0: a free port) in a background thread; ``url`` says where.

        with BotServer(random_bot()) as bot:
            ...  # give bot.url to the tournament runner
    """

    def __init__(self, choose: Choose, host: str = "127.0.0.1", port: int = 0) -> None:
        self.choose = choose
        self.httpd = ThreadingHTTPServer((host, port), _handler(choose))
        self.httpd.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> BotServer:
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="bot-server", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_bot(choose: Choose, host: str = "127.0.0.1", port: int = 8800) -> None:
    """Serve ``choose`` as an HTTP bot until interrupted (the protocol is in this module's docstring)."""
    server = BotServer(choose, host, port)
    print(f"bot listening on {server.url}", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


def _handler(choose: Choose) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            try:
                length = int(self.headers.get("Content-Length", "0"))
                ask = json.loads(self.rfile.read(length))
                move = choose(ask["view"], ask["legal_moves"])
                self._answer(200, {"move": move})
            except Exception as exc:  # the bot's own failure: say so, the runner handles it
                self._answer(500, {"error": f"{type(exc).__name__}: {exc}"})

        def do_GET(self) -> None:  # noqa: N802
            self._answer(200, {"protocol": PROTOCOL})

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            raw = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except OSError:  # the runner stopped waiting (the seat's time was up): nobody to answer
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass
    return Handler


# ----- a bot as a program that joins with its seat token -----------------------------------------------
def play_seat(seat: SeatClient, choose: Choose, wait: float = 20.0) -> SeatAnswer:
    """Play one seat to the end of the match: wait for a turn (long-poll), choose, move; a move that lost a
    race to another version is chosen again on the new view. Answers the final view."""
    answer = seat.get()
    while not answer["finished"]:
        if answer["legal_moves"]:
            move = choose(answer["view"], answer["legal_moves"])
            try:
                answer = seat.move(move, version=answer["version"])
            except VersionConflict:
                answer = seat.get()
            continue
        answer = seat.wait(answer["version"], wait)
    return answer
