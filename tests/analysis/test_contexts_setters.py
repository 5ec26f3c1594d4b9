"""Where a launch reads its interpret mode, in the shapes a helper hides: a set_ call made in a
helper the launching code calls (at any depth, or a reset after it), a force_ block entered
through a helper (``with debugging():``), a built launch handed on (returned by a factory,
passed to a runner) and applied inside a force_ block it was built before; and a launch nested
in another kernel that closes over that kernel's Refs. Each program is analysed with
``backends = ["cpu"]`` (and without: the same, less PAL510); tests/oracle/test_program_cases.py
runs them under jax 0.12.0.1 on a CPU host: the unmarked ones run clean, the others raise the
marked code's record."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected
from tests.analysis.test_hosts import HEAD, TAIL

CPU = ("cpu",)

_SPEC = "pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,))"
_PREFETCH = '''
def shift_kernel(offsets_ref, x_ref, o_ref):
    o_ref[...] = x_ref[...] - 1.0


OFFSETS = jnp.zeros((2,), jnp.int32)
'''
_HBM_BODY = '''
def double(x_hbm, o_hbm, buf):
    pltpu.sync_copy(x_hbm, buf)
    buf[...] = buf[...] * 2.0
    pltpu.sync_copy(buf, o_hbm)


def make_doubler():
    return pl.kernel(double, out_type=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                     mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                     scratch_types=[pltpu.VMEM((8, 128), jnp.float32)])
'''

_DOUBLE = _HBM_BODY.split("\n\n\ndef make_doubler")[0] + "\n"
_BLOCKED_SPEC = '''pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=1, grid=(1,),{m}
            in_specs=[pl.BlockSpec((8, 128), lambda i, offs: (0, 0))],
            out_specs=pl.BlockSpec((8, 128), lambda i, offs: (0, 0)))'''
_BARE_FACTORY = '''

def make_scaler(rows):
    """A doubling kernel over `rows` rows."""
    return pl.kernel(double, out_type=jax.ShapeDtypeStruct((rows, 128), jnp.float32),
                     mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                     scratch_types=[pltpu.VMEM((rows, 128), jnp.float32)])
'''

CASES = {
    # --- a set_ call made through helpers ---------------------------------------------------
    "set_in_a_helper_two_calls_down": _PREFETCH + f'''

def use_gpu_interpreter():
    plgpu.set_gpu_interpret_mode()


def prepare():
    use_gpu_interpreter()


def shifted(x):
    prepare()
    spec = {_SPEC}  # PAL108
    return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(shifted(X)[0, :2])
''',
    "set_in_a_helper_called_after_the_build": _PREFETCH + f'''

def use_gpu_interpreter():
    plgpu.set_gpu_interpret_mode()


def shifted(x):
    spec = {_SPEC}
    launch = pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=pltpu.InterpretParams())
    use_gpu_interpreter()
    return launch(OFFSETS, x)


def main():
    print(shifted(X)[0, :2])
''',
    "set_then_reset_in_helpers": _PREFETCH + f'''

def debug_on():
    plgpu.set_gpu_interpret_mode()


def debug_off():
    plgpu.set_gpu_interpret_mode(None)


def shifted(x):
    debug_on()
    debug_off()
    spec = {_SPEC}
    return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=True)(OFFSETS, x)


def main():
    print(shifted(X)[0, :2])
''',
    "set_helper_after_a_compiled_build": '''

def use_gpu_interpreter():
    plgpu.set_gpu_interpret_mode()


def bumped(x):
    launch = pl.pallas_call(inc_kernel, out_shape=X)
    use_gpu_interpreter()  # PAL511
    return launch(x)


def main():
    print(bumped(X)[0, :2])
''',
    # --- a force_ block entered through a helper --------------------------------------------
    "with_a_helper_returning_force": _PREFETCH + f'''

def gpu_debugging():
    return plgpu.force_gpu_interpret_mode()


def main():
    with gpu_debugging():
        spec = {_SPEC}  # PAL108
        out = pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, X)
    print(out[0, :2])
''',
    "with_a_contextmanager_helper": _PREFETCH + f'''
import contextlib


@contextlib.contextmanager
def gpu_debugging():
    with plgpu.force_gpu_interpret_mode():
        yield


def main():
    spec = {_SPEC}  # PAL108
    with gpu_debugging():
        out = pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, X)
    print(out[0, :2])
''',
    # --- pl.kernel built before the force_ block, applied inside it ------------------------
    "pl_kernel_from_a_factory_called_in_force": _HBM_BODY + '''

def main():
    doubler = make_doubler()
    with pltpu.force_tpu_interpret_mode():  # PAL511
        y = doubler(X)
    print(y[0, :2])
''',
    "pl_kernel_passed_to_a_runner_with_force": _HBM_BODY + '''

def run_interpreted(fn, x):
    with pltpu.force_tpu_interpret_mode():  # PAL511
        return fn(x)


def main():
    print(run_interpreted(make_doubler(), X)[0, :2])
''',
    "pl_kernel_from_a_factory_built_in_force": _HBM_BODY + '''

def main():
    with pltpu.force_tpu_interpret_mode():
        doubler = make_doubler()
    print(doubler(X)[0, :2])
''',
    # --- built earlier in the function that applies it in the force_ block: the fix moves
    # the build in (each *_moved_in case is its *_earlier case with the PAL511 fix applied)
    "pl_kernel_built_earlier_in_the_function": _DOUBLE + '''

def main():
    rows = 8
    doubler = pl.kernel(double, out_type=jax.ShapeDtypeStruct((rows, 128), jnp.float32),
                        mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                        scratch_types=[pltpu.VMEM((rows, 128), jnp.float32)])
    scale = 3.0
    with pltpu.force_tpu_interpret_mode():  # PAL511
        y = doubler(X * scale)
    print(y[0, :2])
''',
    "pl_kernel_built_earlier_moved_in": _DOUBLE + '''

def main():
    rows = 8
    scale = 3.0
    with pltpu.force_tpu_interpret_mode():
        doubler = pl.kernel(double, out_type=jax.ShapeDtypeStruct((rows, 128), jnp.float32),
                            mesh=pltpu.create_tensorcore_mesh("core", num_cores=1),
                            scratch_types=[pltpu.VMEM((rows, 128), jnp.float32)])
        y = doubler(X * scale)
    print(y[0, :2])
''',
    "pl_kernel_from_a_bare_factory_earlier": _DOUBLE + _BARE_FACTORY + '''

def main():
    scaler = make_scaler(8)
    if X.shape[0] == 8:
        with pltpu.force_tpu_interpret_mode():  # PAL511
            out = scaler(X)
            print(out[0, :2])
''',
    "pl_kernel_from_a_bare_factory_moved_in": _DOUBLE + _BARE_FACTORY + '''

def main():
    if X.shape[0] == 8:
        with pltpu.force_tpu_interpret_mode():
            scaler = make_scaler(8)
            out = scaler(X)
            print(out[0, :2])
''',
    # --- methods: a launch built in a method, the mode set through helpers ---------------
    "method_calls_a_module_helper_that_sets": _PREFETCH + '''

def turn_on_gpu_interpreter():
    plgpu.set_gpu_interpret_mode(plgpu.InterpretGPUParams())


def configure():
    turn_on_gpu_interpreter()


class Shifter:
    def __init__(self, rows):
        self.rows = rows

    def apply(self, offsets, x):
        configure()
        spec = ''' + _BLOCKED_SPEC.format(m="  # PAL108") + '''
        return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(offsets, x)


def main():
    shifter = Shifter(8)
    print(shifter.apply(OFFSETS, X)[0, :2])
''',
    "method_calls_its_own_setter_method": _PREFETCH + f'''

class Shifter:
    def _debug(self):
        plgpu.set_gpu_interpret_mode()

    def apply(self, x):
        self._debug()
        spec = {_SPEC}  # PAL108
        return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    "method_setter_inherited_from_a_base": _PREFETCH + f'''

class Debuggable:
    def enable_debugging(self):
        plgpu.set_gpu_interpret_mode()


class Shifter(Debuggable):
    def apply(self, x):
        self.enable_debugging()
        spec = {_SPEC}  # PAL108
        return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    "method_sets_after_the_build": _PREFETCH + f'''

class Shifter:
    def _debug(self):
        plgpu.set_gpu_interpret_mode()

    def apply(self, x):
        spec = {_SPEC}
        launch = pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=pltpu.InterpretParams())
        self._debug()
        return launch(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    "method_setter_misses_a_compiled_build": '''

class Bumper:
    def _debug(self):
        plgpu.set_gpu_interpret_mode()

    def bumped(self, x):
        launch = pl.pallas_call(inc_kernel, out_shape=X)
        self._debug()  # PAL511
        return launch(x)


def main():
    print(Bumper().bumped(X)[0, :2])
''',
    "with_a_contextmanager_method": _PREFETCH + f'''
import contextlib


class Shifter:
    @contextlib.contextmanager
    def debugging(self):
        with plgpu.force_gpu_interpret_mode():
            yield self

    def apply(self, x):
        with self.debugging():
            spec = {_SPEC}  # PAL108
            return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    "staticmethod_setter": _PREFETCH + f'''

class Debug:
    @staticmethod
    def on():
        plgpu.set_gpu_interpret_mode()


def shifted(x):
    Debug.on()
    spec = {_SPEC}  # PAL108
    return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(shifted(X)[0, :2])
''',
    "classmethod_setter_called_from_a_method": _PREFETCH + f'''

class Shifter:
    @classmethod
    def use_interpreter(cls):
        plgpu.set_gpu_interpret_mode()

    def apply(self, x):
        self.use_interpreter()
        spec = {_SPEC}  # PAL108
        return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    "method_tpu_mode_prefetch_runs": _PREFETCH + f'''

class Shifter:
    def _debug(self):
        pltpu.set_tpu_interpret_mode()

    def apply(self, x):
        self._debug()
        spec = {_SPEC}
        return pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, x)


def main():
    print(Shifter().apply(X)[0, :2])
''',
    # --- unittest: setUp puts every test of the class (and subclasses) in the mode --------
    "setup_enters_force_for_each_test": _PREFETCH + f'''
import unittest


class ShiftTest(unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.enterContext(plgpu.force_gpu_interpret_mode())

    def test_shift(self):
        spec = {_SPEC}  # PAL108
        pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, X)


def main():
    ShiftTest("test_shift").debug()
''',
    "setup_sets_for_a_subclass_test": _PREFETCH + f'''
import unittest


class ShiftTest(unittest.TestCase):
    def test_shift(self):
        spec = {_SPEC}  # PAL108
        pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=pltpu.InterpretParams())(OFFSETS, X)


class ShiftGpuInterpretTest(ShiftTest):
    def setUp(self):
        super().setUp()
        plgpu.set_gpu_interpret_mode()

    def tearDown(self):
        plgpu.set_gpu_interpret_mode(None)
        super().tearDown()


def main():
    ShiftTest("test_shift").debug()
    ShiftGpuInterpretTest("test_shift").debug()
''',
    "setup_sets_test_resets_first": _PREFETCH + f'''
import unittest


class ShiftTest(unittest.TestCase):
    def setUp(self):
        plgpu.set_gpu_interpret_mode()

    def test_shift(self):
        plgpu.set_gpu_interpret_mode(None)
        spec = {_SPEC}
        pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=True)(OFFSETS, X)


def main():
    ShiftTest("test_shift").debug()
''',
    "setup_enters_tpu_force_through_a_helper": _PREFETCH + f'''
import unittest


class ShiftTest(unittest.TestCase):
    def _interpret_as_tpu(self):
        self.enterContext(pltpu.force_tpu_interpret_mode())

    def setUp(self):
        self._interpret_as_tpu()

    def test_shift(self):
        spec = {_SPEC}
        pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec)(OFFSETS, X)


def main():
    ShiftTest("test_shift").debug()
''',
    "setup_overridden_without_super_drops_the_mode": _PREFETCH + f'''
import unittest


class GpuInterpretTest(unittest.TestCase):
    def setUp(self):
        self.enterContext(plgpu.force_gpu_interpret_mode())


class ShiftTest(GpuInterpretTest):
    def setUp(self):
        self.offsets = OFFSETS

    def test_shift(self):
        spec = {_SPEC}
        pl.pallas_call(shift_kernel, out_shape=X, grid_spec=spec, interpret=pltpu.InterpretParams())(self.offsets, X)


def main():
    ShiftTest("test_shift").debug()
''',
    # --- a launch nested in another kernel -------------------------------------------------
    "nested_launch_reads_outer_scratch": '''

def outer_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] * 2.0

    def inner_kernel(y_ref):
        y_ref[...] = acc_ref[...] + 1.0  # PAL513

    o_ref[...] = pl.pallas_call(inner_kernel, out_shape=X, interpret=True)()


def main():
    out = pl.pallas_call(outer_kernel, out_shape=X, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
                         interpret=True)(X)
    print(out[0, :2])
''',
    "nested_launch_reads_outer_input": '''

def outer_kernel(x_ref, o_ref):
    def inner_kernel(y_ref):
        y_ref[...] = x_ref[...] + 1.0  # PAL513

    o_ref[...] = pl.pallas_call(inner_kernel, out_shape=X, interpret=pltpu.InterpretParams())()


@jax.jit
def twice(x):
    return pl.pallas_call(outer_kernel, out_shape=X, interpret=True)(x)


def main():
    print(twice(X)[0, :2])
''',
    "nested_launch_given_the_value": '''

def outer_kernel(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] * 2.0

    def inner_kernel(a_ref, y_ref):
        y_ref[...] = a_ref[...] + 1.0

    o_ref[...] = pl.pallas_call(inner_kernel, out_shape=X, interpret=True)(acc_ref[...])


def main():
    out = pl.pallas_call(outer_kernel, out_shape=X, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32)],
                         interpret=True)(X)
    print(out[0, :2])
''',
}


def program(name: str) -> str:
    return HEAD + CASES[name] + TAIL


def found(src: str, backends=()) -> list[tuple[str, int]]:
    return sorted((f.code, f.span.line) for f in analyse(src, "/tmp/setters.py", backends=backends).findings)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_mode_a_launch_reads_through_helpers(name):
    src = program(name)
    assert found(src, CPU) == expected(src)
    assert found(src) == [m for m in expected(src) if m[0] != "PAL510"]


def test_a_set_through_a_helper_is_shown_at_the_helper_call_beside_the_launch():
    src = program("set_helper_after_a_compiled_build")
    (f,) = analyse(src, "/tmp/setters.py").findings
    line = src.splitlines()[f.span.line - 1]
    assert line.strip().startswith("use_gpu_interpreter()")
    assert "plgpu.set_gpu_interpret_mode()" in f.message


def test_a_nested_launch_names_the_outer_kernels_scratch_as_where_the_ref_is_made():
    src = program("nested_launch_reads_outer_scratch")
    (f,) = analyse(src, "/tmp/setters.py").findings
    assert "memory space vmem" in f.message
    (rel,) = f.related[-1:]
    assert "pltpu.VMEM((8, 128), jnp.float32)" in src.splitlines()[rel.span.line - 1]


# The PAL511 build-in-context fix of each case, and the case it gives (run clean by the oracle).
BUILD_FIXED = {"pl_kernel_built_earlier_in_the_function": "pl_kernel_built_earlier_moved_in",
               "pl_kernel_from_a_bare_factory_earlier": "pl_kernel_from_a_bare_factory_moved_in"}
BUILD_TITLE = "Build `{}` inside the interpret-mode `with` block"


def build_fixed(src: str) -> str | None:
    """``src`` with PAL511's build-in-context fix applied (None: not offered)."""
    from pallas_lsp.analysis.edits import apply_edits

    (f,) = [f for f in analyse(src, "/tmp/setters.py", backends=CPU).findings if f.code == "PAL511"]
    fixes = [x for x in f.fixes if x.title.startswith(BUILD_TITLE.split("`")[0])]
    return apply_edits(src, fixes[0].edits) if fixes else None


@pytest.mark.parametrize("name", sorted(BUILD_FIXED))
def test_a_build_earlier_in_the_function_moves_into_the_block(name):
    fixed = build_fixed(program(name))
    assert fixed is not None
    assert fixed.replace("  # PAL511", "") == program(BUILD_FIXED[name])
    assert found(fixed, CPU) == []


_EARLIER = program("pl_kernel_built_earlier_in_the_function")
_FACTORY = program("pl_kernel_from_a_bare_factory_earlier")


@pytest.mark.parametrize("src", [
    # used after the block too: built inside, that use would run interpreted as well
    _EARLIER.replace("    print(y[0, :2])\n", "    print(y[0, :2], doubler(X)[0, :2])\n"),
    # a name the build reads is bound again after it: moved, the build would read the new value
    _EARLIER.replace("    scale = 3.0\n", "    scale = 3.0\n    rows = 16\n"),
    # ... or changed in place
    _EARLIER.replace("    rows = 8\n", "    rows = [8]\n").replace("(rows, 128)", "(rows[0], 128)")
    .replace("    scale = 3.0\n", "    scale = 3.0\n    rows[0] = 16\n"),
    # the build calls the author's own function: moved, that call would run later
    _EARLIER.replace("    rows = 8\n", "    rows = row_count()\n").replace("(rows, 128)", "(row_count(), 128)")
    + "\n\ndef row_count():\n    return 8\n",
    # built in a branch: the block may run without it
    _EARLIER.replace("    doubler = pl.kernel(", "    if rows:\n     doubler = pl.kernel(")
    .replace("                        mesh=", "                         mesh=")
    .replace("                        scratch_types=", "                         scratch_types="),
    # the factory does more than build: moving its call moves that too
    _FACTORY.replace('    """A doubling kernel over `rows` rows."""\n', '    print("building")\n'),
    # a cached factory hands back the launch it built outside the block
    _FACTORY.replace("def make_scaler(", "@functools.cache\ndef make_scaler("),
], ids=["used-after", "rebound-after", "changed-in-place", "calls-own-function", "built-in-a-branch",
        "factory-does-more", "cached-factory"])
def test_a_build_is_not_moved_where_it_would_mean_another_thing(src):
    assert [c for c, _ in found(src, CPU)] == ["PAL511"]
    assert build_fixed(src) is None


def test_a_set_up_that_only_a_subclass_runs_leaves_the_base_class_its_own_mode():
    """The base class runs its test with the launch's own ``interpret=`` (TPU params); the
    subclass runs it under the mode its setUp sets: both are the launch's contexts."""
    from pallas_lsp.analysis.contexts import Mode

    (launch,) = analyse(program("setup_sets_for_a_subclass_test"), "/tmp/setters.py").launches
    assert {c.mode for c in launch.contexts} == {Mode.GPU_INTERPRET, Mode.TPU_INTERPRET}
    (launch,) = analyse(program("setup_enters_force_for_each_test"), "/tmp/setters.py").launches
    assert [c.mode for c in launch.contexts] == [Mode.GPU_INTERPRET]
