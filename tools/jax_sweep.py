"""Export a broad sweep of small JAX programs and record JAX's own outputs (a bug hunt).

Run with the jax venv (never hlorun's; tests never import this file):

    /work/venvs/jax/bin/python tools/jax_sweep.py [--out /work/sweep_out] [NAME_SUBSTRING ...]

For each program NAME it writes, into the output folder (outside the repo):

- NAME.mlir      exported.mlir_module(): StableHLO text
- NAME.mlirbc    exported.mlir_module_serialized: the portable artifact
- NAME.exported  exported.serialize(): the jax.export flatbuffer container
- NAME.v_min.mlirbc / NAME.v_cur.mlirbc  the text re-serialized for the oldest and the
                 newest StableHLO version this jaxlib writes (when it can)
- NAME.inputs.npz / NAME.outputs.npz  all flattened inputs, and JAX's outputs (from
                 exported.call on cpu), as arr_0, arr_1, ...; ml_dtypes arrays stored as
                 same-width uint views (the fixture generator's write_npz)

and manifest.json: per program its dtypes, module_kept_var_idx, x64, how to compare
(`check`: allclose / sorted / eigh / svd / qr / ...) and the tolerance class (`tol`:
exact / ulp / special / approx / linalg / fft; tools/jax_sweep_check.py turns a class and
a dtype into rtol/atol). Inputs are seeded by the program's name: the sweep is
deterministic. tools/jax_sweep_check.py (hlorun's venv) runs and compares them.

None of these programs is a case of tests/fixtures/jax/cases.py: when the sweep finds a
bug, its regression goes there (see that folder's README).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import jax.scipy.special as jss
import ml_dtypes
import numpy as np
from jax import lax
from jax._src.lib.mlir.dialects import hlo

# the fixture generator's npz writer and message helper (tests/fixtures/jax/generate.py;
# importing it also sets XLA_FLAGS to 8 host devices, before jax's backend starts: the
# sharded programs use 4 of them, the others run on the first)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "jax"))
from generate import _msg, write_npz  # noqa: E402

jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")


DT = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "bool": np.bool_,
}
WIDE = {"f64", "c128", "i64", "u64"}


@dataclass
class Prog:
    name: str
    fn: Callable[..., Any]
    args: Callable[[np.random.Generator], tuple[Any, ...]]
    x64: bool = False
    tol: str = "exact"  # exact | ulp | special | approx | linalg | fft
    check: str = "allclose"  # allclose | sorted | eigh | svd | qr | eig | topk | random
    poly: tuple[str | None, ...] | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    known: str = ""  # a mismatch already explained (XLA departs from the spec...): why


PROGS: list[Prog] = []


def prog(name: str, fn: Callable[..., Any], args: Callable[..., Any], **kw: Any) -> None:
    assert all(p.name != name for p in PROGS), name
    PROGS.append(Prog(name, fn, args, **kw))


def rng_for(name: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(name.encode()))


def N(shape: tuple[int, ...], dt: str = "f32", scale: float = 1.0):
    """Normal samples (complex: independent parts)."""

    def make(r: np.random.Generator) -> np.ndarray:
        x = r.standard_normal(shape) * scale
        if dt in ("c64", "c128"):
            x = x + 1j * r.standard_normal(shape) * scale
        return np.asarray(x).astype(DT[dt])

    return make


def U(shape: tuple[int, ...], dt: str, lo: float, hi: float):
    def make(r: np.random.Generator) -> np.ndarray:
        x = r.uniform(lo, hi, shape)
        if dt in ("c64", "c128"):
            x = x + 1j * r.uniform(lo, hi, shape)
        return np.asarray(x).astype(DT[dt])

    return make


def I(shape: tuple[int, ...], dt: str, lo: int, hi: int):  # noqa: E743
    def make(r: np.random.Generator) -> np.ndarray:
        return r.integers(lo, hi, shape, endpoint=False).astype(DT[dt])

    return make


def C(a: Any, dt: str | None = None):
    """A constant input."""
    arr = np.asarray(a) if dt is None else np.asarray(a).astype(DT[dt])
    return lambda r: arr


def A(*makers):
    return lambda r: tuple(m(r) for m in makers)


SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0]


def with_specials(maker):
    """The maker's values with the IEEE specials in front (shape (k,) only)."""

    def make(r: np.random.Generator) -> np.ndarray:
        x = maker(r)
        s = np.array(SPECIALS).astype(x.dtype)
        return np.concatenate([s, x])

    return make


FLOATS = ("f16", "bf16", "f32", "f64")


def x64_of(*dts: str) -> bool:
    return any(d in WIDE for d in dts)


# ============================================================================ elementwise

UNARY: list[tuple[str, Callable[..., Any], float, float, str]] = [
    ("exp", jnp.exp, -5, 5, "ulp"),
    ("log", jnp.log, 0.01, 10, "ulp"),
    ("log1p", jnp.log1p, -0.9, 5, "ulp"),
    ("expm1", jnp.expm1, -3, 3, "ulp"),
    ("sin", jnp.sin, -10, 10, "ulp"),
    ("cos", jnp.cos, -10, 10, "ulp"),
    ("tan", jnp.tan, -1.5, 1.5, "ulp"),
    ("tanh", jnp.tanh, -5, 5, "ulp"),
    ("sinh", jnp.sinh, -5, 5, "ulp"),
    ("cosh", jnp.cosh, -5, 5, "ulp"),
    ("arcsin", jnp.arcsin, -1, 1, "ulp"),
    ("arccos", jnp.arccos, -1, 1, "ulp"),
    ("arctan", jnp.arctan, -10, 10, "ulp"),
    ("arcsinh", jnp.arcsinh, -10, 10, "ulp"),
    ("arccosh", jnp.arccosh, 1, 10, "ulp"),
    ("arctanh", jnp.arctanh, -0.99, 0.99, "ulp"),
    ("sqrt", jnp.sqrt, 0, 10, "ulp"),
    ("rsqrt", lax.rsqrt, 0.01, 10, "ulp"),
    ("cbrt", jnp.cbrt, -10, 10, "ulp"),
    ("exp2", jnp.exp2, -5, 5, "ulp"),
    ("log2", jnp.log2, 0.01, 10, "ulp"),
    ("log10", jnp.log10, 0.01, 10, "ulp"),
    ("sigmoid", jax.nn.sigmoid, -8, 8, "ulp"),
    ("softplus", jax.nn.softplus, -8, 8, "ulp"),
    ("gelu_exact", partial(jax.nn.gelu, approximate=False), -4, 4, "special"),
    ("gelu_tanh", partial(jax.nn.gelu, approximate=True), -4, 4, "ulp"),
    ("silu", jax.nn.silu, -6, 6, "ulp"),
    ("erf", lax.erf, -3, 3, "special"),
    ("erfc", lax.erfc, -3, 3, "special"),
    ("erfinv", lax.erf_inv, -0.99, 0.99, "special"),
    ("lgamma", lax.lgamma, 0.1, 8, "special"),
    ("lgamma_neg", lax.lgamma, -4.9, -0.1, "special"),
    ("digamma", lax.digamma, 0.1, 8, "special"),
    ("digamma_neg", lax.digamma, -4.9, -0.1, "special"),
    ("round_even", lambda x: jnp.round(x * 2.5), -5, 5, "exact"),
    ("round_away", lambda x: lax.round(x * 2.5, lax.RoundingMethod.AWAY_FROM_ZERO), -5, 5, "exact"),
    ("floor_ceil", lambda x: (jnp.floor(x * 3), jnp.ceil(x * 3)), -5, 5, "exact"),
    ("sign_abs", lambda x: (jnp.sign(x), jnp.abs(x), -x), -5, 5, "exact"),
    ("reciprocal", jnp.reciprocal, 0.1, 5, "ulp"),
    ("square_pow", lambda x: (jnp.square(x), x**3, x**-2, lax.integer_pow(x, 7)), -2, 2, "ulp"),
    ("pow_float", lambda x: jnp.power(jnp.abs(x) + 0.1, x), -3, 3, "ulp"),
    ("is_finite", lambda x: (jnp.isfinite(x), jnp.isnan(x), jnp.isinf(x)), -3, 3, "exact"),
    ("i0e_i1e", lambda x: (jss.i0e(x), jss.i1e(x)), -10, 10, "special"),
    ("i0_i1", lambda x: (jss.i0(x), jss.i1(x)), -5, 5, "special"),
    (
        "ndtr_ndtri",
        lambda x: (jss.ndtr(x), jss.log_ndtr(x), jss.ndtri(jss.expit(x))),
        -4,
        4,
        "special",
    ),
    ("logit_entr", lambda x: (jss.logit(jss.expit(x)), jss.entr(jnp.abs(x))), -4, 4, "special"),
]

for _name, _fn, _lo, _hi, _tol in UNARY:
    for _dt in FLOATS if _name != "ndtr_ndtri" else ("f32", "f64"):
        prog(
            f"un_{_name}_{_dt}",
            _fn,
            A(U((24,), _dt, _lo, _hi)),
            x64=x64_of(_dt),
            tol=_tol,
        )

# IEEE specials through the common functions (f32 and f64)
for _name, _fn in [
    ("exp", jnp.exp),
    ("log", jnp.log),
    ("sqrt", jnp.sqrt),
    ("tanh", jnp.tanh),
    ("sin", jnp.sin),
    ("atan", jnp.arctan),
    ("log1p", jnp.log1p),
    ("expm1", jnp.expm1),
    ("sign", jnp.sign),
    ("floor", jnp.floor),
    ("round", jnp.round),
    ("rsqrt", lax.rsqrt),
    ("cbrt", jnp.cbrt),
    ("logistic", jax.nn.sigmoid),
    ("erf", lax.erf),
    ("lgamma", lax.lgamma),
    ("digamma", lax.digamma),
    ("erfinv", lax.erf_inv),
]:
    for _dt in ("f32", "f64"):
        prog(
            f"edge_{_name}_{_dt}",
            _fn,
            A(with_specials(U((5,), _dt, -3, 3))),
            x64=x64_of(_dt),
            tol="special" if _name in ("erf", "lgamma", "digamma", "erfinv") else "ulp",
        )

COMPLEX_UNARY: list[tuple[str, Callable[..., Any], str]] = [
    ("exp", jnp.exp, "ulp"),
    ("log", jnp.log, "ulp"),
    ("sin", jnp.sin, "ulp"),
    ("cos", jnp.cos, "ulp"),
    ("tan", jnp.tan, "ulp"),
    ("tanh", jnp.tanh, "ulp"),
    ("sqrt", jnp.sqrt, "ulp"),
    ("rsqrt", lax.rsqrt, "ulp"),
    ("abs_angle", lambda z: (jnp.abs(z), jnp.angle(z), jnp.real(z), jnp.imag(z)), "ulp"),
    ("expm1", jnp.expm1, "ulp"),
    ("log1p", jnp.log1p, "ulp"),
    ("arcsin", jnp.arcsin, "ulp"),
    ("arccos", jnp.arccos, "ulp"),
    ("arctan", jnp.arctan, "ulp"),
    ("arcsinh", jnp.arcsinh, "ulp"),
    ("arctanh", jnp.arctanh, "ulp"),
    ("sinh_cosh", lambda z: (jnp.sinh(z), jnp.cosh(z)), "ulp"),
    ("pow", lambda z: (z**3, z**0.5, jnp.power(z, z)), "ulp"),
    ("sign_recip", lambda z: (jnp.sign(z), 1 / z, jnp.conj(z), z * z), "ulp"),
    ("mul_div", lambda z: (z * (z + 1j), z / (z - 2j), jnp.square(z)), "ulp"),
]
for _name, _fn, _tol in COMPLEX_UNARY:
    for _dt in ("c64", "c128"):
        prog(f"cx_{_name}_{_dt}", _fn, A(N((12,), _dt)), x64=x64_of(_dt), tol=_tol)

BINARY: list[tuple[str, Callable[..., Any], Callable[..., Any], str]] = [
    ("atan2", jnp.arctan2, lambda dt: A(N((20,), dt), N((20,), dt)), "ulp"),
    ("nextafter", jnp.nextafter, lambda dt: A(N((20,), dt), N((20,), dt)), "exact"),
    ("hypot", jnp.hypot, lambda dt: A(N((20,), dt), N((20,), dt)), "ulp"),
    (
        "rem_fmod",
        lambda a, b: (lax.rem(a, b), jnp.fmod(a, b), jnp.remainder(a, b)),
        lambda dt: A(N((20,), dt, 5), N((20,), dt)),
        "ulp",
    ),
    ("floor_divide", jnp.floor_divide, lambda dt: A(N((20,), dt, 5), N((20,), dt)), "ulp"),
    (
        "maxmin_nan",
        lambda a, b: (jnp.maximum(a, b), jnp.minimum(a, b), jnp.fmax(a, b)),
        lambda dt: A(
            with_specials(N((5,), dt)), lambda r: np.roll(with_specials(N((5,), dt))(r), 3)
        ),
        "exact",
    ),
    ("copysign", jnp.copysign, lambda dt: A(N((20,), dt), with_specials(N((13,), dt))), "exact"),
    ("logaddexp", jnp.logaddexp, lambda dt: A(N((20,), dt, 3), N((20,), dt, 3)), "ulp"),
    (
        "xlogy",
        lambda a, b: (jss.xlogy(a, jnp.abs(b)), jss.xlog1py(a, jnp.abs(b))),
        lambda dt: A(N((20,), dt), N((20,), dt)),
        "ulp",
    ),
    (
        "igamma",
        lambda a, x: (lax.igamma(a, x), lax.igammac(a, x)),
        lambda dt: A(U((20,), dt, 0.2, 6), U((20,), dt, 0.01, 8)),
        "special",
    ),
    (
        "gammainc_scipy",
        lambda a, x: (jss.gammainc(a, x), jss.gammaincc(a, x)),
        lambda dt: A(U((20,), dt, 0.5, 20), U((20,), dt, 0.1, 30)),
        "special",
    ),
    (
        "betainc",
        lambda a, b: jss.betainc(a, b, jnp.clip(jnp.abs(a - b) / 6, 0.01, 0.99)),
        lambda dt: A(U((20,), dt, 0.5, 5), U((20,), dt, 0.5, 5)),
        "special",
    ),
    (
        "polygamma",
        lambda n, x: jss.polygamma(n, x),
        lambda dt: A(C(np.arange(20) % 4, "i32"), U((20,), dt, 0.3, 6)),
        "special",
    ),
    ("zeta", jss.zeta, lambda dt: A(U((20,), dt, 1.1, 6), U((20,), dt, 0.5, 4)), "special"),
    ("pow_binary", jnp.power, lambda dt: A(U((20,), dt, 0.1, 3), N((20,), dt, 2)), "ulp"),
    (
        "ldexp_frexp",
        lambda a, b: (jnp.ldexp(a, b.astype(jnp.int32)), *jnp.frexp(a)),
        lambda dt: A(N((20,), dt, 10), U((20,), "f32", -5, 5)),
        "exact",
    ),
]
for _name, _fn, _mk, _tol in BINARY:
    for _dt in ("f32", "f64") if _name not in ("atan2", "nextafter", "maxmin_nan") else FLOATS:
        prog(f"bin_{_name}_{_dt}", _fn, _mk(_dt), x64=x64_of(_dt), tol=_tol)

prog("bin_bessel_jn", lambda x: jss.bessel_jn(x, v=3), A(U((10,), "f32", 0.5, 10)), tol="approx")
prog(
    "bin_gamma_fn",
    lambda x: (jss.gamma(x), jss.gammasgn(x)),
    A(U((16,), "f32", -3.5, 5)),
    tol="special",
)
prog(
    "bin_spence_expi",
    lambda x: (jss.spence(x), jss.expi(x), jss.exp1(x)),
    A(U((16,), "f64", 0.1, 5)),
    x64=True,
    tol="special",
)
prog(
    "bin_logsumexp_where",
    lambda x: (
        jss.logsumexp(x, axis=1),
        jss.logsumexp(x, axis=0, b=x > 0),
        jss.logsumexp(x, return_sign=True)[1],
    ),
    A(N((4, 6))),
    tol="ulp",
)
prog(
    "bin_softmax_like",
    lambda x: (
        jax.nn.softmax(x, axis=-1),
        jax.nn.log_softmax(x, axis=0),
        jax.nn.standardize(x, axis=-1),
    ),
    A(N((3, 7))),
    tol="ulp",
)
prog(
    "bin_activations",
    lambda x: (
        jax.nn.relu6(x),
        jax.nn.hard_tanh(x),
        jax.nn.elu(x),
        jax.nn.celu(x),
        jax.nn.selu(x),
        jax.nn.leaky_relu(x),
        jax.nn.mish(x),
        jax.nn.hard_swish(x),
        jax.nn.glu(x),
        jax.nn.log_sigmoid(x),
        jax.nn.squareplus(x),
    ),
    A(N((4, 8), "f32", 3)),
    tol="ulp",
)
prog(
    "bin_activations_bf16",
    lambda x: (jax.nn.gelu(x), jax.nn.silu(x), jax.nn.softmax(x)),
    A(N((4, 8), "bf16", 3)),
    tol="ulp",
)

# ============================================================================ integers

INT_DTS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")


def _int_ops(a, b):
    nz = jnp.where(b == 0, jnp.ones_like(b), b)
    return (
        a + b,
        a - b,
        a * b,
        lax.div(a, nz),
        lax.rem(a, nz),
        jnp.floor_divide(a, nz),
        jnp.remainder(a, nz),
        jnp.maximum(a, b),
        jnp.minimum(a, b),
        a & b,
        a | b,
        a ^ b,
        ~a,
        a == b,
        a < b,
    )


def _int_shifts(a, b):
    return (
        lax.shift_left(a, b),
        lax.shift_right_arithmetic(a, b),
        lax.shift_right_logical(a, b),
        lax.population_count(a),
        lax.clz(a),
    )


def _int_bounds(dt):
    info = np.iinfo(DT[dt])
    return int(info.min), int(info.max) + 1


for _dt in INT_DTS:
    lo, hi = _int_bounds(_dt)
    bits = np.iinfo(DT[_dt]).bits

    def _ints(r, lo=lo, hi=hi, dt=_dt):
        a = r.integers(lo, hi, 30, dtype=np.int64 if dt != "u64" else np.uint64)
        b = r.integers(lo, hi, 30, dtype=np.int64 if dt != "u64" else np.uint64)
        a[:4] = [lo, hi - 1, 0, lo + 1 if lo else 1]
        b[:4] = [-1 if lo else 1, 2, 0, hi - 1]
        return a.astype(DT[dt]), b.astype(DT[dt])

    prog(f"int_ops_{_dt}", _int_ops, _ints, x64=x64_of(_dt))

    def _shifts(r, lo=lo, hi=hi, dt=_dt, bits=bits):
        a = r.integers(lo, hi, 24, dtype=np.int64 if dt != "u64" else np.uint64).astype(DT[dt])
        b = (np.arange(24) % (bits + 4)).astype(DT[dt])  # shifts past the width too
        if lo < 0:
            b[-2:] = np.array([-1, -bits], np.int64).astype(DT[dt])
        return a, b

    prog(f"int_shifts_{_dt}", _int_shifts, _shifts, x64=x64_of(_dt))
    if lo < 0:
        prog(
            f"int_unary_{_dt}",
            lambda a: (jnp.abs(a), -a, jnp.sign(a), a**2, lax.integer_pow(a, 3), jnp.square(a)),
            lambda r, lo=lo, hi=hi, dt=_dt: (
                np.concatenate([[lo, hi - 1, 0, -1], r.integers(lo, hi, 12)]).astype(DT[dt]),
            ),
            x64=x64_of(_dt),
        )

prog(
    "int_pow_var",
    lambda a, b: (a**b, jnp.power(a, 3)),
    A(I((12,), "i32", -5, 6), I((12,), "i32", 0, 8)),
)
prog(
    "int_clamp_select",
    lambda a, b: (lax.clamp(-3, a, 4), jnp.clip(a, b, 10), lax.select(a > b, a, b)),
    A(I((12,), "i32", -10, 10), I((12,), "i32", -10, 10)),
)
prog(
    "int_mulhi_wrap",
    lambda a: (a * a, a * 65537, a + 2**30),
    A(I((8,), "i32", -(2**31), 2**31 - 1)),
)
prog(
    "int_bool_ops",
    lambda a, b: (a & b, a | b, a ^ b, ~a, jnp.logical_not(a), a == b, a > b),
    A(I((10,), "bool", 0, 2), I((10,), "bool", 0, 2)),
)

# ============================================================================ conversions

F2I_VALUES = np.array(
    [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        127.9,
        128.0,
        -128.0,
        -129.0,
        255.0,
        256.0,
        300.0,
        -300.0,
        3e9,
        -3e9,
        1e20,
        -1e20,
        np.inf,
        -np.inf,
        np.nan,
        2**31,
        -(2**31),
        65535.7,
    ],
    np.float32,
)
for _dt in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"):
    prog(
        f"cvt_f32_to_{_dt}",
        lambda x, _dt=_dt: x.astype(DT[_dt]),
        A(C(F2I_VALUES)),
        x64=x64_of(_dt),
        note="out-of-range float->int: the spec leaves it TBD; XLA:CPU saturates, NaN->0",
    )
prog(
    "cvt_f64_to_i32_inrange",
    lambda x: (x.astype(jnp.int32), x.astype(jnp.uint8)),
    A(U((16,), "f64", 0, 250)),
    x64=True,
)
prog(
    "cvt_int_to_float",
    lambda a: (
        a.astype(jnp.float32),
        a.astype(jnp.float16),
        a.astype(jnp.bfloat16),
        a.astype(jnp.float64),
    ),
    A(C([0, 1, -1, 2**24 + 1, 2**53 + 1, -(2**63), 2**62 + 2**10 + 1, 65519, 65520, 70000], "i64")),
    x64=True,
)
prog(
    "cvt_u64_to_float",
    lambda a: (a.astype(jnp.float32), a.astype(jnp.float64)),
    A(C([0, 1, 2**64 - 1, 2**63, 2**63 + 2**11 + 1, 2**24 + 1], "u64")),
    x64=True,
)
prog(
    "cvt_f32_narrow",
    lambda x: (x.astype(jnp.float16), x.astype(jnp.bfloat16)),
    A(
        C(
            np.array(
                [
                    1.0009765625,
                    1.0029296875,
                    65504,
                    65520,
                    1e6,
                    1e-8,
                    6e-8,
                    -3e-5,
                    3.3895e38,
                    np.inf,
                    np.nan,
                    1 + 2**-8,
                    1 + 3 * 2**-8,
                    1 + 2**-8 + 2**-20,
                ],
                np.float32,
            )
        )
    ),
)
prog(
    "cvt_f64_to_f32",
    lambda x: (x.astype(jnp.float32), x.astype(jnp.float16), x.astype(jnp.bfloat16)),
    A(
        C(
            np.array(
                [
                    1 + 2**-24,
                    1 + 2**-24 + 2**-40,
                    3.5e38,
                    1e-46,
                    1e-300,
                    0.1,
                    -2.5e-45,
                    1 + 2**-11,
                    1 + 2**-11 + 2**-30,
                ],
                np.float64,
            )
        )
    ),
    x64=True,
    known="XLA:CPU flushes subnormal results to zero; the spec's convert rounds to the nearest f32 (a subnormal)",
)
prog(
    "cvt_bool",
    lambda x, i: (
        x.astype(jnp.bool_),
        i.astype(jnp.bool_),
        (x > 0).astype(jnp.float32),
        (i > 0).astype(jnp.int8),
    ),
    A(C(np.array([0.0, -0.0, np.nan, 0.5, -2], np.float32)), C([0, 1, -1, 2, 0], "i32")),
)
prog(
    "cvt_complex",
    lambda z: (z.real.astype(jnp.float32), z.astype(jnp.complex64), jnp.abs(z)),
    A(N((6,), "c128")),
    x64=True,
    tol="ulp",
)
prog("cvt_float_to_complex", lambda x: (x.astype(jnp.complex64), lax.complex(x, 2 * x)), A(N((6,))))
prog(
    "bitcast_f32_i32",
    lambda x: (
        lax.bitcast_convert_type(x, jnp.int32),
        lax.bitcast_convert_type(x, jnp.uint8),
        lax.bitcast_convert_type(x, jnp.bfloat16),
    ),
    A(N((5,))),
)
prog(
    "bitcast_u8_to_f32",
    lambda x: lax.bitcast_convert_type(x, jnp.float32),
    A(I((3, 4), "u8", 0, 256)),
    check="allclose",
)
prog(
    "bitcast_f64_u32",
    lambda x: (lax.bitcast_convert_type(x, jnp.uint32), lax.bitcast_convert_type(x, jnp.int64)),
    A(N((4,), "f64")),
    x64=True,
)
prog("bitcast_f32_u16", lambda x: lax.bitcast_convert_type(x, jnp.uint16), A(N((4,), "f32")))

F8 = [
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e4m3b11fnuz",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e8m0fnu",
    "float4_e2m1fn",
]
F8_VALUES = np.array(
    [
        0.0,
        -0.0,
        0.3,
        -0.3,
        1.0,
        1.0625,
        1.125,
        1.1875,
        2.5,
        3.0,
        7.5,
        15.5,
        100.0,
        240.0,
        250.0,
        448.0,
        460.0,
        500.0,
        57344.0,
        60000.0,
        1e6,
        -1e6,
        2**-9,
        2**-7,
        0.001,
        np.inf,
        -np.inf,
        np.nan,
        1e-10,
        6.0,
        6.5,
    ],
    np.float32,
)
for _t in F8:
    _d = getattr(jnp, _t)

    def _f8(x, _d=_d):
        y = x.astype(_d)
        return (
            y,
            y.astype(jnp.float32),
            x.astype(jnp.bfloat16).astype(_d),
            (y.astype(jnp.float32) * 2).astype(_d),
        )

    prog(
        f"cvt_{_t}",
        _f8,
        A(C(F8_VALUES)),
        note="saturation/NaN of narrow floats on overflow follows the format's rules",
    )
prog(
    "f8_dot",
    lambda a, b: lax.dot(
        a.astype(jnp.float8_e5m2), b.astype(jnp.float8_e5m2), preferred_element_type=jnp.float32
    ),
    A(N((4, 8)), N((8, 3))),
    tol="ulp",
)
prog(
    "f8_arith",
    lambda a, b: (
        a.astype(jnp.float8_e4m3fn) + b.astype(jnp.float8_e4m3fn),
        a.astype(jnp.float8_e4m3fn) * b.astype(jnp.float8_e4m3fn),
    ),
    A(N((10,)), N((10,))),
)
prog(
    "f16_arith",
    lambda a, b: (a + b, a * b, a / b, a - b, jnp.sqrt(jnp.abs(a)), a.sum(), (a * b).sum()),
    A(N((33,), "f16", 30), N((33,), "f16", 30)),
    tol="ulp",
)
prog(
    "bf16_arith",
    lambda a, b: (a + b, a * b, a / b, a - b, jnp.sqrt(jnp.abs(a)), a.sum(), a.max()),
    A(N((33,), "bf16", 30), N((33,), "bf16", 30)),
    tol="ulp",
)
prog(
    "int4_ops",
    lambda a: (
        a.astype(jnp.int4).astype(jnp.int32),
        (a.astype(jnp.int4) + 3).astype(jnp.int8),
        a.astype(jnp.uint4).astype(jnp.int32),
    ),
    A(I((12,), "i32", -10, 10)),
    known="XLA computes i4 arithmetic in i8 without wrapping; the spec's add wraps in i4",
)

# ============================================================================ reductions

RED_DTS = ("f32", "bf16", "f16", "f64", "i32", "u8", "i64")


def _reds(x):
    return (
        x.sum(axis=0),
        x.sum(axis=(0, 2), keepdims=True),
        jnp.prod(x[:2], axis=1),
        x.max(axis=1),
        x.min(axis=(1, 2)),
        jnp.argmax(x, axis=1),
        jnp.argmin(x, axis=2),
        jnp.argmax(x),
        x.sum(),
    )


for _dt in RED_DTS:
    mk = I((3, 4, 5), _dt, 0 if _dt == "u8" else -20, 20) if _dt[0] in "iu" else N((3, 4, 5), _dt)
    prog(
        f"red_basic_{_dt}",
        _reds,
        A(mk),
        x64=x64_of(_dt),
        tol="exact" if _dt[0] in "iu" else "approx",
    )
    prog(
        f"red_cum_{_dt}",
        lambda x: (
            jnp.cumsum(x, axis=1),
            jnp.cumprod(x[:, :3], axis=0),
            lax.cummax(x, axis=2),
            lax.cummin(x, axis=0, reverse=True),
            lax.cumsum(x, axis=2, reverse=True),
        ),
        A(I((3, 4, 5), _dt, 0 if _dt == "u8" else -3, 4) if _dt[0] in "iu" else N((3, 4, 5), _dt)),
        x64=x64_of(_dt),
        tol="exact" if _dt[0] in "iu" else "approx",
    )
prog(
    "red_where_mean",
    lambda x: (
        jnp.sum(x, axis=1, where=x > 0),
        jnp.mean(x, axis=0),
        jnp.var(x, axis=1),
        jnp.std(x),
        jnp.max(x, axis=1, where=x < 1, initial=-5.0),
        jnp.mean(x, where=x > 0),
    ),
    A(N((5, 6))),
    tol="approx",
)
prog(
    "red_any_all",
    lambda x: (
        jnp.any(x > 1, axis=0),
        jnp.all(x > -2, axis=1),
        jnp.any(x > 5),
        jnp.count_nonzero(x > 0, axis=1),
    ),
    A(N((5, 6))),
)
prog(
    "red_nan",
    lambda x: (
        jnp.max(x, axis=0),
        jnp.min(x, axis=0),
        jnp.argmax(x, axis=0),
        jnp.argmin(x, axis=0),
        jnp.nanmax(x, axis=0),
        jnp.nansum(x, axis=0),
        jnp.nanargmin(x, axis=0),
    ),
    A(
        C(
            np.array(
                [[1, np.nan, 3, -np.inf], [np.nan, 2, np.inf, 0], [0.5, -1, np.nan, 1]], np.float32
            )
        )
    ),
)
prog(
    "red_argmax_ties",
    lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=1), jnp.argmax(x, axis=0)),
    A(C(np.array([[1, 3, 3, 0], [2, 2, 2, 2], [-0.0, 0.0, 0.0, -1]], np.float32))),
)
prog(
    "red_cumlogsumexp",
    lambda x: (lax.cumlogsumexp(x, axis=0), lax.cumlogsumexp(x, axis=1, reverse=True)),
    A(N((6, 5))),
    tol="approx",
)
prog(
    "red_cum_bool",
    lambda x: (jnp.cumsum(x > 0, axis=0), lax.cummax((x > 0).astype(jnp.int8), axis=1)),
    A(N((4, 5))),
)
prog(
    "red_cumsum_long",
    lambda x: (jnp.cumsum(x), jnp.cumprod(1 + x / 100)),
    A(N((300,))),
    tol="approx",
)
prog(
    "red_complex",
    lambda z: (z.sum(axis=0), jnp.prod(z, axis=1), jnp.cumsum(z, axis=1), jnp.mean(z)),
    A(N((3, 4), "c64")),
    tol="approx",
)
prog("red_bool_sum", lambda x: ((x > 0).sum(), (x > 0).sum(axis=0, dtype=jnp.int8)), A(N((6, 5))))
prog(
    "red_reduce_multi",
    lambda x, y: lax.reduce(
        (x, y),
        (jnp.float32(-jnp.inf), jnp.int32(0)),
        lambda a, b: (jnp.maximum(a[0], b[0]), a[1] + b[1]),
        (1,),
    ),
    A(N((4, 6)), I((4, 6), "i32", 0, 9)),
)
prog(
    "red_lax_reduce_prec",
    lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
    A(
        C(
            np.array(
                [1.0009765625, 1 + 2**-11, 1 + 3 * 2**-11, 70000, 1e-6, 1e-8, np.nan, -np.inf],
                np.float32,
            )
        )
    ),
)

# ============================================================================ dot / einsum

prog(
    "dot_matvec",
    lambda a, v: (a @ v, v @ a.T, jnp.dot(v, v), jnp.outer(v, v), jnp.inner(a, a)),
    A(N((5, 4)), N((4,))),
    tol="approx",
)
prog(
    "dot_batched",
    lambda a, b: (jnp.matmul(a, b), lax.batch_matmul(a, b)),
    A(N((3, 4, 5)), N((3, 5, 2))),
    tol="approx",
)
prog("dot_broadcast_batch", jnp.matmul, A(N((2, 1, 4, 5)), N((3, 5, 2))), tol="approx")
prog(
    "dot_pref_bf16",
    lambda a, b: (lax.dot(a, b, preferred_element_type=jnp.float32), a @ b),
    A(N((4, 8), "bf16"), N((8, 3), "bf16")),
    tol="approx",
)
prog(
    "dot_pref_f16",
    lambda a, b: (lax.dot(a, b, preferred_element_type=jnp.float32), a @ b),
    A(N((4, 8), "f16"), N((8, 3), "f16")),
    tol="approx",
)
prog(
    "dot_int8_i32",
    lambda a, b: (lax.dot(a, b, preferred_element_type=jnp.int32), a @ b),
    A(I((4, 16), "i8", -128, 128), I((16, 3), "i8", -128, 128)),
)
prog(
    "dot_u8_i32",
    lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32),
    A(I((4, 16), "u8", 0, 256), I((16, 3), "u8", 0, 256)),
)
prog(
    "dot_int32", lambda a, b: a @ b, A(I((4, 6), "i32", -1000, 1000), I((6, 3), "i32", -1000, 1000))
)
prog(
    "dot_int64",
    lambda a, b: a @ b,
    A(I((4, 6), "i64", -(10**9), 10**9), I((6, 3), "i64", -(10**9), 10**9)),
    x64=True,
)
prog("dot_bool", lambda a, b: jnp.matmul(a > 0, b > 0), A(N((3, 4)), N((4, 2))))
prog(
    "dot_complex",
    lambda a, b: (a @ b, jnp.vdot(a[0], b[:, 0]), jnp.einsum("ij,jk->ik", a, jnp.conj(b))),
    A(N((3, 4), "c64"), N((4, 2), "c64")),
    tol="approx",
)
prog(
    "dot_c128", lambda a, b: a @ b, A(N((3, 4), "c128"), N((4, 2), "c128")), x64=True, tol="approx"
)
prog(
    "dot_f64",
    lambda a, b: (a @ b, jnp.tensordot(a, b.T, axes=([1], [1]))),
    A(N((3, 4), "f64"), N((4, 2), "f64")),
    x64=True,
    tol="approx",
)
prog(
    "dot_precision",
    lambda a, b: (
        jnp.dot(a, b, precision=lax.Precision.HIGHEST),
        jnp.dot(a, b, precision="bfloat16"),
    ),
    A(N((4, 8)), N((8, 3))),
    tol="approx",
)
prog(
    "einsum_variants",
    lambda a, b, c: (
        jnp.einsum("ij,jk->ki", a, b),
        jnp.einsum("ii->i", c),
        jnp.einsum("ii", c),
        jnp.einsum("ij->", a),
        jnp.einsum("ij,ij->i", a, a),
        jnp.einsum("bij,bjk->bik", a[None], b[None]),
        jnp.einsum("i,j->ij", a[0], b[0]),
        jnp.einsum("ij,kl->ijkl", c, c),
        jnp.einsum("...j,jk->...k", a, b),
        jnp.einsum("ijk,jil->kl", a.reshape(3, 2, 2), a.reshape(2, 3, 2)),
    ),
    A(N((3, 4)), N((4, 5)), N((3, 3))),
    tol="approx",
)
prog(
    "einsum_attention",
    lambda q, k, v: jnp.einsum(
        "bhqk,bhkd->bhqd", jax.nn.softmax(jnp.einsum("bhqd,bhkd->bhqk", q, k), -1), v
    ),
    A(N((2, 2, 4, 8)), N((2, 2, 5, 8)), N((2, 2, 5, 8))),
    tol="approx",
)
prog(
    "dot_general_dims",
    lambda a, b: lax.dot_general(a, b, (((2, 0), (0, 3)), ((1,), (2,)))),
    A(N((3, 4, 5)), N((5, 2, 4, 3))),
    tol="approx",
)

# ============================================================================ convolution


def _conv(lhs_spec, **kw):
    return lambda x, k: lax.conv_general_dilated(x, k, dimension_numbers=lhs_spec, **kw)


CONVS = [
    (
        "conv1d_valid",
        ("NWC", "WIO", "NWC"),
        (2, 9, 3),
        (3, 3, 4),
        dict(window_strides=(1,), padding="VALID"),
    ),
    (
        "conv1d_stride_same",
        ("NCW", "OIW", "NCW"),
        (2, 3, 10),
        (4, 3, 3),
        dict(window_strides=(2,), padding="SAME"),
    ),
    (
        "conv2d_nchw_same",
        ("NCHW", "OIHW", "NCHW"),
        (2, 3, 7, 7),
        (4, 3, 3, 3),
        dict(window_strides=(1, 1), padding="SAME"),
    ),
    (
        "conv2d_nhwc_stride2",
        ("NHWC", "HWIO", "NHWC"),
        (2, 8, 8, 3),
        (3, 3, 3, 5),
        dict(window_strides=(2, 2), padding="SAME"),
    ),
    (
        "conv2d_explicit_pad",
        ("NHWC", "HWIO", "NHWC"),
        (1, 6, 7, 2),
        (3, 2, 2, 3),
        dict(window_strides=(1, 2), padding=((2, 1), (0, 3))),
    ),
    (
        "conv2d_neg_pad",
        ("NHWC", "HWIO", "NHWC"),
        (1, 8, 8, 2),
        (3, 3, 2, 2),
        dict(window_strides=(1, 1), padding=((-1, 0), (1, -2))),
    ),
    (
        "conv2d_rhs_dil",
        ("NHWC", "HWIO", "NHWC"),
        (1, 9, 9, 2),
        (3, 3, 2, 3),
        dict(window_strides=(1, 1), padding="VALID", rhs_dilation=(2, 3)),
    ),
    (
        "conv2d_lhs_dil",
        ("NHWC", "HWIO", "NHWC"),
        (1, 5, 5, 2),
        (3, 3, 2, 3),
        dict(window_strides=(1, 1), padding=((1, 1), (2, 2)), lhs_dilation=(2, 2)),
    ),
    (
        "conv2d_groups",
        ("NHWC", "HWIO", "NHWC"),
        (2, 6, 6, 4),
        (3, 3, 2, 6),
        dict(window_strides=(1, 1), padding="SAME", feature_group_count=2),
    ),
    (
        "conv2d_depthwise",
        ("NHWC", "HWIO", "NHWC"),
        (2, 6, 6, 4),
        (3, 3, 1, 8),
        dict(window_strides=(1, 1), padding="SAME", feature_group_count=4),
    ),
    (
        "conv2d_batch_group",
        ("NHWC", "HWIO", "NHWC"),
        (4, 5, 5, 3),
        (2, 2, 3, 6),
        dict(window_strides=(1, 1), padding="VALID", batch_group_count=2),
    ),
    (
        "conv3d",
        ("NDHWC", "DHWIO", "NDHWC"),
        (1, 5, 5, 5, 2),
        (2, 3, 2, 2, 3),
        dict(window_strides=(1, 2, 1), padding="SAME"),
    ),
    (
        "conv2d_odd_layout",
        ("HWCN", "OHWI", "CNWH"),
        (6, 7, 3, 2),
        (4, 3, 2, 3),
        dict(window_strides=(1, 1), padding="SAME"),
    ),
]
for _name, _dn, _xs, _ks, _kw in CONVS:
    prog(f"conv_{_name}", _conv(_dn, **_kw), A(N(_xs), N(_ks)), tol="approx")
prog(
    "conv_f16",
    _conv(("NHWC", "HWIO", "NHWC"), window_strides=(1, 1), padding="SAME"),
    A(N((1, 5, 5, 2), "f16"), N((3, 3, 2, 3), "f16")),
    tol="approx",
)
prog(
    "conv_bf16_pref",
    lambda x, k: lax.conv_general_dilated(
        x,
        k,
        (1, 1),
        "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        preferred_element_type=jnp.float32,
    ),
    A(N((1, 5, 5, 2), "bf16"), N((3, 3, 2, 3), "bf16")),
    tol="approx",
)
prog(
    "conv_f64",
    _conv(("NCHW", "OIHW", "NCHW"), window_strides=(1, 1), padding="SAME"),
    A(N((1, 2, 5, 5), "f64"), N((3, 2, 3, 3), "f64")),
    x64=True,
    tol="approx",
)
prog(
    "conv_int8",
    lambda x, k: lax.conv_general_dilated(
        x,
        k,
        (1, 1),
        "VALID",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        preferred_element_type=jnp.int32,
    ),
    A(I((1, 5, 5, 2), "i8", -100, 100), I((3, 3, 2, 3), "i8", -100, 100)),
)
prog(
    "conv_complex",
    _conv(("NCHW", "OIHW", "NCHW"), window_strides=(1, 1), padding="SAME"),
    A(N((1, 2, 4, 4), "c64"), N((3, 2, 3, 3), "c64")),
    tol="approx",
)
prog(
    "conv_transpose",
    lambda x, k: lax.conv_transpose(
        x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    A(N((1, 4, 4, 3)), N((3, 3, 3, 2))),
    tol="approx",
)
prog(
    "conv_transpose_valid",
    lambda x, k: lax.conv_transpose(x, k, (3,), "VALID", dimension_numbers=("NWC", "WIO", "NWC")),
    A(N((2, 5, 2)), N((4, 2, 3))),
    tol="approx",
)
prog(
    "conv_grad",
    jax.grad(
        lambda x, k: jnp.sum(
            jnp.tanh(
                lax.conv_general_dilated(
                    x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
                )
            )
        ),
        argnums=(0, 1),
    ),
    A(N((2, 6, 6, 3)), N((3, 3, 3, 4))),
    tol="approx",
)
prog(
    "conv_grad_groups_dil",
    jax.grad(
        lambda x, k: jnp.sum(
            lax.conv_general_dilated(
                x,
                k,
                (1, 1),
                "SAME",
                rhs_dilation=(2, 2),
                feature_group_count=2,
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
            )
            ** 2
        ),
        argnums=(0, 1),
    ),
    A(N((2, 4, 6, 6)), N((4, 2, 3, 3))),
    tol="approx",
)
prog(
    "conv_vmap",
    jax.vmap(
        lambda x, k: lax.conv_general_dilated(
            x[None], k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")
        )[0]
    ),
    A(N((3, 7, 2)), N((3, 3, 2, 4))),
    tol="approx",
)

# ============================================================================ windows


def _maxpool(x, win, strides, pad):
    return lax.reduce_window(x, -jnp.inf, lax.max, win, strides, pad)


prog("pool_max_same", lambda x: _maxpool(x, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), A(N((2, 7, 7, 3))))
prog(
    "pool_max_explicit",
    lambda x: _maxpool(x, (1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (1, 1), (2, 0), (0, 0))),
    A(N((2, 6, 7, 2))),
)
prog(
    "pool_avg_pad",
    lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0,
    A(N((1, 5, 5, 2))),
    tol="approx",
)
prog(
    "pool_avg_count",
    lambda x: (lambda s, c: s / c)(
        lax.reduce_window(x, 0.0, lax.add, (2, 2), (2, 2), "SAME"),
        lax.reduce_window(jnp.ones_like(x), 0.0, lax.add, (2, 2), (2, 2), "SAME"),
    ),
    A(N((5, 7))),
    tol="approx",
)
prog(
    "pool_min_int",
    lambda x: lax.reduce_window(x, jnp.iinfo(jnp.int32).max, lax.min, (2, 3), (1, 2), "VALID"),
    A(I((6, 7), "i32", -100, 100)),
)
prog(
    "pool_dilated",
    lambda x: lax.reduce_window(
        x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID", base_dilation=(2, 1), window_dilation=(1, 2)
    ),
    A(N((5, 6))),
)
prog(
    "pool_max_grad",
    jax.grad(lambda x: jnp.sum(_maxpool(x, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") ** 2)),
    A(N((1, 4, 6, 2))),
    tol="approx",
)
prog(
    "pool_max_grad_overlap",
    jax.grad(lambda x: jnp.sum(jnp.sin(_maxpool(x, (3, 3), (1, 1), "SAME")))),
    A(N((5, 5))),
    tol="approx",
)
prog(
    "pool_avg_grad",
    jax.grad(lambda x: jnp.sum(lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "SAME") ** 2)),
    A(N((4, 5))),
    tol="approx",
)
prog(
    "pool_bf16",
    lambda x: (
        _maxpool(x, (2, 2), (2, 2), "VALID"),
        lax.reduce_window(x, jnp.bfloat16(0), lax.add, (2, 2), (1, 1), "VALID"),
    ),
    A(N((4, 6), "bf16")),
    tol="approx",
)
prog(
    "pool_multi_operand",
    lambda x, i: lax.reduce_window(
        (x, i),
        (jnp.float32(-jnp.inf), jnp.int32(0)),
        lambda a, b: (jnp.maximum(a[0], b[0]), jnp.where(a[0] >= b[0], a[1], b[1])),
        (1, 3),
        (1, 1),
        "VALID",
    ),
    A(N((3, 6)), C(np.arange(18, dtype=np.int32).reshape(3, 6))),
)

# ============================================================================ sort & co

prog(
    "sort_axes",
    lambda x: (
        jnp.sort(x, axis=0),
        jnp.sort(x, axis=-1),
        jnp.argsort(x, axis=1),
        jnp.argsort(-x, axis=0, stable=True),
        jnp.sort(x, axis=None),
    ),
    A(N((5, 6))),
)
prog(
    "sort_nan",
    lambda x: (
        jnp.sort(x),
        jnp.argsort(x),
        jnp.sort(x, descending=True),
        jnp.argsort(x, descending=True),
    ),
    A(C(np.array([3, np.nan, -0.0, 0.0, -np.inf, 1, np.nan, np.inf, -1, 0.0, -0.0], np.float32))),
)
prog(
    "sort_ties_stable",
    lambda x: (jnp.argsort(x, stable=True), jnp.argsort(x, descending=True, stable=True)),
    A(C(np.array([2, 1, 2, 1, 3, 3, 1, 2, 0, 0], np.int32))),
)
prog(
    "sort_ints",
    lambda a, b, c: (jnp.sort(a), jnp.sort(b), jnp.sort(c), jnp.argsort(c)),
    A(I((20,), "i8", -128, 128), I((20,), "u32", 0, 2**32), I((20,), "u8", 0, 5)),
)
prog(
    "sort_multi_operand",
    lambda k, v, w: lax.sort((k, v, w), num_keys=2, is_stable=True),
    A(I((12,), "i32", 0, 3), I((12,), "i32", 0, 3), N((12,))),
)
prog(
    "sort_lexsort",
    lambda a, b: jnp.lexsort((a, b)),
    A(I((12,), "i32", 0, 3), I((12,), "i32", 0, 3)),
)
prog(
    "sort_bf16_f16",
    lambda a, b: (jnp.sort(a), jnp.argsort(b), jnp.sort(b, descending=True)),
    A(N((16,), "bf16"), N((16,), "f16")),
)
prog(
    "sort_bool_complex",
    lambda b, z: (jnp.sort(b), jnp.sort(z), jnp.argsort(z)),
    A(I((9,), "bool", 0, 2), C(np.array([1 + 1j, 1 - 1j, -2 + 0j, 1 + 0j, 0 + 3j], np.complex64))),
)
prog(
    "sort_grad",
    jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=1) * jnp.arange(5.0))),
    A(N((3, 5))),
    tol="approx",
)
prog("topk_basic", lambda x: lax.top_k(x, 4), A(N((3, 10))))
prog(
    "topk_ties_int", lambda x: lax.top_k(x, 5), A(C(np.array([[3, 1, 3, 2, 3, 1, 0, 2]], np.int32)))
)
prog(
    "topk_nan",
    lambda x: lax.top_k(x, 4),
    A(C(np.array([1, np.nan, 3, -np.inf, np.inf, 0, -0.0, 2], np.float32))),
)
prog(
    "topk_bf16_k1",
    lambda x: (lax.top_k(x, 1), jax.lax.top_k(x.astype(jnp.float32), 3)),
    A(N((4, 6), "bf16")),
)
prog("topk_grad", jax.grad(lambda x: jnp.sum(lax.top_k(x, 2)[0] ** 2)), A(N((3, 6))), tol="approx")
prog(
    "searchsorted",
    lambda s, q: (
        jnp.searchsorted(s, q),
        jnp.searchsorted(s, q, side="right"),
        jnp.searchsorted(s, q, method="sort"),
        jnp.searchsorted(s, q, method="compare_all"),
        jnp.searchsorted(s, q, side="right", method="scan_unrolled"),
    ),
    A(
        C(np.array([-2, -1, 0, 0, 1, 3, 3, 7], np.float32)),
        C(np.array([-3, 0, 0.5, 3, 7, 9, np.nan], np.float32)),
    ),
)
prog(
    "unique_size",
    lambda x: jnp.unique(
        x, size=6, fill_value=-1, return_index=True, return_inverse=True, return_counts=True
    ),
    A(C(np.array([3, 1, 3, 2, 7, 1, 1, 2], np.int32))),
)
prog(
    "unique_float",
    lambda x: jnp.unique(x, size=8),
    A(C(np.array([0.5, -1, 0.5, np.nan, 2, -1, 3], np.float32))),
)
prog(
    "isin_setdiff",
    lambda a, b: (
        jnp.isin(a, b),
        jnp.setdiff1d(a, b, size=4, fill_value=0),
        jnp.intersect1d(a, b, size=3, fill_value=0),
    ),
    A(C(np.array([1, 2, 3, 4, 5, 6], np.int32)), C(np.array([2, 4, 8], np.int32))),
)
prog(
    "median_quantile",
    lambda x: (
        jnp.median(x, axis=0),
        jnp.quantile(x, 0.3, axis=1),
        jnp.percentile(x, jnp.array([10.0, 90.0])),
        jnp.nanmedian(x),
    ),
    A(N((5, 6))),
    tol="approx",
)
prog(
    "partition",
    lambda x: (jnp.partition(x, 3)[..., 3], jnp.argpartition(x, 2)[..., :2].sort(-1)),
    A(N((2, 7))),
)

# ============================================================================ gather / scatter

prog(
    "take_modes",
    lambda x, i: (
        jnp.take(x, i, axis=0, mode="clip"),
        jnp.take(x, i, axis=1, mode="fill", fill_value=-7.0),
        jnp.take(x, i, axis=0, mode="wrap"),
        x[i % 4],
    ),
    A(N((4, 5)), C(np.array([0, 3, -1, -5, 4, 9, 2], np.int32))),
)
prog(
    "take_along",
    lambda x, i: (
        jnp.take_along_axis(x, i, axis=1),
        jnp.take_along_axis(x, i, axis=1, mode="clip"),
        jnp.take_along_axis(x, i, axis=1, mode="fill", fill_value=jnp.nan),
    ),
    A(N((3, 5)), C(np.array([[0, 4, -1], [5, 2, 2], [-6, 1, 3]], np.int32))),
)
prog(
    "gather_fancy",
    lambda x, i, j: (x[i, j], x[i][:, None, j], x[:, j], x[1:, i[:2]], x[i[:, None], j[None]]),
    A(N((5, 6)), C(np.array([0, 4, -1, 2], np.int32)), C(np.array([5, 0, 1, -2], np.int32))),
)
prog(
    "gather_dynamic_slice",
    lambda x, s: (
        lax.dynamic_slice(x, (s[0], s[1]), (2, 3)),
        lax.dynamic_slice_in_dim(x, s[2], 3, axis=1),
        lax.dynamic_index_in_dim(x, s[1], 0, keepdims=False),
    ),
    A(N((5, 6)), C(np.array([4, -3, 100], np.int32))),
    note="out-of-range starts clamp (spec dynamic_slice)",
)
prog(
    "dyn_update_slice",
    lambda x, u, s: (
        lax.dynamic_update_slice(x, u, (s[0], s[1])),
        lax.dynamic_update_slice(x, u, (s[1], s[2])),
        lax.dynamic_update_slice_in_dim(x, u[:1], s[2], axis=0),
    ),
    A(N((5, 6)), N((2, 3)), C(np.array([4, -3, 100], np.int32))),
)
prog(
    "scatter_modes",
    lambda x, i, u: (
        x.at[i].set(u),
        x.at[i].add(u),
        x.at[i].mul(u),
        x.at[i].min(u),
        x.at[i].max(u),
        x.at[i].add(u, mode="drop"),
        x.at[i].set(u, mode="clip"),
        x.at[i].apply(jnp.sin),
        x.at[i].get(mode="fill", fill_value=3.0),
    ),
    A(N((6, 3)), C(np.array([0, 5, 2, 9, -1, -8], np.int32)), N((6, 3))),
    tol="approx",
)
prog(
    "scatter_unique_sorted",
    lambda x, i, u: (
        x.at[i].set(u, unique_indices=True, indices_are_sorted=True),
        x.at[i].add(u, mode="promise_in_bounds", indices_are_sorted=True),
    ),
    A(N((8,)), C(np.array([1, 3, 4, 7], np.int32)), N((4,))),
)
prog(
    "scatter_2d_idx",
    lambda x, r, c, u: (
        x.at[r, c].add(u),
        x.at[r, :].set(u[:, None]),
        x.at[:, c].multiply(2.0),
        x.at[r, c].max(u),
    ),
    A(N((5, 6)), C(np.array([0, 4, 4, 1], np.int32)), C(np.array([5, 0, 0, 2], np.int32)), N((4,))),
    tol="approx",
)
prog(
    "scatter_int",
    lambda x, i, u: (x.at[i].add(u), x.at[i].min(u), x.at[i].set(u), x.at[i].mul(u)),
    A(I((6,), "i32", -5, 5), C(np.array([1, 1, 5, 0, 7], np.int32)), I((5,), "i32", -5, 5)),
)
prog(
    "scatter_bool",
    lambda x, i: (x.at[i].set(True), x.at[i].max(True), x.at[i].min(False)),
    A(I((6,), "bool", 0, 2), C(np.array([1, 3, 3], np.int32))),
)
prog(
    "segment_sum",
    lambda d, s: (
        jax.ops.segment_sum(d, s, 4),
        jax.ops.segment_max(d, s, 4),
        jax.ops.segment_min(d, s, 4),
        jax.ops.segment_prod(d, s, 4),
    ),
    A(N((8, 2)), C(np.array([0, 0, 1, 3, 3, 3, 2, 7], np.int32))),
    tol="approx",
)
prog(
    "gather_grad",
    jax.grad(lambda x, i: jnp.sum(jnp.sin(x[i]) * jnp.arange(4.0)[:, None]), argnums=0),
    A(N((5, 3)), C(np.array([0, 4, 0, 2], np.int32))),
    tol="approx",
)
prog(
    "scatter_grad",
    jax.grad(
        lambda x, u, i: jnp.sum(jnp.sin(x.at[i].set(u)) + jnp.cos(x.at[i].add(u * u))),
        argnums=(0, 1),
    ),
    A(N((6,)), N((3,)), C(np.array([1, 4, 2], np.int32))),
    tol="approx",
)
prog(
    "lax_gather_raw",
    lambda x, i: lax.gather(
        x,
        i,
        lax.GatherDimensionNumbers(
            offset_dims=(1,), collapsed_slice_dims=(0, 2), start_index_map=(0, 2)
        ),
        slice_sizes=(1, 3, 1),
        mode=lax.GatherScatterMode.CLIP,
    ),
    A(N((4, 3, 5)), C(np.array([[0, 1], [3, 4], [9, 9], [-2, 0]], np.int32))),
)
prog(
    "lax_gather_batching",
    lambda x, i: lax.gather(
        x,
        i,
        lax.GatherDimensionNumbers(
            offset_dims=(),
            collapsed_slice_dims=(1,),
            start_index_map=(1,),
            operand_batching_dims=(0,),
            start_indices_batching_dims=(0,),
        ),
        slice_sizes=(1, 1),
        mode=lax.GatherScatterMode.FILL_OR_DROP,
    ),
    A(N((3, 5)), C(np.array([[[1], [4]], [[0], [7]], [[2], [2]]], np.int32))),
)
prog(
    "lax_scatter_raw",
    lambda x, i, u: lax.scatter_add(
        x,
        i,
        u,
        lax.ScatterDimensionNumbers(
            update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
        ),
        mode=lax.GatherScatterMode.FILL_OR_DROP,
    ),
    A(N((5, 3)), C(np.array([[0], [4], [5], [-1], [0]], np.int32)), N((5, 3))),
    tol="approx",
)
prog(
    "scatter_vmap",
    jax.vmap(lambda x, i, u: x.at[i].add(u)),
    A(N((3, 6)), C(np.array([[0, 1], [5, 5], [2, 0]], np.int32)), N((3, 2))),
    tol="approx",
)

# ============================================================================ movement

prog(
    "pad_variants",
    lambda x: (
        jnp.pad(x, ((1, 2), (0, 3))),
        jnp.pad(x, 2, mode="reflect"),
        jnp.pad(x, 1, mode="edge"),
        jnp.pad(x, ((0, 0), (2, 1)), mode="wrap"),
        jnp.pad(x, 1, mode="symmetric"),
        jnp.pad(x, 2, constant_values=7.0),
        lax.pad(x, 0.5, ((-1, 2, 1), (1, -2, 2))),
    ),
    A(N((4, 5))),
)
prog(
    "pad_negative_interior",
    lambda x: (
        lax.pad(x, -1.0, ((-2, -1, 0), (0, 0, 3))),
        lax.pad(x, jnp.float32(0), ((1, -3, 2), (-1, -1, 1))),
    ),
    A(N((5, 4))),
)
prog(
    "concat_rev_roll",
    lambda x, y: (
        jnp.concatenate([x, y, x], axis=1),
        jnp.flip(x, axis=(0, 1)),
        jnp.roll(x, 2, axis=1),
        jnp.roll(x, -1),
        jnp.roll(x, (1, -2), (0, 1)),
        jnp.stack([x, y]),
        jnp.vstack([x, y]),
        jnp.rot90(x),
    ),
    A(N((3, 4)), N((3, 4))),
)
prog(
    "tile_repeat",
    lambda x, r: (
        jnp.tile(x, (2, 3)),
        jnp.repeat(x, 2, axis=0),
        jnp.repeat(x, r, axis=1, total_repeat_length=7),
        jnp.repeat(x, 3),
    ),
    A(N((2, 3)), C(np.array([1, 0, 3], np.int32))),
)
prog(
    "where_select_n",
    lambda c, x, y, i: (
        jnp.where(c, x, y),
        lax.select_n(i, x, y, x * 2),
        jnp.nonzero(x > 0, size=6, fill_value=-1),
    ),
    A(I((3, 4), "bool", 0, 2), N((3, 4)), N((3, 4)), I((3, 4), "i32", 0, 3)),
)
prog(
    "select_n_bool",
    lambda c, x, y: lax.select_n(c, x, y),
    A(I((3, 4), "bool", 0, 2), N((3, 4)), N((3, 4))),
)
prog(
    "clamp_variants",
    lambda x, lo, hi: (lax.clamp(lo, x, hi), jnp.clip(x, -0.5, 0.5), lax.clamp(-1.0, x, 1.0)),
    A(with_specials(N((5,))), C(np.full(12, -0.25, np.float32)), C(np.full(12, 0.25, np.float32))),
)
prog(
    "reshape_transpose",
    lambda x: (
        x.T,
        jnp.transpose(x, (2, 0, 1)),
        x.reshape(6, -1),
        jnp.moveaxis(x, 0, -1),
        jnp.swapaxes(x, 1, 2)[:, ::2],
        x[::-1, 1:, ::3],
        jnp.squeeze(x[:1]),
        jnp.expand_dims(x, (0, 3)),
    ),
    A(N((2, 3, 4))),
)
prog(
    "iota_eye_tri",
    lambda x: (
        jnp.arange(7) * x[0, 0],
        jnp.eye(3, 4, k=1),
        jnp.tri(4, 3, -1),
        jnp.triu(x, 1),
        jnp.tril(x),
        jnp.diag(x),
        jnp.diagonal(x, 1),
        jnp.trace(x),
        jnp.linspace(0.0, 1.0, 7),
        jnp.diag(x[0]),
        jnp.fill_diagonal(x, 2.0, inplace=False),
    ),
    A(N((4, 4))),
    tol="ulp",
)
prog(
    "meshgrid_indices",
    lambda x: (
        jnp.meshgrid(x, x[:3]),
        jnp.indices((2, 3)),
        jnp.tril_indices(4),
        jnp.ravel_multi_index((jnp.array([1, 2]), jnp.array([0, 3])), (3, 4), mode="clip"),
    ),
    A(N((4,))),
)
prog(
    "broadcast_misc",
    lambda x, y: (
        x + y,
        jnp.broadcast_to(x, (3, 2, 4)),
        jnp.atleast_3d(y),
        jnp.kron(x[:, :2], y[:1, :2]),
        jnp.cross(x[:, :3], y[:, :3]),
    ),
    A(N((2, 4)), N((1, 4))),
    tol="ulp",
)
prog(
    "split_slice",
    lambda x: (
        *jnp.split(x, 3, axis=1),
        *jnp.array_split(x, 2),
        lax.slice(x, (0, 1), (3, 6), (2, 2)),
    ),
    A(N((4, 6))),
)
prog(
    "interp",
    lambda xp, fp, x: (
        jnp.interp(x, xp, fp),
        jnp.interp(x, xp, fp, left=-1, right=5),
        jnp.interp(x, xp, fp, period=3.0),
    ),
    A(
        C(np.array([0, 0.5, 1.5, 2.0, 3.0], np.float32)),
        N((5,)),
        C(np.array([-1, 0, 0.25, 0.5, 1.0, 2.9, 3.0, 4.5], np.float32)),
    ),
    tol="ulp",
)
prog(
    "histogram_bincount",
    lambda x, i, w: (
        jnp.histogram(x, bins=5, range=(-2, 2))[0],
        jnp.histogram(x, bins=jnp.array([-3.0, -1, 0, 0.5, 3]))[0],
        jnp.bincount(i, length=6),
        jnp.bincount(i, weights=w, length=4),
        jnp.digitize(x, jnp.array([-1.0, 0, 1])),
    ),
    A(N((20,)), I((20,), "i32", 0, 7), N((20,))),
    tol="approx",
)
prog(
    "one_hot",
    lambda i: (jax.nn.one_hot(i, 5), jax.nn.one_hot(i, 4, dtype=jnp.int32, axis=0)),
    A(C(np.array([0, 3, 4, -1, 7], np.int32))),
)
prog(
    "polyval_convolve",
    lambda p, x: (
        jnp.polyval(p, x),
        jnp.convolve(p, x),
        jnp.convolve(p, x, mode="same"),
        jnp.correlate(p, x, mode="full"),
    ),
    A(N((4,)), N((7,))),
    tol="approx",
)
prog(
    "nan_to_num",
    lambda x: (
        jnp.nan_to_num(x),
        jnp.nan_to_num(x, nan=1.0, posinf=2.0),
        jnp.isneginf(x),
        jnp.signbit(x),
        jnp.isclose(x, 1.0),
    ),
    A(with_specials(N((4,)))),
)

# ============================================================================ linalg

LINALG_FNS = [
    ("inv", jnp.linalg.inv, "spd", "allclose"),
    ("solve", lambda a, b: jnp.linalg.solve(a, b), "gen_b", "allclose"),
    ("det", jnp.linalg.det, "gen", "allclose"),
    ("slogdet", lambda a: tuple(jnp.linalg.slogdet(a)), "gen", "allclose"),
    ("pinv", jnp.linalg.pinv, "rect", "allclose"),
    (
        "norms",
        lambda a: (
            jnp.linalg.norm(a),
            jnp.linalg.norm(a, "nuc"),
            jnp.linalg.norm(a, 2),
            jnp.linalg.norm(a, 1),
            jnp.linalg.norm(a, jnp.inf),
            jnp.linalg.norm(a, axis=1),
            jnp.linalg.norm(a[0], 3),
        ),
        "gen",
        "allclose",
    ),
    ("eigh", lambda a: tuple(jnp.linalg.eigh(a)), "sym", "eigh"),
    ("eigvalsh", jnp.linalg.eigvalsh, "sym", "allclose"),
    ("svd", lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), "rect", "svd"),
    ("svdvals", lambda a: jnp.linalg.svd(a, compute_uv=False), "rect", "allclose"),
    ("qr", lambda a: tuple(jnp.linalg.qr(a)), "rect", "qr"),
    ("cholesky", jnp.linalg.cholesky, "spd", "allclose"),
    ("lstsq", lambda a, b: jnp.linalg.lstsq(a, b)[0], "rect_b", "allclose"),
    (
        "matrix_power",
        lambda a: (jnp.linalg.matrix_power(a, 3), jnp.linalg.matrix_power(a, -2)),
        "spd",
        "allclose",
    ),
    ("eig", jnp.linalg.eigvals, "gen", "eigvals"),
    ("cond_rank", lambda a: (jnp.linalg.cond(a), jnp.linalg.matrix_rank(a)), "gen", "allclose"),
    (
        "lu_factor",
        lambda a, b: jsp.linalg.lu_solve(jsp.linalg.lu_factor(a), b),
        "gen_b",
        "allclose",
    ),
    (
        "solve_triangular",
        lambda a, b: (
            jsp.linalg.solve_triangular(a, b, lower=True),
            jsp.linalg.solve_triangular(a, b, trans=1, unit_diagonal=True),
        ),
        "spd_b",
        "allclose",
    ),
    ("expm", jsp.linalg.expm, "small", "allclose"),
    (
        "cho_solve",
        lambda a, b: jsp.linalg.cho_solve(jsp.linalg.cho_factor(a), b),
        "spd_b",
        "allclose",
    ),
    ("sqrtm_free_polar", lambda a: jsp.linalg.polar(a)[0], "gen", "allclose"),
]


def _linalg_args(kind, dt):
    def make(r):
        def randn(shape):
            x = r.standard_normal(shape)
            if dt in ("c64", "c128"):
                x = x + 1j * r.standard_normal(shape)
            return x.astype(DT[dt])

        n = 4
        if kind == "gen":
            return (randn((n, n)) + 2 * np.eye(n, dtype=DT[dt]),)
        if kind == "small":
            return (randn((n, n)) * 0.5,)
        if kind == "rect":
            return (randn((5, 3)),)
        if kind == "sym":
            a = randn((n, n))
            return ((a + np.conj(a.T)) / 2,)
        if kind in ("spd", "spd_b"):
            a = randn((n, n))
            s = (a @ np.conj(a.T) + n * np.eye(n)).astype(DT[dt])
            return (s,) if kind == "spd" else (s, randn((n, 2)))
        if kind == "gen_b":
            return (randn((n, n)) + 2 * np.eye(n, dtype=DT[dt]), randn((n, 2)))
        if kind == "rect_b":
            return (randn((5, 3)), randn((5, 2)))
        raise ValueError(kind)

    return make


for _name, _fn, _kind, _check in LINALG_FNS:
    for _dt in ("f32", "f64", "c64"):
        if _dt == "c64" and _name in ("expm", "sqrtm_free_polar", "cond_rank"):
            continue
        prog(
            f"la_{_name}_{_dt}",
            _fn,
            _linalg_args(_kind, _dt),
            x64=x64_of(_dt),
            tol="linalg",
            check=_check,
        )
prog(
    "la_batched_solve",
    lambda a, b: (jnp.linalg.solve(a, b), jnp.linalg.det(a), jnp.linalg.inv(a)),
    lambda r: (
        (r.standard_normal((3, 4, 4)) + 3 * np.eye(4)).astype(np.float32),
        r.standard_normal((3, 4, 2)).astype(np.float32),
    ),
    tol="linalg",
)
prog(
    "la_grad_solve",
    jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2), argnums=(0, 1)),
    lambda r: (
        (r.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.float32),
        r.standard_normal((4, 2)).astype(np.float32),
    ),
    tol="linalg",
)
prog(
    "la_grad_eigh",
    jax.grad(lambda a: jnp.sum(jnp.linalg.eigvalsh(a + a.T) ** 2)),
    A(N((4, 4))),
    tol="linalg",
)
prog(
    "la_grad_cholesky",
    jax.grad(lambda a: jnp.sum(jnp.linalg.cholesky(a @ a.T + 4 * jnp.eye(4)))),
    A(N((4, 4))),
    tol="linalg",
)

# ============================================================================ fft

for _dt, _cdt in (("f32", "c64"), ("f64", "c128")):
    _x64 = _dt == "f64"
    prog(
        f"fft_c_{_cdt}",
        lambda z: (
            jnp.fft.fft(z),
            jnp.fft.ifft(z),
            jnp.fft.fft(z, n=12),
            jnp.fft.fft(z, n=5),
            jnp.fft.fft(z, norm="ortho"),
            jnp.fft.ifft(z, norm="forward"),
        ),
        A(N((2, 8), _cdt)),
        x64=_x64,
        tol="fft",
    )
    prog(
        f"fft_r_{_dt}",
        lambda x: (
            jnp.fft.rfft(x),
            jnp.fft.irfft(jnp.fft.rfft(x)),
            jnp.fft.irfft(x, n=10),
            jnp.fft.rfft(x, n=7),
            jnp.fft.hfft(x[:5]),
        ),
        A(N((3, 8), _dt)),
        x64=_x64,
        tol="fft",
    )
    prog(
        f"fft_nd_{_dt}",
        lambda x: (
            jnp.fft.fftn(x),
            jnp.fft.rfftn(x),
            jnp.fft.irfftn(jnp.fft.rfftn(x), x.shape),
            jnp.fft.fft2(x[0]),
            jnp.fft.ifftn(x, axes=(0, 2)),
            jnp.fft.rfft2(x[1]),
        ),
        A(N((2, 4, 6), _dt)),
        x64=_x64,
        tol="fft",
    )
prog(
    "fft_shift_freq",
    lambda x: (
        jnp.fft.fftshift(x),
        jnp.fft.ifftshift(x, axes=1),
        jnp.fft.fftfreq(8),
        jnp.fft.rfftfreq(7, 0.5),
    ),
    A(N((3, 6))),
    tol="ulp",
)
prog(
    "fft_odd_3d",
    lambda z: (jnp.fft.fftn(z), jnp.fft.ifftn(z, s=(3, 4, 5))),
    A(N((3, 5, 7), "c64")),
    tol="fft",
)
prog("fft_grad", jax.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2)), A(N((8,))), tol="fft")

# ============================================================================ random


def _key(impl):
    def make(r):
        n = {"threefry2x32": 2, "rbg": 4, "unsafe_rbg": 4}[impl]
        return (r.integers(0, 2**32, (n,), dtype=np.uint32),)

    return make


for _impl in ("threefry2x32", "rbg", "unsafe_rbg"):

    def _rand(kd, _impl=_impl):
        key = jax.random.wrap_key_data(kd, impl=_impl)
        ks = jax.random.split(key, 9)
        return (
            jax.random.normal(ks[0], (3, 4)),
            jax.random.uniform(ks[1], (5,), minval=-2, maxval=3),
            jax.random.categorical(ks[2], jnp.array([0.1, 2.0, -1.0, 0.5]), shape=(6,)),
            jax.random.permutation(ks[3], 8),
            jax.random.bernoulli(ks[4], 0.3, (7,)),
            jax.random.randint(ks[5], (6,), -5, 17),
            jax.random.truncated_normal(ks[6], -1.0, 2.0, (4,)),
            jax.random.choice(ks[7], 10, (3,), replace=False),
            jax.random.key_data(jax.random.fold_in(ks[8], 7)),
            jax.random.bits(ks[8], (3,), jnp.uint8),
        )

    prog(
        f"rand_{_impl}",
        _rand,
        _key(_impl),
        check="random",
        tol="ulp",
        note="bits exact (threefry by definition; rbg: XLA:CPU's rng_bit_generator)",
    )
prog(
    "rand_gamma_beta",
    lambda kd: (
        lambda k: (
            jax.random.gamma(k, jnp.array([0.5, 1.0, 3.0])),
            jax.random.beta(jax.random.fold_in(k, 1), 2.0, 3.0, (3,)),
            jax.random.dirichlet(jax.random.fold_in(k, 2), jnp.ones(3)),
            jax.random.poisson(jax.random.fold_in(k, 3), 3.0, (4,)),
        )
    )(jax.random.wrap_key_data(kd)),
    _key("threefry2x32"),
    tol="approx",
    check="random",
)
prog(
    "rand_typed_key",
    lambda s: (
        lambda k: (
            jax.random.key_data(jax.random.split(k, 3)),
            jax.random.normal(k, (4,), jnp.float64),
        )
    )(jax.random.key(s)),
    A(C(np.int64(1234))),
    x64=True,
    check="random",
    tol="ulp",
)
prog(
    "rand_f16_bf16",
    lambda kd: (
        lambda k: (
            jax.random.normal(k, (5,), jnp.bfloat16),
            jax.random.uniform(k, (5,), jnp.float16),
            jax.random.gumbel(k, (3,)),
            jax.random.laplace(k, (3,)),
            jax.random.exponential(k, (3,)),
            jax.random.logistic(k, (3,)),
            jax.random.cauchy(k, (3,)),
        )
    )(jax.random.wrap_key_data(kd)),
    _key("threefry2x32"),
    check="random",
    tol="ulp",
)
prog(
    "rand_partitionable",
    lambda kd: jax.random.normal(jax.random.wrap_key_data(kd), (3, 5)),
    _key("threefry2x32"),
    check="random",
    tol="ulp",
    extra={"config": {"jax_threefry_partitionable": True}},
)
prog(
    "rand_dropout",
    lambda kd, x: jnp.where(
        jax.random.bernoulli(jax.random.wrap_key_data(kd), 0.7, x.shape), x / 0.7, 0
    ),
    A(C(np.array([1, 2], np.uint32)), N((4, 5))),
    check="random",
    tol="ulp",
)

# ============================================================================ control flow


def _scan_rev(xs):
    return lax.scan(lambda c, x: (c * 0.9 + x, c), jnp.zeros(xs.shape[1:]), xs, reverse=True)


prog("cf_scan_reverse", _scan_rev, A(N((5, 3))), tol="approx")
prog(
    "cf_scan_unroll",
    lambda xs: lax.scan(lambda c, x: (c + jnp.sin(x), c * 2), 0.0, xs, unroll=2),
    A(N((7,))),
    tol="approx",
)
prog(
    "cf_scan_length",
    lambda x: lax.scan(lambda c, _: (c @ x, c.sum()), jnp.eye(3), None, length=4),
    A(N((3, 3))),
    tol="approx",
)
prog(
    "cf_fori",
    lambda x, n: (
        lax.fori_loop(0, 6, lambda i, c: c + i * x, x),
        lax.fori_loop(0, n, lambda i, c: c * 2 + i, jnp.int32(1)),
    ),
    A(N((3,)), C(np.int32(5))),
    tol="approx",
)
prog(
    "cf_while_dyn",
    lambda x: lax.while_loop(
        lambda s: s[0] < 50.0,
        lambda s: (s[0] * 1.7 + 1, s[1] + 1, s[2].at[s[1] % 3].add(1.0)),
        (jnp.abs(x[0]), 0, jnp.zeros(3)),
    ),
    A(N((2,))),
    tol="approx",
)
prog(
    "cf_cond",
    lambda p, x: (
        lax.cond(p > 0, lambda v: jnp.sin(v), lambda v: jnp.cos(v) * 2, x),
        lax.cond(p < 0, lambda: x.sum(), lambda: x.max()),
    ),
    A(C(np.float32(0.5)), N((4,))),
    tol="ulp",
)
prog(
    "cf_switch",
    lambda i, x: (
        lax.switch(i, [jnp.sin, jnp.cos, lambda v: -v], x),
        lax.switch(i + 5, [jnp.sin, jnp.cos, lambda v: -v], x),
    ),
    A(C(np.int32(1)), N((4,))),
    tol="ulp",
    note="switch clamps its index",
)
prog(
    "cf_switch_neg",
    lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: -v], x),
    A(C(np.int32(-4)), N((4,))),
    tol="ulp",
)
prog("cf_map", lambda xs: lax.map(lambda x: jnp.tanh(x).sum(), xs), A(N((5, 3))), tol="approx")
prog(
    "cf_nested",
    lambda xs: lax.scan(
        lambda c, x: (
            lax.fori_loop(0, 3, lambda i, cc: cc * 0.5 + x, c),
            lax.cond(x.sum() > 0, jnp.sum, jnp.max, c),
        ),
        jnp.zeros(3),
        xs,
    ),
    A(N((4, 3))),
    tol="approx",
)
prog(
    "cf_associative_scan",
    lambda x: (
        lax.associative_scan(jnp.add, x),
        lax.associative_scan(jnp.maximum, x, axis=1, reverse=True),
    ),
    A(N((5, 7))),
    tol="approx",
)
prog(
    "cf_while_grad_fori",
    jax.grad(lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * x, x)),
    A(C(np.float32(0.7))),
    tol="approx",
)
prog(
    "cf_scan_grad",
    jax.grad(
        lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(h @ w + x), None), jnp.zeros(3), xs)[0].sum()
    ),
    A(N((3, 3)), N((5, 3))),
    tol="approx",
)
prog(
    "cf_cumsum_grad",
    jax.grad(lambda x: jnp.sum(jnp.cumsum(x, axis=1) ** 2 + lax.cumprod(x, axis=0))),
    A(N((3, 4))),
    tol="approx",
)
prog(
    "cf_remat",
    jax.grad(jax.checkpoint(lambda x: jnp.sum(jnp.sin(jnp.cos(x) @ x)))),
    A(N((3, 3))),
    tol="approx",
)
prog(
    "cf_remat_policy",
    jax.grad(
        jax.checkpoint(
            lambda x: jnp.sum(jnp.tanh(x @ x) @ x), policy=jax.checkpoint_policies.nothing_saveable
        )
    ),
    A(N((3, 3))),
    tol="approx",
)


@jax.custom_jvp
def _cj(x):
    return jnp.log1p(jnp.exp(x))


_cj.defjvp(lambda p, t: (_cj(p[0]), t[0] * jax.nn.sigmoid(p[0])))


@jax.custom_vjp
def _cv(x):
    return jnp.sin(x)


_cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda res, g: (g * res * 2,))

prog(
    "ad_custom_jvp",
    lambda x: (_cj(x), jax.grad(lambda v: _cj(v).sum())(x), jax.jvp(_cj, (x,), (x,))[1]),
    A(N((5,))),
    tol="ulp",
)
prog(
    "ad_custom_vjp", lambda x: (_cv(x), jax.grad(lambda v: _cv(v).sum())(x)), A(N((5,))), tol="ulp"
)
prog(
    "ad_jvp_vmap",
    lambda x, t: jax.vmap(lambda a, b: jax.jvp(lambda v: jnp.sin(v) * v**2, (a,), (b,)))(x, t),
    A(N((4, 3)), N((4, 3))),
    tol="ulp",
)
prog(
    "ad_hessian",
    jax.hessian(lambda x: jnp.sum(jnp.sin(x) * x[::-1] ** 2)),
    A(N((4,))),
    tol="approx",
)
prog(
    "ad_jacfwd_rev",
    lambda x: (jax.jacfwd(jnp.tanh)(x), jax.jacrev(lambda v: jnp.cumsum(v**2))(x)),
    A(N((4,))),
    tol="approx",
)
prog(
    "ad_grad_softmax_ln",
    jax.grad(
        lambda x, g: jnp.sum(
            jax.nn.softmax(x)
            * ((x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5) * g)
        ),
        argnums=(0, 1),
    ),
    A(N((3, 6)), N((6,))),
    tol="approx",
)
prog(
    "ad_grad_logsumexp_where",
    jax.grad(lambda x: jss.logsumexp(jnp.where(x > 0, x, -jnp.inf)) + jnp.max(x)),
    A(N((6,))),
    tol="approx",
)
prog(
    "ad_vmap_dynamic_slice",
    jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (3,))),
    A(N((4, 8)), C(np.array([0, 6, -1, 3], np.int32))),
)
prog(
    "ad_vmap_cond",
    jax.vmap(lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x)),
    A(N((5,)), N((5,))),
    tol="ulp",
)
prog(
    "ad_grad_while_pow",
    jax.grad(lambda x: jnp.linalg.norm(x) + jnp.prod(x)),
    A(N((5,))),
    tol="approx",
)
prog(
    "ad_grad_int_pow",
    jax.grad(lambda x: jnp.sum(x**3 + jnp.abs(x) ** 2.5 + jnp.sqrt(jnp.abs(x)))),
    A(N((5,))),
    tol="approx",
)

# ============================================================================ nn building blocks


def _layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g + b


prog("nn_layer_norm", _layer_norm, A(N((2, 3, 8)), N((8,)), N((8,))), tol="approx")
prog(
    "nn_layer_norm_bf16",
    _layer_norm,
    A(N((2, 3, 8), "bf16"), N((8,), "bf16"), N((8,), "bf16")),
    tol="approx",
)
prog(
    "nn_dpa",
    lambda q, k, v: (
        jax.nn.dot_product_attention(q, k, v),
        jax.nn.dot_product_attention(q, k, v, is_causal=True),
    ),
    A(N((2, 5, 2, 8)), N((2, 5, 2, 8)), N((2, 5, 2, 8))),
    tol="approx",
)
prog(
    "nn_dpa_mask_bias",
    lambda q, k, v, m, b: jax.nn.dot_product_attention(q, k, v, bias=b, mask=m),
    A(
        N((1, 4, 2, 8)),
        N((1, 6, 2, 8)),
        N((1, 6, 2, 8)),
        I((1, 2, 4, 6), "bool", 0, 2),
        N((1, 2, 4, 6)),
    ),
    tol="approx",
)
prog(
    "nn_dpa_gqa_bf16",
    lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True),
    A(N((1, 4, 4, 8), "bf16"), N((1, 4, 2, 8), "bf16"), N((1, 4, 2, 8), "bf16")),
    tol="approx",
)
prog(
    "nn_rms_rope",
    lambda x, pos: (
        x * lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6),
        x * jnp.cos(pos[:, None] / 10000 ** (jnp.arange(8) / 8)),
    ),
    A(N((4, 8)), C(np.arange(4, dtype=np.float32))),
    tol="ulp",
)
prog(
    "nn_cross_entropy",
    lambda logits, labels: (
        -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1).mean()
    ),
    A(N((6, 10)), I((6,), "i32", 0, 10)),
    tol="approx",
)
prog(
    "nn_batchnorm_train",
    jax.grad(
        lambda x, g: jnp.sum(((x - x.mean(0)) / jnp.sqrt(x.var(0) + 1e-3) * g) ** 3), argnums=(0, 1)
    ),
    A(N((8, 4)), N((4,))),
    tol="approx",
)
prog(
    "nn_mlp_x64",
    lambda x, w: jax.nn.gelu(x @ w),
    A(N((3, 4), "f64"), N((4, 5), "f64")),
    x64=True,
    tol="approx",
)
prog(
    "nn_mlp_x64_off_f64in",
    lambda x, w: jnp.tanh(x @ w),
    A(N((3, 4)), N((4, 5))),
    tol="approx",
    note="x64 off: everything 32-bit",
)
prog(
    "nn_int_default_x64",
    lambda x: (jnp.arange(5) * x, jnp.sum(jnp.arange(4)), jnp.float64(2.5) * x),
    A(C(np.int64(3))),
    x64=True,
    tol="ulp",
)

# ============================================================================ shape polymorphism

prog(
    "poly_elementwise",
    lambda x: (jnp.sin(x) * 2 + x.shape[0], x.sum(axis=0), jnp.cumsum(x, axis=0)),
    A(N((5, 3))),
    poly=("b, ...",),
    tol="approx",
)
prog(
    "poly_matmul_softmax",
    lambda x, w: jax.nn.softmax(x @ w, axis=-1),
    A(N((4, 6, 3)), N((3, 5))),
    poly=("b, t, 3", None),
    tol="approx",
)
prog(
    "poly_reshape_concat",
    lambda x: (
        x.reshape(-1),
        jnp.concatenate([x, x], 0),
        x.reshape(x.shape[0] * 2, -1),
        jnp.zeros((x.shape[0], 2)),
        jnp.arange(x.shape[0]),
    ),
    A(N((3, 4))),
    poly=("b, 4",),
)
prog(
    "poly_sort_topk",
    lambda x: (jnp.sort(x, axis=0), jnp.argsort(x, axis=1), lax.top_k(x, 2)),
    A(N((5, 6))),
    poly=("b, 6",),
)
prog(
    "poly_conv",
    lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    A(N((3, 6, 6, 2)), N((3, 3, 2, 4))),
    poly=("b, h, w, 2", None),
    tol="approx",
)
prog(
    "poly_pool",
    lambda x: _maxpool(x, (1, 2, 2, 1), (1, 2, 2, 1), "SAME"),
    A(N((2, 5, 7, 3))),
    poly=("b, h, w, c",),
)
prog(
    "poly_scan",
    lambda xs: lax.scan(lambda c, x: (c + x, c * x), jnp.zeros(xs.shape[1:]), xs),
    A(N((6, 3))),
    poly=("t, c",),
    tol="approx",
)
prog(
    "poly_gather_dyn",
    lambda x, i: (x[i], lax.dynamic_index_in_dim(x, i[0], 0), x.at[i].add(1.0)),
    A(N((7, 3)), C(np.array([0, 6, 2], np.int32))),
    poly=("b, 3", "k"),
)
prog(
    "poly_iota_where",
    lambda x: jnp.where(jnp.arange(x.shape[0])[:, None] > jnp.arange(x.shape[1]), x, 0),
    A(N((5, 4))),
    poly=("a, b",),
)
prog(
    "poly_broadcast_ops",
    lambda x, y: (
        x + y[:, None],
        jnp.mean(x, axis=1),
        jnp.max(x) * x.shape[1],
        jnp.pad(x, ((1, 1), (0, 2))),
    ),
    A(N((4, 5)), N((4,))),
    poly=("a, b", "a"),
    tol="approx",
)
prog(
    "poly_mod_div",
    lambda x: (x.reshape((x.shape[0] // 2, 2, -1)), x[: x.shape[0] // 2], x[::2]),
    A(N((6, 3))),
    poly=("2*b, 3",),
)
prog(
    "poly_fft_linalg",
    lambda x: (jnp.fft.fft(x), jnp.linalg.norm(x, axis=1)),
    A(N((3, 8))),
    poly=("b, 8",),
    tol="fft",
)
prog(
    "poly_attention",
    lambda q: jax.nn.dot_product_attention(q, q, q, is_causal=True),
    A(N((2, 5, 2, 4))),
    poly=("b, t, 2, 4",),
    tol="approx",
)
prog(
    "poly_random",
    lambda kd, x: jax.random.normal(jax.random.wrap_key_data(kd), x.shape),
    A(C(np.array([3, 9], np.uint32)), N((3, 4))),
    poly=(None, "a, b"),
    check="random",
    tol="ulp",
)
prog(
    "poly_while",
    lambda x: lax.while_loop(
        lambda s: s[1] < x.shape[0],
        lambda s: (s[0] + x[s[1]], s[1] + 1),
        (jnp.zeros(x.shape[1:]), 0),
    )[0],
    A(N((5, 3))),
    poly=("n, c",),
    tol="approx",
)
prog(
    "poly_onehot_take",
    lambda x, i: (jax.nn.one_hot(i, x.shape[1]), jnp.take_along_axis(x, i[:, None], 1)),
    A(N((4, 6)), C(np.array([5, 0, 2, 3], np.int32))),
    poly=("b, n", "b"),
)


# ============================================================================ large arrays
# (sizes where an implementation's fast paths, fusion and threads take over)

prog(
    "big_elementwise_chain",
    lambda x, y: jnp.tanh(x * 1.5 + y) * jnp.exp(-x * x) + jnp.sqrt(jnp.abs(y)),
    A(N((256, 512)), N((256, 512))),
    tol="ulp",
)
prog(
    "big_elementwise_bf16",
    lambda x, y: (jax.nn.gelu(x * y) + x).astype(jnp.float32),
    A(N((128, 1024), "bf16"), N((128, 1024), "bf16")),
    tol="ulp",
    known="XLA keeps f32 precision between fused bf16 ops (excess precision); the spec rounds each op's result to bf16",
)
prog(
    "big_maxmin_zeros",
    lambda x, y: (jnp.maximum(x, y), jnp.minimum(x, y), jnp.maximum(x, 0.0)),
    A(
        lambda r: (
            np.where(r.random((200, 700)) < 0.3, 0.0, r.standard_normal((200, 700))).astype(
                np.float32
            )
            * np.where(r.random((200, 700)) < 0.5, -1, 1).astype(np.float32)
        ),
        lambda r: np.where(r.random((200, 700)) < 0.3, -0.0, r.standard_normal((200, 700))).astype(
            np.float32
        ),
    ),
)
prog(
    "big_reductions",
    lambda x: (
        x.sum(axis=0),
        x.sum(axis=1),
        x.max(axis=0),
        jnp.argmax(x, axis=1),
        x.mean(),
        jnp.argmin(x, axis=0),
        jnp.var(x, axis=1),
    ),
    A(N((300, 700))),
    tol="approx",
)
prog("big_softmax", lambda x: jax.nn.softmax(x, axis=-1), A(N((64, 1024), "f32", 4)), tol="approx")
prog(
    "big_matmul",
    lambda a, b: (a @ b, jnp.tanh(a @ b) @ b.T),
    A(N((200, 300)), N((300, 150))),
    tol="approx",
)
prog(
    "big_batched_matmul",
    lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
    A(N((16, 64, 96)), N((16, 96, 32))),
    tol="approx",
)
prog(
    "big_conv",
    lambda x, k: jax.nn.relu(
        lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    ),
    A(N((2, 32, 32, 16)), N((3, 3, 16, 32))),
    tol="approx",
)
prog(
    "big_conv_stride_nchw",
    lambda x, k: lax.conv_general_dilated(
        x, k, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW")
    ),
    A(N((2, 16, 33, 33)), N((24, 16, 3, 3))),
    tol="approx",
)
prog(
    "big_depthwise",
    lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", feature_group_count=32, dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    A(N((2, 24, 24, 32)), N((3, 3, 1, 32))),
    tol="approx",
)
prog("big_sort", lambda x: (jnp.sort(x), jnp.argsort(x, axis=0), lax.top_k(x, 10)), A(N((50, 400))))
prog(
    "big_cumsum",
    lambda x: (jnp.cumsum(x, axis=1), lax.cummax(x, axis=0), jnp.cumsum(x.reshape(-1))),
    A(N((40, 3000))),
    tol="approx",
)
prog(
    "big_cumsum_int",
    lambda x: (jnp.cumsum(x, axis=0), jnp.cumprod(x % 3 + 1, axis=1)),
    A(I((500, 64), "i32", -9, 9)),
)
prog(
    "big_gather_scatter",
    lambda x, i, u: (x[i], x.at[i].add(u), jnp.take(x, i, axis=0, mode="clip")),
    A(N((2000, 64)), I((3000,), "i32", 0, 2000), N((3000, 64))),
    tol="approx",
)
prog(
    "big_embedding",
    lambda t, i: jnp.take(t, i, axis=0).sum(axis=1),
    A(N((5000, 128)), I((32, 20), "i32", 0, 5000)),
    tol="approx",
)
prog(
    "big_maxpool", lambda x: _maxpool(x, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"), A(N((4, 64, 64, 16)))
)
prog(
    "big_avgpool",
    lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4,
    A(N((4, 64, 64, 16))),
    tol="approx",
)
prog("big_layer_norm", _layer_norm, A(N((8, 128, 256)), N((256,)), N((256,))), tol="approx")
prog(
    "big_transpose_reshape",
    lambda x: (jnp.transpose(x, (2, 0, 1)).reshape(64, -1) * 2, x[:, ::-1, 3:40:3]),
    A(N((64, 128, 48))),
)
prog(
    "big_where_select",
    lambda c, x, y: (jnp.where(c > 0, x, y), jnp.clip(x, -0.5, y)),
    A(N((300, 500)), N((300, 500)), N((300, 500))),
)
prog(
    "big_int_ops",
    lambda a, b: (
        a * b + (a >> 3),
        a // jnp.where(b == 0, 1, b),
        a % jnp.where(b == 0, 1, b),
        a.astype(jnp.float32) * 0.5,
    ),
    A(I((300, 500), "i32", -(10**6), 10**6), I((300, 500), "i32", -50, 50)),
)
prog(
    "big_transcendental_f16",
    lambda x: (jnp.exp(x), jnp.log(jnp.abs(x) + 1), jnp.sin(x), jnp.tanh(x)),
    A(N((200, 600), "f16")),
    tol="ulp",
)
prog("big_fft", lambda x: (jnp.fft.rfft(x, axis=-1), jnp.fft.fft2(x)), A(N((64, 256))), tol="fft")
prog(
    "big_attention",
    lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True),
    A(N((2, 128, 4, 32)), N((2, 128, 4, 32)), N((2, 128, 4, 32))),
    tol="approx",
)
prog(
    "big_mlp_grad",
    jax.grad(lambda w1, w2, x: jnp.mean((jax.nn.gelu(x @ w1) @ w2) ** 2), argnums=(0, 1)),
    A(N((64, 256)), N((256, 32)), N((128, 64))),
    tol="approx",
)
prog(
    "big_scan_rnn",
    lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(h @ w + x),) * 2, jnp.zeros((8, 64)), xs),
    A(N((64, 64), "f32", 0.1), N((50, 8, 64))),
    tol="approx",
)
prog(
    "big_random",
    lambda kd: (
        lambda k: (
            jax.random.normal(k, (300, 400)),
            jax.random.uniform(k, (100000,)),
            jax.random.bits(k, (77777,)),
        )
    )(jax.random.wrap_key_data(kd)),
    _key("threefry2x32"),
    check="random",
    tol="ulp",
)
prog(
    "big_random_rbg",
    lambda kd: jax.random.bits(jax.random.wrap_key_data(kd, impl="rbg"), (70001,)),
    _key("rbg"),
    check="random",
)

# ============================================================================ empty and scalar

prog(
    "empty_reductions",
    lambda x: (
        x.sum(axis=0),
        x.sum(axis=1),
        jnp.max(x, axis=0, initial=-1.0),
        jnp.prod(x),
        x.mean(axis=1),
        jnp.any(x > 0, axis=0),
        jnp.cumsum(x, axis=0),
    ),
    A(N((0, 3))),
)
prog(
    "empty_matmul",
    lambda a, b, c: (a @ b, c.T @ a, jnp.einsum("ij,jk->ik", c.T, c)),
    A(N((0, 4)), N((4, 3)), N((0, 2))),
)
prog(
    "empty_sort_topk",
    lambda x: (jnp.sort(x, axis=0), jnp.argsort(x, axis=1), lax.top_k(x, 0)),
    A(N((0, 5))),
)
prog(
    "empty_concat_pad",
    lambda x, y: (jnp.concatenate([x, y], 0), jnp.pad(x, ((1, 1), (0, 0))), x[:, 1:1]),
    A(N((0, 3)), N((2, 3))),
)
prog(
    "empty_gather_scatter",
    lambda x, i, u: (x[i], x.at[i].add(u), jnp.take(x, i, axis=0)),
    A(N((4, 3)), C(np.zeros((0,), np.int32)), N((0, 3))),
)
prog(
    "empty_conv",
    lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    A(N((0, 5, 5, 2)), N((3, 3, 2, 3))),
)
prog("empty_scan", lambda xs: lax.scan(lambda c, x: (c + x, c), jnp.ones(3), xs), A(N((0, 3))))
prog(
    "empty_while",
    lambda x: lax.while_loop(lambda c: c[1] < 0, lambda c: (c[0] * 2, c[1] + 1), (x, 0)),
    A(N((3,))),
)
prog("empty_fft", lambda x: (jnp.fft.fft(x, axis=0), jnp.fft.rfft(x, axis=1)), A(N((0, 4))))
prog(
    "scalar_ops",
    lambda a, b, i: (
        a + b,
        jnp.sin(a),
        jnp.where(a > b, a, b),
        a.astype(jnp.int32) + i,
        jnp.reshape(a, (1, 1)),
        jnp.broadcast_to(b, (3,)),
        jnp.stack([a, b]),
    ),
    A(C(np.float32(1.5)), C(np.float32(-0.5)), C(np.int32(7))),
    tol="ulp",
)
prog(
    "scalar_cond_loop",
    lambda a: lax.fori_loop(0, 10, lambda i, c: c + jnp.sin(c + i), a),
    A(C(np.float32(0.3))),
    tol="approx",
)
prog(
    "size1_dims",
    lambda x: (
        x.sum(axis=(0, 2)),
        jnp.squeeze(x),
        x @ x.transpose(0, 2, 1),
        jnp.sort(x, axis=0),
        jnp.cumsum(x, axis=2),
    ),
    A(N((1, 5, 1))),
    tol="approx",
)

# ============================================================================ more API

prog(
    "api_image_resize",
    lambda x: (
        jax.image.resize(x, (2, 9, 7, 3), "nearest"),
        jax.image.resize(x, (2, 9, 7, 3), "linear"),
        jax.image.resize(x, (2, 3, 2, 3), "linear", antialias=True),
        jax.image.resize(x, (2, 8, 10, 3), "cubic"),
        jax.image.resize(x, (2, 8, 10, 3), "lanczos3"),
    ),
    A(N((2, 5, 5, 3))),
    tol="approx",
)
prog(
    "api_signal",
    lambda x, k: (
        jsp.signal.convolve(x, k, mode="same"),
        jsp.signal.convolve2d(x, k),
        jsp.signal.fftconvolve(x, k, mode="valid"),
        jsp.signal.correlate(x, k),
    ),
    A(N((6, 7)), N((3, 2))),
    tol="fft",
)
prog(
    "api_map_coordinates",
    lambda x, c: (
        jsp.ndimage.map_coordinates(x, c, order=1),
        jsp.ndimage.map_coordinates(x, c, order=0, mode="wrap"),
        jsp.ndimage.map_coordinates(x, c, order=1, mode="reflect"),
    ),
    A(N((5, 6)), U((2, 7), "f32", -1, 6)),
    tol="ulp",
)
prog(
    "api_stats",
    lambda x: (
        jsp.stats.norm.logpdf(x, 0.5, 2.0),
        jsp.stats.norm.cdf(x),
        jsp.stats.t.logpdf(x, 3.0),
        jsp.stats.gamma.logpdf(jnp.abs(x), 2.0),
        jsp.stats.beta.logpdf(jax.nn.sigmoid(x), 2.0, 3.0),
        jsp.stats.poisson.logpmf(jnp.round(jnp.abs(x) * 3), 2.5),
        jsp.stats.norm.ppf(jax.nn.sigmoid(x)),
        jsp.stats.logistic.cdf(x),
        jsp.stats.laplace.logpdf(x),
        jsp.stats.cauchy.logpdf(x),
    ),
    A(N((10,))),
    tol="special",
)
prog(
    "api_stats_mvn",
    lambda x, m, c: jsp.stats.multivariate_normal.logpdf(x, m, c @ c.T + 3 * jnp.eye(3)),
    A(N((5, 3)), N((3,)), N((3, 3))),
    tol="linalg",
)
prog(
    "api_linalg_extra",
    lambda a: (
        jsp.linalg.lu(a)[2],
        jsp.linalg.eigh_tridiagonal(jnp.diag(a), jnp.diag(a, 1), eigvals_only=True),
        jnp.linalg.tensorinv(a.reshape(2, 2, 2, 2) + 0 * 1, ind=2).reshape(4, 4),
        jnp.linalg.multi_dot([a, a.T, a]),
    ),
    lambda r: ((r.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.float32),),
    tol="linalg",
)
prog(
    "api_schur_sqrtm",
    lambda a: (jsp.linalg.schur(a)[0].diagonal(), jsp.linalg.sqrtm(a @ a.T + jnp.eye(4))),
    A(N((4, 4), "f64")),
    x64=True,
    tol="linalg",
    note="schur diagonal order may differ",
)
prog("api_eig_vectors", lambda a: tuple(jnp.linalg.eig(a)), A(N((4, 4))), tol="linalg", check="eig")
prog(
    "api_roots_polyfit",
    lambda p, x, y: (jnp.sort_complex(jnp.roots(p, strip_zeros=False)), jnp.polyfit(x, y, 2)),
    A(C(np.array([1.0, -6.0, 11.0, -6.0], np.float32)), N((8,)), N((8,))),
    tol="linalg",
)
prog(
    "api_numpy_misc",
    lambda a, b: (
        jnp.gcd(a, b),
        jnp.lcm(a, b),
        jnp.divmod(a, jnp.where(b == 0, 1, b)),
        jnp.unravel_index(jnp.abs(a), (4, 5)),
        jnp.packbits(a > 0),
        jnp.unpackbits(jnp.abs(a).astype(jnp.uint8)),
        jnp.bitwise_count(a),
        jnp.left_shift(a, 2),
        jnp.right_shift(a, 1),
    ),
    A(I((12,), "i32", -20, 20), I((12,), "i32", -20, 20)),
)
prog(
    "api_numpy_float",
    lambda x, w: (
        jnp.round(x, 2),
        jnp.sinc(x),
        jnp.heaviside(x, 0.5),
        jnp.logaddexp2(x, w),
        jnp.float_power(jnp.abs(x), 1.5),
        jnp.ediff1d(x),
        jnp.trapezoid(x),
        jnp.cov(jnp.stack([x, w])),
        jnp.corrcoef(x, w),
        jnp.average(x, weights=jnp.abs(w)),
        jnp.i0(x),
        jnp.deg2rad(x),
        jnp.trunc(x * 3),
        jnp.modf(x * 3),
    ),
    A(N((9,)), N((9,))),
    tol="approx",
)
prog(
    "api_select_piecewise",
    lambda x: (
        jnp.select([x < -1, x > 1], [x * 2, -x], 0.5),
        jnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v**2]),
        jnp.argwhere(x > 0, size=4, fill_value=-1),
        jnp.flatnonzero(x < 0, size=3),
        jnp.cumulative_sum(x, include_initial=True),
        jnp.nancumsum(x),
    ),
    A(with_specials(N((5,)))),
    tol="ulp",
)
prog(
    "api_vectorize_apply",
    lambda x: (
        jnp.vectorize(lambda r: r / r.sum(), signature="(n)->(n)")(x),
        jnp.apply_along_axis(lambda r: r.max() - r.min(), 1, x),
    ),
    A(N((3, 5))),
    tol="ulp",
)
prog(
    "api_lax_reduce_bits",
    lambda a: (
        lax.reduce_and(a, (0,)),
        lax.reduce_or(a, (1,)),
        lax.reduce_xor(a, (0, 1)),
        lax.argmax(a, 1, jnp.int8),
        lax.argmin(a.astype(jnp.float32), 0, jnp.uint8),
    ),
    A(I((4, 6), "u32", 0, 2**32)),
)
prog("api_approx_min_k", lambda x: lax.approx_min_k(x, 3), A(N((3, 20))), note="exact on cpu")
prog(
    "api_conv_patches",
    lambda x: lax.conv_general_dilated_patches(x, (3, 3), (1, 1), "SAME"),
    A(N((1, 2, 5, 5))),
)
prog(
    "api_rng_bit_generator",
    lambda k: (
        lax.rng_bit_generator(k, (5,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY),
        lax.rng_bit_generator(
            k, (2, 3), dtype=jnp.uint64, algorithm=lax.RandomAlgorithm.RNG_PHILOX
        ),
        lax.rng_bit_generator(
            k, (4,), dtype=jnp.uint8, algorithm=lax.RandomAlgorithm.RNG_THREE_FRY
        ),
    ),
    A(C(np.array([1, 2], np.uint64))),
    x64=True,
    check="random",
    note="THREE_FRY and PHILOX bits: the spec leaves the exact bits to the implementation",
)
prog(
    "api_rng_bit_generator_32",
    lambda k: (
        lax.rng_bit_generator(k, (6,), algorithm=lax.RandomAlgorithm.RNG_PHILOX),
        lax.rng_bit_generator(
            k, (3, 3), dtype=jnp.uint32, algorithm=lax.RandomAlgorithm.RNG_THREE_FRY
        ),
    ),
    A(C(np.array([11, 22, 33, 44], np.uint32))),
    check="random",
)
prog(
    "api_composite",
    lambda x: lax.composite(lambda v, *, scale: jnp.tanh(v) * scale, name="my.tanh_scale")(
        x, scale=2.0
    ),
    A(N((4,))),
    tol="ulp",
)
prog(
    "api_optimization_barrier",
    lambda x, y: lax.optimization_barrier((x * 2, y + 1)),
    A(N((3,)), I((2,), "i32", 0, 5)),
)
prog(
    "api_platform_dependent",
    lambda x: lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos),
    A(N((4,))),
    tol="ulp",
)
prog(
    "api_ragged_dot",
    lambda a, b, g: lax.ragged_dot(a, b, g),
    A(N((6, 4)), N((3, 4, 2)), C(np.array([2, 0, 4], np.int32))),
    tol="approx",
)
prog(
    "api_vmap_collectives",
    jax.vmap(
        lambda x: (
            x - lax.pmean(x, "i"),
            lax.all_gather(x, "i"),
            lax.axis_index("i"),
            lax.psum(x, "i"),
            lax.pmax(x, "i"),
        ),
        axis_name="i",
    ),
    A(N((4, 3))),
    tol="approx",
)
prog(
    "api_dot_algorithm",
    lambda a, b: (
        lax.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32),
        lax.dot(a, b, precision=lax.DotAlgorithmPreset.BF16_BF16_F32),
    ),
    A(N((4, 8)), N((8, 3))),
    tol="approx",
)
prog(
    "api_stop_gradient_named",
    jax.grad(
        lambda x: jnp.sum(jax.named_call(lambda v: v * lax.stop_gradient(v), name="inner")(x) ** 2)
    ),
    A(N((4,))),
    tol="ulp",
)
prog(
    "api_sharding_constraint",
    lambda x: jax.lax.with_sharding_constraint(
        x * 2, jax.sharding.SingleDeviceSharding(jax.devices()[0])
    ),
    A(N((4,))),
)
prog("api_donate", jax.jit(lambda x, y: (x + y, y * 2), donate_argnums=(0,)), A(N((4,)), N((4,))))
prog(
    "api_unused_arg_kwargs",
    lambda x, unused, y: {"s": x * 2, "t": (y, x.sum())},
    A(N((3,)), N((2,)), N((3,))),
    tol="approx",
)
prog(
    "api_random_split_typed",
    lambda s: jax.random.key_data(
        jax.vmap(jax.random.split)(jax.random.split(jax.random.key(s), 3))
    ),
    A(C(np.int32(7))),
    check="random",
)
prog(
    "api_random_choice_p",
    lambda kd, p: (
        lambda k: (
            jax.random.choice(k, 5, (8,), p=p),
            jax.random.categorical(k, jnp.log(p), shape=(3, 4)),
            jax.random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), (3,)),
            jax.random.orthogonal(k, 3),
            jax.random.ball(k, 2),
        )
    )(jax.random.wrap_key_data(kd)),
    A(C(np.array([5, 6], np.uint32)), C(np.array([0.1, 0.2, 0.3, 0.15, 0.25], np.float32))),
    check="random",
    tol="linalg",
)
prog(
    "api_cx_edge",
    lambda z: (jnp.sqrt(z), jnp.log(z), jnp.abs(z), z * z, 1 / z, jnp.exp(z), jnp.sign(z)),
    A(
        C(
            np.array(
                [
                    0j,
                    -0.0 + 0j,
                    complex(-1, 0),
                    complex(-1, -0.0),
                    complex(np.inf, 1),
                    complex(1, np.inf),
                    complex(np.nan, 1),
                    complex(3e38, 3e38),
                    complex(1e-40, 1e-40),
                    complex(-np.inf, np.inf),
                ],
                np.complex64,
            )
        )
    ),
    tol="ulp",
    known="complex special values (infinities, NaN, subnormals): the spec does not define them; XLA flushes subnormals and is not C99 Annex G either",
)
prog(
    "api_cx_div_edge",
    lambda a, b: (a / b, a * b),
    A(
        C(np.array([1 + 1j, 1 + 0j, 0j, complex(np.inf, 0), 1e30 + 1e30j, 1 + 1j], np.complex64)),
        C(
            np.array(
                [0j, 1e-30 + 1e-30j, 0j, 1 + 1j, 1e30 + 1e30j, complex(np.inf, np.inf)],
                np.complex64,
            )
        ),
    ),
    tol="ulp",
    known="finite / infinite complex: XLA (and C99 Annex G) give 0, hlorun's complex128 Smith division gives NaN; the spec does not say",
)
prog(
    "api_int_overflow_reduce",
    lambda a: (
        a.sum(dtype=jnp.int8),
        jnp.prod(a, dtype=jnp.int16),
        a.sum(axis=0),
        jnp.cumsum(a, dtype=jnp.int8),
    ),
    A(I((40,), "i8", -128, 128)),
)
prog(
    "api_mixed_precision_sum",
    lambda x: (x.sum(), x.sum(dtype=jnp.float32), x.mean(), jnp.cumsum(x)),
    A(N((1000,), "bf16")),
    tol="approx",
    note="bf16 sums: XLA accumulates in f32; order and width of accumulation are the implementation's",
)
prog(
    "api_f16_sum_big",
    lambda x: (x.sum(), x.astype(jnp.float32).sum(), jnp.mean(x, axis=0)),
    A(N((64, 100), "f16")),
    tol="approx",
)
prog(
    "api_cc9",
    lambda x: jnp.sin(x) @ x.T,
    A(N((3, 4))),
    tol="approx",
    extra={"config": {"jax_export_calling_convention_version": 9}},
)
prog(
    "api_cc9_poly",
    lambda x: jnp.cumsum(x, axis=0) * x.shape[0],
    A(N((5, 2))),
    poly=("b, 2",),
    tol="approx",
    extra={"config": {"jax_export_calling_convention_version": 9}},
)
prog(
    "api_poly_constraints",
    lambda x: x[: x.shape[0] - 2] + x[2:],
    A(N((7, 3))),
    poly=("b, 3",),
    tol="ulp",
    extra={"constraints": ["b >= 3"]},
)
prog(
    "api_poly_two_vars",
    lambda x, y: (jnp.concatenate([x, y], 0).sum(0), x.shape[0] * y.shape[0] + jnp.zeros(())),
    A(N((3, 4)), N((5, 4))),
    poly=("a, c", "b, c"),
    tol="approx",
)
prog(
    "api_poly_max_min",
    lambda x: (
        jnp.pad(x, ((0, jnp.maximum(0, 6 - x.shape[0]) if False else 0), (0, 0))),
        jnp.reshape(x, (-1,))[: x.shape[0]],
    ),
    A(N((4, 2))),
    poly=("b, 2",),
)

# ============================================================================ model-shaped programs


def _adam_step(params, grads, m, v, step):
    b1, b2, lr = 0.9, 0.999, 1e-3
    m = jax.tree.map(lambda a, g: b1 * a + (1 - b1) * g, m, grads)
    v = jax.tree.map(lambda a, g: b2 * a + (1 - b2) * g * g, v, grads)
    t = step.astype(jnp.float32) + 1
    mh = jax.tree.map(lambda a: a / (1 - b1**t), m)
    vh = jax.tree.map(lambda a: a / (1 - b2**t), v)
    gnorm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    scale = jnp.minimum(1.0, 1.0 / (gnorm + 1e-6))
    new = jax.tree.map(
        lambda p, a, b: p - lr * scale * a / (jnp.sqrt(b) + 1e-8) - lr * 1e-4 * p, params, mh, vh
    )
    return new, m, v, step + 1


def _mlp_train(w1, b1, w2, b2, x, y, step):
    params = {"w1": w1, "b1": b1, "w2": w2, "b2": b2}

    def loss(p):
        h = jax.nn.relu(x @ p["w1"] + p["b1"])
        logits = h @ p["w2"] + p["b2"]
        onehot = jax.nn.one_hot(y, logits.shape[-1])
        smooth = onehot * 0.9 + 0.1 / logits.shape[-1]
        return -jnp.mean(jnp.sum(smooth * jax.nn.log_softmax(logits), -1))

    val, grads = jax.value_and_grad(loss)(params)
    zeros = jax.tree.map(jnp.zeros_like, params)
    new, m, v, step = _adam_step(params, grads, zeros, zeros, step)
    return val, new, m, v, step


prog(
    "model_mlp_adam",
    _mlp_train,
    A(
        N((16, 32), "f32", 0.3),
        N((32,)),
        N((32, 10), "f32", 0.3),
        N((10,)),
        N((8, 16)),
        I((8,), "i32", 0, 10),
        C(np.int32(3)),
    ),
    tol="approx",
)


def _cnn_bn(x, k1, k2, g, b, w):
    y = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    mean = y.mean((0, 1, 2))
    var = y.var((0, 1, 2))
    y = jax.nn.relu((y - mean) * lax.rsqrt(var + 1e-5) * g + b)
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = lax.conv_general_dilated(
        y, k2, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    y = jnp.mean(y, axis=(1, 2))
    return y @ w


prog(
    "model_cnn_bn_grad",
    jax.value_and_grad(
        lambda *a: jnp.sum(jax.nn.log_softmax(_cnn_bn(*a))[:, 0]), argnums=(1, 2, 3, 4, 5)
    ),
    A(
        N((4, 16, 16, 3)),
        N((3, 3, 3, 8), "f32", 0.3),
        N((3, 3, 8, 16), "f32", 0.2),
        N((8,)),
        N((8,)),
        N((16, 5), "f32", 0.3),
    ),
    tol="approx",
)


def _block(x, wq, wk, wv, wo, w1, w2, g1, g2):
    def ln(v, g):
        m = v.mean(-1, keepdims=True)
        return (v - m) * lax.rsqrt(((v - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g

    b, t, d = x.shape
    h = 2
    xn = ln(x, g1)
    q = (xn @ wq).reshape(b, t, h, d // h)
    k = (xn @ wk).reshape(b, t, h, d // h)
    v = (xn @ wv).reshape(b, t, h, d // h)
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(jnp.float32(d // h)).astype(x.dtype)
    mask = jnp.tril(jnp.ones((t, t), bool))
    s = jnp.where(mask, s, jnp.finfo(x.dtype).min)
    p = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(x.dtype)
    o = jnp.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, t, d) @ wo
    x = x + o
    return x + jax.nn.gelu(ln(x, g2) @ w1) @ w2


_BLOCK_ARGS = [(2, 6, 16), (16, 16), (16, 16), (16, 16), (16, 16), (16, 32), (32, 16), (16,), (16,)]
prog("model_transformer_f32", _block, A(*(N(s, "f32", 0.3) for s in _BLOCK_ARGS)), tol="approx")
prog("model_transformer_bf16", _block, A(*(N(s, "bf16", 0.3) for s in _BLOCK_ARGS)), tol="approx")
prog(
    "model_transformer_grad",
    jax.grad(lambda *a: jnp.sum(_block(*a) ** 2), argnums=tuple(range(9))),
    A(*(N(s, "f32", 0.3) for s in _BLOCK_ARGS)),
    tol="approx",
)
prog(
    "model_transformer_scan_layers",
    lambda x, *ws: lax.scan(lambda c, w: (_block(c, *w), None), x, ws)[0],
    A(N((1, 4, 16), "f32", 0.5), *(N((3, *s), "f32", 0.3) for s in _BLOCK_ARGS[1:])),
    tol="approx",
)


def _lstm(params, xs):
    wi, wh, b = params

    def cell(carry, x):
        h, c = carry
        z = x @ wi + h @ wh + b
        i, f, g, o = jnp.split(z, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    n = wh.shape[0]
    return lax.scan(cell, (jnp.zeros((xs.shape[1], n)), jnp.zeros((xs.shape[1], n))), xs)


prog(
    "model_lstm",
    lambda wi, wh, b, xs: _lstm((wi, wh, b), xs),
    A(N((5, 32), "f32", 0.3), N((8, 32), "f32", 0.3), N((32,)), N((7, 3, 5))),
    tol="approx",
)
prog(
    "model_lstm_grad",
    jax.grad(lambda wi, wh, b, xs: jnp.sum(_lstm((wi, wh, b), xs)[1] ** 2), argnums=(0, 1, 2)),
    A(N((5, 32), "f32", 0.3), N((8, 32), "f32", 0.3), N((32,)), N((7, 3, 5))),
    tol="approx",
)


def _greedy_decode(emb, w, prompt):
    maxlen = 8

    def body(state):
        i, toks, cache = state
        x = emb[toks[i - 1]]
        cache = lax.dynamic_update_slice(cache, x[None], (i, 0))
        ctx = jnp.where(jnp.arange(maxlen)[:, None] < i + 1, cache, 0).sum(0)
        logits = jnp.tanh(ctx) @ w
        nxt = jnp.argmax(logits).astype(jnp.int32)
        return i + 1, toks.at[i].set(nxt), cache

    toks = jnp.zeros(maxlen, jnp.int32).at[0].set(prompt)
    cache = jnp.zeros((maxlen, emb.shape[1]))
    return lax.while_loop(lambda s: s[0] < maxlen, body, (jnp.int32(1), toks, cache))[1:]


prog("model_greedy_decode", _greedy_decode, A(N((11, 6)), N((6, 11)), C(np.int32(4))), tol="approx")


def _top_p(kd, logits):
    key = jax.random.wrap_key_data(kd)
    probs = jax.nn.softmax(logits / 0.8, -1)
    sp = jnp.sort(probs, -1)[..., ::-1]
    cs = jnp.cumsum(sp, -1)
    cutoff = jnp.take_along_axis(sp, jnp.sum(cs < 0.9, -1, keepdims=True), -1)
    masked = jnp.where(probs >= cutoff, logits, -jnp.inf)
    return jax.random.categorical(key, masked), masked


prog(
    "model_top_p_sample",
    _top_p,
    A(C(np.array([7, 8], np.uint32)), N((4, 20), "f32", 2)),
    check="random",
    tol="ulp",
)


def _moe(x, wg, we):
    logits = x @ wg
    vals, idx = lax.top_k(jax.nn.softmax(logits), 2)
    oh = jax.nn.one_hot(idx, wg.shape[1])  # t, k, e
    pos = jnp.cumsum(oh.reshape(-1, wg.shape[1]), axis=0).reshape(oh.shape) * oh
    keep = (pos <= 3).astype(x.dtype) * oh
    ex = jnp.einsum("td,edf->tef", x, we)
    return jnp.einsum("tk,tke,tef->tf", vals, keep, ex)


prog("model_moe", _moe, A(N((6, 8)), N((8, 4)), N((4, 8, 8), "f32", 0.3)), tol="approx")
prog(
    "model_vit_patch",
    lambda img, k, cls, pos: (
        jnp.concatenate(
            [
                jnp.broadcast_to(cls, (img.shape[0], 1, k.shape[-1])),
                lax.conv_general_dilated(
                    img, k, (4, 4), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
                ).reshape(img.shape[0], -1, k.shape[-1]),
            ],
            1,
        )
        + pos
    ),
    A(N((2, 16, 16, 3)), N((4, 4, 3, 8), "f32", 0.2), N((1, 1, 8)), N((1, 17, 8))),
    tol="approx",
)


def _group_norm(x, g, groups=4):
    b, h, w, c = x.shape
    y = x.reshape(b, h, w, groups, c // groups)
    m = y.mean((1, 2, 4), keepdims=True)
    v = y.var((1, 2, 4), keepdims=True)
    return ((y - m) * lax.rsqrt(v + 1e-6)).reshape(x.shape) * g


prog(
    "model_unet_bits",
    lambda x, t, g, k: lax.conv_general_dilated(
        jax.image.resize(
            jax.nn.silu(_group_norm(x, g))
            + jnp.concatenate(
                [
                    jnp.sin(t[:, None] * jnp.exp(-jnp.arange(4) * 0.5)),
                    jnp.cos(t[:, None] * jnp.exp(-jnp.arange(4) * 0.5)),
                ],
                -1,
            )[:, None, None, :],
            (x.shape[0], 16, 16, 8),
            "nearest",
        ),
        k,
        (1, 1),
        "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    ),
    A(N((2, 8, 8, 8)), U((2,), "f32", 0, 1000), N((8,)), N((3, 3, 8, 4), "f32", 0.2)),
    tol="approx",
)
prog(
    "model_int8_quant",
    lambda x, w: (
        lambda sx, sw: (
            lax.dot(
                jnp.clip(jnp.round(x / sx), -127, 127).astype(jnp.int8),
                jnp.clip(jnp.round(w / sw), -127, 127).astype(jnp.int8),
                preferred_element_type=jnp.int32,
            ).astype(jnp.float32)
            * sx
            * sw
        )
    )(
        jnp.max(jnp.abs(x), axis=1, keepdims=True) / 127,
        jnp.max(jnp.abs(w), axis=0, keepdims=True) / 127,
    ),
    A(N((6, 32)), N((32, 5))),
    tol="approx",
)
prog(
    "model_gru_bf16",
    lambda wx, wh, xs: lax.scan(
        lambda h, x: (
            lambda z, r: ((1 - z) * h + z * jnp.tanh(x @ wx[:, :8] + (r * h) @ wh[:, :8]),) * 2
        )(
            jax.nn.sigmoid(x @ wx[:, 8:16] + h @ wh[:, 8:16]),
            jax.nn.sigmoid(x @ wx[:, 16:] + h @ wh[:, 16:]),
        ),
        jnp.zeros((2, 8), jnp.bfloat16),
        xs,
    ),
    A(N((4, 24), "bf16", 0.4), N((8, 24), "bf16", 0.4), N((5, 2, 4), "bf16")),
    tol="approx",
)
prog(
    "model_int32_matmul_wrap",
    lambda a, b: (a @ b, jnp.einsum("ij,jk->ik", a, b) * 3),
    A(I((4, 8), "i32", -(2**31), 2**31 - 1), I((8, 3), "i32", -(2**31), 2**31 - 1)),
    note="int32 dot wraps modulo 2^32",
)
prog(
    "model_kv_cache_step",
    lambda cache, k, pos: (
        lax.dynamic_update_slice(cache, k, (0, pos, 0, 0)),
        lax.dynamic_update_slice_in_dim(cache, k, pos + 3, axis=1),
    ),
    A(N((2, 8, 2, 4)), N((2, 1, 2, 4)), C(np.int32(6))),
)
prog(
    "model_sparse_bcoo",
    lambda data, idx, x: jax.ops.segment_sum(data[:, None] * x[idx[:, 1]], idx[:, 0], 5),
    A(N((9,)), I((9, 2), "i32", 0, 5), N((5, 3))),
    tol="approx",
)
prog(
    "model_ctc_like_logsumexp_scan",
    lambda lp: lax.scan(
        lambda a, l: (
            (
                jss.logsumexp(
                    jnp.stack([a, jnp.concatenate([jnp.array([-jnp.inf]), a[:-1]])]), axis=0
                )
                + l,
            )
            * 2
        ),
        jnp.full((5,), -jnp.inf).at[0].set(0.0),
        lp,
    )[0],
    A(N((6, 5))),
    tol="approx",
)

# ============================================================================ edge grids
# every special value against every other (binary ops) or alone (unary ops)


def _edge_values(dt: str) -> np.ndarray:
    d = DT[dt]
    fi = ml_dtypes.finfo(d)
    vals = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        1.5,
        -1.5,
        2.5,
        -2.5,
        3.0,
        -3.0,
        3.14159,
        100.0,
        -100.0,
        float(fi.max),
        -float(fi.max),
        float(fi.tiny),
        -float(fi.tiny),
        np.inf,
        -np.inf,
        np.nan,
        7.0,
        -7.5,
        0.1,
    ]
    if float(fi.max) > 1e10:
        vals += [1e10, -1e10, 1e-10, 1e30 if float(fi.max) > 1e30 else 1e20]
    return np.array(vals, dtype=np.float64).astype(d)


def _pairs(dt: str, values: Callable[[str], np.ndarray] | None = None):
    """Every value of the edge set against every other (a, b flattened)."""

    def make(r):
        v = (values or _edge_values)(dt)
        a, b = np.meshgrid(v, v, indexing="ij")
        return a.reshape(-1), b.reshape(-1)

    return make


def _edge_binary(a, b):
    return (
        a + b,
        a - b,
        a * b,
        a / b,
        lax.rem(a, b),
        lax.pow(a, b),
        lax.atan2(a, b),
        lax.max(a, b),
        lax.min(a, b),
        lax.nextafter(a, b),
        a == b,
        a < b,
        a >= b,
        a != b,
    )


def _edge_unary(x):
    return (
        jnp.exp(x),
        jnp.expm1(x),
        jnp.log(x),
        jnp.log1p(x),
        jnp.sqrt(x),
        lax.rsqrt(x),
        jnp.cbrt(x),
        jnp.sin(x),
        jnp.cos(x),
        jnp.tan(x),
        jnp.tanh(x),
        jnp.arctan(x),
        jnp.sign(x),
        jnp.abs(x),
        -x,
        jnp.floor(x),
        jnp.ceil(x),
        lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
        lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
        jnp.isfinite(x),
        jax.nn.sigmoid(x),
        lax.erf(x),
        lax.erf_inv(x),
        lax.lgamma(x),
        lax.digamma(x),
        jnp.log2(x),
        jnp.exp2(x),
        jnp.arcsin(x),
        jnp.arccosh(x),
        jnp.sinh(x),
        lax.integer_pow(x, 2),
        lax.integer_pow(x, -3),
        lax.square(x),
    )


for _dt in FLOATS:
    prog(f"edgegrid_binary_{_dt}", _edge_binary, _pairs(_dt), x64=x64_of(_dt), tol="ulp")
    prog(
        f"edgegrid_unary_{_dt}",
        _edge_unary,
        A(lambda r, _dt=_dt: _edge_values(_dt)),
        x64=x64_of(_dt),
        tol="special",
    )
    prog(
        f"edgegrid_convert_{_dt}",
        lambda x: tuple(
            x.astype(t)
            for t in (
                jnp.int8,
                jnp.uint8,
                jnp.int16,
                jnp.uint16,
                jnp.int32,
                jnp.uint32,
                jnp.int64,
                jnp.uint64,
                jnp.bool_,
                jnp.float16,
                jnp.bfloat16,
                jnp.float32,
                jnp.float64,
                jnp.float8_e4m3fn,
                jnp.float8_e5m2,
            )
        ),
        A(lambda r, _dt=_dt: _edge_values(_dt)),
        x64=True,
    )
prog(
    "edgegrid_cx_binary_c64",
    lambda a, b: (lambda z, w: (z + w, z * w, z / w, z**w, z == w))(
        lax.complex(a, b), lax.complex(b, a)
    ),
    _pairs("f32"),
    tol="ulp",
    known="complex overflow / infinities: the spec does not define special values; XLA's formulas overflow to NaN where hlorun's are exact, and the other way for finite/inf division",
)
prog(
    "edgegrid_cx_unary_c64",
    lambda a, b: (
        lambda z: (
            jnp.exp(z),
            jnp.log(z),
            jnp.sqrt(z),
            jnp.abs(z),
            jnp.sign(z),
            jnp.tanh(z),
            jnp.sin(z),
            jnp.expm1(z),
            jnp.log1p(z),
            lax.rsqrt(z),
            jnp.cos(z),
            jnp.tan(z),
            jnp.arctan(z),
        )
    )(lax.complex(a, b)),
    _pairs("f32"),
    tol="ulp",
    known="complex special values: abs(inf+nan j) (hypot: inf; XLA: nan), exp/expm1/rsqrt at infinities; the spec does not define them",
)


def _int_edge_values(dt: str) -> np.ndarray:
    info = np.iinfo(DT[dt])
    vals = {
        0,
        1,
        2,
        3,
        7,
        8,
        info.max,
        info.max - 1,
        info.bits - 1,
        info.bits,
        info.bits + 1,
        100 % (info.max + 1),
    }
    if info.min < 0:
        vals |= {-1, -2, -3, -7, -8, info.min, info.min + 1, -info.bits}
    return np.array(sorted(vals), dtype=object).astype(DT[dt])


def _int_edge(a, b):
    return (
        a + b,
        a - b,
        a * b,
        lax.div(a, b),
        lax.rem(a, b),
        lax.max(a, b),
        lax.min(a, b),
        lax.shift_left(a, b),
        lax.shift_right_arithmetic(a, b),
        lax.shift_right_logical(a, b),
        a & b,
        a | b,
        a ^ b,
        a < b,
        a == b,
        jnp.power(a, jnp.abs(b) % 9 if np.issubdtype(b.dtype, np.signedinteger) else b % 9),
        lax.clz(a),
        lax.population_count(a),
        jnp.abs(a),
        -a,
        jnp.sign(a),
        ~a,
        a.astype(jnp.float32),
        a.astype(jnp.float16),
        a.astype(jnp.bfloat16),
        a.astype(jnp.float64),
        a.astype(jnp.int8),
        a.astype(jnp.uint32),
        a.astype(jnp.int64),
        a.astype(jnp.bool_),
    )


for _dt in INT_DTS:
    prog(
        f"edgegrid_int_{_dt}",
        _int_edge,
        _pairs(_dt, _int_edge_values),
        x64=True,
        note="div/rem by zero and INT_MIN / -1 are implementation-defined by the spec's silence",
    )

# ============================================================================ polymorphic linalg and nesting


def _spd_batch(n_batch, n, dt="f32"):
    def make(r):
        a = r.standard_normal((n_batch, n, n))
        return ((a @ a.transpose(0, 2, 1)) + n * np.eye(n)).astype(DT[dt])

    return make


prog("polyla_cholesky", jnp.linalg.cholesky, A(_spd_batch(3, 4)), poly=("b, 4, 4",), tol="linalg")
prog("polyla_cholesky_n", jnp.linalg.cholesky, A(_spd_batch(2, 5)), poly=("b, n, n",), tol="linalg")
prog("polyla_eigvalsh", jnp.linalg.eigvalsh, A(_spd_batch(3, 4)), poly=("b, 4, 4",), tol="linalg")
prog(
    "polyla_solve_inv",
    lambda a, b: (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a)),
    A(_spd_batch(3, 4), N((3, 4, 2))),
    poly=("b, n, n", "b, n, 2"),
    tol="linalg",
)
prog(
    "polyla_qr_r",
    lambda a: jnp.abs(jnp.linalg.qr(a)[1]),
    A(N((2, 5, 3))),
    poly=("b, m, 3",),
    tol="linalg",
    extra={"constraints": ["m >= 3"]},
)
prog(
    "polyla_svdvals",
    lambda a: jnp.linalg.svd(a, compute_uv=False),
    A(N((2, 5, 3))),
    poly=("b, 5, 3",),
    tol="linalg",
)
prog(
    "polyla_lu_solve",
    lambda a, b: jsp.linalg.lu_solve(jsp.linalg.lu_factor(a), b),
    A(_spd_batch(2, 4), N((2, 4, 3))),
    poly=("b, 4, 4", "b, 4, k"),
    tol="linalg",
)
prog(
    "polyla_triangular",
    lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
    A(_spd_batch(2, 4), N((2, 4, 3))),
    poly=("b, 4, 4", "b, 4, k"),
    tol="linalg",
)
prog(
    "polyla_eig",
    lambda a: jnp.sort_complex(jnp.linalg.eigvals(a)),
    A(N((2, 4, 4))),
    poly=("b, 4, 4",),
    tol="linalg",
)
prog(
    "poly_sharding_constraint",
    lambda x: (
        jax.lax.with_sharding_constraint(
            jnp.sin(x), jax.sharding.SingleDeviceSharding(jax.devices()[0])
        )
        * 2
    ),
    A(N((5, 3))),
    poly=("b, c",),
    tol="ulp",
)
prog(
    "poly_x64",
    lambda x, i: (
        x * x.shape[0],
        jnp.cumsum(i, axis=1),
        jnp.arange(x.shape[1], dtype=jnp.int64) * 3,
    ),
    A(N((3, 4), "f64"), I((3, 4), "i64", -5, 5)),
    poly=("a, b", "a, b"),
    x64=True,
    tol="ulp",
)
prog(
    "poly_dyn_slice_update",
    lambda x, u, i: (
        lax.dynamic_update_slice(x, u, (i, 0)),
        lax.dynamic_slice(x, (i, 0), (2, x.shape[1])),
        jnp.roll(x, 2, axis=0),
        jnp.flip(x, 0),
        jnp.tile(x, (2, 1)),
        jnp.repeat(x, 2, axis=0),
    ),
    A(N((6, 3)), N((2, 3)), C(np.int32(3))),
    poly=("b, c", "2, c", None),
    extra={"constraints": ["b >= 2"]},
)
prog(
    "poly_reduce_window_pad",
    lambda x: (
        lax.reduce_window(x, 0.0, lax.add, (3,), (2,), "SAME"),
        lax.cumsum(x),
        lax.cummax(x, reverse=True),
    ),
    A(N((9,))),
    poly=("n",),
    tol="approx",
)
prog(
    "poly_conv_1d_stride",
    lambda x, k: lax.conv_general_dilated(
        x, k, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")
    ),
    A(N((2, 11, 3)), N((3, 3, 4))),
    poly=("b, t, 3", None),
    tol="approx",
)
prog(
    "poly_mean_var_std",
    lambda x: (x.mean(0), x.var(1), x.std(), jnp.median(x, axis=0), jnp.argsort(x, 0)),
    A(N((7, 3))),
    poly=("n, 3",),
    tol="approx",
)
prog(
    "poly_image_resize",
    lambda x: jax.image.resize(x, (x.shape[0], 2 * x.shape[1]), "linear"),
    A(N((3, 5))),
    poly=("a, b",),
    tol="approx",
)
prog(
    "poly_einsum_batch",
    lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
    A(N((3, 4, 5)), N((3, 5, 2))),
    poly=("b, i, j", "b, j, k"),
    tol="approx",
)
prog(
    "poly_unique_size",
    lambda x: jnp.unique(x, size=4, fill_value=-1),
    A(C(np.array([3, 1, 3, 2, 1], np.int32))),
    poly=("n",),
)


def _exported_inner():
    f = jax.export.export(jax.jit(lambda x: jnp.tanh(x) * 2))(
        jax.ShapeDtypeStruct((3, 4), jnp.float32)
    )
    return f


prog(
    "nest_exported_call",
    lambda x: _exported_inner().call(x) + jax.jit(jnp.sin)(x),
    A(N((3, 4))),
    tol="ulp",
)
prog(
    "nest_jit_static",
    lambda x: (
        jax.jit(lambda v, n: v * n, static_argnums=1)(x, 3)
        + jax.jit(lambda v: jax.jit(jnp.cos)(v) * 2)(x)
    ),
    A(N((3, 4))),
    tol="ulp",
)
prog(
    "nest_jit_in_scan",
    lambda xs: lax.scan(
        lambda c, x: (jax.jit(lambda a, b: a * 0.5 + jnp.sin(b))(c, x), c), jnp.zeros(3), xs
    ),
    A(N((4, 3))),
    tol="ulp",
)
prog(
    "nest_pytree_in_loop",
    lambda d: lax.fori_loop(
        0, 3, lambda i, s: {"a": s["a"] + s["b"][0], "b": (s["b"][0] * 2, s["b"][1] + i)}, d
    ),
    lambda r: (
        {
            "a": r.standard_normal(3).astype(np.float32),
            "b": (r.standard_normal(3).astype(np.float32), np.int32(2)),
        },
    ),
    tol="ulp",
)

# ============================================================================ more polymorphism

prog(
    "poly2_qr_full",
    lambda a: tuple(jnp.linalg.qr(a, mode="complete")),
    A(N((2, 5, 3))),
    poly=("b, 5, 3",),
    tol="linalg",
    check="qr_batched",
)
prog(
    "poly2_eigh_vecs",
    lambda a: tuple(jnp.linalg.eigh(a)),
    A(_spd_batch(2, 4)),
    poly=("b, n, n",),
    tol="linalg",
    check="eigh_batched",
)
prog(
    "poly2_svd_uv",
    lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)),
    A(N((2, 5, 3))),
    poly=("b, 5, 3",),
    tol="linalg",
    check="svd_batched",
)
prog(
    "poly2_lu",
    lambda a: tuple(lax.linalg.lu(a)),
    A(N((3, 4, 4))),
    poly=("b, 4, 4",),
    tol="linalg",
    check="lu_batched",
)
prog(
    "poly2_schur",
    lambda a: jnp.sort(jnp.linalg.eigvalsh(a)),
    A(_spd_batch(2, 3, "f64")),
    poly=("b, 3, 3",),
    x64=True,
    tol="linalg",
)
prog(
    "poly2_tridiagonal_solve",
    lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b),
    lambda r: (
        np.concatenate([np.zeros((2, 1)), r.standard_normal((2, 4))], 1).astype(np.float32),
        (r.standard_normal((2, 5)) + 5).astype(np.float32),
        np.concatenate([r.standard_normal((2, 4)), np.zeros((2, 1))], 1).astype(np.float32),
        r.standard_normal((2, 5, 3)).astype(np.float32),
    ),
    poly=("b, n", "b, n", "b, n", "b, n, k"),
    tol="linalg",
)
prog(
    "poly2_hessenberg",
    lambda a: jnp.abs(lax.linalg.hessenberg(a)[0]),
    A(N((2, 4, 4))),
    poly=("b, 4, 4",),
    tol="linalg",
    note="householder vectors' signs agree with LAPACK's",
)
prog(
    "poly2_scatter_gather",
    lambda x, i, u: (
        x.at[i].add(u),
        x.at[i].set(u, mode="drop"),
        jnp.take(x, i, axis=0, mode="fill", fill_value=-1.0),
        x[i[:, None], jnp.arange(x.shape[1])[None]],
    ),
    A(N((6, 3)), C(np.array([0, 5, 7, 2], np.int32)), N((4, 3))),
    poly=("b, c", "k", "k, c"),
    tol="approx",
)
prog(
    "poly2_sort_multi",
    lambda k, v: lax.sort((k, v), num_keys=1),
    A(I((7,), "i32", 0, 3), N((7,))),
    poly=("n", "n"),
)
prog(
    "poly2_while_dus",
    lambda x: lax.fori_loop(
        0, x.shape[0], lambda i, a: lax.dynamic_update_slice(a, (a[i] * 2 + i)[None], (i, 0)), x
    ),
    A(N((5, 3))),
    poly=("n, c",),
    tol="ulp",
)
prog(
    "poly2_squared_dim",
    lambda x: x.reshape(-1).reshape(x.shape[0] * x.shape[0]),
    A(N((3, 3))),
    poly=("b, b",),
)
prog(
    "poly2_pad_concat_mix",
    lambda x, y: (
        jnp.concatenate([x, y], 0),
        jnp.pad(x, ((x.shape[0], 1), (0, 0))),
        jnp.zeros((x.shape[0] + y.shape[0], 2)).at[: x.shape[0]].set(x),
    ),
    A(N((3, 2)), N((4, 2))),
    poly=("a, 2", "b, 2"),
)
prog(
    "poly2_reduce_precision_argmax",
    lambda x: (jnp.argmax(x, axis=0), jnp.argmin(x, axis=1), jnp.max(x, axis=0), jnp.cumsum(x, 1)),
    A(N((4, 6))),
    poly=("a, b",),
    tol="approx",
)
prog(
    "poly2_threefry",
    lambda kd, x: (
        lambda k: (
            jax.random.uniform(k, x.shape),
            jax.random.normal(k, x.shape),
            jax.random.bernoulli(k, 0.5, x.shape),
        )
    )(jax.random.wrap_key_data(kd)),
    A(C(np.array([1, 2], np.uint32)), N((5,))),
    poly=(None, "n"),
    check="random",
    tol="ulp",
)
prog(
    "poly2_conv_dilated",
    lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", rhs_dilation=(2, 2), dimension_numbers=("NCHW", "OIHW", "NCHW")
    ),
    A(N((2, 3, 7, 6)), N((4, 3, 3, 3))),
    poly=("b, 3, h, w", None),
    tol="approx",
)
prog(
    "poly2_pool_grad",
    jax.grad(lambda x: jnp.sum(_maxpool(x, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2)),
    A(N((2, 7, 6, 3))),
    poly=("b, h, w, 3",),
    tol="approx",
)
prog(
    "poly2_layer_norm_bf16",
    _layer_norm,
    A(N((3, 5, 8), "bf16"), N((8,), "bf16"), N((8,), "bf16")),
    poly=("b, t, 8", None, None),
    tol="approx",
)
prog(
    "poly2_fft",
    lambda x: (jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n=8), jnp.fft.fft(x, axis=-1)),
    A(N((3, 8))),
    poly=("b, 8",),
    tol="fft",
)

# ============================================================================ multi-platform

_MP = {"platforms": ("cpu", "cuda", "rocm", "tpu")}
prog(
    "mp_eigh_qr_svd",
    lambda a: (
        jnp.linalg.eigvalsh(a),
        jnp.abs(jnp.linalg.qr(a)[1]),
        jnp.linalg.svd(a, compute_uv=False),
        jnp.linalg.det(a),
    ),
    A(_spd_batch(2, 4)),
    tol="linalg",
    extra=_MP,
)
prog(
    "mp_random",
    lambda kd: jax.random.normal(jax.random.wrap_key_data(kd), (3, 4)),
    _key("threefry2x32"),
    check="random",
    tol="ulp",
    extra={"platforms": ("cpu", "cuda"), "config": {"jax_threefry_gpu_kernel_lowering": True}},
)
prog(
    "mp_poly_linalg",
    lambda a: (jnp.linalg.cholesky(a), jnp.linalg.inv(a)),
    A(_spd_batch(2, 3)),
    poly=("b, 3, 3",),
    tol="linalg",
    extra=_MP,
)
prog(
    "mp_platform_dependent",
    lambda x: lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.cos, rocm=jnp.cos, tpu=jnp.tanh),
    A(N((4,))),
    tol="ulp",
    extra=_MP,
)
prog("mp_topk_poly", lambda x: lax.approx_max_k(x, 3), A(N((2, 9))), poly=("b, 9",), extra=_MP)

# ============================================================================ sharded (4 host devices)


def _sharded_progs() -> None:
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    devs = jax.devices()
    if len(devs) < 4:
        return
    mesh = jax.sharding.Mesh(np.array(devs[:4]), ("x",))
    mesh2 = jax.sharding.Mesh(np.array(devs[:4]).reshape(2, 2), ("x", "y"))
    sx, rep = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())

    def sm(name, body, out_spec, args, in_spec=None, m=mesh, tol="approx", config=None, **kw):
        in_spec = P("x") if in_spec is None else in_spec
        f = jax.shard_map(body, mesh=m, in_specs=in_spec, out_specs=out_spec, check_vma=False)
        ins = (in_spec,) if isinstance(in_spec, P) else in_spec
        prog(
            name,
            f,
            args,
            tol=tol,
            extra={
                "in_shardings": tuple(NamedSharding(m, s) for s in ins),
                "out_shardings": jax.tree.map(
                    lambda s: NamedSharding(m, s), out_spec, is_leaf=lambda v: isinstance(v, P)
                ),
                "config": config or {},
            },
            **kw,
        )

    gspmd = {"jax_use_shardy_partitioner": False}
    sm("sh_gspmd_psum", lambda a: lax.psum(a, "x"), P(), A(N((8, 3))), config=gspmd)
    sm(
        "sh_gspmd_scan_psum",
        lambda a: lax.scan(lambda c, r: (c + lax.psum(r, "x"), c), jnp.zeros(3), a)[0],
        P(),
        A(N((8, 3))),
        config=gspmd,
    )
    sm(
        "sh_gspmd_ppermute_gather",
        lambda a: (
            lax.ppermute(a, "x", [(i, (i + 1) % 4) for i in range(4)]),
            lax.all_gather(a, "x", tiled=True),
        ),
        (P("x"), P()),
        A(N((8, 3))),
        config=gspmd,
    )
    sm(
        "sh_cond_psum",
        lambda a: lax.cond(a.sum() > 0, lambda v: lax.psum(v, "x"), lambda v: v * 4, a),
        P("x"),
        A(N((8, 3))),
    )
    sm("sh_psum", lambda a: lax.psum(a, "x"), P(), A(N((8, 3))))
    sm(
        "sh_pmax_pmin_pmean",
        lambda a: (lax.pmax(a, "x"), lax.pmin(a, "x"), lax.pmean(a, "x")),
        (P(), P(), P()),
        A(N((8, 3))),
    )
    sm(
        "sh_all_gather",
        lambda a: (lax.all_gather(a, "x", tiled=True), lax.all_gather(a, "x", axis=1)),
        (P(), P()),
        A(N((8, 3))),
    )
    sm("sh_psum_scatter", lambda a: lax.psum_scatter(a, "x", tiled=True), P("x"), A(N((16, 3))))
    sm(
        "sh_ppermute",
        lambda a: (
            lax.ppermute(a, "x", [(i, (i + 1) % 4) for i in range(4)]),
            lax.ppermute(a, "x", [(0, 3), (3, 0)]),
        ),
        (P("x"), P("x")),
        A(N((8, 3))),
    )
    sm("sh_all_to_all", lambda a: lax.all_to_all(a, "x", 1, 1, tiled=True), P("x"), A(N((8, 8))))
    sm("sh_axis_index", lambda a: a * lax.axis_index("x") + lax.psum(1, "x"), P("x"), A(N((8, 3))))
    sm(
        "sh_int_psum",
        lambda a: (lax.psum(a, "x"), lax.pmax(a, "x")),
        (P(), P()),
        A(I((8, 3), "i32", -50, 50)),
        tol="exact",
    )
    sm(
        "sh_2d_mesh",
        lambda a: (
            lax.psum(a, "x"),
            lax.psum(a, ("x", "y")),
            lax.all_gather(a, "y", tiled=True, axis=1),
        ),
        (P(None, "y"), P(), P("x")),
        A(N((4, 6))),
        in_spec=P("x", "y"),
        m=mesh2,
    )
    sm(
        "sh_scan_psum",
        lambda a: lax.scan(lambda c, r: (c + lax.psum(r, "x"), c), jnp.zeros(3), a)[0],
        P(),
        A(N((8, 3))),
    )
    sm(
        "sh2_nested_jit_psum",
        lambda a: jax.jit(lambda v: lax.psum(v * 2, "x"))(a) + 1,
        P(),
        A(N((8, 3))),
    )
    sm(
        "sh2_while_collectives",
        lambda a: lax.while_loop(
            lambda c: c[1] < 3,
            lambda c: (lax.ppermute(c[0], "x", [(i, (i + 1) % 4) for i in range(4)]) + 1, c[1] + 1),
            (a, 0),
        )[0],
        P("x"),
        A(N((8, 3))),
    )
    sm(
        "sh2_dtypes",
        lambda a, b, c: (
            lax.psum(a, "x"),
            lax.pmax(b, "x"),
            lax.psum(c, "x"),
            lax.all_gather(b, "x"),
        ),
        (P(), P(), P(), P()),
        A(N((8, 3), "bf16"), I((8, 3), "i8", -100, 100), N((8, 2), "c64")),
        in_spec=(P("x"), P("x"), P("x")),
    )
    sm(
        "sh2_untiled",
        lambda a: (lax.all_to_all(a, "x", 0, 1), lax.psum_scatter(a, "x", scatter_dimension=0)),
        (P("x"), P("x")),
        A(N((16, 4))),
    )
    sm(
        "sh2_partial_perm",
        lambda a: lax.ppermute(a, "x", [(0, 1), (1, 0)]),
        P("x"),
        A(N((8, 3))),
        note="devices no pair sends to get zeros",
    )
    sm(
        "sh2_psum_tuple_subgroup",
        lambda a, b: lax.psum((a, b), "y"),
        (P("x", None), P("x", None)),
        A(N((4, 6)), N((4, 2))),
        in_spec=(P("x", "y"), P("x", "y")),
        m=mesh2,
    )
    sm(
        "sh2_axis_index_2d",
        lambda a: a + lax.axis_index("x") * 10 + lax.axis_index("y"),
        P("x", "y"),
        A(N((4, 6))),
        in_spec=P("x", "y"),
        m=mesh2,
    )
    sm(
        "sh2_grad_psum",
        jax.grad(lambda w: lax.psum(jnp.sum(jnp.tanh(w) ** 2), "x")),
        P("x"),
        A(N((8, 3))),
    )
    prog(
        "sh2_partial_auto",
        jax.shard_map(
            lambda a: lax.psum(a, "x") * 2,
            mesh=mesh2,
            in_specs=P("x"),
            out_specs=P(),
            axis_names={"x"},
            check_vma=False,
        ),
        A(N((4, 6))),
        tol="approx",
        extra={
            "in_shardings": (NamedSharding(mesh2, P("x", "y")),),
            "out_shardings": NamedSharding(mesh2, P(None, "y")),
        },
    )
    prog(
        "sh2_vmap_shard_map",
        jax.vmap(
            jax.shard_map(
                lambda a: lax.psum(a, "x"),
                mesh=mesh,
                in_specs=P("x"),
                out_specs=P(),
                check_vma=False,
            )
        ),
        A(N((2, 8))),
        tol="approx",
        extra={"in_shardings": (NamedSharding(mesh, P(None, "x")),), "out_shardings": rep},
    )
    sm(
        "sh3_linalg_in_body",
        lambda a: jnp.linalg.cholesky(a @ jnp.swapaxes(a, -1, -2) + 3 * jnp.eye(3)),
        P("x"),
        A(N((8, 3, 3))),
        tol="linalg",
    )
    sm(
        "sh3_random_in_body",
        lambda k, x: (
            x
            + jax.random.normal(
                jax.random.fold_in(jax.random.wrap_key_data(k), lax.axis_index("x")), x.shape
            )
        ),
        P("x"),
        A(C(np.array([3, 4], np.uint32)), N((8, 2))),
        in_spec=(P(), P("x")),
        tol="ulp",
    )
    sm(
        "sh3_remat_scan_psum",
        jax.grad(
            lambda w: jax.checkpoint(
                lambda v: lax.scan(
                    lambda c, r: (jnp.tanh(c + lax.psum(r, "x")), None), jnp.zeros(3), v
                )[0].sum()
            )(w)
        ),
        P("x"),
        A(N((8, 3))),
    )
    prog(
        "sh3_nested_manual",
        jax.shard_map(
            lambda a: (
                jax.shard_map(
                    lambda b: lax.psum(b, "y") + lax.axis_index("y"),
                    in_specs=P(None, "y"),
                    out_specs=P(None, "y"),
                    axis_names={"y"},
                    check_vma=False,
                )(a)
                + lax.axis_index("x")
            ),
            mesh=mesh2,
            in_specs=P("x"),
            out_specs=P("x"),
            axis_names={"x"},
            check_vma=False,
        ),
        A(N((4, 6))),
        tol="approx",
        extra={
            "in_shardings": (NamedSharding(mesh2, P("x", "y")),),
            "out_shardings": NamedSharding(mesh2, P("x", "y")),
        },
    )
    prog(
        "sh3_poly_sharded",
        lambda a: (jnp.sin(a) * 2).sum(0),
        A(N((8, 3))),
        poly=("4*b, 3",),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": rep},
    )
    prog(
        "sh3_poly_shard_map",
        jax.shard_map(
            lambda a: lax.psum(a.sum(0), "x"),
            mesh=mesh,
            in_specs=P("x"),
            out_specs=P(),
            check_vma=False,
        ),
        A(N((8, 3))),
        poly=("4*b, 3",),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": rep},
    )
    wsc = jax.lax.with_sharding_constraint
    prog(
        "sh4_gspmd_poly_constraint",
        lambda a: wsc(jnp.sin(a) * a.shape[0], NamedSharding(mesh, P(None, "x"))).sum(0),
        A(N((8, 4))),
        poly=("4*b, 4",),
        tol="approx",
        extra={
            "in_shardings": (sx,),
            "out_shardings": rep,
            "config": {"jax_use_shardy_partitioner": False},
        },
    )
    prog(
        "sh4_constraint_in_regions",
        lambda a: (
            lax.fori_loop(0, 3, lambda i, c: wsc(c * 2 + i, NamedSharding(mesh, P("x"))), a),
            lax.cond(a.sum() > 0, lambda v: wsc(v + 1, sx), lambda v: wsc(v - 1, sx), a),
            lax.scan(lambda c, r: (wsc(c + r, rep), wsc(r * 2, rep)), jnp.zeros(3), a),
        ),
        A(N((8, 3))),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": (sx, sx, (rep, sx))},
    )
    prog(
        "sh4_two_shard_maps_in_branches",
        lambda a: lax.cond(
            a.sum() > 0,
            jax.shard_map(
                lambda v: lax.psum(v, "x") + lax.axis_index("x"),
                mesh=mesh,
                in_specs=P("x"),
                out_specs=P("x"),
                check_vma=False,
            ),
            jax.shard_map(
                lambda v: lax.pmax(v, "x") - lax.axis_index("x"),
                mesh=mesh,
                in_specs=P("x"),
                out_specs=P("x"),
                check_vma=False,
            ),
            a,
        ),
        A(N((8, 3))),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": sx},
    )
    prog(
        "sh4_named_nested_jit",
        lambda a: (
            jax.jit(lambda v: jnp.sin(v) * 2, out_shardings=rep)(a)
            + jax.jit(lambda v: v.sum(0), in_shardings=sx)(a)
        ),
        A(N((8, 3))),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": rep},
    )
    prog(
        "sh_auto_matmul",
        lambda a, b: jnp.tanh(a @ b).sum(0),
        A(N((8, 12)), N((12, 4))),
        tol="approx",
        extra={
            "in_shardings": (NamedSharding(mesh, P(None, "x")), NamedSharding(mesh, P("x", None))),
            "out_shardings": rep,
        },
    )
    prog(
        "sh_auto_elementwise",
        lambda a: (jnp.sin(a) * 2, jnp.cumsum(a, 0)),
        A(N((8, 4))),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": (sx, rep)},
    )
    prog(
        "sh_auto_constraint",
        lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh, P(None, "x"))).sum(1),
        A(N((8, 4))),
        tol="approx",
        extra={"in_shardings": (sx,), "out_shardings": rep},
    )


_sharded_progs()

# ============================================================================ containers with vjp

prog(
    "vjp_container",
    lambda x, w: jnp.tanh(x @ w).sum(0),
    A(N((3, 4)), N((4, 2))),
    tol="approx",
    extra={"vjp_order": 2},
)
prog(
    "vjp_container_poly",
    lambda x: jnp.sin(x) * x.shape[0],
    A(N((5, 2))),
    poly=("b, 2",),
    tol="ulp",
    extra={"vjp_order": 1},
)

# ============================================================================ names and strings


def _weird_names(d):
    return {'q"uote': d["a\\b"] * 2, "unié中😀": d["tab\tnew\nline"] + 1, "$#@!": d["a\\b"].sum()}


prog(
    "names_escapes",
    _weird_names,
    lambda r: (
        {
            "a\\b": r.standard_normal(3).astype(np.float32),
            "tab\tnew\nline": r.standard_normal(2).astype(np.float32),
        },
    ),
    tol="approx",
)


def f_λ_unicode(x):  # noqa: N802
    return jnp.sin(x) * 2


prog("names_unicode_fn", f_λ_unicode, A(N((3,))), tol="ulp")
prog(
    "names_long_pytree",
    lambda *xs: {f"k{i}": {"v": x * i, "w": [x, (x,)]} for i, x in enumerate(xs)},
    A(*(N((2,)) for _ in range(12))),
)

# ============================================================================ newer attributes

prog(
    "attr_result_accuracy",
    lambda x: (
        lax.exp(x, accuracy=lax.AccuracyMode.HIGHEST),
        lax.tanh(x, accuracy=lax.Tolerance(atol=1e-5, rtol=1e-5)),
        lax.log(jnp.abs(x) + 1, accuracy=lax.Tolerance(atol=1e-6, ulps=2)),
        lax.sin(x, accuracy=lax.AccuracyMode.DEFAULT),
    ),
    A(N((6,))),
    tol="ulp",
)
prog(
    "attr_composite_kinds",
    lambda x: lax.composite(
        lambda v, *, a, b, c, d, e: (
            v * a + jnp.float32(len(c)) + (1.0 if b else 0.0) + d[0] + float(e)
        ),
        name="my.kinds",
    )(x, a=2.5, b=True, c='str"q', d=np.array([1.0, 2.0], np.float32), e=np.int64(3)),
    A(N((3,))),
    tol="ulp",
)
prog(
    "attr_dot_out_type",
    lambda a, b: (
        lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float64),
        jnp.matmul(a, b, preferred_element_type=jnp.float64),
    ),
    A(N((3, 4)), N((4, 2))),
    x64=True,
    tol="approx",
)
prog("attr_split", lambda x: lax.split(x, (1, 3, 2), axis=1), A(N((2, 6))))
prog(
    "attr_reduce_precision_bf16",
    lambda x: (
        lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
        lax.reduce_precision(x, exponent_bits=4, mantissa_bits=3),
    ),
    A(N((20,), "f32", 100)),
)
prog(
    "attr_clamp_broadcast",
    lambda x: (lax.clamp(jnp.float32(-1), x, jnp.float32(1)), jnp.clip(x, max=0.5)),
    A(N((5,))),
)

# ============================================================================ medium models (timing)


def _gpt(tok, wte, wpe, *layers):
    x = wte[tok] + wpe[: tok.shape[1]]
    for i in range(0, len(layers), 8):
        x = _block(x, *layers[i : i + 8])
    return x @ wte.T


_D = 64
_GPT_LAYER = [(_D, _D), (_D, _D), (_D, _D), (_D, _D), (_D, 4 * _D), (4 * _D, _D), (_D,), (_D,)]
prog(
    "med_gpt_forward",
    _gpt,
    A(
        I((2, 64), "i32", 0, 500),
        N((500, _D), "f32", 0.1),
        N((64, _D), "f32", 0.1),
        *(N(s_, "f32", 0.1) for _ in range(4) for s_ in _GPT_LAYER),
    ),
    tol="approx",
)


def _resnet(x, *ks):
    for i, k in enumerate(ks):
        y = lax.conv_general_dilated(
            x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        y = jax.nn.relu(_group_norm(y, jnp.ones(y.shape[-1])))
        x = x + y if y.shape == x.shape else y
        if i % 2 == 1:
            x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
    return x.mean((1, 2))


prog(
    "med_resnet_forward",
    _resnet,
    A(N((4, 32, 32, 16)), *(N((3, 3, 16, 16), "f32", 0.1) for _ in range(6))),
    tol="approx",
)
prog(
    "med_resnet_grad",
    jax.grad(lambda x, *ks: jnp.sum(_resnet(x, *ks) ** 2), argnums=(1, 2)),
    A(N((2, 16, 16, 16)), *(N((3, 3, 16, 16), "f32", 0.1) for _ in range(4))),
    tol="approx",
)

# ============================================================================ more ints, jvp of while

prog(
    "ad_jvp_while",
    lambda x, t: jax.jvp(
        lambda v: lax.while_loop(
            lambda c: c[1] < 4 + (c[0][0] > 0), lambda c: (jnp.sin(c[0]) * 1.5, c[1] + 1), (v, 0)
        )[0],
        (x,),
        (t,),
    ),
    A(N((3,)), N((3,))),
    tol="ulp",
)
prog(
    "int2_sort_topk",
    lambda a, b: (
        jnp.sort(a),
        jnp.argsort(b),
        lax.top_k(a, 3),
        jnp.argmax(a),
        jnp.argmin(b),
        jnp.cumsum(a),
        jnp.cumsum(b, dtype=jnp.uint64),
    ),
    A(I((9,), "i64", -(2**62), 2**62), I((9,), "u64", 0, 2**63)),
    x64=True,
)
prog(
    "int2_overflow_reductions",
    lambda a: (
        a.sum(axis=0),
        jnp.cumsum(a, axis=0),
        jnp.prod(a, axis=0),
        lax.reduce_window(a, jnp.int8(0), lax.add, (3, 1), (1, 1), "VALID"),
        a.at[jnp.array([0, 0, 1])].add(jnp.int8(100)),
    ),
    A(I((5, 3), "i8", -128, 128)),
)
prog(
    "int2_bool_reductions",
    lambda b: (
        jnp.argmax(b, axis=1),
        b.sum(axis=0),
        jnp.cumsum(b, axis=1),
        lax.reduce_window(b, False, lax.bitwise_or, (2, 2), (1, 1), "VALID"),
        jnp.sort(b, axis=1),
    ),
    A(I((4, 5), "bool", 0, 2)),
)
prog(
    "int2_conv_int32",
    lambda x, k: lax.conv_general_dilated(
        x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")
    ),
    A(I((2, 7, 3), "i32", -50, 50), I((3, 3, 2), "i32", -50, 50)),
)
prog(
    "int2_f8_formats_arith",
    lambda a, b: tuple(
        (a.astype(t) * b.astype(t) + a.astype(t)).astype(jnp.float32)
        for t in (
            jnp.float8_e5m2,
            jnp.float8_e4m3fnuz,
            jnp.float8_e5m2fnuz,
            jnp.float8_e4m3b11fnuz,
            jnp.float8_e3m4,
            jnp.float8_e4m3,
        )
    ),
    A(N((16,)), N((16,))),
    tol="exact",
    note="each f8 op rounds to f8 (spec); XLA may keep wider intermediates",
)
prog(
    "int2_f8_dots",
    lambda a, b: tuple(
        lax.dot(a.astype(t), b.astype(t), preferred_element_type=jnp.float32)
        for t in (jnp.float8_e5m2, jnp.float8_e4m3fnuz, jnp.float8_e4m3)
    ),
    A(N((3, 8)), N((8, 2))),
    tol="approx",
)

# ============================================================================ driver


def export_one(p: Prog, out: Path) -> dict[str, Any]:
    jax.config.update("jax_enable_x64", p.x64)
    saved = {k: getattr(jax.config, k) for k in p.extra.get("config", {})}
    for k, v in p.extra.get("config", {}).items():
        jax.config.update(k, v)
    try:
        return _export_one(p, out)
    finally:
        for k, v in saved.items():
            jax.config.update(k, v)


def _export_one(p: Prog, out: Path) -> dict[str, Any]:
    entry: dict[str, Any] = {"x64": p.x64, "tol": p.tol, "check": p.check, "note": p.note}
    if p.known:
        entry["known"] = p.known
    args = jax.tree.map(np.asarray, tuple(p.args(rng_for(p.name))))
    if not p.x64:  # what jax would see: 64-bit inputs canonicalised to 32 bits
        args = jax.tree.map(lambda a: np.asarray(jnp.asarray(a)), args)
    leaves = jax.tree.leaves(args)
    try:
        if p.poly is not None:
            scope = jax.export.SymbolicScope(p.extra.get("constraints", ()))
            specs = jax.export.symbolic_args_specs(args, p.poly, scope=scope)
        else:
            specs = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), args)
        platforms = p.extra.get("platforms", ("cpu",))
        in_sh = p.extra.get("in_shardings")
        kw = (
            {}
            if in_sh is None
            else {"in_shardings": in_sh, "out_shardings": p.extra["out_shardings"]}
        )
        exp = jax.export.export(jax.jit(p.fn, **kw), platforms=platforms)(*specs)
        text = exp.mlir_module()
        data = exp.mlir_module_serialized
        container = exp.serialize(vjp_order=p.extra.get("vjp_order", 0))
    except Exception as e:  # noqa: BLE001
        entry["status"] = "export_failed"
        entry["error"] = _msg(e)
        return entry
    try:
        call_args = args if in_sh is None else [jax.device_put(a, sh) for a, sh in zip(args, in_sh)]
        outs = jax.tree_util.tree_leaves(jax.jit(exp.call)(*call_args))
    except Exception as e:  # noqa: BLE001
        try:  # (jax cannot call its own GSPMD exports with Shardy on)
            outs = jax.tree_util.tree_leaves(jax.jit(p.fn, **kw)(*call_args))
            entry["outputs_from"] = f"jax.jit (exported.call failed: {_msg(e, 120)})"
        except Exception as e2:  # noqa: BLE001
            entry["status"] = "call_failed"
            entry["error"] = _msg(e2)
            return entry
    outs = [np.asarray(o) for o in outs]
    (out / f"{p.name}.mlir").write_text(text)
    (out / f"{p.name}.mlirbc").write_bytes(data)
    (out / f"{p.name}.exported").write_bytes(container)
    # the same module as artifacts for the oldest and the newest StableHLO this jaxlib
    # writes (older exports in the wild carry older VHLO versions)
    versions = {}
    for tag, v in (
        ("v_min", str(hlo.get_minimum_version())),
        ("v_cur", str(hlo.get_current_version())),
    ):
        try:
            (out / f"{p.name}.{tag}.mlirbc").write_bytes(
                hlo.serialize_portable_artifact_str(text, v)
            )
            versions[tag] = v
        except Exception as e:  # noqa: BLE001 (a module the old version cannot hold)
            (out / f"{p.name}.{tag}.mlirbc").unlink(missing_ok=True)
            versions[tag] = f"failed: {_msg(e, 200)}"
    write_npz(out / f"{p.name}.inputs.npz", leaves)
    write_npz(out / f"{p.name}.outputs.npz", outs)
    entry.update(
        status="ok",
        in_dtypes=[a.dtype.name for a in leaves],
        out_dtypes=[o.dtype.name for o in outs],
        kept=list(exp.module_kept_var_idx),
        platforms=list(exp.platforms),
        nr_devices=exp.nr_devices,
        poly=list(p.poly) if p.poly else None,
        versions=versions,
        custom_calls=sorted(set(__import__("re").findall(r"custom_call @([\w.$]+)", text))),
    )
    return entry


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/work/sweep_out")
    ap.add_argument("names", nargs="*")
    ns = ap.parse_args(argv)
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    mpath = out / "manifest.json"
    manifest = json.loads(mpath.read_text()) if (ns.names and mpath.exists()) else {}
    manifest["jax_version"] = jax.__version__
    known = {p.name for p in PROGS}
    progs = {k: v for k, v in manifest.get("programs", {}).items() if k in known}
    manifest["programs"] = progs
    for p in PROGS:
        if ns.names and not any(s in p.name for s in ns.names):
            continue
        try:
            entry = export_one(p, out)
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            entry = {"status": "sweep_failed", "error": _msg(e)}
        progs[p.name] = entry
        print(f"{p.name}: {entry['status']} {entry.get('error', '')}", flush=True)
    mpath.write_text(json.dumps(manifest, indent=0))
    counts: dict[str, int] = {}
    for e in progs.values():
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    print(counts)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
