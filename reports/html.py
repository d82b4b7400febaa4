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
table.rows td:nth-child(2){text-align:left}table.rows td:not(:nth-child(2)){white-space:nowrap}.findings li{margin:.3em 0}.meta{color:#555;font-size:.9em}img{max-width:100%}
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


MISSING = "\u2014"  # an em dash: a cell with no value (never "nan", "None" or blank)
NO_GAMES = "no games"


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and x != x)


def pct(x, digits: int = 1) -> str:
    """A rate as a percentage (``0.1234`` -> ``12.3%``); a missing value (None, NaN) as a dash."""
    return MISSING if _missing(x) else f"{100 * x:.{digits}f}%"


def points(x, digits: int = 1) -> str:
    """A difference of two rates in percentage points, signed (``0.031`` -> ``+3.1 points``)."""
    return MISSING if _missing(x) else f"{100 * x:+.{digits}f} points"


def seat(s) -> str:
    """A seat as the replays name it: seat 0 is ``P1``."""
    return MISSING if _missing(s) else f"P{int(s) + 1}"


def count(n) -> str:
    return MISSING if _missing(n) else f"{int(n):,}"


def number(x, digits: int = 2) -> str:
    return MISSING if _missing(x) else f"{x:,.{digits}f}"


def rate_cell(row: dict, prefix: str = "") -> str:
    """A rate with its 95% interval; ``no games`` when the rate has no games (its value is missing), ``insufficient
    data`` when it has fewer than ``aggregate.MIN_GAMES``."""
    if _missing(row.get(prefix + "win_rate")):
        return NO_GAMES
    if row.get(f"{prefix}insufficient"):
        return "insufficient data"
    return (f"{pct(row[prefix + 'win_rate'])} ({pct(row[prefix + 'ci_low'])}&ndash;{pct(row[prefix + 'ci_high'])})")


# how a cell is written: table(..., cols=[(header, key, fmt)]); without a fmt, :func:`infer` picks one by key and value
FORMATS = {"pct": pct, "points": points, "seat": seat, "count": count, "number": number,
           "number1": lambda x: number(x, 1), "number0": lambda x: number(x, 0),
           "yes/no": lambda b: MISSING if b is None else ("yes" if b else "no")}
RATE_WORDS = ("rate", "share", "weight", "exact_", "sim_")
POINT_WORDS = ("difference", "improvement")


def infer(key: str, value) -> str | None:
    """The format of a cell by its column and value: a ``seat`` is named P1.., integers are counts, a float whose
    key names a rate or share (``play_rate``, ``exact_hit``) a percentage, a difference of rates (``difference``,
    ``improvement_*``) signed points, any other float a number with 2 decimals."""
    if key == "seat" or key.endswith("_seat"):
        return "seat"
    if isinstance(value, bool):
        return "yes/no"
    if isinstance(value, int):
        return "count"
    if isinstance(value, float) or value is None:
        if any(w in key for w in POINT_WORDS):
            return "points"
        if any(w in key for w in RATE_WORDS):
            return "pct"
        return "number"
    return None


def cell(value, key: str = "", fmt: str | None = None) -> str:
    """One cell's text (escaped): ``fmt`` from :data:`FORMATS` or inferred (:func:`infer`); a missing value, an
    empty string or a NaN is a dash."""
    fmt = fmt or infer(key, value)
    if fmt is not None and fmt in FORMATS:
        return FORMATS[fmt](value)
    if _missing(value) or value == "":
        return MISSING
    return html.escape(str(value))


def table(rows: list[dict], cols: list[tuple]) -> str:
    """``cols``: (header, key) or (header, key, fmt), where key is a column, or 'rate' / 'rate:<prefix>' for a rate
    with its interval. Rates are written as percentages, counts with thousands separators, seats as P1..,
    and a missing value as a dash (:func:`cell`): never "nan", "None" or a blank cell."""
    head = "".join(f"<th>{html.escape(c[0])}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            k, fmt = c[1], (c[2] if len(c) > 2 else None)
            if k.startswith("rate"):
                cells.append(rate_cell(r, k.split(":")[1] if ":" in k else ""))
            elif k in ("name", "option") and r.get("provisional"):
                cells.append(f'{cell(r.get(k), k, fmt)}<span class="prov">{PROV}</span>')
            else:
                cells.append(cell(r.get(k), k, fmt))
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
