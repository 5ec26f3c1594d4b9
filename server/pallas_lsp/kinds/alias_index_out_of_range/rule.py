"""PAL602: an ``input_output_aliases`` index outside the launch's operands or outputs."""
from __future__ import annotations


from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.launch_signature import alias_pairs, flat_operand_count, flat_output_count
from ...analysis.rule_api import Hit, Report
from ...rules.base import PythonRule


class AliasIndexOutOfRange(PythonRule):
    """An `input_output_aliases` entry names an operand or output the launch does not have.

    `pl.pallas_call` checks each `{input: output}` pair of `input_output_aliases` right after
    it traces the kernel, in every mode: the input index counts the flattened operands as the
    launch is applied to them (the scalar-prefetch operands of a `PrefetchScalarGridSpec` are
    operands 0, 1, ...), the output index the flattened `out_shape`. An index outside those
    ranges raises `ValueError: input_output_aliases contains the mapping '1:0' with input
    index 1 outside the range [0, 1)`. Index the operands as they are passed. Checked only
    where the code spells out every operand and output.
    """

    code = "PAL602"
    name = "alias-index-out-of-range"
    record = "alias-index-out-of-range"
    summary = "an input_output_aliases index outside the launch's operands or outputs"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    label = "input_output_aliases"
    modes = frozenset(Mode)  # (checked while tracing: before any backend is involved)

    def applies(self, hit: Hit) -> bool:
        return True  # (tracing fails on any host, before the CPU host check of a compiled launch)

    def check(self, hit: Hit) -> Report | None:
        got = hit.launch_option("input_output_aliases")
        ev = hit.ev
        aliases = alias_pairs(ev, hit.launch, got)
        if aliases is None:
            return None
        pairs, node, scope = aliases.pairs, aliases.node, aliases.scope
        n_in, n_out = flat_operand_count(ev, hit.launch), flat_output_count(ev, hit.launch)
        for i, o in pairs:
            if n_in is not None and i not in range(n_in):
                side, index, bound = "input", i, n_in
            elif n_in is not None and n_out is not None and o not in range(n_out):
                side, index, bound = "output", o, n_out
            else:
                continue
            what = "operands" if side == "input" else "outputs"
            error = (f"ValueError: input_output_aliases contains the mapping '{i}:{o}' with {side} index {index} "
                     f"outside the range [0, {bound})")
            headline = (f"`input_output_aliases` maps {i}:{o}, but this launch has {bound} "
                        f"{what[:-1] if bound == 1 else what} (flattened, scalar-prefetch operands first)")
            return Report(error, headline, span=hit.span_of(node, scope), key=("alias", id(node)),
                          related=(Related(hit.span_of(hit.launch.site.node, hit.launch.site.scope),
                                           "the launch whose operands and outputs are counted"),), fixable=False)
        return None


__all__ = ["AliasIndexOutOfRange"]
