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


if not os.environ.get("STATE_TAG_KEY") and os.environ.get("REQUIRE_STATE_TAG", "0").lower() in ("", "0", "false",
                                                                                               "no", "off"):
    # One key for every worker of this instance, drawn here in the master before the workers fork, so a state
    # tagged by one worker is recognised by the others (docs/architecture.md, "State tags"). Not when tags are
    # required: that needs a key given by the operator (service/config.py says so at start).
    import base64
    import secrets
    os.environ["STATE_TAG_KEY"] = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{_int_env('PORT', 8000)}"
# The gevent worker (docs/deployment.md, "The process model"): one process per core, and in each a greenlet
# per connection instead of a thread, so a waiting client (an event stream, a long-poll) or one that sends
# half a request and stalls costs a few kilobytes, not one of a handful of threads. GUNICORN_WORKER=gthread
# brings back the thread pool (GUNICORN_THREADS threads a worker), where every open request holds a thread.
# No reuse_port: with it a second gunicorn (a stale one, another deployment) binds a port already served and
# silently takes half its connections; without it the second one fails to start ("Address already in use").
# The workers share the master's socket either way, so the option did not spread connections among them.
worker_class = os.environ.get("GUNICORN_WORKER", "gevent")
if worker_class not in ("gevent", "gthread"):
    sys.exit(f"card-referee: GUNICORN_WORKER must be gevent or gthread, got {worker_class!r}")
REQUEST_TIMEOUT = (b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
                   b"Content-Length: %d\r\n\r\n%s")
TIMEOUT_BODY = (b'{"type":"urn:card-referee:problem:request_timeout","title":"Request timeout","status":408,'
                b'"detail":"The request body did not arrive in time.","code":"request_timeout"}')


def _timed_gevent_worker() -> type:
    """gunicorn's gevent worker, reading each request's body within ``body_timeout`` seconds before the app
    sees it (the app then reads it from memory): a client that sends half a body and stalls is answered 408
    and closed instead of holding its connection, and its greenlet, for as long as it likes."""
    import io

    import gevent
    from gunicorn.workers.ggevent import GeventWorker

    class TimedGeventWorker(GeventWorker):
        def handle_request(self, listener_name, req, sock, addr):  # noqa: ANN001, ANN201 - gunicorn's signature
            from service.app import MAX_BODY  # in the worker, once gevent has patched it (the app imported it)
            timer = gevent.Timeout(body_timeout)
            timer.start()
            try:  # at most one byte past the largest body: the app answers 413 past it
                req.body = io.BytesIO(req.body.read(MAX_BODY + 1))
            except gevent.Timeout as fired:
                if fired is not timer:
                    raise
                self.log.info("closed a connection whose body stalled (%s)", addr)
                sock.sendall(REQUEST_TIMEOUT % (len(TIMEOUT_BODY), TIMEOUT_BODY))
                raise StopIteration("request body timed out") from None
            finally:
                timer.close()
            return super().handle_request(listener_name, req, sock, addr)

    return TimedGeventWorker


if worker_class == "gevent":
    worker_class = _timed_gevent_worker()
# Each greenlet (one per connection) would record the stack that spawned it, ten small objects that the
# collector walks for as long as the connection waits: 2,000 waiting clients made 20,000 of them. Nothing
# of ours reads that record.
os.environ.setdefault("GEVENT_TRACK_GREENLET_TREE", "false")
workers = _int_env("WEB_CONCURRENCY", 2)
threads = _int_env("GUNICORN_THREADS", 8)
worker_connections = _int_env("GUNICORN_WORKER_CONNECTIONS", 4096)
reuse_port = False
timeout = _int_env("GUNICORN_TIMEOUT", 60)
graceful_timeout = 20
# Stalled connections (docs/deployment.md, "Limits and timeouts"): a request's line and headers must have come
# HEADER_TIMEOUT seconds after the connection opened or its last answer went out (gunicorn's keepalive, which
# the gevent worker applies to exactly that wait: also how long an idle connection is kept), and its body
# BODY_TIMEOUT seconds after its headers; otherwise the connection is closed (the body's with a 408).
keepalive = _int_env("HEADER_TIMEOUT", 5)
body_timeout = _int_env("BODY_TIMEOUT", 20)
accesslog = None  # the app writes one structured JSON line per request itself
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info").lower()


def _raise_open_files_limit() -> None:
    """Every open connection is a file descriptor: let each worker have its connections, its Redis connections
    and some spare (the soft limit is often 1024; the hard limit is what the system allows)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 1024
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),
                                                    hard))


_raise_open_files_limit()


def post_worker_init(worker):  # noqa: ANN001 - gunicorn hook
    """Once the app is loaded: move every object made so far (modules, the engine's tables, the app) out of the
    collector's sight with gc.freeze, and collect the young generation every 10,000 allocations instead of 700.
    A full collection walks every tracked object: with 2,000 waiting clients a worker paused 850-1,260 ms (70-115
    ms of CPU on the loaded 2-core benchmark machine) three times in a 30 s run, and every waiter of that worker
    waited with it; with these settings it was once a run, at about 310-330 ms (71-78 ms of CPU)
    (docs/performance.md, "Waiting clients")."""
    import gc
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def post_request(worker, req, environ, resp):  # noqa: ANN001 - gunicorn hook
    """Under gevent, a connection whose next request is already in would be served again before any other
    greenlet runs; yielding once after each request serves the connections in turn (it cut the p99 of a
    loaded worker by half; docs/deployment.md)."""
    from service.api.wsgi.turns import is_session_read
    if worker_class != "gthread" and not is_session_read(environ):  # a poll comes back at once: let it in
        from gevent import sleep
        sleep(0)


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
