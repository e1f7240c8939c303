"""Replay the RUN lines of upstream lit tests with hlorun in place of the upstream
tools, in process (no subprocess per command).

The tools and their hlorun counterparts (issue 16's table):

| upstream | hlorun |
|---|---|
| stablehlo-translate --deserialize [--print-stablehlo-version] X | hlorun deserialize ... |
| stablehlo-translate --serialize --target=V [--strip-debuginfo] [--allow-other-dialects] X | hlorun serialize ... |
| stablehlo-opt [--mlir-print-op-generic] [--strip-debuginfo] X | hlorun format ... |
| stablehlo-opt --stablehlo-legalize-to-vhlo[...] [--vhlo-to-version=target=V] ... | hlorun vhlo ... |
| stablehlo-opt --vhlo-to-version=target=V X | hlorun vhlo --target=V X |
| stablehlo-opt --pass-pipeline='builtin.module(stablehlo-deserialize)' | hlorun deserialize - |
| stablehlo-opt --stablehlo-aggressive-folder[=fold-op-element-limit=N] X | hlorun fold [--max-elements N] X |
| FileCheck ... | the ``filecheck`` package |

A RUN line is a pipeline of commands with an optional leading ``not``, ``2>&1`` and a
final ``> file``; ``diff a b`` compares files.  ``%if asserts`` lines and passes that
belong to other issues (listed in ``SKIP_PASSES``) are reported as skipped.
"""

from __future__ import annotations

import io
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SKIP_PASSES: dict[str, str] = {}


@dataclass
class Outcome:
    ok: bool
    skipped: str | None = None
    detail: str = ""


def run_lines(path: Path) -> list[str]:
    """The RUN commands of a file, continuation lines joined."""
    out, cur = [], ""
    for line in path.read_text().splitlines():
        m = re.match(r"^//\s*RUN:\s?(.*)$", line)
        if not m:
            continue
        cur += m.group(1)
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        out.append(cur.strip())
        cur = ""
    return out


def _hlorun(argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    """``hlorun argv`` in process: (exit code, stdout bytes, stderr bytes)."""
    from hlorun.engine.cli import main

    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", write_through=True)
    inp = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = inp, out, err
    try:
        try:
            code = main(argv)
        except SystemExit as e:  # argparse
            code = e.code if isinstance(e.code, int) else 1
        out.flush()
        err.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return code, out_b.getvalue(), err_b.getvalue()


def _filecheck(args: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write(stdin)
    opts = parse_argv_options(["filecheck", *args, "--input-file", f.name])
    err_b = io.BytesIO()
    err = io.TextIOWrapper(err_b, encoding="utf-8", write_through=True)
    saved = sys.stderr
    sys.stderr = err
    try:
        code = Matcher.from_opts(opts).run()
    finally:
        sys.stderr = saved
        Path(f.name).unlink()
    return code, b"", err_b.getvalue()


def filecheck(check_source: str, output: str, prefix: str = "CHECK") -> None:
    """LLVM FileCheck (the ``filecheck`` package) of ``output`` against the ``prefix``
    lines of ``check_source``; AssertionError with FileCheck's report when it fails."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(check_source)
    try:
        code, _, err = _filecheck([f.name, "--check-prefix", prefix], output.encode())
    finally:
        Path(f.name).unlink()
    if code != 0:
        raise AssertionError(err.decode(errors="replace")[-3000:])


def translate(words: list[str]) -> list[str] | str:
    """The hlorun argv of one upstream command, or a reason it is skipped."""
    tool, args = words[0], words[1:]
    flags = [a for a in args if a.startswith("-")]
    files = [a for a in args if not a.startswith("-")]
    for f in flags:
        name = f.split("=", 1)[0]
        if name in SKIP_PASSES:
            return SKIP_PASSES[name]
    if tool == "stablehlo-translate":
        if "--deserialize" in flags:
            keep = [f for f in flags if f in ("--print-stablehlo-version", "--verify-diagnostics")]
            return ["deserialize", *keep, *(files or ["-"])]
        if "--serialize" in flags:
            keep = [f for f in flags if f != "--serialize"]
            return ["serialize", *keep, *(files or ["-"])]
        raise ValueError(f"unknown stablehlo-translate mode: {words}")
    if tool == "stablehlo-opt":
        folder = [f for f in flags if f.startswith("--stablehlo-aggressive-folder")]
        if folder:
            return _fold_argv(folder[0], flags, files)
        if any(f.startswith("--pass-pipeline") and "stablehlo-deserialize" in f for f in flags):
            return ["deserialize", *(files or ["-"])]
        legalize = [f for f in flags if f.startswith("--stablehlo-legalize-to-vhlo")]
        to_version = [f for f in flags if f.lstrip("-").startswith("vhlo-to-version")]
        common = {
            "--mlir-print-op-generic": "--generic",
            "--split-input-file": "--split-input-file",
            "-verify-diagnostics": "--verify-diagnostics",
            "--verify-diagnostics": "--verify-diagnostics",
        }
        if legalize or to_version:
            argv = ["vhlo"]
            if any("allow-other-dialects" in f for f in legalize):
                argv.append("--allow-other-dialects")
            for f in to_version:
                m = re.search(r"target=([^'\"]*)", f)
                argv.append(f"--target={m.group(1) if m else ''}")
            argv += [common[f] for f in flags if f in common]
            return [*argv, *(files or ["-"])]
        argv = ["format"]
        argv += [common[f] for f in flags if f in common and common[f] == "--generic"]
        if "--strip-debuginfo" in flags:
            argv.append("--strip-debuginfo")
        return [*argv, *(files or ["-"])]
    raise ValueError(f"unknown tool {tool!r}")


def _fold_argv(folder: str, flags: list[str], files: list[str]) -> list[str]:
    """``hlorun fold`` for ``stablehlo-opt --stablehlo-aggressive-folder[=options]``."""
    argv = ["fold"]
    m = re.search(r"fold-op-element-limit=(\d+)", folder)
    if m:
        argv += ["--max-elements", m.group(1)]
    if "--split-input-file" in flags or "-split-input-file" in flags:
        argv.append("--split-input-file")
    return [*argv, *(files or ["-"])]


def _diff(name_a: str, name_b: str, a: bytes, b: bytes) -> str:
    import difflib

    try:
        lines = difflib.unified_diff(
            a.decode().splitlines(), b.decode().splitlines(), name_a, name_b, lineterm="", n=1
        )
        return "\n".join(list(lines)[:60])
    except UnicodeDecodeError:
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return f"{name_a} and {name_b} differ from byte {at} (sizes {len(a)}, {len(b)})"


def run_line(line: str, path: Path, tmp: Path) -> Outcome:
    """Run one RUN line; ``Outcome.ok`` says whether it passed as lit would judge it."""
    if line.startswith("%if"):
        return Outcome(True, "needs an assertions build of the upstream tools")
    cmd = line.replace("%s", str(path)).replace("%t", str(tmp / "t"))
    words = shlex.split(cmd)
    if words[0] == "diff":
        a, b = Path(words[1]).read_bytes(), Path(words[2]).read_bytes()
        return Outcome(a == b, detail="" if a == b else _diff(words[1], words[2], a, b))
    expect_fail = words[0] == "not"
    if expect_fail:
        words = words[1:]
    out_file = None
    if len(words) >= 2 and words[-2] == ">":
        out_file, words = words[-1], words[:-2]
    stages: list[list[str]] = [[]]
    for w in words:
        if w == "|":
            stages.append([])
        else:
            stages[-1].append(w)
    data = b""
    code = 0
    for i, stage in enumerate(stages):
        merge = "2>&1" in stage
        stage = [w for w in stage if w != "2>&1"]
        if stage[0] == "FileCheck":
            code, out, err = _filecheck(stage[1:], data)
            if code != 0:
                return Outcome(False, detail=err.decode(errors="replace")[-3000:])
            data = out
            continue
        argv = translate(stage)
        if isinstance(argv, str):
            return Outcome(True, argv)
        code, out, err = _hlorun(argv, data)
        last_before_check = i + 1 < len(stages) and stages[i + 1][0] == "FileCheck"
        if expect_fail and (i + 1 == len(stages) or last_before_check):
            if code == 0:
                return Outcome(False, detail=f"expected a failure: hlorun {' '.join(argv)}")
        elif code != 0:
            return Outcome(
                False,
                detail=f"hlorun {' '.join(argv)} exit {code}: "
                + err.decode(errors="replace")[-3000:],
            )
        data = out + (err if merge else b"")
    if out_file is not None:
        Path(out_file).write_bytes(data)
    return Outcome(True)
