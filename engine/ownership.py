"""Buffer reuse: the one run-time check that a dying operand's buffer may be written.

Planning decides which operand of a step may give its buffer to the result (it dies
at that step, it is used once, it has the result's type: ``Step.big``, ``Step.kills``);
what cannot be known at plan time is whether anything besides the dying slot holds the
array: an argument the caller still holds, a view or a tuple made by a kernel, a
shared constant.  ``sole_reference`` answers that, and is the only place that does.

It relies on two facts:

* CPython counts references (``sys.getrefcount``).  The caller holds the array in
  exactly one local variable and passes it; the count this function then sees with no
  other holder is measured once, at import, by the same call shape (``_BASELINE``),
  so it does not depend on how a CPython version counts its arguments (3.14 borrows
  references that 3.12 counted);
* NumPy: an array may be written when it is writeable and owns its memory, or is a
  view of an array that owns its memory and that nothing but the view holds (a
  kernel's reshaped or transposed result).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

_getrefcount = sys.getrefcount
_ndarray = np.ndarray


def _count(a: Any) -> int:
    return _getrefcount(a)


def _count_base(a: Any) -> int:
    b = a.base
    return _getrefcount(b)


def _measure() -> tuple[int, int]:
    """The counts ``sole_reference`` sees for an array held by one local of its caller,
    and for the base of a view held by one local (nothing else holding either)."""
    x = np.empty(2)
    held = _count(x)
    v = np.empty(2).reshape(1, 2)
    base = _count_base(v)
    return held, base


_BASELINE, _BASE_BASELINE = _measure()


def sole_reference(a: Any) -> bool:
    """May ``a`` be written as a result's buffer?  The caller's one local variable must
    be its only holder (module docstring), and its memory its own or that of a base
    array nothing else holds."""
    if a.__class__ is not _ndarray or _getrefcount(a) != _BASELINE or not a.flags.writeable:
        return False
    b = a.base
    if b is None:
        return True
    return b.__class__ is _ndarray and b.base is None and _getrefcount(b) == _BASE_BASELINE
