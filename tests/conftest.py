import json
import os
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

