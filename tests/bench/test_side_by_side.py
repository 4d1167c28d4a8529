"""bench/side_by_side.py runs two source trees end to end on a tiny workload and writes its report.

Nothing is timed or compared here (a one-second run on a shared machine says nothing about speed): what is
asserted is that each tree was served from its own code, that both pairs were measured on both trees, and that
the report holds what docs/performance.md reads from it.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench import side_by_side

ROOT = Path(__file__).resolve().parents[2]
CONNECTIONS = 2


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("side-by-side")
    proc = subprocess.run([sys.executable, "-m", "bench.side_by_side", "--before", "HEAD", "--rounds", "1",
                           "--seconds", "1", "--levels", str(CONNECTIONS), "--min-sessions", "8", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    print(proc.stdout[-4000:])  # shown on failure, and with -s
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "side-by-side.json").read_text())


def test_each_tree_is_served_from_its_own_code(report: dict) -> None:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert (report["before"]["ref"], report["before"]["commit"]) == ("HEAD", head)
    assert report["after"]["ref"] == "working tree"
    for side in ("before", "after"):
        imports = report[side]["imports"]
        assert imports["modules"] > 10
        assert imports["packages"]["service"] == "service" and imports["packages"]["bench"] == "bench"


def test_a_tree_without_its_own_service_is_refused(tmp_path: Path) -> None:
    """bench/ alone: the server would import the service from the venv's editable install, another tree."""
    shutil.copytree(ROOT / "bench", tmp_path / "bench", ignore=shutil.ignore_patterns("results", "__pycache__"))
    tree = side_by_side.Tree("before", "bench only", "0" * 40, tmp_path)
    with pytest.raises(RuntimeError, match="would not run its own code"):
        side_by_side.imports_of(tree)


def test_both_endpoints_are_measured_on_both_trees_against_their_floors(report: dict) -> None:
    rows = {(row["endpoint"], row["connections"]): row for row in report["results"]}
    assert set(rows) == {("move:femkort", CONNECTIONS), ("session_move", CONNECTIONS)}
    for (endpoint, _), row in rows.items():
        assert row["floor"] == side_by_side.FLOOR_OF[endpoint]
        for side in ("before", "after"):
            measured = row[side]
            assert measured["floor"] == row["floor"] and measured["requests"] > 0
            assert len(measured["rps_ratio_runs"]) == report["rounds"] == 1
            assert measured["rps_ratio"] > 0 and measured["rps_ratio_bare"] > 0
            # a stateless /move never fails; a session move only when overtaken or run out
            assert measured["errors"] <= (0.05 * measured["requests"] if endpoint == "session_move" else 0), measured
        assert row["change_pct"] == round((row["after"]["rps_ratio"] / row["before"]["rps_ratio"] - 1) * 100, 1)
        assert row["within_bound"] == (row["change_pct"] >= -report["bound_pct"])


def test_the_report_names_the_machine_and_its_load(report: dict) -> None:
    machine = report["machine"]
    assert machine["nproc"] >= 1 and len(machine["loadavg_start"]) == len(machine["loadavg_end"]) == 3
    assert report["load_generator"] in ("wrk", "python") and report["seconds_total"] > 0
