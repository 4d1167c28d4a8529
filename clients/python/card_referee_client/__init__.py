"""Card Referee's Python client: stateless calls, sessions, the event stream, bots, the tournament runner, and both
sides of hosted tournaments (``run_bot`` for a bot, ``Organiser`` for its organiser)."""
from .bots import BotServer, greedy_bot, play_seat, random_bot, serve_bot
from .client import Client, Event, SeatClient
from .errors import (AbortTooLate, CardRefereeError, Forbidden, IllegalMove, InvalidRequest, NotFound, ProblemError,
                     StoreUnavailable, TooManyRequests, TransportError, Unauthorized, VersionConflict)
from .hosted import Organiser, register_bot, run_bot

__all__ = ["AbortTooLate", "BotServer", "CardRefereeError", "Client", "Event", "Forbidden", "IllegalMove",
           "InvalidRequest", "NotFound", "Organiser", "ProblemError", "SeatClient", "StoreUnavailable",
           "TooManyRequests", "TransportError", "Unauthorized", "VersionConflict", "greedy_bot", "play_seat",
           "random_bot", "register_bot", "run_bot", "serve_bot"]
