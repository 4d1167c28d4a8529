"""Request bodies, checked with marshmallow before the engine sees them; openapi.yaml's request bodies are
generated from these same classes (service/api/openapi/spec.py), so the two cannot say different things.

The schemas stay shallow on purpose: a state is checked by the engine (service.engine.check_state),
which knows each game's invariants; here we only check the envelope's shape.
"""
from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, post_load, validate, validates_schema

from ...engine import all_games
from ..http.errors import ApiError

HEX = validate.Regexp(r"^[0-9a-fA-F]{1,128}$", error="must be 1 to 128 hex digits")
# A session's seed is committed to publicly before play: short enough and the commitment is brute-forced.
SECRET_HEX = validate.Regexp(r"^[0-9a-fA-F]{32,128}$",
                             error="must be 32 to 128 hex digits: a session's seed needs 128 bits at least, or its "
                                   "published commitment gives it away")
MOVE_DEPTH = 8  # levels of nesting a move may have (the deepest real one, a list of cards in a move, has 2)


class StrictInt(fields.Integer):
    """A JSON integer. A number with no fractional part (``5.0``) is the same integer, as JSON Schema has it;
    a bool, a string or ``5.5`` is not one."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) is float and value.is_integer():
            value = int(value)
        elif isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


def doc(description: str | None = None, component: str | None = None, **more: Any) -> dict[str, Any]:
    """A field's ``metadata`` for openapi.yaml (service/api/openapi/spec.py reads it with apispec): a description,
    and the hand-written component that describes the value (a ``Move``, a ``State``, a ``Seat``), where the
    field itself loads the value as a plain JSON value that the engine checks."""
    out: dict[str, Any] = dict(more)
    if description is not None:
        out["description"] = description
    if component is not None:
        out["component"] = component
    return out


class DealSpec(Schema):
    class Meta:
        unknown = RAISE

    players = StrictInt(load_default=None, allow_none=True,  # the game's own range is checked by the engine (422)
                        metadata=doc("Outside the game's range: 422 invalid_request."))
    options = fields.Dict(load_default=None, allow_none=True,
                          metadata=doc("Game options; see the game's Options schema."))
    seed = fields.String(load_default=None, allow_none=True, validate=HEX)
    deal = fields.Dict(load_default=None, allow_none=True, metadata=doc(component="Deal"))
    deals = fields.List(fields.Raw(metadata=doc(component="Deal")), load_default=None, allow_none=True)


class NewMatch(DealSpec):
    pass


class ReplayEnd(Schema):
    """How a session's match ended other than by play (its log's ``replay.end``)."""

    DESCRIPTION = ("How a session's match ended other than by play, applied after the moves (a session's log gives "
                   "it as replay.end): a timeout or a concession forfeits for `seat`, an abort ends the match with no "
                   "winner (422 abort_too_late once the moves complete a trick or settle a deal; 422 match_over when "
                   "the moves finish the match). docs/sessions.md.")

    class Meta:
        unknown = RAISE

    by = fields.String(required=True, validate=validate.OneOf(("timeout", "concession", "abort")))
    seat = StrictInt(required=True, validate=validate.Range(0), metadata=doc(component="Seat"))


class Replay(DealSpec):
    moves = fields.List(fields.Dict(metadata=doc(component="Move")), required=True)
    end = fields.Nested(ReplayEnd, load_default=None, allow_none=True)


class MoveRequest(Schema):
    class Meta:
        unknown = RAISE

    state = fields.Dict(required=True, metadata=doc(component="State"))
    state_tag = fields.String(load_default=None, allow_none=True, metadata=doc(component="StateTag"))
    move = fields.Dict(required=True, metadata=doc(component="Move"))


class LegalMovesRequest(Schema):
    class Meta:
        unknown = RAISE

    state = fields.Dict(required=True, metadata=doc(component="State"))
    state_tag = fields.String(load_default=None, allow_none=True, metadata=doc(component="StateTag"))
    seat = StrictInt(load_default=None, allow_none=True, metadata=doc(component="Seat"))


class ViewRequest(LegalMovesRequest):
    pass


CLOCK_MIN_MS, CLOCK_MAX_MS = 100, 24 * 3600 * 1000


class ClockSpec(Schema):
    """A session's time control (docs/sessions.md, "Time controls")."""

    DESCRIPTION = ("A time control: a limit per move and/or a bank per match (with an increment added after each move "
                   "made in time), at least one of the two; what happens when a seat's time is up is the policy "
                   "(docs/sessions.md, \"Time controls\").")

    class Meta:
        unknown = RAISE

    move_ms = StrictInt(load_default=None, allow_none=True, validate=validate.Range(CLOCK_MIN_MS, CLOCK_MAX_MS))
    bank_ms = StrictInt(load_default=None, allow_none=True, validate=validate.Range(CLOCK_MIN_MS, CLOCK_MAX_MS))
    increment_ms = StrictInt(load_default=0, validate=validate.Range(0, CLOCK_MAX_MS))
    policy = fields.String(load_default="forfeit", validate=validate.OneOf(("forfeit", "auto", "penalty")))

    @validates_schema
    def needs_a_limit(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("move_ms") is None and data.get("bank_ms") is None:
            raise ValidationError("give 'move_ms', 'bank_ms' or both", "clock")

    @post_load
    def in_order(self, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {k: data[k] for k in ("policy", "move_ms", "bank_ms", "increment_ms")}


class SessionCreate(DealSpec):
    game = fields.String(required=True, metadata=doc(enum=sorted(all_games())))  # unknown: 422 unknown_game
    seed = fields.String(load_default=None, allow_none=True, validate=SECRET_HEX, metadata=doc(
        "Hex, 128 bits at least: its SHA-256 is published at creation (docs/fair-dealing.md). Drawn when absent."))
    clock = fields.Nested(ClockSpec, load_default=None, allow_none=True)  # documented as the Clock component


class SessionEnd(Schema):
    """The body of a concession or an abort."""

    class Meta:
        unknown = RAISE

    reason = fields.String(load_default=None, allow_none=True, validate=validate.Length(max=200),
                           metadata=doc("Why; shown in the public log."))


class SessionMove(Schema):
    class Meta:
        unknown = RAISE

    move = fields.Dict(required=True, metadata=doc(component="Move"))
    version = StrictInt(load_default=None, allow_none=True, validate=validate.Range(0), metadata=doc(
        "The version you decided on; 409 version_conflict if the session has moved on."))


def load(schema: Schema, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_request", "The request body must be a JSON object.")
    quick = FAST.get(id(schema))
    data: dict[str, Any] | None = None if quick is None else quick(body)
    if data is None:
        try:
            data = schema.load(body)
        except ValidationError as exc:
            field, messages = next(iter(_flatten(exc.messages)))
            raise ApiError(400, "invalid_request", f"'{field}': {messages}",
                           errors=_str_keys(exc.messages)) from None
    if "move" in data and nested_deeper(data["move"], MOVE_DEPTH):
        raise ApiError(400, "invalid_request", f"'move': nested more than {MOVE_DEPTH} levels deep.")
    return data


def load_replay(body: Any) -> dict[str, Any]:
    """A replay request: the moves (up to MAX_MOVES of them) are only checked to be objects, as the schema
    does, without marshmallow's cost per item; the rest of the body goes through the schema."""
    moves = body.get("moves") if type(body) is dict else None
    if type(moves) is not list or not all(type(m) is dict for m in moves):
        return load(REPLAY, body)
    data = load(REPLAY, {**body, "moves": []})
    data["moves"] = moves
    return data


def nested_deeper(value: Any, levels: int) -> bool:
    """Whether a JSON value has containers more than ``levels`` deep (the value itself is level 1). Walked
    without recursion: a hostile body may nest a thousand levels (orjson reads up to 1024)."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if depth > levels:
                return True
            todo.extend((child, depth + 1) for child in (item.values() if kind is dict else item))
    return False


def _str_keys(messages: Any) -> Any:
    if isinstance(messages, dict):
        return {str(k): _str_keys(v) for k, v in messages.items()}
    return messages


def _flatten(messages: Any, prefix: str = "") -> Any:
    if isinstance(messages, dict):
        for key, value in messages.items():
            yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix or "body", "; ".join(str(m) for m in messages) if isinstance(messages, list) else str(messages)


# The hot endpoints' usual, well-formed bodies are recognised by these plain checks (a third of the cost of
# marshmallow); they return None for anything else, which marshmallow then loads or refuses with its message.
# Each accepts only what its schema accepts, and returns what the schema would return.
def _is_int(value: Any, low: int | None = None) -> bool:
    return type(value) is int and (low is None or value >= low)


def _fast_state_request(body: dict[str, Any], extra: str, extra_ok: Any) -> dict[str, Any] | None:
    if not body.keys() <= {"state", "state_tag", extra} or type(body.get("state")) is not dict:
        return None
    tag = body.get("state_tag")
    if tag is not None and type(tag) is not str:
        return None
    value = body.get(extra)
    if not extra_ok(value):
        return None
    return {"state": body["state"], "state_tag": tag, extra: value}


def _fast_move(body: dict[str, Any]) -> dict[str, Any] | None:
    return _fast_state_request(body, "move", lambda v: type(v) is dict)


def _fast_seat(body: dict[str, Any]) -> dict[str, Any] | None:
    return _fast_state_request(body, "seat", lambda v: v is None or _is_int(v))


def _fast_session_move(body: dict[str, Any]) -> dict[str, Any] | None:
    if not body.keys() <= {"move", "version"} or type(body.get("move")) is not dict:
        return None
    version = body.get("version")
    if version is not None and not _is_int(version, 0):
        return None
    return {"move": body["move"], "version": version}


NEW = NewMatch()
REPLAY = Replay()
MOVE = MoveRequest()
LEGAL = LegalMovesRequest()
VIEW = ViewRequest()
SESSION_CREATE = SessionCreate()
SESSION_MOVE = SessionMove()
SESSION_END = SessionEnd()
FAST = {id(MOVE): _fast_move, id(LEGAL): _fast_seat, id(VIEW): _fast_seat, id(SESSION_MOVE): _fast_session_move}
__all__ = ["load", "load_replay", "NEW", "REPLAY", "MOVE", "LEGAL", "VIEW", "SESSION_CREATE", "SESSION_MOVE", "SESSION_END", "EXCLUDE"]
