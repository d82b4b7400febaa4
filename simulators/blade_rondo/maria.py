"""Blade Rondo solo: Maria, "The Apostle of Roses" (Night Theater), a registered game of its own.

Rules (``../shared/rules/blade_rondo_night_theater.txt``, "The Apostle of Roses"; readings in
``RULINGS.md`` "Solo modes"): you are second (Attack 1, Pulse Technique) with 7 of 15 swords drawn from the
40; Maria has no breathing cards, Attack 0, Defence 0, Voltage 0, life 15, a 15-card deck and an Action
List that starts with the Maria card (basic action: Heating Technique, Attack +1). Her turn: the start of
the turn (Voltage +1, ...), draw 1 to the end of the Action List, then perform the list from the head.
Preparation cards go to the Response List and answer your (or your subordinates') matching actions in
order from the head; a Preliminary Action card sets her Defence to her Voltage, waits face up on the deck
and joins the list on her next turn instead of a draw; Limited cards become discards once used. Your
Mocking Picaresque and Silent Crystal have their solo texts. Maria's deck is not public: the one in
``data/maria.toml`` is a provisional design.

Why a game of its own rather than a setup of ``blade_rondo``: the records differ (one player's hand and
usage, Maria's cards drawn, performed and skipped; no second hand, no first-player coin), the scripted
opponent replaces the second strategy (the run's two strategy slots are two *player* strategies played on
alternate games, so one run compares them), the report has its own parts (``reports.report.game_parts``), and
``balance bench`` measures a registered game (it has no --setup).

Setups: ``maria`` (default: deal 15 of the 40 Night Theater swords, the strategy keeps 7),
``maria_first_test`` (the rulebook's first-test hand; Maria's first turn without draw and Heating),
``maria_custom`` (``--set hand=CARD,...`` or ``--set deck=FILE.toml``). Records: ``enums.maria_dt``.
Parameters: ``data/rules.toml`` and the solo files (``--override maria.m_rose_thorn.limited=true``...).
"""
from __future__ import annotations

from simulators.blade_rondo import solo
from simulators.blade_rondo.schema import SOLO_SCHEMAS as SCHEMAS  # noqa: F401 (the validate command reads it)

NAME = "blade_rondo_maria"
VERSION = "1"
SETUPS = solo.MARIA_SETUPS
DEFAULT_SETUP = "maria"
SETTINGS_KEYS = solo.MARIA_KEYS
DATA_DIR = solo.G.DATA_DIR  # the two-player data folder, which holds the solo files too
load_data = solo.load_data
check_settings = solo.check_settings
simulate_chunk = solo.simulate_chunk
max_rounds = solo.max_rounds
labels = solo.labels
replay = solo.replay


# what each record column means (``balance.columns``: the dictionary in every chunk's parquet metadata and the
# manifest); the player is seat 0, Maria seat 1; codes and bits are named from labels() (cards by number)
COLUMNS = {
    "winner": {"meaning": "who won", "codes": {0: "the player", 1: "Maria"}, "none": {-1: "nobody: the turn cap"}},
    "rounds": "turns played (both sides; Maria moves first)",
    "setup": {"meaning": "how the player's hand was made",
              "codes": {0: "deal 15, keep 7", 1: "the first test (its first-turn exception)", 2: "a given hand"}},
    "strategy0": {"meaning": "the player's strategy (the run's two strategy slots alternate game by game)",
                  "codes": "strategy"},
    "day_night": {"meaning": "Day or Night when the game ended", "codes": {0: "Day", 1: "Night"}},
    "life0": "the player's life at the end",
    "life1": "Maria's life at the end",
    "hand0": {"meaning": "the player's 7 cards (bit n: No.n)", "bits": "card"},
    "dup0": {"meaning": "the player's cards held twice (bit n: No.n)", "bits": "card"},
    "used0": {"meaning": "the player's cards used at least once (bit n: No.n)", "bits": "card"},
    "breath0": {"meaning": "the player's breathing cards used at least once",
                "bits": ["Heating Technique", "Protection Technique", "Pulse Technique"]},
    "dmg0": "damage the player dealt Maria",
    "dmg1": "damage Maria dealt the player",
    "atk0": "the player's Attack at the end", "atk1": "Maria's Attack at the end",
    "def0": "the player's Defence at the end", "def1": "Maria's Defence at the end",
    "volt0": "the player's Voltage at the end", "volt1": "Maria's Voltage at the end",
    "maria_drawn": {"meaning": "Maria's card rows drawn (bit r: row r of data/maria.toml)", "bits": "maria_card"},
    "maria_done": {"meaning": "Maria's card rows performed at least once (or answered, for Preparation)",
                   "bits": "maria_card"},
    "maria_skipped": {"meaning": "Maria's card rows not performed once (Mocking Picaresque)", "bits": "maria_card"},
    "maria_answers": "Maria's Preparation cards that answered the player's actions",
}


def build_tables(data):
    return solo.build_tables(data, solo.MARIA)


def run_scenario(path):
    from simulators.blade_rondo.solo_scenario import run_scenario as run

    return run(path)

