"""gunicorn settings for Card Referee (see docs/deployment.md for the reasoning)."""
import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
# Threads let a worker hold long-poll requests (GET /v1/sessions/{id}?wait=) without starving others;
# reuse_port lets the kernel spread connections evenly across workers.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
reuse_port = True
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 20
keepalive = 5
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()

# Prometheus metrics summed over workers: each worker writes to PROMETHEUS_MULTIPROC_DIR.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def on_starting(server):  # noqa: ANN001 - gunicorn hook
    if _metrics_dir:
        os.makedirs(_metrics_dir, exist_ok=True)
        for name in os.listdir(_metrics_dir):
            if name.endswith(".db"):
                os.remove(os.path.join(_metrics_dir, name))


def child_exit(server, worker):  # noqa: ANN001 - gunicorn hook
    if _metrics_dir:
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(worker.pid)
