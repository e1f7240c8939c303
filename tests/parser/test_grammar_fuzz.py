"""Mutated MLIR text gives a Module or a ParseError: never another exception, never a hang."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module

SEEDS = [
    """module @m attributes {x = 1 : i32} {
  func.func public @main(%arg0: tensor<2x?xf32, #stablehlo.bounds<?, 4>> {jax.arg_info = "a"} loc("x")) -> (tensor<2xf32>) {
    %0 = stablehlo.constant dense<[[1.0, 2.0], [0x7FC00000, -3.5e2]]> : tensor<2x2xf32>
    %1 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %2:2 = "stablehlo.sort"(%1, %1) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
      %p = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %3 = stablehlo.slice %0 [0:2, 1:2:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %4 = stablehlo.reduce(%1 init: %1) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    func.return %2#1 : tensor<2xf32>
  } loc(#loc1)
}
#loc1 = loc("f.py":3:4)
""",
    """!q = !quant.uniform<i8<-127:127>:f32:1, {0.1:-30, 0.5:-20}>
func.func @f(%x: tensor<i64>, %t: tuple<tensor<i1>, !stablehlo.token>) {
  %r0, %r1 = stablehlo.while(%i = %x, %s = %x) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %s : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %i, %s : tensor<i64>, tensor<i64>
  }
  %g = "stablehlo.gather"(%x, %x) {dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 2>, s = "a\\"b\\41"} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %y = stablehlo.convolution(%x, %x) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]]} {feature_group_count = 1 : i64} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  check.expect_eq_const %x, dense<3> : tensor<i64>
  func.return
}
{-#
  dialect_resources: { builtin: { b: "0x04000000" } }
#-}
""",
]

_CHARS = st.sampled_from(
    list('{}()[]<>%@#!^":,=-x?0123456789 \n.aifxz') + ["->", "//", "0x", "tensor<", "dense<"]
)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        kind = draw(st.integers(0, 3))
        if kind == 0:  # delete a span
            j = draw(st.integers(i, min(n, i + 20)))
            text = text[:i] + text[j:]
        elif kind == 1:  # insert tokens
            ins = "".join(draw(st.lists(_CHARS, min_size=1, max_size=4)))
            text = text[:i] + ins + text[i:]
        elif kind == 2:  # duplicate a span
            j = draw(st.integers(i, min(n, i + 40)))
            text = text[:j] + text[i:j] + text[j:]
        else:  # truncate
            text = text[:i]
    return text


def test_seeds_parse():
    assert SEEDS
    for s in SEEDS:
        m = parse_module(s)
        assert m.body, s  # each seed holds at least one function or op


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutations_give_module_or_parse_error(text):
    try:
        parse_module(text, "fuzz.mlir")
    except ParseError as e:
        assert str(e).startswith("fuzz.mlir:")
