"""Words and Markdown for people: hovers, code lens titles, context descriptions.

Pure functions of analysis results and records; the LSP layer only places them.
"""
from __future__ import annotations

from .analysis.contexts import Context, Mode
from .analysis.engine import AnalysisResult, describe_context
from .analysis.findings import Finding
from .analysis.launches import Launch
from .mdtext import code_block, code_span, link, prose
from .records import RecordStore
from .rules import RULE_CLASSES

SHORT_MODE = {
    Mode.INTERPRET: "interpret",
    Mode.TPU_INTERPRET: "TPU interpret",
    Mode.GPU_INTERPRET: "GPU interpret",
    Mode.MOSAIC_GPU: "Mosaic GPU",
    Mode.TRITON: "Triton",
    Mode.TPU: "Mosaic TPU",
    Mode.COMPILED: "compiled",
    Mode.UNKNOWN: "mode unknown",
}

INTERPRETER_WORDS = {
    Mode.INTERPRET: "the generic interpreter: the kernel is discharged to plain JAX and run as a "
                    "`jax.jit` of a loop over the grid (runs on CPU; no GPU/TPU-specific primitives)",
    Mode.TPU_INTERPRET: "the TPU interpreter (`pltpu.InterpretParams`): simulates TPU memory spaces, "
                        "DMAs and semaphores on the CPU",
    Mode.GPU_INTERPRET: "the GPU interpreter (`plgpu.InterpretGPUParams`): simulates GPU memory spaces, "
                        "threads and barriers on the CPU; `inline_mgpu` calls fail unless "
                        "`inline_mgpu=\"ignore\"`, and grids must be static",
    Mode.COMPILED: "no interpreter: the kernel is compiled for the device it runs on",
}


def _rule(code: str):
    return next((c for c in RULE_CLASSES if c.code == code), None)


def mode_label(ctx: Context) -> str:
    label = SHORT_MODE[ctx.mode]
    if not ctx.certain:
        label += " (on CPU hosts)"
    return label


def launch_lens_title(launch: Launch, problems: int) -> str:
    modes = []
    for c in launch.contexts:
        lab = mode_label(c)
        if lab not in modes:
            modes.append(lab)
    mode_text = " | ".join(modes) or "mode unknown"
    kernels = ", ".join(f"`{k.name}`" for k in launch.kernels) or "kernel unknown"
    return f"{mode_text} · kernel {kernels} · {problems} problem{'s' if problems != 1 else ''}"


def problems_of(result: AnalysisResult, launch: Launch) -> list[Finding]:
    return [f for f in result.findings if f.launch_line == launch.line and f.record is not None]


def finding_hover(f: Finding, store: RecordStore) -> str:
    rule = _rule(f.code)
    rec = store.by_slug(f.record) if f.record else None
    parts = [f"**{f.code}** · {f.message.split(': kernel ')[0]}", ""]
    if f.actual_error:
        parts += [f"**What will happen:** JAX raises `{f.actual_error}`", ""]
    ctx_lines = []
    for c in f.contexts[:4]:
        ctx_lines.append(f"- kernel `{f.kernel}` is {describe_context(c)} — {c.mode.words}")
    if ctx_lines:
        parts += ["**Context:**", *ctx_lines, ""]
    if len(f.chain) > 1:
        parts += ["**Call chain:** " + " → ".join(f"`{n}`" for n in f.chain), ""]
    if rule is not None:
        doc = rule.__doc__ or ""
        paras = [p.strip().replace("\n    ", " ") for p in doc.strip().split("\n\n")]
        if len(paras) > 1:
            parts += ["**Why:** " + " ".join(p.replace("\n", " ") for p in paras[1:2]), ""]
    if f.extra.get("instead"):
        parts += [f"**Instead:** {prose(f.extra['instead'])}", ""]
    if rec is not None:  # record text is data (a workspace may supply it): no links or HTML from it
        if rec.documentation:
            parts += [f"**Record:** {prose(rec.documentation)}", ""]
        if rec.trigger_scenarios:
            parts += [f"**When it happens:** {prose(rec.trigger_scenarios)}", ""]
        if rec.solutions:
            parts += ["**How to fix:**", *[f"- {prose(s)}" for s in rec.solutions], ""]
    if f.fixes:
        parts += ["**Quick fixes:** " + "; ".join(fx.title for fx in f.fixes), ""]
    if rec is not None and rec.example_fix:
        parts += ["**Example fix:**", *code_block(rec.example_fix), ""]
    footer = []
    if rec is not None and rec.link:
        src = rec.file_path + (f":{rec.line_number}" if rec.line_number else "")
        footer.append(link(src or "source", rec.link))
    if rec is not None:
        footer.append(f"record {code_span(rec.slug)}")
    if rule is not None:
        footer.append("verified on jax " + ", ".join(rule.verified_on))
    if footer:
        parts.append(" · ".join(footer))
    return "\n".join(parts).rstrip() + "\n"


def launch_hover(result: AnalysisResult, launch: Launch) -> str:
    problems = problems_of(result, launch)
    kernels = ", ".join(f"`{k.name}`" for k in launch.kernels) or "an unknown kernel"
    parts = [f"**{launch.api.short}** launches {kernels}", ""]
    for c in launch.contexts:
        parts.append(f"- {c.mode.words}: {describe_context(c).replace('launched ', '', 1)}"
                     + ("" if c.certain else " (interprets only on CPU hosts)"))
    reached = result.reached.get(id(launch), [])
    helpers = [r.scope.name for r in reached if r.scope not in launch.kernels]
    if helpers:
        parts += ["", "Reaches: " + ", ".join(f"`{h}`" for h in helpers[:12]) + (" …" if len(helpers) > 12 else "")]
    parts += ["", f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in this context"]
    return "\n".join(parts) + "\n"


def interpret_hover(launch: Launch, line: int) -> str | None:
    ctxs = [c for c in launch.contexts if any(e.span.line == line for e in c.evidence)] or launch.contexts
    if not ctxs:
        return None
    out = []
    for c in ctxs:
        words = INTERPRETER_WORDS.get(c.mode, c.mode.words)
        extra = ""
        if c.mode == Mode.GPU_INTERPRET and c.inline_mgpu:
            extra = f" (inline_mgpu=\"{c.inline_mgpu}\")"
        if c.forced:
            extra += " — overridden: a force_/set_ interpret-mode call decides the mode"
        out.append(f"**{c.decided_by}** selects {words}{extra}")
    return "\n\n".join(out) + "\n"
