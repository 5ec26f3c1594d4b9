"""Turn a runtime error (a message or a whole traceback) into its record, as Markdown.

Shared by ``pallas-lsp explain``, the LSP hover and the ``pallas-lsp.explainError``
command. Besides each record's own ``messagePattern``, the rules know the
messages current JAX raises *instead* of a record's text (for example a
``get_global`` in an interpreted kernel fails with ``No ir_type_handler for aval
type``), so those explain too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .records import MAX_MATCH_LINE_CHARS, ErrorRecord, RecordStore

# (pattern, record slug, what to say). Messages JAX 0.12 raises for the same root cause.
ALTERNATIVE_MESSAGES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"No ir_type_handler for aval type: <class 'jax\._src\.state\.types\.AbstractRef'>"),
     "get-global-discharge-is-not-supported-in-interpret",
     "In jax 0.12 a `pl.get_global` in an interpreted kernel fails with this TypeError before the "
     "record's message can be raised (the discharge rule is never called)."),
    (re.compile(r"KeyError: <MemorySpace\.GMEM: 'gmem'>"),
     "get-global-discharge-is-not-supported-in-interpret",
     "Under TPU interpret params, `plgpu.kernel`, `pl.kernel` and `core_map` kernels that use GPU "
     "global memory (`pl.get_global`, Mosaic GPU meshes) fail with this KeyError."),
    (re.compile(r"GPU interpret mode does not support `inline_mgpu`"),
     "inline-mgpu-p-does-not-support-discharge",
     "GPU interpret mode handles `inline_mgpu` itself: pass `InterpretGPUParams(inline_mgpu=\"ignore\")` to "
     "skip calls that return nothing."),
    (re.compile(r"MLIR translation rule for primitive 'inline_mgpu' not found for platform cpu"),
     "inline-mgpu-p-does-not-support-discharge",
     "An `inline_mgpu` call reached the CPU lowering: it has no Ref arguments to discharge, or it ran "
     "under TPU interpret params."),
)


@dataclass(frozen=True)
class Explanation:
    record: ErrorRecord
    matched_line: str
    note: str = ""  # set when matched through an alternative message


def explain_text(text: str, store: RecordStore) -> list[Explanation]:
    out = [Explanation(rec, line) for rec, line in store.match(text)]
    have = {e.record.slug for e in out}
    for line in (ln[:MAX_MATCH_LINE_CHARS] for ln in text.splitlines()[:20000]):
        for pattern, slug, note in ALTERNATIVE_MESSAGES:
            if slug in have or not pattern.search(line):
                continue
            rec = store.by_slug(slug)
            if rec is not None:
                out.append(Explanation(rec, line.strip(), note))
                have.add(slug)
    return out


def record_markdown(rec: ErrorRecord, *, heading: str = "###", rules: list[tuple[str, str]] = ()) -> str:
    parts = [f"{heading} {rec.error_class}: {rec.error_message}", ""]
    if rec.documentation:
        parts += ["**Why:** " + rec.documentation, ""]
    if rec.trigger_scenarios:
        parts += ["**When it happens:** " + rec.trigger_scenarios, ""]
    if rec.common_situations:
        parts += ["**Common situations:** " + rec.common_situations, ""]
    if rec.solutions:
        parts += ["**How to fix:**", *[f"- {s}" for s in rec.solutions], ""]
    if rec.example_fix:
        parts += ["**Example fix:**", "```python", rec.example_fix, "```", ""]
    if rules:
        parts += ["**Checked by:** " + ", ".join(f"`{c}` ({n})" for c, n in rules), ""]
    src = rec.file_path + (f":{rec.line_number}" if rec.line_number else "")
    if rec.github_url:
        parts.append(f"**Raised in:** [{src or 'source'}]({rec.github_url})")
    elif src:
        parts.append(f"**Raised in:** {src}")
    parts.append(f"*Record `{rec.slug}` (id {rec.id})*")
    return "\n".join(parts).rstrip() + "\n"


def explanation_markdown(expl: list[Explanation], rules_by_slug: dict[str, list[tuple[str, str]]]) -> str:
    if not expl:
        return "No known Pallas error record matches this text.\n"
    chunks = []
    for e in expl:
        head = f"> `{e.matched_line[:300]}`\n\n"
        if e.note:
            head += e.note + "\n\n"
        chunks.append(head + record_markdown(e.record, rules=rules_by_slug.get(e.record.slug, [])))
    return "\n---\n\n".join(chunks)
