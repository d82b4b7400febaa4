"""The toolkit's user-facing errors and the command line's exit codes.

Every error a user can cause (bad data, bad option, bad run folder, an unwritable output path, a full disk)
is a :class:`BalanceError`; the CLI prints its message on one line and exits 2. The exit codes are a
contract (README, "The command line"):

====  ==========================================================================================
0     ok
1     a verdict: drift found (``balance drift``), a gate failed (``balance check``, ``compare --gate``),
      ``balance fuzz`` found a failure
2     bad input or environment: an option, a data file, a run folder (missing, corrupt chunk), an
      output path that cannot be written, a full disk; one line naming the path or option
3     internal error: a bug in the toolkit; one line, the traceback with ``--debug`` or ``BALANCE_DEBUG=1``
130   interrupted (Ctrl-C); finished chunks are kept
====  ==========================================================================================
"""

EXIT_OK = 0
EXIT_VERDICT = 1  # drift found, a gate failed: the answer, not a failure of the tool
EXIT_USAGE = 2  # bad input or environment
EXIT_INTERNAL = 3  # a bug
EXIT_INTERRUPTED = 130


class BalanceError(Exception):
    """A user-caused problem, reported as one line, exit code 2."""

    exit_code = EXIT_USAGE


class DataError(BalanceError):
    """A card data file is malformed or out of range (names file, entry, field)."""


class RunError(BalanceError):
    """A run folder is missing, corrupt or in use."""


def os_error_line(e: OSError, what: str | None = None) -> str:
    """One line for an operating-system error: the path, what happened (``No space left on device``), and what was
    being done (``what``, e.g. "--json"), without a traceback."""
    path = e.filename if e.filename is not None else None
    why = e.strerror or str(e) or type(e).__name__
    head = f"{what} {path}" if what and path else (what or (str(path) if path is not None else ""))
    return f"{head}: {why}" if head else why
