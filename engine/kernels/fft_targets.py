"""CPU FFT custom-call targets of older jaxlibs: ``ducc_fft``, ``dynamic_ducc_fft`` and
``pocketfft`` (api_version 2).  jax lowered ``lax.fft`` on CPU to them until
390022a227 (2023-11, jaxlib 0.4.21: a stablehlo.fft since); the same transform as the
``stablehlo.fft`` kernel (linalg.py), in the libraries' own scaling.

Conventions, from jax-ml/jax's jaxlib and jax/_src/lax/fft.py:

* ``pocketfft`` (f58f1ee456, 2020-10, to b63801b4db, 2022-08: jaxlib/pocketfft.py,
  pocketfft.fbs, pocketfft_kernels.cc) and ``ducc_fft`` (b63801b4db to b9c0658fcf,
  2023-06: jaxlib/ducc_fft.py, cpu/ducc_fft.fbs, cpu/ducc_fft_kernels.cc ``DuccFft``):
  operands (descriptor, x): the descriptor is a ``ui8`` vector holding a FlatBuffer
  ``PocketFftDescriptor`` / ``DuccFftDescriptor`` {dtype: COMPLEX64 | COMPLEX128,
  fft_type: C2C | C2R | R2C, shape, strides_in, strides_out: [uint64], axes: [uint32],
  forward: bool, scale: double}; pocketfft's strides are in bytes, ducc's in
  elements;
* ``dynamic_ducc_fft`` (b9c0658fcf to 390022a227): operands (descriptor, x, shape,
  strides_in, strides_out: i32[ndims], scale: f64[1], result shape: i32[ndims]) with a
  ``DynamicDuccFftDescriptor`` {ndims: uint32, dtype, fft_type, axes, forward}.

``shape`` is the complex shape for C2C, the real one (the input of R2C, the result of
C2R) otherwise; the halved axis is the last of ``axes``.  Each transform is
unnormalized (``forward``: exp(-2 pi i jk/n), else exp(+2 pi i jk/n)) and multiplied by
``scale`` (jax passes 1, or 1/prod(fft_lengths) for the inverse).  Computed in
complex128 and rounded once to the result type, as linalg.py's fft.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from flatbuffers import number_types as N

from ...parser.errors import UnsupportedError
from ..flatbuf import FbTable
from .custom_targets import Call, static_shape, target

_C2C, _C2R, _R2C = 0, 1, 2
_KINDS = {_C2C: "C2C", _C2R: "C2R", _R2C: "R2C"}
_DTYPES: dict[int, np.dtype[Any]] = {0: np.dtype(np.complex64), 1: np.dtype(np.complex128)}


def _descriptor(call: Call, raw: Any, name: str) -> FbTable:
    data = np.asarray(raw)
    if data.ndim != 1 or data.dtype != np.uint8:
        raise call.fail(f"expects its {name} as a ui8 vector, got {data.dtype} {data.shape}")
    return FbTable.root(data.tobytes(), name, f"custom_call target '{call.name}'")


def _static(call: Call, d: FbTable, name: str) -> dict[str, Any]:
    """A PocketFftDescriptor / DuccFftDescriptor (the same fields, in this order)."""
    return {
        "dtype": d.scalar(0, N.Int8Flags, 0, "dtype"),
        "fft_type": d.scalar(1, N.Int8Flags, 0, "fft_type"),
        "shape": d.numbers(2, "<u8", "shape").astype(np.int64),
        "strides_in": d.numbers(3, "<u8", "strides_in").astype(np.int64),
        "strides_out": d.numbers(4, "<u8", "strides_out").astype(np.int64),
        "axes": d.numbers(5, "<u4", "axes").astype(np.int64),
        "forward": bool(d.scalar(6, N.BoolFlags, False, "forward")),
        "scale": float(d.scalar(7, N.Float64Flags, 0.0, "scale")),
    }


@target("ducc_fft", "pocketfft")
def ducc_fft(call: Call, descriptor: Any, x: Any) -> np.ndarray:
    """(descriptor, x) -> the transform; the descriptor says everything."""
    name = "PocketFftDescriptor" if call.name == "pocketfft" else "DuccFftDescriptor"
    f = _static(call, _descriptor(call, descriptor, name), name)
    return _transform(call, np.asarray(x), f, byte_strides=call.name == "pocketfft")


@target("dynamic_ducc_fft")
def dynamic_ducc_fft(call: Call, descriptor: Any, x: Any, *operands: Any) -> np.ndarray:
    """(descriptor, x, shape, strides_in, strides_out, scale) -> the transform (the
    result-shape operand jaxlib appended, named by ``indices_of_shape_operands``, the
    custom_call kernel has taken off: ``custom_targets.split_shape_operands``)."""
    if len(operands) != 4:
        raise call.fail(f"expects 6 operands, got {len(operands) + 2}")
    d = _descriptor(call, descriptor, "DynamicDuccFftDescriptor")
    ndims = int(d.scalar(0, N.Uint32Flags, 0, "ndims"))
    vectors = []
    for what, v in zip(("shape", "strides_in", "strides_out"), operands[:3]):
        a = np.asarray(v).reshape(-1).astype(np.int64)
        if a.shape != (ndims,):
            raise call.fail(f"expects {what} of {ndims} values (ndims), got {a.size}")
        vectors.append(a % (1 << 32))  # the kernel reads them as uint32
    scale = np.asarray(operands[3]).reshape(-1)
    if scale.size != 1:
        raise call.fail(f"expects one scale, got {scale.size}")
    f = {
        "dtype": d.scalar(1, N.Int8Flags, 0, "dtype"),
        "fft_type": d.scalar(2, N.Int8Flags, 0, "fft_type"),
        "shape": vectors[0],
        "strides_in": vectors[1],
        "strides_out": vectors[2],
        "axes": d.numbers(3, "<u4", "axes").astype(np.int64),
        "forward": bool(d.scalar(4, N.BoolFlags, False, "forward")),
        "scale": float(scale[0]),
    }
    return _transform(call, np.asarray(x), f, byte_strides=False)


def _dense(shape: tuple[int, ...], strides: np.ndarray) -> bool:
    """Do ``strides`` (elements) lay ``shape`` out densely, each element once?"""
    expect = 1
    for s, d in sorted((int(s), int(d)) for s, d in zip(strides, shape) if d != 1):
        if s != expect:
            return False
        expect *= d
    return True


def _strided(flat: np.ndarray, shape: tuple[int, ...], strides: np.ndarray) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(
        flat, shape, tuple(int(s) * flat.itemsize for s in strides), writeable=False
    )


def _transform(
    call: Call,
    x: np.ndarray,
    f: dict[str, Any],
    byte_strides: bool,
) -> np.ndarray:
    kind, axes = int(f["fft_type"]), [int(a) for a in f["axes"]]
    shape = tuple(int(s) for s in f["shape"])
    if kind not in _KINDS or int(f["dtype"]) not in _DTYPES:
        raise call.fail(f"unknown fft_type {kind} / dtype {f['dtype']} in its descriptor")
    if not axes or any(not 0 <= a < len(shape) for a in axes) or len(set(axes)) != len(axes):
        raise call.fail(f"axes {axes} for a rank-{len(shape)} shape in its descriptor")
    complex_t: np.dtype[Any] = _DTYPES[int(f["dtype"])]
    real_t: np.dtype[Any] = np.dtype(np.float32 if complex_t == np.complex64 else np.float64)
    half = list(shape)
    half[axes[-1]] = shape[axes[-1]] // 2 + 1
    in_shape, out_shape = {
        _C2C: (shape, shape),
        _R2C: (shape, tuple(half)),
        _C2R: (tuple(half), shape),
    }[kind]
    types: dict[int, tuple[np.dtype[Any], np.dtype[Any]]] = {
        _C2C: (complex_t, complex_t),
        _R2C: (real_t, complex_t),
        _C2R: (complex_t, real_t),
    }
    in_t, out_t = types[kind]
    where = f"{_KINDS[kind]} of shape {list(shape)} ({complex_t.name})"
    if x.dtype != in_t or math.prod(x.shape) != math.prod(in_shape):
        raise call.fail(f"operand of type {x.dtype}{list(x.shape)} for a {where}")
    if len(call.result_types) != 1:
        raise call.fail(f"expects 1 result, got {len(call.result_types)}")
    res = static_shape(call.result_types[0])
    if math.prod(res) != math.prod(out_shape):
        raise call.fail(f"result {call.result_types[0]} for a {where}")
    layouts = call.attrs.get("operand_layouts") or ()
    for lay in list(layouts[1:2]) + list(call.attrs.get("result_layouts") or ()):
        dims = [int(d) for d in np.asarray(lay).reshape(-1)]
        if dims != sorted(dims, reverse=True):
            raise UnsupportedError(f"custom_call target '{call.name}': layout {dims}")
    s_in, s_out = np.asarray(f["strides_in"]), np.asarray(f["strides_out"])
    if byte_strides:  # pocketfft: bytes
        if np.any(s_in % in_t.itemsize) or np.any(s_out % out_t.itemsize):
            raise call.fail("strides that are not whole elements in its descriptor")
        s_in, s_out = s_in // in_t.itemsize, s_out // out_t.itemsize
    if len(s_in) != len(shape) or len(s_out) != len(shape):
        raise call.fail(f"{len(s_in)} / {len(s_out)} strides for a rank-{len(shape)} shape")
    if 0 in in_shape or 0 in out_shape:
        return np.zeros(res, out_t)
    span = sum((d - 1) * int(s) for d, s in zip(in_shape, s_in))
    if span >= x.size or not _dense(out_shape, s_out):
        raise UnsupportedError(
            f"custom_call target '{call.name}': strides {s_in.tolist()} / {s_out.tolist()} "
            f"for a {where}: outside the operand or not a dense result"
        )
    src = _strided(np.ascontiguousarray(x).reshape(-1), in_shape, s_in)
    y = _fft(src, kind, axes, shape, bool(f["forward"])) * f["scale"]
    out = np.zeros(math.prod(out_shape), out_t)
    dst = np.lib.stride_tricks.as_strided(
        out, out_shape, tuple(int(s) * out.itemsize for s in s_out)
    )
    dst[...] = y.real if out_t.kind == "f" else y
    return out.reshape(res)


def _fft(src: np.ndarray, kind: int, axes: list[int], shape: tuple[int, ...], fwd: bool) -> Any:
    """The unnormalized transform (exp(-i...) when ``fwd``), in double precision."""
    if kind == _C2C:
        z = src.astype(np.complex128)
        return np.fft.fftn(z, axes=axes) if fwd else np.fft.ifftn(z, axes=axes, norm="forward")
    if kind == _R2C:
        y = np.fft.rfftn(src.astype(np.float64), axes=axes)
        return y if fwd else np.conj(y)  # real input: exp(+i...) is the conjugate
    z = src.astype(np.complex128)
    lengths = [shape[a] for a in axes]
    # Hermitian input, real output: the exp(-i...) sum is the exp(+i...) sum of conj(z)
    return np.fft.irfftn(np.conj(z) if fwd else z, s=lengths, axes=axes, norm="forward")
