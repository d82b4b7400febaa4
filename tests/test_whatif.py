"""What-if tools: ``balance sweep`` and ``balance autobalance`` (paired variants of the data), their bad input,
and the data-override fix they rest on (an override inside a defaulted table edits that entry only)."""
from __future__ import annotations

import csv

import pytest

from tests.conftest import PINNED
from tests.test_cli import assert_one_line_error, cli


def test_override_inside_a_defaulted_table_edits_that_entry_only():
    """Will's TIDE AURA power_bonus is left at its default in the data; overriding it must not change the
    other characters left at the default, nor a later load in the same process."""
    from simulators.colosseum import game

    before = {k: dict(v["tide_aura"]["power_bonus"]) for k, v in game.load_data(PINNED).files["characters"].items()}
    d = game.load_data(PINNED, ["characters.will.tide_aura.power_bonus.STR=4"])
    after = {k: v["tide_aura"]["power_bonus"] for k, v in d.files["characters"].items()}
    assert after["will"]["STR"] == 4
    assert {k: v for k, v in after.items() if k != "will"} == {k: v for k, v in before.items() if k != "will"}
    again = {k: v["tide_aura"]["power_bonus"] for k, v in game.load_data(PINNED).files["characters"].items()}
    assert again == before
