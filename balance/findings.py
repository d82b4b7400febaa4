"""The findings engine: which rows of a report, of ``compare`` or of CI are claims, and how sure each is.

A designer acts on the findings at the top of a report, so a finding is a claim that has to survive four
checks, each of which a review found missing before:

* **the right reference.** Every tested row carries the value it would have if nothing were imbalanced:
  the fair share of a seat, character or strategy in a k-player game (its own decisive games / k), half the
  decisive games of a matchup, the restricted arm for a card. Never a hard-coded 50%.
* **multiplicity.** Every row the report tests is one family: Holm's step-down procedure holds the chance
  of *any* false finding at ``alpha`` (5%) whatever the dependence between rows (complementary seats,
  matchups that share a character). So on a game where nothing differs, at most 5% of reports list one.
* **a minimum effect.** Statistical clarity is not importance: with millions of games a 0.1-point edge is
  clear and irrelevant. A finding also needs its (shrunk, see below) effect to reach ``min_effect``
  (``--min-effect``, default 2 points). Rows whose whole interval lies within +-``min_effect`` of the
  reference are *settled* (an equivalence test: two one-sided tests, Holm over the rows too), so a
  designer sees what is known to be fine, not only what is wrong.
* **no winner's curse.** Listing the largest of many noisy gaps inflates them. Within a dimension the
  effects are shrunk towards zero by an empirical-Bayes normal model (Efron & Morris 1975): the spread of
  the true effects is estimated from the rows themselves (method of moments), each row keeps the share of
  its estimate that the spread explains, and its interval is the posterior's with Morris's correction for
  the estimated spread. When the rows scatter no more than their noise (identical characters), every
  effect shrinks to ~0 and nothing reaches the minimum effect.

Each row states its kind of evidence: ``causal`` (the dimension was assigned at random: dealt characters,
seats, strategies rotated over seats, restricted play), ``correlational`` (chosen by the strategies or
observed in play: a card "when played", a drafted character) or ``descriptive`` (a summary that claims no
effect). Rows are :class:`Test` objects built by the caller (``reports/evidence.py`` for runs, the drift
gate for CI); :func:`assess` turns them into :class:`Finding` objects, which ``summary.json`` stores and
the report renders.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from balance import stats

DEFAULT_MIN_EFFECT = 0.02  # 2 points: a designer's "worth acting on" (--min-effect)
DEFAULT_ALPHA = 0.05  # family-wise error rate over every row a report tests
EVIDENCE = ("causal", "correlational", "descriptive")
VERDICTS = ("difference", "settled", "undecided")  # a finding, balanced within the margin, not decided
METHOD = "Holm"


@dataclass
class Test:
    """One row put to the test: an estimate, its reference and the standard error of their difference.

    ``se`` is the error of ``estimate - reference`` (cluster-robust where games are clustered; including the
    reference's own error where it is estimated, e.g. a restricted arm). ``p``: a p-value computed by the
    caller for tests that are not a normal z of the difference (e.g. the meta-game's dominance test); else
    the two-sided normal p of ``(estimate - reference) / se``. ``shrink``: whether the row joins its
    dimension's empirical-Bayes shrinkage (a dimension of one or two rows is never shrunk)."""

    __test__ = False  # not a pytest test class, whatever its name

    dimension: str
    keys: tuple
    label: str
    n: int
    estimate: float
    reference: float
    se: float
    evidence: str
    provisional: bool = False
    reference_kind: str = ""
    why: str = ""  # the evidence's reason, in words ("characters dealt at random")
    p: float | None = None
    shrink: bool = True
    effect_ok: bool = False  # another scale the caller judged large enough (the drift gate's odds ratio)
    unit: str = "rate"  # "rate": estimate/reference are rates; "value": a difference in points (cards)
    extra: dict = field(default_factory=dict)  # dimension-specific figures for the sentence (wins, games, ...)

    def __post_init__(self):
        if self.evidence not in EVIDENCE:
            raise ValueError(f"evidence must be one of {EVIDENCE}, got {self.evidence!r}")
        self.keys = tuple(str(k) for k in self.keys)


@dataclass
class Finding:
    """A tested row with its verdict, as ``summary.json`` stores it.

    ``estimate``/``ci_low``/``ci_high``: the row's value after shrinkage, with its 95% interval;
    ``raw_*``: the same before shrinkage (what the tables show); ``effect`` = ``estimate - reference``;
    ``p_adjusted``: Holm-adjusted p of "no difference from the reference"; ``p_settled``: Holm-adjusted p of
    the equivalence test "differs by at least ``min_effect``"; ``verdict``: ``difference`` (a finding: clear
    after Holm and at least ``min_effect``), ``settled`` (within +-``min_effect``) or ``undecided``."""

    dimension: str
    keys: list
    label: str
    estimate: float
    ci_low: float
    ci_high: float
    reference: float
    effect: float
    p_adjusted: float
    n: int
    evidence: str
    provisional: bool
    verdict: str
    raw_estimate: float
    raw_ci_low: float
    raw_ci_high: float
    raw_effect: float
    se: float
    p: float
    p_settled: float
    reference_kind: str
    why: str
    unit: str
    shrinkage: float  # the share of the raw effect kept (1: none)
    text: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = asdict(self)
        for k, v in out.items():
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
        return out


@dataclass
class Assessment:
    """Every tested row's :class:`Finding`, the settings they were judged by, and the rows in each verdict."""

    findings: list
    min_effect: float
    alpha: float
    method: str = METHOD
    tested: int = 0

    @property
    def differences(self) -> list:
        """The findings proper, largest shrunk effect first."""
        return sorted((f for f in self.findings if f.verdict == "difference"), key=lambda f: -abs(f.effect))

    @property
    def settled(self) -> list:
        return [f for f in self.findings if f.verdict == "settled"]

    @property
    def undecided(self) -> list:
        return [f for f in self.findings if f.verdict == "undecided"]

    def of(self, dimension: str) -> list:
        return [f for f in self.findings if f.dimension == dimension]

    def to_json(self) -> dict:
        return {"method": self.method, "alpha": self.alpha, "min_effect": self.min_effect, "tested": self.tested,
                "rows": [f.to_json() for f in self.findings]}


# ----------------------------------------------------------------------------- statistics
def eb_shrink(effect, se) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empirical-Bayes shrinkage of ``effect`` (true effects ~ N(0, tau^2), estimates ~ N(true, se^2)).

    Returns ``(shrunk, posterior sd, kept share)``. ``tau^2`` by the method of moments,
    ``max(0, mean(effect^2 - se^2))``; each row keeps ``B_i = tau^2 / (tau^2 + se_i^2)`` of its effect; the
    posterior variance ``B_i se_i^2`` gets Morris's (1983) term ``2 / (m - 2) (1 - B_i)^2 effect_i^2`` for the
    estimated ``tau^2``. Fewer than three rows (or non-finite errors) are returned unshrunk."""
    e = np.asarray(effect, dtype=np.float64)
    s = np.asarray(se, dtype=np.float64)
    m = e.size
    ok = np.isfinite(e) & np.isfinite(s) & (s > 0)
    if m < 3 or ok.sum() < 3:
        return e.copy(), s.copy(), np.ones(m)
    tau2 = max(0.0, float(np.mean(e[ok] ** 2 - s[ok] ** 2)))
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.where(ok, tau2 / (tau2 + s ** 2), 1.0)
    shrunk = keep * e
    k = int(ok.sum())
    var = keep * s ** 2 + (2.0 / max(k - 2, 1)) * (1 - keep) ** 2 * e ** 2
    post = np.where(ok, np.sqrt(var), s)
    return shrunk, post, keep


def equivalence_p(effect, se, margin: float) -> np.ndarray:
    """p-value of the two one-sided tests (TOST) of "|true effect| >= margin": the larger of the two
    one-sided p's. Small means the row is settled within +-``margin``."""
    e = np.asarray(effect, dtype=np.float64)
    s = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = stats.norm_sf((e + margin) / s)  # H0: effect <= -margin
        hi = stats.norm_sf((margin - e) / s)  # H0: effect >= +margin
    p = np.maximum(lo, hi)
    return np.where(s > 0, p, np.where(np.abs(e) < margin, 0.0, 1.0))


def games_to_settle(n: int, se: float, margin: float, alpha: float = DEFAULT_ALPHA) -> int:
    """Roughly how many games (at this row's share of them) an exactly fair row needs before its
    equivalence test can settle it at ``margin``: the standard error must fall to ``margin / z``."""
    if not (se > 0 and n > 0):
        return 0
    z = stats.norm_ppf(1 - alpha)
    return int(math.ceil(n * (z * se / margin) ** 2))


def assess(tests: list[Test], min_effect: float = DEFAULT_MIN_EFFECT, alpha: float = DEFAULT_ALPHA,
           text=None) -> Assessment:
    """Judge ``tests`` as one family: Holm over every row, shrinkage within each dimension, the minimum
    effect, the equivalence test. A row is a ``difference`` when its Holm-adjusted p is at most ``alpha`` and
    its (shrunk) effect reaches ``min_effect`` or the caller judged it large on another scale
    (``Test.effect_ok``). The drift gate uses the same decision with no shrinkage (``shrink=False``: one
    changed row among many unchanged ones must not be shrunk away) and its ``--ignore-below`` as the minimum
    effect. ``text(finding) -> str`` writes each finding's sentence (see ``reports/evidence.py``); without it
    :func:`sentence` does."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie between 0 and 1, got {alpha}")
    if not 0 <= min_effect < 1:
        raise ValueError(f"min_effect must lie in [0, 1) (a fraction: 0.02 is 2 points), got {min_effect}")
    m = len(tests)
    if m == 0:
        return Assessment([], min_effect, alpha)
    raw = np.array([t.estimate - t.reference for t in tests], dtype=np.float64)
    se = np.array([t.se for t in tests], dtype=np.float64)
    p = np.array([t.p if t.p is not None else float(stats.two_sided_p(r, s)) for t, r, s in zip(tests, raw, se)])
    p = np.where(np.isfinite(p), p, 1.0)
    _, p_adj = stats.holm(p, alpha)
    peq = equivalence_p(raw, se, min_effect)
    peq = np.where(np.isfinite(peq), peq, 1.0)
    # only rows with a normal error can be settled (a row tested by its own p has no interval to settle)
    peq = np.where([t.p is None for t in tests], peq, 1.0)
    _, peq_adj = stats.holm(peq, alpha)
    shrunk, post, keep = raw.copy(), se.copy(), np.ones(m)
    dims: dict[str, list[int]] = {}
    for i, t in enumerate(tests):
        if t.shrink:
            dims.setdefault(t.dimension, []).append(i)
    for idx in dims.values():
        a, b, c = eb_shrink(raw[idx], se[idx])
        shrunk[idx], post[idx], keep[idx] = a, b, c
    z = stats.Z95
    out = []
    for i, t in enumerate(tests):
        # a finding: clear after Holm, large enough, and its shrunk interval clear of the reference too (a row
        # shrunk hard, because its dimension scatters little beyond noise, keeps a wide posterior interval)
        if p_adj[i] <= alpha and (abs(shrunk[i]) >= min_effect or t.effect_ok) and abs(shrunk[i]) > z * post[i]:
            verdict = "difference"
        elif peq_adj[i] <= alpha:
            verdict = "settled"
        else:
            verdict = "undecided"
        f = Finding(
            dimension=t.dimension, keys=list(t.keys), label=t.label, estimate=float(t.reference + shrunk[i]),
            ci_low=float(t.reference + shrunk[i] - z * post[i]), ci_high=float(t.reference + shrunk[i] + z * post[i]),
            reference=float(t.reference), effect=float(shrunk[i]), p_adjusted=float(p_adj[i]), n=int(t.n),
            evidence=t.evidence, provisional=bool(t.provisional), verdict=verdict, raw_estimate=float(t.estimate),
            raw_ci_low=float(t.estimate - z * se[i]), raw_ci_high=float(t.estimate + z * se[i]),
            raw_effect=float(raw[i]), se=float(se[i]), p=float(p[i]), p_settled=float(peq_adj[i]),
            reference_kind=t.reference_kind, why=t.why, unit=t.unit, shrinkage=float(keep[i]), extra=dict(t.extra))
        f.text = (text or sentence)(f)
        out.append(f)
    return Assessment(out, min_effect, alpha, METHOD, m)


# ----------------------------------------------------------------------------- words
def points(x: float, sign: bool = True) -> str:
    """A difference of rates in percentage points: '+6.1 points'."""
    return f"{100 * x:+.1f} points" if sign else f"{100 * x:.1f} points"


def pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.{digits}f}%"


def sentence(f: Finding) -> str:
    """A plain sentence for any finding (reports/evidence.py has the per-dimension wording)."""
    dag = "\u2020" if f.provisional else ""
    return (f"{f.label}{dag}: {pct(f.estimate)} ({pct(f.ci_low)}-{pct(f.ci_high)}) against "
            f"{f.reference_kind or 'a reference of'} {pct(f.reference)}: {points(f.effect)} ({f.evidence}).")
