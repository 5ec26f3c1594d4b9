"""What is done to a launch: which transformations reach it, and what ends the chain. Each
program below was run under jax 0.12.0.1 (tests/oracle/test_program_cases.py runs them again): the
ones without a marked line run clean, the others raise the error of the code marked on the
line of the transformation."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.transforms import REVERSE_APIS, TRANSFORM_APIS, Transform
from pallas_lsp.records.detection import TRANSFORM_APIS as NAMEABLE_APIS
from pallas_lsp.rules import analyse
from tests.analysis.program_cases import expected, found

HEAD = '''\
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def double_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def double(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def double_gpu(x):
    return pl.pallas_call(double_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=plgpu.InterpretGPUParams())(x)


X = jnp.ones((8, 128), jnp.float32)
'''
TAIL = '''

if __name__ == "__main__":
    main()
'''
CASES = {
    "grad_through_nested_helpers": '''
def inner(x):
    return double(x) * 3.0


def loss(x):
    return inner(x).sum()


def main():
    print(jax.grad(loss)(X)[0, :2])  # PAL508
''',
    "grad_of_jitted_lambda": '''
def main():
    print(jax.grad(jax.jit(lambda v: double(v).sum()))(X)[0, :2])  # PAL508
''',
    "two_launches_one_finding_at_the_transformation": '''
def loss(x):
    return double(x).sum() + double(x * 2.0).sum()


def main():
    print(jax.grad(loss)(X)[0, :2])  # PAL508
''',
    "custom_vjp_partial_ends_the_chain": '''
@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def scaled(x, k):
    return double(x) * k


def _fwd(x, k):
    return scaled(x, k), None


def _bwd(k, _, g):
    return (2.0 * k * g,)


scaled.defvjp(_fwd, _bwd)


def main():
    print(jax.grad(lambda v: scaled(v, 3.0).sum())(X)[0, :2])
''',
    "custom_jvp_ends_the_chain_for_jacfwd": '''
@jax.custom_jvp
def twice(x):
    return double(x)


twice.defjvp(lambda p, t: (twice(p[0]), 2.0 * t[0]))


def main():
    print(jax.jacfwd(lambda s: twice(X * s).sum())(1.0))
''',
    "stop_gradient_value_through_a_name": '''
def main():
    frozen = jax.lax.stop_gradient(X)
    print(jax.grad(lambda v: (double(frozen) * v).sum())(X)[0, :2])
''',
    "jvp_is_forward_mode": '''
def main():
    print(jax.jvp(double, (X,), (X,))[1][0, :2])
''',
    "jacfwd_of_a_helper": '''
def main():
    print(jax.jacfwd(lambda s: double(X * s).sum())(1.0))  # PAL509
''',
    "hessian_is_reverse_mode_inside": '''
def main():
    print(jax.hessian(lambda s: double(X * s).sum())(1.0))  # PAL508
''',
    "value_and_grad_with_aux": '''
def loss(x):
    y = double(x)
    return y.sum(), y


def main():
    (v, aux), g = jax.value_and_grad(loss, has_aux=True)(X)  # PAL508
    print(v, g[0, :2])
''',
    "vmap_of_the_generic_interpreter_runs": '''
@jax.vmap
def batched(x):
    return double(x)


def main():
    print(batched(jnp.ones((2, 8, 128), jnp.float32))[0, 0, :2])
''',
    "vmap_decorator_over_gpu_interpret": '''
@jax.vmap  # PAL502
def batched(x):
    return double_gpu(x)


def main():
    print(batched(jnp.ones((2, 8, 128), jnp.float32))[0, 0, :2])
''',
    "vmap_through_partial_over_gpu_interpret": '''
def main():
    batched = functools.partial(jax.vmap, in_axes=0)(double_gpu)  # PAL502
    print(batched(jnp.ones((2, 8, 128), jnp.float32))[0, 0, :2])
''',
    "gpu_interpret_grad_gets_the_jvp_error_first": '''
def main():
    print(jax.grad(lambda v: double_gpu(v).sum())(X)[0, :2])  # PAL501
''',
    "grad_of_an_argument_the_launch_does_not_see": '''
def loss(x, scale):
    return (double(x) * scale).sum()


def main():
    print(jax.grad(loss, argnums=1)(X, 2.0))
''',
    "grad_of_an_argument_that_flows_into_the_launch": '''
def loss(scale, x):
    y = x * scale
    return double(y).sum()


def main():
    print(jax.grad(loss)(2.0, X))  # PAL508
''',
    "a_closure_in_the_differentiated_function_reaches_the_launch": '''
def loss(x):
    def inner():
        return double(x)
    return inner().sum()


def main():
    print(jax.grad(loss)(X)[0, :2])  # PAL508
''',
    "launch_not_reached_by_the_grad": '''
def main():
    print(double(X)[0, :2])
    print(jax.grad(lambda v: (v * v).sum())(X)[0, :2])
''',
}


def program(name: str) -> str:
    return HEAD + CASES[name] + TAIL


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformations_reach_the_launches_jax_transforms(name):
    src = program(name)
    assert found(src) == expected(src)


def test_the_finding_points_at_the_transformation_and_shows_the_launch():
    src = program("grad_through_nested_helpers")
    (f,) = analyse(src, "/tmp/transforms.py").findings
    line = src.splitlines()[f.span.line - 1]
    assert line[f.span.col:].startswith("jax.grad(loss)")
    related = [r.message for r in f.related]
    assert "the launch is differentiated here (`jax.grad`)" in related
    assert "`jax.grad` cannot differentiate `pl.pallas_call` in reverse mode" in f.message


def test_a_fix_that_only_meets_the_next_error_is_not_offered():
    # interpret=True cures the GPU interpreter's JVP error under jax.jvp, not under jax.grad,
    # where pallas_call's reverse-mode error follows.
    under_grad = analyse(program("gpu_interpret_grad_gets_the_jvp_error_first"), "/tmp/t.py").findings
    under_jvp = analyse(HEAD + '''
def main():
    print(jax.jvp(double_gpu, (X,), (X,))[1][0, :2])
''' + TAIL, "/tmp/t.py").findings
    assert [f.code for f in under_grad] == ["PAL501"] and under_grad[0].fixes == ()
    assert [f.code for f in under_jvp] == ["PAL501"]
    assert [fix.title for fix in under_jvp[0].fixes] == ["Differentiate with the generic interpreter (interpret=True)"]


def test_reverse_mode_is_a_kind_of_differentiation():
    from pallas_lsp.analysis.module import Span
    kinds = {api: Transform(kind, api, None, Span(1, 0, 1, 1)) for api, kind in TRANSFORM_APIS.items()}
    assert {api for api, t in kinds.items() if t.matches(frozenset({"reverse"}))} == REVERSE_APIS
    assert {api for api, t in kinds.items() if t.matches(frozenset({"differentiate"}))} == set(TRANSFORM_APIS) - {
        "jax.vmap", "jax.shard_map", "jax.experimental.shard_map.shard_map"}
    assert {api for api, t in kinds.items() if t.matches(frozenset({"shard"}))} == {
        "jax.shard_map", "jax.experimental.shard_map.shard_map"}
    assert kinds["jax.jacfwd"].matches(frozenset({"jax.jacfwd"}))
    assert not kinds["jax.jvp"].matches(frozenset({"jax.jacfwd"}))


def test_records_may_name_exactly_the_transformations_the_analysis_knows():
    assert set(NAMEABLE_APIS) == set(TRANSFORM_APIS)


def test_a_transformation_in_another_module_reaches_the_launch_and_is_underlined_there(tmp_path):
    """``jax.vmap(double)`` in a script, ``double`` a GPU-interpreted pallas_call in a module it
    imports: JAX raises the batching rule's TypeError (found when both were in one file only)."""
    import io
    import json
    from contextlib import redirect_stdout

    from pallas_lsp.cli import main

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ws'\n")
    (tmp_path / "kern.py").write_text(
        "import jax\nfrom jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import mosaic_gpu as plgpu\n\n\n"
        "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * 2.0\n\n\n"
        "def double(x):\n    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
        "                          interpret=plgpu.InterpretGPUParams())(x)\n")
    (tmp_path / "use.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom kern import double\n\n\n"
        "def main():\n    print(jax.vmap(double)(jnp.ones((4, 128))))\n"
        "    print(jax.grad(lambda x: double(x).sum())(jnp.ones((128,))))\n")
    # A module that transforms its own function, not the launcher: nothing reaches the launch.
    (tmp_path / "other.py").write_text("import jax\nimport kern\n\n\ndef f(x):\n    return x\n\n\ng = jax.vmap(f)\n")

    def check(*paths):
        out = io.StringIO()
        with redirect_stdout(out):
            try:
                main(["check", "--no-cache", "--output-format", "json", *map(str, paths)])
            except SystemExit:
                pass
        return sorted((f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in json.loads(out.getvalue()))

    assert check(tmp_path) == [("use.py", 7, "PAL502"), ("use.py", 8, "PAL501")]
    assert check(tmp_path / "use.py") == [("use.py", 7, "PAL502"), ("use.py", 8, "PAL501")]  # (one file: the same)


def test_a_transformation_reaches_the_launch_through_modules_in_between(tmp_path):
    """``jax.grad(loss)`` in a training script, ``loss`` in a model module calling a layer that
    calls the GPU-interpreted kernel of a third module (run under jax 0.12: the jvp rule's
    TypeError). A model that stops the gradient before the layer is clean; a module naming
    the layer and ``grad`` but differentiating something else reaches nothing."""
    import io
    import json
    from contextlib import redirect_stdout

    from pallas_lsp.cli import main

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ws'\n")
    (tmp_path / "kern.py").write_text(
        "import jax\nfrom jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import mosaic_gpu as plgpu\n\n\n"
        "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * x_ref[...]\n\n\n"
        "def square(x):\n    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),\n"
        "                          interpret=plgpu.InterpretGPUParams())(x)\n")
    (tmp_path / "layers.py").write_text("from kern import square\n\n\ndef layer(x):\n    return square(x) + 1.0\n")
    (tmp_path / "model.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom layers import layer\n\n\n"
        "def loss(x):\n    return jnp.sum(layer(x))\n\n\n"
        "def frozen_loss(x):\n    return jnp.sum(layer(jax.lax.stop_gradient(x))) + jnp.sum(x)\n")
    (tmp_path / "train.py").write_text(
        "import jax\nimport jax.numpy as jnp\nfrom model import frozen_loss, loss\n\n\n"
        "def main():\n    x = jnp.ones((8, 128), jnp.float32)\n    print(jax.grad(frozen_loss)(x))\n"
        "    print(jax.grad(loss)(x))\n")
    (tmp_path / "other.py").write_text(
        "import jax\nfrom layers import layer\n\n\ndef f(x):\n    return x * 2\n\n\ng = jax.grad(f)\nh = layer\n")

    def check(*paths):
        out = io.StringIO()
        with redirect_stdout(out):
            try:
                main(["check", "--no-cache", "-j", "1", "--output-format", "json", *map(str, paths)])
            except SystemExit:
                pass
        return sorted((f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in json.loads(out.getvalue()))

    assert check(tmp_path) == [("train.py", 9, "PAL501")]
    assert check(tmp_path / "train.py") == [("train.py", 9, "PAL501")]  # (the script alone: the same)
    # The finding shows the way: the model's call of the layer, the layer's call of the kernel's function.
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            main(["check", "--no-cache", "-j", "1", "--output-format", "json", str(tmp_path / "train.py")])
        except SystemExit:
            pass
    (finding,) = json.loads(out.getvalue())
    steps = [(r["path"].rsplit("/", 1)[-1], r["line"], r["message"]) for r in finding["related"]
             if r["message"].startswith("on the way")]
    assert steps == [("model.py", 7, "on the way to the launch: `loss` calls `layer`"),
                     ("layers.py", 5, "on the way to the launch: `layer` calls `square`")]
