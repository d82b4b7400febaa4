"""The focus splits table (``game.split_table``: (thrust, parry) pairs with thrust + parry <= 9, thrust-major,
parry ascending; ``SPLIT_AT``, and per focus total the mask of its splits, ``SPLIT_MASK_AT``), read by the house's
fixed policy (``rules_nb.house_choice_nb``) and by strategies (the built-in heuristics' split search)."""
from numba import njit

from simulators.rose_duel.enums import MAX_FOCUS


@njit(cache=True, inline='always')
def split_total_nb(n):
    """The focus total f whose splits number ``n`` = (f + 1)(f + 2) / 2 (t + q <= f), for such an ``n``; for any
    other ``n`` some f in -1..MAX_FOCUS whose SPLIT_MASK_AT mask has another popcount. Branch-free compares
    (a sqrt took ~5% of the heuristic's time)."""
    f = -1
    for tri in (1, 3, 6, 10, 15, 21, 28, 36, 45, 55):  # (f + 1)(f + 2) / 2 for f = 0..MAX_FOCUS
        f += 1 if n >= tri else 0
    return f



@njit(cache=True, inline='always')
def split_index_nb(t, f):
    """The index of the split (thrust ``t``, parry ``f - t``) in the table: row ``t`` starts after the
    (MAX_FOCUS + 1) + MAX_FOCUS + ... splits of the rows before it."""
    return t * (MAX_FOCUS + 1) - (t * (t - 1)) // 2 + f - t
