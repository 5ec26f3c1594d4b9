"""What the analysis must understand: names, launch forms, kernel forms, contexts, reach."""
import textwrap

import pytest

from pallas_lsp.rules import analyse

HEAD = """\
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import tpu as pltpu
"""


def codes(src: str, head: str = HEAD) -> list[tuple[str, int]]:
    text = head + textwrap.dedent(src)
    offset = head.count("\n")
    return [(f.code, f.span.line - offset) for f in analyse(text, "t.py").findings]


# --- names -----------------------------------------------------------------------------
def test_aliases_and_from_imports():
    head = ("import jax\nfrom jax.experimental.pallas import get_global as gg, pallas_call as pc\n"
            "import jax.experimental.pallas.mosaic_gpu as gpu\n")
    src = """
    def k(x_ref, o_ref):
        s = gg(gpu.SemaphoreType.REGULAR)
        pl_signal = s
    f = pc(k, out_shape=None, interpret=True)
    """
    assert codes(src, head) == [("PAL001", 3)]


def test_private_gpu_interpret_params_named_like_tpu_class():
    head = HEAD + "from jax._src.pallas.mosaic_gpu.interpret.params import InterpretGPUParams as InterpretParams\n"
    src = """
    def k(x_ref, o_ref):
        @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
        def fence(ctx, ref):
            pass
        fence(o_ref)
    f = pl.pallas_call(k, out_shape=None, interpret=InterpretParams())
    g = pl.pallas_call(k, out_shape=None, interpret=InterpretParams(inline_mgpu="ignore"))
    """
    found = analyse(head + textwrap.dedent(src), "t.py").findings
    assert [f.code for f in found] == ["PAL003"]
    assert "ValueError: GPU interpret mode does not support `inline_mgpu`" in found[0].message


def test_unrelated_get_global_method_is_not_pallas():
    src = """
    class Registry:
        def get_global(self, x):
            return x
    registry = Registry()
    def k(x_ref, o_ref):
        registry.get_global(1)
        o_ref[...] = x_ref[...]
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    assert codes(src) == []


# --- launch forms ------------------------------------------------------------------------
@pytest.mark.parametrize("launch", [
    "f = pl.pallas_call(k, out_shape=None, interpret=True)",
    "call = functools.partial(pl.pallas_call, out_shape=None, interpret=True)\nf = call(k)",
    "k2 = pl.pallas_call(k, out_shape=None, interpret=True)",
    "f = pl.kernel(k, out_type=None, mesh=plgpu.Mesh(grid=(1,), grid_names=('g',)), interpret=True)",
    "f = plgpu.kernel(k, out_type=None, interpret=True)",
    "f = plgpu.kernel(out_type=None, interpret=True)(k)",
])
def test_launch_forms(launch):
    src = ("def k(x_ref, o_ref):\n    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)\n"
           "    pl.semaphore_signal(sem)\n" + launch + "\n")
    assert codes(src) == [("PAL001", 2)]


def test_rebinding_kernel_name_to_its_launch():
    src = """
    def kernel(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    kernel = pl.pallas_call(kernel, out_shape=None, interpret=True)
    """
    assert codes(src) == [("PAL001", 3)]


@pytest.mark.parametrize("kernel_expr", [
    "functools.partial(body, scale=2)",
    "lambda x_ref, o_ref: body(x_ref, o_ref, scale=2)",
])
def test_kernel_forms(kernel_expr):
    src = f"""
    def body(x_ref, o_ref, scale):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    f = pl.pallas_call({kernel_expr}, out_shape=None, interpret=True)
    """
    assert codes(src) == [("PAL001", 3)]


def test_nested_kernel_closure_and_decorated_launch():
    src = """
    def make(n):
        @functools.partial(pl.pallas_call, out_shape=None, interpret=True)
        def kernel(x_ref, o_ref):
            sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
            pl.semaphore_signal(sem)
        return kernel
    """
    assert codes(src) == [("PAL001", 5)]


# --- contexts ------------------------------------------------------------------------------
def test_interpret_from_module_constant_and_default_and_callers():
    src = """
    DEBUG = True
    def k(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    def build_a():
        return pl.pallas_call(k, out_shape=None, interpret=DEBUG)
    def build_b(interpret=False):
        return pl.pallas_call(k, out_shape=None, interpret=interpret)
    def main():
        build_b(interpret=True)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [f.code for f in found] == ["PAL001"]
    assert len(found[0].contexts) == 2


def test_runtime_flag_is_unknown_and_silent():
    src = """
    import os
    def k(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    f = pl.pallas_call(k, out_shape=None, interpret=os.environ.get("X") == "1")
    """
    assert codes(src) == []


def test_cpu_backend_check_is_a_warning():
    src = """
    def k(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    f = pl.pallas_call(k, out_shape=None, interpret=jax.default_backend() == "cpu")
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [(f.code, f.severity.value) for f in found] == [("PAL001", "warning")]
    assert "CPU hosts" in found[0].message


def test_force_context_only_where_the_mode_is_read():
    src = """
    def k(x_ref, o_ref):
        @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
        def fence(ctx, ref):
            pass
        fence(o_ref)
    def main(x):
        built = pl.pallas_call(k, out_shape=None)
        with plgpu.force_gpu_interpret_mode():
            built(x)
    """
    # pallas_call read the mode when it was built, outside the context: no inline_mgpu error,
    # but the context is misplaced (the launch is compiled, on the CPU host it is used on).
    assert codes(src) == [("PAL511", 9)]


def test_plgpu_kernel_reads_mode_when_called():
    src = """
    def body(o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(sem)
    def main():
        k = plgpu.kernel(body, out_type=None)
        with plgpu.force_gpu_interpret_mode():
            k()
    """
    assert codes(src) == [("PAL001", 3)]


def test_jitted_builder_retraces_under_context():
    src = """
    def k(x_ref, o_ref):
        @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
        def fence(ctx, ref):
            pass
        fence(o_ref)
    @jax.jit
    def step(x):
        return pl.pallas_call(k, out_shape=None)(x)
    def main(x):
        with pltpu.force_tpu_interpret_mode():
            step(x)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [f.code for f in found] == ["PAL003"]
    assert "MLIR translation rule" in found[0].message


def test_context_overrides_explicit_interpret():
    src = """
    def k(x_ref, o_ref):
        @plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
        def fence(ctx, ref):
            pass
        fence(o_ref)
    def main(x):
        with plgpu.force_gpu_interpret_mode(plgpu.InterpretGPUParams(inline_mgpu="ignore")):
            pl.pallas_call(k, out_shape=None, interpret=True)(x)
    """
    assert codes(src) == []


# --- reach ------------------------------------------------------------------------------------
def test_two_levels_deep_loops_and_run_scoped():
    src = """
    def inner():
        return pl.get_global(plgpu.SemaphoreType.REGULAR)
    def middle():
        s = inner()
        pl.semaphore_signal(s)
    def k(x_ref, o_ref):
        @pl.loop(0, 4)
        def _(i):
            middle()
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [(f.code, f.chain) for f in found] == [("PAL001", ("k", "_", "middle", "inner"))]


def test_python_false_branch_and_when_false_are_not_traced():
    src = """
    def k(x_ref, o_ref):
        if False:
            pl.get_global(plgpu.SemaphoreType.REGULAR)
        @pl.when(False)
        def _():
            s = pl.get_global(plgpu.SemaphoreType.REGULAR)
            pl.semaphore_signal(s)
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    assert codes(src) == []


def test_unused_get_global_dropped_in_pallas_call_but_not_in_plgpu_kernel():
    src = """
    def k(x_ref, o_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    g = plgpu.kernel(k, out_type=None, interpret=True)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [f.code for f in found] == ["PAL001"]
    assert found[0].launch_line == HEAD.count("\n") + 5


def test_one_finding_per_construct_with_several_launches():
    src = """
    def k(x_ref, o_ref):
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(s)
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    g = pl.pallas_call(k, out_shape=None, interpret=pltpu.InterpretParams())
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert len(found) == 1 and "1 more launch context" in found[0].message


def test_syntax_error_in_one_block_keeps_findings_elsewhere():
    src = """
    def k(x_ref, o_ref):
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(s)
    def broken(:
        pass
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert sorted(f.code for f in found) == ["PAL001", "PAL900"]


def test_suppression_comment_and_unknown_code():
    src = """
    def k(x_ref, o_ref):
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)  # pallas-lsp: ignore[PAL001]
        pl.semaphore_signal(s)
        t = pl.get_global(plgpu.SemaphoreType.REGULAR)  # pallas-lsp: ignore[PAL999]
        pl.semaphore_signal(t)
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    assert sorted(codes(src)) == [("PAL001", 5), ("PAL901", 5)]


def test_suppression_lines_count_only_real_line_breaks():
    """A form feed is not a line break for Python: the ignore comment still lands on its line."""
    src = """
    def k(x_ref, o_ref):
        \f
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)  # pallas-lsp: ignore[PAL001]
        pl.semaphore_signal(s)
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    assert codes(src) == []


def test_non_ascii_columns_are_code_points():
    src = ("def k(x_ref, o_ref):\n    é = 1; s = pl.get_global(plgpu.SemaphoreType.REGULAR)\n"
           "    pl.semaphore_signal(s)\nf = pl.pallas_call(k, out_shape=None, interpret=True)\n")
    (f,) = analyse(HEAD + src, "t.py").findings
    assert f.span.col == len("    é = 1; s = ")


def test_forwarding_wrappers_and_self_methods():
    src = """
    class KernelTest:
        def kernel(self, *args, **kwargs):
            return plgpu.kernel(*args, interpret=True, **kwargs)

        def test_one(self):
            @self.kernel(out_type=None)
            def body(o_ref):
                s = pl.get_global(plgpu.SemaphoreType.REGULAR)
                pl.semaphore_signal(s)

        def test_two(self):
            def body2(o_ref):
                s = pl.get_global(plgpu.SemaphoreType.REGULAR)
                pl.semaphore_signal(s)
            self.kernel(body2, out_type=None)()
    """
    assert codes(src) == [("PAL001", 9), ("PAL001", 14)]


def test_type_checking_binding_is_what_a_name_statically_is():
    head = "import types\nimport jax\nfrom jax.experimental import pallas as pl\nfrom typing import TYPE_CHECKING\n" \
           "from jax.experimental.pallas import mosaic_gpu as _plgpu\n"
    src = """
    if TYPE_CHECKING:
        plgpu = _plgpu
    else:
        plgpu = types.ModuleType("clone")
    def k(x_ref, o_ref):
        bar = pl.get_global(plgpu.Barrier())
    f = plgpu.kernel(k, out_type=None)
    """
    assert codes(src, head) == [("PAL002", 7)]


def test_syntax_newer_than_this_python_is_still_indexed():
    src = """
    def helper[T](x: T) -> T:
        return x
    type Alias = int
    def k(x_ref, o_ref):
        s = pl.get_global(plgpu.SemaphoreType.REGULAR)
        pl.semaphore_signal(helper(s))
    f = pl.pallas_call(k, out_shape=None, interpret=True)
    """
    found = analyse(HEAD + textwrap.dedent(src), "t.py").findings
    assert [f.code for f in found] == ["PAL001"]


def test_syntax_error_message_counts_lines_in_the_file():
    # Blocks are parsed on their own; Python's "on line N" in the message must still be the
    # file's line, as `python file.py` would say it (it named the line inside the block).
    src = ("import jax\n\n\ndef first():\n    return 1\n\n\n"
           "def second():\n    x = 1\n    with open('f'):\n    if x:\n        pass\n")
    try:
        compile(src, "bad.py", "exec")
    except SyntaxError as exc:
        python_says = exc.msg
    (finding,) = analyse(src, "bad.py").findings
    assert finding.code == "PAL900" and finding.span.line == 11
    assert "on line 10" in python_says
    assert finding.message == f"Syntax error: {python_says}"
