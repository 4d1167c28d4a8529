"""The service as deployed plus the benchmark-only floor endpoints (bench/endpoints.py), for bench/ alone:

    gunicorn -c deploy/gunicorn.conf.py 'bench.app:create_app()'

The product package knows nothing of these endpoints; they are never in a deployment or in openapi.yaml.
"""
from __future__ import annotations

from flask import Flask

from service.app import create_app as create_service_app

from . import endpoints


def create_app() -> Flask:
    app = create_service_app()
    app.register_blueprint(endpoints.bp)
    return app
