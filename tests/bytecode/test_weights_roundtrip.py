"""A constants-heavy artifact (40 MB of f32 weights) through the bytecode writer and
reader: its size, the read-back weights, and a byte-identical rewrite.  Throughput is
measured, not asserted, by benchmarks/test_artifact_bench.py (the issues' targets: read
>= 200 MB/s on a 100 MB weights artifact, write >= 100 MB/s)."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.writer import write_bytecode
from hlorun.parser.ir import (
    Block,
    DenseElementsAttr,
    FloatType,
    Function,
    FunctionType,
    Module,
    Operation,
    Region,
    TensorType,
    Value,
)

MB = 1e6


def _weights_module(n_consts: int = 4, shape=(1024, 2560)) -> Module:
    rng = np.random.default_rng(0)
    t = TensorType(shape, FloatType("f32"))
    ops = []
    for i in range(n_consts):
        a = rng.standard_normal(shape).astype(np.float32)
        a.flags.writeable = False
        ops.append(
            Operation(
                "stablehlo.constant",
                (),
                (Value(f"%{i}", t),),
                (("value", DenseElementsAttr(t, a)),),
            )
        )
    ops.append(Operation("func.return", (ops[0].results[0],)))
    return Module((Function("main", FunctionType((), (t,)), Region((Block((), tuple(ops)),))),))


@pytest.mark.parametrize("dialect", ["builtin", "vhlo"])
def test_weights_round_trip(dialect):
    original = _weights_module()
    m = original
    if dialect == "vhlo":
        from hlorun.parser.vhlo.to_vhlo_ops import legalize_to_vhlo

        m = legalize_to_vhlo(m)
    data = write_bytecode(m, 6, "StableHLO_v1.20.0")
    assert len(data) > 40 * MB  # 4 x 1024 x 2560 f32 weights, stored whole
    module = read_bytecode_file(data).module
    if dialect == "builtin":
        want = [op.attributes[0][1].array for op in original.body[0].body.blocks[0].operations[:-1]]
        got = [op.attributes[0][1].array for op in module.body[0].body.blocks[0].operations[:-1]]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and np.array_equal(g, w)
    assert write_bytecode(module, 6, "StableHLO_v1.20.0") == data
