"""The one exception hierarchy of hlorun.

Every error the library raises for a bad program, a bad input or an unsupported case
is an ``HloError``.  Messages follow MLIR's diagnostic style::

    file:line:col: error: 'stablehlo.slice' op ... (slice_c3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourcePos:
    """Where a construct starts in its source text (1-based line and column)."""

    filename: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"


UNKNOWN_POS = SourcePos("<unknown>", 0, 0)


class HloError(Exception):
    """Base class of every error hlorun raises on purpose."""

    def __init__(
        self,
        message: str,
        pos: SourcePos | None = None,
        *,
        op: str | None = None,
        label: str | None = None,
        source_line: str | None = None,
    ):
        self.message = message
        self.pos = pos
        self.op = op
        self.label = label
        self.source_line = source_line
        self.origin: str | None = None  # the user's source line (``model.py:12``)
        self.location: object = None  # the failing op's ``loc(...)`` (a LocationAttr)
        # Errors reported after this one, as MLIR's parser reports one more for each
        # enclosing construct that gives up ("failed parsing dot dimension numbers
        # attribute" after the error inside the attribute).
        self.also: tuple[HloError, ...] = ()
        super().__init__(self.render())

    def diagnostics(self) -> list[HloError]:
        """This error and those reported after it (``also``), in order."""
        return [self, *self.also]

    def set_origin(self, origin: str, pos: SourcePos | None = None) -> None:
        """Name the user source line the failing op came from (a ``loc(...)`` of an
        exported model), rendered as ``(from: model.py:12)``; or, for an error with no
        position in the program (bytecode), make ``pos`` its position."""
        if pos is not None:
            self.pos = pos
        else:
            self.origin = origin
        self.args = (self.render(),)

    def render(self, *, with_source: bool = False) -> str:
        where = f"{self.pos}: " if self.pos is not None else ""
        what = f"'{self.op}' op " if self.op else ""
        tag = f" ({self.label})" if self.label else ""
        origin = f" (from: {self.origin})" if getattr(self, "origin", None) else ""
        text = f"{where}error: {what}{self.message}{tag}{origin}"
        if with_source and self.source_line is not None and self.pos is not None:
            caret = " " * max(self.pos.col - 1, 0) + "^"
            text += f"\n{self.source_line}\n{caret}"
        return text


class ParseError(HloError):
    """The text is not well-formed MLIR / StableHLO."""


class VerificationError(HloError):
    """The program is well-formed but violates a constraint of the spec."""


class InterpreterError(HloError):
    """Execution failed: a failed check, a bad input, a resource limit, ..."""


class UnsupportedError(HloError):
    """A well-formed, valid construct that hlorun does not implement (yet)."""


class HloTypeError(HloError, TypeError):
    """A value of the wrong Python type handed to the API (``run(42)``, a masked array as
    an input): an ``HloError`` that is also a ``TypeError``."""
