"""Parser throughput (pytest-benchmark; run with `pytest benchmarks/`).

* hex constants: a ~10 MB module of `dense<"0x...">` f32 constants, reported in MB/s
  (target >= 50 MB/s);
* op-heavy text: one function of 10,000 `stablehlo.add` ops, reported in ops/s
  (target >= 20,000 ops/s).
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.grammar import parse_module

N_OPS = 10_000


def hex_module(target_bytes: int = 10_000_000) -> str:
    rng = np.random.default_rng(0)
    parts = ["func.func @main() {"]
    size = 0
    i = 0
    while size < target_bytes:
        blob = rng.integers(0, 256, size=65536, dtype=np.uint8).tobytes().hex().upper()
        line = f'  %c{i} = stablehlo.constant dense<"0x{blob}"> : tensor<16384xf32>'
        parts.append(line)
        size += len(line) + 1
        i += 1
    parts.append("  func.return\n}\n")
    return "\n".join(parts)


def op_module(n: int = N_OPS) -> str:
    lines = [
        "func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {",
        "  %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>",
    ]
    lines += [f"  %{i} = stablehlo.add %{i - 1}, %arg1 : tensor<4xf32>" for i in range(1, n)]
    lines.append(f"  func.return %{n - 1} : tensor<4xf32>\n}}\n")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def hex_text() -> str:
    return hex_module()


@pytest.fixture(scope="module")
def op_text() -> str:
    return op_module()


def test_parse_hex_constants_mb_per_s(benchmark, hex_text):
    m = benchmark.pedantic(parse_module, args=(hex_text,), rounds=3, iterations=1)
    assert len(m.body[0].body.entry.operations) > 50
    mb_per_s = len(hex_text) / 1e6 / benchmark.stats.stats.mean
    benchmark.extra_info["MB/s"] = round(mb_per_s, 1)
    print(f"\nhex constants: {len(hex_text) / 1e6:.1f} MB at {mb_per_s:.1f} MB/s")


def test_parse_10k_ops_per_s(benchmark, op_text):
    m = benchmark.pedantic(parse_module, args=(op_text,), rounds=3, iterations=1)
    assert len(m.body[0].body.entry.operations) == N_OPS + 1
    ops_per_s = N_OPS / benchmark.stats.stats.mean
    benchmark.extra_info["ops/s"] = round(ops_per_s)
    print(f"\n10k ops: {ops_per_s:,.0f} ops/s")
