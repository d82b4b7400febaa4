"""``balance autobalance --patch FILE``: the proposal as a patch a designer applies with ``git apply`` or
``patch -p1`` from the repository root (issue 23, item 8). It once printed an indented diff whose paths were
absolute (``a//work/main/simulators/...``): neither tool took it. Each case applies the patch to a copy of the
data and reads the edited value back; no search is run (the proposal is given), so the cases are fast."""
from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from balance.autobalance import Result, data_diff, data_patch, format_result, patch_root, result_json
from balance.runs import RunSpec
from tests.conftest import PINNED, ROOT

PACKAGED = ROOT / "simulators" / "colosseum" / "data"


def _result(data_dir, edits: dict) -> Result:
    spec = RunSpec(game="colosseum", games=10, data_dir=str(data_dir) if data_dir else None).normalised()
    folder = Path(data_dir) if data_dir else PACKAGED
    old = {k: _value(folder, k) for k in edits}
    return Result("colosseum", (0.45, 0.55), ["character"], {k: (old[k], v) for k, v in edits.items()}, [], [],
                  spec=spec, fields={k: (old[k], None, True) for k in edits})


def _value(folder: Path, key: str):
    stem, entry, name = key.split(".")
    return tomllib.loads((Path(folder) / f"{stem}.toml").read_text(encoding="utf-8"))[entry][name]


def _apply(patch: Path, cwd: Path) -> None:
    """``git apply --check`` and ``patch -p1 --dry-run`` accept the patch in ``cwd``; then git applies it."""
    chk = subprocess.run(["git", "apply", "--check", "-v", str(patch)], cwd=cwd, capture_output=True, text=True)
    assert chk.returncode == 0, chk.stderr + patch.read_text()
    if shutil.which("patch"):
        dry = subprocess.run(["patch", "-p1", "--dry-run", "-i", str(patch)], cwd=cwd, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stdout + dry.stderr
    subprocess.run(["git", "apply", str(patch)], cwd=cwd, check=True, capture_output=True)


def test_packaged_data_patch_applies_from_the_repository_root(tmp_path):
    res = _result(None, {"characters.terry.hp": _value(PACKAGED, "characters.terry.hp") - 1,
                         "characters.elaine.hp": _value(PACKAGED, "characters.elaine.hp") + 1})
    text, left, root = data_patch(res)
    assert root == ROOT and not left
    assert "--- a/simulators/colosseum/data/characters.toml\n+++ b/simulators/colosseum/data/characters.toml\n" in text
    assert str(ROOT) not in text and str(ROOT) not in "\n".join(data_diff(res)[0])
    # a copy of the repository's data at the same place under a fresh root
    copy = tmp_path / "repo"
    shutil.copytree(PACKAGED, copy / "simulators" / "colosseum" / "data")
    lines = format_result(res, patch=tmp_path / "p.patch")
    assert any(ln.strip().startswith(f"patch: {tmp_path / 'p.patch'}") and "git apply" in ln for ln in lines)
    _apply(tmp_path / "p.patch", copy)
    got = copy / "simulators" / "colosseum" / "data"
    for k, (_, new) in res.edits.items():
        assert _value(got, k) == new
    assert result_json(res)["patch"] == text


def test_a_data_folder_outside_any_repository_is_patched_from_its_parent(tmp_path):
    """A designer's ``--data`` folder outside a repository: paths start at the folder's name."""
    mine = tmp_path / "designs" / "my_colosseum"
    shutil.copytree(PINNED, mine)
    res = _result(mine, {"characters.terry.hp": _value(mine, "characters.terry.hp") + 2})
    text, _, root = data_patch(res)
    if any((d / ".git").exists() for d in (tmp_path, *tmp_path.parents)):
        pytest.skip("the temporary folder is inside a git work tree here")
    assert root == mine.parent and "--- a/my_colosseum/characters.toml" in text
    (tmp_path / "p.patch").write_text(text)
    _apply(tmp_path / "p.patch", root)
    assert _value(mine, "characters.terry.hp") == res.edits["characters.terry.hp"][1]


def test_crlf_and_a_missing_final_newline_survive(tmp_path):
    """A file saved with Windows line ends and no newline at its end: the patch keeps both, so it applies."""
    mine = tmp_path / "crlf"
    shutil.copytree(PINNED, mine)
    f = mine / "characters.toml"
    # the file's last line is the one edited (an entry the text machinery edits like any other), so the hunk
    # reaches the end of a file without a final newline
    f.write_bytes((f.read_text(encoding="utf-8").rstrip("\n") + "\n\n[zz]\nhp = 3").replace("\n", "\r\n").encode())
    res = _result(mine, {"characters.zz.hp": 4, "characters.terry.hp": _value(mine, "characters.terry.hp") - 1})
    text, left, root = data_patch(res)
    assert not left and "\r\n" in text
    (tmp_path / "p.patch").write_bytes(text.encode())
    before = f.read_bytes()
    _apply(tmp_path / "p.patch", root)
    after = f.read_bytes()
    assert after.count(b"\r\n") == before.count(b"\r\n") and after.endswith(b"\r\nhp = 4")
    assert _value(mine, "characters.terry.hp") == res.edits["characters.terry.hp"][1]


def test_patch_root_is_the_work_tree_holding_the_folder():
    assert patch_root(PACKAGED) == ROOT and patch_root(PINNED) == ROOT
