"""`explain` maps every wording each supported jax release prints for a kind to its record
(issue 43).

* Each record's `wordings` (the message as a release prints it, interpolated parts written
  `<name>`), filled in with values the wording's own pattern accepts, pasted after the record's
  error class, is explained by that record.
* Each record's `raisedAt` (an error raised with no message), as a one-frame traceback, likewise.
* The messages the releases really printed: every shared-corpus case a release ran
  (tests/data/releases/jax-X/<corpus>.json, written by scripts/relabel_releases.py by running the
  case under X) that behaves there as under the pinned release is explained by the same records
  as the pinned release's own message.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from pallas_lsp.explain import explain_text
from pallas_lsp.lowering import PINNED_RELEASE
from pallas_lsp.records import builtin_records, default_store
from pallas_lsp.releases import analysis_release
from pallas_lsp.rules import analyse

REPO = Path(__file__).resolve().parents[2]
RELEASE_LABELS = REPO / "tests" / "data" / "releases"
KINDS = REPO / "server" / "pallas_lsp" / "kinds"
SHARED = REPO.parent / "shared"

RECORDS = builtin_records()[0]
STORE = default_store()

# What an interpolated part of a wording may stand for (the first value the wording's pattern
# accepts is used). A `<...>` that is part of the printed text (memref<100xf32>, <class 'int'>)
# is kept as it is when the message matches without filling.
FILLS = {
    "primitive": ("cumsum",),
    "core": ("TC", "tc"),
    "lowering semantics": ("LoweringSemantics.Lane",),
    "thread semantics": ("PrimitiveSemantics.Warpgroup",),
    "signal|wait": ("signal",),
    "shape": ("(2,)",),
    "dtype": ("int32",),
    "index_dtype": ("int32",),
    "precision": ("Precision.HIGHEST", "(Precision.HIGHEST, Precision.HIGHEST)"),
    "kernel": ("copy_kernel",),
    "name": ("copy_kernel",),
    "file": ("/work/kernels/copy.py",),
    "line": ("12",),
    "avals": ("f32[8,128]",),
    "tree": ("(f32[8,128],)",),
    "in-aval": ("float32[8,128]",),
    "out-aval": ("float32[16,128]",),
}
_PART = re.compile(r"<([^<>]+)>")


def filled(message: str, pattern) -> str | None:
    """The wording's message with its interpolated parts filled in so that its own pattern
    matches it (the message as printed when it matches as it is); None when no fill does."""
    if pattern.search(message):
        return message
    names = sorted(set(_PART.findall(message)))
    choices = [FILLS.get(name, ("1", "x")) for name in names]
    for values in itertools.product(*choices):
        text = message
        for name, value in zip(names, values):
            text = text.replace(f"<{name}>", value)
        if pattern.search(text):
            return text
    return None


WORDINGS = [pytest.param(rec, i, id=f"{rec.slug}[{i}]") for rec in RECORDS for i in range(len(rec.wordings))]
RAISE_SITES = [pytest.param(rec, i, id=f"{rec.slug}[{i}]") for rec in RECORDS for i in range(len(rec.raised_at))]


def test_there_are_wordings_of_several_releases():
    releases = {r for rec in RECORDS for w in rec.wordings for r in w.releases}
    assert len(WORDINGS) > 50 and {"0.10.2", "0.11.2", PINNED_RELEASE} <= releases


@pytest.mark.parametrize("rec, index", WORDINGS)
def test_each_wording_filled_in_is_explained_by_its_record(rec, index):
    wording = rec.wordings[index]
    text = filled(wording.message, wording.pattern)
    assert text is not None, f"no fill of {wording.message!r} matches its own pattern"
    got = [e.record.slug for e in explain_text(f"{rec.error_class}: {text}", STORE)]
    assert rec.slug in got, (text, got)


@pytest.mark.parametrize("rec, index", RAISE_SITES)
def test_each_bare_raise_site_is_explained_by_its_record(rec, index):
    site = rec.raised_at[index]
    text = (f'Traceback (most recent call last):\n  File "/venv/lib/python3.12/site-packages/{site.file}", '
            f"line 100, in {site.function}\n    raise {rec.error_class}\n{rec.error_class}\n")
    assert rec.slug in [e.record.slug for e in explain_text(text, STORE)]


def pasted(observed: dict) -> str:
    """What a user would paste of an observed error: its first message line, or for a bare
    error the frame that raised it; and the error a host callback carried."""
    error_class = observed.get("error_class") or "Exception"
    message = observed.get("message") or ""
    text = f"{error_class}: {message}" if message else error_class
    path, _, rest = (observed.get("raise_site") or "").partition(":")
    line, _, function = rest.partition(":")
    if not message and function:
        # (the runners write the frame relative to site-packages/jax/ or to site-packages/)
        path = path if path.startswith("jax/") else f"jax/{path}"
        text = f'Traceback (most recent call last):\n  File "/site-packages/{path}", line {line}, in {function}\n{text}'
    if observed.get("callback_error"):
        text += "\n" + observed["callback_error"]
    return text


def observed_cases():
    for path in sorted(RELEASE_LABELS.glob("jax-*/*.json")):
        release, corpus = path.parent.name[len("jax-"):], path.stem
        for case, observed in sorted(json.loads(path.read_text())["cases"].items()):
            if observed.get("outcome") == "raises" and observed.get("agrees"):
                yield pytest.param(release, corpus, case, observed, id=f"{release}-{corpus}-{case}")


@pytest.mark.parametrize("release, corpus, case, observed", list(observed_cases()))
def test_what_a_release_printed_is_explained_as_the_pinned_message(release, corpus, case, observed):
    labels = SHARED / corpus / "labels.json"
    if not labels.is_file():
        pytest.skip(f"../shared/{corpus} is not here")
    label = json.loads(labels.read_text())[case]
    # (a case labelled from a GPU's behaviour keeps what the pinned release did on the CPU apart)
    here = label.get("observed_here") or label
    pinned = {e.record.slug for e in explain_text(pasted(here), STORE)}
    got = {e.record.slug for e in explain_text(pasted(observed), STORE)}
    assert pinned <= got, (release, pasted(observed), sorted(pinned - got))


def test_a_paste_of_a_bare_error_names_its_frame():
    # (the fixture the per-release test rests on: without the frame no bare error is explained)
    text = pasted({"error_class": "NotImplementedError", "message": "",
                   "raise_site": "_src/pallas/pallas_call.py:269:_pallas_call_jvp_rule"})
    assert 'File "/site-packages/jax/_src/pallas/pallas_call.py", line 269, in _pallas_call_jvp_rule' in text
    assert "pallas-call-jvp-scalar-prefetch" in [e.record.slug for e in explain_text(text, STORE)]


# Cases a release runs into another kind's error than the pinned release (a plain GPU
# pallas_call lowers through Mosaic GPU in 0.10.2, whose default semantics is Lane): the message
# that release printed (read from its label file, written by running) and the record it is.
OTHER_KIND_UNDER_RELEASE = [
    ("0.10.2", "corpus-structure", "triton_pow2_blocks_over_ragged_array_clean.py",
     "mgpu-lane-load-not-warpgroup-multiple"),  # memref<32xf32, strided<[1], offset: ?>, #gpu...>
    ("0.10.2", "corpus-structure", "triton_pow2_whole_array_100.py", "mgpu-copy-bytes-not-warpgroup-multiple"),
    ("0.10.2", "corpus-prims", "mgpu_wg__concatenate.py", "mgpu-lower-unimplemented-primitive"),
    ("0.10.2", "corpus-prims", "triton__dot_f32.py", "mgpu-lower-unimplemented-primitive"),
    ("0.10.2", "corpus", "inline_mgpu_no_ref_args_interpret_true.py", "inline-mgpu-p-does-not-support-discharge"),
]


@pytest.mark.parametrize("release, corpus, case, slug", OTHER_KIND_UNDER_RELEASE)
def test_what_a_release_printed_for_another_kind_is_explained(release, corpus, case, slug):
    observed = json.loads((RELEASE_LABELS / f"jax-{release}" / f"{corpus}.json").read_text())["cases"][case]
    assert observed["outcome"] == "raises" and not observed["agrees"]
    assert slug in [e.record.slug for e in explain_text(pasted(observed), STORE)]


# --- the rules' own invalid examples, run under each release -----------------------------------
# tests/data/releases/messages/jax-X.json: scripts/collect_release_messages.py ran every invalid
# example under release X and kept what it raised there.
MESSAGES = RELEASE_LABELS / "messages"
# The release stops the program before its construct: a public name or a signature it lacks.
_STOPPED_EARLY = re.compile(r"^(?:module '[\w.]+' has no attribute '\w+'|cannot import name '\w+'"
                            r"|[A-Za-z]\w*(?:\.__init__)?\(\) "
                            r"(?:got an unexpected keyword argument|missing \d+ required|takes \d+ positional))")
# Examples a release runs into another error than the pinned release's, judged one by one from
# the message it printed: (release, example) -> (how that message starts, why it is not a wording
# of the example's kind).
_MGPU = "a plain GPU pallas_call lowers through Mosaic GPU in 0.10.2, not Triton: "
OTHER_ERROR_UNDER_RELEASE: dict[tuple[str, str], tuple[str, str]] = {
    ("0.10.2", "kernel_not_differentiable/examples/PAL507/invalid_01_value_and_grad_plgpu_kernel.py"):
        ("must override", "0.10.2's hijax base class has no jvp (AssertionError from hijax.py, a generic "
                          "message any unimplemented hijax method prints)"),
    ("0.10.2", "pallas_call_closes_over_ref_memory_space/examples/PAL513/invalid_01_vmem_accumulator_tpu_params.py"):
        ("get_p: Buffers with a memory space of HBM or ANY", "0.10.2 has no closed-over-Ref check (the "
                                                             "record: 0.12.0.1 only); its TPU interpreter "
                                                             "refuses the HBM read"),
    ("0.11.2", "pallas_call_closes_over_ref_memory_space/examples/PAL513/invalid_01_vmem_accumulator_tpu_params.py"):
        ("Unsupported memory space: vmem", "0.11.2 has no closed-over-Ref check either; its TPU interpreter "
                                           "fails later, in _remove_memory_space_abstract_eval (no record yet)"),
    ("0.9.2", "pallas_call_closes_over_ref_memory_space/examples/PAL513/invalid_01_vmem_accumulator_tpu_params.py"):
        ("get_p: Buffers with a memory space of HBM or ANY", "0.9.2 has no closed-over-Ref check (the record: "
                                                             "0.12.0.1 only); its TPU interpreter refuses the HBM "
                                                             "read, as 0.10.2's does"),
    ("0.8.3", "pallas_call_closes_over_ref_memory_space/examples/PAL513/invalid_01_vmem_accumulator_tpu_params.py"):
        ("get_p: Buffers with a memory space of HBM or ANY", "0.8.3 likewise"),
    ("0.9.2", "triton_lower_cuda_no_gpu/examples/PAL403/invalid_01_export_triton_params_for_cuda.py"):
        ("Cannot serialize code with custom calls", "0.9.2's export refuses the Triton custom call first, as "
                                                    "0.10.2's does"),
    ("0.8.3", "triton_lower_cuda_no_gpu/examples/PAL403/invalid_01_export_triton_params_for_cuda.py"):
        ("Cannot serialize code with custom calls", "0.8.3 likewise"),
    ("0.10.2", "tpu_lower_unimplemented_primitive/examples/PAL401/invalid_03_argsort_mosaic_gpu_exported_cuda.py"):
        ("Failed to infer the output layout of the iota", "0.10.2's Lane lowering fails on the iota first"),
    ("0.10.2", "triton_block_power_of_two/examples/PAL660/invalid_01_squeezed_row_96_lanes.py"):
        ("Only copies transferring a number of bytes", _MGPU + "mgpu-copy-bytes-not-warpgroup-multiple"),
    ("0.10.2", "triton_dynamic_grid_unsupported/examples/PAL663/invalid_01_jit_partial_other_static.py"):
        ("dynamic grid bounds not supported in the Mosaic GPU backend", _MGPU + "Mosaic GPU's own check"),
    ("0.10.2", "triton_lower_cuda_no_gpu/examples/PAL403/invalid_01_export_triton_params_for_cuda.py"):
        ("Cannot serialize code with custom calls", "0.10.2's export refuses the Triton custom call first"),
    ("0.10.2", "triton_scalar_prefetch_unsupported/examples/PAL662/invalid_01_positional_prefetch_count.py"):
        ("Scalar prefetch not supported in Mosaic GPU lowering", _MGPU + "Mosaic GPU's own check"),
    ("0.10.2", "triton_scratch_unsupported/examples/PAL661/invalid_01_grid_spec_vmem_scratch.py"):
        ("Unsupported memory space: vmem", _MGPU + "Mosaic GPU's own check"),
}


def pinned_runs() -> dict[str, dict]:
    path = MESSAGES / f"jax-{PINNED_RELEASE}.json"
    return json.loads(path.read_text())["cases"] if path.is_file() else {}


def explained(run: dict) -> set[str]:
    return {e.record.slug for e in explain_text(pasted(run), STORE)}


def release_runs() -> dict[str, dict[str, dict]]:
    """release -> example -> what it did there, for every release but the pinned one."""
    return {path.stem[len("jax-"):]: json.loads(path.read_text())["cases"]
            for path in sorted(MESSAGES.glob("jax-*.json")) if path.stem != f"jax-{PINNED_RELEASE}"}


def example_runs():
    """Each example a release ran into an error, but for those it stopped before their construct
    and those only a TPU chip raises (`# oracle: chip`: the CPU stops them elsewhere)."""
    for release, runs in release_runs().items():
        for key, run in sorted(runs.items()):
            if run["outcome"] != "raises" or _STOPPED_EARLY.match(run["message"] or ""):
                continue
            if (KINDS / key).is_file() and "\n# oracle: chip\n" in (KINDS / key).read_text():
                continue
            yield pytest.param(release, key, run, id=f"{release}-{key}")


def example_records(key: str, code: str) -> set[str]:
    """The records of the rule's findings on the example, as its release is checked (its
    `# jax:` header's, else the pinned one)."""
    path = KINDS / key
    text = path.read_text()
    header = re.search(r"^# jax: (\S+)$", text, re.MULTILINE)
    options = {"release": analysis_release(header.group(1))} if header else {}
    return {f.record for f in analyse(text, str(path), **options).findings if f.code == code}


def test_the_examples_ran_under_each_release_are_the_current_ones():
    runs = release_runs()
    assert {"0.10.2", "0.11.2"} <= set(runs) and (MESSAGES / f"jax-{PINNED_RELEASE}.json").is_file()
    current = {str(p.relative_to(KINDS)) for p in KINDS.glob("*/examples/*/invalid_*.py")}
    for release, cases in runs.items():
        # No run of an example that is gone or renamed (rerun scripts/collect_release_messages.py
        # --jax X --code PALnnn); an example added since is covered by the next collection.
        assert set(cases) <= current, (release, sorted(set(cases) - current)[:5])
        assert len(cases) >= 200
    for release, key in OTHER_ERROR_UNDER_RELEASE:
        assert key in runs[release], (release, key)


@pytest.mark.parametrize("release, key, run", list(example_runs()))
def test_what_a_release_printed_for_an_example_is_explained_by_its_kind(release, key, run):
    if (release, key) in OTHER_ERROR_UNDER_RELEASE:
        start, _why = OTHER_ERROR_UNDER_RELEASE[release, key]
        assert not run["as_pinned"] and run["message"].startswith(start), run
        return
    got = explained(run)
    pinned = pinned_runs().get(key)
    if run["as_pinned"] and pinned is not None and pinned["as_pinned"]:
        # (the error the pinned release raises, in this release's words: the same records)
        wanted = explained(pinned)
        assert wanted <= got, (release, key, pasted(run), sorted(wanted - got))
    else:  # (another error than the pinned release's: it is the example's kind, or judged above)
        wanted = example_records(key, run["code"])
        assert wanted & got, (release, key, pasted(run), sorted(wanted), sorted(got))


def test_each_records_wordings_name_every_release_that_printed_it():
    """The releases in the records' wordings come from running (scripts/release_wordings.py reads
    the collected example runs): a record would change only when a new run shows another release
    printing it. A record with no wordings has none that any release printed as its examples ran
    (an example of its own is needed first, or its message is one JAX does not print as written)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("release_wordings", REPO / "scripts" / "release_wordings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    printed, patterns = module.printed_by(), module.patterns_by_slug()
    stale = [record["slug"] for record in module.records().values()
             if module.updated_record(record, printed.get(record["slug"], {}),
                                      module.patterns_besides(record["slug"], patterns)) != record]
    assert not stale, f"run scripts/release_wordings.py: {stale}"
