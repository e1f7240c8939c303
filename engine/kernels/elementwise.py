"""elementwise kernels (spec: see each function)."""
