"""The memory-budget kinds (PAL800-PAL802): each example is tied to a program the chip ran, and
the rules hold only for launches compiled for TPU."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.rules.examples import examples_for

LABELS = json.loads((Path(__file__).resolve().parents[1] / "data" / "chip" / "labels.json").read_text("utf-8"))
SLUGS = {"PAL800": "tpu-vmem-scoped-limit", "PAL801": "tpu-vmem-capacity", "PAL802": "tpu-smem-capacity"}


def _cases():
    for code in SLUGS:
        found = examples_for(code)
        for kind, examples in (("invalid", found.invalid), ("valid", found.valid)):
            for ex in examples:
                yield pytest.param(code, kind, ex, id=f"{code}-{ex.name}")


@pytest.mark.parametrize("code,kind,example", list(_cases()))
def test_each_example_is_a_program_the_chip_labelled(code, kind, example):
    assert example.oracle == "chip"
    case = re.search(r"cases/([\w.-]+\.py)", example.note).group(1)
    label = LABELS["cases"][f"cases/{case}"]
    if kind == "invalid":
        assert label["outcome"] == "raises" and label["feature"] == SLUGS[code]
        assert re.search(example.raises[1], label["message"]), (example.raises, label["message"])
    else:
        assert label["outcome"] == "clean"
    # The example is the labelled program (headers and how main() runs it aside).
    program = (Path(__file__).resolve().parents[1] / "data" / "chip" / "cases" / case).read_text("utf-8")
    kernel = re.search(r"\ndef \w+_kernel\(.*?\n\n", program, re.S).group(0)
    assert kernel in example.code


def test_interpret_mode_has_no_budget():
    ex = examples_for("PAL800").invalid[0]
    code = ex.code.replace("        in_specs=", "        interpret=True,\n        in_specs=", 1)
    assert not [f for f in analyse(code, "/tmp/budget.py").findings if f.code in SLUGS]
    assert [f.code for f in analyse(ex.code, "/tmp/budget.py").findings if f.code in SLUGS] == ["PAL800"]


CASES = Path(__file__).resolve().parents[1] / "data" / "chip" / "cases"


def _body(text: str) -> str:
    """A chip case without its header lines and markers: the program the chip compiled."""
    lines = [re.sub(r"\s+# (FAIL|DECOY)$", "", line) for line in text.splitlines() if not line.startswith("# ")]
    return "\n".join(lines)


def test_the_raised_limit_fix_writes_the_program_the_chip_ran_clean():
    from pallas_lsp.analysis.edits import apply_edits

    over = (CASES / "tpu-vmem-scoped-limit__three_bands_over.py").read_text("utf-8")
    (f,) = [f for f in analyse(over, "/tmp/over.py", backends=("tpu",)).findings if f.code == "PAL800"]
    (fix,) = f.fixes
    assert fix.safe and fix.title.startswith("Raise vmem_limit_bytes to 21 MiB")
    fixed = apply_edits(over, fix.edits)
    ran = (CASES / "tpu-vmem-scoped-limit__three_bands_raised_limit_fixed.py").read_text("utf-8")
    assert _body(fixed) == _body(ran)
    assert LABELS["cases"]["cases/tpu-vmem-scoped-limit__three_bands_raised_limit_fixed.py"]["outcome"] == "clean"
    assert not [f for f in analyse(fixed, "/tmp/fixed.py", backends=("tpu",)).findings if f.code in SLUGS]


def test_raised_limit_fix_edits_params_already_there_and_stops_at_physical_vmem():
    base = (CASES / "tpu-vmem-scoped-limit__three_bands_over.py").read_text("utf-8")
    with_params = base.replace("        interpret=INTERPRET,\n", "        interpret=INTERPRET,\n"
                               "        compiler_params=pltpu.CompilerParams(dimension_semantics=(\"parallel\",)),\n")
    with_params = with_params.replace("from jax.experimental import pallas as pl\n",
                                      "from jax.experimental import pallas as pl\n"
                                      "from jax.experimental.pallas import tpu as pltpu\n")
    (f,) = [f for f in analyse(with_params, "/tmp/p.py").findings if f.code == "PAL800"]
    (fix,) = f.fixes
    from pallas_lsp.analysis.edits import apply_edits

    fixed = apply_edits(with_params, fix.edits)
    assert 'dimension_semantics=("parallel",), vmem_limit_bytes=21 * 1024 * 1024)' in fixed
    too_low = with_params.replace('dimension_semantics=("parallel",)', "vmem_limit_bytes=8 << 20")
    (f,) = [f for f in analyse(too_low, "/tmp/p.py").findings if f.code == "PAL800"]
    (fix,) = f.fixes
    assert [e.new_text for e in fix.edits] == ["21 * 1024 * 1024"]
    # 4 operands x 2 x 26 MiB blocks: 208 MiB, more than a v5e's 128 MiB of VMEM: no limit helps.
    huge = base.replace("ROWS, COLS = 1040, 1024", "ROWS, COLS = 13312, 1024").replace("BAND = 520", "BAND = 6656")
    (f,) = [f for f in analyse(huge, "/tmp/h.py", backends=("tpu",)).findings if f.code == "PAL800"]
    assert not f.fixes
