"""What each launch of a module is: its contexts, backend, grid, and for a compiled TPU
``pallas_call`` its memory budget (analysis/vmem_budget.py) against a chip's limits.

The editor's hint and hover and ``pallas-lsp launches`` show these; they are worked out only when
asked (never on a keystroke's diagnostics), from the analysis result of the text shown.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import api
from .contexts import Mode
from .evaluate import Evaluator
from .launches import Launch
from .vmem_budget import CHIP_MEMORY, BudgetPart, ChipMemory, LaunchBudget, launch_budget, mib

if TYPE_CHECKING:
    from .engine import AnalysisResult

BACKEND_OF_MODE = {Mode.TPU: "tpu", Mode.TRITON: "triton", Mode.MOSAIC_GPU: "mosaic_gpu",
                   Mode.COMPILED: "compiled", Mode.INTERPRET: "interpret", Mode.TPU_INTERPRET: "tpu-interpret",
                   Mode.GPU_INTERPRET: "gpu-interpret", Mode.UNKNOWN: "unknown"}
# The generation whose limits are shown when the code names none: the only one a chip measured.
DEFAULT_GENERATION = "v5e"


@dataclass(frozen=True)
class LaunchReport:
    """One launch as the hint, the hover and ``pallas-lsp launches`` show it."""

    launch: Launch
    line: int
    backends: tuple[str, ...]  # one per distinct context, in the contexts' order
    grid: tuple[int, ...] | None  # None: no grid= read (none given, or not known)
    budget: LaunchBudget | None  # None: not compiled for TPU, or a part's shape is not known
    chip: ChipMemory | None  # the limits the budget is held to (None: that generation's are not known)
    generation: str

    @property
    def compiled_for_tpu(self) -> bool:
        return "tpu" in self.backends

    def as_json(self, path: str | None) -> dict:
        b, chip = self.budget, self.chip
        return {
            "path": path, "line": self.line, "kernel": self.launch.kernel_name, "api": self.launch.api.short,
            "backend": self.backends[0] if len(self.backends) == 1 else list(self.backends),
            "grid": list(self.grid) if self.grid is not None else None,
            "vmem_scoped_bytes": b.vmem_scoped_bytes if b is not None else None,
            "vmem_limit_bytes": (b.limit(chip) if chip is not None else b.vmem_limit) if b is not None else None,
            "vmem_limit_from": _limit_source(b, self.generation) if b is not None else None,
            "smem_bytes": b.smem_bytes if b is not None else None,
            "tpu_generation": self.generation if b is not None else None,
            "estimate_complete": (b.complete and not b.internal_scratch and all(p.certain for p in b.parts))
            if b is not None else None,
            "parts": [_part_json(p) for p in b.parts] if b is not None else [],
        }


def launch_reports(result: AnalysisResult, generation: str | None = None) -> list[LaunchReport]:
    """Every launch of ``result``'s module, in text order, with the budget of the compiled TPU
    ones held to ``generation``'s limits (the default: the one a chip measured)."""
    gen = generation or DEFAULT_GENERATION
    ev = result.evaluator or Evaluator(result.index)
    out = []
    for launch in result.launches:
        backends: list[str] = []
        for c in launch.contexts:
            name = BACKEND_OF_MODE.get(c.mode, c.mode.value)
            if c.cpu_host:
                name = "cpu"  # (compiled code on a CPU host, where Pallas only interprets)
            elif c.lowered_for not in (None, "tpu", "cuda", "rocm"):
                name = f"lowered for {c.lowered_for}"
            elif c.mode == Mode.TPU and c.lowered_for not in (None, "tpu"):
                name = f"lowered for {c.lowered_for}"  # (TPU APIs, lowered for a GPU: fails first)
            if name not in backends:
                backends.append(name)
        tpu = "tpu" in backends
        budget = _budget(ev, launch) if tpu else None
        out.append(LaunchReport(launch, launch.anchor.line, tuple(backends), _grid(ev, launch), budget,
                                CHIP_MEMORY.get(gen), gen))
    return out


def _budget(ev: Evaluator, launch: Launch) -> LaunchBudget | None:
    try:
        return launch_budget(ev, launch)
    except RecursionError:  # (a pathological text: no estimate rather than no listing)
        return None


def _grid(ev: Evaluator, launch: Launch) -> tuple[int, ...] | None:
    from .launch_specs import read_launch_specs
    from .vmem_budget import grid_dims

    if launch.api.name != api.PALLAS_CALL:
        return None
    specs = read_launch_specs(ev, launch)
    if specs is None:
        return None
    return grid_dims(ev, specs.grid)


def budget_hint(report: LaunchReport, count: int = 3) -> str | None:
    """``VMEM 12.5 of 16 MiB (v5e): x_ref 2 x 4 MiB, o_ref 2 x 2 MiB, acc 512 KiB`` (and
    ``· SMEM 4 KiB`` where the launch uses SMEM), or None without an estimate."""
    b = report.budget
    if b is None:
        return None
    used = mib(b.vmem_scoped_bytes)
    if report.chip is not None:
        head = f"VMEM {_of(used, mib(b.limit(report.chip)))} ({report.generation})"
    elif b.vmem_limit is not None:
        head = f"VMEM {_of(used, mib(b.vmem_limit))} (vmem_limit_bytes; TPU {report.generation} not measured)"
    else:
        head = f"VMEM {used} (TPU {report.generation}'s limits not measured)"
    scoped = sorted((p for p in b.parts if p.space == "vmem" and p.scoped and p.total),
                    key=lambda p: -p.total)
    words = ", ".join(f"{p.name} {part_words(p)}" for p in scoped[:count])
    if len(scoped) > count:
        words += f", +{len(scoped) - count} more"
    text = f"{head}: {words}" if words else head
    unscoped = [p for p in b.parts if p.space == "vmem" and not p.scoped]
    if unscoped:
        text += " · outside the scoped limit: " + ", ".join(f"{p.name} {part_words(p)}" for p in unscoped[:count])
    if b.smem_bytes:
        text += f" · SMEM {mib(b.smem_bytes)}"
        if report.chip is not None:
            text += f" of {mib(report.chip.smem)}"
    if not b.complete or not all(p.certain for p in b.parts):
        text += " (estimate)"
    elif b.internal_scratch:
        text += " (at least: a matmul adds internal scratch)"
    return text


def budget_markdown(report: LaunchReport) -> str | None:
    """The hover's table: each part's buffers, shape, dtype and bytes, and the limits."""
    b = report.budget
    if b is None:
        return None
    rows = ["| part | role | space | buffers | block | bytes |", "| --- | --- | --- | --- | --- | --- |"]
    for p in b.parts:
        if p.space == "hbm":
            continue
        shape = "(" + ", ".join(map(str, p.dims)) + ")" if p.dims is not None else "?"
        space = p.space.upper() + ("" if p.scoped or p.space != "vmem" else " (not scoped)")
        rows.append(f"| `{p.name}` | {p.role} | {space} | {p.buffers} | {shape} {p.dtype or ''} | {mib(p.total)} |")
    lines = [f"**Memory** (estimated; the model was calibrated on a TPU v5e, see `pallas-lsp explain PAL800`): "
             f"{budget_hint(report)}", "", *rows, ""]
    limit = _limit_source(b, report.generation)
    if report.chip is not None:
        lines.append(f"Scoped VMEM limit {mib(b.limit(report.chip))} ({limit}); physical VMEM "
                     f"{mib(report.chip.vmem)}, SMEM {mib(report.chip.smem)} on TPU {report.generation}.")
    else:
        lines.append(f"TPU {report.generation}'s memory limits were not measured on a chip: no verdict.")
    if b.grid_steps > 1:
        lines.append(f"The grid has {b.grid_steps} steps: blocks are double-buffered unless "
                     "`pipeline_mode=pl.Buffered(n)` says otherwise.")
    if not b.complete:
        lines.append("Not counted: matmuls whose result shape is not known (dot_general, einsum).")
    if b.internal_scratch:
        lines.append("Not counted: the internal scratch Mosaic adds for a matmul whose result is not "
                     "accumulated into a ref (tens of KiB on the chip measured).")
    return "\n".join(lines) + "\n"


def part_words(p: BudgetPart) -> str:
    return f"{p.buffers} x {mib(p.each_bytes)}" if p.buffers > 1 else mib(p.total)


def _of(used: str, limit: str) -> str:
    """``12.5 of 16 MiB`` (one unit said once where both are in MiB), else ``448 KiB of 16 MiB``."""
    if used.endswith(" MiB") and limit.endswith(" MiB"):
        return f"{used[:-4]} of {limit}"
    return f"{used} of {limit}"


def _limit_source(b: LaunchBudget, generation: str) -> str:
    return "vmem_limit_bytes" if b.vmem_limit is not None else f"the scoped default on TPU {generation}"


def _part_json(p: BudgetPart) -> dict:
    return {"name": p.name, "role": p.role, "space": p.space, "buffers": p.buffers, "bytes_each": p.each_bytes,
            "bytes": p.total, "block": list(p.dims) if p.dims is not None else None, "dtype": p.dtype,
            "scoped": p.scoped, "certain": p.certain}
