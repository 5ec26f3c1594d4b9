"""The wave-2 kinds written as data (kinds/<slug>/record.json with a detection section): each
one's example programs (kinds/<slug>/examples/<CODE>/, checked against real JAX by the oracle) are
flagged on their marked line by that code, and the valid ones are not flagged by it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_lsp.analysis import Engine
from pallas_lsp.records import builtin_records
from pallas_lsp.rules import default_rule_set
from pallas_lsp.rules.data import DataRule
from pallas_lsp.rules.examples import examples_for

DATA = Path(__file__).resolve().parents[2] / "server" / "pallas_lsp" / "kinds"
# The wave-2 kinds this file covers: record slug -> the codes of its detection sections.
KINDS = {
    "gpu-interpret-copy-without-barrier": ("PAL101",),
    "gpu-interpret-im2col-copy": ("PAL102",),
    "gpu-interpret-tmem-load-reduce": ("PAL103",),
    "gpu-interpret-generic-load": ("PAL104",),
    "gpu-interpret-generic-store": ("PAL105",),
    "gpu-interpret-tma-reduction-op": ("PAL106",),
    "gpu-interpret-tma-store-predicate": ("PAL107",),
    "gpu-interpret-scalar-prefetch": ("PAL108",),
    "gpu-interpret-ref-union-pallas-call-scratch": ("PAL109",),
    "gpu-interpret-cluster-barrier-leader-tracked": ("PAL110", "PAL111"),
    "gpu-interpret-foreign-memory-space": ("PAL112", "PAL117", "PAL118"),
    "gpu-interpret-transposed-tma-destination": ("PAL113",),
    "gpu-interpret-blockspec-not-whole-array": ("PAL114", "PAL115"),
    "tpu-interpret-foreign-memory-space": ("PAL208", "PAL209", "PAL212", "PAL213"),
    "tpu-interpret-non-decrementing-wait": ("PAL201",),
    "tpu-interpret-masked-load": ("PAL202",),
    "tpu-interpret-run-scoped-collective-axes": ("PAL203",),
    "hlo-interpret-run-scoped-collective-axes": ("PAL204", "PAL205"),
    "hlo-interpret-remote-signal": ("PAL206",),
    "hlo-interpret-core-index-signal": ("PAL207",),
    "hlo-interpret-padding-with-aliasing": ("PAL210", "PAL211"),
    "mgpu-lower-copy-without-barrier": ("PAL301",),
    "mgpu-lower-pallas-call-compiler-params": ("PAL302",),
    "mgpu-lower-im2col-warpgroup": ("PAL303",),
}
CODES = [code for codes in KINDS.values() for code in codes]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(default_rule_set())


def _cases(kind: str):
    out = []
    for code in CODES:
        found = examples_for(code)
        for ex in (found.invalid if kind == "invalid" else found.valid):
            out.append(pytest.param(code, ex, id=f"{code}-{ex.name}"))
    return out


def test_every_kind_loads_as_a_data_rule_tied_to_its_record():
    records, problems = builtin_records()
    assert not problems
    rules = {r.code: r for r in default_rule_set()}
    for slug, codes in KINDS.items():
        assert (DATA / slug.replace("-", "_") / "record.json").is_file()
        rec = next(r for r in records if r.slug == slug)
        assert rec.detection is not None, slug
        for code in codes:
            rule = rules[code]
            assert isinstance(rule, DataRule) and rule.record == slug, code


def test_every_code_has_an_invalid_and_a_valid_example():
    for code in CODES:
        found = examples_for(code)
        assert found.invalid and found.valid, code


@pytest.mark.parametrize("code,example", _cases("invalid"))
def test_invalid_example_is_flagged_on_its_line(engine: Engine, code: str, example) -> None:
    result = engine.analyse(example.code, example.path)
    mine = [f for f in result.findings if f.code == code]
    assert [f.span.line for f in mine] == [example.error_line()], \
        [(f.code, f.span.line, f.message) for f in result.findings]
    (finding,) = mine
    cls = example.raises[0]
    assert f"JAX raises {cls}:" in finding.message, finding.message


@pytest.mark.parametrize("code,example", _cases("valid"))
def test_valid_example_is_not_flagged(engine: Engine, code: str, example) -> None:
    result = engine.analyse(example.code, example.path)
    assert not [f for f in result.findings if f.code in CODES], \
        [(f.code, f.span.line, f.message) for f in result.findings]


def test_record_files_are_the_kind_slug_and_pin_the_release():
    for slug in KINDS:
        rec = json.loads((DATA / slug.replace("-", "_") / "record.json").read_text())["record"]
        assert rec["id"] == rec["slug"] == slug
        assert rec["githubUrl"].startswith("https://github.com/jax-ml/jax/blob/jax-v0.12.0.1/")
        assert rec["githubUrl"].endswith(f"{rec['filePath']}#L{rec['lineNumber']}")


def test_lowering_semantics_the_code_does_not_say_keeps_the_rule_quiet(engine: Engine) -> None:
    """PAL303 speaks only when the lowering semantics are surely Warpgroup: compiler params
    built by a helper (or any value the analysis cannot see) could say Lane."""
    (ex,) = examples_for("PAL303").invalid
    params = "plgpu.CompilerParams(\n                           lowering_semantics=plgpu.LoweringSemantics.Warpgroup)"
    assert params in ex.code
    unknown = ex.code.replace(params, "make_params()").replace("def main():", "def main(make_params=None):")
    for text, flagged in ((ex.code, True), (unknown, False),
                          (ex.code.replace(params, "plgpu.CompilerParams()"), True)):
        found = [f for f in engine.analyse(text, "k.py").findings if f.code == "PAL303"]
        assert bool(found) is flagged, text


@pytest.mark.parametrize("aliases,flagged", [("{1: 0}", True), ("{}", False), ("dict(ALIASES)", False)])
def test_aliasing_counts_only_when_the_dict_is_surely_not_empty(engine: Engine, aliases, flagged) -> None:
    (ex,) = examples_for("PAL210").invalid
    text = ex.code.replace("IN_PLACE = {1: 0}", f"IN_PLACE = {aliases}")
    found = [f for f in engine.analyse(text, "k.py").findings if f.code == "PAL210"]
    assert bool(found) is flagged


@pytest.mark.parametrize("index_map,flagged", [
    ("lambda i: (i,)", True), ("lambda i: (0,)", False), ("lambda i: (1,)", True),
    ("lambda i: (OFFSET,)", False),  # a value the analysis cannot tell (it may be 0)
    ("lambda i: (i * 0,)", False),   # traced, so not a literal 0, but the test does not reach that far
])
def test_a_moving_index_map_is_one_the_code_shows(engine: Engine, index_map, flagged) -> None:
    (ex,) = examples_for("PAL115").invalid
    text = ex.code.replace("lambda i: (i,)", index_map).replace("def main():", "def main(OFFSET=None):")
    found = [f for f in engine.analyse(text, "k.py").findings if f.code == "PAL115"]
    assert bool(found) is flagged


BLOCKED_GPU_INTERPRETED = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = pltpu.load(x_ref) + 1.0


def main():
    x = jnp.ones((256,), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                         in_specs=[pl.BlockSpec((128,), lambda i: (i,))],
                         out_specs=pl.BlockSpec((128,), lambda i: (i,)),
                         interpret=plgpu.InterpretGPUParams())(x)
"""


def test_a_body_kind_is_quiet_when_the_launch_fails_earlier(engine: Engine) -> None:
    """The GPU interpreter asserts a pallas_call's BlockSpecs are trivial before it interprets
    the body (run under JAX 0.12.0.1: AssertionError, not the load's NotImplementedError), so
    only PAL114 speaks; without the BlockSpecs the load is what fails."""
    codes = [f.code for f in engine.analyse(BLOCKED_GPU_INTERPRETED, "k.py").findings]
    assert codes == ["PAL114"], codes
    unblocked = BLOCKED_GPU_INTERPRETED.replace(", grid=(2,),\n", ",\n").replace(
        "                         in_specs=[pl.BlockSpec((128,), lambda i: (i,))],\n", "").replace(
        "                         out_specs=pl.BlockSpec((128,), lambda i: (i,)),\n", "")
    assert [f.code for f in engine.analyse(unblocked, "k.py").findings] == ["PAL104"]


FOREIGN_SPACES_GPU_INTERPRETED = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, acc_ref):
    o_ref[...] = x_ref[...]


def main():
    x = jnp.ones((16, 128), jnp.float32)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          in_specs=[pl.BlockSpec(IN_BLOCK, memory_space=pltpu.HBM)],
                          out_specs=pl.BlockSpec(memory_space=pltpu.CMEM),
                          scratch_shapes=[pltpu.VMEM((8,), jnp.float32)],
                          interpret=plgpu.InterpretGPUParams())(x)
"""


@pytest.mark.parametrize("in_block,codes", [
    ("(16, 128), lambda: (0, 0)", [("PAL117", 16)]),  # inputs are allocated first (KeyError: HBM)
    ("(8, 128), lambda: (0, 0)", [("PAL116", 16)]),   # not the whole array: JAX asserts that first
])
def test_the_first_foreign_memory_space_jax_allocates_is_the_one_reported(engine: Engine, in_block, codes) -> None:
    text = FOREIGN_SPACES_GPU_INTERPRETED.replace("IN_BLOCK", in_block)
    found = [(f.code, f.span.line) for f in engine.analyse(text, "k.py").findings]
    assert found == codes, found
    no_inputs = text.replace(
        "                          in_specs=[pl.BlockSpec(" + in_block + ", memory_space=pltpu.HBM)],\n", "")
    assert [(f.code, f.span.line) for f in engine.analyse(no_inputs, "k.py").findings] == [("PAL118", 16)]


PREFETCH_GPU_INTERPRETED = """
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu


def kernel(s_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def main():
    s = jnp.zeros((1,), jnp.int32)
    x = jnp.ones((16, 128), jnp.float32)
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid_spec=pltpu.PrefetchScalarGridSpec(PREFETCH, in_specs=IN_SPECS),
                          interpret=plgpu.InterpretGPUParams())(s, x)
"""


def test_a_foreign_memory_space_is_quiet_when_scalar_prefetch_fails_first(engine: Engine) -> None:
    """JAX 0.12.0.1's GPU interpreter rejects scalar-prefetch operands before it allocates the
    buffers: a grid spec with both is PAL108 alone ("Scalar arguments not (yet) supported on
    GPU"); without the prefetch, the memory space ("KeyError: SMEM"). Both programs were run."""
    smem = "pl.BlockSpec(memory_space=pltpu.SMEM)"

    def codes(prefetch: str, specs: str) -> list[str]:
        text = PREFETCH_GPU_INTERPRETED.replace("PREFETCH", prefetch).replace("IN_SPECS", specs)
        return [f.code for f in engine.analyse(text, "k.py").findings]

    assert codes("1", f"[{smem}]") == ["PAL108"]
    assert codes("0", f"[{smem}, {smem}]") == ["PAL117"]
