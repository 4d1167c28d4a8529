"""``card-referee``: the command line.

    card-referee tournament run SPEC.json --url http://127.0.0.1:8000 --out DIR [--parallel N] [--quiet]
    card-referee tournament verify DIR --url http://127.0.0.1:8000
    card-referee bot {random,greedy} [--port P]                      an example bot, served over HTTP
    card-referee bot {random,greedy} --url U --session ID --token=T  an example bot, joined as a seat

``run`` exits 0 when every match was played; ``verify`` exits 0 when everything checks, 1 naming the first
discrepancy. docs/tournaments.md describes the spec, the bot protocol, the records and the scoring.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .bots import STRATEGIES, play_seat, serve_bot
from .client import Client
from .errors import CardRefereeError
from .tournament.runner import Runner
from .tournament.spec import SpecError, load
from .tournament.verify import verify


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="card-referee", description="Card Referee tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    tournament = sub.add_parser("tournament", help="run or verify a tournament of bots")
    tsub = tournament.add_subparsers(dest="action", required=True)
    run = tsub.add_parser("run", help="play a tournament and write its records and results to --out")
    run.add_argument("spec", type=Path, help="the tournament's JSON description")
    run.add_argument("--url", default="http://127.0.0.1:8000", help="the Card Referee service")
    run.add_argument("--out", type=Path, required=True, help="directory for the records and results")
    run.add_argument("--parallel", type=int, help="matches played at once (overrides the spec)")
    run.add_argument("--quiet", action="store_true", help="no progress lines")
    check = tsub.add_parser("verify", help="replay every record, check commitments and standings")
    check.add_argument("directory", type=Path)
    check.add_argument("--url", default="http://127.0.0.1:8000", help="a Card Referee service to replay with")
    bot = sub.add_parser("bot", help="an example bot: served over HTTP, or joined to a session as a seat")
    bot.add_argument("strategy", choices=sorted(STRATEGIES))
    bot.add_argument("--host", default="127.0.0.1")
    bot.add_argument("--port", type=int, default=8800, help="serve as an HTTP bot on this port")
    bot.add_argument("--url", default="http://127.0.0.1:8000", help="the service (to join a session)")
    bot.add_argument("--session", help="join this session as the seat of --token, and play it to the end")
    bot.add_argument("--token", help="the seat's token (write --token=T: a token may begin with '-')")
    args = parser.parse_args(argv)
    if args.command == "bot":
        return _bot(args, parser)
    if args.action == "run":
        return _run(args)
    return _verify(args)


def _bot(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    choose = STRATEGIES[args.strategy]()
    if args.session is None:
        serve_bot(choose, args.host, args.port)
        return 0
    if not args.token:
        parser.error("--session needs --token")
    play_seat(Client(args.url).seat(args.session, args.token), choose)
    return 0


def _run(args: argparse.Namespace) -> int:
    try:
        spec = load(json.loads(args.spec.read_text()))
    except (OSError, ValueError, SpecError) as exc:
        print(f"card-referee: {args.spec}: {exc}", file=sys.stderr)
        return 2
    if args.parallel:
        spec = dataclasses.replace(spec, parallel=args.parallel)
    try:
        rows = Runner(spec, Client(args.url), args.out, None if args.quiet else sys.stderr).run()
    except CardRefereeError as exc:
        print(f"card-referee: the tournament stopped: {exc}", file=sys.stderr)
        return 1
    print((args.out / "results.md").read_text(), end="")
    return 0 if rows else 1


def _verify(args: argparse.Namespace) -> int:
    try:
        checked, problem = verify(args.directory, Client(args.url))
    except CardRefereeError as exc:
        print(f"card-referee: verify could not finish: {exc}", file=sys.stderr)
        return 2
    if problem is not None:
        print(f"FAILED after {checked} good records: {problem}")
        return 1
    print(f"OK: {checked} match records replayed, every commitment and the standings check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
