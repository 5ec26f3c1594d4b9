"""PAL645: a 0-d operand or output whose block is in VMEM (or ANY/HBM), lowered for TPU."""
from __future__ import annotations

import dataclasses

from ...analysis import api
from ...analysis.findings import Fix, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import RANK0, TpuBlock, first_mapping_defect, tpu_block_mappings
from ...analysis.vmem_budget import grid_dims
from ...rules.tpu_block_rule import TpuBlockTilingRule

# The dtypes of a 0-d operand the fix moves to SMEM: 32-bit scalars, which Mosaic reads from SMEM
# (the chip ran f32 SMEM scalars clean, smem__scalar_params_clean); narrower ones it refuses in
# scalar arithmetic (smem__int8_table_arith), so no fix is offered for them.
SMEM_SCALAR_DTYPES = frozenset({"float32", "int32"})
SMEM_SPEC = "{%s}.BlockSpec(memory_space={%s}.SMEM)" % (api.PL, api.PLTPU)
WHOLE_ARRAY_SPEC = "{%s}.BlockSpec()" % api.PL


class TpuBlockRank0(TpuBlockTilingRule):
    """A block of rank 0 outside SMEM, compiled for TPU.

    `_check_block_mappings` in the Mosaic TPU lowering refuses a block of rank 0: a 0-d
    operand or output with the default BlockSpec (or `pl.BlockSpec()`, or a block shape `()`)
    lives in VMEM, which the lowering tiles by rank >= 1 blocks. SMEM blocks that are the
    whole array are skipped by the check. It runs when the launch is lowered for TPU;
    `interpret=True` does not check. Put the scalar in SMEM
    (`pl.BlockSpec(memory_space=pltpu.SMEM)`), or pass it as a 1-element array.
    """

    code = "PAL645"
    name = "tpu-block-rank0"
    record = "tpu-block-rank0"
    summary = "a 0-d operand or output with a VMEM block (the default BlockSpec), lowered for TPU"
    defect_kind = RANK0

    def error(self, block: TpuBlock) -> str:
        return ("ValueError: The Pallas TPU lowering currently supports only blocks of rank >= 1. Block spec for "
                f"{block.origin} in pallas_call ... has block shape (), array shape (), ...")

    def check(self, hit: Hit) -> Report | None:
        report = super().check(hit)
        if report is None:
            return None
        return dataclasses.replace(report, fixable=True)  # (whether a fix applies is asked in fixes)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        block = self._refused_operand(hit)
        if block is None:
            return []
        specs = read_launch_specs(hit.ev, hit.launch)
        if specs is None or grid_dims(hit.ev, specs.grid) != ():
            # (under a grid a 0-d SMEM block is a window, which Mosaic refuses on the chip: "Scalar
            # windows not implemented", tests/data/chip cases tpu-block-rank0__*_fixed.py; grid-less,
            # tpu-block-rank0__probe_0d_smem_gridless.py compiled)
            return []
        edits = self._spec_edit(hit, block) if block.entry is not None else self._in_specs_edit(hit)
        if not edits:
            return []
        # (safe: the scalar is the whole 0-d array in either memory; only where it is kept changes)
        return [Fix("Put the scalar in SMEM: pl.BlockSpec(memory_space=pltpu.SMEM)", edits,
                    preferred=True, safe=True)]

    @staticmethod
    def _refused_operand(hit: Hit) -> TpuBlock | None:
        """The refused block where it is a 0-d 32-bit operand in VMEM (outputs are not moved:
        a kernel's vector store into an SMEM scalar is not shown to compile)."""
        ev = hit.ev
        if first_spec_defect(ev, hit.launch) is not None:
            return None
        defect = first_mapping_defect(ev, hit.launch)
        if defect is None or defect.kind != RANK0:
            return None
        block = defect.block
        if not block.origin.startswith("args[") or block.memory_space not in ("default", "vmem"):
            return None  # (a scalar in ANY/HBM is read by DMA: SMEM changes what the kernel gets)
        if block.dtype not in SMEM_SCALAR_DTYPES:
            return None
        return block

    @staticmethod
    def _spec_edit(hit: Hit, block: TpuBlock) -> tuple[TextEdit, ...]:
        """The scalar's own BlockSpec rewritten as an SMEM one, where it is written inline in
        in_specs (a spec named or built by a helper may be other operands' too)."""
        from ...analysis.fixes import value_in_module

        entry = block.entry
        assert entry is not None
        site = entry.call.site
        if entry.made_in_helper or entry.item[0] is not site.node or hit.index.path_of(site.scope) != hit.index.path:
            return ()
        text, imports = value_in_module(hit.index, SMEM_SPEC)
        return (*imports, TextEdit(hit.span_of(site.node, site.scope), text))

    @staticmethod
    def _in_specs_edit(hit: Hit) -> tuple[TextEdit, ...]:
        """in_specs for a launch that writes none: SMEM for each 0-d 32-bit operand, the whole
        array (what the default block is) for every other one. Only where every operand's shape
        is known and no scalar-prefetch grid spec holds the specs."""
        from ...analysis.cst_edits import EditFailed
        from ...analysis.fixes import add_kwarg, value_in_module

        ev, launch = hit.ev, hit.launch
        specs = read_launch_specs(ev, launch)
        blocks = tpu_block_mappings(ev, launch)
        if specs is None or blocks is None or specs.in_specs is not None or specs.num_scalar_prefetch:
            return ()
        if "grid_spec" in launch.options or hit.index.path_of(launch.site.scope) != hit.index.path:
            return ()
        operands = [b for b in blocks if b.origin.startswith("args[")]
        if not operands or any(b.array is None for b in operands):
            return ()
        entries: list[str] = []
        imports: list[TextEdit] = []
        for operand in operands:
            if len(operand.array or ()) != 0:
                template = WHOLE_ARRAY_SPEC
            elif operand.dtype in SMEM_SCALAR_DTYPES:
                template = SMEM_SPEC
            else:
                return ()  # (a narrow scalar: SMEM is not shown to take it)
            text, more = value_in_module(hit.index, template)
            entries.append(text)
            imports.extend(e for e in more if e not in imports)
        try:
            edit = add_kwarg(hit.index, launch.site.node, launch.site.scope, "in_specs", f"[{', '.join(entries)}]")
        except EditFailed:
            return ()
        return (*imports, edit)
