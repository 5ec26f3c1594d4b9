"""Rule examples as files: ``kinds/<slug>/examples/<CODE>/<valid|invalid>_<NN>_<short_name>.py``
(the kind folder of the record that declares CODE, see ``kinds/__init__.py``).

Each file is a plain runnable program (its imports included) that opens with header comments::

    # pallas-lsp example: invalid
    # note: A helper one call below the kernel, GPU interpret mode forced by a context manager.
    # raises: TypeError: No ir_type_handler for aval type
    # fix: Pass the semaphore to the kernel as scratch (scratch_shapes=[plgpu.SemaphoreType.REGULAR])
    # oracle: lower-cuda

``note``, ``oracle`` (``run``, the default, ``lower-cuda``, or ``chip``: raised only inside libtpu's
Mosaic compiler, so a CPU cannot show it; its note names the labelled chip case,
``tests/data/chip/labels.json``, that holds its truth) at most once; ``raises`` (the
error class, a colon, a regex for JAX's message) exactly once in an invalid example; ``fix``
(a quick fix title that, applied, must leave code JAX runs clean) any number of times in an
invalid example. The header ends at the first line that is not a comment; an invalid example
marks its error line with a trailing ``# error`` comment. Examples are found by rule code, so
the same folder serves Python rules and rules declared as data.

Everything a file gets wrong is reported as an :class:`ExampleError` naming the file and line.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePath

from ..kinds import KINDS_DIR, scan

# The JAX version the examples' predictions were checked on by running them (the oracle checks
# that it runs this version); a rule may name others in its ``verified_on``.
VERIFIED_ON: tuple[str, ...] = ("0.12.0.1",)


@dataclass(frozen=True)
class Example:
    # The whole program (for an example file: its text, header comments included, so line
    # numbers are the file's).
    code: str
    note: str = ""
    # How the oracle runs it: "run" (execute on CPU) or "lower-cuda" (the program itself
    # lowers for CUDA; compiled Mosaic GPU behaviour reproduces on a CPU machine that way).
    oracle: str = "run"
    # For INVALID examples: the 1-based line the finding must be on (marked "# error" if omitted).
    line: int | None = None
    # For INVALID examples: the error JAX raises (class and a regex for the message).
    raises: tuple[str, str] | None = None
    # Quick fix titles that, applied, must leave code JAX runs clean (checked by the oracle).
    fixes: tuple[str, ...] = ()
    # The file it was read from ("" for an example built in code), and how many header comment
    # lines open it.
    path: str = field(default="", compare=False)
    header_lines: int = 0
    # ``# jax: 0.10.2``: the release the example is analysed and run under (a kind only that
    # release raises: the oracle runs it in ``.oracle-env-0.10.2``, a chip example's truth is its
    # chip label); None: the pinned one.
    jax: str | None = None

    def analysis_options(self) -> dict:
        """The options the example is analysed with: its release, where it names one."""
        if self.jax is None:
            return {}
        from ..releases import analysis_release  # (the release's facts: its GPU defaults, its public names)

        return {"release": analysis_release(self.jax)}

    @property
    def name(self) -> str:
        """The file's name without ``.py`` (``invalid_01_semaphore_taken_with_get_global``), or ""."""
        return PurePath(self.path).stem

    @property
    def program(self) -> str:
        """The code without its header comments (what the documentation shows)."""
        return "".join(self.code.splitlines(keepends=True)[self.header_lines:])

    def error_line(self) -> int:
        if self.line is not None:
            return self.line
        for i, text in enumerate(self.code.splitlines(), 1):
            if i > self.header_lines and text.rstrip().endswith("# error"):
                return i
        raise ValueError(f"{self.path or 'INVALID example'}: no '# error' marker or line")



FIRST_LINE = "# pallas-lsp example: "
ERROR_MARKER = "# error"
ORACLES = ("run", "lower-cuda", "chip")
_FILE_NAME = re.compile(r"(valid|invalid)_(\d{2})_([a-z0-9]+(?:_[a-z0-9]+)*)\.py")
_HEADER_LINE = re.compile(r"#\s*([a-z][a-z-]*)\s*:\s?(.*)")
_RAISES = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*:\s*(.+)")
# A lower-cuda example lowers for CUDA in its own text (the oracle only runs it).
_LOWERS_FOR_CUDA = re.compile(r"""(lowering_)?platforms\s*=\s*[(\[]\s*["']cuda["']""")
_ONCE = {"note", "raises", "oracle", "jax"}
_INVALID_ONLY = {"raises", "fix"}


class ExampleError(ValueError):
    """A malformed example file; the message starts with ``path:line:``."""


@dataclass(frozen=True)
class RuleExamples:
    valid: tuple[Example, ...] = ()
    invalid: tuple[Example, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.valid or self.invalid)


def _fail(path: Path, line: int, why: str) -> ExampleError:
    return ExampleError(f"{path}:{line}: {why}")


def parse_example(path: Path) -> tuple[str, Example]:
    """(``"valid"`` or ``"invalid"``, the example) of one file; raises :class:`ExampleError`."""
    m = _FILE_NAME.fullmatch(path.name)
    if m is None:
        raise _fail(path, 1, "an example file is named <valid|invalid>_<NN>_<short_name>.py "
                             "(NN: two digits; short_name: lower case, digits and underscores)")
    kind = m.group(1)
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or lines[0].rstrip() not in (FIRST_LINE + "valid", FIRST_LINE + "invalid"):
        raise _fail(path, 1, f"the first line must be `{FIRST_LINE}valid` or `{FIRST_LINE}invalid`")
    if lines[0].rstrip() != FIRST_LINE + kind:
        raise _fail(path, 1, f"the header says `{lines[0].rstrip()[len(FIRST_LINE):]}` but the file name "
                             f"says `{kind}`")
    values: dict[str, list[tuple[int, str]]] = {}
    header_lines = 1
    for number, line in enumerate(lines[1:], 2):
        if not line.startswith("#"):
            break
        header_lines = number
        h = _HEADER_LINE.fullmatch(line.rstrip())
        if h is None or h.group(1) not in ("note", "raises", "fix", "oracle", "jax"):
            raise _fail(path, number, "a header line is `# note: ...`, `# raises: Class: regex`, "
                                      "`# fix: title`, `# oracle: run|lower-cuda|chip` or `# jax: X.Y.Z` (the "
                                      "header ends at the first line that is not a comment)")
        key, value = h.group(1), h.group(2).strip()
        if not value:
            raise _fail(path, number, f"`# {key}:` needs a value")
        if key in _INVALID_ONLY and kind == "valid":
            raise _fail(path, number, f"`# {key}:` belongs to invalid examples (a valid one runs clean)")
        if key in _ONCE and key in values:
            raise _fail(path, number, f"`# {key}:` given twice (first on line {values[key][0][0]})")
        values.setdefault(key, []).append((number, value))

    def one(key: str, default: str = "") -> str:
        return values[key][0][1] if key in values else default

    raises = None
    if "raises" in values:
        number, value = values["raises"][0]
        r = _RAISES.fullmatch(value)
        if r is None:
            raise _fail(path, number, "`# raises:` is the error class, a colon and a regex for the message "
                                      "(`# raises: TypeError: No ir_type_handler`)")
        try:
            re.compile(r.group(2))
        except re.error as e:
            raise _fail(path, number, f"`# raises:` regex does not compile: {e}") from None
        raises = (r.group(1), r.group(2))
    elif kind == "invalid":
        raise _fail(path, header_lines, "an invalid example says what JAX raises: `# raises: Class: regex`")
    oracle = one("oracle", "run")
    if oracle not in ORACLES:
        raise _fail(path, values["oracle"][0][0], f"`# oracle:` is one of {', '.join(ORACLES)}, not `{oracle}`")
    if oracle == "lower-cuda" and not _LOWERS_FOR_CUDA.search(text):
        raise _fail(path, values["oracle"][0][0], "a lower-cuda example lowers for CUDA in its own text "
                                                  "(jax.jit(f).trace(...).lower(lowering_platforms=(\"cuda\",)))")
    jax = one("jax") or None
    if jax is not None:
        if not re.fullmatch(r"\d+\.\d+\.\d+(\.\d+)?", jax):
            raise _fail(path, values["jax"][0][0], f"`# jax:` is a release such as 0.10.2, not `{jax}`")
        if jax not in _KNOWN_RELEASES():
            raise _fail(path, values["jax"][0][0], f"`# jax: {jax}` is not a release pallas-lsp has data for "
                                                   f"({', '.join(sorted(_KNOWN_RELEASES()))})")
    marked = [n for n, line in enumerate(lines, 1) if n > header_lines and line.rstrip().endswith(ERROR_MARKER)]
    if kind == "invalid" and len(marked) != 1:
        raise _fail(path, marked[1] if marked else header_lines,
                    f"an invalid example marks exactly one line with a trailing `{ERROR_MARKER}` "
                    f"(found {len(marked)})")
    if kind == "valid" and marked:
        raise _fail(path, marked[0], f"a valid example has no `{ERROR_MARKER}` line")
    try:
        ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise _fail(path, e.lineno or 1, f"not valid Python: {e.msg}") from None
    example = Example(text, note=one("note"), oracle=oracle, raises=raises,
                      fixes=tuple(v for _, v in values.get("fix", [])), path=str(path), header_lines=header_lines,
                      jax=jax)
    return kind, example


def _example_files(folder: Path) -> list[Path]:
    """The files of a rule's folder, in file-name order (so by kind and number); bytecode
    caches and hidden files are not examples, anything else must be one."""
    return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "__")))


@lru_cache(maxsize=None)
def _load(folder: Path) -> RuleExamples:
    if not folder.is_dir():
        return RuleExamples()
    found: dict[str, list[Example]] = {"valid": [], "invalid": []}
    numbers: dict[tuple[str, str], Path] = {}
    for path in _example_files(folder):
        if path.is_dir():
            raise _fail(path, 1, "a rule's example folder holds example files, not folders")
        kind, example = parse_example(path)
        number = (kind, path.name.split("_")[1])
        if number in numbers:
            raise _fail(path, 1, f"number {number[1]} is taken by {numbers[number].name}")
        numbers[number] = path
        found[kind].append(example)
    return RuleExamples(tuple(found["valid"]), tuple(found["invalid"]))


@lru_cache(maxsize=None)
def _example_index(kinds_root: Path) -> dict[str, Path]:
    return scan(kinds_root).example_index()


def examples_dir(code: str, kinds_root: Path = KINDS_DIR) -> Path | None:
    """The folder of ``code``'s examples in its kind folder under ``kinds_root``, or None."""
    return _example_index(kinds_root).get(code)


def examples_for(code: str, root: Path | None = None) -> RuleExamples:
    """The examples of the rule ``code`` (a Python rule or a data rule): the files of its kind
    folder's ``examples/<code>/`` (``root``: read ``<root>/<code>/`` instead). No folder: no
    examples. Raises :class:`ExampleError` for the first malformed file."""
    folder = root / code if root is not None else examples_dir(code)
    return _load(folder) if folder is not None else RuleExamples()


def example_codes(root: Path | None = None) -> list[str]:
    """The rule codes that have an examples folder (in the kind folders, or under ``root``)."""
    if root is None:
        return list(_example_index(KINDS_DIR))
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))


def example_problems(codes: "set[str] | None" = None, root: Path | None = None) -> list[str]:
    """Every problem with the examples (the kind folders', or those under ``root``): malformed
    files (one per folder, the first), and folders named after no rule in ``codes`` (when given)."""
    problems = []
    for code in example_codes(root):
        folder = root / code if root is not None else examples_dir(code)
        if codes is not None and code not in codes:
            problems.append(f"{folder}: no rule has the code `{code}`")
            continue
        try:
            examples_for(code, root)
        except ExampleError as e:
            problems.append(str(e))
    return problems


def _KNOWN_RELEASES() -> frozenset[str]:
    from ..lowering import shipped_releases

    return frozenset(shipped_releases())


def oracle_releases() -> list[str]:
    """The releases other than the pinned one that the oracle runs examples under (their
    ``# jax:`` headers; chip examples are not run): scripts/test builds an environment for each."""
    found = set()
    for code in example_codes():
        ex = examples_for(code)
        found |= {e.jax for e in (*ex.valid, *ex.invalid) if e.jax is not None and e.oracle != "chip"}
    return sorted(found)


def verified_on(rule) -> tuple[str, ...]:
    """The JAX versions a rule's examples were checked on: a Python rule says so (its
    ``verified_on``); a data rule's examples are checked by the same oracle, on the version the
    examples are kept for."""
    declared = getattr(rule, "verified_on", None)
    if declared is not None:
        return tuple(declared)
    return VERIFIED_ON if examples_for(rule.code) else ()


__all__ = ["ERROR_MARKER", "Example", "ExampleError", "FIRST_LINE", "RuleExamples", "VERIFIED_ON", "example_codes",
           "example_problems", "examples_dir", "examples_for", "oracle_releases", "parse_example", "verified_on"]
