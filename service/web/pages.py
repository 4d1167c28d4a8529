"""Pages for a person's browser outside the table view: the landing page at ``/`` (the games, links to the
API docs and each game's rules) and the HTML "not found" page.

A 404 is a page only for a client that prefers HTML (a browser's ``Accept``) and a path outside the API
(``/v1/...``, the probes and ``/openapi.yaml``); every other client gets the usual problem+json body.
"""
from __future__ import annotations

import html

from flask import Blueprint, Flask, Response, request
from werkzeug.exceptions import NotFound

from .. import engine
from ..api.http.errors import http_problem
from .docs import with_headers
from ..api.openapi.operations import documented
from ..api.openapi.shapes import html_page

bp = Blueprint("pages", __name__)
API_PREFIXES = ("/v1/", "/healthz", "/readyz", "/metrics", "/openapi.yaml")
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/docs/static/rules.css">
</head>
<body><nav><a href="/">Card Referee</a> · <a href="/docs">API docs</a></nav><main>{body}</main></body></html>
"""


def page(title: str, body: str, status: int = 200) -> Response:
    resp = Response(PAGE.format(title=html.escape(title), body=body), status=status, mimetype="text/html")
    return with_headers(resp)


def game_rows() -> str:
    rows = []
    for game in sorted(engine.all_games().values(), key=lambda g: g.id):
        rows.append(f'<tr><td><a href="/games/{game.id}">{html.escape(game.name)}</a></td><td><code>{game.id}'
                    f"</code></td><td>{game.min_players}-{game.max_players}</td>"
                    f"<td>{html.escape(game.summary)}</td></tr>")
    return "".join(rows)


@bp.get("/")
@documented("landingPage", "The landing page: the games, links to their rules and to the API docs.",
            responses={"200": html_page("The landing page.")})
def landing() -> Response:
    return page("Card Referee", "<h1>Card Referee</h1><p>A referee for card games: send a game state and a "
                "move, and the service answers whether the move is legal (and if not, why), the next state, "
                "the legal moves and, at the end, the scores.</p><p>The HTTP API is described in the "
                '<a href="/docs">API docs</a> (<a href="/openapi.yaml">openapi.yaml</a>); '
                '<a href="/v1/games"><code>GET /v1/games</code></a> lists the games with their options.</p>'
                "<h2>Games</h2><table><tr><th>game</th><th>id</th><th>players</th><th>in short</th></tr>"
                f"{game_rows()}</table>")


def wants_page() -> bool:
    """Does this client, on this path, read a page rather than a problem body?"""
    if request.path.startswith(API_PREFIXES):
        return False
    best = request.accept_mimetypes.best_match(["application/problem+json", "application/json", "text/html"])
    return best == "text/html"


def not_found(exc: NotFound) -> Response:
    if not wants_page():
        return http_problem(exc)
    return page("Not found - Card Referee", "<h1>Not found</h1><p>There is no page at <code>"
                f"{html.escape(request.path)}</code>.</p><p>Start from the <a href=\"/\">home page</a>: the games, "
                'their rules and the <a href="/docs">API docs</a>. A table\'s address is <code>/table/</code> and '
                "the session's id.</p>", 404)


def install(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_error_handler(404, not_found)
