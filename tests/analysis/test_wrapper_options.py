"""What a wrapper adds to the launch it builds: keywords it sets on the ``**kwargs`` it forwards,
and names bound by an optional import (jax's own Triton test base class does both)."""
from __future__ import annotations

from pallas_lsp.rules import analyse

BASE = '''
import sys
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

if sys.platform != "win32":
  from jax.experimental.pallas import triton as plgpu
else:
  plgpu = None


class TritonTest:
  INTERPRET = False

  def pallas_call(self, *args, **kwargs):
    kwargs.setdefault("compiler_params", plgpu.CompilerParams())
    return pl.pallas_call(*args, **kwargs, interpret=self.INTERPRET)

  def test_scalar_out(self):
    @functools.partial(self.pallas_call, out_shape=jax.ShapeDtypeStruct((), jnp.float32))
    def kernel(x_ref, o_ref):
      o_ref[...] = jnp.sum(x_ref[...])

    kernel(jnp.ones((8, 128), jnp.float32))
'''


def modes(text: str, **kw) -> list[str]:
    result = analyse(text, "/tmp/wrapper.py", **kw)
    return [c.mode.value for launch in result.launches for c in launch.contexts]


def test_a_keyword_the_wrapper_sets_on_forwarded_kwargs_decides_the_backend():
    # (so the `backends` setting does not make this Triton launch a TPU one: no PAL645 for its
    # 0-d output, which only a TPU refuses)
    assert modes(BASE, backends=("tpu",)) == ["triton"]
    assert not [f for f in analyse(BASE, "/tmp/wrapper.py", backends=("tpu",)).findings if f.code == "PAL645"]


def test_a_callers_own_keyword_wins_over_the_wrappers_setdefault():
    text = BASE.replace("out_shape=jax.ShapeDtypeStruct((), jnp.float32))",
                        "out_shape=jax.ShapeDtypeStruct((), jnp.float32),\n"
                        "                       compiler_params=pltpu.CompilerParams())").replace(
        "from jax.experimental import pallas as pl\n",
        "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n")
    assert modes(text) == ["tpu"]


def test_an_item_assignment_is_read_like_setdefault_and_a_plain_none_is_not_an_import():
    forced = BASE.replace('kwargs.setdefault("compiler_params", plgpu.CompilerParams())',
                          'kwargs["compiler_params"] = plgpu.CompilerParams()')
    assert modes(forced, backends=("tpu",)) == ["triton"]
    # Without the import, `plgpu` is only None: the params are not known, the setting decides.
    none_only = BASE.replace('  from jax.experimental.pallas import triton as plgpu', '  plgpu = None')
    assert modes(none_only, backends=("tpu",)) == ["tpu"]
