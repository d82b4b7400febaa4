"""The README's and the docs' command blocks, executed as a reader would type them.

Every line of every ```bash block of README.md and docs/*.md (in the order of PAGES) is either run or skipped
for a reason listed in SKIPPED below;
a line that is neither (a new command added to the README) fails the test until it is classified. The
``balance ...`` commands run through the installed console script, in order, in one temp folder (so
``balance report runs/greedy`` reads the run the line before made), with fewer games where a line asks for
many (GAMES_AT_MOST). ``cp -r simulators/...`` copies from the repository. The Python block that starts with
``# my_strategies.py`` is written into the folder, as the README tells the reader to, for ``--plugin``.

Each command must exit 0, or the code EXPECTED names for it (a drift the line demonstrates exits 1), and
must not print a traceback.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from tests.conftest import BALANCE_EXE, ROOT

README = ROOT / "README.md"
# the pages whose command blocks are run, in this order (a page may use a run an earlier one made)
PAGES = [README] + [ROOT / "docs" / f"{p}.md" for p in (
    "data", "strategies", "games", "reports", "drift", "running", "fuzzing", "cli", "statistics", "performance",
    "architecture", "adding-a-game")]

# lines not run, by their first words (after the comment is removed), and why
SKIPPED = {
    "bash scripts/demo": "the whole demo: installs and simulates 1,000,000 games (the CI job runs it)",
    "bash scripts/test": "the test suite itself",
    "bash scripts/drift_gate": "CI runs it (.ci/run); its balance drift commands are run below",
    "bash scripts/update_baselines": "rewrites the committed baselines in the repository",
    "git add": "stages files of the repository",
    "git commit": "commits to the repository",
    "source scripts/_env.sh": "changes the test's own environment; tests/test_cli.py sources it in a bash",
    "dask scheduler": "needs a Dask cluster (machines of one's own)",
    "dask worker": "needs a Dask cluster",
    "$EDITOR": "an interactive editor",
    "python scripts/bench_blade_rondo_solo.py": "a benchmark of minutes (balance bench is tested in test_cli)",
}
# a line with one of these words is skipped whole
SKIPPED_WORDS = {"SCHEDULER_HOST": "needs a Dask scheduler at a host of one's own (tests/test_runs.py runs a "
                                   "LocalCluster)"}
# the most games (deals, duels) a command runs here, by option
GAMES_AT_MOST = {"--games": 2000, "--duels": 500, "--screen-games": 500, "--verify-games": 2000,
                 "--seconds": 1}  # bench --end-to-end: seconds of kernel work per whole run
# commands that take a number of games and run many by default: the option added when a line gives none
DEFAULT_ADDED = {"simulate": ["--games", "2000"], "sweep": ["--games", "1000"],
                 "skill": ["--causal-deals", "300", "--ladder-games", "100"],
                 "autobalance": ["--games", "1000", "--screen-games", "300", "--verify-games", "1000"]}
# exit codes other than 0 a line is expected to give, by a part of the line
EXPECTED = {
    "drift reports/baselines/colosseum.json --override characters.terry.hp=20": {1},  # "try a change": drift
    "balance check runs/after": {0, 1},
    "balance check runs/v2": {0, 1},  # a verdict either way on a small run; never 2 or 3
}


def readme_blocks(text: str, lang: str) -> list[list[str]]:
    blocks, cur = [], None
    for line in text.splitlines():
        if cur is None and line.strip() == f"```{lang}":
            cur = []
        elif cur is not None and line.strip() == "```":
            blocks.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def readme_lines() -> list[str]:
    """The bash lines of the pages, continuation lines joined."""
    out = []
    for block in (b for page in PAGES for b in readme_blocks(page.read_text(encoding="utf-8"), "bash")):
        joined = ""
        for line in block:
            if line.rstrip().endswith("\\"):
                joined += line.rstrip()[:-1] + " "
                continue
            joined += line
            if joined.strip():
                out.append(joined.strip())
            joined = ""
    return out


def skip_reason(words: list[str], line: str) -> str | None:
    for w, why in SKIPPED_WORDS.items():
        if w in line:
            return why
    text = " ".join(words)
    for prefix, why in SKIPPED.items():
        if text == prefix or text.startswith(prefix + " "):
            return why
    return None


def shrink(words: list[str]) -> list[str]:
    """A balance command with at most GAMES_AT_MOST games per option (and one added where it runs many)."""
    words = list(words)
    for i, w in enumerate(words[:-1]):
        if w in GAMES_AT_MOST and words[i + 1].isdigit():
            words[i + 1] = str(min(int(words[i + 1]), GAMES_AT_MOST[w]))
    sub = words[1] if len(words) > 1 else ""
    if sub in DEFAULT_ADDED and "--list" not in words:
        add = DEFAULT_ADDED[sub]
        for k in range(0, len(add), 2):
            if add[k] not in words:
                words += add[k:k + 2]
    return words


def plan() -> tuple[list[tuple[str, list[str]]], list[tuple[str, str]]]:
    """(line, command words) to run, in order, and (command, reason) skipped."""
    runs, skipped = [], []
    for line in readme_lines():
        words = shlex.split(line, comments=True)
        if not words:
            continue  # a comment line
        parts, cur = [], []
        for w in words:
            if w == "&&":
                parts.append(cur)
                cur = []
            else:
                cur.append(w)
        parts.append(cur)
        for part in parts:
            why = skip_reason(part, line)
            if why:
                skipped.append((" ".join(part), why))
            elif part[0] in ("balance", "cp"):
                runs.append((line, part))
            else:
                raise AssertionError(f"README line not classified: {line!r}: run it (a balance command) or add its "
                                     f"first words to SKIPPED in {Path(__file__).name} with the reason")
    return runs, skipped


def test_every_readme_line_is_run_or_skipped_for_a_reason():
    runs, skipped = plan()
    assert len(runs) >= 25, "the README's command blocks are not found"
    assert all(why for _, why in skipped)
    used = {p for p in SKIPPED for cmd, _ in skipped if cmd == p or cmd.startswith(p + " ")}
    unused = sorted(set(SKIPPED) - used)
    assert not unused, f"SKIPPED lists commands the README no longer has: {unused}"


def test_readme_commands_run(tmp_path):
    runs, skipped = plan()
    python_blocks = [b for page in PAGES for b in readme_blocks(page.read_text(encoding="utf-8"), "python")]
    plugin = next(b for b in python_blocks if b and b[0].strip() == "# my_strategies.py")
    (tmp_path / "my_strategies.py").write_text("\n".join(plugin) + "\n", encoding="utf-8")
    # the lines that read the repository's files (the committed baselines) run as from the repository
    shutil.copytree(ROOT / "reports" / "baselines", tmp_path / "reports" / "baselines")
    env = {**os.environ, "BALANCE_DEBUG": "1"}
    env.pop("PYTHONPATH", None)  # as a reader's shell: the plugin is found in the current folder
    for line, words in runs:
        if words[0] == "cp":
            # cp -r simulators/GAME/data DEST: from the repository into the temp folder
            assert words[1] == "-r" and words[2].startswith("simulators/"), line
            shutil.copytree(ROOT / words[2], tmp_path / words[3])
            continue
        cmd = [str(BALANCE_EXE)] + shrink(words)[1:]
        t = time.perf_counter()
        p = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        print(f"{time.perf_counter() - t:6.1f} s  {' '.join(shrink(words))}")
        want = next((codes for key, codes in EXPECTED.items() if key in line), {0})
        shown = " ".join(shrink(words))
        assert p.returncode in want, f"{shown!r} (README: {line!r}) exit {p.returncode}:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
        assert "Traceback" not in p.stderr, f"{shown!r}:\n{p.stderr[-3000:]}"
        if words[1:] == []:  # `balance` alone: the command list
            assert "Commands:" in p.stdout and "simulate" in p.stdout, p.stdout
    # what the lines made, as the README says
    assert (tmp_path / "runs/greedy/report/report.html").is_file()
    assert (tmp_path / "runs/od/manifest.json").is_file()
    assert (tmp_path / "runs/decks/manifest.json").is_file()
