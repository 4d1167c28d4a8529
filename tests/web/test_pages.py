"""The pages a browser gets, without a browser: what each route answers, its headers, and the links between
them (tests/web/test_table_browser.py drives them in Chromium)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service import engine
from service.app import create_app
from service.config import Config

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "service" / "web" / "static"
SID = "A" * 22


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app(Config(log_level="WARNING")).test_client()


def test_catalogue_docs_links_are_served_rules_pages(client: FlaskClient) -> None:
    games = client.get("/v1/games").get_json()["games"]
    assert {g["docs"] for g in games} == {f"/games/{g}" for g in engine.all_games()}
    for game in games:
        page = client.get(game["docs"])
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert f"<h1>{game['name']}" in page.get_data(as_text=True)


def test_a_rules_page_links_its_siblings_and_escapes_raw_html(client: FlaskClient) -> None:
    text = client.get("/games/jewel").get_data(as_text=True)
    assert '<a href="/games/femkort">' in text
    assert 'href="../performance.md"' not in text  # a repository path the service does not serve
    assert "<table>" in text  # the rule books' tables are rendered as tables
    assert client.get("/games/chess").status_code == 404
    assert client.get("/games/..%2Fdeployment").status_code == 404


def test_docs_serve_swagger_ui_from_the_package(client: FlaskClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    sources = re.findall(r'(?:src|href)="(/[^"]+)"', html)
    assert sources and all(not s.startswith("//") for s in sources)
    for source in sources:
        assert client.get(source).status_code == 200, source
    bundle = client.get("/docs/swagger-ui/swagger-ui-bundle.js").get_data()
    assert b"SwaggerUIBundle" in bundle
    assert client.get("/docs/swagger-ui/oauth2-redirect.html").status_code == 404  # only what the page needs


@pytest.mark.parametrize("path", [f"/table/{SID}", f"/table/{SID}/replay"])
def test_table_pages_are_static_and_keep_the_fragment_to_themselves(client: FlaskClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    csp = page.headers["Content-Security-Policy"]
    assert "connect-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    html = page.get_data(as_text=True)
    assert "<script>" not in html  # no inline script: the policy forbids it
    for source in re.findall(r'(?:src|href)="(/table/static/[^"]+)"', html):
        assert client.get(source).status_code == 200, source


def test_a_malformed_session_id_is_not_a_table(client: FlaskClient) -> None:
    assert client.get("/table/short").status_code == 404
    assert client.get("/table/bad!id-but-long-enough/replay").status_code == 404


def test_the_pages_fetch_nothing_from_elsewhere() -> None:
    for path in STATIC.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            text = path.read_text()
            assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), path


def test_the_static_files_are_package_data() -> None:
    project = (ROOT / "pyproject.toml").read_text()
    assert '"service.web" = ["static/*/*"]' in project
    assert {p.parent.name for p in STATIC.glob("*/*")} == {"table", "docs", "client", "tournament"}
