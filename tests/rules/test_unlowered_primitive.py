"""PAL401 from the generated lowering tables: what a call emits, on the backend the launch runs on
(rules/unlowered_primitive.py). Each case below is a Pallas kernel shape found in real code or
in ../shared/corpus-prims; the oracle checks the rule's examples under JAX."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse

HEAD = """import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    x = x_ref[...]
    {op}


def f(x):
    return {launch}


def lower(x):
    return jax.jit(f).trace(x).lower(lowering_platforms=("{platform}",))
"""
TPU = ("pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)", "tpu")
MGPU = ("plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)", "cuda")
TRITON = ("pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)", "cuda")
OP_LINE = 10


def findings(op: str, launch=TPU):
    text = HEAD.format(op=op, launch=launch[0], platform=launch[1])
    if launch[1] is None:  # (no lowering: the backend is decided at run time)
        text = text[:text.index("\n\ndef lower(")] + "\n"
    return [(f.record, f.span.line, f.severity.value) for f in analyse(text, "/tmp/k.py").findings
            if f.code == "PAL401"]


@pytest.mark.parametrize("op, launch, record", [
    ("o_ref[...] = jnp.cumsum(x, axis=1)", TPU, "tpu-lower-unimplemented-primitive"),
    ("o_ref[...] = x.cumsum(axis=1)", TPU, "tpu-lower-unimplemented-primitive"),  # a method of the array
    ("o_ref[...] = jnp.argsort(x, axis=1)", MGPU, "mgpu-lower-unimplemented-primitive"),  # emits sort
    ("o_ref[...] = x.at[0, 0].set(1.0)", TPU, "tpu-lower-unimplemented-primitive"),  # scatter
    ("o_ref[...] = jax.nn.gelu(x, approximate=False)", MGPU, "mgpu-lower-unimplemented-primitive"),  # erfc
    # A dtype keyword is a fact the tables traced (by name), however the module spells it.
    ("o_ref[...] = jnp.dot(x, x, preferred_element_type=jnp.float32)", MGPU, "mgpu-lower-unimplemented-primitive"),
    ("o_ref[...] = jnp.dot(x, x, preferred_element_type=jnp.dtype('int32'))", MGPU,
     "mgpu-lower-unimplemented-primitive"),
], ids=["cumsum", "method", "argsort-sort", "at-set-scatter", "gelu-exact-erfc", "dot-dtype", "dot-dtype-call"])
def test_flagged_on_the_call(op, launch, record):
    assert findings(op, launch) == [(record, OP_LINE, "error")]


@pytest.mark.parametrize("op, launch, record", [
    ("o_ref[...] = x.T", MGPU, "mgpu-lower-unimplemented-primitive"),  # transpose
    ("o_ref[...] = x[::-1]", TPU, "tpu-lower-unimplemented-primitive"),  # rev
    ("o_ref[...] = x[1:]", TRITON, "triton-lower-unimplemented-primitive"),  # surely a slice
    ("o_ref[...] = (x * 2.0)[:, ::2]", TRITON, "triton-lower-unimplemented-primitive"),  # strided
    ("o_ref[...] = x_ref[...][:-1]", TRITON, "triton-lower-unimplemented-primitive"),
    ("y = x.astype(jnp.float32)\n    o_ref[...] = y[3]", TRITON, "triton-lower-unimplemented-primitive"),
], ids=["T-transpose", "reverse", "slice-from-1", "strided", "slice-to-minus-1", "int-index"])
def test_array_operators_are_flagged_on_the_expression(op, launch, record):
    got = findings(op, launch)
    assert [(r, sev) for r, _, sev in got] == [(record, "error")]
    assert got[0][1] == OP_LINE + op.count("\n")


@pytest.mark.parametrize("op", [
    "o_ref[...] = x_ref[...]",  # a Ref read
    "o_ref[...] = x_ref[1:]",  # a Ref read of a window: no jnp slice
    "o_ref[...] = x[:64]",  # may be the whole array (a dimension of 64): jnp then slices nothing
    "o_ref[...] = x[0]",  # a dimension of 1 is not sliced either, only squeezed
    "o_ref[...] = x[:, :]",
    "o_ref[...] = lax.top_k(x, 2)[1][1:]",  # an element of a tuple result, not an array the code made
    "refs = (x_ref, o_ref)\n    o_ref[...] = refs[0][1:]",  # a Ref from a tuple
    "o_ref[...] = x[n:]",  # a bound the analysis cannot tell
], ids=["ref-read", "ref-window", "maybe-whole", "dim-of-one", "full", "tuple-element", "ref-in-tuple", "unknown"])
def test_array_operators_not_flagged_where_jnp_may_emit_nothing(op):
    if "[n:]" in op:
        op = "n = helper()\n    " + op
    text = HEAD.format(op=op, launch=TRITON[0], platform=TRITON[1])
    # (top_k itself may not lower: only findings about the operator count here)
    flagged = [f.message for f in analyse(text, "/tmp/k.py").findings
               if f.code == "PAL401" and not f.message.startswith("`lax.top_k`")]
    assert flagged == []


@pytest.mark.parametrize("op, launch", [
    ("o_ref[...] = jnp.exp(x)", TPU),  # lowered
    ("o_ref[...] = jax.nn.gelu(x)", MGPU),  # the default tanh form lowers
    ("o_ref[...] = x + jnp.array(42)", TPU),  # Python constants: no primitive is traced
    ("o_ref.at[0].set(x)", TPU),  # a Ref's .at[...].set is a store, not a scatter
    ("o_ref[...] = jnp.array(n)", TPU),  # n: a name the analysis cannot tell (a number or an array)
    ("o_ref[...] = jnp.dot(x, x, preferred_element_type=jnp.float32)", TPU),  # Mosaic TPU lowers dot_general
], ids=["exp", "gelu-tanh", "constant", "ref-store", "unknown-argument", "dot-tpu"])
def test_not_flagged(op, launch):
    if "(n)" in op:
        op = "n = helper()\n    " + op

    assert findings(op, launch) == []


def test_backend_unknown_reports_only_what_no_backend_lowers_as_a_warning():
    compiled = ("pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)", None)
    # cumsum: Mosaic GPU and Triton lack it, but is it lowered by Mosaic TPU? Only all-backend gaps count.
    got = findings("o_ref[...] = lax.dynamic_slice_in_dim(x, pl.program_id(0) * 8, 8, axis=0)", compiled)
    assert got == [("tpu-lower-unimplemented-primitive", OP_LINE, "warning")]
    assert findings("o_ref[...] = jnp.exp(x)", compiled) == []


def test_interpreted_launches_are_not_this_rules_business():
    interp = ("pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)", "cpu")
    assert findings("o_ref[...] = jnp.cumsum(x, axis=1)", interp) == []


HELPER = """import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.pallas import mosaic_gpu as plgpu


def prep(v):
    return lax.sort(v)


def kernel(x_ref, o_ref):
    o_ref[...] = prep({arg})


def lower(x):
    f = plgpu.kernel(kernel, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))
    return jax.jit(f).trace(x).lower(lowering_platforms=("cuda",))
"""


@pytest.mark.parametrize("arg, flagged", [
    ("x_ref[...]", True),  # the helper's parameter is the array the kernel passes on the way to it
    ("x_ref", False),  # a Ref (lax.sort of a Ref is not what the tables traced): quiet
])
def test_a_helper_parameter_is_what_the_kernel_passes(arg, flagged):
    text = HELPER.format(arg=arg)
    got = [(f.record, f.span.line) for f in analyse(text, "/tmp/k.py").findings if f.code == "PAL401"]
    assert got == ([("mgpu-lower-unimplemented-primitive", 8)] if flagged else [])


def test_the_finding_says_what_the_backend_lowers_instead():
    """An alternative from alternatives.json (lowered under JAX for that backend by
    tests/oracle/test_lowering_alternatives.py) reaches the hover and the JSON output; a backend
    the alternative was not lowered for gets none."""
    from pallas_lsp.output import finding_json
    from pallas_lsp.present import finding_hover
    from pallas_lsp.records import default_store

    op = "o_ref[...] = lax.dynamic_slice_in_dim(x, pl.program_id(0) * 8, 8, axis=0)"
    text = HEAD.format(op=op, launch=TPU[0], platform=TPU[1])
    (f,) = [f for f in analyse(text, "/tmp/k.py").findings if f.code == "PAL401"]
    assert "x_ref[pl.ds(start, size)]" in f.extra["instead"]
    assert "**Instead:** read the window from the Ref" in finding_hover(f, default_store())
    assert "x_ref[pl.ds(start, size)]" in finding_json("/tmp/k.py", f)["instead"]
    # jnp.cumsum on TPU: no alternative was lowered, none is offered.
    text = HEAD.format(op="o_ref[...] = jnp.cumsum(x, axis=1)", launch=TPU[0], platform=TPU[1])
    (f,) = [f for f in analyse(text, "/tmp/k.py").findings if f.code == "PAL401"]
    assert "instead" not in f.extra and "**Instead:**" not in finding_hover(f, default_store())


def test_every_alternative_is_for_a_primitive_its_backends_cannot_lower():
    from pallas_lsp.lowering import tables

    t = tables()
    entries = t.alternatives()
    assert entries
    for entry in entries:
        for backend in entry["backends"]:
            assert backend in t.backend_names(), entry
            assert not t.lowers(backend, entry["primitive"]), (entry["primitive"], backend)
            assert t.instead(entry["primitive"], backend) == entry["instead"]


def test_a_slice_of_a_loaded_block_whose_shape_the_launch_says_is_not_the_whole_array():
    """``x[:, :64]`` of a (32, 128) block slices (the Triton lowering has no rule for it); of a
    (32, 64) block it is the whole array and jnp emits nothing. The operand's shape is followed
    from ``pl.pallas_call(...)(*args)`` to ``jax.jit(f).trace(*IN)``."""
    program = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

R, C = 32, WIDTH
IN = [jax.ShapeDtypeStruct((R, C), jnp.float32)]
OUT = jax.ShapeDtypeStruct((R, 64), jnp.float32)


def kernel(x_ref, o_ref):
    x = x_ref[...]
    o_ref[...] = x[:, :64]


def f(*args):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(1,))(*args)


def lower():
    return jax.jit(f).trace(*IN).lower(lowering_platforms=("cuda",))
"""
    got = [(f.record, f.span.line) for f in analyse(program.replace("WIDTH", "128"), "/tmp/k.py").findings
           if f.code == "PAL401"]
    assert got == [("triton-lower-unimplemented-primitive", 12)]
    assert [f for f in analyse(program.replace("WIDTH", "64"), "/tmp/k.py").findings if f.code == "PAL401"] == []
    # A shape the code does not say (an operand from elsewhere) is not a claim either way.
    unknown = program.replace("jax.jit(f).trace(*IN)", "jax.jit(f).trace(*load())").replace("WIDTH", "128")
    assert [f for f in analyse(unknown, "/tmp/k.py").findings if f.code == "PAL401"] == []
