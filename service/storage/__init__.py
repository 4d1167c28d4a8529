"""Session storage behind one protocol (base.SessionStore): Redis, or in-process memory as a fallback."""
from __future__ import annotations

import logging

from ..config import Config
from .base import Saved, Session, SessionStore, StoreUnavailable, Write
from .memory_store import MemoryStore
from .redis_store import ClusterTopology, Observer, RedisStore, Topology, sentinel

__all__ = ["Saved", "Session", "SessionStore", "StoreUnavailable", "Write", "MemoryStore", "RedisStore",
           "store_for"]
log = logging.getLogger("service.storage")


def topology(config: Config) -> Topology | None:
    """REDIS_MODE: one Redis (None: RedisStore connects to REDIS_URL), a cluster, or Sentinel's master."""
    if config.redis_mode == "cluster":
        assert config.redis_url is not None
        return ClusterTopology(config.redis_url, config.redis_timeout)
    if config.redis_mode == "sentinel":
        return sentinel(list(config.redis_sentinels), config.redis_sentinel_master, config.redis_url,
                        config.redis_timeout)
    return None


def store_for(config: Config, observer: Observer | None = None) -> SessionStore:
    """Redis when REDIS_URL is set; otherwise the in-process store (single process only).
    ``observer(operation, seconds, ok)`` is told about every Redis operation (metrics)."""
    if config.redis_url or config.redis_mode != "single":
        return RedisStore(config.redis_url, config.key_prefix, config.redis_timeout, observer, topology(config),
                          config.redis_wait_replicas, config.redis_wait_timeout)
    if not config.testing:
        log.warning("REDIS_URL is not set: sessions are kept in this process only (single-process use; "
                    "deploy/serve.sh starts a private redis-server instead)")
    return MemoryStore()
