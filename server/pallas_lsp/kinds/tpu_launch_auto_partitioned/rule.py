"""PAL500: a compiled TPU launch run by a jax.jit that spans several devices, with no shard_map
between them (the Mosaic custom call cannot be partitioned automatically)."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.findings import Related
from ...analysis.rule_api import Hit, Report
from ...analysis.sharding import ShardingFinder
from ...rules.base import PythonRule
from ...rules.tpu_block_rule import lowered_by_mosaic_tpu

ERROR = ("NotImplementedError: Mosaic kernels cannot be automatically partitioned. "
         "Please wrap the call in a shard_map.")


class TpuLaunchAutoPartitioned(PythonRule):
    """A Mosaic TPU kernel inside a jit on several devices, with no shard_map around it.

    A compiled TPU `pl.pallas_call` is one Mosaic custom call, which XLA's automatic
    partitioner cannot split. When the jit that runs it spans more than one device (a
    `NamedSharding` of a mesh of several devices in `in_shardings=`/`out_shardings=`, arguments
    `jax.device_put` to one, or a call under `with jax.set_mesh(mesh)`), lowering raises
    before libtpu sees the kernel; the mesh's size decides, even a replicated `P()` raises.
    Call the kernel inside `jax.shard_map` (manual over every mesh axis, `check_vma=False`
    or an out_shape that says how the output varies), so it runs per device on local blocks.
    """

    code = "PAL500"
    name = "tpu-launch-auto-partitioned"
    record = "tpu-launch-auto-partitioned"
    summary = "a compiled TPU pl.pallas_call inside a jax.jit on several devices without jax.shard_map"
    label = "pl.pallas_call"
    construct = "launch"
    apis = frozenset({api.PALLAS_CALL})
    launch_apis = frozenset({api.PALLAS_CALL})
    modes = frozenset({Mode.TPU})  # (interpret mode lowers no Mosaic custom call)

    def applies(self, hit: Hit) -> bool:
        return super().applies(hit) and lowered_by_mosaic_tpu(hit)

    def check(self, hit: Hit) -> Report | None:
        finder = ShardingFinder(hit.index, hit.ev)
        if not finder.applies():
            return None
        whys = finder.reached(hit.view.all_launches or [hit.launch]).get(id(hit.launch))
        if not whys:
            return None
        why = whys[0]
        related = [Related(why.span, why.words)]
        if why.mesh.span.line != why.span.line:
            related.append(Related(why.mesh.span, f"the mesh: {why.mesh.devices} devices"))
        headline = (f"`pl.pallas_call` is compiled for TPU inside a jit on {why.mesh.devices} devices with no "
                    f"`jax.shard_map` around it: {why.words}, and the Mosaic kernel cannot be partitioned "
                    "automatically")
        return Report(ERROR, headline, span=hit.launch.anchor, related=tuple(related), fixable=False,
                      instead="call it inside `jax.shard_map` (manual over every mesh axis, `check_vma=False`)")
