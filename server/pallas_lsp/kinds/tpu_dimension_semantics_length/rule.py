"""PAL642: ``dimension_semantics`` with a length other than the grid's, lowered for TPU."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import Ext
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import first_mapping_defect
from ...analysis.tpu_params import TpuParamsArg, params_call, sequence_length, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _axes(n: int) -> str:
    return f"{n} ax{'is' if n == 1 else 'es'}"


class TpuDimensionSemanticsLength(PythonRule):
    """`dimension_semantics` whose length is not the grid's, compiled for TPU.

    The Mosaic TPU lowering (`MosaicGridMapping.__init__`) needs one dimension semantic per
    grid axis (the axes `jax.vmap` adds are not counted) and raises when
    `pltpu.CompilerParams(dimension_semantics=...)` has another length. It runs when the
    launch is lowered for TPU; `interpret=True` does not check. Give one entry per grid axis.
    """

    code = "PAL642"
    name = "tpu-dimension-semantics-length"
    record = "tpu-dimension-semantics-length"
    summary = "pltpu.CompilerParams(dimension_semantics=...) with a length other than the grid's, lowered for TPU"
    label = "dimension_semantics"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads dimension_semantics)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        # Lowered explicitly for another platform, the Mosaic TPU lowering never runs.
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def _mismatch(self, hit: Hit) -> tuple[TpuParamsArg, int, int] | None:
        """The launch's dimension_semantics, its length and the grid's rank, where the lengths
        surely differ and nothing fails before the grid mapping is built."""
        ev, launch = hit.ev, hit.launch
        arg = tpu_params_arg(ev, launch, "dimension_semantics")
        specs = read_launch_specs(ev, launch)
        if arg is None or specs is None or specs.grid_rank is None:
            return None
        length = sequence_length(ev, arg.where)
        if length is None or length == specs.grid_rank:
            return None
        if first_spec_defect(ev, launch) is not None:
            return None  # (tracing fails first, with another error)
        if first_mapping_defect(ev, launch) is not None:
            return None  # (the block mappings are checked before the grid mapping is built)
        return arg, length, specs.grid_rank

    def check(self, hit: Hit) -> Report | None:
        found = self._mismatch(hit)
        if found is None:
            return None
        ev, launch = hit.ev, hit.launch
        arg, length, _ = found
        specs = read_launch_specs(ev, launch)
        assert specs is not None and specs.grid_rank is not None
        option = launch.options["compiler_params"]
        span = ev.index.span(option[0], option[1])
        related = []
        semantics_span = ev.index.span(arg.where[0], arg.where[1])
        if semantics_span.line != span.line:
            related.append(Related(semantics_span, "the dimension_semantics"))
        if specs.grid is not None:
            related.append(Related(ev.index.span(specs.grid[0], specs.grid[1]), f"the grid ({_axes(specs.grid_rank)})"))
        error = ("ValueError: Length of grid does not match length of dimension semantics. "
                 f"len(grid)={specs.grid_rank}, len(dimension_semantics)={length}")
        grid_words = "no grid (0 axes)" if specs.grid is None else f"a grid of {_axes(specs.grid_rank)}"
        headline = (f"dimension_semantics has {_entries(length)} but the launch has {grid_words}: "
                    "the Mosaic TPU lowering needs one per grid axis")
        return Report(error, headline, span=span, key=id(option[0]), related=tuple(related))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        found = self._mismatch(hit)
        if found is None:
            return []
        arg, length, rank = found
        node, scope, _ = arg.where
        if not isinstance(node, (ast.Tuple, ast.List)) or len(node.elts) != length:
            return []  # (only a sequence written out entry by entry is edited)
        if hit.index.path_of(scope) != hit.index.path or self._shared(hit, node):
            return []  # (another module's, or other launches read the same entries)
        entries = [hit.code_of(e, scope) for e in node.elts]
        imports: tuple[TextEdit, ...] = ()
        if length < rank:
            # One "arbitrary" per axis left out: an axis Mosaic may not split across cores or
            # reorder, which never changes a result, spelled as the entries written are.
            if node.elts and not self._written_as_strings(hit, node, scope):
                from ...analysis.fixes import value_in_module

                extra, imports = value_in_module(hit.index, "{%s}.ARBITRARY" % api.PLTPU)
            else:
                extra = '"arbitrary"'
            entries += [extra] * (rank - length)
            title = f"Pad dimension_semantics with {_arbitrary(rank - length)} to the grid's {_axes(rank)}"
            safe = True
        else:
            kept = entries[:rank]
            # (the entries kept were written for some axes; which ones a reused tuple meant is not
            # said, and a parallel entry on a reduction axis splits it across cores)
            safe = all(self._is_arbitrary(hit, e, scope) for e in node.elts[:rank])
            entries = kept
            extra = "the extra entry" if length - rank == 1 else f"the {length - rank} extra entries"
            title = f"Drop {extra} of dimension_semantics (the grid has {_axes(rank)})"
        opening, closing = ("[", "]") if isinstance(node, ast.List) else ("(", ")")
        trailing = "," if len(entries) == 1 and opening == "(" else ""
        text = f"{opening}{', '.join(entries)}{trailing}{closing}"
        return [Fix(title, (*imports, TextEdit(hit.span_of(node, scope), text)), preferred=True, safe=safe)]

    @staticmethod
    def _shared(hit: Hit, node: ast.AST) -> bool:
        """Whether another launch of the module reads the same dimension_semantics (a params
        object written once for several grids): editing it would change theirs."""
        for other in hit.view.all_launches:
            if other is hit.launch:
                continue
            if "compiler_params" not in other.options:
                continue
            arg = tpu_params_arg(hit.ev, other, "dimension_semantics")
            if arg is None and params_call(hit.ev, other) is None:
                return True  # (params that cannot be read may be these)
            if arg is not None and arg.where[0] is node:
                return True
        return False

    @staticmethod
    def _written_as_strings(hit: Hit, node: ast.Tuple | ast.List, scope) -> bool:
        return all(isinstance(hit.ev.const(e, scope, None), str) for e in node.elts)

    @staticmethod
    def _is_arbitrary(hit: Hit, entry: ast.AST, scope) -> bool:
        value = hit.ev.const(entry, scope, None)
        if isinstance(value, str):
            return value == "arbitrary"
        got = hit.ev.value(entry, scope, None)
        return isinstance(got, Ext) and got.name in {f"{api.PLTPU}.ARBITRARY",
                                                       f"{api.PLTPU}.GridDimensionSemantics.ARBITRARY"}


def _arbitrary(n: int) -> str:
    return f'{n} "arbitrary" entr{"y" if n == 1 else "ies"}'
