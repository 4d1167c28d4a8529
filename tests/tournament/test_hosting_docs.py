"""docs/tournaments.md, "Hosted tournaments": every command of its walk-through runs, as written, from the
repository's root, against a service (gunicorn as shipped, on a private Redis) on a free port instead of
:8000, writing the archive to a temporary directory instead of /tmp. Four bots register, host themselves,
play the Swiss of clients/python/examples/hosted-swiss.json to its end, and both verifies pass."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.deploy.cluster import Instance
from tests.deploy.test_deploy_docs import block_with
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "tournaments.md").read_text()
DOCUMENTED_URL = "URL=http://127.0.0.1:8000\n"
ARCHIVE = "/tmp/hosted-swiss.json"


def hosting_block() -> str:
    section = DOC[DOC.index("## Hosted tournaments"):]
    return block_with(section[:section.index("\n## ", 3)], "bot register")


def test_the_hosting_walk_through_runs_as_written(tmp_path: Path) -> None:
    script = hosting_block()
    assert script.startswith(DOCUMENTED_URL) and script.count(ARCHIVE) == 2
    with RedisServer(appendonly=True) as redis, Instance(redis.url, {"SESSION_QUOTA": "off"}, name="docs") as svc:
        body = script.replace(DOCUMENTED_URL, f"URL=http://127.0.0.1:{svc.port}\n")
        body = body.replace(ARCHIVE, str(tmp_path / "hosted-swiss.json"))
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=ROOT, capture_output=True, text=True,
                              timeout=400, check=False)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    out = done.stdout
    assert re.search(r"^tournament_finished ", out, flags=re.M), out[-3000:]
    assert "| rank | bot | points |" in out
    assert len(re.findall(r"^OK", out, flags=re.M)) == 2, out[-3000:]
    archive = json.loads((tmp_path / "hosted-swiss.json").read_text())
    assert {e["name"] for e in archive["tournament"]["entries"]} == {"alice", "bob", "carol", "dave"}
    assert len(archive["rounds"]) == 3 and archive["matches"]
    ladder = json.loads(out.strip().splitlines()[-1])
    assert ladder["game"] == "femkort" and {r["name"] for r in ladder["ladder"]} == {"alice", "bob", "carol", "dave"}
