"""``hlorun test PATH... [-k PATTERN] [-j N] [--junit-xml FILE] [--timeout S]``.

Runs every ``.mlir`` / ``.mlirbc`` test under the paths (engine/test_runner.py says
when a test passes) over ``-j`` processes (default: every core), with a progress bar
on stderr (a line every few seconds when stderr is not a terminal), then prints the
failures, the slowest files and the tallies.  Exit status 0 when every test passed,
1 when any failed or errored, 5 when no test was selected (as pytest), 130 on Ctrl-C
(after the tallies of the files that finished).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TextIO


def add_command(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("test", help="run every .mlir/.mlirbc test under the paths")
    t.add_argument("paths", nargs="+", metavar="PATH", help="test files or folders")
    t.add_argument("-k", dest="pattern", default=None, help="only tests whose id contains this")
    t.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=int,
        default=None,
        help="processes to run files in (default: the number of cores)",
    )
    t.add_argument("--junit-xml", metavar="FILE", default=None, help="write a JUnit XML report")
    t.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        default=60.0,
        help="seconds per test (default 60; 0: none)",
    )
    t.add_argument(
        "--float-eq",
        choices=("bitwise", "ieee"),
        default="bitwise",
        help="how check.expect_eq compares floats",
    )
    t.add_argument(
        "--slowest", metavar="N", type=int, default=5, help="how many slowest files to list"
    )
    from .cli_exported import add_custom_call_flag

    add_custom_call_flag(t)
    t.set_defaults(func=cmd_test)


class Progress:
    """A bar redrawn in place on a terminal; a line every ``every`` seconds otherwise."""

    def __init__(self, total: int, out: TextIO, every: float = 5.0) -> None:
        self.total = total
        self.out = out
        self.tty = out.isatty()
        self.every = every
        self.done = 0
        self.counts = {"passed": 0, "failed": 0, "error": 0}
        self.last = time.monotonic()

    def update(self, report) -> None:
        self.done += 1
        for o in report.outcomes:
            self.counts[o.status] += 1
        text = (
            f"{self.done}/{self.total} files  {self.counts['passed']} passed, "
            f"{self.counts['failed']} failed, {self.counts['error']} errors"
        )
        if self.tty:
            width = 30
            filled = width * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (width - filled)
            self.out.write(f"\r[{bar}] {text}")
            if self.done == self.total:
                self.out.write("\n")
            self.out.flush()
        elif time.monotonic() - self.last >= self.every or self.done == self.total:
            self.last = time.monotonic()
            print(f"hlorun test: {text}", file=self.out, flush=True)


def cmd_test(args: argparse.Namespace) -> int:
    from .cli_exported import register_custom_calls
    from .test_runner import Options, Summary, discover, junit_xml, run_all, summary_text

    register_custom_calls(args.custom_call)  # before the workers fork: they inherit them
    files = discover(args.paths)
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        print(f"error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 1
    options = Options(
        pattern=args.pattern,
        timeout=args.timeout or None,
        float_eq=args.float_eq,
    )
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    progress = Progress(len(files), sys.stderr)
    finished = Summary()

    def on_report(report) -> None:
        finished.add(report)
        progress.update(report)

    try:
        summary = run_all(files, options, jobs, on_report)
    except KeyboardInterrupt:  # the workers are stopped: what finished, then 130
        if progress.tty:
            sys.stderr.write("\n")
        print(summary_text(finished, args.slowest))
        print(
            f"error: interrupted (Ctrl-C) after {len(finished.files)} of {len(files)} files",
            file=sys.stderr,
        )
        return 130
    print(summary_text(summary, args.slowest))
    if args.junit_xml is not None:
        with open(args.junit_xml, "wb") as f:
            f.write(junit_xml(summary))
    if not summary.outcomes:
        print("no tests ran", file=sys.stderr)
        return 5
    return 0 if summary.ok else 1
