"""The stateless and the session ``/move`` of two source trees side by side, in one run: before and after a change.

    python -m bench.side_by_side [--before ed62486] [--after REF] [--rounds 7] [--seconds 3] [--levels 8,32,64]
                                 [--out bench/results]

``--before`` is a git ref, exported (``git archive``) into a temporary directory; ``--after`` is the working
tree as it is, or a ref exported the same way. Each tree is served by its own gunicorn (deploy/gunicorn.conf.py
and bench/app.py of that tree, with that tree first on PYTHONPATH, from the same venv), beside the bare Flask
echo and one private Redis. Before the load starts the run checks that each server really runs its own tree:
a probe with the workers' interpreter, PYTHONPATH and working directory (read from /proc) imports what they
import, and every module of the service, bench/ and the client package must come from that tree.

What is measured is what docs/performance.md's targets measure: the tagged stateless ``/move`` (Femkort) against
the in-app echo of the same body, and the session move against the echo with a Redis GET and SET, each run
right after its floor on the same server, the ratio taken within the pair. A round runs the bare echo once,
then both pairs on one tree and then on the other, the order alternating from round to round, so that what
else the machine does hits both trees alike. Reported for each tree: the median of the rounds' ratios (and
over the bare echo, which is the same server for both); for the pair of trees: the change of the ratio after
over before in percent, and whether it is within ``BOUND_PCT`` (at most that much lower). Written to
``<out>/side-by-side.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Callable

import orjson

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import http_bench, loadgen  # noqa: E402
from bench.run import machine  # noqa: E402

BASELINE = "ed62486"  # main before issue 28's refactor
BOUND_PCT = 5.0  # issue 28: each ratio after within 5 % of its ratio before
PACKAGES = ("service", "bench", "card_referee_client")  # what a server imports from its tree
STATELESS, SESSION = "move:femkort", "session_move"
FLOOR_OF = {STATELESS: "echo:femkort", SESSION: "echo_redis"}
BARE_FLOOR = "bare_echo:femkort"
# Run by the workers' interpreter in the workers' directory with their PYTHONPATH: where their imports come from.
PROBE = f"""
import json, sys
import bench.app
print(json.dumps({{name: module.__file__ for name, module in sorted(sys.modules.items())
                  if name.split(".")[0] in {PACKAGES!r} and getattr(module, "__file__", None)}}))
"""


@dataclass
class Tree:
    """One side of the comparison: a source tree, the runs measured on it and the floor run each was paired with."""
    side: str  # "before" or "after"
    ref: str  # the git ref it was exported from, or "working tree"
    commit: str
    root: Path
    dirty: bool = False  # the working tree, with changes not committed
    imports: dict[str, Any] = field(default_factory=dict)
    runs: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    floors: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"ref": self.ref, "commit": self.commit, "dirty": self.dirty, "imports": self.imports}


# ----- the two trees -----------------------------------------------------------------------------------------
def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True,
                          timeout=120).stdout.strip()


def checkout(side: str, ref: str | None, scratch: Path) -> Tree:
    """The working tree (``ref`` None), or ``ref`` exported into ``scratch``/``side``: a plain copy of the files,
    so no worktree is registered in the repository and a killed run leaves nothing behind there."""
    if ref is None:
        return Tree(side, "working tree", git("rev-parse", "HEAD"), ROOT, dirty=bool(git("status", "--porcelain")))
    commit = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    dest = scratch / side
    dest.mkdir()
    with subprocess.Popen(["git", "-C", str(ROOT), "archive", "--format=tar", commit],
                          stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            tar.extractall(dest, filter="data")
    if proc.returncode != 0:
        raise RuntimeError(f"git archive {commit} failed with exit code {proc.returncode}")
    return Tree(side, ref, commit, dest)


def server_env(root: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=http_bench.python_path(root))


def imports_of(tree: Tree) -> dict[str, Any]:
    """Where a server of ``tree`` imports the service, bench/ and the client package from: every module must
    come from the tree itself (not from the checkout the venv's editable installs point at)."""
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=tree.root, env=server_env(tree.root),
                          capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the {tree.side} tree's app does not import:\n{proc.stderr[-2000:]}")
    files = {name: Path(path).resolve() for name, path in json.loads(proc.stdout.splitlines()[-1]).items()}
    stray = sorted(name for name, path in files.items() if not path.is_relative_to(tree.root.resolve()))
    if stray or "service" not in files or "bench" not in files:
        raise RuntimeError(f"the {tree.side} tree's server would not run its own code: {stray or 'no service or bench'}")
    return {"modules": len(files),
            "packages": {name: str(files[name].parent.relative_to(tree.root.resolve()))
                         for name in PACKAGES if name in files}}


def check_workers(svc: http_bench.Service, tree: Tree) -> None:
    """The running workers have the probe's interpreter, working directory and PYTHONPATH, so the probe's
    imports are theirs."""
    expected = {"exe": Path(sys.executable).resolve(), "cwd": tree.root.resolve(),
                "pythonpath": server_env(tree.root)["PYTHONPATH"]}
    for pid in svc.worker_pids():
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        seen = {"exe": Path(f"/proc/{pid}/exe").resolve(), "cwd": Path(f"/proc/{pid}/cwd").resolve(),
                "pythonpath": next((e.split(b"=", 1)[1].decode() for e in environ if e.startswith(b"PYTHONPATH=")),
                                   None)}
        if seen != expected:
            raise RuntimeError(f"a worker of the {tree.side} tree runs as {seen}, not as probed: {expected}")


# ----- the workload ------------------------------------------------------------------------------------------
def stateless_requests(svc: http_bench.Service) -> dict[str, list[bytes]]:
    """The tagged Femkort ``/move`` and its echo floor, checked on this server; and that the server tags states
    as this process does, so it takes the tagged payload without the full check."""
    scenarios = http_bench.stateless_scenarios(svc) + [http_bench.echo_redis_scenario(svc)]
    state, move = http_bench.mid_match(*http_bench.PAYLOAD_GAMES[0])
    status, raw = svc.call("POST", f"/v1/games/{state['game']}/move", {"state": state, "move": move})
    answer = orjson.loads(raw)
    tagger = http_bench.StateTagger(http_bench.STATE_TAG_KEY)  # the one the bench's payloads are tagged with
    if status != 200 or answer["state_tag"] != tagger.tag(state["game"], orjson.dumps(answer["state"])):
        raise RuntimeError(f"the server on port {svc.port} does not tag states as the bench does: {raw[:300]!r}")
    return {s["name"]: s["requests"] for s in scenarios if s["name"] in (STATELESS, *FLOOR_OF.values())}


def session_moves(svc: http_bench.Service, c: int, floor_rps: float, seconds: float, min_sessions: int
                  ) -> Callable[[], list[bytes]]:
    """Fresh session moves for each attempt (a move is made once), spread over many sessions so that a move is sent
    long after its predecessor (as bench/http_bench.py's measure does). Enough for three times the floor's pace:
    on a shared machine a floor run can be slow, and moves that run out are sent again and refused."""
    sessions = max(min_sessions, 16 * c)
    per = int(floor_rps * seconds * 3.0 / sessions) + 4
    return lambda: http_bench.session_requests(svc, sessions, per)[0]


def measure_round(trees: list[Tree], services: dict[str, http_bench.Service], requests: dict[str, dict[str, list[bytes]]],
                  bare: http_bench.Service, bare_requests: list[bytes], c: int, r: int, args: argparse.Namespace,
                  log: Callable[[str], None]) -> None:
    """One round at ``c`` connections: the bare echo, then on each tree each endpoint right after its floor."""
    def run(svc: http_bench.Service, reqs: list[bytes] | Callable[[], list[bytes]]) -> dict[str, Any]:
        return http_bench.balanced_run(svc, reqs, c, args.seconds, args.tool, args.workdir)

    bare_run = run(bare, bare_requests)
    log(f"round {r + 1}/{args.rounds} c={c:<3} bare echo            {bare_run['rps']:>8.0f} req/s")
    for tree in trees if r % 2 == 0 else trees[::-1]:
        svc, reqs = services[tree.side], requests[tree.side]
        tree.runs.setdefault((BARE_FLOOR, c), []).append(bare_run)
        for endpoint, floor_name in FLOOR_OF.items():
            floor = run(svc, reqs[floor_name])
            res = run(svc, reqs[endpoint] if endpoint == STATELESS else
                      session_moves(svc, c, floor["rps"], args.seconds, args.min_sessions))
            tree.runs.setdefault((floor_name, c), []).append(floor)
            tree.runs.setdefault((endpoint, c), []).append(res)
            tree.floors.setdefault((endpoint, c), []).append(floor)
            log(f"round {r + 1}/{args.rounds} c={c:<3} {tree.side:<6} {endpoint:<13} {res['rps']:>8.0f} req/s  "
                f"x{res['rps'] / floor['rps']:.3f} of {floor_name}  errors {res['errors']}")


# ----- the report --------------------------------------------------------------------------------------------
INFO = {name: {"floor": FLOOR_OF.get(name, name)} for name in (*FLOOR_OF, *FLOOR_OF.values(), BARE_FLOOR)}


def compare(before: Tree, after: Tree) -> list[dict[str, Any]]:
    """For each endpoint and level: each tree's row (http_bench.summarise's, ratios to its floor and to the bare
    echo) and the change of the ratio after over before, from the medians and round by round; and the change of
    the ratio by the workers' CPU time per request, which what else the machine runs does not move as much."""
    rows = {t.side: {(row["endpoint"], row["connections"]): row
                     for row in http_bench.summarise(t.runs, t.floors, INFO)} for t in (before, after)}
    out = []
    for (endpoint, c), b in rows["before"].items():
        if endpoint not in FLOOR_OF:
            continue
        a = rows["after"][(endpoint, c)]
        change = _pct(a["rps_ratio"], b["rps_ratio"])
        out.append({"endpoint": endpoint, "floor": FLOOR_OF[endpoint], "connections": c,
                    "before": b, "after": a, "change_pct": change,
                    "change_pct_runs": [_pct(x, y) for x, y in zip(a["rps_ratio_runs"], b["rps_ratio_runs"])],
                    "change_pct_bare": _pct(a["rps_ratio_bare"], b["rps_ratio_bare"]),
                    "change_pct_cpu": _pct(a["cpu_ratio"], b["cpu_ratio"]) if a["cpu_ratio"] and b["cpu_ratio"] else None,
                    "within_bound": change >= -BOUND_PCT})
    return out


def _pct(after: float, before: float) -> float:
    return round((after / before - 1) * 100, 1)


def print_table(rows: list[dict[str, Any]], log: Callable[[str], None]) -> None:
    for row in rows:
        b, a = row["before"], row["after"]
        log(f"c={row['connections']:<3} {row['endpoint']:<13} x{b['rps_ratio']:.3f} -> x{a['rps_ratio']:.3f} of "
            f"{row['floor']:<13} {row['change_pct']:+.1f} % (rounds {row['change_pct_runs']}); over the bare echo "
            f"x{b['rps_ratio_bare']} -> x{a['rps_ratio_bare']} ({row['change_pct_bare']:+.1f} %); by CPU "
            f"{row['change_pct_cpu']} %  "
            + ("within" if row["within_bound"] else "OUTSIDE") + f" {BOUND_PCT:g} %")


# ----- the run -----------------------------------------------------------------------------------------------
def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default=BASELINE, help=f"git ref of the tree before (default {BASELINE})")
    ap.add_argument("--after", default=None, help="git ref of the tree after (default: the working tree as it is)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=3.0, help="each run (wrk takes whole seconds)")
    ap.add_argument("--levels", default="8,32,64", help="connection counts, comma-separated")
    ap.add_argument("--min-sessions", type=int, default=256, help="sessions the session moves are spread over "
                    "(16 per connection when that is more)")
    ap.add_argument("--tool", choices=("auto", "wrk", "python"), default="auto")
    ap.add_argument("--no-install", action="store_true", help="do not apt-get install wrk when it is missing")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    log: Callable[[str], None] = lambda m: print(m, flush=True)  # noqa: E731
    if args.tool == "auto":
        args.tool = "wrk" if loadgen.have_wrk() or (not args.no_install and loadgen.ensure_wrk(log)) else "python"
    result: dict[str, Any] = {"started": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machine(),
                              "load_generator": args.tool, "rounds": args.rounds, "seconds": args.seconds,
                              "workers": int(os.environ.get("WEB_CONCURRENCY", "2")), "bound_pct": BOUND_PCT}
    t0 = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="cr-side-by-side-"))
    args.workdir = http_bench.workdir()
    from tests.redis_server import RedisServer
    try:
        trees = [checkout("before", args.before, scratch), checkout("after", args.after, scratch)]
        for tree in trees:
            tree.imports = imports_of(tree)
            log(f"{tree.side}: {tree.ref} ({tree.commit[:12]}{', with changes' if tree.dirty else ''}): "
                f"{tree.imports['modules']} modules from its own tree")
        with RedisServer(appendonly=True) as redis, ExitStack() as stack:
            bare = stack.enter_context(http_bench.Service(result["workers"], redis.url, args.workdir, http_bench.BARE))
            services = {t.side: stack.enter_context(http_bench.Service(result["workers"], redis.url, args.workdir,
                                                                       root=t.root)) for t in trees}
            for tree in trees:
                check_workers(services[tree.side], tree)
            requests = {side: stateless_requests(svc) for side, svc in services.items()}
            echo = {"name": FLOOR_OF[STATELESS], "requests": requests["after"][FLOOR_OF[STATELESS]]}
            bare_requests = http_bench.bare_scenarios(bare, [echo])[0]["requests"]
            for r in range(args.rounds):
                for c in (int(x) for x in args.levels.split(",")):
                    measure_round(trees, services, requests, bare, bare_requests, c, r, args, log)
    finally:
        http_bench.cleanup(args.workdir)
        http_bench.cleanup(scratch)
    result.update(before=trees[0].describe(), after=trees[1].describe(), results=compare(*trees),
                  seconds_total=round(time.monotonic() - t0, 1))
    result["machine"]["loadavg_end"] = list(os.getloadavg())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "side-by-side.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {path}")
    print_table(result["results"], log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
