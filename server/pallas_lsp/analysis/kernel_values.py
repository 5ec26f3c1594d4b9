"""The dtypes (and, where spelled out, shapes) of a compiled launch's kernel Refs and of the values
its kernel body computes.

Mosaic TPU refuses some operations for some element types only (vector arithmetic on 8-bit
integers, float16 vectors, fp8 elementwise arithmetic, 64-bit types...). Whether a kernel does
one of those depends on dtypes the code states far from the kernel: the operands the launch is
applied to (``jnp.ones(..., dtype=jnp.int8)``, ``x.astype(jnp.bfloat16)``), its ``out_shape``,
its scratch (``pltpu.VMEM((8, 128), jnp.float32)``), and casts inside the body. This module reads
them where the code says them; anything it cannot tell is None, never a guess.

The kernel's positional Ref parameters are, in order: the scalar-prefetch operands (SMEM), the
inputs, the outputs, the scratch buffers (``pallas_call`` and ``pl.kernel`` alike).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import api
from .applications import kernel_operand_params
from .evaluate import CallVal, Evaluator, Ext, Order, TupleVal, launch_fact
from .launch_signature import applications, dtype_name, grid_spec_call
from .launch_specs import read_launch_specs, spec_tree
from .scopes import CallSite, Scope
from .shapes import Shape, array_shape, kernel_ref_shapes, shape_literal

Where = tuple[ast.AST, Scope, Order]

_MAX_DEPTH = 8
_MAX_HELPERS = 3  # calls followed from the kernel into the module's functions
_NP = "jax.numpy."
# Array constructors and where their dtype argument sits (position, or None: keyword only).
_DTYPE_POSITION: dict[str, int | None] = {
    f"{_NP}{n}": 1 for n in ("zeros", "ones", "empty", "asarray", "array", "zeros_like", "ones_like", "empty_like")}
_DTYPE_POSITION.update({f"{_NP}full": 2, f"{_NP}full_like": 2, f"{_NP}arange": None, f"{_NP}linspace": None,
                        "jax.ShapeDtypeStruct": 1, "numpy.zeros": 1, "numpy.ones": 1, "numpy.empty": 1,
                        "numpy.full": 2, "numpy.arange": None, "numpy.asarray": 1, "numpy.array": 1,
                        "jax.lax.convert_element_type": 1, "jax.lax.full": 2, "jax.lax.iota": 0,
                        "jax.lax.broadcasted_iota": 0})
_DTYPE_POSITION.update({f"jax.random.{n}": None for n in ("normal", "uniform", "randint", "truncated_normal",
                                                          "bits", "bernoulli")})
# ``*_like`` constructors and casts-with-default: without a dtype they keep their first argument's.
_KEEPS_ARG_DTYPE = {f"{_NP}{n}" for n in ("zeros_like", "ones_like", "empty_like", "full_like", "asarray",
                                          "array")}
# Functions of one array that keep its dtype (elementwise on floats, layout changes on any dtype).
_SAME_DTYPE_UNARY = {f"{_NP}{n}" for n in ("abs", "negative", "transpose", "reshape", "expand_dims", "squeeze",
                                           "broadcast_to", "ravel", "flip", "roll", "tile", "repeat", "max",
                                           "min", "amax", "amin", "swapaxes", "moveaxis")} | {
    f"jax.lax.{n}" for n in ("neg", "abs", "transpose", "reshape", "broadcast_in_dim", "squeeze", "expand_dims",
                             "rev", "slice", "dynamic_slice", "broadcast")}
# Float functions: the same float dtype out (an integer operand would be promoted: not told).
_SAME_FLOAT_UNARY = {f"{_NP}{n}" for n in ("exp", "log", "tanh", "sqrt", "sin", "cos", "floor", "ceil", "round",
                                           "exp2", "log1p", "expm1", "reciprocal", "square", "sign")} | {
    f"jax.lax.{n}" for n in ("exp", "log", "tanh", "sqrt", "rsqrt", "sin", "cos", "floor", "ceil", "round",
                             "logistic", "erf")} | {"jax.nn.sigmoid", "jax.nn.relu", "jax.nn.gelu", "jax.nn.silu"}
# Functions of two arrays of one dtype that give that dtype.
_SAME_DTYPE_BINARY = {f"{_NP}{n}" for n in ("maximum", "minimum", "add", "subtract", "multiply")} | {
    f"jax.lax.{n}" for n in ("max", "min", "add", "sub", "mul")}
_DOTS = {f"{_NP}dot", f"{_NP}matmul", "jax.lax.dot_general", "jax.lax.dot", f"{_NP}einsum"}
_REF_LOADS = {f"{api.PL}.load", f"{api.PLTPU}.load"}
_DTYPE_MODULES = ("jax.numpy.", "numpy.")
_DTYPE_NAMES = frozenset({"bool", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32",
                          "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                          "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz",
                          "float8_e8m0fnu", "float8_e3m4", "float8_e4m3"})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr,
               ast.BitXor, ast.LShift, ast.RShift)
# Memory spaces as the API spells them, by the last part of the name.
_SPACES = {"VMEM": "VMEM", "SMEM": "SMEM", "ANY": "ANY", "HBM": "HBM", "SEMAPHORE": "SEMAPHORE",
           "VMEM_SHARED": "VMEM_SHARED", "GMEM": "GMEM"}


def is_float(dtype: str | None) -> bool:
    return dtype is not None and (dtype.startswith(("float", "bfloat")))


def is_int(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith(("int", "uint"))


def bits(dtype: str | None) -> int | None:
    """Bits per element (``int8`` 8, ``bfloat16`` 16, ``float8_e4m3fn`` 8, ``bool`` None)."""
    if dtype is None or dtype == "bool":
        return None
    if dtype.startswith("float8"):
        return 8
    digits = "".join(ch for ch in dtype.split("_")[0] if ch.isdigit())
    return int(digits) if digits else None


@dataclass(frozen=True)
class RefFact:
    """What the code says of one kernel Ref: ``role`` ("prefetch", "in", "out", "scratch"),
    ``position`` among that role's operands, its dtype, memory space and shape (None: not said),
    and where it is declared (the BlockSpec or scratch entry when one is written, else the
    operand or ``out_shape`` entry), to point at."""

    role: str
    position: int
    dtype: str | None = None
    space: str | None = None
    shape: Shape | None = None
    declared: Where | None = None
    spec: Where | None = None  # the BlockSpec written for it, if any
    source: Where | None = None  # the operand passed, the ``out_shape`` entry, or the scratch entry


class KernelValues:
    """The dtypes of one launch's kernel Refs, and of the expressions of its kernel body (and of
    the functions it defines or calls in this module, their parameters as the kernel passes them)."""

    def __init__(self, ev: Evaluator, launch, refs: dict[str, RefFact]) -> None:
        self.ev = ev
        self.launch = launch
        self.kernel: Scope | None = launch.kernel
        self.refs = refs
        # helper scope id -> the calls the kernel makes of it: (call, the caller's scope)
        self._calls_into: dict[int, list[tuple[ast.Call, Scope]]] = {}
        self._scopes: list[Scope] | None = None

    # -- Refs ----------------------------------------------------------------------------------
    def ref(self, param_name: str) -> RefFact | None:
        return self.refs.get(param_name)

    def ref_dtype(self, param_name: str) -> str | None:
        fact = self.refs.get(param_name)
        return fact.dtype if fact is not None else None

    def ref_space(self, param_name: str) -> str | None:
        """The memory space a spec, scratch entry or scalar prefetch says ("VMEM", "SMEM",
        "ANY", "HBM", "SEMAPHORE"); None where the code leaves the backend's default."""
        fact = self.refs.get(param_name)
        return fact.space if fact is not None else None

    def in_vector_memory(self, param_name: str) -> bool:
        """The Ref surely lives in TPU VMEM when the launch compiles for TPU: said so, or a
        ``pallas_call`` block with no memory space (Mosaic TPU's default for blocks)."""
        fact = self.refs.get(param_name)
        if fact is None:
            return False
        if fact.space is not None:
            return fact.space == "VMEM"
        return self.launch.api.name == api.PALLAS_CALL and fact.role in ("in", "out")

    # -- the code the kernel runs ----------------------------------------------------------------
    def scopes(self) -> list[Scope]:
        """The kernel, the functions defined inside it, and the functions of this module it (or
        they) call, a few calls deep: the code whose values :meth:`dtype_of` follows."""
        if self._scopes is not None:
            return self._scopes
        out: list[Scope] = []
        todo = [(self.kernel, 0)] if self.kernel is not None else []
        while todo:
            scope, depth = todo.pop(0)
            if scope is None or any(s is scope for s in out) or scope.node is None:
                continue
            out.append(scope)
            for cs in scope.calls:
                callee = self.ev.function_of(self.ev.value(cs.node.func, scope, self.ev.order_of(cs)))
                if callee is None or callee.node is None or depth >= _MAX_HELPERS:
                    continue
                self._calls_into.setdefault(id(callee), []).append((cs.node, scope))
                todo.append((callee, depth + 1))
            for child in scope.children:
                if child.kind in ("function", "lambda"):
                    todo.append((child, depth))
        self._scopes = out
        return out

    def nodes(self):
        """(expression, the scope it is in) for every expression of :meth:`scopes`, nested
        functions' own expressions under their own scope."""
        for scope in self.scopes():
            body = scope.node.body if isinstance(scope.node, ast.Lambda) else scope.node
            for node in _own_nodes(body):
                yield node, scope

    # -- values in the kernel body -------------------------------------------------------------
    def dtype_of(self, node: ast.AST, scope: Scope | None = None, order: Order = None, depth: int = 0) -> str | None:
        """The dtype of an expression of the kernel body (``scope``: the function it is in, the
        kernel by default), where it follows from what the code says."""
        scope = scope if scope is not None else self.kernel
        if scope is None or node is None or depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            sources = self._sources(node, scope, order)
            if not sources:
                return None
            found = {self.dtype_of(n, s, o, depth + 1) for n, s, o in sources}
            return found.pop() if len(found) == 1 else None
        if isinstance(node, ast.Subscript):
            base = node.value
            ref = self.ref_name(base, scope)
            if ref is not None:
                return self.ref_dtype(ref)
            if isinstance(base, ast.Attribute) and base.attr == "at":
                return None  # (``x.at[i]``: a view or an update, not a value)
            return self.dtype_of(base, scope, order, depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
            return self.dtype_of(node.operand, scope, order, depth + 1)
        if isinstance(node, ast.Compare):
            return "bool" if self._operands_known(node, scope, order, depth) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return self._binary(node.left, node.right, node.op, scope, order, depth)
        if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
            return self.dtype_of(node.value, scope, order, depth + 1)
        if isinstance(node, ast.Call):
            return self._call_dtype(node, scope, order, depth)
        return None

    def storage(self, node: ast.AST, scope: Scope | None = None, order: Order = None, depth: int = 0) -> str | None:
        """Where a value of the kernel body lives when Mosaic compiles it: "vector" (read from a
        VMEM Ref with a slice or ``...``, or arithmetic on such), "scalar" (one element read from
        an SMEM Ref), or None where the code does not say."""
        scope = scope if scope is not None else self.kernel
        if scope is None or node is None or depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            sources = self._sources(node, scope, order)
            found = {self.storage(n, s, o, depth + 1) for n, s, o in sources}
            return found.pop() if len(found) == 1 else None
        if isinstance(node, ast.Subscript):
            ref = self.ref_name(node.value, scope)
            if ref is None:
                return None
            if self.ref_space(ref) == "SMEM" or self.ref(ref).role == "prefetch":  # type: ignore[union-attr]
                entries = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                return "scalar" if not any(_sliced(e) for e in entries) else None
            if self.in_vector_memory(ref):
                entries = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                return "vector" if any(_sliced(e) for e in entries) else None
            return None
        if isinstance(node, ast.UnaryOp):
            return self.storage(node.operand, scope, order, depth + 1)
        if isinstance(node, ast.BinOp):
            left = self.storage(node.left, scope, order, depth + 1)
            right = self.storage(node.right, scope, order, depth + 1)
            if "vector" in (left, right):
                return "vector"
            if left == right:
                return left
            if left is None and self._is_number(node.left, scope, order):
                return right  # (a scalar and a Python number)
            if right is None and self._is_number(node.right, scope, order):
                return left
            return None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("astype", "reshape", "T") \
                    and self._method_on_value(func, scope):
                return self.storage(func.value, scope, order, depth + 1)
            name = self._api(node, scope, order)
            if name is not None and name.startswith(_DTYPE_MODULES) and name.rsplit(".", 1)[1] in _DTYPE_NAMES \
                    and node.args:
                if self._is_number(node.args[0], scope, order):
                    return "scalar"  # (``jnp.int8(2)``: a constant scalar)
                return self.storage(node.args[0], scope, order, depth + 1)  # (``jnp.int32(x)``)
            if name in _SAME_DTYPE_UNARY or name == "jax.lax.convert_element_type":
                return self.storage(node.args[0], scope, order, depth + 1) if node.args else None
        return None

    def source_ref(self, node: ast.AST, scope: Scope | None = None, order: Order = None, depth: int = 0) -> str | None:
        """The kernel Ref whose read ``node`` is, through names, layout changes and arithmetic
        that keep its dtype (the first such Ref); None when it is made otherwise."""
        scope = scope if scope is not None else self.kernel
        if scope is None or node is None or depth > _MAX_DEPTH:
            return None
        want = self.dtype_of(node, scope, order)
        if isinstance(node, ast.Name):
            for n, s, o in self._sources(node, scope, order):
                got = self.source_ref(n, s, o, depth + 1)
                if got is not None:
                    return got
            return None
        if isinstance(node, ast.Subscript):
            return self.ref_name(node.value, scope)
        parts: list[ast.AST] = []
        if isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            parts = [node.operand]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr != "astype":
            parts = [node.func.value]
        elif isinstance(node, ast.Call):
            parts = list(node.args[:1])
        for part in parts:
            if self.dtype_of(part, scope, order) == want:
                got = self.source_ref(part, scope, order, depth + 1)
                if got is not None:
                    return got
        return None

    def shape_of(self, node: ast.AST, scope: Scope | None = None, order: Order = None, depth: int = 0) -> Shape | None:
        """The shape of an expression of the kernel body where the code spells it out: a whole
        Ref read (``x_ref[...]``) of a Ref whose block is known, casts and elementwise arithmetic
        of such values, ``jnp.expand_dims``, and arrays made with a literal shape."""
        scope = scope if scope is not None else self.kernel
        if scope is None or node is None or depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Name):
            sources = self._sources(node, scope, order)
            found = {self.shape_of(n, s, o, depth + 1) for n, s, o in sources}
            return found.pop() if len(found) == 1 else None
        if isinstance(node, ast.Subscript):
            ref = self.ref_name(node.value, scope)
            if ref is not None and _whole(node.slice):
                fact = self.refs.get(ref)
                return fact.shape if fact is not None else None
            return None
        if isinstance(node, ast.UnaryOp):
            return self.shape_of(node.operand, scope, order, depth + 1)
        if isinstance(node, ast.BinOp):
            left = self.shape_of(node.left, scope, order, depth + 1)
            right = self.shape_of(node.right, scope, order, depth + 1)
            if left is not None and right is not None:
                return left if left == right else None
            other = node.right if left is not None else node.left
            return (left or right) if self._is_number(other, scope, order) else None
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "astype" and self._method_on_value(func, scope):
                return self.shape_of(func.value, scope, order, depth + 1)
            name = self._api(node, scope, order)
            if name == f"{_NP}expand_dims" and len(node.args) == 2 and not node.keywords:
                inner = self.shape_of(node.args[0], scope, order, depth + 1)
                axis = self.ev.const(node.args[1], scope, order)
                if inner is None or not isinstance(axis, int) or isinstance(axis, bool):
                    return None
                at = axis if axis >= 0 else len(inner) + 1 + axis
                return inner[:at] + (1,) + inner[at:] if 0 <= at <= len(inner) else None
            if name is not None and name.startswith((_NP, "jax.lax.")):
                return array_shape(self.ev, node, scope, order)
        return None

    # -- helpers -------------------------------------------------------------------------------
    def _sources(self, node: ast.Name, scope: Scope, order: Order) -> list[Where]:
        """The expressions a name of the kernel's code stands for: its one assignment in the
        function that binds it (a name bound more than once is followed only at a known point of
        the code), or, for a helper's parameter, what each of the kernel's calls passes."""
        b = self.ev.lookup(node.id, scope, order)
        if b is None or b.scope is None:
            return []
        bindings = b.scope.bindings.get(node.id) or []
        if (order is None or b.scope is not scope) and len(bindings) != 1:
            return []
        if b.kind == "assign" and b.node is not None:
            return [(b.node, b.scope, self.ev.order_of(b))]
        if b.kind == "param" and b.scope is not self.kernel:
            return self._passed(b.scope, node.id)
        return []

    def _passed(self, helper: Scope, name: str) -> list[Where]:
        self.scopes()
        calls = self._calls_into.get(id(helper)) or []
        positional = [p[0] for p in helper.params if p[2] in ("posonly", "normal")]
        out: list[Where] = []
        for call, caller in calls:
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and name in positional and not any(isinstance(a, ast.Starred) for a in call.args):
                at = positional.index(name)
                arg = call.args[at] if at < len(call.args) else None
            if arg is None:
                return []
            out.append((arg, caller, None))
        return out

    def ref_name(self, node: ast.AST, scope: Scope) -> str | None:
        """The kernel Ref parameter ``node`` names (in the kernel or a function nested in it), or
        the helper parameter every kernel call fills with one."""
        if not isinstance(node, ast.Name):
            return None
        b = self.ev.lookup(node.id, scope)
        if b is None or b.kind != "param" or b.scope is None:
            return None
        if b.scope is self.kernel:
            return node.id if node.id in self.refs else None
        passed = self._passed(b.scope, node.id)
        names = {self.ref_name(n, s) for n, s, _ in passed}
        return names.pop() if len(names) == 1 else None

    def _api(self, node: ast.Call, scope: Scope, order: Order) -> str | None:
        v = self.ev.value(node, scope, order)
        return self.ev.called_api(v) if isinstance(v, CallVal) else None

    def _dtype_arg(self, node: ast.expr | None, scope: Scope, order: Order) -> str | None:
        if node is None:
            return None
        got = dtype_name(self.ev, node, scope, order)
        if got is not None:
            return got
        name = self.ev.ext_name(self.ev.value(node, scope, order))
        if name is not None and name.startswith(_DTYPE_MODULES) and name.rsplit(".", 1)[1] in _DTYPE_NAMES:
            return name.rsplit(".", 1)[1]
        c = self.ev.const(node, scope, order)
        return c if isinstance(c, str) and c in _DTYPE_NAMES else None

    def _method_on_value(self, func: ast.Attribute, scope: Scope) -> bool:
        return self.ref_name(func.value, scope) is None

    def _is_number(self, node: ast.AST, scope: Scope, order: Order) -> bool:
        c = self.ev.const(node, scope, order)
        return isinstance(c, (int, float)) and not isinstance(c, bool)

    def _operands_known(self, node: ast.Compare, scope: Scope, order: Order, depth: int) -> bool:
        parts = [node.left, *node.comparators]
        return any(self.dtype_of(p, scope, order, depth + 1) is not None for p in parts)

    def _binary(self, left: ast.AST, right: ast.AST, op: ast.AST, scope: Scope, order: Order,
                depth: int) -> str | None:
        """Arithmetic of two values of one dtype, or of a value and a Python number (a weak
        type: the array's dtype wins unless a float meets an integer array)."""
        a = self.dtype_of(left, scope, order, depth + 1)
        b = self.dtype_of(right, scope, order, depth + 1)
        if a is not None and b is not None:
            if a != b:
                return None
            return None if isinstance(op, ast.Div) and not is_float(a) else a
        known, other = (a, right) if a is not None else (b, left)
        if known is None:
            return None
        number = self.ev.const(other, scope, order)
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            return None
        if isinstance(op, ast.Div) and not is_float(known):
            return None  # (true division of integers gives a float)
        if isinstance(number, float) and not is_float(known):
            return None
        return known

    def _call_dtype(self, node: ast.Call, scope: Scope, order: Order, depth: int) -> str | None:
        ev = self.ev
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "astype" and len(node.args) == 1 \
                and self._method_on_value(func, scope):
            return self._dtype_arg(node.args[0], scope, order) or self._like_dtype(node.args[0], scope, order, depth)
        if isinstance(func, ast.Attribute) and func.attr in ("reshape", "transpose", "squeeze", "ravel", "max",
                                                             "min", "copy", "swapaxes") \
                and self._method_on_value(func, scope):
            return self.dtype_of(func.value, scope, order, depth + 1)
        if isinstance(func, ast.Attribute) and func.attr in ("get", "load"):
            ref = self.ref_name(func.value, scope)
            if ref is not None:
                return self.ref_dtype(ref)
        name = self._api(node, scope, order)
        if name is None:
            return None
        if name in _REF_LOADS and node.args:
            ref = self.ref_name(node.args[0], scope)
            return self.ref_dtype(ref) if ref is not None else None
        if name.startswith(_DTYPE_MODULES) and name.rsplit(".", 1)[1] in _DTYPE_NAMES:
            return name.rsplit(".", 1)[1]  # (a scalar: ``jnp.int8(1)``)
        if name in _DOTS:
            dot_site = ev.site_of(node, scope)
            preferred = ev.kwarg(dot_site, "preferred_element_type") if dot_site is not None else None
            if preferred is not None:
                return self._dtype_arg(preferred, scope, order)
            operands = node.args[1:3] if name == f"{_NP}einsum" else node.args[:2]
            kinds = {self.dtype_of(a, scope, order, depth + 1) for a in operands}
            return kinds.pop() if len(kinds) == 1 and None not in kinds and len(operands) == 2 else None
        if name in _DTYPE_POSITION:
            site = ev.site_of(node, scope)
            if site is None:
                return None
            at = _DTYPE_POSITION[name]
            arg = ev.kwarg(site, "dtype") or ev.kwarg(site, "new_dtype")
            if arg is None and at is not None and not site.has_star:
                arg = ev.posarg(site, at)
            if arg is not None:
                return self._dtype_arg(arg, scope, order) or self._like_dtype(arg, scope, order, depth)
            if name in _KEEPS_ARG_DTYPE and node.args:
                return self.dtype_of(node.args[0], scope, order, depth + 1)
            return None
        if name in _SAME_DTYPE_UNARY and node.args:
            return self.dtype_of(node.args[0], scope, order, depth + 1)
        if name in _SAME_FLOAT_UNARY and node.args:
            got = self.dtype_of(node.args[0], scope, order, depth + 1)
            return got if is_float(got) else None
        if name in _SAME_DTYPE_BINARY and len(node.args) == 2:
            return self._binary(node.args[0], node.args[1], ast.Add(), scope, order, depth)
        if name == f"{_NP}where" and len(node.args) == 3:
            return self._binary(node.args[1], node.args[2], ast.Add(), scope, order, depth)
        return None

    def _like_dtype(self, node: ast.AST, scope: Scope, order: Order, depth: int) -> str | None:
        """``x.astype(y.dtype)``: the dtype of ``y`` (a Ref's, or a value's)."""
        if isinstance(node, ast.Attribute) and node.attr == "dtype":
            ref = self.ref_name(node.value, scope)
            return self.ref_dtype(ref) if ref is not None else self.dtype_of(node.value, scope, order, depth + 1)
        return None


def _own_nodes(root: ast.AST):
    """The nodes of a function body, not those of functions or lambdas defined in it."""
    todo = list(ast.iter_child_nodes(root))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _sliced(entry: ast.AST) -> bool:
    """An index entry that keeps a dimension: ``:``, ``a:b``, ``...``, ``pl.ds(...)``."""
    if isinstance(entry, ast.Slice) or (isinstance(entry, ast.Constant) and entry.value is Ellipsis):
        return True
    if isinstance(entry, ast.Call):
        func = entry.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return last in ("ds", "dslice", "Slice")
    return False


def _whole(index: ast.expr) -> bool:
    """``[...]`` or ``[:, :]``: the whole Ref."""
    entries = index.elts if isinstance(index, ast.Tuple) else [index]
    return all((isinstance(e, ast.Constant) and e.value is Ellipsis)
               or (isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None)
               for e in entries)


# -- the launch's operands ------------------------------------------------------------------------
@launch_fact
def kernel_values(ev: Evaluator, launch) -> KernelValues | None:
    """The dtypes of a launch's kernel Refs (None for a launch whose kernel parameters cannot be
    matched with its operands: several kernels, a ``functools.partial`` binding some positionally,
    an ``out_shape`` or scratch list that cannot be counted)."""
    if launch.kernel is None or len(launch.kernels) != 1 or launch.api.name not in (api.PALLAS_CALL, api.PL_KERNEL):
        return None
    params = kernel_operand_params(launch)
    if params is None:
        return None
    outs = _output_entries(ev, launch)
    scratch = _scratch_entries(ev, launch)
    prefetch = _prefetch_count(ev, launch)
    if outs is None or scratch is None or prefetch is None:
        return None
    n_in = len(params) - len(outs) - len(scratch) - prefetch
    if n_in < 0:
        return None
    operands = operand_dtypes(ev, launch)
    if operands is not None and len(operands) != prefetch + n_in:
        operands = None
    in_specs, out_specs = _spec_entries(ev, launch, n_in, len(outs))
    shapes = kernel_ref_shapes(ev, launch)
    refs: dict[str, RefFact] = {}
    at = 0
    for i in range(prefetch):
        dtype, where = operands[i] if operands is not None else (None, None)
        refs[params[at]] = RefFact("prefetch", i, dtype, "SMEM", shapes.get(params[at]), where, None, where)
        at += 1
    for i in range(n_in):
        dtype, where = operands[prefetch + i] if operands is not None else (None, None)
        spec = in_specs[i] if in_specs is not None else None
        space = _spec_space(ev, spec) if spec is not None else None
        refs[params[at]] = RefFact("in", i, dtype, space, shapes.get(params[at]),
                                   _spec_where(spec) or where, _spec_where(spec), where)
        at += 1
    for i, (dtype, where) in enumerate(outs):
        spec = out_specs[i] if out_specs is not None else None
        space = _spec_space(ev, spec) if spec is not None else None
        refs[params[at]] = RefFact("out", i, dtype, space, shapes.get(params[at]),
                                   _spec_where(spec) or where, _spec_where(spec), where)
        at += 1
    for i, (dtype, space, shape, where) in enumerate(scratch):
        refs[params[at]] = RefFact("scratch", i, dtype, space, shape, where, None, where)
        at += 1
    return KernelValues(ev, launch, refs)


def _spec_where(spec) -> Where | None:
    return spec.item if spec is not None else None


def _spec_space(ev: Evaluator, spec) -> str | None:
    call = spec.call
    node = ev.kwarg(call.site, "memory_space")
    if node is None:
        return None
    with ev.within(call.frames):
        return _space_name(ev.value(node, call.site.scope, call.order))


def _space_name(v) -> str | None:
    if isinstance(v, Ext):
        return _SPACES.get(v.name.rsplit(".", 1)[1])
    if isinstance(v, CallVal) and isinstance(v.func, Ext):  # (``pltpu.SemaphoreType.DMA((2,))``)
        return "SEMAPHORE" if ".SemaphoreType." in v.func.name else None
    return None


def _spec_entries(ev: Evaluator, launch, n_in: int, n_out: int):
    """The BlockSpecs of the inputs and the outputs, one per operand (None for a list that is
    not written, or whose entries are not all BlockSpecs matching the operands one to one)."""
    specs = read_launch_specs(ev, launch) if launch.api.name == api.PALLAS_CALL else None
    if specs is None:
        return None, None
    out: list[list | None] = []
    for option, count in ((specs.in_specs, n_in), (specs.out_specs, n_out)):
        if option is None:
            out.append(None)
            continue
        leaves: list = []
        tree = spec_tree(ev, option, "in", leaves)
        out.append(leaves if tree.known and len(leaves) == count else None)
    return out[0], out[1]


def _prefetch_count(ev: Evaluator, launch) -> int | None:
    if "grid_spec" not in launch.options:
        return 0
    spec = grid_spec_call(ev, launch)
    if spec is None:
        return None
    if ev.called_api(spec) != api.TPU_PREFETCH_GRID_SPEC:
        return 0
    node = ev.kwarg(spec.site, "num_scalar_prefetch")
    if node is None:
        node = ev.posarg(spec.site, 0)
    n = ev.const(node, spec.site.scope, spec.order) if node is not None else None
    return n if isinstance(n, int) and not isinstance(n, bool) else None


def _output_entries(ev: Evaluator, launch) -> list[tuple[str | None, Where]] | None:
    """(dtype, where) of each ``out_shape`` / ``out_type`` entry."""
    opt = launch.options.get("out_shape") or launch.options.get("out_type")
    if opt is None:
        return None
    v = ev.value(*opt)
    if isinstance(v, TupleVal):
        return [(array_dtype_of(ev, *item), item) for item in v.items]
    if isinstance(v, CallVal):
        return [(array_dtype_of(ev, *opt), opt)]
    return None


def _scratch_option(ev: Evaluator, launch) -> Where | None:
    opt = launch.options.get("scratch_shapes") or launch.options.get("scratch_types")
    if opt is None and "grid_spec" in launch.options:
        spec = grid_spec_call(ev, launch)
        node = ev.kwarg(spec.site, "scratch_shapes") if spec is not None else None
        opt = (node, spec.site.scope, spec.order) if node is not None and spec is not None else None
    return opt


def _scratch_entries(ev: Evaluator, launch) -> list[tuple[str | None, str | None, Shape | None, Where]] | None:
    """(dtype, memory space, shape, where) of each scratch entry (``pltpu.VMEM((8, 128),
    jnp.float32)``, ``pltpu.SemaphoreType.DMA``); None for a list that cannot be read."""
    if "grid_spec" in launch.options and grid_spec_call(ev, launch) is None:
        return None
    opt = _scratch_option(ev, launch)
    if opt is None:
        return []
    v = ev.value(*opt)
    if not isinstance(v, TupleVal):
        return None
    out: list[tuple[str | None, str | None, Shape | None, Where]] = []
    for item in v.items:
        iv = ev.value(*item)
        name = ev.called_api(iv) if isinstance(iv, CallVal) else ev.ext_name(iv)
        if name is None or not name.startswith(api.PL + "."):
            return None  # (a nested structure or something not an allocation: not mapped)
        if ".SemaphoreType." in name or name.endswith("SemaphoreType"):
            out.append((None, "SEMAPHORE", None, item))
            continue
        if not isinstance(iv, CallVal):
            return None
        site = iv.site
        space = _SPACES.get(name.rsplit(".", 1)[1])
        shape_node = ev.kwarg(site, "shape") or ev.posarg(site, 0)
        dtype_node = ev.kwarg(site, "dtype") or ev.posarg(site, 1)
        shape = shape_literal(ev, shape_node, site.scope, iv.order) if shape_node is not None else None
        dtype = dtype_named(ev, dtype_node, site.scope, iv.order)
        out.append((dtype, space, shape, item))
    return out


def operand_dtypes(ev: Evaluator, launch) -> list[tuple[str | None, Where | None]] | None:
    """(dtype, where) of each operand the launch is applied to, where every application agrees
    (a dtype on which they differ is None); None when there is no application or the operands
    cannot be listed."""
    per_call = []
    for cs in applications(ev, launch):
        if cs.node.keywords:
            return None
        args = _spread_args(ev, cs)
        if args is None:
            return None
        per_call.append([(array_dtype_of(ev, *a), a) for a in args])
    if not per_call or any(len(p) != len(per_call[0]) for p in per_call):
        return None
    first = per_call[0]
    return [(d if all(p[i][0] == d for p in per_call) else None, w) for i, (d, w) in enumerate(first)]


def _spread_args(ev: Evaluator, cs: CallSite) -> list[Where] | None:
    """The positional arguments of a call, ``*IN`` of a literal tuple or of a helper's returned
    tuple spread out; a function's own ``*args`` forwarded is followed to its callers only when
    they all pass the same number of arguments."""
    order = ev.order_of(cs)
    out: list[Where] = []
    for a in cs.node.args:
        if isinstance(a, ast.Starred):
            v = ev.value(a.value, cs.scope, order)
            if not isinstance(v, TupleVal):
                v = ev.returned(v)
            if not isinstance(v, TupleVal):
                return None
            out.extend(v.items)
        else:
            out.append((a, cs.scope, order))
    return out


def array_dtype_of(ev: Evaluator, node: ast.AST | None, scope: Scope, order: Order, depth: int = 0) -> str | None:
    """The dtype of an array the code makes outside a kernel: a constructor's ``dtype``,
    ``.astype(d)``, ``jax.ShapeDtypeStruct(shape, d)``, ``jnp.asarray(x, d)``, arithmetic with a
    Python number, layout methods, a name bound once to one, or a parameter every caller fills
    with one (``launch(*inputs())`` too)."""
    if node is None or depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is None or b.scope is None:
            return None
        if b.kind == "assign" and b.node is not None:
            return array_dtype_of(ev, b.node, b.scope, ev.order_of(b), depth + 1)
        if b.kind == "param":
            return _param_dtype(ev, b.scope, node.id, depth + 1)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        a = array_dtype_of(ev, node.left, scope, order, depth + 1)
        b_ = array_dtype_of(ev, node.right, scope, order, depth + 1)
        if a is not None and b_ is not None:
            return a if a == b_ and not (isinstance(node.op, ast.Div) and not is_float(a)) else None
        known, other = (a, node.right) if a is not None else (b_, node.left)
        number = ev.const(other, scope, order)
        if known is None or isinstance(number, bool) or not isinstance(number, (int, float)):
            return None
        if (isinstance(node.op, ast.Div) or isinstance(number, float)) and not is_float(known):
            return None
        return known
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return array_dtype_of(ev, node.operand, scope, order, depth + 1)
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "astype" and len(node.args) == 1:
        return dtype_named(ev, node.args[0], scope, order, depth + 1)
    if isinstance(func, ast.Attribute) and func.attr in ("reshape", "transpose", "T", "copy", "squeeze", "ravel",
                                                         "block_until_ready"):
        return array_dtype_of(ev, func.value, scope, order, depth + 1)
    v = ev.value(node, scope, order)
    if not isinstance(v, CallVal):
        return None
    name = ev.called_api(v)
    if name is None:
        returned = ev.returned(v)  # (a helper that returns one array)
        if isinstance(returned, CallVal) and returned is not v:
            site = returned.site
            return array_dtype_of(ev, site.node, site.scope, returned.order, depth + 1)
        return None
    if name in _DTYPE_POSITION:
        site = v.site
        at = _DTYPE_POSITION[name]
        arg = ev.kwarg(site, "dtype")
        if arg is None and at is not None and not site.has_star:
            arg = ev.posarg(site, at)
        if arg is not None:
            return dtype_named(ev, arg, site.scope, v.order, depth + 1)
        if name in _KEEPS_ARG_DTYPE and site.positional:
            return array_dtype_of(ev, site.positional[0], site.scope, v.order, depth + 1)
        return None
    if name == "jax.device_put" and v.site.positional:
        return array_dtype_of(ev, v.site.positional[0], v.site.scope, v.order, depth + 1)
    return None


def dtype_named(ev: Evaluator, node: ast.expr | None, scope: Scope, order: Order, depth: int = 0) -> str | None:
    """The dtype a dtype expression names: ``jnp.int8``, ``"bfloat16"``, ``x.dtype`` of an array
    whose dtype is known (through ``launch(*inputs())`` spreads too)."""
    if node is None:
        return None
    if isinstance(node, ast.Attribute) and node.attr == "dtype":
        return array_dtype_of(ev, node.value, scope, order, depth + 1)
    return dtype_name(ev, node, scope, order)


def jit_applications(ev: Evaluator, site: CallSite) -> list[CallSite]:
    """Where ``jax.jit(f)`` (the call at ``site``) is applied: ``jax.jit(f)(x)``,
    ``jax.jit(f).trace(*IN)``, ``jax.jit(f).lower(*IN)``."""
    if ev.called_api(ev.value(site.node, site.scope, ev.order_of(site))) != api.JIT:
        return []
    return [cs for cs in site.scope.calls
            if cs.node.func is site.node or (isinstance(cs.node.func, ast.Attribute) and cs.node.func.value is site.node
                                             and cs.node.func.attr in ("trace", "lower"))]


def _param_dtype(ev: Evaluator, fn: Scope, name: str, depth: int) -> str | None:
    """The dtype every call of ``fn`` passes for ``name`` (a ``*spread`` of a helper's returned
    tuple included); None when a call passes something else or there is none."""
    found: set[str | None] = set()
    positional = [p[0] for p in fn.params if p[2] in ("posonly", "normal")]
    calls = ev.callers_of(fn)
    if not calls:
        return None
    for inv in calls:
        if inv.how == "passed":  # (``jax.jit(fn)(x)``, ``jax.jit(fn).trace(*IN)``)
            if name not in positional:
                return None
            at = positional.index(name)
            sites = jit_applications(ev, inv.site)
            lists = [_spread_args(ev, cs) for cs in sites]
            if not lists or any(a is None or at >= len(a) for a in lists):
                return None
            for args in lists:
                node, scope, order = args[at]  # type: ignore[index]
                found.add(array_dtype_of(ev, node, scope, order, depth + 1))
            continue
        b = ev.bind_param(inv, name)
        if b is None and name in positional and any(isinstance(a, ast.Starred) for a in inv.site.node.args):
            args = _spread_args(ev, inv.site)
            at = positional.index(name)
            if args is None or at >= len(args):
                return None
            node, scope, order = args[at]
            found.add(array_dtype_of(ev, node, scope, order, depth + 1))
            continue
        if b is None or b.node is None or b.scope is None or b.default:
            return None
        found.add(array_dtype_of(ev, b.node, b.scope, b.order, depth + 1))
    return found.pop() if len(found) == 1 and None not in found else None


__all__ = ["KernelValues", "RefFact", "array_dtype_of", "bits", "dtype_named", "is_float", "is_int", "kernel_values",
           "operand_dtypes"]
