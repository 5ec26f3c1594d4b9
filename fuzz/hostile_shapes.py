"""Hostile but small inputs: nesting that Python refuses (REFUSED) and nesting that Python 3.11
compiles (ACCEPTED). Each generator returns one module-level statement. Used as seeds by the
fuzz target (fuzz_analysis.py writes them into its corpus), replayed by
tests/robustness/test_fuzz.py and checked one by one in tests/robustness/test_deep_nesting.py.
"""
from __future__ import annotations

from pathlib import Path
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


# A fuzzing strategy: an input starting with NESTED_MAGIC is one nesting shape (its kind and
# depth read from the next three bytes) followed by the rest of the input as text, so that the
# fuzzer mutates depths and kinds around Python's limits instead of stumbling on them.
NESTED_MAGIC = b"\xfe\xed"
NESTED_KINDS: list[tuple[str, str]] = [
    ("(", ")"), ("[", "]"), ("{", "}"), ("f(", ")"), ("lambda: ", ""), ("a if b else ", ""), ("-", ""),
    ("not ", ""), ("1 + ", ""), ("2 ** ", ""), ("(", ""), ("lambda: (", ")"), ('f"{', '}"'), ("x.", ""),
]


def nested_input(data: bytes) -> str | None:
    """The text of a NESTED_MAGIC input, or None for any other input."""
    if not data.startswith(NESTED_MAGIC) or len(data) < 5:
        return None
    opening, closing = NESTED_KINDS[data[2] % len(NESTED_KINDS)]
    depth = int.from_bytes(data[3:5], "big") % 25_000
    rest = data[5:].decode("utf-8", "replace")
    return "x = " + opening * depth + "y" + closing * depth + "\n" + rest


def nested_seed(kind: int, depth: int, rest: str = "") -> bytes:
    return NESTED_MAGIC + bytes([kind]) + depth.to_bytes(2, "big") + rest.encode()


def seed_inputs() -> dict[str, bytes]:
    """Every shape as a fuzzer input: the fixed shapes as the target decodes plain text (a first
    byte 1 means ASCII), and each nesting kind just under and far over Python's limits."""
    out = {f"hostile-{name}": b"\x01" + text.encode("ascii") for name, text in seeds().items()}
    for kind in range(len(NESTED_KINDS)):
        for depth in (150, 250, 1000, 20_000):
            out[f"hostile-nested-{kind}-{depth}"] = nested_seed(kind, depth, "def later():\n    return 1\n")
    return out


def write_seeds(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in seed_inputs().items():
        (folder / name).write_bytes(data)
