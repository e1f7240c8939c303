"""quantization kernels (spec: see each function)."""
