"""openapi.yaml is the contract: it matches the code, and schemathesis finds the service keeps it.

schemathesis generates requests for every operation (valid and invalid bodies, the documented
examples, random states and moves) and checks that no answer is a 5xx, every status code is
documented and every body matches its schema.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.specs.openapi.checks import positive_data_acceptance
from werkzeug.exceptions import HTTPException

from service.api.openapi import spec as generator
from service.api.openapi.games import REFINED, camel
from service.app import create_app
from service.engine import all_games
from service.config import Config, Quota
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
# The session endpoints run against a real, private redis-server (stopped at exit by tests/redis_server.py).
REDIS = RedisServer().start()
APP = create_app(Config(redis_url=REDIS.url, key_prefix="contract:", long_poll_max=1.0, events_max=1.0,
                        session_quota=None))
# Each game's own new, move and replay (service/api/openapi/games.py) are the generic routes under typed bodies:
# fewer examples each, and not again with sealed states, keep the run's length near what it was without them.
PER_GAME = r"^/v1/games/[a-z_]+/(new|move|replay)$"
SCHEMA = schemathesis.openapi.from_wsgi("/openapi.yaml", APP)
GAME_SCHEMA = SCHEMA.include(path_regex=PER_GAME)
SCHEMA = SCHEMA.exclude(path_regex=PER_GAME)
# The same contract with SEALING_KEY set (states leave sealed, come back authenticated) and a tight session
# quota (so that 429s are met too).
SEALED_APP = create_app(Config(redis_url=REDIS.url, key_prefix="contract-sealed:", long_poll_max=1.0, events_max=1.0,
                               sealing_key=os.urandom(32), session_quota=Quota(10, 60)))
SEALED_SCHEMA = schemathesis.openapi.from_wsgi("/openapi.yaml", SEALED_APP).exclude(path_regex=PER_GAME)
EXAMPLES = int(os.environ.get("API_EXAMPLES", "60"))
GAME_EXAMPLES = max(1, EXAMPLES // 4)


def test_openapi_file_is_what_the_code_describes() -> None:
    committed = (ROOT / "openapi.yaml").read_text()
    assert committed == generator.render(APP), "openapi.yaml is stale: run `python -m service.api.openapi`"


def test_every_body_is_generated_from_a_marshmallow_schema() -> None:
    """Request and answer bodies are the schemas' (service/api/schemas/requests.py, answers.py), not hand-written."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    components = spec["components"]["schemas"]
    for name, schema in generator.BODIES.items():
        fields = schema().fields
        documented = components[name]
        assert set(documented["properties"]) == set(fields), name
        assert set(documented.get("required", [])) == {k for k, f in fields.items() if f.required}, name
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            bodies = [operation.get("requestBody", {})] + list(operation["responses"].values())
            for body in bodies:
                for media, content in body.get("content", {}).items():
                    if media.endswith("json"):
                        name = content["schema"]["$ref"].rsplit("/", 1)[-1]
                        assert name in generator.BODIES or name in GAME_BODIES, (method, path, media, name)


GAME_BODIES = {f"{camel(gid)}{suffix}": generic for gid in all_games() for suffix, (generic, _) in REFINED.items()}


def test_every_game_body_has_exactly_its_generic_body_fields() -> None:
    """The per-game bodies (service/api/openapi/games.py) are the marshmallow schemas' with typed fields."""
    components = yaml.safe_load((ROOT / "openapi.yaml").read_text())["components"]["schemas"]
    for name, generic in GAME_BODIES.items():
        assert set(components[name]["properties"]) == set(components[generic]["properties"]), name
        assert components[name].get("required") == components[generic].get("required"), name


IMPLIED = {"HEAD", "OPTIONS"}


def shape(path: str) -> str:
    """A route's or a document's path with its variables unnamed: /v1/sessions/<sid> and /v1/sessions/{id} are
    both /v1/sessions/{}."""
    return re.sub(r"<[^<>]+>|\{[^{}]+\}", "{}", path)


def serves_files(endpoint: str) -> bool:
    """Flask's routes of static files, and Swagger UI's files for /docs."""
    return endpoint == "static" or endpoint.endswith(".static") or endpoint == "docs.swagger_asset"


def test_every_route_of_the_app_is_in_the_document() -> None:
    """Every route, with each of its methods, except those of files (Flask's static files, Swagger UI's)."""
    documented = {(shape(path), method.upper()) for path, operations in
                  yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"].items() for method in operations}
    routes = {(shape(rule.rule), method) for rule in APP.url_map.iter_rules() if not serves_files(rule.endpoint)
              for method in (rule.methods or set()) - IMPLIED}
    assert routes, "no routes found"
    assert not routes - documented, f"routes missing from openapi.yaml: {sorted(routes - documented)}"


def test_every_path_of_the_document_is_a_route() -> None:
    """Each path and method of the document is answered by a route of the app (not a 404 or a 405): a
    templated path with a value in each variable, a game's own path as it is."""
    adapter = APP.url_map.bind("localhost")
    paths = yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"]
    assert paths, "no paths in openapi.yaml"
    for path, operations in paths.items():
        for method in operations:
            try:
                endpoint, _ = adapter.match(re.sub(r"\{[^{}]+\}", "x", path), method=method.upper())
            except HTTPException as exc:
                raise AssertionError(f"{method} {path} is no route of the app ({exc.code})") from None
            assert not serves_files(endpoint), (path, method)


def test_a_route_without_a_declaration_is_refused() -> None:
    """A new route cannot be left out of the contract by forgetting to declare it."""
    app = create_app(Config(testing=True))
    app.add_url_rule("/v1/forgotten", "forgotten", lambda: "")
    with pytest.raises(LookupError, match="/v1/forgotten"):
        generator.build(app)


def test_openapi_is_a_valid_document() -> None:
    validate(yaml.safe_load((ROOT / "openapi.yaml").read_text()))


def test_served_openapi_is_the_file() -> None:
    resp = APP.test_client().get("/openapi.yaml")
    assert resp.status_code == 200
    assert resp.data == (ROOT / "openapi.yaml").read_bytes()


@SCHEMA.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_keeps_its_contract(case: schemathesis.Case) -> None:
    # A schema-valid body may still be refused with 422: a deal that is not the pack, an option out of
    # range for this game, a forged state. Those are semantic checks no JSON Schema can express.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


@SEALED_SCHEMA.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_keeps_its_contract_with_sealed_states(case: schemathesis.Case) -> None:
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


@GAME_SCHEMA.parametrize()
@settings(max_examples=GAME_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_each_games_own_operations_keep_the_contract(case: schemathesis.Case) -> None:
    """Typed bodies: a schema-valid move of the game is still refused (422) when the state does not allow it;
    every answer's legal_moves must be the game's Move schema."""
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
