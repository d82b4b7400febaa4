"""The k-th set bit of a mask: every way the kernels pick it gives the same bit (a random seat's draw depends on it,
so a faster way must not change a single game)."""
import numpy as np
import pytest
from numba import njit

from simulators.common import rng_nb as R


@njit(cache=True)
def _all_ways(masks, ks, out):
    for i in range(masks.size):
        out[i, 0] = R.select_bit_nb(masks[i], ks[i])
        out[i, 1] = R.select_search_nb(masks[i], ks[i])
        out[i, 2] = R.select_bit16_nb(masks[i], ks[i])
        out[i, 3] = R.select_table16_nb(masks[i], ks[i])


def _reference(mask: int, k: int) -> int:
    return [i for i in range(63) if (mask >> i) & 1][k]


@pytest.mark.parametrize("bits", [8, 16, 17, 40, 62])
def test_every_select_gives_the_kth_set_bit(bits):
    rng = np.random.default_rng(bits)
    masks = rng.integers(1, 1 << bits, 3000, dtype=np.int64)
    masks[:bits] = [(1 << j) - 1 if j else 1 for j in range(bits)]  # 0..n-1, the shortcut of the search
    masks[bits:2 * bits] = [1 << j for j in range(bits)]  # one bit
    ks = np.array([rng.integers(0, int(x).bit_count()) for x in masks], dtype=np.int64)
    out = np.zeros((masks.size, 4), dtype=np.int64)
    _all_ways(masks, ks, out)
    want = np.array([_reference(int(x), int(k)) for x, k in zip(masks, ks)])
    for way in range(4):
        assert np.array_equal(out[:, way], want), f"way {way}"


@pytest.mark.parametrize("name, bmi2, want", [("znver3", True, True), ("znver5", True, True), ("skylake", True, True),
                                              ("znver2", True, False), ("znver1", True, False),
                                              ("x86-64", False, False)])
def test_pdep_only_where_it_is_one_fast_instruction(monkeypatch, name, bmi2, want):
    import llvmlite.binding as ll

    monkeypatch.setattr(ll, "get_host_cpu_name", lambda: name)
    monkeypatch.setattr(ll, "get_host_cpu_features", lambda: {"bmi2": bmi2})
    assert R._fast_pdep() is want


def test_no_pdep_when_the_host_has_no_x86_features(monkeypatch):
    import llvmlite.binding as ll

    def no_features():
        raise RuntimeError("no host features on this target")

    monkeypatch.setattr(ll, "get_host_cpu_features", no_features)
    assert R._fast_pdep() is False


def test_no_pdep_for_a_named_numba_target(monkeypatch):
    # NUMBA_CPU_NAME=generic builds code for any x86-64, which may lack BMI2
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "generic")
    assert R._fast_pdep() is False
    monkeypatch.setattr(config, "CPU_NAME", None)
    assert R._fast_pdep() is R.FAST_PDEP


@njit(cache=True)
def _cmov_all(cs, xs, ys, out):
    for i in range(cs.size):
        out[i] = R.cmov_nb(cs[i], xs[i], ys[i])
        out[cs.size + i] = R.cmov_nb(cs[i] != 0, xs[i], ys[i])  # a bool condition, as the kernels pass


def test_cmov_is_a_select():
    """cmov_nb(c, a, b) is ``a if c else b`` for any int64 condition (not only 0/1) and operands (the inline asm on
    x86-64, a plain select elsewhere)."""
    rng = np.random.default_rng(3)
    edge = np.array([0, 1, -1, 2, 63, np.iinfo(np.int64).max, np.iinfo(np.int64).min], np.int64)
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    cs = np.concatenate([edge, rng.integers(-3, 3, 500), rng.integers(lo, hi, 200)])
    xs = rng.integers(lo, hi, cs.size)
    ys = rng.integers(lo, hi, cs.size)
    out = np.zeros(2 * cs.size, np.int64)
    _cmov_all(cs, xs, ys, out)
    want = np.where(cs != 0, xs, ys)
    assert (out[:cs.size] == want).all() and (out[cs.size:] == want).all()
    assert (cs == 0).any() and (cs != 0).any()


@njit(cache=True)
def _step_if(c, s):
    a = R.xoshiro_step_nb(s[0], s[1], s[2], s[3])
    b = R.xoshiro_step_if_nb(c, s[0], s[1], s[2], s[3])
    return a, b


def test_step_if_advances_the_stream_only_when_due():
    s = np.array([0x9E3779B97F4A7C15, 12345, 0xDEADBEEF, 7], np.uint64)
    full, yes = _step_if(True, s)
    assert yes == full
    _, no = _step_if(False, s)
    assert no[0] == full[0] and tuple(no[1:]) == tuple(s)  # the same output word, the state untouched
