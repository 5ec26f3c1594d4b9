"""Process-wide collector settings.

The analysis allocates syntax trees and scope graphs by the hundred thousand, and CPython's
cyclic collector rescans what is already built each time it runs. Two settings, measured on this
project's machine (cold ``Engine().analyse`` in a fresh process per setting; the server figures
are from ``benchmarks/lsp_latency.py --soak``, docs/performance.md):

* Every process freezes the objects that exist once the analysis modules are imported
  (modules, classes, functions: never garbage), so collections do not rescan them.
* A batch ``check`` also raises the gen-0 threshold to 20,000 allocations: cold analysis of a
  10,000-line kernel file went from 425 ms to about 250 ms. The language server keeps the
  default thresholds: in a long session, cyclic garbage (replaced blocks' parses) that waits
  longer for a collection fragments the heap; the memory soak grew +208 MB over 10,000
  edits with the raised threshold and +50 MB, flattening, without it.
"""
from __future__ import annotations

import gc

BATCH_GEN0_THRESHOLD = 20_000


def tune_gc(batch: bool) -> None:
    """Call once, after the analysis modules are imported."""
    gc.freeze()
    if batch:
        _, g1, g2 = gc.get_threshold()
        gc.set_threshold(BATCH_GEN0_THRESHOLD, g1, g2)
