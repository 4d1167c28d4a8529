"""What a browser gets: the table view (``/table/{id}``, its replay), the API docs (``/docs``), each game's
rules page (``/games/{id}``), the TypeScript client bundled for pages (``/client/card-referee.js``), the landing
page at ``/`` and a page for a path that is not found. Plain HTML, CSS and JavaScript served from this package; nothing is fetched
from anywhere but this service. docs/table.md describes the pages."""
from __future__ import annotations

from flask import Flask

from . import pages
from .client import bp as client_bp
from .docs import bp as docs_bp
from .table import bp as table_bp
from .tournament import bp as tournament_bp


def install(app: Flask) -> None:
    app.register_blueprint(table_bp)
    app.register_blueprint(docs_bp)
    app.register_blueprint(client_bp)  # the TypeScript client, bundled (service/web/client.py)
    app.register_blueprint(tournament_bp)
    pages.install(app)
