"""Caches belong to their engine or program (issue 39): two engines never share block parses,
splits or file texts; an engine handed another's caches shares them on purpose; a program
built for an engine's caches parses each block once for both."""
from pallas_lsp.analysis.caches import AnalysisCaches
from pallas_lsp.analysis.engine import Engine
from pallas_lsp.analysis.module import ModuleIndex
from pallas_lsp.analysis.program import Program

KERNEL = """import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...] + 1.0


def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)
"""


def parse_objects(result) -> list[int]:
    return [id(bp) for _, bp in result.index.parses]


def test_two_engines_parse_the_same_text_each_for_itself(fresh_incremental_engine):
    other = Engine(fresh_incremental_engine.rules, incremental=True)
    path = "/tmp/owned_caches_kernel.py"
    mine = fresh_incremental_engine.analyse(KERNEL, path)
    theirs = other.analyse(KERNEL, path)
    assert not set(parse_objects(mine)) & set(parse_objects(theirs))  # no block parse is shared
    assert mine.findings and [f.code for f in mine.findings] == [f.code for f in theirs.findings]
    # Each engine kept only its own document's state: its parses and its incremental split.
    assert set(fresh_incremental_engine.caches.parses.by_path) == {path} == set(other.caches.parses.by_path)
    assert fresh_incremental_engine.caches.parses.splits.splits[path] is not other.caches.parses.splits.splits[path]
    # The next version re-parses in its own engine only: the other still holds the old text's parses.
    edited = KERNEL.replace("+ 1.0", "+ 2.0")
    again = fresh_incremental_engine.analyse(edited, path)
    assert set(parse_objects(again)) & set(parse_objects(mine))  # (the unchanged blocks were kept)
    assert fresh_incremental_engine.caches.parses.splits.splits[path].text == edited
    assert other.caches.parses.splits.splits[path].text == KERNEL
    assert parse_objects(other.analyse(KERNEL, path)) == parse_objects(theirs)  # (its own, kept)


def test_clearing_one_engine_leaves_the_other(fresh_engine):
    other = Engine(fresh_engine.rules)
    fresh_engine.analyse(KERNEL, "/tmp/a.py")
    other.analyse(KERNEL, "/tmp/a.py")
    fresh_engine.clear_caches()
    assert len(fresh_engine.caches.parses.parses) == 0 and fresh_engine.caches.parses.splits.splits == {}
    assert len(other.caches.parses.parses) > 0 and "/tmp/a.py" in other.caches.parses.splits.splits


def test_an_engine_handed_caches_shares_them(fresh_engine):
    """A one-off engine for a request of the server's reads the same parses as the server's."""
    one_off = Engine(fresh_engine.rules, caches=fresh_engine.caches)
    first = fresh_engine.analyse(KERNEL, "/tmp/shared.py")
    second = one_off.analyse(KERNEL, "/tmp/shared.py")
    assert parse_objects(first) == parse_objects(second)


def test_a_program_reads_and_parses_through_its_engines_caches(tmp_path, fresh_engine):
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    alone = Program(tmp_path)  # its own caches
    shared = Program(tmp_path, caches=fresh_engine.caches)
    in_shared = fresh_engine.analyse_in(shared, str(path))
    in_alone = fresh_engine.analyse_in(alone, str(path))
    assert [f.code for f in in_shared.findings] == [f.code for f in in_alone.findings] == ["PAL001"]
    assert str(path) in fresh_engine.caches.disk and str(path) not in AnalysisCaches().disk
    assert str(path) in alone.caches.disk and alone.caches is not fresh_engine.caches
    assert not set(parse_objects(in_shared)) & set(parse_objects(in_alone))
    # The engine analysing the same text on its own finds the program's parses.
    assert parse_objects(fresh_engine.analyse(KERNEL, str(path))) == parse_objects(in_shared)


def test_an_index_without_a_cache_keeps_nothing():
    first, second = ModuleIndex(KERNEL, "/tmp/x.py"), ModuleIndex(KERNEL, "/tmp/x.py")
    assert not {id(bp) for _, bp in first.parses} & {id(bp) for _, bp in second.parses}
    assert first.cache is not second.cache
