"""PAL606: a kind with a Python rule (rule.py)."""
