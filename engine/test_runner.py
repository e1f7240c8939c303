"""``hlorun test``: run a folder of StableHLO test files, as a conformance suite is run.

Every ``.mlir`` / ``.mlirbc`` file under the given paths is a test file; a text file is
split at ``// -----`` lines (each piece is one test, named by its first function), a
bytecode file is one test.  A test

- with ``expected-*`` annotations (MLIR's ``--verify-diagnostics`` syntax,
  parser/verify_diagnostics.py) passes when parsing and verification report an error
  at the line of every ``expected-error``;
- in a file whose RUN lines only verify (``stablehlo-opt`` without ``--interpret``, as
  stablehlo/tests/verifier's), passes when it parses and verifies (its FileCheck lines
  are not checked); nothing runs;
- otherwise passes when it parses, verifies and every entry function runs (``main``,
  else the only function, else every public function without arguments, as
  ``hlorun interpret`` picks them) with every ``check.*`` op passing.  The arguments of
  a file's ``// RUN: ... --args="[...]"`` line are the entry's inputs.

Outcomes: ``passed``; ``failed`` (a ``check.*`` op failed, or an expected error was not
reported); ``error`` (the test could not run: a parse, verification or runtime error,
an unsupported op, a time limit).  Files run in parallel processes; the results are
the same whatever the number of processes.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..parser import parse_module
from ..parser.errors import HloError
from ..parser.source import split_input
from ..parser.verify_diagnostics import Expected, expected_diagnostics
from ..shape_inference.verifier import collect_errors
from .api import run
from .cli import _parse_args_attr, entry_points

SUFFIXES = (".mlir", ".mlirbc")
_RUN_ARGS = re.compile(r"""--args=(?:"([^"]*)"|'([^']*)')""")


@dataclass(frozen=True)
class Outcome:
    """One test: a split of a file (``line`` is where it starts) or a bytecode file."""

    path: str
    line: int
    name: str
    status: str  # passed | failed | error
    message: str = ""
    seconds: float = 0.0

    @property
    def test_id(self) -> str:
        return f"{self.path}:{self.line}::{self.name}"


@dataclass(frozen=True)
class FileReport:
    """Every test of one file, and the time the file took."""

    path: str
    outcomes: tuple[Outcome, ...]
    seconds: float


@dataclass(frozen=True)
class Options:
    """What every test of a run shares."""

    pattern: str | None = None
    timeout: float | None = 60.0
    float_eq: str = "bitwise"


@dataclass
class Summary:
    """The tallies of a run (filled as files finish)."""

    files: list[FileReport] = field(default_factory=list)

    def add(self, report: FileReport) -> None:
        self.files.append(report)

    @property
    def outcomes(self) -> list[Outcome]:
        return [o for f in self.files for o in f.outcomes]

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def ok(self) -> bool:
        return bool(self.outcomes) and self.count("passed") == len(self.outcomes)

    def tally(self) -> str:
        return (
            f"{self.count('passed')} passed, {self.count('failed')} failed, "
            f"{self.count('error')} errors"
        )


# ---------------------------------------------------------------------------- discovery


def discover(paths: Iterable[str | os.PathLike]) -> list[str]:
    """The test files under ``paths`` (files as given, folders searched recursively),
    sorted, each once."""
    found: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found.extend(
                str(f) for f in sorted(path.rglob("*")) if f.suffix in SUFFIXES and f.is_file()
            )
        else:
            found.append(str(path))
    return list(dict.fromkeys(found))


# ---------------------------------------------------------------------------- one file


def run_file(path: str, options: Options) -> FileReport:
    """Run every test of one file (in a worker process)."""
    from .program_source import read_program

    t0 = time.perf_counter()
    try:
        src = read_program(path)
    except HloError as e:
        out = (Outcome(path, 0, Path(path).name, "error", e.render()),)
        return FileReport(path, out, time.perf_counter() - t0)
    if src.text is None:
        outcomes = _run_bytecode(path, src.module, options)
    else:
        outcomes = _run_text(path, src.text, options)
    return FileReport(path, tuple(outcomes), time.perf_counter() - t0)


def _selected(options: Options, path: str, line: int, name: str) -> bool:
    """``-k``: the pattern is a substring of the test's id, ``file:line::@function``."""
    return options.pattern is None or options.pattern in f"{path}:{line}::{name}"


def _run_bytecode(path: str, load: Callable[[], Any], options: Options) -> list[Outcome]:
    name = Path(path).name
    if not _selected(options, path, 1, name):
        return []
    t0 = time.perf_counter()
    status, message = _run_module(load, [], options)
    return [Outcome(path, 1, name, status, message, time.perf_counter() - t0)]


def _run_text(path: str, text: str, options: Options) -> list[Outcome]:
    inputs = _run_line_args(text)
    verify_only = _verifier_file(text)
    out = []
    for chunk in split_input(text, True):
        if not chunk.body.strip() or _only_comments(chunk.body):
            continue
        name = _split_name(chunk.body, path, chunk.first_line)
        if not _selected(options, path, 1, name):
            continue
        t0 = time.perf_counter()
        status, message = _run_chunk(chunk, path, inputs, options, verify_only)
        out.append(Outcome(path, chunk.first_line, name, status, message, time.perf_counter() - t0))
    return out


_FUNC_NAME = re.compile(r"func\.func\s+(?:public\s+|private\s+)?@([\w$.\-]+)")


def _split_name(body: str, path: str, line: int) -> str:
    m = _FUNC_NAME.search(body)
    return f"@{m.group(1)}" if m else f"{Path(path).name}:{line}"


def _only_comments(body: str) -> bool:
    return all(not ln.strip() or ln.strip().startswith("//") for ln in body.split("\n"))


def _run_line_args(text: str) -> list[Any] | None:
    """The arrays of the file's ``// RUN: ... --interpret --args="[...]"`` line, if any
    (a RUN line that expects failure, ``RUN: not ...``, is not the one)."""
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("// RUN:") and "--interpret" in s and "RUN: not" not in s:
            m = _RUN_ARGS.search(s)
            if m is not None:
                try:
                    return _parse_args_attr(m.group(1) or m.group(2) or "")
                except HloError:
                    return None
    return None


def _verifier_file(text: str) -> bool:
    """Whether the file's RUN lines only verify (``stablehlo-opt`` without
    ``--interpret``, as in stablehlo/tests/verifier): its chunks are checked, not run."""
    if "// RUN:" not in text:
        return False
    runs = [ln.strip() for ln in text.split("\n") if ln.strip().startswith("// RUN:")]
    return any("stablehlo-opt" in r for r in runs) and not any(
        "interpret" in r or "stablehlo-translate" in r for r in runs
    )


def _run_chunk(
    chunk: Any, path: str, inputs: list[Any] | None, options: Options, verify_only: bool = False
) -> tuple:
    expected = expected_diagnostics(chunk.text)
    if expected or verify_only:
        return _check_diagnostics(chunk, path, expected)
    return _run_module(lambda: parse_module(chunk.text, path), inputs, options)


def _check_diagnostics(chunk: Any, path: str, expected: list[Expected]) -> tuple[str, str]:
    """MLIR's --verify-diagnostics (parser/verify_diagnostics.py), by line: an error
    reported at the line of each ``expected-error`` (any of its forms; ``@unknown``: an
    error with no location).  The texts are not compared (hlorun words its messages
    its own way; ``hlorun verify --verify-diagnostics`` compares them), and hlorun
    reports no notes, warnings or remarks, so those annotations are not checked."""
    try:
        found: list[HloError] = list(collect_errors(parse_module(chunk.text, path)))
    except HloError as e:
        found = e.diagnostics()
    except Exception as e:  # a crash is this test's error, never the runner's
        return "error", f"internal error: {type(e).__name__}: {e}"
    bad = [e for e in expected if e.error]
    if bad:
        return "error", f"{path}:{bad[0].written_at}: {bad[0].error}"
    if not expected:  # a chunk of a verifier file that must verify
        return ("failed", found[0].render()) if found else ("passed", "")
    at = {e.pos.line if e.pos is not None and e.pos.line else None for e in found}
    missing = [e for e in expected if e.severity == "error" and e.line not in at]
    if not missing:
        return "passed", ""
    got = "; ".join(e.render() for e in found) or "no error"
    where = ", ".join(f"{path}:{e.line}" if e.line else f"{path}: @unknown" for e in missing)
    return "failed", f"expected an error at {where}; got: {got}"


def _run_module(load: Callable[[], Any], inputs: list[Any] | None, options: Options) -> tuple:
    """Load, verify and run every entry function: (status, message).  What the program
    prints (``stablehlo``/``check`` print ops) is captured, and shown with a failure."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status, message = _run_module_quietly(load, inputs, options)
    if status != "passed" and printed.getvalue():
        message += "\n--- printed:\n" + printed.getvalue()
    return status, message


def _run_module_quietly(
    load: Callable[[], Any], inputs: list[Any] | None, options: Options
) -> tuple[str, str]:
    try:
        module = load()
        if not module.functions:
            return "error", "no function to run"
        with tempfile.TemporaryDirectory(prefix="hlorun-probe-") as probe_dir:
            for fn in entry_points(module, None):
                run(
                    module,
                    inputs if inputs is not None and fn.type.inputs else [],
                    function=fn.name,
                    timeout=options.timeout,
                    float_eq=options.float_eq,
                    probe_dir=probe_dir,
                )
    except HloError as e:
        status = "failed" if (e.op or "").startswith("check.") else "error"
        return status, e.render()
    except Exception as e:  # a crash is this test's error, never the runner's
        return "error", f"internal error: {type(e).__name__}: {e}"
    return "passed", ""


# ---------------------------------------------------------------------------- many files


def run_all(
    files: Sequence[str],
    options: Options,
    jobs: int,
    on_report: Callable[[FileReport], None] | None = None,
) -> Summary:
    """Run ``files`` over ``jobs`` processes (1: in this process); ``on_report`` sees
    each file's report as it finishes."""
    summary = Summary()

    def done(report: FileReport) -> None:
        summary.add(report)
        if on_report is not None:
            on_report(report)

    if jobs <= 1 or len(files) <= 1:
        for f in files:
            done(run_file(f, options))
    else:
        _run_in_pool(files, options, jobs, done)
    order = {f: i for i, f in enumerate(files)}
    summary.files.sort(key=lambda r: order.get(r.path, len(order)))
    return summary


def _run_in_pool(
    files: Sequence[str], options: Options, jobs: int, done: Callable[[FileReport], None]
) -> None:
    """``run_file`` of every file over ``jobs`` worker processes (a worker that dies is
    its file's error).  The workers ignore Ctrl-C; on Ctrl-C this process cancels what
    has not started, stops the workers at once, whatever they were running, and raises
    the KeyboardInterrupt."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    if "fork" in methods:
        _preload()  # once here rather than once per worker
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_ignore_sigint)
    try:
        futures = {pool.submit(run_file, f, options): f for f in files}
        for fut in as_completed(futures):
            try:
                report = fut.result()
            except Exception as e:  # a worker that died: that file's error
                path = futures[fut]
                report = FileReport(
                    path, (Outcome(path, 0, Path(path).name, "error", f"worker: {e}"),), 0.0
                )
            done(report)
    except KeyboardInterrupt:
        # (the pool's manager thread, joined below: once it has stopped, the wake-up
        # that concurrent.futures' exit handler sends finds its pipe closed and does
        # nothing; while it is stopping, that wake-up can hit the closing pipe and print
        # "OSError: Bad file descriptor" at exit, CPython 3.11)
        manager = getattr(pool, "_executor_manager_thread", None)
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except OSError:  # the same race, here
            pass
        for child in multiprocessing.active_children():  # the workers, mid-test
            child.terminate()
        for child in multiprocessing.active_children():
            child.join(timeout=5)
        if manager is not None:
            manager.join(timeout=5)
        raise
    pool.shutdown()


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _preload() -> None:
    """Load the op table, shape functions and kernels (which load lazily) before the
    workers fork, so that they share them."""
    from .. import shape_inference  # noqa: F401
    from . import kernels  # noqa: F401


# ---------------------------------------------------------------------------- reports


def junit_xml(summary: Summary) -> bytes:
    """The run as JUnit XML (one testcase per test; classname = the file)."""
    import xml.etree.ElementTree as ET

    outs = summary.outcomes
    suite = ET.Element(
        "testsuite",
        name="hlorun",
        tests=str(len(outs)),
        failures=str(summary.count("failed")),
        errors=str(summary.count("error")),
        skipped="0",
        time=f"{sum(f.seconds for f in summary.files):.3f}",
    )
    for o in outs:
        case = ET.SubElement(suite, "testcase", classname=o.path, name=f"{o.name} (line {o.line})")
        case.set("time", f"{o.seconds:.3f}")
        if o.status != "passed":
            tag = "failure" if o.status == "failed" else "error"
            el = ET.SubElement(case, tag, message=o.message.split("\n")[0][:500])
            el.text = o.message
    root = ET.Element("testsuites")
    root.append(suite)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def summary_text(summary: Summary, slowest: int = 5) -> str:
    """The failures, the slowest files and the tallies."""
    lines = []
    bad = [o for o in summary.outcomes if o.status != "passed"]
    for o in bad:
        lines.append(
            f"{o.status.upper()} {o.test_id}: {o.message.splitlines()[0] if o.message else ''}"
        )
    ran = [f for f in summary.files if f.outcomes]
    if ran and slowest > 0:
        lines.append("slowest files:")
        for f in sorted(ran, key=lambda r: -r.seconds)[:slowest]:
            lines.append(f"  {f.seconds:8.2f}s  {f.path} ({len(f.outcomes)} tests)")
    total = sum(f.seconds for f in ran)
    empty = len(summary.files) - len(ran)
    note = f" ({empty} more with no test selected)" if empty else ""
    lines.append(f"{summary.tally()} in {len(ran)} files{note} ({total:.2f}s of work)")
    return "\n".join(lines)
