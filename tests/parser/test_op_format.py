"""parser/op_format.py: the declarative text forms (one format string per op in
parser/opdecl.py, read by one generic parser and one generic printer).

Expected texts are upstream's syntax (StablehloOps.td / ChloOps.td assembly formats,
stablehlo-opt's output as tests/verifier/print_stablehlo.mlir records it, which
test_printer.py checks with FileCheck), never this printer's own output; that the
printed text of every shared program and fixture is unchanged by the move to formats is
tools/compare_printer.py's check.
"""

from __future__ import annotations

import dataclasses

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.errors import ParseError
from hlorun.parser.mixed_ops import MIXED_OP_DECLS
from hlorun.parser.op_format import FORMATS, PARSE_FORMS, compile_format, print_forms
from hlorun.parser.op_syntax import _FAST_OP_NAMES
from hlorun.parser.opdecl import OP_DECLS, SAME_TYPE_FORMAT
from hlorun.parser.printer import _Printer

DECLARED = sorted(n for n, d in OP_DECLS.items() if d.format is not None)


@pytest.mark.parametrize("name", DECLARED)
def test_every_declared_format_compiles_and_spells_declared_attributes(name):
    decl = OP_DECLS[name]
    f = compile_format(decl)
    assert f.spells <= {a.name for a in decl.attrs} | {
        "operandSegmentSizes",
        "resultSegmentSizes",
    }
    assert name in PARSE_FORMS
    assert (name in print_forms()) == decl.prints_format


@pytest.mark.parametrize(
    "fmt, message",
    [
        ("operands $nope attr-dict", "undeclared attribute"),
        ("operands (`,` `k` `=` $k attr-dict", "unclosed"),
        ("operands `,` $k )? attr-dict", "unbalanced"),
        ("operands (`,` $k)? attr-dict", "anchor"),
        ("operands ($k^)? attr-dict", "starts with a literal"),
        ("custom<NoSuchDirective>", "unknown directive"),
        ("operands attr-dict @@", "cannot read"),
        ("operands `:` type(functional)", "needs attr-dict"),
    ],
)
def test_a_malformed_format_is_refused_naming_the_problem(fmt, message):
    decl = dataclasses.replace(OP_DECLS["chlo.top_k"], format=fmt)
    with pytest.raises(ValueError, match=message):
        compile_format(decl)


def test_the_one_line_fast_path_covers_exactly_the_same_type_form():
    """op_syntax's `%r = stablehlo.op %a, %b : tensor<...>` fast path reads the ops
    declared with SAME_TYPE_FORMAT (what the format's parser would give), no others."""
    same = {n for n, d in OP_DECLS.items() if d.format == SAME_TYPE_FORMAT and d.operands}
    assert _FAST_OP_NAMES == same
    assert {"stablehlo.add", "stablehlo.clamp", "stablehlo.tanh"} <= _FAST_OP_NAMES
    assert "stablehlo.compare" not in _FAST_OP_NAMES


_SAME_TYPE_CASES = [
    "%r = stablehlo.add %a, %b : tensor<4xf32>",
    "%r = stablehlo.add %a, %b {x = 1 : i32} : tensor<4xf32>",
    "%r = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>",
    "%r = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>",
    "%r = stablehlo.clamp %a, %b, %a : tensor<4xf32>",
]


@pytest.mark.parametrize("line", _SAME_TYPE_CASES)
def test_the_same_type_form_prints_upstreams_text(line):
    """custom<SameOperandsAndResultType>: one type when all agree, else the functional
    type (print_stablehlo.mlir's `stablehlo.add %arg0, %arg1 : (...) -> ...`); the
    compiled printer and the element-by-element one agree."""
    text = f"func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) {{\n  {line}\n  return\n}}\n"
    op = parse_module(text).body[0].body.blocks[0].operations[0]
    f = compile_format(OP_DECLS[op.name])
    p = _Printer()
    assert f.printer()(p, op, 1) == f.print(p, op, 1)
    assert f.print(p, op, 1) == line.split(" = ", 1)[1]


def test_an_op_that_does_not_fit_its_form_is_written_generic():
    """Wrong operand count for add: the form cannot hold it, the generic one can."""
    text = (
        "func.func @f(%a: tensor<4xf32>) {\n"
        '  %r = "stablehlo.add"(%a, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)'
        " -> tensor<4xf32>\n  return\n}\n"
    )
    m = parse_module(text)
    out = print_module(m)
    assert '"stablehlo.add"(%a, %a, %a)' in out
    assert parse_module(out) == m


def test_read_only_forms_parse_but_print_generic():
    """chlo.top_k's `(%x, k = 2)` form (ChloOps.td) is read; hlorun writes the generic
    form for it (OpDecl.prints_format)."""
    text = (
        "func.func @f(%x: tensor<4xf32>) {\n"
        "  %v, %i = chlo.top_k(%x, k = 2) : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)\n"
        "  return\n}\n"
    )
    m = parse_module(text)
    op = m.body[0].body.blocks[0].operations[0]
    assert dict(op.attributes)["k"].value == 2
    out = print_module(m)
    assert '"chlo.top_k"(%x)' in out
    assert parse_module(out) == m


def test_an_optional_group_is_read_only_when_its_leading_literals_match():
    """dot_general's `(, precision = [...])? (, algorithm = ...)?`: either, both, none."""
    head = "func.func @f(%a: tensor<2x2xf32>) {\n  %r = stablehlo.dot_general %a, %a, "
    tail = " : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n  return\n}\n"
    for middle, present in [
        ("contracting_dims = [1] x [0]", set()),
        ("contracting_dims = [1] x [0], precision = [DEFAULT, HIGH]", {"precision_config"}),
    ]:
        op = parse_module(head + middle + tail).body[0].body.blocks[0].operations[0]
        assert {k for k, _ in op.attributes} == {"dot_dimension_numbers"} | present
    with pytest.raises(ParseError):
        parse_module(head + "contracting_dims = [1] x [0], precision = DEFAULT" + tail)


def _ops(ops):
    for op in ops:
        yield op
        for r in op.regions:
            for b in r.blocks:
                yield from _ops(b.operations)


def test_the_compiled_printers_write_what_the_elements_write():
    """format_codegen's printer of each format writes,
    for every op of the jax fixtures with a declared form, what the element-by-element
    ``OpFormat.print`` writes."""
    from pathlib import Path

    from hlorun.parser.printer import CanonicalPrinter

    formats = {n: compile_format(d) for n, d in OP_DECLS.items() if d.format and d.prints_format}
    fixtures = sorted((Path(__file__).parents[1] / "fixtures" / "jax").glob("*.mlir"))
    assert fixtures
    seen: set[str] = set()
    for printer in (_Printer(), CanonicalPrinter()):
        for path in fixtures:
            for fn in parse_module(path.read_text(), str(path)).body:
                body = getattr(fn, "body", None)
                for block in body.blocks if body is not None else ():
                    for op in _ops(block.operations):
                        f = formats.get(op.name)
                        if f is None:
                            continue
                        want = f.print(printer, op, 1)
                        assert f.printer()(printer, op, 1) == want, op.name
                        seen.add(op.name)
    assert len(seen) > 30


@pytest.mark.parametrize("name", sorted(MIXED_OP_DECLS))
def test_other_dialects_declared_ops_have_their_forms(name):
    decl = MIXED_OP_DECLS[name]
    assert name not in OP_DECLS  # parsed and printed only: not in the op table
    assert compile_format(decl).spells <= {a.name for a in decl.attrs}
    assert name in PARSE_FORMS and name in print_forms()


def test_the_core_s_custom_forms_are_declared_formats():
    """Every custom form the core parses and prints is a declaration's format: no
    hand-written parser or printer (a plug-in dialect's join through its registry)."""
    from hlorun.parser.dialects import PLUGINS
    from hlorun.parser.grammar import CUSTOM_FORMS
    from hlorun.parser.op_format import ALIASES
    from hlorun.parser.printer import _PRETTY

    core = {n for n in CUSTOM_FORMS if n.partition(".")[0] not in PLUGINS}
    assert core == set(FORMATS) | set(ALIASES)
    for name in FORMATS:
        assert CUSTOM_FORMS[name] == FORMATS[name].parse
    printed = {n for n in _PRETTY if n.partition(".")[0] not in PLUGINS}
    assert printed == set(print_forms())


def test_a_directive_s_options_are_checked():
    decl = dataclasses.replace(OP_DECLS["chlo.constant"], format="custom<Constant(sideways)>")
    with pytest.raises(ValueError, match="unknown options"):
        compile_format(decl)


def test_named_operand_groups():
    """``$name`` of an operand: the groups before the variadic one from the front, those
    after it from the back (tensor.insert's `$scalar into $dest[$indices]`)."""
    from hlorun.parser.format_elements import OperandGroup
    from hlorun.parser.ir import Operation, Value

    vals = tuple(Value(f"%v{i}", None) for i in range(5))  # type: ignore[arg-type]
    op = Operation("x.y", vals)
    groups = [OperandGroup(n, i, 4, 2, 3) for i, n in enumerate("a b c d".split())]
    assert [g.print(_state(op)) for g in groups] == ["%v0", "%v1", "%v2, %v3", "%v4"]
    assert groups[2].values(Operation("x.y", vals[:3])) == ()
    assert groups[0].values(Operation("x.y", vals[:2])) is None
    at_least_one = OperandGroup("c", 2, 4, 2, 4)  # `c+`
    assert at_least_one.values(Operation("x.y", vals[:3])) is None
    assert at_least_one.values(Operation("x.y", vals[:4])) == vals[2:3]


def _state(op):
    from hlorun.parser.format_elements import PrintState

    return PrintState(_Printer(), op, frozenset(), 0)


def test_vhlo_forms_come_from_declarations_through_the_registry():
    """VHLO's custom forms are its declarations' formats (parser/vhlo/op_forms.py),
    which the core's parser and printer reach through the dialect registry."""
    from hlorun.parser.grammar import CUSTOM_FORMS
    from hlorun.parser.printer import _PRETTY
    from hlorun.parser.vhlo.op_forms import VHLO_OP_DECLS, custom_forms

    for name in VHLO_OP_DECLS:
        assert CUSTOM_FORMS[name] == custom_forms("FORMS")[name]
        assert name in _PRETTY and name in custom_forms("PRINT_FORMS")
