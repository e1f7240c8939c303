"""The operand element types of every chlo op that restricts them (ChloOps.td's ODS
operand constraints, docs/chlo.md's "Operands" tables), one row per op under its label
``chlo.<op>.element_type``; and the structural constraints of ChloOps.cpp that
test_chlo_shapes.py / test_labels_chlo.py leave out (ragged_dot's dimension numbers)."""

from __future__ import annotations

import pytest

from tests.shape_inference.test_chlo_shapes import (
    BF16,
    C64,
    F32,
    I1,
    I32,
    I64,
    T,
    label_of,
    ragged_attr,
)

ELEMENT_TYPES = [
    # complex only
    ("chlo._asin_acos_kernel.element_type", (T((3,), F32),)),
    # float or complex (docs/chlo.md): not an integer
    ("chlo.acos.element_type", (T((3,), I32),)),
    ("chlo.acosh.element_type", (T((3,), I32),)),
    ("chlo.asin.element_type", (T((3,), I32),)),
    ("chlo.asinh.element_type", (T((3,), I32),)),
    ("chlo.atan.element_type", (T((3,), I32),)),
    ("chlo.atanh.element_type", (T((3,), I32),)),
    ("chlo.bessel_i1e.element_type", (T((3,), I32),)),
    ("chlo.conj.element_type", (T((3,), I32),)),
    ("chlo.cosh.element_type", (T((3,), I32),)),
    ("chlo.sinh.element_type", (T((3,), I32),)),
    ("chlo.tan.element_type", (T((3,), I32),)),
    ("chlo.square.element_type", (T((3,), I32),)),
    # float only: not complex
    ("chlo.digamma.element_type", (T((3,), C64),)),
    ("chlo.erf.element_type", (T((3,), C64),)),
    ("chlo.erfc.element_type", (T((3,), C64),)),
    ("chlo.erf_inv.element_type", (T((3,), C64),)),
    ("chlo.lgamma.element_type", (T((3,), C64),)),
    ("chlo.is_inf.element_type", (T((3,), C64),)),
    ("chlo.is_neg_inf.element_type", (T((3,), C64),)),
    ("chlo.is_pos_inf.element_type", (T((3,), C64),)),
    # two float operands
    ("chlo.next_after.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.polygamma.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.zeta.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.igamma.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.igammac.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.broadcast_next_after.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.broadcast_polygamma.element_type", (T((3,), I32), T((3,), I32))),
    ("chlo.broadcast_zeta.element_type", (T((3,), I32), T((3,), I32))),
    # integer (not i1)
    ("chlo.mulhi.element_type", (T((3,), I1), T((3,), I1))),
    # bool or integer
    ("chlo.broadcast_and.element_type", (T((3,), F32), T((3,), F32))),
    ("chlo.broadcast_or.element_type", (T((3,), F32), T((3,), F32))),
    ("chlo.broadcast_xor.element_type", (T((3,), F32), T((3,), F32))),
    # f32 or f64 parts
    ("chlo.broadcast_complex.element_type", (T((3,), BF16), T((3,), BF16))),
]


@pytest.mark.parametrize("label,operands", ELEMENT_TYPES, ids=[r[0] for r in ELEMENT_TYPES])
def test_element_type(label, operands):
    op = "chlo." + label.split(".")[1]
    assert label_of(op, *operands) == label


def test_ragged_dot_dimension_numbers():
    """verifyDotDimensionNumbers (via ChloOps.cpp inferRaggedDotOp): as many lhs as rhs
    batching and contracting dimensions."""

    def lab(attr):
        return label_of(
            "chlo.ragged_dot",
            T((11, 5), F32),
            T((3, 5, 7), F32),
            T((3,), I64),
            ragged_dot_dimension_numbers=attr,
        )

    assert lab(ragged_attr(lb=(0,))) == "chlo.ragged_dot.batching_dimensions"
    assert lab(ragged_attr(rc=(1, 2))) == "chlo.ragged_dot.contracting_dimensions"
