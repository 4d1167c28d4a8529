"""Quotas per client: how many sessions one client may create, and how many requests it may make, in each
fixed window of time. Counted in the session store (Redis: shared by every worker and server).

A client is the address the request came from; behind ``PROXY_HOPS`` trusted proxies it is the address the
outermost of them saw, read from ``X-Forwarded-For`` (each proxy appends the address it got the request
from, so the entry ``PROXY_HOPS`` from the end was written by our own outermost proxy, and a client cannot
forge it). Over the quota, a request is answered 429 ``too_many_requests`` with ``Retry-After``: the seconds
left in the window.
"""
from __future__ import annotations

import logging
import math
import time

from flask import Flask, current_app, request

from ..config import Config, Quota
from ..storage import SessionStore, StoreUnavailable
from .errors import ApiError

log = logging.getLogger("service.api")
EXEMPT = frozenset({"/healthz", "/readyz", "/metrics"})  # probes and scrapes are never counted


def client_address(proxy_hops: int) -> str:
    """The client's address: the peer's, or behind ``proxy_hops`` proxies the one the outermost proxy saw."""
    if proxy_hops:
        forwarded = [a.strip() for a in request.headers.get("X-Forwarded-For", "").split(",") if a.strip()]
        if len(forwarded) >= proxy_hops:
            return forwarded[-proxy_hops][:64]
    return request.remote_addr or "unknown"


def take(store: SessionStore, kind: str, quota: Quota, client: str) -> None:
    """Count one ``kind`` for ``client`` in the current window; 429 once its count is past the quota."""
    now = time.time()
    window = int(now // quota.window)
    used = store.count(f"{kind}:{client}:{window}", quota.window)
    if used > quota.limit:
        retry = max(1, math.ceil((window + 1) * quota.window - now))
        raise ApiError(429, "too_many_requests",
                       f"Too many {'sessions created' if kind == 'sessions' else 'requests'} from your address: "
                       f"at most {quota.limit} every {quota.window} seconds. Try again in {retry} seconds.",
                       headers={"Retry-After": str(retry)})


def take_session(store: SessionStore, config: Config) -> None:
    """Count a session creation against SESSION_QUOTA (before anything is made)."""
    if config.session_quota is not None:
        take(store, "sessions", config.session_quota, client_address(config.proxy_hops))


def install(app: Flask, config: Config) -> None:
    """REQUEST_QUOTA: counted before every request but the probes. A store that does not answer lets the
    request through (the stateless endpoints need no store; the session ones answer 503 on their own)."""
    quota = config.request_quota
    if quota is None:
        return

    @app.before_request
    def _count_request() -> None:
        if request.path in EXEMPT:
            return
        store: SessionStore = current_app.extensions["session_store"]
        try:
            take(store, "requests", quota, client_address(config.proxy_hops))
        except StoreUnavailable:
            log.warning("request quota not counted: the store is unavailable")
