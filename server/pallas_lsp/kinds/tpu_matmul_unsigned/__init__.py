"""PAL713: a kind with a Python rule (rule.py)."""
