"""gunicorn settings for Card Referee (the reasoning is in docs/deployment.md).

Every setting comes from the environment; a bad value stops gunicorn before it binds, with one line saying
which variable is wrong.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _int_env(name: str, default: int, low: int = 1) -> int:
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        sys.exit(f"card-referee: {name} must be a whole number, got {raw!r}")
    if value < low:
        sys.exit(f"card-referee: {name} must be at least {low}, got {value}")
    return value


if not os.environ.get("STATE_TAG_KEY"):
    # One key for every worker of this instance, drawn here in the master before the workers fork, so a state
    # tagged by one worker is recognised by the others (docs/architecture.md, "State tags").
    import base64
    import secrets
    os.environ["STATE_TAG_KEY"] = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{_int_env('PORT', 8000)}"
# Two processes use both cores; threads let a worker hold long-poll requests
# (GET /v1/sessions/{id}?wait=) without starving the others. No reuse_port: with it a second gunicorn
# (a stale one, another deployment) binds a port already served and silently takes half its connections;
# without it the second one fails to start ("Address already in use"). The workers share the master's
# socket either way, so the option did not spread connections among them.
worker_class = "gthread"
workers = _int_env("WEB_CONCURRENCY", 2)
threads = _int_env("GUNICORN_THREADS", 8)
reuse_port = False
timeout = _int_env("GUNICORN_TIMEOUT", 60)
graceful_timeout = 20
keepalive = 5
accesslog = None  # the app writes one structured JSON line per request itself
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# Prometheus metrics summed over workers: each worker writes to PROMETHEUS_MULTIPROC_DIR.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def on_starting(server):  # noqa: ANN001 - gunicorn hook
    from service.config import Config, ConfigError
    try:
        Config.from_env()
    except ConfigError as exc:
        sys.exit(f"card-referee: bad configuration: {exc}")
    if _metrics_dir:
        os.makedirs(_metrics_dir, exist_ok=True)
        for name in os.listdir(_metrics_dir):
            if name.endswith(".db"):
                os.remove(os.path.join(_metrics_dir, name))


def child_exit(server, worker):  # noqa: ANN001 - gunicorn hook
    if _metrics_dir:
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(worker.pid)
