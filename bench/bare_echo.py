"""The bare floor: a Flask app that echoes a JSON body and nothing else.

Same payload, same gunicorn settings (deploy/gunicorn.conf.py), the same orjson parse and encode as the
service's ``/bench/echo``, but none of the service's own middleware: no request id, no metrics, no access
log, no error handlers. bench/ measures the in-app echo and every endpoint against it as well
(docs/performance.md, "The two floors"):

    gunicorn -c deploy/gunicorn.conf.py 'bench.bare_echo:create_app()'
"""
from __future__ import annotations

import orjson
from flask import Flask, Response, request


def create_app() -> Flask:
    app = Flask(__name__)

    @app.post("/bench/echo")
    def echo() -> Response:
        return Response(orjson.dumps(orjson.loads(request.get_data(cache=False))), mimetype="application/json")

    return app
