"""Which jax release a workspace's code is checked against, and why.

Decided in this order: an explicit setting (``check --jax-version``, ``jax-version`` in
``[tool.pallas-lsp]``, the server's ``jaxVersion``); else the jax installed in the workspace's
environment (the ``python`` setting, a ``.venv``/``venv`` at the root), read from its metadata;
else the jax of the environment pallas-lsp itself runs in (its metadata, never imported); else
the newest release whose knowledge ships. The version found is then mapped onto a shipped
release (:func:`pallas_lsp.lowering.shipped_releases`): the same one, else the shipped release of
the same minor, else the nearest, with a note saying what was not verified.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .analysis.contexts import JaxRelease
from .environment import environment_prefix, workspace_jax_version
from .lowering import PINNED_RELEASE, release_facts, shipped_releases

# Where the version came from (ReleaseChoice.source), beside the setting's own label
# ("--jax-version", a pyproject.toml, "jaxVersion") and the workspace environment's folder.
OWN = "pallas-lsp's environment"
DEFAULT = "default"

_VERSION = re.compile(r"^\d+\.\d+(\.\d+)*$")


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.split(r"[.+-]", version) if p.isdigit())


def release_version(text: str) -> str | None:
    """The release part of a version string ("0.10.2" of "0.10.2", "0.4.30.dev2024" -> "0.4.30"),
    or None when it is not a jax version."""
    text = text.strip()
    match = re.match(r"^\d+\.\d+(\.\d+)*", text)
    return match.group(0) if match else None


@dataclass(frozen=True)
class ReleaseChoice:
    version_found: str | None  # the jax version the setting or environment names (None: none)
    release_used: str  # the shipped release whose knowledge is used
    source: str  # the setting's label, the environment's folder (".venv"), OWN or DEFAULT
    note: str = ""  # why release_used is not version_found, or what was not verified
    problem: str | None = None  # a malformed setting, reported to the user

    @property
    def is_default(self) -> bool:
        """Knowledge of the pinned release, found nowhere else (nothing worth saying)."""
        return self.release_used == PINNED_RELEASE and self.source in (DEFAULT, OWN)

    def as_json(self) -> dict:
        data = asdict(self)
        data.pop("problem")
        return data

    def described(self) -> str:
        """``jax 0.10.2 (from the workspace's .venv)``, for a hover or the server's log; says
        which release's knowledge is used when it is not the one found."""
        found = self.version_found or self.release_used
        text = f"jax {found} ({_source_words(self.source)})"
        if release_version(found) != self.release_used:
            text += f"; knowledge of {self.release_used} used"
        return text

    def summary(self) -> str:
        """``jax 0.10.2 from .venv``, for a summary line."""
        found = self.version_found or self.release_used
        text = f"jax {found} from {self.source}"
        return f"{text}; {self.note}" if self.note else text


def _source_words(source: str) -> str:
    if source == DEFAULT:
        return "the newest verified release: no setting and no jax found"
    if source == OWN:
        return "from pallas-lsp's own environment"
    if source == "--jax-version":
        return "from --jax-version"
    if source == "jaxVersion":
        return "from the jaxVersion setting"
    if source.endswith("pyproject.toml"):
        return f"from `jax-version` in {source}"
    return f"from the workspace's {source}"


def map_to_shipped(version: str, shipped: tuple[str, ...] | None = None) -> tuple[str, str]:
    """(shipped release, note) for a jax version."""
    shipped = shipped or shipped_releases()
    if version in shipped:
        return version, ""
    key = _key(version)
    same_minor = [r for r in shipped if _key(r)[:2] == key[:2]]
    if same_minor:
        used = same_minor[-1]
        return used, f"{version}: knowledge of {used} used"
    nearest = shipped[0] if key < _key(shipped[0]) else shipped[-1]
    return nearest, (f"{version}: nothing verified for it (shipped: {shipped[0]} to {shipped[-1]}); "
                     f"knowledge of {nearest} used")


def _own_jax_version() -> str | None:
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return None


def _shown(prefix: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(prefix.resolve().relative_to(root.resolve()))
        except (ValueError, OSError):
            pass
    return str(prefix)


def choose_release(explicit: str | None, environment_setting: str | None, root: Path | None,
                   *, explicit_from: str = "setting", own_version=_own_jax_version) -> ReleaseChoice:
    """The release to use: see the module docstring. ``explicit``: the setting as written, from
    ``explicit_from`` (malformed: reported as ``problem``, then the next source decides)."""
    problem = None
    if explicit is not None:
        version = explicit.strip() if isinstance(explicit, str) else ""
        if _VERSION.match(version):
            used, note = map_to_shipped(version)
            return ReleaseChoice(version, used, explicit_from, note)
        problem = (f"{explicit_from}: `jax-version` must be a jax version such as {PINNED_RELEASE}, "
                   f"not {explicit!r}; ignored")
    found = workspace_jax_version(environment_setting, root)
    prefix = environment_prefix(environment_setting, root)
    source = _shown(prefix, root) if prefix is not None else ""
    if found is None or release_version(found) is None:
        found, source = own_version(), OWN
    shipped = release_version(found) if found is not None else None
    if shipped is not None:
        version = shipped
        used, note = map_to_shipped(version)
        return ReleaseChoice(found, used, source, note, problem)
    return ReleaseChoice(None, shipped_releases()[-1], DEFAULT, "", problem)


def release_for_config(cfg, environment_setting: str | None, fallback_root: Path | None) -> ReleaseChoice:
    """The release for settings (a ``config.Config``): its ``jax-version``, else the jax of the
    workspace's environment (``environment_setting``; else a ``.venv`` beside the pyproject.toml
    the settings came from, or at ``fallback_root``), else pallas-lsp's own, else the newest."""
    root = Path(cfg.source).parent if cfg.source else fallback_root
    return choose_release(cfg.jax_version, environment_setting, root,
                          explicit_from=cfg.jax_version_from or "setting")


@lru_cache(maxsize=None)
def analysis_release(release: str) -> JaxRelease:
    """What the analysis needs of a shipped release, as plain values (the pinned release's
    version is left "": the rules' defaults, and the analysis caches' keys, stay as they were)."""
    facts = release_facts(release)
    return JaxRelease("" if release == PINNED_RELEASE else release, facts.gpu_pallas_call_default,
                      (facts.mosaic_gpu_default_lowering_semantics or "Warpgroup").lower(), facts.public_names)
