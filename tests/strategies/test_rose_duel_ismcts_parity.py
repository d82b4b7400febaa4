"""Parity of the rose duel's search strategy with the kernels it copies (strategies/rose_duel/ismcts_nb.py).

The playouts continue a turn after a searched decision with a copy of the turn's rest: ``_action_rest_nb`` copies
``rules_nb.action_nb`` after the card is chosen (the card played, its target asked or given, the target's cancel,
the card's steps) and ``_rest_of_turn_nb`` copies ``rules_nb.turn_nb`` after step 1 (the challenge or the
Revolution, the status update, the optional draw) with ``play_turns_nb``'s turn end. A copy that drifts from the
kernel makes the search value its choices in another game than the one played, silently: so each turn of many
games (2-6 players, random and heuristic seats decided inline as in the playouts, every turn-level switch of
rules.toml) is played twice from the same machine, once by the kernel (``play_turns_nb``, one turn) and once with
the copy from the earliest point each of its entries starts at, the earlier steps and the decisions before that
point taken as the kernel takes them (the same kernel functions, the same draws). Both machines must then be equal
word for word: state, piles, hands, the stream.

The three entries are the ones ``playout_nb`` uses: after the action card (PH_ACTION: the target asked in the
copy, then the turn's rest from stage 0, the challenge asked in the copy), after the target (PH_TARGET: the card's
slot and target given) and after the challenge or Revolution is answered (stage 1). Stage 2 (the draw answered)
is not driven: PH_DRAW is never searched (``searched_nb``), so no playout enters there."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from balance.runs import Prepared, RunSpec
from simulators.common import seats_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.rose_duel import enums as E
from simulators.rose_duel import rules_nb as R
from strategies.rose_duel import ismcts_nb as I

ENTRY_ACTION, ENTRY_TARGET, ENTRY_VICTOR = 0, 1, 2
ENTRIES = {"after_card": ENTRY_ACTION, "after_target": ENTRY_TARGET, "after_challenge": ENTRY_VICTOR}
_HP = I.heuristic_params_nb()  # the heuristic seats' params row (its address goes into the call block: kept alive)


@njit
def _kernel_turn(machine):
    R.play_turns_nb(as_machine_nb(machine), 1)


@njit
def _copy_turn(machine, entry):
    """The turn of the seat to play with the copy from ``entry``: step 1 (the roll, the event or the action card
    chosen; with ENTRY_TARGET its target too; with ENTRY_VICTOR the challenge or Revolution answered) decided as
    ``turn_nb`` and ``action_nb`` decide it, the rest by ``_action_rest_nb`` and ``_rest_of_turn_nb``. Returns
    whether the action entry was used (a card played)."""
    m = as_machine_nb(machine)
    p = m[E.S_CUR]
    b = R.sb(p)
    m[E.S_INVOLVED] = 0
    r = R.roll_nb(m)
    played = False
    if (r == 1) | (r == m[E.RULES_AT + E.R_DIE]):
        R.event_nb(m, p, 0 if r == 1 else 1)
    elif m[E.S_N_ACTIVE] >= 2 and m[b + E.O_HELD] & m[E.ACTION_KINDS_AT] != 0:
        # action_nb up to the card (and with ENTRY_TARGET the target): the kernel's own calls and draws
        mask = R.allow_nb(m, p, R.hand_mask_nb(m, p, m[E.ACTION_KINDS_AT]), b + E.O_HAND, m[b + E.O_HAND_N])
        if mask != 0:
            heur = p >= 0 and p < E.HOUSE and ((m[E.C_HEUR] & ~m[E.C_UNIFORM]) >> p) & 1 != 0
            if heur:
                c, draw = R.heuristic_action_pick_nb(m, p, mask, R.builtin_params_nb(m, p))
                c = R.drawn_nb(m, c, draw)
            else:
                c = R.ask_often_nb(m, p, E.PH_ACTION, mask | (1 << E.PASS_BIT))
            if c != E.PASS_BIT:
                t = -1
                if entry == ENTRY_TARGET:
                    k = m[b + E.O_HAND + c]
                    m[E.S_CTX_CARD] = k
                    targets = 0
                    for q in range(m[E.S_N_PLAYERS]):
                        targets |= int((m[R.sb(q) + E.O_IN] != 0) & (q != p)) << q
                    if heur:
                        t, draw = R.heuristic_target_pick_nb(m, p, targets, k)
                        t = R.drawn_nb(m, t, draw)
                    else:
                        t = R.ask_often_nb(m, p, E.PH_TARGET, targets)
                I._action_rest_nb(m, p, c, t)
                played = True
    if entry == ENTRY_VICTOR and not m[E.S_DONE] and m[b + E.O_IN]:
        vi = m[E.S_VICTOR]
        ph = -1
        if vi == p:
            if R.revolution_ready_nb(m, p):
                ph = E.PH_REVOLUTION
        elif vi >= 0 and m[b + E.O_NO_CHALLENGE] == 0 and m[E.S_TURN] >= m[E.S_VICTOR_REST]:
            ph = E.PH_CHALLENGE
        if ph >= 0:
            I._rest_of_turn_nb(m, p, 1, R.ask_victor_nb(m, p, ph))
            return played
    I._rest_of_turn_nb(m, p, 0, E.NO)
    return played


def _inline(m, random_seats, heur_seats):
    """The call block as the playouts set it (``choice_values_nb``): the seats decided inline as the built-in
    random or heuristic (its registered defaults), no Akio mode, no trace, no scripted dice."""
    m[E.C_UNIFORM] = random_seats
    m[E.C_HEUR] = heur_seats
    m[E.C_AKIO_MODE] = 0
    m[E.CALL_AT + seats_nb.B_PAR_W] = len(_HP)
    for s in range(E.MAX_SEATS):
        m[E.CALL_AT + seats_nb.B_SEAT0 + 2 * s + seats_nb.B_PAR] = _HP.ctypes.data
    m[E.M_TRACE_CAP] = 0
    m[E.SCR_ON] = 0


def _positions(players, seed, overrides=(), games=3):
    """Machines at turn starts (random play from random setups), a few games per player count."""
    prep = Prepared(RunSpec(game="rose_duel", games=1, seed=seed, strategies=["random"],
                            options={"players": players}, overrides=list(overrides)).normalised())
    return I.played_states(prep.tables, prep.settings, np.random.default_rng(seed), games)


def _check_games(players, seed, overrides=(), games=3, turns=60):
    """Every turn (up to ``turns`` a game) of a few games, for the three seat mixes and the three entries: the
    kernel's turn and the copy's from the same machine are equal word for word. The game goes on from the kernel's
    machine (seats and mixes alternating). Returns (turns compared, cards played through the copy, challenges or
    Revolutions fought)."""
    n = compared = cards = duels = 0
    full = (1 << E.MAX_SEATS) - 1
    mixes = [(full, 0), (0, full), (0b010101, 0b101010)]  # random, heuristic, mixed
    for g, m in enumerate(_positions(players, seed, overrides, games)):
        for turn in range(turns):
            if m[E.S_DONE] or m[E.S_TURN] >= m[E.RULES_AT + E.R_MAX_TURNS]:
                break
            uni, heu = mixes[(g + turn) % 3]
            _inline(m, uni, heu)
            m[E.FOCUS_MEMO_AT:E.FOCUS_MEMO_AT + E.FOCUS_MEMO_N] = -1
            k = m.copy()
            _kernel_turn(k)
            for entry in ENTRIES.values():
                c = m.copy()
                cards += _copy_turn(c, entry)
                if not np.array_equal(c, k):
                    diff = np.flatnonzero(c != k)
                    raise AssertionError(f"{players} players, seed {seed} {list(overrides)}, game {g} turn "
                                         f"{int(m[E.S_TURN])} seat {int(m[E.S_CUR])} entry {entry} mix {(uni, heu)}: "
                                         f"words {diff[:12].tolist()} copy {c[diff[:12]].tolist()} kernel "
                                         f"{k[diff[:12]].tolist()}")
                compared += 1
            duels += int(k[E.S_DUELS] > m[E.S_DUELS])
            m = k
            n += 1
    return n, compared, cards, duels


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_rest_of_turn_copy_matches_the_kernel(players):
    n, compared, cards, duels = _check_games(players, seed=11 + players)
    assert n >= 60 and compared == 3 * n and cards >= 30 and duels >= 5, (n, cards, duels)


# every rules.toml switch that changes a turn outside a duel (who updates status and whether it is asked, the
# Revolution's threshold, the Victor's rest, the draw's limit, the die, the events' pile, a lost Revolution)
TURN_SWITCHES = ["rules.status_update=turn_player", "rules.status_update=all", "rules.status_update_optional=false",
                 "rules.wounds_persist=false", "rules.revolution_offset=0", "rules.revolution_players=active",
                 "rules.revolution_no_winner=victor_removed", "rules.victor_rest_turns=2", "rules.hand_limit=3",
                 "rules.die=3", "rules.used_events=reshuffle", "rules.unowned_goals=pool",
                 "rules.unplayed_goals=pool", "rules.house_goals_on_defeat=pool", "rules.max_turns=20"]


@pytest.mark.parametrize("switch", TURN_SWITCHES)
def test_rest_of_turn_copy_matches_the_kernel_under_each_switch(switch):
    n = 0
    for players in (2, 4):
        n += _check_games(players, seed=5, overrides=[switch], games=3, turns=60)[0]
    assert n >= 30


@pytest.mark.parametrize("seed", [101, 202])
def test_rest_of_turn_copy_matches_the_kernel_to_the_games_end(seed):
    """More games, each to its end (or the turn cap): ~2,800 turns a seed, ~3 s."""
    n = sum(_check_games(players, seed=seed, games=8, turns=150)[0] for players in (2, 3, 4, 5, 6))
    assert n >= 1500
