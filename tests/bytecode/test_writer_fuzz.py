"""Random modules (the printer fuzzer's generator) -> bytecode -> IR: the module read
back agrees with the one written (up to value names), at every bytecode version, and
writing it again gives the same bytes."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite, write_bytecode
from hlorun.parser.ir import DenseElementsAttr, QuantizedType, TensorType
from tests.parser.test_printer_fuzz import modules

from .same_ir import same_module


def _quantized(t) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, QuantizedType)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(modules(), st.sampled_from([0, 1, 2, 3, 4, 5, 6]))
def test_random_modules(m, version):
    data = write_bytecode(m, version, "fuzz")
    bf = read_bytecode_file(data, "fuzz.bc")
    why = same_module(m, bf.module)
    assert not why, why
    assert rewrite(bf) == data


def test_splat_and_empty_dense():
    """A splat stores one element; an empty tensor none (DenseIntOrFPElementsAttr)."""
    from hlorun.parser.bytecode.dense import raw_from_array
    from hlorun.parser.ir import FloatType

    t = TensorType((3, 2), FloatType("f32"))
    assert len(bytes(raw_from_array(t, np.full((3, 2), 1.5, np.float32)))) == 4
    assert len(bytes(raw_from_array(TensorType((0,), FloatType("f32")), np.zeros(0)))) == 0
    assert DenseElementsAttr  # (imported for the generator's attribute kinds)
    assert not _quantized(t)
