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


def test_the_rest_of_the_service_uses_only_the_engines_public_surface() -> None:
    """Outside the engine, code imports ``service.engine`` (its ``__init__``), never a module inside it."""
    service = ENGINE.parent
    offenders = {}
    for path in sorted(service.rglob("*.py")):
        if ENGINE in path.parents:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        inner = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module if node.level == 0 else "." * node.level + node.module
                if "engine." in module:
                    inner.add(module)
            elif isinstance(node, ast.Import):
                inner.update(a.name for a in node.names if a.name.startswith("service.engine."))
        if inner:
            offenders[str(path.relative_to(service))] = sorted(inner)
    assert not offenders, f"imports of the engine's internals: {offenders}"


def test_engine_errors_carry_no_http_status() -> None:
    from service.engine import errors
    assert not [name for name in dir(errors) if hasattr(getattr(errors, name), "status")]
