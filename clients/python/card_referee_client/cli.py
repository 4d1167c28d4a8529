"""``card-referee``: the command line.

    card-referee tournament run SPEC.json --url http://127.0.0.1:8000 --out DIR [--parallel N] [--quiet] [--restart]
    card-referee tournament verify DIR --url http://127.0.0.1:8000
    card-referee bot {random,greedy} [--port P]                      an example bot, served over HTTP
    card-referee bot {random,greedy} --url U --session ID --token=T  an example bot, joined as a seat

``run`` checks the whole description and reaches every bot before round 1 (exit 2 naming every problem), and
continues the tournament already in ``--out`` (``--restart`` starts over). It exits 0 when every match was
played; on SIGINT or SIGTERM the matches in flight finish and are recorded (a second signal abandons them), and
it exits 128 + the signal's number saying how to resume. ``verify`` exits 0 when everything checks, 1 naming the
first discrepancy. docs/tournaments.md describes the spec, the bot protocol, the records and the scoring.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from .bots import STRATEGIES, play_seat, serve_bot
from .client import Client
from .errors import CardRefereeError
from .tournament.preflight import preflight
from .tournament.runner import Interrupted, ResumeError, Runner, Stop, clear, prepare
from .tournament.spec import SpecError, TournamentSpec, load
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
    run.add_argument("--restart", action="store_true",
                     help="start over: remove the records of an earlier run in --out instead of resuming it")
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
        spec = prepare(args.out, spec, args.restart)
    except (OSError, ValueError, SpecError, ResumeError) as exc:
        print(f"card-referee: {args.spec}: {exc}", file=sys.stderr)
        return 2
    if args.parallel:
        spec = dataclasses.replace(spec, parallel=args.parallel)
    client = Client(args.url)
    problems = preflight(spec, client)
    if problems:
        print(f"card-referee: {args.spec}: the pre-flight found {len(problems)} problem(s); nothing was played:",
              file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        return 2
    if args.restart:
        clear(args.out)
    return _play(args, spec, client)


def _play(args: argparse.Namespace, spec: TournamentSpec, client: Client) -> int:
    stop = Stop()
    runner = Runner(spec, client, args.out, None if args.quiet else sys.stderr, stop)
    with _stopped_by_signals(stop) as received:
        try:
            rows = runner.run()
        except Interrupted as exc:
            name = signal.Signals(received[-1]).name if received else "request"
            again = shlex.join(["card-referee", "tournament", "run", str(args.spec), "--url", args.url,
                                "--out", str(args.out)])
            print(f"card-referee: stopped on {name}: {exc}, each complete, in {args.out}.\n"
                  f"Resume with the same command: {again}", file=sys.stderr)
            return 128 + (received[-1] if received else signal.SIGINT)
        except (CardRefereeError, ResumeError) as exc:
            print(f"card-referee: the tournament stopped: {exc}", file=sys.stderr)
            return 1
    for note in runner.notes:
        print(f"card-referee: {note}", file=sys.stderr)
    print((args.out / "results.md").read_text(), end="")
    return 0 if rows else 1


@contextmanager
def _stopped_by_signals(stop: Stop) -> Iterator[list[int]]:
    """SIGINT and SIGTERM request a clean stop (a second one abandons the matches in flight) while the body runs;
    the signals received are listed in what it yields."""
    received: list[int] = []

    def handle(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        stop.request()
        what = "abandoning the matches in flight" if stop.halt.is_set() else \
            "finishing the matches in flight (again to abandon them)"
        try:
            print(f"card-referee: {signal.Signals(signum).name}: stopping, {what}", file=sys.stderr, flush=True)
        except RuntimeError:  # the main thread was itself writing to stderr: the stop stands, unannounced
            pass

    before = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _verify(args: argparse.Namespace) -> int:
    try:
        checked, problem = verify(args.directory, Client(args.url))
    except CardRefereeError as exc:
        print(f"card-referee: verify could not finish: {exc}", file=sys.stderr)
        return 2
    if problem is not None:
        print(f"FAILED after {checked} good records: {problem}")
        return 1
    print(f"OK: {checked} match records replayed, every commitment, the standings and the published tables check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
