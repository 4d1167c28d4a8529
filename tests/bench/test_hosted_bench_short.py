"""bench/hosted_tournament.py end to end on a small field (8 connected random bots in 2 processes, 2 Swiss rounds
of four-player Femkort): the numbers it reports are there and sane. They are printed, not held to a target (the
machine is shared); docs/performance.md, "Hosted tournaments", has the 200-bot run."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_hosted_bench_reports_matches_per_second_and_cpu_per_move(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.hosted_tournament", "--bots", "8", "--rounds", "2",
                           "--processes", "2", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "hosted-tournament-bench.json").read_text())
    print(result)
    assert result["matches"] == 2 * 2 * 4  # 2 rounds x 2 tables x 4 rotations
    assert result["moves"] == result["matches"] * 20  # a four-player deal of Femkort: 5 tricks of 4 cards
    assert result["incidents"] == 0 and result["ended_by"] == ["play"]
    assert result["matches_per_second"] > 0 and 0 < result["service_cpu_ms_per_move"] < 1000
    assert result["requests"]["POST /v1/sessions/<sid>/moves 200"] == result["moves"]
    assert result["requests_per_move"] > 1  # the moves and the seats' long-polls
