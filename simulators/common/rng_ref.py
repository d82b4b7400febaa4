"""A plain-Python twin of :mod:`simulators.common.rng_nb` for the reference engines.

Same seeding (splitmix64 over the run key and the game index), same xoshiro256** stream and
the same ways of turning a 64-bit word into a choice (``below``: multiply-shift on the high
32 bits; ``bit``: the k-th set bit of a mask). A reference engine that asks for the same
numbers in the same order therefore sees the same game as the Numba kernel. Python ints are
unbounded, so every step masks to 64 bits by hand.
"""
from __future__ import annotations

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def splitmix64(x: int) -> int:
    """One splitmix64 output for the input word ``x``."""
    z = (x + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * _MIX1) & M64
    z = ((z ^ (z >> 27)) * _MIX2) & M64
    return z ^ (z >> 31)


class Stream:
    """The random stream of one game: xoshiro256** seeded from (run key, game index)."""

    __slots__ = ("s0", "s1", "s2", "s3")

    def __init__(self, key, game: int):
        k0, k1 = int(key[0]), int(key[1])
        z = splitmix64(k0 ^ splitmix64((k1 + game) & M64))
        words = []
        for _ in range(4):
            z = (z + GOLDEN) & M64
            words.append(splitmix64(z))
        self.s0, self.s1, self.s2, self.s3 = words

    def next_u64(self) -> int:
        """The next 64-bit output (xoshiro256**: result = rotl(s1 * 5, 7) * 9)."""
        s0, s1, s2, s3 = self.s0, self.s1, self.s2, self.s3
        x = (s1 * 5) & M64
        result = ((((x << 7) | (x >> 57)) & M64) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & M64
        self.s0, self.s1, self.s2, self.s3 = s0, s1, s2, s3
        return result

    def below(self, n: int) -> int:
        """Uniform int in [0, n) (n < 2**32): the high 32 bits times n, shifted down."""
        return ((self.next_u64() >> 32) * n) >> 32

    def unit(self) -> float:
        """Uniform float in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def bit(self, mask: int) -> int:
        """A uniformly chosen set bit of ``mask`` (-1, and no draw, when ``mask`` is 0)."""
        n = bin(mask).count("1")
        if n == 0:
            return -1
        k = self.below(n)
        i = 0
        while True:  # the k-th set bit from the lowest
            if (mask >> i) & 1:
                if k == 0:
                    return i
                k -= 1
            i += 1
