"""``interpret=self.INTERPRET``: the test idiom of jax, tokamax and tpu-inference. A method
runs once for its class and once for every subclass that inherits it, each with its own
class attributes; a test skipped in a context (``if self.INTERPRET: self.skipTest(...)``)
does not launch there. Each program here was run under jax 0.12 (JAX_PLATFORMS=cpu, python -m
unittest): exactly the tests flagged fail with the error the finding names (the compiled
ones fail on a CPU host with "Only interpret mode is supported on CPU backend", which is
not what these rules are about)."""
import textwrap

import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.rules import default_engine
from pallas_lsp.analysis.program import Program

HEAD = '''\
import functools
import unittest

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu

INTERPRET_ONLY = True


def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...]


def plain(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


class BaseTest(unittest.TestCase):
    INTERPRET = False

    def pallas_call(self, *args, **kwargs):
        return pl.pallas_call(*args, **kwargs, interpret=self.INTERPRET)

'''
SUBCLASS = '''

class InterpretTest(BaseTest):
    INTERPRET = True
'''
LAUNCH = "        self.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)\n"


def method(body: str, name: str = "test_it", decorator: str = "") -> str:
    deco = f"    {decorator}\n" if decorator else ""
    return deco + f"    def {name}(self):\n        x = jnp.zeros((128,), jnp.float32)\n" + \
        textwrap.indent(textwrap.dedent(body), "        ")


def findings(text: str):
    return analyse(text, "t.py").findings


def test_direct_keyword_runs_in_every_class_that_inherits_the_test():
    text = HEAD + method('''
    f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=self.INTERPRET)
    f(x)
    ''') + SUBCLASS
    (f,) = findings(text)
    assert f.code == "PAL001" and f.severity.value == "error"
    # The finding names the class that runs it interpreted, and the line that sets it.
    assert "`InterpretTest.INTERPRET = True` (line 36)" in f.message
    notes = [r.message for r in f.related]
    assert "mode decided here: interpret=self.INTERPRET" in notes
    assert {c.mode.value for c in f.contexts} == {"interpret"}


def test_compiled_base_alone_is_not_flagged():
    text = HEAD + method('''
    f = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=self.INTERPRET)
    ''')
    assert findings(text) == []
    (launch,) = analyse(text, "t.py").launches
    assert [c.mode.value for c in launch.contexts] == ["compiled"]


def test_through_a_helper_method_and_its_decorator_form():
    text = HEAD + method(LAUNCH.strip() + "\n", "test_helper") + "\n" + method('''
    @functools.partial(self.pallas_call, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))
    def k(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
        o_ref[...] = x_ref[...]

    k(x)
    ''', "test_decorator") + SUBCLASS
    got = sorted((f.code, f.kernel, f.launch_line) for f in findings(text))
    assert got == [("PAL001", "k", 35), ("PAL001", "kernel", 30)]


GUARDED = {
    "skipTest": 'if self.INTERPRET:\n    self.skipTest("compiled only")\n',
    "return": "if not jax.devices() or self.INTERPRET:\n    return\n",
    "pytest.skip": 'if self.INTERPRET:\n    pytest.skip("compiled only")\n',
    "raise SkipTest": 'if self.INTERPRET:\n    raise unittest.SkipTest("compiled only")\n',
    "elif": 'if not INTERPRET_ONLY:\n    pass\nelif self.INTERPRET:\n    self.skipTest("compiled only")\n',
}


@pytest.mark.parametrize("guard", sorted(GUARDED))
def test_a_test_skipped_in_interpret_mode_is_not_flagged_there(guard):
    text = "import pytest\n" + HEAD + method(GUARDED[guard] + LAUNCH.strip() + "\n") + SUBCLASS
    assert findings(text) == []
    (launch,) = analyse(text, "t.py").launches
    assert [c.mode.value for c in launch.contexts] == ["compiled"]


def test_inverted_guard_keeps_the_interpret_context():
    text = HEAD + method('if not self.INTERPRET:\n    self.skipTest("interpret only")\n' + LAUNCH.strip() + "\n") \
        + SUBCLASS
    (f,) = findings(text)
    (launch,) = analyse(text, "t.py").launches
    assert [c.mode.value for c in launch.contexts] == ["interpret"]


def test_a_guard_that_also_needs_the_device_does_not_skip():
    # jax's `if jtu.test_device_matches(["tpu"]) and not self.INTERPRET: self.skipTest(...)`
    text = HEAD + method('if jax.devices()[0].platform == "tpu" and self.INTERPRET:\n    self.skipTest("tpu")\n'
                         + LAUNCH.strip() + "\n") + SUBCLASS
    assert [f.code for f in findings(text)] == ["PAL001"]


def test_launch_in_the_compiled_branch_only():
    text = HEAD + method('''
    if not self.INTERPRET:
        self.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    else:
        self.pallas_call(plain, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    ''') + SUBCLASS
    assert findings(text) == []


@pytest.mark.parametrize("decorator", ['@unittest.skipIf(INTERPRET_ONLY, "compiled only")',
                                       '@pytest.mark.skipif(INTERPRET_ONLY, reason="compiled only")',
                                       '@unittest.skipUnless(not INTERPRET_ONLY, "compiled only")',
                                       '@unittest.skip("later")'])
def test_skip_decorators(decorator):
    text = "import pytest\n" + HEAD + method(LAUNCH.strip() + "\n", decorator=decorator) + SUBCLASS
    assert findings(text) == []


def test_skipped_in_the_subclass_set_up():
    text = HEAD + method(LAUNCH.strip() + "\n") + SUBCLASS + '''
    def setUp(self):
        if self.INTERPRET:
            self.skipTest("no interpret tests here")
        super().setUp()
'''
    assert findings(text) == []


def test_a_subclass_that_overrides_the_test_does_not_run_the_base_body():
    text = HEAD + method(LAUNCH.strip() + "\n") + SUBCLASS + '''
    def test_it(self):
        self.skipTest("not in interpret mode")
'''
    assert findings(text) == []
    # ... unless the override runs it through super().
    text = text.replace('self.skipTest("not in interpret mode")', "super().test_it()")
    assert [f.code for f in findings(text)] == ["PAL001"]


def test_subclass_in_another_module(tmp_path):
    (tmp_path / "kernel_base.py").write_text(HEAD + method(LAUNCH.strip() + "\n"))
    (tmp_path / "test_interpret.py").write_text(
        "import unittest\n\nimport kernel_base\n\n\nclass KernelInterpretTest(kernel_base.BaseTest):\n"
        "    INTERPRET = True\n")
    prog = Program(tmp_path)
    (f,) = default_engine().analyse_in(prog, str(tmp_path / "kernel_base.py")).findings
    assert f.code == "PAL001" and "`KernelInterpretTest.INTERPRET = True` (test_interpret.py:7)" in f.message
    # Alone, the module has no interpreting subclass.
    assert analyse((tmp_path / "kernel_base.py").read_text(), str(tmp_path / "kernel_base.py")).findings == []


def test_helper_method_of_a_base_class_in_another_module(tmp_path):
    (tmp_path / "testutil.py").write_text(
        "import unittest\nfrom jax.experimental import pallas as pl\n\n\nclass PallasTest(unittest.TestCase):\n"
        "    INTERPRET: bool = False\n\n    def pallas_call(self, *args, **kwargs):\n"
        "        return pl.pallas_call(*args, **kwargs, interpret=self.INTERPRET)\n")
    body = HEAD.split("class BaseTest")[0].replace("import unittest\n", "import unittest\n\nimport testutil\n")
    text = body + "class KernelTest(testutil.PallasTest):\n" + method(LAUNCH.strip() + "\n") + \
        "\n\nclass KernelInterpretTest(KernelTest):\n    INTERPRET = True\n"
    (tmp_path / "kernel_test.py").write_text(text)
    (f,) = default_engine().analyse_in(Program(tmp_path), str(tmp_path / "kernel_test.py")).findings
    assert f.code == "PAL001" and "`KernelInterpretTest.INTERPRET = True`" in f.message


HELPER = '''

def run(x, interpret):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=interpret)(x)

'''


def test_passed_to_a_module_helper_and_skipped_in_the_calling_test():
    head = HEAD.replace("\n\nclass BaseTest", HELPER + "\nclass BaseTest")
    flagged = head + method("run(x, self.INTERPRET)\n") + SUBCLASS
    (f,) = findings(flagged)
    assert f.code == "PAL001" and "InterpretTest.INTERPRET = True" in f.message
    skipped = head + method('if self.INTERPRET:\n    self.skipTest("compiled only")\nrun(x, self.INTERPRET)\n') \
        + SUBCLASS
    assert findings(skipped) == []
    overridden = flagged + '''
    def test_it(self):
        self.skipTest("not here")
'''
    assert findings(overridden) == []


@pytest.mark.parametrize("decorator", ['@unittest.skip("no interpret tests")',
                                       '@unittest.skipIf(INTERPRET_ONLY, "no interpret tests")'])
def test_a_skipped_subclass_does_not_run_the_inherited_test(decorator):
    text = HEAD + method(LAUNCH.strip() + "\n") + SUBCLASS.replace("class InterpretTest",
                                                                   decorator + "\nclass InterpretTest")
    assert findings(text) == []
    # A subclass of the skipped class inherits the mark.
    text += "\n\nclass DeeperTest(InterpretTest):\n    pass\n"
    assert findings(text) == []
