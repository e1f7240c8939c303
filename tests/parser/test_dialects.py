"""The dialect registry (parser/dialects.py): the core builds in builtin, func and the
StableHLO family; a plug-in dialect (sdy, vhlo, or a new one) registers hooks that the
grammar, the printer and the bytecode codecs call, and its module loads only when a
program mentions the dialect.

A toy dialect written here plugs in without a change to the core: its attribute and
type parsers, its printers, its custom op forms and its codec module are reached
through the registry alone."""

from __future__ import annotations

import sys
import textwrap

import pytest

from hlorun.parser import dialects, parse_module
from hlorun.parser.bytecode import dialect_api
from hlorun.parser.errors import UnsupportedError
from hlorun.parser.ir import OpaqueAttr
from tests.support.fresh_imports import loaded_after

TOY = """
from dataclasses import dataclass

from hlorun.parser.dialects import Dialect, register
from hlorun.parser.ir import Attribute, Type


@dataclass(frozen=True)
class ToyAttr(Attribute):
    dialect = "toy"
    value: int


@dataclass(frozen=True)
class ToyType(Type):
    dialect = "toy"
    kind: str


def parse_attribute(p, name, start):
    body = p.c.balanced("<", ">")
    return ToyAttr(int(body[1:-1]))


def parse_type(p, name, start):
    return ToyType(name.removeprefix("!toy."))


def print_attribute(a, attr, type_):
    return f"#toy.n<{a.value}>"


def print_type(t, attr, type_):
    return f"!toy.{t.kind}"


def custom_forms(table):
    return {"toy.op": table}


register(
    Dialect(
        "toy",
        parse_attribute=parse_attribute,
        parse_type=parse_type,
        print_attribute=print_attribute,
        print_type=print_type,
        custom_forms=custom_forms,
        codec="toy_codec_for_hlorun_tests",
    )
)
"""

TOY_CODEC = """
from hlorun.parser.bytecode.dialect_api import DialectCodec, register_codec


class ToyCodec(DialectCodec):
    name = "toy"


register_codec(ToyCodec())
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy dialect as a plug-in: its module on sys.path, named in PLUGINS."""
    (tmp_path / "toy_dialect_for_hlorun_tests.py").write_text(TOY)
    (tmp_path / "toy_codec_for_hlorun_tests.py").write_text(TOY_CODEC)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(dialects.PLUGINS, "toy", "toy_dialect_for_hlorun_tests")
    monkeypatch.setattr(dialects, "_REGISTERED", dict(dialects._REGISTERED))
    monkeypatch.setattr(dialect_api, "_REGISTRY", dict(dialect_api._REGISTRY))
    monkeypatch.setattr(dialect_api, "_ASKED", set(dialect_api._ASKED))
    for name in ("toy_dialect_for_hlorun_tests", "toy_codec_for_hlorun_tests"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


def test_the_core_dialects_and_the_plugins():
    assert set(dialects.CORE) == {
        *("builtin", "func", "stablehlo", "chlo", "check", "mhlo", "interpreter", "arith")
    }
    assert set(dialects.PLUGINS) == {"sdy", "vhlo"}
    assert {d.name for d in dialects.all_dialects()} == {*dialects.CORE, "sdy", "vhlo"}
    assert dialects.lookup("no_such_dialect") is None


def test_a_plugin_registers_its_hooks():
    vhlo = dialects.lookup("vhlo")
    assert vhlo is not None and vhlo.parse_type is not None and vhlo.codec is not None
    sdy = dialects.lookup("sdy")
    assert sdy is not None and sdy.parse_attribute is not None and sdy.custom_forms
    assert dialect_api.get_codec("sdy") is not None
    assert dialect_api.get_codec("vhlo") is not None


def test_a_new_dialect_plugs_in_through_the_registry(toy):
    assert "toy_dialect_for_hlorun_tests" not in sys.modules
    m = parse_module(
        "func.func @f(%a: !toy.thing) -> !toy.thing attributes {k = #toy.n<7>} {\n"
        "  func.return %a : !toy.thing\n}\n"
    )
    assert "toy_dialect_for_hlorun_tests" in sys.modules  # loaded when mentioned
    (f,) = m.body
    attr = dict(f.attributes)["k"]
    (arg,) = f.type.inputs
    assert type(attr).__name__ == "ToyAttr" and attr.value == 7
    assert type(arg).__name__ == "ToyType" and arg.kind == "thing"
    assert dialects.print_attribute(attr, str, str) == "#toy.n<7>"
    assert dialects.print_type(arg, str, str) == "!toy.thing"
    forms = dialects.DialectForms({"stablehlo.add": "core"}, "FORMS")
    assert forms.get("stablehlo.add") == "core" and forms.get("toy.op") == "FORMS"
    assert type(dialect_api.get_codec("toy")).__name__ == "ToyCodec"


def test_an_unregistered_dialect_stays_opaque():
    m = parse_module("func.func @f() attributes {k = #other.n<7>} {\n  func.return\n}\n")
    assert dict(m.body[0].attributes)["k"] == OpaqueAttr("#other.n<7>")


def test_a_plugin_module_that_does_not_register_is_an_error(tmp_path, monkeypatch):
    (tmp_path / "silent_plugin_for_hlorun_tests.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(dialects.PLUGINS, "silent", "silent_plugin_for_hlorun_tests")
    with pytest.raises(RuntimeError, match="did not register the dialect 'silent'"):
        dialects.lookup("silent")


PLUGIN_MODULES = (
    "hlorun.parser.sdy",
    "hlorun.parser.sdy.dialect",
    "hlorun.parser.vhlo.dialect",
    "hlorun.parser.vhlo.text",
)


def _loaded_after(code: str) -> list[str]:
    return loaded_after(code, PLUGIN_MODULES)


def test_a_plugin_loads_only_when_a_program_mentions_it():
    parse = "from hlorun.parser import parse_module, print_module\n"
    plain = (
        "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %a : tensor<2xf32>\n}\n"
    )
    assert _loaded_after(parse + f"print_module(parse_module({plain!r}))") == []
    with_sdy = plain.replace(
        "@f(%a: tensor<2xf32>)", '@f(%a: tensor<2xf32> {x = #sdy.mesh<["a"=2]>})'
    )
    assert _loaded_after(parse + f"print_module(parse_module({with_sdy!r}))") == [
        "hlorun.parser.sdy",
        "hlorun.parser.sdy.dialect",
    ]
    vhlo = textwrap.dedent(
        """
        from hlorun.parser.grammar import Parser
        Parser("!vhlo.f32_v1").parse_type()
        """
    )
    assert _loaded_after(vhlo) == ["hlorun.parser.vhlo.dialect", "hlorun.parser.vhlo.text"]


def test_a_dialect_without_a_printer_is_a_clear_error():
    class Stray:
        dialect = "sdy"  # registered, but Shardy's attributes print themselves

    with pytest.raises(UnsupportedError, match="dialect 'sdy' has no print_type hook"):
        dialects.print_type(Stray(), str, str)
