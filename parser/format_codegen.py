"""A format's printer as Python code: what parser/op_format.py's element-by-element
printer does for one format, written out once when the format compiles (as MLIR ODS
generates an op's C++ printer from its assemblyFormat), so that printing an op runs no
loop over elements and no per-element dispatch.  The elements stay the one definition
of each piece's text: the code calls their ``print`` (or, for operands, types and the
attribute dictionary, the printer calls those make), and tests/parser/test_op_format.py
checks it writes what ``render`` writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .format_elements import (
    _GLUE_START,
    GLUE,
    AttrDict,
    AttrValue,
    Operands,
    OptionalGroup,
    PrintState,
    Types,
)

# elements whose text never starts with a character that glues it to the previous one
_NEVER_GLUED = (AttrValue, Operands, Types, AttrDict)


def compile_printer(
    pairs: tuple[tuple[str, Any], ...],
    spells: frozenset[str],
    n_results: int | None,
    regions: bool,
    name: str,
) -> Callable[..., str | None]:
    """``fn(printer, op, depth) -> str | None`` writing what ``render(pairs, ...)`` writes
    after the op's name."""
    from .printer_core import _names  # printing: the printer is loaded

    env: dict[str, Any] = {
        "PrintState": PrintState,
        "GLUE": GLUE,
        "GLUE_START": _GLUE_START,
        "_names": _names,
        "spells": spells,
    }
    lines = ["def print_op(p, op, depth):"]
    if not regions:
        lines.append("    if op.regions: return None")
    if n_results is not None:
        lines.append(f"    if len(op.results) != {n_results}: return None")
    lines.append("    out = [op.name]")
    body: list[str] = []
    _emit(pairs, body, env, 1)
    if any(".print(st)" in line for line in body):  # an element that needs the state
        lines.append("    st = PrintState(p, op, spells, depth)")
    lines.extend(body)
    lines.append("    return ''.join(out)")
    code = compile("\n".join(lines) + "\n", f"<format of {name}>", "exec")
    exec(code, env)
    return env["print_op"]


def _emit(pairs, lines: list[str], env: dict[str, Any], depth: int) -> None:
    ind = "    " * depth
    for sep, e in pairs:
        if isinstance(e, str):
            lines.append(f"{ind}out.append({e!r})")
            continue
        key = f"e{len(env)}"
        env[key] = e
        if isinstance(e, OptionalGroup):
            anchor = e.anchor_element
            if isinstance(anchor, AttrValue):
                lines.append(f"{ind}if op.attr({anchor.decl.name!r}) is not None:")
            elif isinstance(anchor, Types):
                lines.append(f"{ind}if op.operands:")
            else:
                lines.append(f"{ind}if {key}.anchor_element.present(op):")
            _emit(e.inner, lines, env, depth + 1)
            continue
        if isinstance(e, Operands):
            cond = f"n < {e.fixed}" if e.variadic else f"n != {e.fixed}"
            lines.append(f"{ind}n = len(op.operands)")
            lines.append(f"{ind}if {cond}: return None")
            lines.append(f"{ind}if n: out.append({sep!r}); out.append(_names(op.operands))")
            continue
        if isinstance(e, AttrDict):  # the printer's attr_dict: " {...}" or ""
            lines.append(f"{ind}if op.attributes:")
            if sep == " ":
                lines.append(f"{ind}    out.append(p.attr_dict(op, spells))")
            else:
                lines.append(f"{ind}    s = p.attr_dict(op, spells)")
                lines.append(f"{ind}    if s: out.append({sep!r}); out.append(s.lstrip())")
            continue
        if isinstance(e, Types) and e.kind == "functional":
            lines.append(f"{ind}out.append({sep!r}); out.append(p.functional(op))")
            continue
        if isinstance(e, Types) and e.kind == "same":  # custom<SameOperandsAndResultType>
            lines.append(f"{ind}if len(op.results) != 1: return None")
            lines.append(f"{ind}out.append({sep!r}); out.append(p.same_type(op))")
            continue
        if isinstance(e, AttrValue):
            env[f"t{key}"] = e.text
            lines.append(f"{ind}a = op.attr({e.decl.name!r})")
            lines.append(f"{ind}if a is None: return None")
            lines.append(f"{ind}s = t{key}(p, a)")
        else:
            lines.append(f"{ind}s = {key}.print(st)")
        lines.append(f"{ind}if s is None: return None")
        if isinstance(e, _NEVER_GLUED):
            lines.append(f"{ind}if s: out.append({sep!r}); out.append(s)")
        else:
            lines.append(f"{ind}if s:")
            lines.append(
                f"{ind}    if s[0] in GLUE_START: out.append(s[1:] if s[0] == GLUE else s)"
            )
            lines.append(f"{ind}    else: out.append({sep!r}); out.append(s)")
