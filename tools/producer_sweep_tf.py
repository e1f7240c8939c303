"""Sweep: export many TensorFlow / Keras programs, record TensorFlow's outputs.

Not a test and not imported by tests: a tool for finding where hlorun departs from
TensorFlow.  Run it with TensorFlow's venv (never hlorun's):

    /work/venvs/tf/bin/python tools/producer_sweep_tf.py [NAME_SUBSTRING ...]

Each case is exported exactly as tests/fixtures/tensorflow/generate.py exports its cases
(its ``run_case`` is reused, writing into ``OUT/tensorflow/``, default /work/sweep_out_p,
outside the repository): NAME.mlir, NAME.mlirbc, NAME.inputs.npz, NAME.outputs.npz
(eager outputs; TF's own XLA outputs where they differ) and MANIFEST.json.  Check the
results with tools/producer_sweep_check.py in hlorun's venv.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
OUT = Path(os.environ.get("SWEEP_OUT", "/work/sweep_out_p"))
import keras  # noqa: E402  (before tests/fixtures is on the path: it holds a jax/ folder)
import tensorflow as tf  # noqa: E402

sys.path.insert(0, str(FIXTURES))

_spec = importlib.util.spec_from_file_location(
    "tf_generate", FIXTURES / "tensorflow" / "generate.py"
)
gen = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules["tf_generate"] = gen  # its dataclass looks itself up there
_spec.loader.exec_module(gen)  # type: ignore[union-attr]

import numpy as np  # noqa: E402
from producer_io import generate, normal, rng  # noqa: E402
from producer_sweep_values import I32_EDGE, SPECIAL  # noqa: E402

L = keras.layers
Case, model_case, seq = gen.Case, gen.model_case, gen.seq


def ints(name: str, lo: int, hi: int, *shape: int, dtype: Any = np.int32) -> np.ndarray:
    return rng(name).integers(lo, hi, shape).astype(dtype)


# ----------------------------------------------------------------------------- models


def resnet_small() -> Any:
    def block(x: Any, c: int, s: int) -> Any:
        y = L.Conv2D(c, 3, s, padding="same", use_bias=False)(x)
        y = L.ReLU()(L.BatchNormalization()(y))
        y = L.BatchNormalization()(L.Conv2D(c, 3, padding="same", use_bias=False)(y))
        if s != 1 or x.shape[-1] != c:
            x = L.BatchNormalization()(L.Conv2D(c, 1, s, use_bias=False)(x))
        return L.ReLU()(L.Add()([x, y]))

    x = inp = keras.Input((32, 32, 3))
    x = L.Conv2D(8, 7, 2, padding="same", use_bias=False)(x)
    x = L.ReLU()(L.BatchNormalization()(x))
    x = L.MaxPooling2D(3, 2, padding="same")(x)
    for c, s in ((8, 1), (16, 2), (32, 2)):
        x = block(block(x, c, s), c, 1)
    x = L.GlobalAveragePooling2D()(x)
    return keras.Model(inp, L.Dense(10)(x))


def mbv3_block() -> Any:
    x = inp = keras.Input((8, 8, 8))
    y = L.Activation("hard_swish")(L.BatchNormalization()(L.Conv2D(16, 1, use_bias=False)(x)))
    y = L.DepthwiseConv2D(5, padding="same", use_bias=False)(y)
    y = L.Activation("hard_swish")(L.BatchNormalization()(y))
    s = L.GlobalAveragePooling2D(keepdims=True)(y)
    s = L.Conv2D(16, 1, activation="hard_sigmoid")(L.Conv2D(4, 1, activation="relu")(s))
    y = L.Multiply()([y, s])
    y = L.BatchNormalization()(L.Conv2D(8, 1, use_bias=False)(y))
    return keras.Model(inp, L.Add()([x, y]))


def eff_block() -> Any:
    x = inp = keras.Input((8, 8, 6))
    y = L.Activation("swish")(L.BatchNormalization()(L.Conv2D(24, 1, use_bias=False)(x)))
    y = L.DepthwiseConv2D(3, 2, padding="same", use_bias=False)(y)
    y = L.Activation("silu")(L.BatchNormalization()(y))
    s = L.GlobalAveragePooling2D(keepdims=True)(y)
    s = L.Conv2D(24, 1, activation="sigmoid")(L.Conv2D(2, 1, activation="swish")(s))
    y = L.Multiply()([y, s])
    return keras.Model(inp, L.BatchNormalization()(L.Conv2D(10, 1, use_bias=False)(y)))


def unet(interp: str) -> Any:
    x = inp = keras.Input((8, 8, 2))
    a = L.ReLU()(L.BatchNormalization()(L.Conv2D(4, 3, padding="same")(x)))
    b = L.ReLU()(L.Conv2D(8, 3, padding="same")(L.MaxPooling2D()(a)))
    t = L.Conv2DTranspose(4, 2, strides=2)(b)
    u = L.UpSampling2D(interpolation=interp)(b)
    y = L.Concatenate()([t, a, u])
    return keras.Model(inp, L.Conv2D(3, 1)(y))


def gpt_block() -> Any:
    tok = keras.Input((8,), dtype="int32")
    x = L.Embedding(20, 16)(tok)
    h = L.LayerNormalization(epsilon=1e-5)(x)
    a = L.MultiHeadAttention(4, 4)(h, h, use_causal_mask=True)
    x = x + a
    h = L.LayerNormalization(epsilon=1e-5)(x)
    x = x + L.Dense(16)(
        L.Dense(64, activation=lambda z: keras.activations.gelu(z, approximate=True))(h)
    )
    return keras.Model(tok, L.Dense(20)(x))


def cross_attn() -> Any:
    q = keras.Input((4, 8))
    v = keras.Input((6, 8))
    m = keras.Input((4, 6), dtype="bool")
    out, scores = L.MultiHeadAttention(2, 4, value_dim=3, output_shape=5)(
        q, v, attention_mask=m, return_attention_scores=True
    )
    g = L.GroupQueryAttention(8, 4, 2)(q, v) if hasattr(L, "GroupQueryAttention") else out
    return keras.Model([q, v, m], [out, scores, g])


def model_cases() -> list[Any]:
    seqx = normal("tsw_seq", 2, 6, 4)
    return [
        model_case("resnet_small", "cnn", resnet_small, normal("tr18", 1, 32, 32, 3)),
        model_case("mobilenet_v3_block", "cnn", mbv3_block, normal("tmb3", 2, 8, 8, 8)),
        model_case("efficientnet_block", "cnn", eff_block, normal("teff", 2, 8, 8, 6)),
        model_case("unet_bilinear", "cnn", lambda: unet("bilinear"), normal("tun", 1, 8, 8, 2)),
        model_case("unet_nearest", "cnn", lambda: unet("nearest"), normal("tun", 1, 8, 8, 2)),
        model_case("unet_bicubic", "cnn", lambda: unet("bicubic"), normal("tun", 1, 8, 8, 2)),
        model_case(
            "mobilenet_v2_keras",
            "cnn",
            lambda: keras.applications.MobileNetV2(
                (32, 32, 3), alpha=0.35, weights=None, classes=5
            ),
            normal("tmbv2", 1, 32, 32, 3),
        ),
        model_case("gpt_block", "transformer", gpt_block, ints("tgpt", 0, 20, 2, 8)),
        model_case(
            "cross_attention",
            "transformer",
            cross_attn,
            normal("tq", 2, 4, 8),
            normal("tv", 2, 6, 8),
            rng("tmask").random((2, 4, 6)) > 0.3,
        ),
        model_case(
            "lstm_seq_state",
            "rnn",
            lambda: keras.Sequential(
                [
                    keras.Input((6, 4)),
                    L.LSTM(5, return_sequences=True),
                    L.LSTM(3, return_state=False),
                ]
            ),
            seqx,
        ),
        model_case("lstm_return_state", "rnn", lambda: _rnn_state(L.LSTM), seqx),
        model_case("gru_return_state2", "rnn", lambda: _rnn_state(L.GRU), seqx),
        model_case(
            "gru_reset_before",
            "rnn",
            seq((6, 4), L.GRU(5, reset_after=False, return_sequences=True)),
            seqx,
        ),
        model_case(
            "lstm_go_backwards",
            "rnn",
            seq((6, 4), L.LSTM(5, go_backwards=True, return_sequences=True)),
            seqx,
        ),
        model_case(
            "bidirectional_gru_concat",
            "rnn",
            seq(
                (6, 4),
                L.Bidirectional(L.GRU(3, return_sequences=True), merge_mode="sum"),
                L.SimpleRNN(4, activation="relu"),
            ),
            seqx,
        ),
        model_case("lstm_masking", "rnn", seq((6, 4), L.Masking(0.0), L.LSTM(4)), _masked_seq()),
        model_case(
            "conv_lstm2d",
            "rnn",
            seq((3, 5, 5, 2), L.ConvLSTM2D(3, 3, padding="same"), L.Flatten()),
            normal("cl2", 1, 3, 5, 5, 2),
        ),
        model_case(
            "conv1d_models",
            "keras_conv",
            seq(
                (12, 3),
                L.Conv1D(6, 3, strides=2, padding="same", groups=3),
                L.SeparableConv1D(4, 3, padding="same", depth_multiplier=2),
                L.DepthwiseConv1D(3),
                L.MaxPooling1D(2, padding="same"),
                L.GlobalAveragePooling1D(),
            ),
            normal("c1m", 2, 12, 3),
        ),
        model_case(
            "conv2d_variants",
            "keras_conv",
            seq(
                (9, 9, 4),
                L.Conv2D(8, 3, strides=2, groups=2, padding="valid"),
                L.DepthwiseConv2D(2, depth_multiplier=2, dilation_rate=1),
                L.SeparableConv2D(4, 2, dilation_rate=1, padding="same"),
                L.Conv2DTranspose(3, 3, strides=2, output_padding=1, padding="same"),
            ),
            normal("c2v", 2, 9, 9, 4),
        ),
        model_case(
            "conv3d_transpose",
            "keras_conv",
            seq(
                (4, 4, 4, 2),
                L.Conv3DTranspose(2, 3, strides=2, padding="same"),
                L.AveragePooling3D(2),
                L.UpSampling3D(2),
                L.GlobalMaxPooling3D(),
            ),
            normal("c3t", 1, 4, 4, 4, 2),
        ),
        model_case(
            "pooling_layers",
            "keras_conv",
            seq(
                (9, 9, 3),
                L.MaxPooling2D(3, 2, padding="same"),
                L.AveragePooling2D(2, 1, padding="same"),
                L.ZeroPadding2D(((1, 0), (2, 1))),
                L.Cropping2D(((0, 1), (1, 0))),
                L.GlobalAveragePooling2D(),
            ),
            normal("pl", 2, 9, 9, 3),
        ),
        model_case(
            "preprocessing_layers",
            "keras_core",
            seq((8, 8, 3), L.Rescaling(1 / 127.5, -1), L.Resizing(5, 7), L.CenterCrop(4, 4)),
            normal("pp", 2, 8, 8, 3),
        ),
        model_case(
            "dense_activations",
            "keras_core",
            seq(
                (6,),
                L.Dense(8, activation="gelu"),
                L.Dense(8, activation="mish"),
                L.Dense(8, activation="relu6"),
                L.Dense(8, activation="hard_sigmoid"),
                L.Dense(8, activation="log_softmax"),
                L.Dense(8, activation="softsign"),
                L.Dense(8, activation="exponential"),
                L.Dense(8, activation="silu"),
                L.Dense(4, activation="leaky_relu"),
                L.ELU(0.5),
                L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.05),
            ),
            normal("da", 3, 6),
        ),
        model_case(
            "embedding_pool",
            "keras_core",
            lambda: keras.Sequential(
                [
                    keras.Input((5,), dtype="int32"),
                    L.Embedding(9, 4, mask_zero=False),
                    L.GlobalMaxPooling1D(),
                ]
            ),
            ints("ep", 0, 9, 3, 5),
        ),
        model_case(
            "dot_layers",
            "keras_core",
            lambda: _dot_model(),
            normal("dl1", 3, 4),
            normal("dl2", 3, 4),
        ),
        model_case(
            "batchnorm_inference_stats",
            "keras_normalization",
            lambda: _bn_stats(),
            normal("bns", 4, 3, 3, 5),
        ),
        model_case("mixed_precision_cnn", "cnn", mixed_precision_cnn, normal("tmp", 2, 8, 8, 3)),
        model_case(
            "layernorm_axes",
            "keras_normalization",
            seq(
                (4, 6),
                L.LayerNormalization(axis=[1, 2]),
                L.LayerNormalization(center=False, scale=False, epsilon=1e-2),
            ),
            normal("lna", 3, 4, 6),
        ),
    ]


def mixed_precision_cnn() -> Any:
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        x = inp = keras.Input((8, 8, 3))
        x = L.ReLU()(L.BatchNormalization()(L.Conv2D(8, 3, padding="same")(x)))
        x = L.DepthwiseConv2D(3, padding="same")(x)
        x = L.GlobalAveragePooling2D()(x)
        x = L.Dense(4)(x)
        out = L.Activation("softmax", dtype="float32")(x)
        return keras.Model(inp, out)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def _rnn_state(kind: Any) -> Any:
    x = keras.Input((6, 4))
    outs = kind(5, return_sequences=True, return_state=True)(x)
    return keras.Model(x, outs)


def _masked_seq() -> np.ndarray:
    x = normal("msk", 2, 6, 4)
    x[0, 4:] = 0.0
    x[1, 2:] = 0.0
    return x


def _dot_model() -> Any:
    a, b = keras.Input((4,)), keras.Input((4,))
    return keras.Model(
        [a, b],
        [
            L.Dot(1, normalize=True)([a, b]),
            L.Subtract()([a, b]),
            L.Maximum()([a, b]),
            L.Average()([a, b]),
        ],
    )


def _bn_stats() -> Any:
    m = keras.Sequential([keras.Input((3, 3, 5)), L.BatchNormalization(momentum=0.5, epsilon=1e-2)])
    bn = m.layers[0]
    bn.moving_mean.assign(np.linspace(-1, 1, 5).astype(np.float32))
    bn.moving_variance.assign(np.linspace(0.5, 2, 5).astype(np.float32))
    return m


# ----------------------------------------------------------------------------- ops


def op_cases() -> list[Any]:
    x = normal("tops_x", 4, 6)
    y = normal("tops_y", 4, 6)
    i32 = ints("tops_i", -50, 50, 4, 6)
    j32 = ints("tops_j", -7, 8, 4, 6)
    j32[j32 == 0] = 3
    im = normal("tops_im", 2, 6, 6, 3)
    seg = np.array([0, 0, 1, 3], np.int32)

    def c(name: str, fn: Any, *args: np.ndarray, **kw: Any) -> Any:
        return Case(name, "ops", fn, list(args), **kw)

    return [
        c(
            "image_resize",
            lambda v: (
                tf.image.resize(v, (9, 4), "bilinear", antialias=False),
                tf.image.resize(v, (4, 9), "nearest"),
                tf.compat.v1.image.resize_bilinear(v, (9, 9), align_corners=True),
                tf.compat.v1.image.resize_nearest_neighbor(v, (9, 4), align_corners=True),
                tf.compat.v1.image.resize_bilinear(v, (9, 9), half_pixel_centers=True),
            ),
            im,
        ),
        c(
            "image_misc",
            lambda v: (
                tf.image.rgb_to_grayscale(v),
                tf.image.adjust_brightness(v, 0.1),
                tf.image.per_image_standardization(v),
                tf.image.central_crop(v, 0.5),
                tf.image.rot90(v),
                tf.image.pad_to_bounding_box(v, 1, 2, 8, 9),
                tf.image.sobel_edges(v),
                tf.image.rgb_to_hsv(tf.sigmoid(v)),
                tf.image.adjust_contrast(v, 2.0),
            ),
            im,
        ),
        c(
            "nn_pools",
            lambda v: (
                tf.nn.avg_pool2d(v, 3, 2, "SAME"),
                tf.nn.max_pool2d(v, (2, 3), (1, 2), "SAME"),
                tf.nn.avg_pool1d(v[:, 0], 2, 1, "VALID"),
                tf.nn.max_pool1d(v[:, 0], 3, 2, "SAME"),
                tf.nn.pool(v, (2, 2), "AVG", strides=(2, 2), padding="SAME"),
                tf.nn.max_pool3d(v[..., None], 2, 2, "VALID"),
                tf.nn.avg_pool3d(v[..., None], 2, 1, "SAME"),
            ),
            im,
        ),
        c(
            "nn_convs",
            lambda v, w: (
                tf.nn.conv2d(v, w, 2, "SAME"),
                tf.nn.conv2d(v, w, 1, "VALID", dilations=2),
                tf.nn.depthwise_conv2d(v, w[..., :1] * tf.ones((1, 1, 3, 2)), (1, 1, 1, 1), "SAME"),
                tf.nn.conv2d_transpose(
                    v,
                    tf.transpose(w, (0, 1, 3, 2))[..., :3, :] * tf.ones((1, 1, 3, 3)),
                    (2, 11, 11, 3),
                    2,
                    "SAME",
                ),
                tf.nn.convolution(v, w, padding="SAME", strides=(1, 2)),
                tf.nn.atrous_conv2d(v, w, 2, "SAME"),
                tf.nn.conv1d(v[:, 0], w[0], 2, "SAME"),
                tf.nn.separable_conv2d(
                    v, tf.ones((2, 2, 3, 1)), tf.ones((1, 1, 3, 2)), (1, 1, 1, 1), "VALID"
                ),
            ),
            im,
            normal("tw", 3, 3, 3, 4),
        ),
        c(
            "nn_misc",
            lambda v, w: (
                tf.nn.softmax(v, 0),
                tf.nn.log_softmax(v),
                tf.nn.l2_normalize(v, 1),
                tf.nn.moments(v, [0]),
                tf.nn.batch_normalization(v, 0.1, 2.0, 0.5, 1.5, 1e-3),
                tf.nn.relu6(v * 4),
                tf.nn.crelu(v),
                tf.nn.elu(v),
                tf.nn.selu(v),
                tf.nn.softplus(v),
                tf.nn.silu(v, 1.5),
                tf.nn.leaky_relu(v, 0.3),
                tf.nn.bias_add(v, w[0]),
                tf.nn.sigmoid_cross_entropy_with_logits(tf.sigmoid(w), v),
                tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(w), v),
                tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1, 0, 5, 2]), v),
                tf.nn.weighted_cross_entropy_with_logits(tf.sigmoid(w), v, 2.0),
                tf.nn.log_poisson_loss(w, v),
                tf.nn.normalize_moments(
                    tf.constant(4.0), tf.reduce_sum(v, 0), tf.reduce_sum(v * v, 0), None
                ),
            ),
            x,
            y,
        ),
        c(
            "math_unary",
            lambda v: (
                tf.math.acosh(tf.abs(v) + 1),
                tf.math.asinh(v),
                tf.math.atanh(tf.tanh(v) * 0.9),
                tf.math.expm1(v),
                tf.math.log1p(tf.abs(v)),
                tf.math.log_sigmoid(v),
                tf.math.reciprocal_no_nan(v),
                tf.math.rsqrt(tf.abs(v) + 0.1),
                tf.math.softplus(v),
                tf.math.square(v),
                tf.math.sign(v),
                tf.math.rint(v * 2),
                tf.math.ceil(v),
                tf.math.is_finite(v / v),
                tf.math.ndtri(tf.sigmoid(v)),
                tf.math.erfcinv(tf.sigmoid(v)),
                tf.math.zeta(tf.abs(v) + 1.5, tf.abs(v) + 1),
                tf.math.polygamma(tf.constant(1.0), tf.abs(v) + 0.5),
                tf.math.betainc(tf.abs(v) + 0.5, tf.abs(v) + 1.0, tf.sigmoid(v)),
                tf.math.igammac(tf.abs(v) + 1, tf.abs(v)),
                tf.math.lbeta(tf.abs(v) + 0.5),
                tf.math.sinh(v),
                tf.math.tan(v),
                tf.math.atan2(v, tf.reverse(v, [0])),
            ),
            x,
        ),
        c(
            "math_binary",
            lambda v, w: (
                tf.math.floordiv(v, w),
                tf.math.floormod(v, w),
                tf.truncatediv(tf.cast(v * 10, tf.int32), 3),
                tf.truncatemod(v, w),
                tf.math.mod(v * 5, w),
                tf.math.divide_no_nan(v, w * tf.cast(w > 0, tf.float32)),
                tf.math.xdivy(v, w),
                tf.math.squared_difference(v, w),
                tf.math.pow(tf.abs(v), w),
                tf.math.maximum(v, w),
                tf.math.igamma(tf.abs(v) + 1, tf.abs(w)),
                tf.math.nextafter(v, w),
                tf.math.multiply_no_nan(v, w),
                tf.math.add_n([v, w, v]),
            ),
            x,
            y,
        ),
        c(
            "int_math",
            lambda a, b: (
                tf.math.floordiv(a, b),
                tf.math.floormod(a, b),
                tf.truncatediv(a, b),
                tf.truncatemod(a, b),
                a // 3,
                a % -4,
                tf.bitwise.bitwise_and(a, b),
                tf.bitwise.bitwise_or(a, b),
                tf.bitwise.bitwise_xor(a, b),
                tf.bitwise.invert(a),
                tf.bitwise.left_shift(a, tf.abs(b) % 8),
                tf.bitwise.right_shift(a, tf.abs(b) % 8),
                tf.math.abs(a),
                tf.math.sign(a),
                tf.math.square(a),
                tf.math.pow(a, 2),
                tf.math.minimum(a, b),
                tf.math.reduce_prod(b, 1),
                tf.math.cumsum(a, 1, exclusive=True, reverse=True),
                tf.math.cumprod(b, 0, reverse=True),
            ),
            i32,
            j32,
        ),
        c(
            "int_types",
            lambda a: (
                tf.cast(a, tf.int8) * 3,
                tf.cast(a, tf.uint8) + tf.cast(200, tf.uint8),
                tf.cast(a, tf.int16) // 7,
                tf.bitwise.right_shift(tf.cast(a, tf.uint8), 2),
                tf.bitwise.right_shift(tf.cast(a, tf.int8), 2),
                tf.cast(a, tf.uint32) * 3,
                tf.cast(a, tf.int64) * 100000000,
                tf.cast(a, tf.uint16) // 3,
                tf.cast(tf.cast(a, tf.uint8), tf.float32),
                tf.raw_ops.PopulationCount(x=a),
                tf.math.floormod(tf.cast(a, tf.int8), 5),
                tf.cast(a, tf.bool),
                tf.cast(tf.cast(a, tf.float16) * 0.5, tf.int32),
            ),
            i32,
        ),
        c(
            "casts",
            lambda v: (
                tf.cast(v, tf.int32),
                tf.cast(v, tf.uint8),
                tf.cast(v, tf.float16),
                tf.cast(v, tf.bfloat16),
                tf.cast(v, tf.int8),
                tf.saturate_cast(v, tf.uint8),
                tf.saturate_cast(v * 100, tf.int8),
                tf.cast(v, tf.bool),
                tf.cast(v, tf.float64),
                tf.bitcast(tf.cast(v, tf.float16), tf.int16),
                tf.math.round(v),
                tf.cast(tf.cast(v, tf.int32), tf.float32),
            ),
            np.array(
                [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 254.6, 0.0, -0.0, 65519.9, 1e-8, 3.0e4],
                np.float32,
            ),
        ),
        c(
            "reductions",
            lambda v: (
                tf.reduce_sum(v),
                tf.reduce_mean(v, 0),
                tf.reduce_max(v, [0, 1]),
                tf.reduce_min(v, 1, keepdims=True),
                tf.reduce_prod(v, 0),
                tf.math.reduce_std(v, 1),
                tf.math.reduce_variance(v, 0),
                tf.reduce_any(v > 1),
                tf.reduce_all(v > -2, 1),
                tf.math.reduce_logsumexp(v),
                tf.math.argmin(v, 0),
                tf.math.argmax(v, 1, output_type=tf.int32),
                tf.math.count_nonzero(v > 0, 1),
                tf.norm(v),
                tf.norm(v, 1, 1),
                tf.norm(v, np.inf, 0),
                tf.math.in_top_k(tf.constant([0, 1, 2, 3]), v, 2),
            ),
            x,
        ),
        c(
            "segments",
            lambda v, s: (
                tf.math.unsorted_segment_max(v, s, 5),
                tf.math.unsorted_segment_min(v, s, 4),
                tf.math.unsorted_segment_mean(v, s, 4),
                tf.math.unsorted_segment_prod(v, s, 4),
                tf.math.unsorted_segment_sqrt_n(v, s, 4),
                tf.math.unsorted_segment_sum(v, s, 4),
                tf.math.unsorted_segment_sum(tf.cast(v * 10, tf.int32), s, 4),
            ),
            x,
            seg,
        ),
        c(
            "gather_scatter_nd",
            lambda v, i: (
                tf.gather_nd(v, tf.stack([i % 4, (i * 3) % 6], 1)),
                tf.gather(v, i % 6, axis=1, batch_dims=0),
                tf.gather(
                    tf.reshape(v, (4, 2, 3)), tf.reshape(i[:8] % 3, (4, 2)), axis=2, batch_dims=2
                ),
                tf.scatter_nd(tf.reshape(i[:3] % 4, (3, 1)), v[:3], (5, 6)),
                tf.tensor_scatter_nd_update(v, [[0, 1], [2, 3], [0, 1]], [1.0, 2.0, 3.0]),
                tf.tensor_scatter_nd_max(v, [[1], [3]], v[:2] * 2),
                tf.tensor_scatter_nd_min(v, [[1, 0]], [-5.0]),
                tf.tensor_scatter_nd_sub(v, [[2]], v[:1]),
                tf.gather(v, [3, 0], axis=0),
                tf.experimental.numpy.take_along_axis(v, tf.argsort(v, 1), 1),
                tf.boolean_mask(v, [True, False, True, True]),
                tf.where(v > 0, v, tf.zeros_like(v)),
            ),
            x,
            ints("tgi", 0, 24, 12),
        ),
        c(
            "sort_topk",
            lambda v, a: (
                tf.sort(v, 0, "DESCENDING"),
                tf.argsort(v, 1, stable=True),
                tf.argsort(a % 3, 1, stable=True),
                tf.math.top_k(v, 4).values,
                tf.math.top_k(v, 4).indices,
                tf.math.top_k(a % 5, 3).indices,
                tf.math.top_k(tf.transpose(v), 1, sorted=True).indices,
                tf.sort(a, 1),
            ),
            x,
            i32,
        ),
        c(
            "cumulative",
            lambda v: (
                tf.math.cumsum(v, 0, exclusive=True),
                tf.math.cumsum(v, 1, reverse=True),
                tf.math.cumprod(v, 1, exclusive=True),
                tf.math.cumulative_logsumexp(v, 0, reverse=True),
                tf.math.cumulative_logsumexp(v, 1, exclusive=True),
            ),
            x,
        ),
        c("control_flow", lambda v: _control(v), x),
        c("while_loops", lambda v, n: _loops(v, n), x, np.array(5, np.int32)),
        c(
            "linalg_more",
            lambda p, a: (
                tf.linalg.band_part(a, 1, 0),
                tf.linalg.matrix_transpose(a),
                tf.linalg.trace(p),
                tf.linalg.diag_part(a),
                tf.linalg.set_diag(a, tf.ones(4)),
                tf.linalg.matvec(p, a[0]),
                tf.linalg.cross(a[:, :3], a[:, 1:]),
                tf.linalg.global_norm([a, p]),
                tf.linalg.normalize(a)[0],
                tf.linalg.matmul(a, p, transpose_a=True, adjoint_b=True),
                tf.linalg.tensor_diag_part(p),
                tf.linalg.adjoint(a),
                tf.linalg.eye(3, 4, batch_shape=[2]),
                tf.linalg.matrix_rank(p),
                tf.linalg.eigvalsh(p),
                tf.linalg.cholesky_solve(tf.linalg.cholesky(p), a[:, :2]),
                tf.linalg.solve(p, a, adjoint=False),
                tf.linalg.logdet(p),
            ),
            _spd(4),
            normal("tla", 4, 4),
        ),
        c(
            "fft_more",
            lambda v, z: (
                tf.signal.fft2d(z),
                tf.signal.ifft2d(z),
                tf.signal.irfft2d(tf.signal.rfft2d(v)),
                tf.signal.fft3d(tf.reshape(z, (2, 2, 8))),
                tf.signal.rfft(v, [5]),
                tf.signal.irfft(tf.signal.rfft(v), [10]),
                tf.signal.dct(v, 2),
                tf.signal.idct(v, 2),
                tf.signal.dct(v, 1),
                tf.signal.fftshift(v),
                tf.signal.ifftshift(v, 1),
                tf.signal.hann_window(8),
                tf.signal.frame(v, 3, 2),
                tf.signal.overlap_and_add(tf.reshape(v, (2, 2, 8)), 4),
                tf.abs(tf.signal.inverse_stft(tf.signal.stft(v, 4, 2), 4, 2)),
            ),
            normal("tff", 4, 8),
            (normal("tfr", 4, 8) + 1j * normal("tfi", 4, 8)).astype(np.complex64),
        ),
        c(
            "complex_math",
            lambda z: (
                tf.math.abs(z),
                tf.math.angle(z),
                tf.math.conj(z),
                tf.exp(z),
                tf.math.log(z),
                tf.sqrt(z),
                z * z,
                z / (z + 1),
                tf.math.real(z),
                tf.math.imag(z),
                tf.reduce_sum(z, 1),
                tf.matmul(z, z, adjoint_b=True),
                tf.complex(tf.math.real(z), -tf.math.imag(z)),
                tf.math.sin(z),
                tf.math.tanh(z),
                tf.math.pow(z, 2 + 0j),
                tf.math.reciprocal(z),
            ),
            (normal("tcr", 3, 4) + 1j * normal("tci", 3, 4)).astype(np.complex64),
        ),
        c(
            "complex128",
            lambda z: (
                tf.math.abs(z),
                tf.exp(z),
                z @ tf.transpose(z),
                tf.math.log(z),
                tf.math.rsqrt(z),
                tf.math.expm1(z),
                tf.math.log1p(z),
            ),
            (normal("tcr", 3, 3) + 1j * normal("tci", 3, 3)).astype(np.complex128),
        ),
        c("half_precision", lambda v, w: _half(v, w, tf.float16), x, y),
        c("bf16_precision", lambda v, w: _half(v, w, tf.bfloat16), x, y),
        c(
            "f64_math",
            lambda v: (
                tf.exp(v),
                tf.math.lgamma(v),
                tf.math.digamma(tf.abs(v) + 0.1),
                tf.math.erf(v),
                tf.math.erfinv(tf.tanh(v)),
                tf.math.log1p(tf.abs(v)),
                tf.math.bessel_i1e(v),
                tf.tanh(v),
                tf.nn.softmax(v),
                tf.math.igamma(tf.abs(v) + 1, tf.abs(v)),
                tf.math.atan2(v, v[::-1]),
            ),
            x.astype(np.float64),
        ),
        c(
            "special_values",
            lambda v: (
                tf.exp(v),
                tf.math.log(v),
                tf.sqrt(v),
                tf.math.rsqrt(v),
                tf.math.sign(v),
                tf.math.floor(v),
                tf.math.round(v),
                tf.nn.relu(v),
                tf.sigmoid(v),
                tf.tanh(v),
                tf.math.maximum(v, 0.0),
                tf.math.minimum(v, tf.reverse(v, [0])),
                tf.math.is_nan(v),
                tf.math.erf(v),
                tf.math.lgamma(v),
                tf.math.log1p(v),
                tf.math.expm1(v),
                tf.math.softplus(v),
                tf.math.xlogy(v, v),
                tf.math.reciprocal(v),
                tf.math.floormod(v, 0.7),
                tf.math.floordiv(v, 0.7),
            ),
            np.array(
                [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e30, 88.8, -104.0, 0.5, -1.0, 2.0],
                np.float32,
            ),
        ),
        c(
            "shape_ops",
            lambda v: (
                tf.tile(v, [2, 1]),
                tf.reverse(v, [1]),
                tf.roll(v, 3, 1),
                tf.pad(v, [[1, 0], [2, 1]], "REFLECT"),
                tf.pad(v, [[1, 1], [0, 2]], "SYMMETRIC"),
                tf.pad(v, [[0, 1], [1, 0]], constant_values=-1.0),
                tf.concat([v, v], 0),
                tf.stack([v, v], 1),
                tf.unstack(v)[2],
                tf.split(v, [2, 4], 1)[1],
                tf.strided_slice(v, [3, 5], [0, 0], [-1, -2]),
                v[::-1, 1::2],
                tf.expand_dims(v, 1),
                tf.squeeze(v[:1]),
                tf.transpose(tf.reshape(v, (2, 2, 6)), (2, 0, 1)),
                tf.broadcast_to(v[0], (3, 6)),
                tf.linalg.diag(v),
                tf.one_hot(tf.cast(v > 0, tf.int32), 2, 5.0, -1.0),
                tf.space_to_batch(tf.reshape(v, (1, 4, 6, 1)), [2, 2], [[0, 0], [1, 1]]),
                tf.batch_to_space(tf.reshape(v, (4, 2, 3, 1)), [2, 2], [[0, 0], [0, 0]]),
                tf.experimental.numpy.tril(v),
                tf.experimental.numpy.kron(v[:2, :2], v[:2, :2]),
                tf.meshgrid(v[0], v[1])[0],
            ),
            x,
        ),
        c(
            "einsum_matmul",
            lambda v, w: (
                tf.einsum("ij,jk->ik", v, tf.transpose(w)),
                tf.einsum("bi,bi->b", v, w),
                tf.einsum("bij,bkj->bik", tf.reshape(v, (2, 2, 6)), tf.reshape(w, (2, 2, 6))),
                tf.einsum("ij->ji", v),
                tf.einsum("i,j->ij", v[0], w[0]),
                tf.einsum("...ij,...jk->...ik", tf.reshape(v, (2, 2, 6)), tf.reshape(w, (2, 6, 2))),
                tf.linalg.matmul(
                    tf.reshape(v, (2, 2, 6)), tf.reshape(w, (2, 2, 6)), transpose_b=True
                ),
                tf.tensordot(v, w, [[0], [0]]),
                tf.matmul(tf.cast(v * 10, tf.int32), tf.cast(tf.transpose(w) * 10, tf.int32)),
                tf.linalg.matmul(v, w, b_is_sparse=False, transpose_b=True),
            ),
            x,
            y,
        ),
        c(
            "random_stateless",
            lambda s: (
                tf.random.stateless_uniform((4, 3), s, -2, 2),
                tf.random.stateless_uniform((6,), s, 0, 10, dtype=tf.int32),
                tf.random.stateless_truncated_normal((5,), s),
                tf.random.stateless_categorical(tf.math.log([[0.2, 0.3, 0.5]]), 6, s),
                tf.random.stateless_normal((3, 2), s, dtype=tf.float64),
                tf.random.stateless_uniform((4,), s, dtype=tf.float64),
            ),
            np.array([7, 11], np.int32),
        ),
        c(
            "dynamic_slice_update",
            lambda v, i: (
                tf.slice(v, [i, 1], [2, 3]),
                tf.tensor_scatter_nd_update(v, [[i, 0]], [9.0]),
                tf.raw_ops.XlaDynamicUpdateSlice(input=v, update=v[:1, :2], indices=[i, 2])
                if hasattr(tf.raw_ops, "XlaDynamicUpdateSlice")
                else v,
                tf.gather(v, i),
                tf.roll(v, i, 0),
            ),
            x,
            np.array(2, np.int32),
        ),
    ]


def edge_cases() -> list[Any]:
    """Ops on special values; TF's XLA outputs are kept where eager differs."""
    v, e = SPECIAL, I32_EDGE
    w = SPECIAL[::-1].copy()
    d = np.array([1, 2, 3, -1, 5, -3, 2, 7, 3, -3, -1, 2, 1, 5, 7, -9], np.int32)

    def c(name: str, fn: Any, *args: np.ndarray) -> Any:
        return Case(f"edge_{name}", "edge", fn, list(args))

    return [
        c(
            "sort_topk",
            lambda x: (
                tf.sort(x),
                tf.sort(x, direction="DESCENDING"),
                tf.argsort(x, stable=True),
                tf.math.top_k(x, 5).values,
                tf.math.top_k(x, 5).indices,
                tf.argmax(x),
                tf.argmin(x),
                tf.reduce_max(x),
                tf.reduce_min(x),
            ),
            v,
        ),
        c(
            "minmax",
            lambda x, y: (
                tf.maximum(x, y),
                tf.minimum(x, y),
                tf.clip_by_value(x, -1.0, 1.0),
                tf.nn.relu(x),
                tf.nn.relu6(x),
            ),
            v,
            w,
        ),
        c(
            "round",
            lambda x: (
                tf.round(x),
                tf.math.rint(x),
                tf.floor(x),
                tf.math.ceil(x),
                tf.math.sign(x),
            ),
            v,
        ),
        c(
            "mod_div",
            lambda x, y: (
                tf.math.floormod(x, y),
                tf.truncatemod(x, y),
                tf.math.floordiv(x, y),
                tf.math.divide_no_nan(x, y),
                tf.math.xdivy(x, y),
                x / y,
                tf.math.pow(x, y),
                tf.math.atan2(x, y),
                tf.math.squared_difference(x, y),
                tf.math.xlogy(x, y),
                tf.math.xlog1py(x, y),
            ),
            v,
            w,
        ),
        c(
            "unary",
            lambda x: (
                tf.exp(x),
                tf.math.expm1(x),
                tf.math.log(x),
                tf.math.log1p(x),
                tf.sqrt(x),
                tf.math.rsqrt(x),
                tf.math.reciprocal(x),
                tf.sin(x),
                tf.cos(x),
                tf.tan(x),
                tf.tanh(x),
                tf.sigmoid(x),
                tf.math.softplus(x),
                tf.nn.gelu(x),
                tf.math.erf(x),
                tf.math.erfc(x),
                tf.math.lgamma(x),
                tf.math.digamma(x),
                tf.math.asinh(x),
                tf.math.atan(x),
                tf.nn.elu(x),
                tf.nn.selu(x),
                tf.math.log_sigmoid(x),
                tf.nn.silu(x),
            ),
            v,
        ),
        c(
            "softmax",
            lambda x: (
                tf.nn.softmax(tf.reshape(x, (4, 6))),
                tf.nn.log_softmax(tf.reshape(x, (4, 6))),
                tf.math.reduce_logsumexp(tf.reshape(x, (4, 6)), 1),
                tf.math.cumsum(x),
                tf.math.cumprod(x),
                tf.math.cumulative_logsumexp(x),
            ),
            v,
        ),
        c(
            "casts",
            lambda x: (
                tf.cast(x, tf.float16),
                tf.cast(x, tf.bfloat16),
                tf.cast(x, tf.float64),
                tf.cast(tf.cast(x, tf.float16), tf.float32),
                tf.saturate_cast(x, tf.int32),
                tf.saturate_cast(x, tf.uint8),
                tf.saturate_cast(x, tf.int16),
                tf.cast(x, tf.bool),
            ),
            v,
        ),
        c(
            "int",
            lambda a, b: (
                a + 1,
                a * 2,
                -a,
                tf.abs(a),
                a // b,
                a % b,
                tf.truncatediv(a, b),
                tf.truncatemod(a, b),
                tf.bitwise.left_shift(a, tf.abs(b) % 40),
                tf.bitwise.right_shift(a, tf.abs(b) % 40),
                tf.bitwise.invert(a),
                tf.cast(a, tf.float32),
                tf.cast(a, tf.int8),
                tf.cast(a, tf.uint8),
                tf.cast(a, tf.int64) * 3,
                tf.cast(a, tf.uint32),
                tf.cast(tf.cast(a, tf.uint32), tf.float32),
                tf.cast(a, tf.float16),
                tf.math.reduce_sum(a),
                tf.math.reduce_prod(b),
                tf.math.square(a),
            ),
            e,
            d,
        ),
        c(
            "uint",
            lambda a: (
                tf.cast(a, tf.uint32) // 7,
                tf.cast(a, tf.uint32) % 7,
                tf.bitwise.right_shift(tf.cast(a, tf.uint32), 3),
                tf.cast(tf.cast(a, tf.uint64) * 3, tf.float64),
                tf.reduce_max(tf.cast(a, tf.uint32)),
                tf.cast(a, tf.uint16) + 1,
                tf.cast(a, tf.uint8) * 7,
                tf.argmax(tf.cast(a, tf.uint32)),
                tf.sort(tf.cast(a, tf.uint32)),
                tf.minimum(tf.cast(a, tf.uint32), 5),
            ),
            e,
        ),
        c(
            "int64",
            lambda a: (
                a * 3,
                a // 3,
                a % 3,
                tf.cast(a, tf.float32),
                tf.cast(a, tf.float64),
                tf.bitwise.right_shift(a, 5),
                tf.cast(a, tf.int32),
                tf.reduce_sum(a),
                tf.sort(a),
                tf.math.cumsum(a),
            ),
            np.array(
                [2**62, -(2**62), 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63), 5, -5], np.int64
            ),
        ),
        c(
            "reduce_special",
            lambda x: (
                tf.reduce_sum(x),
                tf.reduce_mean(tf.reshape(x, (4, 6)), 1),
                tf.math.reduce_std(tf.reshape(x, (4, 6)), 0),
                tf.reduce_prod(tf.reshape(x, (4, 6)), 1),
                tf.norm(tf.reshape(x, (4, 6)), axis=1),
                tf.math.reduce_variance(tf.reshape(x, (4, 6)), 1),
                tf.math.count_nonzero(x),
                tf.reduce_any(tf.math.is_nan(x)),
            ),
            v,
        ),
        c(
            "compare",
            lambda x, y: (
                x == y,
                x < y,
                x >= y,
                x != y,
                tf.math.is_finite(x),
                tf.math.is_inf(x),
                tf.where(x > y, x, y),
                tf.math.equal(x, 0.0),
            ),
            v,
            w,
        ),
        c(
            "f16_math",
            lambda x: (
                tf.exp(x),
                tf.math.log(x),
                tf.tanh(x),
                tf.nn.softmax(tf.reshape(x, (4, 6))),
                tf.reduce_sum(x),
                tf.math.cumsum(x),
                x * x,
                tf.sqrt(x),
                tf.math.rsqrt(x),
                tf.math.erf(x),
                tf.nn.gelu(x),
                tf.cast(x, tf.int32),
            ),
            np.nan_to_num(v, posinf=60000, neginf=-60000).astype(np.float16),
        ),
    ]


def grad_case(name: str, build: Any, x: np.ndarray, training: bool = False) -> Any:
    """The gradients of sum(sin(model(x))) with respect to the model's trainable
    weights (a training step's backward pass: select_and_scatter, transposed
    convolutions, segment sums, reversed loops)."""
    keras.utils.set_random_seed(0)
    m = build()
    m(tf.constant(x))

    def grads(v: Any) -> Any:
        with tf.GradientTape() as tape:
            y = m(v, training=training)
            loss = tf.add_n(
                [tf.reduce_sum(tf.sin(tf.cast(t, tf.float32))) for t in tf.nest.flatten(y)]
            )
        return tuple(tape.gradient(loss, m.trainable_variables))

    return Case(f"grad_{name}", "grad", grads, [x], model=m)


def _pool_grad(pool: Any) -> Any:
    def g(v: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(v)
            loss = tf.reduce_sum(tf.sin(pool(v)) * tf.range(1.0, 2.0, 1.0 / 64)[:1])
        return tape.gradient(loss, v)

    return g


def _xw_grad(f: Any) -> Any:
    """d sum(sin(f(x, w))) / d(x, w)."""

    def g(x: Any, w: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            loss = tf.reduce_sum(tf.sin(f(x, w)))
        return tuple(tape.gradient(loss, [x, w]))

    return g


def op_grad_cases() -> list[Any]:
    """Backward passes of single ops (TF's own gradient lowerings: conv backprops with
    batch_group_count, pads with interior, reduce_window gradients...)."""
    im = normal("tgo_im", 2, 9, 9, 4)
    k = normal("tgo_k", 3, 3, 4, 6) * 0.3
    dk = normal("tgo_dk", 3, 3, 4, 2) * 0.3
    x = normal("tgo_x", 4, 6)
    y = normal("tgo_y", 6, 5)
    fs = {
        "conv_same_s2": (lambda a, b: tf.nn.conv2d(a, b, 2, "SAME"), im, k),
        "conv_valid_dil": (lambda a, b: tf.nn.conv2d(a, b, 1, "VALID", dilations=2), im, k),
        "conv_explicit_pad": (
            lambda a, b: tf.nn.conv2d(a, b, (1, 2), [[0, 0], [2, 1], [0, 3], [0, 0]]),
            im,
            k,
        ),
        "depthwise_s2": (lambda a, b: tf.nn.depthwise_conv2d(a, b, (1, 2, 2, 1), "SAME"), im, dk),
        "depthwise_dil": (
            lambda a, b: tf.nn.depthwise_conv2d(a, b, (1, 1, 1, 1), "VALID", dilations=(2, 2)),
            im,
            dk,
        ),
        "conv_transpose": (
            lambda a, b: tf.nn.conv2d_transpose(
                a, tf.transpose(b, (0, 1, 3, 2))[:, :, :, :], (2, 18, 18, 6), 2, "SAME"
            ),
            im,
            k,
        ),
        "conv1d_s3": (lambda a, b: tf.nn.conv1d(a[:, 0], b[0], 3, "SAME"), im, k),
        "conv3d": (
            lambda a, b: tf.nn.conv3d(
                a[..., None][:, :, :, :3],
                b[:, :, :3, None, :2] * tf.ones((1, 1, 1, 1, 1)),
                (1, 2, 1, 1, 1),
                "SAME",
            ),
            im,
            k,
        ),
        "avgpool_same": (lambda a, b: tf.nn.avg_pool2d(a * b[0, 0, :, 0], 3, 2, "SAME"), im, k),
        "maxpool_valid_s1": (
            lambda a, b: tf.nn.max_pool2d(a * b[0, 0, :, 0], 2, 1, "VALID"),
            im,
            k,
        ),
        "resize_bilinear": (
            lambda a, b: tf.image.resize(a * b[0, 0, :, 0], (5, 13), "bilinear"),
            im,
            k,
        ),
        "resize_nearest": (
            lambda a, b: tf.image.resize(a * b[0, 0, :, 0], (13, 5), "nearest"),
            im,
            k,
        ),
        "matmul_bias": (lambda a, b: tf.nn.relu(a @ b + b[0]), x, y),
        "batch_matmul": (
            lambda a, b: tf.linalg.matmul(
                tf.reshape(a, (2, 2, 6)), tf.reshape(tf.tile(b, (2, 1)), (2, 6, 5))
            ),
            x,
            y,
        ),
        "einsum": (
            lambda a, b: tf.einsum("ij,jk->ik", a, b) + tf.einsum("ij,ij->i", a, a)[:, None],
            x,
            y,
        ),
        "softmax_ce": (
            lambda a, b: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(a @ b), a @ b),
            x,
            y,
        ),
        "layernorm": (
            lambda a, b: tf.nn.batch_normalization(
                a, *tf.nn.moments(a, [1], keepdims=True), b[0, :1], b[1, :1], 1e-3
            ),
            x,
            y,
        ),
        "reductions": (
            lambda a, b: (
                tf.stack(
                    [
                        tf.reduce_max(a, 1),
                        tf.reduce_min(a, 1),
                        tf.reduce_prod(a, 1),
                        tf.math.reduce_logsumexp(a, 1),
                        tf.math.reduce_std(a, 1),
                    ]
                )
                * tf.reduce_sum(b)
            ),
            x,
            y,
        ),
        "cumulative": (
            lambda a, b: (
                tf.math.cumsum(a, 1, reverse=True)
                + tf.math.cumprod(a, 0, exclusive=True)
                + tf.math.cumulative_logsumexp(a, 1) * b[0, 0]
            ),
            x,
            y,
        ),
        "slicing": (
            lambda a, b: (
                tf.concat([a[::2, 1::2], a[1:3, ::-2], tf.reverse(a, [0])[:2, :3]], 0) * b[0, 0]
            ),
            x,
            y,
        ),
        "pad_tile": (
            lambda a, b: tf.tile(tf.pad(a, [[1, 2], [0, 1]], "SYMMETRIC"), [2, 1]) * b[0, 0],
            x,
            y,
        ),
        "gather": (
            lambda a, b: (
                tf.gather(a, [3, 0, 3, 1], axis=0) @ b
                + tf.gather_nd(a, [[0, 1], [2, 5], [0, 1]])[:, None]
            ),
            x,
            y,
        ),
        "topk_sort": (
            lambda a, b: tf.concat([tf.math.top_k(a, 3).values, tf.sort(a, 1)[:, :2]], 1) * b[0, 0],
            x,
            y,
        ),
        "activations": (
            lambda a, b: (
                tf.nn.gelu(a)
                + tf.nn.elu(a)
                + tf.nn.selu(a)
                + tf.nn.softplus(a)
                + tf.nn.swish(a)
                + tf.nn.relu6(a * 4)
                + tf.nn.leaky_relu(a)
                + tf.math.erf(a) * b[0, 0]
            ),
            x,
            y,
        ),
        "special": (
            lambda a, b: (
                tf.math.lgamma(tf.abs(a) + 0.5)
                + tf.math.digamma(tf.abs(a) + 0.5)
                + tf.math.atan2(a, b[0, 0] + 2.0)
                + tf.math.xlogy(tf.abs(a), tf.abs(a) + 1)
            ),
            x,
            y,
        ),
        "segment": (
            lambda a, b: (
                tf.math.unsorted_segment_sum(a, [0, 2, 0, 1], 3) @ b
                + tf.math.unsorted_segment_max(a, [1, 1, 0, 0], 2)[:, :1]
            ),
            x,
            y,
        ),
        "lstm_cell_loop": (
            lambda a, b: tf.scan(
                lambda h, xt: tf.tanh(tf.concat([xt, h[:5]], 0)[None] @ tf.concat([b, b[:5]], 0))[
                    0
                ],
                tf.transpose(a),
                tf.zeros(5),
            ),
            tf.transpose(x),
            y,
        ),
    }
    return [Case(f"grad_op_{n}", "grad", _xw_grad(f), [a, b]) for n, (f, a, b) in fs.items()]


def train_case(name: str, build: Any, x: np.ndarray, y: np.ndarray, opt: Any) -> Any:
    """One optimizer step (compiled with the variables it updates): returns the loss
    and the updated weights; the program also returns the updated resources."""
    keras.utils.set_random_seed(0)
    m = build()
    m(tf.constant(x))
    o = opt()
    o.build(m.trainable_variables)

    def step(v: Any, t: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(m(v, training=True) - t))
        o.apply(tape.gradient(loss, m.trainable_variables), m.trainable_variables)
        return (loss, *[w.value for w in m.trainable_variables])

    state = types.SimpleNamespace(weights=[*m.weights, *o.variables])
    # Expected: the eager step from the same starting weights (a second, compiled step
    # would start from the updated ones): no "xla" fallback.
    return Case(f"train_{name}", "train", step, [x, y], model=state, check={"kind": "eager"})


def model_grad_cases() -> list[Any]:
    """Weight gradients of every model case (this sweep's and the fixtures')."""
    out = []
    for c in model_cases() + gen.model_cases():
        if c.model is None or len(c.args) != 1 or not c.model.trainable_variables:
            continue
        out.append(Case(f"gradof_{c.name}", "grad", _weight_grads(c.model), c.args, model=c.model))
    return out


def _weight_grads(m: Any) -> Any:
    def grads(v: Any) -> Any:
        with tf.GradientTape() as tape:
            y = m(v)
            loss = tf.add_n(
                [tf.reduce_sum(tf.sin(tf.cast(t, tf.float32))) for t in tf.nest.flatten(y)]
            )
        return tuple(tape.gradient(loss, m.trainable_variables))

    return grads


def train_cases() -> list[Any]:
    x, y = normal("trx", 4, 6), normal("try", 4, 2)
    mlp = seq((6,), L.Dense(8, activation="relu"), L.LayerNormalization(), L.Dense(2))
    return [
        train_case("mlp_sgd", mlp, x, y, lambda: keras.optimizers.SGD(0.1, momentum=0.9)),
        train_case("mlp_adam", mlp, x, y, lambda: keras.optimizers.Adam(0.01)),
        train_case("mlp_adamw", mlp, x, y, lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1)),
        train_case("mlp_rmsprop", mlp, x, y, lambda: keras.optimizers.RMSprop(0.01)),
        train_case(
            "cnn_adam",
            seq(
                (8, 8, 3),
                L.Conv2D(4, 3, padding="same"),
                L.BatchNormalization(),
                L.ReLU(),
                L.MaxPooling2D(3, 2, padding="same"),
                L.Flatten(),
                L.Dense(2),
            ),
            normal("trc", 4, 8, 8, 3),
            y,
            lambda: keras.optimizers.Adam(0.01),
        ),
        train_case(
            "lstm_adagrad",
            seq((5, 6), L.LSTM(4), L.Dense(2)),
            normal("trl", 4, 5, 6),
            y,
            lambda: keras.optimizers.Adagrad(0.1),
        ),
    ]


def grad_cases() -> list[Any]:
    pools = {
        "max3s2same": lambda v: tf.nn.max_pool2d(v, 3, 2, "SAME"),
        "max3s2valid": lambda v: tf.nn.max_pool2d(v, 3, 2, "VALID"),
        "max2s2": lambda v: tf.nn.max_pool2d(v, 2, 2, "VALID"),
        "max3s1same": lambda v: tf.nn.max_pool2d(v, 3, 1, "SAME"),
        "max2s1valid": lambda v: tf.nn.max_pool2d(v, 2, 1, "VALID"),
        "avg3s2same": lambda v: tf.nn.avg_pool2d(v, 3, 2, "SAME"),
        "max1d3s2": lambda v: tf.nn.max_pool1d(v[:, 0], 3, 2, "SAME"),
    }
    img = normal("tgpool", 2, 7, 7, 3)
    return [Case(f"grad_pool_{k}", "grad", _pool_grad(f), [img]) for k, f in pools.items()] + [
        grad_case(
            "cnn_pools",
            seq(
                (12, 12, 3),
                L.Conv2D(4, 3, padding="same"),
                L.BatchNormalization(),
                L.ReLU(),
                L.MaxPooling2D(),
                L.Conv2D(4, 3, strides=2),
                L.AveragePooling2D(2, padding="same"),
                L.Flatten(),
                L.Dense(3),
            ),
            normal("tgc", 2, 12, 12, 3),
        ),
        grad_case(
            "cnn_bn_training",
            seq(
                (8, 8, 3),
                L.Conv2D(4, 3),
                L.BatchNormalization(),
                L.MaxPooling2D(3, 2, padding="same"),
                L.GlobalAveragePooling2D(),
                L.Dense(2),
            ),
            normal("tgb", 4, 8, 8, 3),
            training=True,
        ),
        grad_case("mobilenet_block", gen.mobilenet_block, normal("tgm", 2, 8, 8, 4)),
        grad_case("conv_decoder", gen.conv_decoder, normal("tgd", 2, 6)),
        grad_case(
            "lstm", seq((5, 4), L.LSTM(6, return_sequences=True), L.GRU(3)), normal("tgl", 2, 5, 4)
        ),
        grad_case("transformer", gen.transformer_encoder, normal("tgt", 2, 5, 8)),
        grad_case(
            "embedding",
            lambda: keras.Sequential(
                [
                    keras.Input((4,), dtype="int32"),
                    L.Embedding(7, 5),
                    L.LayerNormalization(),
                    L.Flatten(),
                    L.Dense(2),
                ]
            ),
            rng("tge").integers(0, 7, (3, 4)).astype(np.int32),
        ),
        grad_case(
            "conv1d_3d",
            seq(
                (4, 4, 4, 2),
                L.Conv3D(3, 2, padding="same"),
                L.MaxPooling3D(),
                L.Flatten(),
                L.Dense(2),
            ),
            normal("tg3", 2, 4, 4, 4, 2),
        ),
    ]


def more_cases() -> list[Any]:
    """Less common TF / keras.ops users reach for."""
    K = keras.ops
    im = normal("tm_im", 2, 8, 8, 3)
    x = normal("tm_x", 4, 6)
    sig = normal("tm_sig", 2, 64)

    def c(name: str, fn: Any, *args: np.ndarray) -> Any:
        return Case(f"more_{name}", "ops", fn, list(args))

    return [
        c(
            "ctc_loss",
            lambda lg, lab: tf.nn.ctc_loss(
                lab,
                lg,
                tf.constant([3, 2]),
                tf.constant([7, 7]),
                logits_time_major=False,
                blank_index=0,
            ),
            normal("tm_ctc", 2, 7, 5),
            np.array([[1, 2, 3], [4, 1, 0]], np.int32),
        ),
        c(
            "nms_padded",
            lambda b, s: tf.image.non_max_suppression_padded(
                b, s, 4, iou_threshold=0.5, pad_to_max_output_size=True
            )[0],
            np.sort(
                rng("tm_box").random((10, 4)).astype(np.float32).reshape(10, 2, 2), axis=1
            ).reshape(10, 4),
            rng("tm_sc").random(10).astype(np.float32),
        ),
        c(
            "image_quality",
            lambda a: (
                tf.image.ssim(tf.sigmoid(a), tf.sigmoid(a * 0.9), 1.0, filter_size=3),
                tf.image.total_variation(a),
                tf.image.psnr(tf.sigmoid(a), tf.sigmoid(a * 0.8), 1.0),
                tf.image.extract_patches(a, [1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
                tf.image.image_gradients(a)[0],
            ),
            im,
        ),
        c(
            "signal",
            lambda v: (
                tf.signal.linear_to_mel_weight_matrix(8, 33, 16000, 20.0, 4000.0),
                tf.signal.mfccs_from_log_mel_spectrograms(tf.math.log(tf.abs(v[:, :16]) + 1.0)),
                tf.signal.vorbis_window(8),
                tf.signal.kaiser_window(8),
                tf.abs(tf.signal.stft(v, 16, 8, window_fn=tf.signal.hamming_window)),
            ),
            sig,
        ),
        c(
            "histogram",
            lambda v: (
                tf.searchsorted(tf.sort(v[0]), v[1]),
                tf.searchsorted(tf.sort(v[0]), v[1], side="right"),
            ),
            x,
        ),
        c(
            "linalg_banded",
            lambda a, b: (
                tf.linalg.tridiagonal_matmul(a[:3], b),
                tf.linalg.tridiagonal_solve(
                    a[:3] + tf.constant([[0.0], [5.0], [0.0]]), b, partial_pivoting=False
                ),
            ),
            normal("tm_ba", 4, 6),
            normal("tm_bb", 6, 2),
        ),
        c(
            "keras_ops_image",
            lambda a: (
                K.image.map_coordinates(
                    a[0, :, :, 0], tf.stack([tf.linspace(0.0, 7.0, 5), tf.linspace(1.0, 6.5, 5)]), 1
                ),
                K.image.resize(a, (5, 11), interpolation="bilinear", antialias=False),
                K.image.rgb_to_grayscale(a),
                K.image.pad_images(a, 1, 2, 11, 12),
                K.image.crop_images(a, 1, 1, 5, 6),
                K.image.extract_patches(a, 2),
            ),
            im,
        ),
        c(
            "keras_ops_math",
            lambda v: (
                K.logdet(tf.eye(4) * 3 + v[:, :4] @ tf.transpose(v[:, :4])),
                K.erfinv(tf.tanh(v) * 0.9),
                K.top_k(v, 3)[1],
                K.argpartition(v, 2),
                K.digitize(v, [-1.0, 0.0, 1.0]),
                K.segment_max(v, tf.constant([0, 0, 1, 2]), 3),
                K.segment_sum(v, tf.constant([0, 1, 1, 2]), 3),
                K.histogram(v[0], bins=5, range=(-2, 2))[0],
                K.nn.psnr(tf.sigmoid(v), tf.sigmoid(v * 0.7), 1.0),
                K.nn.dot_product_attention(
                    tf.reshape(v, (1, 4, 1, 6)),
                    tf.reshape(v, (1, 4, 1, 6)),
                    tf.reshape(v, (1, 4, 1, 6)),
                    is_causal=True,
                ),
                K.logaddexp(v, v[::-1]),
                K.nan_to_num(K.log(v)),
            ),
            x,
        ),
        c(
            "keras_ops_np",
            lambda v: (
                K.quantile(v, 0.3, axis=1),
                K.median(v, axis=0),
                K.trace(v[:, :4]),
                K.tri(4, 6, -1, dtype="float32") * v,
                K.cumprod(v, axis=1),
                K.ptp(v) if hasattr(K, "ptp") else K.max(v),
                K.var(v, axis=0),
                K.correlate(v[0], v[1][:3], mode="valid"),
                K.polyval(v[0], v[1]) if hasattr(K, "polyval") else v,
                K.logspace(0, 2, 5),
                K.unravel_index(tf.constant([3, 17]), (4, 6)),
                K.round(v * 10, 1),
            ),
            x,
        ),
    ]


def baked_cases() -> list[Any]:
    """Weights as constants inside the program (a function closing over NumPy arrays)."""
    r = np.random.default_rng(5)
    k1 = r.standard_normal((3, 3, 3, 16)).astype(np.float32) * 0.2
    k2 = r.standard_normal((3, 3, 16, 1)).astype(np.float32) * 0.2
    w = r.standard_normal((16 * 8 * 8, 10)).astype(np.float32) * 0.05
    b16 = r.standard_normal(16).astype(np.float32)
    emb = r.standard_normal((100, 32)).astype(np.float32)
    wi = r.integers(-128, 127, (32, 8)).astype(np.int8)

    def cnn(x: Any) -> Any:
        y = tf.nn.relu(tf.nn.conv2d(x, k1, 1, "SAME") + b16)
        y = tf.nn.depthwise_conv2d(y, tf.tile(k2, [1, 1, 1, 1]), (1, 1, 1, 1), "SAME")
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        return tf.nn.softmax(tf.reshape(y, (-1, 16 * 8 * 8)) @ w)

    def lm(t: Any) -> Any:
        e = tf.gather(emb, t)
        q = tf.cast(wi, tf.float32) / 127.0
        h = tf.nn.gelu(e @ q)
        return tf.reduce_sum(h, 1), tf.argmax(h, -1)

    return [
        Case("baked_cnn", "cnn", cnn, [normal("tbk", 2, 16, 16, 3)]),
        Case("baked_lm", "transformer", lm, [ints("tbkl", 0, 100, 2, 7)]),
        Case(
            "baked_f16",
            "nn",
            lambda x: tf.nn.relu(tf.cast(x, tf.float16) @ tf.constant(w[:16, :8], tf.float16)),
            [normal("tbkh", 3, 16)],
        ),
    ]


def random_cases() -> list[Any]:
    """Random ops: the expected values are TF's own XLA run where eager differs."""
    seed = np.array([7, 11], np.int32)
    x = normal("trnd", 4, 6)

    def c(name: str, fn: Any, *args: np.ndarray) -> Any:
        return Case(f"random_{name}", "random", fn, list(args))

    def algs(s: Any) -> Any:
        return tuple(
            tf.random.stateless_uniform((3, 5), s, alg=a) for a in ("philox", "auto_select")
        )

    return [
        c("algs", algs, seed),
        c(
            "normal_algs",
            lambda s: tuple(
                tf.random.stateless_normal((7,), s, alg=a) for a in ("philox", "auto_select")
            ),
            seed,
        ),
        c(
            "int_full_range",
            lambda s: (
                tf.random.stateless_uniform((9,), s, minval=None, maxval=None, dtype=tf.int32),
                tf.random.stateless_uniform((9,), s, minval=None, maxval=None, dtype=tf.uint64),
                tf.random.stateless_uniform((5,), s, -7, 13, dtype=tf.int64),
            ),
            seed,
        ),
        c(
            "dtypes",
            lambda s: (
                tf.random.stateless_uniform((6,), s, dtype=tf.float16),
                tf.random.stateless_uniform((6,), s, dtype=tf.bfloat16),
                tf.random.stateless_normal((6,), s, dtype=tf.float16),
                tf.random.stateless_truncated_normal((6,), s, dtype=tf.float64),
            ),
            seed,
        ),
        c(
            "dropout_keras",
            lambda v, s: (
                tf.nn.experimental.stateless_dropout(v, 0.4, s),
                v * 2,
            ),
            x,
            seed,
        ),
        c(
            "split_fold",
            lambda s: (
                tf.random.experimental.stateless_split(s, 3),
                tf.random.experimental.stateless_fold_in(s, 5),
            ),
            seed.astype(np.int64),
        ),
        c(
            "categorical",
            lambda s: (
                tf.random.stateless_categorical(
                    tf.math.log([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]), 8, s
                ),
                tf.random.stateless_parameterized_truncated_normal((5,), s, 0.0, 1.0, -0.5, 2.0),
            ),
            seed,
        ),
        c(
            "gamma_poisson",
            lambda s: (
                tf.random.stateless_gamma((5,), s, 2.0),
                tf.random.stateless_poisson((5,), s, 3.0),
            ),
            seed,
        ),
    ]


def _control(v: Any) -> Any:
    s = tf.reduce_sum(v)
    a = tf.cond(s > 0, lambda: v * 2, lambda: v - 1)
    b = tf.cond(s < 0, lambda: tf.exp(v), lambda: tf.sin(v))
    sw = tf.switch_case(tf.cast(tf.abs(s), tf.int32) % 3, [lambda: v, lambda: -v, lambda: v * v])
    return a, b, sw, tf.where(v > 0, tf.math.log(tf.abs(v)), v)


def _loops(v: Any, n: Any) -> Any:
    i, acc = tf.while_loop(
        lambda i, a: i < n, lambda i, a: (i + 1, a * 0.9 + tf.tanh(a)), (tf.constant(0), v)
    )
    j, acc2 = tf.while_loop(
        lambda j, a: tf.reduce_max(a) < 10.0,
        lambda j, a: (j + 1, a * 1.5 + 0.1),
        (tf.constant(0), tf.abs(v)),
        maximum_iterations=20,
    )
    ta = tf.TensorArray(tf.float32, size=4)
    for k in tf.range(4):
        ta = ta.write(k, tf.reduce_sum(v[k]) * tf.cast(k, tf.float32))
    sc = tf.scan(lambda a, x: a * 0.5 + x, v)
    fo = tf.foldl(lambda a, x: a + x * x, v)
    mp = tf.map_fn(lambda r: tf.reduce_max(r) - r, v)
    return i, acc, j, acc2, ta.stack(), sc, fo, mp


def _half(v: Any, w: Any, dt: Any) -> Any:
    a, b = tf.cast(v, dt), tf.cast(w, dt)
    return (
        a + b,
        a * b,
        a / b,
        tf.exp(a),
        tf.tanh(a),
        tf.sigmoid(a),
        tf.nn.gelu(a),
        tf.nn.silu(a),
        tf.reduce_sum(a, 1),
        tf.reduce_mean(a, 0),
        tf.nn.softmax(a),
        a @ tf.transpose(b),
        tf.sqrt(tf.abs(a)),
        tf.math.rsqrt(tf.abs(a) + 1),
        tf.reduce_max(a, 1),
        tf.math.cumsum(a, 1),
        tf.cast(a, tf.float32),
        tf.cast(a, tf.int32),
        tf.math.erf(a),
        tf.math.log(tf.abs(a) + 0.1),
        tf.math.reduce_variance(a, 1),
        tf.nn.conv2d(tf.reshape(a, (1, 4, 6, 1)), tf.ones((2, 2, 1, 2), dt), 1, "SAME"),
        tf.nn.avg_pool2d(tf.reshape(a, (1, 4, 6, 1)), 2, 2, "VALID"),
    )


def _spd(n: int) -> np.ndarray:
    a = rng("tspd").standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


CHUNK = 4


def split(case: Any) -> list[Any]:
    """An op case returning many outputs as programs of CHUNK outputs each."""
    out = case.fn(*[tf.constant(a) for a in case.args])
    n = len(gen.flat(out))
    if not isinstance(out, tuple | list) or n <= CHUNK:
        return [case]
    fn = case.fn

    def part(k: int) -> Any:
        return lambda *a: tuple(flat_t(fn(*a)))[k : k + CHUNK]

    return [
        Case(f"{case.name}_{k // CHUNK}", case.family, part(k), case.args)
        for k in range(0, n, CHUNK)
    ]


def flat_t(out: Any) -> list[Any]:
    if isinstance(out, tuple | list):
        return [a for o in out for a in flat_t(o)]
    if hasattr(out, "_asdict"):
        return flat_t(tuple(out))
    return [out]


def flat(out: Any) -> list[np.ndarray]:
    """gen.flat, with bfloat16 outputs as float32 (exactly: NumPy has no bfloat16)."""
    arrays = [
        np.asarray(tf.cast(t, tf.float32) if t.dtype == tf.bfloat16 else t) for t in flat_t(out)
    ]
    return arrays


def all_cases() -> list[Any]:
    cases = []
    for build in (
        model_cases,
        op_cases,
        edge_cases,
        random_cases,
        baked_cases,
        more_cases,
        grad_cases,
        op_grad_cases,
        train_cases,
        model_grad_cases,
    ):
        try:
            made = build()
        except Exception as e:  # noqa: BLE001
            print(f"{build.__name__}: failed to build: {e}", flush=True)
            continue
        for c in made:
            try:
                cases += (
                    [c]
                    if build not in (op_cases, edge_cases, random_cases, more_cases)
                    else split(c)
                )
            except Exception as e:  # noqa: BLE001
                print(f"{c.name}: eager failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
    return cases


def main(argv: list[str]) -> int:
    out = OUT / "tensorflow"
    out.mkdir(parents=True, exist_ok=True)
    gen.HERE = out
    gen.flat = flat
    head = {
        "generator": "tools/producer_sweep_tf.py",
        "producer": "tensorflow",
        "tensorflow": tf.__version__,
    }
    generate(out, argv, all_cases(), gen.run_case, head)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
