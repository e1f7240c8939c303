"""Installing hlorun into a fresh virtual environment (slow: it downloads the
dependencies): one namespace in site-packages, and a user's own ``parser.py`` /
``engine.py`` never shadow ours."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

USER_SCRIPT = """
import numpy as np
import hlorun
from hlorun import engine, parser
assert "site-packages" in hlorun.__file__, hlorun.__file__
assert "site-packages" in engine.__file__ and "site-packages" in parser.__file__
import parser as users_parser, engine as users_engine  # the folder's own modules
assert users_parser.MINE and users_engine.MINE
text = '''func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}'''
(r,) = hlorun.run(text, [np.array([1.0, 2.5], np.float32)])
assert r.tolist() == [2.0, 5.0], r
from hlorun.parser.vhlo.artifact import serialize_portable_artifact
data = serialize_portable_artifact(parser.parse_module(text), "1.0.0")
(r,) = hlorun.run(data, [np.array([1.0, 2.5], np.float32)])  # the artifact runs too
assert r.tolist() == [2.0, 5.0], r
print("ok", hlorun.__version__)
"""


@pytest.mark.slow
def test_fresh_venv_install_one_namespace(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([py, "-m", "pip", "install", "-q", str(REPO)], check=True, timeout=900)
    user = tmp_path / "user"
    user.mkdir()
    (user / "parser.py").write_text("MINE = True\n")
    (user / "engine.py").write_text("MINE = True\n")
    (user / "script.py").write_text(USER_SCRIPT)
    out = subprocess.run([py, "script.py"], cwd=user, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok ")
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {p.name for p in Path(site).iterdir() if p.name.lower().startswith("hlorun")}
    assert ours == {"hlorun", f"hlorun-{out.stdout.split()[1]}.dist-info"}, ours
    for name in ("parser", "engine", "shape_inference"):
        assert not (Path(site) / name).exists(), f"{name} landed at the top of site-packages"
    cli = subprocess.run([env_dir / "bin" / "hlorun", "--help"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
