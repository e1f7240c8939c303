"""Which modules a fresh interpreter has imported after running some code (startup
and lazy-loading tests: behaviour, not timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable


def loaded_after(code: str, modules: Iterable[str]) -> list[str]:
    """Those of ``modules`` a fresh interpreter has imported after running ``code``, in
    the order given."""
    names = list(modules)
    probe = (
        f"import sys, json\n{code}\nprint(json.dumps([m for m in {names!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
