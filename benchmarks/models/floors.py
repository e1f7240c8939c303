"""Hand-written NumPy versions of the suite's models: the floor hlorun is measured
against. One NumPy call per op of the exported program, in the program's dtypes, each
into a new array (no fusion, no ``out=``); a convolution is im2col with
``sliding_window_view`` plus one matmul, accumulating as hlorun's rule does (f32 below
``CONV_F64_K`` terms per output, float64 rounded once above it). Each function takes the
model's flat parameter list (specs.Model.params order) and returns what the exported
program returns.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from hlorun.engine.kernels.convolution import CONV_F64_K

from . import specs

F32 = np.float32


EPS = F32(1e-5)


def layer_norm(x, g, b, eps=EPS):
    n = F32(x.shape[-1])
    mean = np.divide(np.sum(x, axis=-1, keepdims=True), n)
    xc = np.subtract(x, mean)
    var = np.divide(np.sum(np.multiply(xc, xc), axis=-1, keepdims=True), n)
    r = np.divide(F32(1), np.sqrt(np.add(var, eps)))
    return np.add(np.multiply(np.multiply(xc, r), g), b)


def gelu(x):
    x3 = np.multiply(np.multiply(x, x), x)
    inner = np.multiply(F32(0.7978845608028654), np.add(x, np.multiply(F32(0.044715), x3)))
    return np.multiply(np.multiply(F32(0.5), x), np.add(F32(1), np.tanh(inner)))


def softmax(s):
    m = np.max(s, axis=-1, keepdims=True)
    e = np.exp(np.subtract(s, m))
    return np.divide(e, np.sum(e, axis=-1, keepdims=True))


def sigmoid(x):
    return np.divide(F32(1), np.add(F32(1), np.exp(np.negative(x))))


def attention(x, w_qkv, b_qkv, w_o, b_o, heads, causal):
    b, t, d = x.shape
    hd = d // heads
    qkv = np.add(np.matmul(x, w_qkv), b_qkv)
    qkv = np.ascontiguousarray(qkv.reshape(b, t, 3, heads, hd).transpose(2, 0, 3, 1, 4))
    q, k, v = qkv[0], qkv[1], qkv[2]
    s = np.multiply(np.matmul(q, k.transpose(0, 1, 3, 2)), F32(1.0 / np.sqrt(hd)))
    if causal:
        mask = np.tril(np.ones((t, t), bool))
        s = np.where(mask, s, F32(-1e9))
    a = np.matmul(softmax(s), v)
    a = np.ascontiguousarray(a.transpose(0, 2, 1, 3)).reshape(b, t, d)
    return np.add(np.matmul(a, w_o), b_o)


def block(x, p, heads, causal):
    ln1g, ln1b, wqkv, bqkv, wo, bo, ln2g, ln2b, wfc, bfc, wout, bout = p
    x = np.add(x, attention(layer_norm(x, ln1g, ln1b), wqkv, bqkv, wo, bo, heads, causal))
    h = gelu(np.add(np.matmul(layer_norm(x, ln2g, ln2b), wfc), bfc))
    return np.add(x, np.add(np.matmul(h, wout), bout))


def decoder_lm(tokens, wte, wpe, *rest):
    c = specs.DECODER
    x = np.add(np.take(wte, tokens, axis=0), wpe)
    for i in range(c["layers"]):
        x = block(x, rest[12 * i : 12 * i + 12], c["heads"], True)
    x = layer_norm(x, rest[-2], rest[-1])
    return np.matmul(x, wte.T)


def conv2d_same(x, w, stride, layout):
    """3x3 SAME convolution as im2col + one matmul, in hlorun's accumulation dtype."""
    if layout == "NCHW":  # x (N, C, H, W), w (O, I, 3, 3)
        x = x.transpose(0, 2, 3, 1)
        w = w.transpose(2, 3, 1, 0)
    # now x (N, H, W, C), w (3, 3, I, O)
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    work = np.float64 if kh * kw * c > CONV_F64_K else np.float32
    oh, ow = math.ceil(h / stride), math.ceil(wd / stride)
    ph = max((oh - 1) * stride + kh - h, 0)
    pw = max((ow - 1) * stride + kw - wd, 0)
    xp = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    win = sliding_window_view(xp, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    # win (N, OH, OW, C, KH, KW) -> rows (N*OH*OW, KH*KW*C)
    cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * c)
    y = np.matmul(cols.astype(work, copy=False), w.reshape(kh * kw * c, o).astype(work))
    y = y.astype(F32, copy=False).reshape(n, oh, ow, o)
    return y.transpose(0, 3, 1, 2) if layout == "NCHW" else y


def _cnn(layout):
    ch = 1 if layout == "NCHW" else 3
    sp = (2, 3) if layout == "NCHW" else (1, 2)

    def f(x, *p):
        cin = 3
        for i, w in enumerate(specs.CNN["widths"]):
            stride = 2 if (w != cin and i > 0) else 1
            y = conv2d_same(x, p[2 * i], stride, layout)
            bshape = [1, 1, 1, 1]
            bshape[ch] = w
            y = np.maximum(np.add(y, p[2 * i + 1].reshape(bshape)), F32(0))
            x = np.add(y, x) if w == cin else y
            cin = w
        pooled = np.divide(np.sum(x, axis=sp), F32(x.shape[sp[0]] * x.shape[sp[1]]))
        return np.add(np.matmul(pooled, p[-2]), p[-1])

    return f


resnet_cnn_nchw = _cnn("NCHW")
resnet_cnn_nhwc = _cnn("NHWC")


def patches(x, p):
    n, c, h, w = x.shape
    x = x.reshape(n, c, h // p, p, w // p, p).transpose(0, 2, 4, 1, 3, 5)
    return np.ascontiguousarray(x).reshape(n, (h // p) * (w // p), c * p * p)


def vit(x, pw, pb, pos, *rest):
    c = specs.VIT
    z = np.add(np.add(np.matmul(patches(x, c["patch"]), pw), pb), pos)
    for i in range(c["layers"]):
        z = block(z, rest[12 * i : 12 * i + 12], c["heads"], False)
    z = layer_norm(z, rest[-4], rest[-3])
    pooled = np.divide(np.sum(z, axis=1), F32(z.shape[1]))
    return np.add(np.matmul(pooled, rest[-2]), rest[-1])


def lstm_scan(xs, w_ih, w_hh, b):
    h = specs.RNN["hidden"]
    n = xs.shape[1]
    hp = np.zeros((n, h), F32)
    cp = np.zeros((n, h), F32)
    hs = np.zeros((xs.shape[0], n, h), F32)
    for t in range(xs.shape[0]):
        g = np.add(np.add(np.matmul(xs[t], w_ih), np.matmul(hp, w_hh)), b)
        i = sigmoid(g[:, :h])
        f = sigmoid(g[:, h : 2 * h])
        gg = np.tanh(g[:, 2 * h : 3 * h])
        o = sigmoid(g[:, 3 * h :])
        cp = np.add(np.multiply(f, cp), np.multiply(i, gg))
        hp = np.multiply(o, np.tanh(cp))
        hs[t] = hp
    return hs


def gru_scan(xs, w_ih, w_hh, b):
    h = specs.RNN["hidden"]
    n = xs.shape[1]
    hp = np.zeros((n, h), F32)
    hs = np.zeros((xs.shape[0], n, h), F32)
    for t in range(xs.shape[0]):
        gi = np.add(np.matmul(xs[t], w_ih), b)
        gh = np.matmul(hp, w_hh)
        r = sigmoid(np.add(gi[:, :h], gh[:, :h]))
        z = sigmoid(np.add(gi[:, h : 2 * h], gh[:, h : 2 * h]))
        nn = np.tanh(np.add(gi[:, 2 * h :], np.multiply(r, gh[:, 2 * h :])))
        hp = np.add(np.multiply(np.subtract(F32(1), z), nn), np.multiply(z, hp))
        hs[t] = hp
    return hs


def mlp_mixer(x, pw, pb, *rest):
    c = specs.MIXER
    z = np.add(np.matmul(patches(x, c["patch"]), pw), pb)
    for i in range(c["layers"]):
        (l1g, l1b, t1w, t1b, t2w, t2b, l2g, l2b, c1w, c1b, c2w, c2b) = rest[12 * i : 12 * i + 12]
        y = layer_norm(z, l1g, l1b).transpose(0, 2, 1)
        y = np.add(np.matmul(gelu(np.add(np.matmul(y, t1w), t1b)), t2w), t2b)
        z = np.add(z, y.transpose(0, 2, 1))
        y = layer_norm(z, l2g, l2b)
        z = np.add(z, np.add(np.matmul(gelu(np.add(np.matmul(y, c1w), c1b)), c2w), c2b))
    z = layer_norm(z, rest[-4], rest[-3])
    pooled = np.divide(np.sum(z, axis=1), F32(z.shape[1]))
    return np.add(np.matmul(pooled, rest[-2]), rest[-1])


def jax_while_loop(x0, k0):
    """The loop in Python on 0-d NumPy arrays (the floor of the scalar while loops)."""
    i, x, k = np.array(0, np.int32), x0, k0
    n, one, three = np.array(specs.LOOP["iterations"], np.int32), np.int32(1), np.int32(3)
    h, q = np.float32(0.5), np.float32(1.25)
    while np.less(i, n):
        x = np.add(np.multiply(x, h), q)
        k = np.add(np.multiply(k, three), i)
        i = np.add(i, one)
    return x, k


def jax_chain10(a, b):
    """One ufunc call per op, each into a new array: the naive floor."""
    x = np.add(a, b)
    x = np.multiply(x, a)
    x = np.tanh(x)
    x = np.exp(x)
    x = np.subtract(x, b)
    x = np.absolute(x)
    x = np.sqrt(x)
    x = np.multiply(x, a)
    x = np.negative(x)
    return np.maximum(x, b)


def batch_norm(x, g, b, mean, var, eps=EPS):
    """Inference batch norm over axis 1 (NCHW), per-channel vectors as (C, 1, 1)."""
    scale = np.divide(g, np.sqrt(np.add(var, eps))).reshape(-1, 1, 1)
    return np.add(np.multiply(np.subtract(x, mean.reshape(-1, 1, 1)), scale), b.reshape(-1, 1, 1))


def _bn(y, p, k):
    return batch_norm(
        y, p[k + "weight"], p[k + "bias"], p[k + "running_mean"], p[k + "running_var"]
    )


def _named(name, args):
    return dict(zip((p.name for p in specs.MODELS[name].params), args))


def torch_cnn(*args):
    p = _named("torch_cnn", args)
    x = p["x"]
    for i in range(len(specs.TORCH_CNN["widths"])):
        s = f"stages.{i}."
        x = np.add(conv2d_same(x, p[s + "inp.weight"], 1, "NCHW"), p[s + "inp.bias"][:, None, None])
        y = np.add(conv2d_same(x, p[s + "c1.weight"], 1, "NCHW"), p[s + "c1.bias"][:, None, None])
        y = np.maximum(_bn(y, p, s + "b1."), F32(0))
        y = _bn(conv2d_same(y, p[s + "c2.weight"], 1, "NCHW"), p, s + "b2.")
        x = np.maximum(np.add(x, y), F32(0))
        n, c, h, w = x.shape
        x = np.max(x.reshape(n, c, h // 2, 2, w // 2, 2), axis=(3, 5))
    pooled = np.divide(np.sum(x, axis=(2, 3)), F32(x.shape[2] * x.shape[3]))
    return np.add(np.matmul(pooled, p["fc.weight"].T), p["fc.bias"])


def torch_transformer(*args):
    """nn.TransformerEncoder of post-LayerNorm layers with a ReLU MLP (eval, no mask)."""
    p = _named("torch_transformer", args)
    x = p["x"]
    for i in range(specs.TORCH_TRANSFORMER["layers"]):
        s = f"encoder.layers.{i}."
        a = attention(
            x,
            p[s + "self_attn.in_proj_weight"].T,
            p[s + "self_attn.in_proj_bias"],
            p[s + "self_attn.out_proj.weight"].T,
            p[s + "self_attn.out_proj.bias"],
            specs.TORCH_TRANSFORMER["heads"],
            False,
        )
        x = layer_norm(np.add(x, a), p[s + "norm1.weight"], p[s + "norm1.bias"])
        h = np.maximum(
            np.add(np.matmul(x, p[s + "linear1.weight"].T), p[s + "linear1.bias"]), F32(0)
        )
        f = np.add(np.matmul(h, p[s + "linear2.weight"].T), p[s + "linear2.bias"])
        x = layer_norm(np.add(x, f), p[s + "norm2.weight"], p[s + "norm2.bias"])
    return x


FLOORS = {
    "decoder_lm": decoder_lm,
    "resnet_cnn_nchw": resnet_cnn_nchw,
    "resnet_cnn_nhwc": resnet_cnn_nhwc,
    "vit": vit,
    "lstm_scan": lstm_scan,
    "gru_scan": gru_scan,
    "mlp_mixer": mlp_mixer,
    "jax_while_loop": jax_while_loop,
    "jax_chain10": jax_chain10,
    "torch_cnn": torch_cnn,
    "torch_transformer": torch_transformer,
}
