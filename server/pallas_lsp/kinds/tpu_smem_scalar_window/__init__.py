"""PAL707: a kind with a Python rule (rule.py)."""
