"""PAL612: a kind with a Python rule (rule.py)."""
