"""Sessions: the referee holds the true state in the store and shows each seat only its own view.

    POST /v1/sessions                 create; one bearer token per seat (only their SHA-256 is stored)
    GET  /v1/sessions/{id}            that seat's view (spectator without a token); ?after=&wait= long-polls
    POST /v1/sessions/{id}/moves      a move by the token's seat; optimistic concurrency on ``version``
    GET  /v1/sessions/{id}/log        the public move log; the seed and every move once finished

Storage is reached only through service.storage.SessionStore. docs/sessions.md explains the design;
docs/fair-dealing.md the commitment and how to check a finished match with ``replay``.
"""
from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Blueprint, Response, current_app, g, request

from .. import engine
from ..config import Config
from ..engine.cards import is_card_code
from ..engine.rng import seed_bytes
from ..storage import Session, SessionStore, Write
from . import observability, schemas
from .errors import ApiError
from .games import guarded, new_seed, start_match
from .json import body, parse, reply

bp = Blueprint("sessions", __name__)

SID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
DECIMAL = re.compile(r"^[0-9]{1,15}$")
SECONDS = re.compile(r"^[0-9]{1,9}(\.[0-9]{1,9})?$")
SAVE_ATTEMPTS = 16          # reloads after losing a compare-and-set race, before answering 409
REALM = 'Bearer realm="card-referee"'


def store() -> SessionStore:
    s: SessionStore = current_app.extensions["session_store"]
    return s


def config() -> Config:
    c: Config = current_app.extensions["card_referee_config"]
    return c


# ----- fair dealing ---------------------------------------------------------------------
def commitment(seed: str) -> str:
    """SHA-256 (hex) of the seed's bytes: ``bytes.fromhex(seed)``, a leading 0 added to an odd length."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def deals_commitment(deals: list[Any]) -> str | None:
    """SHA-256 (hex) of the explicit deals as compact JSON (docs/fair-dealing.md), or None without any."""
    if not deals:
        return None
    canonical = [{"hands": d["hands"], "rest": d["rest"]} for d in deals]
    return hashlib.sha256(orjson.dumps(canonical)).hexdigest()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# ----- what the log may show before the end ---------------------------------------------
def cards_in(value: Any) -> Iterator[str]:
    """Every card code anywhere in a JSON value (dict values and list items, recursively)."""
    if isinstance(value, str):
        if is_card_code(value):
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from cards_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from cards_in(item)


def visible_cards(state: engine.State, cards: Iterable[str]) -> Counter[str]:
    """How many copies of each of ``cards`` a spectator can see.

    Counted in the serialised spectator view: a card code appears there only as a JSON string value
    (views never use cards as keys), so counting ``"QS"`` is exact; serialising and counting in C costs
    a fraction of walking the view in Python.
    """
    wanted = set(cards)
    if not wanted:
        return Counter()
    blob = orjson.dumps(guarded(engine.view, state, None))
    return Counter({c: blob.count(b'"' + c.encode() + b'"') for c in wanted})


def hidden_params(move: dict[str, Any], before: Counter[str], after: Counter[str]) -> list[str]:
    """The move's parameters a spectator must not read yet.

    ``before``/``after`` count the cards a spectator sees around the move (``visible_cards``). A parameter
    naming cards is public only when the move put those cards in plain view: the spectator sees that many
    more copies of each after the move than before (a card played to a trick). Cards that went face down
    (discards, an exchange, a hidden declaration) stay hidden until the match ends. An empty list is hidden
    too, so that "declared nothing" cannot be told from "declared something". Other values (bids, stakes,
    a named suit) are announced at the table and are public.
    """
    newly = after - before
    hidden = []
    for name in sorted(k for k in move if k not in ("seat", "action")):
        value = move[name]
        need = Counter(cards_in(value))
        if (isinstance(value, (list, dict)) and not value) or any(newly[c] < n for c, n in need.items()):
            hidden.append(name)
        else:
            newly -= need
    return hidden


# ----- requests -------------------------------------------------------------------------
def session_or_404(sid: str, touch: bool = False, recent: bool = False) -> Session:
    found = None
    if SID.match(sid):
        found = store().load(sid, config().session_ttl if touch else None, recent=recent)
    if found is None:
        raise not_found()
    g.game = found.meta["game"]
    return found


def not_found() -> ApiError:
    return ApiError(404, "session_not_found", "There is no such session: the id is wrong, or it has expired.")


def authenticate(session: Session, required: bool) -> int | None:
    """The seat whose token the request carries; None for a spectator (only when not ``required``)."""
    header = request.headers.get("Authorization")
    if header is None:
        if required:
            raise ApiError(401, "unauthorized", "This needs your seat's token: 'Authorization: Bearer <token>'.",
                           headers={"WWW-Authenticate": REALM})
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and TOKEN.match(token):
        digest = token_hash(token)
        seat = None
        for s, stored in enumerate(session.meta["tokens"]):
            if hmac.compare_digest(stored, digest):
                seat = s
        if seat is not None:
            return seat
    raise ApiError(401, "unauthorized", "The token is not valid for this session.",
                   headers={"WWW-Authenticate": REALM + ', error="invalid_token"'})


def idempotency_key() -> str | None:
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    key = raw.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not IDEMPOTENCY_KEY.match(key):
        raise ApiError(400, "invalid_request", "'Idempotency-Key' must be 1 to 255 visible ASCII characters.")
    return key


def query_int(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    if not DECIMAL.match(raw):
        raise ApiError(400, "invalid_request", f"'{name}' must be a whole number (a session version).")
    return int(raw)


def query_seconds(name: str) -> float:
    raw = request.args.get(name)
    if raw is None:
        return 0.0
    if not SECONDS.match(raw):
        raise ApiError(400, "invalid_request", f"'{name}' must be a number of seconds.")
    return float(raw)


def seat_answer(sid: str, state: engine.State, version: int, seat: int | None) -> dict[str, Any]:
    """What GET answers: that seat's view, its legal moves (none for a spectator) and the public facts."""
    legal = guarded(engine.legal_moves, state)
    return {"id": sid, "game": state["game"], "version": version, "seat": seat,
            "view": guarded(engine.view, state, seat),
            "legal_moves": [] if seat is None else [m for m in legal if m["seat"] == seat],
            "to_act": engine.seats_to_act(legal), "finished": engine.is_finished(state),
            "result": guarded(engine.result, state)}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ttl_for(finished: bool) -> int:
    return config().finished_ttl if finished else config().session_ttl


# ----- endpoints ------------------------------------------------------------------------
@bp.post("/v1/sessions")
def create() -> Response:
    spec = schemas.load(schemas.SESSION_CREATE, body())
    game = spec.pop("game")
    try:
        engine.get_game(game)
    except engine.UnknownGame as exc:
        raise ApiError(422, "unknown_game", exc.message) from None
    g.game = game  # labels this request's metrics and log line with the game
    spec["seed"] = spec.get("seed") or new_seed()
    state = start_match(game, spec)
    deals = engine.deals_from(spec.get("deal"), spec.get("deals"))
    tokens = [secrets.token_urlsafe(32) for _ in range(state["players"])]
    sid = secrets.token_urlsafe(16)
    meta = {"game": game, "players": state["players"], "options": state["options"],
            "tokens": [token_hash(t) for t in tokens], "commitment": commitment(state["seed"]),
            "deals": deals, "deals_commitment": deals_commitment(deals), "created": now_iso()}
    finished = engine.is_finished(state)
    store().create(Session(sid, 0, state, meta, finished), ttl_for(finished))
    observability.session_created(game)
    out = {"id": sid, "version": 0, "game": game, "players": state["players"], "options": state["options"],
           "seats": [{"seat": s, "token": t} for s, t in enumerate(tokens)],
           "commitment": meta["commitment"], "deals_commitment": meta["deals_commitment"],
           "explicit_deals": len(deals), "expires_in": ttl_for(finished)}
    return reply(out, 201, {"Location": f"/v1/sessions/{sid}", "Cache-Control": "no-store"})


@bp.get("/v1/sessions/<sid>")
def show(sid: str) -> Response:
    after, wait = query_int("after"), query_seconds("wait")
    session = session_or_404(sid, touch="Authorization" in request.headers)
    seat = authenticate(session, required=False)
    if after is not None and session.version <= after and wait > 0:
        store().wait(sid, after, min(wait, config().long_poll_max))
        session = session_or_404(sid)
    return reply(seat_answer(sid, session.state, session.version, seat), headers={"Cache-Control": "no-store"})


@bp.post("/v1/sessions/<sid>/moves")
def submit(sid: str) -> Response:
    """A move, judged first on the session as this process last saw it (usually current, and then no read is
    needed) and saved with a compare-and-set. Nothing is refused on the evidence of that copy alone: a
    refusal it leads to is checked again on the session read from the store."""
    raw = request.get_data(cache=False)
    session = session_or_404(sid, recent=True)
    try:
        seat, req, key = read_request(session, raw)
    except ApiError:
        if not session.recent:
            raise
        session = session_or_404(sid)  # gone is 404, whatever else is wrong with the request
        seat, req, key = read_request(session, raw)
    return move_on(sid, session, seat, req, key)


def read_request(session: Session, raw: bytes) -> tuple[int, dict[str, Any], str | None]:
    """The token's seat, the request body and the Idempotency-Key; 401, 400 or 403 when they do not fit."""
    seat = authenticate(session, required=True)
    req = schemas.load(schemas.SESSION_MOVE, parse(raw))
    key = idempotency_key()
    mover = req["move"].get("seat")
    if isinstance(mover, int) and not isinstance(mover, bool) and mover != seat:
        raise ApiError(403, "forbidden", f"Your token is seat {seat}'s: you cannot move for seat {mover}.")
    return seat, req, key


def move_on(sid: str, session: Session, seat: int, req: dict[str, Any], key: str | None) -> Response:
    st = store()
    move, expected = req["move"], req.get("version")
    answer_key = fingerprint = None
    if key is not None:
        fingerprint = hashlib.sha256(orjson.dumps(req, option=orjson.OPT_SORT_KEYS)).hexdigest()
        answer_key = hashlib.sha256(f"{seat}\x00{key}".encode()).hexdigest()
        prior = st.answer(sid, answer_key)
        if prior is not None:
            return replayed(prior, fingerprint)
    for attempt in range(SAVE_ATTEMPTS):
        try:
            answer, state, entry = judge(sid, session, seat, move, expected)
        except (ApiError, engine.RulesError):
            if not session.recent:
                raise
            session = session_or_404(sid)  # the copy may be behind: judge again on the stored session
            continue
        finished = engine.is_finished(state)
        record = None if answer_key is None else {"fp": fingerprint, "body": answer}
        saved = st.save(sid, session.version, Write(state, finished, entry, answer_key, record, config().session_ttl),
                        ttl_for(finished))
        if saved.kind == "saved":
            return reply(answer, headers={"Cache-Control": "no-store"})
        if saved.kind == "replayed":
            return replayed(saved.answer or {}, fingerprint)
        if saved.kind == "gone":
            raise not_found()
        if expected is not None:
            raise conflict(saved.version, expected)
        if not session.recent:  # a real race with another writer: back off a little
            time.sleep(random.uniform(0, 0.002 * attempt))
        session = saved.current or session_or_404(sid)
    raise ApiError(409, "version_conflict", "The session is changing too fast; send the move again.",
                   version=session.version)


def judge(sid: str, session: Session, seat: int, move: dict[str, Any], expected: int | None
          ) -> tuple[dict[str, Any], engine.State, dict[str, Any]]:
    """The move applied to ``session``: the seat's answer, the new state and the log entry."""
    if expected is not None and expected != session.version:
        raise conflict(session.version, expected)
    params = {k: v for k, v in move.items() if k not in ("seat", "action")}
    named = list(cards_in(params))
    before = visible_cards(session.state, named) if params else None
    state, _events = guarded(engine.apply, session.state, move, in_place=True)
    hidden = hidden_params(move, before, visible_cards(state, named)) if before is not None else []
    version = session.version + 1
    entry = {"version": version, "time": now_iso(), "move": move, "hidden": hidden}
    return seat_answer(sid, state, version, seat), state, entry


def conflict(current: int, expected: int) -> ApiError:
    return ApiError(409, "version_conflict",
                    f"The session is at version {current}, not {expected}: reload it and decide again.",
                    version=current)


def replayed(prior: dict[str, Any], fingerprint: str) -> Response:
    if prior.get("fp") != fingerprint:
        raise ApiError(422, "idempotency_key_reused",
                       "This Idempotency-Key was already used for a different request.")
    return reply(prior["body"], headers={"Idempotent-Replayed": "true", "Cache-Control": "no-store"})


@bp.get("/v1/sessions/<sid>/log")
def move_log(sid: str) -> Response:
    found = store().log(sid) if SID.match(sid) else None
    if found is None:
        raise not_found()
    session, entries = found
    g.game = session.meta["game"]
    meta, done = session.meta, session.finished
    out_entries = []
    for e in entries:
        hidden = [] if done else e["hidden"]
        move = {k: v for k, v in e["move"].items() if k not in hidden}
        out_entries.append({"version": e["version"], "time": e["time"], "seat": e["move"]["seat"],
                            "action": e["move"]["action"], "move": move, "hidden": hidden})
    out: dict[str, Any] = {
        "id": sid, "game": meta["game"], "players": meta["players"], "options": meta["options"],
        "version": session.version, "finished": done, "commitment": meta["commitment"],
        "deals_commitment": meta["deals_commitment"], "created": meta["created"], "entries": out_entries,
        "seed": None, "deals": None, "replay": None, "result": guarded(engine.result, session.state)}
    if done:
        seed = session.state["seed"]
        out.update(seed=seed, deals=meta["deals"],
                   replay={"players": meta["players"], "options": meta["options"], "seed": seed,
                           "deals": meta["deals"], "moves": [e["move"] for e in entries]})
    return reply(out, headers={"Cache-Control": "no-store"})
