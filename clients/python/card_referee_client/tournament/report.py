"""The plot of the standings by round (matplotlib, the package's ``plot`` extra). The tables are in standings.py."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .standings import Row

MISSING = "standings.png not drawn: matplotlib is not installed (pip install 'card-referee-client[plot]')"


def plot(by_round: Sequence[Sequence[Row]], labels: Sequence[str], path: Path, title: str) -> bool:
    """Each bot's points after each round, the legend in the order of the final standings; False (nothing
    drawn) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ranked = [r.bot for r in by_round[-1]] if by_round else []
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(labels) + 4), 4.5))
    xs = list(range(1, len(by_round) + 1))
    for rank, bot in enumerate(ranked, start=1):
        ax.plot(xs, [next(r.points for r in rows if r.bot == bot) for rows in by_round], marker="o",
                label=f"{rank}. {bot}")
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("points")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2 if len(ranked) > 8 else 1, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
