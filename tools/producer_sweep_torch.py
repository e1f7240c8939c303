"""Sweep: export many torch programs with torch_xla or torchax, record torch's outputs.

Not a test and not imported by tests: a tool for finding where hlorun departs from the
producers.  Run it with ONE producer's venv (never hlorun's):

    PJRT_DEVICE=CPU /work/venvs/torch_xla/bin/python tools/producer_sweep_torch.py torch_xla
    /work/venvs/torchax/bin/python tools/producer_sweep_torch.py torchax [NAME_SUBSTRING ...]

Each case is exported exactly as tests/fixtures/{torch_xla,torchax}/generate.py exports
its cases (their ``run_case`` is reused, writing into ``OUT/<producer>/``, default
/work/sweep_out_p, outside the repository): NAME.mlir, NAME.mlirbc, NAME.inputs.npz,
NAME.outputs.npz (torch's eager outputs) and MANIFEST.json.  Check the results with
tools/producer_sweep_check.py in hlorun's venv.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("PJRT_DEVICE", "CPU")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
OUT = Path(os.environ.get("SWEEP_OUT", "/work/sweep_out_p"))
sys.path.insert(0, str(FIXTURES))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from producer_io import generate, normal, rng, write_npz  # noqa: E402
from producer_sweep_values import I32_EDGE, SPECIAL, big_ints, big_special  # noqa: E402
from torch_cases import Case, Fn, Seq2Last, module  # noqa: E402

nn = torch.nn
F = torch.nn.functional


def ints(name: str, lo: int, hi: int, *shape: int, dtype: Any = np.int64) -> np.ndarray:
    return rng(name).integers(lo, hi, shape).astype(dtype)


# ----------------------------------------------------------------------------- models


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = (
            nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            if stride != 1 or cin != cout
            else nn.Identity()
        )

    def forward(self, x: Any) -> Any:
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.down(x))


class ResNet18(nn.Module):
    """torchvision's resnet18 layout (2-2-2-2 basic blocks), narrow."""

    def __init__(self, w: int = 8) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, w, 7, 2, 3, bias=False),
            nn.BatchNorm2d(w),
            nn.ReLU(),
            nn.MaxPool2d(3, 2, 1),
        )
        layers, cin = [], w
        for i, cout in enumerate((w, 2 * w, 4 * w, 8 * w)):
            s = 1 if i == 0 else 2
            layers += [BasicBlock(cin, cout, s), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 10)

    def forward(self, x: Any) -> Any:
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


class SE(nn.Module):
    def __init__(self, c: int, r: int, act: Any, gate: Any) -> None:
        super().__init__()
        self.f1 = nn.Conv2d(c, r, 1)
        self.f2 = nn.Conv2d(r, c, 1)
        self.act, self.gate = act, gate

    def forward(self, x: Any) -> Any:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.f2(self.act(self.f1(s))))


class MBv3Block(nn.Module):
    """mobilenet_v3's inverted residual: 1x1 expand, depthwise 5x5, SE (hardsigmoid),
    hardswish, 1x1 project, residual."""

    def __init__(self) -> None:
        super().__init__()
        self.exp = nn.Sequential(
            nn.Conv2d(8, 16, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish()
        )
        self.dw = nn.Sequential(
            nn.Conv2d(16, 16, 5, 1, 2, groups=16, bias=False), nn.BatchNorm2d(16), nn.Hardswish()
        )
        self.se = SE(16, 4, nn.ReLU(), nn.Hardsigmoid())
        self.proj = nn.Sequential(nn.Conv2d(16, 8, 1, bias=False), nn.BatchNorm2d(8))

    def forward(self, x: Any) -> Any:
        return x + self.proj(self.se(self.dw(self.exp(x))))


class MBv2(nn.Module):
    """mobilenet_v2: stem, inverted residuals (ReLU6, depthwise stride 2), classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6()
        )

        def ir(cin: int, cout: int, s: int) -> Any:
            return nn.Sequential(
                nn.Conv2d(cin, cin * 4, 1, bias=False),
                nn.BatchNorm2d(cin * 4),
                nn.ReLU6(),
                nn.Conv2d(cin * 4, cin * 4, 3, s, 1, groups=cin * 4, bias=False),
                nn.BatchNorm2d(cin * 4),
                nn.ReLU6(),
                nn.Conv2d(cin * 4, cout, 1, bias=False),
                nn.BatchNorm2d(cout),
            )

        self.b1 = ir(8, 8, 1)
        self.b2 = ir(8, 12, 2)
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(12, 5))

    def forward(self, x: Any) -> Any:
        x = self.stem(x)
        x = x + self.b1(x)
        x = self.b2(x)
        return self.head(x.mean([2, 3]))


class EffBlock(nn.Module):
    """efficientnet's MBConv: SiLU, SE with sigmoid gate, stochastic depth off (eval)."""

    def __init__(self) -> None:
        super().__init__()
        self.exp = nn.Sequential(nn.Conv2d(6, 24, 1, bias=False), nn.BatchNorm2d(24), nn.SiLU())
        self.dw = nn.Sequential(
            nn.Conv2d(24, 24, 3, 2, 1, groups=24, bias=False), nn.BatchNorm2d(24), nn.SiLU()
        )
        self.se = SE(24, 2, nn.SiLU(), nn.Sigmoid())
        self.proj = nn.Sequential(nn.Conv2d(24, 10, 1, bias=False), nn.BatchNorm2d(10))

    def forward(self, x: Any) -> Any:
        return self.proj(self.se(self.dw(self.exp(x))))


class DenseBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(
                nn.BatchNorm2d(4 + 3 * i),
                nn.ReLU(),
                nn.Conv2d(4 + 3 * i, 6, 1, bias=False),
                nn.BatchNorm2d(6),
                nn.ReLU(),
                nn.Conv2d(6, 3, 3, padding=1, bias=False),
            )
            for i in range(3)
        )
        self.trans = nn.Sequential(
            nn.BatchNorm2d(13), nn.ReLU(), nn.Conv2d(13, 6, 1), nn.AvgPool2d(2)
        )

    def forward(self, x: Any) -> Any:
        feats = [x]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, 1)))
        return self.trans(torch.cat(feats, 1))


class Fire(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sq = nn.Conv2d(8, 4, 1)
        self.e1 = nn.Conv2d(4, 6, 1)
        self.e3 = nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, x: Any) -> Any:
        s = F.relu(self.sq(x))
        return torch.cat([F.relu(self.e1(s)), F.relu(self.e3(s))], 1)


class SqueezeNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 8, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True)
        )
        self.fire = Fire()
        self.cls = nn.Sequential(
            nn.Dropout(0.5), nn.Conv2d(12, 5, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1)
        )

    def forward(self, x: Any) -> Any:
        return torch.flatten(self.cls(self.fire(self.stem(x))), 1)


class VGGish(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.ReLU(True),
            nn.Conv2d(8, 8, 3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(True),
            nn.MaxPool2d(2, 2),
        )
        self.pool = nn.AdaptiveAvgPool2d((3, 3))
        self.cls = nn.Sequential(nn.Linear(144, 32), nn.ReLU(True), nn.Dropout(), nn.Linear(32, 4))

    def forward(self, x: Any) -> Any:
        return self.cls(torch.flatten(self.pool(self.f(x)), 1))


class UNet(nn.Module):
    def __init__(self, mode: str, align: bool | None) -> None:
        super().__init__()
        self.mode, self.align = mode, align
        self.d1 = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.up_t = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.u1 = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1), nn.ReLU())
        self.u2 = nn.Conv2d(12, 3, 1)

    def forward(self, x: Any) -> Any:
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        t = self.u1(torch.cat([self.up_t(b), a], 1))
        kw = {} if self.align is None else {"align_corners": self.align}
        up = F.interpolate(b, scale_factor=2, mode=self.mode, **kw)
        return self.u2(torch.cat([t, up], 1))


class RNNWithState(nn.Module):
    def __init__(self, rnn: Any, lstm: bool) -> None:
        super().__init__()
        self.rnn, self.lstm = rnn, lstm

    def forward(self, x: Any, h: Any) -> Any:
        out, hn = self.rnn(x, (h, torch.tanh(h)) if self.lstm else h)
        return (out, *hn) if isinstance(hn, tuple) else (out, hn)


class MHA(nn.Module):
    def __init__(self, **kw: Any) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True, **kw)

    def forward(self, q: Any, k: Any, mask: Any) -> Any:
        return self.mha(q, k, k, key_padding_mask=mask)


class MHAAttnMask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 4, batch_first=False, bias=False)

    def forward(self, x: Any) -> Any:
        m = torch.triu(torch.ones(x.shape[0], x.shape[0], dtype=torch.bool), 1)
        return self.mha(x, x, x, attn_mask=m, average_attn_weights=False)


class DecoderLayer(nn.Module):
    def __init__(self, norm_first: bool) -> None:
        super().__init__()
        self.dec = nn.TransformerDecoderLayer(
            8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first, activation="gelu"
        )

    def forward(self, tgt: Any, mem: Any) -> Any:
        m = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.dec(tgt, mem, tgt_mask=m, tgt_is_causal=True)


class Transformer2(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x: Any, pad: Any) -> Any:
        return self.enc(x, src_key_padding_mask=pad)


class EmbBag(nn.Module):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 4, mode=mode)

    def forward(self, idx: Any) -> Any:
        return self.bag(idx)


class GPTBlock(nn.Module):
    """A GPT-2-style block written out: fused qkv, SDPA causal, GELU tanh MLP."""

    def __init__(self) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(16), nn.LayerNorm(16)
        self.qkv = nn.Linear(16, 48)
        self.proj = nn.Linear(16, 16)
        self.fc1, self.fc2 = nn.Linear(16, 64), nn.Linear(64, 16)
        self.emb = nn.Embedding(20, 16)
        self.pos = nn.Embedding(8, 16)

    def forward(self, tok: Any) -> Any:
        b, t = tok.shape
        x = self.emb(tok) + self.pos(torch.arange(t))
        q, k, v = self.qkv(self.ln1(x)).split(16, dim=2)
        q, k, v = (z.view(b, t, 4, 4).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, 16))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))
        return x @ self.emb.weight.T


class LlamaBlock(nn.Module):
    """RMSNorm, rotary embeddings, grouped-query attention, SwiGLU."""

    def __init__(self) -> None:
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(16, eps=1e-6), nn.RMSNorm(16, eps=1e-6)
        self.q, self.k, self.v = (
            nn.Linear(16, 16, bias=False),
            nn.Linear(16, 8, bias=False),
            nn.Linear(16, 8, bias=False),
        )
        self.o = nn.Linear(16, 16, bias=False)
        self.g, self.u, self.d = (
            nn.Linear(16, 32, bias=False),
            nn.Linear(16, 32, bias=False),
            nn.Linear(32, 16, bias=False),
        )

    @staticmethod
    def rope(x: Any) -> Any:
        t, d = x.shape[-2], x.shape[-1]
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        f = torch.outer(torch.arange(t).float(), inv)
        cos, sin = f.cos(), f.sin()
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)

    def forward(self, x: Any) -> Any:
        b, t, _ = x.shape
        h = self.n1(x)
        q = self.rope(self.q(h).view(b, t, 4, 4).transpose(1, 2))
        k = self.rope(self.k(h).view(b, t, 2, 4).transpose(1, 2))
        v = self.v(h).view(b, t, 2, 4).transpose(1, 2)
        k, v = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, 16))
        h = self.n2(x)
        return x + self.d(F.silu(self.g(h)) * self.u(h))


def model_cases() -> list[Case]:
    img = normal("sw_img", 2, 3, 16, 16)
    seqx = normal("sw_seq", 2, 5, 4)
    M = module
    cases = [
        Case("resnet18", "cnn", M(ResNet18), [normal("r18", 1, 3, 32, 32)]),
        Case("mobilenet_v2", "cnn", M(MBv2), [img]),
        Case("mobilenet_v3_block", "cnn", M(MBv3Block), [normal("mb3", 2, 8, 8, 8)]),
        Case("efficientnet_block", "cnn", M(EffBlock), [normal("eff", 2, 6, 8, 8)]),
        Case("densenet_block", "cnn", M(DenseBlock), [normal("dn", 2, 4, 8, 8)]),
        Case("squeezenet", "cnn", M(SqueezeNet), [normal("sq", 1, 3, 20, 20)]),
        Case("vgg_small", "cnn", M(VGGish), [img]),
        Case(
            "unet_bilinear", "cnn", M(lambda: UNet("bilinear", False)), [normal("un", 1, 2, 8, 8)]
        ),
        Case(
            "unet_bilinear_ac", "cnn", M(lambda: UNet("bilinear", True)), [normal("un", 1, 2, 8, 8)]
        ),
        Case("unet_nearest", "cnn", M(lambda: UNet("nearest", None)), [normal("un", 1, 2, 8, 8)]),
        Case("unet_bicubic", "cnn", M(lambda: UNet("bicubic", False)), [normal("un", 1, 2, 8, 8)]),
        Case("gpt_block", "transformer", M(GPTBlock), [ints("gpt", 0, 20, 2, 8)]),
        Case("llama_block", "transformer", M(LlamaBlock), [normal("llama", 2, 6, 16)]),
        Case(
            "lstm_2layer_bi",
            "rnn",
            M(lambda: Seq2Last(nn.LSTM(4, 5, 2, batch_first=True, bidirectional=True))),
            [seqx],
        ),
        Case(
            "lstm_seq_first", "rnn", M(lambda: Seq2Last(nn.LSTM(4, 5, 2))), [normal("lsf", 5, 2, 4)]
        ),
        Case(
            "lstm_proj",
            "rnn",
            M(lambda: Seq2Last(nn.LSTM(4, 6, batch_first=True, proj_size=3))),
            [seqx],
        ),
        Case(
            "lstm_state",
            "rnn",
            M(lambda: RNNWithState(nn.LSTM(4, 5, batch_first=True), True)),
            [seqx, normal("h0", 1, 2, 5)],
        ),
        Case(
            "gru_2layer_bi",
            "rnn",
            M(lambda: Seq2Last(nn.GRU(4, 5, 2, batch_first=True, bidirectional=True))),
            [seqx],
        ),
        Case(
            "gru_state",
            "rnn",
            M(lambda: RNNWithState(nn.GRU(4, 5, batch_first=True), False)),
            [seqx, normal("h0", 1, 2, 5)],
        ),
        Case(
            "rnn_relu_bi",
            "rnn",
            M(lambda: Seq2Last(nn.RNN(4, 5, 2, nonlinearity="relu", bidirectional=True))),
            [normal("rr", 5, 2, 4)],
        ),
        Case("lstm_cell", "rnn", M(lambda: Fn2(nn.LSTMCell(4, 5))), [normal("lc", 3, 4)]),
        Case(
            "mha_kpm",
            "transformer",
            M(MHA),
            [
                normal("mq", 2, 4, 8),
                normal("mk", 2, 6, 8),
                np.array([[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]], bool),
            ],
        ),
        Case(
            "mha_kdim",
            "transformer",
            M(lambda: MHAK()),
            [normal("mq", 2, 4, 8), normal("mk5", 2, 6, 5)],
        ),
        Case("mha_attn_mask", "transformer", M(MHAAttnMask), [normal("mam", 5, 2, 8)]),
        Case(
            "decoder_layer",
            "transformer",
            M(lambda: DecoderLayer(False)),
            [normal("tg", 2, 4, 8), normal("mem", 2, 6, 8)],
        ),
        Case(
            "decoder_layer_prenorm",
            "transformer",
            M(lambda: DecoderLayer(True)),
            [normal("tg", 2, 4, 8), normal("mem", 2, 6, 8)],
        ),
        Case(
            "encoder_2layer_pad",
            "transformer",
            M(Transformer2),
            [normal("e2", 2, 5, 8), np.array([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]], bool)],
        ),
        Case(
            "resblock_f16",
            "cnn",
            M(lambda: BasicBlock(4, 8, 2).half()),
            [normal("rbh", 1, 4, 8, 8, dtype=np.float16)],
        ),
        Case(
            "mlp_f64",
            "nn",
            M(
                lambda: nn.Sequential(
                    nn.Linear(5, 7), nn.Tanh(), nn.LayerNorm(7), nn.Linear(7, 2)
                ).double()
            ),
            [normal("mlp64", 3, 5, dtype=np.float64)],
        ),
        Case(
            "full_transformer",
            "transformer",
            M(lambda: FullT()),
            [normal("fs", 2, 5, 8), normal("ft", 2, 3, 8)],
        ),
    ]
    return cases


class Fn2(nn.Module):
    def __init__(self, cell: Any) -> None:
        super().__init__()
        self.cell = cell

    def forward(self, x: Any) -> Any:
        h, c = self.cell(x)
        h2, c2 = self.cell(x * 0.5, (h, c))
        return h2, c2


class MHAK(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=5, vdim=5, add_bias_kv=True)

    def forward(self, q: Any, k: Any) -> Any:
        return self.mha(q, k, k)


class FullT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.t = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)

    def forward(self, s: Any, t: Any) -> Any:
        return self.t(s, t, tgt_mask=nn.Transformer.generate_square_subsequent_mask(t.shape[1]))


# ----------------------------------------------------------------------------- layers


def layer_cases() -> list[Case]:
    M = module
    x1 = normal("l1", 2, 4, 11)
    x2 = normal("l2", 2, 4, 9, 9)
    x3 = normal("l3", 1, 2, 5, 6, 6)

    def lay(name: str, build: Any, x: np.ndarray) -> Case:
        return Case(name, "nn", M(build), [x])

    return [
        lay(
            "conv1d_groups_dil",
            lambda: nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2),
            x1,
        ),
        lay("conv1d_reflect", lambda: nn.Conv1d(4, 4, 5, padding=2, padding_mode="reflect"), x1),
        lay("conv1d_circular", lambda: nn.Conv1d(4, 2, 3, padding=1, padding_mode="circular"), x1),
        lay("conv1d_same", lambda: nn.Conv1d(4, 3, 4, padding="same", dilation=2), x1),
        lay(
            "conv2d_replicate",
            lambda: nn.Conv2d(4, 4, 3, padding=2, padding_mode="replicate", dilation=2),
            x2,
        ),
        lay(
            "conv2d_reflect_groups",
            lambda: nn.Conv2d(4, 8, 3, stride=(2, 1), padding=1, padding_mode="reflect", groups=4),
            x2,
        ),
        lay(
            "conv2d_circular",
            lambda: nn.Conv2d(4, 2, (3, 5), padding=(1, 2), padding_mode="circular"),
            x2,
        ),
        lay(
            "conv2d_asym_stride", lambda: nn.Conv2d(4, 3, (2, 3), stride=(3, 2), padding=(0, 1)), x2
        ),
        lay("conv3d_groups", lambda: nn.Conv3d(2, 4, 3, stride=(1, 2, 2), padding=1, groups=2), x3),
        lay(
            "conv3d_replicate", lambda: nn.Conv3d(2, 2, 3, padding=1, padding_mode="replicate"), x3
        ),
        lay(
            "convT1d",
            lambda: nn.ConvTranspose1d(4, 3, 4, stride=3, padding=1, output_padding=2, dilation=1),
            x1,
        ),
        lay(
            "convT2d_groups_dil",
            lambda: nn.ConvTranspose2d(
                4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=2
            ),
            x2,
        ),
        lay(
            "convT2d_outpad",
            lambda: nn.ConvTranspose2d(
                4, 2, (3, 2), stride=(3, 2), padding=(1, 0), output_padding=(2, 1)
            ),
            x2,
        ),
        lay("convT3d", lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, output_padding=0), x3),
        lay("batchnorm1d", lambda: nn.BatchNorm1d(4), x1),
        lay("batchnorm3d", lambda: nn.BatchNorm3d(2), x3),
        lay("instancenorm2d", lambda: nn.InstanceNorm2d(4, affine=True), x2),
        lay("instancenorm1d_stats", lambda: nn.InstanceNorm1d(4, track_running_stats=True), x1),
        lay("groupnorm", lambda: nn.GroupNorm(2, 4), x2),
        lay("layernorm_2d", lambda: nn.LayerNorm([9, 9]), x2),
        lay("layernorm_nobias", lambda: nn.LayerNorm(11, bias=False), x1),
        lay("localresponse", lambda: nn.LocalResponseNorm(3), x2),
        lay("adaptive_avg_odd", lambda: nn.AdaptiveAvgPool2d((4, 3)), x2),
        lay("adaptive_avg1d", lambda: nn.AdaptiveAvgPool1d(4), x1),
        lay("adaptive_max_idx", lambda: Idx(nn.AdaptiveMaxPool2d((3, 4), return_indices=True)), x2),
        lay("maxpool_idx", lambda: Idx(nn.MaxPool2d(3, 2, 1, return_indices=True)), x2),
        lay("maxpool_dil_ceil", lambda: nn.MaxPool2d(3, 2, 1, dilation=2, ceil_mode=True), x2),
        lay("maxpool1d_idx", lambda: Idx(nn.MaxPool1d(3, 2, return_indices=True)), x1),
        lay("avgpool_ceil", lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True), x2),
        lay("avgpool_divisor", lambda: nn.AvgPool2d(2, divisor_override=3), x2),
        lay("avgpool3d", lambda: nn.AvgPool3d(2, count_include_pad=False, padding=1), x3),
        lay("maxpool3d_idx", lambda: Idx(nn.MaxPool3d(2, return_indices=True)), x3),
        lay("lppool", lambda: nn.LPPool2d(2, 3, 2), x2),
        lay(
            "fractional_free_pools",
            lambda: nn.Sequential(
                nn.ZeroPad2d((1, 2, 0, 1)),
                nn.ReflectionPad2d(1),
                nn.ReplicationPad2d((0, 1, 2, 0)),
                nn.ConstantPad2d(1, 0.5),
            ),
            x2,
        ),
        lay("circular_pad3d", lambda: nn.CircularPad3d(1), x3),
        lay("pixel_shuffle", lambda: nn.Sequential(nn.PixelUnshuffle(3), nn.PixelShuffle(3)), x2),
        lay("unfold_fold", lambda: UnfoldFold(), x2),
        lay("upsample_nearest_exact", lambda: UpModes(), normal("up", 1, 2, 3, 5)),
        lay("channel_shuffle", lambda: nn.ChannelShuffle(2), x2),
        lay(
            "dropout_eval",
            lambda: nn.Sequential(nn.Dropout(0.3), nn.Dropout2d(0.5), nn.AlphaDropout(0.2)),
            x2,
        ),
        lay("activations", lambda: Acts(), normal("acts", 3, 7)),
        lay(
            "softmin_logsigmoid",
            lambda: nn.Sequential(
                nn.Softmin(1),
                nn.LogSigmoid(),
                nn.Softsign(),
                nn.Tanhshrink(),
                nn.Softshrink(0.2),
                nn.Hardshrink(0.1),
                nn.Threshold(0.05, -1.0),
            ),
            normal("sm", 3, 7),
        ),
        lay(
            "glu_celu_rrelu",
            lambda: nn.Sequential(
                nn.GLU(1), nn.CELU(0.7), nn.RReLU(), nn.ReLU6(), nn.Softplus(2.0, 5.0)
            ),
            normal("glu", 3, 8),
        ),
        lay("bilinear", lambda: Bil(), normal("bil", 3, 4)),
        lay("cosine_pairwise", lambda: Dist(), normal("cs", 3, 4)),
        Case("embedding_opts", "nn", M(lambda: Emb()), [ints("emb", 0, 10, 3, 4)]),
        Case("embedding_bag_mean", "nn", M(lambda: EmbBag("mean")), [ints("eb", 0, 10, 3, 4)]),
        Case("embedding_bag_max", "nn", M(lambda: EmbBag("max")), [ints("eb", 0, 10, 3, 4)]),
        Case("embedding_bag_sum", "nn", M(lambda: EmbBag("sum")), [ints("eb", 0, 10, 3, 4)]),
        Case(
            "losses",
            "nn",
            Fn(
                lambda a, b, t: (
                    F.mse_loss(a, b),
                    F.l1_loss(a, b),
                    F.smooth_l1_loss(a, b, beta=0.5),
                    F.huber_loss(a, b),
                    F.cross_entropy(a, t),
                    F.cross_entropy(a, t, label_smoothing=0.1),
                    F.nll_loss(F.log_softmax(a, 1), t),
                    F.binary_cross_entropy_with_logits(a, torch.sigmoid(b)),
                    F.kl_div(F.log_softmax(a, 1), F.softmax(b, 1), reduction="batchmean"),
                    F.cosine_embedding_loss(a, b, torch.ones(3)),
                )
            ),
            [normal("la", 3, 5), normal("lb", 3, 5), np.array([1, 4, 0], np.int64)],
        ),
    ]


class Idx(nn.Module):
    def __init__(self, pool: Any) -> None:
        super().__init__()
        self.pool = pool

    def forward(self, x: Any) -> Any:
        v, i = self.pool(x)
        return v, i


class UnfoldFold(nn.Module):
    def forward(self, x: Any) -> Any:
        u = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        f = F.fold(F.unfold(x, 3, stride=3), (9, 9), 3, stride=3)
        o = F.fold(F.unfold(x, 3, padding=1), (9, 9), 3, padding=1)
        return u, f, o


class UpModes(nn.Module):
    def forward(self, x: Any) -> Any:
        return (
            F.interpolate(x, scale_factor=2.5, mode="nearest-exact"),
            F.interpolate(x, size=(7, 4), mode="nearest"),
            F.interpolate(x, size=(2, 9), mode="bilinear", align_corners=True),
            F.interpolate(x, size=(7, 4), mode="bilinear", align_corners=False, antialias=False),
            F.interpolate(x, scale_factor=(1.5, 0.6), mode="bilinear", recompute_scale_factor=True),
            F.interpolate(x, size=(6, 10), mode="bicubic", align_corners=False),
            F.interpolate(x, size=(4, 3), mode="area"),
            F.interpolate(x[:, :, 0], size=8, mode="linear", align_corners=False),
        )


class Acts(nn.Module):
    def forward(self, x: Any) -> Any:
        return (
            F.gelu(x, approximate="tanh"),
            F.gelu(x),
            F.silu(x),
            F.mish(x),
            F.hardsigmoid(x),
            F.hardswish(x),
            F.softplus(x),
            F.elu(x, 0.5),
            F.selu(x),
            F.leaky_relu(x, 0.02),
            F.hardtanh(x, -0.5, 0.7),
            F.relu6(x * 4),
            torch.sigmoid(x),
            torch.tanh(x),
            F.logsigmoid(x),
            F.softsign(x),
        )


class Bil(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.b = nn.Bilinear(4, 4, 3)

    def forward(self, x: Any) -> Any:
        return self.b(x, x.flip(0))


class Dist(nn.Module):
    def forward(self, x: Any) -> Any:
        y = x.flip(0)
        return (
            F.cosine_similarity(x, y),
            F.pairwise_distance(x, y),
            F.normalize(x, dim=1),
            torch.cdist(x, y, p=1.0),
        )


class Emb(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.e = nn.Embedding(10, 4, padding_idx=0, max_norm=None)

    def forward(self, i: Any) -> Any:
        return self.e(i), F.embedding(i, self.e.weight * 2)


# ----------------------------------------------------------------------------- ops


def op_cases() -> list[Case]:
    x = normal("ops_x", 4, 6)
    y = normal("ops_y", 4, 6)
    i32 = ints("ops_i32", -50, 50, 4, 6, dtype=np.int32)
    i64 = ints("ops_i64", -1000, 1000, 4, 6)
    j32 = ints("ops_j32", -7, 8, 4, 6, dtype=np.int32)
    j32[j32 == 0] = 3
    u8 = ints("ops_u8", 0, 256, 4, 6, dtype=np.uint8)
    i8 = ints("ops_i8", -128, 128, 4, 6, dtype=np.int8)
    idx = ints("ops_idx", 0, 4, 4, 3)

    def c(name: str, fn: Any, *args: np.ndarray, **kw: Any) -> Case:
        return Case(name, "ops", Fn(fn), list(args), **kw)

    return [
        c(
            "topk_variants",
            lambda v: (
                *torch.topk(v, 3, dim=0),
                *torch.topk(v, 2, largest=False),
                *torch.topk(v, 6, sorted=True),
            ),
            x,
        ),
        c(
            "sort_variants",
            lambda v: (
                *torch.sort(v, 0, descending=True),
                *torch.sort(v, stable=True),
                torch.argsort(v, 1, descending=True),
            ),
            x,
        ),
        c(
            "sort_ties_int",
            lambda v: (
                *torch.sort(v % 3, dim=1, stable=True),
                torch.argsort(v % 4, dim=0, stable=True),
                *torch.sort(v, descending=True),
            ),
            i32,
        ),
        c("topk_int", lambda v: tuple(torch.topk(v, 2)), i64),
        c(
            "cumulative",
            lambda v: (
                torch.cumsum(v, 0),
                torch.cumprod(v, 1),
                torch.logcumsumexp(v, 0),
                *torch.cummax(v, 1),
                *torch.cummin(v, 0),
            ),
            x,
        ),
        c("cumsum_int", lambda v: (torch.cumsum(v, 1), torch.cumprod(v % 3 + 1, 0)), i32),
        c(
            "gather_scatter",
            lambda v, i: (
                torch.gather(v, 1, i),
                torch.scatter(v, 1, i, -1.0),
                torch.scatter_add(v, 1, i, v[:, :3]),
                torch.scatter_reduce(v, 1, i, v[:, :3], "amax"),
                torch.scatter_reduce(v, 1, i, v[:, :3], "mean", include_self=False),
            ),
            x,
            idx,
        ),
        c(
            "scatter_reduce_prod",
            lambda v, i: (
                torch.scatter_reduce(v, 1, i, v[:, :3], "prod"),
                torch.scatter_reduce(v, 1, i, v[:, :3], "amin", include_self=False),
            ),
            x,
            idx,
        ),
        c(
            "index_ops",
            lambda v, i: (
                v[i[:, 0]],
                torch.index_select(v, 1, i[0]),
                v.index_put((i[:, 0],), v[:4] * 2),
                v.index_put((i[:, 0],), v[:4], accumulate=True),
                v[:, i[0]],
                v[i[:, 0], i[:, 1]],
                torch.index_add(v, 0, i[:, 1] % 4, v),
                torch.index_copy(v, 1, i[0, :2], v[:, :2]),
                v.index_fill(1, i[0], 3.0),
                torch.take(v, i),
            ),
            x,
            idx,
        ),
        c("setitem", lambda v, i: _setitem(v, i), x, idx),
        c(
            "masked",
            lambda v, w: (
                v.masked_fill(w > 0, -1e9),
                torch.where(v > w, v, w),
                torch.where(v > 0, v, 0.0),
                v * (w > 0),
                torch.clamp(v, min=-0.2),
                torch.clamp(v, max=w),
                torch.clamp_min(v, 0.1),
            ),
            x,
            y,
        ),
        c(
            "remainder_fmod_float",
            lambda v, w: (
                torch.remainder(v, w),
                torch.fmod(v, w),
                torch.floor_divide(v, w),
                torch.div(v, w, rounding_mode="trunc"),
                torch.div(v, w, rounding_mode="floor"),
                torch.remainder(-v, 0.5),
                torch.fmod(-v, 0.5),
            ),
            x * 5,
            y,
        ),
        c(
            "remainder_fmod_int",
            lambda a, b: (
                torch.remainder(a, b),
                torch.fmod(a, b),
                torch.floor_divide(a, b),
                torch.div(a, b, rounding_mode="trunc"),
                a // 3,
                a % -4,
                torch.remainder(a, -3),
                torch.div(a, b),
            ),
            i32,
            j32,
        ),
        c(
            "int64_divmod",
            lambda a: (
                a // 7,
                a % 7,
                torch.fmod(a, -7),
                torch.div(a, -7, rounding_mode="floor"),
                a.abs(),
                torch.sign(a),
                -a,
            ),
            i64,
        ),
        c(
            "bitwise_i32",
            lambda a, b: (
                a & b,
                a | b,
                a ^ b,
                ~a,
                a << 3,
                a >> 2,
                torch.bitwise_left_shift(a, b.abs() % 8),
                torch.bitwise_right_shift(a, b.abs() % 8),
            ),
            i32,
            j32,
        ),
        c(
            "bitwise_u8",
            lambda a: (
                a & 0x0F,
                a | 0x80,
                a ^ 0xFF,
                ~a,
                a >> 3,
                a << 2,
                a.to(torch.int32) * 3,
                a + a,
            ),
            u8,
        ),
        c(
            "int8_ops",
            lambda a: (
                a + a,
                a * 3,
                a // 5,
                a % 5,
                torch.abs(a),
                a.to(torch.float32) / 127,
                a.max(),
                a.sum(),
                a.to(torch.int32).sum(1),
                a >> 1,
                torch.clamp(a, -10, 10),
                (a.float() * 0.9).to(torch.int8),
            ),
            i8,
        ),
        c(
            "bool_ops",
            lambda v, w: (
                (v > 0) & (w > 0),
                (v > 0) | (w > 0),
                (v > 0) ^ (w > 0),
                ~(v > 0),
                (v > 0).sum(1),
                (v > 0).any(0),
                (w > 0).all(1),
                torch.logical_xor(v, w),
                torch.logical_not(v),
                (v > 0).float().mean(),
                torch.count_nonzero(v > 0, 1),
            ),
            x,
            y,
        ),
        c(
            "type_promotion",
            lambda a, v, b: (
                a + v,
                a * 2.5,
                a / 2,
                a.float() + b,
                b + 1,
                b * v,
                (a > 0) + a,
                v + True,
                torch.true_divide(a, 4),
                a**2,
                v**2,
                2 ** a.clamp(0, 10),
                a.double() * v,
            ),
            i32,
            x,
            u8,
        ),
        c(
            "casts",
            lambda v: (
                v.to(torch.int32),
                (v * 100).to(torch.int8),
                (v * 100).to(torch.uint8),
                v.to(torch.bool),
                (v * 1e5).to(torch.int64),
                v.to(torch.float16),
                v.to(torch.bfloat16),
                v.double(),
                (v * 300).to(torch.int16),
                torch.round(v * 10),
                torch.trunc(v * 10),
                torch.frac(v * 10),
                torch.round(v, decimals=2),
            ),
            x * 3,
        ),
        c(
            "cast_specials",
            lambda v: (
                v.to(torch.int32),
                v.to(torch.bool),
                v.to(torch.float16),
                v.to(torch.bfloat16),
                v.to(torch.uint8),
            ),
            np.array(
                [0.5, 1.5, 2.5, -0.5, -1.5, 1e10, -1e10, 70000.0, 255.9, -0.0, 3.4e38, 1e-40],
                np.float32,
            ),
        ),
        c("f16_model", lambda v, w: _half(v, w, torch.float16), x, y),
        c("bf16_model", lambda v, w: _half(v, w, torch.bfloat16), x, y),
        c(
            "einsum_mix",
            lambda v, w: (
                torch.einsum("ij,kj->ik", v, w),
                torch.einsum("ij,ij->i", v, w),
                torch.einsum("i,j->ij", v[0], w[0]),
                torch.einsum("bi,bj->bij", v, w),
                torch.einsum("ii->i", v[:, :4]),
                torch.einsum("ij->", v),
                torch.einsum("bij,bjk->bik", v.reshape(2, 2, 6), w.reshape(2, 6, 2)),
            ),
            x,
            y,
        ),
        c(
            "matmuls",
            lambda v, w: (
                torch.bmm(v.reshape(2, 2, 6), w.reshape(2, 6, 2)),
                torch.baddbmm(
                    torch.ones(2, 2, 2), v.reshape(2, 2, 6), w.reshape(2, 6, 2), beta=0.5, alpha=2
                ),
                torch.addmm(w[:, :4], v, w.T, beta=0.3, alpha=1.5),
                torch.addmv(v[:, 0], v, w[0]),
                torch.outer(v[0], w[0]),
                torch.mv(v, w[0]),
                torch.matmul(v, w.T),
                torch.dot(v[0], w[0]),
                torch.kron(v[:2, :2], w[:2, :2]),
                torch.tensordot(v, w, ([1], [1])),
            ),
            x,
            y,
        ),
        c("matmul_int", lambda a, b: (a @ b.T, torch.matmul(a[0], b[0])), i64, i64 % 7),
        c(
            "reductions",
            lambda v: (
                v.sum(),
                v.mean(1),
                v.std(0),
                v.var(1, correction=0),
                v.std(1, correction=2),
                *torch.var_mean(v, 0),
                *torch.std_mean(v, 1, unbiased=False),
                v.prod(1),
                v.amax(0),
                v.amin(1),
                *v.max(1),
                *v.min(0),
                v.norm(),
                v.norm(p=1, dim=1),
                v.norm(p=float("inf"), dim=0),
                torch.logsumexp(v, 1),
                v.nansum(),
                v.median(),
                torch.aminmax(v, dim=1)[0],
            ),
            x,
        ),
        c(
            "argmax_ties",
            lambda v: (
                v.argmax(),
                v.argmax(1),
                v.argmin(0),
                v.argmin(1, keepdim=True),
                (v > 0).float().argmax(1),
            ),
            np.round(x),
        ),
        c(
            "argmax_int",
            lambda a: (a.argmax(1), (a % 3).argmin(0), (a % 2).argmax(1), a.max(0).values),
            i32,
        ),
        c(
            "median_mode",
            lambda v: (
                *torch.median(v, 1),
                torch.quantile(v, 0.3, dim=1),
                torch.nanmedian(v, 0)[0],
                torch.kthvalue(v, 2, 1)[0],
            ),
            x,
        ),
        c(
            "special_fns",
            lambda v: (
                torch.erf(v),
                torch.erfc(v),
                torch.erfinv(torch.tanh(v) * 0.99),
                torch.lgamma(v),
                torch.digamma(v.abs() + 0.1),
                torch.special.expit(v),
                torch.special.log1p(v.abs()),
                torch.special.i0(v),
                torch.special.round(v),
                torch.special.log_softmax(v, 1),
                torch.polygamma(2, v.abs() + 1),
                torch.mvlgamma(v.abs() + 2, 2),
            ),
            x * 2,
        ),
        c(
            "lgamma_neg",
            lambda v: (torch.lgamma(v), torch.digamma(v)),
            np.array([-0.5, -1.5, -2.25, 0.25, 1.0, 2.0, 10.5, -3.75, 1e-3, 100.0], np.float32),
        ),
        c(
            "unary_math",
            lambda v: (
                torch.exp2(v),
                torch.log2(v.abs() + 0.1),
                torch.log10(v.abs() + 0.1),
                torch.rsqrt(v.abs() + 0.1),
                torch.reciprocal(v),
                torch.sinh(v),
                torch.cosh(v),
                torch.asinh(v),
                torch.acosh(v.abs() + 1),
                torch.atanh(torch.tanh(v) * 0.9),
                torch.asin(torch.tanh(v)),
                torch.acos(torch.tanh(v)),
                torch.atan(v),
                torch.atan2(v, v.flip(0)),
                torch.hypot(v, v.flip(1)),
                torch.sgn(v),
                torch.nan_to_num(torch.log(v)),
                torch.logaddexp(v, v.flip(0)),
                torch.logaddexp2(v, v.flip(0)),
                torch.xlogy(v.abs(), v.abs()),
                torch.copysign(v, v.flip(0)),
                torch.nextafter(v, v.flip(0)),
                torch.ldexp(v, torch.full_like(v, 3)),
                torch.float_power(v.abs(), 0.5),
                torch.signbit(v),
                torch.heaviside(v, v.flip(0)),
                torch.deg2rad(v),
                torch.tan(v),
            ),
            x,
        ),
        c(
            "special_values",
            lambda v: (
                torch.exp(v),
                torch.log(v),
                torch.sqrt(v),
                v / 0,
                torch.tanh(v),
                torch.sigmoid(v),
                torch.isnan(v),
                torch.isinf(v),
                torch.isfinite(v),
                torch.maximum(v, v.flip(0)),
                torch.minimum(v, v.flip(0)),
                torch.fmax(v, v.flip(0)),
                torch.fmin(v, v.flip(0)),
                torch.clamp(v, -1, 1),
                torch.nan_to_num(v, nan=0.0, posinf=1.0, neginf=-1.0),
                v.amax(),
                torch.sign(v),
                torch.floor(v),
                torch.round(v),
            ),
            np.array(
                [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e30, 88.8, -104.0, 0.5], np.float32
            ),
        ),
        c(
            "pow_variants",
            lambda v, a: (
                torch.pow(v, 3),
                torch.pow(v, 0.5),
                torch.pow(v, -2),
                torch.pow(2.0, v),
                torch.pow(v, v.flip(0)),
                torch.pow(a, 2),
                torch.pow(a.abs() % 5, 3),
                torch.square(v),
                v ** a.clamp(0, 3),
            ),
            x,
            i32,
        ),
        c(
            "shape_ops",
            lambda v: (
                v.T.contiguous(),
                v.reshape(3, 8),
                v.unsqueeze(0).expand(2, 4, 6),
                v.repeat(2, 1),
                v.repeat_interleave(2, 0),
                torch.tile(v, (1, 2)),
                torch.roll(v, 2),
                torch.rot90(v, 1),
                torch.flip(v, (0, 1)),
                torch.tril(v, -1),
                torch.triu(v, 2),
                torch.diag(v[:, :4]),
                torch.diag_embed(v[:2]),
                torch.diagonal(v, 1),
                torch.narrow(v, 1, 1, 3),
                v[::2, 1::3],
                v[..., -1],
                torch.chunk(v, 3, 1)[1],
                torch.split(v, [1, 3])[1],
                torch.stack([v, v], 2),
                torch.hstack([v, v]),
                torch.movedim(v.reshape(2, 2, 6), 0, 2),
                F.pad(v, (1, 2, 0, 1), value=-1.0),
                F.pad(v.unsqueeze(0), (2, 1), mode="reflect"),
                F.pad(v.unsqueeze(0), (2, 1), mode="replicate"),
                F.pad(v.unsqueeze(0), (2, 1), mode="circular"),
                torch.meshgrid(v[0], v[1], indexing="ij")[1],
            ),
            x,
        ),
        c(
            "arange_linspace",
            lambda v: (
                v + torch.arange(6),
                torch.linspace(-1, 1, 6) * v,
                torch.logspace(0, 1, 6) + v,
                torch.arange(0, 1, 0.25),
                torch.eye(4, 6) + v,
                torch.full_like(v, 2.0),
                torch.zeros_like(v, dtype=torch.int32),
                torch.tri(4, 6) if hasattr(torch, "tri") else torch.ones(4, 6).tril(),
            ),
            x,
        ),
        c(
            "clamp_int",
            lambda a: (
                torch.clamp(a, -5, 5),
                torch.clamp(a, min=0),
                a.clamp(max=3),
                torch.maximum(a, a.flip(0)),
                torch.minimum(a, a.T.reshape(4, 6)),
            ),
            i32,
        ),
        c("complex_ops", lambda v, w: _complex(v, w), x, y),
        c("complex_io", _complex_io, (x + 1j * y).astype(np.complex64)),
        c("complex128_io", _complex_io, (x + 1j * y).astype(np.complex128)[:3, :3]),
        c(
            "fft_ops",
            lambda v: (
                torch.fft.rfft(v).abs(),
                torch.fft.fft(v).real,
                torch.fft.irfft(torch.fft.rfft(v), n=6),
            ),
            x,
        ),
        c(
            "linalg_basic",
            lambda p: (
                torch.linalg.inv(p),
                torch.linalg.cholesky(p),
                torch.linalg.det(p),
                torch.linalg.solve(p, p[:, :2]),
                torch.linalg.eigh(p)[0],
                torch.linalg.qr(p)[1].abs(),
                torch.linalg.svdvals(p),
            ),
            _spd(4),
        ),
        c(
            "random_eval",
            lambda v: (
                F.dropout(v, 0.5, training=False),
                torch.bernoulli(torch.zeros_like(v)),
                torch.rand_like(v) * 0,
            ),
            x,
        ),
        c(
            "histc_bincount_free",
            lambda v: (
                torch.bucketize(v, torch.linspace(-2, 2, 5)),
                torch.searchsorted(torch.linspace(-2, 2, 5), v),
                torch.searchsorted(torch.linspace(-2, 2, 5), v, right=True),
            ),
            x,
        ),
        c(
            "unique_free_counts",
            lambda a: (
                F.one_hot(a.abs() % 5, 5).sum(0),
                torch.nn.functional.one_hot((a % 3).long(), 3),
            ),
            i64,
        ),
        c(
            "softmax_masked",
            lambda v: (
                torch.softmax(v.masked_fill(v < -0.5, float("-inf")), -1),
                torch.softmax(torch.full((2, 3), float("-inf")), -1),
                torch.log_softmax(v, 0),
                F.softmax(v.double(), 1),
            ),
            x,
        ),
        c(
            "sdpa_masks",
            lambda q, k, m: (
                F.scaled_dot_product_attention(q, k, k, attn_mask=m),
                F.scaled_dot_product_attention(q, k, k, attn_mask=m > 0),
                F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.3),
                F.scaled_dot_product_attention(q, k, k, enable_gqa=False),
            ),
            normal("sq", 2, 2, 4, 8),
            normal("sk", 2, 2, 5, 8),
            normal("sm", 4, 5),
        ),
        c(
            "where_broadcast_scalar",
            lambda v: (torch.where(v > 0, 1.0, -1.0), torch.where(v > 0, v, 0.5)),
            x,
        ),
        c(
            "int_reductions",
            lambda a: (
                a.sum(0),
                a.prod(1),
                a.max(1).values,
                a.min(),
                a.cumsum(1),
                a.float().mean(),
                a.sum(dtype=torch.int64),
                (a % 5).to(torch.uint8).sum(1),
            ),
            i32,
        ),
        c(
            "uint8_image",
            lambda im: (
                (im.float() / 255 - 0.5) / 0.25,
                im.to(torch.int32).sum((1, 2)),
                torch.clamp(im.int() * 2, 0, 255).to(torch.uint8),
                im.flip(1),
                im // 16,
                im.max(1).values,
            ),
            ints("u8img", 0, 256, 3, 5, 5, dtype=np.uint8),
        ),
        c(
            "int16_ops",
            lambda a: (
                a * a,
                a // 3,
                a % 7,
                a >> 1,
                a.to(torch.float32) / 3,
                a.abs(),
                a.sum(0),
                torch.clamp(a, -100, 100),
            ),
            ints("i16", -3000, 3000, 4, 6, dtype=np.int16),
        ),
        c(
            "mixed_precision_matmul",
            lambda v, w: (
                v.half() @ w.T.half(),
                (v.bfloat16() @ w.T.bfloat16()).float(),
                F.linear(v.half(), w.half()),
                torch.softmax(v.half(), -1),
                F.layer_norm(v.bfloat16(), (6,)),
            ),
            x,
            y,
        ),
        c(
            "f64_ops",
            lambda v: (
                torch.exp(v),
                torch.log1p(v.abs()),
                torch.erf(v),
                v @ v.T,
                v.sum(1),
                torch.sigmoid(v),
                torch.lgamma(v.abs() + 1),
                torch.tanh(v),
                F.gelu(v),
            ),
            x.astype(np.float64),
        ),
        c(
            "logic_compare",
            lambda v, w: (
                v == w,
                v != w,
                v >= w,
                torch.eq(v, 0.0),
                torch.isclose(v, w, atol=0.5),
                torch.isin(torch.round(v), torch.linspace(0, 1, 2)),
                torch.clamp(v, w, w + 1),
            ),
            x,
            y,
        ),
    ]


BF_TIES = np.array(
    [
        1.00390625,
        1.01171875,
        -1.00390625,
        3.0078125,
        1 + 2**-8 + 2**-20,
        255.5,
        1e-3,
        65535.0,
        1.9921875,
        1.99609375,
        3.4e38,
        -3.39e38,
    ],
    np.float32,
)


def edge_cases() -> list[Case]:
    """Ops on special values (NaN, infinities, signed zeros, ties, extremes)."""
    v, b, e = SPECIAL, BF_TIES, I32_EDGE
    w = SPECIAL[::-1].copy()

    def c(name: str, fn: Any, *args: np.ndarray) -> Case:
        return Case(f"edge_{name}", "edge", Fn(fn), list(args))

    return [
        c(
            "sort_nan",
            lambda x: (
                *torch.sort(x),
                *torch.sort(x, descending=True),
                torch.argsort(x, stable=True),
            ),
            v,
        ),
        c("topk_nan", lambda x: (*torch.topk(x, 5), *torch.topk(x, 5, largest=False)), v),
        c(
            "argmax_nan",
            lambda x: (
                x.argmax(),
                x.argmin(),
                x.max(),
                x.min(),
                x.amax(),
                torch.max(x.reshape(4, 6), 1).indices,
            ),
            v,
        ),
        c(
            "minmax_nan",
            lambda x, y: (
                torch.maximum(x, y),
                torch.minimum(x, y),
                torch.clamp(x, -1, 1),
                torch.clamp(x, min=y),
                x.reshape(4, 6).max(0).values,
            ),
            v,
            w,
        ),
        c(
            "cumsum_nan",
            lambda x: (x.cumsum(0), x.cumprod(0), torch.cummax(x, 0)[0], torch.logcumsumexp(x, 0)),
            v,
        ),
        c(
            "round_modes",
            lambda x: (
                torch.round(x),
                torch.floor(x),
                torch.ceil(x),
                torch.trunc(x),
                torch.frac(x),
                torch.round(x * 0.5),
            ),
            v,
        ),
        c(
            "fmod_rem_special",
            lambda x, y: (
                torch.fmod(x, y),
                torch.remainder(x, y),
                torch.fmod(x, 0.0),
                torch.remainder(x, 2.0),
                torch.floor_divide(x, y),
            ),
            v,
            w,
        ),
        c(
            "pow_special",
            lambda x, y: (
                torch.pow(x, y),
                torch.pow(x, 0.0),
                torch.pow(0.0, y),
                torch.pow(x, 2),
                torch.pow(x, -1),
                torch.pow(x, 0.5),
            ),
            v,
            w,
        ),
        c(
            "atan2_special",
            lambda x, y: (
                torch.atan2(x, y),
                torch.atan2(y, x),
                torch.hypot(x, y),
                torch.copysign(x, y),
            ),
            v,
            w,
        ),
        c(
            "exp_log_special",
            lambda x: (
                torch.exp(x),
                torch.expm1(x),
                torch.log(x),
                torch.log1p(x),
                torch.log2(x),
                torch.sqrt(x),
                torch.rsqrt(x),
                torch.reciprocal(x),
            ),
            v,
        ),
        c(
            "trig_special",
            lambda x: (
                torch.sin(x),
                torch.cos(x),
                torch.tan(x),
                torch.tanh(x),
                torch.sigmoid(x),
                torch.atan(x),
                torch.asin(x),
                torch.acos(x),
            ),
            v,
        ),
        c(
            "act_special",
            lambda x: (
                F.gelu(x),
                F.gelu(x, approximate="tanh"),
                F.silu(x),
                F.softplus(x),
                F.mish(x),
                F.elu(x),
                F.hardswish(x),
                F.logsigmoid(x),
                torch.erf(x),
                torch.erfc(x),
            ),
            v,
        ),
        c(
            "softmax_special",
            lambda x: (
                torch.softmax(x.reshape(4, 6), 1),
                torch.log_softmax(x.reshape(4, 6), 1),
                torch.logsumexp(x.reshape(4, 6), 1),
            ),
            v,
        ),
        c(
            "to_half",
            lambda x: (
                x.to(torch.float16),
                x.to(torch.bfloat16),
                x.to(torch.float16).to(torch.float32),
                x.to(torch.bfloat16).to(torch.float32),
                x.double(),
            ),
            np.concatenate([v, b]),
        ),
        c(
            "bf16_ties",
            lambda x: (
                x.to(torch.bfloat16),
                x.to(torch.float16),
                (x.to(torch.bfloat16) * 3).float(),
                (x.half() + 1).float(),
            ),
            b,
        ),
        c(
            "int_edge",
            lambda a: (
                a + 1,
                a - 1,
                a * 2,
                -a,
                a.abs(),
                a // 7,
                a % 7,
                torch.fmod(a, 7),
                a >> 1,
                a << 1,
                a & -a,
                ~a,
            ),
            e,
        ),
        c(
            "int_div_edge",
            lambda a, d: (
                torch.div(a, d, rounding_mode="trunc"),
                torch.div(a, d, rounding_mode="floor"),
                torch.fmod(a, d),
                torch.remainder(a, d),
            ),
            e,
            np.array([1, 2, 3, -1, 5, -3, 2, 7, 3, -3, -1, 2, 1, 5, 7, -9], np.int32),
        ),
        c(
            "int_to_float",
            lambda a: (
                a.float(),
                a.double(),
                a.half(),
                a.to(torch.bfloat16),
                a.to(torch.int8),
                a.to(torch.uint8),
                a.to(torch.int16),
                a.to(torch.bool),
                a.to(torch.int64) * 3,
            ),
            e,
        ),
        c(
            "int64_edge",
            lambda a: (
                a * 3,
                a // 3,
                a.float(),
                a.double(),
                a >> 5,
                a.to(torch.int32),
                a.abs(),
                a.sum(),
                torch.cumsum(a, 0),
            ),
            np.array(
                [2**62, -(2**62), 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63), 5, -5], np.int64
            ),
        ),
        c(
            "shift_big",
            lambda a, s: (
                a << s,
                a >> s,
                torch.bitwise_left_shift(a, s),
                torch.bitwise_right_shift(a, s),
            ),
            e,
            np.array([0, 1, 31, 32, 33, 40, 5, 7, 31, 32, 2, 3, 4, 63, 30, 1], np.int32),
        ),
        c(
            "float_to_uint",
            lambda x: (
                x.abs().to(torch.uint8),
                x.clamp(0, 255).to(torch.uint8),
                (x.abs() % 300).to(torch.int16),
                x.clamp(-1e9, 1e9).to(torch.int32),
            ),
            np.nan_to_num(v, posinf=1e3, neginf=-1e3, nan=0.0).astype(np.float32),
        ),
        c(
            "var_std_special",
            lambda x: (
                x.reshape(4, 6).var(1),
                x.reshape(4, 6).std(0, correction=0),
                torch.nanmean(x),
                x.reshape(4, 6).norm(dim=1),
                torch.nansum(x),
            ),
            v,
        ),
        c(
            "sign_special",
            lambda x: (
                torch.sign(x),
                torch.sgn(x),
                torch.signbit(x),
                torch.abs(x),
                torch.neg(x),
                torch.isnan(x),
                torch.isinf(x),
                torch.isposinf(x),
                torch.isneginf(x),
                torch.nan_to_num(x),
            ),
            v,
        ),
        c(
            "compare_special",
            lambda x, y: (
                x == y,
                x < y,
                x <= y,
                x != y,
                x > y,
                torch.eq(x, x),
                x.isclose(y),
                torch.where(x > y, x, y),
            ),
            v,
            w,
        ),
    ]


def big_cases() -> list[Case]:
    """Large arrays (2^17 elements and more): the paths an interpreter takes for them."""
    n = 1 << 17
    v = big_special(n, 1).reshape(256, 512)
    w = big_special(n, 2).reshape(256, 512)
    a = big_ints(n, 3).reshape(256, 512)
    d = big_ints(n, 4).reshape(256, 512)
    d[d == 0] = 7
    r = normal("big_r", 256, 512)
    q = normal("big_q", 512, 384)

    def c(name: str, fn: Any, *args: np.ndarray) -> Case:
        return Case(f"big_{name}", "big", Fn(fn), list(args))

    return [
        c(
            "minmax",
            lambda x, y: (
                torch.maximum(x, y),
                torch.minimum(x, y),
                torch.clamp(x, -1, 1),
                torch.where(x > y, x, y),
                F.relu(x),
                torch.fmax(x, y),
            ),
            v,
            w,
        ),
        c(
            "chain",
            lambda x, y: (
                torch.tanh(x) * torch.sigmoid(y) + torch.exp(-x.abs()),
                F.gelu(x) - F.silu(y),
                torch.log1p(x.abs()) / (1 + y * y),
                torch.sqrt(x.abs()) * torch.rsqrt(y.abs() + 1),
                (x * 2 + 1) * (y - 3) / 7,
            ),
            v,
            w,
        ),
        c(
            "chain_finite",
            lambda x, y: (
                torch.tanh(x) * torch.sigmoid(y) + torch.exp(-x.abs()),
                F.gelu(x, approximate="tanh") - F.silu(y),
                torch.log1p(x.abs()) / (1 + y * y),
                torch.erf(x) + torch.cos(y),
                F.softplus(x) + F.mish(y),
                torch.atan2(x, y),
                torch.pow(x.abs(), 1.3),
                torch.expm1(y / 4),
            ),
            r,
            r.T.copy().reshape(256, 512),
        ),
        c(
            "reduce",
            lambda x: (
                x.sum(1),
                x.amax(0),
                x.amin(1),
                x.mean(),
                x.prod(1),
                torch.logsumexp(x, 1),
                x.argmax(1),
                x.argmin(0),
                x.norm(dim=0),
                x.var(1),
            ),
            v,
        ),
        c(
            "reduce_finite",
            lambda x: (
                x.sum(1),
                x.amax(0),
                x.sum(),
                x.mean(0),
                torch.logsumexp(x, 1),
                x.argmax(1),
                x.std(0),
                torch.softmax(x, 1),
                torch.log_softmax(x, 0),
                F.layer_norm(x, (512,)),
            ),
            r,
        ),
        c(
            "int",
            lambda x, y: (
                x + y,
                x * y,
                x // y,
                x % y,
                torch.fmod(x, y),
                x >> (y.abs() % 33),
                x << (y.abs() % 33),
                x & y,
                x ^ y,
                ~x,
                x.abs(),
                -x,
                torch.maximum(x, y),
                x.sum(1),
                x.max(0).values,
                x.float(),
                (x.float() * 0.37).to(torch.int32),
            ),
            a,
            d,
        ),
        c(
            "int64",
            lambda x, y: (
                x.long() * y.long() * 1000003,
                x.long() // 7,
                x.long() % -7,
                x.long().cumsum(1),
                x.long().sum(0),
                (x.long() << 20) >> 3,
            ),
            a,
            d,
        ),
        c(
            "casts",
            lambda x: (
                x.half(),
                x.to(torch.bfloat16),
                x.double(),
                (x * 50).to(torch.int8),
                x.to(torch.bool),
                x.half().float(),
                x.to(torch.bfloat16).float(),
            ),
            v,
        ),
        c(
            "compare",
            lambda x, y: (
                x == y,
                x < y,
                x >= y,
                torch.isnan(x),
                torch.isinf(y),
                (x > 0) & (y < 0),
                torch.where(torch.isnan(x), y, x),
                torch.nan_to_num(x),
                torch.sign(x),
                torch.round(x),
                torch.floor(x),
                torch.trunc(x),
            ),
            v,
            w,
        ),
        c(
            "sort",
            lambda x: (
                *torch.sort(x, 1),
                *torch.topk(x, 5, 1),
                x.argsort(0),
                torch.cumsum(x, 1),
                torch.cummax(x, 1)[0],
                torch.cumprod(x / 10, 0),
            ),
            r,
        ),
        c(
            "sort_special",
            lambda x: (torch.sort(x, 1).values, torch.topk(x, 3, 1).values, torch.cumsum(x, 1)),
            v,
        ),
        c(
            "matmul",
            lambda x, y: (
                x @ y,
                torch.softmax(x @ y, 1),
                F.linear(x, y.T, torch.ones(384)),
                torch.einsum("ij,jk->ik", x, y).relu(),
            ),
            r,
            q,
        ),
        c(
            "gather_scatter",
            lambda x, i: (
                torch.gather(x, 1, i),
                torch.scatter_add(torch.zeros_like(x), 1, i, x[:, :64]),
                x[i[:, 0]],
                torch.index_select(x, 1, i[0]),
                x.index_put((i[:, 0],), x[:256] * 2, accumulate=True),
            ),
            r,
            ints("big_i", 0, 256, 256, 64),
        ),
        c(
            "broadcast",
            lambda x, y: (
                x + y[0],
                x * y[:, :1],
                x - y.mean(0),
                torch.where(x > 0, y[0], x),
                x / y.norm(dim=1, keepdim=True),
                (x[:, None, :64] * y[None, :8, :64]).sum(-1),
            ),
            r,
            normal("big_b", 256, 512),
        ),
        c(
            "conv_pool",
            lambda x, k: (
                F.conv2d(x, k, padding=1),
                F.max_pool2d(x, 3, 2, 1),
                F.avg_pool2d(x, 2),
                F.interpolate(x, scale_factor=2, mode="bilinear"),
                F.conv2d(x, k, stride=2, dilation=2),
                F.adaptive_avg_pool2d(x, 5),
            ),
            normal("big_img", 4, 16, 64, 64),
            normal("big_k", 16, 16, 3, 3) * 0.1,
        ),
        c(
            "f16_chain",
            lambda x, y: (
                torch.tanh(x) * y + x,
                F.gelu(x) * torch.sigmoid(y),
                torch.softmax(x, 1),
                (x @ y.T)[:8],
                x.sum(1),
                torch.exp(x.clamp(-5, 5)),
                torch.maximum(x, y),
            ),
            r.astype(np.float16),
            normal("big_h", 256, 512).astype(np.float16),
        ),
    ]


def extra_cases() -> list[Case]:
    im = normal("ex_im", 2, 3, 6, 7)
    grid = np.clip(normal("ex_grid", 2, 4, 5, 2) * 0.7, -1.2, 1.2).astype(np.float32)

    def c(name: str, fn: Any, *args: np.ndarray) -> Case:
        return Case(f"extra_{name}", "ops", Fn(fn), list(args))

    return [
        c(
            "grid_sample",
            lambda x, g: (
                F.grid_sample(x, g, align_corners=False),
                F.grid_sample(x, g, mode="nearest", padding_mode="border", align_corners=True),
                F.grid_sample(x, g, padding_mode="reflection", align_corners=False),
            ),
            im,
            grid,
        ),
        c(
            "affine_grid",
            lambda t: (
                F.affine_grid(t, [2, 3, 4, 5], align_corners=False),
                F.affine_grid(t, [2, 3, 4, 5], align_corners=True),
            ),
            normal("ex_theta", 2, 2, 3),
        ),
        c(
            "trilinear",
            lambda x: (
                F.interpolate(x, size=(3, 5, 4), mode="trilinear", align_corners=False),
                F.interpolate(x, scale_factor=2, mode="nearest"),
                F.adaptive_avg_pool3d(x, 2),
            ),
            normal("ex_3d", 1, 2, 2, 3, 4),
        ),
        c(
            "histc_bincount",
            lambda x, i: (torch.histc(x, 5, -2, 2), torch.bincount(i, minlength=6)),
            normal("ex_h", 20),
            ints("ex_bc", 0, 6, 15),
        ),
        c(
            "ctc_loss",
            lambda lp, t: F.ctc_loss(
                F.log_softmax(lp, 2),
                t,
                torch.full((2,), 6, dtype=torch.long),
                torch.full((2,), 3, dtype=torch.long),
            ),
            normal("ex_ctc", 6, 2, 5),
            ints("ex_ctt", 1, 5, 2, 3),
        ),
        c(
            "margin_losses",
            lambda a, t: (
                F.multi_margin_loss(a, t),
                F.multilabel_soft_margin_loss(a, (a > 0).float()),
                F.hinge_embedding_loss(a, torch.ones_like(a)),
                F.poisson_nll_loss(a, a.abs()),
                F.gaussian_nll_loss(a, a.flip(0), a.abs() + 0.1),
                F.triplet_margin_loss(a, a.flip(0), a.roll(1, 0)),
                F.margin_ranking_loss(a[:, 0], a[:, 1], torch.ones(4)),
                F.soft_margin_loss(a, torch.ones_like(a)),
            ),
            normal("ex_ml", 4, 5),
            np.array([1, 0, 4, 2], np.int64),
        ),
        c(
            "scatter_inplace",
            lambda v, i: (
                v.clone().scatter_(1, i, 2.0, reduce="multiply"),
                v.clone().scatter_(1, i, v[:, :3], reduce="add"),
                v.new_zeros(4, 6).index_reduce_(1, i[0], v[:, :3], "amax", include_self=False),
            ),
            normal("ex_si", 4, 6),
            ints("ex_sii", 0, 6, 4, 3),
        ),
        c(
            "stft_istft",
            lambda x: (
                torch.view_as_real(
                    torch.stft(x, 8, 4, window=torch.ones(8), return_complex=True, center=False)
                ),
            ),
            normal("ex_stft", 2, 32),
        ),
        c(
            "embedding_maxnorm",
            lambda i, w: F.embedding(i, w, max_norm=1.0),
            ints("ex_emn", 0, 10, 3, 4),
            normal("ex_emw", 10, 4) * 2,
        ),
        c(
            "unique_consecutive_free",
            lambda x: (
                torch.diff(x, dim=1),
                torch.diff(x, n=2, dim=0),
                torch.cumsum(x.flip(1), 1).flip(1),
                torch.trapezoid(x, dim=1),
                torch.cumulative_trapezoid(x, dim=1),
                torch.vander(x[0, :4], 3),
                torch.block_diag(x[:2, :2], x[2:, :3]),
                torch.cov(x),
                torch.corrcoef(x),
                torch.renorm(x, 2, 0, 1.0),
            ),
            normal("ex_d", 4, 6),
        ),
        c(
            "nan_reductions",
            lambda x: (
                torch.nansum(x, 1),
                torch.nanmean(x, 0),
                torch.nan_to_num(x).std(1),
                torch.logsumexp(x, 1),
                x.amax(1),
                torch.max(x, 1).indices,
                torch.argmax(x, 0),
                x.sort(1).values,
                x.topk(2, 1).indices,
            ),
            np.where(rng("ex_nr").random((4, 6)) > 0.8, np.nan, normal("ex_nrv", 4, 6)).astype(
                np.float32
            ),
        ),
        c(
            "bool_int_mix",
            lambda a, m: (
                a * m,
                a.masked_fill(m, 0),
                torch.where(m, a, -a),
                (a * m).sum(1),
                m.sum(),
                m.to(torch.int8) - 1,
                m.cumsum(1),
                m.float().mean(0),
                (a > 0) == m,
                ~m & (a > 0),
            ),
            ints("ex_bi", -5, 5, 4, 6),
            rng("ex_bm").random((4, 6)) > 0.5,
        ),
    ]


def _setitem(v: Any, i: Any) -> Any:
    v = v.clone()
    v[1:3, 2] = 7.0
    v[i[:, 0], 0] = -v[:, 1]
    v[:, -1] += 1.0
    return v


def _half(v: Any, w: Any, dt: Any) -> Any:
    a, b = v.to(dt), w.to(dt)
    lin = torch.nn.functional.linear(a, b[:3], b[0, :3])
    return (
        a + b,
        a * b,
        a / b,
        torch.exp(a),
        torch.tanh(a),
        torch.sigmoid(a),
        F.gelu(a),
        F.silu(a),
        a.sum(1),
        a.mean(0),
        torch.softmax(a, 1),
        F.layer_norm(a, (6,)),
        a @ b.T,
        lin,
        torch.sqrt(a.abs()),
        torch.rsqrt(a.abs() + 1),
        a.max(1).values,
        torch.cumsum(a, 1),
        a.to(torch.float32),
        a.to(torch.int32),
        torch.erf(a),
        torch.log(a.abs() + 0.1),
        a.var(1),
    )


def _complex_io(z: Any) -> Any:
    """Complex inputs and outputs (no view_as_real, no angle)."""
    return (
        z * z.conj(),
        torch.exp(z),
        torch.log(z),
        torch.sqrt(z),
        z @ z.T,
        z.sum(1),
        z / (z + 1),
        torch.tanh(z),
        torch.sin(z),
        z.abs(),
        z.real * 2,
        z.imag,
        torch.reciprocal(z),
        z**2,
        torch.sigmoid(z),
        torch.fft.fft(z),
        torch.fft.ifft(z, dim=0),
        torch.rsqrt(z),
        z.mean(0),
        torch.linalg.vector_norm(z, dim=1),
        torch.cumsum(z, 1),
        z * 1j,
        torch.sgn(z),
        torch.expm1(z),
        torch.log1p(z),
    )


def _complex(v: Any, w: Any) -> Any:
    z = torch.complex(v, w)
    return (
        torch.view_as_real(z * z.conj()),
        z.abs(),
        z.angle(),
        torch.view_as_real(torch.exp(z)),
        torch.view_as_real(z @ z.T),
        torch.view_as_real(z.sum(1)),
        torch.real(z / (z + 1)),
        torch.imag(torch.sqrt(z)),
        torch.view_as_real(torch.polar(v.abs(), w)),
    )


def _spd(n: int) -> np.ndarray:
    a = rng("spd_sweep").standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


CHUNK = 4  # outputs per exported program when an op case is split


def split(case: Case) -> list[Case]:
    """An op case returning many outputs as programs of CHUNK outputs each (an op one
    producer cannot export then costs only its own chunk)."""
    try:
        n = len(eager(case.module, tuple(torch.from_numpy(a) for a in case.args)))
    except Exception as e:  # noqa: BLE001
        print(f"{case.name}: eager failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
        return []
    if n <= CHUNK:
        return [case]
    fn = case.module.fn
    return [
        Case(
            f"{case.name}_{k // CHUNK}",
            case.family,
            Fn(lambda *a, k=k: fn(*a)[k : k + CHUNK]),
            case.args,
        )
        for k in range(0, n, CHUNK)
    ]


def flat(out: Any) -> list[np.ndarray]:
    if isinstance(out, tuple | list):
        return [a for o in out for a in flat(o)]
    if hasattr(out, "_fields"):
        return flat(tuple(out))
    if isinstance(out, torch.Tensor):
        if out.dtype == torch.bfloat16:  # NumPy has no bfloat16: exactly as float32
            out = out.float()
        return [out.detach().numpy()]
    return [np.asarray(out)]


def eager(module: Any, args: tuple[Any, ...]) -> list[np.ndarray]:
    with torch.no_grad():
        return flat(module(*args))


def _no_bf16(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) if a.dtype.name == "bfloat16" else a


def all_cases() -> list[Case]:
    return model_cases() + layer_cases() + [p for c in op_cases() for p in split(c)]


# ----------------------------------------------------------------------------- dynamic


def dynamic_cases() -> list[tuple[Case, list[dict[int, str]]]]:
    """Cases exported with symbolic dimensions: per argument, {axis: symbol}."""
    M = module
    b = {0: "b"}
    return [
        (
            Case(
                "dyn_mlp",
                "dynamic",
                M(
                    lambda: nn.Sequential(
                        nn.Linear(6, 8), nn.GELU(), nn.LayerNorm(8), nn.Linear(8, 3), nn.Softmax(-1)
                    )
                ),
                [normal("dm", 5, 6)],
            ),
            [b],
        ),
        (
            Case(
                "dyn_cnn",
                "dynamic",
                M(
                    lambda: nn.Sequential(
                        nn.Conv2d(3, 4, 3, padding=1),
                        nn.BatchNorm2d(4),
                        nn.ReLU(),
                        nn.MaxPool2d(2),
                        nn.Flatten(),
                        nn.Linear(64, 2),
                    )
                ),
                [normal("dc", 3, 3, 8, 8)],
            ),
            [b],
        ),
        (
            Case(
                "dyn_seq_encoder",
                "dynamic",
                M(lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)),
                [normal("ds", 2, 7, 8)],
            ),
            [{0: "b", 1: "t"}],
        ),
        (
            Case(
                "dyn_lstm",
                "dynamic",
                M(lambda: Seq2Last(nn.LSTM(4, 5, batch_first=True))),
                [normal("dl", 3, 6, 4)],
            ),
            [b],
        ),
        (
            Case(
                "dyn_ops",
                "dynamic",
                Fn(
                    lambda v: (
                        v.sum(0),
                        v.cumsum(0),
                        torch.softmax(v, 0),
                        v.argmax(0),
                        v[1:],
                        v.reshape(-1),
                        torch.cat([v, v]),
                        v.mean(),
                        F.pad(v, (1, 1)),
                        v.T @ v,
                    )
                ),
                [normal("do", 5, 4)],
            ),
            [b],
        ),
        (
            Case(
                "dyn_embed",
                "dynamic",
                M(lambda: nn.Sequential(nn.Embedding(10, 4), nn.Flatten(0, 1))),
                [ints("de", 0, 10, 3, 5)],
            ),
            [{0: "b", 1: "t"}],
        ),
    ]


def run_dynamic(
    producer: str, gen: Any, out: Path, case: Case, dims: list[dict[int, str]]
) -> dict[str, Any]:
    """Export with symbolic dimensions (torch.export Dim / jax symbolic shapes)."""
    from producer_io import msg, write_fixture

    entry: dict[str, Any] = {
        "family": case.family,
        "check": case.check,
        "dynamic": [{str(k): v for k, v in d.items()} for d in dims],
    }
    targs = tuple(torch.from_numpy(a) for a in case.args)
    try:
        if producer == "torch_xla":
            from torch.export import Dim, export
            from torch_xla.stablehlo import exported_program_to_stablehlo

            syms: dict[str, Any] = {}
            shapes: Any = tuple(
                {k: syms.setdefault(v, Dim(v, min=2, max=64)) for k, v in d.items()} for d in dims
            )
            if isinstance(case.module, Fn):  # forward(*args): one entry holding them all
                shapes = (shapes,)
            ep = export(case.module, targs, dynamic_shapes=shapes)
            shlo = exported_program_to_stablehlo(ep)
            text, data = shlo.get_stablehlo_text(), shlo.get_stablehlo_bytecode()
            inputs, _ = gen.parameters(shlo, ep, case.args)
        else:
            import jax
            import torchax

            weights, fn = torchax.extract_jax(case.module)
            scope = jax.export.SymbolicScope()
            specs = []
            for a, d in zip(case.args, dims):
                shape = ", ".join(d.get(i, str(n)) for i, n in enumerate(a.shape))
                specs.append(
                    jax.ShapeDtypeStruct(jax.export.symbolic_shape(shape, scope=scope), a.dtype)
                )
            exp = jax.export.export(jax.jit(fn))(weights, tuple(specs))
            text, data = exp.mlir_module(), exp.mlir_module_serialized
            leaves = jax.tree_util.tree_leaves(
                (weights, tuple(jax.numpy.asarray(a) for a in case.args))
            )
            inputs = [np.asarray(leaves[i]) for i in exp.module_kept_var_idx]
    except Exception as e:  # noqa: BLE001
        return {**entry, "status": "export_failed", "error": msg(e)}
    outs = eager(case.module, targs)
    entry.update(write_fixture(out, case.name, text, data, inputs, outs))
    return entry


def grad_cases() -> list[Case]:
    """Training-step gradients (torchax only: jax.grad of the extracted function): the
    backward ops (select_and_scatter, transposed convolutions, scatter-adds, reverse
    loops).  The expected values are XLA's own run of the same gradient function."""
    M = module
    return [
        Case(
            "grad_cnn_maxpool",
            "grad",
            M(
                lambda: nn.Sequential(
                    nn.Conv2d(3, 4, 3, padding=1),
                    nn.BatchNorm2d(4),
                    nn.ReLU(),
                    nn.MaxPool2d(2),
                    nn.Conv2d(4, 4, 3, stride=2, groups=2),
                    nn.AvgPool2d(2, ceil_mode=True),
                    nn.Flatten(),
                    nn.Linear(4, 3),
                )
            ),
            [normal("gcm", 2, 3, 12, 12)],
        ),
        Case("grad_resblock", "grad", M(lambda: BasicBlock(4, 8, 2)), [normal("grb", 2, 4, 8, 8)]),
        Case("grad_mbv3", "grad", M(MBv3Block), [normal("gmb", 2, 8, 8, 8)]),
        Case(
            "grad_lstm",
            "grad",
            M(lambda: Seq2Last(nn.LSTM(4, 5, 2, batch_first=True, bidirectional=True))),
            [normal("gl", 2, 5, 4)],
        ),
        Case(
            "grad_gru",
            "grad",
            M(lambda: Seq2Last(nn.GRU(4, 5, batch_first=True))),
            [normal("gg", 2, 5, 4)],
        ),
        Case(
            "grad_encoder",
            "grad",
            M(
                lambda: nn.TransformerEncoderLayer(
                    8, 2, 16, dropout=0.0, batch_first=True, norm_first=True
                )
            ),
            [normal("ge", 2, 5, 8)],
        ),
        Case("grad_gpt", "grad", M(GPTBlock), [ints("ggpt", 0, 20, 2, 8)]),
        Case("grad_llama", "grad", M(LlamaBlock), [normal("gllama", 2, 6, 16)]),
        Case(
            "grad_convT_upsample",
            "grad",
            M(lambda: UNet("bilinear", False)),
            [normal("gun", 1, 2, 8, 8)],
        ),
        Case(
            "grad_embedding_bag_free",
            "grad",
            M(
                lambda: nn.Sequential(
                    nn.Embedding(10, 4), nn.LayerNorm(4), nn.Flatten(), nn.Linear(12, 2)
                )
            ),
            [ints("gemb", 0, 10, 3, 3)],
        ),
        Case(
            "grad_pools",
            "grad",
            M(
                lambda: nn.Sequential(
                    nn.MaxPool2d(3, 2, 1),
                    nn.AdaptiveAvgPool2d(3),
                    nn.Conv2d(3, 2, 2, dilation=1),
                    nn.Upsample(scale_factor=2, mode="nearest"),
                    nn.MaxPool2d(2, 1),
                    nn.Flatten(),
                    nn.Linear(32, 2),
                )
            ),
            [normal("gpl", 2, 3, 9, 9)],
        ),
    ]


def run_grad(out: Path, case: Case) -> dict[str, Any]:
    from producer_io import msg, write_fixture

    entry: dict[str, Any] = {"family": case.family, "check": case.check, "expected": "xla"}
    try:
        import jax
        import jax.numpy as jnp
        import torchax

        weights, fn = torchax.extract_jax(case.module)

        fw = {k: v for k, v in weights.items() if jnp.issubdtype(v.dtype, jnp.floating)}
        iw = {k: v for k, v in weights.items() if k not in fw}

        floats = [i for i, x in enumerate(case.args) if x.dtype.kind == "f"]

        def loss(w: Any, fa: Any, other: Any, ia: Any) -> Any:
            it_f, it_i = iter(fa), iter(ia)
            args = tuple(next(it_f) if i in floats else next(it_i) for i in range(len(case.args)))
            leaves = jax.tree_util.tree_leaves(fn({**w, **other}, args))
            return sum(jnp.sum(jnp.sin(x)) for x in leaves if jnp.issubdtype(x.dtype, jnp.floating))

        gfn = jax.jit(jax.grad(loss, argnums=(0, 1)))
        fa = tuple(jnp.asarray(case.args[i]) for i in floats)
        ia = tuple(jnp.asarray(x) for i, x in enumerate(case.args) if i not in floats)
        exp = jax.export.export(gfn)(fw, fa, iw, ia)
        text, data = exp.mlir_module(), exp.mlir_module_serialized
        leaves = jax.tree_util.tree_leaves((fw, fa, iw, ia))
        inputs = [np.asarray(leaves[i]) for i in exp.module_kept_var_idx]
        got = [np.asarray(g) for g in jax.tree_util.tree_leaves(gfn(fw, fa, iw, ia))]
    except Exception as e:  # noqa: BLE001
        return {**entry, "status": "export_failed", "error": msg(e)}
    entry.update(write_fixture(out, case.name, text, data, inputs, got))
    return entry


def baked_cases() -> list[Case]:
    """Models whose weights end up inside the program (torchax: the function closes over
    them, jax makes them constants) or with node metadata locations (torch_xla)."""
    M = module
    return [
        Case("baked_resnet18", "cnn", M(ResNet18), [normal("bk18", 1, 3, 32, 32)]),
        Case("baked_mbv3", "cnn", M(MBv3Block), [normal("bkmb", 2, 8, 8, 8)]),
        Case(
            "baked_lstm",
            "rnn",
            M(lambda: Seq2Last(nn.LSTM(4, 5, 2, batch_first=True))),
            [normal("bkl", 2, 5, 4)],
        ),
        Case(
            "baked_encoder",
            "transformer",
            M(lambda: nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)),
            [normal("bke", 2, 6, 16)],
        ),
        Case(
            "baked_mlp_f64",
            "nn",
            M(lambda: nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 2)).double()),
            [normal("bk64", 3, 5, dtype=np.float64)],
        ),
        Case(
            "baked_embed",
            "nn",
            M(lambda: nn.Sequential(nn.Embedding(50, 8), nn.Flatten(), nn.Linear(24, 3))),
            [ints("bkem", 0, 50, 4, 3)],
        ),
    ]


def run_baked(producer: str, out: Path, case: Case) -> dict[str, Any]:
    from producer_io import msg, write_fixture

    entry: dict[str, Any] = {"family": case.family, "check": case.check, "baked": True}
    targs = tuple(torch.from_numpy(a) for a in case.args)
    try:
        if producer == "torch_xla":
            from torch.export import export
            from torch_xla.stablehlo import StableHLOExportOptions, exported_program_to_stablehlo

            ep = export(case.module, targs)
            opts = StableHLOExportOptions(export_node_metadata=True)
            shlo = exported_program_to_stablehlo(ep, opts)
            text, data = shlo.get_stablehlo_text(), shlo.get_stablehlo_bytecode()
            from torch_xla.stablehlo import VariableType

            fn = shlo._bundle.stablehlo_funcs[0]
            inputs = []
            for loc in fn.meta.input_locations:
                if loc.type_ == VariableType.PARAMETER:
                    inputs.append(ep.state_dict[loc.name].detach().numpy())
                elif loc.type_ == VariableType.CONSTANT:
                    inputs.append(np.asarray(shlo._bundle.additional_constants[loc.position]))
                else:
                    inputs.append(case.args[loc.position])
        else:
            import jax
            import torchax

            weights, fn = torchax.extract_jax(case.module)
            exp = jax.export.export(jax.jit(lambda *a: fn(weights, a)))(
                *[jax.numpy.asarray(a) for a in case.args]
            )
            text, data = exp.mlir_module(), exp.mlir_module_serialized
            inputs = [case.args[i] for i in exp.module_kept_var_idx]
    except Exception as e:  # noqa: BLE001
        return {**entry, "status": "export_failed", "error": msg(e)}
    outs = eager(case.module, targs)
    entry.update(write_fixture(out, case.name, text, data, inputs, outs))
    return entry


def main(argv: list[str]) -> int:
    os.environ.setdefault("EXPERIMENTAL_XLA_UNBOUNDED_DYNAMISM", "1")
    producer, names = argv[0], argv[1:]
    gen_path = FIXTURES / producer / "generate.py"
    spec = importlib.util.spec_from_file_location(f"{producer}_generate", gen_path)
    gen = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(gen)  # type: ignore[union-attr]
    out = OUT / producer
    out.mkdir(parents=True, exist_ok=True)
    gen.HERE = out  # the generator's run_case writes beside HERE
    gen.eager = eager  # bfloat16 outputs as float32
    head = {
        "generator": "tools/producer_sweep_torch.py",
        "producer": producer,
        "torch": torch.__version__,
    }
    run_case = gen.run_case
    if producer == "torchax":

        def run_case(case: Case) -> dict[str, Any]:  # also XLA's own outputs: NAME.xla.npz
            entry = gen.run_case(case)
            if entry["status"] == "ok":
                import jax
                import torchax

                weights, fn = torchax.extract_jax(case.module)
                got = jax.jit(fn)(weights, tuple(jax.numpy.asarray(a) for a in case.args))
                leaves = [np.asarray(g) for g in jax.tree_util.tree_leaves(got)]
                write_npz(out / f"{case.name}.xla.npz", [_no_bf16(a) for a in leaves])
            return entry

    dyn = {c.name: (c, d) for c, d in dynamic_cases()}

    def run_any(case: Case) -> dict[str, Any]:
        if case.name in dyn:
            return run_dynamic(producer, gen, out, *dyn[case.name])
        if case.name.startswith("baked_"):
            return run_baked(producer, out, case)
        if case.name.startswith(("grad_", "gradof_")):
            if producer != "torchax":
                return {
                    "family": "grad",
                    "status": "export_failed",
                    "error": "RuntimeError: torchax only",
                }
            return run_grad(out, case)
        return run_case(case)

    cases = (
        all_cases()
        + [p for c in edge_cases() + extra_cases() + big_cases() for p in split(c)]
        + [c for c, _ in dyn.values()]
        + baked_cases()
        + grad_cases()
        + [
            Case(f"gradof_{c.name}", "grad", c.module, c.args)
            for c in layer_cases() + model_cases() + op_cases() + extra_cases()
            if any(a.dtype.kind == "f" for a in c.args) or c.name.startswith("emb")
        ]
    )
    generate(out, names, cases, run_any, head)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
