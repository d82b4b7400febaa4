"""The built-in strategies decided inline: the one module of the game that reads strategy code.

A seat whose strategy arrives as one of the built-ins (``builtins()``: ``random``, ``heuristic`` / ``aggressive``,
``akio``; ``strategies/rose_duel/``) is recognised by its entry address when an entry point installs the
strategies (``mark_builtins_nb``, called by ``call_nb.install_at_nb``), and the kernels take its decisions where
they are asked, with the strategy's own functions (imported here from ``strategies.rose_duel``), on the same
machine, params row and stream: the same choices and the same draws as the call through the address
(``call_nb.call_strategy_nb``), without the call, its phase dispatch and the machine's stream going through
memory. Measured (``scripts/bench_rose_duel.py`` against ``--called``, every decision called through its address,
the same records): the inline decisions make random games 1.4-1.6x and heuristic games 1.7-2.3x as fast.

Why the game imports strategy code here (the layers are core <- simulators <- strategies): a decision taken
inline has to be compiled into the kernels, so the kernels must name it; this module is the only place that
does (``layers.py``: no cycle), and a change of the strategies' code recompiles the kernels
(``kernel_cache``: a game's kernels key on ``strategies/<game>/`` too).

Where ``rules_nb`` decides a built-in seat inline (each the same function the strategy runs):

- ``ask_nb``: every decision of a random seat (``uniform_choice_nb``) or a heuristic seat (``heuristic_pick_nb``);
- ``ask_often_nb``, ``ask_location_nb``, ``ask_victor_nb``, ``ask_focus_nb`` (the heuristics' focus split kept
  per seat and focus total in FOCUS_MEMO_AT: it is a function of the params alone);
- ``play_duel_card_nb``, ``offer_reaction_nb``, ``action_nb``: the heuristics' card, side, reaction, action and
  target picks; ``turn_nb``: the optional draw; ``ask_status_nb``: the optional status update; ``spectators_nb``: the claims of built-in seats, drawn on the
  stream held in locals.

None of them repeats a rule: each rule function asks its seat's decision once, and only how the answer is
obtained differs. Parity (tests/simulators/test_rose_duel_builtin_inline.py): for every setup, built-in strategy
and switchable ruling, a run whose built-ins are recognised and one whose every decision is called through the
address write identical records.
"""
from numba import njit

from simulators.common import seats_nb
from simulators.rose_duel.enums import C_AKIO_MODE, C_HEUR, C_UNIFORM, CALL_AT, FOCUS_MEMO_AT, FOCUS_MEMO_N, MAX_SEATS
from strategies.rose_duel.builtin import random_nb, uniform_choice_nb  # noqa: F401 (the kernels' inline decisions)
from strategies.rose_duel.heuristics_nb import (  # noqa: F401 (the kernels' inline decisions)
    AIM_OBJECT, AIM_ROSE, N_PARAMS, PICK_DRAW, akio_focus_nb, akio_nb, drawn_nb, heuristic_action_pick_nb,
    heuristic_challenge_nb, heuristic_draw_nb, heuristic_duel_card_pick_nb, heuristic_location_nb, heuristic_nb,
    heuristic_pick_nb, heuristic_react_nb, heuristic_side_nb, heuristic_spectate_nb, heuristic_status_nb,
    heuristic_target_pick_nb, location_from_nb, spectate_from_nb,
)


def builtins():
    """The built-in strategies the kernels decide inline, as entry points take them: (random, heuristic, akio).
    Passed by the caller so that their addresses are the ones the strategies arrive with (a global's address in a
    kernel would be a linked copy's, never equal)."""
    return (random_nb, heuristic_nb, akio_nb)


@njit(cache=True)
def _stand_in_a(phase, m, seat, mask, params):
    return -1


@njit(cache=True)
def _stand_in_b(phase, m, seat, mask, params):
    return -2


@njit(cache=True)
def _stand_in_c(phase, m, seat, mask, params):
    return -3


def no_builtins():
    """Stand-ins for ``builtins()`` whose addresses no seat arrives with: entry points given these recognise no
    seat, so every strategy is called through its address (``bench_rose_duel.py --called`` and the parity test
    of the inline decisions set ``call_nb.builtins`` to this)."""
    return (_stand_in_a, _stand_in_b, _stand_in_c)


@njit(cache=True, inline='always')
def mark_builtins_nb(machine, uniform, heur, akio):
    """After ``seats_nb.install_nb``: the seats whose strategy's entry address is ``uniform`` (C_UNIFORM), ``heur``
    or ``akio`` (C_HEUR, for a params row wide enough; ``akio`` also C_AKIO_MODE); 0 recognises none. Clears the
    heuristics' focus memo (FOCUS_MEMO_AT): it holds answers for the params of the last install."""
    w = machine[CALL_AT + seats_nb.B_PAR_W]
    seats = 0
    hseats = 0
    aseats = 0
    for s in range(MAX_SEATS):
        a = seats_nb.strategy_address_nb(machine, CALL_AT, s)
        if a == uniform:
            seats |= 1 << s
        elif (a == heur or a == akio) and w >= N_PARAMS:
            hseats |= 1 << s
            if a == akio:
                aseats |= 1 << s
    machine[C_UNIFORM] = seats
    machine[C_HEUR] = hseats
    machine[C_AKIO_MODE] = aseats
    for i in range(FOCUS_MEMO_N):
        machine[FOCUS_MEMO_AT + i] = -1


@njit(cache=True, inline='always')
def plays_random_nb(m, seat):
    """Whether player seat ``seat`` (0..5) plays the built-in random strategy (decided inline)."""
    return (m[C_UNIFORM] >> seat) & 1 != 0


@njit(cache=True, inline='always')
def plays_heuristic_nb(m, seat):
    """Whether player seat ``seat`` plays the built-in heuristics (``heuristic`` or ``akio``; decided inline)."""
    return (m[C_HEUR] >> seat) & 1 != 0


@njit(cache=True, inline='always')
def akio_mode_nb(m, seat):
    """Whether seat ``seat``'s heuristics are ``akio``'s (they play Akio their own way)."""
    return (m[C_AKIO_MODE] >> seat) & 1 != 0


@njit(cache=True, inline='always')
def builtin_params_nb(m, seat):
    """Seat ``seat``'s params row, as its strategy gets it."""
    return seats_nb.params_row_nb(m, CALL_AT, seat)
