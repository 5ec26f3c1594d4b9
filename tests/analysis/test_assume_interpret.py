"""What if this compiled kernel were debugged on a CPU? ``assume_interpret`` analyses compiled
launches as if launched in an interpret mode, and must predict what a real launch in that mode
gets. Round trip: every failing corpus case and invalid rule example whose mode is a literal
``interpret=`` at its launch (True, default TPU or default GPU params) is made compiled by
removing it; plain analysis then reports nothing on that line, and the what-if reports the
original finding on the original line."""
from __future__ import annotations

import ast
import json

import pytest

from pallas_lsp.rules import default_engine, default_rule_set
from pallas_lsp.rules.examples import examples_for
from tests.conftest import CORPUS

ENGINE = default_engine()
MODE_OF = {"InterpretParams": "tpu", "InterpretGPUParams": "gpu"}
FIRES_COMPILED = {r.code for r in default_rule_set() if r.modes & {"compiled", "tpu", "triton", "mosaic-gpu"}}


def _literal_interpret(text: str):
    """(mode, text without the launch's interpret= keyword) when one launch call says
    ``interpret=True`` / ``InterpretParams()`` / ``InterpretGPUParams()``; else None."""
    tree = ast.parse(text)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for i, kw in enumerate(node.keywords):
            if kw.arg != "interpret":
                continue
            v = kw.value
            if isinstance(v, ast.Constant) and v.value is True:
                found.append((node, kw, "true"))
            elif isinstance(v, ast.Call) and not v.args and not v.keywords and isinstance(v.func, ast.Attribute) \
                    and v.func.attr in MODE_OF:
                found.append((node, kw, MODE_OF[v.func.attr]))
    if len(found) != 1:
        return None
    call, kw, mode = found[0]
    items = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    i = items.index(kw)
    if i == 0:
        return None
    prev = items[i - 1]
    lines = text.splitlines(keepends=True)
    offset = lambda line, col: sum(len(t) for t in lines[:line - 1]) + col  # noqa: E731 (ASCII sources)
    start, end = offset(prev.end_lineno, prev.end_col_offset), offset(kw.end_lineno, kw.end_col_offset)
    kept_lines = "\n" * text[start:end].count("\n")  # (inside brackets: line numbers stay)
    return mode, text[:start] + kept_lines + text[end:]


def _cases():
    labels = json.loads((CORPUS / "labels.json").read_text())
    out = []
    for name, label in sorted(labels.items()):
        if label.get("outcome") == "raises" and label.get("feature"):
            out.append(pytest.param((CORPUS / name).read_text(), id=f"corpus-{name}"))
    for rule in default_rule_set():  # (Python rules and data rules alike)
        for ex in examples_for(rule.code).invalid:
            out.append(pytest.param(ex.code, id=f"{rule.code}-{ex.name}"))
    return out


CASES = _cases()


@pytest.mark.parametrize("text", CASES)
def test_the_what_if_predicts_the_real_launch(text):
    got = _literal_interpret(text)
    if got is None:
        pytest.skip("the mode is not a literal interpret= at one launch")
    mode, compiled = got
    # (A rule that fires compiled too, a transformation's for instance, is not about the mode.)
    real = {(f.code, f.span.line) for f in ENGINE.analyse(text, "/tmp/case.py").findings
            if f.record and f.code not in FIRES_COMPILED}
    if not real:
        pytest.skip("no interpret-only finding in the real mode")
    plain = {(f.code, f.span.line) for f in ENGINE.analyse(compiled, "/tmp/case.py").findings if f.record}
    assumed = ENGINE.analyse(compiled, "/tmp/case.py", assume_interpret=mode).findings
    what_if = {(f.code, f.span.line) for f in assumed if f.record}
    assert not (real & plain), "the compiled program still gets the interpret finding"
    assert real <= what_if, (mode, real, what_if)
    assert all(f.extra.get("assumed") == mode and f.message.startswith(f"What if (--assume-interpret {mode})")
               for f in assumed if (f.code, f.span.line) in real)


def test_launches_already_interpreted_keep_their_mode():
    text = (CORPUS / "inline_mgpu_gpu_interpret_params.py").read_text()
    real = ENGINE.analyse(text, "/tmp/case.py").findings
    assumed = ENGINE.analyse(text, "/tmp/case.py", assume_interpret="true").findings
    assert [(f.code, f.span.line, f.message) for f in real] == [(f.code, f.span.line, f.message) for f in assumed]


def test_an_unknown_assumed_mode_is_refused():
    with pytest.raises(ValueError):
        ENGINE.analyse("x = 1\n", "/tmp/x.py", assume_interpret="cuda")


# A compiled Mosaic GPU pallas_call whose kernel reads a count through a helper wrapping an
# inline_mgpu function declared with a return type. JAX 0.12 (checked by running it): with
# InterpretGPUParams() the generic inline_mgpu error, with inline_mgpu="ignore" the return-value
# one. The what-if's rewrite adds "ignore" where that is the fix, so a returning call is judged
# as a launch written with "ignore" is.
RETURNING = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def lane_count(ref):
    @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),),
                       return_type=plgpu.ShapeDtypeStruct((), jnp.int32, layout=plgpu.Layout.WG_SPLAT))
    def count(ctx, r):
        del ctx, r

    return count(ref)


def weigh(x_ref, o_ref):
    n = {value}
    o_ref[...] = x_ref[...] * n.astype(jnp.float32)


def weigh_all(x):
    return pl.pallas_call(weigh, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=plgpu.CompilerParams(){interpret})(x)
'''
COUNT_CALL_LINE = 13  # `return count(ref)`


def _rows(findings):
    return [(f.code, f.record, f.span.line, f.actual_error) for f in findings if f.record]


def test_a_returning_inline_mgpu_is_judged_as_under_ignore_mode():
    compiled = RETURNING.format(value="lane_count(x_ref)", interpret="")
    assumed = _rows(ENGINE.analyse(compiled, "/tmp/case.py", assume_interpret="gpu").findings)
    written = RETURNING.format(value="lane_count(x_ref)",
                               interpret=',\n                          '
                                         'interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")')
    real = _rows(ENGINE.analyse(written, "/tmp/case.py").findings)
    assert [r[:3] for r in assumed] == [("PAL003", "gpu-interpret-inline-mgpu-return-value", COUNT_CALL_LINE)]
    assert assumed == real
    # Launched with default params, the generic error (JAX's) stays the real launch's.
    default = RETURNING.format(value="lane_count(x_ref)",
                               interpret=",\n                          interpret=plgpu.InterpretGPUParams()")
    assert [r[1] for r in _rows(ENGINE.analyse(default, "/tmp/case.py").findings)] == ["gpu-interpret-inline-mgpu"]


def test_the_value_computed_with_jnp_leaves_nothing_to_assume():
    clean = RETURNING.format(value="jnp.int32(x_ref.shape[0])", interpret="")
    assert _rows(ENGINE.analyse(clean, "/tmp/case.py", assume_interpret="gpu").findings) == []
