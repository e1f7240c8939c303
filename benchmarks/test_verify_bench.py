"""Verifier throughput (pytest-benchmark; run with `pytest benchmarks/test_verify_bench.py`).

One generated function of 10,000 ops, a mix of elementwise, movement, linalg, compare /
select, constants and reduce (with its region), verified by ``verify_module`` (module
checks + every op's shape function).  Target: under 0.5 s per verification.
"""

from __future__ import annotations

import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.grammar import parse_module
from hlorun.shape_inference.verifier import collect_errors, verify_module

N_OPS = 10_000

# Each pattern turns %x (a tensor<4x8xf32>) into a new tensor<4x8xf32>; "{o}" is the
# result name, "{i}" the input, "{t}" a prefix for temporaries.  (ops, text)
_PATTERNS: list[tuple[int, str]] = [
    (1, "{o} = stablehlo.add {i}, %arg1 : tensor<4x8xf32>"),
    (1, "{o} = stablehlo.multiply {i}, {i} : tensor<4x8xf32>"),
    (
        2,
        "{t}a = stablehlo.transpose {i}, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>\n"
        "  {o} = stablehlo.reshape {t}a : (tensor<8x4xf32>) -> tensor<4x8xf32>",
    ),
    (
        3,
        "{t}a = stablehlo.constant dense<1.0> : tensor<f32>\n"
        "  {t}b = stablehlo.broadcast_in_dim {t}a, dims = [] : (tensor<f32>) -> tensor<4x8xf32>\n"
        "  {o} = stablehlo.maximum {i}, {t}b : tensor<4x8xf32>",
    ),
    (
        2,
        "{t}a = stablehlo.compare GT, {i}, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> "
        "tensor<4x8xi1>\n"
        "  {o} = stablehlo.select {t}a, {i}, %arg1 : tensor<4x8xi1>, tensor<4x8xf32>",
    ),
    (
        3,
        "{t}a = stablehlo.slice {i} [0:4, 0:4] : (tensor<4x8xf32>) -> tensor<4x4xf32>\n"
        "  {t}b = stablehlo.dot_general {t}a, {i}, contracting_dims = [1] x [0] : "
        "(tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>\n"
        "  {o} = stablehlo.subtract {t}b, {i} : tensor<4x8xf32>",
    ),
    (
        5,
        "{t}z = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "  {t}r = stablehlo.reduce({i} init: {t}z) applies stablehlo.add across dimensions = "
        "[1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  {t}b = stablehlo.broadcast_in_dim {t}r, dims = [0] : (tensor<4xf32>) -> "
        "tensor<4x8xf32>\n"
        "  {o} = stablehlo.divide {i}, {t}b : tensor<4x8xf32>",
    ),
]


def verify_module_text(n: int = N_OPS) -> str:
    """A function of about ``n`` ops (counting the reduce body's two ops)."""
    lines = ["func.func @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>) -> tensor<4x8xf32> {"]
    count, k, prev = 0, 0, "%arg0"
    while count < n - 1:
        size, text = _PATTERNS[k % len(_PATTERNS)]
        out = f"%v{k}"
        lines.append("  " + text.format(o=out, i=prev, t=f"%t{k}"))
        count += size
        prev = out
        k += 1
    lines.append(f"  func.return {prev} : tensor<4x8xf32>\n}}\n")
    return "\n".join(lines)


def _count_ops(module) -> int:
    def region(r) -> int:
        return sum(1 + sum(region(x) for x in op.regions) for b in r.blocks for op in b.operations)

    return sum(region(f.body) for f in module.functions.values())


@pytest.fixture(scope="module")
def module():
    return parse_module(verify_module_text(), "bench.mlir")


def test_generated_module_is_valid_and_large(module):
    assert _count_ops(module) >= N_OPS
    assert collect_errors(module) == []


def test_verify_10k_ops(benchmark, module):
    benchmark.extra_info["ops"] = _count_ops(module)
    benchmark(verify_module, module)
