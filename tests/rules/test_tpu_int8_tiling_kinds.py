"""PAL706 tpu-int8-block-tiling against the chip's labels (TPU v5e, jax 0.10.2, libtpu 0.0.42.1)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.explain import explain_text
from pallas_lsp.records import default_store
from pallas_lsp.rules import analyse
from pallas_lsp.rules.examples import examples_for


CHIP = Path(__file__).resolve().parents[1] / "data" / "chip"
LABELS = json.loads((CHIP / "labels.json").read_text("utf-8"))["cases"]
SLUG = "tpu-int8-block-tiling"
SHARED = Path("/work/shared/corpus-tpu")
OWN = sorted(k for k in LABELS if k.startswith(f"cases/{SLUG}__"))


def findings(text: str, **kw):
    kw.setdefault("backends", ("tpu",))
    return [f for f in analyse(text, "/tmp/int8_tiling.py", **kw).findings if f.code == "PAL706"]


def _body(text: str) -> str:
    """A chip case without its header lines and markers: the program the chip compiled."""
    lines = [re.sub(r"\s+# (FAIL|DECOY)$", "", line) for line in text.splitlines() if not line.startswith("# ")]
    return "\n".join(lines)


def test_every_labelled_case_of_the_kind_agrees_with_the_chip():
    assert len(OWN) >= 6
    for key in OWN:
        label = LABELS[key]
        got = [(f.record, f.span.line) for f in findings((CHIP / key).read_text("utf-8"))]
        if label["outcome"] == "raises":
            assert label["feature"] == SLUG
            assert len(got) == 1 and got[0][1] in label["lines"], (key, got)
        else:
            assert not got, (key, got)


def test_the_message_says_the_numbers():
    (f,) = findings((CHIP / "cases/tpu-int8-block-tiling__int8_copy_16rows.py").read_text("utf-8"))
    assert "Block (16, 256) of an int8 (64, 256) operand" in f.message
    assert "16 rows is not a multiple of 32 nor the array's 64" in f.message
    assert "(..., 64, 256) has tiling (32, 128), but its block shape (..., 16, 256)" in f.message


def test_interpret_mode_and_other_platforms_are_quiet():
    text = (CHIP / "cases/tpu-int8-block-tiling__int8_16rows_grid.py").read_text("utf-8")
    assert findings(text)
    assert not findings(text.replace("INTERPRET = False", "INTERPRET = True"), backends=())
    assert not findings(text, backends=())  # (no backend said: not known to be compiled for TPU)


def test_the_fix_writes_the_program_the_chip_ran_clean():
    for bad, ran in (("int8_16rows_grid", "int8_32rows_grid"), ("uint8_16rows_grid", "uint8_32rows_grid"),
                     ("int8_8rows_grid", "int8_32rows_grid")):
        text = (CHIP / f"cases/{SLUG}__{bad}.py").read_text("utf-8")
        (f,) = findings(text)
        (fix,) = f.fixes
        assert not fix.safe and fix.title.startswith("Use 32-row blocks")
        fixed = _body(apply_edits(text, fix.edits))
        clean = _body((CHIP / f"cases/{SLUG}__{ran}.py").read_text("utf-8"))
        # (the chip cases differ from their fixed twin only in TM and the header)
        assert fixed == clean
        assert LABELS[f"cases/{SLUG}__{ran}.py"]["outcome"] == "clean"


SHAPES = """
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = {rows}, 512


def band(rows):
    return pl.BlockSpec((2, rows, COLS), lambda b, i: (b, i, 0))


def scale_kernel(q_ref, s_ref, o_ref):
    o_ref[...] = q_ref[...].astype(jnp.float32) * s_ref[...]


@functools.partial(jax.jit, static_argnames=())
def dequant(q, s):
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct((4, ROWS, COLS), jnp.float32),
        grid=(2, ROWS // {block}),
        in_specs=[band({block}), pl.BlockSpec((2, {block}, COLS), lambda b, i: (b, i, 0))],
        out_specs=band({block}),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
    )(q, s)


q = jnp.zeros((4, ROWS, COLS), jnp.{dtype})
s = jnp.ones((4, ROWS, COLS), jnp.float32)
dequant(q, s)
"""


@pytest.mark.parametrize("dtype, rows, block, flagged", [
    ("int8", 256, 24, True),      # a 3-D helper-made block of 24 rows: neither 32k nor 256
    ("uint8", 96, 48, True),
    ("int8", 256, 64, False),     # whole tiles
    ("int8", 48, 48, False),      # the array's own rows
    ("int8", 16, 8, False),       # fewer than 32 rows: the tiling is smaller, not measured
    ("bfloat16", 256, 8, False),  # 16-bit: no chip run showed E2002
    ("float32", 256, 24, False),
    ("float8_e4m3fn", 256, 16, False),  # 8-bit, but no chip run showed it
])
def test_own_shapes(dtype, rows, block, flagged):
    got = findings(SHAPES.format(dtype=dtype, rows=rows, block=block))
    assert bool(got) == flagged, got
    if flagged:
        assert f"{block} rows is not a multiple of 32 nor the array's {rows}" in got[0].message
        assert not got[0].fixes  # (the rows reach the spec through a helper's parameter: no one literal to edit)


def test_quiet_where_jax_or_the_kernel_body_fails_first():
    text = (CHIP / "cases/tpu-int8-block-tiling__int8_16rows_grid.py").read_text("utf-8")
    # A lane dim JAX's own (8, 128) check refuses: PAL640, never both on one block.
    lanes = text.replace("M, N, TM = 128, 256, 16", "M, N, TM = 128, 200, 16").replace(
        "pl.BlockSpec((TM, N)", "pl.BlockSpec((TM, 100)")
    codes = [f.code for f in analyse(lanes, "/tmp/lanes.py", backends=("tpu",)).findings]
    assert "PAL640" in codes and "PAL706" not in codes
    # int8 vector arithmetic in the body: the chip reported that first (corpus-tpu
    # block_tiling__int8_sublane_16), so only PAL700.
    adds = text.replace("o_ref[...] = x_ref[...]", "o_ref[...] = x_ref[...] + jnp.int8(1)")
    codes = [f.code for f in analyse(adds, "/tmp/adds.py", backends=("tpu",)).findings]
    assert codes == ["PAL700"]


@pytest.mark.skipif(not (SHARED / "labels.json").exists(), reason="the shared chip corpus is not here")
def test_the_shared_int8_case_stays_with_its_own_kind():
    text = (SHARED / "cases/block_tiling__int8_sublane_16.py").read_text("utf-8")
    assert not findings(text)


def test_explain_names_the_kind_of_every_chip_message():
    for key in OWN:
        label = LABELS[key]
        if label["outcome"] == "raises":
            for message in (label["message"], label["compiled"]["message"]):
                assert [e.record.slug for e in explain_text(message, default_store())][:1] == [SLUG], key


def test_each_example_is_a_program_the_chip_labelled():
    found = examples_for("PAL706")
    for kind, examples in (("invalid", found.invalid), ("valid", found.valid)):
        for ex in examples:
            assert ex.oracle == "chip"
            case = re.search(r"chip case (cases/[\w.-]+\.py)", ex.note).group(1)
            label = LABELS[case]
            assert label["outcome"] == ("raises" if kind == "invalid" else "clean")
            program = (CHIP / case).read_text("utf-8")
            launch = re.search(r"\ndef launch\(.*?\n\n", program, re.S).group(0)
            assert _body(launch) in re.sub(r"\s+# error$", "", ex.code, flags=re.M)
