"""bench/speedups.py runs end to end in its quick mode and times every way against its public alternative, a call
alone and a whole request (times are not asserted). A process of its own: the bench sets the metrics'
multiprocess mode for the process it runs in."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_times_each_way_and_its_public_alternative() -> None:
    out = subprocess.run([sys.executable, "-m", "bench.speedups", "--quick"], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=True).stdout
    sections = re.split(r"^(?=\S)", out, flags=re.M)
    assert [s.split(":")[0] for s in sections if s] == ["tally", "matcher", "tag", "request-id"]
    for section in filter(None, sections):
        alone, request = section.split("  a request")
        assert len(re.findall(r"^ {4}\S.* (\d+\.\d+) / +(\d+\.\d+)$", alone, flags=re.M)) >= 2, section
        rows = re.findall(r"^ {4}\S.*? +(\d+\.\d+) +[+-]\d+\.\d+ us +[+-]\d+\.\d+ %$", request, flags=re.M)
        assert len(rows) >= 3 and all(float(us) > 0 for us in rows), section  # the first way twice, and the others
