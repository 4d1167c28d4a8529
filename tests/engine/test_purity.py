"""The rules engine is pure: no web framework, store, network, clock, randomness or environment, and no state
kept between calls.

State between calls is what one call could leave for a later one to read: a module-level container that can
change (a dict, list, set, bytearray...: a hand-made cache among them), or a module global that a function binds
anew (``global``). Both fail here, wherever they are in the engine; a constant table is a tuple, a frozenset or
a ``types.MappingProxyType``.

Our ruling on memos: a ``functools.cache``/``lru_cache`` of a pure function is allowed. Its arguments must be
hashable (the cache refuses others) and its answer depends on them alone, so remembering it changes how fast the
engine answers, never what; and the cache is bounded by the few values a match can ask for (its ``maxsize`` where
it could grow with what clients send). Because a remembered result is handed to every later caller, it must be a
value no caller can change: a cached function may not return a list, a dict, a set or another mutable container.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import typing
from collections.abc import MutableMapping, MutableSequence, MutableSet
from pathlib import Path
from types import ModuleType

import service.engine

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


MUTABLE = (MutableMapping, MutableSequence, MutableSet, bytearray)
MUTABLE_RESULTS = {"list", "dict", "set", "bytearray", "Counter", "defaultdict", "OrderedDict", "deque",
                   "MutableMapping", "MutableSequence", "MutableSet", "Any"}


def engine_modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(service.engine.__path__, "service.engine.")]
    return [service.engine, *(importlib.import_module(name) for name in sorted(names))]


def own_globals(module: ModuleType) -> dict[str, object]:
    """The module's own bindings: Python's module machinery (``__path__``, ``__all__``...) aside."""
    return {name: value for name, value in vars(module).items() if not (name.startswith("__") and name.endswith("__"))}


def test_no_module_of_the_engine_holds_a_mutable_container() -> None:
    offenders = sorted(f"{m.__name__}.{name} ({type(value).__name__})" for m in engine_modules()
                       for name, value in own_globals(m).items() if isinstance(value, MUTABLE))
    assert not offenders, f"module-level mutable state in the engine: {offenders}"


def test_no_function_of_the_engine_rebinds_a_module_global() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        offenders += [f"{path.relative_to(ENGINE)}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, (ast.Global, ast.Nonlocal))]
    assert not offenders, f"module globals bound anew by functions: {offenders}"


def test_the_engines_memos_are_of_functions_whose_results_cannot_change() -> None:
    """Every functools cache in the engine (see the ruling above) declares what it returns, and that is no
    mutable container."""
    memos = {f"{m.__name__}.{name}": value for m in engine_modules() for name, value in own_globals(m).items()
             if callable(value) and hasattr(value, "cache_info") and getattr(value, "__module__", "") == m.__name__}
    assert memos, "the engine's memos were not found"
    offenders = {}
    for name, memo in memos.items():
        returns = typing.get_type_hints(memo.__wrapped__).get("return")  # type: ignore[attr-defined]
        outer = getattr(typing.get_origin(returns) or returns, "__name__", repr(returns))
        if returns is None or outer in MUTABLE_RESULTS:
            offenders[name] = outer
    assert not offenders, f"memos that hand out a mutable result: {offenders}"
