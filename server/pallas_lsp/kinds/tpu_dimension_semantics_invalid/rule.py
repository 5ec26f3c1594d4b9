"""PAL648: a dimension semantic that is not one of Mosaic's four, lowered for TPU."""
from __future__ import annotations

import ast

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.launch_specs import first_spec_defect, read_launch_specs
from ...analysis.rule_api import Hit, Report
from ...analysis.tpu_blocks import first_mapping_defect
from ...analysis.tpu_params import DIMENSION_SEMANTICS, invalid_semantic, tpu_params_arg
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu


def _encloses(outer, scope) -> bool:
    """Whether ``outer`` is a scope strictly enclosing ``scope``."""
    s = scope.parent if scope is not None else None
    while s is not None:
        if s is outer or (s.kind == "module" and outer.kind == "module"):
            return True  # (a module's blocks each hold their own module scope object)
        s = s.parent
    return False


class TpuDimensionSemanticsInvalid(PythonRule):
    """A `dimension_semantics` entry that Mosaic cannot parse, compiled for TPU.

    The Mosaic TPU lowering writes each entry of `pltpu.CompilerParams(dimension_semantics=...)`
    into the attribute `#tpu.dimension_semantics<...>` and parses it
    (`_get_dimension_semantics`, `jax/_src/pallas/mosaic/lowering.py`); only 'parallel',
    'arbitrary', 'core_parallel' and 'subcore_parallel' parse (case matters), so 'Parallel',
    'sequential' or 'reduction' raise MLIRError "Unable to parse attribute". It runs when the
    launch is lowered for TPU; `interpret=True` does not read it. Use `pltpu.PARALLEL` /
    `pltpu.ARBITRARY` or the lowercase strings ('arbitrary' for an axis that must run in order).
    """

    code = "PAL648"
    name = "tpu-dimension-semantics-invalid"
    record = "tpu-dimension-semantics-invalid"
    summary = "a dimension_semantics entry other than 'parallel', 'arbitrary', 'core_parallel', 'subcore_parallel', " \
              "lowered for TPU"
    label = "dimension_semantics"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode never reads dimension_semantics)
    launch_apis = frozenset({api.PALLAS_CALL})

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        ev, launch = hit.ev, hit.launch
        arg = tpu_params_arg(ev, launch, "dimension_semantics")
        if arg is None:
            return None
        bad, length = invalid_semantic(ev, arg)
        specs = read_launch_specs(ev, launch)
        if bad is None or specs is None or specs.grid_rank is None or length != specs.grid_rank:
            return None  # (a length other than the grid's is raised before the entries are parsed)
        if first_spec_defect(ev, launch) is not None or first_mapping_defect(ev, launch) is not None:
            return None  # (tracing, or the block mapping checks, fail first)
        # Underline the dimension_semantics= argument; where a helper builds the params for
        # its callers, the compiler_params= this launch passes; where the entry comes from a
        # constant of an enclosing scope (a module-level tuple read by a launch in a function),
        # the entry where that constant is written, the argument related.
        option = launch.options["compiler_params"]
        written = option if arg.params.frames else arg.where
        if not arg.params.frames and bad.where[1] is not arg.where[1] and _encloses(bad.where[1], launch.scope):
            written = bad.where
        span = ev.index.span(written[0], written[1])
        related = []
        for where, words in ((bad.where, f"{bad.text!r} written here"), (arg.where, "the dimension_semantics")):
            other = ev.index.span(where[0], where[1])
            if other.line != span.line and all(r.span.line != other.line for r in related):
                related.append(Related(other, words))
        error = ('MLIRError: Unable to parse attribute: error: "#tpu.dimension_semantics<'
                 f'{bad.text}>":1:26: expected ::mlir::tpu::DimensionSemantics to be one of: '
                 "parallel, arbitrary, core_parallel, subcore_parallel")
        headline = (f"dimension_semantics entry {bad.position} is {bad.text!r}: the Mosaic TPU lowering parses only "
                    f"{', '.join(repr(s) for s in DIMENSION_SEMANTICS)} (case matters)")
        return Report(error, headline, span=span, key=id(written[0]), related=tuple(related),
                      fixable=self.fix_for(bad.text) is not None)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        ev, launch = hit.ev, hit.launch
        arg = tpu_params_arg(ev, launch, "dimension_semantics")
        if arg is None:
            return []
        bad, _ = invalid_semantic(ev, arg)
        if bad is None:
            return []
        node, scope, _ = bad.where
        if not isinstance(node, ast.Constant) or hit.index.path_of(scope) not in (None, hit.index.path):
            return []  # (written elsewhere: a parameter's value, another module)
        new = self.fix_for(bad.text)
        edit = TextEdit(ev.index.span(node, scope), repr(new))
        if new == bad.text.lower():
            # (safe: the semantic the author wrote, spelled as Mosaic parses it)
            return [Fix(f"Write {new!r} (dimension semantics are lowercase)", (edit,), preferred=True, safe=True)]
        # (safe: 'arbitrary' runs the axis in order, which is right for any axis)
        return [Fix(f"Mark the axis 'arbitrary' instead of {bad.text!r} (it runs in order)", (edit,), preferred=True,
                    safe=True)]

    @staticmethod
    def fix_for(text: str) -> str | None:
        """The semantic to write instead: the same word in lowercase where that is one of the
        two plain ones ('Parallel' → 'parallel'); 'arbitrary' (in order, what Mosaic does when
        told nothing) for any other word ('sequential', 'reduction')."""
        lower = text.lower()
        return lower if lower in ("parallel", "arbitrary") else "arbitrary"
