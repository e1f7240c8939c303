"""One program per constraint label of the collective family (spec "all_gather",
"all_reduce", "reduce_scatter", "all_to_all", "collective_broadcast",
"collective_reduce", "collective_permute", "send", "recv", "infeed", "outfeed"), each
violating exactly that constraint as the spec states it; and valid programs that must
verify cleanly.  Constraints on the size of the process grid (num_replicas,
num_partitions) are not static: the kernels check them."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

X = "tensor<4x2xf32>"
TOKEN = "!stablehlo.token"
GROUPS = "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"
CHANNEL = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>"


def groups(text: str) -> str:
    """``replica_groups`` of the given dense literal, typed by its shape."""
    rows = [r for r in text.strip()[2:-2].split("], [")] if text.strip().startswith("[[") else None
    if rows is None:  # 1-d
        n = len(text.strip()[1:-1].split(","))
        return f"replica_groups = dense<{text}> : tensor<{n}xi64>"
    return f"replica_groups = dense<{text}> : tensor<{len(rows)}x{len(rows[0].split(','))}xi64>"


def add_region(t: str = "tensor<f32>") -> str:
    return (
        "({\n  ^bb0(%x: "
        + t
        + ", %y: "
        + t
        + "):\n    %s = stablehlo.add %x, %y : "
        + t
        + '\n    "stablehlo.return"(%s) : ('
        + t
        + ") -> ()\n  })"
    )


def all_gather(
    attrs: str = f"all_gather_dim = 1 : i64, {GROUPS}",
    operand: str = X,
    result: str = "tensor<4x4xf32>",
) -> str:
    return func(
        f"%a: {operand}", f'%r = "stablehlo.all_gather"(%a) {{{attrs}}} : ({operand}) -> {result}'
    )


def all_reduce(
    attrs: str = GROUPS, operand: str = X, result: str = X, body: str | None = None
) -> str:
    return func(
        f"%a: {operand}",
        f'%r = "stablehlo.all_reduce"(%a) {body or add_region()} '
        f"{{{attrs}}} : ({operand}) -> {result}",
    )


def reduce_scatter(
    attrs: str = f"scatter_dimension = 0 : i64, {GROUPS}",
    operand: str = X,
    result: str = "tensor<2x2xf32>",
    body: str | None = None,
) -> str:
    lhs = "" if result == "()" else "%r = "
    return func(
        f"%a: {operand}",
        f'{lhs}"stablehlo.reduce_scatter"(%a) {body or add_region()} '
        f"{{{attrs}}} : ({operand}) -> {result}",
    )


A2A = "split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64"


def all_to_all(
    attrs: str = f"{A2A}, {GROUPS}", operand: str = X, result: str = "tensor<2x4xf32>"
) -> str:
    return func(
        f"%a: {operand}", f'%r = "stablehlo.all_to_all"(%a) {{{attrs}}} : ({operand}) -> {result}'
    )


def collective_broadcast(attrs: str = GROUPS, operands: str = X, results: str = X) -> str:
    names = ", ".join(f"%a{i}" for i in range(len(operands.split(", ")))) if operands else ""
    args = (
        ", ".join(f"{n}: {t}" for n, t in zip(names.split(", "), operands.split(", ")))
        if operands
        else ""
    )
    lhs = "" if results == "()" else "%r = "
    return func(
        args,
        f'{lhs}"stablehlo.collective_broadcast"({names}) {{{attrs}}} : ({operands}) -> {results}',
    )


def collective_reduce(
    attrs: str = GROUPS, operands: str = X, results: str = X, body: str | None = None
) -> str:
    names = ", ".join(f"%a{i}" for i in range(len(operands.split(", ")))) if operands else ""
    args = (
        ", ".join(f"{n}: {t}" for n, t in zip(names.split(", "), operands.split(", ")))
        if operands
        else ""
    )
    lhs = "" if results == "()" else "%r = "
    return func(
        args,
        f'{lhs}"stablehlo.collective_reduce"({names}) {body or add_region()} '
        f"{{{attrs}}} : ({operands}) -> {results}",
    )


PAIRS = "source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>"


def collective_permute(pairs: str = PAIRS, operand: str = X, result: str = X) -> str:
    return func(
        f"%a: {operand}",
        f'%r = "stablehlo.collective_permute"(%a) {{{pairs}}} : ({operand}) -> {result}',
    )


D2D = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"
D2H = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>"
H2D = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>"


def send(
    attrs: str = f"{D2D}, is_host_transfer = false, {PAIRS}", operands: str = f"{X}, {TOKEN}"
) -> str:
    types = operands.split(", ")
    names = [f"%a{i}" for i in range(len(types))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return func(
        args, f'%r = "stablehlo.send"({", ".join(names)}) {{{attrs}}} : ({operands}) -> {TOKEN}'
    )


def recv(
    attrs: str = f"{D2D}, is_host_transfer = false, {PAIRS}",
    operand: str = TOKEN,
    results: str = f"{X}, {TOKEN}",
) -> str:
    n = len(results.split(", "))
    lhs = "" if results == "" else ("%r = " if n == 1 else f"%r:{n} = ")
    return func(
        f"%t: {operand}", f'{lhs}"stablehlo.recv"(%t) {{{attrs}}} : ({operand}) -> ({results})'
    )


def infeed(operand: str = TOKEN, results: str = f"{X}, {TOKEN}") -> str:
    n = len(results.split(", "))
    lhs = "" if results == "" else ("%r = " if n == 1 else f"%r:{n} = ")
    return func(f"%t: {operand}", f'{lhs}"stablehlo.infeed"(%t) : ({operand}) -> ({results})')


def outfeed(operands: str = f"{X}, {TOKEN}") -> str:
    types = operands.split(", ")
    names = [f"%a{i}" for i in range(len(types))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return func(args, f'%r = "stablehlo.outfeed"({", ".join(names)}) : ({operands}) -> {TOKEN}')


def run_parallel(attrs: str) -> str:
    return "func.func @f() {\n  func.return\n}\n" + func(
        "", f'"interpreter.run_parallel"() {{{attrs}}} : () -> ()'
    )


VALID = {
    "all_gather": all_gather(),
    "all_gather_global_ids": all_gather(
        f"all_gather_dim = 0 : i64, {GROUPS}, {CHANNEL}, use_global_device_ids",
        result="tensor<8x2xf32>",
    ),
    "all_reduce": all_reduce(),
    # all_reduce (C5): is_promotable(f32, f64); (C7) element_type(results...) = E
    "all_reduce_promoted": all_reduce(result="tensor<4x2xf64>", body=add_region("tensor<f64>")),
    "all_reduce_uneven_groups": all_reduce(groups("[[0, 1, 2], [3, -1, -1]]")),
    "reduce_scatter": reduce_scatter(),
    "all_to_all": all_to_all(),
    "collective_broadcast": collective_broadcast(),
    "collective_broadcast_dynamic_root": collective_broadcast(
        f"{GROUPS}, has_dynamic_root", operands=f"{X}, tensor<1xi32>"
    ),
    "collective_reduce": collective_reduce(),
    "collective_permute": collective_permute(),
    "send": send(),
    "send_to_host": send(f"{D2H}, is_host_transfer = true"),
    "recv": recv(),
    "recv_from_host": recv(f"{H2D}, is_host_transfer = true"),
    "infeed": infeed(),
    "infeed_token_only": infeed(results=TOKEN),
    "infeed_layout": func(
        f"%t: {TOKEN}",
        f'%r:2 = "stablehlo.infeed"(%t) {{layout = [[1, 0]]}} : ({TOKEN}) -> ({X}, {TOKEN})',
    ),
    "run_parallel": run_parallel("programs = [[@f, @f], [@f, @f]]"),
    "run_parallel_infeed": run_parallel("programs = [[@f]], infeed = [@f]"),
    "outfeed": outfeed(),
}

NEGATIVE = [
    # all_gather (I1) operands: tensors
    ("all_gather_i1", all_gather(operand=TOKEN)),
    # all_gather (I3) replica_groups: 2-dimensional
    ("all_gather_i3", all_gather(f"all_gather_dim = 1 : i64, {groups('[0, 1]')}")),
    # all_gather (C1) 0 <= all_gather_dim < rank(operands...)
    ("all_gather_c1", all_gather(f"all_gather_dim = 2 : i64, {GROUPS}")),
    # all_gather (C2) is_unique(replica_groups)
    ("all_gather_c2", all_gather(f"all_gather_dim = 1 : i64, {groups('[[0, 0]]')}")),
    # all_gather (C4) 0 <= replica_groups < size(replica_groups)
    ("all_gather_c4", all_gather(f"all_gather_dim = 1 : i64, {groups('[[0, 2]]')}")),
    # all_gather (C5) use_global_device_ids = true => channel_id > 0
    ("all_gather_c5", all_gather(f"all_gather_dim = 1 : i64, {GROUPS}, use_global_device_ids")),
    # all_gather (C6) type(results...) = type(operands...) but the gathered dimension
    ("all_gather_c6", all_gather(result="tensor<4x4xf64>")),
    ("all_gather_c6", all_gather(result="tensor<5x4xf32>")),
    # the results are tensors
    ("all_gather_o1", all_gather(result=TOKEN)),
    # all_reduce (I1) operands: tensors
    ("all_reduce_i1", all_reduce(operand=TOKEN, result=TOKEN)),
    # all_reduce (I2) replica_groups: 1-dimensional tensor constants (a 2-d constant)
    ("all_reduce_i2", all_reduce(groups("[0, 1]"))),
    # all_reduce (C1) is_unique(replica_groups)
    ("all_reduce_c1", all_reduce(groups("[[0, 1], [1, 2]]"))),
    # all_reduce (C3) 0 <= replica_groups < size(replica_groups)
    ("all_reduce_c3", all_reduce(groups("[[0, 2]]"))),
    # all_reduce (C4) use_global_device_ids = true => channel_id > 0
    ("all_reduce_c4", all_reduce(f"{GROUPS}, use_global_device_ids")),
    # all_reduce (C5) computation: (tensor<E>, tensor<E>) -> tensor<E>, is_promotable
    ("all_reduce_c5", all_reduce(body=add_region("tensor<i32>"))),
    ("all_reduce_c5", all_reduce(body=add_region("tensor<2xf32>"))),
    # all_reduce (C7) element_type(results...) = E
    ("all_reduce_c7", all_reduce(result="tensor<4x2xf64>")),
    # reduce_scatter (I1) operand: tensor
    ("reduce_scatter_i1", reduce_scatter(operand=TOKEN)),
    # reduce_scatter (I3) replica_groups: 2-dimensional
    ("reduce_scatter_i3", reduce_scatter(f"scatter_dimension = 0 : i64, {groups('[0, 1]')}")),
    # reduce_scatter (C1) dim(operand, scatter_dimension) % dim(process_groups, 1) = 0
    # (statically: a multiple of the result's dimension)
    ("reduce_scatter_c1", reduce_scatter(result="tensor<3x2xf32>")),
    # reduce_scatter (C2) 0 <= scatter_dimension < rank(operand)
    ("reduce_scatter_c2", reduce_scatter(f"scatter_dimension = 2 : i64, {GROUPS}")),
    ("reduce_scatter_c2", reduce_scatter(f"scatter_dimension = -1 : i64, {GROUPS}")),
    # reduce_scatter (C3) is_unique(replica_groups)
    ("reduce_scatter_c3", reduce_scatter(f"scatter_dimension = 0 : i64, {groups('[[1, 1]]')}")),
    # reduce_scatter (C5) 0 <= replica_groups < size(replica_groups)
    ("reduce_scatter_c5", reduce_scatter(f"scatter_dimension = 0 : i64, {groups('[[0, 2]]')}")),
    # reduce_scatter (C6) use_global_device_ids = true => channel_id > 0
    (
        "reduce_scatter_c6",
        reduce_scatter(f"scatter_dimension = 0 : i64, {GROUPS}, use_global_device_ids"),
    ),
    # reduce_scatter (C7) computation
    ("reduce_scatter_c7", reduce_scatter(body=add_region("tensor<i32>"))),
    # reduce_scatter (C8) shape(result) = shape(operand) but the scatter dimension
    ("reduce_scatter_c8", reduce_scatter(result="tensor<2x3xf32>")),
    ("reduce_scatter_c8", reduce_scatter(result="tensor<2xf32>")),
    # reduce_scatter (C9) element_type(result) = E
    ("reduce_scatter_c9", reduce_scatter(result="tensor<2x2xf64>")),
    # the result is a tensor
    ("reduce_scatter_o1", reduce_scatter(result=TOKEN)),
    # no result at all: the op's result count
    ("result_count", reduce_scatter(result="()")),
    # all_to_all (I1) operands: tensors
    ("all_to_all_i1", all_to_all(operand=TOKEN)),
    # all_to_all (I5) replica_groups: 2-dimensional
    ("all_to_all_i5", all_to_all(f"{A2A}, {groups('[0, 1]')}")),
    # all_to_all (C1) 0 <= split_dimension < rank(operands...)
    (
        "all_to_all_c1",
        all_to_all(
            f"split_dimension = 2 : i64, concat_dimension = 1 : i64, "
            f"split_count = 2 : i64, {GROUPS}"
        ),
    ),
    (
        "all_to_all_c1",
        all_to_all(
            f"split_dimension = -1 : i64, concat_dimension = 1 : i64, "
            f"split_count = 2 : i64, {GROUPS}"
        ),
    ),
    # all_to_all (C2) dim(operands..., split_dimension) % split_count = 0
    ("all_to_all_c2", all_to_all(operand="tensor<3x2xf32>")),
    # all_to_all (C3) 0 <= concat_dimension < rank(operands...)
    (
        "all_to_all_c3",
        all_to_all(
            f"split_dimension = 0 : i64, concat_dimension = 2 : i64, "
            f"split_count = 2 : i64, {GROUPS}"
        ),
    ),
    (
        "all_to_all_c3",
        all_to_all(
            f"split_dimension = 0 : i64, concat_dimension = -1 : i64, "
            f"split_count = 2 : i64, {GROUPS}"
        ),
    ),
    # all_to_all (C4) 0 < split_count
    (
        "all_to_all_c4",
        all_to_all(
            f"split_dimension = 0 : i64, concat_dimension = 1 : i64, "
            f"split_count = 0 : i64, {GROUPS}"
        ),
    ),
    # all_to_all (C5) is_unique(replica_groups)
    ("all_to_all_c5", all_to_all(f"{A2A}, {groups('[[0, 0]]')}")),
    # all_to_all (C7) 0 <= replica_groups < size(replica_groups)
    ("all_to_all_c7", all_to_all(f"{A2A}, {groups('[[0, 2]]')}")),
    # all_to_all (C8) dim(replica_groups, 1) = split_count
    ("all_to_all_c8", all_to_all(f"{A2A}, {groups('[[0, 1, 2]]')}")),
    # all_to_all (C9) type(results...) = type(operands...) but the split/concat dimensions
    ("all_to_all_c9", all_to_all(result="tensor<2x4xf64>")),
    # collective_broadcast (I1) operands: tensors
    ("collective_broadcast_i1", collective_broadcast(operands=TOKEN, results=TOKEN)),
    # collective_broadcast (I2) replica_groups (a 2-d constant)
    ("collective_broadcast_i2", collective_broadcast(groups("[0, 1]"))),
    # collective_broadcast (C1) is_unique(replica_groups)
    ("collective_broadcast_c1", collective_broadcast(groups("[[0, 1], [1, 2]]"))),
    # collective_broadcast (C2) 0 <= replica_groups
    ("collective_broadcast_c2", collective_broadcast(groups("[[0, -2]]"))),
    # collective_broadcast (C3) has_dynamic_root = false: size(operands) >= 1
    ("collective_broadcast_c3", collective_broadcast(operands="", results="()")),
    # collective_broadcast (C4) has_dynamic_root = true: size(operands) >= 2, the last
    # one of type tensor<[size(operands)-1]xi32>
    ("collective_broadcast_c4", collective_broadcast(f"{GROUPS}, has_dynamic_root")),
    (
        "collective_broadcast_c4",
        collective_broadcast(f"{GROUPS}, has_dynamic_root", operands=f"{X}, tensor<1xf32>"),
    ),
    (
        "collective_broadcast_c4",
        collective_broadcast(f"{GROUPS}, has_dynamic_root", operands=f"{X}, tensor<2xi32>"),
    ),
    # collective_reduce (I1) operands: tensors
    ("collective_reduce_i1", collective_reduce(operands=TOKEN, results=TOKEN)),
    # collective_reduce (I2) replica_groups (a 2-d constant)
    ("collective_reduce_i2", collective_reduce(groups("[0, 1]"))),
    # collective_reduce (C1) is_unique(replica_groups)
    ("collective_reduce_c1", collective_reduce(groups("[[0, 0]]"))),
    # collective_reduce (C2) 0 <= replica_groups
    ("collective_reduce_c2", collective_reduce(groups("[[0, -3]]"))),
    # collective_reduce (C3) the operands (has_dynamic_root: data + root)
    ("collective_reduce_c3", collective_reduce(operands="", results="()")),
    (
        "collective_reduce_c3",
        collective_reduce(f"{GROUPS}, has_dynamic_root", operands=f"{X}, tensor<2xi32>"),
    ),
    # collective_reduce (C4) computation
    ("collective_reduce_c4", collective_reduce(body=add_region("tensor<i32>"))),
    # (the StableHLO verifier suite labels this one collective_reduce_c4 as well)
    ("collective_reduce_c4", collective_reduce(f"{GROUPS}, use_global_device_ids")),
    # collective_permute (I1) operand: tensor
    ("collective_permute_i1", collective_permute(operand=TOKEN, result=TOKEN)),
    # collective_permute (C1) dim(source_target_pairs, 1) = 2
    (
        "collective_permute_c1",
        collective_permute("source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>"),
    ),
    # collective_permute (C2) is_unique(source_target_pairs[:, 0])
    (
        "collective_permute_c2",
        collective_permute("source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>"),
    ),
    # collective_permute (C3) is_unique(source_target_pairs[:, 1])
    (
        "collective_permute_c3",
        collective_permute("source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>"),
    ),
    # collective_permute (C4) 0 <= source_target_pairs
    (
        "collective_permute_c4",
        collective_permute("source_target_pairs = dense<[[0, -1]]> : tensor<1x2xi64>"),
    ),
    # collective_permute (C5) type(result) = type(operand)
    ("collective_permute_c5", collective_permute(result="tensor<4x2xf64>")),
    ("collective_permute_c5", collective_permute(result="tensor<2x4xf32>")),
    # send (I1) inputs: tensors; (I2) token
    ("send_i1", send(operands=f"{TOKEN}, {TOKEN}")),
    ("send_i2", send(operands=X)),
    # send (C1)-(C4): source_target_pairs
    ("send_c1", send(f"{D2D}, source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>")),
    ("send_c2", send(f"{D2D}, source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>")),
    ("send_c3", send(f"{D2D}, source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>")),
    ("send_c4", send(f"{D2D}, source_target_pairs = dense<[[0, -1]]> : tensor<1x2xi64>")),
    # send (C5) channel_type: DEVICE_TO_HOST iff is_host_transfer
    ("send_c5", send(f"{D2D}, is_host_transfer = true")),
    ("send_c5", send(f"{D2H}, is_host_transfer = false, {PAIRS}")),
    # recv (I1) token
    ("recv_i1", recv(operand=X)),
    # recv (C1)-(C4): source_target_pairs
    ("recv_c1", recv(f"{D2D}, source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>")),
    ("recv_c2", recv(f"{D2D}, source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>")),
    ("recv_c3", recv(f"{D2D}, source_target_pairs = dense<[[0, 1], [2, 1]]> : tensor<2x2xi64>")),
    ("recv_c4", recv(f"{D2D}, source_target_pairs = dense<[[0, -1]]> : tensor<1x2xi64>")),
    # recv (C5) channel_type: HOST_TO_DEVICE iff is_host_transfer
    ("recv_c5", recv(f"{D2D}, is_host_transfer = true")),
    ("recv_c5", recv(f"{H2D}, is_host_transfer = false, {PAIRS}")),
    # recv results: payload tensors, then a token
    ("recv_o1", recv(results=X)),
    ("recv_o1", recv(results=f"{TOKEN}, {TOKEN}")),
    ("recv_o1", recv(results="")),
    # infeed (I1) token
    ("infeed_i1", infeed(operand=X)),
    # infeed (C1) 0 < size(results)
    ("infeed_c1", infeed(results="")),
    # infeed (C2) is_empty(result[:-1]) or is_tensor(type(results[:-1]))
    ("infeed_c2", infeed(results=f"{TOKEN}, {TOKEN}")),
    # infeed (C3) is_token(type(results[-1]))
    ("infeed_c3", infeed(results=X)),
    # the StableHLO dialect's infeed layout: one array of integers per payload result
    (
        "infeed_layout",
        func(
            f"%t: {TOKEN}",
            '%r:2 = "stablehlo.infeed"(%t) {layout = [[1, 0], '
            f"[0]]}} : ({TOKEN}) -> ({X}, {TOKEN})",
        ),
    ),
    (
        "infeed_layout",
        func(
            f"%t: {TOKEN}",
            f'%r:2 = "stablehlo.infeed"(%t) {{layout = [0]}} : ({TOKEN}) -> ({X}, {TOKEN})',
        ),
    ),
    # interpreter.run_parallel (docs/test-dialects.md): a rectangle of function symbols,
    # and an infeed of function symbols
    ("run_parallel_programs", run_parallel("programs = [[@f], []]")),
    ("run_parallel_programs", run_parallel("programs = [[@f], [@f, @f]]")),
    ("run_parallel_programs", run_parallel("programs = [[1 : i64]]")),
    ("run_parallel_infeed", run_parallel("programs = [[@f]], infeed = [1 : i64]")),
    # outfeed (I1) inputs: tensors; (I2) token
    ("outfeed_i1", outfeed(f"{TOKEN}, {TOKEN}")),
    ("outfeed_i2", outfeed(X)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
