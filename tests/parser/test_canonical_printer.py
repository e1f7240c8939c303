"""print_module(m, canonical=True): what stablehlo-opt prints (MLIR's canonical text).

Expected texts are MLIR's own output, never hlorun's:
- tests/fixtures/jax/*.mlir were printed by MLIR (jax 0.10.2's ``mlir_module()``, with
  locations): the canonical text of each, parsed, is that file without its locations;
- the inline expectations below were printed by MLIR's AsmPrinter (jaxlib 0.10.2's MLIR
  Python bindings, ``Module.parse(text).operation.get_asm()``, which registers the
  stablehlo, chlo, func, arith, tensor and scf dialects) from the input shown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.ssa_names import rename_module, sanitize

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jax"
JAX_TEXTS = sorted(FIXTURES.glob("*.mlir")) if FIXTURES.is_dir() else []


def _strip_locations(text: str) -> str:
    """MLIR's text without ``--mlir-print-debuginfo``: no ``loc(...)``, no ``#loc`` aliases."""
    out = []
    for line in text.splitlines():
        if line.startswith("#loc"):
            continue
        kept, i = [], 0
        while (j := line.find(" loc(", i)) >= 0:
            kept.append(line[i:j])
            k, depth, in_string = j + 5, 1, False
            while depth:
                ch = line[k]
                if in_string:
                    if ch == "\\":
                        k += 1
                    elif ch == '"':
                        in_string = False
                elif ch == '"':
                    in_string = True
                else:
                    depth += {"(": 1, ")": -1}.get(ch, 0)
                k += 1
            i = k
        kept.append(line[i:])
        out.append("".join(kept))
    return "\n".join(out) + "\n"


@pytest.mark.skipif(not JAX_TEXTS, reason=f"{FIXTURES} has no .mlir files")
@pytest.mark.parametrize("path", JAX_TEXTS, ids=[p.stem for p in JAX_TEXTS])
def test_jax_exports_print_as_mlir_does(path: Path):
    text = path.read_text()
    assert print_module(parse_module(text, str(path)), canonical=True) == _strip_locations(text)


def canonical(text: str) -> str:
    out = print_module(parse_module(text), canonical=True)
    # what hlorun prints, it reads back as the same text
    assert print_module(parse_module(out), canonical=True) == out
    return out


def test_op_given_names_and_their_uniquing():
    # arith.constant (ArithOps.cpp), tensor ops (TensorOps.cpp) name their results
    src = """func.func @f(%t: tensor<2xf32>, %i: index, %s: f32, %d: tensor<?xf32>) -> () {
      %a = arith.constant 0 : index
      %b = arith.constant -1 : i32
      %b2 = arith.constant true
      %b3 = arith.constant 1.0 : f32
      %b4 = arith.constant 7 : i64
      %b5 = arith.constant dense<1> : tensor<2xi32>
      %c = tensor.insert %s into %t[%i] : tensor<2xf32>
      return
    }"""
    assert canonical(src) == "\n".join(
        [
            "module {",
            "  func.func @f(%arg0: tensor<2xf32>, %arg1: index, %arg2: f32, %arg3: tensor<?xf32>) {",
            "    %c0 = arith.constant 0 : index",
            "    %c-1_i32 = arith.constant -1 : i32",
            "    %true = arith.constant true",
            "    %cst = arith.constant 1.000000e+00 : f32",
            "    %c7_i64 = arith.constant 7 : i64",
            "    %cst_0 = arith.constant dense<1> : tensor<2xi32>",
            "    %inserted = tensor.insert %arg2 into %arg0[%arg1] : tensor<2xf32>",
            "    return",
            "  }",
            "}",
            "",
        ]
    )


def test_while_names_regions_and_conflict_counter():
    # constants %c / %cst (StablehloOps.cpp), `iterArg` (WhileOp), the nested regions
    # numbered from the enclosing region's final counters, both regions alike
    src = """func.func @main(%x: tensor<i32>) -> tensor<i32> {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %two = stablehlo.constant dense<2> : tensor<i32>
      %f = stablehlo.constant dense<2.0> : tensor<f32>
      %r:2 = stablehlo.while(%a = %x, %b = %one) : tensor<i32>, tensor<i32>
      cond {
        %k = stablehlo.constant dense<10> : tensor<i32>
        %p = stablehlo.compare LT, %a, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      } do {
        %n = stablehlo.add %a, %two : tensor<i32>
        stablehlo.return %n, %b : tensor<i32>, tensor<i32>
      }
      %s = stablehlo.add %r#0, %r#1 : tensor<i32>
      func.return %s : tensor<i32>
    }"""
    assert canonical(src) == "\n".join(
        [
            "module {",
            "  func.func @main(%arg0: tensor<i32>) -> tensor<i32> {",
            "    %c = stablehlo.constant dense<1> : tensor<i32>",
            "    %c_0 = stablehlo.constant dense<2> : tensor<i32>",
            "    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>",
            "    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c) : tensor<i32>, tensor<i32>",
            "    cond {",
            "      %c_2 = stablehlo.constant dense<10> : tensor<i32>",
            "      %2 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>)"
            " -> tensor<i1>",
            "      stablehlo.return %2 : tensor<i1>",
            "    } do {",
            "      %2 = stablehlo.add %iterArg, %c_0 : tensor<i32>",
            "      stablehlo.return %2, %iterArg_1 : tensor<i32>, tensor<i32>",
            "    }",
            "    %1 = stablehlo.add %0#0, %0#1 : tensor<i32>",
            "    return %1 : tensor<i32>",
            "  }",
            "}",
            "",
        ]
    )


def test_declared_result_names_properties_and_defaults():
    # rng_bit_generator's declared results name its values (mlir-tblgen); inherent
    # attributes print as properties in the generic form; custom_call's api_version and
    # the result_accuracy at their .td defaults are left out; infeed_config
    # (DefaultValuedStrAttr) is always there
    src = """func.func @f(%s: tensor<2xui64>, %x: tensor<f32>, %t: !stablehlo.token,
                          %v: tensor<2xf32>) -> () {
      %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
      %1 = stablehlo.custom_call @foo(%x) {api_version = 1 : i32, has_side_effect = false} : (tensor<f32>) -> tensor<f32>
      %2 = stablehlo.exponential %x {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<f32>
      %3 = "stablehlo.all_gather"(%v) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      %4:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
      return
    }"""  # noqa: E501
    assert canonical(src) == "\n".join(
        [
            "module {",
            "  func.func @f(%arg0: tensor<2xui64>, %arg1: tensor<f32>, %arg2: !stablehlo.token,"
            " %arg3: tensor<2xf32>) {",
            "    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = DEFAULT"
            " : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)",
            "    %0 = stablehlo.custom_call @foo(%arg1) : (tensor<f32>) -> tensor<f32>",
            "    %1 = stablehlo.exponential %arg1 : tensor<f32>",
            '    %2 = "stablehlo.all_gather"(%arg3) <{all_gather_dim = 0 : i64, replica_groups ='
            " dense<0> : tensor<1x1xi64>}> : (tensor<2xf32>) -> tensor<2xf32>",
            '    %3:2 = "stablehlo.infeed"(%arg2) <{infeed_config = ""}> : (!stablehlo.token)'
            " -> (tensor<f32>, !stablehlo.token)",
            "    return",
            "  }",
            "}",
            "",
        ]
    )


def test_composite_with_regions_and_compact_reduce():
    src = """func.func @target(%arg0: tensor<f32>) -> tensor<f32> {
      func.return %arg0 : tensor<f32>
    }
    func.func @f(%arg0: tensor<f32>, %v: tensor<4xf32>) -> tensor<f32> {
      %0 = "stablehlo.composite"(%arg0) ({
        ^bb0(%arg1: tensor<f32>):
          "stablehlo.return"(%arg1) : (tensor<f32>) -> ()
      }) {name = "my.op", decomposition = @target, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
      %1 = "stablehlo.reduce"(%v, %arg0) ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%s) : (tensor<f32>) -> ()
      }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      func.return %1 : tensor<f32>
    }"""
    assert canonical(src) == "\n".join(
        [
            "module {",
            "  func.func @target(%arg0: tensor<f32>) -> tensor<f32> {",
            "    return %arg0 : tensor<f32>",
            "  }",
            "  func.func @f(%arg0: tensor<f32>, %arg1: tensor<4xf32>) -> tensor<f32> {",
            '    %0 = stablehlo.composite "my.op" %arg0 ({',
            "    ^bb0(%arg2: tensor<f32>):",
            "      stablehlo.return %arg2 : tensor<f32>",
            "    }) {decomposition = @target, version = 1 : i32} : (tensor<f32>) -> tensor<f32>",
            "    %1 = stablehlo.reduce(%arg1 init: %arg0) applies stablehlo.add across dimensions ="
            " [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>",
            "    return %1 : tensor<f32>",
            "  }",
            "}",
            "",
        ]
    )


def test_float_digits_follow_apfloat():
    # APFloat::toString truncates before it rounds: f32 0.95 is not 9.500000e-01
    src = """func.func @f() -> () {
      %0 = stablehlo.constant {a = 0.95 : f32, e = 1.1 : f16, g = 0.95 : bf16} dense<0.95> : tensor<f32>
      %1 = stablehlo.constant dense<[0.1, 0.95, 1.1, 0.5]> : tensor<4xf16>
      return
    }"""  # noqa: E501
    assert canonical(src).splitlines()[2:4] == [
        "    %cst = stablehlo.constant {a = 0.949999988 : f32, e = 1.099610e+00 : f16,"
        " g = 9.492180e-01 : bf16} dense<0.949999988> : tensor<f32>",
        "    %cst_0 = stablehlo.constant dense<[9.997550e-02, 9.501950e-01, 1.099610e+00,"
        " 5.000000e-01]> : tensor<4xf16>",
    ]


def test_bounds_and_sorted_dictionaries():
    src = """func.func @g(%x: tensor<?xf32, #stablehlo.bounds<16>>) -> () {
      return
    }
    func.func @f(%x: tensor<?xf32, #stablehlo.type_extensions<bounds = [16]>>) -> () {
      stablehlo.composite "c.d" %x {composite_attributes = {z = 1 : i64, a = "s"},
        decomposition = @g} : (tensor<?xf32, #stablehlo.bounds<16>>) -> ()
      return
    }"""
    assert canonical(src).splitlines()[4:6] == [
        "  func.func @f(%arg0: tensor<?xf32, #stablehlo.bounds<16>>) {",
        '    stablehlo.composite "c.d" %arg0 {composite_attributes = {a = "s", z = 1 : i64},'
        " decomposition = @g} : (tensor<?xf32, #stablehlo.bounds<16>>) -> ()",
    ]


def test_generic_names_number_every_value():
    # --mlir-print-op-generic: no op-given names
    m = parse_module("""func.func @f() -> tensor<i32> {
      %c = stablehlo.constant dense<1> : tensor<i32>
      func.return %c : tensor<i32>
    }""")
    f = rename_module(m, asm_names=False).body[0]
    assert [v.name for op in f.body.blocks[0].operations for v in op.results] == ["%0"]


def test_sanitize():
    # AsmPrinter.cpp sanitizeIdentifier
    assert sanitize("c-1_i32") == "c-1_i32"
    assert sanitize("1x") == "_1x"
    assert sanitize("a b+") == "a_b2B"


def test_default_printer_stays_faithful():
    src = """func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %y = stablehlo.custom_call @foo(%x) {api_version = 1 : i32} : (tensor<f32>) -> tensor<f32>
      func.return %y : tensor<f32>
    }"""
    out = print_module(parse_module(src))
    assert "%y = stablehlo.custom_call @foo(%x) {api_version = 1 : i32}" in out


def test_generic_form():
    # stablehlo-opt --mlir-print-op-generic (get_asm(print_generic_op_form=True))
    src = """func.func private @decl(tensor<f32>) -> tensor<f32>
    func.func @f(%x: tensor<f32> {jax.a = 1 : i64}, %y: tensor<f32>) -> (tensor<f32> {jax.r = "x"})
        attributes {foo} {
      %c = stablehlo.constant dense<1.0> : tensor<f32>
      %0 = stablehlo.add %x, %c : tensor<f32>
      return %0 : tensor<f32>
    }"""
    assert print_module(parse_module(src), generic=True) == "\n".join(
        [
            '"builtin.module"() ({',
            '  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "decl",'
            ' sym_visibility = "private"}> ({',
            "  }) : () -> ()",
            '  "func.func"() <{arg_attrs = [{jax.a = 1 : i64}, {}], function_type = (tensor<f32>,'
            ' tensor<f32>) -> tensor<f32>, res_attrs = [{jax.r = "x"}], sym_name = "f"}> ({',
            "  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):",
            '    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}>'
            " : () -> tensor<f32>",
            '    %1 = "stablehlo.add"(%arg0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32>',
            '    "func.return"(%1) : (tensor<f32>) -> ()',
            "  }) {foo} : () -> ()",
            "}) : () -> ()",
            "",
        ]
    )
