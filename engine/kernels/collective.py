"""collective kernels (spec: see each function)."""
