"""bench/jewel_bench.py runs end to end in its quick mode and reports every search (times are not asserted)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import jewel_bench


def test_quick_run_reports_every_function(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "jewel.json"
    assert jewel_bench.main(["--quick", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())
    assert set(results["overall"]) == set(jewel_bench.FUNCTIONS)
    for fname, row in results["overall"].items():
        assert f"| {fname} |" in printed
        assert 0 < row["median_ms"] <= row["worst_ms"]
        assert row["hands"] == sum(results["sets"].values())
