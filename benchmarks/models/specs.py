"""The model benchmark suite's models: their sizes and parameter lists, shared by the
jax generator (generate.py, which exports them) and the benchmark (which makes their
weights from a seed and runs them). No jax here: the suite never needs it.

Every model is a function of a flat list of arrays, in the order of ``params``: the
exported program's parameters, the NumPy floor's arguments and ``jax.jit``'s all take
that list, so weights are arguments and never part of a committed file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Param:
    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    # how the benchmark fills it: "normal" (scaled by 1/sqrt(fan_in)), "ones", "zeros",
    # "input" (standard normal), "positive" (uniform in [0.5, 1.5)), ("tokens", high)
    # for integer ids in [0, high)
    init: str | tuple[str, int] = "normal"
    fan_in: int | None = None  # for "normal": default, all axes but the last


@dataclass(frozen=True)
class Model:
    name: str
    about: str
    params: tuple[Param, ...]
    extra: dict = field(default_factory=dict)


def _ln(prefix: str, d: int) -> list[Param]:
    return [Param(f"{prefix}.g", (d,), init="ones"), Param(f"{prefix}.b", (d,), init="zeros")]


def _dense(prefix: str, fan_in: int, fan_out: int) -> list[Param]:
    return [Param(f"{prefix}.w", (fan_in, fan_out)), Param(f"{prefix}.b", (fan_out,), init="zeros")]


def _block(prefix: str, d: int, mlp: int) -> list[Param]:
    """A pre-LayerNorm transformer block: qkv, output projection, two-layer MLP."""
    return [
        *_ln(f"{prefix}.ln1", d),
        *_dense(f"{prefix}.qkv", d, 3 * d),
        *_dense(f"{prefix}.proj", d, d),
        *_ln(f"{prefix}.ln2", d),
        *_dense(f"{prefix}.fc", d, mlp),
        *_dense(f"{prefix}.out", mlp, d),
    ]


# A GPT-2-small-sized decoder LM: 12 layers, d=768, 12 heads, T=128, vocabulary 8192.
DECODER = dict(layers=12, d=768, heads=12, t=128, vocab=8192, batch=1)
# A ResNet-like CNN: batch 8 of 3x64x64, eight 3x3 convolutions with ReLU; channel
# widths 32, 32, 64, 64, 128, 128, 256, 256 (stride 2 where the width doubles, a
# residual add around each convolution that keeps its width), global mean, dense 10.
CNN = dict(batch=8, size=64, widths=(32, 32, 64, 64, 128, 128, 256, 256), classes=10)
# A ViT: batch 8 of 3x64x64, 8x8 patches (64 tokens), d=256, 6 layers, 8 heads, MLP 1024.
VIT = dict(batch=8, size=64, patch=8, d=256, layers=6, heads=8, mlp=1024, classes=10)
# LSTM and GRU as lax.scan: 64 steps, batch 16, input 128, hidden 256.
RNN = dict(steps=64, batch=16, input=128, hidden=256)
# An MLP-Mixer: batch 8 of 3x64x64, 8x8 patches (64 tokens), d=256, 4 layers, token MLP
# 128, channel MLP 1024.
MIXER = dict(batch=8, size=64, patch=8, d=256, layers=4, token_mlp=128, channel_mlp=1024)
# JAX's forms of two micro benchmarks: the 1,000-iteration while loop whose body calls a
# private function, and a chain of 10 elementwise ops over 1e6 f32.
LOOP = dict(iterations=1000)
CHAIN = dict(n=1_000_000)
# PyTorch/XLA exports (generate_torch_xla.py) of the torch_xla fixtures' models at model
# size, NCHW: a CNN of the fixture's ResBlock, batch 8 of 3x64x64, four stages of widths
# 32, 64, 128, 256 (each: a 3x3 convolution to its width, conv-BN-ReLU-conv-BN,
# residual add, ReLU, 2x2 max pool), global mean, dense 10; a transformer of the
# fixture's nn.TransformerEncoderLayer (post-LayerNorm, ReLU MLP): batch 8, T=64,
# d=256, 8 heads, MLP 1024, 4 layers.
TORCH_CNN = dict(batch=8, size=64, widths=(32, 64, 128, 256), classes=10)
TORCH_TRANSFORMER = dict(batch=8, t=64, d=256, heads=8, mlp=1024, layers=4)
TORCH_INPUTS = {
    "torch_cnn": (TORCH_CNN["batch"], 3, TORCH_CNN["size"], TORCH_CNN["size"]),
    "torch_transformer": (TORCH_TRANSFORMER["batch"], TORCH_TRANSFORMER["t"], 256),
}


def decoder() -> Model:
    c = DECODER
    d = c["d"]
    ps = [
        Param("tokens", (c["batch"], c["t"]), "int32", ("tokens", c["vocab"])),
        Param("wte", (c["vocab"], d)),
        Param("wpe", (c["t"], d)),
    ]
    for i in range(c["layers"]):
        ps += _block(f"h{i}", d, 4 * d)
    ps += _ln("lnf", d)
    return Model("decoder_lm", "GPT-2-small-sized decoder LM", tuple(ps), c)


def cnn(layout: str) -> Model:
    c = CNN
    n, s = c["batch"], c["size"]
    x_shape = (n, 3, s, s) if layout == "NCHW" else (n, s, s, 3)
    ps = [Param("x", x_shape, init="input")]
    cin = 3
    for i, w in enumerate(c["widths"]):
        k_shape = (w, cin, 3, 3) if layout == "NCHW" else (3, 3, cin, w)
        ps += [
            Param(f"conv{i}.w", k_shape, fan_in=9 * cin),
            Param(f"conv{i}.b", (w,), init="zeros"),
        ]
        cin = w
    ps += _dense("head", cin, c["classes"])
    return Model(f"resnet_cnn_{layout.lower()}", f"ResNet-like CNN, {layout}", tuple(ps), c)


def vit() -> Model:
    c = VIT
    d, p = c["d"], c["patch"]
    tokens = (c["size"] // p) ** 2
    ps = [
        Param("x", (c["batch"], 3, c["size"], c["size"]), init="input"),
        *_dense("patch", 3 * p * p, d),
        Param("pos", (tokens, d)),
    ]
    for i in range(c["layers"]):
        ps += _block(f"b{i}", d, c["mlp"])
    ps += _ln("lnf", d)
    ps += _dense("head", d, c["classes"])
    return Model("vit", "ViT", tuple(ps), c)


def rnn(kind: str) -> Model:
    c = RNN
    gates = 4 if kind == "lstm" else 3
    h = c["hidden"]
    ps = [
        Param("xs", (c["steps"], c["batch"], c["input"]), init="input"),
        Param("w_ih", (c["input"], gates * h)),
        Param("w_hh", (h, gates * h)),
        Param("b", (gates * h,), init="zeros"),
    ]
    return Model(f"{kind}_scan", f"{kind.upper()} as lax.scan", tuple(ps), c)


def mixer() -> Model:
    c = MIXER
    d, p = c["d"], c["patch"]
    tokens = (c["size"] // p) ** 2
    ps = [
        Param("x", (c["batch"], 3, c["size"], c["size"]), init="input"),
        *_dense("patch", 3 * p * p, d),
    ]
    for i in range(c["layers"]):
        ps += _ln(f"m{i}.ln1", d)
        ps += _dense(f"m{i}.tok1", tokens, c["token_mlp"])
        ps += _dense(f"m{i}.tok2", c["token_mlp"], tokens)
        ps += _ln(f"m{i}.ln2", d)
        ps += _dense(f"m{i}.ch1", d, c["channel_mlp"])
        ps += _dense(f"m{i}.ch2", c["channel_mlp"], d)
    ps += _ln("lnf", d)
    ps += _dense("head", d, 10)
    return Model("mlp_mixer", "MLP-Mixer", tuple(ps), c)


def jax_loop() -> Model:
    ps = (
        Param("x0", (), init="input"),
        Param("k0", (), "int32", ("tokens", 100)),
    )
    return Model("jax_while_loop", "1,000-iteration while loop calling a function", ps, LOOP)


def jax_chain() -> Model:
    n = CHAIN["n"]
    ps = (Param("a", (n,), init="input"), Param("b", (n,), init="input"))
    return Model("jax_chain10", "10 elementwise ops over 1e6 f32", ps, CHAIN)


TORCH_XLA_MANIFEST = Path(__file__).resolve().parent / "programs" / "torch_xla.json"


def torch_model(name: str, about: str) -> Model:
    """A PyTorch/XLA export's parameters in @main's order (its ``input_locations``, as
    generate_torch_xla.py recorded them): the input ``x`` standard normal, weights
    scaled by 1/sqrt(fan_in) (torch's layouts: fan in = all axes but the first),
    biases and running means small, running variances and norm scales in [0.5, 1.5)."""
    info = json.loads(TORCH_XLA_MANIFEST.read_text())["models"][name]
    ps = []
    for pname, shape, dtype in info["params"]:
        shape = tuple(shape)
        if pname == "x":
            ps.append(Param(pname, shape, dtype, init="input"))
        elif pname.endswith(("bias", "running_mean")):
            ps.append(Param(pname, shape, dtype, fan_in=100))
        elif len(shape) == 1:  # running_var, BatchNorm / LayerNorm weight
            ps.append(Param(pname, shape, dtype, init="positive"))
        else:
            ps.append(Param(pname, shape, dtype, fan_in=math.prod(shape[1:])))
    c = TORCH_CNN if name == "torch_cnn" else TORCH_TRANSFORMER
    return Model(name, about, tuple(ps), c)


MODELS: dict[str, Model] = {
    m.name: m
    for m in (
        decoder(),
        cnn("NCHW"),
        cnn("NHWC"),
        vit(),
        rnn("lstm"),
        rnn("gru"),
        mixer(),
        jax_loop(),
        jax_chain(),
        torch_model("torch_cnn", "PyTorch/XLA ResNet-style CNN (the fixture's ResBlock)"),
        torch_model("torch_transformer", "PyTorch/XLA nn.TransformerEncoder"),
    )
}


def make_inputs(model: Model, seed: int = 0) -> list[np.ndarray]:
    """The model's arguments from ``seed``: weights scaled by 1/sqrt(fan_in)."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    for p in model.params:
        dt = np.dtype(p.dtype)
        if isinstance(p.init, tuple):
            out.append(rng.integers(0, p.init[1], size=p.shape, dtype=dt))
        elif p.init == "ones":
            out.append(np.ones(p.shape, dt))
        elif p.init == "zeros":
            out.append(np.zeros(p.shape, dt))
        elif p.init == "positive":
            out.append(rng.uniform(0.5, 1.5, size=p.shape).astype(dt))
        elif p.init == "input":
            out.append(rng.standard_normal(p.shape).astype(dt))
        else:
            fan_in = p.fan_in or (math.prod(p.shape[:-1]) if len(p.shape) > 1 else p.shape[0])
            scale = 1.0 / math.sqrt(max(fan_in, 1))
            out.append((rng.standard_normal(p.shape) * scale).astype(dt))
    return out
