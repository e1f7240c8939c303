"""How long ``hlorun diff --against xla`` takes on a small decoder LM, against running the
model once on each engine (compile included on both sides).

Needs jax (run it with a Python that has jax and hlorun installed)::

    /work/venvs/jax/bin/python benchmarks/diff_decoder_lm.py

The model: token embedding (gather), ``LAYERS`` pre-norm decoder layers (causal
multi-head attention, GELU MLP), a final norm and the logits, exported by jax.export
for CPU.  Timed: ``hlorun.run`` of the program text (parse, verify, plan, run); XLA in a
fresh process (the worker ``hlorun diff`` uses, on the uninstrumented program:
deserialize, compile, run); ``hlorun.diff(..., against="xla")`` end to end (its
instrumented copy on both engines and the cause of a divergence, if any).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

VOCAB, SEQ, DIM, HEADS, FF, LAYERS = 512, 64, 128, 4, 512, 2


def model():
    import jax
    import jax.numpy as jnp

    def norm(x, g):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) * jax.lax.rsqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * g

    def layer(x, p):
        h = norm(x, p["g1"])
        q, k, v = (
            (h @ p[n]).reshape(SEQ, HEADS, DIM // HEADS).transpose(1, 0, 2)
            for n in ("wq", "wk", "wv")
        )
        s = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(DIM // HEADS))
        mask = jnp.tril(jnp.ones((SEQ, SEQ), bool))
        s = jnp.where(mask, s, -1e9)
        a = (jax.nn.softmax(s, -1) @ v).transpose(1, 0, 2).reshape(SEQ, DIM)
        x = x + a @ p["wo"]
        h = norm(x, p["g2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def lm(tokens, emb, layers, gf):
        x = emb[tokens]
        for p in layers:
            x = layer(x, p)
        return norm(x, gf) @ emb.T

    rng = np.random.default_rng(0)

    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)

    params = [
        {
            "wq": w(DIM, DIM),
            "wk": w(DIM, DIM),
            "wv": w(DIM, DIM),
            "wo": w(DIM, DIM),
            "w1": w(DIM, FF),
            "w2": w(FF, DIM),
            "g1": np.ones(DIM, np.float32),
            "g2": np.ones(DIM, np.float32),
        }
        for _ in range(LAYERS)
    ]
    args = (
        rng.integers(0, VOCAB, SEQ).astype(np.int32),
        w(VOCAB, DIM),
        params,
        np.ones(DIM, np.float32),
    )
    from jax import export

    exp = export.export(jax.jit(lm), platforms=["cpu"])(*args)
    leaves = jax.tree_util.tree_leaves(args)
    return exp.mlir_module(), [np.asarray(x) for x in leaves]


def main() -> None:
    import hlorun
    from hlorun.engine.api import clear_cache, prepare
    from hlorun.engine.diff_engines import _work, exported_bytes

    text, inputs = model()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lm.mlir")
        with open(path, "w") as f:
            f.write(text)
        t0 = time.perf_counter()
        hlorun.run(path, inputs)
        t_hl = time.perf_counter() - t0
        clear_cache()
        module = prepare(path)
        t0 = time.perf_counter()
        _work(
            sys.executable,
            "xla",
            lambda version: exported_bytes(module, version),
            ".exported",
            inputs,
            env={"JAX_PLATFORMS": "cpu", "JAX_ENABLE_X64": "1"},
        )
        t_xla = time.perf_counter() - t0
        clear_cache()
        t0 = time.perf_counter()
        report = hlorun.diff(path, inputs, against="xla")
        t_diff = time.perf_counter() - t0
    ops = len({r.index for r in report.rows})
    print(f"decoder LM: {LAYERS} layers, d={DIM}, seq={SEQ}, vocab={VOCAB}; {ops} ops compared")
    print(report.table(limit=5))
    print(f"hlorun run  {t_hl:7.2f} s (parse, verify, plan, run)")
    print(f"XLA run     {t_xla:7.2f} s (fresh process: import jax, deserialize, compile, run)")
    print(f"diff        {t_diff:7.2f} s = {t_diff / (t_hl + t_xla):.2f}x the two runs")


if __name__ == "__main__":
    main()
