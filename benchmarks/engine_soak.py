#!/usr/bin/env python3
"""Live objects of the incremental engine over a long edit session, in process.

The server soak (`lsp_latency.py --soak`) reports RSS, which also counts memory the allocator
keeps after objects are freed. This runs the same kind of session against the analysis engine
directly (`default_engine(incremental=True)`, as the server's keystroke worker uses it) and prints, every
`--every` edits, RSS before and after a full `gc.collect()` and the number of live objects the
collector tracks: flat object counts mean nothing is kept per edit.

    .venv/bin/python benchmarks/engine_soak.py --files 100 --edits 6000
"""
from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genkernels  # noqa: E402
from lsp_latency import Doc, build_script  # noqa: E402

from pallas_lsp.rules import default_engine  # noqa: E402
from pallas_lsp.runtime import tune_gc  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--lines", type=int, default=400)
    ap.add_argument("--edits", type=int, default=6000)
    ap.add_argument("--every", type=int, default=1000)
    args = ap.parse_args()
    tune_gc(batch=False)  # as the server
    engine = default_engine(incremental=True)
    docs = []
    for i in range(args.files):
        text = genkernels.generate(args.lines, seed=i)
        path = f"/soak/gen_{i}.py"
        engine.analyse(text, path)
        edits, _ = build_script(text)
        docs.append([path, Doc(text), edits, 0])
    gc.collect()
    print(f"opened {args.files} files: RSS {rss_mb():.1f} MB, live objects {len(gc.get_objects())}")
    for k in range(args.edits):
        d = docs[k % len(docs)]
        path, doc, edits, j = d
        e = edits[j % len(edits)]
        d[3] += 1
        doc.apply(e.start, e.end, e.text)
        engine.analyse(doc.text, path)
        if (k + 1) % args.every == 0:
            before = rss_mb()
            gc.collect()
            print(f"edits {k + 1:>6}: RSS {before:.1f} MB, after gc.collect() {rss_mb():.1f} MB, "
                  f"live objects {len(gc.get_objects())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
