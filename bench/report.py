"""Markdown tables from a results file, for docs/performance.md.

    python -m bench.report bench/results/bench-full.json                 print them
    python -m bench.report bench/results/bench-full.json --docs docs/performance.md
                                         replace what stands between the bench:tables markers of that page
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def tables(res: dict[str, Any]) -> str:
    m = res["machine"]
    out = [f"Run: `{res['mode']}` mode, {res['started']}, {res['seconds']} s; {m['nproc']} cores ({m['cpu']}), "
           f"Python {m['python']} ({m['executable']}), load average {m['loadavg_start'][0]:.2f} at the start and "
           f"{m['loadavg_end'][0]:.2f} at the end; load generator {res.get('load_generator', '-')}.", ""]
    e = res["engine"]
    out += [f"**Engine** (floor: {e['floor']['us_per_move']} us/move, runs {e['floor']['runs']}; "
            f"{e['rounds']} interleaved rounds of {e['seconds_per_slice']} s per game)", "",
            "| game | players | us/move (legal moves + apply) | x floor (median of rounds) | per-move p90 us | "
            "validate us | view us (seat / spectator) | state bytes | moves/match |",
            "|---|---|---|---|---|---|---|---|---|"]
    for g in e["games"]:
        out.append(f"| {g['game']} | {g['players']} | {g['move_us']} | **{g['ratio_to_floor']}** | {g['move_us_p90']} | "
                   f"{g['validate_us']} | {g['view_us']} / {g['view_spectator_us']} | {g['state_bytes_median']} | "
                   f"{g['moves_per_match']} |")
    out += ["", "**Growth** (medians over the first, middle and last tenth of each match)", "",
            "| match | moves | move us start/mid/end | validate us start/mid/end | state bytes start/mid/end | "
            "/move response bytes start/mid/end | end/start (move, validate, state, response) |",
            "|---|---|---|---|---|---|---|"]
    for g in res["growth"]:
        def three(key: str, g: dict[str, Any] = g) -> str:
            return " / ".join(str(g[p][key]) for p in ("start", "middle", "end"))
        r = g["end_over_start"]
        opts = ", ".join(f"{k}={v}" for k, v in g["options"].items())
        out.append(f"| {g['game']} {g['players']}p {opts} | {g['moves_per_match']} | {three('move_us')} | "
                   f"{three('validate_us')} | {three('state_bytes')} | {three('response_bytes')} | "
                   f"{r['move_us']}, {r['validate_us']}, {r['state_bytes']}, {r['response_bytes']} |")
    h = res.get("http")
    if h:
        shape = f"{h['workers']} workers" + (f" x {h['threads']} threads" if h["worker_class"] == "gthread" else "")
        out += ["", f"**HTTP** (gunicorn {h['worker_class']}, {shape}; "
                f"{h['rounds']} rounds of {h['seconds']} s per scenario and concurrency; ratios are medians of "
                "per-round ratios to the floor measured in the same round; CPU is the workers' CPU time per request, "
                "and its ratio is floor CPU / endpoint CPU; retried: runs repeated because a worker did less than "
                "half its share)", "",
                "| connections | endpoint | floor | req/s | x floor req/s | x bare echo req/s | p50 ms | p99 ms | "
                "x floor p99 | x bare echo p99 | CPU us/req | x floor by CPU | x bare by CPU | retried | errors |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in h["results"]:
            bold = r["endpoint"].startswith("move:") or r["endpoint"] == "session_move"
            ratio = f"**{r['rps_ratio']}**" if bold else str(r["rps_ratio"])
            bare = r.get("rps_ratio_bare", "-")
            bare = f"**{bare}**" if r["endpoint"].startswith(("move:", "echo:")) else bare
            out.append(f"| {r['connections']} | {r['endpoint']} | {r['floor']} | {r['rps']:.0f} | {ratio} | {bare} | "
                       f"{r['p50_ms']} | {r['p99_ms']} | {r['p99_ratio']} | {r.get('p99_ratio_bare', '-')} | "
                       f"{r.get('cpu_us_per_request', '-')} | {r.get('cpu_ratio', '-')} | {r.get('cpu_ratio_bare', '-')} | "
                       f"{r.get('unbalanced_retries', '-')} | {r['errors']} of {r['requests']} |")
        lanes = [f"{r['rps_ratio_vs_lane']} at {r['connections']}" for r in h["results"]
                 if r.get("rps_ratio_vs_lane") is not None]
        if lanes:
            out += ["", "Session move over `echo_redis_lane` (the same floor sending its GET and SET the way the session "
                    "store sends a move's commands; not a target): " + ", ".join(lanes) + " connections."]
        mem = h["memory_after"]
        out += ["", f"Memory after the HTTP runs: worker RSS {[w['rss_mib'] for w in mem['workers']]} MiB, "
                f"PSS {[w['pss_mib'] for w in mem['workers']]} MiB; master RSS {mem['master_rss_mib']} MiB."]
    s = res.get("scale")
    if s:
        out += ["", f"**Scale** ({s[0]['connections']} connections)", "",
                "| workers | echo req/s | /move femkort req/s | /move over echo | echo p99 ms | /move p99 ms | "
                "worker RSS MiB (max) | worker PSS MiB (max) |", "|---|---|---|---|---|---|---|---|"]
        for r in s:
            out.append(f"| {r['workers']} | {r['echo_rps']:.0f} | {r['move_rps']:.0f} | {r['move_over_echo']} | "
                       f"{r['echo_p99_ms']} | {r['move_p99_ms']} | {r['memory']['worker_rss_mib_max']} | "
                       f"{r['memory']['worker_pss_mib_max']} |")
    out += ["", f"**Targets**: {res['summary']['met']} of {res['summary']['targets']} met.", "",
            "| target | value | bound | met |", "|---|---|---|---|"]
    for v in res["verdicts"]:
        out.append(f"| {v['target']} | {v['value']} | {v['bound']} | {'yes' if v['met'] else '**no**'} |")
    return "\n".join(out) + "\n"


BEGIN, END = "<!-- bench:tables -->", "<!-- /bench:tables -->"


def main(argv: list[str]) -> None:
    text = tables(json.loads(Path(argv[0]).read_text()))
    if len(argv) == 3 and argv[1] == "--docs":
        page = Path(argv[2])
        doc = page.read_text()
        head, rest = doc.split(BEGIN, 1)
        page.write_text(head + BEGIN + "\n" + text + rest[rest.index(END):])
    else:
        print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
