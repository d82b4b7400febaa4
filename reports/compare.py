"""The page of ``balance compare --out DIR``: two runs side by side, as a report's page reads (findings first,
then every tested row with both rates and the shift's interval), plus ``comparison.json`` and ``rows.csv``."""
from __future__ import annotations

import html as _html
import json
from pathlib import Path

import polars as pl

from balance import compare as cmp
from balance import drift
from reports import html


def write(c: cmp.Comparison, out: Path) -> Path:
    """Write ``compare.html``, ``comparison.json`` and ``rows.csv`` into ``out``; return the page's path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc = cmp.comparison_json(c)
    (out / "comparison.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    keep = ("dimension", "label", "keys", "reference", "estimate", "effect", "effect_ci_low", "effect_ci_high",
            "p_adjusted", "finding", "tested", "n", "provisional")
    pl.DataFrame([{k: (";".join(r[k]) if k == "keys" else r.get(k)) for k in keep} for r in doc["rows"]],
                 infer_schema_length=None).write_csv(out / "rows.csv")
    esc = _html.escape
    meta = [f"A: {esc(cmp.describe(c.a))}", f"B: {esc(cmp.describe(c.b))}",
            (f"Paired on the same deals: the first {c.games[0]:,} games of each run ({c.clusters[0]:,} deals)"
             if c.paired else f"Independent samples ({esc(c.why_unpaired)}): the two runs' errors add")]
    tested = [r for r in c.rows if r.tested]
    found = sorted(c.findings, key=lambda r: -abs(r.shift))
    block = (f"<p class='meta'>{len(tested)} rows tested (Holm, family-wise error {100 * c.rule.fwer:g}% over all of "
             f"them; a finding is a clear shift of at least {100 * c.rule.ignore_below:g} points, usage and health "
             f"rows also by their odds).</p><ul class='findings'>"
             + ("".join(f"<li>{esc(cmp.sentence(r))}</li>" for r in found) or
                "<li>No finding: no row shifted by the minimum effect with confidence.</li>") + "</ul>")
    if c.changes:
        block += ("<p><b>Rows in one run only</b> (not compared): "
                  + esc("; ".join(f"{drift._title(d)} {n} ({w})" for d, _, n, w in c.changes)) + ".</p>")
    body = "".join(
        f"<tr><td>{esc(drift._title(r.dim))}</td><td>{esc(r.name)}{'<span class=prov>&dagger;</span>' if r.provisional else ''}"
        f"</td><td>{esc(drift._rate_ci(*r.old))}</td><td>{esc(drift._rate_ci(*r.new))}</td>"
        f"<td>{100 * r.shift:+.2f} ({100 * (r.shift - 1.96 * r.se):+.2f} to {100 * (r.shift + 1.96 * r.se):+.2f})</td>"
        f"<td>{r.p_holm:.2g}</td><td>{'finding' if r.moved else ''}</td></tr>"
        for r in sorted(tested, key=lambda r: (not r.moved, r.dim, -abs(r.shift))))
    table = ("<table class='rows'><tr><th>dimension</th><th>row</th><th>A (95% CI)</th><th>B (95% CI)</th>"
             "<th>shift, points (95% CI)</th><th>p (Holm)</th><th></th></tr>" + body + "</table>")
    page = html.page(f"Comparison: {c.a.spec.game}", meta, block, [("Every tested row", table)])
    path = out / "compare.html"
    path.write_text(page, encoding="utf-8")
    return path
