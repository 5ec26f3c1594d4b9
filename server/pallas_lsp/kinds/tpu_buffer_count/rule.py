"""PAL643: ``pipeline_mode=pl.Buffered(n)`` with n not 1 or 2 on a pallas_call BlockSpec, for TPU."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import Scope
from ...analysis.tpu_blocks import TpuBlock, buffer_count, first_mapping_defect, surely_windowed, tpu_blocks
from ...analysis.tpu_params import sequence_length, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


class TpuBufferCount(PythonRule):
    """A pallas_call BlockSpec with `pipeline_mode=pl.Buffered(n)`, n not 1 or 2, compiled for TPU.

    The Mosaic TPU pipeline that `pl.pallas_call` lowers to (`lower_jaxpr_into_pipelined_module`)
    only single- or double-buffers a windowed VMEM block; any other count raises. (A block that
    is the whole array is forced to single buffering, and a launch without a grid ignores
    the mode.) Deeper buffering is for `pltpu.emit_pipeline`. `interpret=True` does not check.
    """

    code = "PAL643"
    name = "tpu-buffer-count"
    record = "tpu-buffer-count"
    summary = "pipeline_mode=pl.Buffered(n) with n not 1 or 2 on a pallas_call BlockSpec, lowered for TPU"
    label = "pl.Buffered"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads pipeline_mode)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU lowering never runs.
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def _refused(self, hit: Hit) -> tuple[TpuBlock, tuple[int, ast.AST, Scope]] | None:
        """The first block whose buffer count the lowering refuses, with that count and its
        pl.Buffered call; None when no block surely fails on its count first."""
        ev, launch = hit.ev, hit.launch
        specs = read_launch_specs(ev, launch)
        if specs is None or not specs.grid_rank:
            return None  # (no grid, or not known: the mode is never read)
        blocks = tpu_blocks(ev, launch)
        if not blocks:
            return None
        found = None
        for block in blocks:
            got = buffer_count(ev, block)
            if got is not None and got[0] not in (1, 2):
                if block.memory_space in ("default", "vmem") and surely_windowed(block):
                    found = (block, got)
                break  # (the first bad count raises; a block that may be the whole array is forced to 1)
        if found is None:
            return None
        if first_spec_defect(ev, launch) is not None:
            return None  # (tracing fails first)
        if first_mapping_defect(ev, launch) is not None:
            return None  # (the block mappings are checked first)
        semantics = tpu_params_arg(ev, launch, "dimension_semantics")
        if semantics is not None:
            length = sequence_length(ev, semantics.where)
            if length != specs.grid_rank:
                return None  # (a length mismatch, or one not known, is raised before)
        return found

    def check(self, hit: Hit) -> Report | None:
        found = self._refused(hit)
        if found is None:
            return None
        ev = hit.ev
        block, (count, call, scope) = found
        # Underline the pipeline_mode= argument; a pl.Buffered made elsewhere is related.
        assert block.entry is not None  # (a refused count is read from a written BlockSpec)
        site = block.entry.call.site
        argument = ev.kwarg(site, "pipeline_mode")
        span = ev.index.span(argument if argument is not None else site.node, site.scope)
        related = []
        made = ev.index.span(call, scope)
        if made.line != span.line:
            related.append(Related(made, f"pl.Buffered({count}) made here"))
        spec = ev.index.span(block.where[0], block.where[1])
        if spec.line != span.line:
            related.append(Related(spec, f"the BlockSpec for {block.origin}"))
        error = f"LoweringException: Only single (1) and double (2) buffering are supported. Got {count}."
        headline = (f"pl.Buffered({count}) on the BlockSpec for {block.origin}: a pallas_call lowered for TPU "
                    "only single- (1) or double- (2) buffers a block; deeper buffering needs pltpu.emit_pipeline")
        return Report(error, headline, span=span, key=id(argument), related=tuple(related))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        found = self._refused(hit)
        if found is None:
            return []
        edits = self._double_buffering_edits(hit, *found)
        if not edits:
            return []
        _, call, call_scope = found[1]
        assert isinstance(call, ast.Call)
        last = edits[-1].new_text
        shown = last if last != "2" else f"{hit.code_of(call.func, call_scope)}(2)"  # (in the module's words)
        # (safe: how many buffers the pipeline keeps changes when blocks are copied, never a value)
        return [Fix(f"Use {shown} (double buffering, the default; results unchanged)", edits,
                    preferred=True, safe=True)]

    @staticmethod
    def _double_buffering_edits(hit: Hit, block: TpuBlock, found: tuple[int, ast.AST, Scope]
                                ) -> tuple[TextEdit, ...]:
        """The edits making the refused block double-buffered: the count of a pl.Buffered written
        at the BlockSpec, or the BlockSpec's pipeline_mode= when the mode is a named value made
        elsewhere (which other specs, or pltpu.emit_pipeline, may share). None where the text to
        edit is not this module's, or is a helper's parameter that other callers pass."""
        from ...analysis.fixes import value_in_module

        _, call, call_scope = found
        entry = block.entry
        if entry is None or not isinstance(call, ast.Call):
            return ()
        site = entry.call.site
        argument = hit.ev.kwarg(site, "pipeline_mode")
        if argument is None or hit.index.path_of(site.scope) != hit.index.path:
            return ()
        if argument is call:
            count = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg == "buffer_count"), None)
            if not isinstance(count, ast.Constant):
                return ()  # (a parameter or a name: other launches may pass or share it)
            return (TextEdit(hit.span_of(count, call_scope), "2"),)
        if entry.made_in_helper:
            return ()  # (the helper's pipeline_mode= is every caller's)
        text, imports = value_in_module(hit.index, "{%s}.Buffered(2)" % api.PL)
        return (*imports, TextEdit(hit.span_of(argument, site.scope), text))
