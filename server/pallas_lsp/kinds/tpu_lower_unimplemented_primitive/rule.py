"""PAL401: an operation in a compiled kernel that the backend's Pallas lowering has no rule for.

Drawn from the lowering tables generated from the pinned jax (``pallas_lsp.lowering``,
``scripts/gen_lowering_tables.py``): which primitives each public function or Array method
emits, and which primitives each backend's Pallas lowering registers. Nothing here is a list
of operations written by hand.
"""
from __future__ import annotations

import ast
from functools import lru_cache

from ...analysis import shapes
from ...analysis.contexts import Mode
from ...analysis.evaluate import Const
from ...analysis.rule_api import NOT_KNOWN, Hit, Report
from ...analysis.scopes import OPERATOR_KEYS, SUBSCRIPT_KEY
from ...lowering import MOSAIC_GPU_LANE, MOSAIC_GPU_WARPGROUP, TPU, TRITON, UNKNOWN, tables
from ...rules.base import PythonRule

RECORD_OF = {TPU: "tpu-lower-unimplemented-primitive", TRITON: "triton-lower-unimplemented-primitive",
             MOSAIC_GPU_WARPGROUP: "mgpu-lower-unimplemented-primitive",
             MOSAIC_GPU_LANE: "mgpu-lower-unimplemented-primitive"}
BACKEND_WORDS = {TPU: "Mosaic TPU", TRITON: "Triton", MOSAIC_GPU_WARPGROUP: "Mosaic GPU (Warpgroup semantics)",
                 MOSAIC_GPU_LANE: "Mosaic GPU (Lane semantics)"}
ALL_BACKENDS = (TPU, TRITON, MOSAIC_GPU_WARPGROUP, MOSAIC_GPU_LANE)
_FUNCTION_ROOTS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.")
_ARRAY = "jax.Array."
# Pallas functions whose result is a traced value, and Array methods that return arrays.
_TRACED_PALLAS = {"jax.experimental.pallas.program_id", "jax.experimental.pallas.num_programs",
                  "jax.experimental.pallas.load", "jax.experimental.pallas.multiple_of"}
_ARRAY_METHODS = {"astype", "reshape", "T", "transpose", "sum", "max", "min", "mean", "squeeze", "ravel", "flatten"}


@lru_cache(maxsize=1)
def _dispatch_keys() -> frozenset[str]:
    """Public functions by name, Array methods as ``.method`` (``x.at[i].set`` as ``.set``)."""
    keys = {key for key in OPERATOR_KEYS if tables().knows(_operator_function(key))}
    for name in tables().function_names():
        if name.startswith(_FUNCTION_ROOTS):
            keys.add(name)
        elif name.startswith(_ARRAY):
            method = name[len(_ARRAY):].split(".")[-1]
            if method.isidentifier() and not method.startswith("_"):
                keys.add("." + method)
    return frozenset(keys)


def _tables(hit: Hit):
    """The tables of the jax release the code is checked against (the pinned one by default)."""
    return tables(hit.release.version) if hit.release.version else tables()


def _backends(hit: Hit) -> tuple[str, ...]:
    ctx = hit.context
    if ctx.mode == Mode.TPU:
        return (TPU,)
    if ctx.mode == Mode.TRITON:
        return (TRITON,)
    if ctx.mode == Mode.MOSAIC_GPU:
        return (MOSAIC_GPU_LANE,) if ctx.lowering_semantics == "lane" else (MOSAIC_GPU_WARPGROUP,)
    return ALL_BACKENDS  # compiled, backend not known: only what no backend lowers


def _function(hit: Hit) -> str | None:
    """The table's name of the called function or method."""
    if not hit.api.startswith("."):
        return hit.api
    func = hit.site.node.func
    method = hit.api[1:]
    # x.at[i].set(v): the method of the .at[] helper.
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript) \
            and isinstance(func.value.value, ast.Attribute) and func.value.value.attr == "at":
        name = f"{_ARRAY}at[].{method}"
    else:
        name = _ARRAY + method
    return name if _tables(hit).knows(name) else None


class _Array:
    """A value the code surely makes an array (the tables' "array" kind)."""


ARRAY = _Array()


class _Display(tuple):
    """A list or tuple written out whose items are not all constants (``[x, y]`` of arrays): the
    tables' "tuple" kind (``jnp.concatenate([x, y])``), not a Python constant."""


def _value_kind(hit: Hit, node: ast.AST, depth: int = 0, scope=None):
    """What an argument is, as the tables' facts say it: a literal, ARRAY (a Ref read
    ``x_ref[...]``, a jnp/lax result, arithmetic on those), or UNKNOWN (a kernel parameter: a
    Ref, a Python number or an array, the analysis cannot tell). A helper's parameter is what
    the call on the kernel's path to the helper passes."""
    scope = scope if scope is not None else hit.site.scope
    if scope is hit.site.scope:
        v = hit.literal(node)
        if v is not NOT_KNOWN:
            return v
    else:  # (an argument at a call on the way: a Python constant there)
        c = hit.ev.value(node, scope)
        if isinstance(c, Const):
            return c.value
    if depth > 4:
        return UNKNOWN
    if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return _Display()  # (a sequence whatever its items are: fact_value makes it "tuple")
    if isinstance(node, ast.Subscript):
        return ARRAY  # (reading a Ref or indexing an array gives an array)
    if isinstance(node, ast.Call):
        name = hit.api_of(node)
        if name and (name.startswith(("jax.numpy.", "jax.lax.", "jax.nn.")) or name in _TRACED_PALLAS):
            return ARRAY
        if name is None and isinstance(node.func, ast.Attribute) and node.func.attr in _ARRAY_METHODS \
                and _value_kind(hit, node.func.value, depth + 1, scope) is ARRAY:
            return ARRAY  # x.astype(...), x.reshape(...) of an array
        return UNKNOWN
    if isinstance(node, ast.BinOp):
        kinds = (_value_kind(hit, node.left, depth + 1, scope), _value_kind(hit, node.right, depth + 1, scope))
        return ARRAY if ARRAY in kinds else UNKNOWN
    if isinstance(node, ast.Name):
        source = _name_source(hit, node, scope)
        if source is not None:
            return _value_kind(hit, source[0], depth + 1, source[1])
    return UNKNOWN


def _name_source(hit: Hit, node: ast.Name, scope):
    """(expression, its scope) a local name stands for: its assignment in ``scope``, or for a
    helper's parameter what the call on the kernel's path passes; None when neither."""
    order = hit.ev.order_of(hit.site) if scope is hit.site.scope else None
    b = hit.ev.lookup(node.id, scope, order)
    if b is None or b.scope is not scope:
        return None
    if b.kind == "assign" and b.node is not None:
        return b.node, scope
    if b.kind == "param":
        return _passed_on_the_path(hit, scope, node.id)
    return None


def _passed_on_the_path(hit: Hit, scope, name: str):
    """(argument node, its scope) for parameter ``name`` of the helper ``scope``, at the call
    by which the kernel reaches it; None for the kernel itself or when it cannot be told."""
    chain = hit.reached.chain if hit.reached is not None else ()
    steps = [s for s in chain if getattr(s, "node", None) is not None and hasattr(s, "positional")]
    into = next((s for s in reversed(steps) if hit.ev.function_of(
        hit.ev.value(s.node.func, s.scope, hit.ev.order_of(s))) is scope), None)
    if into is None:
        return None
    for inv in hit.ev.callers_of(scope):
        if inv.site is into:
            bound = hit.ev.bind_param(inv, name)
            if bound is not None and bound.node is not None and not bound.default and bound.scope is not None:
                return bound.node, bound.scope
    return None


def _facts(hit: Hit) -> tuple[dict, list] | None:
    """Keyword values and positional values the code says (UNKNOWN where it does not); None
    when the call passes ``*args`` or ``**kwargs``."""
    if hit.site.has_star:
        return None
    facts = {}
    for kw in hit.site.node.keywords:
        v = hit.literal(kw.value)
        if v is NOT_KNOWN:
            v = _dtype_name(hit, kw.value)
        facts[kw.arg] = UNKNOWN if v is NOT_KNOWN else v
    positional = [_value_kind(hit, node) for node in hit.site.positional]
    return facts, positional


# The tables record a dtype as its name ("float32"), as jnp and NumPy spell it.
_DTYPE_MODULES = ("jax.numpy.", "numpy.")
_DTYPE_NAMES = frozenset({"bool", "bool_", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16",
                          "uint32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
                          "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
                          "float8_e5m2fnuz"})


def _dtype_name(hit: Hit, node: ast.AST):
    """``"float32"`` for ``jnp.float32``, ``np.float32`` or ``jnp.dtype("float32")`` (through
    names); NOT_KNOWN for anything else."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and hit.api_of(node.func) in ("jax.numpy.dtype", "numpy.dtype"):
        v = hit.literal(node.args[0])
        return v if isinstance(v, str) and v in _DTYPE_NAMES else _dtype_name(hit, node.args[0])
    name = hit.api_of(node)
    if name is not None and name.startswith(_DTYPE_MODULES):
        leaf = name.rsplit(".", 1)[1]
        if leaf in _DTYPE_NAMES:
            return leaf
    return NOT_KNOWN


def _operator_function(key: str) -> str:
    """The tables' name of an operator: ``jax.Array.__getitem__`` for ``x[...]``, ``jax.Array.T``."""
    return _ARRAY + ("__getitem__" if key == SUBSCRIPT_KEY else key[len("operator:."):])


def _surely_array(hit: Hit, node: ast.AST, depth: int = 0, scope=None) -> bool:
    """Whether ``node`` is surely an array value, not a Ref, a tuple or a list: indexing or
    transposing it then traces jnp's own operations. Stricter than :func:`_value_kind`:
    ``refs[0]`` may be a Ref and ``lax.top_k(x, k)[1]`` an element of a tuple, so only a Ref
    read with ``[...]`` (or a multi-dimensional index), arithmetic on arrays, array methods and
    names bound to those count."""
    scope = scope if scope is not None else hit.site.scope
    if depth > 6:
        return False
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, ast.Constant) and index.value is Ellipsis:
            return isinstance(node.value, ast.Name) or _surely_array(hit, node.value, depth + 1, scope)
        if isinstance(index, ast.Tuple) and len(index.elts) > 1 and isinstance(node.value, ast.Name):
            return True  # (a tuple or list cannot take a multi-dimensional index: a Ref or array read)
        return _surely_array(hit, node.value, depth + 1, scope)
    if isinstance(node, ast.BinOp):
        return _surely_array(hit, node.left, depth + 1, scope) or _surely_array(hit, node.right, depth + 1, scope)
    if isinstance(node, ast.UnaryOp):
        return _surely_array(hit, node.operand, depth + 1, scope)
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        return _surely_array(hit, node.value, depth + 1, scope)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("astype", "reshape", "transpose", "squeeze", "ravel", "flatten"):
        return _surely_array(hit, node.func.value, depth + 1, scope)
    if isinstance(node, ast.Name):
        source = _name_source(hit, node, scope)
        if source is not None:
            return _surely_array(hit, source[0], depth + 1, source[1])
    return False


def _base_shape(hit: Hit, node: ast.expr, depth: int = 0):
    """The shape of the array being indexed, where the code says it: a Ref read ``x_ref[...]``
    of a kernel parameter (its block, or its whole operand), directly or through a name, or an
    array the shapes module knows (``jnp.ones((8, 128))``)."""
    ev = hit.ev
    if isinstance(node, ast.Name) and depth < 4:
        b = ev.lookup(node.id, hit.site.scope, ev.order_of(hit.site))
        if b is not None and b.kind == "assign" and b.node is not None and b.scope is hit.site.scope:
            return _base_shape(hit, b.node, depth + 1)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value is Ellipsis \
            and isinstance(node.value, ast.Name) and hit.site.scope is hit.launch.kernel:
        return shapes.kernel_ref_shapes(ev, hit.launch).get(node.value.id)
    return shapes.array_shape(ev, node, hit.site.scope, ev.order_of(hit.site))


def _index_kind(hit: Hit, node: ast.expr, dim: int | None = None) -> tuple[str | None, bool]:
    """The tables' ``index`` fact of one entry of an index (``None`` when the analysis cannot
    tell it, "full" for ``:``), and whether it surely slices: jnp skips ``lax.slice`` when the
    static slice is the whole array (``is_trivial_slice``), which ``x[:64]`` or ``x[0]`` may be
    (a dimension of 64, or of 1) unless the dimension ``dim`` is known; ``x[1:]``, ``x[:-1]``,
    ``x[::2]`` and ``x[3]`` are not."""
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return "ellipsis", False
    if isinstance(node, ast.Constant) and node.value is None:
        return "newaxis", False
    if isinstance(node, ast.Slice):
        bounds = []
        for part in (node.lower, node.upper, node.step):
            v = None if part is None else _int_or_literal(hit, part)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                return None, False  # (a bound the analysis cannot tell, or a traced one)
            bounds.append(v)
        lower, upper, step = bounds
        if step in (None, 1):
            if lower in (None, 0) and upper is None:
                return "full", False
            return "static_slice", lower not in (None, 0) or (upper is not None and upper <= 0) \
                or (upper is not None and dim is not None and upper < dim)
        if step == -1 and lower is None and upper is None:
            return "reverse_slice", False
        return "strided_slice", True
    v = _int_or_literal(hit, node)
    if isinstance(v, int) and not isinstance(v, bool):
        return "static_int", v not in (0, -1) or (dim is not None and dim != 1)
    return None, False


def _int_or_literal(hit: Hit, node: ast.expr):
    """A literal, or integer arithmetic on constants (``C // 2``)."""
    v = hit.literal(node)
    if v is NOT_KNOWN:
        d = shapes.dimension(hit.ev, node, hit.site.scope, hit.ev.order_of(hit.site))
        return d if d is not None else NOT_KNOWN
    return v


def _operator_emits(hit: Hit) -> frozenset[str] | None:
    """What ``x.T`` or ``x[...]`` on an array surely emits (None when it cannot be told)."""
    node = hit.site.node
    if not _surely_array(hit, node.value):
        return None
    t = _tables(hit)
    function = _operator_function(hit.api)
    if isinstance(node, ast.Attribute):
        emitted = t.emitted(function, {"arg_dtype": "float32"})
        return emitted.always if emitted is not None and emitted.exact else None
    entries = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    shape = _base_shape(hit, node.value)
    if shape is not None and (len(shape) < len(entries) or any(
            isinstance(e, ast.Constant) and (e.value is None or e.value is Ellipsis) for e in entries)):
        shape = None  # (new axes or an ellipsis: which entry is which dimension is not followed)
    prims: set[str] = set()
    slices = False
    for i, entry in enumerate(entries):
        kind, surely = _index_kind(hit, entry, shape[i] if shape is not None else None)
        if kind is None:
            return None
        if kind == "full":
            continue
        emitted = t.emitted(function, {"index": kind, "arg_dtype": "float32"})
        if emitted is None or not emitted.exact:
            return None
        prims |= emitted.always
        slices |= surely
    if not slices:
        prims.discard("slice")  # (the slice may be the whole array: jnp then emits none)
    return frozenset(prims)


def _receiver_is_array(hit: Hit) -> bool:
    """For a method call: the value it is called on is surely an array (``x.cumsum()`` with
    ``x = x_ref[...]``), not a Ref (``o_ref.at[i].set(v)`` on a Ref is a store)."""
    node = hit.site.node.func
    if not isinstance(node, ast.Attribute):
        return False
    base = node.value
    while isinstance(base, ast.Subscript) or (isinstance(base, ast.Attribute) and base.attr == "at"):
        base = base.value
    return _value_kind(hit, base) is ARRAY


def _call_emits(hit: Hit) -> frozenset[str] | None:
    """What a call surely emits (None when it cannot be told)."""
    function = _function(hit)
    if function is None or (hit.api.startswith(".") and not _receiver_is_array(hit)):
        return None
    got = _facts(hit)
    if got is None:
        return None
    facts, positional = got
    if not hit.api.startswith(".") and positional \
            and all(v is not UNKNOWN and not isinstance(v, (_Array, _Display)) for v in positional):
        return None  # (Python constants only: jnp.array(42) is a constant, no primitive is traced)
    t = _tables(hit)
    # Keywords the tables never traced a variant on did not change what was traced: left out
    # (an untraced value of a keyword that does matter still makes the answer inexact).
    matters = t.fact_names(function)
    facts = {k: v for k, v in facts.items() if k in matters}
    params = t.parameters(function)
    positional = [v if i < len(params) and params[i] in matters else UNKNOWN for i, v in enumerate(positional)]
    emitted = t.emitted(function, facts, positional)
    if emitted is None or not emitted.exact:
        return None  # (the call passes something the tables never traced: not claimed)
    if _depends_on_unknown(t, function, facts, positional):
        return None
    if emitted.always != emitted.sometimes and "arg_dtype" not in facts:
        # What it emits depends on the dtype, which the analysis does not follow: kernels
        # compute in floating point (jnp.floor of an int array emits nothing), so float32.
        as_float = t.emitted(function, {**facts, "arg_dtype": "float32"}, positional)
        if as_float is not None and as_float.exact:
            emitted = as_float
    return emitted.always


class PrimitiveNotLowered(PythonRule):
    """A compiled kernel calls an operation its backend cannot lower.

    Each Pallas backend (Mosaic TPU, Triton, Mosaic GPU in Warpgroup or Lane semantics)
    registers lowering rules for a set of JAX primitives; a kernel that traces to any other
    primitive fails when it is compiled: `NotImplementedError: Unimplemented primitive in
    Pallas TPU lowering for tc: cumsum` and the like. What a call emits is not its name:
    `jnp.argsort` emits `sort`, `jax.nn.gelu(approximate=False)` emits `erfc`,
    `x.at[i].set(v)` emits `scatter`, and operators count too (`x.T` emits `transpose`,
    `x[::-1]` `rev`, `x[1:]` `slice`). Both sides come from tables generated from the pinned
    jax; a rule that exists can still reject parameters, shapes or layouts, which this rule
    does not claim. With no evidence of the backend (and no `backends` setting) only
    operations no Pallas backend lowers are reported, as warnings. Where a rewrite is known to
    lower on that backend (read the window from the Ref instead of slicing the loaded array,
    `jnp.sin(x) / jnp.cos(x)` for `tan` on Mosaic GPU), the hover says it; each was lowered
    under the pinned jax.
    """

    code = "PAL401"
    name = "primitive-not-lowered"
    record = "tpu-lower-unimplemented-primitive"
    summary = "an operation in a compiled kernel that the backend's Pallas lowering has no rule for"
    construct = "call"
    modes = frozenset({Mode.TPU, Mode.TRITON, Mode.MOSAIC_GPU, Mode.COMPILED})

    def __init__(self) -> None:
        self.apis = _dispatch_keys()  # (from the tables: read when the rule set is made)

    def check(self, hit: Hit) -> Report | None:
        always = _operator_emits(hit) if hit.kind == "operator" else _call_emits(hit)
        if always is None:
            return None
        t = _tables(hit)
        backends = _backends(hit)
        missing = {b: sorted(p for p in always if not t.lowers(b, p)) for b in backends}
        if len(backends) > 1:  # backend unknown: only what none lowers
            common = sorted(set.intersection(*(set(v) for v in missing.values())))
            if not common:
                return None
            backend, prims, warning = backends[0], common, True
        else:
            backend = backends[0]
            prims, warning = missing[backend], False
            if not prims:
                return None
        primitive = prims[0]
        call = hit.code_of(hit.site.node if hit.kind == "operator" else hit.site.node.func)
        where = BACKEND_WORDS[backend] if not warning else "any Pallas backend"
        error = ("NotImplementedError: " + t.backend(backend).error.format(primitive=primitive)
                 + ". Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.")
        return Report(error, f"`{call}` emits the primitive `{primitive}`, which {where} cannot lower "
                             f"(tables from jax {t.jax_version})",
                      record=RECORD_OF[backend], warning=warning, fixable=False,
                      instead=(t.instead(primitive, backend) or "") if not warning else "")


def _depends_on_unknown(t, function: str, facts: dict, positional: list) -> bool:
    """Whether what the call emits depends on an argument the analysis cannot tell (a variant
    fact left UNKNOWN): jnp.array(n) of a Python number emits nothing, of an array a copy."""
    varied = t.varied_facts(function)
    unknown = {k for k, v in facts.items() if v is UNKNOWN}
    for name, value in zip(t.parameters(function), positional):
        if value is UNKNOWN and not name.startswith("*"):
            unknown.add(name)
    return bool(varied & unknown)
