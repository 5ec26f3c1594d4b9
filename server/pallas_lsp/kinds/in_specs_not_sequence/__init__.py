"""PAL624: a kind with a Python rule (rule.py)."""
