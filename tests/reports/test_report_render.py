"""The report renders in a real browser: headless Chromium loads report.html with every figure
decoded and every table made sortable, and a screenshot is kept (out/report-screenshot.png). The tables'
sorting and filtering are driven in tests/reports/test_report_tables.py."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports.report import build

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_RUN = ROOT / "tests" / "golden" / "colosseum" / "run"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], capture_output=True, timeout=900,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if shutil.which("chromium"):
            return shutil.which("chromium")
    pytest.skip("Chromium is not installed and could not be installed here (needs root and apt-get: "
                "apt-get install chromium)")


def test_report_renders_with_every_image(tmp_path):
    exe = chromium()
    out = tmp_path / "report"
    build(GOLDEN_RUN, out)
    page = (out / "report.html").resolve()
    n_imgs = page.read_text().count("<img ")
    assert n_imgs >= 6
    profile = tmp_path / "profile"
    common = [exe, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000"]
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    m = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom.stdout)
    assert m, f"the page did not finish loading: {dom.stderr[-500:]}"
    assert int(m.group(1)) == int(m.group(2)) == n_imgs
    # the table script ran beside the image hook and set up every table (sorting, filter, CSV link)
    assert f'data-tables="{page.read_text().count("<table")}"' in dom.stdout
    assert "Findings" in dom.stdout and "Matchups" in dom.stdout
    shot = ROOT / "out" / "report-screenshot.png"
    shot.parent.mkdir(exist_ok=True)
    shot.unlink(missing_ok=True)
    subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,4000", page.as_uri()], capture_output=True,
                   timeout=180)
    assert shot.exists() and shot.stat().st_size > 50_000  # a blank page is a few kB
