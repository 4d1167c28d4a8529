"""The benchmark's short mode runs end to end and writes every section with sane numbers.

Speed ratios are reported by bench/run.py, never asserted here (CI machines are noisy). The HTTP parts
use wrk when it is installed (bench/run.py installs it with apt-get when it can) and otherwise the Python
load generator, which the results file then names.
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
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run([sys.executable, "bench/run.py", "--mode", "short", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    print(proc.stdout[-6000:])  # shown by pytest on failure, and with -s: the ratios of this run
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / "bench-short.json").read_text())
    data["_png"] = out / "bench-short.png"
    return data


def positive(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0


def test_machine_and_summary(results: dict) -> None:
    m = results["machine"]
    assert m["nproc"] >= 1 and m["python"] and len(m["loadavg_start"]) == 3
    assert results["summary"]["targets"] == len(results["verdicts"]) > 0
    for v in results["verdicts"]:
        assert isinstance(v["met"], bool) and positive(v["value"]) and positive(v["bound"])


def test_engine_section(results: dict) -> None:
    from service import engine
    eng = results["engine"]
    assert 0.05 < eng["floor"]["us_per_move"] < 100
    assert {g["game"] for g in eng["games"]} == set(engine.all_games())
    for g in eng["games"]:
        for key in ("move_us", "ratio_to_floor", "validate_us", "view_us", "view_spectator_us", "state_bytes_median"):
            assert positive(g[key]), (g["game"], key)


def test_growth_section(results: dict) -> None:
    assert len(results["growth"]) >= 2
    for g in results["growth"]:
        assert g["moves_per_match"] > 100
        for phase in ("start", "middle", "end"):
            for key in ("move_us", "validate_us", "state_bytes", "response_bytes"):
                assert positive(g[phase][key]), (g["game"], phase, key)


def test_http_section(results: dict) -> None:
    http = results["http"]
    assert results["load_generator"] in ("wrk", "python")
    if results["load_generator"] == "python":
        print("NOTE: wrk could not be installed; the HTTP part used the Python load generator")
    names = {r["endpoint"] for r in http["results"]}
    assert {"echo:femkort", "move:femkort", "legal_moves:femkort", "view:femkort", "echo_redis",
            "session_move", "echo_redis_lane", "bare_echo:femkort", "bare_echo:tomato"} <= names
    # every endpoint is read against the bare Flask echo as well as against its own floor
    assert all(positive(r["rps_ratio_bare"]) and positive(r["p99_ratio_bare"]) for r in http["results"])
    assert all(positive(r["rps_ratio_vs_lane"]) for r in http["results"] if r["endpoint"] == "session_move")
    for r in http["results"]:
        for key in ("rps", "p50_ms", "p99_ms", "rps_ratio"):
            assert positive(r[key]), (r["endpoint"], key)
        assert r["requests"] > 0
        # nothing may fail but a handful of session moves overtaken by their successor under heavy load
        assert r["errors"] <= (0.05 * r["requests"] if r["endpoint"] == "session_move" else 0), r
    assert positive(http["memory_after"]["worker_rss_mib_max"])


def test_scale_section(results: dict) -> None:
    assert [s["workers"] for s in results["scale"]] == [1, 2, 4]
    for s in results["scale"]:
        assert positive(s["echo_rps"]) and positive(s["move_rps"]) and positive(s["memory"]["worker_rss_mib_max"])
        assert len(s["memory"]["workers"]) == s["workers"]


def test_plot_written(results: dict) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert any("no plot" in n for n in results["notes"])
        pytest.skip("matplotlib is not installed (the bench extra): the plot was skipped, as the notes say")
    png = results["_png"]
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
