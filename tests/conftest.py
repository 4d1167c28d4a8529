from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

TESTS = Path(__file__).resolve().parent
# The quick run (``--quick``, ./tests/run.sh --quick): the edit-test loop. Every test below these directories of
# tests/ is marked ``quick`` unless it is marked ``slow``: the rules, the golden playthroughs and the HTTP API.
QUICK_DIRS = ("engine", "replays", "api")
# ...with fewer hypothesis examples: these knobs for the property tests that set their own count, the profile
# for the others. The full run keeps its counts.
QUICK_EXAMPLES = {"PLAYOUTS": "8", "FORGERIES": "25", "API_EXAMPLES": "5"}

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("quick", settings.get_profile("ci"), max_examples=10)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/replays/ from the current engine (golden playthroughs)")
    parser.addoption("--quick", action="store_true", default=False,
                     help="the quick run: only tests marked quick (tests/engine, tests/replays and tests/api, "
                          "those marked slow left out), fewer hypothesis examples")


def pytest_configure(config: pytest.Config) -> None:
    quick = config.getoption("--quick")
    if quick:
        for knob, value in QUICK_EXAMPLES.items():
            os.environ.setdefault(knob, value)  # before the test modules are imported: their decorators read them
        more = config.option.markexpr
        config.option.markexpr = f"quick and ({more})" if more else "quick"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("quick" if quick else "ci"))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In the quick run a directory of tests/ that holds no quick test is not even collected (collecting all of
    tests/ costs each worker about 15 s of CPU)."""
    if config.getoption("--quick") and collection_path.is_dir() and not _may_hold_quick_tests(collection_path):
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before the -m selection reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _in_quick_dir(item.path) and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.quick)


def _in_quick_dir(path: Path) -> bool:
    parts = _below_tests(path)
    return bool(parts) and parts[0] in QUICK_DIRS


def _may_hold_quick_tests(directory: Path) -> bool:
    parts = _below_tests(directory)
    return parts == () or (parts is not None and parts[0] in QUICK_DIRS)


def _below_tests(path: Path) -> tuple[str, ...] | None:
    """``path``'s parts below tests/ (() for tests/ itself), None outside it."""
    resolved = path.resolve()
    return resolved.relative_to(TESTS).parts if resolved.is_relative_to(TESTS) else None


@pytest.fixture(scope="session", autouse=True)
def _timeout_appliers_stop_at_the_end():
    """Every app a test made runs a timeout applier thread; at the end of the run their stores are gone, so they
    are stopped before then (else they log, to streams pytest has closed, that the store does not answer)."""
    yield
    from service.sessions import timeouts
    timeouts.stop_all()
