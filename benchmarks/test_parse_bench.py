"""Parser throughput (pytest-benchmark; run with `pytest benchmarks/`).

* hex constants: a ~10 MB module of `dense<"0x...">` f32 constants, reported in MB/s
  (target >= 50 MB/s);
* literal-heavy corpus: 100 modules like JAX's test programs (benchmarks/corpus_gen.py,
  ~10 KB each, mostly decimal dense literals), reported in MB/s (target >= 40 MB/s),
  beside its floor measured in the same run: splitting every literal's text and
  converting each number with ``float`` (what any decimal reader pays);
* op-heavy text: one function of 10,000 `stablehlo.add` ops, in the pretty form and in
  the generic form (``"stablehlo.add"(%a, %b) : (...) -> ...``), reported in ops/s
  (target >= 30,000 ops/s).

Rates are wall-clock over ``benchmark.stats`` and, beside them (``cpu_*``), over the
process CPU time of one extra parse: on a shared machine the wall clock also counts
the other processes' turns.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from corpus_gen import corpus

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


def op_module(n: int = N_OPS, generic: bool = False) -> str:
    lines = ["func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {"]
    for i in range(n):
        a = f"%{i - 1}" if i else "%arg0"
        if generic:
            sig = "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"
            lines.append(f'  %{i} = "stablehlo.add"({a}, %arg1) : {sig}')
        else:
            lines.append(f"  %{i} = stablehlo.add {a}, %arg1 : tensor<4xf32>")
    lines.append(f"  func.return %{n - 1} : tensor<4xf32>\n}}\n")
    return "\n".join(lines)


def _cpu_seconds(fn, *args) -> float:
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


@pytest.fixture(scope="module")
def hex_text() -> str:
    return hex_module()


@pytest.fixture(scope="module")
def op_text() -> str:
    return op_module()


@pytest.fixture(scope="module")
def generic_op_text() -> str:
    return op_module(generic=True)


@pytest.fixture(scope="module")
def jax_corpus() -> list[str]:
    return corpus(100)


def test_parse_hex_constants_mb_per_s(benchmark, hex_text):
    m = benchmark.pedantic(parse_module, args=(hex_text,), rounds=3, iterations=1)
    assert len(m.body[0].body.entry.operations) > 50
    mb_per_s = len(hex_text) / 1e6 / benchmark.stats.stats.mean
    benchmark.extra_info["MB/s"] = round(mb_per_s, 1)
    print(f"\nhex constants: {len(hex_text) / 1e6:.1f} MB at {mb_per_s:.1f} MB/s")


@pytest.mark.parametrize("form", ["pretty", "generic"])
def test_parse_10k_ops_per_s(benchmark, op_text, generic_op_text, form):
    text = op_text if form == "pretty" else generic_op_text
    m = benchmark.pedantic(parse_module, args=(text,), rounds=3, iterations=1)
    ops = m.body[0].body.entry.operations
    assert len(ops) == N_OPS + 1 and ops[-2].name == "stablehlo.add"
    ops_per_s = N_OPS / benchmark.stats.stats.min
    cpu = N_OPS / _cpu_seconds(parse_module, text)
    benchmark.extra_info.update({"ops/s": round(ops_per_s), "cpu_ops/s": round(cpu)})
    print(f"\n10k {form} ops: {ops_per_s:,.0f} ops/s (cpu: {cpu:,.0f} ops/s; target 30,000)")


_SPLIT = str.maketrans("[](),", "     ")


def _literal_floor(texts: list[str]) -> None:
    """Split each dense literal of the corpus and convert every number with float()."""
    for text in texts:
        for body in re.findall(r"dense<([^>]*)>", text):
            words = body.translate(_SPLIT).split()
            if words and words[0][0] in "-0123456789" and "0x" not in body:
                np.fromiter(map(float, words), dtype=np.float64, count=len(words))


def test_parse_jax_like_corpus_mb_per_s(benchmark, jax_corpus):
    """100 modules of ~10 KB (benchmarks/corpus_gen.py), parsed one by one."""

    def parse_all() -> int:
        return sum(len(parse_module(t).body) for t in jax_corpus)

    size = sum(map(len, jax_corpus))
    assert benchmark.pedantic(parse_all, rounds=5, iterations=1, warmup_rounds=1) == 300
    mb_per_s = size / 1e6 / benchmark.stats.stats.min
    cpu = size / 1e6 / _cpu_seconds(parse_all)
    floor = size / 1e6 / _cpu_seconds(_literal_floor, jax_corpus)
    benchmark.extra_info.update(
        {"MB/s": round(mb_per_s, 1), "cpu_MB/s": round(cpu, 1), "floor_cpu_MB/s": round(floor, 1)}
    )
    print(
        f"\nJAX-like corpus: {size / 1e6:.2f} MB at {mb_per_s:.1f} MB/s (cpu: {cpu:.1f} MB/s; "
        f"literal floor split+float: {floor:.1f} MB/s; target 40 MB/s)"
    )
