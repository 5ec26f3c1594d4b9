"""`explain` (and the pytest plugin, which explains through the same function) names the record
for errors as users paste them: bare raises recognised by the frame that raised them, and the
wordings older JAX releases printed (issue 38)."""
from pathlib import Path

import pytest

from pallas_lsp.explain import explain_text, explanation_markdown
from pallas_lsp.pytest_plugin import explanation_text
from pallas_lsp.records import default_store

PASTED = Path(__file__).parent / "data" / "pasted"


@pytest.fixture(scope="module")
def store():
    return default_store()


def slugs(text: str, store) -> list[str]:
    return [e.record.slug for e in explain_text(text, store)]


@pytest.mark.parametrize("name, expected", [
    # jax.grad of a scalar-prefetch pallas_call: a bare NotImplementedError in _pallas_call_jvp_rule
    ("jvp_scalar_prefetch_grad_tpu_params", ["pallas-call-jvp-scalar-prefetch"]),
    # GPU interpret params on a tiled BlockSpec, run inside a host callback: frames only
    ("blockspec_gpu_interpret_in_pure_callback", ["gpu-interpret-blockspec-not-whole-array"]),
    # plgpu.CompilerParams on pl.pallas_call lowered for CUDA, in a host callback: frames only
    ("mgpu_params_pallas_call_cuda_in_pure_callback", ["mgpu-lower-pallas-call-compiler-params"]),
    ("mgpu_params_pallas_call_cuda_export", ["mgpu-lower-pallas-call-compiler-params"]),
    # twins: the same jvp rule raising *with* a message is another record; user code's bare
    # NotImplementedError is no record at all
    ("jvp_aliasing_interpret_twin", ["pallas-call-jvp-aliasing"]),
    ("user_code_bare_notimplemented_twin", []),
])
def test_real_pasted_tracebacks(name, expected, store):
    text = (PASTED / f"{name}.txt").read_text()
    assert slugs(text, store) == expected
    # the pytest plugin explains the same text the same way
    plugin = explanation_text(text, store)
    assert all(f"record: {slug} " in plugin for slug in expected) and (bool(plugin) == bool(expected))


def test_a_bare_raise_says_it_was_recognised_by_its_frame(store):
    text = (PASTED / "jvp_scalar_prefetch_grad_tpu_params.txt").read_text()
    [expl] = explain_text(text, store)
    assert "in _pallas_call_jvp_rule -> NotImplementedError" in expl.matched_line
    assert "with no message" in expl.note and "`jax/_src/pallas/pallas_call.py`" in expl.note
    assert "0.4.30 to 0.12.0.1" in expl.note
    assert "with no message" in explanation_markdown(explain_text(text, store), {})


JVP_FRAME = ('  File "/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py", line 240,'
             ' in _pallas_call_jvp_rule')


@pytest.mark.parametrize("text", [
    "NotImplementedError",  # a class alone says nothing
    "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\nNotImplementedError",
    # the site's frame, but another class
    f"Traceback (most recent call last):\n{JVP_FRAME}\nAssertionError",
    # the site's frame, with a message: that error has its own record or none
    f"Traceback (most recent call last):\n{JVP_FRAME}\n    raise NotImplementedError(msg)\nNotImplementedError: boom",
    # a file of the same name outside jax
    "Traceback (most recent call last):\n  File \"/home/me/kernels/pallas_call.py\", line 3, in "
    "_pallas_call_jvp_rule\n    raise NotImplementedError\nNotImplementedError",
    # the site's frame is not the last one: the bare raise came from a function it called
    f"Traceback (most recent call last):\n{JVP_FRAME}\n    helper()\n  File \"helper.py\", line 2, in helper\n"
    "    raise NotImplementedError\nNotImplementedError",
])
def test_bare_raises_elsewhere_match_nothing(text, store):
    assert slugs(text, store) == []


@pytest.mark.parametrize("text", [
    # Python's format, older release and path (line numbers move between releases)
    f"Traceback (most recent call last):\n{JVP_FRAME}\n    raise NotImplementedError\nNotImplementedError",
    # qualified class, an empty message after the colon
    f"Traceback (most recent call last):\n{JVP_FRAME}\nbuiltins.NotImplementedError: ",
    # pytest --tb=short
    ".venv/lib/python3.12/site-packages/jax/_src/pallas/pallas_call.py:263: in _pallas_call_jvp_rule\n"
    "    raise NotImplementedError\nE   NotImplementedError",
    # Windows paths
    '  File "C:\\Users\\me\\venv\\Lib\\site-packages\\jax\\_src\\pallas\\pallas_call.py", line 263, in '
    "_pallas_call_jvp_rule\nNotImplementedError",
])
def test_a_bare_raise_matches_by_its_frame_in_each_format(text, store):
    assert slugs(text, store) == ["pallas-call-jvp-scalar-prefetch"]


# Each wording JAX printed, read from each release's source (the record lists the releases);
# the short forms are as users quoted them in issue threads.
WORDINGS = [
    ("Unimplemented primitive in Pallas TPU lowering: cos", "tpu-lower-unimplemented-primitive"),
    ("NotImplementedError: Unimplemented primitive in Pallas TPU lowering: erf_inv. Please file an issue on "
     "https://github.com/google/jax/issues.", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas TPU lowering: sort. Please file an issue on "
     "https://github.com/jax-ml/jax/issues.", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas TPU lowering for KernelType.TC: cumsum", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas TPU lowering for KernelType.SC_VECTOR_SUBCORE: argmax. Please file an "
     "issue on https://github.com/jax-ml/jax/issues.", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas TPU lowering for CoreType.TC: top_k. Please file an issue on "
     "https://github.com/jax-ml/jax/issues.", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas TPU lowering for tc: cumsum. Please file an issue on "
     "https://github.com/jax-ml/jax/issues.", "tpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas GPU lowering: scatter", "triton-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas GPU lowering: scatter-add. Please file an issue on "
     "https://github.com/google/jax/issues.", "triton-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas GPU lowering: sort. Please file an issue on "
     "https://github.com/jax-ml/jax/issues.", "triton-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas Mosaic GPU lowering: cumsum. Please file an issue on "
     "https://github.com/google/jax/issues.", "mgpu-lower-unimplemented-primitive"),
    ("Unimplemented primitive in Pallas Mosaic GPU lowering: sort for lowering semantics "
     "LoweringSemantics.Lane and user thread semantics PrimitiveSemantics.Warp. Please file an issue on "
     "https://github.com/jax-ml/jax/issues.", "mgpu-lower-unimplemented-primitive"),
]


@pytest.mark.parametrize("text, slug", WORDINGS)
def test_every_historical_wording_names_its_record(text, slug, store):
    expls = explain_text(text, store)
    assert [e.record.slug for e in expls] == [slug]
    assert expls[0].note.startswith("This wording is printed by jax ")


def test_a_wording_names_the_releases_that_print_it(store):
    [expl] = explain_text("Unimplemented primitive in Pallas GPU lowering: scatter-add. Please file an issue on "
                          "https://github.com/google/jax/issues.", store)
    assert expl.note == "This wording is printed by jax 0.4.30 to 0.4.33 (4 releases)."
    # cut short, the paste could come from either URL's releases: both are named
    [expl] = explain_text("Unimplemented primitive in Pallas GPU lowering: scatter", store)
    assert "0.4.30 to 0.10.0" in expl.note
