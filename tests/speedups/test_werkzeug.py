"""Guard of service/speedups/werkzeug.py, the URL map that keeps its matches: Werkzeug's matcher as the module
uses it, the same answers as Werkzeug's own map, and no garbage."""
from __future__ import annotations

import gc
import inspect

import pytest
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule

from service.speedups import werkzeug as kept_routing
from service.speedups.werkzeug import KeptMatchMap
from tests.speedups.guard import changed, expect

RULES = [Rule("/v1/games/<game>/move", endpoint="move", methods=["POST"]),
         Rule("/v1/sessions/<sid>", endpoint="show", methods=["GET"]),
         Rule("/v1/sessions/<sid>/moves", endpoint="moves", methods=["POST"]),
         Rule("/docs/", endpoint="docs")]


def rules() -> list[Rule]:
    return [r.empty() for r in RULES]  # a rule binds to one map only


def adapter(m: Map, path: str, method: str = "GET") -> object:
    return m.bind("localhost", path_info=path, url_scheme="http", default_method=method)


def test_werkzeug_still_has_the_matcher_the_module_extends() -> None:
    try:
        from werkzeug.routing.matcher import StateMachineMatcher
    except ImportError:
        changed("werkzeug", "there is no `werkzeug.routing.matcher.StateMachineMatcher` any more")
    expected = {"__init__": ["self", "merge_slashes"], "add": ["self", "rule"], "update": ["self"],
                "match": ["self", "domain", "path", "method", "websocket"]}
    for name, parameters in expected.items():
        got = list(inspect.signature(getattr(StateMachineMatcher, name)).parameters)
        expect(got == parameters, "werkzeug", f"`StateMachineMatcher.{name}` now takes {got}, not {parameters}")
    plain = Map()
    expect(isinstance(getattr(plain, "_matcher", None), StateMachineMatcher), "werkzeug",
           "a `Map` no longer keeps its matcher, a `StateMachineMatcher`, in `_matcher`")
    expect(hasattr(plain._matcher, "merge_slashes"), "werkzeug", "the matcher has no `merge_slashes` any more")


def test_the_map_adds_and_matches_through_the_kept_matcher() -> None:
    m = KeptMatchMap()
    m.add(Rule("/a/<x>", endpoint="a"))
    try:
        adapter(m, "/a/1").match()  # type: ignore[attr-defined]
    except NotFound:
        changed("werkzeug", "`Map.add` no longer adds a rule to the map's `_matcher`")
    expect(len(m._matcher._kept) == 1, "werkzeug",  # type: ignore[attr-defined]
           "`MapAdapter.match` no longer matches through its map's `_matcher.match`")
    m.add(Rule("/b", endpoint="b"))
    expect(adapter(m, "/b").match() == ("b", {}), "werkzeug",  # type: ignore[attr-defined]
           "a rule added after a match is not matched")


@pytest.mark.parametrize(("path", "method"), [
    ("/v1/games/femkort/move", "POST"), ("/v1/sessions/abc", "GET"), ("/v1/sessions/abc", "POST"),
    ("/v1/sessions/abc/moves", "POST"), ("/v1/games/femkort/move", "GET"), ("/nowhere", "GET"),
    ("/docs", "GET"), ("/docs/", "GET"), ("//v1//sessions/abc", "GET")])
def test_matches_as_werkzeug_does_first_time_and_again(path: str, method: str) -> None:
    def outcome(m: Map) -> object:
        try:
            rule, args = adapter(m, path, method).match(return_rule=True)  # type: ignore[attr-defined]
            return rule.rule, args
        except (NotFound, MethodNotAllowed) as exc:
            return type(exc)
        except Exception as exc:  # the redirects: to the slashed URL, with merged slashes
            return type(exc), getattr(exc, "new_url", None)

    plain, kept = Map(rules()), KeptMatchMap(rules())
    expected = outcome(plain)
    first, again = outcome(kept), outcome(kept)
    expect(first == expected and again == expected, "werkzeug",
           f"{method} {path} matched {first}, then {again}, through the kept matcher; Werkzeug's own map: {expected}")


def test_a_kept_match_gives_each_request_its_own_arguments_and_leaves_no_garbage() -> None:
    m = KeptMatchMap(rules())
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
    monkeypatch.setattr(kept_routing, "MAX_KEPT", 3)
    m = KeptMatchMap(rules())
    for sid in "abcde":
        adapter(m, f"/v1/sessions/{sid}").match()  # type: ignore[attr-defined]
    kept = m._matcher._kept  # type: ignore[attr-defined]
    assert [k[1] for k in kept] == ["/v1/sessions/c", "/v1/sessions/d", "/v1/sessions/e"]
