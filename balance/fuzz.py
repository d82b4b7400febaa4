"""Fuzzing the games (``balance fuzz GAME``): random valid data and strategies, and corrupted data files.

Two halves:

- **Valid-data fuzzing** (:func:`fuzz`): each *variant* redraws the game's data, every numeric,
  true/false and choice field independently with some probability, anywhere in its declared schema
  range (``balance/data.py``: the same ranges ``balance validate`` enforces; extremes are drawn
  more often because that is where bugs live), through ``--override`` edits so that the game's own
  cross-field rules apply; a draw they refuse is redrawn. A variant also draws the strategies of
  every seat, the setup and, for the rose duel, the player count. Its games are played by the
  default kernels (zero crashes; every game ends: at the turn cap as a timeout; no strategy is ever
  judged illegal; record-level invariants) and, where the game has one, replayed by the *checked
  build* (``simulators/<game>/checked_nb.py``: the same rule kernels under a loop that checks life
  and parameter bounds and card conservation across zones after every round or turn), whose end
  state must match the default kernels' records game for game. For Colosseum every variant's games
  are also played by the plain-Python reference engine (random play only) and must match record
  for record.
- **Bad-data fuzzing** (:func:`fuzz_bad_data`): a copy of the data folder with one file corrupted
  (truncated, characters flipped or deleted, a value of the wrong type, an out-of-range number, a
  missing key or table, invalid UTF-8) must give ``balance validate DIR`` a one-line error and exit 2
  (or pass, when the corruption happened to leave valid data), never a traceback.

Everything is seeded: the same ``--seed`` draws the same variants, games and corruptions.
"""
from __future__ import annotations

import shutil
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from balance import registry
from balance.data import Bool, Choice, Int, List, Record, Tagged
from balance.errors import BalanceError

MAX_DRAWS = 60  # data redraws per variant before giving up on edits (the packaged data is then used)


# ----------------------------------------------------------------------------- random valid data
def data_fields(schemas: dict, files: dict):
    """Every scalar field a designer may tune: (override key, field type), numeric, true/false or choice."""

    def walk(node, t, path):
        if isinstance(t, (Int, Bool)) or (isinstance(t, Choice) and len(t.choices) > 1):
            yield path, t
        elif isinstance(t, Record):
            for k, sub in t.fields.items():
                if isinstance(node, dict) and k in node:
                    yield from walk(node[k], sub, f"{path}.{k}")
        elif isinstance(t, List):
            for i, x in enumerate(node):
                yield from walk(x, t.item, f"{path}.{i}")
        elif isinstance(t, Tagged):
            kind = t.kinds[node[t.tag]]
            for k, sub in kind.fields.items():
                yield from walk(node[k], sub, f"{path}.{k}")

    for stem, schema in schemas.items():
        doc = files[stem]
        if schema.entries:
            for key, body in doc.items():
                yield from walk(body, schema.entry, f"{stem}.{key}")
        else:
            yield from walk(doc, schema.entry, stem)


def _draw(t, rng: np.random.Generator) -> str:
    """A random value of field type ``t`` as override text (TOML)."""
    if isinstance(t, Int):
        u = rng.random()
        v = t.lo if u < 0.15 else t.hi if u < 0.3 else int(rng.integers(t.lo, t.hi + 1))
        return str(v)
    if isinstance(t, Bool):
        return "true" if rng.random() < 0.5 else "false"
    return '"' + str(t.choices[int(rng.integers(len(t.choices)))]) + '"'


def random_overrides(mod, rng: np.random.Generator, rate: float = 0.25) -> tuple[list[str], int]:
    """Override edits giving random valid data for the game module ``mod``; returns (edits, refused
    draws). A draw the game refuses (one of its cross-field rules) is redrawn with fewer edits."""
    base = mod.load_data()
    fields = list(data_fields(mod.SCHEMAS, base.files))
    refused = 0
    for _ in range(MAX_DRAWS):
        edits = [f"{key}={_draw(t, rng)}" for key, t in fields if rng.random() < rate]
        try:
            mod.build_tables(mod.load_data(None, edits))
            return edits, refused
        except BalanceError:
            refused += 1
            rate *= 0.85
    return [], refused


# ----------------------------------------------------------------------------- record invariants
def end_names_of(mod) -> list[str]:
    """The game's end-reason names (its ``enums.END_NAMES``)."""
    import importlib

    enums = getattr(mod, "E", None) or importlib.import_module(mod.__name__.rsplit(".", 1)[0] + ".enums")
    return list(enums.END_NAMES)


def record_violations(game: registry.GameSpec, recs: np.ndarray, tables, settings: dict) -> list[str]:
    """Invariants every record must satisfy whatever the data, one line per broken one: the generic ones (game
    order, winner, end reason, the cap) for every game, then the game's own (``GameSpec.record_invariants``)."""
    mod = game.module
    out = []
    end_names = end_names_of(mod)
    cap = int(mod.max_rounds(tables))
    seats = game.max_strategies

    def bad(mask, what):
        idx = np.nonzero(mask)[0]
        if len(idx):
            out.append(f"{what}: {len(idx)} games, first game {int(recs['game'][idx[0]])}")

    bad(recs["game"] != recs["game"][0] + np.arange(len(recs)), "game indices out of order")
    bad((recs["winner"] < -1) | (recs["winner"] >= seats), "winner outside the seats")
    bad((recs["end_reason"] < 0) | (recs["end_reason"] >= len(end_names)), "unknown end reason")
    if "illegal" in end_names:
        bad(recs["end_reason"] == end_names.index("illegal"), "a built-in strategy chose outside its options")
    bad(recs["rounds"] < 0, "negative rounds")
    bad(recs["rounds"] > cap + 1, f"rounds past the cap ({cap})")
    if "timeout" in end_names:
        t = recs["end_reason"] == end_names.index("timeout")
        bad(t & (recs["winner"] != -1), "a timeout with a winner")
        bad(~t & (recs["rounds"] > cap), "a game past the cap that is not a timeout")
    for mask, what in (game.record_invariants(recs, tables, settings) if game.record_invariants else ()):
        bad(mask, what)
    return out


# ----------------------------------------------------------------------------- the valid-data fuzz
@dataclass
class FuzzResult:
    game: str
    games: int = 0
    variants: int = 0
    refused_draws: int = 0
    checked_games: int = 0
    reference_games: int = 0
    timeouts: int = 0
    end_counts: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # one line each: what broke, with the variant to reproduce it
    bad_data: dict = field(default_factory=dict)  # corruptions tried / refused with one line / passed / failed
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failures


def fuzz(game: str, games: int, seed: int = 1, per_variant: int = 500, rate: float = 0.25, progress=None,
         log=None, strategies: list[str] | None = None) -> FuzzResult:
    """Play ``games`` games over random valid data variants of ``per_variant`` games each; the seats'
    strategies are drawn from ``strategies`` (default: every registered one)."""
    from balance.runs import Prepared, RunSpec

    spec = registry.get_game(game)
    mod = spec.module
    if games <= 0:
        raise BalanceError(f"--games must be positive, got {games}")
    if per_variant <= 0:
        raise BalanceError(f"--per-variant must be positive, got {per_variant}")
    rng = np.random.default_rng(seed)
    res = FuzzResult(game=game)
    t0 = time.perf_counter()
    names = sorted(strategies or registry.strategies_for(game))
    seats = spec.max_strategies
    checked = spec.checked_build()
    ref = spec.reference
    done = 0
    while done < games:
        n = min(per_variant, games - done)
        edits, refused = random_overrides(mod, rng, rate)
        res.refused_draws += refused
        strategies = [names[int(rng.integers(len(names)))] for _ in range(seats)]
        if ref is not None and ref.fuzz_strategies and res.variants % 2 == 0:
            strategies = list(ref.fuzz_strategies)  # every other variant: what the reference engine can replay
        setup = list(spec.setups)[int(rng.integers(len(spec.setups)))]
        options = spec.fuzz_options(rng) if spec.fuzz_options else {}
        run_seed = int(rng.integers(1 << 31))
        tag = (f"variant {res.variants} (--seed {run_seed} --setup {setup} "
               f"{' '.join('--strategy ' + s for s in strategies)}{''.join(f' --set {k}={v}' for k, v in options.items())}"
               f"{''.join(' --override ' + e for e in edits)})")
        res.variants += 1
        try:
            # rotation 1: game i is the kernels' game i with the strategies in seat order, as the checked build
            # and the reference engine play it
            prep = Prepared(RunSpec(game=game, games=n, seed=run_seed, setup=setup, strategies=strategies,
                                    overrides=edits, options=options).normalised(), rotation=1)
            recs = prep.chunk(0, n)
        except BalanceError as e:  # a setting the game refuses for this data (e.g. a draft needing 6 characters)
            res.refused_draws += 1
            if log:
                log(f"  {tag}: refused: {e}")
            continue
        except Exception as e:  # noqa: BLE001 - any other exception is a crash the fuzz reports
            res.failures.append(f"crash in {tag}: {type(e).__name__}: {e} "
                                f"({traceback.extract_tb(e.__traceback__)[-1].filename.split('/')[-1]})")
            done += n
            continue
        res.games += len(recs)
        done += n
        ends = end_names_of(mod)
        for code, cnt in zip(*np.unique(recs["end_reason"], return_counts=True)):
            name = ends[code] if 0 <= code < len(ends) else str(code)
            res.end_counts[name] = res.end_counts.get(name, 0) + int(cnt)
        if "timeout" in ends:
            res.timeouts += int((recs["end_reason"] == ends.index("timeout")).sum())
        for line in record_violations(spec, recs, prep.tables, prep.settings):
            res.failures.append(f"{line} in {tag}")
        if checked is not None:
            try:
                rows = checked.run_checked(prep.tables, prep.settings, 0, n, prep.key, prep.strategies, prep.params)
            except Exception as e:  # noqa: BLE001
                res.failures.append(f"crash in the checked build, {tag}: {type(e).__name__}: {e}")
            else:
                res.checked_games += n
                broken = np.nonzero(rows[:, 0])[0]
                if len(broken):
                    i = broken[0]
                    res.failures.append(f"invariant broken in {len(broken)} games, first game {i} at round/turn "
                                        f"{rows[i, 1]}: {checked.VIOLATIONS[rows[i, 0]]} in {tag}")
                same = ((rows[:, 2] == recs["winner"]) & (rows[:, 3] == recs["end_reason"])).all()
                if not same:
                    res.failures.append(f"the checked build ended games differently from the default kernels in {tag}")
        ref_recs = ref.get("fuzz")(prep, n) if ref is not None and ref.fuzz is not None else None
        if ref_recs is not None:
            diff = np.nonzero(ref_recs != recs)[0]
            res.reference_games += n
            if len(diff):
                i = diff[0]
                cols = [f for f in recs.dtype.names if ref_recs[i][f] != recs[i][f]]
                res.failures.append(f"reference engine disagrees in {len(diff)} games, first game {i} "
                                    f"({', '.join(cols)}) in {tag}")
        if progress:
            progress(n)
    res.seconds = time.perf_counter() - t0
    return res


# ----------------------------------------------------------------------------- bad data
_WRONG = ['"text"', "[1, 2]", "true", "{ a = 1 }", "3.5", "-99999", "99999", "[]", '""', "1979-05-27"]


def corrupt(text: str, rng: np.random.Generator) -> tuple[str, str]:
    """One random corruption of a TOML text: (what was done, the corrupted text)."""
    lines = text.split("\n")
    assign = [i for i, ln in enumerate(lines) if "=" in ln and not ln.lstrip().startswith("#")]
    kind = ["truncate", "flip", "delete_chars", "wrong_type", "out_of_range", "missing_key", "missing_table",
            "duplicate_line", "garbage"][int(rng.integers(9))]
    if kind == "truncate":
        return kind, text[:int(rng.integers(len(text)))]
    if kind in ("flip", "delete_chars"):
        chars = list(text)
        for _ in range(int(rng.integers(1, 6))):
            if not chars:
                break
            j = int(rng.integers(len(chars)))
            if kind == "flip":
                chars[j] = chr(int(rng.choice([int(rng.integers(32, 127)), 10, 0x3042])))
            else:
                del chars[j]
        return kind, "".join(chars)
    if kind == "garbage":
        j = int(rng.integers(len(text) + 1))
        return kind, text[:j] + "\udcff\x00\x7f" + text[j:]
    if not assign:
        return "truncate", text[: len(text) // 2]
    i = assign[int(rng.integers(len(assign)))]
    key, _, value = lines[i].partition("=")
    if kind == "wrong_type":
        lines[i] = f"{key}= {_WRONG[int(rng.integers(len(_WRONG)))]}"
    elif kind == "out_of_range":
        nums = [int(x) for x in __import__("re").findall(r"-?\d+", value)] or [0]
        big = int(rng.choice([-1, 1])) * int(rng.choice([100, 1000, 2**31, 2**63, 10**30]))
        lines[i] = f"{key}= {big if rng.random() < 0.7 else nums[0] + int(rng.choice([-50, 50]))}"
    elif kind == "missing_key":
        del lines[i]
    elif kind == "missing_table":
        heads = [j for j, ln in enumerate(lines) if ln.startswith("[")]
        if heads:
            del lines[heads[int(rng.integers(len(heads)))]]
        else:
            del lines[i]
    else:
        lines.insert(i, lines[i])
    return kind, "\n".join(lines)


def fuzz_bad_data(game: str, n: int, seed: int, validate) -> tuple[dict, list[str]]:
    """Validate ``n`` corrupted copies of the game's data folder with ``validate(folder) -> (exit code,
    stderr)`` (the CLI's ``balance.cli.validate_one_line``: the fuzz checks the command a user runs, and is
    called by it, so it takes it rather than importing it); returns (counts, failure lines)."""
    mod = registry.get_game(game).module
    src = Path(mod.DATA_DIR)
    files = sorted(p.name for p in src.glob("*.toml") if p.stem in mod.SCHEMAS)
    rng = np.random.default_rng(seed)
    counts = {"tried": 0, "refused": 0, "passed": 0, "failed": 0}
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="balance-fuzz-") as tmp:
        folder = Path(tmp) / "data"
        shutil.copytree(src, folder)
        for _ in range(n):
            name = files[int(rng.integers(len(files)))]
            original = (src / name).read_text(encoding="utf-8")
            kind, text = corrupt(original, rng)
            (folder / name).write_bytes(text.encode("utf-8", "surrogateescape"))
            code, err = validate(folder)
            counts["tried"] += 1
            lines = [ln for ln in err.splitlines() if ln.strip()]
            if code == 0:
                counts["passed"] += 1
            elif code == 2 and len(lines) == 1 and lines[0].startswith("error: "):
                counts["refused"] += 1
            else:
                counts["failed"] += 1
                last = lines[-1] if lines else ""
                failures.append(f"{name} ({kind}): exit {code}, {len(lines)} lines: {last[:200]}")
            (folder / name).write_text(original, encoding="utf-8")
    return counts, failures


def format_result(res: FuzzResult) -> list[str]:
    ends = ", ".join(f"{k} {v:,}" for k, v in sorted(res.end_counts.items()))
    lines = [f"{res.game}: {res.games:,} games over {res.variants} random data variants in {res.seconds:.1f} s "
             f"({res.refused_draws} data draws refused by the game's rules and redrawn)",
             f"  ends: {ends or '-'}; timeouts (turn cap) {res.timeouts:,}",
             f"  checked build (invariants after every round/turn): {res.checked_games:,} games"
             + ("" if registry.get_game(res.game).checked else " (no checked build for this game: record invariants only)"),
             ]
    if res.reference_games:
        lines.append(f"  reference engine (plain Python): {res.reference_games:,} games compared record for record")
    if res.bad_data:
        b = res.bad_data
        lines.append(f"  bad data: {b['tried']:,} corrupted data folders: {b['refused']:,} one-line errors (exit 2), "
                     f"{b['passed']:,} still valid, {b['failed']:,} failures")
    lines.append("OK: no crash, every game ended, every invariant held" if res.ok else
                 f"FAILED: {len(res.failures)} problems")
    lines += [f"  - {f}" for f in res.failures]
    return lines
