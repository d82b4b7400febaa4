"""Data where nothing differs, for the findings engine's null tests: a Colosseum data folder whose characters
are identical copies of one character (twins), so every character, matchup and meta-game difference a report
could claim is noise."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLOSSEUM = ROOT / "simulators" / "colosseum" / "data"


def _blocks(text: str) -> dict[str, str]:
    """The text of each top-level entry of a TOML file (its ``[key]`` table and every ``[key.sub]`` table)."""
    out: dict[str, list[str]] = {}
    key = None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^\[([A-Za-z0-9_]+)(\.[^\]]*)?\]", line)
        if m:
            key = m.group(1)
        if key is not None:
            out.setdefault(key, []).append(line)
    return {k: "".join(v) for k, v in out.items()}


def twin_colosseum(out: Path, base: str = "will", src: Path = COLOSSEUM) -> Path:
    """A copy of ``src`` in which every character is ``base`` under its own key and name."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for p in src.glob("*.toml"):
        shutil.copy(p, out / p.name)
    text = (src / "characters.toml").read_text(encoding="utf-8")
    blocks = _blocks(text)
    model = blocks[base]
    parts = []
    for i, key in enumerate(blocks):
        b = re.sub(rf"^\[{base}(\.|\])", lambda m: f"[{key}{m.group(1)}", model, flags=re.M)
        b = re.sub(r'^name = ".*"$', f'name = "Twin {i + 1}"', b, count=1, flags=re.M)
        b = re.sub(r'^name_ja = ".*"$', f'name_ja = "Twin {i + 1}"', b, count=1, flags=re.M)
        b = re.sub(r"^printed = .*\n", "", b, flags=re.M)  # printed facts of the original do not hold for twins
        parts.append(b)
    (out / "characters.toml").write_text("\n".join(parts), encoding="utf-8")
    return out
