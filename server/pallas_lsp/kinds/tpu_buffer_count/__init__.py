"""PAL643: a kind with a Python rule (rule.py)."""
