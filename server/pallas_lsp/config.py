"""Project configuration: ``[tool.pallas-lsp]`` in the nearest pyproject.toml above a file.

    [tool.pallas-lsp]
    select = ["PAL001", "inline-mgpu-interpret"]   # rule codes or names (default: all)
    ignore = ["PAL004"]
    records = ["errors/extra-records.json"]        # relative to the pyproject.toml
    backends = ["tpu", "mosaic_gpu"]               # the accelerators this code ships to
    what-if = false                                # no interpret-readiness lenses or "Debug on CPU"
    jax-version = "0.10.2"                         # the jax the code runs on (default: the workspace's)
    tpu-generation = "v5e"                         # the TPU chip the code targets (docs/chips.md)

A bad value gets a readable problem and the default; it never stops the analysis. An unknown
rule in ``select`` or ``ignore`` is reported and left out (a ``select`` of nothing but unknown
rules would otherwise turn every rule off: it falls back to the default, all rules). Which rules
are known depends on the records the run loads (a team's records may declare rules, and
``records`` sits beside ``select``), so ``select``/``ignore`` are kept as written here and
checked by whoever knows the run's rule set: :func:`with_known_rules`.

Record paths come from the workspace, which is untrusted: each must lie inside the folder that
holds its ``pyproject.toml`` (the project), after symbolic links are resolved, and so must every
``*.json`` file of a records folder. Anything else is refused with a message that names the
path as written and nothing about what is there (not whether it exists). A user's own records
(``--records``, the editor's settings) are not confined.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SECTION = "pallas-lsp"


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    records: tuple[str, ...] = ()  # absolute paths, allowed to be read
    source: str | None = None  # the pyproject.toml it came from
    problems: tuple[str, ...] = ()
    # Record paths as written in ``source`` (relative to its folder): untrusted until
    # :func:`confine_records` has checked them; never read directly.
    project_records: tuple[str, ...] = ()
    # The backends compiled launches whose backend the code does not say run on
    # ("tpu", "triton", "mosaic_gpu"; None: not set).
    backends: tuple[str, ...] | None = None
    # ``check --assume-interpret``: analyse compiled launches as if launched in this interpret mode.
    assume_interpret: str | None = None
    # ``check --assume-compiled``: analyse interpreted launches as if compiled for this backend ("tpu").
    assume_compiled: str | None = None
    what_if: bool | None = None  # ``what-if = false``: no interpret-readiness lens or action (None: not set)
    # ``cache-dir``: where ``check`` keeps its cache, as written (relative to the pyproject's
    # folder); :func:`cache_folder` checks it stays inside.
    cache_dir: str | None = None
    # ``jax-version``: the jax release the code runs on, as written (releases.choose_release
    # checks it), and where it was written (a pyproject.toml, "--jax-version", "jaxVersion").
    jax_version: str | None = None
    jax_version_from: str | None = None
    # ``tpu-generation``: the TPU chip the code targets ("v5e"; checked when read), and where it
    # was written; chip-only kinds are claimed only for the generations their chips showed.
    tpu_generation: str | None = None
    tpu_generation_from: str | None = None

    def merged(self, other: "Config") -> "Config":
        """``other`` (e.g. editor settings) layered under this file config."""
        return Config(
            select=self.select if self.select is not None else other.select,
            ignore=tuple(dict.fromkeys(other.ignore + self.ignore)),
            records=tuple(dict.fromkeys(other.records + self.records)),
            source=self.source or other.source,
            problems=other.problems + self.problems,
            project_records=self.project_records,
            backends=self.backends if self.backends is not None else other.backends,
            assume_interpret=self.assume_interpret or other.assume_interpret,
            assume_compiled=self.assume_compiled or other.assume_compiled,
            what_if=self.what_if if self.what_if is not None else other.what_if,
            cache_dir=self.cache_dir if self.cache_dir is not None else other.cache_dir,
            jax_version=self.jax_version if self.jax_version is not None else other.jax_version,
            jax_version_from=self.jax_version_from if self.jax_version is not None else other.jax_version_from,
            tpu_generation=self.tpu_generation if self.tpu_generation is not None else other.tpu_generation,
            tpu_generation_from=(self.tpu_generation_from if self.tpu_generation is not None
                                 else other.tpu_generation_from),
        )


def _string_list(value: object, key: str, where: str, problems: list[str]) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: `{key}` must be a list of strings; using the default")
        return None
    return tuple(value)


def config_from_table(table: object, base: Path, where: str) -> Config:
    """The ``[tool.pallas-lsp]`` table of ``where`` (a pyproject.toml in the folder ``base``).
    Its record paths stay as written, in ``project_records``: :func:`confine_records` checks
    them against ``base`` each time the config is used."""
    problems: list[str] = []
    if not isinstance(table, dict):
        return Config(source=where, problems=(f"{where}: [tool.{SECTION}] must be a table",))
    select = ignore = records = backends = None
    what_if: bool | None = None
    cache_dir: str | None = None
    jax_version: str | None = None
    tpu_generation: str | None = None
    for key, value in table.items():
        if key == "select":
            select = _string_list(value, key, where, problems)
        elif key == "ignore":
            ignore = _string_list(value, key, where, problems)
        elif key == "records":
            records = _string_list(value, key, where, problems)
        elif key == "backends":
            backends = known_backends_only(_string_list(value, key, where, problems), f"{where}: `backends`",
                                           problems)
        elif key == "what-if":
            if isinstance(value, bool):
                what_if = value
            else:
                problems.append(f"{where}: `what-if` must be true or false; using the default (true)")
        elif key == "cache-dir":
            if isinstance(value, str) and value and "\0" not in value:
                cache_dir = value
            else:
                problems.append(f"{where}: `cache-dir` must be a path; using the default")
        elif key == "jax-version":
            if isinstance(value, str):
                jax_version = value  # (its form is checked where the release is chosen)
            else:
                problems.append(f"{where}: `jax-version` must be a string such as \"0.10.2\"; using the default")
        elif key == "tpu-generation":
            from .chips import generation_problem

            problem = generation_problem(value, where)
            if problem is None:
                tpu_generation = value
            else:
                problems.append(f"{problem}; no generation is chosen")
        else:
            problems.append(f"{where}: unknown setting `{key}` (known: select, ignore, records, backends, what-if, "
                            "cache-dir, jax-version, tpu-generation)")
    # (select/ignore as written: their rules are checked once the run's records are loaded)
    return Config(select, ignore or (), (), where, tuple(problems), project_records=tuple(records or ()),
                  backends=backends, what_if=what_if, cache_dir=cache_dir,
                  jax_version=jax_version, jax_version_from=where if jax_version is not None else None,
                  tpu_generation=tpu_generation, tpu_generation_from=where if tpu_generation is not None else None)


def cache_folder(cfg: Config, default: Path) -> tuple[Path, str | None]:
    """Where ``check`` keeps its cache: ``cfg.cache_dir`` resolved against the folder of its
    pyproject.toml when it stays inside that folder, else ``default``; and the problem to
    report when it was refused (a cloned repository must not make ``check`` write elsewhere)."""
    if cfg.cache_dir is None or cfg.source is None:
        return default, None
    project = Path(cfg.source).parent.resolve()
    target = _real(project / cfg.cache_dir)
    if target is None or not _inside(target, project):
        return default, f"{cfg.source}: `cache-dir` outside the project: {cfg.cache_dir} (refused)"
    return target, None


BACKENDS = ("tpu", "triton", "mosaic_gpu", "cpu")  # cpu: the code also runs on CPU hosts


def known_backends_only(values: tuple[str, ...] | None, what: str, problems: list[str]) -> tuple[str, ...] | None:
    """``values`` without unknown backend names, each reported as a problem of ``what``."""
    if values is None:
        return None
    for v in values:
        if v not in BACKENDS:
            problems.append(f"{what}: unknown backend `{v}` (known: {', '.join(BACKENDS)}); ignored")
    return tuple(v for v in values if v in BACKENDS)


def rule_keys(rules: Iterable) -> tuple[set[str], set[str]]:
    """(codes, names) of ``rules``: the rule set of the run (the built-in rules and those its
    records' detection sections declare)."""
    rules = tuple(rules)
    return {r.code for r in rules}, {r.name for r in rules}


def unknown_rules(values: Iterable[str], rules: Iterable, *, prefixes: bool = True) -> list[str]:
    """Entries that select no rule of ``rules``, as the engine reads them: a code, a name or
    (for ``select`` only) a code prefix such as ``PAL00``."""
    codes, names = rule_keys(rules)
    out = []
    for raw in values:
        v = raw.strip()
        if v in codes or v in names:
            continue
        if prefixes and v and any(c.startswith(v) for c in codes):
            continue
        out.append(raw)
    return out


def known_rules_hint(rules: Iterable) -> str:
    codes, _ = rule_keys(rules)
    return f"known: {', '.join(sorted(codes))} or their names (`pallas-lsp rules`)"


def known_rules_only(values: tuple[str, ...], what: str, problems: list[str], rules: Iterable, *,
                     prefixes: bool = True) -> tuple[str, ...]:
    """``values`` without the entries that name no rule of ``rules``; each one is reported as a
    problem of ``what``."""
    rules = tuple(rules)
    unknown = unknown_rules(values, rules, prefixes=prefixes)
    for u in unknown:
        problems.append(f"{what}: unknown rule `{u}` ({known_rules_hint(rules)}); ignored")
    return tuple(v for v in values if v not in unknown)


def with_known_rules(cfg: Config, rules: Iterable, label: str | None = None) -> Config:
    """``cfg`` with its ``select`` and ``ignore`` checked against ``rules``, the rule set the
    run uses (built-in rules and those of the records it loads): unknown entries reported
    (``label``, e.g. ``"pallas-lsp setting"``, names where they were written; by default the
    pyproject.toml) and left out, and a ``select`` left with none known meaning all rules."""
    if not cfg.select and not cfg.ignore:
        return cfg
    rules = tuple(rules)
    label = label if label is not None else f"{cfg.source}:"
    problems: list[str] = []
    select = cfg.select
    if select:
        select = known_rules_only(select, f"{label} `select`", problems, rules) or None
        if select is None:  # an empty select would run no rule at all
            problems.append(f"{label} `select` names no known rule; using the default (all rules)")
    ignore = known_rules_only(cfg.ignore, f"{label} `ignore`", problems, rules, prefixes=False)
    if not problems:
        return cfg
    return replace(cfg, select=select, ignore=ignore, problems=cfg.problems + tuple(problems))


@lru_cache(maxsize=512)
def _load_pyproject(path: str, mtime_ns: int) -> Config | None:
    from .files import MAX_CONFIG_BYTES, read_regular_text

    p = Path(path)
    try:  # a regular file of bounded size only: a FIFO or /dev/zero here must not stall or fill memory
        data = tomllib.loads(read_regular_text(p, MAX_CONFIG_BYTES))
    except OSError as exc:
        return Config(source=path, problems=(f"{path}: cannot read: {getattr(exc, 'reason', exc)}",))
    except tomllib.TOMLDecodeError as exc:
        return Config(source=path, problems=(f"{path}: not valid TOML: {exc}",))
    tool = data.get("tool")
    if not isinstance(tool, dict) or SECTION not in tool:
        return None
    return config_from_table(tool[SECTION], p.parent, path)


def find_config(file_path: str | Path, stop_at: Path | None = None) -> Config:
    """The config of the nearest pyproject.toml (with a [tool.pallas-lsp] table) above a file,
    its record paths checked (:func:`confine_records`). ``stop_at`` (the server's workspace
    root) ends the search upward."""
    start = Path(os.path.realpath(file_path))  # never raises (a symlink loop is a name like any other)
    folder = start if os.path.isdir(start) else start.parent
    for d in (folder, *folder.parents):
        candidate = d / "pyproject.toml"
        try:
            st = candidate.stat()
        except OSError:
            st = None
        if st is not None:
            cfg = _load_pyproject(str(candidate), st.st_mtime_ns)
            if cfg is not None:
                # Checked on every call, not cached with the file: a link or a records
                # folder may change while the pyproject.toml does not.
                return confine_records(cfg, d)
        if stop_at is not None and d == stop_at.resolve():
            break
    return Config()


MAX_RECORD_FILES_PER_FOLDER = 1000


def _real(path: Path) -> Path | None:
    """The path with every link followed; None for a link loop (refused like any path
    outside, so the message says nothing about where the loop is)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _inside(path: Path, project: Path) -> bool:
    try:
        path.relative_to(project)
        return True
    except ValueError:
        return False


def confine_records(cfg: Config, project: Path) -> Config:
    """``cfg`` with the record paths of its pyproject.toml that lie inside ``project`` (the
    folder of that file), resolved, as ``records``; every other one refused as a problem.

    The message is the same whatever the path names (a file, a folder, a link, nothing at
    all), so a workspace cannot learn from it what exists outside. A records folder inside the
    project contributes its ``*.json`` files, each checked the same way (a link in it may
    point anywhere)."""
    if not cfg.project_records:
        return cfg
    root = project.resolve()
    kept: list[str] = []
    problems = list(cfg.problems)

    def refuse(shown: str) -> None:
        problems.append(f"{cfg.source}: records path outside the project: {shown} (refused)")

    for entry in cfg.project_records:
        # resolve() follows every link (also ``..`` after a link), then containment is checked
        # on the real path.
        target = _real(root / entry)
        if target is None or not _inside(target, root):
            refuse(entry)
            continue
        if not os.path.isdir(target):  # os.path: never raises (pathlib does on EACCES)
            kept.append(str(target))  # inside: a missing file is reported when it is loaded
            continue
        try:
            children = sorted(c for c in os.listdir(target) if c.endswith(".json"))
        except OSError as exc:
            problems.append(f"{cfg.source}: records folder {entry}: cannot list: {exc.strerror}")
            continue
        if len(children) > MAX_RECORD_FILES_PER_FOLDER:
            problems.append(f"{cfg.source}: records folder {entry}: more than {MAX_RECORD_FILES_PER_FOLDER} "
                            f"*.json files; only the first {MAX_RECORD_FILES_PER_FOLDER} are read")
            children = children[:MAX_RECORD_FILES_PER_FOLDER]
        for child in children:
            real = _real(target / child)
            if real is not None and _inside(real, root):
                kept.append(str(real))
            else:
                refuse(os.path.join(entry, child))
    return replace(cfg, records=tuple(dict.fromkeys(kept)), problems=tuple(problems))
