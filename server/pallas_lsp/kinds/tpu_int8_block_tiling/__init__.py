"""PAL706: a kind with a Python rule (rule.py)."""
