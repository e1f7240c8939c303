"""movement kernels (spec: see each function)."""
