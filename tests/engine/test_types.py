"""The engine type-checks under ``mypy --strict`` (the house style: types everywhere in the engine)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_engine_passes_mypy_strict() -> None:
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "service/engine"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
