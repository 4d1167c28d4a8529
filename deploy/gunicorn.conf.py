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
