"""Hosted tournaments (docs/tournaments.md, "Hosting"): the service pairs, plays, ranks and publishes.

    POST /v1/tournaments                         create (description + entries, or open registration)
    GET  /v1/tournaments/{id}                    status, entries, rounds with their sessions, standings, progress
    GET  /v1/tournaments/{id}/standings          JSON, CSV or Markdown (the local runner's tables)
    GET  /v1/tournaments/{id}/events             the tournament's event stream (SSE, Last-Event-ID)
    GET  /v1/tournaments/{id}/records            the archive that ``card-referee tournament verify`` checks
    POST /v1/tournaments/{id}/entries            a bot enters during registration (bot token)
    POST /v1/tournaments/{id}/start|pause|resume|cancel|withdraw   the organiser's actions (organiser token)

The work itself is the director's (service/tournaments/director.py); these handlers read and write the store.
"""
from __future__ import annotations

import hmac
import secrets
from datetime import datetime
from typing import Any

from card_referee_client.tournament.schedule import round_robin
from card_referee_client.tournament.spec import SpecError, load_hosted
from flask import Blueprint, Response, current_app, request

from ...tournaments import ratings
from ...tournaments import records as pub
from ...tournaments.director import TERMINAL, begin, too_few, withdraw
from ...tournaments.store import Tournament, TournamentStore, new_id, token_hash
from ..schemas import requests as schemas, tournaments as tournament_schemas
from .bots import bearer, bot_of_token, config, last_event_id, stream, tournament_store
from .errors import ApiError
from .games import start_match
from .json import body, reply
from ...sessions.referee import now_ms
from ...sessions.service import SessionService
from ..openapi import tournaments as contract
from ..openapi.operations import Body, documented
from ..openapi.shapes import JSON, STRING, event_stream, location, ok, problem_response, ref

bp = Blueprint("tournaments", __name__)

FORMATS = {"csv": "text/csv", "md": "text/markdown", "json": "application/json"}


def sessions() -> SessionService:
    s: SessionService = current_app.extensions["session_service"]
    return s


def found(store: TournamentStore, tid: str, full: bool = True) -> Tournament:
    t = store.load(tid, full) if 0 < len(tid) <= 64 else None
    if t is None:
        raise ApiError(404, "tournament_not_found", "There is no such tournament.")
    return t


def invalid(detail: str) -> ApiError:
    return ApiError(422, "invalid_description", detail)


# ----- creating and entering ------------------------------------------------------------
@bp.post("/v1/tournaments")
@documented("createTournament", "Create a hosted tournament: the service pairs, plays, ranks and publishes.",
            body=Body("TournamentCreate", contract.TOURNAMENT_EXAMPLE),
            responses={"201": location(ok(ref("TournamentCreated"), "The tournament, with its organiser token (shown "
                                                                    "only now).")),
                       "400": contract.BAD,
                       "422": problem_response("invalid_description (the message says what is wrong), unknown_bot "
                                               "(an entry is not a bot's id)."),
                       "503": contract.NO_REDIS})
def create() -> Response:
    store = tournament_store()
    data = schemas.load(tournament_schemas.TOURNAMENT_CREATE, body())
    if ("entries" in data) == ("registration" in data):
        raise invalid("Give either 'entries' (the bots' ids) or 'registration' ({\"until\": <RFC 3339>}).")
    description = dict(data["description"])
    description.pop("bots", None)  # the entries are the bots
    entries: list[tuple[str, str]] = []
    for bid in data.get("entries", []):
        bot = store.bot(bid)
        if bot is None:
            raise ApiError(422, "unknown_bot", f"There is no bot {bid!r}.", bot=bid)
        entries.append((bid, bot["name"]))
    if len({b for b, _ in entries}) != len(entries):
        raise invalid("A bot may enter only once.")
    until = data["registration"]["until"] if "registration" in data else None
    spec = checked_spec(description, [n for _, n in entries] if until is None else None)
    if until is not None:
        rfc3339(until, "'registration': 'until'")
    description["seed"] = spec.seed  # drawn once, here, when the description has none
    tid, token = new_id(), secrets.token_urlsafe(32)
    status = "registering" if until is not None else "ready"
    doc = {"description": description, "organiser": token_hash(token), "registration_until": until}
    store.create(tid, doc, status, entries, now_ms())
    store.schedule(tid, now_ms())
    current_app.extensions["tournament_director"].start()  # a test's app starts it only now
    return reply({"id": tid, "organiser_token": token, "status": status, "url": f"/v1/tournaments/{tid}",
                  "page": f"/tournaments/{tid}"}, 201, {"Location": f"/v1/tournaments/{tid}"})


def checked_spec(description: dict[str, Any], names: list[str] | None) -> Any:
    """The description checked by the client library (SpecError: 422) and each game by the engine."""
    try:
        spec = load_hosted(description, names)
    except SpecError as exc:
        raise invalid(f"The description is wrong: {exc}") from None
    for i, game in enumerate(spec.games):
        probe: dict[str, Any] = {"game": game.game, "players": game.players, "options": game.options}
        if game.clock is not None:
            probe["clock"] = game.clock
        try:
            loaded = schemas.load(schemas.SESSION_CREATE, probe)
            start_match(loaded.pop("game"), {**loaded, "seed": "00"})
        except ApiError as exc:
            raise invalid(f"games[{i}]: {exc.detail}") from None
        except Exception as exc:  # noqa: BLE001 - the engine's RulesError: an unknown game, bad options or players
            raise invalid(f"games[{i}]: {exc}") from None
    return spec


def rfc3339(raw: str, where: str) -> int:
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise invalid(f"{where} must be an RFC 3339 time with its offset (2026-01-31T19:00:00Z).")
    return int(when.timestamp() * 1000)


@bp.post("/v1/tournaments/<tid>/entries")
@documented("enterTournament", "Enter the bot whose token this is, while registration is open.", bearer=True,
            responses={"201": ok(ref("TournamentStatus"), "Entered (or had entered already)."),
                       "401": contract.no_token("the bot token"), "404": contract.NO_TOURNAMENT,
                       "409": problem_response("registration_closed: registration is closed."),
                       "503": contract.NO_REDIS})
def enter(tid: str) -> Response:
    store = tournament_store()
    bid = bot_of_token(store, request.headers.get("Authorization"))
    t = found(store, tid, full=False)
    if t.status != "registering":
        raise ApiError(409, "registration_closed", "Registration for this tournament is closed.")
    bot = store.bot(bid) or {}
    store.join(tid, bid, bot.get("name", bid))
    return reply({"id": tid, "status": t.status}, 201)


# ----- reading --------------------------------------------------------------------------
@bp.get("/v1/tournaments/<tid>")
@documented("getTournament", "Status, entries, rounds with their sessions, standings, progress and incidents.",
            responses={"200": ok(ref("TournamentView")), "404": contract.NO_TOURNAMENT, "503": contract.NO_REDIS})
def get(tid: str) -> Response:
    store = tournament_store()
    t = found(store, tid)
    return reply(view(store, t))


def view(store: TournamentStore, t: Tournament) -> dict[str, Any]:
    live = store.live([e["bot"] for e in t.entries])
    spec = pub.spec_of(t)
    started = t.status != "registering" and t.status != "ready"
    rows: list[dict[str, Any]] = []
    if started:
        rated = ratings.current(store).get(spec.games[0].game, {})
        rows = [{**r.to_json(), "rating": rated.get(r.bot, {}).get("ordinal")}
                for r in pub.table_rows(spec, t, max(t.rounds, default=0))[0]]
    return {"id": t.id, "name": spec.name, "status": t.status, "description": t.doc["description"],
            "entries": [{"bot": e["bot"], "name": e["name"], "status": e["status"], "connected": live[e["bot"]]}
                        for e in t.entries],
            "rounds": [round_view(spec, t, i) for i in sorted(t.rounds)] if started else [],
            "standings": rows, "progress": progress(spec, t) if started else {"done": 0, "total": 0, "eta_s": None},
            "incidents": [i for rec in t.records.values() for i in rec["incidents"]]}


def round_view(spec: Any, t: Tournament, index: int) -> dict[str, Any]:
    doc = t.rounds[index]
    tables = []
    for match in pub.round_matches(spec, t, index):
        sid = t.sessions.get(match.id, {}).get("session")
        rec = t.records.get(match.id)
        tables.append({"match": match.id, "bots": list(match.seats), "session": sid,
                       "table": f"/table/{sid}" if sid else None, "result": rec["result"] if rec else None})
    return {"index": index, "game": doc["game"], "tables": tables, "byes": doc["byes"]}


def progress(spec: Any, t: Tournament) -> dict[str, Any]:
    """Matches recorded of all there will be (later rounds estimated from the current round's size), and the
    time left at the pace so far."""
    done = len(t.records)
    total = sum(len(pub.round_matches(spec, t, i)) for i in t.rounds)
    last = max(t.rounds, default=0)
    if last and t.status not in TERMINAL:
        per_round = len(pub.round_matches(spec, t, last))
        total += per_round * max(0, planned_rounds(spec, len(t.names)) - last)
    eta = None
    started = int(t.fields.get("started_ms", "0") or 0)
    if done and started and t.status not in TERMINAL:
        eta = round((now_ms() - started) / 1000 / done * max(0, total - done), 1)
    return {"done": done, "total": total, "eta_s": 0.0 if t.status == "finished" else eta}


def planned_rounds(spec: Any, field: int) -> int:
    if spec.format == "swiss":
        return int(spec.rounds) * len(spec.games)
    names = [b.name for b in spec.bots] or [str(i) for i in range(field)]
    return sum(len(round_robin(names, g.players)) for g in spec.games)


@bp.get("/v1/tournaments/<tid>/standings")
@documented("tournamentStandings", "The standings as JSON, CSV or Markdown (by Accept, or ?format=).",
            parameters=[contract.STANDINGS_FORMAT],
            responses={"200": {"description": "The standings so far: JSON, or the local runner's results.csv / "
                                              "results.md.",
                               "content": {JSON: {"schema": ref("Standings")}, "text/csv": {"schema": STRING},
                                           "text/markdown": {"schema": STRING}}},
                       "400": contract.BAD, "404": contract.NO_TOURNAMENT, "503": contract.NO_REDIS})
def get_standings(tid: str) -> Response:
    store = tournament_store()
    t = found(store, tid)
    fmt = request.args.get("format") or negotiated()
    if fmt not in FORMATS:
        raise ApiError(400, "invalid_request", "'format' must be csv, md or json.")
    last = max(t.rounds, default=0)
    if t.status in ("registering", "ready"):
        tables: dict[str, Any] = {"json": [], "csv": "", "md": ""}
    else:
        tables = pub.published(pub.spec_of(t), t, last)
    if fmt == "json":
        return reply({"tournament": t.id, "round": last, "standings": tables["json"]})
    return Response(tables[fmt], mimetype=FORMATS[fmt], headers={"Cache-Control": "no-store"})


def negotiated() -> str:
    best = request.accept_mimetypes.best_match(["application/json", "text/csv", "text/markdown"],
                                               default="application/json")
    return {"text/csv": "csv", "text/markdown": "md"}.get(best or "", "json")


@bp.get("/v1/tournaments/<tid>/events")
@documented("tournamentEvents", "The tournament's event stream.", description=contract.TOURNAMENT_EVENTS,
            parameters=contract.STREAM_PARAMETERS,
            responses={"200": event_stream("The tournament's events."), "400": contract.BAD,
                       "404": contract.NO_TOURNAMENT, "503": contract.NO_REDIS})
def events(tid: str) -> Response:
    store = tournament_store()
    after = last_event_id()
    found(store, tid, full=False)
    return Response(stream(store, store.tkey(tid, "events"), after or "0", config(), lambda: None),
                    mimetype="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.get("/v1/tournaments/<tid>/records")
@documented("tournamentRecords", "The archive: description, pairings, every match's record, the published standings "
                                 "and the ratings.",
            responses={"200": ok(ref("Archive")), "404": contract.NO_TOURNAMENT, "503": contract.NO_REDIS})
def records(tid: str) -> Response:
    store = tournament_store()
    t = found(store, tid)
    rated = ratings.current(store)
    names = set(t.names)
    mine = {game: {n: r for n, r in table.items() if n in names} for game, table in rated.items()}
    return reply(pub.archive(t, {g: table for g, table in mine.items() if table}))


# ----- the organiser's actions ------------------------------------------------------------
def organised(store: TournamentStore, tid: str) -> Tournament:
    """The tournament, when the request carries its organiser's token (401 without a token, 403 another)."""
    token = bearer(request.headers.get("Authorization"), "the organiser's token")
    t = found(store, tid)
    if not hmac.compare_digest(t.doc["organiser"], token_hash(token)):
        raise ApiError(403, "forbidden", "This token is not this tournament's organiser's.")
    if t.status in TERMINAL:
        raise ApiError(409, "tournament_over", f"The tournament is {t.status}.")
    return t


def done(store: TournamentStore, tid: str) -> Response:
    store.schedule(tid, now_ms())  # the director looks at once
    t = found(store, tid, full=False)
    return reply({"id": tid, "status": t.status})


@bp.post("/v1/tournaments/<tid>/start")
@contract.organiser_action("startTournament", "Start now (closing registration).",
                           "already_started, too_few_entries, tournament_over.")
def start(tid: str) -> Response:
    store = tournament_store()
    t = organised(store, tid)
    if t.status not in ("registering", "ready"):
        raise ApiError(409, "already_started", "The tournament has started already.")
    problem = too_few(t)
    if problem is not None:
        raise ApiError(409, "too_few_entries", f"The tournament cannot start: {problem}.")
    if not begin(store, t, now_ms(), t.status):
        raise ApiError(409, "already_started", "The tournament has started already.")
    return done(store, tid)


@bp.post("/v1/tournaments/<tid>/pause")
@contract.organiser_action("pauseTournament", "Pause: no new match starts; the matches in flight finish and are "
                                              "recorded.", "not_running, tournament_over.")
def pause(tid: str) -> Response:
    return switch(tid, "running", "paused", "not_running", "Only a running tournament can be paused.")


@bp.post("/v1/tournaments/<tid>/resume")
@contract.organiser_action("resumeTournament", "Resume a paused tournament.", "not_paused, tournament_over.")
def resume(tid: str) -> Response:
    return switch(tid, "paused", "running", "not_paused", "Only a paused tournament can be resumed.")


def switch(tid: str, before: str, after: str, code: str, detail: str) -> Response:
    """An organiser's pause or resume: the status moves from ``before`` to ``after`` (a compare-and-set, so two
    organisers' calls cannot both win) and the tournament's stream is told (``paused`` / ``resumed``)."""
    store = tournament_store()
    organised(store, tid)
    if not store.cas(tid, "status", before, after):
        raise ApiError(409, code, detail)
    store.tell(tid, "paused" if after == "paused" else "resumed", {"tournament": tid})
    return done(store, tid)


@bp.post("/v1/tournaments/<tid>/cancel")
@contract.organiser_action("cancelTournament", "Cancel: nothing more is played.", "tournament_over.")
def cancel(tid: str) -> Response:
    store = tournament_store()
    t = organised(store, tid)
    if not store.cas(tid, "status", t.status, "cancelled"):
        raise ApiError(409, "tournament_over", "The tournament changed meanwhile; look again.")
    store.tell(tid, "cancelled", {"reason": "cancelled by the organiser"})
    return done(store, tid)


@bp.post("/v1/tournaments/<tid>/withdraw")
@contract.organiser_action("withdrawEntry", "Withdraw an entry: it is paired no more, its matches in flight are "
                                            "conceded for it.", "not_an_entry, tournament_over.", withdrawal=True)
def withdraw_entry(tid: str) -> Response:
    store = tournament_store()
    t = organised(store, tid)
    bid = schemas.load(tournament_schemas.WITHDRAWAL, body())["bot"]
    entry = next((e for e in t.entries if e["bot"] == bid), None)
    if entry is None:
        raise ApiError(409, "not_an_entry", f"Bot {bid!r} is not an entry of this tournament.")
    withdraw(store, t, entry, "withdrawn by the organiser")
    for binding in t.sessions.values():  # its matches in flight are conceded for it
        if bid in binding["bots"]:
            sessions().concede_for(binding["session"], binding["bots"].index(bid), "withdrawn by the organiser")
    return done(store, tid)
