"""The scripted strategy of scenarios: answers come from a queue in the machine.

Scenario files (``game.run_scenario``) list plays and the answers to the decisions they raise;
the runner writes each answer as a row (seat, phase, value) at ``M_SCRIPT_AT``. ``scripted_nb``
takes the seat's next row when its phase is the one asked, otherwise it gives the phase's
default (END / pass / no / none, else the lowest legal choice; an amulet is not spent). A value >= ``BY_CARD`` names a
card id: the lowest legal slot holding that card is chosen (local slots of the seat, or of the
opponent for PH_REVEALED; global slots for subordinates and Set Area cards). A value that is
not legal is returned as it is, so the kernel records an illegal choice that the runner reports.
"""
from numba import njit

from simulators.blade_rondo.enums import (
    BIT_END, GBIT_NONE, L_CARD, M_SCRIPT_AT, M_SCRIPT_HEAD, M_SCRIPT_N, PH_ACTION, PH_AMULET, PH_COIN_PLACE,
    PH_COIN_RETURN, PH_OPTION, PH_PAY, PH_PHOS, PH_RESPOND, PH_REVEALED, PH_SET_CARD, PH_SUB, SLOT0, SLOT_W, SLOTS,
)
from simulators.common.memory_nb import as_machine_nb

BY_CARD = 1000
SCRIPT_W = 3
_GLOBAL_PHASES = (1 << PH_SUB) | (1 << PH_SET_CARD) | (1 << PH_COIN_RETURN)


@njit(cache=True)
def scripted_nb(phase, m, seat, mask, params):
    """The next scripted answer of ``seat`` for ``phase``, or the phase's default."""
    p = as_machine_nb(m)
    at = p[M_SCRIPT_AT]
    n = p[M_SCRIPT_N]
    i = p[M_SCRIPT_HEAD + seat]
    while i < n and p[at + i * SCRIPT_W] != seat:
        i += 1
    if i < n and p[at + i * SCRIPT_W + 1] == phase:
        p[M_SCRIPT_HEAD + seat] = i + 1
        val = p[at + i * SCRIPT_W + 2]
        if val < BY_CARD:
            return val
        cid = val - BY_CARD
        owner = 1 - seat if phase == PH_REVEALED else seat
        for b in range(63):
            if (mask >> b) & 1:
                g = b if (_GLOBAL_PHASES >> phase) & 1 else owner * SLOTS + b
                if g < 2 * SLOTS and p[SLOT0 + g * SLOT_W + L_CARD] == cid:
                    return b
        return 62  # no legal slot holds that card: an illegal choice the runner reports
    if phase == PH_ACTION or phase == PH_RESPOND or phase == PH_COIN_PLACE or phase == PH_AMULET:
        if (mask >> BIT_END) & 1:
            return BIT_END
    if phase == PH_PAY or phase == PH_PHOS or phase == PH_OPTION:
        return 0
    if (mask >> GBIT_NONE) & 1 and (_GLOBAL_PHASES >> phase) & 1:
        return GBIT_NONE
    b = 0
    while (mask >> b) & 1 == 0:
        b += 1
    return b
