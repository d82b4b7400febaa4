"""Per-game random streams inside Numba kernels.

Every game owns a 4-word xoshiro256** state, stored as int64 in four slots of the
game's machine array at offset ``at`` (kernels pass one array around; the casts
between int64 and uint64 are bit-for-bit). The state is seeded from the run's
root key and the game's index, so a game's outcome never depends on chunking,
threads, processes or executor. Numba's own generator is per thread and cannot be
seeded from Python, so it is never used.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic
from numba.types import int64 as i8

from simulators.common.numba_compat import first_use

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U7 = np.uint64(7)
_U57 = np.uint64(57)
_U45 = np.uint64(45)
_U19 = np.uint64(19)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline='always')
def splitmix64_nb(x):
    """One splitmix64 output for the input word ``x`` (a bijective mixer)."""
    z = np.uint64(x) + _GOLDEN
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@njit(cache=True, inline='always')
def seed_words_nb(key, game):
    """The four state words of game index ``game``'s stream from the run key (uint64[2])."""
    z = splitmix64_nb(key[0] ^ splitmix64_nb(key[1] + np.uint64(game)))
    s0 = splitmix64_nb(z + _GOLDEN)
    s1 = splitmix64_nb(z + _GOLDEN * np.uint64(2))
    s2 = splitmix64_nb(z + _GOLDEN * np.uint64(3))
    s3 = splitmix64_nb(z + _GOLDEN * np.uint64(4))
    return s0, s1, s2, s3


@njit(cache=True, inline='always')
def set_stream_nb(m, at, s0, s1, s2, s3):
    """Store a stream's four state words (uint64) in ``m[at:at+4]``."""
    m[at] = np.int64(s0)
    m[at + 1] = np.int64(s1)
    m[at + 2] = np.int64(s2)
    m[at + 3] = np.int64(s3)


@njit(cache=True)
def seed_nb(m, at, key, game):
    """Seed the stream in ``m[at:at+4]`` for game index ``game`` from the run key (uint64[2])."""
    s0, s1, s2, s3 = seed_words_nb(key, game)
    set_stream_nb(m, at, s0, s1, s2, s3)


@njit(cache=True, inline='always')
def xoshiro_step_nb(s0, s1, s2, s3):
    """One xoshiro256** step on a state held in locals (uint64): (output, new s0, s1, s2, s3)."""
    x = s1 * _U5
    result = ((x << _U7) | (x >> _U57)) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U45) | (s3 >> _U19)
    return result, s0, s1, s2, s3


@njit(cache=True, inline='always')
def below_nb(u, n):
    """Uniform int in [0, n) for 0 < n < 2**32 from one 64-bit output ``u`` (multiply-shift; bias below n / 2**32)."""
    return np.int64(((u >> _U32) * np.uint64(n)) >> _U32)


@njit(cache=True, inline='always')
def next_u64_nb(m, at):
    """Next 64-bit output of xoshiro256** (advances the state in place)."""
    result, s0, s1, s2, s3 = xoshiro_step_nb(np.uint64(m[at]), np.uint64(m[at + 1]), np.uint64(m[at + 2]),
                                             np.uint64(m[at + 3]))
    m[at] = np.int64(s0)
    m[at + 1] = np.int64(s1)
    m[at + 2] = np.int64(s2)
    m[at + 3] = np.int64(s3)
    return result


@njit(cache=True, inline='always')
def unit_float_nb(u):
    """Uniform float in [0, 1) with 53 random bits from one 64-bit output ``u`` (for a stream held in locals)."""
    return float(u >> _U11) * _INV53


@njit(cache=True, inline='always')
def rand_float_nb(m, at):
    """Uniform float in [0, 1) with 53 random bits."""
    return unit_float_nb(next_u64_nb(m, at))


@njit(cache=True, inline='always')
def rand_below_nb(m, at, n):
    """Uniform int in [0, n) for 0 < n < 2**32 (multiply-shift; bias below n / 2**32)."""
    return below_nb(next_u64_nb(m, at), n)


@intrinsic
def popcount_nb(typingctx, mask):
    """Set bits of ``mask`` as an int64, one ``llvm.ctpop`` (a ``popcnt``). A narrower integer is widened by its
    sign first, as the Python loop it replaces (``mask &= mask - 1`` on int64) counted. That loop became a
    ``popcnt`` at some inlined sites but stayed a loop of a mispredicted length at others."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        x = args[0]
        i64 = ir.IntType(64)
        if mask.bitwidth < 64:
            x = builder.sext(x, i64) if mask.signed else builder.zext(x, i64)
        return builder.ctpop(x)

    return types.int64(mask), codegen


def _fast_pdep() -> bool:
    """Whether this host's ``pdep`` is one fast instruction: x86-64 with BMI2, except AMD's Zen 1 and 2, which run
    it in microcode (tens to hundreds of cycles). Numba's cache is keyed by the CPU name and features, so code
    compiled with it is never loaded on a host without it. A target named by ``NUMBA_CPU_NAME`` (a portable build,
    e.g. ``generic``) may lack BMI2, so it gets the portable search."""
    import llvmlite.binding as ll

    from simulators.common.numba_compat import cpu_name_override

    if cpu_name_override() not in (None, "host"):
        return False
    try:
        feats = ll.get_host_cpu_features()
        return bool(feats.get("bmi2", False)) and ll.get_host_cpu_name() not in ("znver1", "znver2")
    except RuntimeError:  # features unknown to LLVM on this host: the portable search
        return False


FAST_PDEP = _fast_pdep()


@intrinsic
def pdep_nb(typingctx, src, mask):
    """``pdep(src, mask)`` (BMI2, ``llvm.x86.bmi.pdep.64``) on int64: the low bits of ``src`` deposited at the set
    bits of ``mask``. Only where ``FAST_PDEP`` holds (the instruction exists)."""
    if not (isinstance(src, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", fnty=ir.FunctionType(i64, [i64, i64]))
        a = context.cast(builder, args[0], sig.args[0], types.int64)
        b = context.cast(builder, args[1], sig.args[1], types.int64)
        return builder.call(fn, [a, b])

    return types.int64(src, mask), codegen


@intrinsic
def trailing_zeros_nb(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (``llvm.cttz``, a ``tzcnt``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        a = context.cast(builder, args[0], sig.args[0], types.int64)
        return builder.cttz(a, ir.Constant(ir.IntType(1), 1))

    return types.int64(x), codegen


def _x86_64() -> bool:
    """Whether ``cmov_nb`` emits its inline asm: on x86-64, once LLVM's asm parser is initialised (Numba leaves it
    out; without it the asm does not assemble)."""
    import platform

    import llvmlite.binding as ll

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        ll.initialize_native_asmparser()
    except RuntimeError:
        return False
    return True


X86_64 = _x86_64()


@intrinsic
def cmov_nb(typingctx, c, a, b):
    """``a if c else b`` on int64 as a ``cmov`` that LLVM cannot turn back into a branch (inline asm on x86-64; a
    plain ``select`` elsewhere). For a select on a random condition: LLVM rewrites a ``select`` whose operands are
    loads, or whose condition a later branch also tests, into a branch, which is then mispredicted as often as the
    condition is random."""
    if not all(isinstance(x, (types.Integer, types.Boolean)) for x in (c, a, b)):
        return None

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        cc = context.cast(builder, args[0], sig.args[0], types.int64)
        x = context.cast(builder, args[1], sig.args[1], types.int64)
        y = context.cast(builder, args[2], sig.args[2], types.int64)
        if not X86_64:
            return builder.select(builder.icmp_signed("!=", cc, ir.Constant(i64, 0)), x, y)
        fnty = ir.FunctionType(i64, [i64, i64, i64])
        return builder.asm(fnty, "testq $1, $1\n\tcmovneq $2, $0", "=r,r,r,0,~{flags}", [cc, x, y], False, "cmov")

    return types.int64(c, a, b), codegen


@njit(cache=True, inline='always')
def xoshiro_step_if_nb(c, s0, s1, s2, s3):
    """``xoshiro_step_nb`` on a state held in locals, the state advanced only when ``c`` (a draw made only when it is
    due), by ``cmov_nb`` selects rather than a branch on ``c``: (output, new s0, s1, s2, s3); the output is the
    step's either way (use it only when ``c``)."""
    u, t0, t1, t2, t3 = xoshiro_step_nb(s0, s1, s2, s3)
    return (u, np.uint64(cmov_nb(c, t0, s0)), np.uint64(cmov_nb(c, t1, s1)), np.uint64(cmov_nb(c, t2, s2)),
            np.uint64(cmov_nb(c, t3, s3)))


@njit(cache=True, inline='always')
def select_search_nb(mask, k):
    """``select_bit_nb`` without ``pdep``: branch-free, a binary search over halves by popcount (~30 cycles of
    dependent steps), so a random ``k`` costs no mispredicted branches (the loop it replaced cost ~2 a draw)."""
    if mask & (mask + 1) == 0:
        return k  # the set bits are 0..n-1 (e.g. a full hand): the k-th is k
    pos = 0
    for w in (32, 16, 8, 4, 2, 1):  # unrolled by LLVM; each step compiles to cmovs
        c = popcount_nb(mask & ((1 << w) - 1))
        up = k >= c
        k = k - c if up else k
        mask = mask >> w if up else mask
        pos = pos + w if up else pos
    return pos


@njit(cache=True, inline='always')
def select_bit_nb(mask, k):
    """Index of the ``k``-th (0-based, from the lowest) set bit of a non-negative ``mask``
    (``k`` < its popcount). Where ``pdep`` is fast, the lowest set bit of ``pdep(1 << k, mask)`` (two
    instructions, no branch); elsewhere ``select_search_nb``."""
    if FAST_PDEP:
        return trailing_zeros_nb(pdep_nb(np.int64(1) << k, mask))
    return select_search_nb(mask, k)


@njit(cache=True, inline='always')
def rand_bit_nb(m, at, mask):
    """Index of a uniformly chosen set bit of ``mask`` (-1 when ``mask`` is 0): one
    ``rand_below_nb(popcount)`` draw picks the k-th set bit from the lowest."""
    n = popcount_nb(mask)
    if n == 0:
        return -1
    return select_bit_nb(mask, rand_below_nb(m, at, n))


def _byte_select_table():
    """``SEL8[b * 8 + k]``: the index of the ``k``-th set bit of the byte ``b`` (0 past its popcount)."""
    t = np.zeros(256 * 8, np.uint8)
    for b in range(256):
        for k, i in enumerate(i for i in range(8) if (b >> i) & 1):
            t[b * 8 + k] = i
    return t


SEL8 = _byte_select_table()


@first_use(i8(i8, i8))
def _select_wide_nb(mask, k):
    """``select_search_nb`` for masks of 16 bits or more, as a call, so that each inlined ``select_table16_nb``
    carries the table path alone."""
    return select_search_nb(mask, k)


@njit(cache=True, inline='always')
def select_table16_nb(mask, k):
    """``select_bit16_nb`` without ``pdep``: for a mask below 2**16, the byte holding the ``k``-th set bit, then its
    entry in a 2 KB table (branch-free), instead of six dependent halving steps (~25 cycles); wider masks take
    the search as a call."""
    if mask & (mask + 1) == 0:
        return k  # the set bits are 0..n-1
    if mask >> 16:
        return _select_wide_nb(mask, k)
    lo = mask & 0xFF
    pl = popcount_nb(lo)
    low = k < pl
    byte = lo if low else mask >> 8
    kk = k if low else k - pl
    return (0 if low else 8) + np.int64(SEL8[byte * 8 + kk])


@njit(cache=True, inline='always')
def select_bit16_nb(mask, k):
    """``select_bit_nb``'s answer (the same bit) for decisions whose masks are mostly below 2**16 (hand slots with a
    pass bit, seats, options): ``select_bit_nb`` where ``pdep`` is fast, otherwise ``select_table16_nb``, which
    keeps each inlined copy small (wide masks take a call)."""
    if FAST_PDEP:
        return trailing_zeros_nb(pdep_nb(np.int64(1) << k, mask))
    return select_table16_nb(mask, k)


@njit(cache=True, inline='always')
def rand_bit16_nb(m, at, mask):
    """``rand_bit_nb`` (the same draw, the same bit) through ``select_bit16_nb``: for masks mostly below 2**16."""
    n = popcount_nb(mask)
    if n == 0:
        return -1
    return select_bit16_nb(mask, rand_below_nb(m, at, n))


@njit(cache=True, inline='always')
def rand_bit16_inline_nb(m, at, mask):
    """``rand_bit16_nb`` (the same draw, the same bit) with no call: masks of 16 bits or more take the halving
    search inline instead of ``_select_wide_nb``. For a kernel's one draw site that serves wide masks too."""
    n = popcount_nb(mask)
    if n == 0:
        return -1
    k = rand_below_nb(m, at, n)
    if FAST_PDEP or mask >> 16:
        return select_bit_nb(mask, k)
    return select_bit16_nb(mask, k)
