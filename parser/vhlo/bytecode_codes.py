"""The VHLO dialect's bytecode codes, as data.

Every fact here comes from openxla/stablehlo ``stablehlo/dialect/VhloBytecode.cpp``
(the ``vhlo_encoding::AttributeCode`` / ``TypeCode`` enums and the read/write method
of each kind), except the builtin float type of each VHLO float type, which is
``VhloTypes.cpp``'s ``addVhloToBuiltinConversions``.

A kind's encoding is a tuple of fields in stream order; each field is
``(field kind, index of the .td parameter it fills)``.  Field kinds:

- ``attr`` / ``type``: one attribute / type reference;
- ``opt_attr``: ``writeOptionalAttribute`` (a reference with a "present" flag bit);
- ``flag_attr``: a varint 0/1, then the attribute when 1 (AxisRefV1Attr);
- ``attrs`` / ``types``: a varint count, then that many references;
- ``attr_pairs``: a varint count, then (key, value) attribute pairs (DictionaryV1Attr);
- ``varint`` / ``svarint``: an unsigned / zigzag varint; ``svarints``: a list of them;
- ``bool_varint``: a varint that must be 0 or 1 (BooleanV1Attr);
- ``enum``: the enum case's value as a varint (``hlo::bytecode::writeEnumAttribute``);
- ``string``: a string-table reference;
- ``apint_of_type`` / ``apfloat_of_type``: an APInt / APFloat whose width / semantics
  come from the type read as parameter 0;
- ``apfloat_f64`` / ``apfloats_f64``: an IEEE double APFloat / a list of them;
- ``tensor_blob``: TensorV1Attr's data blob (i1 tensors bit-packed, see the codec).

Parameters a code's fields do not fill are None (RankedTensorV1 without encoding).
Parameter values follow parser/vhlo/ir.py; in addition: ``dict_v1``'s one parameter
is a tuple of (key, value) attribute pairs; an absent OptionalParameter is None;
``tensor_v1``'s data is MLIR's raw DenseElementsAttr storage (see builtin_view.py).
"""

from __future__ import annotations

Field = tuple[str, int]
Encoding = tuple[str, tuple[Field, ...]]

_ENUM: tuple[Field, ...] = (("enum", 0),)

# vhlo_encoding::AttributeCode (code 0, ArgResultAliasV1Attr, is retired).
ATTR_CODES: dict[int, Encoding] = {
    1: ("array_v1", (("attrs", 0),)),
    2: ("bool_v1", (("bool_varint", 0),)),
    3: ("comparison_direction_v1", _ENUM),
    4: ("comparison_type_v1", _ENUM),
    5: ("api_version_v1", _ENUM),
    6: ("dict_v1", (("attr_pairs", 0),)),
    7: ("fft_type_v1", _ENUM),
    8: ("float_v1", (("type", 0), ("apfloat_of_type", 1))),
    9: ("integer_v1", (("type", 0), ("apint_of_type", 1))),
    10: ("output_operand_alias_v1", (("svarints", 0), ("svarint", 1), ("svarints", 2))),
    11: ("precision_v1", _ENUM),
    12: ("rng_algorithm_v1", _ENUM),
    13: ("rng_distribution_v1", _ENUM),
    14: ("string_v1", (("string", 0),)),
    15: ("tensor_v1", (("type", 0), ("tensor_blob", 1))),
    16: ("transpose_v1", _ENUM),
    17: ("type_v1", (("type", 0),)),
    18: ("type_extensions_v1", (("svarints", 0),)),
    19: ("result_accuracy_mode_v1", _ENUM),
    20: (
        "result_accuracy_v1",
        (("apfloat_f64", 0), ("apfloat_f64", 1), ("svarint", 2), ("attr", 3)),
    ),
    21: ("sub_axis_info_v1", (("svarint", 0), ("svarint", 1))),
    22: ("axis_ref_v1", (("attr", 0), ("flag_attr", 1))),
    23: ("replica_group_mesh_axes_v1", (("attr", 0), ("attr", 1))),
    24: ("mesh_axis_v1", (("attr", 0), ("svarint", 1))),
    25: ("mesh_v1", (("attr", 0), ("opt_attr", 1))),
}

# vhlo_encoding::TypeCode.
TYPE_CODES: dict[int, Encoding] = {
    0: ("bool_v1", ()),
    1: ("complex_v1", (("type", 0),)),
    2: ("bf16_v1", ()),
    3: ("f16_v1", ()),
    4: ("f32_v1", ()),
    5: ("f64_v1", ()),
    6: ("f8E4M3FN_v1", ()),
    7: ("f8E5M2_v1", ()),
    8: ("func_v1", (("types", 0), ("types", 1))),
    9: ("index_v1", ()),
    10: ("i4_v1", ()),
    11: ("i8_v1", ()),
    12: ("i16_v1", ()),
    13: ("i32_v1", ()),
    14: ("i64_v1", ()),
    15: ("ui4_v1", ()),
    16: ("ui8_v1", ()),
    17: ("ui16_v1", ()),
    18: ("ui32_v1", ()),
    19: ("ui64_v1", ()),
    # RankedTensorV1Type: .td parameters (shape, elementType, encoding).
    20: ("tensor_v1", (("svarints", 0), ("type", 1))),
    21: ("tensor_v1", (("attr", 2), ("svarints", 0), ("type", 1))),
    22: ("token_v1", ()),
    23: ("tuple_v1", (("types", 0),)),
    # UniformQuantizedV1Type: (flags, storageType, expressedType, scale, zeroPoint,
    # storageTypeMin, storageTypeMax).
    24: (
        "quant_v1",
        (
            ("varint", 0),
            ("type", 1),
            ("type", 2),
            ("apfloat_f64", 3),
            ("svarint", 4),
            ("svarint", 5),
            ("svarint", 6),
        ),
    ),
    25: ("unranked_tensor_v1", (("type", 0),)),
    26: ("witness_v1", ()),
    27: ("f8E4M3FNUZ_v1", ()),
    28: ("f8E5M2FNUZ_v1", ()),
    29: ("f8E4M3B11FNUZ_v1", ()),
    # UniformQuantizedPerAxisV1Type: (flags, storageType, expressedType,
    # quantizedDimension, scales, zeroPoints, storageTypeMin, storageTypeMax); the
    # stream puts min/max before the two lists.
    30: (
        "quant_per_axis_v1",
        (
            ("varint", 0),
            ("type", 1),
            ("type", 2),
            ("varint", 3),
            ("svarint", 6),
            ("svarint", 7),
            ("apfloats_f64", 4),
            ("svarints", 5),
        ),
    ),
    31: ("i2_v1", ()),
    32: ("ui2_v1", ()),
    33: ("none_v1", ()),
    34: ("tf31_v1", ()),  # FloatTF32V1Type: upstream's mnemonic is "tf31_v1"
    35: ("f8E4M3_v1", ()),
    36: ("f8E3M4_v1", ()),
    37: ("f4E2M1FN_v1", ()),
    38: ("f6E2M3FN_v1", ()),
    39: ("f6E3M2FN_v1", ()),
    40: ("f8E8M0FNU_v1", ()),
    41: ("buffer_v1", (("svarints", 0), ("type", 1))),
    42: ("future_v1", (("types", 0),)),
}

# Number of .td parameters of each kind that has any (VhloTypes.td / VhloAttrs.td).
TYPE_PARAM_COUNT = {"tensor_v1": 3}
ATTR_PARAM_COUNT: dict[str, int] = {}

# IntegerV1Attr's APInt width by type (VhloBytecode.cpp getBitWidthForIntegerType;
# IndexV1Type uses IndexType::kInternalStorageBitWidth).  Other types are an error.
INTEGER_ATTR_WIDTH = {
    "i4_v1": 4,
    "ui4_v1": 4,
    "i8_v1": 8,
    "ui8_v1": 8,
    "i16_v1": 16,
    "ui16_v1": 16,
    "i32_v1": 32,
    "ui32_v1": 32,
    "i64_v1": 64,
    "ui64_v1": 64,
    "index_v1": 64,
}

# FloatV1Attr's APFloat semantics by type (VhloBytecode.cpp getFloatSemantics), named
# by the builtin float type they belong to (VhloTypes.cpp's VHLO -> builtin conversion).
FLOAT_TYPE_SEMANTICS = {
    "bf16_v1": "bf16",
    "f16_v1": "f16",
    "f32_v1": "f32",
    "f64_v1": "f64",
    "f4E2M1FN_v1": "f4E2M1FN",
    "f6E2M3FN_v1": "f6E2M3FN",
    "f6E3M2FN_v1": "f6E3M2FN",
    "f8E3M4_v1": "f8E3M4",
    "f8E4M3_v1": "f8E4M3",
    "f8E4M3FN_v1": "f8E4M3FN",
    "f8E5M2_v1": "f8E5M2",
    "f8E4M3FNUZ_v1": "f8E4M3FNUZ",
    "f8E4M3B11FNUZ_v1": "f8E4M3B11FNUZ",
    "f8E5M2FNUZ_v1": "f8E5M2FNUZ",
    "f8E8M0FNU_v1": "f8E8M0FNU",
    "tf31_v1": "tf32",
}


def _by_name(codes: dict[int, Encoding]) -> dict[str, list[tuple[int, Encoding]]]:
    out: dict[str, list[tuple[int, Encoding]]] = {}
    for code, enc in codes.items():
        out.setdefault(enc[0], []).append((code, enc))
    return out


ATTR_BY_NAME = _by_name(ATTR_CODES)
TYPE_BY_NAME = _by_name(TYPE_CODES)


def param_count(enc_fields: tuple[Field, ...], name: str, counts: dict[str, int]) -> int:
    """How many .td parameters kind ``name`` has (at least those its fields fill)."""
    filled = max((i for _, i in enc_fields), default=-1) + 1
    return max(filled, counts.get(name, 0))
