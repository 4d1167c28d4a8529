"""The results table (CSV and Markdown) and the plot of standings by round (matplotlib, when installed)."""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from .standings import TIE_BREAKS, Row

COLUMNS = ("rank", "bot", "points", "duplicate", "payoff", "buchholz", "matches", "byes", "forfeits")


def _cell(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def to_csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_cell(getattr(row, c)) for c in COLUMNS])
    return out.getvalue()


def to_markdown(rows: Sequence[Row], title: str, incidents: dict[str, dict[str, int]]) -> str:
    lines = [f"# {title}", "", f"Ordered by {', then '.join(TIE_BREAKS)} (docs/tournaments.md, \"Scoring\").", "",
             "| " + " | ".join(COLUMNS) + " | incidents |", "|" + "---|" * (len(COLUMNS) + 1)]
    for row in rows:
        counts = incidents.get(row.bot, {})
        noted = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-"
        lines.append("| " + " | ".join(_cell(getattr(row, c)) for c in COLUMNS) + f" | {noted} |")
    return "\n".join(lines) + "\n"


def plot(by_round: Sequence[Sequence[Row]], labels: Sequence[str], path: Path, title: str) -> bool:
    """Each bot's points after each round; False (nothing drawn) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    bots = sorted({r.bot for rows in by_round for r in rows})
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(labels) + 4), 4.5))
    xs = list(range(1, len(by_round) + 1))
    for bot in bots:
        ax.plot(xs, [next(r.points for r in rows if r.bot == bot) for rows in by_round], marker="o", label=bot)
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("points")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2 if len(bots) > 8 else 1, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
