"""What a browser gets: the table view (``/table/{id}``, its replay), the API docs (``/docs``) and each game's
rules page (``/games/{id}``). Plain HTML, CSS and JavaScript served from this package; nothing is fetched
from anywhere but this service. docs/table.md describes the pages."""
from __future__ import annotations

from flask import Flask

from .docs import bp as docs_bp
from .table import bp as table_bp
from .tournament import bp as tournament_bp


def install(app: Flask) -> None:
    app.register_blueprint(table_bp)
    app.register_blueprint(docs_bp)
    app.register_blueprint(tournament_bp)
