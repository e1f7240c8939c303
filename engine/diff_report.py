"""``DiffReport``: the rows of ``hlorun diff`` as a terminal table, JSON and a small
self-contained HTML page (the error of each op along the program, plotted as inline
SVG)."""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field
from typing import Any

from .diff_metrics import Errors


@dataclass
class OperandError:
    """The error of one operand of an op: its producer (op index, result) and errors
    (None when the producer is not compared, e.g. a constant)."""

    index: int
    result: int
    errors: Errors | None
    over: bool | None = None  # its row's verdict (None: not compared)

    def to_json(self) -> dict[str, Any]:
        e = self.errors
        return {
            "op_index": self.index,
            "result_index": self.result,
            "max_abs": None if e is None else _num(e.max_abs),
            "max_rel": None if e is None else _num(e.max_rel),
            "max_ulp": None if e is None else _num(e.max_ulp),
            "over": self.over,
        }


@dataclass
class Row:
    """One result of one op (of one loop iteration), compared."""

    index: int
    op: str
    where: str  # program text position, then ``from: file:line`` of its loc
    source: str | None  # the producer's file:line, from the op's loc
    result_index: int
    iteration: int | None
    type: str
    errors: Errors
    scaled: bool = False
    operands: list[OperandError] = field(default_factory=list)
    cause: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    other_op: str | None = None  # the op the other side has here, when another one
    # over tolerance against hlorun's value, but within it against hlorun's value
    # computed from the other side's operands, all of them within tolerance: the
    # tolerated error of its operands passed on (e.g. through a cancellation)
    passed_on: bool = False

    @property
    def over(self) -> bool:
        return self.errors.over and not self.passed_on

    @property
    def location(self) -> str:
        """The producer's file:line when the op has one, else its place in the text."""
        return self.source or self.where.split(" from: ")[0] or f"op {self.index}"

    @property
    def growth(self) -> float:
        """How much the error grows at this op: its max rel error over its operands'
        largest (1 when an operand brings as much as it has)."""
        came = max((o.errors.max_rel for o in self.operands if o.errors is not None), default=0.0)
        mine = self.errors.max_rel
        if mine == 0:
            return 0.0
        if came == 0:
            return math.inf
        return mine / came

    def to_json(self) -> dict[str, Any]:
        e = self.errors
        return {
            "op_index": self.index,
            "op": self.op,
            "location": self.location,
            "program_location": self.where.split(" from: ")[0] or None,
            "result_index": self.result_index,
            "iteration": self.iteration,
            "type": self.type,
            "max_abs": _num(e.max_abs),
            "max_rel": _num(e.max_rel),
            "max_ulp": _num(e.max_ulp),
            "elements_over": e.bad,
            "elements": e.size,
            "over": self.over,
            "passed_on": self.passed_on,
            "scaled_tolerance": self.scaled,
            "operands": [o.to_json() for o in self.operands],
            **({"other_op": self.other_op} if self.other_op else {}),
            **({"cause": self.cause, "cause_detail": self.detail} if self.cause else {}),
        }


def _num(x: float) -> float | str:
    """A JSON number, or ``"inf"`` / ``"nan"`` (JSON has neither)."""
    if math.isinf(x) or math.isnan(x):
        return str(x)
    return x


@dataclass
class DiffReport:
    """What ``hlorun.diff`` found: ``rows`` in the order ops finish, the first one over
    tolerance (``first_divergence``) and where the error grows most (``growth``)."""

    rows: list[Row]
    against: str

    @property
    def first_row(self) -> Row | None:
        return next((r for r in self.rows if r.over), None)

    @property
    def first_divergence(self) -> dict[str, Any] | None:
        r = self.first_row
        if r is None:
            return None
        return {
            "op": r.op,
            "location": r.location,
            "result_index": r.result_index,
            "max_abs": _num(r.errors.max_abs),
            "max_rel": _num(r.errors.max_rel),
            "max_ulp": _num(r.errors.max_ulp),
            "cause": r.cause,
            "op_index": r.index,
            "iteration": r.iteration,
            "program_location": r.where.split(" from: ")[0] or None,
            "operands": [o.to_json() for o in r.operands],
            "other_op": r.other_op,
            "cause_detail": r.detail,
        }

    @property
    def growth(self) -> Row | None:
        """The row over tolerance whose error grows most over its operands'."""
        over = [r for r in self.rows if r.over]
        return max(over, key=lambda r: r.growth, default=None)

    @property
    def diverged(self) -> bool:
        return self.first_row is not None

    def _settle(self) -> None:
        """Every row's maxima (computed when first read), on the machine's threads."""
        Errors.settle([r.errors for r in self.rows])

    def to_json(self) -> dict[str, Any]:
        self._settle()
        g = self.growth
        return {
            "against": self.against,
            "first_divergence": self.first_divergence,
            "largest_growth": None if g is None else {**g.to_json(), "growth": _num(g.growth)},
            "rows": [r.to_json() for r in self.rows],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    # ------------------------------------------------------------------ text

    def table(self, limit: int | None = 40) -> str:
        """The terminal table: every row over tolerance and the rows around the first
        divergence (``limit`` rows at most), then the summary."""
        lines = [
            f"{'#':>5} {'op':<28} {'res':>3} {'max abs':>10} {'max rel':>10} {'max ulp':>9}  "
            "location"
        ]
        first = self.first_row
        shown = self.rows
        if limit is not None and len(shown) > limit:
            keep = {id(r) for r in shown if r.over}
            if first is not None:
                i = self.rows.index(first)
                keep |= {id(r) for r in self.rows[max(0, i - 3) : i + 1]}
            shown = [r for r in self.rows if id(r) in keep][:limit]
        for r in shown:
            e = r.errors
            res = str(r.result_index) + ("" if r.iteration is None else f"@{r.iteration}")
            mark = "!" if r.over else ("~" if r.passed_on else " ")
            lines.append(
                f"{r.index:>5}{mark}{_short(r.op):<28} {res:>3} {e.max_abs:>10.3g} "
                f"{e.max_rel:>10.3g} {e.max_ulp:>9.4g}  {r.location}"
            )
        lines.append(f"{len(self.rows)} op results compared against {self.against}")
        if first is None:
            lines.append("no divergence over tolerance")
            return "\n".join(lines)
        lines.append(
            f"first divergence: op {first.index} {first.op} (result {first.result_index}"
            + ("" if first.iteration is None else f", iteration {first.iteration}")
            + f") at {first.where or first.location}"
        )
        if first.other_op:
            lines.append(f"  the other side has {first.other_op} here")
        lines.append(
            f"  max abs {first.errors.max_abs:.3g}, max rel {first.errors.max_rel:.3g}, "
            f"max ulp {first.errors.max_ulp:.4g}; {first.errors.bad} of "
            f"{first.errors.size} elements over tolerance"
        )
        for o in first.operands:
            state = (
                "not compared"
                if o.errors is None
                else f"max ulp {o.errors.max_ulp:.4g}" + (" (over)" if o.over else "")
            )
            lines.append(f"  operand from op {o.index} result {o.result}: {state}")
        if first.cause:
            lines.append(f"  cause: {first.cause}" + _why(first.detail))
        g = self.growth
        if g is not None:
            grew = (
                "its operands agree"
                if math.isinf(g.growth)
                else f"{g.growth:.3g} times its operands'"
            )
            lines.append(
                f"largest growth: op {g.index} {g.op} at {g.location} "
                f"(max rel {g.errors.max_rel:.3g}, {grew})"
            )
        return "\n".join(lines)

    # ------------------------------------------------------------------ html

    def html(self, title: str = "hlorun diff") -> str:
        """A self-contained page: the error per op (max rel, log scale) as an SVG
        plot, the first divergence, and the table of rows."""
        self._settle()
        w, h, pad = 900, 260, 40
        pts = []
        line = []
        n = max(len(self.rows), 1)
        first = self.first_row
        for i, r in enumerate(self.rows):
            rel = r.errors.max_rel
            y = (
                -17.0
                if rel == 0
                else max(-17.0, min(2.0, math.log10(rel) if rel < math.inf else 2.0))
            )
            x = pad + (w - 2 * pad) * i / max(n - 1, 1)
            yy = pad + (h - 2 * pad) * (2.0 - y) / 19.0
            color = "#c0392b" if r.over else "#2e86c1"
            line.append(f"{x:.1f},{yy:.1f}")
            if r is first:
                pts.append(
                    f'<line x1="{x:.1f}" y1="{pad}" x2="{x:.1f}" y2="{h - pad}" '
                    'stroke="#c0392b" stroke-dasharray="4 3"/>'
                    f'<text x="{x + 4:.1f}" y="{pad + 12}" font-size="11" fill="#c0392b">'
                    f"first divergence: op {r.index} {html.escape(_short(r.op))}</text>"
                )
            tip = html.escape(
                f"op {r.index} {r.op} r{r.result_index}: max rel {rel:.3g} at {r.location}"
            )
            pts.append(
                f'<g><title>{tip}</title><circle cx="{x:.1f}" cy="{yy:.1f}" r="3" fill="{color}"/></g>'
            )
        axis = (
            "".join(
                f'<text x="4" y="{pad + (h - 2 * pad) * (2.0 - d) / 19.0 + 4:.1f}" font-size="10">1e{d}</text>'
                for d in (0, -4, -8, -12)
            )
            + f'<text x="4" y="{h - pad + 4}" font-size="10">0</text>'
        )
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">'
            f'<rect x="{pad}" y="{pad}" width="{w - 2 * pad}" height="{h - 2 * pad}" '
            'fill="none" stroke="#999"/>'
            + axis
            + f'<polyline points="{" ".join(line)}" fill="none" stroke="#aab7c4"/>'
            + "".join(pts)
            + f'<text x="{w / 2:.0f}" y="{h - 12}" font-size="11" text-anchor="middle">'
            "op results in the order ops finish</text></svg>"
        )
        body_rows = "".join(
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{:.3g}</td><td>{:.3g}</td>"
            "<td>{:.4g}</td><td>{}</td></tr>".format(
                ' class="over"' if r.over else "",
                r.index,
                html.escape(r.op),
                r.result_index if r.iteration is None else f"{r.result_index}@{r.iteration}",
                r.errors.max_abs,
                r.errors.max_rel,
                r.errors.max_ulp,
                html.escape(r.location),
            )
            for r in self.rows
        )
        summary = html.escape(self.table(limit=0).split("\n", 1)[1])
        return (
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            "</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;"
            "font-family:monospace}tr.over{background:#f9d6d5}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>max relative error per op result against "
            f"{html.escape(self.against)}, in the order ops finish (red: over tolerance)</p>"
            f"{svg}<pre>{summary}</pre><table><tr><th>#</th><th>op</th><th>result</th>"
            "<th>max abs</th><th>max rel</th><th>max ulp</th><th>location</th></tr>"
            f"{body_rows}</table></body></html>\n"
        )


def _short(name: str) -> str:
    return name[len("stablehlo.") :] if name.startswith("stablehlo.") else name


def _why(detail: dict[str, Any]) -> str:
    parts = []
    rec = detail.get("recomputed_from_recorded_operands")
    if rec is not None:
        parts.append(
            "recomputed from the recorded operands: "
            + ("still differs" if rec["over"] else "agrees (the error came in)")
        )
    un = detail.get("recomputed_unrounded")
    if un is not None:
        parts.append("with operands not rounded: " + ("differs" if un["over"] else "agrees"))
    off = detail.get("rerun_without_optimization")
    if off is not None:
        parts.append(
            f"rerun with {off['switch']}: "
            + (f"still differs (max ulp {off['max_ulp']:.4g})" if off["over"] else "agrees")
        )
    return (" (" + "; ".join(parts) + ")") if parts else ""
