"""``hlorun ops [NAME]``: the op table, one line per op, or one op's whole row: its spec
section, attributes (kind, default), regions, traits, and where its shape function and
kernel live."""

from __future__ import annotations

import argparse
import inspect
import os
from typing import Any


def _where(fn: Any) -> str:
    if fn is None:
        return "-"
    fn = inspect.unwrap(fn)
    try:
        path = inspect.getsourcefile(fn) or "?"
        line = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return getattr(fn, "__qualname__", repr(fn))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rel = os.path.relpath(path, root) if path.startswith(root) else path
    return f"{rel}:{line} ({getattr(fn, '__qualname__', '?')})"


def _rows() -> dict[str, Any]:
    # imported when the command runs (``hlorun --help`` stays cheap); the kernels
    # package adds its families to the table, whose iteration then loads every column
    from ..shape_inference.optable import OP_TABLE
    from . import kernels  # noqa: F401

    return OP_TABLE


def describe(name: str) -> str:
    table = _rows()
    row = table.get(name) or table.get(f"stablehlo.{name}")
    if row is None:
        close = [n for n in table if name in n]
        hint = f"; did you mean {', '.join(sorted(close)[:5])}?" if close else ""
        raise KeyError(f"no op {name!r} in the op table{hint}")
    from ..parser import opdecl  # when the command runs: ``hlorun --help`` stays cheap

    decl = opdecl.OP_DECLS.get(row.name)
    lines = [row.name]
    lines.append(f"  spec:       {decl.section if decl else opdecl.section_of(row.name)}")
    if decl and decl.attrs:
        lines.append("  attributes:")
        for a in decl.attrs:
            default = "required" if a.default is opdecl.REQUIRED else f"default {a.default!r}"
            lines.append(f"    {a.name}: {a.kind}, {default}")
    regions = row.regions or (decl.regions if decl else ())
    if regions:
        lines.append(f"  regions:    {', '.join(regions)}")
    lines.append(f"  traits:     {', '.join(sorted(row.traits)) or '-'}")
    if row.ufunc is not None:
        ufunc = getattr(row.ufunc, "ufunc", row.ufunc)
        lines.append(f"  ufunc:      numpy.{getattr(ufunc, '__name__', ufunc)}")
    lines.append(f"  shape:      {_where(row.shape)}")
    lines.append(f"  kernel:     {_where(row.kernel)}")
    if row.fast_plan is not None:
        lines.append(f"  fast path:  {_where(row.fast_plan)}")
    return "\n".join(lines)


def summary() -> str:
    table = _rows()
    width = max(len(n) for n in table)
    out = []
    for name in sorted(table):
        row = table[name]
        cols = ["shape" if row.shape else "-", "kernel" if row.kernel else "-"]
        out.append(f"{name:<{width}}  {' '.join(cols):<12}  {','.join(sorted(row.traits))}")
    return "\n".join(out)


def cmd_ops(args: argparse.Namespace) -> int:
    if args.name is None:
        print(summary())
        return 0
    try:
        print(describe(args.name))
    except KeyError as e:
        print(f"error: {e.args[0]}")
        return 1
    return 0


def add_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ops",
        help="the op table, or one op's row (spec section, attributes, "
        "traits, where its shape function and kernel live)",
    )
    p.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        default=None,
        help="an op name (stablehlo. may be left off)",
    )
    p.set_defaults(func=cmd_ops)
