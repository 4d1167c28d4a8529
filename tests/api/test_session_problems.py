"""The session domain's refusals (service/sessions/errors.py) answered as problems: each code has its HTTP
status and title here, and the answers are byte for byte those of the API before the domain had errors of
its own (when it raised the API's errors itself)."""
from __future__ import annotations

from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from service.api.http.errors import SESSION_STATUS, TITLES
from service.app import create_app
from service.config import Config
from service.sessions.errors import SessionError


def every_error(cls: type[SessionError] = SessionError) -> list[type[SessionError]]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *every_error(sub)]
    return found


@pytest.fixture
def client() -> FlaskClient:
    return create_app(Config(testing=True, session_quota=None, log_level="WARNING")).test_client()


def problem_bytes(status: int, code: str, detail: str, **extra: Any) -> bytes:
    return orjson.dumps({"type": f"urn:card-referee:problem:{code}", "title": TITLES[code], "status": status,
                         "detail": detail, "code": code, **extra})


def test_every_refusal_of_the_domain_has_a_status_and_a_title() -> None:
    codes = {err.code for err in every_error()}
    assert len(codes) == len(every_error()) == 7
    assert codes == set(SESSION_STATUS) and codes <= set(TITLES)


def test_the_answers_to_the_domains_refusals_are_unchanged(client: FlaskClient) -> None:
    missing = client.get("/v1/sessions/" + "A" * 22)
    assert (missing.status_code, missing.mimetype) == (404, "application/problem+json")
    assert missing.get_data() == problem_bytes(
        404, "session_not_found", "There is no such session: the id is wrong, or it has expired.")
    created = client.post("/v1/sessions", json={"game": "femkort", "players": 3, "seed": "5eed" * 8}).get_json()
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    seat = client.get(f"/v1/sessions/{sid}").get_json()["to_act"][0]
    other = (seat + 1) % 3
    move = client.get(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()[
        "legal_moves"][0]
    stale = client.post(f"/v1/sessions/{sid}/moves", json={"move": move, "version": 7},
                        headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert stale.status_code == 409 and stale.get_data() == problem_bytes(
        409, "version_conflict", "The session is at version 0, not 7: reload it and decide again.", version=0)
    forbidden = client.post(f"/v1/sessions/{sid}/moves", json={"move": move},
                            headers={"Authorization": f"Bearer {tokens[other]}"})
    assert forbidden.status_code == 403 and forbidden.get_data() == problem_bytes(
        403, "forbidden", f"Your token is seat {other}'s: you cannot move for seat {seat}.")
    refused = client.post(f"/v1/sessions/{sid}/moves", json={"move": move},
                          headers={"Authorization": "Bearer " + "x" * 20})
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"] == 'Bearer realm="card-referee", error="invalid_token"'
    assert refused.get_data() == problem_bytes(401, "unauthorized", "The token is not valid for this session.")
    conceded = client.post(f"/v1/sessions/{sid}/concede", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert conceded.status_code == 200 and conceded.get_json()["finished"]
    over = client.post(f"/v1/sessions/{sid}/abort", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert over.status_code == 409 and over.get_data() == problem_bytes(409, "match_over", "The match is over already.")
