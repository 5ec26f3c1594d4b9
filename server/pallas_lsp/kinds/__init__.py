"""Error kinds, one folder each: ``kinds/<slug>/`` (the record's slug, ``-`` written ``_`` so the
folder is a valid package name) holds

* ``record.json``: the error record, with its ``detection`` section for a data kind (the seed
  records ship byte-identical to the shared dataset);
* ``examples/<CODE>/{valid,invalid}_NN_<short_name>.py``: the runnable examples of each code the
  record declares (``rules/examples.py`` reads them);
* optionally ``rule.py`` (and an empty ``__init__.py``): the Python rule class(es) of a kind that
  data cannot say. It is imported by its module name (``pallas_lsp.kinds.<folder>.rule``) so
  tracebacks, coverage and pickling see an ordinary module.

Nothing is listed by hand: this module finds the folders (it reads files only and imports no
other part of the package); ``records`` loads their records, ``rules`` their rule classes.
A malformed folder is a :class:`KindProblem`: the tests fail on any, the server loads the rest.
``ranges.py`` is the one table of code ranges.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .ranges import CODE, family_of

KINDS_DIR = Path(__file__).resolve().parent
RECORD_FILE = "record.json"
EXAMPLES_FOLDER = "examples"
RULE_FILE = "rule.py"
_FOLDER_NAME = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
# What a kind folder may hold besides its record (caches are not part of it).
_ALLOWED = {RECORD_FILE, EXAMPLES_FOLDER, RULE_FILE, "__init__.py", "__pycache__"}


def folder_name(slug: str) -> str:
    return slug.replace("-", "_")


@dataclass(frozen=True)
class KindProblem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass(frozen=True)
class KindFolder:
    path: Path

    @property
    def slug(self) -> str:
        """The slug the folder's record must carry."""
        return self.path.name.replace("_", "-")

    @property
    def record_path(self) -> Path:
        return self.path / RECORD_FILE

    @property
    def rule_module(self) -> str | None:
        """The module name of the kind's Python rule, or None for a data kind."""
        if not (self.path / RULE_FILE).is_file():
            return None
        return f"{__name__}.{self.path.name}.rule"

    def example_dirs(self) -> dict[str, Path]:
        """code -> the folder of that code's examples."""
        base = self.path / EXAMPLES_FOLDER
        if not base.is_dir():
            return {}
        return {p.name: p for p in sorted(base.iterdir()) if p.is_dir() and not p.name.startswith((".", "__"))}


@dataclass(frozen=True)
class KindsLayout:
    """The kind folders under one root and what is wrong with them."""

    root: Path
    kinds: tuple[KindFolder, ...]
    problems: tuple[KindProblem, ...]

    def examples_dir(self, code: str) -> Path | None:
        return self.example_index().get(code)

    def example_index(self) -> dict[str, Path]:
        index: dict[str, Path] = {}
        for kind in self.kinds:
            for code, path in kind.example_dirs().items():
                index.setdefault(code, path)  # (a second folder for one code is a problem: scan)
        return dict(sorted(index.items()))


def scan(root: Path = KINDS_DIR) -> KindsLayout:
    """Every kind folder under ``root`` (sorted by name) and each problem found: a folder name
    that is not a slug, a missing record, a file that is no part of a kind, an examples folder
    that is not named by a code in a family's range, or one code with two example folders."""
    kinds: list[KindFolder] = []
    problems: list[KindProblem] = []
    seen_codes: dict[str, Path] = {}
    if not root.is_dir():
        return KindsLayout(root, (), ())
    for path in sorted(root.iterdir()):
        if path.name.startswith((".", "_")) or not path.is_dir():
            continue  # this package's own modules and caches
        if not _FOLDER_NAME.fullmatch(path.name):
            problems.append(KindProblem(str(path), "a kind folder is named by its record's slug with `-` as `_` "
                                                   "(lower case letters, digits and underscores)"))
            continue
        if not (path / RECORD_FILE).is_file():
            problems.append(KindProblem(str(path), f"a kind folder holds its record as `{RECORD_FILE}`"))
            continue
        kind = KindFolder(path)
        for entry in sorted(path.iterdir()):
            if entry.name not in _ALLOWED and not entry.name.startswith("."):
                problems.append(KindProblem(str(entry), f"not part of a kind (a kind folder holds "
                                                        f"{RECORD_FILE}, {EXAMPLES_FOLDER}/ and optionally "
                                                        f"{RULE_FILE} with __init__.py)"))
        if kind.rule_module is not None and not (path / "__init__.py").is_file():
            problems.append(KindProblem(str(path), f"a kind with a {RULE_FILE} is a package: add an empty __init__.py"))
        for code, folder in kind.example_dirs().items():
            if not CODE.fullmatch(code) or family_of(code) is None:
                problems.append(KindProblem(str(folder), "an examples folder is named by a rule code (PAL and three "
                                                         "digits, in a family's range: kinds/ranges.py)"))
            elif code in seen_codes:
                problems.append(KindProblem(str(folder), f"{code} already has examples in {seen_codes[code]}"))
            else:
                seen_codes[code] = folder
        kinds.append(kind)
    return KindsLayout(root, tuple(kinds), tuple(problems))


__all__ = ["EXAMPLES_FOLDER", "KINDS_DIR", "KindFolder", "KindProblem", "KindsLayout", "RECORD_FILE", "RULE_FILE",
           "folder_name", "scan"]
