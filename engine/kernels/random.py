"""random kernels: rng, rng_bit_generator (spec: see each function).

rng_bit_generator reproduces XLA's RngBitGenerator expansion bit for bit
(xla/service/rng_bit_generator_expander.cc + xla/hlo/builder/lib/prng.cc):
Threefry-2x32 with 20 rounds and Philox-4x32 with 10 rounds (Random123), vectorised
over counters with uint32 / uint64 NumPy arithmetic.  DEFAULT is PHILOX (XLA's CPU
default).
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...shape_inference.optable import kernel
from ..dtypes import dtype_of
from ..memory import reserve

_U32 = np.uint32
_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)

# --------------------------------------------------------------------------------------
# Random123 primitives
# --------------------------------------------------------------------------------------

_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)


def _rotl32(v: np.ndarray, d: int) -> np.ndarray:
    return (v << _U32(d)) | (v >> _U32(32 - d))


def threefry2x32(
    key: Sequence[int], x0: np.ndarray, x1: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32, 20 rounds (Salmon et al. 2011), on uint32 counter arrays."""
    k0, k1 = _U32(key[0]), _U32(key[1])
    ks = (k0, k1, _U32(0x1BD11BDA) ^ k0 ^ k1)
    x0 = np.asarray(x0, dtype=_U32)
    x1 = np.asarray(x1, dtype=_U32)
    with np.errstate(over="ignore"):
        x0 = x0 + ks[0]
        x1 = x1 + ks[1]
        for block in range(5):
            rots = _THREEFRY_ROTATIONS[:4] if block % 2 == 0 else _THREEFRY_ROTATIONS[4:]
            for r in rots:
                x0 = x0 + x1
                x1 = _rotl32(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + ks[(block + 2) % 3] + _U32(block + 1)
    return x0, x1


_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)


def philox4x32(key: Sequence[int], ctr: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Philox-4x32, 10 rounds (Salmon et al. 2011), on four uint32 counter arrays."""
    c = [np.asarray(v, dtype=_U32) for v in ctr]
    k0, k1 = int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF
    for _ in range(10):
        p0 = c[0].astype(_U64) * _U64(_PHILOX_M[0])
        p1 = c[2].astype(_U64) * _U64(_PHILOX_M[1])
        hi0, lo0 = (p0 >> _U64(32)).astype(_U32), (p0 & _MASK32).astype(_U32)
        hi1, lo1 = (p1 >> _U64(32)).astype(_U32), (p1 & _MASK32).astype(_U32)
        c = [hi1 ^ c[1] ^ _U32(k0), lo1, hi0 ^ c[3] ^ _U32(k1), lo0]
        k0 = (k0 + _PHILOX_W[0]) & 0xFFFFFFFF
        k1 = (k1 + _PHILOX_W[1]) & 0xFFFFFFFF
    return tuple(c)


def _split64(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(v, dtype=_U64)
    return (v & _MASK32).astype(_U32), (v >> _U64(32)).astype(_U32)


def _join64(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(_U64) | (hi.astype(_U64) << _U64(32))


def _counters(start: int, n: int) -> np.ndarray:
    """start + [0, n) modulo 2**64."""
    with np.errstate(over="ignore"):
        return _U64(start) + np.arange(n, dtype=_U64)


# --------------------------------------------------------------------------------------
# XLA's bit generators
# --------------------------------------------------------------------------------------


def _split_shape(shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """XLA's SplitShapeIntoHalves: (half shape, split dim); rank 0 -> ((1,), 0)."""
    if not shape:
        return (1,), 0
    split = next((i for i, d in enumerate(shape) if d % 2 == 0), None)
    if split is None:
        split = max(range(len(shape)), key=lambda i: (shape[i], -i))
    half = list(shape)
    half[split : split + 1] = [-(-shape[split] // 2), 1]
    return tuple(half), split


def threefry_bits32(key: int, ctr: int, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """XLA ThreeFryRngBit32: (uint32 array of ``shape``, new counter)."""
    half, split = _split_shape(shape)
    n = int(np.prod(half, dtype=np.int64))
    lo, hi = _split64(_counters(ctr, n))
    y0, y1 = threefry2x32((key & 0xFFFFFFFF, key >> 32), lo, hi)
    new_ctr = (ctr + n) % 2**64
    if not shape:
        return y0.reshape(()), new_ctr
    pair = np.concatenate([y0.reshape(half), y1.reshape(half)], axis=split + 1)
    full = list(shape)
    full[split] = -(-shape[split] // 2) * 2
    out = pair.reshape(full)[tuple(slice(0, d) for d in shape)]
    return np.ascontiguousarray(out), new_ctr


def threefry_bits64(key: int, ctr: int, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """XLA ThreeFryRngBit64: (uint64 array of ``shape``, new counter)."""
    n = int(np.prod(shape, dtype=np.int64))
    lo, hi = _split64(_counters(ctr, n))
    y0, y1 = threefry2x32((key & 0xFFFFFFFF, key >> 32), lo, hi)
    return _join64(y0, y1).reshape(shape), (ctr + n) % 2**64


def _philox_blocks(
    key: int, ctr_lo: int, ctr_hi: int, n4: int
) -> tuple[tuple[np.ndarray, ...], tuple[int, int]]:
    """n4 Philox blocks at the 128-bit counters ctr + [0, n4); new counter ctr + n4."""
    lo = _counters(ctr_lo, n4)
    carry = lo < _U64(ctr_lo)
    with np.errstate(over="ignore"):
        hi = np.where(carry, _U64(ctr_hi) + _U64(1), _U64(ctr_hi)).astype(_U64)
    c0, c1 = _split64(lo)
    c2, c3 = _split64(hi)
    kk = (key & 0xFFFFFFFF, key >> 32)
    bits = philox4x32(kk, (c0, c1, c2, c3))
    new_lo = (ctr_lo + n4) % 2**64
    new_hi = (ctr_hi + (1 if new_lo < ctr_lo else 0)) % 2**64
    return bits, (new_lo, new_hi)


def philox_bits32(key: int, ctr: tuple[int, int], shape: tuple[int, ...]):
    """XLA PhiloxRngBit32: (uint32 array, new 128-bit counter (lo, hi))."""
    n = int(np.prod(shape, dtype=np.int64))
    n4 = -(-n // 4)
    bits, new = _philox_blocks(key, ctr[0], ctr[1], n4)
    flat = np.stack(bits, axis=1).reshape(-1)[:n]
    return flat.reshape(shape), new


def philox_bits64(key: int, ctr: tuple[int, int], shape: tuple[int, ...]):
    """XLA PhiloxRngBit64: (uint64 array, new 128-bit counter (lo, hi))."""
    n = int(np.prod(shape, dtype=np.int64))
    n4 = -(-(2 * n) // 4)
    bits, new = _philox_blocks(key, ctr[0], ctr[1], n4)
    b64 = (_join64(bits[0], bits[1]), _join64(bits[2], bits[3]))
    flat = np.stack(b64, axis=1).reshape(-1)[:n]
    return flat.reshape(shape), new


def rng_bit_generator_arrays(
    algorithm: str, state: np.ndarray, shape: tuple[int, ...], bit_width: int
) -> tuple[np.ndarray, np.ndarray]:
    """(new state, unsigned bits of ``bit_width`` in ``shape``) as XLA computes them."""
    st = [int(v) for v in np.asarray(state, dtype=_U64)]
    if algorithm == "DEFAULT":
        algorithm = "PHILOX"
    if bit_width not in (8, 16, 32, 64):
        raise UnsupportedError(
            f"rng_bit_generator output of {bit_width}-bit elements",
            op="stablehlo.rng_bit_generator",
        )
    key = st[0] if st else 0
    if algorithm == "THREE_FRY":
        if len(st) != 2:
            raise InterpreterError(
                f"THREE_FRY needs a state of 2 elements, got {len(st)}",
                op="stablehlo.rng_bit_generator",
            )
        if bit_width == 64:
            bits, ctr = threefry_bits64(key, st[1], shape)
        else:
            bits, ctr = threefry_bits32(key, st[1], shape)
        new_state = [key, ctr]
    elif algorithm == "PHILOX":
        if len(st) == 3:
            ctr128 = (st[1], st[2])
        elif len(st) == 2:
            ctr128 = (st[1], st[0])  # XLA: Rev(state) -> (lo, hi) = (state[1], state[0])
        else:
            raise InterpreterError(
                f"PHILOX needs a state of 2 or 3 elements, got {len(st)}",
                op="stablehlo.rng_bit_generator",
            )
        if bit_width == 64:
            bits, new = philox_bits64(key, ctr128, shape)
        else:
            bits, new = philox_bits32(key, ctr128, shape)
        new_state = [key, new[0], new[1]] if len(st) == 3 else [key, new[0]]
    else:
        raise UnsupportedError(f"rng_algorithm {algorithm}", op="stablehlo.rng_bit_generator")
    if bit_width < 32:
        bits = bits.astype(np.dtype(f"uint{bit_width}"))  # XLA: truncating convert
    return np.array(new_state, dtype=_U64), bits


@kernel("stablehlo.rng_bit_generator")
def rng_bit_generator(initial_state: np.ndarray, *, result_types, rng_algorithm: str, **_: object):
    """spec: rng_bit_generator -> (output_state, output); the output's bits are those of
    XLA's generator, bitcast to the output element type."""
    if initial_state.dtype != np.uint64 or initial_state.ndim != 1:
        # MLIR's verifier accepts any state tensor; XLA's algorithms are defined on 1-D u64
        raise UnsupportedError(
            f"rng_bit_generator with a {initial_state.dtype} state of shape "
            f"{initial_state.shape} (only a 1-D ui64 state is supported)",
            op="stablehlo.rng_bit_generator",
        )
    out_t = result_types[1]
    out_dt = dtype_of(out_t)
    shape = tuple(out_t.shape)
    if any(d is None for d in shape):
        raise InterpreterError(
            "rng_bit_generator output shape must be static", op="stablehlo.rng_bit_generator"
        )
    if out_dt == np.bool_ or out_dt.kind == "c":
        raise UnsupportedError(
            f"rng_bit_generator output of {out_dt}", op="stablehlo.rng_bit_generator"
        )
    width = out_dt.itemsize * 8
    if out_dt.kind == "V" or out_dt.kind not in "iuf":
        # ml_dtypes: sub-byte ints and narrow floats report their storage itemsize
        try:
            width = ml_dtypes.finfo(out_dt).bits
        except ValueError:
            width = ml_dtypes.iinfo(out_dt).bits
    new_state, bits = rng_bit_generator_arrays(rng_algorithm, initial_state, shape, width)
    return new_state, bits.view(out_dt).reshape(shape)


# --------------------------------------------------------------------------------------
# rng
# --------------------------------------------------------------------------------------

_RNG_SEED = 0x5EED
_rng_state = {"gen": np.random.Generator(np.random.Philox(_RNG_SEED))}


def reset_rng(seed: int = _RNG_SEED) -> None:
    """Restart stablehlo.rng's hidden generator (deterministic per process)."""
    _rng_state["gen"] = np.random.Generator(np.random.Philox(seed))


@kernel("stablehlo.rng")
def rng(
    a: np.ndarray,
    b: np.ndarray,
    shape: np.ndarray,
    *,
    result_type,
    rng_distribution: str,
    **_: object,
) -> np.ndarray:
    """spec: rng (implementation-defined generator): NumPy's Philox generator seeded
    with a fixed seed at start-up (``reset_rng`` restarts it); UNIFORM in [a, b) for
    floats, integers and booleans; NORMAL with mean a and standard deviation b.  With
    a >= b (UNIFORM) or b < 0 (NORMAL), the spec leaves the behaviour undefined: the
    result is filled with ``a``."""
    out = dtype_of(result_type)
    dims = tuple(int(v) for v in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims):
        raise InterpreterError(
            f"rng shape has a negative dimension: {list(dims)}", op="stablehlo.rng"
        )
    declared = getattr(result_type, "shape", None)
    if declared is not None and (
        len(declared) != len(dims) or any(d is not None and d != v for d, v in zip(declared, dims))
    ):  # rng_c3
        raise InterpreterError(
            f"shape {list(dims)} does not match the result type's shape (rng_c3)",
            op="stablehlo.rng",
        )
    reserve(dims, out)  # the memory budget, before allocating
    gen = _rng_state["gen"]
    if out == np.bool_ or out.kind in "iu":
        lo, hi = int(np.asarray(a).item()), int(np.asarray(b).item())
        if rng_distribution != "UNIFORM":
            raise InterpreterError("NORMAL rng needs a floating-point type", op="stablehlo.rng")
        if lo >= hi:
            return np.full(dims, a, dtype=out)
        wide = np.uint64 if out.kind == "u" else np.int64
        return gen.integers(lo, hi, size=dims, dtype=wide).astype(out)
    flo = float(np.asarray(a).astype(np.float64))
    fhi = float(np.asarray(b).astype(np.float64))
    if rng_distribution == "UNIFORM":
        if not flo < fhi:
            return np.full(dims, a, dtype=out)
        y = gen.uniform(flo, fhi, size=dims).astype(out)
        # rounding to a narrow type may reach b: keep the interval half-open
        return np.where(y.astype(np.float64) >= fhi, np.asarray(a, dtype=out), y).astype(out)
    if rng_distribution == "NORMAL":
        if fhi < 0:
            return np.full(dims, a, dtype=out)
        return gen.normal(flo, fhi, size=dims).astype(out)
    raise UnsupportedError(f"rng_distribution {rng_distribution}", op="stablehlo.rng")
