"""Proof that the drift gate's statistical tier is sound (slow, opt-in: ``bash scripts/test -m slow``).

At the committed Colosseum baseline's budget (its deals, its settings), over 100 comparisons:

* **false-positive rate**: two independent runs of the same data (different seeds): the gate must flag a
  row in at most 5% of the comparisons (it is built for a family-wise error rate of 5% over every row);
* **power**: the same, with a controlled +1 percentage point shift injected into one character's win rate
  in the second run: the gate must flag that character in at least 80% of the comparisons.

Both use the *unpaired* statistics (the tier's conservative mode, used when the code changed every game);
a data change is tested paired on the same deals, whose errors are smaller, so its power is at least this.

The shift is injected in the records: every seat-game the character did not win becomes a win with
probability ``0.01 / (1 - p)`` (``p``: its win rate in the baseline), so its expected win rate rises by
exactly one point; the opponent of a flipped game loses it (the zero-sum consequence a real change has).

Cost: 100 comparisons of 2 x 2,000,000 deals would be 400 M games. Instead a pool of independent 50,000-deal
chunks (different seeds from the baseline's) is simulated once; each comparison draws two *disjoint* sets of
chunks of the baseline's size at random. Each comparison is then exactly a comparison of two independent runs
at the default budget; comparisons share chunks, so the 100 outcomes are not independent (the estimates are
unbiased, their spread somewhat wider than a binomial's). The measured figures are printed and in README.md.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pytest

from balance import drift, rows
from balance.runs import Prepared, RunSpec

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "reports" / "baselines" / "colosseum.json"
COMPARISONS = 100
POOL_CHUNKS = int(os.environ.get("DRIFT_SOUNDNESS_POOL", "400"))
SEED = 9_000_001  # a root seed that is not the baseline's
SHIFT = 0.01
_W: dict = {}


def _init(spec_dict, dims, target, q):
    _W["prep"] = Prepared(RunSpec(**spec_dict))
    _W["dims"], _W["target"], _W["q"] = dims, target, q


def _chunk(i: int, size: int):
    """Plain and shifted per-row sums of chunk ``i`` (deals i*size .. (i+1)*size-1 of the pool's seed)."""
    prep = _W["prep"]
    recs = prep.chunk(i * size, size)
    space = rows.RowSpace(prep.game.module.labels(prep.tables), recs.dtype.names, _W["dims"])
    plain = {d: rows.sums(*m) for d, m in space.dense([recs], size).items()}
    k = _W["target"]
    shifted = recs.copy()
    rng = np.random.default_rng([SEED, i])
    u = rng.random(size)
    for s in (0, 1):
        lost = (recs[f"char{s}"] == k) & (recs["winner"] != s)
        shifted["winner"][lost & (u < _W["q"])] = s
    shift = {d: rows.sums(*m) for d, m in space.dense([shifted], size).items()}
    return i, plain, shift, space.dims


def _total(parts):
    out = {}
    for p in parts:
        for d, s in p.items():
            if d not in out:
                out[d] = {k: v.astype(np.int64).copy() for k, v in s.items()}
            else:
                for k, v in s.items():
                    out[d][k] += v
    return out


@pytest.mark.slow
def test_statistical_tier_false_positive_rate_and_power():
    doc = json.loads(BASELINE.read_text())
    spec = RunSpec(**doc["spec"])
    spec = RunSpec(**{**doc["spec"], "seed": SEED})
    deals, size = doc["deals"], doc["chunk"]
    per_run = deals // size
    assert per_run * size == deals and 2 * per_run <= POOL_CHUNKS
    chars = {r["key"]: r for r in doc["summary"]["character"]}
    # the character nearest to 50% (the largest variance: the hardest row to detect a shift in)
    key = min(chars, key=lambda c: abs(chars[c]["win_rate"] - 0.5))
    prep = Prepared(spec)
    target = prep.tables.char_index(key)
    q = SHIFT / (1 - chars[key]["win_rate"])
    dims = list(doc["keys"])
    from balance.runs import default_workers

    from dataclasses import asdict

    with ProcessPoolExecutor(max_workers=default_workers(), mp_context=get_context("fork"), initializer=_init,
                             initargs=(asdict(spec), dims, target, q)) as ex:
        res = list(ex.map(_chunk, range(POOL_CHUNKS), [size] * POOL_CHUNKS))
    space_dims = res[0][3]
    plain = [r[1] for r in res]
    shifted = [r[2] for r in res]
    rng = np.random.default_rng(12345)
    false_pos, detected, shifts = 0, 0, []
    for _ in range(COMPARISONS):
        pick = rng.choice(POOL_CHUNKS, 2 * per_run, replace=False)
        a, b = pick[:per_run], pick[per_run:]
        old = _total(plain[i] for i in a)
        null = drift.compare(old, _total(plain[i] for i in b), space_dims, None, deals)
        false_pos += any(r.moved for r in null)
        alt = drift.compare(old, _total(shifted[i] for i in b), space_dims, None, deals)
        row = next(r for r in alt if r.dim == "character" and r.key == key)
        shifts.append(row.shift)
        detected += row.moved and row.shift > 0
    fpr, power = false_pos / COMPARISONS, detected / COMPARISONS
    print(f"\ndrift soundness (colosseum baseline budget {deals:,} deals, unpaired, {COMPARISONS} comparisons from "
          f"{POOL_CHUNKS} chunks of {size:,}): false-positive rate {fpr:.2%}, power for +1 pp on {key} "
          f"{power:.2%} (mean injected shift {100 * np.mean(shifts):+.3f} pp)")
    assert fpr <= 0.05
    assert power >= 0.80
    assert abs(np.mean(shifts) - SHIFT) < 0.002  # the injection is the shift it claims to be
