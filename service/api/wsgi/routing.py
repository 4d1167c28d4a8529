"""URL matching that leaves no garbage for the cycle collector.

Werkzeug's matcher builds a recursive closure for every match: a function whose closure holds itself, a
reference cycle of eight objects that only the garbage collector can free. It was the only cyclic garbage a
loaded worker made, and it alone set the collector going: a pause of the whole worker every few thousand
requests, and every waiting client of that worker waiting with it (docs/performance.md, "The collector, the
router and the listener's lock"). The routes a worker serves are few and come back (a game's ``/move``, a
session's moves and streams), so a successful match is kept and reused; a path seen for the first time, or
that does not match, goes through Werkzeug's matcher as before.
"""
from __future__ import annotations

from typing import Any

from werkzeug.routing import Map, Rule
from werkzeug.routing.matcher import StateMachineMatcher

# Enough for every route of a few thousand live sessions; the oldest match goes first when it is full.
MAX_KEPT = 8192


class KeptMatcher(StateMachineMatcher):
    """Werkzeug's matcher with its successful matches kept, keyed by everything a match depends on."""

    def __init__(self, merge_slashes: bool) -> None:
        super().__init__(merge_slashes)
        self._kept: dict[tuple[str, str, str | None, bool], tuple[Rule, dict[str, Any]]] = {}

    def add(self, rule: Rule) -> None:
        self._kept.clear()
        super().add(rule)

    def update(self) -> None:
        self._kept.clear()
        super().update()

    def match(self, domain: str, path: str, method: str, websocket: bool) -> tuple[Rule, dict[str, Any]]:
        key = (domain, path, method, websocket)
        kept = self._kept.get(key)
        if kept is not None:
            return kept[0], dict(kept[1])
        rule, values = super().match(domain, path, method, websocket)  # raises when nothing matches
        if len(self._kept) >= MAX_KEPT:
            self._kept.pop(next(iter(self._kept), key), None)
        self._kept[key] = (rule, dict(values))
        return rule, dict(values)


class KeptMatchMap(Map):
    """A URL map whose matcher keeps its matches (Flask's ``url_map_class``)."""

    def __init__(self, rules: Any = None, **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        self._matcher = KeptMatcher(self._matcher.merge_slashes)
        for rule in rules or ():
            self.add(rule)
