"""PAL716: a kind with a Python rule (rule.py)."""
