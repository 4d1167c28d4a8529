"""HTTP/1.1 with keep-alive (one connection per thread), JSON in and out, and bounded retries.

Retried: a connection that fails or drops (the server closed a keep-alive connection, a restart), a 503
``store_unavailable`` and a 429, waiting ``Retry-After`` (capped) between tries. A 429 is always retried (the
request was refused before anything was done); the others only when the request is safe to send twice: a GET,
a POST that carries an ``Idempotency-Key`` (a move), or one the caller says is safe. Everything else is
answered at once, an error answer as a typed :class:`~card_referee_client.errors.ProblemError`.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ProblemError, TransportError, problem_from

RETRY_STATUS = {503, 429}


class StreamOver(Exception):
    """The service answered a stream request with 204: nothing more will come."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: Any


class Transport:
    def __init__(self, base_url: str, timeout: float = 30.0, retries: int = 3, max_pause: float = 2.0) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.scheme, self.host = parsed.scheme, parsed.hostname
        self.port = parsed.port or (443 if parsed.scheme == "https" else 80)
        self.prefix = parsed.path.rstrip("/")
        self.timeout, self.retries, self.max_pause = timeout, retries, max_pause
        self._local = threading.local()

    # ----- connections ------------------------------------------------------------------
    def connection(self, timeout: float | None = None) -> http.client.HTTPConnection:
        """A new connection (for a stream or a long-poll that should not hold the thread's shared one)."""
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=timeout or self.timeout)

    def _shared(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self.connection()
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def close(self) -> None:
        self._drop()

    # ----- requests -------------------------------------------------------------------
    def request(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None,
                timeout: float | None = None, retry_post: bool = False) -> Reply:
        """Send, retrying where safe; answers a 2xx reply or raises ProblemError / TransportError."""
        hdrs = {"Accept": "application/json", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
            hdrs["Content-Type"] = "application/json"
        safe = method == "GET" or retry_post or "Idempotency-Key" in hdrs
        attempts = self.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                reply = self._once(method, self.prefix + path, data, hdrs, timeout)
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                if last or not safe:
                    raise TransportError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
                time.sleep(min(0.05 * 2 ** attempt, self.max_pause))
                continue
            if reply.status < 400:
                return reply
            if reply.status in RETRY_STATUS and attempt < self.retries and (safe or reply.status == 429):
                time.sleep(self._pause(reply.headers.get("Retry-After"), attempt))
                continue
            raise problem_from(reply.status, reply.body, reply.headers.get("Retry-After"))
        raise AssertionError("unreachable")

    def _pause(self, retry_after: str | None, attempt: int) -> float:
        try:
            wanted = float(retry_after) if retry_after else 0.1 * 2 ** attempt
        except ValueError:
            wanted = 0.1 * 2 ** attempt
        return min(max(wanted, 0.0), self.max_pause)

    def _once(self, method: str, path: str, data: bytes | None, headers: dict[str, str],
              timeout: float | None) -> Reply:
        conn = self._shared() if timeout is None else self.connection(timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        except BaseException:
            conn.close()
            raise
        finally:
            if timeout is not None:
                conn.close()
        if resp.getheader("Connection", "").lower() == "close":
            self._drop()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError as exc:
            if resp.status >= 400:
                parsed = {"code": "unknown", "detail": raw[:300].decode(errors="replace")}
            else:
                raise http.client.HTTPException(f"answer is not JSON: {raw[:80]!r}") from exc
        return Reply(resp.status, {k: v for k, v in resp.getheaders()}, parsed)

    def text(self, path: str, accept: str = "text/plain") -> str:
        """A GET whose answer is text, not JSON (a CSV or Markdown table); retried like any GET."""
        for attempt in range(self.retries + 1):
            conn = self.connection()
            try:
                conn.request("GET", self.prefix + path, headers={"Accept": accept})
                resp = conn.getresponse()
                raw = resp.read()
            except (OSError, http.client.HTTPException) as exc:
                if attempt == self.retries:
                    raise TransportError(f"GET {path}: {type(exc).__name__}: {exc}") from exc
                time.sleep(min(0.05 * 2 ** attempt, self.max_pause))
                continue
            finally:
                conn.close()
            if resp.status < 400:
                return raw.decode("utf-8")
            if resp.status in RETRY_STATUS and attempt < self.retries:
                time.sleep(self._pause(resp.getheader("Retry-After"), attempt))
                continue
            raise problem_of(resp.status, raw, resp.getheader("Retry-After"))
        raise AssertionError("unreachable")

    def stream(self, path: str, headers: Mapping[str, str], timeout: float) -> Iterator[bytes]:
        """The lines of a streaming answer (the event stream), on a connection of its own."""
        conn = self.connection(timeout)
        try:
            conn.request("GET", self.prefix + path, headers={"Accept": "text/event-stream", **headers})
            resp = conn.getresponse()
            if resp.status == 204:  # the stream has nothing more to send, ever (a finished match)
                raise StreamOver()
            if resp.status >= 400:
                raise problem_of(resp.status, resp.read(), resp.getheader("Retry-After"))
            while True:
                line = resp.readline()
                if not line:
                    return
                yield line
        except (OSError, http.client.HTTPException) as exc:
            raise TransportError(f"GET {path}: {type(exc).__name__}: {exc}") from exc
        finally:
            conn.close()


def problem_of(status: int, raw: bytes, retry_after: str | None = None) -> ProblemError:
    """The exception for an error answer's raw body (a problem object, or any text)."""
    try:
        body: Any = json.loads(raw)
    except ValueError:
        body = raw.decode(errors="replace")
    return problem_from(status, body, retry_after)


__all__ = ["ProblemError", "Reply", "StreamOver", "Transport", "TransportError", "problem_of"]
