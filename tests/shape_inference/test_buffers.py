"""memref buffers in StableHLO programs: which ops take them, and custom_call's buffer
targets.

Expected messages and rules come from openxla/stablehlo: StablehloOps.cpp
``CustomCallOp::verifyKnownCustomCalls`` (the CreateBuffer / Pin / Unpin targets and
the buffer rules of output_operand_aliases), Base.td (``HLO_Buffer``, ``HLO_Tensor``'s
element constraints, whose summaries MLIR's generated verifier prints) and
StablehloOps.td (the ops whose constraints include ``HLO_Buffer``: while, tuple,
get_tuple_element, return, custom_call).  The programs are our own.
"""

from __future__ import annotations

import pytest

from hlorun.parser.ir import FloatType, OpaqueType, TensorType
from hlorun.shape_inference.buffers import TENSOR_SUMMARY, buffer_tensor, is_buffer
from tests.shape_inference.labelcheck import assert_verifies, errors, func

F32 = FloatType("f32")


def custom_call(target: str, operands: str, types: str, results: str, aliases: str = "") -> str:
    """``%r = custom_call @target(operands)`` with its generic form; ``aliases`` is the
    text of the output_operand_aliases array's entries."""
    extra = f",\n    output_operand_aliases = [{aliases}]" if aliases else ""
    lhs = "%r:2 = " if results.startswith("(") and results.count(",") == 1 else "%r = "
    return (
        f'{lhs}"stablehlo.custom_call"({operands}) {{\n    call_target_name = "{target}",\n'
        f"    api_version = 4 : i32{extra}\n  }} : ({types}) -> {results}"
    )


def alias(output: str, operand: int, operand_indices: str = "") -> str:
    return (
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{output}], "
        f"operand_index = {operand}, operand_tuple_indices = [{operand_indices}]>"
    )


def only_error(text: str) -> tuple[str, str]:
    found = errors(text)
    assert len(found) == 1, "\n".join(map(str, found)) or "no error"
    return found[0].label or "", found[0].message


# ---- the predicates ---------------------------------------------------------------------


def test_buffer_tensor_keeps_shape_and_element_type_only():
    assert is_buffer(OpaqueType("memref<2xf32>"))
    assert not is_buffer(TensorType((2,), F32)) and not is_buffer(OpaqueType("!foo.bar"))
    t = buffer_tensor(OpaqueType("memref<2x?xf32, strided<[1, 2], offset: ?>, 1>"))
    assert t == TensorType((2, None), F32)
    assert buffer_tensor(OpaqueType("memref<*xf32>")) == TensorType(None, F32)
    assert buffer_tensor(OpaqueType("memref<3xcomplex<f32>>")).shape == (3,)
    assert buffer_tensor(OpaqueType("!foo.bar")) is None


# ---- ops whose ODS constraints include HLO_Buffer --------------------------------------


def test_buffers_pass_through_tuple_get_tuple_element_while_and_custom_call():
    m = "memref<2xf32>"
    assert_verifies(
        func(
            f"%t: tensor<2xf32>, %b: {m}",
            f'%0 = "stablehlo.tuple"(%t, %b) : (tensor<2xf32>, {m}) -> tuple<tensor<2xf32>, {m}>',
            f'%1 = "stablehlo.get_tuple_element"(%0) {{index = 1 : i32}} : '
            f"(tuple<tensor<2xf32>, {m}>) -> {m}",
            custom_call("Pin", "%t", "tensor<2xf32>", m).replace("%r", "%2"),
            custom_call("Unpin", "%2", m, "tensor<2xf32>").replace("%r", "%3"),
            custom_call("CreateBuffer", "", "", m).replace("%r", "%4"),
            custom_call("update", "%4", m, m, alias("", 0)).replace("%r", "%5"),
            "%6 = stablehlo.constant dense<true> : tensor<i1>",
            f'%7:2 = "stablehlo.while"(%6, %5) ({{\n  ^bb0(%p: tensor<i1>, %x: {m}):\n'
            f'    "stablehlo.return"(%p) : (tensor<i1>) -> ()\n  }}, {{\n'
            f"  ^bb0(%p: tensor<i1>, %x: {m}):\n"
            f'    "stablehlo.return"(%p, %x) : (tensor<i1>, {m}) -> ()\n'
            f"  }}) : (tensor<i1>, {m}) -> (tensor<i1>, {m})",
            results=m,
            returns=f"%7#1 : {m}",
        )
    )


# ---- ops that take no buffer: MLIR's generated type check ---------------------------------


def test_an_elementwise_op_rejects_a_memref_operand_by_its_number():
    m = "memref<4xf32>"
    text = func(
        f"%t: tensor<4xf32>, %b: {m}",
        f'%0 = "stablehlo.multiply"(%t, %b) : (tensor<4xf32>, {m}) -> tensor<4xf32>',
    )
    label, message = only_error(text)
    assert label == "value_type"
    assert message == f"operand #1 must be {TENSOR_SUMMARY}, but got '{m}'"


def test_a_variadic_operand_or_result_says_variadic():
    m = "memref<2xf32>"
    text = func(
        f"%t: tensor<2xf32>, %b: {m}",
        f'%0 = "stablehlo.concatenate"(%t, %b) {{dimension = 0 : i64}} : '
        f"(tensor<2xf32>, {m}) -> tensor<4xf32>",
    )
    label, message = only_error(text)
    assert label == "value_type"
    assert message.startswith("operand #1 must be variadic of ranked tensor of ")
    text = func(
        f"%i: tensor<i32>, %b: {m}",
        f'%r = "stablehlo.case"(%i) ({{\n    "stablehlo.return"(%b) : ({m}) -> ()\n  }}) '
        f": (tensor<i32>) -> {m}",
    )
    label, message = only_error(text)
    assert label == "value_type" and message.startswith("result #0 must be variadic of ")
    assert message.endswith(f"but got '{m}'")


def test_a_chlo_op_rejects_a_memref_too():
    m = "memref<2xf32>"
    text = func(f"%b: {m}", f'%0 = "chlo.tan"(%b) : ({m}) -> tensor<2xf32>')
    label, message = only_error(text)
    assert label == "value_type" and message.startswith("operand #0 must be ranked tensor of")


# ---- custom_call's buffer targets ----------------------------------------------------------


@pytest.mark.parametrize(
    "target, operands, types, results, message",
    [
        ("CreateBuffer", "%t", "tensor<2xf32>", "memref<2xf32>", "shouldn't have any inputs"),
        ("CreateBuffer", "", "", "tensor<2xf32>", "should have a memref result"),
        ("CreateBuffer", "", "", "(memref<2xf32>, memref<2xf32>)", "should have one result"),
        ("Pin", "%t, %t", "tensor<2xf32>, tensor<2xf32>", "memref<2xf32>", "should have one input"),
        ("Pin", "%b", "memref<2xf32>", "memref<2xf32>", "should have a tensor input"),
        ("Pin", "%t", "tensor<2xf32>", "tensor<2xf32>", "should have a memref output"),
        (
            "Pin",
            "%t",
            "tensor<2xf32>",
            "memref<3xf32>",
            "should have compatible input and output types",
        ),
        (
            "Pin",
            "%t",
            "tensor<2xf32>",
            "memref<2xf64>",
            "should have compatible input and output types",
        ),
        ("Unpin", "%t", "tensor<2xf32>", "tensor<2xf32>", "should have a memref input"),
        ("Unpin", "%b", "memref<2xf32>", "memref<2xf32>", "should have a tensor output"),
        (
            "Unpin",
            "%b",
            "memref<2xf32>",
            "tensor<2x1xf32>",
            "should have compatible input and output types",
        ),
    ],
)
def test_buffer_targets(target, operands, types, results, message):
    text = func(
        "%t: tensor<2xf32>, %b: memref<2xf32>", custom_call(target, operands, types, results)
    )
    label, got = only_error(text)
    assert (label, got) == ("custom_call_buffers", f"{target} custom_call {message}")


def test_pin_and_unpin_take_dynamic_and_unranked_shapes():
    assert_verifies(
        func(
            "%t: tensor<?xf32>, %u: tensor<*xf32>",
            custom_call("Pin", "%t", "tensor<?xf32>", "memref<2xf32>").replace("%r", "%0"),
            custom_call("Unpin", "%0", "memref<2xf32>", "tensor<?xf32>").replace("%r", "%1"),
            custom_call("Pin", "%u", "tensor<*xf32>", "memref<2x3xf32>").replace("%r", "%2"),
        )
    )


def test_every_buffer_result_is_an_aliased_output():
    m = "memref<2xf32>"
    text = func(
        f"%a: {m}, %b: {m}",
        custom_call("foo", "%a, %b", f"{m}, {m}", f"({m}, {m})", alias("0", 0)),
    )
    assert only_error(text) == (
        "custom_call_buffers",
        "buffer output [1] is not used in output_operand_alias",
    )
    ok = func(
        f"%a: {m}, %b: {m}",
        custom_call(
            "foo", "%a, %b", f"{m}, {m}", f"({m}, {m})", f"{alias('0', 1)}, {alias('1', 0)}"
        ),
    )
    assert_verifies(ok)
    # a tensor result needs no alias
    assert_verifies(
        func("%t: tensor<2xf32>", custom_call("foo", "%t", "tensor<2xf32>", "tensor<2xf32>"))
    )


def test_a_buffer_is_aliased_at_most_once_each_way():
    m = "memref<2xf32>"
    tup = f"tuple<{m}, {m}>"
    text = func(
        f"%a: {tup}",
        custom_call("foo", "%a", tup, tup, f"{alias('0', 0, '0')}, {alias('0', 0, '1')}"),
    )
    assert only_error(text) == (
        "custom_call_buffers",
        "buffer output [0] is used in output_operand_alias more than once",
    )
    text = func(
        f"%a: {tup}",
        custom_call("foo", "%a", tup, tup, f"{alias('0', 0, '1')}, {alias('1', 0, '1')}"),
    )
    assert only_error(text) == (
        "custom_call_buffers",
        "buffer operand 0[1] is used in output_operand_alias more than once",
    )
    # tensor parts may be aliased twice: only buffers are counted
    t = "tensor<2xf32>"
    assert_verifies(
        func(
            f"%t: {t}",
            custom_call("foo", "%t", t, f"({t}, {t})", f"{alias('0', 0)}, {alias('1', 0)}"),
        )
    )
