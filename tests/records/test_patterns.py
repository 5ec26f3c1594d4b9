"""messagePattern safety: catastrophic shapes are refused at load, naming file, record and
field; whatever loads runs on a linear-time engine, so no pattern can stall explain."""
import json
from pathlib import Path
import re
import subprocess
import sys
import time

import pytest

from pallas_lsp.records import (MAX_MATCH_WORK, RecordStore, builtin_records, default_store, load_records_file,
                                parse_records_text)
from pallas_lsp.records import patterns
from pallas_lsp.records.patterns import PatternRefused, check_pattern, compile_pattern, deferred_pattern
from tests.conftest import pallas_cli

# Refused by the structure check (exponential under a backtracking matcher).
CATASTROPHIC = [r"^((a)+)+$", r"^(a|a)*$", r"(a+)+$", r"(x|x?)+y", r"(a|b|ab)*c", r"((ab)*c)*d",
                r"^(\w+\s?)+$", r"(?i:ab|AB)+c", r"(.*a){12}"]
# Not refused by the structure check, yet exponential or high-degree polynomial for Python's re:
# only the linear-time engine keeps these bounded.
SLIPS_THROUGH = [r"^(a?){25}a{25}$", r".*a.*a.*a.*a.*a.*a.*a.*b"]


BUILTIN_DATA = Path(__file__).resolve().parents[2] / "server" / "pallas_lsp" / "kinds"


def _record(slug, pattern, **extra):
    return {"id": slug, "slug": slug, "errorMessage": "m", "messagePattern": pattern, "errorClass": "E", **extra}


@pytest.mark.parametrize("pattern", [r"^((a)+)+$", r"^(a|a)*$"])
def test_issue_patterns_refused_naming_file_record_and_field(tmp_path, pattern):
    path = tmp_path / "records.json"
    path.write_text(json.dumps([_record("fine", "fine"), _record("evil-one", pattern)]))
    records, problems = load_records_file(path)
    assert [r.slug for r in records] == ["fine"]  # the valid record still loads
    (problem,) = problems
    text = str(problem)
    assert str(path) in text and "record[1].messagePattern" in text and "record 'evil-one'" in text, text
    assert "catastrophically" in text


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_shapes_refused(pattern):
    with pytest.raises(PatternRefused, match="catastrophically"):
        compile_pattern(pattern)


@pytest.mark.parametrize("pattern", [r"(foo|bar)+", r"(ab|ac)*", r"(?:\d{2}:)+", r"got (.+?)", r"a{,3}b\Z",
                                     r"(?x) spaced  out", r"\bword\b", r"(?i)Ref<[a-z]+>"])
def test_ordinary_patterns_load_on_re2(pattern):
    assert compile_pattern(pattern).engine == "re2"


@pytest.mark.parametrize("pattern,why", [(r"(a)\1", "backreferences"), (r"(?=x)y", "lookahead"),
                                         (r"(?>ab)c", "atomic"), (r"a++b", "possessive"),
                                         (r"a{2000}", "more than 1000"), ("(unclosed", "invalid regular expression")])
def test_what_re2_cannot_run_is_refused_not_changed(pattern, why):
    with pytest.raises(PatternRefused, match=why):
        compile_pattern(pattern)


def test_deeply_nested_groups_are_refused_not_a_crash():
    # re's own parser recursed past the stack (RecursionError escaped the loader).
    records, problems = parse_records_text(json.dumps(_record("deep", "(" * 700 + "a" + ")" * 700)), "d.json")
    assert records == [] and "nested too deeply" in str(problems[0]) and "record 'deep'" in str(problems[0])


def test_builtin_patterns_run_on_re2_and_match_their_messages():
    records, problems = builtin_records()
    assert problems == [] and len(records) == len(list(BUILTIN_DATA.glob("*/record.json")))
    for rec in records:
        # (Compiled when first matched: the check that a user's records get at load, here.)
        assert check_pattern(rec.message_pattern.pattern)[1] is None, rec.slug
        assert rec.message_pattern.engine == "re2", rec.slug
        # (Messages with interpolated parts say where: {what} in a seed record, <value> in ours.)
        message = re.sub(r"<[a-z_ ]+>", "skip", rec.error_message.replace("{what}", "Ref<smem>{float32[128]}"))
        assert rec.message_pattern.search(f"{rec.error_class}: {message}"), rec.slug
        assert rec.message_pattern.fullmatch(message), rec.slug
        assert not rec.message_pattern.search("an unrelated message"), rec.slug


def test_a_deferred_pattern_is_checked_when_first_matched_and_matches_as_compiled():
    bad = deferred_pattern(r"(a+)+$")  # (only the shipped records are deferred: the test above)
    with pytest.raises(PatternRefused):
        bad.search("aaa")
    pattern = r"get_global only supports (\w+)"
    good, eager = deferred_pattern(pattern), compile_pattern(pattern)
    for text in ("get_global only supports semaphores", "get_global only supports", "x"):
        assert good.search(text) == eager.search(text) and good.fullmatch(text) == eager.fullmatch(text)


def test_user_records_are_checked_at_load_not_deferred():
    records, problems = parse_records_text(json.dumps(_record("slow", r"(a+)+$")), "mine.json")
    assert records == [] and "record 'slow'" in str(problems[0]) and "messagePattern" in str(problems[0])


DIFFERENTIAL_PATTERNS = [
    r"get_global only supports semaphores, got (.+?)", r"Dynamic grid bounds not \(yet\) supported",
    r"^\d+ items?$", r"\w+Error: .*", r"[^\W\d_]?x", r"[\W\d]+", r"\s+$", r"(?i)KEYERROR: <memory",
    r"(?i:abc)D", r"a{2,3}?b", r"^(?:foo|bar)+$", r"[a-c\-x]+", r"\Aabc\Z", r"(?s)a.b", r"a.b", r"é+\u00e9",
    r"[^a]", r"\D\S\W", r"(?a)\w+", r"x*?y", r"(?m)^b$",
]
DIFFERENTIAL_TEXTS = ["get_global only supports semaphores, got Ref", "Dynamic grid bounds not (yet) supported",
                      "12 items", "1 item", "ValueError: boom", "x", "_x", "٣x", "a\nb", "ab  ", "KeyError: <MEMORY",
                      "abcD", "ABCD", "ABCd", "aab", "aaab", "foobar", "foobaz", "a-x", "abc", "axb", "a\nb",
                      "ééé", "é", "b", "ж", "\u00a0", "中", "x\u2028", "Zé", "aaaay", "a\nb\nc", ""]


@pytest.mark.parametrize("pattern", DIFFERENTIAL_PATTERNS)
def test_re2_translation_means_what_python_means(pattern):
    try:
        ours = compile_pattern(pattern)
    except PatternRefused:
        if pattern == r"[^\W\d_]?x":
            return  # a negated class holding \W and more: refused (RE2 has no class intersection)
        raise
    python = re.compile(pattern)
    for text in DIFFERENTIAL_TEXTS:
        assert ours.search(text) == bool(python.search(text)), (pattern, text)
        assert ours.fullmatch(text) == bool(python.fullmatch(text)), (pattern, text)


_BOUNDED_SCRIPT = """
import sys, time
from pallas_lsp.records.patterns import compile_pattern
p = compile_pattern(sys.argv[1])
start = time.perf_counter()
for text in ("a" * 4000 + "!", "a" * 3999, "a" * 50):
    p.search(text)
print(p.engine, round(time.perf_counter() - start, 3))
"""


@pytest.mark.parametrize("pattern", SLIPS_THROUGH)
def test_a_pattern_the_structure_check_misses_still_matches_in_linear_time(pattern):
    # In a subprocess: before the linear-time engine this ran for hours.
    out = subprocess.run([sys.executable, "-c", _BOUNDED_SCRIPT, pattern], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    engine, seconds = out.stdout.split()
    assert engine == "re2" and float(seconds) < 5


def test_explain_with_hostile_records_returns_quickly(tmp_path):
    records = [_record(f"evil-{i}", p) for i, p in enumerate(CATASTROPHIC + SLIPS_THROUGH)]
    (tmp_path / "evil.json").write_text(json.dumps(records))
    text = "\n".join(["a" * 3000 + "!", "a" * 3999, "a" * 50, "a" * 3000 + "b",
                      "get_global only supports semaphores, got Ref<smem>"])
    start = time.monotonic()
    out = subprocess.run(pallas_cli() + ["explain", "--records", str(tmp_path / "evil.json"), text],
                         capture_output=True, text=True, timeout=90)
    assert time.monotonic() - start < 60
    assert "get-global-only-supports-semaphores-got-what" in out.stdout
    for i in range(len(CATASTROPHIC)):
        assert f"record[{i}].messagePattern: record 'evil-{i}'" in out.stderr, out.stderr
    # What slipped past the structure check loaded and matched (in linear time).
    assert "evil-9" in out.stdout and "evil-10" in out.stdout


def test_without_re2_only_single_repetition_patterns_load(monkeypatch):
    monkeypatch.setattr(patterns, "_re2", None)
    assert compile_pattern(r"get_global only supports semaphores, got (.+?)").engine == "re"
    with pytest.raises(PatternRefused, match="google-re2"):
        compile_pattern(SLIPS_THROUGH[1])
    with pytest.raises(PatternRefused, match="catastrophically"):
        compile_pattern(r"^((a)+)+$")


def test_without_re2_the_shipped_patterns_are_checked_at_load_and_matching_never_raises(monkeypatch):
    """Deferred compiling is for RE2 only: without it a shipped pattern with two repetitions is
    refused at load, as before, and matching a traceback tries only what loaded (a refusal
    raised at match time took every explanation down with it)."""
    from pallas_lsp.records import RecordStore, _read_builtin_records

    monkeypatch.setattr(patterns, "_re2", None)
    _read_builtin_records.cache_clear()
    try:
        records, problems = builtin_records()
        assert problems and all("google-re2" in p.message for p in problems)
        assert all(r.message_pattern.engine == "re" for r in records)
        store = RecordStore(records)
        assert store.match_text("AssertionError: assert 1 == 2").hits == []
        hits = store.match("NotImplementedError: get_global discharge is not supported in interpret mode.")
        assert [r.slug for r, _ in hits] == ["get-global-discharge-is-not-supported-in-interpret"]
    finally:
        _read_builtin_records.cache_clear()


def test_match_work_is_bounded_and_says_so(tmp_path):
    many = [_record(f"user-{i}", rf"never matches {i}\d") for i in range(300)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(many))
    store = default_store([path])
    text = "\n".join(["get_global only supports semaphores, got Ref"] + ["x" * 100] * 19999)
    start = time.monotonic()
    result = store.match_text(text)
    assert time.monotonic() - start < 20
    assert not result.complete  # 300 records x 20,000 lines is over MAX_MATCH_WORK
    assert [r.slug for r, _ in result.hits] == ["get-global-only-supports-semaphores-got-what"]  # built-ins tried
    assert default_store([path]).match_text("short text").complete
    assert MAX_MATCH_WORK > 0
    from pallas_lsp.explain import explain_text, explanation_markdown
    assert "too long to try against every error record" in explanation_markdown(explain_text(text, store), {})


def test_lone_surrogates_in_text_do_not_break_matching():
    store = RecordStore(builtin_records()[0])
    hits = store.match("\ud800 get_global only supports semaphores, got x \udfff")
    assert [r.slug for r, _ in hits] == ["get-global-only-supports-semaphores-got-what"]


# --- random patterns: RE2 means what Python means, and nothing that loads is slow ----------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ATOMS = st.sampled_from(["a", "b", "é", "ж", "1", "٣", "_", " ", "\\.", ".", "\\d", "\\w", "\\s", "\\D", "\\W",
                          "\\S", "[ab]", "[^a]", "[a-c1]", "[\\d_]", "[\\W\\d]", "^", "$", "\\b", "\\A", "\\Z"])
_QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "*?", "+?", "{,2}"])
_ALPHABET = "abé1٣_ .ж\n-"


def _pattern_strategy():
    piece = st.builds(lambda a, q: a + q, _ATOMS, _QUANTIFIERS)
    seq = st.lists(piece, min_size=1, max_size=4).map("".join)

    def extend(inner):
        group = st.builds(lambda alts, q, flags: f"({flags}{'|'.join(alts)}){q}",
                          st.lists(inner, min_size=1, max_size=3), _QUANTIFIERS,
                          st.sampled_from(["", "?:", "?i:", "?s:"]))
        return st.lists(st.one_of(inner, group), min_size=1, max_size=3).map("".join)

    return st.recursive(seq, extend, max_leaves=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=_pattern_strategy(), texts=st.lists(st.text(alphabet=_ALPHABET, max_size=12), min_size=1, max_size=6),
       ignorecase=st.booleans())
def test_random_patterns_mean_the_same_on_re2(pattern, texts, ignorecase):
    if ignorecase:
        pattern = "(?i)" + pattern
    try:
        ours = compile_pattern(pattern)
    except PatternRefused:
        return
    python = re.compile(pattern)
    for text in texts:  # short texts: Python's re stays fast even on the shapes RE2 is for
        if ("\\b" in pattern or "\\B" in pattern) and not text.isascii():
            continue  # a known difference: RE2's \b knows only ASCII word characters
        if "$" in pattern and text.endswith("\n"):
            continue  # another: Python's $ also matches before a final newline (lines have none)
        assert ours.search(text) == bool(python.search(text)), (pattern, text)
        assert ours.fullmatch(text) == bool(python.fullmatch(text)), (pattern, text)
    start = time.perf_counter()
    ours.search("a" * 3000 + "!")
    ours.search("ab1 " * 750)
    assert time.perf_counter() - start < 2, pattern


def test_checking_one_file_is_bounded_with_one_message_for_the_rest(tmp_path):
    # An 8 MiB file of distinct 2,000-character patterns took minutes to load (each one parsed,
    # checked and compiled); now the store's checking budget stops it, with one message.
    records = [_record(f"long-{i}", "x" * 1990 + f"z{i}") for i in range(2000)]
    path = tmp_path / "long.json"
    path.write_text(json.dumps(records))
    start = time.monotonic()
    loaded, problems = load_records_file(path)
    assert time.monotonic() - start < 30
    assert 0 < len(loaded) < 200
    (problem,) = problems
    assert f"record[{len(loaded)}]" in str(problem) and f"the {2000 - len(loaded) - 1} after it" in str(problem)
    assert "took all the time allowed" in str(problem) and str(path) in str(problem)


def test_the_budget_covers_every_file_a_store_reads(tmp_path):
    # A folder of such files, or many records paths, is bounded as a whole, not per file.
    folder = tmp_path / "many"
    folder.mkdir()
    for f in range(40):
        records = [_record(f"long-{f}-{i}", "x" * 1990 + f"z{f}-{i}") for i in range(20)]
        (folder / f"f{f:02}.json").write_text(json.dumps(records))
    store = default_store()
    shipped = len(store.records)
    start = time.monotonic()
    problems = store.add_path(folder)
    assert time.monotonic() - start < 30
    loaded = len(store.records) - shipped
    assert 0 < loaded < 200
    assert any("files not loaded (from f" in str(p) and "took all the time allowed" in str(p) for p in problems)
    extra = tmp_path / "one.json"
    extra.write_text(json.dumps(_record("one-more", "one more")))
    (problem,) = store.add_path(extra)  # the same store's budget is spent
    assert "not loaded" in str(problem) and store.by_slug("one-more") is None
    assert default_store([extra]).by_slug("one-more") is not None  # a fresh store has its own


def test_a_pattern_too_complex_to_check_is_refused():
    many_classes = "(?:" + "|".join(f"[{chr(c)}-{chr(c + 1)}]q" for c in range(0x4e00, 0x4e00 + 300, 2)) + ")*"
    with pytest.raises(PatternRefused, match="too complex to check"):
        compile_pattern(many_classes)


def test_matching_stops_at_the_deadline_whatever_the_patterns_cost(tmp_path):
    # Linear, but dear: RE2 steps ~2,900 instructions per character once its DFA cache overflows
    # (~25 ms a 4,000-character line here). Without the deadline: minutes for these records.
    heavy = [_record(f"heavy-{i}", rf"[a-z0-9]{{1,120}}[^q]{{1,120}}[0-9 ]{{1,120}}.{{1,120}}q{i}z")
             for i in range(40)]
    path = tmp_path / "heavy.json"
    path.write_text(json.dumps(heavy))
    store = default_store([path])
    assert len(store.records) == len(builtin_records()[0]) + 40, store.problems
    rng = __import__("random").Random(0)
    text = "\n".join("".join(rng.choice("abcdefghij0123456789 q") for _ in range(2000)) for _ in range(1000))
    start = time.monotonic()
    result = store.match_text(text, seconds=1.0)
    assert time.monotonic() - start < 8
    assert not result.complete


def test_a_pattern_whose_program_is_too_big_is_refused():
    with pytest.raises(PatternRefused, match="matcher instructions"):
        compile_pattern(r"[a-z0-9]{1,200}[^q]{1,200}[0-9 ]{1,200}.{1,200}q")
    assert compile_pattern("x" * 1990).engine == "re2"  # long but simple is fine
