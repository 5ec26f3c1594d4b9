"""The block mappings of a ``pl.pallas_call`` as the Mosaic TPU lowering checks them.

Before it lowers the kernel, ``_check_block_mappings`` (``jax/_src/pallas/mosaic/lowering.py``)
walks the launch's block mappings, inputs first (``args[i]`` counting the scalar-prefetch
operands, which have no mapping) then outputs, and raises for the first one it refuses: a
rank-0 block, a windowed block in ``ANY``/``HBM``, a block of rank >= 2 whose last two dims are
neither multiples of (8, 128) nor the array's, a rank-1 block that is not a legal 1-D tile.
Trivially windowed SMEM blocks are skipped. This module reads each mapping as far as the code
spells it (block dims, array shape, dtype, memory space) and says which check it surely fails;
a fact the code does not say leaves the verdict unknown, and a rule built on it stays quiet.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import api
from .evaluate import CallVal, Const, Evaluator, Ext, Order, TupleVal, launch_fact
from .launch_signature import (Leaf, array_dtype, flat_operand_leaves, flat_output_leaves, grid_spec_call,
                               spec_keyword)
from .launch_specs import SpecEntry, read_launch_specs, spec_tree
from .scopes import Scope
from .shapes import Shape, array_shape, block_covers, dimension

Where = tuple[ast.AST, Scope, Order]

_BLOCK_SPEC = f"{api.PL}.BlockSpec"
_SQUEEZED = {f"{api.PL}.Squeezed", f"{api.PL}.squeezed"}
_BLOCKED = f"{api.PL}.Blocked"
_BUFFERED = f"{api.PL}.Buffered"
# The (sublane, lane) tile the last two dims of a block of rank >= 2 must divide into.
SUBLANES, LANES = 8, 128

# The verdicts of one block mapping, in the order ``_check_block_mappings`` tests them.
FOREIGN_SPACE = "tpu-foreign-memory-space"
RANK0 = "tpu-block-rank0"
ANY_WINDOWED = "tpu-any-memory-windowed"
TILING = "tpu-block-tiling"
ONE_D_TILING = "tpu-block-1d-tiling"

# Every TPU generation's vreg is 8 sublanes by 128 lanes (``tpu_info``), so a rank-1 block that
# is a multiple of 8 * 128 always passes.
CHUNK = SUBLANES * LANES
# Bits per element as Mosaic stores it (bool is kept as int32 memrefs).
_BITS = {"float32": 32, "int32": 32, "uint32": 32, "bool": 32, "bfloat16": 16, "float16": 16, "int16": 16,
         "uint16": 16, "bool_": 32, "int8": 8, "uint8": 8, "float8_e4m3fn": 8, "float8_e5m2": 8, "int4": 4, "uint4": 4}


@dataclass
class BlockDim:
    """One entry of a block shape: its size (a squeezed dim is 1), or None when not known."""

    size: int | None
    squeezed: bool = False


@dataclass
class TpuBlock:
    """One block mapping of a pallas_call: the BlockSpec, what it maps, and where it is written."""

    entry: SpecEntry | None  # None: the default whole-array block of an operand or output with no spec
    where: Where  # what to underline: the BlockSpec (or where a helper's spec is used)
    origin: str  # as the message names it: ``args[1]``, ``outputs[0]``
    dims: list[BlockDim] | None  # None: no block shape (the whole array), or not readable
    has_block_shape: bool
    array: Shape | None
    dtype: str | None
    memory_space: str | None  # "default", "vmem", "smem", "any", "hbm", or None when not known
    related: list[tuple[Where, str]] = field(default_factory=list)

    def block_words(self) -> str:
        if self.dims is None:
            return "?"
        parts = ["None" if d.squeezed else ("?" if d.size is None else str(d.size)) for d in self.dims]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


@dataclass
class BlockDefect:
    """The check a block mapping surely fails: ``kind`` the error kind's slug, ``detail`` the
    numbers to say."""

    kind: str
    block: TpuBlock
    detail: str


def written_block_shape(ev: Evaluator, block: TpuBlock) -> list[ast.expr] | None:
    """The dims of a block's BlockSpec as written there (``(TM, 256)``: the two expressions), for
    fixes that edit one; None where the spec is a default one or its shape is not a literal
    tuple or list. Read in the frames the spec was made in (a helper's parameters)."""
    if block.entry is None:
        return None
    call = block.entry.call
    site = call.site
    with ev.within(call.frames):
        shape = ev.kwarg(site, "block_shape")
        if shape is None and not site.has_star:
            shape = ev.posarg(site, 0)
    if not isinstance(shape, (ast.Tuple, ast.List)):
        return None
    return list(shape.elts)


@launch_fact
def tpu_blocks(ev: Evaluator, launch) -> list[TpuBlock] | None:
    """The launch's BlockSpecs in the order the lowering checks them (None for a launch whose
    specs cannot be read; specs the code does not write, the default whole-array blocks, are
    not listed)."""
    specs = read_launch_specs(ev, launch)
    if specs is None or specs.num_scalar_prefetch is None:
        return None
    operands = _agreed_leaves(ev, launch)
    outputs = flat_output_leaves(ev, launch)
    blocks: list[TpuBlock] = []
    for role, option in (("in", specs.in_specs), ("out", specs.out_specs)):
        if option is None:
            continue
        leaves: list[SpecEntry] = []
        tree = spec_tree(ev, option, role, leaves)
        if not tree.known:
            return None
        for entry in leaves:
            if role == "in":
                position = specs.num_scalar_prefetch + entry.position
                origin = f"args[{position}]"
                value = operands[position] if operands is not None and position < len(operands) else None
            else:
                single = tree.kind == "leaf"
                origin = "outputs" if single else f"outputs[{entry.position}]"
                value = outputs[entry.position] if outputs is not None and entry.position < len(outputs) else None
            blocks.append(_block(ev, entry, origin, value))
    return blocks


@launch_fact
def tpu_block_mappings(ev: Evaluator, launch) -> list[TpuBlock] | None:
    """Every block mapping the lowering checks, in its order: the written BlockSpecs, and for
    ``in_specs`` / ``out_specs`` not given, the default whole-array block of each operand /
    output in the default (VMEM) space (where the launch's operands or outputs are known)."""
    specs = read_launch_specs(ev, launch)
    written = tpu_blocks(ev, launch)
    if specs is None or written is None or specs.num_scalar_prefetch is None:
        return None
    ins = [b for b in written if b.entry is not None and b.entry.role == "in"]
    outs = [b for b in written if b.entry is not None and b.entry.role == "out"]
    if specs.in_specs is None:
        operands = _agreed_leaves(ev, launch)
        if operands is None:
            return None
        call = launch.site
        ins = [_default_block(ev, (call.node, call.scope, None), f"args[{i}]", value)
               for i, value in enumerate(operands) if i >= specs.num_scalar_prefetch]
    if specs.out_specs is None:
        outputs = flat_output_leaves(ev, launch)
        option = launch.options.get("out_shape")
        if outputs is None or option is None:
            return None
        single = len(outputs) == 1 and not isinstance(option[0], (ast.Tuple, ast.List))
        outs = [_default_block(ev, option, "outputs" if single else f"outputs[{i}]", value)
                for i, value in enumerate(outputs)]
    return ins + outs


def _default_block(ev: Evaluator, where: Where, origin: str, value: Leaf) -> TpuBlock:
    array = array_shape(ev, *value)  # type: ignore[arg-type]
    dtype = array_dtype(ev, *value)  # type: ignore[arg-type]
    return TpuBlock(None, where, origin, None, False, array, dtype, "default", [(value, "the array it maps")])


def _agreed_leaves(ev: Evaluator, launch) -> list[Leaf] | None:
    """The flattened operands of the launch's one application (several applications: only
    where they pass arrays of one shape each, the first standing for all)."""
    per_call = flat_operand_leaves(ev, launch)
    if not per_call:
        return None
    first = per_call[0]
    for other in per_call[1:]:
        if len(other) != len(first):
            return None
        for a, b in zip(first, other):
            sa, sb = array_shape(ev, *a), array_shape(ev, *b)  # type: ignore[arg-type]
            if sa is None or sa != sb:
                return None
    return first


def _block(ev: Evaluator, entry: SpecEntry, origin: str, value: Where | None) -> TpuBlock:
    call = entry.call
    where: Where = entry.item if entry.made_in_helper else (call.site.node, call.site.scope, call.order)
    with ev.within(call.frames):
        dims, has_block = _dims(ev, call)
        space = _memory_space(ev, call)
    array = array_shape(ev, *value) if value is not None else None  # type: ignore[arg-type]
    dtype = array_dtype(ev, *value) if value is not None else None  # type: ignore[arg-type]
    related = [(value, "the array it maps")] if value is not None else []
    return TpuBlock(entry, where, origin, dims, has_block, array, dtype, space, related)


def _spec_arg(ev: Evaluator, call: CallVal, position: int, keyword: str) -> ast.expr | None:
    site = call.site
    node = ev.kwarg(site, keyword)
    if node is None and not site.has_star:
        node = ev.posarg(site, position)
    return node


def _dims(ev: Evaluator, call: CallVal) -> tuple[list[BlockDim] | None, bool]:
    """The block shape's dims, and whether the spec has a block shape at all."""
    node = _spec_arg(ev, call, 0, "block_shape")
    scope, order = call.site.scope, call.order
    if node is None or _is_none(ev, node, scope, order):
        return None, False
    written, scope, order = _written(ev, node, scope, order)
    if not isinstance(written, (ast.Tuple, ast.List)):
        v = ev.value(written, scope, order)
        if isinstance(v, TupleVal):  # (a helper's parameter bound to a tuple its caller writes)
            if any(isinstance(n, ast.Starred) for n, _, _ in v.items):
                return None, True
            with ev.within(v.frames):
                return [_dim(ev, n, s, o) for n, s, o in v.items], True
        c = ev.const(written, scope, order)
        if isinstance(c, tuple) and all(isinstance(d, int) or d is None for d in c):
            return [BlockDim(1, True) if d is None else BlockDim(d) for d in c], True
        return None, True
    if any(isinstance(e, ast.Starred) for e in written.elts):
        return None, True
    return [_dim(ev, e, scope, order) for e in written.elts], True


def _shape_dimension(ev: Evaluator, node: ast.AST, scope: Scope, order: Order, depth: int = 0) -> int | None:
    """An int the code spells out (``shapes.dimension``), also read from a known array shape:
    ``x.shape[0]``, or ``rows`` of ``rows, cols = x.shape``, and integer arithmetic on those."""
    d = dimension(ev, node, scope, order)
    if d is not None or depth > 6:
        return d
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_ARITHMETIC:
        a = _shape_dimension(ev, node.left, scope, order, depth + 1)
        b = _shape_dimension(ev, node.right, scope, order, depth + 1)
        return _INT_ARITHMETIC[type(node.op)](a, b) if a is not None and b is not None else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        k = ev.const(node.slice, scope, order)
        shape = array_shape(ev, node.value.value, scope, order)
        if isinstance(k, int) and not isinstance(k, bool) and shape is not None and -len(shape) <= k < len(shape):
            return shape[k]
        return None
    if isinstance(node, ast.Name):
        bound = ev.lookup(node.id, scope, order)
        if bound is not None and bound.kind == "param" and bound.scope is not None:
            return _param_dimension(ev, bound.scope, node.id, depth + 1)
        if bound is None or bound.scope is None or bound.node is None:
            return None
        if bound.kind == "unpack" and isinstance(bound.node, ast.Attribute) and bound.node.attr == "shape" \
                and bound.index >= 0:
            shape = array_shape(ev, bound.node.value, bound.scope, ev.order_of(bound))
            return shape[bound.index] if shape is not None and bound.index < len(shape) else None
        if bound.kind == "assign":
            return _shape_dimension(ev, bound.node, bound.scope, ev.order_of(bound), depth + 1)
    return None


def _param_dimension(ev: Evaluator, fn: Scope, name: str, depth: int) -> int | None:
    """The int every call of ``fn`` fills parameter ``name`` with, its default where a call
    leaves it out (``relu(x)`` of ``def relu(x, chunk=128)``, a ``jax.jit`` static argument);
    None when the calls disagree, one cannot be read, or there is none."""
    found: set[int] = set()
    for inv in ev.callers_of(fn):
        bound = ev.bind_param(inv, name)
        if bound is None or bound.node is None or bound.scope is None or bound.traced:
            return None
        got = _shape_dimension(ev, bound.node, bound.scope, bound.order, depth + 1)
        if got is None:
            return None
        found.add(got)
    return found.pop() if len(found) == 1 else None


_INT_ARITHMETIC = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
                   ast.FloorDiv: lambda a, b: a // b if b else None}


def _is_none(ev: Evaluator, node: ast.AST, scope: Scope, order: Order) -> bool:
    v = ev.value(node, scope, order)
    return isinstance(v, Const) and v.value is None


def _written(ev: Evaluator, node: ast.AST, scope: Scope, order: Order) -> Where:
    """The tuple a name stands for where it is bound once by assignment."""
    for _ in range(4):
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            break
        node, scope, order = b.node, b.scope, ev.order_of(b)
    return node, scope, order


def _dim(ev: Evaluator, node: ast.expr, scope: Scope, order: Order) -> BlockDim:
    if isinstance(node, ast.Constant) and node.value is None:
        return BlockDim(1, True)
    d = _shape_dimension(ev, node, scope, order)
    if d is not None:
        return BlockDim(d)
    v = ev.value(node, scope, order)
    if isinstance(v, Const) and v.value is None:
        return BlockDim(1, True)
    if isinstance(v, CallVal):
        name = ev.called_api(v)
        if name in _SQUEEZED:
            return BlockDim(1, True)
        if name == _BLOCKED:
            size = _spec_arg(ev, v, 0, "block_size")
            got = dimension(ev, size, v.site.scope, v.order) if size is not None else None
            return BlockDim(got)
    return BlockDim(None)


_SPACES = {f"{api.PLTPU}.VMEM": "vmem", f"{api.PLTPU}.MemorySpace.VMEM": "vmem",
           f"{api.PLTPU}.TPUMemorySpace.VMEM": "vmem",
           f"{api.PLTPU}.SMEM": "smem", f"{api.PLTPU}.MemorySpace.SMEM": "smem",
           f"{api.PLTPU}.TPUMemorySpace.SMEM": "smem",
           f"{api.PL}.ANY": "any", f"{api.PL}.MemorySpace.ANY": "any", f"{api.PLTPU}.ANY": "any",
           f"{api.PLTPU}.MemorySpace.ANY": "any", f"{api.PLTPU}.TPUMemorySpace.ANY": "any",
           f"{api.PLTPU}.HBM": "hbm", f"{api.PLTPU}.MemorySpace.HBM": "hbm"}


# Mosaic GPU's memory spaces: the TPU lowering's ``memory_space_to_tpu_memory_space`` has no case
# for them and raises "Invalid memory space".
FOREIGN_SPACES = frozenset({f"{api.PLGPU}.SMEM", f"{api.PLGPU}.GMEM", f"{api.PLGPU}.TMEM"})


def _memory_space(ev: Evaluator, call: CallVal) -> str | None:
    node = ev.kwarg(call.site, "memory_space")
    if node is None:
        return None if call.site.has_star or len(call.site.node.args) > 3 else "default"
    v = ev.value(node, call.site.scope, call.order)
    if isinstance(v, Const) and v.value is None:
        return "default"
    if isinstance(v, Ext) and v.name in FOREIGN_SPACES:
        return "foreign"
    return _SPACES.get(v.name) if isinstance(v, Ext) else None


def memory_space_words(ev: Evaluator, block: TpuBlock) -> str:
    """The memory_space= argument as written (for messages)."""
    call = block.entry.call if block.entry is not None else None
    node = ev.kwarg(call.site, "memory_space") if call is not None else None
    return ev.index.code_of(node, call.site.scope) if node is not None and call is not None else "?"


def foreign_space_defect(block: TpuBlock) -> BlockDefect | None:
    """A BlockSpec in a Mosaic GPU memory space: the TPU lowering cannot map it."""
    if block.memory_space != "foreign":
        return None
    return BlockDefect(FOREIGN_SPACE, block, f"the BlockSpec for {block.origin} is in a Mosaic GPU memory space, "
                                             "which the Mosaic TPU lowering has no TPU memory space for")


def rank0_defect(block: TpuBlock) -> BlockDefect | None:
    """A block of rank 0 (a 0-d operand or output) outside SMEM: the lowering needs rank >= 1.
    (An SMEM block of a scalar is its whole array, a trivial window, which the check skips.)"""
    if block.memory_space not in ("default", "vmem", "any", "hbm") or block.array is None or len(block.array) != 0:
        return None
    if block.dims is not None and len(block.dims) != 0:
        return None  # (a block of another rank fails the rank check of tracing first)
    where = "the default block" if block.entry is None else "the block"
    return BlockDefect(RANK0, block, f"{where} for {block.origin}, a 0-d {block.dtype or ''} array in "
                                     f"{_SPACE_WORDS[block.memory_space]}, has rank 0: the Mosaic TPU lowering "
                                     "only takes blocks of rank >= 1 there (scalars go in SMEM)".replace("  ", " "))


_SPACE_WORDS = {"default": "VMEM (the default memory space)", "vmem": "VMEM", "any": "memory space ANY",
                "hbm": "HBM"}


def windowed(ev: Evaluator, block: TpuBlock) -> bool:
    """Whether the block surely has a non-trivial window (JAX's ``has_trivial_window`` is False):
    a known block dim differs from the array's, or its index map surely returns something other
    than literal zeros (a grid index, a non-zero number)."""
    if surely_windowed(block):
        return True
    if block.entry is None:
        return False
    return block_covers(ev, block.entry.call, block.array) is False


def any_windowed_defect(ev: Evaluator, block: TpuBlock) -> BlockDefect | None:
    """A block in ANY or HBM that is surely windowed: those refs are whole arrays moved by DMA."""
    if block.memory_space not in ("any", "hbm") or not windowed(ev, block):
        return None
    array = "(" + ", ".join(map(str, block.array)) + ")" if block.array is not None else "the array"
    shape = f"block {block.block_words()}" if block.dims is not None else "the block"
    return BlockDefect(ANY_WINDOWED, block, f"{shape} for {block.origin} over {array} in "
                                            f"{_SPACE_WORDS[block.memory_space]} is windowed: the Mosaic TPU lowering "
                                            "takes ANY/HBM blocks only as the whole array with an all-zero index map")


def foreign_scratch(ev: Evaluator, launch) -> Where | None:
    """The first ``scratch_shapes`` entry (of the launch or its grid spec) allocated in a Mosaic
    GPU memory space (``plgpu.SMEM(...)``), where the entries are spelled out."""
    opt = launch.options.get("scratch_shapes")
    if opt is None:
        spec = grid_spec_call(ev, launch)
        opt = spec_keyword(ev, spec, "scratch_shapes") if spec is not None else None
    if opt is None:
        return None
    v = ev.value(*opt)
    if not isinstance(v, TupleVal):
        return None
    with ev.within(v.frames):
        for item in v.items:
            got = ev.value(*item)
            if isinstance(got, CallVal) and ev.called_api(got) in FOREIGN_SPACES:
                return item
    return None


def block_checks(ev: Evaluator):
    """Every check ``_check_block_mappings`` makes of one block, in its order."""
    return (foreign_space_defect, rank0_defect, lambda block: any_windowed_defect(ev, block), tiling_defect,
            one_d_tiling_defect)


@launch_fact
def first_mapping_defect(ev: Evaluator, launch) -> BlockDefect | None:
    """The first block mapping (default blocks included) that surely fails one of the lowering's
    block checks, in the lowering's order."""
    blocks = tpu_block_mappings(ev, launch)
    if not blocks:
        return None
    checks = block_checks(ev)
    for block in blocks:
        if block.memory_space == "smem" and not windowed(ev, block):
            continue  # (maybe a trivial SMEM window, which the lowering skips)
        for check in checks:
            got = check(block)
            if got is not None:
                return got
    return None


def tiling_defect(block: TpuBlock) -> BlockDefect | None:
    """Whether a block of rank >= 2 in VMEM surely fails the (8, 128) rule: its last dim neither
    a multiple of 128 nor the array's, or its second-to-last neither a multiple of 8 nor the
    array's (a squeezed dim counts as 1)."""
    if block.memory_space not in ("default", "vmem") or block.dims is None or len(block.dims) < 2:
        return None
    if block.array is None or len(block.array) != len(block.dims):
        return None
    (sub, lane), (array_sub, array_lane) = block.dims[-2:], block.array[-2:]
    # A dim the code does not spell passes; the other one alone can still surely fail.
    lane_ok = lane.size is None or lane.size == array_lane or lane.size % LANES == 0
    sub_ok = sub.size is None or sub.size == array_sub or sub.size % SUBLANES == 0
    if lane_ok and sub_ok:
        return None
    array_words = "(" + ", ".join(map(str, block.array)) + ")"
    dtype = f"{block.dtype} " if block.dtype else ""
    bad = []
    if not sub_ok:
        what = "squeezed (size 1)" if sub.squeezed else str(sub.size)
        bad.append(f"the second-to-last dim {what} is neither a multiple of {SUBLANES} nor {array_sub}")
    if not lane_ok:
        bad.append(f"the last dim {lane.size} is neither a multiple of {LANES} nor {array_lane}")
    detail = (f"block {block.block_words()} for {block.origin}, a {dtype}{array_words} array: the Mosaic TPU "
              f"lowering needs the last two block dims divisible by {SUBLANES} and {LANES}, or equal to the "
              f"array's; {' and '.join(bad)}")
    return BlockDefect(TILING, block, detail)


def one_d_tiling_defect(block: TpuBlock) -> BlockDefect | None:
    """Whether a rank-1 VMEM block of b elements over an array of n surely fails: b != n, b not a
    multiple of 1024, and b not a power of 2 at least the dtype's tile (128 * (32 // bits)).
    With the dtype unknown a power of 2 is never flagged (its tile is not known)."""
    if block.memory_space not in ("default", "vmem") or block.dims is None or len(block.dims) != 1:
        return None
    if block.array is None or len(block.array) != 1:
        return None
    (dim,), (length,) = block.dims, block.array
    if dim.squeezed or dim.size is None or dim.size == length or dim.size % CHUNK == 0:
        return None
    size = dim.size
    power_of_2 = size > 0 and size & (size - 1) == 0
    bits = _BITS.get(block.dtype) if block.dtype else None
    if power_of_2 and (bits is None or size >= LANES * (32 // bits)):
        return None
    reasons = [f"not the array's length {length}", f"not a multiple of {CHUNK}"]
    if bits is None:
        reasons.append("not a power of 2")
    else:
        min_tile = LANES * (32 // bits)
        reasons.append(f"not a power of 2 at least {min_tile} (128 * (32 // {bits}) for {block.dtype})"
                       if power_of_2 else "not a power of 2")
    dtype = f"{block.dtype} " if block.dtype else ""
    detail = (f"rank-1 block {block.block_words()} for {block.origin}, a {dtype}({length},) array: the Mosaic TPU "
              f"lowering needs a 1-D block equal to the array, a multiple of {CHUNK}, or a large enough power of 2; "
              f"{size} is {', '.join(reasons)}")
    return BlockDefect(ONE_D_TILING, block, detail)


def surely_windowed(block: TpuBlock) -> bool:
    """Whether the block surely is not the whole array (some known block dim differs from the
    known array dim): a non-trivial window, which the lowering pipelines as the spec asks."""
    if block.dims is None or block.array is None or len(block.array) != len(block.dims):
        return False
    return any(d.size is not None and d.size != a for d, a in zip(block.dims, block.array))


def buffer_count(ev: Evaluator, block: TpuBlock) -> tuple[int, ast.AST, Scope] | None:
    """The int n of the spec's ``pipeline_mode=pl.Buffered(n)`` and the ``pl.Buffered`` call,
    where the code says it (None without one, with lookahead, or with a pair of counts, which
    fail or pass elsewhere)."""
    if block.entry is None:
        return None  # (a default block has no pipeline_mode)
    call = block.entry.call
    if call.site.has_star or len(call.site.node.args) > 3:
        return None
    with ev.within(call.frames):
        node = ev.kwarg(call.site, "pipeline_mode")
        if node is None:
            return None
        v = ev.value(node, call.site.scope, call.order)
        if not isinstance(v, CallVal) or ev.called_api(v) != _BUFFERED or v.site.has_star:
            return None
        lookahead = ev.kwarg(v.site, "use_lookahead")
        if lookahead is not None and ev.const(lookahead, v.site.scope, v.order) is not False:
            return None  # (lookahead raises NotImplementedError before the count is read)
        count = _spec_arg(ev, v, 0, "buffer_count")
        n = ev.const(count, v.site.scope, v.order) if count is not None else None
    if not isinstance(n, int) or isinstance(n, bool):
        return None
    return n, v.site.node, v.site.scope


def legal_tile(block_dim: int, array_dim: int, multiple: int) -> int | None:
    """The legal size nearest ``block_dim`` that still divides ``array_dim``: a multiple of
    ``multiple`` dividing it, or the whole dim (None when only the whole dim is left and it is
    what the caller would use anyway)."""
    candidates = [m for m in range(multiple, array_dim, multiple) if array_dim % m == 0]
    candidates.append(array_dim)
    return min(candidates, key=lambda m: (abs(m - block_dim), -m))


def first_block_defect(ev: Evaluator, launch, checks) -> BlockDefect | None:
    """The first block mapping, in the lowering's order, that surely fails one of ``checks``
    (functions of a TpuBlock answering a BlockDefect or None)."""
    blocks = tpu_blocks(ev, launch)
    if not blocks:
        return None
    for block in blocks:
        for check in checks:
            got = check(block)
            if got is not None:
                return got
    return None


__all__ = ["ANY_WINDOWED", "BlockDefect", "BlockDim", "CHUNK", "FOREIGN_SPACE", "FOREIGN_SPACES", "LANES",
           "ONE_D_TILING", "RANK0", "SUBLANES", "TILING", "TpuBlock", "any_windowed_defect", "block_checks",
           "first_block_defect", "first_mapping_defect", "foreign_scratch", "foreign_space_defect", "legal_tile",
           "memory_space_words", "one_d_tiling_defect", "rank0_defect", "surely_windowed", "tiling_defect",
           "tpu_block_mappings", "tpu_blocks", "windowed"]
