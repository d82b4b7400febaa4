"""A game's outcome as a scenario row tells it (every game's ``run_scenario``: one row a turn or round)."""


def outcome_fields(m, done_at: int, winner_at: int, end_at: int, end_names) -> dict:
    """``{"winner": seat + 1 (0: nobody), "end": the end reason's name}`` once the machine ``m`` says the game is
    over (``m[done_at]``), else ``{}``."""
    if not m[done_at]:
        return {}
    w = int(m[winner_at])
    return {"winner": w + 1 if w >= 0 else 0, "end": end_names[int(m[end_at])]}
