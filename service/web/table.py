"""The table view: one page for a seat (its token in the URL fragment) or a spectator, and the replay page.

The pages are static; the JavaScript reads the session through the public API (the event stream, the move
endpoint and the log), so the page can see no more than its token allows. The token stays in the fragment,
which a browser never sends to a server nor puts in a Referer; the page sends it as an Authorization header,
also on the event stream (read with fetch, not EventSource, which cannot set headers).
"""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

from ..sessions.service import SID
from ..api.openapi.operations import documented
from ..api.openapi.shapes import html_page, problem_response, with_page

STATIC = Path(__file__).resolve().parent / "static"
# The pages load only their own files, talk only to this service and run no inline script.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}

NO_TABLE = with_page(problem_response("not_found: the id is not a session id's shape. (A well-formed id's page loads "
                                      "and says when the session does not exist.)"))
bp = Blueprint("table", __name__, static_folder=str(STATIC / "table"), static_url_path="/table/static")


def page(sid: str, name: str) -> Response:
    if not SID.match(sid):
        abort(404)
    resp = send_from_directory(STATIC / "table", name, max_age=0)
    resp.headers.update(PAGE_HEADERS)
    return resp


@bp.get("/table/<sid>")
@documented("tablePage", "The table in a browser: a spectator's, or a seat's with `#token=<seat token>` in the URL "
                         "fragment (never sent to the server; the page sends it as an Authorization header).",
            responses={"200": html_page("The table page."), "404": NO_TABLE})
def table(sid: str) -> Response:
    return page(sid, "table.html")


@bp.get("/table/<sid>/replay")
@documented("tableReplay", "A finished session stepped through move by move.",
            responses={"200": html_page("The replay page."), "404": NO_TABLE})
def replay(sid: str) -> Response:
    return page(sid, "replay.html")


@bp.after_request
def secure_static(resp: Response) -> Response:
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    return resp
