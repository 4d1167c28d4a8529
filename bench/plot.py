"""The results file as one PNG (matplotlib, Agg): engine vs floor, growth, HTTP ratios, worker scaling."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(res: dict[str, Any], path: Path) -> Path:
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    m = res["machine"]
    fig.suptitle(f"Card Referee bench ({res['mode']}): {m['nproc']} cores, {m['cpu']}, Python {m['python']}, "
                 f"load {m['loadavg_start'][0]:.1f} -> {m['loadavg_end'][0]:.1f}", fontsize=10)
    _engine(axes[0][0], res)
    _growth(axes[0][1], res)
    _http(axes[1][0], res)
    _scale(axes[1][1], res)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(path, dpi=72)
    plt.close(fig)
    return path


def _engine(ax: Any, res: dict[str, Any]) -> None:
    games = res["engine"]["games"]
    floor = res["engine"]["floor"]["us_per_move"]
    names = [g["game"] for g in games]
    x = range(len(names))
    w = 0.27
    ax.bar([i - w for i in x], [g["move_us"] for g in games], w, label="move (legal moves + apply)")
    ax.bar(list(x), [g["view_us"] for g in games], w, label="view (seat 0)")
    ax.bar([i + w for i in x], [g["validate_us"] for g in games], w, label="validate (check_state)")
    ax.axhline(floor, color="k", lw=1, label=f"pure-Python floor {floor:.2f} us/move")
    ax.axhline(15 * floor, color="r", ls="--", lw=1, label="target: 15x floor per move")
    ax.set_yscale("log")
    ax.set_xticks(list(x), names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("microseconds (log)")
    ax.set_title("Engine, seeded random playouts", fontsize=10)
    ax.legend(fontsize=7)


def _growth(ax: Any, res: dict[str, Any]) -> None:
    phases = ("start", "middle", "end")
    for g in res["growth"]:
        label = f"{g['game']} {','.join(f'{k}={v}' for k, v in g['options'].items())}"
        line = ax.plot(phases, [g[p]["validate_us"] / g["start"]["validate_us"] for p in phases], marker="o",
                       label=label)
        color = line[0].get_color()
        ax.plot(phases, [g[p]["response_bytes"] / g["start"]["response_bytes"] for p in phases], ls="--", color=color)
        ax.plot(phases, [g[p]["move_us"] / g["start"]["move_us"] for p in phases], ls=":", marker="s", color=color)
    ax.axhline(1.5, color="r", ls="--", lw=1)
    ax.set_ylabel("relative to the start of the match")
    ax.set_title("Growth: validate (solid), /move response size (dashed), move (dotted)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")


def _http(ax: Any, res: dict[str, Any]) -> None:
    http = res.get("http")
    if not http:
        ax.text(0.5, 0.5, "HTTP part skipped", ha="center")
        return
    rows = http["results"]
    names = sorted({r["endpoint"] for r in rows if r["endpoint"] != r["floor"]})
    levels = http["levels"]
    w = 0.8 / len(levels)
    for j, c in enumerate(levels):
        vals = [next((r["rps_ratio"] for r in rows if r["endpoint"] == n and r["connections"] == c), 0) for n in names]
        ax.bar([i + (j - (len(levels) - 1) / 2) * w for i in range(len(names))], vals, w, label=f"{c} connections")
    ax.axhline(1.0, color="k", lw=1)
    ax.axhline(0.8, color="r", ls="--", lw=1, label="target 0.8x (move, session)")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("req/s over its echo floor (median of rounds)")
    ax.set_title(f"HTTP: gunicorn {http['worker_class']} {http['workers']}x{http['threads']}, "
                 f"{res.get('load_generator')}", fontsize=10)
    ax.legend(fontsize=7)


def _scale(ax: Any, res: dict[str, Any]) -> None:
    scale = res.get("scale")
    if not scale:
        ax.text(0.5, 0.5, "scale part skipped", ha="center")
        return
    ws = [s["workers"] for s in scale]
    ax.plot(ws, [s["echo_rps"] for s in scale], marker="o", label="echo (floor)")
    ax.plot(ws, [s["move_rps"] for s in scale], marker="s", label="/move femkort")
    for s in scale:
        ax.annotate(f"RSS {s['memory']['worker_rss_mib_max']:.0f} MiB", (s["workers"], s["move_rps"]),
                    fontsize=7, textcoords="offset points", xytext=(4, -12))
    ax.set_xticks(ws)
    ax.set_xlabel("gunicorn workers (gthread, 8 threads each)")
    ax.set_ylabel("req/s")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Scale: {scale[0]['connections']} connections", fontsize=10)
    ax.legend(fontsize=7)
