"""The skill-tier page (``balance skill``): every finding with its estimate at each tier and where it holds."""
from __future__ import annotations

import html as _html
import json
from pathlib import Path

from reports import html


def write(result: dict, out: Path) -> Path:
    """Write ``skill.html`` (and ``skill.json``, ``ladder.png``) into ``out`` from ``result``
    (``balance.api.skill``); return the page's path."""
    from reports.ladder_plot import draw

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "skill.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    tiers = result["tiers"]
    esc = _html.escape
    lad = result["ladder"]
    span = result["depth"]
    meta = [f"Game: {esc(result['game'])}; tiers, weakest first: {esc(', '.join(tiers))}; "
            f"{result['games']:,} games a tier on the same deals (seed {result['seed']}); each tier is judged by "
            f"the findings engine (Holm over every row, minimum effect {100 * result['min_effect']:g} points)",
            f"Skill depth: the ladder's rating span from {esc(span['weakest'])} to {esc(span['strongest'])} is "
            f"{span['span']:.0f} Elo points; it tells {span['levels']} levels apart ({esc(' < '.join(lad['levels']))})",
            "Per tier report: " + ", ".join(f"<a href='{esc(t)}/report/report.html'>{esc(t)}</a>" for t in tiers)]
    n = result["counts"]
    findings = ("<ul class='findings'>" + "".join(
        f"<li>{n[c]} row{'s' * (n[c] != 1)}: {esc(c)}</li>" for c in n if c != "none" and n[c]) +
        ("" if any(n[c] for c in n if c != "none") else "<li>No finding at any tier.</li>") + "</ul>")
    rows = [r for r in result["rows"] if r["holds"] != "none"]
    head = "".join(f"<th>{esc(t)} (95% CI)</th>" for t in tiers)
    body = []
    for r in rows:
        cells = []
        for t in tiers:
            p = r["tiers"].get(t)
            cells.append("<td>not tested</td>" if p is None else
                         f"<td>{html.pct(p['estimate'])} ({html.pct(p['ci_low'])}-{html.pct(p['ci_high'])})"
                         f"{' *' if p['verdict'] == 'difference' else ''}</td>")
        dag = "<span class=prov>&dagger;</span>" if r["provisional"] else ""
        body.append(f"<tr><td>{esc(r['dimension'])}</td><td>{esc(r['label'])}{dag}</td>{''.join(cells)}"
                    f"<td>{esc(r['holds'])}</td><td>{esc(r.get('evidence') or '')}</td></tr>")
    table = ("<table class='rows'><tr><th>dimension</th><th>row</th>" + head + "<th>holds</th><th>evidence</th></tr>"
             + "".join(body) + "</table><p class='reading'>* a finding at that tier (clear after Holm and at least "
             "the minimum effect, against the row's own fair reference).</p>")
    png = draw(lad, out / "ladder.png").read_bytes()
    sections = [("Findings by tier", table), ("The tiers' ladder", html._img(png, "strategy ladder"))]
    meta_game = result.get("meta_game")
    if meta_game:
        sections.append(("Meta-game at the strongest tier",
                         f"<p>See the <a href='{esc(tiers[-1])}/report/report.html'>{esc(tiers[-1])} report</a>'s "
                         "meta-game section: it is computed from that tier's games.</p>"))
    page = html.page(f"Verdicts by skill tier: {result['game']}", meta, findings, sections)
    path = out / "skill.html"
    path.write_text(page, encoding="utf-8")
    return path
