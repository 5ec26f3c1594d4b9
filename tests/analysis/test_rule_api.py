"""The one rule API: rules are dispatched by the APIs they name (a rule never sees a call it does
not name), one Hit in and one Report out, for calls, decorated functions, methods and launches."""
from __future__ import annotations

from pallas_lsp.analysis import Engine, Hit, Report, Rule, RuleSet
from pallas_lsp.analysis.contexts import Mode
from pallas_lsp.analysis.rule_api import ConstructKind

TEXT = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.numpy import cumsum as running_total


@plgpu.inline_mgpu(arg_types=(plgpu.RefType(),))
def fence(ctx, ref):
    del ctx, ref


def helper(v):
    return running_total(v)


def kernel(x_ref, o_ref):
    x = x_ref[...]
    y = jnp.cumsum(x) + helper(x) + x.cumsum()
    fence(o_ref)
    o_ref[...] = jnp.exp(y)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
'''


class Recording(Rule):
    modes = frozenset({Mode.INTERPRET})

    def __init__(self, code: str, apis: set[str], construct: ConstructKind = "call") -> None:
        self.code, self.name, self.record = code, f"rec-{code.lower()}", "rec"
        self.apis, self.construct = frozenset(apis), construct
        self.seen: list[tuple[str, int]] = []

    def check(self, hit: Hit) -> Report | None:
        self.seen.append((hit.api, hit.span.line))
        return Report("NotImplementedError: recorded", f"`{hit.api}` seen") if hit.kind == "call" else None


def test_rules_see_only_the_calls_they_name():
    cumsum = Recording("TST001", {"jax.numpy.cumsum"})
    method = Recording("TST002", {".cumsum"})
    decorated = Recording("TST003", {"@jax.experimental.pallas.mosaic_gpu.inline_mgpu"})
    launch = Recording("TST004", {"jax.experimental.pallas.pallas_call"}, construct="launch")
    unused = Recording("TST005", {"jax.numpy.sort"})
    result = Engine(RuleSet([cumsum, method, decorated, launch, unused])).analyse(TEXT, "/tmp/api.py")
    # Any spelling of the API (an alias, a helper one call below the kernel).
    assert sorted(cumsum.seen) == [("jax.numpy.cumsum", 14), ("jax.numpy.cumsum", 19)]
    assert method.seen == [(".cumsum", 19)]
    assert decorated.seen == [("@jax.experimental.pallas.mosaic_gpu.inline_mgpu", 20)]
    assert launch.seen == [("jax.experimental.pallas.pallas_call", 25)]
    assert unused.seen == []  # never called: no call of jnp.sort is reached
    assert {(f.code, f.span.line) for f in result.findings} == {
        ("TST001", 14), ("TST001", 19), ("TST002", 19), ("TST003", 20)}


def test_dispatch_does_not_grow_with_rules_that_name_other_apis():
    calls = Recording("TST001", {"jax.numpy.exp"})
    padding = [Recording(f"TST{100 + i}", {f"jax.numpy.not_called_{i}"}) for i in range(50)]
    Engine(RuleSet([calls, *padding])).analyse(TEXT, "/tmp/api.py")
    assert calls.seen == [("jax.numpy.exp", 21)]
    assert all(r.seen == [] for r in padding)


def test_a_rule_set_refuses_duplicate_codes():
    import pytest

    with pytest.raises(ValueError):
        RuleSet([Recording("TST001", {"a.b"}), Recording("TST001", {"c.d"})])
