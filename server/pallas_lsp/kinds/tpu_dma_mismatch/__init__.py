"""PAL730: a kind with a Python rule (rule.py)."""
