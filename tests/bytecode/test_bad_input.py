"""Malformed bytecode gets a ParseError naming the byte offset and the section, and
nothing else: truncations (at every section boundary and sampled offsets), flipped
bytes, wrong magic, a future version, huge declared lengths, random mutations."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser.bytecode.encoding import Cursor, encode_varint
from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.sections import read_section_header
from hlorun.parser.errors import ParseError

from .goldens import READABLE, VHLO_DIR

SMALL = VHLO_DIR / "vhlo_emit_version_api.1_1_0.mlir.bc"
BIG = VHLO_DIR / "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc"
OLD = VHLO_DIR / "stablehlo_legalize_to_vhlo.0_9_0.mlir.bc"


@pytest.fixture(autouse=True)
def _need_goldens():
    if not VHLO_DIR.exists():
        pytest.skip(
            f"{VHLO_DIR} not found: the StableHLO goldens sit beside the repo only "
            "in CI and developer checkouts"
        )


def refused(data: bytes) -> ParseError:
    """Reading ``data`` raises a ParseError (and nothing else) naming offset + section."""
    try:
        read_bytecode_file(data, "bad.bc")
    except ParseError as e:
        msg = str(e)
        assert msg.startswith("bad.bc:offset 0x"), msg
        assert "(section '" in msg, msg
        return e
    pytest.fail("malformed bytecode was accepted")


def reads_or_refuses(data: bytes) -> None:
    """A mutation may still be valid bytecode; if not, only a ParseError may come out."""
    try:
        read_bytecode_file(data, "bad.bc")
    except ParseError as e:
        assert "offset 0x" in str(e) and "(section '" in str(e), str(e)


def section_boundaries(data: bytes) -> list[int]:
    """Offsets where each top-level section (and its body) starts and ends."""
    c = Cursor(data, 4, len(data), "x", "header")
    c.varint()
    c.cstring()
    out = [c.pos]
    while not c.at_end():
        _sid, sub = read_section_header(c)
        out += [sub.pos, sub.end]
    return out


def test_wrong_magic():
    data = SMALL.read_bytes()
    e = refused(b"MX\xefR" + data[4:])
    assert "magic" in str(e) and "section 'header'" in str(e)
    refused(b"")
    refused(b"ML\xef")
    refused(b"ML\xefR")


def test_future_version():
    data = SMALL.read_bytes()
    assert data[4] == encode_varint(6)[0]
    e = refused(data[:4] + encode_varint(7) + data[5:])
    assert "version 7" in str(e)


@pytest.mark.parametrize("path", [SMALL, OLD, BIG], ids=lambda p: p.name)
def test_truncated_at_every_section_boundary(path):
    data = path.read_bytes()
    cuts = set(section_boundaries(data))
    cuts |= {c - 1 for c in cuts} | {c + 1 for c in cuts}
    for cut in sorted(x for x in cuts if 0 <= x < len(data)):
        refused(data[:cut])


def test_truncated_at_sampled_offsets():
    for path in (SMALL, OLD, BIG):
        data = path.read_bytes()
        step = max(1, len(data) // 300)
        for cut in range(0, len(data), step):
            refused(data[:cut])


def test_flipped_bytes():
    rng = random.Random(1234)
    for path in (SMALL, OLD, BIG):
        data = path.read_bytes()
        positions = range(len(data)) if len(data) < 400 else rng.sample(range(len(data)), 30)
        for pos in positions:
            for flip in (0xFF, 0x01, 0x80):
                mutated = bytearray(data)
                mutated[pos] ^= flip
                reads_or_refuses(bytes(mutated))


def test_huge_declared_lengths():
    data = SMALL.read_bytes()
    c = Cursor(data, 4, len(data), "x", "header")
    c.varint()
    c.cstring()
    head = data[: c.pos]
    huge = encode_varint(2**63)
    # A section claiming 2**63 bytes.
    e = refused(head + bytes([1]) + huge + b"\x01")
    assert "exceeds" in str(e)
    # A string table claiming 2**62 strings.
    refused(head + bytes([0]) + encode_varint(10) + encode_varint(2**62) + b"\x03" * 9)
    # Every byte after the header replaced by a huge varint, one at a time.
    for pos in range(c.pos, len(data)):
        reads_or_refuses(data[:pos] + huge + data[pos + 1 :])


def test_every_golden_truncated_by_one_byte():
    for path in READABLE:
        data = path.read_bytes()
        refused(data[:-1])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_goldens(d):
    path = d.draw(st.sampled_from([SMALL, OLD, BIG]))
    data = bytearray(path.read_bytes())
    for _ in range(d.draw(st.integers(1, 4))):
        kind = d.draw(st.sampled_from(["set", "insert", "delete", "truncate"]))
        pos = d.draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "set" and data:
            data[pos] = d.draw(st.integers(0, 255))
        elif kind == "insert":
            data[pos:pos] = d.draw(st.binary(min_size=1, max_size=9))
        elif kind == "delete" and data:
            del data[pos : pos + d.draw(st.integers(1, 9))]
        else:
            del data[pos:]
    reads_or_refuses(bytes(data))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_section_bodies(d):
    """Byte changes inside one section, keeping the file's layout: reaches the IR,
    attribute and property decoders rather than the section table."""
    path = d.draw(st.sampled_from([SMALL, OLD, BIG]))
    data = bytearray(path.read_bytes())
    bounds = section_boundaries(bytes(data))
    spans = [(a, b) for a, b in zip(bounds[1::2], bounds[2::2]) if b > a]
    start, end = d.draw(st.sampled_from(spans))
    for _ in range(d.draw(st.integers(1, 3))):
        data[d.draw(st.integers(start, end - 1))] = d.draw(st.integers(0, 255))
    reads_or_refuses(bytes(data))
