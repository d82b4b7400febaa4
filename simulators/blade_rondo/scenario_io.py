"""The files a user hands Blade Rondo (deck files, scenarios) and the checks of a scripted step, shared by the
two-player game (``game.py``) and the solo games (``solo.py``, ``solo_scenario.py``): one wording of each error,
one reading of a play, whichever game the file is for.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np

from balance.errors import BalanceError
from simulators.blade_rondo import enums as E


def read_toml(path: Path, what: str) -> dict:
    """The TOML document at ``path`` (``what``: "deck file", "scenario file", for the not-found error)."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BalanceError(f"{path}: {what} not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BalanceError(f"{path}: not valid TOML: {e}") from None


def refuse_unknown(keys, allowed, where: str, hint: str) -> None:
    """A one-line error naming the first key of ``keys`` (sorted) not in ``allowed``; ``hint`` says what is."""
    extra = sorted(set(keys) - set(allowed))
    if extra:
        raise BalanceError(f"{where}: unknown key {extra[0]!r}; {hint}")


def check_step(m: np.ndarray, where: str, illegal, n_rows: int, seats, whose) -> None:
    """After a scripted step: an illegal answer is an error (``illegal()``: why, as the game words it), and so is an
    answer of a seat in ``seats`` still unread (RULINGS X1: a decision with one legal choice is not asked);
    ``whose(seat)`` starts that error ("seat 1's ", "the ")."""
    if m[E.S_END] == E.END_ILLEGAL and m[E.S_ILL_SEAT] >= 0:
        raise BalanceError(f"{where}: {illegal()}")
    at = int(m[E.M_SCRIPT_AT])
    for i in range(n_rows):
        seat, phase, _ = (int(x) for x in m[at + 3 * i:at + 3 * i + 3])
        if seat in seats and i >= int(m[E.M_SCRIPT_HEAD + seat]):
            raise BalanceError(f"{where}: {whose(seat)}{E.PHASE_NAMES[phase]} answer was never asked (the decision "
                               f"did not come up or had only one choice)")


def play_slot(tables, m: np.ndarray, seat: int, play, where: str, legal_mask: int, who: str, why_not) -> tuple:
    """(the play's table, its card, the local slot it is used from) for a scenario's play of ``seat``: a card name,
    key or number, or ``{ card, x, answers }``; a card not in the hand or not usable now (``legal_mask``: the
    action phase's legal slots; ``why_not(ls)``: the reason) is an error naming ``who`` ("seat 1", "you")."""
    spec = {"card": play} if isinstance(play, (str, int)) else dict(play)
    refuse_unknown(spec, {"card", "x", "answers", "notes"}, where, "allowed: card, x, answers")
    cid = tables.lookup(spec.get("card"), where)
    at = E.SLOT0 + seat * E.SLOTS * E.SLOT_W
    ls = next((i for i in range(E.SLOTS) if int(m[at + i * E.SLOT_W + E.L_CARD]) == cid
               and m[at + i * E.SLOT_W + E.L_ZONE] == E.Z_HAND), None)
    if ls is None:
        raise BalanceError(f"{where}: {who} cannot use {tables.card_name(cid)}: it is not in the hand (or in front)")
    if not (int(legal_mask) >> ls) & 1:
        raise BalanceError(f"{where}: {who} cannot use {tables.card_name(cid)}: {why_not(ls)}")
    return spec, cid, ls
