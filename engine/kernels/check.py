"""check kernels (spec: see each function)."""
