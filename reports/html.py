"""One self-contained report.html: figures embedded as base64 PNG, tables, findings."""
from __future__ import annotations

import base64
import html
import io
import json

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
th.sort{cursor:pointer;user-select:none}th.sort:hover{background:#e8e8e8}
th[aria-sort=ascending]::after{content:' \25B2'}th[aria-sort=descending]::after{content:' \25BC'}
.tools{font-size:.8em;color:#555;margin:.8em 0 0}.tools a{margin-left:.6em}
.tools input{font-size:1em;padding:1px 4px;margin-right:.6em;width:14em}
"""


# marks the page once loaded with how many figures decoded ("6/6"): the rendering test reads it
_LOADED_SCRIPT = ("<script>window.addEventListener('load',function(){var i=Array.from(document.images);"
                  "document.body.dataset.imagesLoaded=i.filter(function(x){return x.complete&&x.naturalWidth>0})"
                  ".length+'/'+i.length;});</script>")

FILTER_MIN_ROWS = 6  # a table of fewer rows gets no filter box (its rows fit on a screen)
# Sortable, filterable tables, inline: the page stays one file that works offline (no library, no network).
# A click on a header (or Enter on it) sorts by that column: by number when every filled cell of the column starts
# with one ("53.0% (52.6%-53.4%)", "+3.0", "1,234", "< 1e-300"), numbers first largest, else as text in natural
# order ("P2" before "P10"); a second click reverses. Cells without a value ("—", "no games", "insufficient
# data", "not tested", "n/a") stay last either way. A table of FILTER_MIN_ROWS rows or more gets a filter box:
# a row stays when it contains every word typed. A table with data-csv links its CSV (tables/NAME.csv).
# body[data-tables] counts the tables it set up (the table tests read it).
_TABLE_SCRIPT = r"""<script>(function(){
var NONE=/^(\u2014|-|no games|insufficient data|not tested|n\/a|)$/i,
NUM=/^[<>]?\s*([+-]?[\d,]*\.?\d+(?:e[+-]?\d+)?)/i,each=function(a,f){Array.prototype.forEach.call(a,f);};
function val(c){if(!c)return null;var s=c.textContent.replace(/\u2212/g,'-').replace(/\u2020/g,'').trim();
if(NONE.test(s))return null;var m=NUM.exec(s);return{s:s,n:m?parseFloat(m[1].replace(/,/g,'')):null};}
function setup(t){var h=t.tHead?t.tHead.rows[0]:t.rows[0];if(!h||!h.cells.length)return 0;
for(var i=0;i<h.cells.length;i++)if(h.cells[i].tagName!=='TH')return 0;
var rows=Array.prototype.filter.call(t.rows,function(r){return r!==h&&r.parentNode.tagName!=='THEAD';});
each(h.cells,function(th,col){th.className+=' sort';th.tabIndex=0;th.title='sort by this column';
function go(){var v=rows.map(function(r){return val(r.cells[col]);}),
num=v.every(function(x){return x===null||x.n!==null;}),d=th.getAttribute('aria-sort');
d=d?(d==='ascending'?'descending':'ascending'):(num?'descending':'ascending');
each(h.cells,function(x){x.removeAttribute('aria-sort');});th.setAttribute('aria-sort',d);
var idx=rows.map(function(r,i){return i;});
idx.sort(function(a,b){var x=v[a],y=v[b];if(x===null||y===null)return x===y?0:(x===null?1:-1);
var c=num?x.n-y.n:x.s.localeCompare(y.s,undefined,{numeric:true,sensitivity:'base'});return d==='ascending'?c:-c;});
idx.forEach(function(i){rows[i].parentNode.appendChild(rows[i]);});}
th.addEventListener('click',go);th.addEventListener('keydown',function(e){if(e.key==='Enter')go();});});
var bar=document.createElement('div'),csv=t.getAttribute('data-csv');bar.className='tools';
if(rows.length>=FMIN){var f=document.createElement('input'),n=document.createElement('span');
f.type='search';f.placeholder='filter rows';f.setAttribute('aria-label','filter the rows of this table');
n.textContent=rows.length+' rows';
f.addEventListener('input',function(){var w=f.value.toLowerCase().split(/\s+/).filter(Boolean),k=0;
rows.forEach(function(r){var s=r.textContent.toLowerCase(),ok=w.every(function(x){return s.indexOf(x)>=0;});
r.hidden=!ok;if(ok)k++;});n.textContent=(w.length?k+' of ':'')+rows.length+' rows';});
bar.appendChild(f);bar.appendChild(n);}
if(csv){var a=document.createElement('a');a.href='tables/'+csv+'.csv';a.textContent=csv+'.csv';bar.appendChild(a);}
if(bar.childNodes.length)t.parentNode.insertBefore(bar,t);return 1;}
var k=0;each(document.querySelectorAll('table'),function(t){k+=setup(t);});
document.body.dataset.tables=k;})();</script>""".replace("FMIN", str(FILTER_MIN_ROWS))


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


def table(rows: list[dict], cols: list[tuple], csv: str | None = None) -> str:
    """``cols``: (header, key) or (header, key, fmt), where key is a column, or 'rate' / 'rate:<prefix>' for a rate
    with its interval. Rates are written as percentages, counts with thousands separators, seats as P1..,
    and a missing value as a dash (:func:`cell`): never "nan", "None" or a blank cell. ``csv``: the name of the
    table's CSV in ``tables/`` (the page links it; a test checks every table names one that exists)."""
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
    return with_csv(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>", csv)


def with_csv(markup: str, *names: str | None) -> str:
    """``markup`` with its tables (those not naming a CSV yet) naming theirs, in order: the i-th gets ``names[i]``
    (the last name for any further table). The markup of a section built by hand gets its CSV name where the
    section is added, so the code that draws it stays as it is."""
    names = [n for n in names if n]
    if not names:
        return markup
    parts = markup.split("<table")
    out, i = [parts[0]], 0
    for p in parts[1:]:
        if p.startswith((">", " ")) and "data-csv=" not in p.split(">", 1)[0]:
            p = f' data-csv="{html.escape(names[min(i, len(names) - 1)])}"' + p
            i += 1
        out.append(p)
    return "<table".join(out)


# the columns holding a data index, the kind of label they index and the name of their key column
KEY_COLUMNS = {"char": ("character", "character_key"), "opp_char": ("character", "opponent_key"),
               "od": ("overdrive", "overdrive_key"), "opp_od": ("overdrive", "opponent_overdrive_key"),
               "card": ("card", "card_key")}


def keyed(df: pl.DataFrame, labels: dict, index: dict | None = None) -> pl.DataFrame:
    """``df`` with the keys a user types beside its data indices, first: ``key``, the row's identity as the
    findings (``findings.csv``), drift baselines and ``balance check`` name it (``terry``, ``terry:elaine``,
    ``1`` for seat P1, ``first``, ``4p:utena``); per index column its key (``char`` -> ``character_key``,
    ``opp_char`` -> ``opponent_key``, ``od`` -> ``overdrive_key``, ``card`` -> ``card_key``, as
    ``--override characters.terry.hp=16`` and ``restrict --card`` take them); ``matchup`` (``terry:elaine``, as
    ``--matchup`` takes it); ``seat_number`` (1 for P1). ``index``: further columns holding an index
    (``{"item": "card"}``). The labels' names stand in for a game without keys."""
    cols = {c: KEY_COLUMNS[c] for c in df.columns if c in KEY_COLUMNS}
    for c, kind in (index or {}).items():
        if c in df.columns:
            cols[c] = (kind, f"{kind}_key")
    add, key = [], None
    for c, (kind, name) in cols.items():
        keys = list(labels.get(f"{kind}_key") or labels.get(kind) or [])
        if not keys or name in df.columns:
            continue
        add.append(pl.col(c).replace_strict(dict(enumerate(keys)), default=pl.lit(None, pl.String),
                                            return_dtype=pl.String).alias(name))
    if "seat" in df.columns and df.schema["seat"].is_integer():
        add.append((pl.col("seat") + 1).alias("seat_number"))
    out = df.with_columns(add) if add else df
    names = [e.meta.output_name() for e in add]
    if "character_key" in names and "opponent_key" in names:
        out = out.with_columns(pl.format("{}:{}", pl.col("character_key"), pl.col("opponent_key")).alias("matchup"))
        names.append("matchup")
        key = pl.col("matchup")
    elif "n_players" in df.columns and ("character_key" in names or "seat_number" in names):
        key = pl.format("{}p:{}", pl.col("n_players"),
                        pl.col("character_key") if "character_key" in names else pl.col("seat_number"))
    else:
        for k in ("character_key", "overdrive_key", "card_key", "seat_number"):
            if k in names:
                key = pl.col(k).cast(pl.String)
                break
        if key is None and "went_first" in df.columns:
            key = pl.when(pl.col("went_first")).then(pl.lit("first")).otherwise(pl.lit("not_first"))
        if key is None and "n_players" in df.columns:
            key = pl.format("{}p", pl.col("n_players"))
    if key is not None and "key" not in df.columns:
        out = out.with_columns(key.alias("key"))
    front = (["key"] if "key" in out.columns else []) + [
        c for c in out.columns if c.endswith(("_key", "_keys")) or c in ("matchup", "seat_number")]
    return out.select(front + [c for c in out.columns if c not in front])


def write_csv(path, df: pl.DataFrame, labels: dict | None = None, index: dict | None = None) -> None:
    """One table of the report as CSV: its raw values (rates as fractions, with their intervals) and, with
    ``labels``, the keys a user types (:func:`keyed`). Nested columns (lists, structs) are written as JSON."""
    if labels is not None:
        df = keyed(df, labels, index)
    nested = [c for c, t in df.schema.items() if t.is_nested()]
    if nested:
        df = df.with_columns(pl.col(c).map_elements(lambda v: json.dumps(v.to_list() if hasattr(v, "to_list") else v),
                                                    return_dtype=pl.String) for c in nested)
    df.write_csv(path)


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
                 f"interval.</p>{_TABLE_SCRIPT}{_LOADED_SCRIPT}</body></html>")
    return "".join(parts)


def section(fig_png_bytes: bytes, alt: str, reading: str, extra: str = "") -> str:
    return f"{_img(fig_png_bytes, alt)}<p class='reading'>{html.escape(reading)}</p>{extra}"


def rows(df: pl.DataFrame) -> list[dict]:
    return df.to_dicts()
