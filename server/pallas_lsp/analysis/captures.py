"""Arrays a kernel captures from outside its refs (PAL606).

``pallas_call`` traces the kernel to a jaxpr (``_trace_kernel_to_jaxpr`` in
``jax/_src/pallas/pallas_call.py``) and refuses one with constants: an array value the body reads
from outside its parameters becomes a constant of that jaxpr, and JAX raises "captures constants
[...]. You should pass them as inputs." Python ints and floats are literals and fine; so are an
array's static facts (``.shape``, ``.dtype``...).

Only arrays the code surely builds are counted: a name bound outside the kernel (at module level
or in an enclosing function) to a call of a ``jnp`` / NumPy array constructor, possibly followed
by array methods. Everything else (a parameter, an unknown call, a NumPy scalar) stays quiet.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .evaluate import CallVal, Evaluator, Value
from .scopes import Binding, Scope

# jnp functions that build an array from Python values (or from another such array).
_JNP_BUILDERS = frozenset({
    "array", "asarray", "arange", "linspace", "logspace", "zeros", "ones", "full", "eye", "identity", "tri",
    "tril", "triu", "zeros_like", "ones_like", "full_like", "diag", "outer", "concatenate", "stack", "tile",
    "repeat", "exp", "log", "sin", "cos", "sqrt", "cumsum", "where", "reshape", "transpose",
    # scalar types called on a value: a 0-d jax Array (JAX counts it as a constant too)
    "float32", "float16", "bfloat16", "int32", "int8", "int16", "uint8", "uint32", "bool_",
})
# NumPy functions that build an ndarray of rank >= 1 (JAX makes it a constant of the kernel's
# jaxpr; a 0-d ndarray or a NumPy scalar is inlined as a literal and runs clean).
_NUMPY_VECTORS = frozenset({"arange", "linspace", "eye", "identity", "tri"})
_NUMPY_FROM_DATA = frozenset({"array", "asarray"})  # of a list or tuple literal
_NUMPY_FROM_SHAPE = frozenset({"zeros", "ones", "full", "empty"})  # of a non-empty shape
# Methods that keep an array an array.
_ARRAY_METHODS = frozenset({"reshape", "astype", "transpose", "T", "ravel", "flatten", "squeeze"})
# Reads of an array that are Python values at trace time, not the array.
_STATIC_ATTRS = frozenset({"shape", "dtype", "ndim", "size", "itemsize", "nbytes"})


@dataclass(frozen=True)
class Capture:
    load: ast.Name  # the kernel's read of the array
    scope: Scope  # the function the read is in (the kernel or a helper it reaches)
    binding: Binding  # where the array is bound
    built_by: str  # "jnp.linspace", "np.arange"


def captured_arrays(ev: Evaluator, functions: list[Scope], kernel_scopes: set[int]) -> list[Capture]:
    """The reads, in ``functions`` (a kernel and the helpers it reaches), of arrays bound outside
    every scope of ``kernel_scopes`` (the kernel and what it defines), in source order."""
    out: list[Capture] = []
    for fn in functions:
        if fn.node is None:
            continue
        for node, parent in _own_loads(fn.node):
            if isinstance(parent, ast.Attribute) and parent.attr in _STATIC_ATTRS:
                continue
            if isinstance(parent, ast.keyword) and parent.arg in ("out_shape", "out_type"):
                continue  # (an inner launch's out_shape: only its shape and dtype are read)
            if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
                    and parent.func.id in ("len", "isinstance", "type"):
                continue
            b = ev.lookup(node.id, fn)
            if b is None or b.kind != "assign" or b.node is None or b.scope is None or _inside(b.scope, kernel_scopes):
                continue
            built_by = array_builder(ev, b.node, b.scope)
            if built_by is not None:
                out.append(Capture(node, fn, b, built_by))
    out.sort(key=lambda c: (c.load.lineno, c.load.col_offset))
    return out


def array_builder(ev: Evaluator, node: ast.AST, scope: Scope, depth: int = 0) -> str | None:
    """``"jnp.linspace"`` when ``node`` surely evaluates to an array built by that constructor
    (through array methods and names), else None."""
    if depth > 6:
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ARRAY_METHODS:
        inner = array_builder(ev, node.func.value, scope, depth + 1)
        if inner is not None:
            return inner
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return array_builder(ev, node.value, scope, depth + 1)
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope)
        if b is None or b.kind != "assign" or b.node is None or b.scope is None:
            return None
        return array_builder(ev, b.node, b.scope, depth + 1)
    if not isinstance(node, ast.Call):
        return None
    v: Value = ev.value(node, scope)
    name = ev.called_api(v) if isinstance(v, CallVal) else None
    if not name:
        return None
    module, _, fn = name.rpartition(".")
    if module == "jax.numpy" and fn in _JNP_BUILDERS:
        return f"jnp.{fn}"
    if module == "numpy" and _numpy_vector(fn, node):
        return f"np.{fn}"
    return None


def _numpy_vector(fn: str, call: ast.Call) -> bool:
    """Whether a NumPy call surely builds an array of rank >= 1."""
    if fn in _NUMPY_VECTORS:
        return True
    first = call.args[0] if call.args else None
    if fn in _NUMPY_FROM_DATA:
        return isinstance(first, (ast.List, ast.Tuple, ast.ListComp)) and bool(getattr(first, "elts", True))
    if fn in _NUMPY_FROM_SHAPE:
        shape = first if first is not None else next((k.value for k in call.keywords if k.arg == "shape"), None)
        if isinstance(shape, ast.Constant):
            return isinstance(shape.value, int) and not isinstance(shape.value, bool)
        return isinstance(shape, (ast.Tuple, ast.List)) and bool(shape.elts)
    return False


def _inside(scope: Scope, scopes: set[int]) -> bool:
    s: Scope | None = scope
    while s is not None:
        if id(s) in scopes:
            return True
        s = s.parent
    return False


def _own_loads(fn: ast.AST):
    """The ``Name`` loads in a def's or lambda's own body (not in the functions it defines),
    each with its parent node."""
    body = fn.body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else [fn.body] \
        if isinstance(fn, ast.Lambda) else []
    stack: list[tuple[ast.AST, ast.AST | None]] = [(st, fn) for st in reversed(body)]
    while stack:
        node, parent = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node, parent
        for child in reversed(list(ast.iter_child_nodes(node))):
            stack.append((child, node))


__all__ = ["Capture", "array_builder", "captured_arrays"]
