"""The one table of rule-code ranges: each family of error kinds owns a hundred codes.

A kind's code says where its error comes from; ``pallas-lsp dev new-kind next:<family>`` takes
the next free code of a family, and a test checks every shipped code sits in its family's range
and no code is used twice."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

CODE = re.compile(r"PAL(\d{3})")


@dataclass(frozen=True)
class Family:
    name: str
    first: int
    last: int
    what: str

    def holds(self, code: str) -> bool:
        m = CODE.fullmatch(code)
        return m is not None and self.first <= int(m.group(1)) <= self.last

    @property
    def span(self) -> str:
        return f"PAL{self.first:03d}-PAL{self.last:03d}"


FAMILIES: tuple[Family, ...] = (
    Family("seed", 1, 99, "the seed kinds (the first four records)"),
    Family("gpu-interpret", 100, 199, "the GPU interpreter (InterpretGPUParams, set_gpu_interpret_mode)"),
    Family("tpu-interpret", 200, 299, "the TPU interpreter and the HLO interpreter (interpret=True)"),
    Family("mosaic-gpu", 300, 399, "Mosaic GPU, lowered"),
    Family("lowering", 400, 499, "the lowering tables (a primitive a backend does not lower)"),
    Family("transforms", 500, 599, "transformations and launch contexts (jvp, vmap, grad, jit, backends)"),
    Family("launch-structure", 600, 699, "the launch's structure (grid, specs, operands)"),
    Family("tpu-chip", 700, 799, "what the TPU chip rejects"),
    Family("memory", 800, 899, "memory budgets"),
    # The tool's own codes: PAL900 syntax error, PAL901 unknown code, PAL902 notebook. No kind.
    Family("tool", 900, 999, "pallas-lsp's own diagnostics"),
)
KIND_FAMILIES = tuple(f for f in FAMILIES if f.name != "tool")


def family_of(code: str) -> Family | None:
    return next((f for f in FAMILIES if f.holds(code)), None)


def family_named(name: str) -> Family | None:
    return next((f for f in FAMILIES if f.name == name), None)


def next_free(family: Family, taken: Iterable[str]) -> str | None:
    """The lowest code of ``family`` not in ``taken`` (None: the family is full)."""
    used = set(taken)
    return next((f"PAL{n:03d}" for n in range(family.first, family.last + 1) if f"PAL{n:03d}" not in used), None)
