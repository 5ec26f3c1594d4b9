"""PAL715: a kind with a Python rule (rule.py)."""
