"""A fix that names a Pallas API the checked jax release lacks is not offered (issue 43):
plgpu.InterpretGPUParams exists from jax 0.11 on, not in 0.10.2."""
from pallas_lsp.analysis.findings import Fix
from pallas_lsp.analysis.fixes import names_missing_api
from pallas_lsp.releases import analysis_release
from pallas_lsp.rules import default_engine

SMEM_COMMIT_UNDER_HLO_INTERPRETER = '''\
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def publish(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0
    plgpu.commit_smem()


def run(x):
    return pl.pallas_call(publish, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
'''


def fix_titles(release_version: str) -> list[str]:
    result = default_engine().analyse(SMEM_COMMIT_UNDER_HLO_INTERPRETER, "publish.py",
                                      release=analysis_release(release_version))
    found = [f for f in result.findings if f.code == "PAL514"]
    assert found, [f.code for f in result.findings]
    return [fx.title for f in found for fx in f.fixes]


def test_gpu_interpreter_fix_offered_where_the_release_has_it():
    assert any("InterpretGPUParams" in t for t in fix_titles("0.12.0.1"))
    assert any("InterpretGPUParams" in t for t in fix_titles("0.11.2"))


def test_gpu_interpreter_fix_not_offered_before_0_11():
    assert not any("InterpretGPUParams" in t for t in fix_titles("0.10.2"))


def test_names_are_read_through_aliases_and_full_paths():
    old, new = analysis_release("0.10.2"), analysis_release("0.12.0.1")
    for text in ("interpret=plgpu.InterpretGPUParams()", "jax.experimental.pallas.mosaic_gpu.InterpretGPUParams",
                 "with plgpu.force_gpu_interpret_mode():"):
        fix = Fix(text, ())
        assert names_missing_api(fix, old) and not names_missing_api(fix, new), text
    assert not names_missing_api(Fix("interpret=pltpu.InterpretParams()", ()), old)


def test_a_deprecated_name_the_release_still_serves_is_not_missing():
    # pltpu.create_tensorcore_mesh is deprecated in 0.11/0.12 (reached through the module's
    # __getattr__, absent from dir()): a fix that moves code naming it must still be offered
    # (PAL511's build-in-block fix was dropped under every release's facts before).
    from pallas_lsp.lowering import release_facts

    for release in ("0.10.2", "0.11.2", "0.12.0.1"):
        assert release_facts(release).has_api("jax.experimental.pallas.tpu.create_tensorcore_mesh"), release
    assert not release_facts("0.10.2").has_api("jax.experimental.pallas.mosaic_gpu.InterpretGPUParams")
