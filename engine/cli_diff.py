"""``hlorun diff PROGRAM [B] [--inputs FILE...] --against xla|iree|VALUES.npz ...``: find
the first op where another engine (or another version of the program) departs from
the spec's value (``engine.diff``).

Exit status as diff(1): 0 when no op result is over tolerance, 1 when one is, 2 on
an error.  ``--emit-instrumented OUT`` writes the instrumented copy (``.mlir`` text,
``.mlirbc`` portable artifact, ``.exported`` jax Exported container), so it can run on
a TPU or GPU; ``--record OUT.npz`` writes the other engine's per-op values as
``--against VALUES.npz`` reads them."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor

from ..parser.errors import HloError


def _load(path: str):
    from .loading import prepare

    if path.endswith(".exported"):
        from .exported import load_exported

        return load_exported(path).module
    return prepare(path)


def emit(module, path: str, version: str = "WEEK_12") -> None:
    """Write ``module`` to ``path``: text, portable artifact or Exported, by extension;
    ``version``: a StableHLO version, or a compatibility requirement (``WEEK_4``,
    ``WEEK_12``, ``MAX``: what StableHLO's own serializer offers; jax writes
    ``WEEK_12``'s, readable by a jaxlib of three months ago)."""
    from ..parser import print_module
    from ..parser.vhlo.version import get_version_from_compatibility_requirement

    if version.upper() in ("NONE", "WEEK_4", "WEEK_12", "MAX"):
        version = str(get_version_from_compatibility_requirement(version))

    if path.endswith(".mlirbc"):
        from ..parser.vhlo.artifact import serialize_portable_artifact

        data: bytes = serialize_portable_artifact(module, version)
    elif path.endswith(".exported"):
        from .diff_engines import exported_bytes

        data = exported_bytes(module, version)
    else:
        data = print_module(module).encode()
    with open(path, "wb") as f:
        f.write(data)


def cmd_diff(args: argparse.Namespace) -> int:
    try:
        return _cmd_diff(args)
    except HloError as e:
        print(e.render(), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


def _cmd_diff(args: argparse.Namespace) -> int:
    from .cli_exported import load_inputs
    from .diff_engines import NpzValues, engine_for

    against = args.other if args.other is not None else args.against
    engine = None
    if args.other is None and against in ("xla", "iree") and not args.iterations:
        engine = engine_for(against)
        if hasattr(engine, "start"):  # its process starts while hlorun reads the program
            engine.start()
    try:
        with ThreadPoolExecutor(1) as pool:  # the inputs read while the program is parsed
            pending = pool.submit(load_inputs, args)
            module = _load(args.program)
            inputs = pending.result() or []
        if args.emit_instrumented is not None:
            from .diff_instrument import instrument

            emit(instrument(module, args.entry).module, args.emit_instrumented, args.target)
            if against is None:
                return 0
        if against is None:
            print("error: give --against xla|iree|VALUES.npz, or a second program", file=sys.stderr)
            return 2
        if engine is None and args.other is not None:
            engine = engine_for(_load(args.other))
            engine.name = args.other
        elif engine is None and against.endswith(".npz"):
            engine = NpzValues(against, args.unoptimized)
        elif engine is None:
            engine = engine_for(against)
        if args.record is not None:
            engine = _Recording(engine, args.record)
        return _report(args, module, inputs, engine)
    finally:
        if engine is not None and hasattr(engine, "close"):
            engine.close()


def _report(args: argparse.Namespace, module, inputs, engine) -> int:
    from .diff import diff

    report = diff(
        module,
        inputs,
        engine,
        function=args.entry,
        rtol=args.rtol,
        atol=args.atol,
        ulp=args.ulp,
        iterations=args.iterations,
        first=args.first,
    )
    print(report.table(limit=args.rows))
    if args.json is not None:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(report.dumps() + "\n")
    if args.html is not None:
        with open(args.html, "w", encoding="utf-8") as f:
            f.write(report.html(f"hlorun diff {args.program} against {report.against}"))
    return 1 if report.diverged else 0


class _Recording:
    """An engine whose first values (optimizations on) are also saved (``--record``)."""

    def __init__(self, engine, path: str) -> None:
        self.engine, self.path = engine, path
        self.name = engine.name
        self.optimization_switch = getattr(engine, "optimization_switch", None)
        self.renamed = getattr(engine, "renamed", {})
        self.start = getattr(engine, "start", lambda: None)
        self.close = getattr(engine, "close", lambda: None)
        self.prepare = getattr(engine, "prepare", lambda ins: None)

    def values(self, ins, inputs, optimize: bool = True):
        from .diff_engines import save_values

        values = self.engine.values(ins, inputs, optimize)
        self.renamed = getattr(self.engine, "renamed", {})
        if optimize:
            save_values(self.path, ins, values)
        return values


def add_command(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser(
        "diff",
        help="find the first op where XLA, IREE or recorded values depart from the spec",
    )
    d.add_argument("program", help="the program (.mlir, .mlirbc or .exported)")
    d.add_argument(
        "other",
        nargs="?",
        default=None,
        help="another version of the program: ops matched by location and op name",
    )
    d.add_argument(
        "--inputs",
        nargs="+",
        metavar="FILE",
        default=None,
        help="inputs: one .npz (arr_0, arr_1, ...) or one .npy per input",
    )
    d.add_argument(
        "--against",
        default=None,
        metavar="xla|iree|VALUES.npz",
        help="the engine to compare with, or per-op values recorded elsewhere",
    )
    d.add_argument(
        "--unoptimized",
        metavar="VALUES.npz",
        default=None,
        help="with --against VALUES.npz: the same engine's values with its optimization off",
    )
    d.add_argument("--rtol", type=float, default=None, help="relative tolerance (all types)")
    d.add_argument("--atol", type=float, default=None, help="absolute tolerance (all types)")
    d.add_argument("--ulp", type=int, default=None, help="tolerance in units in the last place")
    d.add_argument(
        "--iterations", action="store_true", help="compare the ops of loops per iteration"
    )
    d.add_argument("--first", action="store_true", help="stop at the first divergence")
    d.add_argument("--json", metavar="OUT", default=None, help="write the report as JSON")
    d.add_argument("--html", metavar="OUT", default=None, help="write the report as a page")
    d.add_argument(
        "--emit-instrumented",
        metavar="OUT",
        default=None,
        help="write the instrumented program (.mlir, .mlirbc or .exported by extension)",
    )
    d.add_argument(
        "--target",
        default="WEEK_12",
        help="StableHLO version of an emitted .mlirbc / .exported, or WEEK_4, WEEK_12, "
        "MAX (default WEEK_12: readable by the StableHLO of 12 weeks ago)",
    )
    d.add_argument(
        "--record", metavar="OUT", default=None, help="save the other engine's per-op values"
    )
    d.add_argument("--entry", default=None, help="entry function (default: main, or the only one)")
    d.add_argument("--rows", type=int, default=40, help="rows of the table at most (default 40)")
    d.set_defaults(func=cmd_diff)
