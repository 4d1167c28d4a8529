"""Configuration from environment variables, checked once at start-up.

Every variable, its default and meaning is listed in docs/configuration.md ("Settings"). A bad value stops
the service with a message naming the variable, rather than failing later under load.
"""
from __future__ import annotations

import base64
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field


class ConfigError(ValueError):
    """A configuration value is unusable; the message says which and why."""


@dataclass(frozen=True)
class Quota:
    """At most ``limit`` requests per client in each fixed window of ``window`` seconds."""

    limit: int
    window: int

    def __str__(self) -> str:
        return f"{self.limit}/{self.window}"


@dataclass(frozen=True)
class Config:
    redis_url: str | None = None          # None: the embedded store (see service/storage)
    redis_timeout: float = 0.5            # seconds for one Redis operation before 503
    redis_mode: str = "single"            # single, cluster (REDIS_URL names a node) or sentinel
    redis_sentinels: tuple[tuple[str, int], ...] = ()  # sentinel mode: the sentinels' addresses
    redis_sentinel_master: str = "mymaster"
    redis_wait_replicas: int = 0          # a write is acknowledged once this many replicas hold it (WAIT)
    redis_wait_timeout: float = 0.25      # seconds WAIT may take before the write counts as not acknowledged
    # 32 bytes; when set, states sent to clients are sealed. Keys never appear in a repr (nor in a log line).
    sealing_key: bytes | None = field(default=None, repr=False)
    # 32 bytes; None: a random key for this process (service/api/states/codec.py)
    state_tag_key: bytes | None = field(default=None, repr=False)
    session_ttl: int = 24 * 3600          # seconds an idle session lives
    finished_ttl: int = 7 * 24 * 3600     # seconds a finished session is kept
    long_poll_max: float = 30.0           # longest wait a client may ask for, seconds
    events_heartbeat: float = 15.0        # seconds between keep-alive comments on an idle event stream
    events_max: float = 3600.0            # seconds an event stream stays open before the client must resume
    key_prefix: str = "cr:"
    tournament_tick: float = 0.25         # seconds between two looks of the director at a tournament
    bot_heartbeat: float = 2.0            # seconds between heartbeats on a bot's stream (connected: 3 of them)
    log_level: str = "INFO"
    # Limits that keep one client from filling the store or the workers (docs/configuration.md, "Limits and quotas")
    max_deals: int = 100                  # explicit deals one request may fix
    max_session_bytes: int = 512 * 1024   # a session's state plus its creation record, as JSON
    max_moves: int = 10_000               # moves one session's log may hold
    session_quota: Quota | None = Quota(60, 60)  # sessions one client may create per window; None: no quota
    request_quota: Quota | None = None    # requests one client may make per window; None: no quota
    request_turns: int = 4                # under gevent, requests of a worker working at once; 0: no limit
    proxy_hops: int = 0                   # proxies in front that append to X-Forwarded-For
    # Integrity mode: a plain state without this service's valid tag is refused (docs/integrity.md)
    require_state_tag: bool = False
    testing: bool = False
    extra: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        redis_timeout = _positive_float(env, "REDIS_TIMEOUT", 0.5)
        mode = _choice(env, "REDIS_MODE", "SINGLE", ("SINGLE", "CLUSTER", "SENTINEL")).lower()
        sentinels = _addresses(env, "REDIS_SENTINELS")
        if mode == "sentinel" and not sentinels:
            raise ConfigError("REDIS_MODE=sentinel needs REDIS_SENTINELS (host:port,host:port,...)")
        if mode == "cluster" and not env.get("REDIS_URL"):
            raise ConfigError("REDIS_MODE=cluster needs REDIS_URL naming one node of the cluster")
        wait_replicas = _count(env, "REDIS_WAIT_REPLICAS", 0)
        wait_timeout = _positive_float(env, "REDIS_WAIT_TIMEOUT", 0.25)
        if wait_replicas and wait_timeout >= redis_timeout:
            raise ConfigError(f"REDIS_WAIT_TIMEOUT must be shorter than REDIS_TIMEOUT ({redis_timeout}), "
                              f"got {wait_timeout}")
        return cls(
            redis_url=_redis_url(env.get("REDIS_URL") or None),
            redis_timeout=redis_timeout,
            redis_mode=mode,
            redis_sentinels=sentinels,
            redis_sentinel_master=env.get("REDIS_SENTINEL_MASTER") or "mymaster",
            redis_wait_replicas=wait_replicas,
            redis_wait_timeout=wait_timeout,
            sealing_key=_key(env, "SEALING_KEY"),
            state_tag_key=_key(env, "STATE_TAG_KEY"),
            session_ttl=_positive_int(env, "SESSION_TTL", 24 * 3600),
            finished_ttl=_positive_int(env, "FINISHED_TTL", 7 * 24 * 3600),
            long_poll_max=_positive_float(env, "LONG_POLL_MAX", 30.0),
            events_heartbeat=_positive_float(env, "EVENTS_HEARTBEAT", 15.0),
            events_max=_positive_float(env, "EVENTS_MAX", 3600.0),
            key_prefix=env.get("KEY_PREFIX", "cr:"),
            tournament_tick=_positive_float(env, "TOURNAMENT_TICK", 0.25),
            bot_heartbeat=_positive_float(env, "BOT_HEARTBEAT", 2.0),
            log_level=_choice(env, "LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR")),
            max_deals=_positive_int(env, "MAX_DEALS", 100, "a whole number"),
            max_session_bytes=_positive_int(env, "MAX_SESSION_BYTES", 512 * 1024, "a whole number of bytes"),
            max_moves=_positive_int(env, "MAX_MOVES", 10_000, "a whole number"),
            session_quota=_quota(env, "SESSION_QUOTA", Quota(60, 60)),
            request_quota=_quota(env, "REQUEST_QUOTA", None),
            request_turns=_turns(env, "REQUEST_TURNS"),
            proxy_hops=_count(env, "PROXY_HOPS", 0),
            require_state_tag=_require_state_tag(env),
        )


def _positive_int(env: Mapping[str, str], name: str, default: int, what: str = "a whole number of seconds") -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be {what}, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be positive, got {value}")
    return value


def _turns(env: Mapping[str, str], name: str) -> int:
    """A whole number of turns (4 when unset), or 0 / off for no limit (service/api/wsgi/turns.py)."""
    raw = env.get(name, "").strip().lower()
    if raw in ("0", "off"):
        return 0
    return _positive_int(env, name, 4, "a whole number of requests, or off")


def _addresses(env: Mapping[str, str], name: str) -> tuple[tuple[str, int], ...]:
    out = []
    for item in filter(None, (part.strip() for part in env.get(name, "").split(","))):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"{name} must be host:port,host:port,..., got {item!r}")
        out.append((host.strip("[]"), int(port)))
    return tuple(out)


def _flag(env: Mapping[str, str], name: str) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw not in ("", "0", "1", "true", "false", "yes", "no", "on", "off"):
        raise ConfigError(f"{name} must be 1 or 0 (true/false, yes/no, on/off), got {raw!r}")
    return raw in ("1", "true", "yes", "on")


def _require_state_tag(env: Mapping[str, str]) -> bool:
    """REQUIRE_STATE_TAG, which needs a tag key every worker and instance shares (and that outlives a restart):
    with a key drawn at start, a restart or another instance would refuse every state a client holds."""
    required = _flag(env, "REQUIRE_STATE_TAG")
    if required and not env.get("STATE_TAG_KEY") and not env.get("SEALING_KEY"):
        raise ConfigError("REQUIRE_STATE_TAG needs STATE_TAG_KEY (or SEALING_KEY): the same key on every instance")
    return required


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or int(raw) > 16:
        raise ConfigError(f"{name} must be a whole number from 0 to 16, got {raw!r}")
    return int(raw)


def _quota(env: Mapping[str, str], name: str, default: Quota | None) -> Quota | None:
    """``<requests>/<seconds>`` (e.g. ``60/60``), or ``off`` (or ``0``) for no quota."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if raw.strip().lower() in ("off", "0"):
        return None
    limit, _, window = raw.partition("/")
    if not (limit.strip().isdigit() and window.strip().isdigit() and int(limit) > 0 and int(window) > 0):
        raise ConfigError(f"{name} must be <requests>/<seconds> (e.g. 60/60) or off, got {raw!r}")
    return Quota(int(limit), int(window))


def _positive_float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"{name} must be a positive, finite number, got {raw!r}")
    return value


def _redis_url(raw: str | None) -> str | None:
    if raw is not None and not raw.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(f"REDIS_URL must start with redis://, rediss:// or unix://, got {raw.split('://')[0]!r}...")
    return raw


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env.get(name, default).upper()
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _key(env: Mapping[str, str], name: str) -> bytes | None:
    raw = env.get(name)
    if not raw:
        return None
    try:
        key = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
    except (ValueError, TypeError):
        raise ConfigError(f"{name} must be 32 bytes in URL-safe base64") from None
    if len(key) != 32:
        raise ConfigError(f"{name} must decode to 32 bytes, got {len(key)}")
    return key
