"""engine: values, dtypes, whole-tensor kernels, the interpreter and ``run``.

Public API: ``engine.run(module, inputs)``, ``engine.compile(module)(*inputs)`` (prepare
once, run many times), ``engine.Profile``, ``engine.register_custom_call(name, fn)``,
``engine.load_exported(data)`` (run a ``jax.export`` container).
"""

from .. import shape_inference  # noqa: F401  (fills the static side of the op table)
from . import kernels  # noqa: F401  (fills the kernel column)
from .api import CACHE_SIZE, clear_cache, compile, prepare, run
from .exported import ExportedProgram, load_exported
from .interpreter import Profile
from .kernels.control_flow import register_custom_call
from .loading import load_module
from .program import Program
from .values import TOKEN, RegionFn, Token

__all__ = [
    "run",
    "compile",
    "prepare",
    "clear_cache",
    "CACHE_SIZE",
    "Program",
    "Profile",
    "load_module",
    "register_custom_call",
    "load_exported",
    "ExportedProgram",
    "TOKEN",
    "Token",
    "RegionFn",
]
