"""PAL740: a ``pltpu.CORE_PARALLEL`` grid axis with more iterations than the chip has TensorCores."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import Const, Ext
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.shapes import dimension
from ...analysis.tpu_blocks import first_block_defect, one_d_tiling_defect, tiling_defect
from ...analysis.tpu_params import Where, invalid_semantic, sequence_items, tpu_params_arg
from ...rules.base import PythonRule

# TensorCores per chip, where the chip showed it (docs/chips.md): a v5e has one. The record's
# `chips` keeps the finding to the generations verified; no other generation's count is claimed.
ACTIVE_CORES = 1
_CORE_PARALLEL_NAMES = {f"{api.PLTPU}.CORE_PARALLEL", f"{api.PLTPU}.GridDimensionSemantics.CORE_PARALLEL"}


@dataclass
class CoreParallelAxis:
    """The one core-parallel grid axis of a launch: its position, its bound, and where the
    semantic and the bound are written."""

    axis: int
    bound: int
    semantic: Where
    grid_entry: Where
    spelled_as_string: bool


def _is_core_parallel(hit: Hit, item: Where) -> tuple[bool | None, bool]:
    """(whether the entry is surely core-parallel, None when the code does not say; whether it
    is spelled as a string)."""
    ev = hit.ev
    c = ev.const(*item)
    if isinstance(c, str):
        return c == "core_parallel", True
    v = ev.value(*item)
    if isinstance(v, Const) and isinstance(v.value, str):
        return v.value == "core_parallel", True
    if isinstance(v, Ext):
        if v.name in _CORE_PARALLEL_NAMES:
            return True, False
        if v.name.startswith(f"{api.PLTPU}."):
            return False, False
    return None, False


def core_parallel_axis(hit: Hit) -> CoreParallelAxis | None:
    """The launch's core-parallel axis where the code spells every semantic and that axis's
    bound; None when there is none, more than one (jax's Python refuses that first), or
    anything is unknown."""
    ev, launch = hit.ev, hit.launch
    arg = tpu_params_arg(ev, launch, "dimension_semantics")
    specs = read_launch_specs(ev, launch)
    if arg is None or specs is None or specs.grid is None or specs.grid_rank is None:
        return None
    with ev.within(arg.params.frames):
        semantics = sequence_items(ev, arg.where)
        if semantics is None or len(semantics) != specs.grid_rank:
            return None  # (PAL642: the lowering refuses the lengths first)
        found = []
        for axis, item in enumerate(semantics):
            core, as_string = _is_core_parallel(hit, item)
            if core is None:
                return None
            if core:
                found.append((axis, item, as_string))
    if len(found) != 1:
        return None
    bad, _ = invalid_semantic(ev, arg)
    if bad is not None:
        return None  # (PAL648: the attribute does not parse)
    axis, item, as_string = found[0]
    grid = ev.const(*specs.grid)
    entries = [specs.grid] if isinstance(grid, int) else sequence_items(ev, specs.grid)  # (an int grid is (n,))
    if entries is None or len(entries) != specs.grid_rank:
        return None
    bound = dimension(ev, *entries[axis])
    if bound is None:
        return None
    return CoreParallelAxis(axis, bound, item, entries[axis], as_string)


class TpuCoreParallelExceedsCores(PythonRule):
    """A `CORE_PARALLEL` grid axis with more iterations than the chip's TensorCores.

    `dimension_semantics=(pltpu.CORE_PARALLEL, ...)` shards that grid axis across the chip's
    TensorCores, one iteration per core. jax passes the axis's bound to Mosaic
    (`_get_active_core_count`, `jax/_src/tpu_custom_call.py`), and Mosaic inside libtpu refuses
    a bound above the chip's active cores: a TPU v5e has one TensorCore, so any bound above 1
    fails to compile there. Lowering on a CPU and `interpret=True` never check it. Use
    `pltpu.PARALLEL` (the same blocks; a hint a one-core chip may ignore), or split the work
    across cores only on chips that have them.
    """

    code = "PAL740"
    name = "tpu-core-parallel-exceeds-cores"
    record = "tpu-core-parallel-exceeds-cores"
    summary = "a pltpu.CORE_PARALLEL grid axis with more iterations than the chip's TensorCores (1 on a TPU v5e)"
    label = "dimension_semantics"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (only Mosaic on the chip refuses it)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, no TPU kernel is compiled.
        return super().applies(hit) and hit.context.lowered_for in (None, "tpu")

    def _axis(self, hit: Hit) -> CoreParallelAxis | None:
        found = core_parallel_axis(hit)
        if found is None or found.bound <= ACTIVE_CORES:
            return None
        ev, launch = hit.ev, hit.launch
        if first_spec_defect(ev, launch) is not None:
            return None  # (tracing fails first)
        if first_block_defect(ev, launch, (tiling_defect, one_d_tiling_defect)) is not None:
            return None  # (the Mosaic lowering in jax's Python fails first)
        return found

    def check(self, hit: Hit) -> Report | None:
        found = self._axis(hit)
        if found is None:
            return None
        node, scope, _ = found.semantic
        grid_node, grid_scope, _ = found.grid_entry
        error = ("JaxRuntimeError: INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Core-parallel dimension "
                 f"{found.axis} has iteration bound: {found.bound}, which is greater than the number of active "
                 f"cores: {ACTIVE_CORES}.")
        headline = (f"grid axis {found.axis} is CORE_PARALLEL with {found.bound} iterations, but a TPU v5e has "
                    f"{ACTIVE_CORES} TensorCore: Mosaic refuses to compile it")
        related = (Related(hit.span_of(grid_node, grid_scope), f"grid axis {found.axis}: {found.bound} iterations"),)
        return Report(error, headline, span=hit.span_of(node, scope), key=id(node), related=related)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        found = self._axis(hit)
        if found is None:
            return []
        node, scope, _ = found.semantic
        if found.spelled_as_string:
            text = '"parallel"'
        elif isinstance(node, ast.Attribute) and node.attr == "CORE_PARALLEL":
            text = hit.code_of(node.value, scope) + ".PARALLEL"
        else:
            return []
        # (safe: the same blocks and results; only how the grid is split over cores changes)
        return [Fix(f"Use {text} (one TensorCore on a TPU v5e: nothing to shard across)",
                    (TextEdit(hit.span_of(node, scope), text),), preferred=True, safe=True)]
