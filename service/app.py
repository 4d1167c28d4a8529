"""The WSGI application: ``gunicorn 'service.app:create_app()'``."""
from __future__ import annotations

from pathlib import Path

from flask import Flask, Response

from . import engine
from .api import errors, observability
from .api.codec import PlainCodec
from .api.games import bp as games_bp
from .api.json import OrjsonProvider, reply
from .config import Config

OPENAPI = Path(__file__).resolve().parent.parent / "openapi.yaml"
MAX_BODY = 4 * 1024 * 1024


def create_app(config: Config | None = None) -> Flask:
    config = config or Config.from_env()
    engine.all_games()  # import every game module now, not on the first request
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions["card_referee_config"] = config
    app.extensions["state_codec"] = PlainCodec()
    observability.configure_logging(config.log_level)
    errors.register(app)
    observability.install(app)
    app.register_blueprint(games_bp)
    _ops(app)
    return app


def _ops(app: Flask) -> None:
    spec = OPENAPI.read_bytes() if OPENAPI.exists() else b""

    @app.get("/healthz")
    def healthz() -> Response:
        return reply({"status": "ok"})

    @app.get("/openapi.yaml")
    def openapi() -> Response:
        return Response(spec, mimetype="application/yaml")
