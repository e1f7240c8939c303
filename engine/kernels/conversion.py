"""conversion kernels (spec: see each function)."""
