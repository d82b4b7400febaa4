"""Maria's first-test hand for the report: small batches played with the rulebook's first-turn exception and
without it.

The rulebook's first test gives the player a fixed 7-card hand and Maria an exception on her first turn (she
neither draws nor heats). Whether the exception matters is a question a run's records cannot answer (they
hold one rule), so it is measured by playing: per strategy of the run, :data:`FIRST_TEST_GAMES` games of the
``maria_first_test`` setup with the exception and as many without it, on the run's seed and data, so the two
arms differ only by the rule. That makes it an analysis: the report's caller runs :func:`analyse` (this
module is the game's ``GameSpec.analyses``) and ``balance.analyses`` keeps its document in ``RUN/analysis/``;
``reports.blade_rondo_solo`` formats it (rates, intervals, the provisional mark).
"""
from __future__ import annotations

FIRST_TEST_GAMES = 20_000  # per strategy and arm
SETUP = "maria_first_test"
WITHOUT = ("solo.maria.first_test_skip_draw=false", "solo.maria.first_test_skip_basic_action=false")
FORMAT = "balance-first-test/1"


def first_test_rows(spec) -> list[dict]:
    """Per strategy of ``spec`` (in order, each once) and arm (``exception``: True, then False): games, player
    wins and mean turns of the first-test hand."""
    from balance.runs import Prepared, RunSpec

    rows = []
    for name in dict.fromkeys(spec.strategies):
        for exception, ov in ((True, []), (False, list(WITHOUT))):
            prep = Prepared(RunSpec(game=spec.game, games=FIRST_TEST_GAMES, seed=spec.seed, setup=SETUP,
                                    strategies=[name], data_dir=spec.data_dir, overrides=list(spec.overrides) + ov,
                                    plugins=list(spec.plugins)).normalised())
            recs = prep.chunk(0, FIRST_TEST_GAMES)
            rows.append({"name": name, "exception": exception, "games": len(recs),
                         "wins": int((recs["winner"] == 0).sum()), "mean_turns": float(recs["rounds"].mean())})
    return rows


def budget() -> dict:
    """What sets the document beside the run's spec (part of its cache key)."""
    return {"format": FORMAT, "first_test_games": FIRST_TEST_GAMES}


def analyse(spec, tables) -> dict:
    """The first-test table's counts for a Maria run (``spec``: the run's seed, strategies, data, plugins)."""
    return {**budget(), "seed": int(spec.seed), "first_test": first_test_rows(spec)}
