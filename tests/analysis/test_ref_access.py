"""The Ref accesses of a kernel body (analysis/ref_access.py): which kernel Ref each read, write
and DMA operand is (through helpers, names and ``.at[...]`` views), the index the TPU lowering
reads, and what the code shows of the traced lane starts. Unknown stays None, never a guess."""
from __future__ import annotations

import ast

from pallas_lsp.analysis.evaluate import Evaluator
from pallas_lsp.analysis.launches import LaunchFinder
from pallas_lsp.analysis.module import ModuleIndex
from pallas_lsp.analysis.reach import reach
from pallas_lsp.analysis.ref_access import access_defects, ref_accesses

HEAD = """import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
"""


def accesses_of(body: str):
    index = ModuleIndex(HEAD + body, "/tmp/ref_access_case.py")
    ev = Evaluator(index)
    finder = LaunchFinder(index, ev)
    launches = [launch for item in finder.items() if (launch := finder.launch_of(item)) is not None]
    assert len(launches) == 1
    return ref_accesses(ev, launches[0], reach(ev, launches[0].kernels))


def summary(acc) -> list[tuple[str, str, int, str]]:
    return [(a.kind, a.param, a.node.lineno, "|".join(e.kind for e in a.indexer or ())) for a in acc]


HELPER_AND_VIEW = """
def _rows(ref, start):
    return ref[pl.ds(start, 8), :]


def kernel(x_ref, o_ref, buf, sem):
    half = x_ref.at[0:8]
    o_ref[...] = _rows(half, 0)
    pltpu.make_async_copy(buf, o_ref.at[pl.ds(0, 8, stride=2)], sem).start()


def run():
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(())],
    )(jnp.zeros((16, 128), jnp.float32))
"""


def test_helpers_names_and_views_lead_back_to_the_kernel_parameter() -> None:
    acc = accesses_of(HELPER_AND_VIEW)
    got = {(a.kind, a.param): a for a in acc}
    read = got[("load", "x_ref")]  # ref[pl.ds(start, 8), :] in _rows, on the view half = x_ref.at[0:8]
    assert [e.kind for e in read.indexer] == ["ds", "slice"]
    assert [[e.kind for e in v] for v in read.views] == [["slice"]]
    dma = got[("dma", "o_ref")]
    assert [(e.kind, e.stride) for e in dma.views[0]] == [("ds", 2)]
    assert ("dma", "buf") in got and got[("dma", "buf")].fact.space == "VMEM"
    assert got[("store", "o_ref")].indexer == ()  # o_ref[...] = v: the whole Ref


WHOLE_VIEW = """
def kernel(x_ref, o_ref):
    odd = x_ref.at[pl.ds(1, 8, stride=2)]
    o_ref[...] = odd[...]


def run():
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32))(jnp.zeros((16, 128)))
"""


def test_a_view_read_whole_is_the_indexer_and_leaves_no_view_before_it() -> None:
    # JAX folds view[...] into the view (state.primitives.get_ref_and_transforms).
    (read,) = [a for a in accesses_of(WHOLE_VIEW) if a.param == "x_ref"]
    assert [(e.kind, e.stride) for e in read.indexer] == [("ds", 2)] and read.views == ()
    assert access_defects(accesses_of(WHOLE_VIEW)) == []


STARTS = """
def kernel(x_ref, o_ref):
    i = pl.program_id(0)
    def body(j, acc):
        return acc + x_ref[:, pl.ds(j * 128, 128)]
    a = x_ref[:, pl.ds(i * 64, 128)]
    b = x_ref[:, pl.ds(i << 7, 128)]
    c = x_ref[:, pl.ds(pl.multiple_of(i << 7, 128), 128)]
    d = x_ref[:, pl.ds(i * 256 + 128, 128)]
    e = x_ref[:, pl.ds(unknown_helper(i), 128)]
    o_ref[...] = lax.fori_loop(0, 2, body, a + b + c + d + e)


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), grid=(2,),
                          in_specs=[pl.BlockSpec((8, 1024), lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((8, 128), lambda i: (0, 0)))(x)
"""


def test_lane_starts_mirror_mosaics_divisibility_proof() -> None:
    acc = accesses_of(STARTS)
    starts = {ast.unparse(a.indexer[1].start): a for a in acc if a.param == "x_ref"}
    proved = {s: acc.mosaic_proves_multiple(a.indexer[1].start, a.scope, a.frames, 128) for s, a in starts.items()}
    assert proved == {"j * 128": True, "i * 64": False, "i << 7": False,
                      "pl.multiple_of(i << 7, 128)": True, "i * 256 + 128": True, "unknown_helper(i)": None}
    shown = {s: acc.divisor(a.indexer[1].start, a.scope, a.frames) for s, a in starts.items()}
    assert shown["i << 7"] == 128 and shown["i * 64"] == 64
    kinds = {s: acc.scalar_kind(a.indexer[1].start, a.scope, a.frames) for s, a in starts.items()}
    assert kinds["j * 128"] == "traced" and kinds["unknown_helper(i)"] is None
    flagged = sorted(ast.unparse(d.node) for d in access_defects(acc))
    assert flagged == ["i * 64", "i << 7"]
    assert [ast.unparse(d.start) for d in access_defects(acc) if d.start is not None] == ["i << 7"]


UNREAD_SPACE = """
def space_here():
    return None


def kernel(x_ref, o_ref):
    o_ref[0, 0] = x_ref[0, 0]


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=space_here())],
                          out_specs=pl.BlockSpec(memory_space=space_here()))(x)
"""


def test_a_memory_space_that_is_written_but_not_read_is_not_the_default() -> None:
    acc = accesses_of(UNREAD_SPACE)
    assert [acc.space(a.fact) for a in acc] == [None, None]
    assert access_defects(acc) == []
    # Without the memory_space keyword the blocks are VMEM, and the scalar store is refused.
    plain = accesses_of(UNREAD_SPACE.replace("memory_space=space_here()", ""))
    assert [d.kind for d in access_defects(plain)] == ["tpu-scalar-store-vmem"]


PYTREE_PREFETCH = """
def kernel(meta, x_ref, o_ref):
    offsets, ids = meta[:2]
    o_ref[...] = x_ref[...] * offsets[ids[0]]


def run(meta, x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
                          grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,)))(meta, x)
"""


def test_a_parameter_that_may_hold_a_pytree_of_refs_is_not_read_as_one_ref() -> None:
    assert [a for a in accesses_of(PYTREE_PREFETCH) if a.param == "meta"] == []
