"""The rules: the Python rules (each in its kind folder's ``rule.py``, ``kinds/<slug>/``, tied
to that folder's record by slug) and the rules the records' detection sections declare as data
(``data.py``). Nothing is listed by hand: the kind folders are scanned.

The Python rule modules import this package's ``base``; so that any module can be imported
first, this package imports them when the rules are first asked for, not when it loads."""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..analysis.rule_api import Rule, RuleSet
from ..kinds import KINDS_DIR, scan
from ..kinds.ranges import family_of
from .base import ApiInContextRule, PythonRule
from .examples import Example

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.caches import AnalysisCaches
    from ..analysis.engine import AnalysisResult, Engine
    from ..records import ErrorRecord


@dataclass(frozen=True)
class PythonKinds:
    """The Python rule classes of the kind folders under one root, by code, and what kept a
    folder's rule from loading (the others load all the same)."""

    classes: tuple[type[PythonRule], ...]
    problems: tuple[str, ...]


def _rule_classes_of(module) -> list[type[PythonRule]]:
    return [c for _, c in inspect.getmembers(module, inspect.isclass)
            if issubclass(c, PythonRule) and c.__module__ == module.__name__ and c.code]


def discover_python_kinds(root: Path = KINDS_DIR, package: str = "pallas_lsp.kinds") -> PythonKinds:
    """Import each ``rule.py`` of the kind folders under ``root`` (the package ``package``) and
    collect its rule classes: each must be tied to its folder's record (``record`` is the
    folder's slug) and carry a code in a family's range, used by no other rule."""
    classes: list[type[PythonRule]] = []
    problems: list[str] = []
    taken: dict[str, str] = {}
    for kind in scan(root).kinds:
        if kind.rule_module is None:
            continue
        where = kind.path / "rule.py"
        try:
            module = importlib.import_module(f"{package}.{kind.path.name}.rule")
        except Exception as exc:  # noqa: BLE001 (a broken kind loses only itself)
            problems.append(f"{where}: cannot import: {type(exc).__name__}: {exc}")
            continue
        found = _rule_classes_of(module)
        if not found:
            problems.append(f"{where}: defines no PythonRule subclass with a code")
        for cls in found:
            if cls.record != kind.slug:
                problems.append(f"{where}: {cls.__name__}.record is `{cls.record}`, "
                                f"not the folder's slug `{kind.slug}`")
            elif family_of(cls.code) is None:
                problems.append(f"{where}: {cls.__name__}.code `{cls.code}` is in no family's range (kinds/ranges.py)")
            elif cls.code in taken:
                problems.append(f"{where}: {cls.__name__}.code `{cls.code}` is taken by {taken[cls.code]}")
            else:
                taken[cls.code] = cls.__name__
                classes.append(cls)
    return PythonKinds(tuple(sorted(classes, key=lambda c: c.code)), tuple(problems))


@lru_cache(maxsize=1)
def _builtin_python_kinds() -> PythonKinds:
    return discover_python_kinds()


def rule_classes() -> tuple[type[PythonRule], ...]:
    """The built-in Python rule classes, by code."""
    return _builtin_python_kinds().classes


def rule_kind_problems() -> list[str]:
    """What kept a built-in kind folder's Python rule from loading (none, in a good tree)."""
    return list(_builtin_python_kinds().problems)


def __getattr__(name: str):
    # ``RULE_CLASSES`` is found, not listed: it exists once asked for (see the module docstring).
    if name == "RULE_CLASSES":
        return rule_classes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def python_rules() -> list[Rule]:
    return [cls() for cls in rule_classes()]


def default_rule_set(records: "Iterable[ErrorRecord] | None" = None) -> RuleSet:
    """The built-in Python rules plus one data rule per record that carries a detection
    section (``records``: a store's records; None: the built-in records)."""
    from .data import data_rules

    if records is None:
        from ..records import builtin_records

        records = builtin_records()[0]
    records = list(records)
    rules = python_rules()
    taken = {c for r in rules for c in (r.code, r.name)}
    for rule in data_rules(records):
        if rule.code in taken or rule.name in taken:
            continue  # (reported when the record loads: see data.detection_problems)
        taken |= {rule.code, rule.name}
        rules.append(rule)
    _limit_to_releases(rules, records)
    return RuleSet(rules)


def _limit_to_releases(rules: list[Rule], records: "Iterable[ErrorRecord]") -> None:
    """Each rule reports only in the releases its record says raise its error (the pinned
    release is "" in the analysis: see analysis.contexts.JaxRelease)."""
    from ..lowering import PINNED_RELEASE

    by_slug = {rec.slug: rec for rec in records}
    for rule in rules:
        rec = by_slug.get(rule.record)
        if rec is not None and rec.releases:
            rule.releases = frozenset("" if r == PINNED_RELEASE else r for r in rec.releases)


def default_engine(*, incremental: bool = False, records: "Iterable[ErrorRecord] | None" = None,
                   caches: "AnalysisCaches | None" = None) -> "Engine":
    """``caches``: the block parses and disk texts to keep (a session's, shared by every engine
    and program it makes); None: the engine's own."""
    from ..analysis.engine import Engine

    return Engine(default_rule_set(records), incremental=incremental, caches=caches)


def analyse(text: str, path: str | None = None, *, engine: "Engine | None" = None, **kw) -> "AnalysisResult":
    """One module with the built-in rules (a convenience for scripts and tests): through
    ``engine``, or a fresh one (about 2 ms to build), so no state is shared between calls."""
    return (engine or default_engine()).analyse(text, path, **kw)


def rule_by_code(code: str) -> Rule | None:
    for cls in rule_classes():
        if code in (cls.code, cls.name):
            return cls()
    return None


__all__ = ["ApiInContextRule", "Example", "PythonKinds", "PythonRule", "RULE_CLASSES", "Rule", "RuleSet", "analyse",
           "default_engine", "default_rule_set", "discover_python_kinds", "python_rules", "rule_by_code",
           "rule_classes", "rule_kind_problems"]
