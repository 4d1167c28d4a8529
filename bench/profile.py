"""Where the time goes: a sampling profile (pyinstrument) of one engine or HTTP workload, flattened to
per-function shares of the total (inclusive and self time), for docs/performance.md.

    python -m bench.profile move tomato         legal_moves + apply over seeded random matches
    python -m bench.profile validate femkort     check_state on every state of seeded random matches
    python -m bench.profile http femkort         POST /v1/games/femkort/move in-process (Flask test client)
    python -m bench.profile session femkort      POST /v1/sessions/{id}/moves in-process, private redis-server
    python -m bench.profile whatif femkort       in-process us per request: echo; /move with an untagged state,
                                                 the same with check_state stubbed, a tagged state, a sealed state
    python -m bench.profile untagged all         in-process us per request of the echo, a tagged and an untagged
                                                 /move over varied states of every game, and echo/untagged
    python -m bench.profile wsgi femkort         CPU us per request with each WSGI app called directly: the bare
                                                 echo, the in-app echo, a tagged and an untagged /move
    python -m bench.profile sizes all            state sizes (JSON bytes) over seeded random matches of every game
    python -m bench.profile handler femkort      us per request of the tagged /move's own work without Flask or
                                                 HTTP (parse, shape check, tag check, apply, envelope, encode)
                                                 beside the echo's (parse, encode), over every state of 30 matches
"""
from __future__ import annotations

import os
import random
import sys
from collections import defaultdict
from typing import Any

from pyinstrument import Profiler

from service import engine

from .engine_bench import concrete


def states_of(game_id: str, matches: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    rng = random.Random(3)
    g = engine.get_game(game_id)
    out = []
    for m in range(matches):
        s = engine.new_match(game_id, g.default_players, {}, f"{m:x}1")
        while not engine.is_finished(s):
            mv = concrete(rng.choice(engine.legal_moves(s)), rng)
            out.append((engine.clone(s), mv))
            s, _ = engine.apply(s, mv)
    return out


def with_floors(app: Any) -> Any:
    """The app with the benchmark-only floor endpoints (bench/endpoints.py), as bench/app.py serves it."""
    from .endpoints import bp
    app.register_blueprint(bp)
    return app


def workload(kind: str, game_id: str) -> Any:
    if kind == "http":
        import logging

        import orjson

        from service.app import create_app
        from service.config import Config

        from .http_bench import mid_match
        app = with_floors(create_app(Config(log_level="INFO")))
        logging.getLogger().handlers[0].stream = open(os.devnull, "w")  # noqa: SIM115 - the access log
        client = app.test_client()
        state, move = mid_match(game_id, 4, {}, 9)
        body = orjson.dumps({"state": state, "move": move})

        def http() -> None:
            for _ in range(3000):
                client.post(f"/v1/games/{game_id}/move", data=body, content_type="application/json")
        return http
    if kind == "session":
        return session_workload(game_id)
    pairs = states_of(game_id, 60)
    if kind == "validate":
        def validate() -> None:
            for _ in range(3):
                for s, _mv in pairs:
                    engine.check_state(game_id, s)
        return validate

    copies = [(engine.clone(s), mv) for _ in range(4) for s, mv in pairs]  # made before profiling starts

    def move() -> None:
        for s, mv in copies:
            engine.legal_moves(s)
            engine.apply(s, mv)
    return move


def session_workload(game_id: str) -> Any:
    """Session moves in-process (Flask test client) against a private redis-server, prepared in advance."""
    import logging

    import orjson

    from service.app import create_app
    from service.config import Config
    from tests.redis_server import RedisServer
    redis = RedisServer().start()
    app = create_app(Config(log_level="INFO", redis_url=redis.url))
    logging.getLogger().handlers[0].stream = open(os.devnull, "w")  # noqa: SIM115 - the access log
    client = app.test_client()
    rng = random.Random(5)
    todo = []
    for i in range(60):
        seed = f"{i:030x}ab"  # a session seed has 128 bits at least
        created = client.post("/v1/sessions", json={"game": game_id, "players": 4, "seed": seed,
                                                    "options": {"deals": 1000} if game_id == "femkort" else {}}).json
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        state = engine.new_match(game_id, 4, {"deals": 1000} if game_id == "femkort" else {}, seed)
        for _ in range(40):
            move = concrete(rng.choice(engine.legal_moves(state)), rng)
            state, _ = engine.apply(state, move)
            todo.append((f"/v1/sessions/{created['id']}/moves", orjson.dumps({"move": move}),
                         {"Authorization": f"Bearer {tokens[move['seat']]}"}))
    by_session: dict[str, list[Any]] = {}
    for t in todo:
        by_session.setdefault(t[0], []).append(t)
    ordered = [by_session[k][j] for j in range(40) for k in by_session]

    def session() -> None:
        for path, data, headers in ordered:
            r = client.post(path, data=data, headers=headers, content_type="application/json")
            assert r.status_code == 200, r.data
    return session


def flatten(root: Any) -> tuple[dict[str, float], dict[str, float]]:
    inclusive: dict[str, float] = defaultdict(float)
    self_t: dict[str, float] = defaultdict(float)

    def walk(frame: Any, active: frozenset[str]) -> None:
        name = f"{frame.file_path_short or '?'}:{frame.function}"
        if name not in active:
            inclusive[name] += frame.time
        self_t[name] += frame.total_self_time
        for child in frame.children:
            walk(child, active | {name})
    walk(root, frozenset())
    return inclusive, self_t


def whatif(game_id: str) -> None:
    """In-process cost per request of the echo and of /move: an untagged state (checked in full), the same with
    check_state stubbed out, a state with its tag (trusted), and a sealed state."""
    import logging
    import statistics
    import time
    from unittest import mock

    import orjson

    from service.api.states.codec import StateTagger
    from service.app import create_app
    from service.config import Config

    from .http_bench import mid_match
    key = os.urandom(32)
    plain = with_floors(create_app(Config(log_level="INFO", state_tag_key=key)))
    sealed = with_floors(create_app(Config(log_level="INFO", sealing_key=os.urandom(32))))
    logging.getLogger().handlers[0].stream = open(os.devnull, "w")  # noqa: SIM115 - the access log
    state, move = mid_match(game_id, 4, {}, 9)
    body = orjson.dumps({"state": state, "move": move})
    tag = StateTagger(key).tag(game_id, orjson.dumps(state))
    tagged_body = orjson.dumps({"state": state, "state_tag": tag, "move": move})
    sealed_body = orjson.dumps({"state": sealed.extensions["state_codec"].dump(state)[0], "move": move})
    path = f"/v1/games/{game_id}/move"

    def per_request(app: Any, url: str, data: bytes, n: int = 500) -> float:
        client = app.test_client()
        t = time.perf_counter()
        for _ in range(n):
            r = client.post(url, data=data, content_type="application/json")
        assert r.status_code == 200, r.data
        return (time.perf_counter() - t) / n * 1e6

    cases = {"echo": (plain, "/bench/echo", tagged_body), "move, untagged": (plain, path, body),
             "move, check_state stubbed": (plain, path, body), "move, tagged": (plain, path, tagged_body),
             "move, sealed state": (sealed, path, sealed_body)}
    results: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(7):
        for name, (app, url, data) in cases.items():
            if "stubbed" in name:
                with mock.patch.object(engine.get_game(game_id), "check_state", lambda s: s):
                    results[name].append(per_request(app, url, data))
            else:
                results[name].append(per_request(app, url, data))
    echo = statistics.median(results["echo"])
    print(f"== whatif {game_id}: in-process us per request (median of 7 x 500), body {len(body)} bytes")
    for name, v in results.items():
        us = statistics.median(v)
        print(f"  {name:<28} {us:7.1f} us   +{us - echo:6.1f} over echo")


def handler(game_id: str) -> None:
    """The tagged /move's work (``judge_move``, as the endpoint runs it) on varied states, not one body over
    and over, with Flask and HTTP left out: what the endpoint adds to the echo, without a whole request's noise."""
    import statistics
    import time

    import orjson

    from service.api.states.codec import PlainCodec, StateTagger
    from service.api.http.games import judge_move

    codec = PlainCodec(StateTagger(os.urandom(32)))
    bodies = [orjson.dumps({"state": s, "state_tag": codec.dump(s)[1], "move": mv})
              for s, mv in states_of(game_id, 30)]

    def move(raw: bytes) -> bytes:
        return orjson.dumps(judge_move(game_id, orjson.loads(raw), codec))

    def echo(raw: bytes) -> bytes:
        return orjson.dumps(orjson.loads(raw))

    results: dict[str, list[float]] = {"echo": [], "move": []}
    for _ in range(7):
        for name, fn in (("echo", echo), ("move", move)):
            t = time.perf_counter()
            for raw in bodies:
                fn(raw)
            results[name].append((time.perf_counter() - t) / len(bodies) * 1e6)
    print(f"== handler {game_id}: us per request over {len(bodies)} states (median of 7 passes)")
    for name, v in results.items():
        print(f"  {name:<6} {statistics.median(v):7.2f} us")


def untagged(which: str) -> None:
    """Issue 13's measure: per game, the in-process cost of a whole request (Flask test client) for the in-app
    echo, /move with the state's tag (trusted) and /move with the bare state (rebuilt from its record), over
    every third state of 10 seeded matches, and the bare /move as a client playing through it sends them (each
    state the one before it led to: "chained"), interleaved in 5 passes; CPU time of this thread; the echo's throughput over the untagged
    /move's is the ratio the target is about (at least 0.6). ``which`` is a game id or ``all``."""
    import logging
    import statistics
    import time

    import orjson

    from service.api.states.codec import StateTagger
    from service.app import create_app
    from service.config import Config

    key = os.urandom(32)
    app = with_floors(create_app(Config(log_level="INFO", state_tag_key=key)))
    logging.getLogger().handlers[0].stream = open(os.devnull, "w")  # noqa: SIM115 - the access log
    client = app.test_client()
    tagger = StateTagger(key)
    games = sorted(engine.all_games()) if which == "all" else [which]
    print("game            echo us   tagged us   untagged us   echo/untagged   chained us   echo/chained   "
          "state bytes (mean)")
    for game_id in games:
        every = states_of(game_id, 10)
        pairs = every[::3]
        plain = [(f"/v1/games/{game_id}/move", orjson.dumps({"state": s, "move": mv})) for s, mv in pairs]
        # a client playing a match through /move: each request sends the state the previous answer returned
        chained = [(f"/v1/games/{game_id}/move", orjson.dumps({"state": s, "move": mv}))
                   for s, mv in every[:len(pairs)]]
        tagged = [(f"/v1/games/{game_id}/move", orjson.dumps(
            {"state": s, "state_tag": tagger.tag(game_id, orjson.dumps(s)), "move": mv})) for s, mv in pairs]
        echo = [("/bench/echo", body) for _, body in tagged]
        runs: dict[str, list[float]] = {"echo": [], "tagged": [], "untagged": [], "chained": []}
        for _ in range(5):
            for name, reqs in (("echo", echo), ("tagged", tagged), ("untagged", plain), ("chained", chained)):
                t = time.thread_time()  # CPU time: other processes' load on a shared machine does not enter it
                for url, body in reqs:
                    r = client.post(url, data=body, content_type="application/json")
                    assert r.status_code == 200, r.data
                runs[name].append((time.thread_time() - t) / len(reqs) * 1e6)
        us = {k: statistics.median(v) for k, v in runs.items()}
        size = statistics.mean(len(orjson.dumps(s)) for s, _ in pairs)
        print(f"{game_id:<15} {us['echo']:7.1f}   {us['tagged']:9.1f}   {us['untagged']:11.1f}   "
              f"{us['echo'] / us['untagged']:13.2f}   {us['chained']:10.1f}   {us['echo'] / us['chained']:12.2f}   "
              f"{size:8.0f}")


def sizes(which: str) -> None:
    """JSON bytes of every state of 30 seeded random matches at the smallest, a 4-player (or the nearest) and
    the largest table of a game (``all``: every game), default options: mean and largest."""
    import orjson

    games = sorted(engine.all_games()) if which == "all" else [which]
    for game_id in games:
        g = engine.get_game(game_id)
        sizes_seen: list[int] = []
        for n in sorted({g.min_players, min(max(g.min_players, 4), g.max_players), g.max_players}):
            for m in range(30):
                rng = random.Random(m)
                s = engine.new_match(game_id, n, {}, f"ab{m}")
                while not engine.is_finished(s):
                    s, _ = engine.apply(s, concrete(rng.choice(engine.legal_moves(s)), rng))
                    sizes_seen.append(len(orjson.dumps(s)))
        print(f"{game_id}: mean {sum(sizes_seen) / len(sizes_seen):.0f} B, max {max(sizes_seen)} B "
              f"over {len(sizes_seen)} states")


def wsgi(game_id: str) -> None:
    """The middleware's cost without HTTP or a test client: each app's WSGI callable called directly with a
    fresh environ, CPU time of this thread per request, best and median of 7 interleaved runs of 3,000: the
    bare echo (bench/bare_echo.py), the in-app echo, and /move of ``game_id`` with a tagged and an untagged
    state (one mid-match state sent over and over)."""
    import io
    import logging
    import statistics
    import tempfile
    import time

    import orjson

    # the metrics as shipped under gunicorn: written to per-process files (deploy/gunicorn.conf.py)
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="metrics-"))
    from service.api.states.codec import StateTagger
    from service.app import create_app
    from service.config import Config

    from .bare_echo import create_app as bare_app
    from .http_bench import mid_match

    key = os.urandom(32)
    app = with_floors(create_app(Config(log_level="INFO", state_tag_key=key)))
    logging.getLogger().handlers[0].stream = open(os.devnull, "w")  # noqa: SIM115 - the access log
    bare = bare_app()
    state, move = mid_match(game_id, 4, {}, 9)
    tag = StateTagger(key).tag(game_id, orjson.dumps(state))
    tagged = orjson.dumps({"state": state, "state_tag": tag, "move": move})
    untagged = orjson.dumps({"state": state, "move": move})
    path = f"/v1/games/{game_id}/move"
    base = {"REQUEST_METHOD": "POST", "SCRIPT_NAME": "", "SERVER_NAME": "localhost", "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_TYPE": "application/json", "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "localhost:8000", "wsgi.url_scheme": "http", "wsgi.errors": io.StringIO(),
            "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        assert status.startswith("200"), status
        return None

    def run(wsgi_app: Any, url: str, data: bytes, n: int = 3000) -> float:
        env = dict(base, PATH_INFO=url, CONTENT_LENGTH=str(len(data)))
        t = time.thread_time()
        for _ in range(n):
            e = env.copy()
            e["wsgi.input"] = io.BytesIO(data)
            out = wsgi_app(e, start_response)
            b"".join(out)
            if hasattr(out, "close"):
                out.close()
        return (time.thread_time() - t) / n * 1e6

    cases = {"bare echo": (bare, "/bench/echo", tagged), "in-app echo": (app, "/bench/echo", tagged),
             "move, tagged": (app, path, tagged), "move, untagged": (app, path, untagged)}
    results: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(7):
        for name, (a, url, data) in cases.items():
            results[name].append(run(a, url, data))
    floor = min(results["bare echo"])
    print(f"== wsgi {game_id}: CPU us per request, best / median of 7 x 3,000; body {len(tagged)} bytes")
    for name, v in results.items():
        print(f"  {name:<16} {min(v):7.1f} / {statistics.median(v):7.1f} us   bare/this {floor / min(v):5.2f}")


TIMED = {"wsgi": wsgi, "whatif": whatif, "handler": handler, "untagged": untagged, "sizes": sizes}  # print their own timings; the rest are sampled profiles


def main() -> None:
    kind, game_id = sys.argv[1], sys.argv[2]
    if kind in TIMED:
        TIMED[kind](game_id)
        return
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    fn = workload(kind, game_id)
    profiler = Profiler(interval=0.0002)
    profiler.start()
    fn()
    profiler.stop()
    root = profiler.last_session.root_frame()
    total = root.time
    inclusive, self_t = flatten(root)
    print(f"== {kind} {game_id}: {total:.2f} s sampled")
    rows = [(n, t) for n, t in inclusive.items() if not n.endswith("[self]")]
    for name, t in sorted(rows, key=lambda kv: -kv[1])[:top]:
        print(f"  total {100 * t / total:5.1f}%  self {100 * self_t[name] / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
