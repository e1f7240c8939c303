"""Small helpers shared by the VHLO conversions: builders for VHLO types / attributes
and the APInt / APFloat bit-pattern conventions of ``parser/vhlo/ir.py``."""

from __future__ import annotations

import numpy as np

from ..errors import SourcePos, VerificationError
from ..ir import (
    DenseElementsAttr,
    FloatType,
    IntegerType,
    Module,
    Operation,
    TensorType,
    numpy_dtype,
)
from .builtin_view import data_from_dense, dense_from_data
from .ir import VhloAttr, VhloType

# MLIR's ShapedType::kDynamic, as VHLO stores a dynamic dimension.
K_DYNAMIC = -(2**63)

# Builtin float type name -> VHLO type mnemonic (VhloTypes.cpp addBuiltinToVhloConversions;
# note tf32's mnemonic really is ``tf31_v1`` in VhloTypes.td).
FLOAT_TO_VHLO = {
    "bf16": "bf16_v1",
    "f16": "f16_v1",
    "f32": "f32_v1",
    "f64": "f64_v1",
    "f4E2M1FN": "f4E2M1FN_v1",
    "f6E2M3FN": "f6E2M3FN_v1",
    "f6E3M2FN": "f6E3M2FN_v1",
    "f8E3M4": "f8E3M4_v1",
    "f8E4M3": "f8E4M3_v1",
    "f8E4M3FN": "f8E4M3FN_v1",
    "f8E5M2": "f8E5M2_v1",
    "f8E4M3FNUZ": "f8E4M3FNUZ_v1",
    "f8E4M3B11FNUZ": "f8E4M3B11FNUZ_v1",
    "f8E5M2FNUZ": "f8E5M2FNUZ_v1",
    "f8E8M0FNU": "f8E8M0FNU_v1",
    "tf32": "tf31_v1",
}
VHLO_TO_FLOAT = {v: k for k, v in FLOAT_TO_VHLO.items()}

# Signless builtin integers are the signed VHLO ones (VhloTypes.cpp convertBuiltinIntegerType).
INT_WIDTHS = (2, 4, 8, 16, 32, 64)


# What malformed IR (e.g. a VHLO attribute with missing parameters, written by hand)
# makes a conversion step raise; turned into the op's "failed to legalize" error.
MALFORMED = (IndexError, ValueError, TypeError, KeyError, AttributeError)


class LegalizeError(VerificationError):
    """A conversion to / from / within VHLO failed; ``notes`` are further diagnostics
    (position, message) MLIR emits with it (e.g. the module's "failed to convert")."""

    def __init__(self, message: str, pos: SourcePos | None = None, *, notes=()):
        self.notes = tuple(notes)
        super().__init__(message, pos)


def illegal(op_name: str, pos: SourcePos | None, why: str = "") -> LegalizeError:
    """MLIR's dialect-conversion failure for one op; ``why``: what in it has no VHLO
    form (an attribute or type of another dialect), when known."""
    return LegalizeError(
        f"failed to legalize operation '{op_name}' that was explicitly marked illegal"
        + (f": {why}" if why else ""),
        pos,
    )


def float_bits(value: float, name: str) -> int:
    """The bit pattern of ``value`` in float format ``name`` (an APFloat)."""
    if name == "tf32":
        return int(np.array(value, np.float32).view(np.uint32)) >> 13
    dt = numpy_dtype(FloatType(name))
    arr = np.array(value, dtype=np.float64).astype(dt)
    return int(arr.view(f"u{dt.itemsize}"))


def bits_float(bits: int, name: str) -> float:
    """The value of an APFloat bit pattern in format ``name``."""
    if name == "tf32":
        return float(np.array(bits << 13, np.uint32).view(np.float32))
    dt = numpy_dtype(FloatType(name))
    return float(np.array(bits, dtype=f"u{dt.itemsize}").view(dt).astype(np.float64))


def int_bits(value: int, width: int) -> int:
    """APInt convention: the unsigned two's-complement pattern of ``width`` bits."""
    return value & ((1 << width) - 1)


def signed_value(bits: int, width: int) -> int:
    bits &= (1 << width) - 1
    return bits - (1 << width) if width > 1 and bits >> (width - 1) else bits


# ---- canned VHLO values --------------------------------------------------------------

I64 = VhloType("i64_v1")
BOOL = VhloType("bool_v1")


def vbool(b: bool) -> VhloAttr:
    return VhloAttr("bool_v1", (bool(b),))


def vstring(s: str) -> VhloAttr:
    return VhloAttr("string_v1", (s,))


def varray(items) -> VhloAttr:
    return VhloAttr("array_v1", (tuple(items),))


def vint64(v: int) -> VhloAttr:
    return VhloAttr("integer_v1", (I64, int_bits(v, 64)))


def dense_i64(values, shape=None) -> DenseElementsAttr:
    arr = np.asarray(list(values), dtype=np.int64)
    if shape is not None:
        arr = arr.reshape(shape)
    arr.setflags(write=False)
    return DenseElementsAttr(TensorType(tuple(arr.shape), IntegerType(64)), arr)


def dense_bool(values) -> DenseElementsAttr:
    arr = np.asarray(list(values), dtype=np.bool_)
    arr.setflags(write=False)
    return DenseElementsAttr(TensorType((len(arr),), IntegerType(1)), arr)


def vtensor_i64(values, shape=None) -> VhloAttr:
    d = dense_i64(values, shape)
    vt = VhloType("tensor_v1", (tuple(d.array.shape), I64, None))
    return VhloAttr("tensor_v1", (vt, data_from_dense(d)))


def vtensor_bool(values) -> VhloAttr:
    d = dense_bool(values)
    vt = VhloType("tensor_v1", (tuple(d.array.shape), BOOL, None))
    return VhloAttr("tensor_v1", (vt, data_from_dense(d)))


NONE_TYPE_ATTR = VhloAttr("type_v1", (VhloType("none_v1"),))


def default_result_accuracy() -> VhloAttr:
    """VhloToVersion.cpp getDefaultResultAccuracy: atol 0, rtol 0, ulps 0, DEFAULT."""
    return VhloAttr(
        "result_accuracy_v1", (0, 0, 0, VhloAttr("result_accuracy_mode_v1", ("DEFAULT",)))
    )


def is_default_result_accuracy(a: object) -> bool:
    """Whether ``a`` is ``default_result_accuracy()`` (any spelling of its zeros)."""
    if not (isinstance(a, VhloAttr) and a.name == "result_accuracy_v1"):
        return False
    atol, rtol, ulps, mode = a.params
    return (
        bits_float(atol, "f64") == 0.0
        and bits_float(rtol, "f64") == 0.0
        and ulps == 0
        and mode == VhloAttr("result_accuracy_mode_v1", ("DEFAULT",))
    )


def tensor_data(attr: VhloAttr) -> np.ndarray | None:
    """The array of a ``#vhlo.tensor_v1`` (None for anything else)."""
    if isinstance(attr, VhloAttr) and attr.name == "tensor_v1":
        return dense_from_data(attr.params[0], attr.params[1]).array
    return None


def tensor_raw(attr: VhloAttr) -> bytes | None:
    """The raw data of a ``#vhlo.tensor_v1`` (None for anything else)."""
    if isinstance(attr, VhloAttr) and attr.name == "tensor_v1":
        return attr.params[1]
    return None


def unwrap_generic_module(m: Module) -> Module:
    """``"builtin.module"() ({...}) : () -> ()`` (the generic printout) as a Module."""
    if len(m.body) != 1 or not isinstance(m.body[0], Operation):
        return m
    op = m.body[0]
    if op.name != "builtin.module" or len(op.regions) != 1 or len(op.regions[0].blocks) > 1:
        return m
    blocks = op.regions[0].blocks
    attrs = dict(op.attributes)
    name = attrs.pop("sym_name", None)
    return Module(
        blocks[0].operations if blocks else (),
        getattr(name, "value", None),
        tuple(sorted(attrs.items())),
        m.aliases,
        m.resources,
        False,
        op.location,
        op.pos,
    )
