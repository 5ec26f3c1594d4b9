"""Mechanical fixes of a launch's spec defects (``analysis/launch_specs.py``), each one that ran
clean under jax 0.12.0.1 (KINDS.md): a bare ``in_specs`` spec wrapped in a list, a
``pl.BlockSpec(index_map, block_shape)`` put in the documented order, and true division in an
index map made floor division."""
from __future__ import annotations

import ast

from ..analysis.findings import Fix
from ..analysis.fixes import call_text, cst_edits  # (cst_edits: loaded on first use)
from ..analysis.launch_specs import SpecDefect, in_specs_fit_in_a_list
from ..analysis.rule_api import Hit


def _replace(hit: Hit, node: ast.AST, scope, code: str) -> tuple | None:
    """The edit that writes ``code`` for ``node``, in the module that holds it; None where the
    edit cannot be made or would not parse."""
    index = hit.ev.index
    owner = index.index_of(scope)
    try:
        edit = cst_edits.replace_expression(owner.text, owner.blocks, index.span(node, scope), code)
    except cst_edits.EditFailed:
        return None
    return (edit,) if cst_edits.edits_parse(owner.text, owner.blocks, (edit,)) else None


def wrap_in_specs(hit: Hit, defect: SpecDefect) -> Fix | None:
    """``in_specs=spec`` → ``in_specs=[spec]``, where the launch has one operand (after the
    scalar-prefetch ones) that the spec (or dict of specs) then matches."""
    node, scope, _ = defect.where
    if not in_specs_fit_in_a_list(hit.ev, hit.launch):
        return None
    edits = _replace(hit, node, scope, f"[{hit.ev.index.code_of(node, scope)}]")
    if edits is None:
        return None
    return Fix("Wrap `in_specs` in a list (one entry per operand)", edits, preferred=True, safe=True)


def swap_block_spec_arguments(hit: Hit, defect: SpecDefect) -> Fix | None:
    """``pl.BlockSpec(index_map, block_shape)`` → ``pl.BlockSpec(block_shape, index_map)``, where
    the call is written for this launch (a helper's call may serve callers that pass the
    arguments the other way round)."""
    spec = defect.spec
    if spec is None or spec.made_in_helper:
        return None
    site = spec.call.site
    call = site.node
    if site.has_star or len(call.args) < 2 or any(k.arg in ("block_shape", "index_map") for k in call.keywords):
        return None
    code = hit.ev.index.code_of
    first, second = call.args[0], call.args[1]
    new = call_text(hit.ev.index, site, first=[code(second, site.scope), code(first, site.scope)],
                    drop=[first, second])
    edits = _replace(hit, call, site.scope, new)
    if edits is None:
        return None
    return Fix("Swap the BlockSpec's arguments to (block_shape, index_map)", edits, preferred=True, safe=True)


def floor_divide_index(hit: Hit, defect: SpecDefect) -> Fix | None:
    """``i / 2`` → ``i // 2`` where the float index is that true division itself. Not safe:
    flooring is one reading of what the map meant (rounding up is another)."""
    node, scope, _ = defect.where
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)) or not defect.int_division:
        return None
    code = hit.ev.index.code_of
    edits = _replace(hit, node, scope, f"{code(node.left, scope)} // {code(node.right, scope)}")
    if edits is None:
        return None
    return Fix("Use floor division `//` for the block index", edits, preferred=True, safe=False)
