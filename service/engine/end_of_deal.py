"""The end of a deal, the same in every game: the match over, or the next deal.

A game settles a deal in its own words (its ``deal_settled`` or ``round_settled`` event), says whether the match
is over, and hands the rest to ``end_deal``:

- over: the game's last settlement runs (``final``: a pot shared out, a winner recorded) and returns what the
  ``match_over`` event tells besides its type; the phase becomes "over" and the event follows.
- not over: what changes between two deals runs first (``between``: a dealer the play chose, a deal counted),
  then the game's ``new_deal``, which keeps the carried values as the next deal's ``before`` and starts its log.

A match that ends outside a deal's settlement (a correct claim, a session ended between deals) ends with
``close_match``, the same ending without the settlement. Most games pass the deal round the table in turn from
``first_dealer``: ``dealer_in_turn`` is that dealer, for a game's ``deal``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .base import OVER, Event, State

News = dict[str, Any]  # what a ``match_over`` event says besides its type


class Dealer(Protocol):
    """What ``end_deal`` needs of a game: beginning its next deal (``Game.new_deal``)."""

    def new_deal(self, state: State, events: list[Event]) -> None: ...


def no_news(state: State) -> News:
    return {}


def end_deal(game: Dealer, state: State, events: list[Event], over: bool, *,
             final: Callable[[State], News] = no_news, between: Callable[[State], None] | None = None) -> None:
    """After the deal's settlement: ``over``, the match ends (``final`` first); else the next deal begins
    (``between`` first)."""
    if over:
        close_match(state, events, final(state))
        return
    if between is not None:
        between(state)
    game.new_deal(state, events)


def close_match(state: State, events: list[Event], news: News) -> None:
    """The match is over: phase "over", and the ``match_over`` event with ``news``."""
    state["phase"] = OVER
    events.append({"type": "match_over", **news})


def dealer_in_turn(state: State, seats: int, step: int = 1) -> int:
    """The dealer of deal ``deal_no`` when the deal passes ``step`` seats each time from ``first_dealer``
    (1: to the left; -1: to the right)."""
    return int(state["options"]["first_dealer"] + step * (state["deal_no"] - 1)) % seats
