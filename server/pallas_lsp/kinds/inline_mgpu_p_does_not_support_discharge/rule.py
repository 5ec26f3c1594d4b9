"""PAL003: a call of a ``plgpu.inline_mgpu`` function reached from an interpreted kernel."""
from __future__ import annotations

from dataclasses import replace

from ...analysis import api
from ...analysis.contexts import Mode
from ...analysis.evaluate import CallVal, TupleVal
from ...analysis.findings import Fix, Related, TextEdit
from ...analysis.fixes import add_kwarg, ensure_import, local_name_for, run_compiled_fix
from ...analysis.reach import is_inline_mgpu
from ...analysis.rule_api import Report
from ...rules.base import ApiInContextRule

DISCHARGE = "NotImplementedError: inline_mgpu_p does not support discharge."
NO_CPU_RULE = "NotImplementedError: MLIR translation rule for primitive 'inline_mgpu' not found for platform cpu"
GPU_ERROR = ("ValueError: GPU interpret mode does not support `inline_mgpu`. "
             "Pass `inline_mgpu='ignore'` to skip MGPU calls.")
GPU_RETURN = ("ValueError: GPU interpret mode does not support `inline_mgpu` with a return value "
              "even in `ignore` mode.")
GMEM_KEY_ERROR = "KeyError: <MemorySpace.GMEM: 'gmem'> (the TPU interpreter cannot run a Mosaic GPU kernel)"


GPU_ERROR_RECORD = "gpu-interpret-inline-mgpu"
GPU_RETURN_RECORD = "gpu-interpret-inline-mgpu-return-value"
GPU_BAD_MODE_RECORD = "gpu-interpret-inline-mgpu-bad-mode"
PRIVATE_TOKAMAX_MODE = "_hack_model_inline_mgpu_tokamax"


def _params_value_node(hit):
    """The ``inline_mgpu=`` argument of the GPU interpret params, when they are built in the
    module of the call (``InterpretGPUParams(inline_mgpu=...)``): (node, scope), else None."""
    site = hit.params_call()
    if site is None or hit.index.path_of(site.scope) != hit.index.path_of(hit.site.scope):
        return None
    node = hit.ev.kwarg(site, "inline_mgpu")
    return (node, site.scope) if node is not None else None


def _factory(hit) -> CallVal | None:
    return is_inline_mgpu(hit.ev, hit.callee)


def _inline_mgpu_mode(hit, factory: CallVal) -> str | None:
    """The ``inline_mgpu`` mode the GPU interpreter meets this call in: the params' own. A
    what-if (``--assume-interpret gpu``, the lens) writes no params: it assumes the default
    ones, which "Debug on CPU" turns to ``"ignore"`` where that is the fix; a call that returns
    a value fails there too, with the error of ``"ignore"``, so that is the mode it is judged in
    (the same record and error a launch written that way gets)."""
    ctx = hit.context
    if ctx.assumed and ctx.params_site is None and _returns_value(hit, factory):
        return "ignore"
    return ctx.inline_mgpu


def _has_ref_args(hit, factory: CallVal) -> bool:
    ev = hit.ev
    node = ev.kwarg(factory.site, "arg_types")
    if node is None:
        return False
    v = ev.value(node, factory.site.scope, factory.order)
    if not isinstance(v, TupleVal):
        return True  # cannot tell: the common case has Ref arguments
    for n, s, o in v.items:
        item = ev.value(n, s, o)
        name = ev.called_api(item) or ev.ext_name(item)
        if name in (f"{api.PLGPU}.RefType",) or name is None:
            return True
    return False


def _returns_value(hit, factory: CallVal) -> bool | None:
    node = hit.ev.kwarg(factory.site, "return_type")
    if node is None:
        return False
    c = hit.ev.const(node, factory.site.scope, factory.order)
    if c is None:
        return False
    return True


def _gpu_interpreter_fix(hit, factory: CallVal | None) -> Fix | None:
    """Under TPU interpret params, a kernel that calls ``inline_mgpu`` is a Mosaic GPU kernel:
    the interpreter that runs it is the GPU one, skipping the call (``inline_mgpu="ignore"``;
    JAX 0.12 runs pallas_call, pl.kernel and plgpu.kernel that way, unless the call returns a
    value, which fails even then). What is replaced is what chose the TPU interpreter, written
    in this module: the launch's ``pltpu.InterpretParams(...)``, or the whole
    ``pltpu.force_tpu_interpret_mode(...)`` / ``set_tpu_interpret_mode(...)`` call (the
    params it is handed may be shared, and TPU params in a GPU setter would not do)."""
    ctx = hit.context
    if ctx.mode == Mode.INTERPRET:
        return _gpu_interpreter_for_interpret_true(hit, factory)
    if ctx.mode != Mode.TPU_INTERPRET or factory is None or _returns_value(hit, factory):
        return None
    index, ev = hit.ev.index, hit.ev
    gpu, imp = ensure_import(index, api.PLGPU)
    params = f'{gpu}.InterpretGPUParams(inline_mgpu="ignore")'
    if ctx.forced:
        found = _tpu_setter(hit)
        if found is None:
            return None
        setter, called = found
        verb = "force" if called == api.FORCE_TPU_INTERPRET else "set"
        target, new = setter, f"{gpu}.{verb}_gpu_interpret_mode({params})"
    else:
        site = ctx.params_site
        if site is None or index.path_of(site.scope) != index.path:
            return None  # the params are built in another module: the edit would land in the wrong file
        if ev.ext_name(ev.value(site.node.func, site.scope, ev.order_of(site))) != api.TPU_INTERPRET_PARAMS:
            return None
        target, new = site, params
    title = f"Interpret it as a Mosaic GPU kernel: {new} (the inline_mgpu call is skipped)"
    edits = (TextEdit(index.span(target.node, target.scope), new),) + ((imp,) if imp is not None else ())
    # Safe: the kernel is still interpreted on this host (by the interpreter that can run it).
    return Fix(title, edits, preferred=True, safe=True)


def _tpu_setter(hit):
    """The ``pltpu.force_tpu_interpret_mode(...)`` or ``pltpu.set_tpu_interpret_mode(...)`` call
    in this module that puts the launch in TPU interpret mode, and which of the two it is; the
    context names it among its evidence (the launch may be reached through callers)."""
    index, ev = hit.ev.index, hit.ev
    spans = {e.span for e in hit.context.evidence if e.path in (None, index.path)}
    for cs in index.calls_to({"force_tpu_interpret_mode", "set_tpu_interpret_mode"}):
        if index.path_of(cs.scope) != index.path or index.span(cs.node, cs.scope) not in spans:
            continue
        called = ev.ext_name(ev.value(cs.node.func, cs.scope, ev.order_of(cs)))
        if called in (api.FORCE_TPU_INTERPRET, api.SET_TPU_INTERPRET):
            return cs, called
    return None


def _gpu_interpreter_for_interpret_true(hit, factory: CallVal | None) -> Fix | None:
    """``interpret=True`` written at a ``pl.pallas_call`` or ``plgpu.kernel`` whose kernel calls
    an inline_mgpu function (returning nothing) becomes the GPU interpreter skipping the call."""
    ctx, launch = hit.context, hit.launch
    if factory is None or _returns_value(hit, factory) or not ctx.from_launch_keyword or ctx.forced \
            or launch.api.name not in (api.PALLAS_CALL, api.PLGPU_KERNEL):
        return None
    opt = launch.options.get("interpret")
    index = hit.ev.index
    if opt is None or index.path_of(opt[1]) != index.path_of(hit.site.scope):
        return None
    node, scope, _ = opt
    if hit.ev.const(node, scope, opt[2]) is not True:
        return None
    gpu, imp = ensure_import(index, api.PLGPU)
    params = f'{gpu}.InterpretGPUParams(inline_mgpu="ignore")'
    edits = (TextEdit(index.span(node, scope), params),) + ((imp,) if imp is not None else ())
    return Fix(f"Interpret it as a Mosaic GPU kernel: interpret={params} (the inline_mgpu call is skipped)",
               edits, preferred=True, safe=True)


class InlineMgpuInInterpretMode(ApiInContextRule):
    """A `plgpu.inline_mgpu` function cannot run in interpret mode.

    `inline_mgpu` emits raw Mosaic GPU (MLIR) code inside a kernel; the
    interpreters cannot execute it. Only *calling* the decorated function binds the
    primitive — defining it does nothing — so the finding is on the call.

    * `interpret=True`: the interpreter discharges the kernel's state and fails
      with `inline_mgpu_p does not support discharge.`; if the function takes no
      Ref arguments nothing is discharged and lowering for the CPU fails instead.
    * TPU `InterpretParams`: there is no CPU lowering for the primitive
      (`pl.pallas_call`); `plgpu.kernel`, `pl.kernel` and `core_map` fail earlier
      with a GMEM `KeyError`. A kernel that calls `inline_mgpu` is a Mosaic GPU
      kernel: the GPU interpreter with `inline_mgpu="ignore"` runs it (the quick fix).
    * GPU `InterpretGPUParams`: JAX raises its own `ValueError`, unless the params
      say `inline_mgpu="ignore"` and the function returns nothing, in which case the
      call is skipped.
    """

    code = "PAL003"
    name = "inline-mgpu-interpret"
    record = "inline-mgpu-p-does-not-support-discharge"
    summary = "a plgpu.inline_mgpu function called from a kernel launched in an interpret mode"
    apis = frozenset({"@" + api.INLINE_MGPU})  # calls of functions it made
    label = "plgpu.inline_mgpu"
    modes = frozenset({Mode.INTERPRET, Mode.TPU_INTERPRET, Mode.GPU_INTERPRET})

    def matches(self, hit) -> bool:
        return _factory(hit) is not None

    def actual_error(self, hit) -> str | None:
        factory = _factory(hit)
        assert factory is not None
        mode = hit.context.mode
        if mode == Mode.INTERPRET:
            return DISCHARGE if _has_ref_args(hit, factory) else NO_CPU_RULE
        if mode == Mode.TPU_INTERPRET:
            return NO_CPU_RULE if hit.launch.api.name == api.PALLAS_CALL else GMEM_KEY_ERROR
        setting = _inline_mgpu_mode(hit, factory)
        if setting is None:
            return None  # the params' inline_mgpu value is not known: stay quiet
        if setting == "ignore":
            return GPU_RETURN if _returns_value(hit, factory) else None
        if setting == "error":
            return GPU_ERROR
        if setting == PRIVATE_TOKAMAX_MODE:
            return None  # a private mode the interpreter models (tokamax's stand-ins)
        return f"ValueError: GPU interpret mode does not support `inline_mgpu` param with value {setting}."

    def check(self, hit) -> Report | None:
        """The error JAX raises here, under the record of that error: the GPU interpreter's own
        three messages have their own records; a bad ``inline_mgpu=`` value is underlined where
        the params say it (one finding however many calls reach it)."""
        report = super().check(hit)
        if report is None or hit.context.mode != Mode.GPU_INTERPRET:
            return report
        factory = _factory(hit)
        assert factory is not None
        setting = _inline_mgpu_mode(hit, factory)
        if setting == "error":
            return replace(report, record=GPU_ERROR_RECORD)
        if setting == "ignore":
            return replace(report, record=GPU_RETURN_RECORD)
        value = _params_value_node(hit)
        if value is None:
            return replace(report, record=GPU_BAD_MODE_RECORD)
        node, scope = value
        call = Related(hit.span, "the inline_mgpu call that reaches it")
        return replace(report, record=GPU_BAD_MODE_RECORD, span=hit.index.span(node, scope), key=id(node),
                       headline=f"`inline_mgpu={hit.index.code_of(node, scope)}` is not a mode the GPU interpreter "
                                f"knows (\"error\" or \"ignore\"), and `{hit.code_of(hit.site.node.func)}` is a "
                                "`plgpu.inline_mgpu` function",
                       related=(call,) + report.related)

    def headline(self, hit) -> str:
        name = hit.ev.index.code_of(hit.call.node.func, hit.call.scope)
        return f"`{name}` is a `plgpu.inline_mgpu` function and cannot run in {hit.context.words}"

    def offer_fixes(self, hit) -> list:
        out = []
        factory = _factory(hit)
        ctx = hit.context
        site = ctx.params_site
        if ctx.mode == Mode.GPU_INTERPRET and ctx.inline_mgpu not in (None, "ignore", PRIVATE_TOKAMAX_MODE) \
                and factory is not None \
                and not _returns_value(hit, factory) and site is not None:
            index = hit.ev.index
            called = hit.ev.ext_name(hit.ev.value(site.node.func, site.scope, hit.ev.order_of(site)))
            edit = None
            if called == api.GPU_INTERPRET_PARAMS:
                edit = add_kwarg(index, site.node, site.scope, "inline_mgpu", '"ignore"')
            elif called == api.FORCE_GPU_INTERPRET and not site.node.args:
                cls = local_name_for(index, api.GPU_INTERPRET_PARAMS)
                if cls is not None:
                    sp = index.span(site.node, site.scope)
                    from ...analysis.findings import TextEdit
                    from ...analysis.module import Span

                    edit = TextEdit(Span(sp.end_line, sp.end_col - 1, sp.end_line, sp.end_col - 1),
                                    f'{cls}(inline_mgpu="ignore")')
            if edit is not None:
                out.append(Fix('Add inline_mgpu="ignore" to the GPU interpret params (the call is skipped '
                               'while interpreting)', (edit,), preferred=True, safe=True))
        tpu = _gpu_interpreter_fix(hit, factory)
        if tpu is not None:
            out.append(tpu)
        rc = run_compiled_fix(hit.ev.index, hit.launch, ctx)
        if rc is not None:
            out.append(rc)
        return out

    def related(self, hit) -> list:
        factory = _factory(hit)
        if factory is None:
            return []
        index = hit.ev.index
        return [Related(index.span(factory.site.node, factory.site.scope), "decorated with plgpu.inline_mgpu here",
                        index.path_of(factory.site.scope))]
