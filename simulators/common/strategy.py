"""The one strategy signature every game uses.

``fn(phase, m, seat, mask, params) -> int``: ``phase`` says which decision is asked
(game-specific ints), ``m`` is the game's machine array (int64: state, data tables,
the game's random stream), ``seat`` the deciding player, ``mask`` a bit per legal
choice (up to 63 choices per decision; larger menus are asked in steps), ``params``
the strategy's float64 knobs. The return value must be an index whose bit is set.

Because strategies arrive in kernels as first-class functions of this type, a game's
chunk kernel is compiled (and cached) once for all strategies, built-in or plugged in.
"""
from numba import types

STRATEGY_SIG = types.int64(types.int64, types.int64[::1], types.int64, types.int64, types.float64[::1])
STRATEGY_T = types.FunctionType(STRATEGY_SIG)
