"""PAL707 tpu-smem-scalar-window against what a TPU v5e (jax 0.10.2) did with scalars in SMEM:
flagged on every labelled case the chip refused with "Scalar windows not implemented", quiet
on the shapes it compiled, never beside PAL645, never in interpret mode."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_lsp.analysis.contexts import JaxRelease
from pallas_lsp.explain import explain_text
from pallas_lsp.records import default_store
from pallas_lsp.rules import analyse

CHIP = Path(__file__).resolve().parents[1] / "data" / "chip"
LABELS = json.loads((CHIP / "labels.json").read_text("utf-8"))["cases"]
SCALAR_CASES = sorted(k.split("/")[-1] for k in LABELS if k.split("/")[-1].startswith("tpu-block-rank0__"))


def codes(text: str, **kw) -> list[tuple[str, int]]:
    result = analyse(text, "/tmp/case.py", release=JaxRelease("0.10.2"), **kw)
    return [(f.code, f.span.line) for f in result.findings if f.code in ("PAL645", "PAL707")]


@pytest.mark.parametrize("name", SCALAR_CASES)
def test_agrees_with_the_chip(name):
    label = LABELS[f"cases/{name}"]
    got = codes((CHIP / "cases" / name).read_text("utf-8"), backends=("tpu",))
    if label["outcome"] == "raises" and label["feature"] == "tpu-smem-scalar-window":
        assert [(c, line in label["lines"]) for c, line in got] == [("PAL707", True)], got
    else:
        assert "PAL707" not in [c for c, _ in got], got


def test_the_kind_has_cases_of_both_outcomes():
    outcomes = {LABELS[f"cases/{n}"]["feature"] == "tpu-smem-scalar-window" for n in SCALAR_CASES}
    assert outcomes == {True, False}


def test_quiet_in_interpret_mode_and_for_a_block_shape_never_measured():
    text = (CHIP / "cases" / "tpu-block-rank0__int32_offset_inline_fixed.py").read_text("utf-8")
    assert codes(text.replace("INTERPRET = False", "INTERPRET = True")) == []
    # A (1,) array in SMEM under the grid compiled: quiet.
    one = text.replace("jnp.full((), 7, jnp.int32)", "jnp.full((1,), 7, jnp.int32)").replace("k_ref[...]", "k_ref[0]")
    assert codes(one, backends=("tpu",)) == []


def test_explain_names_the_kind_of_the_pasted_chip_error():
    for name in SCALAR_CASES:
        label = LABELS[f"cases/{name}"]
        if label.get("feature") == "tpu-smem-scalar-window":
            found = [e.record.slug for e in explain_text(label["compiled"]["message"], default_store())]
            assert found[:1] == ["tpu-smem-scalar-window"], (name, found)
