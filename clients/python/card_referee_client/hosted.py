"""Tournaments hosted by the service, client side: a bot that holds its stream, and the organiser's calls.

A bot registers once (:func:`register_bot`: its token is answered only then), then holds one event stream with
that token (:func:`run_bot`). The service announces each of its matches on the stream (``match_started``: the
session, the seat and the seat's token); the bot plays it through the session API like any seat
(:func:`~card_referee_client.bots.play_seat`). The open stream is the bot's presence: the service pairs it and
starts its clock only once it has announced the match.

    run_bot(["http://a:8000", "http://b:8000"], token, greedy_bot(), parallel=4)

:func:`run_bot` reconnects with ``Last-Event-ID`` when the stream drops, goes over to the next base URL when
one cannot be reached (two instances sharing one Redis: a bot survives the loss of either without a proxy),
plays each announced match once (announcements are at least once: a repeated ``match`` id is ignored) and
several at once. A bot that cannot go on in a match concedes it with the reason, as the local runner does:
a move the service refuses as illegal ("illegal: ..."), and an exception of ``choose`` ("crashed: ...").

:class:`Organiser` is the organiser's side: create a tournament (an entry list, or registration until a time),
start, pause, resume, cancel, withdraw a bot, watch its events, and download its standings and records.
"""
from __future__ import annotations

import http.client
import socket
import sys
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO, cast

from .bots import Choose, play_seat
from .client import Client, Event, parse_events
from .errors import CardRefereeError, IllegalMove, NotFound, ProblemError, TransportError
from .models import SeatAnswer
from .transport import problem_of

BOT_EVENTS = "/v1/bots/me/events"
FINAL_EVENTS = frozenset({"tournament_finished", "cancelled"})
STREAM_TIMEOUT = 60.0   # seconds without a byte (the service sends a heartbeat every 15 s by default)
TEXT_TYPES = {"csv": "text/csv", "md": "text/markdown"}
MAX_PAUSE = 2.0         # longest wait between two attempts to reach the service
PLAY_ATTEMPTS = 20      # connection failures in a row (over every base URL) before a match is given up


# ----- an event stream that survives drops and instances ---------------------------------------------
class Follower:
    """An SSE path followed across reconnects (``Last-Event-ID``) and base URLs (the next one on a connection
    failure). 401/403/404 and other refusals are raised; a 503, an ``error`` event (the service's store did not
    answer) or a lost connection is tried again, with a pause that grows to :data:`MAX_PAUSE`, for ever
    (``stop`` ends it). A stream the service closes on time is resumed at once."""

    def __init__(self, urls: Sequence[str], path: str, headers: dict[str, str], last_event_id: str | None = None,
                 timeout: float = STREAM_TIMEOUT, stop: threading.Event | None = None) -> None:
        if not urls:
            raise ValueError("at least one base URL is needed")
        self.urls = [u.rstrip("/") for u in urls]
        self.path, self.headers, self.timeout = path, headers, timeout
        self.last_event_id = last_event_id
        self.stop = stop or threading.Event()
        self.current = 0          # index of the base URL in use
        self.connections = 0      # streams opened (a reconnect is one more)
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.urls[self.current]

    def fail_over(self) -> None:
        self.current = (self.current + 1) % len(self.urls)

    def close(self) -> None:
        """Stop following: wakes a read that is waiting for the next event."""
        self.stop.set()
        with self._lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def events(self) -> Iterator[Event]:
        failures = 0
        while not self.stop.is_set():
            try:
                failed = False
                for event in parse_events(self._lines()):
                    if event.event == "error":  # the instance's store failed: the stream ends, try again
                        failed = True
                        continue
                    failures = 0
                    if event.id:
                        self.last_event_id = event.id
                    yield event
            except TransportError:
                failed = True
            except ProblemError as exc:
                if exc.status < 500 and exc.status != 429:
                    raise
                failed = True
            if failed and not self.stop.is_set():
                # the next instance at once; when every one has failed in turn, pauses that grow
                failures += 1
                self.fail_over()
                if failures >= len(self.urls):
                    self.stop.wait(min(0.1 * 2 ** (failures - len(self.urls) + 1), MAX_PAUSE))

    def _lines(self) -> Iterator[bytes]:
        parts = urllib.parse.urlsplit(self.url)
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(parts.hostname or "127.0.0.1", parts.port, timeout=self.timeout)
        headers = {"Accept": "text/event-stream", **self.headers}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        with self._lock:
            self._conn = conn
        try:
            conn.request("GET", parts.path.rstrip("/") + self.path, headers=headers)
            resp = conn.getresponse()
            self.connections += 1
            if resp.status >= 400:
                raise problem_of(resp.status, resp.read(), resp.getheader("Retry-After"))
            if resp.status == 204:
                self.stop.wait(1.0)  # nothing to send now: ask again shortly
                return
            while not self.stop.is_set():
                line = resp.readline()
                if not line:
                    return
                yield line
        except (OSError, http.client.HTTPException) as exc:
            raise TransportError(f"GET {self.url}{self.path}: {type(exc).__name__}: {exc}") from exc
        finally:
            with self._lock:
                self._conn = None
            conn.close()


# ----- the bot ----------------------------------------------------------------------------------
Play = Callable[[Client, dict[str, Any], Choose], SeatAnswer]


def play_announced(client: Client, announcement: dict[str, Any], choose: Choose) -> SeatAnswer:
    """Play the seat a ``match_started`` announcement gives to the end of the match. A refused move or an
    exception of ``choose`` concedes the match for the seat, with the reason (the service records it)."""
    seat = client.seat(announcement["session"], announcement["token"])
    try:
        return play_seat(seat, choose)
    except IllegalMove as exc:
        return _concede(seat.concede, f"illegal: {exc.reason or exc.code}: {exc.detail}")
    except (ProblemError, TransportError):
        raise
    except Exception as exc:  # the bot's own code failed: give the match up rather than let its clock run out
        return _concede(seat.concede, f"crashed: {type(exc).__name__}: {exc}")


def _concede(concede: Callable[[str], SeatAnswer], reason: str) -> SeatAnswer:
    try:
        return concede(reason)
    except ProblemError as exc:  # the match ended first (the clock, the others): nothing left to give up
        raise CardRefereeError(f"could not concede ({reason}): {exc}") from exc


class HostedBot:
    """The state of :func:`run_bot`: the stream, the matches seen, the matches in flight."""

    def __init__(self, urls: Sequence[str], bot_token: str, choose: Choose, parallel: int = 4,
                 until: str | None = None, log: TextIO | None = None, play: Play = play_announced,
                 stream_timeout: float = STREAM_TIMEOUT, stop: threading.Event | None = None) -> None:
        self.choose, self.until, self.log, self.play = choose, until, log, play
        self.stream = Follower(urls, BOT_EVENTS, {"Authorization": f"Bearer {bot_token}"},
                               timeout=stream_timeout, stop=stop)
        self.clients = {u: Client(u) for u in self.stream.urls}
        self.pool = ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="match")
        self.seen: set[str] = set()
        self.played: list[str] = []
        self.failed: list[str] = []
        self._lock = threading.Lock()

    def run(self) -> list[str]:
        """Follow the stream until ``stop`` is set (or ``until``'s tournament ends); the matches played."""
        # a stop set from outside must wake the read that waits for the next event
        threading.Thread(target=self._close_on_stop, name="bot-stop", daemon=True).start()
        try:
            for event in self.stream.events():
                if self._handle(event):
                    break
        finally:
            self.pool.shutdown(wait=True)  # the matches announced are played to their end
            self.stream.stop.set()
            for client in self.clients.values():
                client.close()
        return self.played

    def _close_on_stop(self) -> None:
        self.stream.stop.wait()
        self.stream.close()

    def _handle(self, event: Event) -> bool:
        """Act on one event; True when the bot is done (``until``'s tournament is over)."""
        data = event.data if isinstance(event.data, dict) else {}
        if event.event == "match_started":
            self.announce(data)
        elif event.event in FINAL_EVENTS and self.until is not None and data.get("tournament") == self.until:
            self._say(f"tournament {self.until} is over")
            return True
        return False

    def announce(self, data: dict[str, Any]) -> bool:
        """Start playing an announced match, once per match id; False for a repeated announcement."""
        match = str(data.get("match") or data.get("session"))
        with self._lock:
            if match in self.seen:
                return False
            self.seen.add(match)
        self._say(f"{match}: {data.get('game')} seat {data.get('seat')} (session {data.get('session')})")
        self.pool.submit(self._play, match, data)
        return True

    def _play(self, match: str, data: dict[str, Any]) -> None:
        failures = 0
        while not self.stream.stop.is_set():
            url = self.stream.url
            try:
                answer = self.play(self.clients[url], data, self.choose)
            except TransportError as exc:  # this instance is gone: go on through the next one
                failures += 1
                if failures >= PLAY_ATTEMPTS:
                    return self._give_up(match, str(exc))
                if self.stream.url == url:  # not already moved on by the stream or another match
                    self.stream.fail_over()
                self.stream.stop.wait(min(0.05 * 2 ** failures, MAX_PAUSE))
                continue
            except NotFound:  # an old announcement (a stream read from its start) of a session since expired
                self._say(f"{match}: its session is gone: nothing to play")
                return None
            except CardRefereeError as exc:
                return self._give_up(match, str(exc))
            except (KeyError, TypeError) as exc:  # an announcement without a session or a token
                return self._give_up(match, f"the announcement cannot be played: {type(exc).__name__}: {exc}")
            result: dict[str, Any] = dict(answer.get("result") or {})
            self._say(f"{match}: over, payoffs {result.get('payoffs')}")
            self.played.append(match)
            return None
        return None

    def _give_up(self, match: str, why: str) -> None:
        self._say(f"{match}: stopped playing: {why}")
        with self._lock:
            self.failed.append(match)
            self.seen.discard(match)  # announced again (the service repeats announcements), it is played again

    def _say(self, line: str) -> None:
        if self.log is not None:
            print(f"bot: {line}", file=self.log, flush=True)


def run_bot(urls: str | Sequence[str], bot_token: str, choose: Choose, parallel: int = 4, *,
            until: str | None = None, stop: threading.Event | None = None, log: TextIO | None = sys.stderr,
            stream_timeout: float = STREAM_TIMEOUT) -> list[str]:
    """Be a hosted bot: hold the bot's event stream on ``urls`` (one base URL or several instances' of one
    service) and play every match announced on it with ``choose``, up to ``parallel`` at once, until ``stop``
    is set or, with ``until``, that tournament is over. Answers the ids of the matches played to their end.
    Raises Unauthorized for a token the service does not know."""
    bot = HostedBot([urls] if isinstance(urls, str) else list(urls), bot_token, choose, parallel, until, log,
                    stream_timeout=stream_timeout, stop=stop)
    return bot.run()


# ----- accounts -----------------------------------------------------------------------------------
def register_bot(url: str, name: str, owner: str) -> dict[str, Any]:
    """``POST /v1/bots``: ``{"id", "name", "owner", "token"}``; the token is answered only now."""
    with _client(url) as client:
        return cast(dict[str, Any], client.http.request("POST", "/v1/bots", {"name": name, "owner": owner}).body)


def bot_info(url: str, bot_id: str) -> dict[str, Any]:
    """``GET /v1/bots/{id}``: name, owner, connected, ratings per game."""
    with _client(url) as client:
        return cast(dict[str, Any], client.http.request("GET", f"/v1/bots/{bot_id}").body)


def ladder(url: str, game: str) -> list[dict[str, Any]]:
    """``GET /v1/games/{game}/ladder``: the rated bots of a game, best first."""
    with _client(url) as client:
        return cast(list[dict[str, Any]], client.http.request("GET", f"/v1/games/{game}/ladder").body["ladder"])


def join(url: str, tournament: str, bot_token: str) -> dict[str, Any]:
    """``POST /v1/tournaments/{id}/entries`` with the bot's token: enter a tournament open for registration."""
    with _client(url) as client:
        reply = client.http.request("POST", f"/v1/tournaments/{tournament}/entries", {},
                                    {"Authorization": f"Bearer {bot_token}"})
        return cast(dict[str, Any], reply.body)


class _client:
    def __init__(self, url: str) -> None:
        self.client = Client(url)

    def __enter__(self) -> Client:
        return self.client

    def __exit__(self, *exc: object) -> None:
        self.client.close()


# ----- the organiser ------------------------------------------------------------------------------
def split_tournament_url(url: str) -> tuple[str, str]:
    """``http://host:8000/v1/tournaments/ID`` (or the page's ``/tournaments/ID``) as (base URL, ID)."""
    parts = urllib.parse.urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("http", "https") or "tournaments" not in segments \
            or segments.index("tournaments") + 1 >= len(segments):
        raise ValueError(f"not a tournament's URL: {url!r}")
    at = segments.index("tournaments")
    prefix = segments[:at - 1] if at and segments[at - 1] == "v1" else segments[:at]
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/".join(["", *prefix]), "", ""))
    return base.rstrip("/"), segments[at + 1]


class Organiser:
    """One tournament's organiser calls. ``create`` fills ``tournament`` and ``token`` (the organiser token,
    answered only then: keep it); an existing tournament is given by its id (and token, for the actions)."""

    def __init__(self, url: str, tournament: str | None = None, token: str | None = None,
                 timeout: float = 30.0) -> None:
        self.client = Client(url, timeout=timeout)
        self.tournament, self.token = tournament, token

    @classmethod
    def at(cls, tournament_url: str, token: str | None = None) -> Organiser:
        base, tid = split_tournament_url(tournament_url)
        return cls(base, tid, token)

    def close(self) -> None:
        self.client.close()

    @property
    def path(self) -> str:
        if self.tournament is None:
            raise ValueError("no tournament: create one, or give its id")
        return f"/v1/tournaments/{self.tournament}"

    def create(self, description: dict[str, Any], entries: Sequence[str] | None = None,
               registration_until: str | None = None) -> dict[str, Any]:
        """``POST /v1/tournaments`` with the entries (bot ids) or open registration until a time (RFC 3339)."""
        body: dict[str, Any] = {"description": description}
        if registration_until is not None:
            body["registration"] = {"until": registration_until}
        else:
            body["entries"] = list(entries or [])
        created = cast(dict[str, Any], self.client.http.request("POST", "/v1/tournaments", body).body)
        self.tournament, self.token = created["id"], created["organiser_token"]
        return created

    def get(self) -> dict[str, Any]:
        return cast(dict[str, Any], self.client.http.request("GET", self.path).body)

    def start(self) -> dict[str, Any]:
        return self._act("start")

    def pause(self) -> dict[str, Any]:
        return self._act("pause")

    def resume(self) -> dict[str, Any]:
        return self._act("resume")

    def cancel(self) -> dict[str, Any]:
        return self._act("cancel")

    def withdraw(self, bot: str) -> dict[str, Any]:
        return self._act("withdraw", {"bot": bot})

    def _act(self, action: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if not self.token:
            raise ValueError(f"{action} needs the organiser token")
        reply = self.client.http.request("POST", f"{self.path}/{action}", body or {},
                                         {"Authorization": f"Bearer {self.token}"})
        return cast(dict[str, Any], reply.body if isinstance(reply.body, dict) else {})

    def standings(self, fmt: str = "json") -> Any:
        """The published standings: ``json`` (rows), or the text of the ``csv`` or ``md`` table."""
        if fmt == "json":
            return self.client.http.request("GET", f"{self.path}/standings?format=json").body
        return self.client.http.text(f"{self.path}/standings?format={fmt}", TEXT_TYPES[fmt])

    def records(self) -> dict[str, Any]:
        """The archive (``card-referee-tournament-archive/1``): what ``tournament verify`` checks."""
        return cast(dict[str, Any], self.client.http.request("GET", f"{self.path}/records").body)

    def watch(self, last_event_id: str | None = None, stop: threading.Event | None = None) -> Iterator[Event]:
        """The tournament's events, across reconnects, up to ``tournament_finished`` or ``cancelled``."""
        follower = Follower([self.client.base_url], f"{self.path}/events", {}, last_event_id, stop=stop)
        for event in follower.events():
            yield event
            if event.event in FINAL_EVENTS:
                return


__all__ = ["Follower", "HostedBot", "Organiser", "bot_info", "join", "ladder", "play_announced", "register_bot",
           "run_bot", "split_tournament_url"]
