"""Bots as accounts, for hosted tournaments (docs/tournaments.md, "Hosting"):

    POST /v1/bots                  register a bot: its token is shown once (only its SHA-256 is kept)
    GET  /v1/bots/{id}             the bot, whether it is connected, its ratings per game
    GET  /v1/bots/me/events        the bot's event stream (bot token): the matches it is to play
    GET  /v1/games/{game}/ladder   every rated bot of a game, best first

A bot holds one event stream; holding it is the bot's "connected" (a presence key the stream refreshes with
each heartbeat, expiring a few heartbeats after the stream is gone).
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import orjson
from flask import Blueprint, Response, current_app, request

from ... import engine
from ...config import Config
from ...storage import StoreUnavailable
from ...tournaments import ratings
from ...tournaments.store import NameTaken, TournamentStore
from ..schemas import requests as schemas, tournaments as tournament_schemas
from .errors import ApiError
from .json import body, reply
from ...sessions.referee import now_ms
from ...sessions.service import REALM, TOKEN
from ..openapi import tournaments as contract
from ..openapi.operations import Body, documented
from ..openapi.shapes import event_stream, location, ok, problem_response, ref

bp = Blueprint("bots", __name__)

STREAM_ID = re.compile(r"^[0-9]{1,20}-[0-9]{1,20}$")
HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
RETRY_MS = 2000


def tournament_store() -> TournamentStore:
    """The app's tournament store; 503 when sessions live in this process only (no Redis)."""
    found: TournamentStore | None = current_app.extensions.get("tournament_store")
    if found is None:
        raise ApiError(503, "tournaments_need_redis", "Bots and tournaments need the service to run on Redis "
                                                      "(REDIS_URL): this instance keeps sessions in memory.")
    return found


def config() -> Config:
    c: Config = current_app.extensions["card_referee_config"]
    return c


def bearer(authorization: str | None, what: str) -> str:
    """The token of an ``Authorization: Bearer`` header; 401 when there is none or it is malformed."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not TOKEN.match(token):
        raise ApiError(401, "unauthorized", f"This needs {what}: 'Authorization: Bearer <token>'.",
                       headers={"WWW-Authenticate": REALM})
    return token


def bot_of_token(store: TournamentStore, authorization: str | None) -> str:
    bid = store.bot_by_token(bearer(authorization, "your bot's token"))
    if bid is None:
        raise ApiError(401, "unauthorized", "The token is not a bot's token.",
                       headers={"WWW-Authenticate": REALM + ', error="invalid_token"'})
    return bid


@bp.post("/v1/bots")
@documented("createBot", "Register a bot for hosted tournaments.",
            body=Body("BotCreate", {"name": "greedy-1", "owner": "ada@example.org"}),
            responses={"201": location(ok(ref("BotCreated"), "The bot, with its token (shown only now).")),
                       "400": contract.BAD, "409": problem_response("bot_name_taken: another bot has that name."),
                       "503": contract.NO_REDIS})
def create_bot() -> Response:
    store = tournament_store()
    data = schemas.load(tournament_schemas.BOT_CREATE, body())
    try:
        bot, token = store.create_bot(data["name"], data["owner"], now_ms())
    except NameTaken:
        raise ApiError(409, "bot_name_taken", f"A bot named {data['name']!r} exists already.") from None
    return reply({"id": bot["id"], "name": bot["name"], "owner": bot["owner"], "token": token}, 201,
                 {"Location": f"/v1/bots/{bot['id']}"})


@bp.get("/v1/bots/<bid>")
@documented("getBot", "A bot: whether it is connected, and its ratings per game.",
            responses={"200": ok(ref("Bot")), "404": problem_response("bot_not_found: no such bot."),
                       "503": contract.NO_REDIS})
def get_bot(bid: str) -> Response:
    store = tournament_store()
    bot = store.bot(bid) if len(bid) <= 64 else None
    if bot is None:
        raise ApiError(404, "bot_not_found", "There is no such bot.")
    rated = ratings.current(store)
    mine = {game: table[bot["name"]] for game, table in rated.items() if bot["name"] in table}
    return reply({"id": bot["id"], "name": bot["name"], "owner": bot["owner"],
                  "connected": store.live([bid])[bid], "ratings": mine})


@bp.get("/v1/games/<game>/ladder")
@documented("gameLadder", "Every rated bot of a game, best first (by ordinal).",
            responses={"200": ok(ref("Ladder")), "404": problem_response("unknown_game: no such game."),
                       "503": contract.NO_REDIS})
def ladder(game: str) -> Response:
    if game not in engine.all_games():
        raise ApiError(404, "unknown_game", f"There is no game {game!r}.")
    store = tournament_store()
    table = ratings.current(store).get(game, {})
    ids = store.bot_ids(list(table))
    rows = [{"bot": ids.get(name), "name": name, **r} for name, r in table.items()]
    rows.sort(key=lambda r: (-r["ordinal"], r["name"]))
    return reply({"game": game, "ladder": rows})


@bp.get("/v1/bots/me/events")
@documented("botEvents", "The bot's event stream: the matches it is to play.", description=contract.BOT_EVENTS,
            bearer=True, parameters=contract.STREAM_PARAMETERS,
            responses={"200": event_stream("The bot's events."), "400": contract.BAD,
                       "401": contract.no_token("the bot token"), "503": contract.NO_REDIS})
def bot_events() -> Response:
    store = tournament_store()
    bid = bot_of_token(store, request.headers.get("Authorization"))
    after = last_event_id()
    cfg = config()
    ttl_ms = int(cfg.bot_heartbeat * 3000)
    store.mark_live(bid, ttl_ms)
    events = stream(store, store.bot_stream(bid), after or "0", cfg, lambda: store.mark_live(bid, ttl_ms))
    return Response(events, mimetype="text/event-stream", headers=HEADERS)


def last_event_id() -> str | None:
    """Where the client stands: ``Last-Event-ID`` (EventSource sends it when it reconnects), else ``?after=``."""
    raw = request.headers.get("Last-Event-ID") or request.args.get("after")
    if raw is None or raw == "":
        return None
    if not STREAM_ID.match(raw):
        raise ApiError(400, "invalid_request", "'Last-Event-ID' must be an event id the stream sent (<ms>-<n>).")
    return raw


def stream(store: TournamentStore, key: str, after: str, cfg: Config, beat: Callable[[], None]) -> Iterator[bytes]:
    """A Redis stream as Server-Sent Events from after ``after``: each event with its stream id, a comment as
    heartbeat every BOT_HEARTBEAT seconds (``beat`` is called with each), closed after EVENTS_MAX seconds (resume
    with Last-Event-ID). A read waits for an event until the next heartbeat at most (the store may cut it short)."""
    deadline = time.monotonic() + cfg.events_max
    next_beat = time.monotonic() + cfg.bot_heartbeat
    yield b"retry: %d\n\n" % RETRY_MS
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                yield b": time limit reached; reconnect with Last-Event-ID\n\n"
                return
            if now >= next_beat:
                next_beat = now + cfg.bot_heartbeat
                beat()
                yield b": keep-alive\n\n"
            found = store.read_stream(key, after, int(min(next_beat, deadline) * 1000 - now * 1000))
            if not found:
                continue
            for eid, event, data in found:
                yield (b"id: " + eid.encode() + b"\nevent: " + event.encode() + b"\ndata: " + orjson.dumps(data)
                       + b"\n\n")
                after = eid
    except StoreUnavailable:
        yield b"event: error\ndata: " + orjson.dumps({"code": "store_unavailable", "detail": (
            "The store is unavailable; reconnect with Last-Event-ID.")}) + b"\n\n"
