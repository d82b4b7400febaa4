"""The balance toolkit: Monte Carlo balance analysis for small duel card games.

Library face::

    from balance import simulate, report
    run = simulate("colosseum", games=100_000, seed=1, out="runs/demo")
    report(run)
"""
__version__ = "0.1.0"

_API = ("Run", "load_run", "report", "simulate")


def __getattr__(name):
    """The library face (``balance.simulate``, ...) on first use (PEP 562): importing a core module such as
    ``balance.findings`` must not import the run store, the reports and the kernels behind ``balance.api``."""
    if name in _API:
        import importlib

        return getattr(importlib.import_module("balance.api"), name)
    raise AttributeError(f"module 'balance' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
