"""A person's browser gets pages, an API client problems (issue 32): the landing page at ``/`` and an HTML
404 for a browser outside the API; a client that does not prefer HTML gets problem+json as before."""
from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from service import engine
from service.app import create_app
from service.config import Config

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app(Config(testing=True)).test_client()


def test_the_landing_page_lists_every_game_with_its_rules_and_links_to_the_docs(client: FlaskClient) -> None:
    resp = client.get("/", headers=BROWSER)
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    assert 'href="/docs"' in page and 'href="/openapi.yaml"' in page
    for game_id, game in engine.all_games().items():
        assert f'href="/games/{game_id}"' in page and game.name.split(" ")[0] in page
    assert client.get("/").status_code == 200  # a page for every client: it is the site's front door


@pytest.mark.parametrize("path", ["/nowhere", "/table/not%20an%20id!", "/table", "/games/chess", "/docs/nothing"])
def test_a_browser_gets_an_html_404_and_an_api_client_a_problem(client: FlaskClient, path: str) -> None:
    resp = client.get(path, headers=BROWSER)
    assert resp.status_code == 404 and resp.mimetype == "text/html", resp.get_data(as_text=True)[:200]
    page = resp.get_data(as_text=True)
    assert 'href="/"' in page and "If you entered the URL manually" not in page
    for accept in (None, "*/*", "application/json", "application/problem+json"):
        resp = client.get(path, headers={"Accept": accept} if accept else {})
        assert resp.status_code == 404 and resp.mimetype == "application/problem+json"
        assert resp.get_json()["code"] == "not_found"


def test_the_api_answers_problems_even_to_a_browser(client: FlaskClient) -> None:
    for path in ("/v1/nowhere", "/v1/games/chess", "/healthz/x"):
        resp = client.get(path, headers=BROWSER)
        assert resp.status_code == 404 and resp.mimetype == "application/problem+json"


def test_a_path_is_shown_escaped(client: FlaskClient) -> None:
    page = client.get("/%3Cscript%3Ealert(1)%3C/script%3E", headers=BROWSER).get_data(as_text=True)
    assert "<script>" not in page and "&lt;script&gt;" in page
