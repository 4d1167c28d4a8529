"""The rules engine is pure: no web framework, store, network, clock, randomness or environment."""
from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "service" / "engine"
FORBIDDEN = {"flask", "werkzeug", "marshmallow", "redis", "os", "sys", "socket", "time", "datetime", "random",
             "secrets", "logging", "requests", "http", "urllib", "subprocess", "threading", "asyncio", "io",
             "pathlib", "service.api", "service.storage", "service.app", "service.config"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_imports_nothing_impure() -> None:
    offenders = {}
    for path in sorted(ENGINE.rglob("*.py")):
        bad = {m for m in imported_modules(path)
               if m in FORBIDDEN or m.split(".")[0] in FORBIDDEN or any(m.startswith(f + ".") for f in FORBIDDEN)}
        if bad:
            offenders[str(path.relative_to(ENGINE))] = sorted(bad)
    assert not offenders, f"impure imports in the engine: {offenders}"
