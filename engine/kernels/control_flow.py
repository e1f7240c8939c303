"""control_flow kernels (spec: see each function)."""
