"""reduction kernels (spec: see each function)."""
