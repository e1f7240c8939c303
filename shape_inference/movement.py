"""movement shape functions and verifiers (spec: see each function)."""
