"""Whether this process runs under gevent's monkey-patching (gunicorn's gevent worker patches each worker
before it loads the app; the gthread worker, the tests and scripts run on plain threads)."""
from __future__ import annotations


def under_gevent() -> bool:
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return False
    return bool(monkey.is_module_patched("socket"))
