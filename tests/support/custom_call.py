"""Run one ``stablehlo.custom_call`` through hlorun, from MLIR text built here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hlorun import engine

_ELEM = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "complex<f32>",
    np.dtype(np.complex128): "complex<f64>",
    np.dtype(np.int8): "i8",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint32): "ui32",
    np.dtype(np.uint64): "ui64",
    np.dtype(np.bool_): "i1",
}


def rand(shape: Sequence[int], dtype: Any = np.float64, seed: int = 0) -> np.ndarray:
    """Standard normal entries (real and imaginary parts for a complex ``dtype``)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def ct(a: np.ndarray) -> np.ndarray:
    """The conjugate transpose of the trailing two dimensions."""
    return np.conj(np.swapaxes(a, -1, -2))


def householder_q(h, taus):
    """Q = H(1) ... H(k), H(i) = I - tau_i v_i v_i^H, v_i = (0.., 1, h[i+1:, i])
    (LAPACK xGEQRF's representation, which XLA's QrExpander also writes)."""
    m = h.shape[0]
    q = np.eye(m, dtype=np.complex128)
    for i, tau in enumerate(taus):
        v = np.zeros(m, np.complex128)
        v[i] = 1
        v[i + 1 :] = h[i + 1 :, i]
        q = q @ (np.eye(m) - tau * np.outer(v, v.conj()))
    return q


def ttype(shape: Sequence[int | None], dtype: Any) -> str:
    """``tensor<2x?xf32>`` for (2, None) and float32."""
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{_ELEM[np.dtype(dtype)]}>"


def col_major(rank: int) -> str:
    """jax's column-major matrix layout (linalg.py _column_major_matrix_layout)."""
    if rank < 2:
        return f"dense<{list(range(rank - 1, -1, -1))}> : tensor<{rank}xindex>".replace(
            "dense<[]>", "dense<>"
        )
    dims = [rank - 2, rank - 1, *range(rank - 3, -1, -1)]
    return f"dense<{dims}> : tensor<{rank}xindex>"


def row_major(rank: int) -> str:
    dims = list(range(rank - 1, -1, -1))
    return (f"dense<{dims}>" if dims else "dense<>") + f" : tensor<{rank}xindex>"


def layouts(arrays: Sequence[tuple[int, ...]], matrix_rank: int) -> str:
    """Column-major for the operands of the largest rank, row-major for the others (as
    jax's _linalg_ffi_lowering)."""
    out = [col_major(len(s)) if len(s) == matrix_rank else row_major(len(s)) for s in arrays]
    return "[" + ", ".join(out) + "]"


def module(
    target: str,
    operands: Sequence[np.ndarray],
    results: Sequence[tuple[Sequence[int | None], Any]],
    attrs: str = "",
    extra: str = "",
) -> str:
    """A module whose @main calls ``target`` on its arguments and returns its results."""
    ins = [ttype(a.shape, a.dtype) for a in operands]
    outs = [ttype(s, d) for s, d in results]
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(ins))
    uses = ", ".join(f"%arg{i}" for i in range(len(ins)))
    sig = f"({', '.join(ins)}) -> ({', '.join(outs)})"
    attr = f" {{{attrs}}}" if attrs else ""
    if len(outs) == 0:
        body = f"    stablehlo.custom_call @{target}({uses}){attr} : {sig}\n    return\n"
    elif len(outs) == 1:
        body = f"    %0 = stablehlo.custom_call @{target}({uses}){attr} : {sig}\n"
        body += f"    return %0 : {outs[0]}\n"
    else:
        body = f"    %0:{len(outs)} = stablehlo.custom_call @{target}({uses}){attr} : {sig}\n"
        rets = ", ".join(f"%0#{i}" for i in range(len(outs)))
        body += f"    return {rets} : {', '.join(outs)}\n"
    return (
        f"module {{\n  func.func public @main({args}) -> ({', '.join(outs)}) {{\n{body}  }}\n"
        f"{extra}}}\n"
    )


def run(
    target: str,
    operands: Sequence[np.ndarray],
    results: Sequence[tuple[Sequence[int | None], Any]],
    attrs: str = "",
    extra: str = "",
) -> list[np.ndarray]:
    text = module(target, operands, results, attrs, extra)
    return [np.asarray(r) for r in engine.run(text, list(operands))]


def ffi_attrs(config: str, operands: Sequence[np.ndarray], results, nb: int) -> str:
    """jax's FFI attributes: backend config, num_batch_dims, layouts."""
    rank = max(a.ndim for a in operands)
    return (
        f"mhlo.backend_config = {{{config}}}, "
        f'mhlo.frontend_attributes = {{num_batch_dims = "{nb}"}}, '
        f"operand_layouts = {layouts([a.shape for a in operands], rank)}, "
        f"result_layouts = {layouts([tuple(s) for s, _ in results], rank)}"
    )
