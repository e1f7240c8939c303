"""Compare the printer of this tree with the printer of another commit, program by program.

Every program of the shared StableHLO suites (``../shared/stablehlo/tests/**/*.mlir``,
each ``// -----`` chunk on its own) and every fixture (``tests/fixtures/**``: ``.mlir``
text and ``.mlirbc`` bytecode) is parsed and printed twice, faithfully
(``print_module(m)``) and canonically (``print_module(m, canonical=True)``), once with
this tree's ``hlorun`` and once with the other tree's; the tool reports how many files
print byte-identical and lists the others.  With ``--roundtrip`` it also checks, with
this tree, that ``parse(print(m)) == m`` and that printing is a fixed point.

    python tools/compare_printer.py                      # against 8e5309e (/tmp/base8e)
    python tools/compare_printer.py --base-tree /tmp/x --roundtrip

The other tree is a ``git worktree`` (made with ``git worktree add --detach`` when
missing); its packages are imported through a small shim package that maps
``hlorun.parser`` / ``hlorun.engine`` / ``hlorun.shape_inference`` to its folders, as
pyproject.toml's ``package-dir`` does for an installed tree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "stablehlo" / "tests"
FIXTURES = ROOT / "tests" / "fixtures"
PACKAGES = ("parser", "shape_inference", "engine")


def programs(root: Path = ROOT) -> list[Path]:
    """The programs compared: shared suites' .mlir files, then the fixtures'."""
    shared = sorted(SHARED.rglob("*.mlir")) if SHARED.is_dir() else []
    fixtures = sorted(
        p for p in (root / "tests" / "fixtures").rglob("*") if p.suffix in (".mlir", ".mlirbc")
    )
    return shared + fixtures


def _print_file(path: Path, parse_module, print_module, roundtrip: bool) -> tuple[str, list[str]]:
    """The printed text of every program of ``path`` (errors as their message), and the
    round-trip failures found."""
    from hlorun.parser.source import split_input_file

    out: list[str] = []
    bad: list[str] = []
    if path.suffix == ".mlirbc":
        chunks: list[tuple[str | bytes, int]] = [(path.read_bytes(), 0)]
    else:
        chunks = list(split_input_file(path.read_text()))
    for i, (chunk, offset) in enumerate(chunks):
        try:
            if isinstance(chunk, bytes):
                m = parse_module(chunk, str(path))
            else:
                m = parse_module(chunk, str(path), line_offset=offset)
        except Exception as e:  # a chunk the parser refuses prints as its error
            out.append(f"// chunk {i}: {type(e).__name__}\n")
            continue
        for canonical in (False, True):
            try:
                text = print_module(m, canonical=canonical)
            except Exception as e:
                text = f"// print error: {type(e).__name__}: {e}\n"
                bad.append(f"{path}#{i} canonical={canonical}: print error {e}")
                out.append(text)
                continue
            out.append(text)
            if roundtrip:
                try:
                    back = parse_module(text, "<printed>")
                    again = print_module(back, canonical=canonical)
                except Exception as e:
                    bad.append(f"{path}#{i} canonical={canonical}: reparse error {e}")
                    continue
                if not canonical and back != m:
                    bad.append(f"{path}#{i}: parse(print(m)) != m")
                if again != text:
                    bad.append(f"{path}#{i} canonical={canonical}: print not a fixed point")
    return "".join(out), bad


def dump(outdir: Path, roundtrip: bool) -> None:
    """Worker: print every program with the ``hlorun`` on sys.path into ``outdir``."""
    from hlorun.parser import parse_module, print_module

    outdir.mkdir(parents=True, exist_ok=True)
    index: dict[str, str] = {}
    bad: list[str] = []
    seconds = 0.0
    for path in programs():
        t0 = time.perf_counter()
        text, failures = _print_file(path, parse_module, print_module, roundtrip)
        seconds += time.perf_counter() - t0
        bad.extend(failures)
        key = hashlib.sha1(str(path).encode()).hexdigest()
        (outdir / key).write_text(text)
        index[str(path)] = key
    (outdir / "index.json").write_text(json.dumps({"files": index, "bad": bad, "s": seconds}))


def _shim(tree: Path, where: Path) -> Path:
    """A folder whose ``hlorun`` package maps to ``tree``'s packages."""
    pkg = where / "hlorun"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text((tree / "hlorun" / "__init__.py").read_text())
    for name in PACKAGES:
        link = pkg / name
        if not link.exists():
            link.symlink_to(tree / name)
    return where


def _run_worker(tree: Path, outdir: Path, roundtrip: bool, tmp: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(_shim(tree, tmp / ("shim_" + outdir.name)))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dump", str(outdir)]
    if roundtrip:
        cmd.append("--roundtrip")
    check = "import hlorun.parser as p; print(p.__file__)"
    where = subprocess.run(
        [sys.executable, "-c", check], env=env, cwd=tmp, capture_output=True, text=True, check=True
    ).stdout.strip()
    if not os.path.realpath(where).startswith(os.path.realpath(tree) + os.sep):
        raise SystemExit(f"the shim for {tree} imported {where}")
    subprocess.run(cmd, env=env, cwd=tmp, check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="8e5309e", help="the commit to compare with")
    ap.add_argument("--base-tree", default="/tmp/base8e", help="its worktree")
    ap.add_argument("--roundtrip", action="store_true", help="also check parse(print(m)) == m")
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    ap.add_argument("--list", type=int, default=20, help="list at most N differing files")
    args = ap.parse_args(argv)
    if args.dump:
        dump(Path(args.dump), args.roundtrip)
        return 0
    base = Path(args.base_tree)
    if not base.is_dir():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
            check=True,
        )
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        _run_worker(ROOT, tmp / "head", args.roundtrip, tmp)
        _run_worker(base, tmp / "base", False, tmp)
        head = json.loads((tmp / "head" / "index.json").read_text())
        basei = json.loads((tmp / "base" / "index.json").read_text())
        same = 0
        differ: list[str] = []
        for path, key in head["files"].items():
            other = basei["files"].get(path)
            a = (tmp / "head" / key).read_text()
            b = (tmp / "base" / other).read_text() if other else None
            if a == b:
                same += 1
            else:
                differ.append(path)
    print(f"{len(head['files'])} files: {same} identical, {len(differ)} different")
    print(f"print+parse seconds: this tree {head['s']:.1f}, base {basei['s']:.1f}")
    for p in differ[: args.list]:
        print("  differs:", p)
    if args.roundtrip:
        print(f"round-trip failures (this tree): {len(head['bad'])}")
        for b in head["bad"][: args.list]:
            print("  ", b)
    return 1 if differ or (args.roundtrip and head["bad"]) else 0


if __name__ == "__main__":
    sys.exit(main())
