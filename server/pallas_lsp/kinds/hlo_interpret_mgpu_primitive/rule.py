"""PAL514: a Mosaic GPU primitive in a kernel run with ``interpret=True``."""
from __future__ import annotations

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal, Ext, TupleVal
from ...analysis.findings import Fix, TextEdit
from ...analysis.fixes import ensure_import
from ...analysis.rule_api import Hit
from ...rules.base import ApiInContextRule

# Measured under jax 0.12.0.1 with interpret=True (pl.kernel on a plgpu.Mesh and pl.pallas_call):
# primitives with Ref operands have no state-discharge rule, which runs before lowering; the
# others have no lowering rule for the cpu platform. The public function is named after its
# primitive.
DISCHARGE = ("copy_smem_to_gmem", "copy_gmem_to_smem", "barrier_wait", "barrier_arrive")
LOWERING = ("commit_smem", "wait_smem_to_gmem", "wgmma_wait", "set_max_registers")
_BARRIERS = {f"{api.PLGPU}.Barrier", f"{api.PLGPU}.ClusterBarrier"}


class MgpuPrimitiveInInterpretMode(ApiInContextRule):
    """A Mosaic GPU primitive cannot run with `interpret=True`.

    The generic interpreter (`interpret=True`) discharges the kernel's state effects and then
    lowers the kernel for the CPU. Mosaic GPU's DMA and barrier primitives take Refs and have
    no state-discharge rule (`copy_smem_to_gmem`, `copy_gmem_to_smem`, `barrier_wait`,
    `barrier_arrive`); the others have no CPU lowering (`commit_smem`, `wait_smem_to_gmem`,
    `wgmma_wait`, `set_max_registers`). Discharge runs first, so the first Ref-taking
    primitive is the one that fails, wherever it is in the body; a plgpu.Barrier in the
    scratch fails before any lowering. GPU interpret mode (`plgpu.InterpretGPUParams()`)
    runs them.
    """

    code = "PAL514"
    name = "hlo-interpret-mgpu-primitive"
    record = "hlo-interpret-mgpu-primitive"
    summary = "a Mosaic GPU primitive (plgpu.copy_*, barriers, commit_smem...) in a kernel run with interpret=True"
    apis = frozenset(f"{api.PLGPU}.{n}" for n in DISCHARGE + LOWERING)
    label = "plgpu"
    modes = frozenset({Mode.INTERPRET})

    def actual_error(self, hit: Hit) -> str | None:
        calls = _primitive_calls(hit)
        mine = hit.api.rsplit(".", 1)[1]
        first_discharge = next((c for c in calls if c[2] in DISCHARGE), None)
        if first_discharge is not None:
            if first_discharge[1] is not hit.call:
                return None
            return f"NotImplementedError: No state discharge rule implemented for primitive: {mine}"
        if calls and calls[0][1] is hit.call and not _barrier_scratch(hit):
            return f"NotImplementedError: MLIR translation rule for primitive '{mine}' not found for platform cpu"
        return None

    def headline(self, hit: Hit) -> str:
        return f"`plgpu.{hit.api.rsplit('.', 1)[1]}` cannot run with `interpret=True` (use GPU interpret params)"

    def offer_fixes(self, hit: Hit) -> list[Fix]:
        """``interpret=True`` written at the launch becomes the GPU interpreter's params."""
        ctx, launch = hit.context, hit.launch
        opt = launch.options.get("interpret")
        index = hit.ev.index
        if opt is None or ctx.forced or not ctx.from_launch_keyword or index.path_of(opt[1]) != index.path:
            return []
        node, scope, order = opt
        if hit.ev.const(node, scope, order) is not True:
            return []
        gpu, imp = ensure_import(index, api.PLGPU)
        edits = (TextEdit(index.span(node, scope), f"{gpu}.InterpretGPUParams()"),) + ((imp,) if imp else ())
        return [Fix(f"Interpret it with the GPU interpreter: interpret={gpu}.InterpretGPUParams()", edits,
                    preferred=True, safe=False)]


def _primitive_calls(hit: Hit) -> list[tuple[tuple[int, ...], object, str]]:
    """The kernel's Mosaic GPU primitive calls, in the order tracing meets them: (key, call
    site, name). A helper's calls come where the kernel calls the helper."""
    out = []
    wanted = {f"{api.PLGPU}.{n}": n for n in DISCHARGE + LOWERING}
    for r in hit.view.reached:
        ev = hit.ev.other(r.scope)
        prefix = tuple(hit.index.span(s.node, s.scope).line for s in r.chain if hasattr(s, "node"))
        for cs in r.scope.calls:
            name = ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs)))
            if name in wanted:
                out.append((prefix + (hit.index.span(cs.node, cs.scope).line,), cs, wanted[name]))
    out.sort(key=lambda c: c[0])
    return out


def _barrier_scratch(hit: Hit) -> bool:
    """The launch's scratch holds (or may hold) a plgpu.Barrier, which interpret=True cannot
    allocate: that error comes before lowering."""
    ev = hit.ev
    for key in ("scratch_shapes", "scratch_types"):
        opt = hit.launch.options.get(key)
        if opt is None:
            continue
        v = ev.value(*opt)
        if not isinstance(v, TupleVal):
            return True  # (cannot tell: stay quiet)
        for node, scope, order in v.items:
            item = ev.value(node, scope, order)
            name = (ev.called_api(item) if isinstance(item, CallVal)
                    else ev.ext_name(item) if isinstance(item, Ext) else None)
            if name is None or name in _BARRIERS:
                return True
    return False


__all__ = ["MgpuPrimitiveInInterpretMode"]
