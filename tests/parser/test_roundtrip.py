"""parse -> print -> parse over StableHLO's own suites.

For every `// -----` chunk of tests/interpret (with chlo/), tests/verifier and tests/vhlo
that the parser accepts (chunks it rejects are the parser's concern, and many verifier
chunks are invalid on purpose): ``parse_module(print_module(m)) == m`` and
``print_module(parse(print_module(m))) == print_module(m)`` (printing is a fixed point).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlorun.parser.errors import HloError
from hlorun.parser.grammar import parse_module, split_input_file
from hlorun.parser.printer import print_module
from tests.conftest import SHARED, shared_dir

SUITES = {
    "interpret": ("tests/interpret", "**/*.mlir"),
    "verifier": ("tests/verifier", "*.mlir"),
    "vhlo": ("tests/vhlo", "*.mlir"),
}


def _files(suite: str) -> list[Path]:
    folder, pattern = SUITES[suite]
    root = SHARED / folder
    return sorted(root.glob(pattern)) if root.exists() else []


def roundtrip_failures(path: Path) -> tuple[int, list[str]]:
    """(number of chunks checked, descriptions of the chunks that do not round-trip)."""
    checked = 0
    bad: list[str] = []
    for chunk, offset in split_input_file(path.read_text()):
        try:
            m = parse_module(chunk, str(path), line_offset=offset)
        except HloError:
            continue
        checked += 1
        where = f"{path.name}:{offset + 1}"
        text = print_module(m)
        try:
            again = parse_module(text, f"<printed {where}>")
        except HloError as e:
            bad.append(f"{where}: printed text does not parse: {e}")
            continue
        if again != m:
            bad.append(f"{where}: parse(print(m)) != m")
        elif print_module(again) != text:
            bad.append(f"{where}: printing is not a fixed point")
    return checked, bad


def _params():
    for suite in SUITES:
        for path in _files(suite):
            yield pytest.param(path, id=f"{suite}/{path.relative_to(SHARED / SUITES[suite][0])}")


@pytest.mark.conformance
@pytest.mark.parametrize("path", list(_params()))
def test_file_roundtrips(path: Path):
    _, bad = roundtrip_failures(path)
    assert bad == []


@pytest.mark.parametrize("suite", list(SUITES))
def test_suite_present(suite: str):
    root = shared_dir(SUITES[suite][0])
    assert any(root.glob(SUITES[suite][1]))


# Hand-written modules with what the suites lack: aliases, resources, locations everywhere,
# hex blobs, special floats, sub-byte and quantized types, every custom form's corner.
HANDWRITTEN = [
    r"""#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
!tt = tensor<2xf32>
module @m attributes {mhlo.num_partitions = 1 : i32, foo.bar = "x\0A"} {
  func.func private @decl(tensor<2xf32>, i32) -> (tensor<2xf32> {a.b = 1 : i64})
  func.func public @f(%arg0: !tt {jax.arg}, %arg1: tensor<4xbf16> loc("x.py":1:2), %q: tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-30,0.5:-20}>>) -> (tensor<2xf32>, tensor<4xbf16>) attributes {sym_visibility = "public"} {
    %c = stablehlo.constant dense<[0x7FC00000, -0.0]> : tensor<2xf32> loc(unknown)
    %h = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
    %b = stablehlo.constant dense<[1.5, 0x7F80, -3.0e+38, 1.0e-40]> : tensor<4xbf16>
    %i4 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
    %cc = stablehlo.constant dense<[(1.0, -2.5), (0.0, 0.1)]> : tensor<2xcomplex<f64>>
    %0 = stablehlo.add %arg0, %c : tensor<2xf32>
    %r = stablehlo.reduce(%arg1 init: %b) applies stablehlo.maximum across dimensions = [0] : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<bf16>
    %r2 = stablehlo.reduce(%arg1 init: %b) across dimensions = [0] {foo = 1 : i32} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<bf16>
     reducer(%x: tensor<bf16>, %y: tensor<bf16>)  {
      %z = stablehlo.add %x, %y : tensor<bf16>
      stablehlo.return %z : tensor<bf16>
    }
    %w:2 = stablehlo.while(%iterArg = %0, %iterArg_0 = %arg1) : tensor<2xf32>, tensor<4xbf16> attributes {x = unit}
     cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %iterArg, %iterArg_0 : tensor<2xf32>, tensor<4xbf16>
    }
    %s = "stablehlo.sort"(%0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%p: tensor<f32>, %q2: tensor<f32>):
      %lt = stablehlo.compare  LT, %p, %q2,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<2xf32>) -> tensor<2xf32> loc(#loc3)
    %cv = stablehlo.convolution(%c, %c) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %g = "stablehlo.gather"(%0, %i4) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> {indices_are_sorted = false} : (tensor<2xf32>, tensor<2xi4>) -> tensor<2xf32>
    %cc2 = stablehlo.custom_call @"weird name"(%0) {api_version = 4 : i32, backend_config = {foo = 42 : i32}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2xf32>) -> tensor<2xf32>
    %e = stablehlo.exponential %0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
    %ob:2 = stablehlo.optimization_barrier %0, %arg1 : tensor<2xf32>, tensor<4xbf16>
    %f8 = stablehlo.convert %0 : (tensor<2xf32>) -> tensor<2xf8E4M3FN>
    %dq = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2xf32>
    func.return %0, %r2 : tensor<2xf32>, tensor<bf16>
  } loc(fused["a", "b"])
} loc(#loc)
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x04000000010000000200000003000000"
    }
  }
#-}
""",
    r"""func.func @g(%a: tensor<i32>, %p: tensor<i1>) -> tensor<i32> {
  "cf.br"(%a)[^bb1] : (tensor<i32>) -> ()
^bb1(%x: tensor<i32>):
  %r:2 = "test.multi"(%x) {s = "héllo", n = 250 : ui8, idx = 3 : index, f = 0x7FC00000 : f32, h = 1.5 : f16, sym = @a::@b, t = tensor<2xf32>, d = dense_resource<blob1> : tensor<4xi32>, arr = [1, "a", [true]], e = #stablehlo<precision HIGH>, l = #stablehlo.result_accuracy_mode<DEFAULT>} : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
  %y = "test.region"(%r#1) ({
  ^bb0:
  }, {
  }) : (tensor<i32>) -> tensor<i32>
  func.return %r#0 : tensor<i32>
}
""",
]


@pytest.mark.parametrize("text", HANDWRITTEN)
def test_handwritten_roundtrip(text: str):
    m = parse_module(text)
    printed = print_module(m)
    again = parse_module(printed)
    assert again == m
    assert print_module(again) == printed
