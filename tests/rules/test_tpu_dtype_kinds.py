"""The TPU dtype kinds (PAL700-PAL705, issue 41) on code shapes of their own, each with a clean
twin, and their ties to the chip: what a TPU v5e (jax 0.10.2) did with the same constructs is in
tests/data/chip/labels.json and /work/shared/corpus-tpu's labels (the Mosaic errors show only on
the chip). Each program is analysed as compiled for TPU (``backends=("tpu",)``); the flagged
line is marked ``# here``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pallas_lsp.explain import explain_text
from pallas_lsp.records import default_store
from pallas_lsp.rules import analyse
from pallas_lsp.rules.examples import examples_for

CODES = ("PAL700", "PAL701", "PAL702", "PAL703", "PAL704", "PAL705")
CHIP = Path(__file__).parents[1] / "data" / "chip"

HEAD = """\
import functools
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""
X64 = 'jax.config.update("jax_enable_x64", True)\n'

CASES = {
    # int8 operands from jax.random; the sum inside a function nested in the kernel.
    "int8_random_nested_sum": ("PAL700", """
def kernel(a_ref, b_ref, o_ref):
    def combine():
        return a_ref[...] + b_ref[...]  # here
    o_ref[...] = combine()


def run(a, b):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, 128), jnp.int8))(a, b)


k = jax.random.key(0)
run(jax.random.randint(k, (64, 128), -5, 5, dtype=jnp.int8), jax.random.randint(k, (64, 128), -5, 5, dtype=jnp.int8))
"""),
    # The same in int32: compiles.
    "int32_random_nested_sum": (None, """
def kernel(a_ref, b_ref, o_ref):
    def combine():
        return a_ref[...] + b_ref[...]
    o_ref[...] = combine()


def run(a, b):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((64, 128), jnp.int32))(a, b)


k = jax.random.key(0)
run(jax.random.randint(k, (64, 128), -5, 5, dtype=jnp.int32), jax.random.randint(k, (64, 128), -5, 5, dtype=jnp.int32))
"""),
    # uint8 through jnp.asarray(x, dtype) and a BlockSpec'd grid: the finding sits on the block.
    "uint8_asarray_blocks": ("PAL700", """
def kernel(p_ref, o_ref):
    o_ref[...] = p_ref[...] * 2


def run(p):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(p.shape, p.dtype),
        grid=(2,),
        in_specs=[pl.BlockSpec((32, 256), lambda i: (i, 0))],  # here
        out_specs=pl.BlockSpec((32, 256), lambda i: (i, 0)),
    )(p)


run(jnp.asarray(np.zeros((64, 256)), jnp.uint8))
"""),
    # int8 blocks into an int32 matmul: loads and the MXU compile (chip: matmul__int8_i32_clean).
    "int8_matmul_int32_acc": (None, """
def kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.int32) + 1


def run(a, b):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.int32))(a, b)


run(jnp.ones((128, 128), jnp.int8), jnp.ones((128, 128), jnp.int8))
"""),
    # Operands whose dtype the module does not say: quiet.
    "unknown_operand_dtype": (None, """
def kernel(a_ref, o_ref):
    o_ref[...] = a_ref[...] + 1


def run(a):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype))(a)
"""),
    # A float16 operand made by astype at the call, read through jnp.exp.
    "float16_exp": ("PAL701", """
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...]).astype(jnp.float32)  # here


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32))(x)


run(jnp.ones((8, 256)).astype(jnp.float16))
"""),
    "bfloat16_exp": (None, """
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...]).astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 256), jnp.float32))(x)


run(jnp.ones((8, 256)).astype(jnp.bfloat16))
"""),
    # A kernel that calls a GPU-only API is a GPU kernel, whatever the backends setting says
    # (jax's own Triton tests, checked with --backends tpu, import it under try:).
    "gpu_kernel_float16": (None, """
try:
    from jax.experimental.pallas import triton as plgpu
except ImportError:
    plgpu = None


def kernel(x_ref, o_ref):
    [o_ref[...]] = plgpu.elementwise_inline_asm("tanh.approx.f16x2 $0, $1;", args=[x_ref[...]],
                                                constraints="=r,r", pack=2,
                                                result_shape_dtypes=[jax.ShapeDtypeStruct((256,), jnp.float16)])


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((256,), jnp.float16))(x)


run(jnp.arange(256).astype(jnp.float16))
"""),
    # fp8 scaled by a Python float (mulf on f8E5M2).
    "e5m2_scaled": ("PAL702", """
def kernel(q_ref, o_ref):
    o_ref[...] = q_ref[...] * 0.25  # here


def run(q):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype))(q)


run(jnp.zeros((32, 128), jnp.float8_e5m2))
"""),
    # fp8 into a float32-accumulated matmul (chip: matmul__fp8_operands ran clean).
    "e4m3_matmul_f32_acc": (None, """
def kernel(a_ref, b_ref, o_ref):
    o_ref[...] = jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32) * 0.5


def run(a, b):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.float32))(a, b)


run(jnp.zeros((128, 128), jnp.float8_e4m3fn), jnp.zeros((128, 128), jnp.float8_e4m3fn))
"""),
    # x64 on; lax.convert_element_type to float64 in the kernel.
    "x64_convert_element_type": ("PAL703", X64 + """
def kernel(x_ref, o_ref):
    wide = lax.convert_element_type(x_ref[...], jnp.float64)  # here
    o_ref[...] = (wide * 2).astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)


run(jnp.ones((8, 128), jnp.float32))
"""),
    # x64 on, a float64 NumPy operand: the finding is on the operand (the output is float32).
    "x64_numpy_operand": ("PAL703", X64 + """
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)  # here


run(np.zeros((8, 128), dtype=np.float64))
"""),
    # The same without x64: float64 is float32 when traced.
    "no_x64_numpy_operand": (None, """
def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].astype(jnp.float64).astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(x)


run(np.zeros((8, 128), dtype=np.float64))
"""),
    # An int8 SMEM scratch counter incremented.
    "int8_smem_scratch_add": ("PAL704", """
def kernel(x_ref, o_ref, count_ref):
    count_ref[0] = jnp.int8(0)
    nxt = count_ref[0] + jnp.int8(1)  # here
    o_ref[...] = x_ref[...] * nxt.astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          scratch_shapes=[pltpu.SMEM((1,), jnp.int8)])(x)


run(jnp.ones((8, 128), jnp.float32))
"""),
    # The same counter in int32: the scalar core's own width.
    "int32_smem_scratch_add": (None, """
def kernel(x_ref, o_ref, count_ref):
    count_ref[0] = jnp.int32(0)
    nxt = count_ref[0] + jnp.int32(1)
    o_ref[...] = x_ref[...] * nxt.astype(jnp.float32)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          scratch_shapes=[pltpu.SMEM((1,), jnp.int32)])(x)


run(jnp.ones((8, 128), jnp.float32))
"""),
    # expand_dims at axis == rank on a bfloat16 tile.
    "bf16_expand_at_rank": ("PAL705", """
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.expand_dims(x_ref[...], 2), (8, 128, 2))  # here


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128, 2), jnp.bfloat16))(x)


run(jnp.zeros((8, 128), jnp.bfloat16))
"""),
    # A new leading axis is not a minor-dim insertion.
    "bf16_expand_leading": (None, """
def kernel(x_ref, o_ref):
    o_ref[...] = jnp.broadcast_to(jnp.expand_dims(x_ref[...], 0), (2, 8, 128))


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.bfloat16))(x)


run(jnp.zeros((8, 128), jnp.bfloat16))
"""),
}


def mine(text: str, **kw) -> list:
    return [f for f in analyse(text, "case.py", **kw).findings if f.code in CODES]


@pytest.mark.parametrize("name", sorted(CASES))
def test_own_shapes_and_twins(name):
    code, body = CASES[name]
    text = HEAD + body
    got = mine(text, backends=("tpu",))
    if code is None:
        assert not got, [f"{f.code} {f.span.line}: {f.message}" for f in got]
        return
    want = next(i for i, line in enumerate(text.splitlines(), 1) if line.rstrip().endswith("# here"))
    assert [(f.code, f.span.line) for f in got] == [(code, want)], [f.message for f in got]


@pytest.mark.parametrize("name", [n for n, (c, _) in CASES.items() if c is not None])
def test_quiet_in_interpret_mode_and_without_a_tpu(name):
    text = HEAD + CASES[name][1]
    interpreted = text.replace("pl.pallas_call(kernel, ", "pl.pallas_call(kernel, interpret=True, ") \
        .replace("pl.pallas_call(\n        kernel,", "pl.pallas_call(\n        kernel, interpret=True,")
    assert interpreted != text
    assert not mine(interpreted, backends=("tpu",))
    if "pltpu." not in CASES[name][1]:
        assert not mine(text)  # (compiled, but no evidence of a TPU: the backend is not known)


def test_messages_say_the_dtypes():
    (f,) = mine(HEAD + CASES["int8_smem_scratch_add"][1], backends=("tpu",))
    assert "int8" in f.message and "arith.addi" in f.message and "count_ref" in f.message
    (f,) = mine(HEAD + CASES["x64_numpy_operand"][1], backends=("tpu",))
    assert "float64 input" in f.message and "f64[8,128]" in f.actual_error


def fixed(text: str, title_part: str) -> str:
    from pallas_lsp.analysis.edits import apply_edits

    (f,) = mine(text, backends=("tpu",))
    (fix,) = [x for x in f.fixes if title_part in x.title]
    return apply_edits(text, fix.edits)


def test_the_fixes_write_the_programs_the_chip_ran():
    # Each fix applied to the failing chip case gives its fixed twin, which ran clean on the chip.
    cases = CHIP / "cases"
    got = fixed((cases / "tpu-narrow-int-vector__int8_add_whole.py").read_text(), "int32")
    assert _kernel_of(got) == _kernel_of((cases / "tpu-narrow-int-vector__int8_add_fixed.py").read_text())
    shared = SHARED / "cases"
    if shared.is_dir():
        got = fixed((shared / "smem__int8_table_arith.py").read_text(), "int32")
        assert _kernel_of(got) == _kernel_of((cases / "tpu-smem-narrow-int-arith__int8_table_fixed.py").read_text())
        got = fixed((shared / "dtype__fp8_elementwise.py").read_text(), "float32")
        assert _kernel_of(got) == _kernel_of((cases / "tpu-fp8-elementwise__e4m3_mul_fixed.py").read_text())
        got = fixed((shared / "dtype__astype_float64.py").read_text(), "float32")
        assert _kernel_of(got) == _kernel_of((cases / "tpu-64-bit-types__astype_float64_fixed.py").read_text())
    for name in ("tpu-narrow-int-vector__int8_add_fixed.py", "tpu-fp8-elementwise__e4m3_mul_fixed.py",
                 "tpu-smem-narrow-int-arith__int8_table_fixed.py", "tpu-64-bit-types__astype_float64_fixed.py"):
        assert not mine((cases / name).read_text(), backends=("tpu",)), name


def _kernel_of(text: str) -> str:
    """The kernel function's text (the first ``def *_kernel``)."""
    m = re.search(r"^def \w+_kernel\(.*?(?=^\S)", text, re.M | re.S)
    assert m
    return re.sub(r"\s+# (FAIL|DECOY)$", "", m.group(0).strip(), flags=re.M)


LABELS = json.loads((CHIP / "labels.json").read_text())["cases"] if (CHIP / "labels.json").exists() else {}
SHARED = Path("/work/shared/corpus-tpu")  # (the shared chip corpus, where this checkout has it)
SHARED_LABELS = json.loads((SHARED / "labels.json").read_text()) if (SHARED / "labels.json").exists() else None
RECORD_OF = {"PAL700": "tpu-narrow-int-vector", "PAL701": "tpu-float16-vector", "PAL702": "tpu-fp8-elementwise",
             "PAL703": "tpu-64-bit-types", "PAL704": "tpu-smem-narrow-int-arith",
             "PAL705": "tpu-unsupported-shape-cast"}
OTHER_KIND = "cases/tpu-int8-block-tiling__int8_copy_16rows.py"  # (E2002 block tiling, PAL706: not a dtype kind)


@pytest.mark.parametrize("code", CODES)
def test_chip_examples_name_a_chip_case_that_agrees(code):
    """An example the CPU cannot check (``# oracle: chip``) names the labelled chip case of the
    same construct: an invalid one raised this kind's error on the chip, a valid one ran clean."""
    found = examples_for(code)
    for kind, examples in (("invalid", found.invalid), ("valid", found.valid)):
        for ex in examples:
            m = re.search(r"chip case (cases/[\w.-]+\.py)", ex.note)
            shared = re.search(r"shared chip case ([\w.-]+\.py)", ex.note)
            if ex.oracle != "chip" and m is None:
                continue
            assert m or shared, f"{ex.name}: a chip example names its chip case in its note"
            if m is None:
                if SHARED_LABELS is None:
                    continue
                label = SHARED_LABELS[shared.group(1)]  # type: ignore[union-attr]
            else:
                label = LABELS[m.group(1)]
            if kind == "invalid":
                assert label["outcome"] == "raises" and label["feature"] == RECORD_OF[code], (ex.name, label)
            else:
                assert label["outcome"] == "clean", (ex.name, label)


def test_the_chip_labels_of_these_kinds_agree_with_the_rules():
    """Every labelled chip case of these kinds: the one finding on a raising case's lines, none
    on a clean one (the E2002 int8 block-tiling case is another kind: see the note)."""
    checked = 0
    for key, label in LABELS.items():
        name = key.split("/")[-1]
        if not name.startswith(tuple(RECORD_OF.values())) or key == OTHER_KIND:
            continue
        got = [(f.record, f.span.line) for f in mine((CHIP / key).read_text(), backends=("tpu",))]
        if label["outcome"] == "raises":
            assert len(got) == 1 and got[0][0] == label["feature"] and got[0][1] in label["lines"], (key, got)
        else:
            assert not got, (key, got)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("pasted, slug", [
    ("jaxlib.mosaic.MosaicError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Only vector<i16> "
     "and vector<i32> are supported, but got 'i8'. Please cast your input.", "tpu-narrow-int-vector"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: Invalid vector type for load", "tpu-float16-vector"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: failed to legalize operation 'tpu.pack_subelements': %12 = "
     "\"tpu.pack_subelements\"(%11) <{pack_format = #tpu.pack_format<compressed>, positions = array<i32: 0>, "
     "unsigned_integers = false}> : (vector<8x128xf32>) -> vector<8x128x2xf16>", "tpu-float16-vector"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: failed to legalize operation 'arith.mulf': %18 = "
     "\"arith.mulf\"(%9, %17) <{fastmath = #arith.fastmath<none>}> : (vector<8x128x4xf8E4M3FN>, "
     "vector<8x128x4xf8E4M3FN>) -> vector<8x128x4xf8E4M3FN>", "tpu-fp8-elementwise"),
    ("NotImplementedError: 64-bit types are not supported", "tpu-64-bit-types"),
    ("jax.errors.JaxRuntimeError: UNIMPLEMENTED: While rewriting computation to not contain X{64|128} element "
     "types, XLA encountered an HLO for which this rewriting is not implemented: %pallas_call.1 = f64[8,128]{1,0} "
     "custom-call(%args_0_.1), custom_call_target=\"tpu_custom_call\"", "tpu-64-bit-types"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Only i32 arith.muli is supported, but got "
     "'i8'. Please cast your input to i32.", "tpu-smem-narrow-int-arith"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Only i32 arith.addi is supported, but got "
     "'i16'. Please cast your input to i32.", "tpu-smem-narrow-int-arith"),
    ("INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast",
     "tpu-unsupported-shape-cast"),
])
def test_explain_names_the_kind_of_a_pasted_chip_error(pasted, slug):
    assert [e.record.slug for e in explain_text(pasted, default_store())][:1] == [slug]


def test_explain_matches_every_chip_label_message_of_these_kinds():
    for key, label in LABELS.items():
        if label.get("feature") in RECORD_OF.values() and key != OTHER_KIND:
            assert label["feature"] in [e.record.slug for e in explain_text(label["message"], default_store())], key


# -- existing kinds fed the operand dtypes kernel_values reads (issue 41, part 3) -----------------

ALIAS_SPREAD = """
def update_kernel(slots_ref, cache_ref, new_ref, o_ref):
    o_ref[...] = new_ref[...]


def launch(slots, cache, new):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1, grid=(2,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec((8, 128), lambda i, s: (i, 0))],
        out_specs=pl.BlockSpec((8, 128), lambda i, s: (s[i], 0)),
    )
    return pl.pallas_call(update_kernel, grid_spec=grid_spec,
                          out_shape=jax.ShapeDtypeStruct(cache.shape, cache.dtype),
                          input_output_aliases={ALIAS})(slots, cache, new)  # here


def inputs():
    return (jnp.array([3, 1], jnp.int32), jnp.zeros((32, 128), jnp.float32), jnp.ones((16, 128), jnp.float32))


launch(*inputs())
"""


def test_alias_dtypes_through_a_spread_helper():
    # {0: 0} aliases the int32 prefetch vector to the float32 output (JAX: int32[2] vs
    # float32[32,128], corpus-tpu alias__prefetch_offset); {1: 0} aliases the cache (clean).
    got = [(f.code, f.span.line) for f in analyse(HEAD + ALIAS_SPREAD.replace("{ALIAS}", "{0: 0}"), "a.py").findings]
    want = next(i for i, line in enumerate((HEAD + ALIAS_SPREAD).splitlines(), 1) if line.endswith("# here"))
    assert got == [("PAL603", want)]
    assert not analyse(HEAD + ALIAS_SPREAD.replace("{ALIAS}", "{1: 0}"), "a.py").findings


PREFETCH_INDEX = """
def copy_kernel(ids_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gather(ids, table):
    return pl.pallas_call(
        copy_kernel,
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(2,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, ids_ref: (INDEX, 0))],  # here
            out_specs=pl.BlockSpec((8, 128), lambda i, ids_ref: (i, 0)),
        ),
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
    )(ids, table)


gather(jnp.array([2, 0], dtype=jnp.DTYPE), jnp.zeros((32, 128), jnp.float32))
"""


@pytest.mark.parametrize("index, dtype, flagged", [
    ("ids_ref[i] * 2", "int8", True),  # int8 times a Python int: int8
    ("ids_ref[i] * 2", "int32", False),
    ("ids_ref[i].astype(jnp.int32) * 2", "int8", False),  # the fix (ran clean on the chip for int16)
    ("ids_ref[i] + i", "int16", False),  # int16 + the int32 grid index promotes to int32
])
def test_narrow_scalar_prefetch_index(index, dtype, flagged):
    text = HEAD + PREFETCH_INDEX.replace("INDEX", index).replace("DTYPE", dtype)
    got = [(f.code, f.span.line) for f in analyse(text, "p.py").findings]
    want = next(i for i, line in enumerate(text.splitlines(), 1) if line.endswith("# here"))
    assert got == ([("PAL626", want)] if flagged else [])
