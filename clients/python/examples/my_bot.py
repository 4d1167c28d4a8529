"""A template for a bot of your own: write ``choose``, then serve it, join a session with it, or host it.

    python my_bot.py 9003                                  # an HTTP bot on port 9003 (for the tournament runner)
    python my_bot.py --url URL --session ID --token=T      # play one seat of a session to its end
    python my_bot.py --url URL --bot-token=T               # a hosted bot: play every match the service announces

(``card-referee bot host my_bot.py --token=T --url URL`` hosts it too.) A hosted bot's token comes from
``card-referee bot register NAME --owner CONTACT``, or from ``$CARD_REFEREE_BOT_TOKEN``.

This one always plays the first legal move it is offered. The two example bots of the package are
``card-referee bot random`` and ``card-referee bot greedy`` (card_referee_client/bots.py).
"""
from __future__ import annotations

import argparse
import os
from typing import Any

from card_referee_client import Client, play_seat, serve_bot
from card_referee_client.bots import concrete
from card_referee_client.hosted import run_bot


def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
    return concrete(legal_moves[0])  # a move given as a range (a stake, a bid) gets the range's minimum


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("port", type=int, nargs="?", default=9003)
    parser.add_argument("--url", action="append", help="the service (again for each further instance)")
    parser.add_argument("--session")
    parser.add_argument("--token")
    parser.add_argument("--bot-token", default=os.environ.get("CARD_REFEREE_BOT_TOKEN"))
    parser.add_argument("--until", help="hosted: exit once this tournament is over")
    args = parser.parse_args()
    urls = args.url or ["http://127.0.0.1:8000"]
    if args.bot_token:
        run_bot(urls, args.bot_token, choose, until=args.until)
    elif args.session:
        play_seat(Client(urls[0]).seat(args.session, args.token), choose)
    else:
        serve_bot(choose, port=args.port)
