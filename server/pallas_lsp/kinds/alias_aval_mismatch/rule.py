"""PAL603: an ``input_output_aliases`` pair whose operand and output differ in shape or dtype."""
from __future__ import annotations

from typing import TypeVar

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.kernel_values import array_dtype_of, operand_dtypes
from ...analysis.launch_signature import alias_pairs, aval_words, flat_operand_leaves, flat_output_leaves
from ...analysis.rule_api import Hit, Report
from ...analysis.shapes import array_shape
from ...rules.base import PythonRule


class AliasAvalMismatch(PythonRule):
    """An `input_output_aliases` pair joins an operand and an output of different shape or dtype.

    Right after it traces the kernel, `pl.pallas_call` checks each `{input: output}` pair of
    `input_output_aliases`, in every mode: the aliased operand (indexed among the flattened
    operands, scalar-prefetch operands first) and output (indexed in the flattened `out_shape`)
    must have the same shape and dtype, since the output reuses the operand's buffer. Otherwise
    it raises `ValueError: input_output_aliases contains the mapping '0:0' referring to input[0]
    with abstract value float32[16,128] and to output with a different abstract value
    bfloat16[16,128].` Alias the operand whose shape and dtype equal the output's, or drop the
    alias. Checked only where the code spells out both shapes or both dtypes.
    """

    code = "PAL603"
    name = "alias-aval-mismatch"
    record = "alias-aval-mismatch"
    summary = "an input_output_aliases pair whose operand and output differ in shape or dtype"
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
        per_call, outputs = flat_operand_leaves(ev, hit.launch), flat_output_leaves(ev, hit.launch)
        if per_call is None:
            # Operands whose dtype the code says are arrays, one leaf each, even where their
            # shape is not said (``jnp.array([3, 1], jnp.int32)`` through ``launch(*inputs())``).
            typed = operand_dtypes(ev, hit.launch)
            if typed is not None and all(d is not None and w is not None for d, w in typed):
                per_call = [[w for _, w in typed]]  # type: ignore[misc]
        if per_call is None or outputs is None:
            return None
        for i, o in pairs:  # (JAX checks the pairs in order and stops at the first bad one)
            if any(i not in range(len(leaves)) for leaves in per_call) or o not in range(len(outputs)):
                return None  # (an index out of range: alias-index-out-of-range's error)
            out_shape, out_dtype = array_shape(ev, *outputs[o]), array_dtype_of(ev, *outputs[o])
            in_shape = _agreed([array_shape(ev, *leaves[i]) for leaves in per_call])
            # (operand dtypes through ``launch(*inputs())`` and ``jax.jit(f).trace(*IN)`` too)
            in_dtype = _agreed([array_dtype_of(ev, *leaves[i]) for leaves in per_call])
            shape_differs = in_shape is not None and out_shape is not None and in_shape != out_shape
            dtype_differs = in_dtype is not None and out_dtype is not None and in_dtype != out_dtype
            if not (shape_differs or dtype_differs):
                continue
            error = (f"ValueError: input_output_aliases contains the mapping '{i}:{o}' referring to input[{i}] "
                     f"with abstract value {aval_words(in_shape, in_dtype)} and to output with a different "
                     f"abstract value {aval_words(out_shape, out_dtype)}.")
            differs = " and ".join(w for w, d in (("shape", shape_differs), ("dtype", dtype_differs)) if d)
            headline = (f"`input_output_aliases` maps operand {i} ({aval_words(in_shape, in_dtype)}) to output "
                        f"{o} ({aval_words(out_shape, out_dtype)}): an alias needs the same {differs}")
            related = [Related(hit.span_of(outputs[o][0], outputs[o][1]), f"output {o} is declared here"),
                       Related(hit.span_of(per_call[0][i][0], per_call[0][i][1]),
                               f"operand {i} (flattened, scalar-prefetch operands first) is passed here")]
            return Report(error, headline, span=hit.span_of(node, scope), key=("alias-aval", id(node)),
                          related=tuple(related), fixable=False)
        return None


_T = TypeVar("_T")


def _agreed(facts: list[_T | None]) -> _T | None:
    """The one fact every application agrees on, or None."""
    return facts[0] if facts and facts[0] is not None and all(f == facts[0] for f in facts) else None


__all__ = ["AliasAvalMismatch"]
