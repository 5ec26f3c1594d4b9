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

from .mdtext import code_block, code_span, link, prose
from .records import ErrorRecord, RaiseSite, RecordStore, match_lines

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
    # (the primitive is named "inline_mgpu_p" up to jax 0.11.2, "inline_mgpu" from 0.12)
    (re.compile(r"MLIR translation rule for primitive 'inline_mgpu(?:_p)?' not found for platform cpu"),
     "inline-mgpu-p-does-not-support-discharge",
     "An `inline_mgpu` call reached the CPU lowering: it has no Ref arguments to discharge, or it ran "
     "under TPU interpret params."),
)


@dataclass(frozen=True)
class Explanation:
    record: ErrorRecord
    matched_line: str
    note: str = ""  # set when matched through an alternative message


class Explanations(list):
    """The explanations found, best first; ``complete`` is False when the text was too long to
    try against every record (the built-in ones always are)."""

    complete: bool = True


def explain_text(text: str, store: RecordStore) -> Explanations:
    matched = store.match_text(text)
    out = Explanations(Explanation(rec, line, _how_note(rec, line, matched.matched_by.get(rec.slug)))
                       for rec, line in matched.hits)
    out.complete = matched.complete
    have = {e.record.slug for e in out}
    for line in match_lines(text):
        for pattern, slug, note in ALTERNATIVE_MESSAGES:
            if slug in have or not pattern.search(line):
                continue
            rec = store.by_slug(slug)
            if rec is not None:
                out.append(Explanation(rec, line.strip(), note))
                have.add(slug)
    return out


def _how_note(rec: ErrorRecord, line: str, how: object) -> str:
    """What the match rests on, when it is not the record's own message: the frame that raised a
    bare error, or the releases that print the wording the text has."""
    if isinstance(how, RaiseSite):
        return (f"JAX raises this {rec.error_class} with no message; it is recognised by the frame that "
                f"raised it, `{how.function}` in `{how.file}` (jax {releases_text(how.releases)}).")
    releases = sorted({r for w in rec.wordings if w.pattern.search(line) for r in w.releases}, key=_version_key)
    return f"This wording is printed by jax {releases_text(releases)}." if releases else ""


def _version_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def releases_text(releases) -> str:
    """"0.4.30" or "0.4.30 to 0.6.0 (14 releases)": the first and last of the ones listed."""
    ordered = sorted(releases, key=_version_key)
    if len(ordered) == 1:
        return ordered[0]
    return f"{ordered[0]} to {ordered[-1]} ({len(ordered)} releases)"


def record_markdown(rec: ErrorRecord, *, heading: str = "###", rules: list[tuple[str, str]] = ()) -> str:
    # Record text is data (a workspace may supply it): prose() keeps it from making links or
    # HTML, and the only link is the record's https: githubUrl.
    parts = [f"{heading} {prose(rec.error_class)}: {prose(rec.error_message)}", ""]
    if rec.documentation:
        parts += ["**Why:** " + prose(rec.documentation), ""]
    if rec.trigger_scenarios:
        parts += ["**When it happens:** " + prose(rec.trigger_scenarios), ""]
    if rec.common_situations:
        parts += ["**Common situations:** " + prose(rec.common_situations), ""]
    if rec.solutions:
        parts += ["**How to fix:**", *[f"- {prose(s)}" for s in rec.solutions], ""]
    if rec.example_fix:
        parts += ["**Example fix:**", *code_block(rec.example_fix), ""]
    if rules:
        parts += ["**Checked by:** " + ", ".join(f"`{c}` ({n})" for c, n in rules), ""]
    src = rec.file_path + (f":{rec.line_number}" if rec.line_number else "")
    if rec.link:
        parts.append(f"**Raised in:** {link(src or 'source', rec.link)}")
    elif src:
        parts.append(f"**Raised in:** {prose(src)}")
    parts.append(f"*Record {code_span(rec.slug)} (id {prose(rec.id)})*")
    return "\n".join(parts).rstrip() + "\n"


def explanation_markdown(expl: list[Explanation], rules_by_slug: dict[str, list[tuple[str, str]]]) -> str:
    incomplete = "" if getattr(expl, "complete", True) else (
        "*The text is too long to try against every error record: only some were tried. "
        "Explain a shorter excerpt (the error message itself).*\n")
    if not expl:
        return incomplete + ("No known Pallas error record matches this text.\n" if not incomplete else "")
    chunks = []
    for e in expl:
        head = f"> {code_span(e.matched_line[:300])}\n\n"
        if e.note:
            head += e.note + "\n\n"
        chunks.append(head + record_markdown(e.record, rules=rules_by_slug.get(e.record.slug, [])))
    return "\n---\n\n".join(chunks) + (f"\n---\n\n{incomplete}" if incomplete else "")
