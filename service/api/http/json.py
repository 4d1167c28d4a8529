"""Fast JSON in and out (orjson), the same for every endpoint."""
from __future__ import annotations

from typing import Any

import orjson
from flask import Response, request
from flask.json.provider import JSONProvider

from .errors import ApiError


class OrjsonProvider(JSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


def body() -> Any:
    """The request's JSON body (any content type); 400 when it is not JSON."""
    return parse(request.get_data(cache=False))


def parse(raw: bytes) -> Any:
    """A request body already read: JSON, or 400."""
    if not raw:
        raise ApiError(400, "invalid_request", "The request needs a JSON body.")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ApiError(400, "invalid_request", "The request body is not valid JSON.") from None


def reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    resp = Response(orjson.dumps(payload), status=status, mimetype="application/json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp
