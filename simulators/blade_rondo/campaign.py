"""Blade Rondo solo: the Idea campaign, "Swords of the Witch" (Grim Garden), a registered game of its own.

Rules (``../shared/rules/blade_rondo_grim_garden.txt``, "Swords of the Witch"; readings in ``RULINGS.md``
"Solo modes"): the 8 Preparation cards are pulled out of the 40 swords (one of each of the 4 kinds become
your Amulets: 0 cost, not set face down, used against the Idea's actions, removed after use); the other 32
are the Sword deck: draw 10, keep 4. Five battles against Ideas drawn from the LEVEL 1, 1, 2, 2, 3 decks;
you go first (no Pulse). An Idea has no Voltage and acts from its startup turn (once your Voltage has
reached it), performing its actions in order, each repeated as written, with no cost but their
Compensation, a Limited action once; its continuing effects hold all battle. After a won battle: LEVEL 1,
draw 3 and obtain 1 or the Idea; LEVEL 2, draw 4 and obtain 2 or the Idea (unchosen cards leave the game;
the hand is trimmed to 7). Your Attack, Defence, Voltage, life and discard pile reset between battles;
an obtained Idea's Afterglow acts as your own action. Bone-Ringing Machete, Dispel Weiss and Fluorite of
the Sanctuary have their solo texts. A loss ends the campaign. The Idea cards are not public: those in
``data/ideas.toml`` are provisional designs.

Why a game of its own rather than a setup of ``blade_rondo``: a record is a whole campaign (five battles'
Ideas, turns and life, the kept and final hands, rewards, Afterglows, amulets), not one duel; the run's
two strategy slots are two player strategies on alternate campaigns; the report has its own parts
(``reports.report.game_parts``); ``balance bench`` measures a registered game. The ``rounds`` column is the number of
turns of the battle that ended the campaign (the turn cap applies per battle); ``turns_total`` sums them.

Setups: ``campaign`` (default: random Ideas), ``campaign_fixed`` (``--set ideas=KEY,KEY,KEY,KEY,KEY``).
Records: ``enums.campaign_dt``.
"""
from __future__ import annotations

from simulators.blade_rondo import solo
from simulators.blade_rondo.schema import SOLO_SCHEMAS as SCHEMAS  # noqa: F401 (the validate command reads it)

NAME = "blade_rondo_campaign"
VERSION = "1"
SETUPS = solo.CAMPAIGN_SETUPS
DEFAULT_SETUP = "campaign"
SETTINGS_KEYS = solo.CAMPAIGN_KEYS
DATA_DIR = solo.G.DATA_DIR  # the two-player data folder, which holds the solo files too
load_data = solo.load_data
check_settings = solo.check_settings
simulate_chunk = solo.simulate_chunk
max_rounds = solo.max_rounds
labels = solo.labels
replay = solo.replay


# what each record column means (``balance.columns``: the dictionary in every chunk's parquet metadata and the
# manifest); battle k's columns end in _k (1..5); codes and bits are named from labels() (cards by number)
COLUMNS = {
    "winner": {"meaning": "how the campaign ended", "codes": {0: "cleared: the five battles won",
                                                              1: "lost: an Idea won a battle"},
               "none": {-1: "a battle hit the turn cap"}},
    "end_reason": {"meaning": "how the battle that ended the campaign ended", "codes": "end_reason"},
    "rounds": "turns of the battle that ended the campaign (the cap applies per battle)",
    "turns_total": "turns of every battle played",
    "battles_won": "battles won (0..5)",
    "lost_battle": "the battle lost or timed out (1..5); 0: cleared",
    "strategy0": {"meaning": "the player's strategy (the run's two strategy slots alternate game by game)",
                  "codes": "strategy"},
    **{f"idea_{k}": {"meaning": f"the Idea of battle {k}", "codes": "idea"} for k in range(1, 6)},
    **{f"turns_{k}": f"turns of battle {k}; 0: not played" for k in range(1, 6)},
    **{f"life_{k}": f"the player's life at the end of battle {k}; -1: not played" for k in range(1, 6)},
    "life0": "the player's life at the end",
    "life1": "the last Idea's life at the end",
    "hand_start": {"meaning": "the 4 cards kept of the 10 (bit n: No.n)", "bits": "card"},
    "dup_start": {"meaning": "... held twice (bit n: No.n)", "bits": "card"},
    "hand_end": {"meaning": "the hand when the campaign ended (bit n: No.n)", "bits": "card"},
    "dup_end": {"meaning": "... held twice (bit n: No.n)", "bits": "card"},
    "rewards": {"meaning": "cards obtained as rewards and kept (bit n: No.n)", "bits": "card"},
    "used0": {"meaning": "cards used at least once in the campaign (bit n: No.n)", "bits": "card"},
    "ideas_taken": {"meaning": "Ideas obtained as rewards (their Afterglows; bit i: Idea i)", "bits": "idea"},
    "amulets_used": {"meaning": "amulets spent (bit k: amulet k, solo.toml campaign.amulets order)",
                     "bits": "amulet"},
}


def build_tables(data):
    return solo.build_tables(data, solo.CAMPAIGN)


def run_scenario(path):
    from simulators.blade_rondo.solo_scenario import run_scenario as run

    return run(path)

