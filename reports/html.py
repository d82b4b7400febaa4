"""One self-contained report.html: figures embedded as base64 PNG, tables, findings."""
from __future__ import annotations

import base64
import html
import io

import polars as pl

from reports.figures import PROV

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}
.reading{color:#555;font-style:italic;margin:.2em 0 1em}.prov{color:#a05a00}
.findings li{margin:.3em 0}.meta{color:#555;font-size:.9em}img{max-width:100%}
"""


# marks the page once loaded with how many figures decoded ("6/6"): the rendering test reads it
_LOADED_SCRIPT = ("<script>window.addEventListener('load',function(){var i=Array.from(document.images);"
                  "document.body.dataset.imagesLoaded=i.filter(function(x){return x.complete&&x.naturalWidth>0})"
                  ".length+'/'+i.length;});</script>")


def fig_png(fig) -> bytes:
    buf = io.BytesIO()
    # the fastest zlib level: drawing dominates, and level 6 costs ~20% more time for ~10% smaller files
    fig.savefig(buf, format="png", dpi=110, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def rate_cell(row: dict, prefix: str = "") -> str:
    if row.get(f"{prefix}insufficient"):
        return "insufficient data"
    return (f"{pct(row[prefix + 'win_rate'])} ({pct(row[prefix + 'ci_low'])}&ndash;{pct(row[prefix + 'ci_high'])})")


def table(rows: list[dict], cols: list[tuple[str, str]]) -> str:
    """``cols``: (header, key) where key is a column, or 'rate' / 'rate:<prefix>' for a rate with interval."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h, _ in cols)
    body = []
    for r in rows:
        cells = []
        for _, k in cols:
            if k.startswith("rate"):
                cells.append(rate_cell(r, k.split(":")[1] if ":" in k else ""))
            elif k in ("name", "option") and r.get("provisional"):
                cells.append(f'{html.escape(str(r[k]))}<span class="prov">{PROV}</span>')
            else:
                v = r.get(k)
                if isinstance(v, float):
                    cells.append(f"{v:.3f}")
                elif isinstance(v, int):
                    cells.append(f"{v:,}")
                else:
                    cells.append(html.escape(str(v)))
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def page(title: str, meta: list[str], findings: str, sections: list[tuple[str, str]]) -> str:
    """The page: title, the run's first lines (``meta``), the findings block (HTML, rendered from the findings
    engine's rows by ``reports/report.py``), then the sections."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
             "<div class='meta'>" + "<br>".join(meta) + "</div>",
             f"<h2>Findings</h2>{findings}"]
    for head, body in sections:
        parts.append(f"<h2>{html.escape(head)}</h2>{body}")
    parts.append(f"<p class='meta'><span class='prov'>{PROV}</span> rests on provisional data: values not printed in "
                 f"our sources, designed to be replaced. Every rate is shown with its game count and a 95% Wilson "
                 f"interval.</p>{_LOADED_SCRIPT}</body></html>")
    return "".join(parts)


def section(fig_png_bytes: bytes, alt: str, reading: str, extra: str = "") -> str:
    return f"{_img(fig_png_bytes, alt)}<p class='reading'>{html.escape(reading)}</p>{extra}"


def rows(df: pl.DataFrame) -> list[dict]:
    return df.to_dicts()
