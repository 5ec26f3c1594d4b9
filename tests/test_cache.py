"""``check``'s on-disk cache (cache.py): used when valid, never trusted when planted, never
written where a repository says outside itself."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from pallas_lsp.cache import CheckCache, content_hash
from pallas_lsp.cli import main

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
KERNEL = (CORPUS / "get_global_interpret_true_basic.py").read_text()


def _check(*args: str) -> tuple[list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(["check", "--output-format", "json", *args])
        except SystemExit:
            pass
    return json.loads(out.getvalue() or "[]"), err.getvalue()


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (root / "k.py").write_text(KERNEL)
    return root


def test_a_second_run_answers_from_the_cache_and_an_edit_is_seen(tmp_path, monkeypatch):
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _project(tmp_path)
    first, _ = _check(str(root))
    assert [f["code"] for f in first] == ["PAL001"]
    folder = root / ".pallas-lsp-cache"
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    cache = CheckCache.open(folder, root)
    assert cache is not None and str(root / "k.py") in cache.results
    # A result answered from the cache is the same; an edited file is analysed again.
    assert _check(str(root))[0] == first
    (root / "k.py").write_text(KERNEL.replace("interpret=True", "interpret=False"))
    assert _check(str(root))[0] == []


def test_a_planted_cache_is_ignored(tmp_path, monkeypatch):
    """A cache committed to a repository (or written by someone else) claims the file has no
    findings: it does not verify under this user's key and is not used."""
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _project(tmp_path)
    _check(str(root))
    cache = CheckCache.open(root / ".pallas-lsp-cache", root)
    body = json.loads(cache.file.read_bytes().partition(b"\n")[2])
    for entry in body["results"].values():
        entry["findings"] = []
    forged = json.dumps(body).encode()
    cache.file.write_bytes(content_hash("guess").encode() + b"\n" + forged)
    assert [f["code"] for f in _check(str(root))[0]] == ["PAL001"]
    # Signed with another key (another user's cache): the same.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-user"))
    other = CheckCache.open(root / ".pallas-lsp-cache", root)
    assert other is not None and other.results == {}


def test_no_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _project(tmp_path)
    _check("--no-cache", str(root))
    monkeypatch.setenv("PALLAS_LSP_NO_CACHE", "1")
    _check(str(root))
    assert not (root / ".pallas-lsp-cache").exists()


def test_cache_dir_setting_is_kept_inside_the_project(tmp_path, monkeypatch):
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _project(tmp_path)
    outside = tmp_path / "elsewhere"
    (root / "pyproject.toml").write_text("[tool.pallas-lsp]\ncache-dir = '../elsewhere'\n")
    findings, err = _check(str(root))
    assert [f["code"] for f in findings] == ["PAL001"]
    assert "`cache-dir` outside the project" in err
    assert not outside.exists() and (root / ".pallas-lsp-cache").exists()
    (root / "pyproject.toml").write_text("[tool.pallas-lsp]\ncache-dir = 'build/lint-cache'\n")
    _check(str(root))
    assert (root / "build" / "lint-cache" / ".gitignore").exists()


def test_a_damaged_cache_file_is_a_miss(tmp_path, monkeypatch):
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _project(tmp_path)
    _check(str(root))
    cache = CheckCache.open(root / ".pallas-lsp-cache", root)
    cache.file.write_bytes(b"\x00garbage")
    assert [f["code"] for f in _check(str(root))[0]] == ["PAL001"]


def test_import_edges_are_kept_and_dropped_when_the_layout_changes(tmp_path, monkeypatch):
    """A second run takes each module's import edges from the cache (no import is resolved
    again); a new file or an edited package __init__ (where imports land, what is re-exported)
    makes every edge be worked out again, and the findings follow the new layout."""
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    launcher = KERNEL.replace("interpret=True", "interpret=interpret").replace(
        "def add_one(x):", "def add_one(x, interpret=False):")
    assert "def add_one(x, interpret=False)" in launcher and "interpret=interpret" in launcher
    (root / "pkg" / "impl.py").write_text(launcher)
    (root / "pkg" / "__init__.py").write_text("")
    caller = "from pkg import {name}\n\n{name}(None, interpret=True)\n"
    from pallas_lsp.analysis import program as P

    resolved: list[str] = []
    real = P.Program._fact_targets

    def counting(self, from_path, fact, depth):
        resolved.append(from_path)
        return real(self, from_path, fact, depth)

    monkeypatch.setattr(P.Program, "_fact_targets", counting)
    _check(str(root))
    assert resolved
    resolved.clear()
    _check(str(root))
    assert not resolved  # (every edge from the cache)
    # A new module: the layout changed, edges are resolved again.
    (root / "run.py").write_text(caller.format(name="impl"))
    _check(str(root))
    assert resolved
    resolved.clear()
    # `from pkg import launch` lands where the __init__ takes `launch` from: first a plain
    # module, then (the __init__ edited) the launcher. A kept edge would still lead to the
    # plain module, and the launcher's caller would be missed.
    (root / "pkg" / "plain.py").write_text("def launch(x, interpret=False):\n    return x\n")
    (root / "pkg" / "__init__.py").write_text("from .plain import launch\n")
    (root / "run.py").write_text(caller.format(name="launch"))
    before, _ = _check(str(root))
    resolved.clear()
    (root / "pkg" / "__init__.py").write_text("from .impl import add_one as launch\n")
    after, _ = _check(str(root))
    assert resolved
    fresh, _ = _check("--no-cache", str(root))
    assert after == fresh and after != before


def _two_modules(tmp_path: Path) -> Path:
    """k.py launches with the mode mode.py decides (a dependency read through the workspace)."""
    root = _project(tmp_path)
    (root / "mode.py").write_text("INTERPRET = True\n")
    (root / "k.py").write_text("from mode import INTERPRET\n" + KERNEL.replace("interpret=True", "interpret=INTERPRET"))
    return root


def _reads(monkeypatch) -> list[str]:
    """The modules the workspace program reads from disk (the checked file itself aside)."""
    from pallas_lsp.analysis.caches import DiskTexts

    seen: list[str] = []
    real = DiskTexts.read
    monkeypatch.setattr(DiskTexts, "read", lambda self, path, *a: seen.append(Path(path).name) or real(self, path, *a))
    return seen


def test_a_settled_file_is_not_read_again(tmp_path, monkeypatch):
    """A module whose stat is what it was read under gives its hash from the cache, unread."""
    from pallas_lsp import cache

    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache, "SETTLED_NS", 0)  # (the files were written just now)
    root = _two_modules(tmp_path)
    first, _ = _check(str(root / "k.py"))
    assert [f["code"] for f in first] == ["PAL001"]
    reads = _reads(monkeypatch)
    assert _check(str(root / "k.py"))[0] == first
    assert "mode.py" not in reads and "pyproject.toml" not in reads


def test_a_file_written_just_before_it_was_read_is_read_again(tmp_path, monkeypatch):
    """git's racy-clean case: a file changed within SETTLED_NS of being read could change again
    without its stat showing it, so its kept hash is not trusted."""
    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    root = _two_modules(tmp_path)
    _check(str(root / "k.py"))
    reads = _reads(monkeypatch)
    _check(str(root / "k.py"))
    assert "mode.py" in reads


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path, monkeypatch):
    """A module rewritten with a text of the same size and its mtime set back (``touch -d``):
    its ctime says it changed, so it is read again and the mode it decides now is used."""
    import os

    from pallas_lsp import cache

    monkeypatch.delenv("PALLAS_LSP_CACHE_DIR", raising=False)
    monkeypatch.setattr(cache, "SETTLED_NS", 0)
    root = _two_modules(tmp_path)
    mode = root / "mode.py"
    assert [f["code"] for f in _check(str(root / "k.py"))[0]] == ["PAL001"]
    before = os.stat(mode)
    mode.write_text("INTERPRET = None\n")  # (as many bytes: compiled, no finding)
    os.utime(mode, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(mode)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert _check(str(root / "k.py"))[0] == []
