"""Oracle tests: every prediction checked against real JAX (run ``scripts/oracle-env`` first)."""
