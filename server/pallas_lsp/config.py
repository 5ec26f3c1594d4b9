"""Project configuration: ``[tool.pallas-lsp]`` in the nearest pyproject.toml above a file.

    [tool.pallas-lsp]
    select = ["PAL001", "inline-mgpu-interpret"]   # rule codes or names (default: all)
    ignore = ["PAL004"]
    records = ["errors/extra-records.json"]        # relative to the pyproject.toml

A bad value gets a readable problem and the default; it never stops the analysis.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SECTION = "pallas-lsp"


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    records: tuple[str, ...] = ()  # absolute paths
    source: str | None = None  # the pyproject.toml it came from
    problems: tuple[str, ...] = ()

    def merged(self, other: "Config") -> "Config":
        """``other`` (e.g. editor settings) layered under this file config."""
        return Config(
            select=self.select if self.select is not None else other.select,
            ignore=tuple(dict.fromkeys(other.ignore + self.ignore)),
            records=tuple(dict.fromkeys(other.records + self.records)),
            source=self.source or other.source,
            problems=other.problems + self.problems,
        )


def _string_list(value: object, key: str, where: str, problems: list[str]) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: `{key}` must be a list of strings; using the default")
        return None
    return tuple(value)


def config_from_table(table: object, base: Path, where: str) -> Config:
    problems: list[str] = []
    if not isinstance(table, dict):
        return Config(source=where, problems=(f"{where}: [tool.{SECTION}] must be a table",))
    select = ignore = records = None
    for key, value in table.items():
        if key == "select":
            select = _string_list(value, key, where, problems)
        elif key == "ignore":
            ignore = _string_list(value, key, where, problems)
        elif key == "records":
            records = _string_list(value, key, where, problems)
        else:
            problems.append(f"{where}: unknown setting `{key}` (known: select, ignore, records)")
    resolved = tuple(str((base / r).resolve()) for r in records or ())
    return Config(select, ignore or (), resolved, where, tuple(problems))


@lru_cache(maxsize=512)
def _load_pyproject(path: str, mtime_ns: int) -> Config | None:
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Config(source=path, problems=(f"{path}: cannot read: {exc}",))
    except tomllib.TOMLDecodeError as exc:
        return Config(source=path, problems=(f"{path}: not valid TOML: {exc}",))
    tool = data.get("tool")
    if not isinstance(tool, dict) or SECTION not in tool:
        return None
    return config_from_table(tool[SECTION], p.parent, path)


def find_config(file_path: str | Path, stop_at: Path | None = None) -> Config:
    """The config of the nearest pyproject.toml (with a [tool.pallas-lsp] table) above a file."""
    start = Path(file_path).resolve()
    folder = start if start.is_dir() else start.parent
    for d in (folder, *folder.parents):
        candidate = d / "pyproject.toml"
        try:
            st = candidate.stat()
        except OSError:
            st = None
        if st is not None:
            cfg = _load_pyproject(str(candidate), st.st_mtime_ns)
            if cfg is not None:
                if stop_at is not None:
                    # Re-check record paths against the workspace boundary.
                    return _confine(cfg, stop_at)
                return cfg
        if stop_at is not None and d == stop_at:
            break
    return Config()


def _confine(cfg: Config, workspace: Path) -> Config:
    kept, problems = [], list(cfg.problems)
    for r in cfg.records:
        try:
            Path(r).relative_to(workspace.resolve())
            kept.append(r)
        except ValueError:
            problems.append(f"{cfg.source}: records path `{r}` is outside the workspace; ignored")
    return Config(cfg.select, cfg.ignore, tuple(kept), cfg.source, tuple(problems))
