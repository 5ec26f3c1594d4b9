"""How much TPU VMEM and SMEM a compiled ``pl.pallas_call`` asks for, from what its code spells out.

The model was fixed on a real TPU v5e (jax 0.10.2, libtpu 0.0.42.1) by compiling small launches
with ``vmem_limit_bytes`` forced below their need, so that the compiler states its own figure
("Scoped allocation with size 16.25M and limit 1.00M"); the runs are kept in
``tests/data/chip/vmem_calibration.jsonl`` and a test holds this model to them. What the chip
showed:

* every windowed VMEM block (inputs and outputs alike) is allocated ``buffers`` times: the
  ``pipeline_mode=pl.Buffered(n)`` count, else 2 where the grid has more than one step and 1 for
  a one-step grid or a grid-less launch (whose operands are whole arrays in VMEM);
* a block's bytes are its dims with the second-to-last rounded up to 8 rows and the last to 128
  lanes, times the element size (bf16 (1000, 1000) took 1000 x 1024 x 2 bytes);
* a matmul in the kernel adds its float32 result (bm x bn x 4 bytes), allocated first, so a big
  one is the figure the compiler states (a (768, 768) result: "size 2.25M");
* VMEM scratch of 16-bit types counts against the scoped limit; 32-bit scratch does not (a
  (4096, 2048) float32 scratch, 32 MiB, compiled under the 16 MiB default, fully written or not)
  but must fit physical VMEM alone (160 MiB of float32 scratch failed, 128 MiB fit); 8-bit
  scratch was not measured, so a launch with one has no estimate;
* a whole-array block whose last dim is not a multiple of 128 was counted in some launches
  ((1000, 1000) float32: 7.81M for input and output) and not in others ((1024, 1000) compiled
  under a 16 KiB limit): such parts are shown in the estimate but never make a verdict;
* with ``vmem_limit_bytes`` above physical VMEM, a launch over physical VMEM fails on capacity
  ("Used 256.00M of 128.00M vmem"), not on the scoped limit;
* operands in ``pl.ANY`` stay in HBM and take no VMEM;
* SMEM holds the scalar-prefetch operands, SMEM scratch and SMEM blocks, each 1-D array rounded
  up to 128 elements of 4 bytes ('s32[300000]{0:T(128)}' took 1200128 bytes), and a launch whose
  SMEM reaches 1 MiB does not fit (262144 int32, exactly 1 MiB, failed by 144 bytes).

A fact the code does not say (a shape, a dtype, a grid step count a buffer count depends on)
leaves the launch without an estimate: never a guess.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import api
from .evaluate import CallVal, Evaluator, FuncVal, Order, TupleVal
from .applications import kernel_operand_params
from .launch_signature import array_dtype, dtype_name, flat_operand_leaves, flat_output_leaves, grid_spec_call
from .kernel_values import array_dtype_of, kernel_values
from .launch_specs import read_launch_specs
from .scopes import Scope
from .shapes import Shape, array_shape, dimension, shape_literal
from .tpu_blocks import TpuBlock, buffer_count, tpu_blocks
from .tpu_params import number, tpu_params_arg

Where = tuple[ast.AST, Scope, Order]

KiB, MiB = 1 << 10, 1 << 20
SUBLANES, LANES = 8, 128
SMEM_WORD, SMEM_TILE = 4, 128
_BYTES = {"float32": 4, "int32": 4, "uint32": 4, "bool": 4, "bfloat16": 2, "float16": 2, "int16": 2, "uint16": 2,
          "int8": 1, "uint8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "float64": 8, "int64": 8, "uint64": 8}
_SCRATCH_SPACES = {"VMEM": "vmem", "SMEM": "smem"}


@dataclass(frozen=True)
class ChipMemory:
    """One TPU generation's memory limits, as its chip reported them."""

    generation: str
    scoped_vmem_default: int
    vmem: int
    smem: int
    seen_on: str  # the chip and release that showed these figures


# Only what a chip showed: the default scoped limit in E1001 ("limit 16.00M"), physical VMEM and
# SMEM in "Allocation ... would exceed memory (size=...)". Other generations: no verdict.
CHIP_MEMORY = {
    "v5e": ChipMemory("v5e", 16 * MiB, 128 * MiB, 1 * MiB, "TPU v5e, jax 0.10.2, libtpu 0.0.42.1"),
}


@dataclass(frozen=True)
class BudgetPart:
    """One allocation of a launch: ``name`` as the kernel knows it (its parameter) or as JAX
    numbers it, ``role`` (in, out, scratch, prefetch), ``space`` (vmem, smem), ``buffers``
    copies of ``each_bytes``, and where the code declares it."""

    name: str
    role: str
    space: str
    buffers: int
    each_bytes: int
    where: Where | None
    scoped: bool = True  # counted against the scoped VMEM limit (32-bit scratch is not)
    certain: bool = True  # the chip's counting of this kind of part is settled
    # The shape and dtype of one buffer, as the launch listing shows them (None: not known here).
    dims: Shape | None = field(default=None, compare=False)
    dtype: str | None = field(default=None, compare=False)

    @property
    def total(self) -> int:
        return self.buffers * self.each_bytes


@dataclass(frozen=True)
class LaunchBudget:
    """The estimate of one launch: its parts, the grid's step count, and the ``vmem_limit_bytes``
    the code sets (None: the chip's default applies)."""

    parts: tuple[BudgetPart, ...]
    grid_steps: int
    vmem_limit: int | None
    vmem_limit_where: Where | None
    complete: bool = True  # False: the kernel has a matmul whose result shape is not known
    # The compiler adds internal scratch the model does not size (a matmul not accumulated into a
    # ref): a launch within a few KiB of its limit may still fail; the estimate is a lower bound.
    internal_scratch: bool = False

    @property
    def vmem_scoped_bytes(self) -> int:
        """The estimate shown: every part counted against the scoped limit."""
        return sum(p.total for p in self.parts if p.space == "vmem" and p.scoped)

    @property
    def vmem_scoped_sure_bytes(self) -> int:
        """What a verdict rests on: the parts whose counting the chip settled."""
        return sum(p.total for p in self.parts if p.space == "vmem" and p.scoped and p.certain)

    @property
    def vmem_scratch_bytes(self) -> int:
        return sum(p.total for p in self.parts if p.space == "vmem" and p.role in ("scratch", "temp") and p.scoped)

    @property
    def largest_unscoped(self) -> BudgetPart | None:
        """The largest VMEM part outside the scoped limit (32-bit scratch): it must fit physical
        VMEM alone."""
        parts = [p for p in self.parts if p.space == "vmem" and not p.scoped]
        return max(parts, key=lambda p: p.total) if parts else None

    @property
    def smem_bytes(self) -> int:
        return sum(p.total for p in self.parts if p.space == "smem")

    def limit(self, chip: ChipMemory) -> int:
        return self.vmem_limit if self.vmem_limit is not None else chip.scoped_vmem_default

    def biggest(self, space: str = "vmem", count: int = 3) -> list[BudgetPart]:
        return sorted((p for p in self.parts if p.space == space and p.total),
                      key=lambda p: -p.total)[:count]


def mib(n: int) -> str:
    """``12.5 MiB``, ``448 KiB``: sizes as the hint and the messages say them."""
    if n >= MiB:
        text = f"{n / MiB:.2f}".rstrip("0").rstrip(".")
        return f"{text} MiB"
    if n >= KiB:
        text = f"{n / KiB:.1f}".rstrip("0").rstrip(".")
        return f"{text} KiB"
    return f"{n} B"


def vmem_bytes(dims: Shape, dtype: str) -> int | None:
    """The VMEM bytes of one buffer of a block or scratch of rank >= 2 (rank 1 and 0: not
    calibrated, None)."""
    size = _BYTES.get(dtype)
    if size is None or len(dims) < 2:
        return None
    *lead, rows, cols = dims
    n = 1
    for d in lead:
        n *= d
    return n * _round_up(rows, SUBLANES) * _round_up(cols, LANES) * size


def smem_bytes(dims: Shape, dtype: str) -> int | None:
    """The SMEM bytes of a 1-D array: 128-element tiles of 4-byte words (other ranks: None)."""
    if _BYTES.get(dtype) is None or len(dims) != 1 or _BYTES[dtype] > SMEM_WORD:
        return None
    return _round_up(dims[0], SMEM_TILE) * SMEM_WORD


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def launch_budget(ev: Evaluator, launch) -> LaunchBudget | None:
    """The launch's VMEM and SMEM parts (None where any part is not known)."""
    if launch.api.name != api.PALLAS_CALL or len(launch.kernels) != 1:
        return None
    specs = read_launch_specs(ev, launch)
    if specs is None or specs.num_scalar_prefetch is None:
        return None
    steps = _grid_steps(ev, specs.grid)
    if steps is None:
        return None
    per_call = flat_operand_leaves(ev, launch)
    outputs = flat_output_leaves(ev, launch)
    if not per_call or outputs is None or any(len(p) != len(per_call[0]) for p in per_call):
        return None
    operands = per_call[0]
    facts = []
    for leaf in operands:
        shape, dtype = _agreed_fact(ev, per_call, operands.index(leaf))
        facts.append((shape, dtype, leaf))
    out_facts = [(array_shape(ev, *leaf), array_dtype(ev, *leaf) or array_dtype_of(ev, *leaf), leaf)
                 for leaf in outputs]
    names = kernel_operand_params(launch)
    nsp = specs.num_scalar_prefetch
    if nsp > len(facts):
        return None
    blocks = tpu_blocks(ev, launch)
    if blocks is None:
        return None
    # (Blocks of operands with no BlockSpec have no entry: they are read below as whole arrays.)
    by_origin = {(b.entry.role, b.entry.position): b for b in blocks if b.entry is not None}
    parts: list[BudgetPart] = []
    # Scalar-prefetch operands: SMEM, whole.
    for i in range(nsp):
        shape, dtype, leaf = facts[i]
        each = smem_bytes(shape, dtype) if shape is not None and dtype is not None else None
        if each is None:
            return None
        parts.append(BudgetPart(_name(names, len(parts), f"args[{i}]"), "prefetch", "smem", 1, each, leaf,
                                dims=shape, dtype=dtype))
    roles = [("in", i, facts[nsp + i], f"args[{nsp + i}]", specs.in_specs) for i in range(len(facts) - nsp)]
    roles += [("out", i, out_facts[i], f"outputs[{i}]" if len(out_facts) > 1 else "outputs", specs.out_specs)
              for i in range(len(out_facts))]
    for role, position, (shape, dtype, leaf), origin, written in roles:
        block = by_origin.get((role, position))
        if written is not None and block is None:
            return None  # (a spec list whose entries the analysis cannot pair with the operands)
        part = _operand_part(ev, block, shape, dtype, leaf, steps, _name(names, len(parts), origin), role)
        if part is None:
            return None
        parts.append(part)
    scratch = _scratch_parts(ev, launch, names, len(parts))
    if scratch is None:
        return None
    parts += scratch
    temps, complete, internal = _matmul_parts(ev, launch)
    parts += temps
    limit, limit_where = None, None
    arg = tpu_params_arg(ev, launch, "vmem_limit_bytes")
    if arg is not None:
        value = number(ev, arg.where)  # (``64 << 20``, ``160 * MiB`` with ``MiB = 1 << 20``)
        if not isinstance(value, int) or isinstance(value, bool):
            return None  # (a limit the analysis cannot read: no verdict)
        limit, limit_where = value, arg.where
    return LaunchBudget(tuple(parts), steps, limit, limit_where, complete, internal)


def _shape(ev: Evaluator, node: ast.expr, scope: Scope, order: Order) -> Shape | None:
    """A shape written as a tuple of dims, or a name bound to a constant one."""
    shape = shape_literal(ev, node, scope, order)
    if shape is not None:
        return shape
    v = ev.value(node, scope, order)
    if not isinstance(v, TupleVal):
        return None
    dims = [dimension(ev, *item) for item in v.items]
    return tuple(d for d in dims if d is not None) if all(d is not None for d in dims) else None


def _agreed_fact(ev: Evaluator, per_call, i: int) -> tuple[Shape | None, str | None]:
    shapes = {array_shape(ev, *call[i]) for call in per_call}
    dtypes = {array_dtype(ev, *call[i]) or array_dtype_of(ev, *call[i]) for call in per_call}
    shape = shapes.pop() if len(shapes) == 1 else None
    dtype = dtypes.pop() if len(dtypes) == 1 else None
    return shape, dtype


def _grid_steps(ev: Evaluator, grid: Where | None) -> int | None:
    """The product of the grid's dims (1 with no grid); None where a dim is not known."""
    dims = grid_dims(ev, grid)
    if dims is None:
        return None
    steps = 1
    for d in dims:
        steps *= d
    return steps


def grid_dims(ev: Evaluator, grid: Where | None) -> tuple[int, ...] | None:
    """The grid's dims (``()`` with no grid); None where a dim is not known."""
    if grid is None:
        return ()
    node, scope, order = grid
    v = ev.value(node, scope, order)
    items = v.items if isinstance(v, TupleVal) else [(node, scope, order)]
    dims = [dimension(ev, *item) for item in items]
    return tuple(d for d in dims if d is not None) if all(d is not None for d in dims) else None


def _operand_part(ev: Evaluator, block: TpuBlock | None, shape: Shape | None, dtype: str | None,
                  leaf: Where, steps: int, name: str, role: str) -> BudgetPart | None:
    if dtype is None:
        return None
    space = block.memory_space if block is not None else "default"
    if space in ("any", "hbm"):
        return BudgetPart(name, role, "hbm", 1, 0, block.where if block is not None else leaf, dims=shape,
                          dtype=dtype)
    if space == "smem":
        each = smem_bytes(shape, dtype) if shape is not None else None
        if each is None:
            return None
        return BudgetPart(name, role, "smem", 1, each, block.where if block else leaf, dims=shape, dtype=dtype)
    if space not in ("default", "vmem"):
        return None
    dims: Shape | None
    if block is None or block.dims is None:
        dims = shape
    elif any(d.size is None for d in block.dims):
        return None
    else:
        dims = tuple(d.size for d in block.dims if d.size is not None)
    if dims is None:
        return None
    each = vmem_bytes(dims, dtype)
    if each is None:
        return None
    buffers = 2 if steps > 1 else 1
    if block is not None:
        counted = buffer_count(ev, block)
        if counted is not None:
            buffers = counted[0]
        elif _has_pipeline_mode(ev, block):
            return None  # (a pipeline mode the analysis cannot read)
        elif role == "in" and block.entry is not None and index_map_constant(ev, block.entry.call):
            # An input block whose index map never moves is fetched once: one buffer (the chip's
            # figures for such a block beside moving ones, r3_sum_const_y and r3_dot_store_const_w;
            # an output's written back at the end was not measured: two, as before).
            buffers = 1
    whole = block is None or block.dims is None or (shape is not None and tuple(dims) == tuple(shape))
    certain = not (whole and len(dims) >= 2 and dims[-1] % LANES)
    return BudgetPart(name, role, "vmem", buffers, each, block.where if block is not None else leaf,
                      certain=certain, dims=tuple(dims), dtype=dtype)


def index_map_constant(ev: Evaluator, spec: CallVal) -> bool:
    """Whether a BlockSpec's index map returns only integer constants (``lambda i: (0, 0)``,
    ``lambda *_: (0, 0)``, a def with one such return): its block is the same at every step."""
    node = ev.kwarg(spec.site, "index_map")
    if node is None and isinstance(spec.site.node, ast.Call) and len(spec.site.node.args) > 1:
        node = spec.site.node.args[1]
    if node is None:
        return False
    fn = ev.value(node, spec.site.scope, spec.order)
    if not isinstance(fn, FuncVal):
        return False
    defined = fn.scope.node
    body = defined.body if isinstance(defined, ast.Lambda) else None
    if body is None and isinstance(defined, ast.FunctionDef) and len(defined.body) == 1 \
            and isinstance(defined.body[0], ast.Return):
        body = defined.body[0].value
    if not isinstance(body, ast.Tuple) or not body.elts:
        return False
    return all(isinstance(e, ast.Constant) and type(e.value) is int for e in body.elts)


def _has_pipeline_mode(ev: Evaluator, block: TpuBlock) -> bool:
    return block.entry is not None and ev.kwarg(block.entry.call.site, "pipeline_mode") is not None


def _scratch_parts(ev: Evaluator, launch, names: list[str] | None, first: int) -> list[BudgetPart] | None:
    opt = launch.options.get("scratch_shapes")
    if opt is None and "grid_spec" in launch.options:
        spec = grid_spec_call(ev, launch)
        if spec is None:
            return None
        node = ev.kwarg(spec.site, "scratch_shapes")
        opt = (node, spec.site.scope, spec.order) if node is not None else None
    if opt is None:
        return []
    v = ev.value(*opt)
    if not isinstance(v, TupleVal):
        return None
    parts = []
    for i, item in enumerate(v.items):
        iv = ev.value(*item)
        name = ev.called_api(iv) if isinstance(iv, CallVal) else ev.ext_name(iv)
        if name is None:
            return None
        if ".SemaphoreType." in name or name.endswith("SemaphoreType"):
            continue  # (semaphores: no VMEM)
        space = _SCRATCH_SPACES.get(name.rsplit(".", 1)[-1])
        if space is None or not isinstance(iv, CallVal) or iv.site.has_star:
            return None
        site = iv.site
        shape_node = ev.kwarg(site, "shape") or ev.posarg(site, 0)
        dtype_node = ev.kwarg(site, "dtype") or ev.posarg(site, 1)
        shape = _shape(ev, shape_node, site.scope, iv.order) if shape_node is not None else None
        dtype = dtype_name(ev, dtype_node, site.scope, iv.order) if dtype_node is not None else None
        if shape is None or dtype is None:
            return None
        each = vmem_bytes(shape, dtype) if space == "vmem" else smem_bytes(shape, dtype)
        if each is None:
            return None
        scoped = True
        if space == "vmem":
            size = _BYTES[dtype]
            if size == 1:
                return None  # (8-bit scratch: not measured on a chip)
            scoped = size == 2
        parts.append(BudgetPart(_name(names, first + i, f"scratch[{i}]"), "scratch", space, 1, each, item,
                                scoped=scoped, dims=shape, dtype=dtype))
    return parts


_DOTS = {"jax.numpy.dot", "jax.numpy.matmul", "jax.lax.dot", "jax.lax.dot_general", "jax.numpy.einsum"}
_UNREAD_DOTS = {"jax.lax.dot_general", "jax.numpy.einsum"}


def _matmul_parts(ev: Evaluator, launch) -> tuple[list[BudgetPart], bool, bool]:
    """The float32 results of the kernel's matmuls accumulated into a ref (``acc[...] +=
    jnp.dot(a, b)``: the chip allocates them first), whether every matmul the kernel runs was
    read (``dot_general``/``einsum`` and unknown shapes are not), and whether a matmul whose
    result goes elsewhere (stored, or used in an expression) makes the compiler add internal
    scratch the model does not size (56 KiB over the blocks for a (512, 1024) x (1024, 1024)
    float32 product: r3_dot_store_moving_w)."""
    values = kernel_values(ev, launch)
    if values is None:
        return [], False, False
    accumulated = _accumulated_nodes(values)
    parts: list[BudgetPart] = []
    complete = True
    internal = False
    for node, scope in values.nodes():
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            operands: list[ast.expr] = [node.left, node.right]
        elif isinstance(node, ast.Call):
            v = ev.value(node.func, scope, None)
            name = ev.ext_name(v)
            if name not in _DOTS:
                continue
            if name in _UNREAD_DOTS or len(node.args) < 2:
                complete = False
                continue
            operands = list(node.args[:2])
        else:
            continue
        a, b = (values.shape_of(o, scope) for o in operands)
        if a is None or b is None or len(a) != 2 or len(b) != 2:
            complete = False
            continue
        each = vmem_bytes((a[0], b[1]), "float32")
        if each is None:
            complete = False
            continue
        if id(node) not in accumulated:
            internal = True  # (stored or used as a value: no result buffer in the chip's figure)
            continue
        parts.append(BudgetPart(f"matmul {a[0]}x{b[1]}", "temp", "vmem", 1, each, (node, scope, None),
                                dims=(a[0], b[1]), dtype="float32"))
    return parts, complete, internal


def _accumulated_nodes(values) -> set[int]:
    """The expressions added into a ref: the value of ``ref[...] += v`` and the other operand
    of ``ref[...] = ref[...] + v`` (ids of every node inside them)."""
    out: set[int] = set()
    for scope in values.scopes():
        root = scope.node
        if root is None:
            continue
        for stmt in ast.walk(root):
            added: ast.AST | None = None
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
                    and isinstance(stmt.target, ast.Subscript):
                added = stmt.value
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Subscript) and isinstance(stmt.value, ast.BinOp) \
                    and isinstance(stmt.value.op, ast.Add):
                target = ast.dump(stmt.targets[0].value)
                left, right = stmt.value.left, stmt.value.right
                if isinstance(left, ast.Subscript) and ast.dump(left.value) == target:
                    added = right
                elif isinstance(right, ast.Subscript) and ast.dump(right.value) == target:
                    added = left
            if added is not None:
                out |= {id(n) for n in ast.walk(added)}
    return out


def _name(names: list[str] | None, position: int, fallback: str) -> str:
    return names[position] if names is not None and position < len(names) else fallback
