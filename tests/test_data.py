"""Card data: loading, validation errors (one line naming file, entry, field and what is allowed),
overrides and cross-field checks (balance/data.py and simulators/colosseum/game.py:load_data)."""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

from balance.data import apply_override, data_hash, load_game_data, tunable_fields
from balance.errors import BalanceError, DataError
from simulators.colosseum import enums as E
from simulators.colosseum.game import DATA_DIR, build_tables, load_data
from simulators.colosseum.schema import SCHEMAS
from tests.conftest import PINNED, raw_pinned


def copy_data(tmp_path, *edits):
    """A copy of the pinned data with text edits ``(file stem, old, new)`` (``old`` must occur)."""
    folder = tmp_path / "data"
    shutil.copytree(PINNED, folder)
    for stem, old, new in edits:
        p = folder / f"{stem}.toml"
        text = p.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {p.name}"
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def load_error(folder, overrides=()) -> str:
    with pytest.raises(DataError) as ei:
        load_data(folder, overrides)
    msg = str(ei.value)
    assert "\n" not in msg, f"not one line: {msg!r}"
    assert "Traceback" not in msg
    return msg


def test_packaged_and_pinned_data_load():
    for folder in (None, PINNED):
        data = load_data(folder)
        assert set(data.files) == set(SCHEMAS)
        assert len(data.files["skills"]) == 8
        t = build_tables(data)
        assert t.card_keys[-1] == "overdrive" and len(t.card_keys) == E.HAND_SIZE
    assert load_data(None).folder == DATA_DIR


# ----------------------------------------------------------------------------- validation errors
@pytest.mark.parametrize("edit, expect", [
    # out-of-range integer
    (("skills", "power = 4\n", "power = 25\n"),
     r"skills\.toml \[heavy_strike\]\.power: 25 is out of range; allowed 0\.\.20"),
    (("characters", "hp = 18\n", "hp = 0\n"), r"characters\.toml \[terry\]\.hp: 0 is out of range; allowed 1\.\.99"),
    # nested field and list item
    (("skills", "tide = [-1, 0, 0, 1, 2, 3]\n", "tide = [-1, 0, 0, 1, 2, 30]\n"),
     r"skills\.toml \[heavy_strike\]\.tide\[5\]: 30 is out of range; allowed -5\.\.10"),
    (("characters", "dice_adjust = { STR = 1, DEX = 0, INT = 0 }", "dice_adjust = { STR = 9, DEX = 0, INT = 0 }"),
     r"characters\.toml \[terry\]\.dice_adjust\.STR: 9 is out of range; allowed -3\.\.3"),
    # wrong type
    (("skills", "power = 4\n", 'power = "four"\n'),
     r"skills\.toml \[heavy_strike\]\.power: expected an integer in 0\.\.20, got 'four'"),
    (("characters", "hp = 18\n", "hp = true\n"), r"characters\.toml \[terry\]\.hp: expected an integer"),
    (("rules", "cards_return = true", 'cards_return = "yes"'),
     r"rules\.toml\.cards_return: expected true or false, got 'yes'"),
    (("skills", 'range = ["SHORT"]\n', 'range = "SHORT"\n'), r"skills\.toml \[heavy_strike\]\.range: expected a list"),
    # a choice outside its list
    (("skills", 'attribute = "STR"\npower = 4', 'attribute = "FIRE"\npower = 4'),
     r"skills\.toml \[heavy_strike\]\.attribute: 'FIRE' is not allowed; allowed: STR, DEX, INT, MOVE"),
    (("rules", 'start_distance = "MIDDLE"', 'start_distance = "FAR"'),
     r"rules\.toml\.start_distance: 'FAR' is not allowed; allowed: SHORT, MIDDLE, LONG"),
    # unknown field
    (("skills", "power = 4\n", "power = 4\ncolour = \"red\"\n"),
     r"skills\.toml \[heavy_strike\]: unknown field 'colour'; allowed: .*attribute.*power"),
    (("rules", "max_rounds = 60", "max_rounds = 60\nturn_limit = 5"), r"rules\.toml: unknown field 'turn_limit'"),
    # unknown vocabulary step / condition
    (("characters", 'effects = [{ do = "damage", amount = 3 }]', 'effects = [{ do = "teleport", amount = 3 }]'),
     r"characters\.toml \[elaine\]\.ability\.effects\[0\]\.do: 'teleport' is not in the vocabulary; "
     r"allowed: damage, heal"),
    (("overdrives", '{ if = "hp_not_above_opponent" }', '{ if = "hp_is_odd" }'),
     r"overdrives\.toml \[tidal_surge\]\.common\[0\]\.if: 'hp_is_odd' is not in the vocabulary; allowed: die_at_least"),
    (("characters", 'effects = [{ do = "damage", amount = 3 }]',
      'effects = [{ do = "damage", amount = 3, die = "STR" }]'),
     r"characters\.toml \[elaine\]\.ability\.effects\[0\]: unknown field 'die'; allowed: amount, to, tide_die, tide"),
    (("characters", 'effects = [{ do = "damage", amount = 3 }]', 'effects = [{ amount = 3 }]'),
     r"characters\.toml \[elaine\]\.ability\.effects\[0\]: expected a table with do = one of damage"),
    # missing required field
    (("characters", "hp = 18\n", ""), r"characters\.toml \[terry\]\.hp: missing; expected integer 1\.\.99"),
    # list length
    (("skills", "tide = [-1, 0, 0, 1, 2, 3]\n", "tide = [-1, 0, 0, 1, 2]\n"),
     r"skills\.toml \[heavy_strike\]\.tide: has 5 items; allowed exactly 6"),
])
def test_validation_error_names_file_entry_field_and_allowed(tmp_path, edit, expect):
    msg = load_error(copy_data(tmp_path, edit))
    assert re.search(expect, msg), msg


def test_wrong_entry_count(tmp_path):
    folder = copy_data(tmp_path)
    text = (folder / "skills.toml").read_text()
    cut = text.index("[retreat]")
    (folder / "skills.toml").write_text(text[:cut])
    msg = load_error(folder)
    assert re.search(r"skills\.toml: has 7 entries; allowed exactly 8", msg), msg
    folder2 = copy_data(tmp_path / "b")
    (folder2 / "overdrives.toml").write_text("# no Overdrive at all\n")
    msg = load_error(folder2)
    assert re.search(r"overdrives\.toml: has 0 entries; allowed 1\.\.16", msg), msg


def test_stage_count(tmp_path):
    folder = copy_data(tmp_path)
    text = (folder / "overdrives.toml").read_text()
    start = text.index("[[star_prison.stages]]")
    (folder / "overdrives.toml").write_text(text[:start] + text[start:].split("\n\n")[0] + "\n")
    msg = load_error(folder)
    assert re.search(r"overdrives\.toml \[star_prison\]\.stages: has 1 items; allowed exactly 3", msg), msg


def test_malformed_toml_names_the_file(tmp_path):
    folder = copy_data(tmp_path, ("characters", "hp = 18\n", "hp = = 18\n"))
    msg = load_error(folder)
    assert "characters.toml" in msg and "not valid TOML" in msg and "line" in msg


def test_entry_that_is_not_a_table(tmp_path):
    folder = copy_data(tmp_path)
    p = folder / "characters.toml"
    p.write_text("stray = 3\n" + p.read_text())
    msg = load_error(folder)
    assert re.search(r"characters\.toml: \[stray\] must be a table", msg), msg


def test_missing_file_and_folder(tmp_path):
    folder = copy_data(tmp_path)
    (folder / "overdrives.toml").unlink()
    msg = load_error(folder)
    assert "overdrives.toml" in msg and "file not found" in msg
    msg = load_error(tmp_path / "nowhere")
    assert "data folder not found" in msg


def test_errors_are_balance_errors():
    assert issubclass(DataError, BalanceError) and DataError.exit_code == 2


# ----------------------------------------------------------------------------- cross-field checks
@pytest.mark.parametrize("edit, expect", [
    (("rules", "die_max = 6", "die_max = 2"),
     r"rules\.toml: die_start 3 must lie in die_min\.\.die_max \(1\.\.2\)"),
    (("skills", "move = -1\n", "move = 0\n"),
     r"skills\.toml \[advance\] move: a MOVE card needs a non-zero move; allowed -2\.\.-1 or 1\.\.2"),
    (("skills", 'range = ["SHORT"]\n', "range = []\n"),
     r"skills\.toml \[heavy_strike\] range: an attribute skill needs at least one distance"),
    (("skills", "dice_by = 1\n", "dice_by = 1\nmove = 1\n"),
     r"skills\.toml \[heavy_strike\] move: only MOVE cards move; allowed 0 for STR"),
])
def test_cross_field_checks(tmp_path, edit, expect):
    msg = load_error(copy_data(tmp_path, edit))
    assert re.search(expect, msg), msg


# ----------------------------------------------------------------------------- overrides
def test_override_changes_the_table():
    base = build_tables(load_data(PINNED))
    t = build_tables(load_data(PINNED, ["characters.terry.hp=25"]))
    i = t.char_index("terry")
    assert base.image[E.CHARS_AT + i * E.CH_WIDTH + E.CH_HP] == raw_pinned()["characters"]["terry"]["hp"]
    assert t.image[E.CHARS_AT + i * E.CH_WIDTH + E.CH_HP] == 25
    # only that value changed
    diff = np.nonzero(base.image != t.image)[0]
    assert list(diff) == [E.CHARS_AT + i * E.CH_WIDTH + E.CH_HP]


def test_override_in_a_list_and_a_rule():
    data = load_data(PINNED, ["overdrives.estias_fury.stages.2.effects.0.amount=9", "rules.cards_return=false",
                              'rules.both_moves="cancel"', "rules.start_distance=LONG"])
    assert data.files["overdrives"]["estias_fury"]["stages"][2]["effects"][0]["amount"] == 9
    assert data.files["rules"]["cards_return"] is False
    assert data.files["rules"]["both_moves"] == "cancel"
    assert data.files["rules"]["start_distance"] == "LONG"  # a bare word is a string
    t = build_tables(data)
    assert t.image[E.RULES_AT + E.R_CARDS_RETURN] == 0
    assert t.image[E.RULES_AT + E.R_START_DIST] == E.LONG
    assert t.image[E.OD_DMG_AT + t.od_index("estias_fury") * 3 + 2] == 9


def test_packaged_data_is_untouched_by_overrides():
    before = build_tables(load_data()).image.copy()
    load_data(None, ["characters.terry.hp=25"])
    assert np.array_equal(build_tables(load_data()).image, before)


@pytest.mark.parametrize("override, expect", [
    ("characters.terry.hpp=3", r"--override characters\.terry\.hpp: characters\.terry has no 'hpp'; allowed: .*\bhp\b"),
    ("characters.zed.hp=3", r"characters has no 'zed'; allowed: lucent, will, terry, dorothy, gau, elaine"),
    ("cards.terry.hp=3",
     r"data has no 'cards'; allowed: (?=.*\bcharacters\b)(?=.*\boverdrives\b)(?=.*\brules\b)(?=.*\bskills\b)"),
    ("overdrives.estias_fury.stages.7.effects.0.amount=9", r"is a list; use an index 0\.\.2"),
    ("characters.terry.hp.x=3", r"characters\.terry\.hp is a value, not a table"),
    ("characters.terry.hp", r"expected KEY=VALUE"),
    ("terry=3", r"expected FILE\.ENTRY\.FIELD"),
    # the override's value is validated like the file's
    ("characters.terry.hp=500", r"characters\.toml \[terry\]\.hp: 500 is out of range; allowed 1\.\.99"),
    ("characters.terry.hp=tall", r"characters\.toml \[terry\]\.hp: expected an integer in 1\.\.99, got 'tall'"),
])
def test_override_errors(override, expect):
    msg = load_error(PINNED, [override])
    assert re.search(expect, msg), msg


def test_apply_override_never_invents_fields():
    raw = raw_pinned()
    with pytest.raises(DataError):
        apply_override(raw, "characters.terry.tide_aura.free_move=true")  # not written for Terry
    assert "free_move" not in raw["characters"]["terry"]["tide_aura"]


# ----------------------------------------------------------------------------- hashes and tunable fields
def test_hashes_and_data_hash(tmp_path):
    a = load_data(PINNED)
    b = load_data(copy_data(tmp_path, ("characters", "hp = 18\n", "hp = 19\n")))
    assert set(a.hashes) == {f"{s}.toml" for s in SCHEMAS}
    assert a.hashes["characters.toml"] != b.hashes["characters.toml"]
    assert a.hashes["skills.toml"] == b.hashes["skills.toml"]
    assert data_hash(a.hashes, []) != data_hash(b.hashes, [])
    assert data_hash(a.hashes, []) != data_hash(a.hashes, ["characters.terry.hp=19"])
    assert data_hash(a.hashes, []) == data_hash(dict(a.hashes), [])


def test_tunable_fields_cover_ints_within_their_ranges():
    data = load_game_data(PINNED, SCHEMAS)
    fields = list(tunable_fields(data, SCHEMAS, include_printed=True))
    keys = {k for k, *_ in fields}
    assert "characters.terry.hp" in keys and "skills.heavy_strike.power" in keys and "rules.max_rounds" in keys
    assert "overdrives.estias_fury.stages.2.effects.0.amount" in keys
    for key, value, typ, _mark in fields:
        assert typ.lo <= value <= typ.hi, key


def test_every_tunable_field_is_overridable():
    """tunable_fields yields '(override key, current value, ...)': the fuzzing/auto-balancing search space.
    Fields left at their schema default (e.g. characters.terry.power_multiplier.STR) are listed too, so
    --override must accept them."""
    data = load_game_data(PINNED, SCHEMAS)
    fields = list(tunable_fields(data, SCHEMAS))
    # tunable_fields promises override keys: every one must be accepted by --override (same value)
    refused = []
    for key, value, _t, _p in fields:
        try:
            load_data(PINNED, [f"{key}={value}"])
        except DataError:
            refused.append(key)
    assert not refused, f"{len(refused)} of {len(fields)} tunable fields cannot be overridden, e.g. {refused[:5]}"


# ----------------------------------------------------------------------------- printed facts (issue 25)
def test_packaged_data_keeps_the_printed_facts():
    """What the rulebook prints (RULINGS 'Data') holds in the packaged data a run uses, not only in the pinned
    copy the rule tests read: a retuned data folder must keep these."""
    d = load_data(DATA_DIR).files
    ch, sk, od = d["characters"], d["skills"], d["overdrives"]
    hp = {k: c["hp"] for k, c in ch.items()}
    assert max(hp, key=hp.get) == "terry" and sorted(hp.values())[-2] < hp["terry"]  # "the largest HP of all"
    assert hp["elaine"] == 10 and min(hp.values()) == 10 and sorted(hp.values())[1] > 10  # "HP is 10, the lowest"
    assert ch["dorothy"]["power_multiplier"] == {"STR": 1, "DEX": 1, "INT": 2}  # "doubling the base power of INT"
    assert sk["advance"]["attribute"] == "MOVE"  # Advance (前進), Q5
    assert od["moon_burial"]["priority"] < min(o["priority"] for k, o in od.items() if k != "moon_burial")  # Q4
    assert d["rules"]["start_distance"] == "MIDDLE" and d["rules"]["die_start"] == 3
    # the two examples, printed without naming a card: "-1 / ±0 / ±0 / +1 / +2 / +3", "STR +2, DEX +1, INT -1"
    assert sk["heavy_strike"]["tide"] == [-1, 0, 0, 1, 2, 3]
    assert ch["terry"]["base_correction"] == {"STR": 2, "DEX": 1, "INT": -1}
    assert ch["terry"]["tide_aura"]["effects"][0]["tide"] == [-1, 0, 0, 1, 2, 3]


@pytest.mark.parametrize("folder", [DATA_DIR, PINNED], ids=["packaged", "pinned"])
def test_tuners_leave_printed_and_example_values_alone(folder):
    """tunable_fields (the search space of autobalance and sweep) leaves out every field an entry marks printed
    or example, and every field of an entry that is not provisional; --include-printed (include_printed) brings
    them back with their mark."""
    data = load_game_data(folder, SCHEMAS)
    default = {k: m for k, _v, _t, m in tunable_fields(data, SCHEMAS)}
    every = {k: m for k, _v, _t, m in tunable_fields(data, SCHEMAS, include_printed=True)}
    assert set(default.values()) == {"provisional"}
    assert {k for k, m in every.items() if m == "provisional"} == set(default)
    marks = {k: m for k, m in every.items() if m != "provisional"}
    # the values the rulebook prints for an entry
    assert marks["characters.elaine.hp"] == "printed"
    assert {marks[f"characters.dorothy.power_multiplier.{a}"] for a in ("STR", "DEX", "INT")} == {"printed"}
    assert marks["overdrives.moon_burial.priority"] == "printed"
    assert marks["rules.die_start"] == "printed"  # rules.toml is not provisional
    # its unattributed examples, given to an entry here
    for key in ("characters.terry.base_correction.STR", "characters.terry.base_correction.INT",
                "characters.terry.tide_aura.effects.0.tide.5", "skills.heavy_strike.tide.0"):
        assert marks[key] == "example", key
    # what the book does not print stays tunable
    for key in ("characters.terry.hp", "characters.elaine.base_correction.DEX", "skills.heavy_strike.power",
                "characters.dorothy.hp", "overdrives.moon_burial.stages.0.effects.1.amount"):
        assert default[key] == "provisional", key


def test_every_marked_path_is_a_field(tmp_path):
    """A printed/example list naming no field of its entry is one error line (a misspelt mark would leave a
    printed value for the tuners to move)."""
    folder = copy_data(tmp_path, ("characters", 'printed = ["hp"]', 'printed = ["hpp"]'))
    with pytest.raises(DataError, match=r"^characters.toml \[elaine\].printed: 'hpp' is not a field of this entry"):
        load_data(folder)
    folder = copy_data(tmp_path / "b", ("skills", 'example = ["tide"]', 'example = ["tide.6"]'))
    with pytest.raises(DataError, match=r"\[heavy_strike\].example: 'tide.6' is not a field"):
        load_data(folder)


def test_sweep_and_autobalance_refuse_printed_fields_unless_asked(capsys):
    from tests.test_cli import assert_one_line_error, cli

    code, out, err = cli(capsys, "sweep", "colosseum", "--field", "characters.elaine.hp=9,10")
    assert_one_line_error(code, err, "characters.elaine.hp", "printed", "--include-printed")
    code, out, err = cli(capsys, "sweep", "colosseum", "--field", "characters.terry.base_correction.STR=1,2")
    assert_one_line_error(code, err, "example", "--include-printed")
    code, out, err = cli(capsys, "autobalance", "colosseum", "--fields", "characters.dorothy.power_multiplier.*")
    assert_one_line_error(code, err, "--fields", "only printed values", "--include-printed")
    code, out, err = cli(capsys, "sweep", "colosseum", "--list")
    assert code == 0, err
    line = {ln.split()[0]: ln for ln in out.splitlines()}
    assert "printed" in line["characters.elaine.hp"] and "--include-printed" in line["characters.elaine.hp"]
    assert "example" in line["skills.heavy_strike.tide.3"]
    assert line["characters.terry.hp"].endswith("provisional")


def test_sweep_of_a_printed_field_with_include_printed_says_so(capsys, tmp_path):
    from tests.test_cli import cli

    code, out, err = cli(capsys, "sweep", "colosseum", "--field", "characters.elaine.hp=10,11", "--include-printed",
                         "--games", "300", "--dim", "character", "--workers", "1", "--out", tmp_path / "sw")
    assert code == 0, err
    assert "note: characters.elaine.hp is a printed value" in out and "--include-printed" in out


def test_autobalance_output_says_what_it_left_alone():
    from balance.autobalance import Result, format_result

    def lines(**kw):
        res = Result("colosseum", (0.45, 0.55), ["character"], {}, [], [], stop="nothing helps", **kw)
        return "\n".join(format_result(res))

    assert "printed values left alone: 24 fields" in lines(printed_left=24)
    assert "--include-printed lets the search move them" in lines(printed_left=24)
    assert "printed values included (--include-printed)" in lines(include_printed=True)
    assert "left alone" not in lines()
