"""Which TPU generation the code targets, and what pallas-lsp claims for it.

A kind raised inside libtpu's Mosaic compiler is known only from a real chip: its record lists,
in ``chips``, the generations whose chip showed it and the jax releases run there. The
``tpu-generation`` setting (``check --tpu-generation``, ``tpu-generation`` in
``[tool.pallas-lsp]``, the server's ``tpuGeneration``) says which chip the code targets, and
:class:`ChipClaims` decides, in this one place for every rule, what a finding of such a kind
says: for a generation the record lists, the finding as the rule made it; for a generation it
does not list, nothing (nothing is claimed for a chip nobody ran); with no generation chosen,
the finding with where it was seen appended ("(seen on TPU v5e, jax 0.10.2)"). Findings of
kinds without ``chips`` pass through untouched. docs/chips.md has what was verified where.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterable, Mapping

from .records import TPU_GENERATIONS, ChipSighting

if TYPE_CHECKING:
    from .analysis.findings import Finding
    from .records import ErrorRecord


def generation_problem(value: object, where: str) -> str | None:
    """Why ``value`` is no TPU generation (the message names ``where`` it was written), or None."""
    if isinstance(value, str) and value in TPU_GENERATIONS:
        return None
    return f"{where}: `tpu-generation` must be one of {', '.join(TPU_GENERATIONS)}, not {value!r}"


@dataclass(frozen=True)
class GenerationChoice:
    """The TPU generation the code targets and where that was said (None: not said)."""

    generation: str | None = None
    source: str = ""  # "--tpu-generation", a pyproject.toml, "tpuGeneration"; "" when not chosen

    def as_json(self) -> dict:
        return {"generation": self.generation, "source": self.source or None}

    def described(self) -> str:
        if self.generation is None:
            return "no TPU generation chosen: chip-only kinds say where they were seen"
        return f"TPU {self.generation} (from {self.source})"


@dataclass(frozen=True)
class ChipClaims:
    """Record slug -> the chips that showed the record's error, for the records a run loads."""

    seen_on: Mapping[str, tuple[ChipSighting, ...]]

    @classmethod
    def of(cls, records: "Iterable[ErrorRecord]") -> "ChipClaims":
        return cls({r.slug: r.chips for r in records if r.chips})

    def claimed(self, findings: "Iterable[Finding]", generation: str | None) -> "list[Finding]":
        """``findings`` as claimed for ``generation`` (None: none chosen): see the module docstring."""
        out: list[Finding] = []
        for finding in findings:
            sightings = self.seen_on.get(finding.record or "")
            if not sightings:
                out.append(finding)
            elif generation is None:
                seen = "; ".join(s.described() for s in sightings)
                out.append(replace(finding, message=f"{finding.message} (seen on {seen})"))
            elif any(s.generation == generation for s in sightings):
                out.append(finding)
        return out
