"""A ``pl.pallas_call``'s BlockSpecs against what it is given, checked in the order JAX checks them.

``pallas_call`` builds a ``GridSpec`` (``in_specs`` must be a list or tuple), then
``get_grid_mapping`` compares the ``in_specs`` pytree with the operands' (those after the
scalar-prefetch ones), converts each input BlockSpec (its block shape is iterated, must have
the array's rank, its index map is traced with one int32 per grid axis plus the scalar-prefetch
refs and must return one integer scalar per block dim), then does the same for ``out_specs``
against ``out_shape``. The first failing check is the error raised, so :func:`first_spec_defect`
walks them in that order and answers the first one the code surely fails. A check whose facts
the code does not say is skipped (never guessed); a launch whose specs cannot be read at all
gives nothing.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import api
from .applications import applied_at
from .evaluate import CallVal, Const, Evaluator, FuncVal, Order, TupleVal, launch_fact
from .index_values import returned_indices
from .scopes import Scope
from .shapes import array_shape

_BLOCK_SPEC = f"{api.PL}.BlockSpec"
_STRUCT = "jax.ShapeDtypeStruct"
# Constructors whose first argument (or ``shape=``) is the shape.
_SHAPED = {_STRUCT} | {f"jax.numpy.{n}" for n in ("zeros", "ones", "empty", "full")}
_MAX_FOLLOW = 4

Where = tuple[ast.AST, Scope, Order]


@dataclass
class Tree:
    """The pytree structure of a value as far as the code says it: ``leaf``, ``seq`` (a tuple or
    list, ``children`` its items), ``dict`` (``keys``), ``none``, or ``unknown``."""

    kind: str
    children: list["Tree"] = field(default_factory=list)
    keys: tuple = ()

    @property
    def known(self) -> bool:
        return self.kind != "unknown"


UNKNOWN = Tree("unknown")


@dataclass
class SpecEntry:
    """One BlockSpec of in_specs / out_specs: where it is written, and what it is."""

    item: Where  # the entry as written in the in_specs / out_specs list
    call: CallVal  # the pl.BlockSpec(...) call
    role: str  # "in" or "out"
    position: int  # its index among the flattened in (or out) specs

    @property
    def made_in_helper(self) -> bool:
        return bool(self.call.frames)


@dataclass
class SpecDefect:
    """The first check of the launch's specs that JAX fails: ``kind`` is the error kind's slug,
    ``where`` the construct to underline, ``detail`` the numbers the message says."""

    kind: str
    where: Where
    detail: str
    spec: SpecEntry | None = None
    related: list[tuple[Where, str]] = field(default_factory=list)
    int_division: bool = False  # (index-map-non-integer) the float is ``a / b`` of two integers


@dataclass
class LaunchSpecs:
    """What a pallas_call's grid and specs are, read from ``grid=``/``in_specs=``/``out_specs=``
    or from its ``grid_spec=`` (``pl.GridSpec`` / ``pltpu.PrefetchScalarGridSpec``)."""

    grid: Where | None
    grid_rank: int | None
    num_scalar_prefetch: int | None
    in_specs: Where | None
    out_specs: Where | None


@launch_fact
def read_launch_specs(ev: Evaluator, launch) -> LaunchSpecs | None:
    """The launch's grid and spec options (None for a launch that is not a ``pl.pallas_call``,
    one whose grid spec is not a call the analysis knows, or one that gives both ``grid_spec=``
    and the options it holds, which fails before the specs are read)."""
    if launch.api.name != api.PALLAS_CALL:
        return None
    opts = launch.options
    num_prefetch: int | None = 0
    if "grid_spec" in opts:
        if any(k in opts for k in ("grid", "in_specs", "out_specs", "scratch_shapes")):
            return None
        v = ev.value(*opts["grid_spec"])
        name = ev.called_api(v) if isinstance(v, CallVal) else None
        if not isinstance(v, CallVal) or name not in (api.GRID_SPEC, api.TPU_PREFETCH_GRID_SPEC):
            return None
        site = v.site
        if site.has_star:
            return None
        prefetch = name == api.TPU_PREFETCH_GRID_SPEC
        first = 1 if prefetch else 0

        def arg(position: int, keyword: str) -> Where | None:
            node = ev.kwarg(site, keyword)
            if node is None:
                node = ev.posarg(site, position)
            return (node, site.scope, v.order) if node is not None else None

        if prefetch:
            n = arg(0, "num_scalar_prefetch")
            c = ev.const(*n) if n is not None else None
            num_prefetch = c if isinstance(c, int) and not isinstance(c, bool) else None
        grid, ins, outs = arg(first, "grid"), arg(first + 1, "in_specs"), arg(first + 2, "out_specs")
    else:
        grid, ins, outs = opts.get("grid"), opts.get("in_specs"), opts.get("out_specs")
    return LaunchSpecs(grid, _grid_rank(ev, grid), num_prefetch, ins, outs)


def _grid_rank(ev: Evaluator, grid: Where | None) -> int | None:
    if grid is None:
        return 0  # (no grid: ``()``)
    v = ev.value(*grid)
    if isinstance(v, TupleVal):
        return len(v.items)
    c = ev.const(*grid)
    if isinstance(c, tuple):
        return len(c)
    if isinstance(c, int) and not isinstance(c, bool):
        return 1  # (an int grid is ``(n,)``)
    return None


# -- pytrees -------------------------------------------------------------------------------
def _written(ev: Evaluator, node: ast.AST, scope: Scope, order: Order) -> tuple[ast.AST, Scope, Order]:
    """The expression a name stands for where it is bound once by assignment in reach."""
    for _ in range(_MAX_FOLLOW):
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            break
        node, scope, order = b.node, b.scope, ev.order_of(b)
    return node, scope, order


def spec_tree(ev: Evaluator, where: Where, role: str, leaves: list[SpecEntry]) -> Tree:
    """The pytree of an in_specs / out_specs value; its BlockSpecs are appended to ``leaves``
    in flattening order."""
    node, scope, order = _written(ev, *where)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            return UNKNOWN
        keys = [ev.const(k, scope, order) for k in node.keys]  # type: ignore[arg-type]
        str_keys = [k for k in keys if isinstance(k, str)]
        if len(str_keys) != len(keys):
            return UNKNOWN
        children = {k: (vn, scope, order) for k, vn in zip(str_keys, node.values)}
        return Tree("dict", [spec_tree(ev, children[k], role, leaves) for k in sorted(children)],
                    tuple(sorted(children)))
    v = ev.returned(ev.value(node, scope, order))  # (a helper's spec: what it returns)
    if isinstance(v, TupleVal):
        with ev.within(v.frames):
            return Tree("seq", [spec_tree(ev, item, role, leaves) for item in v.items])
    if isinstance(v, Const) and v.value is None:
        return Tree("none")
    if isinstance(v, CallVal) and ev.called_api(v) == _BLOCK_SPEC:
        leaves.append(SpecEntry(where, v, role, len(leaves)))
        return Tree("leaf")
    return UNKNOWN


def operand_tree(ev: Evaluator, where: Where, depth: int = 0) -> Tree:
    """The pytree of an operand (or an ``out_shape`` entry): an array or ShapeDtypeStruct is a
    leaf, a tuple/list/dict literal nests."""
    node, scope, order = _written(ev, *where)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys) or depth > _MAX_FOLLOW:
            return UNKNOWN
        keys = [ev.const(k, scope, order) for k in node.keys]  # type: ignore[arg-type]
        str_keys = [k for k in keys if isinstance(k, str)]
        if len(str_keys) != len(keys):
            return UNKNOWN
        children = {k: (vn, scope, order) for k, vn in zip(str_keys, node.values)}
        return Tree("dict", [operand_tree(ev, children[k], depth + 1) for k in sorted(children)],
                    tuple(sorted(children)))
    v = ev.value(node, scope, order)
    if isinstance(v, TupleVal) and depth <= _MAX_FOLLOW:
        with ev.within(v.frames):
            return Tree("seq", [operand_tree(ev, item, depth + 1) for item in v.items])
    if isinstance(v, CallVal) and ev.called_api(v) == _STRUCT:
        return Tree("leaf")
    if array_shape(ev, node, scope, order) is not None:
        return Tree("leaf")
    return UNKNOWN


def first_mismatch(specs: Tree, values: Tree) -> str | None:
    """How two pytrees surely differ (None when they match or where it cannot be told)."""
    if not specs.known or not values.known:
        return None
    if specs.kind != values.kind:
        return f"{_words(specs)} where the value is {_words(values)}"
    if specs.kind == "seq" and len(specs.children) != len(values.children):
        return f"{len(specs.children)} entries for {len(values.children)}"
    if specs.kind == "dict" and specs.keys != values.keys:
        return f"keys {list(specs.keys)} for {list(values.keys)}"
    for a, b in zip(specs.children, values.children):
        got = first_mismatch(a, b)
        if got is not None:
            return got
    return None


def _words(t: Tree) -> str:
    return {"leaf": "one spec", "seq": f"a sequence of {len(t.children)}", "dict": "a dict",
            "none": "None"}.get(t.kind, "?") if t is not None else "?"


def flat_leaves(t: Tree) -> int | None:
    if not t.known:
        return None
    if t.kind == "leaf":
        return 1
    counts = [flat_leaves(c) for c in t.children]
    return None if any(c is None for c in counts) else sum(counts)  # type: ignore[arg-type]


# -- one BlockSpec ---------------------------------------------------------------------------
def _spec_arg(ev: Evaluator, call: CallVal, position: int, keyword: str) -> ast.expr | None:
    site = call.site
    node = ev.kwarg(site, keyword)
    if node is None and not site.has_star:
        node = ev.posarg(site, position)
    return node


def block_rank(ev: Evaluator, call: CallVal) -> int | None:
    """The number of dims of a BlockSpec's block shape (None entries count), or None when it
    has none or it is not written where the analysis sees it."""
    node = _spec_arg(ev, call, 0, "block_shape")
    if node is None:
        return None
    written, scope, order = _written(ev, node, call.site.scope, call.order)
    if isinstance(written, (ast.Tuple, ast.List)):
        return None if any(isinstance(e, ast.Starred) for e in written.elts) else len(written.elts)
    v = ev.value(written, scope, order)
    if isinstance(v, TupleVal):
        return len(v.items)
    c = ev.const(written, scope, order)
    return len(c) if isinstance(c, tuple) else None


def index_map_of(ev: Evaluator, call: CallVal) -> FuncVal | None:
    """The BlockSpec's index map, where it is a plain def or lambda of the code."""
    node = _spec_arg(ev, call, 1, "index_map")
    if node is None:
        return None
    v = ev.value(node, call.site.scope, call.order)
    if not isinstance(v, FuncVal) or v.scope.node is None:
        return None
    if v.scope.parent is not None and v.scope.parent.kind == "class":
        return None  # (a method: how it is bound is not followed)
    return v


def swapped_block_shape(ev: Evaluator, call: CallVal) -> bool:
    """``pl.BlockSpec(index_map, block_shape)``: a function given as the block shape."""
    node = _spec_arg(ev, call, 0, "block_shape")
    return node is not None and isinstance(ev.value(node, call.site.scope, call.order), FuncVal)


def accepts(fn: FuncVal, count: int) -> bool | None:
    """Whether a function can be called with ``count`` positional arguments."""
    params = fn.scope.params
    if any(kind == "kwonly" and default is None for _, default, kind in params):
        return None
    positional = [(n, d) for n, d, kind in params if kind in ("posonly", "normal")]
    required = sum(1 for _, d in positional if d is None)
    if count < required:
        return False
    return count <= len(positional) or any(kind == "star" for _, _, kind in params)


def returned_count(ev: Evaluator, fn: FuncVal) -> int | None:
    """How many indices an index map returns (a bare scalar is one), where every ``return``
    says the same."""
    scope = fn.scope
    node = scope.node
    returned = [node.body] if isinstance(node, ast.Lambda) else list(scope.returns)
    if not returned:
        return None
    counts = {_count(ev, r, scope) for r in returned}
    return counts.pop() if len(counts) == 1 else None


def _count(ev: Evaluator, node: ast.AST | None, scope: Scope) -> int | None:
    if node is None:
        return None
    if isinstance(node, (ast.Tuple, ast.List)):
        return None if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)
    if _scalar_index(node, scope):
        return 1
    v = ev.value(node, scope)
    return len(v.items) if isinstance(v, TupleVal) else None


def _scalar_index(node: ast.AST, scope: Scope) -> bool:
    """An index the map surely computes as one scalar: a grid index (a parameter), an int, or
    arithmetic on them."""
    params = {p[0] for p in scope.params if p[2] in ("posonly", "normal")}
    if isinstance(node, ast.Name):
        return node.id in params
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return _scalar_index(node.left, scope) and _scalar_index(node.right, scope)
    if isinstance(node, ast.UnaryOp):
        return _scalar_index(node.operand, scope)
    return False


def return_where(fn: FuncVal) -> ast.AST:
    """What to underline for what an index map returns: a lambda's body, a def's only return."""
    node = fn.scope.node
    assert node is not None  # (an index map is a def or lambda: its scope has a node)
    if isinstance(node, ast.Lambda):
        return node.body
    returns = [r for r in ast.walk(node) if isinstance(r, ast.Return)]
    return returns[0] if len(returns) == 1 else node


# -- the walk in JAX's order ----------------------------------------------------------------
def _applied_operands(ev: Evaluator, launch) -> list[Where] | None:
    """The operands the launch is applied to, where every application passes them positionally
    and they agree in number (None when there is no application to tell)."""
    sites = applied_at(ev, launch)
    if not sites:
        return None
    got: list[list[Where]] = []
    for cs in sites:
        if cs.has_star or cs.node.keywords:
            return None
        order = ev.order_of(cs)
        got.append([(a, cs.scope, order) for a in cs.node.args])
    if len({len(g) for g in got}) != 1:
        return None
    return got[0]


def _array_rank(ev: Evaluator, where: Where, depth: int = 0) -> int | None:
    """The rank of an operand or out_shape entry: from its whole shape where the code says it,
    else from a shape tuple written with entries the analysis cannot fold
    (``jax.ShapeDtypeStruct((x.shape[0],), ...)``) or ``.shape`` of an array of known rank."""
    node, scope, order = where
    shape = array_shape(ev, node, scope, order)  # type: ignore[arg-type]
    if shape is not None:
        return len(shape)
    if depth > _MAX_FOLLOW:
        return None
    node, scope, order = _written(ev, node, scope, order)
    v = ev.value(node, scope, order)
    if not isinstance(v, CallVal) or ev.called_api(v) not in _SHAPED:
        return None
    shape_node = ev.kwarg(v.site, "shape")
    if shape_node is None and not v.site.has_star:
        shape_node = ev.posarg(v.site, 0)
    if shape_node is None:
        return None
    written, sscope, sorder = _written(ev, shape_node, v.site.scope, v.order)
    if isinstance(written, ast.Tuple):
        return None if any(isinstance(e, ast.Starred) for e in written.elts) else len(written.elts)
    if isinstance(written, ast.Attribute) and written.attr == "shape":
        return _array_rank(ev, (written.value, sscope, sorder), depth + 1)
    return None


def in_specs_fit_in_a_list(ev: Evaluator, launch) -> bool:
    """Whether ``in_specs=[<the given value>]`` matches the operands' pytree (one operand, nested
    like the spec or dict given): what makes wrapping a bare spec in a list a fix."""
    specs = read_launch_specs(ev, launch)
    operands = _applied_operands(ev, launch)
    if specs is None or specs.in_specs is None or operands is None or specs.num_scalar_prefetch is None:
        return False
    wrapped = Tree("seq", [spec_tree(ev, specs.in_specs, "in", [])])
    values = Tree("seq", [operand_tree(ev, o) for o in operands[specs.num_scalar_prefetch:]])
    counts = flat_leaves(wrapped), flat_leaves(values)
    return None not in counts and counts[0] == counts[1] and first_mismatch(wrapped, values) is None


@launch_fact
def first_spec_defect(ev: Evaluator, launch) -> SpecDefect | None:
    """The first spec check of the launch that JAX fails, in the order it checks them."""
    specs = read_launch_specs(ev, launch)
    if specs is None:
        return None
    if specs.in_specs is not None:
        node, scope, order = _written(ev, *specs.in_specs)
        v = ev.value(node, scope, order)
        if isinstance(node, ast.Dict) or (isinstance(v, CallVal) and ev.called_api(v) == _BLOCK_SPEC):
            what = "a dict" if isinstance(node, ast.Dict) else "a single BlockSpec"
            return SpecDefect("in-specs-not-sequence", specs.in_specs,
                              f"`in_specs` is {what}; it must be a list or tuple (one entry per operand)")
    operands = _applied_operands(ev, launch)
    nsp = specs.num_scalar_prefetch
    array_operands = operands[nsp:] if operands is not None and nsp is not None else None
    out_opt = launch.options.get("out_shape")
    out_values: list[Where] | None = None
    out_tree = UNKNOWN
    if out_opt is not None:
        ov = ev.value(*out_opt)
        if isinstance(ov, TupleVal):
            out_values = list(ov.items)
            with ev.within(ov.frames):
                out_tree = Tree("seq", [operand_tree(ev, item) for item in ov.items])
        else:
            out_tree = operand_tree(ev, out_opt)
            out_values = [out_opt] if out_tree.kind == "leaf" else None
    index_args = specs.grid_rank + nsp if specs.grid_rank is not None and nsp is not None else None
    for role, option, values in (("in", specs.in_specs, array_operands), ("out", specs.out_specs, out_values)):
        if option is None:
            continue
        leaves: list[SpecEntry] = []
        tree = spec_tree(ev, option, role, leaves)
        if role == "in":
            value_tree = Tree("seq", [operand_tree(ev, o) for o in values]) if values is not None else UNKNOWN
            if tree.kind == "leaf":
                tree = UNKNOWN  # (reported above)
        else:
            value_tree = out_tree
        mismatch = first_mismatch(tree, value_tree)
        if mismatch is not None:
            kind = "in-specs-structure-mismatch" if role == "in" else "out-specs-structure-mismatch"
            what = "`in_specs` and the operands" if role == "in" else "`out_specs` and `out_shape`"
            if role == "in" and nsp:
                mismatch += f" (the first {nsp} operand(s) are scalar-prefetch operands, which take no spec)"
            return SpecDefect(kind, option, f"{what} differ: {mismatch}")
        flat_values = _flat_where(ev, values, value_tree) if values is not None else None
        for entry in leaves:
            defect = _spec_defect(ev, entry, flat_values, index_args, specs)
            if defect is not None:
                return defect
    return None


def _flat_where(ev: Evaluator, values: list[Where], tree: Tree) -> list[Where] | None:
    """The operands (or out_shape entries) in flattening order, where each is one leaf."""
    if tree.kind == "leaf" and len(values) == 1:
        return values  # (one ShapeDtypeStruct as out_shape)
    if tree.kind != "seq" or any(c.kind != "leaf" for c in tree.children):
        return None
    return values


def _spec_defect(ev: Evaluator, entry: SpecEntry, values: list[Where] | None, index_args: int | None,
                 specs: LaunchSpecs) -> SpecDefect | None:
    call = entry.call
    # JAX numbers inputs after the scalar-prefetch operands: the first spec is for args[nsp].
    origin = f"args[{entry.position + (specs.num_scalar_prefetch or 0)}]" if entry.role == "in" else \
        ("outputs" if values is not None and len(values) == 1 else f"outputs[{entry.position}]")
    spec_where: Where = entry.item if entry.made_in_helper else (call.site.node, call.site.scope, call.order)
    with ev.within(call.frames):
        if swapped_block_shape(ev, call):
            return SpecDefect("blockspec-args-swapped", spec_where,
                              f"the BlockSpec for {origin} is given the index map as its block shape "
                              "(the order is `pl.BlockSpec(block_shape, index_map)`)", entry)
        rank = block_rank(ev, call)
        if rank is not None and values is not None and entry.position < len(values):
            array_rank = _array_rank(ev, values[entry.position])
            if array_rank is not None and array_rank != rank:
                what = "operand" if entry.role == "in" else "output"
                return SpecDefect("block-rank-mismatch", spec_where,
                                  f"the block for {origin} has {rank} dim(s); the {what} it maps has {array_rank}",
                                  entry, [(values[entry.position], f"the {what} ({array_rank} dims)")])
        fn = index_map_of(ev, call)
        if fn is None:
            return None
        fn_node = fn.scope.node
        in_lambda = isinstance(fn_node, ast.Lambda)
        if index_args is not None and accepts(fn, index_args) is False:
            taken = len([p for p in fn.scope.params if p[2] in ("posonly", "normal")])
            grid_words = f"{specs.grid_rank} grid ax{'is' if specs.grid_rank == 1 else 'es'}"
            if specs.num_scalar_prefetch:
                grid_words += f" + {specs.num_scalar_prefetch} scalar-prefetch ref(s)"
            where = spec_where if in_lambda else (fn_node, fn.scope.parent, None)
            related = [(specs.grid, "the grid")] if specs.grid is not None else []
            return SpecDefect("index-map-arity-mismatch", where,  # type: ignore[arg-type]
                              f"the index map for {origin} takes {taken} argument(s); it is called with "
                              f"{index_args} ({grid_words})", entry, related)
        returned = returned_count(ev, fn)
        if rank is not None and returned is not None and returned != rank:
            where = spec_where if in_lambda else (return_where(fn), fn.scope, None)
            return SpecDefect("index-map-result-rank", where,  # type: ignore[arg-type]
                              f"the index map for {origin} returns {returned} index(es) for a block of {rank} dim(s)",
                              entry)
        return _index_value_defect(ev, fn, origin, specs, entry)


def _index_value_defect(ev: Evaluator, fn: FuncVal, origin: str, specs: LaunchSpecs,
                        entry: SpecEntry) -> SpecDefect | None:
    """A float among the indices the map returns, else (all of them integers) an array from
    outside the map it reads: JAX checks the two in this order once the count is right."""
    # The map's parameters are the grid indices, then the scalar-prefetch refs (not indices).
    nsp = specs.num_scalar_prefetch
    if nsp is None or (nsp and specs.grid_rank is None):
        return None
    grid_params = specs.grid_rank if nsp else None
    indices = returned_indices(ev, fn, grid_params)
    if indices is None:
        return None
    for position, (node, value) in enumerate(indices):
        if value is not None and value.kind == "float":
            where = (node, fn.scope, None)
            text = ast.unparse(node)
            return SpecDefect("index-map-non-integer", where,  # type: ignore[arg-type]
                              f"the index map for {origin} returns `{text}` as index {position}, a float "
                              "(true division `/` or a float operand makes one); indices must be integer "
                              "scalars", entry, int_division=value.int_division)
    if any(value is None or value.kind != "int" for _, value in indices):
        return None
    for node, value in indices:
        for read, name in value.captured:  # type: ignore[union-attr]
            where = (read, fn.scope, None)
            related: list[tuple[Where, str]] = []
            b = ev.lookup(name, fn.scope)
            if b is not None and b.stmt is not None and b.scope is not None:
                related.append(((b.stmt, b.scope, None), f"`{name}`, an array bound outside the index map"))
            return SpecDefect("index-map-captures-constants", where,  # type: ignore[arg-type]
                              f"the index map for {origin} reads `{name}`, a jnp array from outside it; "
                              "index maps must not capture arrays (pass it as a scalar-prefetch operand)",
                              entry, related)
    return None



__all__ = ["LaunchSpecs", "SpecDefect", "SpecEntry", "Tree", "accepts", "block_rank", "first_spec_defect",
           "in_specs_fit_in_a_list", "index_map_of", "read_launch_specs", "returned_count", "spec_tree"]
