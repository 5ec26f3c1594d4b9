"""``backends = ["cpu"]`` (the setting, ``check --backends cpu``): the author says the code also
runs on CPU hosts (a laptop, CI without accelerators), so a compiled launch there is a CPU-host
launch, unless a branch on the host keeps it off one. Each program is analysed with that
setting; tests/oracle/test_program_cases.py runs them under jax 0.12.0.1 on a CPU host: the
ones without a marked line run clean there, the others raise the marked code's record."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.analysis.engine import describe_context
from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected
from tests.analysis.test_hosts import HEAD, TAIL

CPU = ("cpu",)

CASES = {
    "a_script_that_compiles": '''
def main():
    print(pl.pallas_call(inc_kernel, out_shape=X)(X)[0, :2])  # PAL510
''',
    "a_mosaic_gpu_kernel_called_on_the_host": '''
def body(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def main():
    bump = plgpu.kernel(body, out_type=jax.ShapeDtypeStruct((128,), jnp.float32))  # PAL510
    print(bump(jnp.zeros((128,), jnp.float32))[:2])
''',
    "interpreted_on_cpu_hosts": '''
def main():
    print(pl.pallas_call(inc_kernel, out_shape=X, interpret=jax.default_backend() == "cpu")(X)[0, :2])
''',
    "a_branch_on_the_devices_passed_down": '''
def add_one(x, on_gpu):
    if on_gpu:
        return pl.pallas_call(inc_kernel, out_shape=X)(x)
    return pl.pallas_call(inc_kernel, out_shape=X, interpret=True)(x)


def main():
    on_gpu = any(d.platform == "gpu" for d in jax.devices())
    print(add_one(X, on_gpu)[0, :2])
''',
    "a_return_before_the_launch_on_cpu_hosts": '''
def add_one(x):
    if jax.default_backend() == "cpu":
        return x + 1.0
    return pl.pallas_call(inc_kernel, out_shape=X)(x)


def main():
    print(add_one(X)[0, :2])
''',
    "a_branch_that_says_nothing_of_the_host": '''
def add_one(x, wide):
    if wide:
        return pl.pallas_call(inc_kernel, out_shape=X)(x)  # PAL510
    return x + 1.0


def main():
    print(add_one(X, X.shape[1] > 64)[0, :2])
''',
    "a_test_skipped_on_cpu_in_set_up": '''
import unittest


class IncTest(unittest.TestCase):
    def setUp(self):
        if jax.default_backend() == "cpu":
            self.skipTest("needs an accelerator")

    def test_inc(self):
        pl.pallas_call(inc_kernel, out_shape=X)(X)


def main():
    result = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(IncTest))
    assert result.wasSuccessful() and len(result.skipped) == 1
''',
    "a_test_with_a_skip_if_decorator": '''
import unittest


class IncTest(unittest.TestCase):
    @unittest.skipIf(jax.devices()[0].platform == "cpu", "needs an accelerator")
    def test_inc(self):
        pl.pallas_call(inc_kernel, out_shape=X)(X)


def main():
    result = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromTestCase(IncTest))
    assert result.wasSuccessful() and len(result.skipped) == 1
''',
    "lowered_for_tpu_is_not_run_here": '''
def main():
    f = pl.pallas_call(inc_kernel, out_shape=X)
    print(jax.jit(f).trace(X).lower(lowering_platforms=("tpu",)).as_text()[:20])
''',
}


def _fixed(name: str) -> str:
    """A case with PAL510's fix applied."""
    src = HEAD + CASES[name] + TAIL
    (finding,) = [f for f in analyse(src, "/tmp/configured.py", backends=CPU).findings if f.code == "PAL510"]
    (fix,) = [f for f in finding.fixes if f.title.startswith("Interpret it where it runs on a CPU")]
    return apply_edits(src, fix.edits).replace("  # PAL510", "")


FIXED = ("a_script_that_compiles", "a_mosaic_gpu_kernel_called_on_the_host")
CASES.update({f"{name}_fixed": None for name in FIXED})  # (filled in by program())


def program(name: str) -> str:
    if name.endswith("_fixed"):
        return _fixed(name[: -len("_fixed")])
    return HEAD + CASES[name] + TAIL


def found_on_cpu(src: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in analyse(src, "/tmp/configured.py", backends=CPU).findings)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_cpu_host_by_the_setting_unless_the_code_branches_away(name):
    src = program(name)
    assert found_on_cpu(src) == expected(src)


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.endswith("_fixed")))
def test_without_the_setting_the_host_is_what_the_code_says(name):
    # (None of these programs says it runs on a CPU host: no finding by default.)
    assert [f for f in analyse(program(name), "/tmp/configured.py").findings if f.code == "PAL510"] == []


def test_the_message_says_the_setting_decided_the_host():
    (f,) = analyse(program("a_script_that_compiles"), "/tmp/configured.py", backends=CPU).findings
    assert "compiled on a CPU host (the `backends` setting lists cpu; pl.pallas_call without interpret)" in f.message
    assert any(r.message == "mode decided here: the `backends` setting lists cpu" for r in f.related)


def test_the_fix_interprets_on_cpu_hosts_only():
    fixed = program("a_script_that_compiles_fixed")
    assert 'pl.pallas_call(inc_kernel, out_shape=X, interpret=jax.default_backend() == "cpu")(X)' in fixed


def test_accelerators_listed_with_the_cpu_keep_their_own_contexts():
    src = program("a_script_that_compiles")
    (launch,) = analyse(src, "/tmp/configured.py", backends=("tpu", "cpu")).launches
    words = [describe_context(c) for c in launch.contexts]
    assert len(words) == 2
    assert words[0].startswith("compiled for Mosaic TPU (the `backends` setting;")
    assert words[1].startswith("compiled on a CPU host (the `backends` setting lists cpu;")


# jax's test utilities cannot be imported where the oracle runs (they need absl), so these are
# read as jax/_src/test_util.py defines them: ``test_device_matches`` compares its platforms
# with ``device_under_test()``, the platform the tests run on; ``skip_on_devices`` and
# ``run_on_devices`` skip a test by that same platform.
JTU_HEAD = HEAD + "from jax._src import test_util as jtu\n"


@pytest.mark.parametrize("guard, reported", [
    ('    def setUp(self):\n        if not jtu.test_device_matches(["tpu"]):\n'
     '            self.skipTest("TPU only")\n', False),
    ('    def setUp(self):\n        if jtu.test_device_matches(["cpu"]):\n'
     '            self.skipTest("no CPU")\n', False),
    ('    def setUp(self):\n        if not jtu.test_device_matches(["cpu", "gpu"]):\n'
     '            self.skipTest("x")\n', True),
    ('    def setUp(self):\n        if jtu.device_under_test() == "cpu":\n            self.skipTest("x")\n', False),
    ('    @jtu.skip_on_devices("cpu")\n', False),
    ('    @jtu.skip_on_devices("tpu")\n', True),
    ('    @jtu.run_on_devices("gpu", "tpu")\n', False),
    ('    @jtu.run_on_devices("cpu")\n', True),
    ("", True),
])
def test_jax_test_utilities_say_which_host_a_test_runs_on(guard, reported):
    src = JTU_HEAD + f'''

class IncTest(jtu.JaxTestCase):
{guard}
    def test_inc(self):
        pl.pallas_call(inc_kernel, out_shape=X)(X)
'''
    codes = [f.code for f in analyse(src, "/tmp/configured_test.py", backends=CPU).findings]
    assert codes == (["PAL510"] if reported else [])
