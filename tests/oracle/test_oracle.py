"""The oracle: the analyser's predictions, checked against real JAX on the CPU.

* every rule's invalid example (``server/pallas_lsp/kinds/<slug>/examples/<CODE>/``, Python and data
  rules alike) raises exactly the error its ``# raises:`` header names, and every valid
  example runs clean;
* the analyser's finding on an INVALID example names the error class JAX raised;
* every quick fix the analyser offers on an INVALID example leaves a program that
  JAX runs clean (and that the rule no longer flags);
* every case of the shared corpus reproduces its label.

See docs/oracle.md. Programs run through the session fixture ``oracle`` (conftest.py).
"""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from functools import cached_property

import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.analysis.findings import Finding, Fix
from pallas_lsp.records import builtin_records
from pallas_lsp.rules import Example, default_rule_set
from pallas_lsp.rules.examples import examples_for, oracle_releases, verified_on

from .conftest import CORPUS, Program, _child_env, release_python

pytestmark = pytest.mark.oracle


# --- rule examples ------------------------------------------------------------------------------------


RULES = list(default_rule_set())


@dataclass(frozen=True)
class ExampleCase:
    """One example file of one rule. (How it runs, ``# oracle: run`` or ``lower-cuda``, is
    checked when the file is read: a lower-cuda example lowers for CUDA in its own text, so
    the oracle only runs it.)"""

    code: str  # the rule's
    kind: str  # "valid" or "invalid"
    index: int

    @property
    def example(self) -> Example:
        found = examples_for(self.code)
        return (found.valid if self.kind == "valid" else found.invalid)[self.index]

    @property
    def id(self) -> str:
        return f"{self.code}-{self.example.name}"

    def program(self) -> Program:
        return Program(f"{self.code.lower()}_{self.example.name}.py", self.example.code, self.example.jax)

    def oracle_programs(self) -> list[Program]:
        return [self.program()]


def fix_is_checked(fix: Fix, declared: tuple[str, ...] = ()) -> bool:
    """Whether the oracle runs a fix. Suppression comments ("Ignore ...") change nothing JAX sees;
    other code action kinds are not fixes; a fix that makes a kernel compiled cannot run on a CPU
    host unless the rule marks it preferred. A fix an example declares in ``fixes=`` is always run."""
    if fix.title in declared:
        return True
    if fix.title.startswith("Ignore"):
        return False
    if fix.kind != "quickfix":
        return False
    if "compiled" in fix.title.lower() and not fix.preferred:
        return False
    return True


@dataclass(frozen=True)
class FixCase(ExampleCase):
    """The quick fixes offered on one INVALID example."""

    @cached_property
    def findings(self) -> list[Finding]:
        return list(analyse(self.example.code, "example.py", **self.example.analysis_options()).findings)

    @cached_property
    def offered(self) -> list[Fix]:
        out: list[Fix] = []
        for f in self.findings:
            for fix in f.fixes:
                if fix not in out:
                    out.append(fix)
        return out

    @cached_property
    def checked(self) -> list[tuple[Fix, Program]]:
        out = []
        for j, fix in enumerate(f for f in self.offered if fix_is_checked(f, self.example.fixes)):
            fixed = apply_edits(self.example.code, fix.edits)
            out.append((fix, Program(f"{self.code.lower()}_{self.example.name}_fix{j}.py", fixed, self.example.jax)))
        return out

    def oracle_programs(self) -> list[Program]:
        return [p for _, p in self.checked]


VALID = [ExampleCase(r.code, "valid", i) for r in RULES for i in range(len(examples_for(r.code).valid))]
INVALID = [ExampleCase(r.code, "invalid", i) for r in RULES for i in range(len(examples_for(r.code).invalid))]
# Errors raised only inside libtpu's Mosaic (``# oracle: chip``) cannot be shown on a CPU: the chip's
# labels hold their truth (tests/rules/test_tpu_dtype_kinds.py ties each such example to its label).
INVALID = [c for c in INVALID if c.example.oracle != "chip"]
VALID = [c for c in VALID if c.example.oracle != "chip"]  # (compiled for a TPU: a CPU cannot run them)
# Only examples with a fix the oracle can run: the others have nothing to prove here (that the
# declared fixes are offered at all is checked without JAX in tests/rules).
FIXES = [c for c in (FixCase(c.code, "invalid", c.index) for c in INVALID) if c.checked]


def _ids(cases) -> list[str]:
    return [c.id for c in cases]


@pytest.mark.parametrize("case", INVALID, ids=_ids(INVALID))
def test_invalid_example_raises_what_the_rule_says(case: ExampleCase, oracle) -> None:
    ex = case.example
    assert ex.raises, f"{case.id}: an invalid example must say what JAX raises (# raises: Class: regex)"
    cls, pattern = ex.raises
    res = oracle.result(case.program())
    assert res.outcome == "raises", f"{case.id}: expected {cls} /{pattern}/, but the program {res.describe()}"
    assert res.error_class == cls, f"{case.id}: expected {cls} /{pattern}/, but the program {res.describe()}"
    assert re.search(pattern, res.message or ""), (
        f"{case.id}: {cls} raised, but its message does not match /{pattern}/: {res.message}")


@pytest.mark.parametrize("case", VALID, ids=_ids(VALID))
def test_valid_example_runs_clean(case: ExampleCase, oracle) -> None:
    res = oracle.result(case.program())
    assert res.outcome == "clean", f"{case.id}: a VALID example must run clean, but it {res.describe()}"


@pytest.mark.parametrize("case", INVALID, ids=_ids(INVALID))
def test_analyser_names_the_error_jax_raises(case: ExampleCase, oracle) -> None:
    res = oracle.result(case.program())
    mine = [f for f in analyse(case.example.code, "example.py", **case.example.analysis_options()).findings
            if f.code == case.code]
    assert mine, f"{case.id}: the analyser reports no {case.code} finding"
    assert res.outcome == "raises", (
        f"{case.id}: the analyser predicts a failure ({mine[0].message}), but the program {res.describe()}")
    said = f"JAX raises {res.error_class}:"
    assert any(said in f.message for f in mine), (
        f"{case.id}: JAX raised {res.error_class}: {res.first_line}\n"
        f"but the analyser says: {[f.message for f in mine]}")


@pytest.mark.parametrize("case", FIXES, ids=_ids(FIXES))
def test_quick_fixes_leave_code_that_runs_clean(case: FixCase, oracle) -> None:
    ex = case.example
    titles = [f.title for f in case.offered]
    missing = [t for t in ex.fixes if t not in titles]
    assert not missing, f"{case.id}: the example declares fixes {missing} that the analyser does not offer ({titles})"
    assert case.checked
    problems = []
    for fix, program in case.checked:
        assert program.text != ex.code, f"{case.id}: applying {fix.title!r} does not change the text"
        res = oracle.result(program)
        if res.outcome != "clean":
            problems.append(f"{fix.title!r}: the fixed program {res.describe()}\n--- fixed program ---\n"
                            f"{program.text}")
            continue
        still = [f for f in analyse(program.text, "example.py", **ex.analysis_options()).findings
                 if f.code == case.code]
        if still:
            problems.append(f"{fix.title!r}: JAX runs the fixed program clean, but {case.code} still "
                            f"flags it: {[f.message for f in still]}")
    assert not problems, f"{case.id}:\n" + "\n".join(problems)


def _releases_run(code: str, pinned: str) -> set[str]:
    """The releases the oracle runs a rule's examples under (chip examples are not run)."""
    found = examples_for(code)
    return {e.jax or pinned for e in (*found.valid, *found.invalid) if e.oracle != "chip"}


def test_oracle_runs_the_jax_version_the_rules_were_verified_on(oracle) -> None:
    checked = [r for r in RULES if examples_for(r.code)]
    stale = {r.code: sorted(_releases_run(r.code, oracle.jax_version) - set(verified_on(r))) for r in checked}
    stale = {code: missing for code, missing in stale.items() if missing}
    assert not stale, (f"the oracle runs these rules' examples under releases the rules do not say they were "
                       f"verified on: {stale}")


@pytest.mark.parametrize("release", oracle_releases())
def test_each_release_the_examples_name_runs_in_its_own_environment(release: str) -> None:
    python = release_python(release)
    assert python is not None, (f"examples name jax {release} (`# jax: {release}`), but .oracle-env-{release} is "
                                f"missing: run `scripts/oracle-env --jax {release}` (scripts/test does)")
    probe = subprocess.run([python, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"],
                           env=_child_env(), capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-500:]
    assert probe.stdout.split() == [release, release], f".oracle-env-{release} has jax {probe.stdout.strip()}"


# --- the shared corpus --------------------------------------------------------------------------------

LABELS: dict = json.loads((CORPUS / "labels.json").read_text())
# The seed records: the labels of tests/data/corpus name only these (the project's own records,
# such as the GPU interpreter's more specific inline_mgpu messages, are not in those labels).
_SEED_SLUGS = {"get-global-discharge-is-not-supported-in-interpret", "get-global-only-supports-semaphores-got-what",
               "inline-mgpu-p-does-not-support-discharge", "dynamic-grid-bounds-not-yet-supported-in-gpu-int"}
_RECORDS = [r for r in builtin_records()[0] if r.slug in _SEED_SLUGS]


def record_for(first_line: str | None) -> str | None:
    """The seed record whose message the first line of an error message is, or None."""
    if not first_line:
        return None
    for rec in _RECORDS:
        if rec.message_pattern.fullmatch(first_line):
            return rec.slug
    return None


def expected_of(label: dict) -> dict:
    """What a run on a CPU-only machine must give: the label, or its ``observed_here`` for cases
    whose real outcome needs a GPU. The lines of the case file in the traceback are checked too
    where the label records them."""
    src = label["observed_here"] if label["outcome"] == "not-runnable-here" else label
    want = {"outcome": src["outcome"], "error_class": src.get("error_class"), "message": src.get("message"),
            "record": src.get("record")}
    if src.get("traceback_lines") is not None:
        want["traceback_lines"] = src["traceback_lines"]
    return want


@dataclass(frozen=True)
class CorpusCase:
    name: str

    def program(self) -> Program:
        return Program(self.name, (CORPUS / self.name).read_text())

    def oracle_programs(self) -> list[Program]:
        return [self.program()]


CORPUS_CASES = [CorpusCase(n) for n in sorted(LABELS)]


def test_every_corpus_file_has_a_label_and_every_label_a_file() -> None:
    on_disk = {p.name for p in CORPUS.glob("*.py")}
    assert sorted(on_disk - set(LABELS)) == [], "corpus files without a label"
    assert sorted(set(LABELS) - on_disk) == [], "labels without a corpus file"


@pytest.mark.parametrize("case", CORPUS_CASES, ids=[c.name for c in CORPUS_CASES])
def test_corpus_case_reproduces_its_label(case: CorpusCase, oracle) -> None:
    label = LABELS[case.name]
    want = expected_of(label)
    res = oracle.result(case.program())
    got = {"outcome": res.outcome, "error_class": res.error_class, "message": res.first_line,
           "record": record_for(res.first_line), "traceback_lines": res.traceback_lines}
    diffs = [f"{k}: label {want[k]!r}, observed {got[k]!r}" for k in want if want[k] != got[k]]
    assert not diffs, f"{case.name} ({label['outcome']}): " + "; ".join(diffs) + f"\n{res.describe()}"
