"""Fuzz harness (issue 21): mutate the shared suites' programs and portable artifacts,
run each mutant through load -> print/parse round trip -> verify -> run, and classify
the outcome.

Every outcome must be a result or an ``HloError``, within the time limit (2 s) and the
memory cap, and a module that parses must print to text that parses back to the same
module, with print a fixed point.  Anything else is a failure; ``shrink`` reduces a
failing program to a minimal one, which ``save_regression`` keeps under
``tests/fuzz/regressions/`` for the normal suite to replay.

Seeds: ``/work/shared/stablehlo/tests/**/*.mlir`` (split at ``// -----``) and the
``*.mlir.bc`` portable artifacts beside them.  Mutators: byte flips, token swaps,
splices between programs, extreme numbers, deep nesting, huge shapes, Unicode, lines
cut mid-way, attribute dictionaries where the generic form has none, NaN bit patterns
in integer constants.
"""

from __future__ import annotations

import hashlib
import random
import re
import resource
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SHARED_TESTS = REPO.parent / "shared" / "stablehlo" / "tests"
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
PRODUCER_BYTECODE = REPO / "tests" / "fixtures" / "tensorflow_bytecode"

TIME_LIMIT = 2.0  # CPU seconds one input may take (load + verify + round trip + run)
# An input is interrupted and called a hang after HARD_STOP CPU seconds (SIGPROF), or
# WALL_STOP seconds of wall time (SIGALRM: a program blocked without using the CPU).
# Time is CPU time of this process: on a shared machine, wall time measures the load.
HARD_STOP = 10.0
WALL_STOP = 60.0
MEMORY_CAP = 256 << 20  # bytes: the per-tensor and live budget the runs get
MAX_SEED_CHARS = 30_000  # longer seed programs are skipped (they only slow the campaign)
MAX_INPUT_ELEMENTS = 1 << 20  # entry arguments larger than this are not run

# Outcome kinds; the first two are the good ones.
GOOD = ("result", "hlo_error")
BAD = ("crash", "hang", "slow", "memory", "roundtrip")


class HardStop(BaseException):
    """Raised by SIGALRM: not an Exception, so no ``except Exception`` swallows it."""


@dataclass(frozen=True)
class Outcome:
    kind: str  # one of GOOD + BAD
    detail: str = ""
    seconds: float = 0.0  # CPU time
    wall: float = 0.0

    @property
    def ok(self) -> bool:
        return self.kind in GOOD

    @property
    def signature(self) -> str:
        """What must stay the same while shrinking: the kind and the exception type."""
        return f"{self.kind}:{self.detail.split(':', 1)[0]}"


# ------------------------------------------------------------------------------ seeds
def seed_corpus(root: Path = SHARED_TESTS) -> list[str | bytes]:
    """The seed programs: every ``// -----`` chunk of every ``.mlir`` file (up to
    MAX_SEED_CHARS) and every ``.mlir.bc`` artifact, in a fixed order, then the plain
    MLIR bytecode producers wrote (PRODUCER_BYTECODE: other property layouts)."""
    seeds: list[str | bytes] = []
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for chunk in re.split(r"^// -----.*$", text, flags=re.M):
            body = "\n".join(
                line for line in chunk.splitlines() if not line.lstrip().startswith("//")
            ).strip()
            if body and len(body) <= MAX_SEED_CHARS:
                seeds.append(body + "\n")
    for path in sorted(root.rglob("*.mlir.bc")):
        seeds.append(path.read_bytes())
    for path in sorted(PRODUCER_BYTECODE.glob("*.mlirbc")):
        seeds.append(path.read_bytes())
    return seeds


# --------------------------------------------------------------------------- mutators
_TOKEN = re.compile(
    r"%[\w.#$-]+|@[\w.$-]+|\"(?:[^\"\\]|\\.)*\"|[-+]?0x[0-9a-fA-F]+|"
    r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[A-Za-z_][\w.$]*|\S"
)
_NUMBER = re.compile(r"(?<![\w%#@.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
_DIMS = re.compile(r"tensor<((?:\d+x)+)")
EXTREMES = (
    "0",
    "-1",
    "1",
    "-0.0",
    "127",
    "128",
    "255",
    "256",
    "-128",
    "32767",
    "65535",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211457",
    "1000000000",
    "1000000000000",
    "1e308",
    "1e309",
    "-1e309",
    "1.7976931348623157e308",
    "4.9e-324",
    "1e-400",
    "nan",
    "inf",
    "-inf",
    "0x7FC00001",
    "0x7F800000",
    "0xFFFFFFFF",
    "0x7FF8000000000001",
    "0xFFFFFFFFFFFFFFFFFFFF",
    "3.4028235e38",
    "65504.0",
    "0.1",
)
UNICODE = (
    "é",
    "你好",
    "\u0000",
    "\u200b",
    "\U0001f600",
    "\ufffd",
    "\\",
    '\\"',
    "\\FF",
    "\\00",
    "\udcff",
    "\n",
    "\t",
    "ß",
    "\u202e",
)


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text))


def byte_flip(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    data = bytearray(prog.encode("utf-8", "surrogatepass") if isinstance(prog, str) else prog)
    if not data:
        return prog
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(data))
        data[i] = rng.choice((data[i] ^ (1 << rng.randrange(8)), rng.randrange(256)))
    if isinstance(prog, bytes):
        return bytes(data)
    return bytes(data).decode("utf-8", "replace")


def token_swap(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    toks = _tokens(prog)
    if len(toks) < 2:
        return prog
    a, b = sorted(rng.sample(range(len(toks)), 2))
    ta, tb = toks[a], toks[b]
    if rng.random() < 0.3:  # drop or duplicate one token instead
        t = toks[a]
        return prog[: t.start()] + (t.group(0) * 2 if rng.random() < 0.5 else "") + prog[t.end() :]
    return (
        prog[: ta.start()]
        + tb.group(0)
        + prog[ta.end() : tb.start()]
        + ta.group(0)
        + prog[tb.end() :]
    )


def splice(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    other = rng.choice(corpus)
    if isinstance(prog, bytes) or isinstance(other, bytes):
        if isinstance(prog, bytes) and isinstance(other, bytes) and prog and other:
            i, j = rng.randrange(len(prog)), rng.randrange(len(other))
            return prog[:i] + other[j : j + rng.randint(1, 64)] + prog[i + rng.randint(0, 64) :]
        return prog
    lines, olines = prog.splitlines(), other.splitlines()
    if not lines or not olines:
        return prog
    i = rng.randrange(len(lines))
    j = rng.randrange(len(olines))
    k = rng.randint(1, 4)
    return "\n".join(lines[:i] + olines[j : j + k] + lines[i + rng.randint(0, 2) :]) + "\n"


def extreme_number(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    nums = list(_NUMBER.finditer(prog))
    if not nums:
        return prog
    m = rng.choice(nums)
    return prog[: m.start()] + rng.choice(EXTREMES) + prog[m.end() :]


def huge_shape(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    dims = list(_DIMS.finditer(prog))
    if not dims:
        return extreme_number(rng, prog, corpus)
    big = rng.choice(
        (
            "1000000000",
            "1000000000000",
            "4611686018427387904",
            "9223372036854775807",
            "65536",
            "100000",
            "0",
            "?",
        )
    )
    if rng.random() < 0.5:  # every tensor type with the same dims, so types still agree
        old = rng.choice(dims).group(1)
        new = "x".join(big if rng.random() < 0.5 else d for d in old.rstrip("x").split("x"))
        return prog.replace("tensor<" + old, "tensor<" + new + "x")
    m = rng.choice(dims)
    return prog[: m.start(1)] + big + "x" + prog[m.start(1) :]


def deep_nest(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    depth = rng.choice((50, 500, 5000, 100000))
    toks = _tokens(prog)
    if not toks:
        return prog
    t = rng.choice(toks)
    kind = rng.randrange(4)
    if kind == 0:
        inner = "[" * depth + "1" + "]" * depth
    elif kind == 1:
        inner = "tensor<" * depth + "f32" + ">" * depth
    elif kind == 2:
        inner = "(" * depth + ")" * depth
    else:
        inner = "{" * depth + "}" * depth
    return prog[: t.start()] + inner + prog[t.end() :]


def unicode(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    strings = [m for m in _tokens(prog) if m.group(0).startswith('"') and len(m.group(0)) > 1]
    s = rng.choice(UNICODE)
    if strings and rng.random() < 0.8:
        m = rng.choice(strings)
        i = rng.randint(m.start() + 1, m.end() - 1)
    else:
        i = rng.randrange(len(prog) + 1)
    return prog[:i] + s + prog[i:]


def cut_line(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    """An op's line cut mid-way (at a token boundary or anywhere), the next lines kept:
    the op's custom form ends early and the next op follows (``check.expect_almost_eq_const
    %0, dense<...>`` then ``%1 = ...``)."""
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    lines = prog.splitlines()
    ops = [i for i, line in enumerate(lines) if re.match(r"\s*(%[\w#:]+\s*=\s*)?[\w\"]", line)]
    if not ops:
        return prog
    i = rng.choice(ops)
    line = lines[i]
    toks = _tokens(line)
    if toks and rng.random() < 0.7:
        cut = rng.choice(toks).start()
    else:
        cut = rng.randrange(len(line) + 1)
    lines[i] = line[:cut]
    if rng.random() < 0.5 and i + 1 < len(lines):  # or the next op joins the cut line
        lines[i] = lines[i] + " " + lines.pop(i + 1).lstrip()
    return "\n".join(lines) + "\n"


_GENERIC_OP = re.compile(r'^(\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?"[\w.]+"\(.*)$', re.M)
_ATTR_DICTS = (
    "{}",
    "{dimensions = array<i64: 0>}",
    "{a = 1 : i64}",
    "{dimensions = array<i64: 0>, b}",
    '{"quoted key" = unit}',
    "{x = {y = [1, 2]}}",
    "{mhlo.frontend_attributes = {}}",
)


def trailing_attrs(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    """A generic-form op with an attribute dictionary where the syntax has none: after
    its type, before it, or a second one (``"stablehlo.reverse"(%x) {...} : (t) -> t
    {...}``)."""
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    found = list(_GENERIC_OP.finditer(prog))
    if not found:
        return extreme_number(rng, prog, corpus)
    m = rng.choice(found)
    line = m.group(1)
    attrs = rng.choice(_ATTR_DICTS)
    where = rng.randrange(3)
    if where == 0:
        line = line + " " + attrs
    elif where == 1 and " : " in line:
        k = line.rindex(" : ")
        line = line[:k] + " " + attrs + line[k:]
    else:
        k = line.find(")")
        line = line[: k + 1] + " " + attrs + line[k + 1 :] if k >= 0 else line + attrs
    return prog[: m.start(1)] + line + prog[m.end(1) :]


NAN_BITS = ("0x7FC00001", "0xFFC00000", "0x7FF8000000000001", "0x7F800000", "0xFFFFFFFF")
_INT_DENSE = re.compile(r"dense<(\[?[-\d, \[\]]+\]?)>\s*:\s*tensor<[\dx]*[iu]i?\d+>")


def nan_bit_ints(rng: random.Random, prog: str | bytes, corpus: list) -> str | bytes:
    """An integer constant (a shape or index operand, often) whose elements are the bit
    patterns of NaNs and infinities: ``dense<[0x7FC00001]> : tensor<1xi64>``."""
    if isinstance(prog, bytes):
        return byte_flip(rng, prog, corpus)
    found = list(_INT_DENSE.finditer(prog))
    if not found:
        return extreme_number(rng, prog, corpus)
    m = rng.choice(found)
    body = re.sub(r"-?\d+", lambda _: rng.choice(NAN_BITS), m.group(1))
    return prog[: m.start(1)] + body + prog[m.end(1) :]


MUTATORS: tuple[Callable[[random.Random, str | bytes, list], str | bytes], ...] = (
    byte_flip,
    token_swap,
    splice,
    extreme_number,
    huge_shape,
    deep_nest,
    unicode,
    cut_line,
    trailing_attrs,
    nan_bit_ints,
)


def mutants(seed: int, corpus: list[str | bytes]) -> Iterator[str | bytes]:
    """An endless, deterministic stream of mutants for ``seed``."""
    rng = random.Random(seed)
    while True:
        prog = rng.choice(corpus)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            prog = rng.choice(MUTATORS)(rng, prog, corpus)
        yield prog


# ---------------------------------------------------------------------------- checking
def _inputs(fn) -> list[np.ndarray] | None:
    """Small deterministic inputs of the entry's argument types; None when they are
    not all static tensors of at most MAX_INPUT_ELEMENTS elements."""
    from hlorun.parser.ir import TensorType, numpy_dtype

    args = []
    for t in fn.type.inputs:
        if not isinstance(t, TensorType) or t.shape is None or None in t.shape:
            return None
        shape = tuple(int(d) for d in t.shape if d is not None)
        if np.prod(shape, dtype=object) > MAX_INPUT_ELEMENTS:
            return None
        try:
            dt = numpy_dtype(t)
        except (TypeError, ValueError):
            return None
        # NumPy sizes an array by the product of its nonzero dimensions too: a
        # tensor<9223372036854775807x0xf32> has no elements and no NumPy array either
        if np.prod([d for d in shape if d], dtype=object) * dt.itemsize >= 1 << 63:
            return None
        args.append(np.ones(shape, dtype=dt) if dt.kind != "b" else np.ones(shape, bool))
    return args


def roundtrip_problem(module) -> str | None:
    """Why print/parse is not an exact inverse for ``module``; None when it is."""
    from hlorun.parser import parse_module, print_module
    from hlorun.parser.errors import HloError

    try:
        text = print_module(module)
    except HloError as e:
        return f"print failed: {e}"
    try:
        again = parse_module(text)
    except HloError as e:
        return f"printed form does not parse: {e}\n{text}"
    if again != module:
        return f"parse(print(m)) != m\n{text}"
    text2 = print_module(again)
    if text2 != text:
        return f"print is not a fixed point\n{text}\n----\n{text2}"
    return None


def run_pipeline(prog: str | bytes, memory_cap: int = MEMORY_CAP) -> str:
    """Load, verify, round-trip and run ``prog``; returns "result" or raises.  A module
    that verifies must print to text that parses back to it (AssertionError, a failure
    kind of its own, if not); one that does not must still print or raise an HloError."""
    from hlorun.engine.api import run
    from hlorun.parser import parse_module, print_module
    from hlorun.parser.errors import HloError
    from hlorun.shape_inference import verify_module

    module = parse_module(prog)
    try:
        verify_module(module)
    except HloError:
        print_module(module)  # an invalid module prints (or says why not)
        raise
    why = roundtrip_problem(module)
    if why is not None:
        raise AssertionError(why)
    funcs = module.functions
    fn = funcs.get("main") or (next(iter(funcs.values())) if len(funcs) == 1 else None)
    if fn is None or fn.body is None:
        return "result"
    inputs = _inputs(fn)
    if inputs is None:
        return "result"
    run(
        module,
        inputs,
        function=fn.name,
        memory_cap=memory_cap,
        timeout=TIME_LIMIT * 0.6,
        max_steps=2_000_000,
        verify=False,
    )
    return "result"


def warm_up() -> None:
    """Import and plan once, so that the first input is not charged for start-up."""
    import hlorun.engine  # noqa: F401

    run_pipeline(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n"
    )


def _on_alarm(signum, frame):  # noqa: ARG001
    raise HardStop()


def check(
    prog: str | bytes, *, memory_cap: int = MEMORY_CAP, hard_stop: float = HARD_STOP
) -> Outcome:
    """Run one program and classify what happened (main thread only: signals)."""
    from hlorun.parser.errors import HloError

    old_alarm = signal.signal(signal.SIGALRM, _on_alarm)
    old_prof = signal.signal(signal.SIGPROF, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(WALL_STOP, hard_stop))
    signal.setitimer(signal.ITIMER_PROF, hard_stop)
    t0, c0 = time.monotonic(), time.process_time()
    try:
        kind, detail = run_pipeline(prog, memory_cap), ""
    except HardStop:
        kind, detail = "hang", f"HardStop: over {hard_stop} CPU s or {WALL_STOP} s"
    except AssertionError as e:
        kind, detail = "roundtrip", f"Roundtrip: {e}"
    except HloError as e:
        msg = str(e)
        if "MemoryError" in msg:
            kind, detail = "memory", f"MemoryError: {msg}"
        else:
            kind, detail = "hlo_error", f"{type(e).__name__}: {msg[:200]}"
    except MemoryError as e:
        kind, detail = "memory", f"MemoryError: {e}"
    except RecursionError as e:
        kind, detail = "crash", f"RecursionError: {e}"
    except Exception as e:  # noqa: BLE001  (the point: anything else is a bug)
        kind, detail = "crash", f"{type(e).__name__}: {e}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old_alarm)
        signal.signal(signal.SIGPROF, old_prof)
    cpu, wall = time.process_time() - c0, time.monotonic() - t0
    if kind in GOOD and cpu > TIME_LIMIT:
        kind, detail = "slow", f"Slow: {cpu:.2f} CPU s ({kind})"
    return Outcome(kind, detail, cpu, wall)


def peak_rss() -> int:
    """This process's peak resident set size, in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# ---------------------------------------------------------------------------- shrinking
def shrink(
    prog: str | bytes,
    signature: str,
    *,
    checker: Callable[[str | bytes], Outcome] = check,
    budget: int = 400,
) -> str | bytes:
    """A smaller program with the same failure ``signature`` (greedy line, then token,
    deletion; at most ``budget`` checks).  Bytes shrink by chunks."""
    tries = 0

    def same(candidate: str | bytes) -> bool:
        nonlocal tries
        tries += 1
        return checker(candidate).signature == signature

    if isinstance(prog, bytes):
        data = prog
        step = max(len(data) // 4, 1)
        while step >= 1 and tries < budget:
            i, changed = 0, False
            while i < len(data) and tries < budget:
                cand = data[:i] + data[i + step :]
                if cand and same(cand):
                    data, changed = cand, True
                else:
                    i += step
            if not changed:
                step //= 2
        return data
    units = prog.splitlines(keepends=True)
    units = _ddmin(units, lambda u: same("".join(u)), lambda: tries < budget)
    text = "".join(units)
    toks = [m.group(0) for m in _tokens(text)]
    spaced = " ".join(toks)
    if tries < budget and same(spaced):
        toks = _ddmin(toks, lambda u: same(" ".join(u)), lambda: tries < budget)
        return " ".join(toks) + "\n"
    return text


def _ddmin(units: list, test: Callable[[list], bool], more: Callable[[], bool]) -> list:
    """Greedy chunked deletion: drop chunks of halving size while ``test`` holds."""
    n = max(len(units) // 2, 1)
    while n >= 1 and more():
        i, changed = 0, False
        while i < len(units) and more():
            cand = units[:i] + units[i + n :]
            if cand and test(cand):
                units, changed = cand, True
            else:
                i += n
        if not changed:
            n //= 2
    return units


def save_regression(prog: str | bytes, outcome: Outcome, directory: Path = REGRESSIONS) -> Path:
    """Keep a (shrunk) failing program for the normal suite to replay."""
    directory.mkdir(parents=True, exist_ok=True)
    data = prog if isinstance(prog, bytes) else prog.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(data).hexdigest()[:12]
    path = directory / f"{outcome.kind}-{digest}.{'mlir.bc' if isinstance(prog, bytes) else 'mlir'}"
    path.write_bytes(data)
    return path


def load_regression(path: Path) -> str | bytes:
    data = path.read_bytes()
    if path.name.endswith(".bc"):
        return data
    return data.decode("utf-8", "surrogatepass")
