"""PAL500: a kind with a Python rule (rule.py)."""
