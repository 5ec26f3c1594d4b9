"""analysis/sharding.py: which launches a jit spanning several devices reaches, read only from what
the code spells out (mesh sizes, axis types, specs), and where shard_map ends the walk. What JAX
does with each shape is in tests/data/sharding (labels.json); here, what the finder reads."""
from __future__ import annotations

import pytest

from pallas_lsp.analysis.sharding import ShardingFinder
from pallas_lsp.rules import analyse

HEAD = '''\
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.shard_map import shard_map
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def launch(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

'''


def reached(body: str) -> list[tuple[str, int, bool | None]]:
    got = analyse(HEAD + body, "case.py")
    whys = ShardingFinder(got.index, got.evaluator).reached(got.launches)
    return [(w.how, w.mesh.devices, w.mesh.auto) for launch in got.launches for w in whys.get(id(launch), [])]


@pytest.mark.parametrize("body, expected", [
    ('step = jax.jit(launch, in_shardings=NamedSharding(jax.make_mesh((2, 4), ("a", "b")), P("a")))\n',
     [("in_shardings", 8, False)]),
    ('MESH = Mesh(np.array(jax.devices()).reshape((4,)), ("a",))\n'
     'step = jax.jit(launch, out_shardings=[NamedSharding(MESH, P())])\n', [("out_shardings", 4, True)]),
    ('MESH = jax.make_mesh((2,), ("a",), axis_types=(AxisType.Explicit,))\n'
     '@jax.jit\ndef f(x):\n    return x\n'
     'def run():\n    with jax.set_mesh(MESH):\n        return jax.jit(launch)(jnp.zeros((8, 128)))\n',
     [("set_mesh", 2, False)]),
    ('def run(x):\n    mesh = jax.make_mesh((4,), ("a",), axis_types=(AxisType.Auto,))\n'
     '    y = jax.device_put(x, NamedSharding(mesh, P("a")))\n    return jax.jit(launch)(y)\n',
     [("device_put", 4, True)]),
], ids=["make_mesh_in_shardings", "reshaped_devices_out_shardings_list", "set_mesh_fresh_argument",
        "device_put_auto_mesh"])
def test_reads_the_mesh_the_code_spells_out(body, expected):
    assert reached(body) == expected


@pytest.mark.parametrize("body", [
    # the mesh's size is the host's device count, or a parameter
    'step = jax.jit(launch, in_shardings=NamedSharding(Mesh(np.array(jax.devices()), ("a",)), P("a")))\n',
    'def make(n):\n    return jax.jit(launch, in_shardings=NamedSharding(jax.make_mesh((n,), ("a",)), P()))\n',
    # one device
    'step = jax.jit(launch, in_shardings=NamedSharding(jax.make_mesh((1, 1), ("a", "b")), P("a")))\n',
    # an Explicit mesh, arguments the code does not make: their type may be sharded (another error)
    'def run(x):\n    with jax.set_mesh(jax.make_mesh((4,), ("a",))):\n        return jax.jit(launch)(x)\n',
    # device_put with a partitioned spec on an Explicit mesh: another error, while tracing
    'def run(x):\n    y = jax.device_put(x, NamedSharding(jax.make_mesh((4,), ("a",)), P("a")))\n'
    '    return jax.jit(launch)(y)\n',
    # shard_map between the jit and the launch: a call, a decorator, the launch handed to it built
    'MESH = jax.make_mesh((4,), ("a",))\n'
    'step = jax.jit(jax.shard_map(launch, mesh=MESH, in_specs=P("a"), out_specs=P("a")),\n'
    '               in_shardings=NamedSharding(MESH, P("a")))\n',
    'MESH = jax.make_mesh((4,), ("a",))\n'
    '@functools.partial(shard_map, mesh=MESH, in_specs=P(), out_specs=P(), check_rep=False)\n'
    'def local(x):\n    return launch(x)\n'
    'step = jax.jit(local, in_shardings=NamedSharding(MESH, P()))\n',
    'MESH = jax.make_mesh((4,), ("a",))\n'
    '@functools.partial(jax.jit, in_shardings=NamedSharding(MESH, P()))\n'
    'def step(x):\n'
    '    built = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))\n'
    '    return jax.shard_map(built, mesh=MESH, in_specs=P(), out_specs=P())(x)\n',
    # shard_map under another name, in a helper the jit calls
    'from jax.experimental.shard_map import shard_map as per_device\n'
    'MESH = jax.make_mesh((4,), ("a",))\n'
    'def local(x):\n    return launch(x) * 2\n'
    'def forward(x):\n    return per_device(local, mesh=MESH, in_specs=P(), out_specs=P(), check_rep=False)(x)\n'
    'step = jax.jit(forward, out_shardings=NamedSharding(MESH, P()))\n',
], ids=["devices_of_the_host", "size_from_a_parameter", "one_device", "explicit_set_mesh_unknown_argument",
        "device_put_explicit_partitioned", "shard_map_call", "shard_map_decorator", "built_launch_in_shard_map",
        "aliased_shard_map_in_a_helper"])
def test_quiet_where_the_code_does_not_say(body):
    assert reached(body) == []


def test_follows_helpers_between_the_jit_and_the_launch():
    body = ('MESH = jax.make_mesh((2, 2), ("a", "b"))\n'
            'def block(x):\n    return launch(x) + 1\n'
            'def layer(x):\n    return block(x) * 2\n'
            'step = jax.jit(layer, in_shardings=NamedSharding(MESH, P()))\n')
    assert reached(body) == [("in_shardings", 4, False)]
