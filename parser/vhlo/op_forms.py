"""VHLO's ops with a custom text form, declared as parser/opdecl.py declares the core's:
``vhlo.func_v1`` (VhloOps.td: `custom<FunctionBody>($sym_name, $body, $function_type)
attr-dict`, VhloOps.cpp parseFunctionBody / printFunctionBody), with its directive.
parser/vhlo/dialect.py hands the forms to the core's parser and printer
(``Dialect.custom_forms``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import lexer as lx
from ..attr_syntax import _symbol_name
from ..format_elements import Element, ParseState, PrintState
from ..op_format import DIRECTIVES, OpFormat, compile_format
from ..opdecl import AttrDecl, OpDecl
from .ir import VhloAttr, VhloType

# The attributes VhloOps.td FuncOpV1 declares (its properties), wherever the text
# writes them.
_FUNC_PROPS = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"})


class FunctionBody(Element):
    """`@name(%arg0: t0, ...) -> (r0, ...) {body} {attrs}`: ``sym_name`` is
    ``#vhlo.string_v1<"name">``, ``function_type`` ``#vhlo.type_v1<!vhlo.func_v1<...>>``
    (as MLIR holds them and its generic form spells them), the body's entry block has
    the arguments.  It reads the attribute dictionary that follows too: FuncOpV1's
    declared attributes written there are properties (as the generic form's)."""

    writes_attributes = True
    spells = ("sym_name", "function_type")
    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        if st.defs:
            raise p.error(f"'{st.name}' has no results", st.start)
        sym = c.expect_match(lx.SYMBOL_RE, "the function's @name").group(0)
        fname = _symbol_name(sym, c)
        c.expect("(", "and the function's arguments")
        args, arg_locs = p.typed_arguments("a function argument", "function arguments")
        c.expect("->", "and the result types")
        outs = p._type_list_parens() if c.peek() == "(" else (p.parse_type(),)
        st.regions.append(p.parse_region(args if args else None, arg_locs))
        ftype = VhloType("func_v1", (tuple(v.type for v in args), tuple(outs)))
        st.attrs.append(("sym_name", VhloAttr("string_v1", (fname,))))
        st.attrs.append(("function_type", VhloAttr("type_v1", (ftype,))))
        if c.peek() == "{":
            for k, v in p.parse_attr_dict():
                if k in _FUNC_PROPS:
                    st.attrs.append((k, v))
                else:
                    st.dict_attrs = (*st.dict_attrs, (k, v))
        st.values = ((), ())

    def print(self, st: PrintState) -> str | None:
        from ..printer_core import _keyword_or_string  # printing: the printer is loaded

        p, op = st.p, st.op
        name, ftype = op.attr("sym_name"), op.attr("function_type")
        fn = ftype.params[0] if isinstance(ftype, VhloAttr) and ftype.name == "type_v1" else None
        if not (
            isinstance(name, VhloAttr)
            and name.name == "string_v1"
            and isinstance(fn, VhloType)
            and fn.name == "func_v1"
            and not op.operands
            and len(op.regions) == 1
        ):
            return None
        region = op.regions[0]
        ins, results = fn.params
        args = ""
        if region.blocks:
            entry = region.blocks[0]
            if tuple(a.type for a in entry.arguments) != ins or any(
                "#" in a.name for a in entry.arguments
            ):
                return None
            args = p.block_args(entry)
        elif ins:
            return None
        outs = ", ".join(p.type(t) for t in results)
        body = p.region(region, st.depth, entry_args=False, empty_entry_label=not ins)
        attrs = p.attr_dict(op, self.spells)
        return f"@{_keyword_or_string(name.params[0])}({args}) -> ({outs}) {body}{attrs}"


VHLO_OP_DECLS: Mapping[str, OpDecl] = {
    "vhlo.func_v1": OpDecl(
        "vhlo.func_v1",
        "VhloOps.td#func_v1",
        tuple(AttrDecl(n, "any", None) for n in sorted(_FUNC_PROPS)),
        ("body",),
        (),
        (),
        "custom<FunctionBody>",
    )
}

_FORMATS: dict[str, OpFormat] = {
    name: compile_format(decl, {**DIRECTIVES, "FunctionBody": FunctionBody})
    for name, decl in VHLO_OP_DECLS.items()
}


def custom_forms(table: str) -> Mapping[str, Callable]:
    """The forms' parsers (``FORMS``) or printers (``PRINT_FORMS``) by op name."""
    if table == "FORMS":
        return {name: f.parse for name, f in _FORMATS.items()}
    return {name: f.printer() for name, f in _FORMATS.items()}
