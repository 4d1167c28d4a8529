"""The tournament page, ``/tournaments/{id}``: live standings, the current round's tables (each linking to its
``/table/{session}``), the entries and whether their bots are connected, and the progress with an estimate of
the time left.

The page is static, like the table view: its JavaScript reads ``GET /v1/tournaments/{id}`` and follows the
tournament's public event stream (``/v1/tournaments/{id}/events``), reading the tournament again after each
event. It needs no token and shows nothing the JSON does not show to anyone. docs/tournaments.md, "The page".
"""
from __future__ import annotations

import re

from flask import Blueprint, Response, abort, send_from_directory

from .table import PAGE_HEADERS, STATIC
from ..api.openapi.operations import documented
from ..api.openapi.shapes import html_page, problem_response

# A tournament id is URL-safe text; anything else is no tournament's page.
TOURNAMENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

bp = Blueprint("tournament", __name__, static_folder=str(STATIC / "tournament"),
               static_url_path="/tournaments/static")


@bp.get("/tournaments/<tid>")
@documented("tournamentPage", "A tournament in a browser: live standings, the current round's tables (each linking to "
                              "/table/{session}), progress and time left, updated from the tournament's event stream.",
            responses={"200": html_page("The tournament page."),
                       "404": problem_response("not_found: the id is not a tournament id's shape. (A well-formed id's "
                                               "page loads and says when there is no such tournament.)")})
def tournament(tid: str) -> Response:
    if not TOURNAMENT_ID.match(tid) or tid == "static":
        abort(404)
    resp = send_from_directory(STATIC / "tournament", "tournament.html", max_age=0)
    resp.headers.update(PAGE_HEADERS)
    return resp


@bp.after_request
def secure_static(resp: Response) -> Response:
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    return resp
