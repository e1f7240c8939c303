"""One program per constraint label of the Shardy ops' shape functions
(shape_inference/sdy.py), each violating exactly that constraint; and valid programs
that must verify cleanly.  The constraints are those of shardy's ops.td / verifiers.cc:
a named/manual computation's body takes the operands' types and returns the results'
(manual: the local types keep rank and element type), one sharding per operand and
result, and sdy.constant holds a value."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies

MESH = 'sdy.mesh @mesh = <["a"=2]>\n'
T, H = "tensor<8x4xf32>", "tensor<4x4xf32>"


def manual(
    local_arg: str = H,
    local_ret: str = H,
    ins: str = '[<@mesh, [{"a"}, {}]>]',
    outs: str = '[<@mesh, [{"a"}, {}]>]',
    extra_arg: str = "",
) -> str:
    return (
        MESH
        + f"""func.func @main(%x: {T}) -> {T} {{
  %0 = sdy.manual_computation(%x) in_shardings={ins} out_shardings={outs} manual_axes={{"a"}} (%l: {local_arg}{extra_arg}) {{
    sdy.return %l : {local_ret}
  }} : ({T}) -> {T}
  func.return %0 : {T}
}}
"""
    )


def named(arg: str = T, ret: str = T) -> str:
    return f"""func.func @main(%x: {T}) -> {T} {{
  %0 = sdy.named_computation<"f">(%x) (%l: {arg}) {{
    sdy.return %l : {ret}
  }} : ({T}) -> {T}
  func.return %0 : {T}
}}
"""


VALID = {
    "manual_computation": manual(),
    "named_computation": named(),
    "constant": f"""func.func @main() -> {T} {{
  %0 = sdy.constant dense<1.0> : {T}
  func.return %0 : {T}
}}
""",
}

NEGATIVE = [
    ("sdy_body_args", named(arg="tensor<8x4xi32>", ret="tensor<8x4xi32>")),
    (
        "sdy_body_results",
        f"""func.func @main(%x: {T}) -> {T} {{
  %0 = sdy.named_computation<"f">(%x) (%l: {T}) {{
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    sdy.return %c : tensor<f32>
  }} : ({T}) -> {T}
  func.return %0 : {T}
}}
""",
    ),
    (
        "sdy_manual_attrs",
        MESH
        + f"""func.func @main(%x: {T}) -> {T} {{
  %0 = "sdy.manual_computation"(%x) ({{
  ^bb0(%l: {H}):
    "sdy.return"(%l) : ({H}) -> ()
  }}) : ({T}) -> {T}
  func.return %0 : {T}
}}
""",
    ),
    ("sdy_manual_in", manual(ins='[<@mesh, [{"a"}, {}]>, <@mesh, [{}, {}]>]')),
    ("sdy_manual_out", manual(outs="[]")),
    ("sdy_manual_count", manual(extra_arg=", %m: tensor<f32>")),
    ("sdy_manual_local", manual(local_arg="tensor<4x4xi32>", local_ret="tensor<4x4xi32>")),
    (
        "sdy_constant",
        f"""func.func @main() -> {T} {{
  %0 = "sdy.constant"() : () -> {T}
  func.return %0 : {T}
}}
""",
    ),
]


def test_sdy_body_when_the_shape_function_sees_no_region():
    """The generic region count check reports a missing body first
    (``region_count``); the shape function's own ``sdy_body`` guards direct callers."""
    from hlorun.parser import parse_module
    from hlorun.parser.errors import VerificationError
    from hlorun.shape_inference.verifier import verify_operation

    text = f"""func.func @main(%x: {T}) -> {T} {{
  %0 = "sdy.named_computation"(%x) <{{name = "f"}}> : ({T}) -> {T}
  func.return %0 : {T}
}}
"""
    assert_label(text, "region_count")
    op = parse_module(text).functions["main"].body.blocks[0].operations[0]
    with pytest.raises(VerificationError) as e:
        verify_operation(op)
    assert e.value.label == "sdy_body"


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
