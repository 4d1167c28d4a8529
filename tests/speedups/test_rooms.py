"""The reaches into libraries' private parts stay in service/speedups/, one module per library, and that package
sits below the rest of the service (it imports nothing of it)."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEEDUPS = ROOT / "service" / "speedups"
# What the modules of service/speedups/ use of each library's private parts, by library
PRIVATE_PARTS = {"prometheus_client": [r"\._sum\b", r"\._buckets\b"],
                 "werkzeug": [r"\._matcher\b", r"\bStateMachineMatcher\b"],
                 "gunicorn": [r"\bGeventWorker\b", r"\bdef handle_request\b"]}
# What the service used to reach for and no longer does (the public API costs little)
GONE = [r"\._srcfile\b", r"\._sock\b"]


def sources() -> list[Path]:
    return sorted(p for top in ("service", "deploy") for p in (ROOT / top).rglob("*.py"))


def test_the_package_imports_nothing_of_the_service() -> None:
    for path in SPEEDUPS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0 and not (node.module or "").startswith("service"), (path.name, node.module)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("service") for a in node.names), path.name


@pytest.mark.parametrize("library", sorted(PRIVATE_PARTS))
def test_a_library_s_private_parts_are_used_in_its_own_module_only(library: str) -> None:
    own = SPEEDUPS / f"{library}.py"
    for pattern in PRIVATE_PARTS[library]:
        users = [p.relative_to(ROOT).as_posix() for p in sources() if re.search(pattern, p.read_text())]
        assert users == [own.relative_to(ROOT).as_posix()], (pattern, users)


def test_the_reaches_replaced_by_the_public_api_are_gone() -> None:
    for pattern in GONE:
        assert not [p for p in sources() if re.search(pattern, p.read_text())], pattern
