"""chlo kernels (spec: see each function)."""
