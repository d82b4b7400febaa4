"""The balance toolkit: Monte Carlo balance analysis for small duel card games.

Library face::

    from balance import simulate, report
    run = simulate("colosseum", games=100_000, seed=1, out="runs/demo")
    report(run)
"""
__version__ = "0.1.0"

from balance.api import Run, load_run, report, simulate  # noqa: E402,F401
