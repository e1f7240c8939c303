"""control_flow shape functions and verifiers (spec: see each function)."""
