"""schemathesis, stateful: follows the OpenAPI links from POST /v1/sessions to the new session's GET, log
and moves, so the session endpoints are fuzzed on real sessions (tests/contract fuzzes each operation on
its own, where session ids are random and mostly unknown). No 5xx, every status documented, every body
matching its schema."""
from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from service.app import create_app
from service.config import Config
from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def schema() -> Iterator[schemathesis.BaseSchema]:
    with RedisServer() as server:
        app = create_app(Config(redis_url=server.url, long_poll_max=1.0, events_max=1.0, testing=True,
                                log_level="WARNING", session_quota=None))
        yield schemathesis.openapi.from_wsgi("/openapi.yaml", app).include(path_regex="^/v1/sessions")
        app.extensions["timeout_applier"].stop()  # the fuzzer may have made clocked sessions


def test_session_endpoints_keep_the_contract_on_real_sessions(schema: schemathesis.BaseSchema) -> None:
    machine = schema.as_state_machine()

    class Sessions(machine):  # type: ignore[misc, valid-type]
        def validate_response(self, response: object, case: schemathesis.Case, **kwargs: object) -> None:
            case.validate_response(response, excluded_checks=[positive_data_acceptance])

    Sessions.TestCase.settings = settings(max_examples=int(os.environ.get("API_EXAMPLES", "20")), deadline=None,
                                          suppress_health_check=list(HealthCheck), stateful_step_count=6)
    Sessions.TestCase().runTest()
