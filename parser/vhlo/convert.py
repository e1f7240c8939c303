"""VHLO -> VHLO at a target version (``stablehlo-opt --vhlo-to-version=target=X.Y.Z``).

Follows stablehlo/transforms/VhloToVersion.cpp: an op is legal at the target when the
target lies in its ``[min, max]`` range, its versioned constraints hold (VhloOps.cpp
``validateConstraint``) and every VHLO attribute and type it carries (recursively) is
legal too (``isLegalAttribute`` / ``isLegalType``).  An illegal op is upgraded or
downgraded one version step at a time along ``table.OP_CHANGES``
(VhloToVersionPatterns.td); a downgrade that would lose information is refused, and
then, as MLIR's partial conversion does, the op is reported ("failed to legalize
operation 'vhlo.X' that was explicitly marked illegal") together with the module
("failed to convert VHLO to vX.Y.Z").
"""

from __future__ import annotations

from ..errors import SourcePos
from ..ir import (
    Attribute,
    Function,
    Module,
    Operation,
    Region,
    Type,
)
from . import table
from .common import (
    MALFORMED,
    NONE_TYPE_ATTR,
    LegalizeError,
    default_result_accuracy,
    illegal,
    is_default_result_accuracy,
    tensor_raw,
    varray,
    vbool,
    vtensor_i64,
)
from .ir import VhloAttr, VhloType
from .version import Version, resolve_target, validate_target
from .walk import iter_ops, map_body, rebuild

__all__ = ["blockers", "is_legal_attr", "is_legal_type", "vhlo_to_version"]


# ---- legality (isLegalAttribute / isLegalType / isLegalOperation) --------------------


def is_legal_type(t: Type, v: Version) -> bool:
    if not isinstance(t, VhloType):
        return True
    info = table.TYPES.get(t.name)
    if info is None or not info.legal_at(v):
        return False
    return all(_legal_param(p, v) for p in t.params)


def is_legal_attr(a: Attribute, v: Version) -> bool:
    if not isinstance(a, VhloAttr):
        return True
    info = table.ATTRS.get(a.name) or table.ENUMS.get(a.name)
    if info is None or not info.legal_at(v):
        return False
    if a.name in table.ENUMS:
        return True
    return all(_legal_param(p, v) for p in a.params)


def _legal_param(p, v: Version) -> bool:
    if isinstance(p, VhloType):
        return is_legal_type(p, v)
    if isinstance(p, VhloAttr):
        return is_legal_attr(p, v)
    if isinstance(p, tuple):
        return all(_legal_param(x, v) for x in p)
    return True


def _element_type(t: Type) -> Type | None:
    if isinstance(t, VhloType) and t.name in ("tensor_v1", "unranked_tensor_v1"):
        return t.params[1] if t.name == "tensor_v1" else t.params[0]
    return None


def _constraints_hold(op: Operation, mnemonic: str, v: Version) -> bool:
    """VhloOps.cpp validateConstraint for the ops that declare one."""
    if mnemonic in table.CONSTRAINED_OPS and v < Version(0, 17, 0):
        ins = [_element_type(t) for t in op.operand_types]
        outs = [_element_type(t) for t in op.result_types]
        if any(a != b for a, b in zip(ins, outs)):
            return False
    if mnemonic == "custom_call_v1":
        if v < Version(1, 17, 0) and any(
            isinstance(t, VhloType) and t.name == "future_v1" for t in op.operand_types
        ):
            return False
        if v < Version(1, 3, 0):
            cfg = op.attr("backend_config")
            api = op.attr("api_version")
            if isinstance(cfg, VhloAttr) and cfg.name == "dict_v1":
                return False
            if isinstance(api, VhloAttr) and api.params == ("API_VERSION_TYPED_FFI",):
                return False
    return True


def _why_illegal(op: Operation, info: table.OpInfo, v: Version) -> str | None:
    """None when ``op`` (a version of ``info``) is legal at ``v``, else the reason."""
    if not info.legal_at(v):
        return f"'{op.name}' exists in [{info.min}, {info.max}]"
    if not _constraints_hold(op, info.mnemonic, v):
        return f"'{op.name}' constraints"
    for name, a in op.attributes:
        if not is_legal_attr(a, v):
            return f"attribute '{name}'"
    for t in op.operand_types + op.result_types:
        if not is_legal_type(t, v):
            return "type"
    return None


# ---- one version step -----------------------------------------------------------------


def _default(kind: str, op: Operation) -> Attribute:
    if kind == "empty_i64_tensor":
        return vtensor_i64([])
    if kind == "empty_array":
        return varray(())
    if kind == "none_type":
        return NONE_TYPE_ATTR
    if kind == "false":
        return vbool(False)
    if kind == "default_result_accuracy":
        return default_result_accuracy()
    if kind == "default_conv_padding":
        lhs = op.operands[0].type if op.operands else None
        if not (isinstance(lhs, VhloType) and lhs.name == "tensor_v1"):
            raise _NoMatch
        n = len(lhs.params[0]) - 2
        return vtensor_i64([0] * (2 * n), (n, 2))
    raise AssertionError(kind)


def _is_default(kind: str, a: Attribute | None) -> bool:
    """The downgrade constraints of VhloToVersionPatterns.td (isEmptyTensor, ...)."""
    if not isinstance(a, VhloAttr):
        return False
    if kind == "empty_i64_tensor":
        return tensor_raw(a) == b""
    if kind == "empty_array":
        return a.name == "array_v1" and not a.params[0]
    if kind == "none_type":
        return (
            a.name == "type_v1"
            and isinstance(a.params[0], VhloType)
            and (a.params[0].name == "none_v1")
        )
    if kind == "false":
        return a.name == "bool_v1" and not a.params[0]
    if kind == "default_result_accuracy":
        return is_default_result_accuracy(a)
    return False


class _NoMatch(Exception):
    """Internal: a pattern's constraints do not hold."""


def _rebuild(
    op: Operation, mnemonic: str, attrs: dict[str, Attribute], regions: tuple[Region, ...]
) -> Operation:
    info = table.OPS[mnemonic]
    items = tuple(sorted(attrs.items()))
    return Operation(
        info.name,
        op.operands,
        op.results,
        items,
        regions,
        op.successors,
        frozenset(k for k, _ in items if k in info.attributes),
        op.location,
        op.pos,
    )


def _upgrade(op: Operation, ch: table.OpChange) -> Operation:
    attrs = dict(op.attributes)
    for name, kind in ch.added:
        attrs[name] = _default(kind, op)
    for name, _kind in ch.dropped:
        attrs.pop(name, None)
    return _rebuild(op, ch.new, attrs, op.regions)


def _downgrade(op: Operation, ch: table.OpChange) -> Operation:
    attrs = dict(op.attributes)
    if ch.variadic and (len(op.operands) != 1 or len(op.results) != 1):
        raise _NoMatch
    if ch.empty_regions is not None and op.regions:
        raise _NoMatch
    for name, kind in ch.added:
        if not _is_default(kind, attrs.get(name)):
            raise _NoMatch
        del attrs[name]
    for name, kind in ch.dropped:
        attrs[name] = _default(kind, op)
    return _rebuild(op, ch.old, attrs, op.regions)


# ---- the pass -------------------------------------------------------------------------


class _Converter:
    def __init__(self, target: Version) -> None:
        self.target = target
        # Ops a rewrite created, in creation order (parents first): MLIR appends their
        # uses to use-lists after the uses of the ops read, which the bytecode writer
        # must know to reproduce the use-list orders (writer ``late_ops``).
        self.late: list[Operation] = []

    def op(self, op: Operation) -> Operation:
        """The op at the target, then its regions (MLIR legalizes parents first)."""
        info = table.op_info(op.name) if op.name.startswith("vhlo.") else None
        original = op
        if info is not None:
            op = self.legalize(op, info)
        elif op.name.startswith("vhlo."):
            raise LegalizeError(f"'{op.name}' is not an op of the VHLO dialect", op.pos)
        slot = None
        if op is not original:
            slot = len(self.late)
            self.late.append(op)
        done = rebuild(op, self.op) if op.regions else op
        if slot is not None:
            self.late[slot] = done
        return done

    def legalize(self, op: Operation, info: table.OpInfo) -> Operation:
        original = op
        v = self.target
        try:
            while not info.legal_at(v):
                if info.max < v:
                    ch = table.UPGRADES.get(info.mnemonic)
                    if ch is None:
                        raise _NoMatch
                    op = _upgrade(op, ch)
                else:
                    ch = table.DOWNGRADES.get(info.mnemonic)
                    if ch is None:
                        raise _NoMatch
                    op = _downgrade(op, ch)
                info = table.OPS[op.name[5:]]
            legal = _why_illegal(op, info, v) is None
        except (_NoMatch, *MALFORMED):
            raise illegal(original.name, original.pos) from None
        if not legal:
            raise illegal(original.name, original.pos)
        return op


def vhlo_to_version(
    module: Module, target: str | Version, *, late_ops: list[Operation] | None = None
) -> Module:
    """``module`` (VHLO ops) converted to the ops of version ``target`` (``X.Y.Z``; the
    patch number is ignored as upstream does).  Raises LegalizeError naming the op that
    has no form at ``target`` (with the module's "failed to convert" as a note).
    ``late_ops``, when given, receives the ops the conversion created (for the
    bytecode writer)."""
    pos = module.pos if module.pos is not None else None
    v = validate_target(resolve_target(str(target)), _module_pos(module))
    conv = _Converter(v)

    def item(x: Function | Operation) -> Function | Operation:
        if isinstance(x, Function):
            return x
        try:
            return conv.op(x)
        except LegalizeError as e:
            e.notes = (*e.notes, (pos, f"failed to convert VHLO to v{v}"))
            raise

    out = map_body(module, item)
    if late_ops is not None:
        late_ops.extend(conv.late)
    return out


def _module_pos(module: Module) -> SourcePos | None:
    return module.pos


# ---- what blocks serving a module at a version (``hlorun compat``) ------------------


def _boundaries() -> tuple[Version, ...]:
    """Every version at which something changes: range starts and ends (+1 minor), and
    the versioned constraints of VhloOps.cpp."""
    vs = {Version(0, 17, 0), Version(1, 3, 0), Version(1, 17, 0)}
    for tab in (table.OPS, table.TYPES, table.ATTRS, table.ENUMS):
        for info in tab.values():
            vs.add(info.min)
    return tuple(sorted(vs))


def _too_new(x, v: Version, where: str, pos, out: list) -> None:
    """Record each VHLO attribute / type in ``x`` that does not exist at ``v``."""
    if isinstance(x, VhloAttr):
        info = table.ATTRS.get(x.name) or table.ENUMS.get(x.name)
        if info is not None and not info.legal_at(v):
            out.append((pos, f"attribute #vhlo.{x.name} ({where})", str(info.min)))
        if x.name not in table.ENUMS:
            for p in x.params:
                _too_new(p, v, where, pos, out)
    elif isinstance(x, VhloType):
        info = table.TYPES.get(x.name)
        if info is not None and not info.legal_at(v):
            out.append((pos, f"type !vhlo.{x.name} ({where})", str(info.min)))
        for p in x.params:
            _too_new(p, v, where, pos, out)
    elif isinstance(x, tuple):
        for p in x:
            _too_new(p, v, where, pos, out)


def blockers(module: Module, target: str | Version) -> list[tuple[SourcePos | None, str, str]]:
    """Every op of a VHLO module that has no form at ``target``, with the first version
    that can serve it, followed by the attributes / types in it that are too new:
    (position, what, version)."""
    v = Version.of(target).opset()
    out: list[tuple[SourcePos | None, str, str]] = []
    conv = _Converter(v)
    later = [b for b in _boundaries() if b > v]

    def first_serving(op: Operation, info: table.OpInfo) -> str:
        for b in later:
            try:
                _Converter(b).legalize(op, info)
                return str(b)
            except LegalizeError:
                continue
        return "(none)"

    for op in iter_ops(x for x in module.body if isinstance(x, Operation)):
        info = table.op_info(op.name) if op.name.startswith("vhlo.") else None
        if info is None:
            continue
        try:
            conv.legalize(op, info)
        except LegalizeError:
            out.append((op.pos, f"op {op.name}", first_serving(op, info)))
            for name, a in op.attributes:
                _too_new(a, v, f"{op.name} {name}", op.pos, out)
            for t in op.operand_types + op.result_types:
                _too_new(t, v, op.name, op.pos, out)
    return out
