"""Request ids made by the service: well-formed, unique, and different in every forked worker.

They come from the random module rather than os.urandom (service/api/observability.py says why), so the
one thing to prove beyond shape and uniqueness is that two gunicorn workers forked from one master do not
make the same sequence.
"""
from __future__ import annotations

import os
import uuid

from service.api.observability import new_request_id


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
