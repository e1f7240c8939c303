"""The Shardy (``sdy``) dialect codec.

Expected codes and byte layouts: openxla/shardy ``shardy/dialect/sdy/ir/bytecode.td``
(an attribute's code is its index in ``SdyDialectTypes``; fields in the listed order)
and MLIR's varint encoding (BytecodeFormat.md: a value below 128 is one byte
``value << 1 | 1``; signed values zigzag first), written out here independently of the
codec.  The fixture tests read artifacts jax wrote and check that hlorun writes them back
byte for byte, and that their sdy attributes equal what the text parser builds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlorun.parser import parse_module
from hlorun.parser.bytecode.dialect_api import get_codec
from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import Parser
from hlorun.parser.ir import Function, StringAttr, SymbolRefAttr
from hlorun.parser.sdy import (
    AxisRef,
    DimensionSharding,
    ManualAxes,
    Mesh,
    MeshAxis,
    SdyAttr,
    SubAxisInfo,
    TensorSharding,
    TensorShardingPerValue,
)
from tests.bytecode.codec_fakes import Tables, decode, encode, first_varint, roundtrip

SDY = get_codec("sdy")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jax"


def attr(text: str):
    return Parser(text).parse_attribute()


def vi(n: int) -> bytes:
    """MLIR varint of a small unsigned value (one byte)."""
    assert 0 <= n < 128
    return bytes([(n << 1) | 1])


def svi(n: int) -> bytes:
    """MLIR signed varint (zigzag) of a small value."""
    return vi((n << 1) if n >= 0 else ((-n) << 1) - 1)


# (bytecode.td index, MLIR's printed form)
CODES = [
    (0, '#sdy<manual_axes{"x", "y"}>'),
    (1, '#sdy<mesh_axis"x"=4>'),
    (2, '#sdy.mesh<["x"=2, "y"=4]>'),
    (3, "#sdy<sub_axis_info(1)2>"),
    (4, '#sdy<axis_ref"x">'),
    (4, '#sdy<axis_ref"x":(2)4>'),
    (5, '#sdy<dimension_sharding{"x", ?}p3>'),
    (6, '#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>'),
    (7, '#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>'),
    (9, "#sdy<tensor_mapping[ij, k]>"),
    (10, "#sdy.op_sharding_rule<([i, j])->([i, j]) {i=2, j=3} reduction={j}, custom>"),
    (11, '#sdy<axis_ref_list{"x", "y":(1)2}>'),
    (12, '#sdy<list_of_axis_ref_lists[{"x"}, {}]>'),
    (13, '#sdy<all_to_all_param{"x"}: 0->1>'),
    (14, '#sdy<all_to_all_param_list[{"x"}: 0->1, {"y"}: 1->0]>'),
    (15, '#sdy.sharding<@mesh, [{}], unreduced={"x"}>'),
    (16, '#sdy.sharding_per_value<[<@mesh, [{}], unreduced={"x"}>]>'),
    (17, '#sdy.sharding<@mesh, [{}], unreduced=max{"x"}>'),
]


@pytest.mark.parametrize(("code", "text"), CODES)
def test_code_and_roundtrip(code: int, text: str) -> None:
    value = attr(text)
    data, back = roundtrip(SDY, value, is_type=False)
    assert first_varint(data) == code
    assert back == value
    assert SDY.attribute_dialect(value) == "sdy"


def test_mesh_axis_bytes() -> None:
    """MeshAxisAttr: StringParam name (string index), SignedVarInt size."""
    t = Tables()
    assert encode(SDY, MeshAxis("x", 8), t, is_type=False) == vi(1) + vi(0) + svi(8)
    assert t.strings == ["x"]


def test_axis_ref_bytes() -> None:
    """AxisRefAttr: name, then OptionalAttr sub_axis_info (index << 1 | present)."""
    t = Tables()
    assert encode(SDY, AxisRef("x"), t, is_type=False) == vi(4) + vi(0) + vi(0)
    t = Tables()
    data = encode(SDY, AxisRef("x", SubAxisInfo(1, 2)), t, is_type=False)
    assert data == vi(4) + vi(0) + vi((0 << 1) | 1)
    assert t.attrs == [SubAxisInfo(1, 2)]


def test_dimension_sharding_bytes() -> None:
    """Array<AxisRef> axes, Bool is_closed (one byte), OptionalVarInt priority."""
    t = Tables()
    data = encode(SDY, DimensionSharding((AxisRef("x"),), False, 3), t, is_type=False)
    assert data == vi(5) + vi(1) + vi(0) + b"\x00" + vi((3 << 1) | 1)
    t = Tables()
    data = encode(SDY, DimensionSharding((), True, None), t, is_type=False)
    assert data == vi(5) + vi(0) + b"\x01" + vi(0)


def test_manual_axes_are_string_attrs() -> None:
    t = Tables()
    data = encode(SDY, ManualAxes(("x", "y")), t, is_type=False)
    assert data == vi(0) + vi(2) + vi(0) + vi(1)
    assert t.attrs == [StringAttr("x"), StringAttr("y")]


def test_mesh_device_ids_bytes() -> None:
    """MeshAttr: Array<MeshAxis> axes, then one signed-varint list of device ids."""
    t = Tables()
    mesh = Mesh((MeshAxis("x", 2),), (1, 0))
    assert encode(SDY, mesh, t, is_type=False) == vi(2) + vi(1) + vi(0) + vi(2) + svi(1) + svi(0)


def test_sharding_v3_reduction_op() -> None:
    """TensorSharding V3 ends with the ReductionOp as a signed varint (max = 1)."""
    t = Tables()
    s = TensorSharding(SymbolRefAttr("m"), (), (), (AxisRef("x"),), "max")
    data = encode(SDY, s, t, is_type=False)
    assert data == vi(17) + vi(0) + vi(0) + vi(0) + vi(1) + vi(1) + svi(1)


def test_v1_sharding_reads_without_unreduced() -> None:
    t = Tables()
    t.attrs = [SymbolRefAttr("mesh")]
    value = decode(SDY, vi(6) + vi(0) + vi(0) + vi(0), t, is_type=False)
    assert value == TensorSharding(SymbolRefAttr("mesh"))


def test_unknown_code_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="unknown sdy attribute code: 99"):
        decode(SDY, vi(99), Tables(), is_type=False)


def test_bad_reduction_op_is_a_parse_error() -> None:
    t = Tables()
    t.attrs = [SymbolRefAttr("m"), AxisRef("x")]
    data = vi(17) + vi(0) + vi(0) + vi(0) + vi(1) + vi(1) + svi(7)
    with pytest.raises(ParseError, match="reduction op"):
        decode(SDY, data, t, is_type=False)


def test_version_is_three_varints() -> None:
    t = Tables()
    t.versions["sdy"] = (0, 0, 1)
    from hlorun.parser.bytecode.dialect_api import DialectWriter
    from hlorun.parser.bytecode.encoding import Emitter

    em = Emitter()
    assert SDY.write_version(DialectWriter(em, t, 6))
    assert bytes(em.buf) == vi(0) + vi(0) + vi(1)


# ---- the jax fixtures: artifacts written by MLIR ------------------------------------------


def _sdy_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*.mlirbc") if b"sdy" in p.read_bytes())


def test_fixtures_hold_sdy() -> None:
    """The fixtures exercise the codec (linalg sharding rules, meshes, shard_map)."""
    names = {p.stem for p in _sdy_fixtures()}
    assert len(names) >= 100
    assert {"sharded_shardy", "shard_map_psum", "device_placement"} <= names


@pytest.mark.parametrize("path", _sdy_fixtures(), ids=lambda p: p.stem)
def test_fixture_rewrites_byte_for_byte(path: Path) -> None:
    """Reading then writing an artifact gives jax's bytes back (codes, field order,
    properties of the sdy ops)."""
    data = path.read_bytes()
    assert rewrite(read_bytecode_file(data, str(path))) == data


def _sdy_attrs(module) -> list:
    out: list = []

    def walk(ops) -> None:
        for op in ops:
            if isinstance(op, Function):
                for d in (*op.arg_attrs, *op.result_attrs):
                    if d is not None:
                        out.extend((k, v) for k, v in d.entries if isinstance(v, SdyAttr))
                if op.body is not None:
                    for b in op.body.blocks:
                        walk(b.operations)
                continue
            out.extend((k, v) for k, v in op.attributes if isinstance(v, SdyAttr))
            for r in op.regions:
                for b in r.blocks:
                    walk(b.operations)

    walk(module.body)
    return out


@pytest.mark.parametrize("name", ["shard_map_psum", "sharded_shardy", "linalg_qr_f32"])
def test_fixture_bytecode_and_text_give_equal_sdy_attributes(name: str) -> None:
    from hlorun.engine import load_module

    from_bytes = _sdy_attrs(load_module((FIXTURES / f"{name}.mlirbc").read_bytes()))
    from_text = _sdy_attrs(parse_module((FIXTURES / f"{name}.mlir").read_text()))
    assert from_bytes and from_bytes == from_text


def test_shard_map_manual_computation_properties() -> None:
    m = read_bytecode_file((FIXTURES / "shard_map_psum.mlirbc").read_bytes()).module
    mesh = m.body[0]
    assert mesh.name == "sdy.mesh"
    assert mesh.attr("sym_name") == StringAttr("mesh")
    assert mesh.attr("mesh") == Mesh((MeshAxis("x", 8),))
    assert mesh.property_names == frozenset({"mesh", "sym_name"})


def test_sdy_values_are_hashable_and_typed() -> None:
    s = attr('#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>')
    assert isinstance(s, TensorShardingPerValue)
    assert hash(s) == hash(attr('#sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>'))
