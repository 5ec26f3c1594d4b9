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
