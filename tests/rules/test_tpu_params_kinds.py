"""PAL642 tpu-dimension-semantics-length (``analysis/tpu_params.py``) on code shapes of its own,
each with a clean twin. Every program here was lowered for TPU under jax 0.12.0.1 (an abstract
TPU v5 lite device on CPU): the flagged ones raise the error on the line marked ``# here``,
the twins lower (the interpret-mode one runs)."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse

from .test_tpu_block_kinds import HEAD

CASES = {
    # A PrefetchScalarGridSpec grid of 2 axes; a module-level list of 3 semantics.
    "prefetch_grid_three_semantics_for_two_axes": ('PAL642', """\
SEMANTICS = [pltpu.PARALLEL, pltpu.ARBITRARY, pltpu.ARBITRARY]


def take_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def take(idx, x):
    return pl.pallas_call(
        take_kernel,
        out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2, 4),
            in_specs=[pl.BlockSpec((128, 128), lambda i, j, idx: (idx[i], j))],
            out_specs=pl.BlockSpec((128, 128), lambda i, j, idx: (i, j)),
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),  # here
    )(idx, x)


with use_abstract_mesh(TPU):
    jax.jit(take).trace(jax.ShapeDtypeStruct((2,), jnp.int32),
                        jax.ShapeDtypeStruct((256, 512), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "prefetch_grid_two_semantics": (None, """\
SEMANTICS = [pltpu.PARALLEL, pltpu.ARBITRARY]


def take_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def take(idx, x):
    return pl.pallas_call(
        take_kernel,
        out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1,
            grid=(2, 4),
            in_specs=[pl.BlockSpec((128, 128), lambda i, j, idx: (idx[i], j))],
            out_specs=pl.BlockSpec((128, 128), lambda i, j, idx: (i, j)),
        ),
        compiler_params=pltpu.CompilerParams(dimension_semantics=SEMANTICS),
    )(idx, x)


with use_abstract_mesh(TPU):
    jax.jit(take).trace(jax.ShapeDtypeStruct((2,), jnp.int32),
                        jax.ShapeDtypeStruct((256, 512), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # grid=16 is one axis; ("parallel",) * 2 is two entries (underlined: compiler_params=).
    "int_grid_repeated_semantics": ('PAL642', """\
def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=16,
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=2**24,  # here
                                             dimension_semantics=("parallel",) * 2),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(double).trace(jax.ShapeDtypeStruct((128, 128), jnp.int32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "int_grid_one_semantic": (None, """\
def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=16,
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=2**24,
                                             dimension_semantics=("parallel",) * 1),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(double).trace(jax.ShapeDtypeStruct((128, 128), jnp.int32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # No grid is zero axes.
    "no_grid_one_semantic": ('PAL642', """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),  # here
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(copy).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "no_grid_no_semantics": (None, """\
def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def copy(x):
    return pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        compiler_params=pltpu.CompilerParams(),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(copy).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # The block mappings are checked before the grid mapping: only the tiling error is raised.
    "tiling_fails_before_semantics": ('PAL640', """\
def shift_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def shift(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((16, 100), lambda i: (i, 0))],  # here
        out_specs=pl.BlockSpec((16, 100), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(shift).trace(jax.ShapeDtypeStruct((64, 300), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    # PAL644: a float literal for vmem_limit_bytes inside a pl.GridSpec launch.
    "grid_spec_float_vmem_limit": ("PAL644", """\
def tpu_params(limit):
    return pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=limit)


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def exp(x):
    return pl.pallas_call(
        exp_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(grid=(4,), in_specs=[pl.BlockSpec((64, 128), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((64, 128), lambda i: (i, 0))),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=3.2e7),  # here
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(exp).trace(jax.ShapeDtypeStruct((256, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
    "grid_spec_int_arithmetic_vmem_limit": (None, """\
def tpu_params(limit):
    return pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=limit)


def exp_kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...])


def exp(x):
    return pl.pallas_call(
        exp_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid_spec=pl.GridSpec(grid=(4,), in_specs=[pl.BlockSpec((64, 128), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((64, 128), lambda i: (i, 0))),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=32 * 2**20),
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(exp).trace(jax.ShapeDtypeStruct((256, 128), jnp.float32)).lower(lowering_platforms=("tpu",))
print("lowered")
"""),
}

QUIET = {
    # interpret=True never builds the Mosaic grid mapping (ran clean, printed 1.0).
    "interpret_mode": """\
def shift_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def shift(x):
    return pl.pallas_call(
        shift_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((16, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((16, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
        interpret=True,
    )(x)


print(shift(jnp.zeros((64, 128), jnp.float32))[0, 0])
""",
    # The semantics come from a parameter bound through functools.partial: not followed, so
    # not known (JAX raises here; the rule must not guess).
    "semantics_from_parameter": """\
def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def double(x, semantics):
    return pl.pallas_call(
        double_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=16,
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=2**24,
                                             dimension_semantics=semantics),  # here
    )(x)


with use_abstract_mesh(TPU):
    jax.jit(functools.partial(double, semantics=("parallel", "parallel"))).trace(
        jax.ShapeDtypeStruct((128, 128), jnp.int32)).lower(lowering_platforms=("tpu",))
print("lowered")
""",
}

CODES = {"PAL640", "PAL641", "PAL642", "PAL644"}


def findings(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.line) for f in analyse(source, "case.py").findings if f.code in CODES]


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_case_is_flagged_on_its_line_and_each_twin_is_quiet(name: str) -> None:
    code, body = CASES[name]
    source = HEAD + body
    if code is None:
        assert findings(source) == []
        return
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# here" in text)
    assert findings(source) == [(code, line)]


@pytest.mark.parametrize("name", sorted(QUIET))
def test_unchecked_or_unknown_stays_quiet(name: str) -> None:
    assert findings(HEAD + QUIET[name]) == []


def test_the_message_says_both_lengths() -> None:
    (finding,) = [f for f in analyse(HEAD + CASES["prefetch_grid_three_semantics_for_two_axes"][1], "case.py").findings
                  if f.code == "PAL642"]
    assert "dimension_semantics has 3 entries but the launch has a grid of 2 axes" in finding.message
    assert "len(grid)=2, len(dimension_semantics)=3" in finding.message


def test_the_vmem_fix_wraps_the_value_in_int() -> None:
    (finding,) = [f for f in analyse(HEAD + CASES["grid_spec_float_vmem_limit"][1], "case.py").findings
                  if f.code == "PAL644"]
    assert "float 32000000.0" in finding.message
    (fix,) = finding.fixes
    assert fix.safe and [e.new_text for e in fix.edits] == ["int(3.2e7)"]
