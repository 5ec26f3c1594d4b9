"""PAL608: a kind with a Python rule (rule.py)."""
