"""Hostile but small inputs: nesting that Python refuses (REFUSED) and nesting that Python 3.11
compiles (ACCEPTED). Each generator returns one module-level statement. Used as seeds by the
fuzz target (fuzz_analysis.py writes them into its corpus), replayed by
tests/robustness/test_fuzz.py and checked one by one in tests/robustness/test_deep_nesting.py.
"""
from __future__ import annotations

from typing import Callable

# Python refuses these (tokenizer: more than 200 brackets; parser: its stack; indentation: 100).
REFUSED: dict[str, Callable[[], str]] = {
    "parens": lambda: "x = " + "(" * 5000 + "1" + ")" * 5000,
    "lists": lambda: "x = " + "[" * 20000 + "]" * 20000,
    "calls": lambda: "x = " + "f(" * 1200 + "1" + ")" * 1200,
    "unclosed": lambda: "x = " + "(" * 20000,
    "parens_in_fstring": lambda: 'x = f"{ ' + "(" * 300 + "1" + ")" * 300 + '}"',
    "lambdas_in_parens": lambda: "x = " + "lambda: (" * 250 + "1" + ")" * 250,
    "lambdas": lambda: "x = " + "lambda: " * 5000 + "1",
    "conditionals": lambda: "x = " + "a if b else " * 5000 + "c",
    "operators": lambda: "x = " + "+".join(["1"] * 5000),
    "indentation": lambda: "".join(" " * i + "if a:\n" for i in range(120)) + " " * 120 + "pass",
}

# Python 3.11 compiles these: they must be analysed, not reported as syntax errors.
ACCEPTED: dict[str, Callable[[], str]] = {
    "lambdas": lambda: "x = " + "lambda: " * 500 + "1",
    "conditionals": lambda: "x = " + "a if b else " * 1000 + "c",
    "operators": lambda: "x = " + "+".join(["1"] * 2000),
    "power": lambda: "x = " + "**".join(["2"] * 1000),
    "unary": lambda: "x = " + "-" * 2000 + "1",
    "attributes": lambda: "x = a" + ".b" * 2000,
    "call_chain": lambda: "x = f" + "()" * 2000,
    "subscripts": lambda: "x = a" + "[0]" * 2000,
    "brackets_at_the_limit": lambda: "x = " + "f(" * 190 + "1" + ")" * 190,
}


def seeds() -> dict[str, str]:
    """Every shape by name, as module text."""
    out = {f"refused_{k}": g() + "\n" for k, g in REFUSED.items()}
    out.update({f"accepted_{k}": g() + "\n" for k, g in ACCEPTED.items()})
    return out
