"""Request ids made by the service: well-formed, unique, and different in every forked worker.

They come from the random module rather than os.urandom (service/api/wsgi/observability.py says why), so the
one thing to prove beyond shape and uniqueness is that two gunicorn workers forked from one master do not
make the same sequence.
"""
from __future__ import annotations

import os
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service.api.wsgi.observability import new_request_id


def test_made_ids_are_version_4_uuids_in_hex_and_unique() -> None:
    ids = [new_request_id() for _ in range(10_000)]
    assert len(set(ids)) == len(ids)
    for rid in ids[:100]:
        assert len(rid) == 32 and uuid.UUID(hex=rid).version == 4


def test_a_forked_worker_makes_other_ids_than_its_parent() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send its next ids and leave at once
        try:
            os.write(write, "".join(new_request_id() for _ in range(4)).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        child = pipe.read().decode()
    os.waitpid(pid, 0)
    parent = "".join(new_request_id() for _ in range(4))
    assert len(child) == 128 and child != parent


def test_the_tally_adds_up_to_what_direct_observations_give() -> None:
    """The tally writes a histogram's buckets and sum itself (prometheus_client has no call to add many
    observations at once): what it flushes must read exactly as the same observations made one by one."""
    import random as rnd

    from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

    from service.api.wsgi.observability import BUCKETS, Tally

    def metrics(registry: CollectorRegistry) -> tuple[Counter, Histogram]:
        return (Counter("t_total", "t", ["a"], registry=registry),
                Histogram("t_seconds", "t", ["a"], buckets=BUCKETS, registry=registry))

    rng = rnd.Random(7)
    values = [rng.choice((0.0005, 0.001, 30.0, 31.0)) if rng.random() < 0.2 else rng.expovariate(200)
              for _ in range(2_000)]  # bucket bounds exactly, past the last one, and everything between
    direct, tallied = CollectorRegistry(), CollectorRegistry()
    d_count, d_hist = metrics(direct)
    t_count, t_hist = metrics(tallied)
    tally = Tally(flush=3600)
    for i, v in enumerate(values):
        label = "xy"[i % 2]
        d_count.labels(label).inc()
        d_hist.labels(label).observe(v)
        tally.count(t_count, (label,))
        tally.observe(t_hist, (label,), v)
        if i == 999:
            tally.flush()  # flushed twice: the second adds to the first
    tally.flush()


    def read(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in text_string_to_metric_families(
            generate_latest(registry).decode()) for s in f.samples if not s.name.endswith("_created")}

    got, want = read(tallied), read(direct)
    assert got.keys() == want.keys()
    for key, value in want.items():  # counts exactly; a sum may differ in its last bits (another order)
        assert got[key] == pytest.approx(value, rel=1e-12), key
