"""Legal but hostile files keep every per-file and per-edit cost near linear (issue 15): one
kernel launched thousands of times, and files with more statements than the parse cache holds.
Figures: benchmarks/hostile_shapes.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from pallas_lsp.analysis import module as module_mod
from pallas_lsp.rules import default_engine
from pallas_lsp.analysis.fixes import KernelLaunches


def _benchmark_shapes():
    # (by path, under a name of its own: fuzz/ has a hostile_shapes module too)
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "hostile_shapes.py"
    spec = importlib.util.spec_from_file_location("benchmarks_hostile_shapes", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_SHAPES = _benchmark_shapes()
launches, statements = _SHAPES.launches, _SHAPES.statements


def test_launches_of_a_kernel_are_counted_once_per_analysis(monkeypatch):
    # The scratch fix asks, for every hit, how often the kernel is launched: a scan of every
    # launch per hit made 20,000 launches of one kernel cost 49 s, 50,000 over 5 minutes.
    recounts, asked = [], []
    real_count, real_of = KernelLaunches._count, KernelLaunches.of_kernel
    monkeypatch.setattr(KernelLaunches, "_count", lambda self: recounts.append(len(self)) or real_count(self))
    monkeypatch.setattr(KernelLaunches, "of_kernel", lambda self, k: asked.append(1) or real_of(self, k))
    n = 300
    result = default_engine().analyse(launches(n), "/tmp/many_launches.py")
    (finding,) = result.findings
    assert finding.code == "PAL001" and "(and 299 more launch contexts)" in finding.message
    assert asked == [] and recounts == []  # the analysis builds no fix ...
    assert finding.fixes and finding.fixes == finding.fixes  # ... a request builds them, once
    assert len(asked) == 1 and recounts == [n]  # (the launches counted once)


def test_an_edit_reparses_only_its_block_when_the_file_outgrows_the_cache(monkeypatch):
    # A fixed-size parse cache smaller than the file's block count evicted the file's own
    # blocks while indexing it, so every edit re-parsed the whole file (4.7 MB: 7-13 s).
    monkeypatch.setattr(module_mod.ParseCache, "LIMIT", 50)
    parsed = []
    real_parse = module_mod._parse
    monkeypatch.setattr(module_mod, "_parse", lambda block, path=None: parsed.append(block) or real_parse(block, path))
    text = statements(400)
    engine = default_engine()
    engine.analyse(text, "/tmp/many_statements.py")
    assert len(parsed) >= 400
    for k in range(3):
        parsed.clear()
        lines = text.splitlines(keepends=True)
        lines[200 + k] = lines[200 + k].rstrip("\n") + "  # edited\n"
        text = "".join(lines)
        engine.analyse(text, "/tmp/many_statements.py")
        assert len(parsed) <= 2, len(parsed)
