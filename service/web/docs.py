"""Browsable documentation: Swagger UI for openapi.yaml at ``/docs`` and each game's rules page at
``/games/{id}``.

Swagger UI's files come from the ``swagger-ui-py`` package (Swagger UI 5, which reads OpenAPI 3.1); only the
three the page needs are served. The rules pages are docs/games/<id>.md rendered with markdown-it-py, raw
HTML in them escaped.
"""
from __future__ import annotations

import html
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, send_from_directory
from markdown_it import MarkdownIt

from .. import engine
from ..paths import project_file
from ..api.openapi.operations import documented, undocumented
from ..api.openapi.shapes import html_page, with_page
from ..api.openapi.stateless import UNKNOWN_GAME

STATIC = Path(__file__).resolve().parent / "static"
SWAGGER_FILES = frozenset({"swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"})
DOCS_HEADERS = {
    # Swagger UI sets inline styles on its elements; it runs no inline script.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                               "frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
GAME_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} - Card Referee</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/docs/static/rules.css">
</head>
<body><nav><a href="/docs">API docs</a> · games: {games}</nav><main>{body}</main></body></html>
"""

bp = Blueprint("docs", __name__, static_folder=str(STATIC / "docs"), static_url_path="/docs/static")


def swagger_dir() -> Path:
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


def with_headers(resp: Response) -> Response:
    resp.headers.update(DOCS_HEADERS)
    return resp


@bp.get("/docs")
@documented("apiDocs", "This document in Swagger UI (served from the service's own files).",
            responses={"200": html_page("Swagger UI")})
def swagger() -> Response:
    return with_headers(send_from_directory(STATIC / "docs", "index.html", max_age=0))


@bp.get("/docs/swagger-ui/<name>")
@undocumented
def swagger_asset(name: str) -> Response:
    if name not in SWAGGER_FILES:
        abort(404)
    return with_headers(send_from_directory(swagger_dir(), name, max_age=86400))


@bp.get("/games/<game>")
@documented("gameRules", "A game's rules page (the catalogue's `docs` link).",
            responses={"200": html_page("The rules as HTML."), "404": with_page(UNKNOWN_GAME)})
def game_page(game: str) -> Response:
    if game not in engine.all_games():
        abort(404)
    page = rendered(game)
    if page is None:
        abort(404)
    return with_headers(Response(page, mimetype="text/html"))


@lru_cache(maxsize=64)
def rendered(game: str) -> str | None:
    source = project_file(f"docs/games/{game}.md")
    if source is None:
        return None
    games = engine.all_games()
    body = markdown().render(source.read_text(encoding="utf-8"))
    nav = " ".join(f'<a href="/games/{gid}">{html.escape(g.name)}</a>' for gid, g in games.items())
    return GAME_PAGE.format(title=html.escape(games[game].name), games=nav, body=body)


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("link_open", _link_open)
    return md


def _link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    """A link to a sibling rules page goes to its /games page; other repository paths (``../events.md``) are
    not served, so their text stays without a link (the path is in its title)."""
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if href.endswith(".md") and "/" not in href and href[:-3] in engine.all_games():
        token.attrSet("href", f"/games/{href[:-3]}")
    elif href.endswith(".md") or href.startswith("../"):
        token.attrs.pop("href", None)  # an <a> without href: the text stays, no link to a 404
        token.attrSet("title", f"docs/{href.removeprefix('../')} in the repository")
    return str(self.renderToken(tokens, idx, options, env))
