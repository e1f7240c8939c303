"""The op table loads its rows by family (issue 19: startup): the generated indexes
(shape_inference/families.py, engine/kernels/families.py) agree with the registrations,
a lookup loads the families of its name, and whatever sees the whole table loads them
all.  Behaviour in fresh interpreters (subprocesses), where nothing is loaded yet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hlorun.shape_inference.optable import OpTable, RegistrationError, define_op

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> object:
    """The JSON the last line of ``code`` prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _generator(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_op_families.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_indexes_agree_with_the_registrations():
    """tools/gen_op_families.py imports every family and attributes every registration:
    what it would write is what is committed."""
    done = _generator("--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_stale_index_is_found(tmp_path):
    """The check above can fail: against an index that misses a row, it exits 1."""
    stale = tmp_path / "families.py"
    text = (ROOT / "shape_inference" / "families.py").read_text()
    stale.write_text(text.replace('    "stablehlo.add": ("elementwise",),\n', ""))
    assert stale.read_text() != text
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "import gen_op_families as g\n"
        "from pathlib import Path\n"
        f"g.OUT = {{g.SHAPE_PKG: Path({str(stale)!r}), g.KERNEL_PKG: g.OUT[g.KERNEL_PKG]}}\n"
        "sys.exit(g.main(['--check']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "stale" in done.stdout, done.stdout + done.stderr


def test_a_lookup_loads_only_the_families_of_its_name():
    code = (
        "import sys, json\n"
        "from hlorun.shape_inference import OP_TABLE\n"
        "import hlorun.engine.kernels\n"
        "fams = lambda: sorted(m for m in sys.modules if m.startswith('hlorun')"
        " and m.endswith(('.elementwise', '.linalg')))\n"
        "before = fams()\n"
        "row = OP_TABLE['stablehlo.add']\n"
        "after = fams()\n"
        "print(json.dumps([before, after, row.shape is not None, row.kernel is not None]))"
    )
    before, after, shape, kernel = _fresh(code)
    assert before == []
    assert after == ["hlorun.engine.kernels.elementwise", "hlorun.shape_inference.elementwise"]
    assert shape and kernel


def test_get_and_in_load_the_row():
    code = (
        "import json\n"
        "from hlorun.shape_inference import OP_TABLE\n"
        "import hlorun.engine.kernels\n"
        "a = 'stablehlo.dot_general' in OP_TABLE\n"
        "row = OP_TABLE.get('stablehlo.sort')\n"
        "print(json.dumps([a, row.kernel is not None, OP_TABLE.get('stablehlo.nope') is None]))"
    )
    assert _fresh(code) == [True, True, True]


def test_seeing_the_whole_table_loads_every_family():
    code = (
        "import json\n"
        "from hlorun.shape_inference import OP_TABLE\n"
        "from hlorun.shape_inference.families import FAMILIES_BY_OP\n"
        "names = set(OP_TABLE)\n"
        "print(json.dumps([sorted(set(FAMILIES_BY_OP) - names), len(names)]))"
    )
    missing, n = _fresh(code)
    assert missing == [] and n > 150


def test_without_the_engine_a_lookup_loads_no_kernel():
    """shape_inference alone (``hlorun verify``): the rows load without the engine."""
    code = (
        "import sys, json\n"
        "from hlorun.shape_inference import OP_TABLE\n"
        "row = OP_TABLE['stablehlo.add']\n"
        "print(json.dumps([row.shape is not None, row.kernel is None,"
        " any(m.startswith('hlorun.engine') for m in sys.modules)]))"
    )
    assert _fresh(code) == [True, True, False]


def test_table_semantics_on_a_private_table(monkeypatch):
    """OpTable itself: pending names load on lookup, iteration loads all, a name not in
    an index is looked up as in a dict."""
    loaded: list[str] = []
    table = OpTable()
    monkeypatch.setattr(
        "hlorun.shape_inference.optable.importlib.import_module",
        lambda name: loaded.append(name),
    )
    table.add_families("pkg", {"d.a": ("fa",), "d.b": ("fb", "fc")})
    assert "d.z" not in table and loaded == []
    assert table.get("d.a") is None and loaded == ["pkg.fa"]
    assert list(table) == [] and loaded == ["pkg.fa", "pkg.fb", "pkg.fc"]


def test_a_duplicate_registration_is_still_an_error():
    """Registering a row a family owns, before the family has loaded, loads it first:
    the duplicate is found, and the family's row is kept."""
    code = (
        "import json\n"
        "from hlorun.shape_inference.optable import OP_TABLE, RegistrationError, define_op\n"
        "import hlorun.shape_inference\n"
        "try:\n"
        "    define_op('stablehlo.add', len)\n"
        "    err = None\n"
        "except RegistrationError as e:\n"
        "    err = str(e)\n"
        "print(json.dumps([err, OP_TABLE['stablehlo.add'].shape is not len]))"
    )
    err, kept = _fresh(code)
    assert err is not None and "registered twice" in err
    assert kept
    with pytest.raises(RegistrationError, match="registered twice"):
        define_op("stablehlo.add", len)  # and in this process, loaded or not
