"""The toolkit's user-facing errors.

Every error a user can cause (bad data, bad option, bad run folder) is a
:class:`BalanceError`; the CLI prints its message on one line and exits 2.
"""


class BalanceError(Exception):
    """A user-caused problem, reported as one line, exit code 2."""

    exit_code = 2


class DataError(BalanceError):
    """A card data file is malformed or out of range (names file, entry, field)."""


class RunError(BalanceError):
    """A run folder is missing, corrupt or in use."""
