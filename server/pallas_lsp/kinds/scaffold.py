"""``pallas-lsp dev new-kind``: a new kind folder whose examples already pass the generated
example tests, so a newcomer starts from green and replaces the ``TODO(new-kind)`` text.

The skeleton is an API-in-context kind: a call of a placeholder API named after the kind
(``pl.TODO_<slug>``, so two new kinds never flag each other's examples) in a kernel run with
``interpret=True``. The record's
placeholder text keeps it from shipping (the records loader reports it, and a test fails on
any shipped record or example still holding it)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import KINDS_DIR, folder_name, scan
from .ranges import CODE, Family, family_named, family_of, next_free

PLACEHOLDER = "TODO(new-kind)"
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class ScaffoldError(ValueError):
    """Why a kind cannot be made as asked."""


@dataclass(frozen=True)
class NewKind:
    code: str
    slug: str
    folder: Path
    files: tuple[Path, ...]


def taken_codes(root: Path = KINDS_DIR) -> set[str]:
    """Every code a kind folder under ``root`` uses: its examples folders and its record's
    detection codes (read as JSON; nothing is imported)."""
    layout = scan(root)
    codes = set(layout.example_index())
    for kind in layout.kinds:
        try:
            obj = json.loads(kind.record_path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        rec = obj.get("record", obj) if isinstance(obj, dict) else {}
        det = rec.get("detection") if isinstance(rec, dict) else None
        if isinstance(det, dict):
            codes |= {c for c in [det.get("code"), *(a.get("code") for a in det.get("also", []) if isinstance(a, dict))]
                      if isinstance(c, str)}
    return codes


def choose_code(asked: str, family: str | None, taken: set[str]) -> str:
    """``asked`` checked against the ranges, or for ``next``/``next:<family>`` the family's
    next free code."""
    if asked == "next" or asked.startswith("next:"):
        name = asked.partition(":")[2] or family
        fam = family_named(name or "")
        if fam is None or fam.name == "tool":
            raise ScaffoldError(f"name a kind family: next:<family> or --family (one of {_family_names()})")
        code = next_free(fam, taken)
        if code is None:
            raise ScaffoldError(f"the {fam.name} family ({fam.span}) is full")
        return code
    if not CODE.fullmatch(asked):
        raise ScaffoldError(f"`{asked}` is not a code (PAL and three digits) or next:<family>")
    fam_of: Family | None = family_of(asked)
    if fam_of is None or fam_of.name == "tool":
        raise ScaffoldError(f"{asked} is in no kind family's range (kinds/ranges.py)")
    if family is not None and fam_of.name != family:
        raise ScaffoldError(f"{asked} is in the {fam_of.name} family ({fam_of.span}), not {family}")
    if asked in taken:
        raise ScaffoldError(f"{asked} is taken")
    return asked


def _family_names() -> str:
    from .ranges import KIND_FAMILIES

    return ", ".join(f.name for f in KIND_FAMILIES)


def placeholder_api(slug: str) -> str:
    """The attribute of ``pl`` the skeleton's examples call (``TODO_<folder name>``)."""
    return f"TODO_{folder_name(slug)}"


def record_skeleton(code: str, slug: str, python: bool) -> dict:
    api = placeholder_api(slug)
    rec: dict = {
        "id": f"pallas-lsp-{slug}",
        "slug": slug,
        "errorMessage": f"{PLACEHOLDER}: the message JAX raises, as it prints it",
        "messagePattern": r"TODO\(new-kind\): the message JAX raises",
        "errorClass": "NotImplementedError",
        "documentation": f"{PLACEHOLDER}: what fails, in which context, and why (from jax's source).",
        "triggerScenarios": f"{PLACEHOLDER}: the code shapes that raise it.",
        "solutions": [f"{PLACEHOLDER}: a fix that ran clean under the oracle."],
        "filePath": f"{PLACEHOLDER}: jax/_src/pallas/... where it is raised",
        "tags": ["pallas"],
        "schemaVersion": 2,
    }
    if not python:
        rec["detection"] = {
            "code": code,
            "name": slug,
            "summary": f"{PLACEHOLDER}: pl.{api} reached from a kernel run with interpret=True",
            "construct": {"call": [f"jax.experimental.pallas.{api}"], "label": f"pl.{api}"},
            "modes": ["interpret"],
            "headline": f"`pl.{api}` cannot run in {{context}}",
        }
    return {"record": rec}


_PROGRAM = '''import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
{body}


def main():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
    print(out[0, :2])


if __name__ == "__main__":
    main()
'''

def invalid_example(slug: str) -> str:
    return ("# pallas-lsp example: invalid\n"
            f"# note: {PLACEHOLDER}: the shape of code this example shows.\n"
            "# raises: NotImplementedError: TODO\\(new-kind\\)\n"
            + _PROGRAM.format(body=f"    pl.{placeholder_api(slug)}(x_ref)  # error\n    o_ref[...] = x_ref[...]"))


VALID = ("# pallas-lsp example: valid\n"
         f"# note: {PLACEHOLDER}: the clean twin (the same program, fixed).\n"
         + _PROGRAM.format(body="    o_ref[...] = x_ref[...]"))


def rule_skeleton(code: str, slug: str) -> str:
    name = "".join(part.title() for part in slug.split("-"))
    api = placeholder_api(slug)
    return f'''"""{code}: {PLACEHOLDER}: one line on what this rule finds."""
from __future__ import annotations

from ...analysis.contexts import Mode
from ...rules.base import ApiInContextRule


class {name}(ApiInContextRule):
    """{PLACEHOLDER}: the title line of this rule's documentation.

    {PLACEHOLDER}: what fails, in which context, and why; what to do instead.
    """

    code = "{code}"
    name = "{slug}"
    record = "{slug}"
    summary = "{PLACEHOLDER}: pl.{api} reached from a kernel run with interpret=True"
    apis = frozenset({{"jax.experimental.pallas.{api}"}})
    label = "pl.{api}"
    modes = frozenset({{Mode.INTERPRET}})

    def actual_error(self, hit) -> str | None:
        return "NotImplementedError: {PLACEHOLDER}: the message JAX raises"
'''


def new_kind(code: str, slug: str, *, python: bool = False, family: str | None = None,
             root: Path = KINDS_DIR) -> NewKind:
    """Write ``root/<slug>/`` for a new kind; raises :class:`ScaffoldError` (nothing written)
    for a bad slug, a taken code or slug, or a code outside the ranges."""
    if not _SLUG.fullmatch(slug):
        raise ScaffoldError(f"`{slug}` is not a slug (lower case words joined by `-`)")
    folder = root / folder_name(slug)
    if folder.exists():
        raise ScaffoldError(f"{folder} exists")
    code = choose_code(code, family, taken_codes(root))
    files = {
        folder / "record.json": json.dumps(record_skeleton(code, slug, python), indent=2) + "\n",
        folder / "examples" / code / "invalid_01_todo_api_in_interpret.py": invalid_example(slug),
        folder / "examples" / code / "valid_01_todo_clean_twin.py": VALID,
    }
    if python:
        files[folder / "__init__.py"] = f'"""{code}: a kind with a Python rule (rule.py)."""\n'
        files[folder / "rule.py"] = rule_skeleton(code, slug)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return NewKind(code, slug, folder, tuple(sorted(files)))


__all__ = ["NewKind", "PLACEHOLDER", "ScaffoldError", "choose_code", "new_kind", "taken_codes"]
