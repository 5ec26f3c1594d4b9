"""Process-wide settings for long analyses.

The analysis allocates syntax trees and scope graphs by the hundred thousand. With CPython's
default collector thresholds (700 allocations) the cyclic collector runs thousands of times
while one large module is indexed, each pass scanning everything already built: measured on a
10,000-line kernel file, cold analysis 425 ms with the defaults against 240-280 ms with the
import-time objects frozen out of the collector and a gen-0 threshold of 20,000
(``benchmarks/README.md``). Garbage is still collected: the generations run, only less often.
"""
from __future__ import annotations

import gc

GEN0_THRESHOLD = 20_000


def tune_gc() -> None:
    """Call once, after the analysis modules are imported."""
    gc.freeze()  # modules, classes and functions loaded so far are never garbage
    _, g1, g2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, g1, g2)
