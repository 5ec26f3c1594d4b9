"""PAL641: a rank-1 VMEM block that is not a legal 1-D Mosaic TPU tile."""
from __future__ import annotations

import ast
import dataclasses

from ...analysis import api
from ...analysis.findings import Fix, TextEdit
from ...analysis.rule_api import Hit, Report
from ...analysis.scopes import Scope
from ...analysis.shapes import array_shape, dimension
from ...analysis.tpu_blocks import (CHUNK, LANES, ONE_D_TILING, TpuBlock, first_mapping_defect, tpu_block_mappings,
                                    written_block_shape)
from ...rules.tpu_block_rule import TpuBlockTilingRule

# Bits per element as Mosaic stores a 1-D block (bool is kept as int32), for the dtypes whose
# tile the lowering's message names; another dtype: no size is proposed.
_BITS = {"float32": 32, "int32": 32, "uint32": 32, "bool": 32, "bfloat16": 16, "float16": 16, "int16": 16,
         "uint16": 16, "int8": 8, "uint8": 8}
_BLOCKED = f"{api.PL}.Blocked"


def legal_1d_size(size: int, length: int, dtype: str | None) -> bool:
    """Whether `_check_block_mappings` accepts a rank-1 block of ``size`` over ``length`` elements
    of ``dtype`` (unknown dtype: only the length or a multiple of 1024, whose legality needs no tile)."""
    if size == length or size % CHUNK == 0:
        return True
    bits = _BITS.get(dtype or "")
    return bits is not None and size & (size - 1) == 0 and size >= LANES * (32 // bits)


def smallest_legal_size(size: int, blocks: list[TpuBlock]) -> int | None:
    """The smallest N >= ``size`` that divides every block's array length and is a legal 1-D block
    for each of them (None when the blocks' lengths differ: one N cannot be the whole of each)."""
    lengths = {b.array[0] for b in blocks if b.array}
    if len(lengths) != 1:
        return None
    (length,) = lengths
    for n in range(size, length + 1):
        if length % n == 0 and all(legal_1d_size(n, length, b.dtype) for b in blocks):
            return n
    return None


class TpuBlock1DTiling(TpuBlockTilingRule):
    """A rank-1 BlockSpec whose size is not a legal 1-D tile, compiled for TPU.

    `_check_block_mappings` in the Mosaic TPU lowering accepts a rank-1 VMEM block of b
    elements over an array of n only if b == n, b is a multiple of 1024 (8 sublanes x 128
    lanes), or b is a power of 2 of at least 128 * (32 // bitwidth): 128 for 32-bit dtypes,
    256 for 16-bit, 512 for 8-bit. It runs when the launch is lowered for TPU;
    `interpret=True` does not check. Use the whole array, a multiple of 1024, or a large
    enough power of 2.
    """

    code = "PAL641"
    name = "tpu-block-1d-tiling"
    record = "tpu-block-1d-tiling"
    summary = ("a rank-1 VMEM block that is neither the array's length, a multiple of 1024, nor a power of 2 "
               "of at least the dtype's tile, lowered for TPU")
    defect_kind = ONE_D_TILING

    def error(self, block: TpuBlock) -> str:
        return ("ValueError: The Pallas TPU lowering currently requires that rank 1 block shapes, either 1) the "
                "first (and only) dimension of the block shape is equal to the first (and only) dimension of the "
                "array shape, or 2) ... a multiple of 1024, or 3) ... a power of 2 and at least the tiling size "
                f"... Block spec for {block.origin} in pallas_call ... has block shape {block.block_words()}, "
                f"array shape ({block.array[0] if block.array else '?'},) ...")

    def check(self, hit: Hit) -> Report | None:
        report = super().check(hit)
        if report is None:
            return None
        return dataclasses.replace(report, fixable=self._resize(hit) is not None)

    def fixes(self, hit: Hit, report: Report) -> list[Fix]:
        got = self._resize(hit)
        if got is None:
            return []
        size, new, length, edits = got
        # (unsafe: the grid follows the block, so every element is still covered, but the kernel
        # now sees blocks of another size: whatever it computes per block changes)
        return [Fix(f"Use a block of {new} elements",
                    tuple(edits), safe=False)]

    def _resize(self, hit: Hit) -> tuple[int, int, int, list[TextEdit]] | None:
        """(the block size, the new one, the array's length, the edits) where the block's size is
        one int written in this module (in the block shape, or a module constant) and the grid
        is ``(length // size,)`` with that same constant or literal: editing it keeps the grid
        covering the array. None otherwise."""
        ev = hit.ev
        defect = first_mapping_defect(ev, hit.launch)
        if defect is None or defect.kind != ONE_D_TILING:
            return None
        first = defect.block
        size_node = _size_node(hit, first)
        if size_node is None or first.dims is None or first.dims[0].size is None:
            return None
        size = first.dims[0].size
        # Every rank-1 block written with that same int moves with it: each must accept the new size.
        sharing: list = []
        literal_edits: list[ast.AST] = []
        for block in tpu_block_mappings(ev, hit.launch) or []:
            if block.dims is None or len(block.dims) != 1 or block.dims[0].size != size:
                continue
            spelled = _size_node(hit, block)
            if spelled is None:
                return None  # (a block of the same size spelled otherwise would not follow)
            if spelled[0] is not size_node[0] and not (spelled[2] and size_node[2]):
                return None  # (a constant on one side, a literal on the other)
            sharing.append(block)
            if spelled[2] and all(spelled[0] is not e for e in literal_edits):
                literal_edits.append(spelled[0])
        new = smallest_legal_size(size, sharing)
        if new is None or new == size:
            return None
        length = first.array[0] if first.array else None
        grid_divisor = self._grid_divisor(hit, size, length)
        if grid_divisor is None:
            return None
        node, scope = grid_divisor
        nodes: list[tuple[ast.AST, Scope]]
        if size_node[2]:  # literals: the block's and the grid's are each edited
            if isinstance(node, ast.Name):
                return None
            nodes = [(n, size_node[1]) for n in literal_edits] + [(node, scope)]
        else:
            if not isinstance(node, ast.Name) or _size_node_of_name(hit, node, scope) is None \
                    or _size_node_of_name(hit, node, scope)[0] is not size_node[0]:  # type: ignore[index]
                return None
            nodes = [(size_node[0], size_node[1])]
        edits = [TextEdit(hit.span_of(n, s), str(new)) for n, s in nodes]
        return size, new, length, edits  # type: ignore[return-value]

    @staticmethod
    def _grid_divisor(hit: Hit, size: int, length: int | None) -> tuple[ast.AST, Scope] | None:
        """The right operand of a one-entry grid ``(length // size,)`` written in this module."""
        ev = hit.ev
        grid = hit.launch.options.get("grid")
        if grid is None or length is None:
            return None
        node, scope, order = grid
        if hit.index.path_of(scope) != hit.index.path:
            return None
        if not isinstance(node, (ast.Tuple, ast.List)) or len(node.elts) != 1:
            return None
        entry = node.elts[0]
        if not (isinstance(entry, ast.BinOp) and isinstance(entry.op, ast.FloorDiv)):
            return None
        if _length_of(hit, entry.left, scope, order) != length or dimension(ev, entry.right, scope, order) != size:
            return None
        return entry.right, scope


def _length_of(hit: Hit, node: ast.AST, scope: Scope, order) -> int | None:
    """The int a grid's dividend spells: a constant (``N``), or ``x.shape[0]`` of a 1-D array
    whose shape is known."""
    got = dimension(hit.ev, node, scope, order)
    if got is not None:
        return got
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and hit.ev.const(node.slice, scope, order) in (0, -1):
        shape = array_shape(hit.ev, node.value.value, scope, order)
        return shape[0] if shape is not None and len(shape) == 1 else None
    return None


def _size_node(hit: Hit, block: TpuBlock) -> tuple[ast.AST, Scope, bool] | None:
    """Where the rank-1 block's size is written as one int in this module: (the literal in the
    block shape, its scope, True), or (the literal a module constant is bound to, its scope, False)."""
    ev = hit.ev
    dims = written_block_shape(ev, block)
    if dims is None or len(dims) != 1 or block.entry is None:
        return None
    call = block.entry.call
    site = call.site
    with ev.within(call.frames):
        node: ast.AST = dims[0]
        if isinstance(node, ast.Call):  # pl.Blocked(n)
            blocked = ev.called_api(ev.value(node, site.scope, call.order)) == _BLOCKED
            if not blocked or node.keywords or len(node.args) != 1:
                return None
            node = node.args[0]
        if _is_int(node):
            return (node, site.scope, True) if hit.index.path_of(site.scope) == hit.index.path else None
        if isinstance(node, ast.Name):
            return _size_node_of_name(hit, node, site.scope)
    return None


def _size_node_of_name(hit: Hit, name: ast.Name, scope: Scope) -> tuple[ast.AST, Scope, bool] | None:
    """The int literal a module constant of this module is bound to, once (``BLOCK = 100``,
    ``N, BLOCK = 4096, 100``)."""
    binding = hit.ev.lookup(name.id, scope)
    if binding is None or binding.scope is None or binding.node is None or binding.scope.kind != "module":
        return None
    owner = hit.index.index_of(binding.scope)
    if owner.path != hit.index.path or len(binding.scope.bindings.get(name.id, ())) != 1 \
            or sum(name.id in bp.bound_names for _, bp in owner.parses) != 1:
        return None  # (another module's, or bound more than once: not one literal to edit)
    node: ast.AST | None = None
    if binding.kind == "assign":
        node = binding.node
    elif binding.kind == "unpack" and isinstance(binding.node, ast.Tuple) \
            and 0 <= binding.index < len(binding.node.elts):
        node = binding.node.elts[binding.index]
    return (node, binding.scope, False) if node is not None and _is_int(node) else None


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)
