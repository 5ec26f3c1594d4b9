"""Launch results kept across edits (analysis/incremental.py) equal a fresh analysis.

Random edit sequences over real kernel programs: after every edit the incremental engine's
findings (text, positions, related locations, fixes) and launches (anchors, contexts and
their evidence, option orders, what each kernel reaches) must equal what an engine that keeps
nothing computes for the same text.
"""
from __future__ import annotations

import random
import re

import pytest

from pallas_lsp.rules import default_engine
from pallas_lsp.rules import RULE_CLASSES
from tests.conftest import CORPUS

WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


CLASS_SUITE = '''import unittest

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...]


class BaseTest(unittest.TestCase):
    INTERPRET = False

    def pallas_call(self, *args, **kwargs):
        return pl.pallas_call(*args, **kwargs, interpret=self.INTERPRET)

    def test_it(self):
        x = jnp.zeros((128,), jnp.float32)
        self.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


class OtherTest(BaseTest):
    INTERPRET = False
'''



def _sources() -> list[str]:
    texts = [p.read_text() for p in sorted(CORPUS.glob("*.py"))]
    for rule in RULE_CLASSES:
        texts += [e.code for e in rule.INVALID] + [e.code for e in rule.VALID]
    # (transformations and hosts: module-wide facts; setters: a mode set in a helper the launch never names)
    from tests.analysis import test_contexts_setters, test_hosts, test_transforms

    for suite in (test_hosts, test_transforms, test_contexts_setters):
        texts += [suite.program(name) for name in sorted(suite.CASES)]
    return texts + [CLASS_SUITE]  # (class attributes deciding the mode, defined below)


SOURCES = _sources()


def _class_wrapped(text: str) -> str:
    """A program's functions as members of a test class (member blocks, ``self.`` calls)."""
    body = "\n".join("    " + line if line.strip() else "" for line in text.splitlines())
    return "import unittest\n\nclass KernelTest(unittest.TestCase):\n" + body + "\n"


def _signature(result) -> tuple:
    findings = [(f.code, f.severity, f.message, f.span, f.related, f.fixes, f.kernel, f.launch_line, f.chain,
                 tuple((c.mode, c.evidence, c.caller, c.certain) for c in f.contexts)) for f in result.findings]
    launches = []
    for launch in result.launches:
        reached = tuple(r.scope.name for r in result.reached.get(id(launch), []))
        options = tuple(sorted((k, v[2]) for k, v in launch.options.items()))
        launches.append((launch.api.name, launch.anchor, launch.kernel_name, options, reached,
                         tuple((c.mode, c.evidence, c.caller, c.certain, c.inline_mgpu) for c in launch.contexts)))
    return tuple(findings), tuple(launches)


def _edit(rng: random.Random, text: str, pool: list[str]) -> str:
    lines = text.splitlines(keepends=True)
    kind = rng.randrange(11)
    if kind == 0 and "True" in text + "False":  # flip a mode
        spots = [m for m in re.finditer(r"\b(True|False)\b", text)]
        if spots:
            m = rng.choice(spots)
            return text[:m.start()] + ("False" if m.group() == "True" else "True") + text[m.end():]
    if kind == 1 and lines:  # delete a line
        i = rng.randrange(len(lines))
        return "".join(lines[:i] + lines[i + 1:])
    if kind == 2 and lines:  # duplicate a line elsewhere
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines) + 1)
        return "".join(lines[:j] + [lines[i]] + lines[j:])
    if kind == 3 and len(lines) > 4:  # move a run of lines (blocks change order)
        i = rng.randrange(len(lines) - 2)
        k = rng.randint(1, min(12, len(lines) - i))
        chunk, rest = lines[i:i + k], lines[:i] + lines[i + k:]
        j = rng.randrange(len(rest) + 1)
        return "".join(rest[:j] + chunk + rest[j:])
    if kind == 4:  # rename one occurrence of a word to another word of the file
        words = list(WORD.finditer(text))
        if words:
            m = rng.choice(words)
            return text[:m.start()] + rng.choice(words).group() + text[m.end():]
    if kind == 5:  # paste a line from another program
        src = rng.choice(pool).splitlines(keepends=True)
        if src:
            j = rng.randrange(len(lines) + 1)
            return "".join(lines[:j] + [rng.choice(src)] + lines[j:])
    starts = [i for i, line in enumerate(lines) if line[:1].strip() and not line.startswith("#")] + [len(lines)]
    if kind == 6:  # a new top-level statement, at a block boundary (no other block changes)
        j = rng.choice(starts)
        defs = re.findall(r"(?m)^def (\w+)", text) or ["run"]
        new = rng.choice(["X = 1\n", "def helper():\n    pass\n", "interpret = True\n", "import jax\n",
                          "kernel = None\n", f"def caller_{rng.randrange(99)}():\n    {rng.choice(defs)}(1, True)\n",
                          f"def caller_{rng.randrange(99)}():\n    {rng.choice(defs)}(1, interpret=True)\n"])
        return "".join(lines[:j] + [new] + lines[j:])
    if kind == 7 and len(starts) > 3:  # move a whole top-level statement
        k = rng.randrange(len(starts) - 1)
        chunk = lines[starts[k]:starts[k + 1]]
        rest = lines[:starts[k]] + lines[starts[k + 1]:]
        spots = [i for i, line in enumerate(rest) if line[:1].strip() and not line.startswith("#")] + [len(rest)]
        j = rng.choice(spots)
        return "".join(rest[:j] + chunk + rest[j:])
    # type or delete a few characters
    pos = rng.randrange(len(text) + 1)
    if rng.random() < 0.5:
        return text[:pos] + rng.choice(["(", ")", ":", "\n", " ", "x", "pl.", "'", "\n    ", "é", "😀"]) + text[pos:]
    return text[:pos] + text[pos + rng.randint(1, 8):]


@pytest.mark.parametrize("seed", range(8))
def test_incremental_equals_fresh_after_every_edit(seed: int) -> None:
    rng = random.Random(seed)
    incremental, fresh = default_engine(incremental=True), default_engine()
    checked = 0
    for doc in range(8):
        parts = rng.sample(SOURCES, k=rng.randint(1, 4))
        text = "\n".join(_class_wrapped(p) if rng.random() < 0.3 else p for p in parts)
        path = f"/ws/doc_{seed}_{doc}.py"
        incremental.analyse(text, path)
        for _ in range(rng.randint(10, 30)):
            text = _edit(rng, text, SOURCES)
            got = _signature(incremental.analyse(text, path))
            want = _signature(fresh.analyse(text, path))
            assert got == want, f"seed {seed}, document {doc}, after edit {checked}"
            checked += 1
    assert checked >= 80


def test_launches_reused_from_an_earlier_text_are_moved_to_the_current_one() -> None:
    """Lines inserted above a kernel move its kept launch; hovers and lenses see the new lines."""
    src = next(s for s in SOURCES if "interpret=True" in s and "pallas_call" in s)
    engine = default_engine(incremental=True)
    path = "/ws/moved.py"
    before = engine.analyse(src, path)
    assert before.launches
    after = engine.analyse("# a\n# b\n# c\n" + src, path)
    assert [launch.anchor.line for launch in after.launches] == [launch.anchor.line + 3 for launch in before.launches]
    assert [c.mode_line for launch in after.launches for c in launch.contexts] == \
        [c.mode_line + 3 for launch in before.launches for c in launch.contexts if c.mode_line]


@pytest.mark.parametrize("tail", ["", "\n\nbatched = jax.vmap(run_3)\n"], ids=["plain", "a-vmap-elsewhere"])
def test_an_edit_reanalyses_only_the_launches_it_can_change(monkeypatch, tail) -> None:
    """The point of it: typing inside one kernel recomputes that kernel's launch, not the rest
    (a jax.vmap in the module does not make every edit re-find every launch)."""
    from pallas_lsp.analysis import launches as launches_mod

    kernels = "\n".join(
        f"def kernel_{i}(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + {i}\n\n"
        f"def run_{i}(x):\n    return pl.pallas_call(kernel_{i}, out_shape=x, interpret=True)(x)\n"
        for i in range(30))
    text = "import jax\nimport jax.experimental.pallas as pl\n\n" + kernels + tail
    engine = default_engine(incremental=True)
    engine.analyse(text, "/ws/many.py")
    calls = []
    real = launches_mod.LaunchFinder.launch_of
    monkeypatch.setattr(launches_mod.LaunchFinder, "launch_of",
                        lambda self, item: calls.append(item) or real(self, item))
    edited = text.replace("x_ref[...] + 7\n", "x_ref[...] + 7 * 2\n")
    result = engine.analyse(edited, "/ws/many.py")
    assert len(result.launches) == 30
    assert calls and all(c.scope.name == "run_7" for c in calls)


KERNEL_MODULE = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.get_global(jnp.float32)


def run(x, interpret):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)
'''


def _modes(result) -> list[str]:
    return sorted(c.mode.value for launch in result.launches for c in launch.contexts)


def test_a_new_caller_in_another_block_changes_the_kept_launch() -> None:
    """The launch's mode comes from its callers: a block that only calls ``run`` (binds
    nothing) must still invalidate it."""
    engine = default_engine(incremental=True)
    path = "/ws/callers.py"
    alone = engine.analyse(KERNEL_MODULE, path)
    # (Inserted at a block boundary: no other block's text changes.)
    text = KERNEL_MODULE.replace("def run(", "def test_run():\n    run(jnp.ones(8), interpret=True)\n\n\ndef run(")
    called = engine.analyse(text, path)
    want = default_engine().analyse(text, path)
    assert _signature(called) == _signature(want)
    assert _modes(called) != _modes(alone) and "interpret" in _modes(called)
    assert [f.code for f in called.findings] == [f.code for f in want.findings] != []


def test_blocks_that_swap_places_drop_what_was_kept() -> None:
    """Module-level code sees the binding written before it: swapping two blocks changes that
    without any block's text changing."""
    head = "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n\n\n" \
           "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + pl.get_global(jnp.float32)\n\n\n"
    launch = "call = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=MODE)\n"
    a, b = "MODE = True\n", "MODE = False\n"
    engine = default_engine(incremental=True)
    path = "/ws/swap.py"
    first = engine.analyse(head + b + launch + a, path)  # compiled: no finding, so the launch is kept
    swapped_text = head + a + launch + b
    swapped = engine.analyse(swapped_text, path)
    assert _signature(swapped) == _signature(default_engine().analyse(swapped_text, path))
    assert _modes(first) != _modes(swapped)


SHARED_HELPER = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

DECO = plgpu.inline_mgpu()


@DECO
def helper(x):
    return x


def kernel_a(x_ref, o_ref):
    o_ref[...] = helper(x_ref[...])


def kernel_b(x_ref, o_ref):
    o_ref[...] = helper(x_ref[...])


def run(x, interpret):
    a = pl.pallas_call(kernel_a, out_shape=x, interpret=interpret)(x)
    return pl.pallas_call(kernel_b, out_shape=x, interpret=interpret)(a)


def unrelated():
    pass
'''


@pytest.mark.parametrize("old, new", [
    # helper's decorator is evaluated once and cached: the second launch must depend on it too
    ("DECO = plgpu.inline_mgpu()", "DECO = jax.named_call"),
    # run's callers are found once and cached: both launches depend on them
    ("def unrelated():\n    pass", "def unrelated():\n    run(jnp.ones(8), interpret=False)"),
])
def test_facts_the_evaluator_caches_count_for_every_launch_that_uses_them(old: str, new: str) -> None:
    engine = default_engine(incremental=True)
    path = "/ws/shared.py"
    engine.analyse(SHARED_HELPER, path)
    text = SHARED_HELPER.replace(old, new)
    assert _signature(engine.analyse(text, path)) == _signature(default_engine().analyse(text, path))


LOWERED = '''import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

deco = functools.cache


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@deco
def double(x, num_steps):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(num_steps,),
                          interpret=plgpu.InterpretGPUParams())(x)


def main():
    print(double(jnp.ones((8,), jnp.float32), 2))

exported = jax.jit(main).lower(lowering_platforms=double)
'''


def test_facts_cached_by_module_wide_passes_still_count_for_the_launches_that_use_them() -> None:
    """Looking for CUDA lowerings evaluates ``double`` (with its decorator) before any launch is
    analysed; the launch that later reads that cached value must still depend on ``deco``."""
    engine = default_engine(incremental=True)
    path = "/ws/lowered.py"
    engine.analyse(LOWERED, path)
    text = LOWERED.replace("deco = functools.cache", "deco = jax.jit")
    got, want = engine.analyse(text, path), default_engine().analyse(text, path)
    assert _signature(got) == _signature(want)
    assert [f.code for f in want.findings] == ["PAL004"]


def test_a_caller_spelled_with_compatibility_characters_is_a_caller() -> None:
    """Python reads identifiers NFKC-normalised: a block calling 𝐫𝐮𝐧 calls ``run``."""
    engine = default_engine(incremental=True)
    path = "/ws/nfkc.py"
    engine.analyse(KERNEL_MODULE, path)
    text = KERNEL_MODULE.replace(
        "def run(", "def test_run():\n    \U0001d42b\U0001d42e\U0001d427(jnp.ones(8), interpret=True)\n\n\ndef run(")
    got, want = engine.analyse(text, path), default_engine().analyse(text, path)
    assert _signature(got) == _signature(want)
    assert [f.code for f in got.findings] == ["PAL001"]


@pytest.mark.parametrize("old, new", [
    # a subclass's attribute (another block) decides the mode of the kept launch
    ("class OtherTest(BaseTest):\n    INTERPRET = False", "class OtherTest(BaseTest):\n    INTERPRET = True"),
    # a new subclass, in a block of its own that binds only its own name
    ("class OtherTest(BaseTest):",
     "class InterpretTest(BaseTest):\n    INTERPRET = True\n\n\nclass OtherTest(BaseTest):"),
    # the subclass changes its base
    ("class OtherTest(BaseTest):\n    INTERPRET = False", "class OtherTest(unittest.TestCase):\n    INTERPRET = True"),
])
def test_class_attributes_and_subclasses_count_for_the_kept_launch(old: str, new: str) -> None:
    engine = default_engine(incremental=True)
    path = "/ws/classes.py"
    assert engine.analyse(CLASS_SUITE, path).findings == []  # compiled everywhere: the launch is kept
    text = CLASS_SUITE.replace(old, new)
    assert text != CLASS_SUITE
    got, want = engine.analyse(text, path), default_engine().analyse(text, path)
    assert _signature(got) == _signature(want)
    # and back
    got, want = engine.analyse(CLASS_SUITE, path), default_engine().analyse(CLASS_SUITE, path)
    assert _signature(got) == _signature(want)


TRANSFORMED = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def helper(x):
    return double(x) + 1.0


def main(x):
    return jax.grad(lambda v: helper(v).sum())(x)
'''


@pytest.mark.parametrize("edit", [
    ("    return double(x) + 1.0\n", "    return x + 1.0\n"),  # the helper stops reaching the launch
    ("    return jax.grad(", "    return jax.jvp("),  # reverse mode becomes forward mode
    ("def main(x):\n", "def other(y):\n    return y\n\n\ndef main(x):\n"),  # a block above the grad
])
def test_a_transformation_reaching_a_kept_launch_differently_is_a_change(edit) -> None:
    from tests.analysis.test_transforms import CASES, HEAD, TAIL

    incremental, fresh = default_engine(incremental=True), default_engine()
    path = "/ws/transformed.py"
    incremental.analyse(TRANSFORMED, path)
    edited = TRANSFORMED.replace(*edit)
    assert _signature(incremental.analyse(edited, path)) == _signature(fresh.analyse(edited, path))
    assert _signature(incremental.analyse(TRANSFORMED, path)) == _signature(fresh.analyse(TRANSFORMED, path))
    for body in CASES.values():  # (and every case of the transformations' tests, edited into it)
        text = TRANSFORMED + "\n" + (HEAD + body + TAIL).split("\n", 8)[8]
        assert _signature(incremental.analyse(text, path)) == _signature(fresh.analyse(text, path))


def test_a_kept_launch_a_transformation_now_reaches_is_checked_again() -> None:
    kernels = "\n".join(
        f"def kernel_{i}(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + {i}\n\n"
        f"def run_{i}(x):\n"
        f"    return pl.pallas_call(kernel_{i}, out_shape=x, interpret=plgpu.InterpretGPUParams())(x)\n"
        for i in range(6))
    head = ("import jax\nimport jax.experimental.pallas as pl\n"
            "from jax.experimental.pallas import mosaic_gpu as plgpu\n\n")
    incremental, fresh = default_engine(incremental=True), default_engine()
    path = "/ws/vmapped.py"
    for target in (3, 4, 3):  # jax.vmap of a GPU-interpreted launch: PAL502 at the vmap
        text = head + kernels + f"\n\nbatched = jax.vmap(run_{target})\n"
        got = incremental.analyse(text, path)
        assert _signature(got) == _signature(fresh.analyse(text, path))
        assert [(f.code, f.span.line) for f in got.findings] == [("PAL502", text.count("\n"))]


def test_typing_in_one_method_of_a_test_class_recomputes_that_method_only(monkeypatch) -> None:
    """A Pallas test class (``interpret=self.INTERPRET`` in each test): an edit in one test
    recomputes that test's launch, not the class's other launches (each used to depend on every
    block of the class, for its bases)."""
    from pallas_lsp.analysis import launches as launches_mod

    tests = "\n".join(
        f"  def test_{i}(self):\n"
        f"    def kernel(x_ref, o_ref):\n      o_ref[...] = x_ref[...] + {i}\n"
        f"    pl.pallas_call(kernel, out_shape=X, interpret=self.INTERPRET)(X)\n"
        for i in range(30))
    text = ("import jax\nimport jax.experimental.pallas as pl\nfrom absl.testing import absltest\n\nX = None\n\n\n"
            "class KernelTest(absltest.TestCase):\n  INTERPRET = False\n\n" + tests +
            "\n\nclass KernelInterpretTest(KernelTest):\n  INTERPRET = True\n")
    engine = default_engine(incremental=True)
    engine.analyse(text, "/ws/suite.py")
    calls = []
    real = launches_mod.LaunchFinder.launch_of
    monkeypatch.setattr(launches_mod.LaunchFinder, "launch_of",
                        lambda self, item: calls.append(item) or real(self, item))
    edited = text.replace("x_ref[...] + 7\n", "x_ref[...] + 7 * 2\n")
    result = engine.analyse(edited, "/ws/suite.py")
    assert len(result.launches) == 30
    assert calls and all(c.scope.name == "test_7" for c in calls), {c.scope.name for c in calls}
    assert _signature(result) == _signature(default_engine().analyse(edited, "/ws/suite.py"))


REPORTING_KERNELS = "import jax\nimport jax.numpy as jnp\nimport jax.experimental.pallas as pl\n\n" + "\n".join(
    f"def kernel_{i}(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + pl.get_global(jnp.float32)\n\n"
    f"def run_{i}(x):\n    return pl.pallas_call(kernel_{i}, out_shape=x, interpret=True)(x)\n"
    for i in range(30))


def _checked_launches(monkeypatch, engine, old: str, new: str, path: str) -> tuple[list[str], object]:
    from pallas_lsp.analysis.engine import Engine

    engine.analyse(old, path)
    checked: list[str] = []
    real = Engine._check
    monkeypatch.setattr(Engine, "_check", lambda self, launch, *a: checked.append(launch.kernel_name)
                        or real(self, launch, *a))
    result = engine.analyse(new, path)
    monkeypatch.setattr(Engine, "_check", real)
    assert _signature(result) == _signature(default_engine().analyse(new, path))
    return checked, result


@pytest.mark.parametrize("edit, rechecked", [
    # Typing on a line: nothing moved, the other launches' reports are kept as they are.
    (lambda t: t.replace("return pl.pallas_call(kernel_7,", "return  pl.pallas_call(kernel_7,"), {"kernel_7"}),
    # A line more above them: every launch below is checked again (positions of the current text).
    (lambda t: t.replace("def run_7(x):\n", "def run_7(x):\n    # note\n"), {f"kernel_{i}" for i in range(7, 30)}),
    # An import changed: fixes may add or name imports, so every launch is checked again.
    (lambda t: t.replace("import jax.numpy as jnp\n", "import jax.numpy as jnp, math\n"),
     {f"kernel_{i}" for i in range(30)}),
], ids=["same-lines", "lines-moved", "imports-changed"])
def test_reports_of_kept_launches_are_kept_only_where_nothing_moved(monkeypatch, edit, rechecked) -> None:
    """20,000 launches that all report used to re-run every launch's rules on each keystroke
    (issue 15): a launch whose reads are unchanged keeps its reports when no line moved, no import
    changed and the module binds the same names; otherwise its rules run on the current text."""
    engine = default_engine(incremental=True)
    checked, result = _checked_launches(monkeypatch, engine, REPORTING_KERNELS, edit(REPORTING_KERNELS),
                                        "/ws/reporting.py")
    assert set(checked) == rechecked
    assert sum(1 for f in result.findings if f.code == "PAL001") == 30
    # Fixes of a kept report are built from the current text.
    (finding,) = [f for f in result.findings if f.code == "PAL001" and f.kernel == "kernel_3"]
    assert finding.fixes


@pytest.mark.parametrize("edit", [
    ("    plgpu.set_gpu_interpret_mode()\n", "    plgpu.set_gpu_interpret_mode(None)\n"),  # a reset now
    ("    use_gpu_interpreter()\n", "    pass\n"),  # the helper no longer calls the setter
])
def test_an_edit_in_a_helper_that_sets_the_mode_changes_the_launch_it_reaches(edit) -> None:
    """A launch reads the mode a helper it never names sets (two calls away): typing in that
    helper alone must reach the launch's kept result."""
    from tests.analysis import test_contexts_setters

    src = test_contexts_setters.program("set_in_a_helper_two_calls_down")
    engine = default_engine(incremental=True)
    path = "/ws/setter_helper.py"
    before = engine.analyse(src, path)
    assert "gpu-interpret" in _modes(before) and [f.code for f in before.findings] == ["PAL108"]
    old, new = edit
    assert src.count(old) == 1
    after = engine.analyse(src.replace(old, new), path)
    assert _signature(after) == _signature(default_engine().analyse(src.replace(old, new), path))
    assert "gpu-interpret" not in _modes(after) and after.findings == []


DIFFERENTIATED_BELOW = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3.0


def scaled(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def shifted(x):
    return pl.pallas_call(scale_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x + 1.0)


WEIGHT = 0.5


def objective(x):
    return (scaled(x) * WEIGHT).sum()


slope = jax.jacrev(objective)
'''


@pytest.mark.parametrize("edit", [
    ("WEIGHT = 0.5\n", "WEIGHT = 0.5\n# chosen by a sweep\n"),  # a comment line between blocks
    ("def objective(x):\n", "def objective(x):\n\n"),  # a blank line inside the differentiated function
    ("\n\nslope = ", "\n\n\n\nslope = "),  # blank lines right above the transformation
])
def test_a_kept_report_about_a_transformation_follows_the_transformation_when_lines_move(edit) -> None:
    """The launch's own blocks stay where they were, the jax.jacrev below them moves: the kept
    launch's report underlines the transformation, so it must not keep the old line. (The
    second launch, never differentiated, is analysed after the first.)"""
    engine = default_engine(incremental=True)
    path = "/ws/jacrev_below.py"
    before = engine.analyse(DIFFERENTIATED_BELOW, path)
    assert [(f.code, f.span.line) for f in before.findings] == [("PAL508", 25)]
    text = DIFFERENTIATED_BELOW.replace(*edit)
    after = engine.analyse(text, path)
    assert _signature(after) == _signature(default_engine().analyse(text, path))
    assert [(f.code, f.span.line) for f in after.findings] == [("PAL508", text.count("\n"))]
