"""``card-referee``: the command line.

    card-referee tournament run SPEC.json --url http://127.0.0.1:8000 --out DIR [--parallel N] [--quiet] [--restart]
    card-referee tournament verify DIR|ARCHIVE.json|TOURNAMENT_URL [--url http://127.0.0.1:8000]
    card-referee bot {random,greedy} [--port P]                      an example bot, served over HTTP
    card-referee bot {random,greedy} --url U --session ID --token=T  an example bot, joined as a seat

Hosted tournaments (the service pairs, plays and ranks; hosted.py):

    card-referee bot register NAME --owner CONTACT --url U           prints the bot's id and token (once)
    card-referee bot host {random,greedy,FILE.py} --token=T --url U [--url U2] [--parallel N] [--until ID]
    card-referee tournament create DESC.json --entries ID ... | --registration-until TIME  [--url U]
    card-referee tournament {start,pause,resume,cancel} ID --token=ORGANISER_TOKEN [--url U]
    card-referee tournament withdraw ID BOT --token=ORGANISER_TOKEN
    card-referee tournament {watch,records,standings} ID    (ID: the tournament's id with --url, or its URL)
    card-referee tournament join ID --token=BOT_TOKEN

Tokens may also come from $CARD_REFEREE_BOT_TOKEN and $CARD_REFEREE_ORGANISER_TOKEN (out of the process list).

``run`` checks the whole description and reaches every bot before round 1 (exit 2 naming every problem), and
continues the tournament already in ``--out`` (``--restart`` starts over). It exits 0 when every match was
played; on SIGINT or SIGTERM the matches in flight finish and are recorded (a second signal abandons them), and
it exits 128 + the signal's number saying how to resume. ``verify`` exits 0 when everything checks, 1 naming the
first discrepancy. docs/tournaments.md describes the spec, the bot protocol, the records and the scoring.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, cast

from .bots import STRATEGIES, Choose, play_seat, serve_bot
from .client import Client
from .errors import CardRefereeError
from .hosted import Organiser, join, register_bot, run_bot
from .tournament.preflight import preflight
from .tournament.runner import Interrupted, ResumeError, Runner, Stop, clear, prepare
from .tournament.spec import SpecError, TournamentSpec, load
from .tournament.verify import verify, verify_archive

DEFAULT_URL = "http://127.0.0.1:8000"
BOT_TOKEN_ENV = "CARD_REFEREE_BOT_TOKEN"
ORGANISER_ENV = "CARD_REFEREE_ORGANISER_TOKEN"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="card-referee", description="Card Referee tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    _tournament_commands(sub.add_parser("tournament", help="run, host or verify a tournament of bots"))
    _bot_commands(sub.add_parser("bot", help="an example bot (served over HTTP, joined as a seat, or hosted); "
                                             "register a hosted bot"))
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args, parser))
    except CardRefereeError as exc:
        print(f"card-referee: {exc}", file=sys.stderr)
        return 1


def _tournament_commands(tournament: argparse.ArgumentParser) -> None:
    tsub = tournament.add_subparsers(dest="action", required=True)
    run = tsub.add_parser("run", help="play a tournament and write its records and results to --out")
    run.add_argument("spec", type=Path, help="the tournament's JSON description")
    run.add_argument("--url", default="http://127.0.0.1:8000", help="the Card Referee service")
    run.add_argument("--out", type=Path, required=True, help="directory for the records and results")
    run.add_argument("--parallel", type=int, help="matches played at once (overrides the spec)")
    run.add_argument("--quiet", action="store_true", help="no progress lines")
    run.add_argument("--restart", action="store_true",
                     help="start over: remove the records of an earlier run in --out instead of resuming it")
    run.set_defaults(handler=lambda a, p: _run(a))
    check = tsub.add_parser("verify", help="replay every record, recompute pairings and standings, check the tables")
    check.add_argument("source", help="a run's output directory, a hosted tournament's archive (JSON file), or the "
                                      "tournament's URL (http://HOST/v1/tournaments/ID)")
    check.add_argument("--url", help="a Card Referee service to replay with (default: the tournament's own, "
                                     "else http://127.0.0.1:8000)")
    check.set_defaults(handler=lambda a, p: _verify(a))
    create = tsub.add_parser("create", help="create a hosted tournament; prints its id and organiser token")
    create.add_argument("description", type=Path, help="the description (JSON; its 'bots' are the entries)")
    create.add_argument("--url", default="http://127.0.0.1:8000", help="the Card Referee service")
    whom = create.add_mutually_exclusive_group(required=True)
    whom.add_argument("--entries", nargs="+", metavar="BOT_ID",
                      help="the registered bots that play (also comma-separated: --entries=ID1,ID2)")
    whom.add_argument("--registration-until", metavar="RFC3339",
                      help="open registration until then (bots join with 'tournament join')")
    _add_print(create, "id,organiser_token")
    create.set_defaults(handler=lambda a, p: _create(a))
    for action, text in (("start", "start now"), ("pause", "pause (no new round starts)"),
                         ("resume", "resume after a pause"), ("cancel", "cancel for good")):
        act = _tournament_parser(tsub, action, text)
        act.add_argument("--token", default=os.environ.get(ORGANISER_ENV),
                         help=f"the organiser token (or ${ORGANISER_ENV}); write --token=T")
        act.set_defaults(handler=_organiser_action)
    withdraw = _tournament_parser(tsub, "withdraw", "withdraw a bot from the tournament")
    withdraw.add_argument("bot", help="the bot's id")
    withdraw.add_argument("--token", default=os.environ.get(ORGANISER_ENV),
                          help=f"the organiser token (or ${ORGANISER_ENV}); write --token=T")
    withdraw.set_defaults(handler=_organiser_action)
    watch = _tournament_parser(tsub, "watch", "print the tournament's events until it is finished or cancelled")
    watch.set_defaults(handler=lambda a, p: _watch(a))
    records = _tournament_parser(tsub, "records", "download the archive of records (what verify checks)")
    records.add_argument("--out", type=Path, help="write it here (default: standard output)")
    records.set_defaults(handler=lambda a, p: _records(a))
    table = _tournament_parser(tsub, "standings", "print the published standings")
    table.add_argument("--format", choices=("md", "csv", "json"), default="md")
    table.set_defaults(handler=lambda a, p: _standings(a))
    join = _tournament_parser(tsub, "join", "enter a bot into a tournament open for registration")
    join.add_argument("--token", default=os.environ.get(BOT_TOKEN_ENV),
                      help=f"the bot's token (or ${BOT_TOKEN_ENV}); write --token=T")
    join.set_defaults(handler=lambda a, p: _join(a, p))


def _tournament_parser(tsub: Any, action: str, text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = tsub.add_parser(action, help=text)
    parser.add_argument("tournament", help="the tournament's id (with --url) or its URL")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the Card Referee service")
    return parser


def _bot_commands(bot: argparse.ArgumentParser) -> None:
    bsub = bot.add_subparsers(dest="action", required=True)
    for strategy in sorted(STRATEGIES):
        example = bsub.add_parser(strategy, help=f"the {strategy} example bot, served over HTTP or joined as a seat")
        example.add_argument("--host", default="127.0.0.1")
        example.add_argument("--port", type=int, default=8800, help="serve as an HTTP bot on this port")
        example.add_argument("--url", default="http://127.0.0.1:8000", help="the service (to join a session)")
        example.add_argument("--session", help="join this session as the seat of --token, and play it to the end")
        example.add_argument("--token", help="the seat's token (write --token=T: a token may begin with '-')")
        example.set_defaults(handler=_bot, strategy=strategy)
    register = bsub.add_parser("register", help="register a hosted bot; prints its id and token (shown once)")
    register.add_argument("name")
    register.add_argument("--owner", required=True, help="how to reach the bot's owner (an e-mail address)")
    register.add_argument("--url", default="http://127.0.0.1:8000", help="the Card Referee service")
    _add_print(register, "id,token")
    register.set_defaults(handler=lambda a, p: _print_fields(register_bot(a.url, a.name, a.owner), a.print))
    host = bsub.add_parser("host", help="be a hosted bot: hold the bot's stream and play every match announced")
    host.add_argument("strategy", help=f"{' or '.join(sorted(STRATEGIES))}, or a Python file defining "
                                       "choose(view, legal_moves)")
    host.add_argument("--token", default=os.environ.get(BOT_TOKEN_ENV),
                      help=f"the bot's token (or ${BOT_TOKEN_ENV}); write --token=T")
    host.add_argument("--url", action="append", help="the service; give it again for each further instance "
                                                     "(default http://127.0.0.1:8000)")
    host.add_argument("--parallel", type=int, default=4, help="matches played at once")
    host.add_argument("--until", metavar="TOURNAMENT", help="exit once this tournament is finished or cancelled")
    host.set_defaults(handler=_host)


def _bot(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    choose = STRATEGIES[args.strategy]()
    if args.session is None:
        serve_bot(choose, args.host, args.port)
        return 0
    if not args.token:
        parser.error("--session needs --token")
    play_seat(Client(args.url).seat(args.session, args.token), choose)
    return 0


def _host(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.token:
        parser.error(f"give the bot's token: --token=T or ${BOT_TOKEN_ENV}")
    try:
        choose = load_choose(args.strategy)
    except (OSError, ImportError, AttributeError, SyntaxError) as exc:
        parser.error(f"{args.strategy}: {exc}")
    stop = threading.Event()
    with _stopped_on(stop):
        played = run_bot(args.url or ["http://127.0.0.1:8000"], args.token, choose, args.parallel,
                         until=args.until, stop=stop)
    print(f"card-referee: {len(played)} matches played", file=sys.stderr)
    return 0


def load_choose(strategy: str) -> Choose:
    """An example strategy by name, or the ``choose`` function of a Python file (examples/my_bot.py)."""
    if strategy in STRATEGIES:
        return STRATEGIES[strategy]()
    path = Path(strategy)
    found = importlib.util.spec_from_file_location(f"card_referee_bot_{path.stem}", path)
    if found is None or found.loader is None or not path.is_file():
        raise ImportError(f"not one of {', '.join(sorted(STRATEGIES))} nor a Python file")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    choose = getattr(module, "choose")
    if not callable(choose):
        raise AttributeError("its 'choose' is not a function")
    return cast(Choose, choose)


@contextmanager
def _stopped_on(stop: threading.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop`` while the body runs."""
    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()
    before = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def _organiser(args: argparse.Namespace) -> Organiser:
    if args.tournament.startswith(("http://", "https://")):
        return Organiser.at(args.tournament, getattr(args, "token", None))
    return Organiser(args.url, args.tournament, getattr(args, "token", None))


def _create(args: argparse.Namespace) -> int:
    try:
        description = json.loads(args.description.read_text())
    except (OSError, ValueError) as exc:
        print(f"card-referee: {args.description}: {exc}", file=sys.stderr)
        return 2
    organiser = Organiser(args.url)
    description.pop("bots", None)
    entries = None if args.entries is None else [e for word in args.entries for e in word.split(",") if e]
    return _print_fields(organiser.create(description, entries, args.registration_until), args.print)


def _organiser_action(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.token:
        parser.error(f"give the organiser token: --token=T or ${ORGANISER_ENV}")
    organiser = _organiser(args)
    if args.action == "withdraw":
        return _print_json(organiser.withdraw(args.bot))
    return _print_json(getattr(organiser, args.action)())


def _watch(args: argparse.Namespace) -> int:
    last = "started"
    for event in _organiser(args).watch():
        print(f"{event.event} {json.dumps(event.data, separators=(',', ':'))}", flush=True)
        last = event.event
    return 0 if last == "tournament_finished" else 1


def _records(args: argparse.Namespace) -> int:
    text = json.dumps(_organiser(args).records(), indent=1) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text)
    return 0


def _standings(args: argparse.Namespace) -> int:
    table = _organiser(args).standings(args.format)
    sys.stdout.write(table if isinstance(table, str) else json.dumps(table, indent=1) + "\n")
    return 0


def _join(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.token:
        parser.error(f"give the bot's token: --token=T or ${BOT_TOKEN_ENV}")
    organiser = _organiser(args)
    return _print_json(join(organiser.client.base_url, str(organiser.tournament), args.token))


def _add_print(parser: argparse.ArgumentParser, example: str) -> None:
    parser.add_argument("--print", metavar="FIELDS", help=f"print only these fields of the answer, comma-separated, "
                                                           f"on one line (e.g. {example}); default: the JSON answer")


def _print_fields(body: dict[str, Any], fields: str | None) -> int:
    """The answer as one line of JSON, or the values of ``fields`` separated by spaces (for ``read`` in a shell)."""
    if fields is None:
        return _print_json(body)
    print(" ".join(str(body.get(f.strip(), "")) for f in fields.split(",")))
    return 0


def _print_json(body: Any) -> int:
    print(json.dumps(body, separators=(",", ":")))
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
    source: str = args.source
    try:
        if source.startswith(("http://", "https://")):
            organiser = Organiser.at(source)
            checked, problem = verify_archive(organiser.records(), Client(args.url or organiser.client.base_url))
        elif Path(source).is_dir():
            checked, problem = verify(Path(source), Client(args.url or DEFAULT_URL))
        else:
            checked, problem = verify_archive(_read_json(Path(source)), Client(args.url or DEFAULT_URL))
    except (OSError, ValueError) as exc:
        print(f"card-referee: {source}: {exc}", file=sys.stderr)
        return 2
    except CardRefereeError as exc:
        print(f"card-referee: verify could not finish: {exc}", file=sys.stderr)
        return 2
    if problem is not None:
        print(f"FAILED after {checked} good records: {problem}")
        return 1
    print(f"OK: {checked} match records replayed, every commitment, the pairings, the standings and the published "
          "tables check")
    return 0


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text())


if __name__ == "__main__":
    sys.exit(main())
