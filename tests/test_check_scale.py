"""``check`` at repository scale gives what the full analysis gives.

A generated multi-package workspace (kernels launched with a forwarded ``interpret``, helpers
that use ``pl.get_global`` in another module, re-exports through ``__init__``, a namespace
package, callers in test modules, and modules that have nothing to do with Pallas) is edited at
random; after every round of edits the findings of

- the full analysis (every module analysed, nothing cached: what ``check`` did before),
- the pruned analysis (only modules that concern Pallas), without a cache,
- the same with the on-disk cache (every round reuses the previous round's cache),
- ``-j 2`` with the cache,
- a one-file check of each module (with the cache)

must all be equal.
"""
from __future__ import annotations

import io
import json
import random
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from pallas_lsp.cli import main
from tests.conftest import CORPUS

KERNELS = '''\
import jax
from jax.experimental import pallas as pl
from {helpers} import {helper}


def body(x_ref, o_ref):
    {helper}(o_ref)
    o_ref[...] = x_ref[...] + 1.0


def launch(x, interpret={default}):
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=interpret)(x)
'''

HELPERS = '''\
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def signal_semaphore(o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    pl.semaphore_wait(sem)


def quiet(o_ref):
    pass
'''

CALLER = '''\
import jax.numpy as jnp
{import_line}


def test_it():
    x = jnp.zeros(8)
    {call}(x, interpret={mode})
'''

PLAIN = '''\
import os
import json
{extra}


def unrelated(path):
    return json.loads(open(os.path.join(path, "x.json")).read())
'''


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _state(rng: random.Random) -> dict:
    return {
        "default": rng.choice(["False", "True"]),
        "helper": rng.choice(["signal_semaphore", "quiet"]),
        "callers": [{"how": rng.choice(["package", "module", "none"]), "mode": rng.choice(["True", "False"])}
                    for _ in range(3)],
        "plain_imports_kernels": rng.random() < 0.5,
        "extra_plain": rng.randrange(3),
    }


def _render(root: Path, st: dict) -> None:
    _write(root, "pyproject.toml", "[project]\nname = 'ws'\n")
    _write(root, "pkg/__init__.py", "from .kernels import launch\n")
    _write(root, "pkg/kernels.py", KERNELS.format(helpers="pkg.helpers", helper=st["helper"],
                                                    default=st["default"]))
    _write(root, "pkg/helpers.py", HELPERS)
    # A namespace package (no __init__.py) with its own kernel module and helpers.
    _write(root, "ns/sub/kern.py", KERNELS.format(helpers="ns.sub.help", helper=st["helper"],
                                                    default="False"))
    _write(root, "ns/sub/help.py", HELPERS)
    for i, c in enumerate(st["callers"]):
        if c["how"] == "package":
            imp, call = "from pkg import launch", "launch"
        elif c["how"] == "module":
            imp, call = "from ns.sub import kern", "kern.launch"
        else:
            imp, call = "", "print"
        _write(root, f"tests/test_{i}.py", CALLER.format(import_line=imp, call=call, mode=c["mode"]))
    for stale in range(len(st["callers"]), 6):
        if (root / f"tests/test_{stale}.py").exists():
            (root / f"tests/test_{stale}.py").unlink()
    extra = "from pkg import kernels" if st["plain_imports_kernels"] else ""
    _write(root, "tools/plain.py", PLAIN.format(extra=extra))
    for j in range(3):
        p = root / f"tools/more_{j}.py"
        if j < st["extra_plain"]:
            _write(root, f"tools/more_{j}.py", PLAIN.format(extra=""))
        elif p.exists():
            p.unlink()


def _check(*args: str) -> list[tuple]:
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            main(["check", "--output-format", "json", *args])
        except SystemExit:
            pass
    return sorted((Path(f["path"]).name, f["line"], f["column"], f["code"], f["message"])
                  for f in json.loads(out.getvalue() or "[]"))


def _full(root: Path, monkeypatch) -> list[tuple]:
    """The full analysis: every module analysed (Checker.prune off), no cache."""
    with monkeypatch.context() as m:
        m.setenv("PALLAS_LSP_FULL_ANALYSIS", "1")
        return _check("--no-cache", "-j", "1", str(root))  # (one process: nothing shared out)


@pytest.mark.slow  # a generated tree checked five ways (~4-6 s per seed)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pruned_cached_parallel_and_one_file_checks_equal_the_full_analysis(tmp_path, monkeypatch, seed):
    monkeypatch.setenv("PALLAS_LSP_CACHE_DIR", str(tmp_path / "cache"))
    import pallas_lsp.cli

    monkeypatch.setattr(pallas_lsp.cli, "PARALLEL_FROM", 0)  # (`-j 2` starts workers for any module)
    import pallas_lsp.cache

    # Hashes kept by stat are trusted at once (edits come many checks apart: each has a new ctime).
    monkeypatch.setattr(pallas_lsp.cache, "SETTLED_NS", 0)
    root = tmp_path / "ws"
    rng = random.Random(seed)
    st = _state(rng)
    flagged_rounds = 0
    for _ in range(10):
        _render(root, st)
        full = _full(root, monkeypatch)
        flagged_rounds += bool(full)
        assert _check("--no-cache", str(root)) == full
        assert _check(str(root)) == full  # (the previous round's cache, then this one's)
        assert _check(str(root)) == full
        assert _check("-j", "2", str(root)) == full
        for f in sorted(root.rglob("*.py")):
            mine = sorted(x for x in full if x[0] == f.name)
            assert [x for x in _check(str(f)) if x[0] == f.name] == mine, f
        # Edit at random: a mode, a default, which helper, who imports what, files come and go.
        key = rng.choice(["default", "helper", "caller", "caller", "plain", "extra", "callers"])
        if key == "default":
            st["default"] = "True" if st["default"] == "False" else "False"
        elif key == "helper":
            st["helper"] = "quiet" if st["helper"] == "signal_semaphore" else "signal_semaphore"
        elif key == "caller":
            c = rng.choice(st["callers"])
            c[rng.choice(["how", "mode"])] = None
            c["how"] = c["how"] or rng.choice(["package", "module", "none"])
            c["mode"] = c["mode"] or rng.choice(["True", "False"])
        elif key == "callers":  # a caller module appears or goes
            if len(st["callers"]) < 5 and (len(st["callers"]) < 2 or rng.random() < 0.5):
                st["callers"].append({"how": rng.choice(["package", "module"]), "mode": "True"})
            else:
                st["callers"].pop(rng.randrange(len(st["callers"])))
        elif key == "plain":
            st["plain_imports_kernels"] = not st["plain_imports_kernels"]
        else:
            st["extra_plain"] = rng.randrange(3)
    assert flagged_rounds, "no round had a finding: the comparison proved nothing"


def test_a_module_that_does_not_concern_pallas_is_not_analysed(tmp_path, monkeypatch):
    monkeypatch.setenv("PALLAS_LSP_NO_CACHE", "1")
    _render(tmp_path, {"default": "True", "helper": "signal_semaphore", "callers": [],
                       "plain_imports_kernels": False, "extra_plain": 0})
    from pallas_lsp.analysis.program import Program

    program = Program(tmp_path)
    assert program.concerns_pallas(str(tmp_path / "pkg/kernels.py"))
    assert program.concerns_pallas(str(tmp_path / "pkg/helpers.py"))
    assert not program.concerns_pallas(str(tmp_path / "tools/plain.py"))
    (tmp_path / "tools/plain.py").write_text("from pkg import launch\n\nlaunch(None, interpret=True)\n")
    program.forget(str(tmp_path / "tools/plain.py"))
    assert program.concerns_pallas(str(tmp_path / "tools/plain.py"))  # (now a caller)


HUB = '''\
from pkg.kernels import launch

HEADS = 8


def attend(x, interpret=False):
    return launch(x, interpret=interpret)
'''

MODEL = '''\
from functools import partial
from hub import HEADS


class Model{i}:
    kernel = None  # (a word, not a launch)

    def __call__(self, x):
        return partial(sum, [x] * HEADS)()
'''

DEBUG = '''\
from hub import attend


def debug(x):
    return attend(x, interpret=True)
'''


def test_a_one_file_check_of_a_hub_indexes_only_what_can_launch_or_decides_a_mode(tmp_path, monkeypatch):
    """A module that many others import (maxtext's attention_op.py: 80 of them): checking it alone
    indexes the modules that can launch and the callers a launch's analysis asks for, not every
    importer; and it says what the whole-tree check says."""
    monkeypatch.setenv("PALLAS_LSP_NO_CACHE", "1")
    _render(tmp_path, {"default": "False", "helper": "signal_semaphore", "callers": [],
                       "plain_imports_kernels": False, "extra_plain": 0})
    _write(tmp_path, "hub.py", HUB)
    for i in range(12):
        _write(tmp_path, f"models/model_{i}.py", MODEL.format(i=i))
    from pallas_lsp.checker import Checker
    from pallas_lsp.rules import default_engine

    checker = Checker(default_engine())
    checker.workspace(tmp_path)
    found = checker.check_file(tmp_path / "pkg/helpers.py")
    assert not found  # (no caller launches it in interpret mode)
    indexed = {Path(p).relative_to(tmp_path).as_posix() for p in checker.program._modules}
    assert not any(p.startswith("models/") for p in indexed), indexed
    assert "pkg/kernels.py" in indexed

    # A module that launches nothing but decides the mode is still read, as a caller.
    _write(tmp_path, "tools/debug.py", DEBUG)
    one = [x for x in _check(str(tmp_path / "pkg/helpers.py")) if x[0] == "helpers.py"]
    whole = [x for x in _full(tmp_path, monkeypatch) if x[0] == "helpers.py"]
    assert one == whole and any(x[3] == "PAL001" for x in one), (one, whole)


def test_a_parallel_check_with_few_modules_to_analyse_starts_no_worker(tmp_path, monkeypatch):
    """keras: 1,009 files, two that concern Pallas; `-j 2` was slower than `-j 1` (the pool's
    start-up). The parent analyses a few modules itself, and says the same."""
    monkeypatch.setenv("PALLAS_LSP_NO_CACHE", "1")
    st = {"default": "True", "helper": "signal_semaphore", "callers": [], "plain_imports_kernels": False,
          "extra_plain": 2}
    _render(tmp_path, st)
    for i in range(10):
        _write(tmp_path, f"tools/other_{i}.py", PLAIN.format(extra=""))
    import pallas_lsp.parallel

    started = []
    real = pallas_lsp.parallel.check_parallel
    monkeypatch.setattr(pallas_lsp.parallel, "check_parallel",
                        lambda files, *a, **k: started.extend(files) or real(files, *a, **k))
    got = _check("-j", "2", str(tmp_path))
    assert not started and got == _check(str(tmp_path)) and got


def test_default_jobs_are_the_usable_cores_at_most_four(monkeypatch):
    from pallas_lsp import cli

    monkeypatch.setattr(cli.os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert cli.default_jobs() == cli.MAX_DEFAULT_JOBS == 4
    monkeypatch.setattr(cli.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert cli.default_jobs() == 1


def test_without_j_many_modules_go_to_workers_and_find_the_same(tmp_path, monkeypatch):
    """`check` with no -j on a tree with many modules to analyse: workers (as ruff, every core
    by default), the same findings as -j 1."""
    from pallas_lsp import cli, parallel

    for i in range(12):
        (tmp_path / f"k{i}.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    started = []
    real = parallel.check_parallel
    monkeypatch.setattr(parallel, "check_parallel", lambda files, *a, **k: started.append(a[2]) or real(files, *a, **k))
    monkeypatch.setattr(cli, "default_jobs", lambda: 2)
    default = _check(str(tmp_path))
    assert started == [2]
    assert default == _check("-j", "1", str(tmp_path)) and len(default) == 12


def test_the_full_analysis_is_full_in_workers_too(tmp_path, monkeypatch):
    """PALLAS_LSP_FULL_ANALYSIS (the reference the equality tests compare with) reaches -j's
    workers: a module that does not concern Pallas is analysed there too (its syntax error is
    reported), as in one process. Workers once pruned, and the reference was not full."""
    import pallas_lsp.cli

    monkeypatch.setattr(pallas_lsp.cli, "PARALLEL_FROM", 0)
    for i in range(3):
        (tmp_path / f"k{i}.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    (tmp_path / "broken.py").write_text("x = (\n")
    assert not any(f[0] == "broken.py" for f in _check("--no-cache", "-j", "2", str(tmp_path)))
    monkeypatch.setenv("PALLAS_LSP_FULL_ANALYSIS", "1")
    one = _check("--no-cache", "-j", "1", str(tmp_path))
    assert [f[3] for f in one if f[0] == "broken.py"] == ["PAL900"]
    assert _check("--no-cache", "-j", "2", str(tmp_path)) == one
