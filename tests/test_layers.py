"""The service's modules form layers, and no module imports another that imports it back.

Every module under service/ is parsed; every import counts, wherever it is written: at the top, inside a
function, under ``if TYPE_CHECKING``. A module may import its own layer and the layers below it, never one
above: the engine knows nothing of storage, storage nothing of sessions, and so on up to the web pages and the
app that puts everything together.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "service"

# Lowest first. A module belongs to the layer of the longest prefix naming it (``service.api.http`` is in
# ``service.api``'s). The root package is imported before any of its modules, so it is the lowest.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("service", "service.engine"),
    ("service.storage", "service.config", "service.paths", "service.greenlets", "service.speedups"),
    ("service.sessions",),
    ("service.tournaments",),
    ("service.api",),
    ("service.web", "service.app"),
)
TOP = len(LAYERS) - 1


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted((ROOT / PACKAGE).rglob("*.py"))}


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def resolved(importer: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` names (``from ..x import y`` -> ``service.x``)."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")
    if not is_package(importer):
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(name: str, source: str) -> Iterator[tuple[str, int]]:
    """The service's modules that module ``name``, written ``source``, imports, each with the import's line."""
    tree = ast.parse(source, filename=name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = resolved(name, node)
            # ``from pkg import x`` imports the module pkg.x when there is one, else a name of pkg
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules() else module for a in node.names]
        else:
            continue
        for target in targets:
            if target in modules() and target != name:
                yield target, node.lineno


@cache
def graph() -> dict[str, dict[str, int]]:
    """Module -> {module it imports: the line of the first such import}."""
    out: dict[str, dict[str, int]] = {}
    for name in modules():
        edges: dict[str, int] = {}
        for target, line in imports(name, modules()[name].read_text()):
            edges.setdefault(target, line)
        out[name] = edges
    return out


def layer(name: str) -> int:
    """The layer of a module. A package's ``__main__`` is a program: imported by nothing, it stands above
    every layer, like the app."""
    if name.rsplit(".", 1)[-1] == "__main__":
        return TOP
    owners = [(len(prefix), i) for i, names in enumerate(LAYERS) for prefix in names
              if name == prefix or name.startswith(prefix + ".")]
    assert owners, f"{name} is in no layer: add it to LAYERS in {Path(__file__).name}"
    return max(owners)[1]


def cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph()[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(one_cycle(set(component)))

    for v in sorted(graph()):
        if v not in index:
            visit(v)
    return found


def one_cycle(component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module (by name), for the failure message."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph()[v]):
                if w == start:
                    return paths[v] + [start]
                if w in component and w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle through {start}")


SEEN = """
from __future__ import annotations
from typing import TYPE_CHECKING
import service.paths
from ...config import Config
from ... import engine
from .. import wsgi
if TYPE_CHECKING:
    from ..schemas.answers import Envelope
def later() -> None:
    from ...storage import notify
"""


def test_the_graph_sees_imports_of_every_kind() -> None:
    """Absolute and relative imports, of a module or of a name, at the top, in a function or for the types."""
    seen = {target for target, _ in imports("service.api.http.games", SEEN)}
    assert seen == {"service.paths", "service.config", "service.engine", "service.api.wsgi",
                    "service.api.schemas.answers", "service.storage.notify"}


def test_no_module_imports_one_that_imports_it_back() -> None:
    found = cycles()
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)


def test_no_layer_imports_a_higher_one() -> None:
    upward = [f"{name} (layer {layer(name)}) imports {target} (layer {layer(target)}), line {line}"
              for name, edges in sorted(graph().items()) for target, line in sorted(edges.items())
              if layer(target) > layer(name)]
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_every_module_is_in_a_layer() -> None:
    for name in modules():
        layer(name)
