"""What one request may cost, checked before the work it limits, and quotas per client.

Every endpoint reads at most its own body size (``BODY_LIMITS``: what its largest valid request needs, far
below the 4 MiB the server reads at most); the counts a body gives (explicit deals, a replay's moves) are
checked on the parsed JSON before any entry is validated (``check_counts``); a replay's moves are applied in
slices of a few milliseconds that let a gevent worker serve its other connections in between (``Slicer``). docs/deployment.md,
"Limits and timeouts", gives the numbers and the work each endpoint's largest accepted body costs.

Quotas: how many sessions one client may create, and how many requests it may make, in each fixed window of
time. Counted in the session store (Redis: shared by every worker and server).

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

from typing import Any

from flask import Flask, current_app, request

from ...config import Config, Quota
from ...greenlets import under_gevent
from ...storage import SessionStore, StoreUnavailable
from ..http.errors import ApiError

log = logging.getLogger("service.api")
EXEMPT = frozenset({"/healthz", "/readyz", "/metrics"})  # probes and scrapes are never counted

KIB = 1024
# Bytes of body each endpoint reads at most (413 past it). A state with the most explicit deals a request may
# fix (MAX_DEALS of Jewel's 162 cards) is about 100 KB; a replay of MAX_MOVES moves about 1 MB.
BODY_LIMITS: dict[str, int] = {
    "games.new": 256 * KIB, "games.replay": 2048 * KIB,
    "games.move": 1024 * KIB, "games.legal": 1024 * KIB, "games.view": 1024 * KIB,
    "sessions.create": 256 * KIB,
}
DEFAULT_BODY_LIMIT = 64 * KIB  # a session's move (4 KiB checked again by the service), a concession, an abort
SLICE_SECONDS = 0.005  # work a long request does between two chances for its worker to serve other requests
# How a slice ends: a timer this short, not sleep(0). sleep(0) resumes the greenlet from the loop's callback
# queue, which gevent drains (callbacks added meanwhile included) for 50 callbacks before it looks at the
# clock or polls a socket: a long request yielding with it ran up to 50 slices (250 ms) while every other
# connection of its worker waited. A timer ends the pass, so the loop polls its sockets between two slices.
SLICE_PAUSE = 0.0001


def body_limit(endpoint: str | None) -> int:
    return BODY_LIMITS.get(endpoint or "", DEFAULT_BODY_LIMIT)


def too_many_deals(max_deals: int) -> ApiError:
    return ApiError(422, "limit_exceeded", f"At most {max_deals} explicit deals can be given (MAX_DEALS); the "
                                           f"deals after them come from the seed.", limit="deals")


def check_counts(payload: Any, max_deals: int, max_moves: int | None = None) -> None:
    """The counts of a parsed body, before any of its entries is looked at: explicit deals (``deal`` and
    ``deals``) at most ``max_deals``, a replay's ``moves`` at most ``max_moves`` (a session's log holds no
    more, so every session's match can be replayed)."""
    if type(payload) is not dict:
        return
    deals = payload.get("deals")
    if type(deals) is list and len(deals) + (payload.get("deal") is not None) > max_deals:
        raise too_many_deals(max_deals)
    moves = payload.get("moves")
    if max_moves is not None and type(moves) is list and len(moves) > max_moves:
        raise ApiError(422, "limit_exceeded", f"A replay takes at most {max_moves} moves (MAX_MOVES, the most a "
                                              f"session's log holds), not {len(moves)}.", limit="moves")


class Slicer:
    """Under gevent, gives the worker's other greenlets their turn whenever a long request (a replay's moves,
    a match's explicit deals) has worked ``SLICE_SECONDS`` since it last did: a greenlet is never preempted,
    so a long replay would otherwise hold every connection of its worker until it ends. ``step`` is called
    after each unit of work; elsewhere (threads, tests) it does nothing."""

    def __init__(self) -> None:
        self._sleep: Any = None
        self._since = 0.0
        if under_gevent():
            from gevent import sleep
            self._sleep = sleep
            self._since = time.perf_counter()

    def step(self) -> None:
        if self._sleep is not None and time.perf_counter() - self._since >= SLICE_SECONDS:
            self._sleep(SLICE_PAUSE)
            self._since = time.perf_counter()


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
    """Each endpoint's body limit; REQUEST_QUOTA: counted before every request but the probes. A store that
    does not answer lets the request through (the stateless endpoints need no store; the session ones answer
    503 on their own)."""

    @app.before_request
    def _body_limit() -> None:
        request.max_content_length = body_limit(request.endpoint)

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
