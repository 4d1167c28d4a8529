"""Guard of service/speedups/prometheus_client.py: a histogram child's private sum and bucket values, in both of
prometheus-client's modes (one process, and the multiprocess files that gunicorn's workers write)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from prometheus_client import CollectorRegistry, Histogram

from tests.speedups.guard import expect

BOUNDS = (0.001, 0.01, 0.1, 1.0)
# every bound exactly (a value equal to a bound counts in that bound's bucket), between them, and past the last
VALUES = [0.0, 0.0005, 0.001, 0.002, 0.01, 0.01, 0.05, 0.1, 0.7, 1.0, 1.5, 30.0]

# Run as a script in the same process for one-process mode, and in a child with PROMETHEUS_MULTIPROC_DIR set
# (prometheus-client picks its mode when it is imported): the same values observed one by one into one
# histogram and added at once into another, both read back as the exposition would give them.
COMPARE = """
import json, sys
from bisect import bisect_left
from prometheus_client import CollectorRegistry, Histogram
from service.speedups.prometheus_client import add_observations

bounds, values, multiprocess = json.loads(sys.argv[1])
registry = CollectorRegistry()
direct = Histogram("direct_seconds", "d", ["a"], buckets=bounds, registry=registry).labels("x")
added = Histogram("added_seconds", "a", ["a"], buckets=bounds, registry=registry).labels("x")
per_bucket = [0] * (len(bounds) + 1)
for v in values:
    direct.observe(v)
    per_bucket[bisect_left(bounds, v)] += 1
add_observations(added, sum(values), per_bucket)
if multiprocess:
    from prometheus_client import multiprocess as mp
    registry = CollectorRegistry()
    mp.MultiProcessCollector(registry)
samples = {}
for family in registry.collect():
    for s in family.samples:
        if not s.name.endswith("_created"):
            name = s.name.replace("direct", "h").replace("added", "h")
            samples.setdefault(s.name.split("_")[0], {})[name + repr(sorted(s.labels.items()))] = s.value
print(json.dumps(samples))
"""


def read_back(multiprocess: bool, tmp_path: Path) -> dict[str, dict[str, float]]:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    if multiprocess:
        env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", COMPARE, json.dumps([BOUNDS, VALUES, multiprocess])], env=env,
                         capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    read: dict[str, dict[str, float]] = json.loads(out.stdout)
    return read


def test_a_histogram_child_has_the_sum_and_the_buckets_the_module_adds_to() -> None:
    child = Histogram("shape_seconds", "s", ["a"], buckets=BOUNDS, registry=CollectorRegistry()).labels("x")
    expect(hasattr(child, "_sum") and callable(getattr(child._sum, "inc", None)), "prometheus-client",
           "a Histogram child has no `_sum` value with `inc` any more")
    buckets = getattr(child, "_buckets", None)
    expect(isinstance(buckets, list) and len(buckets) == len(BOUNDS) + 1, "prometheus-client",
           f"a Histogram child's `_buckets` is no longer a list of one value per bound and +Inf "
           f"({len(BOUNDS) + 1} here): {buckets!r}")
    expect(all(callable(getattr(b, "inc", None)) for b in buckets or ()), "prometheus-client",
           "a Histogram child's bucket values have no `inc` any more")


def test_observations_added_at_once_read_as_the_same_observations_made_one_by_one(tmp_path: Path) -> None:
    for multiprocess in (False, True):
        read = read_back(multiprocess, tmp_path)
        mode = "in the multiprocess mode" if multiprocess else "in one process"
        expect(read["direct"] == read["added"], "prometheus-client",
               f"observations added through `_sum` and `_buckets` no longer read as the same observations made "
               f"with `observe` {mode} (observed: {read['direct']}, added: {read['added']})")
