"""Export the model suite's PyTorch/XLA programs (run by hand, with torch and torch_xla
in a venv of their own; the benchmark never needs torch):

    PJRT_DEVICE=CPU /work/venvs/torch_xla/bin/python benchmarks/models/generate_torch_xla.py

The models are the torch_xla fixtures' (tests/fixtures/torch_cases.py: ``ResBlock``, the
``transformer_encoder`` case's ``nn.TransformerEncoderLayer``) at model size, exported
as users export them: ``torch.export.export(module, args)`` then
``torch_xla.stablehlo.exported_program_to_stablehlo(exported).get_stablehlo_text()``
-> ``programs/NAME.mlir``.  Weights are parameters of @main (torch_xla lifts the state
dict); their order is the function's ``input_locations``, recorded with each one's
shape in ``programs/torch_xla.json`` (specs.py builds the models' parameter lists from
it, the benchmark makes their values from a seed).  No committed file holds a weight.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("PJRT_DEVICE", "CPU")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_xla  # noqa: E402
from torch.export import export  # noqa: E402
from torch_xla.stablehlo import VariableType, exported_program_to_stablehlo  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import specs  # noqa: E402

OUT = HERE / "programs"
nn = torch.nn
F = torch.nn.functional


class ResStage(nn.Module):
    """The fixture's ResBlock (conv, BN, ReLU, conv without bias, BN, residual add,
    ReLU, 2x2 max pool) at width ``w``, after a 3x3 convolution from ``cin``."""

    def __init__(self, cin: int, w: int) -> None:
        super().__init__()
        self.inp = nn.Conv2d(cin, w, 3, padding=1)
        self.c1 = nn.Conv2d(w, w, 3, padding=1)
        self.b1 = nn.BatchNorm2d(w)
        self.c2 = nn.Conv2d(w, w, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(w)

    def forward(self, x: Any) -> Any:
        x = self.inp(x)
        y = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        return F.max_pool2d(F.relu(x + y), 2)


class TorchCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        c = specs.TORCH_CNN
        ws = (3, *c["widths"])
        self.stages = nn.Sequential(*(ResStage(a, b) for a, b in zip(ws, ws[1:])))
        self.fc = nn.Linear(ws[-1], c["classes"])

    def forward(self, x: Any) -> Any:
        return self.fc(F.adaptive_avg_pool2d(self.stages(x), 1).flatten(1))


class TorchTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        c = specs.TORCH_TRANSFORMER
        layer = nn.TransformerEncoderLayer(
            c["d"], c["heads"], c["mlp"], dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, c["layers"], enable_nested_tensor=False)

    def forward(self, x: Any) -> Any:
        return self.encoder(x)


MODULES = {"torch_cnn": TorchCNN, "torch_transformer": TorchTransformer}


def main() -> int:
    manifest: dict[str, Any] = {
        "generator": "benchmarks/models/generate_torch_xla.py",
        "torch": torch.__version__,
        "torch_xla": torch_xla.__version__,
        "numpy": np.__version__,
        "export": "torch.export.export(module, args) -> torch_xla.stablehlo."
        "exported_program_to_stablehlo(exported).get_stablehlo_text()",
        "models": {},
    }
    for name, build in MODULES.items():
        torch.manual_seed(0)
        m = build().eval()
        x = torch.zeros(specs.TORCH_INPUTS[name])
        ep = export(m, (x,))
        shlo = exported_program_to_stablehlo(ep)
        fn = shlo._bundle.stablehlo_funcs[0]
        state = ep.state_dict
        params = []
        for loc in fn.meta.input_locations:
            if loc.type_ == VariableType.PARAMETER:
                t = state[loc.name]
                params.append([loc.name, list(t.shape), str(t.dtype).removeprefix("torch.")])
            elif loc.type_ == VariableType.INPUT_ARG:
                params.append(["x", list(x.shape), "float32"])
            else:
                raise SystemExit(f"{name}: a lifted constant ({loc}): not a model parameter")
        (OUT / f"{name}.mlir").write_text(shlo.get_stablehlo_text())
        manifest["models"][name] = {"params": params}
        print(name, "ok", len(params), "parameters")
    (OUT / "torch_xla.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
