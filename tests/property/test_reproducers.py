"""The reproducers failures print are programs ``hlorun interpret`` runs: with the
right expected values they pass, with one element changed they fail at it."""

from __future__ import annotations

import pytest

from hlorun.engine.cli import main

from . import reference as R
from .elements import ALL, BOOL, ET, part_type
from .harness import program_text


def _values(t: ET) -> list:
    if t.kind == "bool":
        return [True, False, True]
    if t.kind == "int":
        return [0, t.max, t.min]
    if t.kind == "float":
        fmt = t.fmt
        from .formats import num, round_to_format

        return [round_to_format(num(q), fmt) for q in (1, 2, 3)]
    p = _values(part_type(t))
    return list(zip(p, reversed(p)))


def _changed(v, t: ET):
    if t.kind == "bool":
        return not v
    if t.kind == "int":
        return t.wrap(v + 1)
    if t.kind == "float":
        return v ^ 1
    return (v[0] ^ 1, v[1])


@pytest.mark.parametrize("t", ALL, ids=str)
def test_reproducer_runs_and_fails_where_wrong(t, tmp_path, capsys):
    """maximum(x, x) = x on every element type, as the printed program."""
    x = _values(t)
    shape = (3,)
    expected = list(x)
    text = program_text("maximum", [(x, shape, t), (x, shape, t)], shape, t, expected)
    path = tmp_path / "ok.mlir"
    path.write_text(text)
    assert main(["interpret", str(path)]) == 0, text
    bad = list(expected)
    bad[1] = _changed(bad[1], t)
    path.write_text(program_text("maximum", [(x, shape, t), (x, shape, t)], shape, t, bad))
    assert main(["interpret", str(path)]) != 0
    assert "index [1]" in capsys.readouterr().err


def test_reproducer_with_attributes(tmp_path):
    t = next(e for e in ALL if e.name == "ui4")
    a, b = [1, 15], [2, 3]
    want = [R.compare(t, x, y, "LT", "UNSIGNED").value for x, y in zip(a, b)]
    attrs = (
        "comparison_direction = #stablehlo<comparison_direction LT>, "
        "compare_type = #stablehlo<comparison_type UNSIGNED>"
    )
    text = program_text("compare", [(a, (2,), t), (b, (2,), t)], (2,), BOOL, want, attrs)
    path = tmp_path / "cmp.mlir"
    path.write_text(text)
    assert main(["interpret", str(path)]) == 0, text
