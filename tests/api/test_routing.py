"""The URL map that keeps its matches (service/api/wsgi/routing.py): the same answers as Werkzeug's, no garbage."""
from __future__ import annotations

import gc

import pytest
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule

from service.api.wsgi import routing
from service.api.wsgi.routing import KeptMatchMap

RULES = [Rule("/v1/games/<game>/move", endpoint="move", methods=["POST"]),
         Rule("/v1/sessions/<sid>", endpoint="show", methods=["GET"]),
         Rule("/docs/", endpoint="docs")]


def adapter(m: Map, path: str, method: str = "GET") -> object:
    return m.bind("localhost", path_info=path, url_scheme="http", default_method=method)


@pytest.mark.parametrize(("path", "method"), [
    ("/v1/games/femkort/move", "POST"), ("/v1/sessions/abc", "GET"), ("/v1/sessions/abc", "POST"),
    ("/v1/games/femkort/move", "GET"), ("/nowhere", "GET"), ("/docs", "GET"), ("/docs/", "GET")])
def test_matches_as_werkzeug_does_first_time_and_again(path: str, method: str) -> None:
    plain, kept = Map(RULES_COPY()), KeptMatchMap(RULES_COPY())

    def outcome(m: Map) -> object:
        try:
            return adapter(m, path, method).match(return_rule=True)  # type: ignore[attr-defined]
        except (NotFound, MethodNotAllowed) as exc:
            return type(exc)
        except Exception as exc:  # the redirect to the slashed URL
            return type(exc), getattr(exc, "new_url", None)

    expected = outcome(plain)
    first, again = outcome(kept), outcome(kept)
    for got in (first, again):
        if isinstance(expected, tuple) and len(expected) == 2 and hasattr(expected[0], "rule"):
            assert got[0].rule == expected[0].rule and got[1] == expected[1]  # type: ignore[index]
        else:
            assert got == expected


def RULES_COPY() -> list[Rule]:  # noqa: N802 - a rule binds to one map only
    return [r.empty() for r in RULES]


def test_a_kept_match_gives_each_request_its_own_arguments_and_leaves_no_garbage() -> None:
    m = KeptMatchMap(RULES_COPY())
    _, args = adapter(m, "/v1/sessions/abc").match(return_rule=True)  # type: ignore[attr-defined]
    args["sid"] = "changed by a handler"
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        for _ in range(200):
            _, again = adapter(m, "/v1/sessions/abc").match(return_rule=True)  # type: ignore[attr-defined]
        assert again == {"sid": "abc"}
        assert gc.collect() == 0 and gc.get_count()[0] - before < 200  # Werkzeug's own matcher: 8 per match
    finally:
        gc.enable()


def test_the_oldest_match_makes_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routing, "MAX_KEPT", 3)
    m = KeptMatchMap(RULES_COPY())
    for sid in "abcde":
        adapter(m, f"/v1/sessions/{sid}").match()  # type: ignore[attr-defined]
    kept = m._matcher._kept  # type: ignore[attr-defined]
    assert [k[1] for k in kept] == ["/v1/sessions/c", "/v1/sessions/d", "/v1/sessions/e"]
