"""Every error leaves as ``application/problem+json`` (RFC 9457) with a stable ``code``.

The engine's RulesError tree maps to 4xx here and only here. Anything unexpected is logged with its
traceback and answered without one.
"""
from __future__ import annotations

import logging
from typing import Any

import orjson
from flask import Flask, Response, has_request_context
from werkzeug.exceptions import HTTPException

from ...engine import IllegalMove, RulesError
from ...storage.base import StoreUnavailable
from ..wsgi import observability

log = logging.getLogger("service.api")
PROBLEM = "application/problem+json"
TITLES = {
    "illegal_move": "Illegal move", "invalid_state": "Invalid state", "invalid_deal": "Invalid deal",
    "invalid_options": "Invalid options", "unknown_game": "Unknown game", "invalid_request": "Invalid request",
    "state_tampered": "State tampered", "version_conflict": "Version conflict",
    "session_not_found": "Session not found", "forbidden": "Forbidden", "unauthorized": "Unauthorized",
    "store_unavailable": "Store unavailable", "not_found": "Not found", "method_not_allowed": "Method not allowed",
    "internal_error": "Internal error", "payload_too_large": "Payload too large",
    "idempotency_key_reused": "Idempotency key reused", "too_many_requests": "Too many requests",
    "limit_exceeded": "Limit exceeded", "match_over": "Match over", "abort_too_late": "Abort too late",
}
RETRY_AFTER = "1"  # seconds a client should wait after a 503 store_unavailable


class ApiError(Exception):
    """An HTTP-level problem raised by the API layer itself (not by the rules)."""

    def __init__(self, status: int, code: str, detail: str, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.headers, self.extra = status, code, detail, headers or {}, extra


def problem(status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body: dict[str, Any] = {"type": f"urn:card-referee:problem:{code}",
                            "title": TITLES.get(code, code.replace("_", " ").capitalize()),
                            "status": status, "detail": detail, "code": code}
    body.update({k: v for k, v in extra.items() if v is not None})
    resp = Response(orjson.dumps(body), status=status, mimetype=PROBLEM)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


# The engine says what went wrong; the HTTP status is this layer's business: an unknown game is a missing
# resource, every other rules error is a well-formed request the rules refuse.
RULES_STATUS = {"unknown_game": 404}


def rules_problem(exc: RulesError) -> Response:
    extra: dict[str, Any] = {}
    if isinstance(exc, IllegalMove):
        extra["reason"] = exc.reason
        if has_request_context():
            observability.illegal_move(exc.reason)
    for key in ("index", "option", "card"):
        if key in exc.details and isinstance(exc.details[key], (str, int)):
            extra[key] = exc.details[key]
    return problem(RULES_STATUS.get(exc.code, 422), exc.code, exc.message, **extra)


def http_problem(exc: HTTPException) -> Response:
    """Werkzeug's HTTP errors (no route, a wrong method, a body too large) as problems."""
    status = exc.code or 500
    code = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}.get(status, "invalid_request")
    detail = exc.description or TITLES.get(code, "")
    resp = problem(status, code, detail)
    if status == 405 and exc.get_response().headers.get("Allow"):
        resp.headers["Allow"] = exc.get_response().headers["Allow"]
    return resp


def register(app: Flask) -> None:
    @app.errorhandler(RulesError)
    def _rules(exc: RulesError) -> Response:
        return rules_problem(exc)

    @app.errorhandler(ApiError)
    def _api(exc: ApiError) -> Response:
        return problem(exc.status, exc.code, exc.detail, exc.headers, **exc.extra)

    @app.errorhandler(StoreUnavailable)
    def _store(exc: StoreUnavailable) -> Response:
        return problem(503, "store_unavailable", "The session store is not answering; try again shortly.",
                       {"Retry-After": RETRY_AFTER})

    app.register_error_handler(HTTPException, http_problem)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        log.exception("unexpected error")
        return problem(500, "internal_error", "Something went wrong on our side; it has been logged.")
