"""Channel shape functions and verifiers (spec "send", "recv", "infeed", "outfeed"):
point-to-point and host transfers of the process grid.  The collectives, which share
the replica-group checks, are in ``collective``.
"""

from __future__ import annotations

from typing import Any

from ..parser.ir import (
    TensorType,
    TokenType,
    Type,
)
from .collective import check_pairs, decode_with_op
from .optable import ShapeContext, define_op
from .typeutil import require_tensor, type_text

# spec ChannelType values (channel_handle.type)
DEVICE_TO_DEVICE, DEVICE_TO_HOST, HOST_TO_DEVICE = 1, 2, 3
_SEND_PAIRS = {"shape": "send_c1", "sources": "send_c2", "targets": "send_c3", "range": "send_c4"}
_RECV_PAIRS = {"shape": "recv_c1", "sources": "recv_c2", "targets": "recv_c3", "range": "recv_c4"}
# Channels and feeds communicate with the process grid or the host: never folded or dropped.
_EFFECTS = {"side_effects"}


def _channel_type(
    ctx: ShapeContext,
    label: str,
    channel_handle,
    is_host_transfer: bool,
    host_type: int,
    host_name: str,
) -> None:
    kind = channel_handle.type if channel_handle is not None else 0
    if is_host_transfer and kind != host_type:
        raise ctx.error(label, f"channel_type should be {host_name} when is_host_transfer is true")
    if not is_host_transfer and kind != DEVICE_TO_DEVICE:
        raise ctx.error(
            label, "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false"
        )


def send_shape(
    ctx: ShapeContext,
    *operands: Type,
    channel_handle=None,
    is_host_transfer: bool = False,
    source_target_pairs=None,
    op=None,
):
    """spec "send" (C1)-(C5): inputs..., token -> token."""
    _channel_type(
        ctx, "send_c5", channel_handle, is_host_transfer, DEVICE_TO_HOST, "DEVICE_TO_HOST"
    )
    if source_target_pairs is not None and getattr(source_target_pairs, "size", 0) > 0:
        check_pairs(ctx, source_target_pairs, _SEND_PAIRS)
    if not operands or not isinstance(operands[-1], TokenType):
        raise ctx.error("send_i2", "the last operand must be a token")
    for t in operands[:-1]:
        require_tensor(ctx, t, "send_i1", "input")
    return TokenType()


def _payload_then_token(ctx: ShapeContext, labels: tuple[str, str, str], middle_msg: str) -> None:
    """Results are tensors then a token: ``labels`` for (no result, a payload that is
    not a tensor, a last result that is not a token)."""
    rs = ctx.result_types
    if not rs:
        raise ctx.error(labels[0], "result is expected to be at least of size 1, but got 0")
    for t in rs[:-1]:
        if not isinstance(t, TensorType):
            raise ctx.error(labels[1], f"{middle_msg}, but got '{type_text(t)}'")
    if not isinstance(rs[-1], TokenType):
        raise ctx.error(
            labels[2],
            f"last element of result types is expected to be of token type, but got "
            f"'{type_text(rs[-1])}'",
        )


def recv_shape(
    ctx: ShapeContext,
    token: Type,
    *,
    channel_handle=None,
    is_host_transfer: bool = False,
    source_target_pairs=None,
    op=None,
):
    """spec "recv" (C1)-(C5): token -> results..., token."""
    _channel_type(
        ctx, "recv_c5", channel_handle, is_host_transfer, HOST_TO_DEVICE, "HOST_TO_DEVICE"
    )
    if source_target_pairs is not None and getattr(source_target_pairs, "size", 0) > 0:
        check_pairs(ctx, source_target_pairs, _RECV_PAIRS)
    if not isinstance(token, TokenType):
        raise ctx.error("recv_i1", "the operand must be a token")
    # spec recv: results are payload values then a token (the Outputs table and the
    # semantics; C1-C4 are about source_target_pairs)
    _payload_then_token(
        ctx,
        ("recv_o1", "recv_o1", "recv_o1"),
        "everything but the last element of result types is expected to be of tensor type",
    )
    return None


def _layout_leaf(x: Any) -> str:
    if isinstance(x, tuple):
        return "[" + ", ".join(_layout_leaf(y) for y in x) + "]"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return f"{x} : i64"
    return str(x)


def infeed_shape(ctx: ShapeContext, token: Type, *, infeed_config: str = "", layout=None, op=None):
    """spec "infeed" (C1)-(C3), and the verifier's ``layout`` rules."""
    if not isinstance(token, TokenType):
        raise ctx.error("infeed_i1", "the operand must be a token")
    _payload_then_token(
        ctx,
        ("infeed_c1", "infeed_c2", "infeed_c3"),
        "all elements of result types, except the last element, are expected to be of tensor type",
    )
    if layout is not None:
        n = len(ctx.result_types) - 1
        if len(layout) != n:
            raise ctx.error(
                "infeed_layout",
                f"layout-attribute size must be {n} (which is the number of op-results - 1 "
                f"(for token result)), but got {len(layout)}",
            )
        for entry in layout:
            if not isinstance(entry, tuple):
                raise ctx.error(
                    "infeed_layout",
                    f"layout-attribute expected to have elements of type array, but got "
                    f"{_layout_leaf(entry)}",
                )
            for leaf in entry:
                if not isinstance(leaf, int) or isinstance(leaf, bool):
                    raise ctx.error(
                        "infeed_layout",
                        "layout-attribute's leaf elements are expected to be of type integer, "
                        f"but got {_layout_leaf(leaf).replace(' : i64', '')}",
                    )
    return None


def outfeed_shape(ctx: ShapeContext, *operands: Type, outfeed_config: str = "", op=None):
    """spec "outfeed": inputs..., token -> token."""
    if not operands or not isinstance(operands[-1], TokenType):
        raise ctx.error("outfeed_i2", "the last operand must be a token")
    for t in operands[:-1]:
        require_tensor(ctx, t, "outfeed_i1", "input")
    return TokenType()


define_op(
    "stablehlo.send",
    send_shape,
    traits={"side_effects", "cross_device"},
    decode=decode_with_op,
    attrs={"channel_handle": None, "is_host_transfer": False, "source_target_pairs": None},
)

define_op(
    "stablehlo.recv",
    recv_shape,
    traits={"side_effects", "cross_device"},
    multi_result=True,
    decode=decode_with_op,
    attrs={"channel_handle": None, "is_host_transfer": False, "source_target_pairs": None},
)

define_op(
    "stablehlo.infeed",
    infeed_shape,
    traits=_EFFECTS,
    multi_result=True,
    decode=decode_with_op,
    attrs={"infeed_config": "", "layout": None},
)

define_op(
    "stablehlo.outfeed",
    outfeed_shape,
    traits=_EFFECTS,
    decode=decode_with_op,
    attrs={"outfeed_config": ""},
)
