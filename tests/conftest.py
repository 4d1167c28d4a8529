from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/replays/ from the current engine (golden playthroughs)")


@pytest.fixture(scope="session", autouse=True)
def _timeout_appliers_stop_at_the_end():
    """Every app a test made runs a timeout applier thread; at the end of the run their stores are gone, so they
    are stopped before then (else they log, to streams pytest has closed, that the store does not answer)."""
    yield
    from service.sessions import timeouts
    timeouts.stop_all()
