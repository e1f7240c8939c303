"""The ``hlorun`` command line: ``format``, ``verify``, ``interpret`` here; the other
sub-commands in the modules ``_COMMANDS`` names (cli_artifacts, cli_ops, cli_fold,
cli_test).  ``hlorun --help`` and the README's synopsis (generated from these argparse
definitions by tools/gen_cli_synopsis.py) list every flag.

Every sub-command reads its FILE with engine/program_source.py (MLIR text, bytecode, a
portable artifact, a jax.export container, ``-``).  Flags follow ``stablehlo-translate``
/ ``stablehlo-opt`` where they exist.  Every diagnostic is printed as
``file:line:col: error: ...`` and makes the exit status 1; Ctrl-C exits 130 naming the
op that was running; hlorun never shows a Python traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable

from ..parser import parse_module
from ..parser.errors import HloError, ParseError
from ..parser.source import split_input
from .cli_results import make_profile, print_results, report_profile


def report(err: HloError, lines: list[str], out=None, name: str | None = None) -> None:
    """Print ``file:line:col: error: ...`` plus, for parse errors, the line and a caret;
    an error with no known place is about the file ``name`` (when given)."""
    if name is not None and (err.pos is None or err.pos.filename == "<unknown>"):
        err.pos = None
        print(f"{name}: {err.render()}", file=out or sys.stderr)
        return
    src = None
    if err.pos is not None and 0 < err.pos.line <= len(lines):
        src = lines[err.pos.line - 1]
    if err.source_line is None and src is not None and isinstance(err, ParseError):
        err.source_line = src
    print(err.render(with_source=isinstance(err, ParseError)), file=out or sys.stderr)


def read_program(path: str):
    """The one input reader (engine/program_source.py), loaded when a command runs."""
    from .program_source import read_program as read

    return read(path)


def cmd_format(args: argparse.Namespace) -> int:
    from .cli_artifacts import format_bytecode, format_text

    src = read_program(args.file)
    if src.data is not None:
        sys.stdout.write(
            format_bytecode(src.data, src.name, generic=args.generic, strip=args.strip_debuginfo)
        )
        return 0
    assert src.text is not None
    return print_chunks(
        src.text,
        args.split_input_file,
        lambda chunk: format_text(
            chunk, src.name, generic=args.generic, strip=args.strip_debuginfo
        ),
        src.lines,
    )


def print_chunks(text: str, split: bool, render: Callable[[str], str], lines: list[str]) -> int:
    """Each chunk of ``text`` (split at ``// -----`` when ``split``) through ``render``,
    printed joined by ``// -----`` as stablehlo-opt does; a chunk's error is reported
    and the others still print.  1 when a chunk failed."""
    failed = 0
    outputs = []
    for chunk in split_input(text, split):
        try:
            outputs.append(render(chunk.text))
        except HloError as e:
            report(e, lines)
            failed += 1
    sys.stdout.write("\n// -----\n\n".join(o.rstrip("\n") + "\n" for o in outputs))
    return 1 if failed else 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Print every error of every chunk (the verifier carries on after an error)."""
    from .. import shape_inference  # noqa: F401  (fills the op table)
    from ..shape_inference.verifier import collect_errors

    src = read_program(args.file)
    failed = 0
    for chunk in src.chunks(args.split_input_file):
        try:
            found: list[HloError] = list(collect_errors(src.module(chunk)))
        except HloError as e:
            found = e.diagnostics()
        if args.verify_diagnostics and chunk is not None:
            failed += _verify_diagnostics(chunk.text, found, src.name)
            continue
        for err in found:
            report(err, src.lines)
        failed += len(found)
    return 1 if failed else 0


def _verify_diagnostics(text: str, found: list[HloError], name: str) -> int:
    """``verify --verify-diagnostics``: the errors against the chunk's ``expected-*``
    annotations, as mlir-opt checks them (parser/verify_diagnostics.py); the number of
    problems, each printed."""
    from ..parser.verify_diagnostics import Diagnostic, check, expected_diagnostics

    got = [
        Diagnostic(
            e.pos.line if e.pos is not None and e.pos.line else None,
            f"'{e.op}' op {e.message}" if e.op else e.message,
        )
        for e in found
    ]
    problems = check(expected_diagnostics(text), got, name)
    for p in problems:
        print(p, file=sys.stderr)
    return len(problems)


def _parse_args_attr(spec: str) -> list:
    """``--args="[dense<1> : tensor<2xi32>, ...]"`` -> arrays."""
    from ..parser.ir import ArrayAttr, DenseElementsAttr

    spec = spec.strip()
    if not (spec.startswith("[") and spec.endswith("]")):
        raise ParseError(
            "expected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]"
        )
    module = parse_module(f"module attributes {{hlorun.args = {spec}}} {{}}", "--args")
    attr = module.attr("hlorun.args")
    if not isinstance(attr, ArrayAttr):
        raise ParseError("expected array attribute string for args")
    values = []
    for a in attr.elements:
        if not isinstance(a, DenseElementsAttr):
            raise ParseError(
                "expected dense elements attribute for args elements, "
                "i.e. --args=[dense<1> : tensor<2xi32>, ...]"
            )
        values.append(a.array)
    return values


def entry_points(module, name: str | None = None) -> list:
    """The functions ``hlorun interpret`` runs: ``--entry``, else ``main``, else the only
    function, else (a test file whose chunk lacks a separator) every public function
    that takes no arguments, in text order."""
    from .loading import entry_function

    funcs = module.functions
    if name is not None or "main" in funcs or len(funcs) == 1:
        return [entry_function(module, name)]
    runnable = [f for f in funcs.values() if f.visibility != "private" and not f.type.inputs]
    return runnable or [entry_function(module, name)]


def cmd_interpret(args: argparse.Namespace) -> int:
    from .api import run
    from .cli_exported import (
        cmd_interpret_exported,
        load_inputs,
        platform_arg,
        platforms_arg,
        register_custom_calls,
        save_outputs,
        take_file_from_inputs,
    )
    from .loading import resolve_bundle

    take_file_from_inputs(args)
    register_custom_calls(args.custom_call)
    if args.grid == "mpi":  # imports mpi4py (initializes MPI) only when asked
        from .grid_mpi import quiet_unless_root

        quiet_unless_root()
    if args.exported is not None:
        return cmd_interpret_exported(args)
    if args.file is None:
        print("error: give a FILE to run, or --exported FILE", file=sys.stderr)
        return 1
    src = read_program(args.file)
    if src.exported is not None:  # a container whatever its name: run as --exported
        args.exported, args.file = args.file, None
        return cmd_interpret_exported(args, src.exported)
    lines = src.lines
    inputs = load_inputs(args) or []
    if args.args is not None:
        try:
            inputs = _parse_args_attr(args.args)
        except HloError as e:
            print(f"error: {e.message}", file=sys.stderr)
            return 1
    failed = 0
    ran = 0
    profile = make_profile(args)
    module = None
    for chunk in src.chunks(args.split_input_file):
        try:
            entry, call_inputs = args.entry, inputs
            if src.kind == "saved_model":  # --entry: the saved callable; inputs: the user's
                module, call_inputs, entry = resolve_bundle(args.file, inputs, args.entry)
            else:
                module = src.module(chunk)
            if not module.functions:
                continue
            for fn in entry_points(module, entry):
                ran += 1
                results = run(
                    module,
                    call_inputs,
                    function=fn.name,
                    float_eq=args.float_eq,
                    probe_dir=args.probe_output_dir,
                    max_steps=args.max_steps,
                    timeout=args.timeout,
                    profile=profile,
                    platform=platform_arg(args.platform),
                    platforms=platforms_arg(args.platforms),
                    grid=args.grid,
                )
                if args.grid == "mpi":
                    from .grid_mpi import gather_for_printing

                    results = gather_for_printing(results)
                types = fn.type.results
                if args.outputs is not None:  # saved, not printed (they may be large)
                    save_outputs(args, results)
                    continue
                show = (args.interpreter_print_dense, args.print_precision)
                if results and all(isinstance(r, list) for r in results) and types:
                    for per_process in results:  # a process grid: one list per process
                        print_results(per_process, types, *show)
                else:
                    print_results(results, types, *show)
        except HloError as e:
            report(e, lines, name=src.name)
            failed += 1
        sys.stdout.flush()
    if not ran and not failed:
        print(f"{args.file}:1:1: error: no function to run (the input is empty)", file=sys.stderr)
        return 1
    if profile is not None:
        report_profile(args, profile, module)
    return 1 if failed else 0


def _common(sp: argparse.ArgumentParser, nargs: str | None = None) -> None:
    sp.add_argument(
        "file", nargs=nargs, metavar="FILE", help="an .mlir file, or - for standard input"
    )
    sp.add_argument(
        "--split-input-file",
        "-split-input-file",
        action="store_true",
        help="treat each chunk between lines '// -----' as its own program",
    )


def _add_format(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser("format", help="parse a program and print it back (like stablehlo-opt)")
    _common(f)
    f.add_argument(
        "--generic",
        "--mlir-print-op-generic",
        action="store_true",
        help="print every op in MLIR's generic form",
    )
    f.add_argument("--strip-debuginfo", action="store_true", help="drop locations")
    f.set_defaults(func=cmd_format)


def _add_verify(sub: argparse._SubParsersAction) -> None:
    v = sub.add_parser("verify", help="verify a program; print every error")
    _common(v)
    v.add_argument(
        "--verify-diagnostics",
        "-verify-diagnostics",
        action="store_true",
        help="check the errors against the file's expected-error/-warning/-note/-remark "
        "annotations (MLIR's syntax: -re, @+N, @-N, @above, @below, @unknown)",
    )
    v.set_defaults(func=cmd_verify)


def _add_interpret(sub: argparse._SubParsersAction) -> None:
    from .cli_exported import add_flags as add_exported_flags

    i = sub.add_parser("interpret", help="run a program (like stablehlo-translate --interpret)")
    _common(i, nargs="?")
    add_exported_flags(i)
    i.add_argument(
        "--args",
        metavar='"[dense<..> : tensor<..>, ...]"',
        help='inputs as "[dense<...> : tensor<...>, ...]"',
    )
    i.add_argument(
        "--interpreter-print-dense",
        action="store_true",
        help="print results as dense<...> : tensor<...>",
    )
    i.add_argument(
        "--probe-output-dir", metavar="DIR", default=None, help="where interpreter.probe writes"
    )
    i.add_argument(
        "--float-eq",
        choices=("bitwise", "ieee"),
        default="bitwise",
        help="float equality of check.expect_eq: bitwise (spec) or ieee",
    )
    i.add_argument(
        "--entry",
        metavar="NAME",
        default=None,
        help="entry function (default: main, or the only one); for a folder PyTorch/XLA "
        "saved a model to, the saved callable (default: forward)",
    )
    i.add_argument(
        "--max-steps", metavar="N", type=int, default=None, help="stop after this many ops"
    )
    i.add_argument(
        "--timeout", metavar="S", type=float, default=None, help="stop after this many seconds"
    )
    i.add_argument(
        "--grid",
        choices=("threads", "mpi"),
        default="threads",
        help="run process grids on threads, or on the ranks of an MPI job (mpiexec -n N)",
    )
    i.add_argument(
        "--profile",
        action="store_true",
        help="print time and bytes per op kind to stderr at the end",
    )
    i.add_argument(
        "--profile-trace",
        metavar="FILE",
        default=None,
        help="write each op's wall time as Chrome trace events (open in Perfetto)",
    )
    i.add_argument(
        "--profile-top",
        metavar="N",
        type=int,
        default=None,
        help="print the N ops with the most self time to stderr at the end",
    )
    i.add_argument(
        "--print-precision",
        choices=("default", "full"),
        default="default",
        help="floats as %%e (default) or the shortest decimal that reads back bit for bit",
    )
    i.set_defaults(func=cmd_interpret)


# Every sub-command, in --help order: command -> the function adding its parser, here or
# (module, function) in the module defining the command.  build_parser adds only the
# command about to run, importing only its module (startup, issue 19); every one for
# ``hlorun --help`` and anything that is not a command name.
_COMMANDS: dict[str, Callable[[argparse._SubParsersAction], None] | tuple[str, str]] = {
    "format": _add_format,
    "verify": _add_verify,
    "interpret": _add_interpret,
    "deserialize": ("cli_artifacts", "add_commands"),
    "serialize": ("cli_artifacts", "add_commands"),
    "ops": ("cli_ops", "add_command"),
    "fold": ("cli_fold", "add_command"),
    "test": ("cli_test", "add_command"),
    "diff": ("cli_diff", "add_command"),
    "vhlo": ("cli_artifacts", "add_commands"),
    "compat": ("cli_artifacts", "add_commands"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``hlorun`` parser: every sub-command, or only ``command`` (the one about to
    run) when it names one."""
    from .. import __version__

    p = argparse.ArgumentParser(prog="hlorun", description="A fast StableHLO interpreter.")
    p.add_argument("--version", action="version", version=f"hlorun {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    adders = [_COMMANDS[command]] if command in _COMMANDS else list(_COMMANDS.values())
    done: list[object] = []
    for adder in adders:
        if adder in done:  # one function adds several commands
            continue
        done.append(adder)
        if isinstance(adder, tuple):
            module, name = adder
            getattr(importlib.import_module(f".{module}", __package__), name)(sub)
        else:
            adder(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """The ``hlorun`` command (``argv``: the arguments; None: ``sys.argv[1:]``, as the
    console script calls it, just before the process exits)."""
    import signal

    _CTRL_C[0] = False
    watch = _on_main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if watch:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        rc = _main(sys.argv[1:] if argv is None else list(argv))
    finally:
        if watch:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if argv is None:
        # The process exits next: freeze the heap so that the interpreter's collections
        # at shutdown skip it (tens of ms for a small program, more than the work of
        # running it: issue 19); atexit handlers and the flushing of files still run.
        gc.freeze()
    return rc


def _on_main_thread() -> bool:
    """Whether this is the main thread (the only one that may set a signal handler)."""
    import threading

    return threading.current_thread() is threading.main_thread()


def _load_numpy() -> None:
    """Import NumPy and ml_dtypes with SIGINT held back: a Ctrl-C inside their C
    extensions' initialization makes NumPy print a traceback itself ("ImportError:
    _multiarray_umath failed to import"); held, it arrives once they are loaded, as a
    KeyboardInterrupt like any other."""
    import signal

    if not (_on_main_thread() and hasattr(signal, "pthread_sigmask")):
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        import ml_dtypes  # noqa: F401
        import numpy  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _main(argv: list[str]) -> int:
    try:
        command = argv[0] if argv and not argv[0].startswith("-") else None
        args = build_parser(command).parse_args(argv)
        _load_numpy()  # (every sub-command uses it; --version and --help do not)
        return args.func(args)
    except HloError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`hlorun interpret ... | head`)
        # stdout can no longer be flushed: point it at devnull so exit stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:  # exit code 130 (128 + SIGINT), naming the running op
        from .interrupt import interrupted_message  # only on Ctrl-C (cheap startup)

        print(interrupted_message(e), file=sys.stderr)
        return 130
    except Exception:
        if not _CTRL_C[0]:
            raise
        # an error raised out of a Ctrl-C: one inside an import leaves NumPy half loaded
        # ("ImportError: numpy._core.umath failed to import", a sub-command loading the
        # kernels on first use)
        print("error: interrupted (Ctrl-C)", file=sys.stderr)
        return 130


_CTRL_C = [False]  # a SIGINT arrived during this command


def _on_sigint(signum: int, frame: object) -> None:
    """Python's own SIGINT handler (KeyboardInterrupt), noting that it ran."""
    _CTRL_C[0] = True
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
