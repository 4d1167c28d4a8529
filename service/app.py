"""The WSGI application: ``gunicorn 'service.app:create_app()'``."""
from __future__ import annotations

import os

from flask import Flask, Response

from . import engine, web
from .api.http import errors
from .api.wsgi import limits, observability
from .api.states.codec import codec_for
from .api.http.events import bp as events_bp
from .api.http.games import bp as games_bp
from .api.http.json import OrjsonProvider, reply
from .api.http.sessions import bp as sessions_bp
from .api.http.sessions import service_for
from .sessions.timeouts import Applier
from .api.http.bots import bp as bots_bp
from .api.http.tournaments import bp as tournaments_bp
from .api.openapi.operations import documented
from .api.openapi.shapes import ok, ref, text
from .tournaments.director import Director
from .tournaments.store import TournamentStore
from .sessions.service import SessionService
from .api.wsgi.turns import Turns
from .config import Config
from .paths import project_file
from .storage import RedisStore, SessionStore, StoreUnavailable, store_for

MAX_BODY = 4 * 1024 * 1024


def create_app(config: Config | None = None) -> observability.ObservedFlask:
    """The application; without ``config`` it is configured from the environment. Sessions use Redis
    when REDIS_URL is set, else an in-process store (single process only: docs/sessions.md)."""
    config = config or Config.from_env()
    engine.all_games()  # import every game module now, not on the first request
    app = observability.ObservedFlask(__name__)
    app.json = OrjsonProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions["card_referee_config"] = config
    app.extensions["state_codec"] = codec_for(config.sealing_key, config.state_tag_key or os.urandom(32),
                                                  config.require_state_tag)
    app.extensions["session_store"] = store = store_for(config, observability.observe_redis)
    app.extensions["session_service"] = sessions = service_for(store, config)
    app.extensions["timeout_applier"] = applier = Applier(sessions)
    sessions.on_clock = applier.start  # at the latest when this process sees a clocked session
    if not config.testing:
        applier.start()  # deadlines of sessions other instances made are applied here too, unasked
    revive = [applier.revive]  # a forked worker starts its own
    if isinstance(store, RedisStore):  # hosted tournaments need Redis (the tournament endpoints answer 503 without)
        tournaments = app.extensions["tournament_store"] = TournamentStore(store)
        # a service of its own: the app's labels each request's metrics with the game, and ticks are no requests
        directing = SessionService(store, config)
        directing.on_clock = applier.start
        director = app.extensions["tournament_director"] = Director(tournaments, directing, config.tournament_tick)
        if not config.testing:
            director.start()  # else at the first tournament (service/api/http/tournaments.py)
        revive.append(director.revive)
    app.on_request = tuple(revive)
    app.turns = Turns(MAX_BODY, config.request_turns) if config.request_turns else None
    observability.configure_logging(config.log_level)
    errors.register(app)
    observability.install(app)
    limits.install(app, config)
    app.register_blueprint(games_bp)
    app.register_blueprint(sessions_bp)
    app.register_blueprint(events_bp)
    app.register_blueprint(bots_bp)
    app.register_blueprint(tournaments_bp)
    web.install(app)
    _ops(app)
    return app


def _ops(app: Flask) -> None:
    found = project_file("openapi.yaml")
    spec = found.read_bytes() if found is not None else b""

    @app.get("/healthz")
    @documented("healthz", "The process is up.", responses={"200": ok(ref("Health"))})
    def healthz() -> Response:
        return reply({"status": "ok"})

    @app.get("/readyz")
    @documented("readyz", "Ready to serve; `sessions` says whether the session store answers (the stateless "
                          "endpoints work either way, so this is 200 even when Redis is down).",
                responses={"200": ok(ref("Readiness"))})
    def readyz() -> Response:
        """Ready to serve: always, once the app is built. The stateless endpoints need no store, so a Redis
        outage must not take the pod out of its Service; ``sessions`` says whether the store answers."""
        store: SessionStore = app.extensions["session_store"]
        try:
            store.ping()
            sessions = "ok"
        except StoreUnavailable:
            sessions = "unavailable"
        return reply({"status": "ready", "store": store.name, "sessions": sessions})

    @app.get("/openapi.yaml")
    @documented("openapi", "This document.", responses={"200": text("application/yaml", "OpenAPI document")})
    def openapi() -> Response:
        return Response(spec, mimetype="application/yaml")
