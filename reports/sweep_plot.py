"""Figures of a what-if sweep (``balance sweep``): they only draw the frame ``balance.sweep`` computed."""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

TITLES = {"meta": "meta-weighted win rate", "character": "character win rate", "overdrive": "Overdrive win rate",
          "seat": "seat win rate", "turn_order": "turn order win rate", "card": "card win rate (when played)",
          "matchup": "matchup win rate", "health": "draw / timeout rate"}
MAX_LINES = 14  # more rows than this in one panel: the ones that move most with the parameter


def sweep_figure(frame, key: str, current: int, held: dict, deals: int, seat_orders: int):
    """One panel per tracked dimension: each row's win rate (95% Wilson interval) against the values of
    ``key``; the current value is marked. ``frame`` holds one grid line (the other parameters ``held``)."""
    dims = list(dict.fromkeys(frame["dimension"].to_list()))
    fig, axes = plt.subplots(len(dims), 1, figsize=(8, 3.2 * len(dims) + 0.6), squeeze=False)
    for ax, d in zip(axes[:, 0], dims):
        sub = frame.filter(frame["dimension"] == d).sort(key)
        groups = {}
        for r in sub.iter_rows(named=True):
            groups.setdefault((r["key"], r["name"], r["provisional"]), []).append(r)
        spread = {g: max(x["win_rate"] for x in v) - min(x["win_rate"] for x in v) for g, v in groups.items()}
        show = sorted(groups, key=lambda g: -spread[g])[:MAX_LINES]
        for g in sorted(show, key=lambda g: g[1]):
            v = groups[g]
            x = np.array([r[key] for r in v], float)
            y = np.array([r["win_rate"] for r in v])
            lo = np.array([r["ci_low"] for r in v])
            hi = np.array([r["ci_high"] for r in v])
            ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], marker="o", ms=3, capsize=2,
                        lw=1, label=g[1] + ("\u2020" if g[2] else ""))
        ax.axvline(current, color="grey", lw=0.8, ls=":")
        ax.axhline(0.5, color="grey", lw=0.6, ls="--")
        n = sub["games"].min() if len(sub) else 0
        extra = f" ({len(groups) - len(show)} steadier rows not drawn)" if len(groups) > len(show) else ""
        ax.set_title(f"{TITLES.get(d, d)}; fewest games in a point: {n:,}{extra}", fontsize=9)
        ax.set_ylabel("win rate (95% CI)")
        ax.legend(fontsize=7, ncol=2, loc="best")
    axes[-1, 0].set_xlabel(f"{key} (dotted: current value {current})")
    hold = ", ".join(f"{k}={v}" for k, v in held.items())
    fig.suptitle(f"sweep of {key}: {deals:,} deals per point, {'both seat orders' if seat_orders == 2 else 'one seat order'}"
                 f", the same deals at every point" + (f"; held: {hold}" if hold else ""), fontsize=9)
    fig.reading = (f"Each line is one tracked row's win rate as {key} changes; every point plays the same deals, so "
                   f"differences between points are the parameter's effect plus little noise.")
    fig.tight_layout()
    return fig


def close(fig) -> None:
    plt.close(fig)


def write_outputs(res, out_dir: Path) -> list[Path]:
    """``sweep.csv`` and one figure per parameter (``sweep_KEY.png``) in ``out_dir`` (here, not in
    ``balance.sweep``: the analyses compute, the reports draw)."""
    from balance.sweep import result_frame

    out_dir.mkdir(parents=True, exist_ok=True)
    frame = result_frame(res)
    paths = [out_dir / "sweep.csv"]
    frame.write_csv(paths[0])
    for k, values, cur in res.params:
        # the other parameters held at their current value when it is on the grid, else at their first value
        hold = {o: (c if c in v else v[0]) for o, v, c in res.params if o != k}
        sel = frame
        for o, x in hold.items():
            sel = sel.filter(sel[o] == x)
        fig = sweep_figure(sel, k, cur, hold, res.deals, res.seat_orders)
        p = out_dir / f"sweep_{re.sub(r'[^A-Za-z0-9_.-]+', '_', k)}.png"
        fig.savefig(p, dpi=110)
        close(fig)
        paths.append(p)
    return paths
