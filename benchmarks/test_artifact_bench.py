"""Portable artifacts: reading and writing MLIR bytecode.

Targets (issues 15, 16): read a 100 MB weights artifact at >= 200 MB/s and write it at
>= 100 MB/s (absolute targets, given as seconds for 100 MB); a 10,000-op program read
in < 1 s.  The floor is NumPy copying the same bytes (``np.frombuffer(...).copy()``):
what any reader that returns owned arrays pays at least.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.bytecode.reader import read_bytecode
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
from hlorun.parser.vhlo.artifact import serialize_portable_artifact
from hlorun.parser.vhlo.to_vhlo_ops import legalize_to_vhlo

MB = 1_000_000


def weights_module(total_bytes: int = 100 * MB, per_tensor: int = 10 * MB) -> Module:
    """A function returning the sum of constants: the shape of a weights artifact."""
    n = per_tensor // 4
    t = TensorType((n,), FloatType("f32"))
    rng = np.random.default_rng(0)
    ops, acc = [], None
    for i in range(total_bytes // per_tensor):
        a = rng.standard_normal(n).astype(np.float32)
        c = Value(f"%c{i}", t)
        ops.append(Operation("stablehlo.constant", (), (c,), (("value", DenseElementsAttr(t, a)),)))
        if acc is not None:
            s = Value(f"%s{i}", t)
            ops.append(Operation("stablehlo.add", (acc, c), (s,)))
            c = s
        acc = c
    ops.append(Operation("func.return", (acc,)))
    body = Region((Block((), tuple(ops)),))
    return Module((Function("main", FunctionType((), (t,)), body),))


def chain_module(n_ops: int = 10_000) -> Module:
    t = TensorType((4,), FloatType("f32"))
    x = Value("%x", t)
    ops, cur = [], x
    for i in range(n_ops):
        v = Value(f"%{i}", t)
        ops.append(Operation("stablehlo.add" if i % 2 else "stablehlo.multiply", (cur, x), (v,)))
        cur = v
    ops.append(Operation("func.return", (cur,)))
    body = Region((Block((x,), tuple(ops)),))
    return Module((Function("main", FunctionType((t,), (t,)), body),))


@pytest.fixture(scope="module")
def weights_artifact() -> bytes:
    return serialize_portable_artifact(weights_module(), "current")


def test_read_100mb_weights_artifact(versus, weights_artifact):
    data = weights_artifact
    module = read_bytecode(data)
    assert module.body
    seconds_at_200 = len(data) / (200 * MB)
    versus(
        lambda: read_bytecode(data),
        lambda: np.frombuffer(data, np.uint8).copy(),
        absolute=seconds_at_200,
        note=f"{len(data) / MB:.0f} MB",
    )


def test_write_100mb_weights_artifact(versus, weights_artifact):
    vhlo = read_bytecode(weights_artifact)
    assert write_bytecode(vhlo, 6, "StableHLO_v1.20.0") == weights_artifact
    seconds_at_100 = len(weights_artifact) / (100 * MB)
    versus(
        lambda: write_bytecode(vhlo, 6, "StableHLO_v1.20.0"),
        lambda: np.frombuffer(weights_artifact, np.uint8).copy(),
        absolute=seconds_at_100,
    )


def test_serialize_100mb_weights_end_to_end(versus):
    module = weights_module()
    versus(
        lambda: serialize_portable_artifact(module, "current"),
        lambda: b"".join(
            np.asarray(op.attr("value").array).tobytes()
            for op in module.body[0].body.entry.operations
            if op.name == "stablehlo.constant"
        ),
        rounds=3,
        note="legalize + write",
    )


def test_read_10k_op_program(versus):
    data = serialize_portable_artifact(chain_module(), "current")
    versus(
        lambda: read_bytecode(data),
        lambda: np.frombuffer(data, np.uint8).copy(),
        absolute=1.0,
        rounds=5,
    )


def test_legalize_10k_op_program(versus):
    module = chain_module()
    versus(lambda: legalize_to_vhlo(module), lambda: None, rounds=5)
