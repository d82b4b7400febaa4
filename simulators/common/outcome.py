"""A game's outcome as its replay and its scenario rows tell it (every game's ``replay`` and ``run_scenario``)."""


def outcome_fields(m, done_at: int, winner_at: int, end_at: int, end_names) -> dict:
    """``{"winner": seat + 1 (0: nobody), "end": the end reason's name}`` once the machine ``m`` says the game is
    over (``m[done_at]``), else ``{}``."""
    if not m[done_at]:
        return {}
    w = int(m[winner_at])
    return {"winner": w + 1 if w >= 0 else 0, "end": end_names[int(m[end_at])]}


def seats_line(names, n: int) -> str:
    """``P1 name, P2 name, ...``: who plays which seat, as a replay's first line tells it."""
    return ", ".join(f"P{p + 1} {names[p]}" for p in range(n))


def winner_words(w: int, names=None, nobody: str = "draw") -> str:
    """``P2 (greedy) wins``, or ``nobody`` when no seat won (``w`` < 0): a replay's result."""
    if w < 0:
        return nobody
    return f"P{w + 1}{f' ({names[w]})' if names and w < len(names) else ''} wins"
