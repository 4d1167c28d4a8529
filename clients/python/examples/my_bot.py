"""A template for a bot of your own: write ``choose``, then serve it or join a session with it.

    python my_bot.py 9003                                  # an HTTP bot on port 9003 (for the tournament runner)
    python my_bot.py --url URL --session ID --token=T      # play one seat of a session to its end

This one always plays the first legal move it is offered. The two example bots of the package are
``card-referee bot random`` and ``card-referee bot greedy`` (card_referee_client/bots.py).
"""
from __future__ import annotations

import argparse
from typing import Any

from card_referee_client import Client, play_seat, serve_bot
from card_referee_client.bots import concrete


def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
    return concrete(legal_moves[0])  # a move given as a range (a stake, a bid) gets the range's minimum


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("port", type=int, nargs="?", default=9003)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--session")
    parser.add_argument("--token")
    args = parser.parse_args()
    if args.session:
        play_seat(Client(args.url).seat(args.session, args.token), choose)
    else:
        serve_bot(choose, port=args.port)
