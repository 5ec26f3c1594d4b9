import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus_labels() -> dict:
    return json.loads((CORPUS / "labels.json").read_text())


def pallas_cli() -> list[str]:
    """How tests start the CLI: the installed console script next to the running Python."""
    import sys

    exe = Path(sys.executable).with_name("pallas-lsp")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "pallas_lsp"]

# Fixture workspaces hold test files of their own (analysed, never run).
collect_ignore_glob = ["data/*"]


def fast_tier_expression(config: pytest.Config) -> str | None:
    """The `-m` expression pyproject's addopts gives plain `pytest` (the fast tier)."""
    addopts = config.getini("addopts")
    for flag, value in zip(addopts, addopts[1:]):
        if flag == "-m":
            return value
    return None


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (addopts) spreads the fast tier over every core. Any other selection of tiers
    (`-m oracle`, `-m editor`, scripts/test's `-m ""`) runs in one process: the oracle starts all
    the programs its tests need at once (two at a time) in each process that runs any of them,
    and the editor tests drive real editors."""
    if config.option.markexpr != fast_tier_expression(config):
        return 0
    return None  # xdist's own count


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_checkout(tmp_path_factory):
    """``check`` keeps its cache at the checked tree's root by default: the tests' runs keep
    theirs (and the HMAC key) in a temporary folder instead of inside tests/data."""
    import os

    folder = tmp_path_factory.mktemp("pallas-lsp-cache")
    saved = {k: os.environ.get(k) for k in ("PALLAS_LSP_CACHE_DIR", "XDG_CACHE_HOME")}
    os.environ["PALLAS_LSP_CACHE_DIR"] = str(folder / "cache")
    os.environ["XDG_CACHE_HOME"] = str(folder / "user")
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v



@pytest.fixture
def fresh_engine():
    """An engine of the built-in rules with caches of its own (block parses, splits, file
    texts): nothing another test analysed is seen through it."""
    from pallas_lsp.rules import default_engine

    return default_engine()


@pytest.fixture
def fresh_incremental_engine():
    """:func:`fresh_engine` that keeps each document's launch results for its next edit (the
    language server's kind)."""
    from pallas_lsp.rules import default_engine

    return default_engine(incremental=True)
