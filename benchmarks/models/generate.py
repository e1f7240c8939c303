"""Export the model benchmark suite's programs with jax.export (run by hand, with jax
installed in a venv of its own; the benchmark never needs jax):

    python benchmarks/models/generate.py

Writes, for each model of specs.MODELS, ``programs/NAME.mlir`` (``mlir_module()``, with
locations) and ``programs/NAME.exported`` (``Exported.serialize()``, which the
benchmark runs under ``jax.jit`` when jax is installed), and ``programs/MANIFEST.json``
with the jax/jaxlib versions. Weights are parameters: no committed file holds one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import specs  # noqa: E402

OUT = HERE / "programs"


def layer_norm(x, g, b, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    xc = x - mean
    var = jnp.mean(xc * xc, axis=-1, keepdims=True)
    return xc * lax.rsqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1.0 + jnp.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def softmax(s):
    m = jnp.max(s, axis=-1, keepdims=True)
    e = jnp.exp(s - m)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def attention(x, w_qkv, b_qkv, w_o, b_o, heads, causal):
    b, t, d = x.shape
    hd = d // heads
    qkv = x @ w_qkv + b_qkv
    qkv = qkv.reshape(b, t, 3, heads, hd).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    s = jnp.einsum("bhtd,bhsd->bhts", q, k) * (1.0 / np.sqrt(hd))
    if causal:
        mask = jnp.tril(jnp.ones((t, t), bool))
        s = jnp.where(mask, s, jnp.float32(-1e9))
    a = jnp.einsum("bhts,bhsd->bhtd", softmax(s), v)
    a = a.transpose(0, 2, 1, 3).reshape(b, t, d)
    return a @ w_o + b_o


def block(x, p, heads, causal):
    ln1g, ln1b, wqkv, bqkv, wo, bo, ln2g, ln2b, wfc, bfc, wout, bout = p
    x = x + attention(layer_norm(x, ln1g, ln1b), wqkv, bqkv, wo, bo, heads, causal)
    h = gelu(layer_norm(x, ln2g, ln2b) @ wfc + bfc)
    return x + (h @ wout + bout)


def decoder(tokens, wte, wpe, *rest):
    c = specs.DECODER
    x = wte[tokens] + wpe
    for i in range(c["layers"]):
        x = block(x, rest[12 * i : 12 * i + 12], c["heads"], True)
    x = layer_norm(x, rest[-2], rest[-1])
    return x @ wte.T


def cnn(layout):
    dn = ("NCHW", "OIHW", "NCHW") if layout == "NCHW" else ("NHWC", "HWIO", "NHWC")
    ch = 1 if layout == "NCHW" else 3
    sp = (2, 3) if layout == "NCHW" else (1, 2)

    def f(x, *p):
        cin = 3
        for i, w in enumerate(specs.CNN["widths"]):
            stride = 2 if (w != cin and i > 0) else 1
            y = lax.conv_general_dilated(
                x, p[2 * i], (stride, stride), "SAME", dimension_numbers=dn
            )
            bshape = [1, 1, 1, 1]
            bshape[ch] = w
            y = jnp.maximum(y + p[2 * i + 1].reshape(bshape), 0.0)
            x = y + x if w == cin else y
            cin = w
        pooled = jnp.mean(x, axis=sp)
        return pooled @ p[-2] + p[-1]

    return f


def patches(x, p):
    n, c, h, w = x.shape
    x = x.reshape(n, c, h // p, p, w // p, p).transpose(0, 2, 4, 1, 3, 5)
    return x.reshape(n, (h // p) * (w // p), c * p * p)


def vit(x, pw, pb, pos, *rest):
    c = specs.VIT
    z = patches(x, c["patch"]) @ pw + pb + pos
    for i in range(c["layers"]):
        z = block(z, rest[12 * i : 12 * i + 12], c["heads"], False)
    z = layer_norm(z, rest[-4], rest[-3])
    return jnp.mean(z, axis=1) @ rest[-2] + rest[-1]


def lstm(xs, w_ih, w_hh, b):
    h = specs.RNN["hidden"]
    n = xs.shape[1]

    def step(carry, x):
        hp, cp = carry
        g = x @ w_ih + hp @ w_hh + b
        i = jax.nn.sigmoid(g[:, :h])
        f = jax.nn.sigmoid(g[:, h : 2 * h])
        gg = jnp.tanh(g[:, 2 * h : 3 * h])
        o = jax.nn.sigmoid(g[:, 3 * h :])
        c = f * cp + i * gg
        hn = o * jnp.tanh(c)
        return (hn, c), hn

    zeros = jnp.zeros((n, h), xs.dtype)
    _, hs = lax.scan(step, (zeros, zeros), xs)
    return hs


def gru(xs, w_ih, w_hh, b):
    h = specs.RNN["hidden"]
    n = xs.shape[1]

    def step(hp, x):
        gi = x @ w_ih + b
        gh = hp @ w_hh
        r = jax.nn.sigmoid(gi[:, :h] + gh[:, :h])
        z = jax.nn.sigmoid(gi[:, h : 2 * h] + gh[:, h : 2 * h])
        nn = jnp.tanh(gi[:, 2 * h :] + r * gh[:, 2 * h :])
        hn = (1.0 - z) * nn + z * hp
        return hn, hn

    _, hs = lax.scan(step, jnp.zeros((n, h), xs.dtype), xs)
    return hs


def mixer(x, pw, pb, *rest):
    c = specs.MIXER
    z = patches(x, c["patch"]) @ pw + pb  # (n, tokens, d)
    for i in range(c["layers"]):
        (l1g, l1b, t1w, t1b, t2w, t2b, l2g, l2b, c1w, c1b, c2w, c2b) = rest[12 * i : 12 * i + 12]
        y = layer_norm(z, l1g, l1b).transpose(0, 2, 1)  # (n, d, tokens)
        y = gelu(y @ t1w + t1b) @ t2w + t2b
        z = z + y.transpose(0, 2, 1)
        y = layer_norm(z, l2g, l2b)
        z = z + (gelu(y @ c1w + c1b) @ c2w + c2b)
    z = layer_norm(z, rest[-4], rest[-3])
    return jnp.mean(z, axis=1) @ rest[-2] + rest[-1]


@jax.jit
def _loop_body(i, carry):
    """A jitted function: jax.export writes it as a private function that the while
    body calls (func.call), as JAX's own programs do."""
    x, k = carry
    return x * jnp.float32(0.5) + jnp.float32(1.25), k * 3 + i


def jax_loop(x0, k0):
    return lax.fori_loop(0, specs.LOOP["iterations"], _loop_body, (x0, k0))


def jax_chain(a, b):
    x = a + b
    x = x * a
    x = jnp.tanh(x)
    x = jnp.exp(x)
    x = x - b
    x = jnp.abs(x)
    x = jnp.sqrt(x)
    x = x * a
    x = -x
    return jnp.maximum(x, b)


FUNCTIONS = {
    "decoder_lm": decoder,
    "resnet_cnn_nchw": cnn("NCHW"),
    "resnet_cnn_nhwc": cnn("NHWC"),
    "vit": vit,
    "lstm_scan": lstm,
    "gru_scan": gru,
    "mlp_mixer": mixer,
    "jax_while_loop": jax_loop,
    "jax_chain10": jax_chain,
}


def main() -> int:
    OUT.mkdir(exist_ok=True)
    manifest = {
        "jax": jax.__version__,
        "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
        "numpy": np.__version__,
        "models": {},
    }
    import jaxlib

    manifest["jaxlib"] = jaxlib.__version__
    for name, fn in FUNCTIONS.items():
        model = specs.MODELS[name]
        args = [jax.ShapeDtypeStruct(p.shape, np.dtype(p.dtype)) for p in model.params]
        exp = jax.export.export(jax.jit(fn), platforms=["cpu"])(*args)
        (OUT / f"{name}.mlir").write_text(exp.mlir_module())
        (OUT / f"{name}.exported").write_bytes(exp.serialize())
        manifest["models"][name] = {
            "about": model.about,
            "params": len(model.params),
            "outputs": [str(a) for a in exp.out_avals],
        }
        print(name, "ok")
    (OUT / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
