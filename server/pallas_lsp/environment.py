"""Facts about the user's Python environment, read from files only (never by importing)."""
from __future__ import annotations

import glob
import os
from functools import lru_cache
from pathlib import Path

from .files import MAX_METADATA_BYTES, FileReadError, read_regular_text


def _site_packages(prefix: Path) -> list[Path]:
    pats = [prefix / "lib" / "python3*" / "site-packages", prefix / "Lib" / "site-packages"]
    out: list[Path] = []
    for p in pats:
        out += [Path(x) for x in glob.glob(str(p))]
    return out


@lru_cache(maxsize=32)
def _jax_version_at(prefix: str, stamp: float) -> str | None:
    for sp in _site_packages(Path(prefix)):
        for meta in sorted(sp.glob("jax-*.dist-info/METADATA")):
            try:
                # The environment is the workspace's: a FIFO or a link to /dev/zero here must
                # neither block a hover nor fill memory (regular files of bounded size only).
                text = read_regular_text(meta, MAX_METADATA_BYTES, errors="replace")
            except FileReadError:
                continue
            for line in text.splitlines()[:40]:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    return None


def environment_prefix(setting: str | None, root: Path | None) -> Path | None:
    """The workspace's environment: the setting (a venv folder or its python), else a .venv or
    venv folder at the workspace root."""
    # os.path's checks, not Path's: they answer False for an entry that cannot be examined
    # (no permission, a symlink loop) instead of raising.
    if setting:
        p = Path(setting)
        if os.path.isfile(p):  # .../bin/python
            p = p.parent.parent
        return p if os.path.exists(p) else None
    if root is not None:
        for name in (".venv", "venv", "env"):
            cand = root / name
            if os.path.exists(cand / "pyvenv.cfg"):
                return cand
    return None


def workspace_jax_version(setting: str | None, root: Path | None) -> str | None:
    prefix = environment_prefix(setting, root)
    if prefix is None:
        return None
    try:
        # (site-packages' own times too: installing another jax adds a folder there, not in prefix)
        stamp = max([os.stat(prefix).st_mtime] + [os.stat(sp).st_mtime for sp in _site_packages(prefix)])
    except OSError:
        return None
    return _jax_version_at(str(prefix), stamp)
