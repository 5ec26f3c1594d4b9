"""What Mosaic TPU's lowering of a matmul or a reduction decides on, read from a kernel body:
the operands' dtypes and ranks as ``dot_general`` sees them (after jnp's dtype promotion), the
``precision``, the ``preferred_element_type``, the number of batch dimensions, and the dtype a
reduction or an arg-reduction runs over.

``_dot_general_lowering_rule``, ``reduce_lowering_rule`` and ``_reduce_index_helper`` in
``jax/_src/pallas/mosaic/lowering.py`` decide on exactly these; every fact here is None where the
code does not spell it out (a rule then stays quiet). Dtypes come from ``kernel_values``; a
helper's parameter is read as the call on the kernel's path passes it (the hit's frames).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import api
from .evaluate import Const, Evaluator, Frames, Order, TupleVal
from .kernel_values import KernelValues, dtype_named, is_float, is_int
from .scopes import Scope

NP = "jax.numpy."
LAX = "jax.lax."
# Calls that trace one dot_general of their two operands, and where the operands sit.
DOT_CALLS = {f"{NP}dot": 0, f"{NP}matmul": 0, f"{NP}inner": 0, f"{NP}vdot": 0, f"{NP}einsum": 1,
             f"{LAX}dot": 0, f"{LAX}dot_general": 0, f"{api.PL}.dot": 0}
PL_DOT = f"{api.PL}.dot"  # pl.dot: 2-D operands only, picks its own result dtype
MATMUL_OPERATOR = "@"  # ``a @ b`` (jnp.matmul)
# jnp functions promote their operands to one dtype first; lax and pl.dot's operands reach
# dot_general as they are.
_PROMOTING = {f"{NP}dot", f"{NP}matmul", f"{NP}inner", f"{NP}vdot", f"{NP}einsum", MATMUL_OPERATOR}
# Precision names as lax.Precision parses them ("tensorfloat32" is HIGH).
_PRECISION_NAMES = {"default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT", "high": "HIGH",
                    "tensorfloat32": "HIGH", "bfloat16_3x": "HIGH", "highest": "HIGHEST", "float32": "HIGHEST"}
_MAX_DEPTH = 8


@dataclass(frozen=True)
class DotFacts:
    """One dot in a kernel body, as Mosaic's ``_dot_general_lowering_rule`` sees it."""

    api: str  # the call's public name, or "@"
    lhs: ast.expr
    rhs: ast.expr
    lhs_dtype: str | None  # as written
    rhs_dtype: str | None
    operand_dtype: str | None  # the dtype both operands reach dot_general with (None: not told or mixed)
    preferred: str | None  # the preferred_element_type named (None: not given or not told)
    preferred_given: bool
    # Per operand ("HIGH", "HIGH"); () when no precision is passed; None when it cannot be told.
    precision: tuple[str, ...] | None
    lhs_rank: int | None
    rhs_rank: int | None
    batch_dims: int | None  # dot_general batch dimensions (None: not told)
    # dot_general contracts the last dim of two rank-2 operands with the rhs's last: the
    # lowering's matrix-vector path (taken when the rhs has one row and a dtype is not float32).
    contracts_rhs_last: bool | None
    einsum_out_rank: int | None = None  # an einsum's output rank (its spec's output labels)


class KernelReader:
    """Reads values of a kernel body in the frames the kernel reached them in: a helper's
    parameter is the argument of the call on the path."""

    def __init__(self, ev: Evaluator, kv: KernelValues, frames: Frames) -> None:
        self.ev = ev
        self.kv = kv
        self.frames = frames

    def resolve(self, node: ast.expr, scope: Scope, order: Order = None, frames: Frames | None = None,
                depth: int = 0) -> tuple[ast.expr, Scope, Order, Frames]:
        """Follows a helper's parameter to the argument the kernel's path passes (as far as
        the frames tell)."""
        frames = self.frames if frames is None else frames
        while isinstance(node, ast.Name) and depth < _MAX_DEPTH:
            bindings = scope.bindings.get(node.id) or []
            if not bindings or any(b.kind != "param" for b in bindings) or scope is self.kv.kernel:
                break
            frame = next((f for f in frames if f.target is scope), None)
            if frame is None or frame.invocation is None:
                break
            bound = self.ev.bind_param(frame.invocation, node.id)
            if bound is None or bound.node is None or bound.default or bound.scope is None:
                break
            node, scope, order, frames = bound.node, bound.scope, bound.order, frame.caller
            depth += 1
        return node, scope, order, frames

    def dtype(self, node: ast.expr, scope: Scope, order: Order = None) -> str | None:
        node, scope, order, _ = self.resolve(node, scope, order)
        return self.kv.dtype_of(node, scope, order)

    def rank(self, node: ast.expr, scope: Scope, order: Order = None, depth: int = 0) -> int | None:
        """The number of dimensions of an array value, where the code says it."""
        if depth > _MAX_DEPTH:
            return None
        node, scope, order, _ = self.resolve(node, scope, order)
        shape = self.kv.shape_of(node, scope, order)
        if shape is not None:
            return len(shape)
        if isinstance(node, ast.Name):
            bindings = scope.bindings.get(node.id) or []
            if len(bindings) == 1 and bindings[0].kind == "assign" and bindings[0].node is not None:
                return self.rank(bindings[0].node, scope, self.ev.order_of(bindings[0]), depth + 1)
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and scope is self.kv.kernel:
            fact = self.kv.ref(node.value.id)
            if fact is not None and fact.shape is not None:
                return _indexed_rank(self.ev, len(fact.shape), node.slice, scope, order)
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
            return self.rank(node.func.value, scope, order, depth + 1)
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            return self.rank(node.value, scope, order, depth + 1)
        return None

    def shape(self, node: ast.expr, scope: Scope, order: Order = None) -> tuple | None:
        node, scope, order, _ = self.resolve(node, scope, order)
        return self.kv.shape_of(node, scope, order)


def _indexed_rank(ev: Evaluator, rank: int, index: ast.expr, scope: Scope, order: Order) -> int | None:
    """The rank of ``ref[index]`` for a Ref of ``rank`` dims: an integer drops its dim, a slice
    keeps it, ``None`` adds one; anything else (an array index) is not told."""
    entries = index.elts if isinstance(index, ast.Tuple) else [index]
    dropped = added = 0
    ellipsis = False
    for e in entries:
        if isinstance(e, ast.Constant) and e.value is Ellipsis:
            ellipsis = True
        elif isinstance(e, ast.Constant) and e.value is None:
            added += 1
        elif isinstance(e, ast.Slice):
            continue
        else:
            c = ev.const(e, scope, order)
            if isinstance(c, int) and not isinstance(c, bool):
                dropped += 1
            else:
                return None  # (pl.ds(...) keeps a dim, an array gathers: not followed)
    used = len(entries) - added - (1 if ellipsis else 0)
    if used > rank:
        return None
    return rank - dropped + added


def dot_facts(reader: KernelReader, name: str, node: ast.Call | ast.BinOp, scope: Scope,
              order: Order) -> DotFacts | None:
    """The facts of a dot call (``name`` in DOT_CALLS) or of ``a @ b``; None when its operands
    cannot be told apart (``*args``, an einsum of other than two operands)."""
    ev = reader.ev
    keywords: dict[str, ast.expr] = {}
    spec = None
    if isinstance(node, ast.BinOp):
        lhs, rhs = node.left, node.right
    else:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        at = DOT_CALLS[name]
        args = node.args
        if name == f"{NP}einsum":
            if len(args) != 3:
                return None
            spec = ev.const(args[0], scope, order)
        elif len(args) < 2:
            return None
        lhs, rhs = args[at], args[at + 1]
    lhs_dtype = reader.dtype(lhs, scope, order)
    rhs_dtype = reader.dtype(rhs, scope, order)
    lhs_rank = reader.rank(lhs, scope, order)
    rhs_rank = reader.rank(rhs, scope, order)
    preferred_node = keywords.get("preferred_element_type")
    preferred = dtype_named(ev, preferred_node, scope, order) if preferred_node is not None else None
    if name == f"{api.PL}.dot":
        preferred_node, preferred = None, None  # (pl.dot picks int32 or float32 itself)
    precision = _precision(ev, name, node, keywords, scope, order)
    batch, contracts_rhs_last = _dimensions(reader, name, node, keywords, spec, lhs, rhs, lhs_rank, rhs_rank,
                                            scope, order)
    out_rank = None
    if isinstance(spec, str) and "->" in spec and "..." not in spec:
        out_rank = len(spec.split("->")[1].strip())
    return DotFacts(name, lhs, rhs, lhs_dtype, rhs_dtype, _operand_dtype(name, lhs_dtype, rhs_dtype),
                    preferred, preferred_node is not None, precision, lhs_rank, rhs_rank, batch, contracts_rhs_last,
                    out_rank)


def _operand_dtype(name: str, a: str | None, b: str | None) -> str | None:
    """The dtype both operands reach dot_general with: jnp promotes two dtypes of one kind to
    the wider one (uint8 and uint16 to uint16); a mix of kinds or an unknown side is not told."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if name not in _PROMOTING:
        return None
    kinds = {_kind(a), _kind(b)}
    if len(kinds) != 1 or None in kinds or kinds == {"float"}:
        return None  # (bf16 with float16 promotes to float32; mixed kinds: not followed)
    return max((a, b), key=lambda d: int("".join(ch for ch in d if ch.isdigit()) or 0))


def _kind(dtype: str) -> str | None:
    if dtype.startswith("uint"):
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "float" if is_float(dtype) else None


def _precision(ev: Evaluator, name: str, node, keywords: dict, scope: Scope, order: Order) -> tuple[str, ...] | None:
    if name == f"{api.PL}.dot":
        tf32 = keywords.get("allow_tf32")
        if tf32 is not None and "precision" not in keywords:
            c = ev.const(tf32, scope, order)
            if c is True:
                return ("HIGH", "HIGH")
            if c is False:
                return ("HIGHEST", "HIGHEST")
            return None if not (isinstance(tf32, ast.Constant) and tf32.value is None) else ()
    given = keywords.get("precision")
    if given is None:
        if not isinstance(node, ast.BinOp) and name == f"{LAX}dot_general" and len(node.args) > 3:
            given = node.args[3]
        elif not isinstance(node, ast.BinOp) and name == f"{LAX}dot" and len(node.args) > 2:
            given = node.args[2]  # (jnp's precision is keyword-only)
        else:
            return ()
    if isinstance(given, ast.Constant) and given.value is None:
        return ()
    if isinstance(given, (ast.Tuple, ast.List)):
        if len(given.elts) != 2:
            return None
        parts = [_precision_name(ev, e, scope, order) for e in given.elts]
        return tuple(parts) if None not in parts else None  # type: ignore[arg-type]
    one = _precision_name(ev, given, scope, order)
    if one is not None:
        return (one, one)
    v = ev.value(given, scope, order)
    if isinstance(v, TupleVal) and len(v.items) == 2:
        parts = [_precision_name(ev, *item) for item in v.items]
        return tuple(parts) if None not in parts else None  # type: ignore[arg-type]
    return None


def _precision_name(ev: Evaluator, node: ast.expr, scope: Scope, order: Order) -> str | None:
    """"HIGH" for ``lax.Precision.HIGH``, ``jax.lax.Precision("tensorfloat32")``, ``"high"``."""
    return _value_precision(ev, ev.value(node, scope, order))


def _value_precision(ev: Evaluator, v) -> str | None:
    if isinstance(v, Const) and isinstance(v.value, str):
        return _PRECISION_NAMES.get(v.value.lower())
    name = ev.ext_name(v)
    if name is not None and name.startswith("jax.lax.Precision."):
        leaf = name.rsplit(".", 1)[1]
        return leaf if leaf in ("DEFAULT", "HIGH", "HIGHEST") else None
    called = ev.called_api(v)
    if called == "jax.lax.Precision" and getattr(v, "site", None) is not None:
        site = v.site
        args = site.positional
        if len(args) == 1:
            c = ev.const(args[0], site.scope, ev.order_of(site))
            if isinstance(c, str):
                return _PRECISION_NAMES.get(c.lower())
    return None


def _dimensions(reader: KernelReader, name, node, keywords, spec, lhs, rhs, lhs_rank, rhs_rank, scope, order):
    """(number of batch dims, whether the rhs's last dim is contracted with the lhs's last of two
    rank-2 operands), each None where not told."""
    ev = reader.ev
    if name == f"{NP}einsum":
        return _einsum_dimensions(spec)
    if name == f"{LAX}dot_general":
        dn = keywords.get("dimension_numbers")
        if dn is None and len(node.args) > 2:
            dn = node.args[2]
        got = _nested_literal(ev, dn, scope, order) if dn is not None else None
        try:
            (lc, rc), (lb, rb) = got  # type: ignore[misc]
            lc, rc, lb, rb = tuple(lc), tuple(rc), tuple(lb), tuple(rb)
        except (TypeError, ValueError):
            return None, None
        nt = lhs_rank == 2 and rhs_rank == 2 and lc == (1,) and rc == (1,) if None not in (lhs_rank, rhs_rank) \
            else (False if lc != (1,) or rc != (1,) else None)
        return len(lb), nt
    if name == f"{api.PL}.dot":
        trans_b = ev.const(keywords["trans_b"], scope, order) if "trans_b" in keywords else False
        trans_a = ev.const(keywords["trans_a"], scope, order) if "trans_a" in keywords else False
        if not isinstance(trans_a, bool) or not isinstance(trans_b, bool):
            return 0, None
        return 0, (trans_b and not trans_a)
    if name in (f"{NP}matmul", MATMUL_OPERATOR):
        if lhs_rank is None or rhs_rank is None:
            return None, False  # (matmul contracts the rhs's second-to-last dim, never its last)
        if lhs_rank < 3 or rhs_rank < 3:
            return 0, False
        a, b = reader.shape(lhs, scope, order), reader.shape(rhs, scope, order)
        if a is None or b is None:
            return None, False
        # jnp.matmul: a batch dim both sides have, equal and not 1, is a dot_general batch dim
        # (a 1 on either side is squeezed away and broadcast).
        pairs = zip(reversed(a[:-2]), reversed(b[:-2]))
        return sum(1 for x, y in pairs if x == y and x != 1), False
    # jnp.dot, jnp.inner, jnp.vdot, lax.dot: no batch dims; jnp.inner contracts both last dims.
    if name == f"{NP}inner":
        return 0, (True if lhs_rank == 2 and rhs_rank == 2 else (False if lhs_rank is not None
                                                                  and rhs_rank is not None else None))
    return 0, False


def _nested_literal(ev: Evaluator, node: ast.expr, scope: Scope, order: Order, depth: int = 0):
    """Nested tuples of constants (``(((1,), (0,)), ((), ()))``), through names; None if not."""
    if depth > _MAX_DEPTH:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    v = ev.value(node, scope, order)
    if isinstance(v, Const):
        return v.value
    if isinstance(v, TupleVal):
        items = [_nested_literal(ev, n, s, o, depth + 1) for n, s, o in v.items]
        return None if any(i is None for i in items) else tuple(items)
    return None


def _einsum_dimensions(spec) -> tuple[int | None, bool | None]:
    """Batch labels of a two-operand einsum: in both operands and in the output."""
    if not isinstance(spec, str) or "..." in spec or "->" not in spec:
        return None, None
    ins, out = spec.replace(" ", "").split("->")
    parts = ins.split(",")
    if len(parts) != 2 or not all(p.isalpha() for p in parts) or not (out.isalpha() or out == ""):
        return None, None
    a, b = parts
    batch = set(a) & set(b) & set(out)
    contracted = (set(a) & set(b)) - set(out)
    nt = len(a) == 2 and len(b) == 2 and not batch and contracted == {a[1]} and b[1] == a[1]
    return len(batch), nt


# -- reductions --------------------------------------------------------------------------------
# What a reduction traces: the reduce primitive and whether jnp promotes small integers first
# (jnp.sum: int8/int16/bool to int32, unsigned to uint32; max/min keep the dtype).
REDUCTIONS = {f"{NP}max": "max", f"{NP}min": "min", f"{NP}amax": "max", f"{NP}amin": "min",
              f"{NP}sum": "sum", f"{LAX}reduce_max": "max", f"{LAX}reduce_min": "min", f"{LAX}reduce_sum": "sum",
              ".max": "max", ".min": "min", ".sum": "sum"}
ARG_REDUCTIONS = {f"{NP}argmax", f"{NP}argmin", f"{LAX}argmax", f"{LAX}argmin", ".argmax", ".argmin"}


def reduced_operand(name: str, node: ast.Call) -> ast.expr | None:
    """The array a reduction call reduces: the receiver of a method, else the first argument."""
    if name.startswith("."):
        return node.func.value if isinstance(node.func, ast.Attribute) else None
    if not node.args or isinstance(node.args[0], ast.Starred):
        return None
    return node.args[0]


def reduce_input_dtype(reader: KernelReader, name: str, node: ast.Call, scope: Scope, order: Order) -> str | None:
    """The dtype the reduce primitive runs over: the operand's, except that ``jnp.sum`` promotes
    small integers (and reads ``dtype=``)."""
    operand = reduced_operand(name, node)
    if operand is None or any(k.arg is None for k in node.keywords):
        return None
    dtype = reader.dtype(operand, scope, order)
    if dtype is None:
        return None
    if REDUCTIONS[name] != "sum" or name == f"{LAX}reduce_sum":
        return dtype
    asked = next((k.value for k in node.keywords if k.arg == "dtype"), None)
    if asked is not None:
        if isinstance(asked, ast.Constant) and asked.value is None:
            asked = None
        else:
            return dtype_named(reader.ev, asked, scope, order)
    if dtype == "bool" or (dtype.startswith("int") and dtype not in ("int64",)):
        return "int32" if dtype in ("bool", "int8", "int16", "int32") else dtype
    if dtype.startswith("uint"):
        return "uint32" if dtype in ("uint8", "uint16", "uint32") else dtype
    return dtype


def reduction_rejects(dtype: str | None) -> bool:
    """Whether Mosaic TPU's reduce_lowering_rule rejects a reduction over ``dtype``: it takes
    floats and int32 only."""
    return dtype is not None and is_int(dtype) and dtype != "int32"


def arg_reduction_index_dtype(reader: KernelReader, name: str, node: ast.Call, scope: Scope,
                              order: Order) -> str | None:
    """The index dtype an arg-reduction asks: int32 for jnp's (with x64 off) and the Array
    methods, lax's third argument / ``index_dtype=``."""
    if not name.startswith(LAX):
        return "int32"
    given = next((k.value for k in node.keywords if k.arg == "index_dtype"), None)
    if given is None and len(node.args) > 2:
        given = node.args[2]
    return dtype_named(reader.ev, given, scope, order) if given is not None else None
