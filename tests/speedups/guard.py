"""What a guard test says when a library no longer has what a module of service/speedups/ relies on."""
from __future__ import annotations

from importlib.metadata import version
from typing import NoReturn

import pytest


def changed(library: str, what: str) -> NoReturn:
    """Fail the test, naming the library, its installed version and what changed in it."""
    pytest.fail(f"{library} {version(library)} changed what service/speedups/{library.replace('-', '_')}.py relies "
                f"on: {what}. Adapt that module: its docstring says what it relies on, and why not on the "
                f"public API.", pytrace=False)


def expect(holds: bool, library: str, what: str) -> None:
    """``changed(library, what)`` unless ``holds``."""
    if not holds:
        changed(library, what)
