"""PAL611: a kind with a Python rule (rule.py)."""
