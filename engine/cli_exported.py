"""``hlorun interpret`` with files in and out, and ``--exported`` containers.

    hlorun interpret --exported FILE [--inputs in.npz | a.npy b.npy ...]
                     [--outputs out.npz] [--platform P]
    hlorun interpret FILE [--inputs ...] [--outputs out.npz] [--platform P]

``--inputs`` / ``--outputs`` follow engine/npz_io.py (``arr_0``, ``arr_1``, ... in
flattened parameter / result order; ml_dtypes arrays as ``arr_i.bf16`` unsigned views).
With ``--exported`` the inputs are the exported function's flattened arguments (all of
them, ``module_kept_var_idx`` is applied here) and the outputs its flattened results.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..parser.errors import HloError, InterpreterError
from .cli_results import make_profile, print_results, report_profile


def add_flags(i: argparse.ArgumentParser) -> None:
    """The file flags of ``interpret``."""
    add_custom_call_flag(i)
    i.add_argument(
        "--exported",
        metavar="FILE",
        default=None,
        help="run a jax.export container (Exported.serialize() bytes)",
    )
    i.add_argument(
        "--inputs",
        nargs="+",
        metavar="FILE",
        default=None,
        help="inputs: one .npz (arr_0, arr_1, ...) or one .npy per input",
    )
    i.add_argument(
        "--outputs",
        metavar="FILE",
        default=None,
        help="write the results to this .npz (arr_0, arr_1, ...) or, for one result, "
        ".npy, instead of printing them",
    )
    i.add_argument(
        "--platform",
        default=None,
        help="the platform (name or index) a multi-platform export runs as "
        "(default: cpu if the export lists it, else its first platform)",
    )
    i.add_argument(
        "--platforms",
        metavar="P,P,...",
        default=None,
        help="the platforms a multi-platform .mlir/.mlirbc was exported for, in order "
        "(jax keeps the list in the Exported container, not in the module), "
        "so that --platform can name one",
    )


def add_custom_call_flag(i: argparse.ArgumentParser) -> None:
    i.add_argument(
        "--custom-call",
        metavar="MODULE:FUNCTION[=TARGET]",
        action="append",
        default=[],
        help="register FUNCTION of MODULE (a module name, or a .py file) as the handler "
        "of custom_call target TARGET (default: FUNCTION's name), as "
        "engine.register_custom_call does; may be repeated",
    )


def register_custom_calls(specs: list[str]) -> None:
    """``--custom-call MODULE:FUNCTION[=TARGET]``: import each handler and register it;
    an ``InterpreterError`` naming the flag when one cannot be loaded."""
    if not specs:
        return
    import importlib
    import importlib.util
    import os

    from .kernels.custom_targets import register_custom_call

    for spec in specs:
        where, _, target = spec.partition("=")
        module_name, colon, function = where.rpartition(":")
        if not colon or not module_name or not function:
            raise InterpreterError(
                f"--custom-call {spec}: expected MODULE:FUNCTION[=TARGET] "
                "(e.g. handlers.py:my_topk=my_topk_target)"
            )
        try:
            if module_name.endswith(".py") or os.sep in module_name:
                loader = importlib.util.spec_from_file_location(
                    f"hlorun_custom_call_{len(sys.modules)}", module_name
                )
                if loader is None or loader.loader is None:
                    raise ImportError(f"cannot load {module_name}")
                module = importlib.util.module_from_spec(loader)
                loader.loader.exec_module(module)
            else:
                if os.getcwd() not in sys.path:
                    sys.path.insert(0, os.getcwd())
                module = importlib.import_module(module_name)
            fn = getattr(module, function)
        except Exception as e:  # the user's module: whatever it raises is reported
            raise InterpreterError(
                f"--custom-call {spec}: cannot load {function} from {module_name} "
                f"({type(e).__name__}: {e})"
            ) from e
        if not callable(fn):
            raise InterpreterError(
                f"--custom-call {spec}: {module_name}.{function} is not callable"
            )
        register_custom_call(target or function, fn, replace=True)


def platform_arg(text: str | None) -> str | int | None:
    """``--platform``: an index when it is digits, else a name."""
    return int(text) if text is not None and text.isdigit() else text


def platforms_arg(text: str | None) -> list[str] | None:
    """``--platforms cpu,cuda,tpu``: the list, or None."""
    if text is None:
        return None
    return [p.strip() for p in text.split(",") if p.strip()]


def load_inputs(args: argparse.Namespace) -> list[Any] | None:
    """The arrays of ``--inputs``, or None when not given."""
    if args.inputs is None:
        return None
    from .npz_io import load_inputs as load

    return load(args.inputs)


def as_declared(inputs: list[Any], avals: Any) -> list[Any]:
    """Unsigned arrays stored without a type suffix where the export declares an
    ml_dtypes type of the same width (the jax fixtures' npz files) viewed as that type."""
    from .npz_io import ML_DTYPE_SUFFIX

    out = []
    for x, a in zip(inputs, avals):
        dt = a.dtype
        if (
            not isinstance(dt, str)
            and dt.name in ML_DTYPE_SUFFIX
            and x.dtype.kind == "u"
            and x.dtype.itemsize == dt.itemsize
        ):
            x = x.view(dt)
        out.append(x)
    return out + list(inputs[len(out) :])


def take_file_from_inputs(args: argparse.Namespace) -> None:
    """``interpret --inputs a.npy prog.mlir``: argparse gives FILE to --inputs; take it
    back when it is not an .npy / .npz.  ``interpret model.exported``: a container by
    its suffix, as with --exported."""
    if args.file is None and args.exported is None and args.inputs:
        if not args.inputs[-1].endswith((".npy", ".npz")):
            args.file = args.inputs.pop()
    if args.exported is None and args.file is not None and args.file.endswith(".exported"):
        args.exported, args.file = args.file, None


def save_outputs(args: argparse.Namespace, results: list[Any]) -> None:
    if args.outputs is not None:
        from .npz_io import save_arrays

        save_arrays(args.outputs, results)


def cmd_interpret_exported(args: argparse.Namespace, program: Any = None) -> int:
    """Run the container's function (``program``, else read from ``--exported``) on
    ``--inputs``; print (and save) its results."""
    from .exported import load_exported

    try:
        if args.file is not None:
            raise InterpreterError("give either FILE or --exported FILE, not both")
        if args.args is not None:
            raise InterpreterError("--args does not apply to --exported: use --inputs")
        if program is None:
            program = load_exported(args.exported)
        inputs = as_declared(load_inputs(args) or [], program.in_avals)
        profile = make_profile(args)
        results = program.call_flat(
            *inputs,
            platform=platform_arg(args.platform),
            float_eq=args.float_eq,
            max_steps=args.max_steps,
            timeout=args.timeout,
            probe_dir=args.probe_output_dir,
            profile=profile,
        )
        show_results(args, results, program.result_types)
        if profile is not None:
            report_profile(args, profile, program.module)
    except HloError as e:  # an error with no place in a program is about the container
        where = f"{args.exported}: " if e.pos is None else ""
        print(where + e.render(), file=sys.stderr)
        return 1
    return 0


def show_results(args: argparse.Namespace, results: list[Any], types: Any) -> None:
    """Save the results to ``--outputs`` and say so on stderr; else print them."""
    if args.outputs is None:
        print_results(results, types, args.interpreter_print_dense, args.print_precision)
        return
    save_outputs(args, results)
