"""The CLI's commands for comparing runs and gating them in CI (``balance compare``, ``balance check``), kept
apart from the run and report commands; :mod:`balance.cli` adds them to its group (this module does not import
it back)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from balance.outputs import say as _say


@click.command()
@click.argument("run_a", type=click.Path())
@click.argument("run_b", type=click.Path())
@click.option("--min-effect", default=1.0, show_default=True, type=float, metavar="POINTS",
              help="smallest shift a finding must reach, in points")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="family-wise error over every row, Holm")
@click.option("--out", default=None, type=click.Path(file_okay=False), help="also write compare.html, "
              "comparison.json and rows.csv into this folder")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
@click.option("--all", "show_all", is_flag=True, help="list every tested row, not only the findings")
@click.option("--gate", is_flag=True, help="exit 1 when there is a finding (for CI)")
def compare(run_a, run_b, min_effect, alpha, out, json_out, show_all, gate):
    """Compare two runs of one game: every tracked row side by side, the shift with its 95% interval (paired
    on the same deals when the runs share seed and settings), and the findings (Holm, --min-effect)."""
    from balance import outputs
    from balance.compare import comparison_json, compare_runs, format_comparison

    outputs.check_file(json_out, "--json")  # before the work: a result is never lost on its path
    if out:
        outputs.check_folder(out, "--out")
    say = _say(json_out)
    c = compare_runs(run_a, run_b, min_effect / 100.0, alpha)
    for line in format_comparison(c, show_all):
        say(line)
    if json_out:
        outputs.write_text(json_out, json.dumps(comparison_json(c), indent=1, ensure_ascii=False), "--json")
    if out:
        from reports.compare import write

        say(f"page: {write(c, Path(out))}")
    raise SystemExit(1 if gate and c.findings else 0)


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--rule", "rules", multiple=True, metavar="DIM[:KEY]=LO..HI",
              help="a band in percent a row must stay in, e.g. character=45..55, seat:1=..53, timeout=..1 "
                   "(repeatable)")
@click.option("--alpha", default=0.05, show_default=True, type=float, help="family-wise error over every row, Holm")
@click.option("--json", "json_out", default=None, type=click.Path(dir_okay=False), help="also write the result as JSON (- for standard output)")
def check(run_dir, rules, alpha, json_out):
    """Absolute gates on a run: exit 1 when a row is outside its band with confidence (0 otherwise, 2 on bad
    input); rows outside but not clearly so are listed and do not fail."""
    from balance import outputs
    from reports.gates import check as run_check
    from reports.gates import format_result, result_json

    outputs.check_file(json_out, "--json")
    say = _say(json_out)
    res = run_check(run_dir, list(rules), alpha)
    for line in format_result(res):
        say(line)
    if json_out:
        outputs.write_text(json_out, json.dumps(result_json(res), indent=1, ensure_ascii=False), "--json")
    raise SystemExit(res.exit_code)
