"""One program per constraint label of the control-flow family (spec "while", "if",
"case", "get_tuple_element", "after_all", "composite"), each violating exactly that
constraint as the spec states it; and valid programs that must verify cleanly."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

I64 = "tensor<i64>"


def region(args: str, *ops: str, ret: str = "", ret_types: str = "") -> str:
    """A one-block region ``({ ^bb0(args): ops; stablehlo.return ret })``."""
    head = f"^bb0({args}):\n" if args else ""
    body = "".join(f"    {op}\n" for op in ops)
    return f'{{\n  {head}{body}    "stablehlo.return"({ret}) : ({ret_types}) -> ()\n  }}'


def returning(value: str, type_: str) -> str:
    """A region without arguments returning a constant."""
    return region(
        "", f"%v = stablehlo.constant dense<{value}> : {type_}", ret="%v", ret_types=type_
    )


TRUE_COND = region(
    "%x: tensor<i64>",
    "%c = stablehlo.constant dense<true> : tensor<i1>",
    ret="%c",
    ret_types="tensor<i1>",
)
ID_BODY = region("%x: tensor<i64>", ret="%x", ret_types=I64)


def while_(cond: str = TRUE_COND, body: str = ID_BODY, result: str = I64) -> str:
    return func(f"%a: {I64}", f'%r = "stablehlo.while"(%a) ({cond}, {body}) : ({I64}) -> {result}')


def if_(
    pred: str = "tensor<i1>",
    true: str | None = None,
    false: str | None = None,
    result: str = "tensor<f32>",
) -> str:
    true = true or returning("1.0", "tensor<f32>")
    false = false or returning("2.0", "tensor<f32>")
    return func(f"%p: {pred}", f'%r = "stablehlo.if"(%p) ({true}, {false}) : ({pred}) -> {result}')


def case(
    index: str = "tensor<i32>", branches: tuple[str, ...] | None = None, result: str = "tensor<f32>"
) -> str:
    if branches is None:
        branches = (returning("1.0", "tensor<f32>"), returning("2.0", "tensor<f32>"))
    regions = f" ({', '.join(branches)})" if branches else ""
    lhs = "" if result == "()" else "%r = "
    return func(f"%i: {index}", f'{lhs}"stablehlo.case"(%i){regions} : ({index}) -> {result}')


TUPLE = "tuple<tensor<f32>, tensor<i32>>"


def get_tuple_element(operand: str = TUPLE, index: int = 1, result: str = "tensor<i32>") -> str:
    return func(
        f"%t: {operand}",
        f'%r = "stablehlo.get_tuple_element"(%t) {{index = {index} : '
        f"i32}} : ({operand}) -> {result}",
    )


def composite(name: str = "my.op", result: str = "tensor<f32>") -> str:
    return (
        "func.func @decomposition(%x: tensor<f32>) -> tensor<f32> {\n"
        "  func.return %x : tensor<f32>\n}\n"
        + func(
            "%a: tensor<f32>",
            f'%r = "stablehlo.composite"(%a) {{name = "{name}", '
            f"decomposition = @decomposition}} : (tensor<f32>) -> {result}",
        )
    )


def custom_call(attrs: str, operands: str = "tensor<2xf32>", result: str = "tensor<2xf32>") -> str:
    return func(
        f"%a: {operands}",
        f'%r = "stablehlo.custom_call"(%a) {{call_target_name = '
        f'"foo", {attrs}}} : ({operands}) -> {result}',
    )


LAYOUT = "dense<[0]> : tensor<1xindex>"


def alias(index: int) -> str:
    return (
        f"output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices "
        f"= [], operand_index = {index}, operand_tuple_indices = []>]"
    )


VALID = {
    "while": while_(),
    "while_two_values": func(
        "%a: tensor<i64>, %b: tensor<2xf32>",
        '%r:2 = "stablehlo.while"(%a, %b) ('
        + region(
            "%x: tensor<i64>, %y: tensor<2xf32>",
            "%c = stablehlo.compare LT, %x, %x : (tensor<i64>, tensor<i64>) -> tensor<i1>",
            ret="%c",
            ret_types="tensor<i1>",
        )
        + ", "
        + region(
            "%x: tensor<i64>, %y: tensor<2xf32>",
            ret="%x, %y",
            ret_types="tensor<i64>, tensor<2xf32>",
        )
        + ") : (tensor<i64>, tensor<2xf32>) -> (tensor<i64>, tensor<2xf32>)",
    ),
    "if": if_(),
    # branches of compatible types (as the StableHLO dialect allows): the result
    # dimension is dynamic
    "if_dynamic_result": func(
        "%p: tensor<i1>, %d: tensor<?xf32>",
        '%r = "stablehlo.if"(%p) ('
        + region("", ret="%d", ret_types="tensor<?xf32>")
        + ", "
        + returning("[1.0, 2.0]", "tensor<2xf32>")
        + ") : (tensor<i1>) -> tensor<?xf32>",
    ),
    "case": case(),
    "case_one_branch": case(branches=(returning("1.0", "tensor<f32>"),)),
    "get_tuple_element": get_tuple_element(),
    "after_all": func(
        "%a: !stablehlo.token, %b: !stablehlo.token",
        '%r = "stablehlo.after_all"(%a, %b) : (!stablehlo.token, '
        "!stablehlo.token) -> !stablehlo.token",
    ),
    "composite": composite(),
    # custom_call: the StableHLO dialect's rules (the spec leaves custom_call open)
    "custom_call_layouts": custom_call(
        f"operand_layouts = [{LAYOUT}], result_layouts = [{LAYOUT}]"
    ),
    "custom_call_alias": custom_call(alias(0)),
    "custom_call_typed_ffi": custom_call("api_version = 4 : i32, backend_config = {n = 1 : i32}"),
}

NEGATIVE = [
    # while (C1) cond : (T...) -> tensor<i1>
    (
        "while_c1",
        while_(
            cond=region(
                "%x: tensor<i32>",
                "%c = stablehlo.constant dense<true> : tensor<i1>",
                ret="%c",
                ret_types="tensor<i1>",
            )
        ),
    ),
    ("while_c1", while_(cond=region("%x: tensor<i64>", ret="%x", ret_types=I64))),
    # while (C2) body : (T...) -> (T...)
    (
        "while_c2",
        while_(
            body=region(
                "%x: tensor<i64>",
                "%y = stablehlo.convert %x : (tensor<i64>) -> tensor<i32>",
                ret="%y",
                ret_types="tensor<i32>",
            )
        ),
    ),
    (
        "while_c2",
        while_(
            body=region(
                "%x: tensor<i32>",
                "%y = stablehlo.constant dense<0> : tensor<i64>",
                ret="%y",
                ret_types=I64,
            )
        ),
    ),
    # while (C3) type(results...) = type(operand...)
    ("while_c3", while_(result="tensor<i32>")),
    # if (I1) pred: 0-dimensional tensor of i1
    ("if_i1", if_(pred="tensor<i32>")),
    ("if_i1", if_(pred="tensor<2xi1>")),
    # if (C1) the branches take no arguments
    ("if_c1", if_(true=region("%x: tensor<f32>", ret="%x", ret_types="tensor<f32>"))),
    # if (C2) output_types(true_branch) = output_types(false_branch)
    ("if_c2", if_(false=returning("2", "tensor<i32>"))),
    (
        "if_c2",
        if_(
            false=region(
                "",
                "%v = stablehlo.constant dense<2.0> : tensor<f32>",
                ret="%v, %v",
                ret_types="tensor<f32>, tensor<f32>",
            )
        ),
    ),
    # if (C3) type(results...) = output_types(true_branch)
    ("if_c3", if_(result="tensor<f64>")),
    ("if_c3", if_(result="tensor<1xf32>")),
    # case (I1) index: 0-dimensional tensor of si32
    ("case_i1", case(index="tensor<i64>")),
    ("case_i1", case(index="tensor<1xi32>")),
    # case (C1) 0 < size(branches)
    ("case_c1", case(branches=(), result="()")),
    # case (C2) input_types(branches...) = []
    (
        "case_c2",
        case(
            branches=(
                returning("1.0", "tensor<f32>"),
                region("%x: tensor<f32>", ret="%x", ret_types="tensor<f32>"),
            )
        ),
    ),
    # case (C3) same(output_types(branches...))
    ("case_c3", case(branches=(returning("1.0", "tensor<f32>"), returning("1", "tensor<i32>")))),
    # case (C4) type(results...) = output_types(branches[0])
    ("case_c4", case(result="tensor<i32>")),
    # get_tuple_element (I1) operand: tuple
    ("get_tuple_element_i1", get_tuple_element(operand="tensor<2xi32>")),
    # get_tuple_element (C1) 0 <= index < size(operand)
    ("get_tuple_element_c1", get_tuple_element(index=2)),
    ("get_tuple_element_c1", get_tuple_element(index=-1)),
    # after_all (I1) inputs: variadic number of token
    (
        "after_all_i1",
        func(
            "%a: !stablehlo.token, %b: tensor<f32>",
            '%r = "stablehlo.after_all"(%a, %b) : (!stablehlo.token, '
            "tensor<f32>) -> !stablehlo.token",
        ),
    ),
    # composite (C1) is_namespaced_op_name(name)
    ("composite_c1", composite(name="op")),
    ("composite_c1", composite(name="my.")),
    # composite (C4) types(results...) == output_types(decomposition)
    ("composite_c4", composite(result="tensor<f64>")),
    # custom_call: layouts for both operands and results, one per value, permutations
    ("custom_call_layouts", custom_call(f"operand_layouts = [{LAYOUT}]")),
    (
        "custom_call_layouts",
        custom_call(
            f"operand_layouts = [{LAYOUT}], result_layouts = [dense<[1]> : tensor<1xindex>]"
        ),
    ),
    # custom_call: output_operand_aliases name an operand of the same type
    ("custom_call_aliases", custom_call(alias(1))),
    ("custom_call_aliases", custom_call(alias(0), result="tensor<3xf32>")),
    # custom_call: backend_config is a dictionary for API_VERSION_TYPED_FFI, else a string
    ("custom_call_backend_config", custom_call('api_version = 4 : i32, backend_config = "x"')),
    ("custom_call_backend_config", custom_call("backend_config = {n = 1 : i32}")),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
