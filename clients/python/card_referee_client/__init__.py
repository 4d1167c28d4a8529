"""Card Referee's Python client: stateless calls, sessions, the event stream, bots and the tournament runner."""
from .bots import BotServer, greedy_bot, play_seat, random_bot, serve_bot
from .client import Client, Event, SeatClient
from .errors import (AbortTooLate, CardRefereeError, Forbidden, IllegalMove, InvalidRequest, NotFound, ProblemError,
                     StoreUnavailable, TooManyRequests, TransportError, Unauthorized, VersionConflict)

__all__ = ["AbortTooLate", "BotServer", "CardRefereeError", "Client", "Event", "Forbidden", "IllegalMove",
           "InvalidRequest", "NotFound", "ProblemError", "SeatClient", "StoreUnavailable", "TooManyRequests",
           "TransportError", "Unauthorized", "VersionConflict", "greedy_bot", "play_seat", "random_bot", "serve_bot"]
