"""PAL626: a BlockSpec index map that returns a float index, or an integer one that is not
int32/int64 (a narrow scalar-prefetch value)."""
from __future__ import annotations

import ast

from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import value_in_module
from ...analysis.kernel_values import kernel_values
from ...analysis.launch_specs import first_spec_defect, index_map_of, read_launch_specs, spec_tree
from ...analysis.rule_api import Hit, Report
from ...rules.launch_spec_fixes import floor_divide_index
from ...rules.launch_spec_rule import SpecDefectRule

_INDEX_DTYPES = ("int32", "int64")


class IndexMapNonInteger(SpecDefectRule):
    """An index map returns a float, or an integer that is not int32/int64, as an index.

    While the launch is traced, each BlockSpec's index map is traced with one int32 per grid
    axis (then the scalar-prefetch refs); every index it returns must be an int32/int64
    scalar. True division (`i / 2`), a Python float in the arithmetic (`i * 1.0`) or
    `jnp.floor` of a float all give a float; an element of an int16 (or int8, uint32...)
    scalar-prefetch operand, plus a Python int, stays int16. `BlockSpec.to_block_mapping`
    raises a `ValueError`, in every mode. Use integer arithmetic (`i // 2`) or cast
    (`.astype(jnp.int32)`, on the prefetch read itself).
    """

    code = "PAL626"
    name = "index-map-non-integer"
    record = "index-map-non-integer"
    summary = "a BlockSpec index map that returns a float (or a non-int32/int64 integer) index"
    label = "pl.BlockSpec"

    def error(self, hit, defect) -> str:
        return "ValueError: " + defect.detail

    def fix(self, hit, defect):
        return floor_divide_index(hit, defect)

    def check(self, hit: Hit) -> Report | None:
        report = super().check(hit)
        if report is not None or first_spec_defect(hit.ev, hit.launch) is not None:
            return report
        found = _narrow_index(hit)
        if found is None:
            return None
        node, scope, origin, position, dtype, reads, operand = found
        ev = hit.ev
        detail = (f"the index map for {origin} returns `{ast.unparse(node)}` as index {position}, an {dtype} "
                  "scalar (read from a scalar-prefetch operand); indices must be int32 or int64 scalars")
        error = (f"ValueError: Index map function <lambda> ... for {origin} must return integer scalars. "
                 f"Output[{position}] has type {dtype}[].")
        related = [Related(ev.index.span(operand[0], operand[1]), f"the {dtype} scalar-prefetch operand")] \
            if operand is not None else []
        return Report(error, detail[0].upper() + detail[1:], span=ev.index.span(node, scope), key=id(node),
                      related=tuple(related), fixable=bool(reads))

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        found = _narrow_index(hit) if first_spec_defect(hit.ev, hit.launch) is None else None
        if found is None:
            return super().fixes(hit, report)
        node, scope, origin, position, dtype, reads, _ = found
        jnp, imports = value_in_module(hit.ev.index, "{jax.numpy}")
        edits = [TextEdit(hit.ev.index.span(r, scope), f"{hit.ev.index.code_of(r, scope)}.astype({jnp}.int32)")
                 for r in reads]
        return [Fix(f"Cast the {dtype} scalar-prefetch read to int32 in the index map", (*edits, *imports),
                    safe=True)]


def _narrow_index(hit: Hit):
    """The first index an index map returns whose dtype the code says and is not int32/int64:
    (node, its scope, origin as JAX names it, position, dtype, the prefetch reads it is made of,
    the operand passed), or None."""
    ev = hit.ev
    specs = read_launch_specs(ev, hit.launch)
    if specs is None or not specs.num_scalar_prefetch or specs.grid_rank is None:
        return None
    kv = kernel_values(ev, hit.launch)
    if kv is None:
        return None
    prefetch = sorted((f for f in kv.refs.values() if f.role == "prefetch"), key=lambda f: f.position)
    for role, option in (("in", specs.in_specs), ("out", specs.out_specs)):
        if option is None:
            continue
        leaves: list = []
        if not spec_tree(ev, option, role, leaves).known:
            return None
        for entry in leaves:
            fn = index_map_of(ev, entry.call)
            if fn is None:
                continue
            params = [p[0] for p in fn.scope.params if p[2] in ("posonly", "normal")]
            refs = dict(zip(params[specs.grid_rank:], prefetch))
            grid = set(params[:specs.grid_rank])
            node = fn.scope.node
            returned = [node.body] if isinstance(node, ast.Lambda) else list(fn.scope.returns)
            if len(returned) != 1 or returned[0] is None:
                continue
            body = returned[0]
            elements = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
            for position, element in enumerate(elements):
                reads: list[ast.AST] = []
                dtype = _index_dtype(ev, element, fn.scope, refs, grid, reads)
                if dtype is not None and dtype not in _INDEX_DTYPES:
                    origin = f"args[{specs.num_scalar_prefetch + entry.position}]" if role == "in" \
                        else f"outputs[{entry.position}]"
                    operand = next((refs[r.value.id].source for r in reads  # type: ignore[attr-defined]
                                    if refs[r.value.id].source is not None), None)  # type: ignore[attr-defined]
                    return element, fn.scope, origin, position, dtype, reads, operand
    return None


def _index_dtype(ev, node: ast.AST, scope, refs: dict, grid: set, reads: list) -> str | None:
    """The dtype of an index expression: a scalar-prefetch read has its operand's, a grid index
    is int32, a Python int takes the other operand's (a weak type), a cast its target."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in refs:
        reads.append(node)
        return refs[node.value.id].dtype
    if isinstance(node, ast.Name) and node.id in grid:
        return "int32"
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        sides = []
        for side in (node.left, node.right):
            c = ev.const(side, scope)
            if isinstance(c, int) and not isinstance(c, bool):
                sides.append("weak")
            else:
                sides.append(_index_dtype(ev, side, scope, refs, grid, reads))
        if None in sides:
            return None
        strong = {s for s in sides if s != "weak"}
        return strong.pop() if len(strong) == 1 else None
    return None
