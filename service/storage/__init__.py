"""Session storage behind one protocol (base.SessionStore): Redis, or in-process memory as a fallback."""
from __future__ import annotations

import logging

from ..config import Config
from .base import Saved, Session, SessionStore, StoreUnavailable, Write
from .memory_store import MemoryStore
from .redis_store import Observer, RedisStore

__all__ = ["Saved", "Session", "SessionStore", "StoreUnavailable", "Write", "MemoryStore", "RedisStore",
           "store_for"]
log = logging.getLogger("service.storage")


def store_for(config: Config, observer: Observer | None = None) -> SessionStore:
    """Redis when REDIS_URL is set; otherwise the in-process store (single process only).
    ``observer(operation, seconds, ok)`` is told about every Redis operation (metrics)."""
    if config.redis_url:
        return RedisStore(config.redis_url, config.key_prefix, config.redis_timeout, observer)
    if not config.testing:
        log.warning("REDIS_URL is not set: sessions are kept in this process only (single-process use; "
                    "deploy/serve.sh starts a private redis-server instead)")
    return MemoryStore()
