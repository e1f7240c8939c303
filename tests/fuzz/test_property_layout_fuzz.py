"""Fuzzing the bytecode reader's choice among property layouts (func.func with and
without no_inline, the func.call layouts): bytes of the property blobs of real
TensorFlow bytecode and of files written in each layout, replaced at random, read to a
module or refused with a ParseError, never another exception; a module read has its
func ops' inherent attributes of the kinds their layout declares, and writes back to
bytes that read to the same module."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser import parse_module
from hlorun.parser.bytecode.properties import layouts, of_kind, spec_of
from hlorun.parser.bytecode.reader import FileReader, read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite, write_bytecode
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import Function, Operation
from tests.bytecode.same_ir import same_module

TF = Path(__file__).resolve().parent.parent / "fixtures" / "tensorflow_bytecode"

PROGRAM = """func.func private @g(%a: tensor<f32>) -> tensor<f32> attributes {no_inline} {
  return %a : tensor<f32>
}
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @g(%a) {no_inline} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
"""


def _seeds() -> list[bytes]:
    out = [p.read_bytes() for p in sorted(TF.glob("*.mlirbc"))]
    m = parse_module(PROGRAM)
    for f in layouts("func.func"):
        for c in layouts("func.call"):
            pl = {"func.func": spec_of(f), "func.call": spec_of(c)}
            out.append(write_bytecode(m, 6, "fuzz", property_layouts=pl))
    return out


SEEDS = _seeds()
# where each seed's property blobs are: (start, end) byte ranges
RANGES = [[(p.pos, p.end) for p in FileReader(d).properties] for d in SEEDS]


def _kinds_hold(module) -> bool:
    """Every func.func / func.call inherent attribute is of a kind some layout gives it."""
    allowed = {
        op: {(n, c) for lay in layouts(op) for n, _, c in lay} for op in ("func.func", "func.call")
    }

    def ok(op_name, attrs) -> bool:
        names = {n: [c for m, c in allowed[op_name] if m == n] for n, _ in attrs}
        return all(any(of_kind(a, c) for c in names[n]) for n, a in attrs if names[n])

    stack: list = list(module.functions.values())
    while stack:
        x = stack.pop()
        if isinstance(x, Function):
            body = [x.body] if x.body is not None else []
        else:
            assert isinstance(x, Operation)
            if x.name == "func.call":
                props = [(n, a) for n, a in x.attributes if n in x.property_names]
                if not ok("func.call", props):
                    return False
            body = list(x.regions)
        for r in body:
            for b in r.blocks:
                stack.extend(b.operations)
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_property_blob_mutants(data):
    i = data.draw(st.integers(0, len(SEEDS) - 1))
    blob = bytearray(SEEDS[i])
    ranges = RANGES[i]
    for _ in range(data.draw(st.integers(1, 3))):
        start, end = ranges[data.draw(st.integers(0, len(ranges) - 1))]
        if end > start:
            at = data.draw(st.integers(start, end - 1))
            blob[at] = data.draw(st.integers(0, 255))
    try:
        bf = read_bytecode_file(bytes(blob), "mutant.mlirbc")
    except ParseError:
        return
    assert _kinds_hold(bf.module)
    again = read_bytecode_file(rewrite(bf), "again.mlirbc")
    why = same_module(bf.module, again.module)
    assert not why, why
