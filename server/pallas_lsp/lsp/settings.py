"""Server settings: from initializationOptions, workspace/configuration ("pallasLsp") and
didChangeConfiguration. Accepts the flat form and VS Code's nested form
(``{"codeLens": {"enable": false}}``). A bad value yields a readable problem and the default;
``null`` means the default (so a client can reset what it set before). ``select``/``ignore``
are kept as written: which rules exist depends on the records the analysis loads (this
``records`` setting, which may arrive in the same change, and a project's pyproject.toml), so
the server checks them against that rule set (``config.with_known_rules``): an unknown rule is
reported and left out, and a ``select`` of unknown rules only means the default (all rules).

These settings come from the client: the user's editor configuration, never a workspace file
(``[tool.pallas-lsp]`` has no ``pythonEnvironment``). Clients decide which of their own
workspace settings count; the VS Code extension declares ``pythonEnvironment`` and ``records``
restricted in untrusted workspaces."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..config import known_backends_only

LOG_LEVELS = ("error", "warning", "info", "debug")


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    records: tuple[str, ...] = ()
    debounce_ms: int = 0  # no delay: stale versions are superseded, never analysed (server.ensure)
    code_lens: bool = True
    what_if: bool = True  # interpret-readiness lenses and the "Debug on CPU" action on compiled launches
    fix_actions: bool = True
    # Fix-all and preferred quick fixes may also apply the fixes that change what runs (such as
    # running compiled), as ``check --unsafe-fixes`` does; off, they apply the safe ones only.
    unsafe_fixes: bool = False
    ignore_comment_actions: bool = True
    log_level: str = "info"
    cross_module: bool = True
    python_environment: str | None = None
    max_file_bytes: int = 5_000_000  # larger documents are not analysed (memory and latency stay bounded)
    backends: tuple[str, ...] | None = None  # the accelerators the code ships to (None: not set)
    # The jax release the code runs on ("0.10.2"), over a pyproject's `jax-version` (None: not
    # set; the workspace's environment decides). Its form is checked where the release is chosen.
    jax_version: str | None = None
    # The TPU chip the code targets ("v5e"), over a pyproject's `tpu-generation` (None: not set):
    # kinds only a chip shows are claimed for the generations whose chip showed them.
    tpu_generation: str | None = None


_DEFAULTS = Settings()

_KEYS = {
    "select": "select", "ignore": "ignore", "records": "records", "debounceMs": "debounce_ms",
    "debounce_ms": "debounce_ms", "codeLens": "code_lens", "whatIf": "what_if", "fixActions": "fix_actions",
    "unsafeFixes": "unsafe_fixes",
    "ignoreCommentActions": "ignore_comment_actions", "logLevel": "log_level", "crossModule": "cross_module",
    "pythonEnvironment": "python_environment", "maxFileBytes": "max_file_bytes", "codeAction": None, "path": None,
    "interpreter": None, "importStrategy": None, "trace": None, "backends": "backends",
    "jaxVersion": "jax_version", "tpuGeneration": "tpu_generation",
}


def _flatten(obj: dict) -> dict:
    flat = dict(obj)
    cl = obj.get("codeLens")
    if isinstance(cl, dict):
        flat["codeLens"] = cl.get("enable", True)
    ca = obj.get("codeAction")
    if isinstance(ca, dict):
        if isinstance(ca.get("fixes"), dict):
            flat["fixActions"] = ca["fixes"].get("enable", True)
        if isinstance(ca.get("ignoreComment"), dict):
            flat["ignoreCommentActions"] = ca["ignoreComment"].get("enable", True)
    return flat


def parse_settings(obj: object, base: Settings | None = None) -> tuple[Settings, list[str]]:
    s = base or Settings()
    problems: list[str] = []
    if obj is None:
        return s, problems
    if not isinstance(obj, dict):
        return s, [f"pallas-lsp settings must be an object, got {type(obj).__name__}; using defaults"]
    if isinstance(obj.get("pallasLsp"), dict):
        obj = obj["pallasLsp"]
    obj = _flatten(obj)
    updates: dict = {}
    for key, value in obj.items():
        field_name = _KEYS.get(key, "?")
        if field_name is None:
            continue
        if field_name == "?":
            problems.append(f"unknown pallas-lsp setting `{key}` (ignored)")
            continue
        if value is None:  # null: back to the default
            updates[field_name] = getattr(_DEFAULTS, field_name)
            continue
        if field_name in ("select", "ignore", "records", "backends"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                problems.append(f"pallas-lsp setting `{key}` must be a list of strings; using the default")
                continue
            value = tuple(value)
            if field_name == "backends":
                value = known_backends_only(value, f"pallas-lsp setting `{key}`", problems)
            updates[field_name] = value
        elif field_name == "max_file_bytes":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1000:
                problems.append(f"pallas-lsp setting `{key}` must be a number of bytes (at least 1000); "
                                "using the default")
                continue
            updates[field_name] = value
        elif field_name == "debounce_ms":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 10_000:
                problems.append(f"pallas-lsp setting `{key}` must be a number of milliseconds between 0 and "
                                f"10000; using the default ({Settings.debounce_ms})")
                continue
            updates[field_name] = int(value)
        elif field_name in ("code_lens", "what_if", "fix_actions", "unsafe_fixes", "ignore_comment_actions",
                            "cross_module"):
            if not isinstance(value, bool):
                problems.append(f"pallas-lsp setting `{key}` must be true or false; using the default")
                continue
            updates[field_name] = value
        elif field_name == "log_level":
            if value not in LOG_LEVELS:
                problems.append(f"pallas-lsp setting `{key}` must be one of {', '.join(LOG_LEVELS)}; using info")
                continue
            updates[field_name] = value
        elif field_name == "jax_version":
            if not isinstance(value, str):
                problems.append(f"pallas-lsp setting `{key}` must be a jax version such as \"0.10.2\"; ignored")
                continue
            updates[field_name] = value
        elif field_name == "tpu_generation":
            from ..chips import generation_problem

            problem = generation_problem(value, f"pallas-lsp setting `{key}`")
            if problem is not None:
                problems.append(f"{problem}; ignored")
                continue
            updates[field_name] = value
        elif field_name == "python_environment":
            if not isinstance(value, str):
                problems.append(f"pallas-lsp setting `{key}` must be a path; ignored")
                continue
            updates[field_name] = value
    return replace(s, **updates), problems
