"""Under real JAX: what the what-if predicts for a compiled kernel debugged on a CPU is what JAX
raises when it is launched in that interpret mode, and "Debug on CPU" gives a program that runs."""
from __future__ import annotations

import pytest

from pallas_lsp.rules import default_engine
from pallas_lsp.what_if import blockers, debug_on_cpu
from tests.lsp.test_what_if import KERNEL

from .conftest import Program

pytestmark = pytest.mark.oracle

PROGRAM = KERNEL + '''

if __name__ == "__main__":
    print(run(jnp.ones((128,), jnp.float32))[:4])
'''
LAUNCH = 18  # 1-based line of the plgpu.kernel launch in run()


def test_the_what_if_and_the_rewrite_agree_with_jax(oracle):
    engine = default_engine()
    (launch,) = [found for found in engine.analyse(PROGRAM, "/tmp/w.py").launches if found.line == LAUNCH]
    (blocker,) = blockers(engine.analyse(PROGRAM, "/tmp/w.py", assume_interpret="gpu"), launch)
    # Launched as the what-if assumes (default GPU interpret params), JAX raises what it predicts.
    assumed = PROGRAM.replace("out_type=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)",
                              "out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),"
                              " interpret=plgpu.InterpretGPUParams())(x)")
    got = oracle.result(Program("assumed.py", assumed))
    assert (got.outcome, f"{got.error_class}: {got.first_line}") == ("raises", blocker.actual_error), got.describe()
    assert blocker.span.line in got.traceback_lines
    rewrite = debug_on_cpu(engine, PROGRAM, "/tmp/w.py", LAUNCH, "gpu")
    assert rewrite.text is not None, rewrite.left
    ran = oracle.result(Program("debug_on_cpu.py", rewrite.text))
    assert ran.outcome == "clean", ran.describe()


def test_a_returning_inline_mgpu_what_if_names_what_ignore_mode_raises(oracle):
    from tests.analysis.test_assume_interpret import COUNT_CALL_LINE, RETURNING

    engine = default_engine()
    compiled = RETURNING.format(value="lane_count(x_ref)", interpret="") + MAIN
    (launch,) = engine.analyse(compiled, "/tmp/r.py").launches
    (blocker,) = blockers(engine.analyse(compiled, "/tmp/r.py", assume_interpret="gpu"), launch)
    assert blocker.span.line == COUNT_CALL_LINE
    ignore = RETURNING.format(value="lane_count(x_ref)",
                              interpret=', interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")') + MAIN
    got = oracle.result(Program("returning_ignore.py", ignore))
    assert (got.outcome, f"{got.error_class}: {got.first_line}") == ("raises", blocker.actual_error), got.describe()
    # Nothing the rewrite can add makes it run: no "Debug on CPU".
    assert debug_on_cpu(engine, compiled, "/tmp/r.py", launch.line, "gpu").text is None


MAIN = '''

if __name__ == "__main__":
    print(weigh_all(jnp.ones((128,), jnp.float32))[:4])
'''
