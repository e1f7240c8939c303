"""engine: values, dtypes, whole-tensor kernels, the interpreter and ``run``.

Public API: ``engine.run(module, inputs)``, ``engine.compile(module)(*inputs)`` (prepare
once, run many times), ``engine.Profile``, ``engine.register_custom_call(name, fn)``.
"""

from .. import shape_inference  # noqa: F401  (fills the static side of the op table)

from . import kernels  # noqa: F401  (fills the kernel column)
from .api import load_module, run
from .interpreter import Profile
from .kernels.control_flow import register_custom_call
from .program import Program, compile
from .values import TOKEN, RegionFn, Token

__all__ = [
    "run", "compile", "Program", "Profile", "load_module", "register_custom_call",
    "TOKEN", "Token", "RegionFn",
]
