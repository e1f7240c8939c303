"""random kernels (spec: see each function)."""
