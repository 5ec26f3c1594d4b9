"""Each launch's backend, grid and memory budget as the hint, the hover and ``pallas-lsp
launches`` show them (analysis/launch_report.py)."""
from __future__ import annotations

from pallas_lsp.analysis.launch_report import budget_hint, budget_markdown, launch_reports
from pallas_lsp.analysis.vmem_budget import MiB
from pallas_lsp.rules import analyse
from tests.conftest import DATA

TWO = (DATA / "memory" / "two_launches.py").read_text()


def reports(text: str, generation: str | None = None):
    return launch_reports(analyse(text, "/tmp/memory_case.py"), generation)


def test_compiled_tpu_launch_gets_its_budget_and_the_interpret_one_none():
    scale, debug = reports(TWO)
    assert scale.backends == ("tpu",) and debug.backends == ("interpret",)
    assert scale.grid == (4,) and debug.grid == (4,)  # (ROWS // BLOCK[0]: a name bound to a tuple)
    assert debug.budget is None and budget_hint(debug) is None
    b = scale.budget
    assert b is not None and b.grid_steps == 4
    # x and o: (512, 1024) float32 blocks, two buffers each (a 4-step grid); the bf16 scratch, one.
    assert [(p.name, p.buffers, p.each_bytes) for p in b.parts] == [
        ("x_ref", 2, 2 * MiB), ("o_ref", 2, 2 * MiB), ("acc_ref", 1, 1 * MiB)]
    assert budget_hint(scale) == "VMEM 9 of 16 MiB (v5e): x_ref 2 x 2 MiB, o_ref 2 x 2 MiB, acc_ref 1 MiB"


def test_json_has_the_issue_fields_and_the_parts():
    scale = reports(TWO)[0]
    got = scale.as_json("k.py")
    assert {k: got[k] for k in ("path", "line", "backend", "vmem_scoped_bytes", "vmem_limit_bytes", "smem_bytes")} \
        == {"path": "k.py", "line": 18, "backend": "tpu", "vmem_scoped_bytes": 9 * MiB,
            "vmem_limit_bytes": 16 * MiB, "smem_bytes": 0}
    assert got["vmem_limit_from"] == "the scoped default on TPU v5e"
    assert got["parts"][2] == {"name": "acc_ref", "role": "scratch", "space": "vmem", "buffers": 1,
                               "bytes_each": MiB, "bytes": MiB, "block": [512, 1024], "dtype": "bfloat16",
                               "scoped": True, "certain": True}
    assert reports(TWO)[1].as_json("k.py")["vmem_scoped_bytes"] is None


def test_limit_set_in_the_code_and_a_generation_not_measured():
    raised = TWO.replace('dimension_semantics=("parallel",)',
                         'dimension_semantics=("parallel",), vmem_limit_bytes=64 * 1024 * 1024')
    scale = reports(raised)[0]
    assert budget_hint(scale).startswith("VMEM 9 of 64 MiB (v5e): ")
    assert scale.as_json(None)["vmem_limit_from"] == "vmem_limit_bytes"
    other = reports(TWO, "v6e")[0]
    assert other.chip is None
    assert budget_hint(other).startswith("VMEM 9 MiB (TPU v6e's limits not measured): x_ref 2 x 2 MiB")
    assert "not measured on a chip: no verdict" in budget_markdown(other)


def test_hover_table_lists_each_part_with_its_block():
    md = budget_markdown(reports(TWO)[0])
    assert "| `x_ref` | in | VMEM | 2 | (512, 1024) float32 | 4 MiB |" in md
    assert "| `acc_ref` | scratch | VMEM | 1 | (512, 1024) bfloat16 | 1 MiB |" in md
    assert "The grid has 4 steps" in md


def test_unknown_dtype_gives_no_estimate():
    # The operand comes from a parameter no caller passes: its dtype is not known, so no budget.
    text = TWO.split("\n\ndef main")[0]
    assert reports(text)[0].budget is None


def test_smem_prefetch_is_shown_beside_vmem():
    text = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def gather_kernel(idx_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...]


def gather(idx, x):
    return pl.pallas_call(
        gather_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(4,),
            in_specs=[pl.BlockSpec((8, 128), lambda i, idx: (idx[i], 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, idx: (0, 0))),
    )(idx, x)


def main():
    return gather(jnp.zeros((1000,), jnp.int32), jnp.ones((64, 128), jnp.float32))
'''
    (r,) = reports(text)
    assert budget_hint(r) == "VMEM 16 KiB of 16 MiB (v5e): x_ref 2 x 4 KiB, o_ref 2 x 4 KiB · SMEM 4 KiB of 1 MiB"
