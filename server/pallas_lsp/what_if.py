"""Interpret-readiness: what breaks if a compiled kernel is debugged on a CPU, and the rewrite that
makes it run there. Pure functions of an engine and a text (the language server's lens and
code action, and ``check --assume-interpret``, present them)."""
from __future__ import annotations

from dataclasses import dataclass

from .analysis.contexts import Mode
from .analysis.engine import AnalysisResult, Engine
from .analysis.findings import Finding
from .analysis.launches import Launch

# The interpreter that fits a compiled kernel: GPU params for Mosaic GPU kernels, TPU params for
# TPU kernels, interpret=True for Triton ones (it has no interpreter of its own), both interpreter
# params when the backend is not known.
FITTING: dict[Mode, tuple[str, ...]] = {
    Mode.MOSAIC_GPU: ("gpu",), Mode.TPU: ("tpu",), Mode.TRITON: ("true",), Mode.COMPILED: ("gpu", "tpu"),
}
MODE_LABEL = {"gpu": "GPU interpret", "tpu": "TPU interpret", "true": "interpret=True"}
MAX_PASSES = 4


def fitting_modes(launch: Launch) -> tuple[str, ...]:
    """The interpret modes to try a compiled launch in (none for a launch already interpreted,
    or whose mode is not known)."""
    if not launch.contexts or any(c.mode.is_interpret or c.mode == Mode.UNKNOWN for c in launch.contexts):
        return ()
    out: list[str] = []
    for c in launch.contexts:
        for m in FITTING.get(c.mode, ()):
            if m not in out:
                out.append(m)
    return tuple(out)


# The other way round (``--assume-compiled tpu``): an interpreted launch meant for a TPU, and
# what the chip would reject once it is compiled. Its key among the what-if analyses.
COMPILED_TPU = "compiled:tpu"
_TPU_API = "jax.experimental.pallas.tpu"


def compiled_modes(launch: Launch, text: str, backends: tuple[str, ...] = ()) -> tuple[str, ...]:
    """``(COMPILED_TPU,)`` for an interpreted launch meant for a TPU (TPU interpret params, or
    ``interpret=True`` in a module that imports Pallas's TPU API or ships to TPUs by the
    ``backends`` setting); () otherwise (compiled already, or meant for a GPU)."""
    modes = {c.mode for c in launch.contexts}
    if not modes or not modes <= {Mode.INTERPRET, Mode.TPU_INTERPRET}:
        return ()
    if Mode.TPU_INTERPRET in modes or "tpu" in backends or _imports_tpu_api(text):
        return (COMPILED_TPU,)
    return ()


def _imports_tpu_api(text: str) -> bool:
    from .analysis.import_scan import scan_imports

    for fact in scan_imports(text):
        if fact.is_from and fact.module == "jax.experimental.pallas" and any(n == "tpu" for n, _ in fact.names):
            return True
        if (fact.module or "").startswith(_TPU_API) or any(n.startswith(_TPU_API) for n, _ in fact.names):
            return True
    return False


def blockers(assumed: AnalysisResult, launch: Launch) -> list[Finding]:
    """The what-if findings (``assumed``: the same text analysed with ``assume_interpret``) of
    this launch, in text order."""
    return [f for f in assumed.findings if f.extra.get("assumed") and f.launch_line == launch.line]


def blocker_summary(found: list[Finding], mode: str, generation: str | None = None) -> str:
    """``GPU interpret: ready`` or ``GPU interpret: 2 blockers (get_global line 12, ...)``; for
    the compiled what-if ``TPU v5e compiled: ...`` (v5e: the chip the chip-only kinds were seen
    on, when the settings name none)."""
    label = f"TPU {generation or 'v5e'} compiled" if mode == COMPILED_TPU else MODE_LABEL[mode]
    if not found:
        return f"{label}: ready"
    names = []
    for f in found[:3]:
        # (the construct the headline names, else the kind: the headline ends where the context begins)
        head = f.message.split("): ", 1)[-1].split(": kernel `", 1)[0]
        what = head.split("`")[1].split("(")[0].split(".")[-1] if head.count("`") >= 2 else f.rule
        names.append(f"{what} line {f.span.line}")
    more = f", +{len(found) - 3}" if len(found) > 3 else ""
    return f"{label}: {len(found)} blocker{'s' if len(found) != 1 else ''} ({', '.join(names)}{more})"


@dataclass(frozen=True)
class Rewrite:
    mode: str
    text: str | None  # the program launched in ``mode`` with the fixes that make it run; None: none
    left: tuple[Finding, ...]  # what still fails there (empty when ``text`` is given)


def interpret_value(result: AnalysisResult, mode: str):
    """The ``interpret=`` value for ``mode`` in this module's words, and the edits importing
    what it names."""
    if mode == "true":
        return "True", ()
    from .analysis.fixes import value_in_module

    module = "jax.experimental.pallas.mosaic_gpu" if mode == "gpu" else "jax.experimental.pallas.tpu"
    cls = "InterpretGPUParams" if mode == "gpu" else "InterpretParams"
    return value_in_module(result.index, f"{{{module}}}.{cls}()")


def debug_on_cpu(engine: Engine, text: str, path: str | None, launch_line: int, mode: str) -> Rewrite:
    """The launch at ``launch_line`` rewritten to run in ``mode`` (``interpret=`` added), with the
    safe fixes its findings there get, pass after pass; given only when nothing is left."""
    from .analysis.cst_edits import parses
    from .analysis.edits import apply_edits
    from .checker import apply_fixes, choose_fixes

    result = engine.analyse(text, path)
    launch = next((found for found in result.launches if found.line == launch_line), None)
    if launch is None or mode not in fitting_modes(launch):
        return Rewrite(mode, None, ())
    edits = _interpret_edits(result, launch, mode)
    if edits is None:
        return Rewrite(mode, None, ())
    try:
        new = apply_edits(text, edits)
    except ValueError:
        return Rewrite(mode, None, ())
    if not parses(new):
        return Rewrite(mode, None, ())
    seen = {new}
    line = moved_line(text, new, launch_line)
    for _ in range(MAX_PASSES):
        found = [f for f in engine.analyse(new, path).findings if f.record and f.launch_line == line]
        if not found:
            return Rewrite(mode, new, ())
        fixed, n = apply_fixes(new, choose_fixes(found, path, unsafe=False))
        if n == 0 or fixed in seen:
            return Rewrite(mode, None, tuple(found))
        line = moved_line(new, fixed, line)
        new = fixed
        seen.add(new)
    left = [f for f in engine.analyse(new, path).findings if f.record and f.launch_line == line]
    return Rewrite(mode, None if left else new, tuple(left))


def moved_line(old: str, new: str, line: int) -> int:
    """Where line ``line`` of ``old`` is in ``new`` (edits above it add or remove lines)."""
    import difflib

    a, b = old.splitlines(), new.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i1 <= line - 1 < i2:
            return j1 + (line - 1 - i1) + 1 if tag == "equal" else min(j1 + 1, len(b))
    return line


def _interpret_edits(result: AnalysisResult, launch: Launch, mode: str):
    """The edits that add ``interpret=<mode>`` to the launch call (and the imports it needs);
    None when the launch is built elsewhere or already says ``interpret=``."""
    from .analysis.fixes import add_kwarg

    index = result.index
    if index.path_of(launch.site.scope) != index.path or "interpret" in launch.options:
        return None
    value, imports = interpret_value(result, mode)
    return [add_kwarg(index, launch.site.node, launch.site.scope, "interpret", value), *imports]
