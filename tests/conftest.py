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
