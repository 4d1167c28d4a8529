"""The TypeScript client (clients/typescript) bundled for browsers, served at ``/client/card-referee.js``.

The bundle is built with esbuild from the package's sources and committed (static/client/card-referee.js), so
the service serves it without Node.js; tests/clients checks that a fresh build gives the same bytes. It is a
classic script that defines one global, ``CardRefereeClient``, so the pages load it like their other scripts
(no module, no inline script, nothing from elsewhere) and speak to the API as apps using the package do.
"""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from ..api.openapi.operations import documented
from ..api.openapi.shapes import text

STATIC = Path(__file__).resolve().parent / "static" / "client"
BUNDLE = "card-referee.js"

bp = Blueprint("client", __name__)


@bp.get(f"/client/{BUNDLE}")
@documented("browserClient", "The TypeScript client (clients/typescript) bundled for browsers: a classic script that "
                             "defines the global `CardRefereeClient` (CardReferee, Session, ProblemError...).",
            responses={"200": text("text/javascript", "The script.")})
def bundle() -> Response:
    resp = send_from_directory(STATIC, BUNDLE, max_age=0, mimetype="text/javascript")
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-cache"
    return resp
