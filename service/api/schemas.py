"""Request bodies, checked with marshmallow before the engine sees them.

The schemas stay shallow on purpose: a state is checked by the engine (service.engine.check_state),
which knows each game's invariants; here we only check the envelope's shape.
"""
from __future__ import annotations

from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate

from .errors import ApiError

HEX = validate.Regexp(r"^[0-9a-fA-F]{1,128}$", error="must be 1 to 128 hex digits")


class StrictInt(fields.Integer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)


class DealSpec(Schema):
    class Meta:
        unknown = RAISE

    players = StrictInt(load_default=None, allow_none=True, validate=validate.Range(1, 64))
    options = fields.Dict(load_default=None, allow_none=True)
    seed = fields.String(load_default=None, allow_none=True, validate=HEX)
    deal = fields.Dict(load_default=None, allow_none=True)
    deals = fields.List(fields.Raw(), load_default=None, allow_none=True)


class NewMatch(DealSpec):
    pass


class Replay(DealSpec):
    moves = fields.List(fields.Dict(), required=True)


class MoveRequest(Schema):
    class Meta:
        unknown = RAISE

    state = fields.Dict(required=True)
    state_tag = fields.String(load_default=None, allow_none=True)
    move = fields.Dict(required=True)


class LegalMovesRequest(Schema):
    class Meta:
        unknown = RAISE

    state = fields.Dict(required=True)
    state_tag = fields.String(load_default=None, allow_none=True)
    seat = StrictInt(load_default=None, allow_none=True)


class ViewRequest(LegalMovesRequest):
    pass


class SessionCreate(DealSpec):
    game = fields.String(required=True)


class SessionMove(Schema):
    class Meta:
        unknown = RAISE

    move = fields.Dict(required=True)
    version = StrictInt(load_default=None, allow_none=True, validate=validate.Range(0))


def load(schema: Schema, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_request", "The request body must be a JSON object.")
    try:
        data: dict[str, Any] = schema.load(body)
    except ValidationError as exc:
        field, messages = next(iter(_flatten(exc.messages)))
        raise ApiError(400, "invalid_request", f"'{field}': {messages}", errors=_str_keys(exc.messages)) from None
    return data


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


NEW = NewMatch()
REPLAY = Replay()
MOVE = MoveRequest()
LEGAL = LegalMovesRequest()
VIEW = ViewRequest()
SESSION_CREATE = SessionCreate()
SESSION_MOVE = SessionMove()
__all__ = ["load", "NEW", "REPLAY", "MOVE", "LEGAL", "VIEW", "SESSION_CREATE", "SESSION_MOVE", "EXCLUDE"]
