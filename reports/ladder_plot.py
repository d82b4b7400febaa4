"""The ladder's figure: each strategy's rating with its 95% interval, strongest on top (``balance ladder
--figure``)."""
from __future__ import annotations

from pathlib import Path


def draw(ladder: dict, path) -> Path:
    """Draw ``ladder`` (``balance.ladder.Ladder.to_json()``) as a PNG at ``path``; return the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(reversed(ladder["ratings"]))  # strongest on top
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(rows) + 1.2))
    y = range(len(rows))
    r = [x["rating"] for x in rows]
    ax.errorbar(r, y, xerr=[[x["rating"] - x["ci_low"] for x in rows], [x["ci_high"] - x["rating"] for x in rows]],
                fmt="o", capsize=4)
    ax.set_yticks(list(y), [x["strategy"] for x in rows])
    ax.axvline(0, color="0.8", lw=1, zorder=0)
    ax.set_xlabel(f"rating, {ladder['scale']}; {ladder['anchor']} = 0 (95% intervals)")
    ax.set_title(f"{ladder['game']}: strategy ladder")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
