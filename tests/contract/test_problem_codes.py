"""openapi.yaml names every problem code the service can answer with, and says where each one comes from.

Before issue 15, `state_tampered` (a sealed state that does not authenticate, or with REQUIRE_STATE_TAG a
plain one without its tag) was answered by /move, /legal-moves and /view while their documented 422 did
not mention it; the new codes (limit_exceeded, too_many_requests) and 429 are held to the same rule.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from service.api.http.errors import TITLES

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())


def test_every_code_with_a_title_is_in_the_problem_schema() -> None:
    documented = set(SPEC["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    assert set(TITLES) <= documented, set(TITLES) - documented


def test_the_operations_that_take_a_state_document_state_tampered() -> None:
    for op in ("move", "legal-moves", "view"):
        described = SPEC["paths"][f"/v1/games/{{game}}/{op}"]["post"]["responses"]["422"]["description"]
        assert "state_tampered" in described and "REQUIRE_STATE_TAG" in described, op


def test_every_counted_operation_documents_429_with_retry_after() -> None:
    for path, operations in SPEC["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            if path in ("/healthz", "/readyz", "/metrics"):
                assert "429" not in responses, (method, path)
                continue
            assert "429" in responses, (method, path)
            assert responses["429"]["headers"]["Retry-After"]["required"] is True
