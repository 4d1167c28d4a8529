"""The waiting-clients load test's short mode (bench/waiting.py) runs end to end with sane numbers.

Its ratios and latencies are reported, never asserted (a shared 2-core machine is noisy); what is asserted is
what must hold however loaded the machine is: all 2,000 waiting clients got in, the stalled half-requests did
not keep /healthz from answering, no waiter missed a move, and nothing failed but a few overtaken session moves.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("waiting")
    proc = subprocess.run([sys.executable, "-m", "bench.waiting", "--mode", "short", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    print(proc.stdout[-4000:])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "waiting-short.json").read_text())


def test_every_waiter_got_in_and_heard_every_move(results: dict) -> None:
    assert results["waiting_clients"] == 2000 and results["stalled"] == 64
    assert all(r.startswith("ready 1000 of 1000") for r in results["waiters_ready"]), results["waiters_ready"]
    wake = results["wake"]
    assert wake["moves"] > 0 and wake["missed"] == 0, wake
    assert not results["client_errors"], results["client_errors"]
    for r in wake["rounds"]:
        assert r["wakes_seen"] == r["wakes_expected"] > 0 and r["after_answer_ms_p99"] is not None


def test_stalled_clients_do_not_keep_health_checks_waiting(results: dict) -> None:
    for h in results["healthz_with_waiters"]:
        assert h["max_ms"] < 2000 and h["failed"] == 0, h


def test_both_endpoints_measured_with_and_without_waiters(results: dict) -> None:
    assert [e["endpoint"] for e in results["endpoints"]] == ["move", "session_move"]
    for e in results["endpoints"]:
        assert e["rps_with"] > 0 and e["rps_without"] > 0 and e["rps_ratio"] > 0 and e["p99_ratio"] > 0
        assert e["errors_with"] <= 0.05 * e["requests_with"] if e["endpoint"] == "session_move" else \
            e["errors_with"] == 0, e
    memory = results["memory"]
    assert memory["with_waiters"]["worker_rss_mib_max"] > 0 and len(memory["with_waiters"]["workers"]) == 2
    assert {v["target"].split(":")[0] for v in results["verdicts"]} >= {"move", "session_move"}
