"""A kind with a Python rule (rule.py); its record and examples are beside it."""
