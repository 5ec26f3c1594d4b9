"""Programs whose failing line carries a ``# PALnnn`` marker (test_transforms.py, test_hosts.py;
tests/oracle/test_program_cases.py runs them under JAX)."""
from __future__ import annotations

import re

from pallas_lsp.rules import analyse


def expected(src: str) -> list[tuple[str, int]]:
    """The ``# PALnnn`` markers: (code, line)."""
    return sorted((m.group(1), i) for i, line in enumerate(src.splitlines(), 1)
                  for m in [re.search(r"# (PAL\d{3})\b", line)] if m)


def found(src: str) -> list[tuple[str, int]]:
    """What the analyser reports: (code, line)."""
    return sorted((f.code, f.span.line) for f in analyse(src, "/tmp/program_case.py").findings)
