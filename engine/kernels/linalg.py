"""linalg kernels (spec: see each function)."""
