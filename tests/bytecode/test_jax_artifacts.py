"""Real portable artifacts: the ``mlir_module_serialized`` bytes jax 0.10.2 wrote for
tests/fixtures/jax (jaxlib's bundled MLIR writer, StableHLO target 1.15.0).

- Writing back what was read gives jaxlib's bytes exactly: our writer numbers,
  orders and encodes as MLIR's does on programs we did not write.  Only the use-list
  orders are carried over from the read (in MLIR they are part of the in-memory IR;
  one fixture, made by jax's passes, has a non-default one).
- The artifact and the text form (``exported.mlir_module()``) are the same program:
  reading the artifact gives the module the text parses to, in canonical form.
"""

from __future__ import annotations

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.writer import write_bytecode
from hlorun.parser.vhlo.artifact import deserialize_portable_artifact, strip_debuginfo
from tests.support.jax_fixtures import FIXTURES, fixture_names

NAMES = fixture_names()


@pytest.mark.parametrize("name", NAMES)
def test_rewrite_reproduces_jaxlib_bytes(name: str):
    data = (FIXTURES / f"{name}.mlirbc").read_bytes()
    bf = read_bytecode_file(data, name)
    assert bf.producer == "StableHLO_v1.15.0" and bf.version == 6
    out = write_bytecode(bf.module, bf.version, bf.producer, use_list_orders=bf.use_list_orders)
    assert out == data


@pytest.mark.parametrize("name", NAMES)
def test_artifact_is_the_text_program(name: str):
    data = (FIXTURES / f"{name}.mlirbc").read_bytes()
    from_bytes = strip_debuginfo(deserialize_portable_artifact(data, name))
    from_text = strip_debuginfo(parse_module((FIXTURES / f"{name}.mlir").read_text(), name))
    assert print_module(from_bytes, canonical=True) == print_module(from_text, canonical=True)
