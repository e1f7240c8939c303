"""The one op table: op name -> attribute spec (decoder), shape function, kernel.

Like JAX's ``standard_primitive``, the static rule and the implementation sit side by
side in one row.  ``shape_inference`` family modules create the rows with
``@shape_function(...)`` (declaring the op's attributes with their defaults and its
region names and its traits); ``engine.kernels`` family modules fill the kernel
column with ``@kernel(...)`` (and the engine's ``ufunc`` / ``fast_plan`` columns
beside it).  Every row is registered under its literal op name, in the family module
that implements the op; registering the same column of the same op twice is an error.

Traits (``OpDef.traits``, declared with the shape function; ``TRAITS`` lists them):

* ``elementwise``: acts element by element (spec "Elementwise" ops, and converts,
  compare, select, clamp): on 0-d values its result is the per-element result;
* ``commutative``: ``op(a, b) == op(b, a)`` for every element type;
* ``idempotent``: ``op(a, a) == a`` for every element type (maximum, minimum, and, or);
* ``foldable``: pure, cheap on constants: the interpreter may evaluate it at plan time
  when all its operands are constants;
* ``side_effects``: reads or writes state outside its operands (I/O, collectives,
  random state, checks, custom calls): never folded, never dropped;
* ``no_fold``: pure, but never replaced by a constant (``engine.fold``): its result is
  implementation-defined (rng_bit_generator), it is a barrier to optimization
  (optimization_barrier), or it makes a token (after_all, create_token).  Dropped
  when unused.

Calling conventions
-------------------
Shape function::

    fn(ctx: ShapeContext, *operand_types, **attrs) -> Type | tuple[Type, ...] | None

It takes types and decoded attributes, never arrays; it returns the inferred result
type(s), or None when the result cannot be inferred (then it checks
``ctx.result_types`` itself).  It raises through ``ctx.error(label, message)``.

Kernel::

    fn(*operands, result_type=..., **attrs, **regions) -> value | tuple[value, ...]

Operands are NumPy arrays (or ``Token`` / tuples); ``result_type`` is the declared
result ``Type`` (``result_types``, a tuple, for ``multi_result`` ops); attributes
arrive decoded as Python values; each region arrives as a ``RegionFn`` under the name
the row declares (``body``, ``comparator``, ``branches``...).

Kernel options (``OpDef.kernel_options``): ``context=True`` (receives the run's
``ExecutionContext``), ``operand_types=True``, ``out=True`` (may write into a dying
operand's buffer), ``quantized`` (how the op treats quantized tensors:
``engine/kernels/quantization.py`` lists the policies) and ``quantized_targets``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..parser import opdecl
from ..parser.errors import SourcePos, VerificationError
from ..parser.ir import Region, Type


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass
class OpDef:
    """One row of the op table."""

    name: str
    attrs: Mapping[str, Any] = field(default_factory=dict)
    regions: tuple[str, ...] = ()
    variadic_regions: bool = False  # True: all regions arrive as one tuple (case branches)
    multi_result: bool = False
    # how many results the op has: None = any (checked by its shape function); a row
    # that is not multi_result has 1 unless it declares 0 (checks, prints): the verifier
    # checks it, so a kernel never sees a missing result_type
    results: int | None = 1
    decode: Callable[..., dict[str, Any]] | None = None  # custom decoder (op) -> kwargs
    traits: frozenset[str] = frozenset()
    shape: Callable[..., Any] | None = None
    kernel: Callable[..., Any] | None = None
    kernel_options: dict[str, Any] = field(default_factory=dict)
    # engine columns, registered with the kernel:
    ufunc: Any = None  # engine.ufunc.Ufunc: the NumPy ufunc equal to the op, and where
    fast_plan: Callable[..., Any] | None = None  # engine.fastpath: (op, type, dtype, attrs)
    # The spec labels stating the result type, named by the verifier when a declared
    # result type differs from the inferred one: (shape label, element-type label[, rank
    # label]), or one such tuple per result; () = the generic "inferred_type".
    result_labels: tuple = ()
    # The spec label of "the process ids it names are within the process grid"
    # (size(replica_groups) = num_replicas..., all_gather_c3): checked by the kernel,
    # when the grid is known.
    grid_label: str | None = None


# The traits a row may declare (module docstring).
TRAITS = frozenset(
    {"elementwise", "commutative", "idempotent", "foldable", "side_effects", "no_fold"}
)


OP_TABLE: dict[str, OpDef] = {}


class RegistrationError(Exception):
    """A programming error in the op table (duplicate row, conflicting spec)."""


def _row(name: str) -> OpDef:
    row = OP_TABLE.get(name)
    if row is None:
        row = OP_TABLE[name] = OpDef(name)
    return row


def define_op(
    name: str,
    shape: Callable[..., Any] | None,
    *,
    attrs: Mapping[str, Any] | None = None,
    regions: tuple[str, ...] = (),
    variadic_regions: bool = False,
    multi_result: bool = False,
    decode: Callable[..., dict[str, Any]] | None = None,
    traits: frozenset[str] | set[str] | tuple[str, ...] = (),
    result_labels: tuple = (),
    results: int | None = None,
    grid_label: str | None = None,
) -> OpDef:
    """Create (or complete) the static side of a row: attributes, regions, traits,
    shape function."""
    row = _row(name)
    if row.shape is not None or row.attrs or row.regions or row.traits:
        raise RegistrationError(f"shape function for {name!r} registered twice")
    unknown = set(traits) - TRAITS
    if unknown:
        raise RegistrationError(f"unknown traits {sorted(unknown)} for {name!r}")
    row.traits = frozenset(traits)
    row.shape = shape
    row.attrs = declared_attrs(name, attrs)
    row.regions = tuple(regions)
    row.variadic_regions = variadic_regions
    row.multi_result = multi_result
    row.results = results if results is not None else (None if multi_result else 1)
    row.decode = decode
    row.result_labels = tuple(result_labels)
    row.grid_label = grid_label
    return row


def declared_attrs(name: str, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A row's ``attrs`` from parser/opdecl.py's declaration of ``name`` (the one
    declaration the custom forms parse and print): each attribute's default, REQUIRED
    when it must be present.  ``given`` adds what the declaration leaves to the shape
    layer (the fields of a flattened structured attribute); an attribute both name must
    agree."""
    out: dict[str, Any] = {}
    decl = opdecl.OP_DECLS.get(name)
    for a in decl.attrs if decl is not None else ():
        if a.kind not in opdecl.STRUCT_KINDS:
            out[a.name] = REQUIRED if a.default is opdecl.REQUIRED else a.default
    for key, value in (given or {}).items():
        if key in out and not (out[key] is value or out[key] == value):
            raise RegistrationError(
                f"{name}: attribute {key!r} defaults to {value!r} here but to "
                f"{out[key]!r} in parser/opdecl.py"
            )
        out[key] = value
    return out


def shape_function(name: str, **spec: Any) -> Callable[[Callable], Callable]:
    """Decorator form of ``define_op``."""

    def wrap(fn: Callable) -> Callable:
        define_op(name, fn, **spec)
        return fn

    return wrap


def register_kernel(
    name: str,
    fn: Callable[..., Any],
    *,
    ufunc: Any = None,
    fast_plan: Callable[..., Any] | None = None,
    **options: Any,
) -> None:
    """Fill the kernel column of ``name``'s row (and its ``ufunc`` / ``fast_plan``)."""
    row = _row(name)
    if row.kernel is not None:
        raise RegistrationError(f"kernel for {name!r} registered twice")
    row.kernel = fn
    row.kernel_options = options
    row.ufunc = ufunc
    row.fast_plan = fast_plan


def kernel(name: str, **options: Any) -> Callable[[Callable], Callable]:
    """Decorator: fill the kernel column of ``name``'s row."""

    def wrap(fn: Callable) -> Callable:
        register_kernel(name, fn, **options)
        return fn

    return wrap


@dataclass
class ShapeContext:
    """What a shape function may know besides operand types and attributes."""

    op: str
    pos: SourcePos | None = None
    result_types: tuple[Type, ...] = ()
    regions: tuple[Region, ...] = ()
    # The value of each operand that a ``stablehlo.constant`` defines (None otherwise),
    # for checks the spec states on constant shape operands (dynamic_* ops).
    operand_values: tuple[Any, ...] = ()

    def error(self, label: str, message: str) -> VerificationError:
        """Build the error to raise: ``raise ctx.error("slice_c3", "...")``."""
        return VerificationError(message, self.pos, op=self.op, label=label)
