"""The findings engine's null target, measured (slow, opt-in: ``bash scripts/test -m slow tests/test_findings_null.py``).

A Colosseum data folder whose six characters are identical copies of one character: any character or matchup
finding is false, and so is a meta-game finding between options that differ only in their character (the four
Overdrives stay distinct). Whole reports (``reports.report.build``, the same code a user runs) of 120
runs: random and greedy play (mirror strategies), 20 seeds each, at 2,000, 20,000 and 200,000 games. At most
5% of the reports may carry such a finding, at every run size. The measured rate is printed and stated in the
README ("Reading a report") and docs/statistics.md.
"""
from __future__ import annotations

import pytest

from balance.runs import RunSpec, run
from reports.report import build
from tests.null_data import twin_colosseum

SIZES = (2_000, 20_000, 200_000)
SEEDS = range(101, 121)


def is_false(f: dict) -> bool:
    """A finding the twins cannot support: any character or matchup finding, and a meta-game finding between
    options that differ only in their character (the Overdrives are distinct, and may really differ)."""
    if f["dimension"] in ("character", "matchup"):
        return True
    if f["dimension"] == "meta_game":
        od = f["label"].split(" strictly dominated by ")[0].split(" + ")[-1]
        return f["extra"].get("dominator", "").split(" + ")[-1] == od
    return False


@pytest.mark.slow
def test_twin_reports_carry_a_false_finding_in_at_most_5_percent(tmp_path):
    data = twin_colosseum(tmp_path / "twins")
    counts = {}
    examples = []
    for n in SIZES:
        for strategy in ("random", "greedy"):
            for seed in SEEDS:
                d = tmp_path / f"{strategy}-{n}-{seed}"
                run(d, RunSpec(game="colosseum", games=n, seed=seed, strategies=[strategy], data_dir=str(data),
                               chunk_size=max(n // 2, 1000)), workers=2)
                s = build(d)
                false = [f for f in s["findings"] if is_false(f)]
                reports, hit = counts.get(n, (0, 0))
                counts[n] = (reports + 1, hit + bool(false))
                examples += [f"{strategy} {n:,} seed {seed}: {f['text']}" for f in false[:1]]
    total = sum(r for r, _ in counts.values())
    hits = sum(h for _, h in counts.values())
    print(f"\ntwin Colosseum characters: {hits} of {total} reports carry a character, matchup or meta-game "
          f"finding (" + ", ".join(f"{n:,} games: {h} of {r}" for n, (r, h) in counts.items()) + ")")
    for e in examples:
        print("  " + e)
    for n, (r, h) in counts.items():
        assert h <= 0.05 * r, f"{n:,} games: {h} of {r} reports carry a false finding"
