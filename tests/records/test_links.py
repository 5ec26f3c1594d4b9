"""Links from records: only https: links reach hovers, explain and diagnostics; record text makes
no links or HTML; a record that replaces another (a built-in one above all) is reported."""
import json

import pytest

from pallas_lsp.rules import analyse
from pallas_lsp.explain import explain_text, explanation_markdown, record_markdown
from pallas_lsp.mdtext import code_block, code_span, prose
from pallas_lsp.present import finding_hover
from pallas_lsp.records import builtin_records, default_store, https_link, load_records_file
from tests.conftest import CORPUS
from tests.records.hostile import BUILTIN_SLUG, hostile_override, markdown_links, only_https

@pytest.mark.parametrize("url", ["javascript:alert(1)", "JavaScript:alert(1)", " javascript:alert(1)",
                                 "http://example.com", "data:text/html,x", "vbscript:x", "command:x",
                                 "file:///etc/passwd", "//evil.example", "https:evil", "https://",
                                 "https://github.com@evil.example/", "https://exa mple.com", "https://x/\ny",
                                 "https://x/\\y", "https://[::1", 42, None, ""])
def test_https_link_refuses(url):
    assert https_link(url) == ""


def test_https_link_keeps_https_and_encodes_markdown_breakers():
    url = "https://github.com/jax-ml/jax/blob/abc/jax/_src/pallas/primitives.py#L840-L876"
    assert https_link(url) == url
    assert https_link("https://x.example/a)b](javascript:alert(1))") == \
        "https://x.example/a%29b%5D%28javascript:alert%281%29%29"


def test_non_https_link_is_dropped_at_load_and_the_record_still_loads(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(hostile_override()))
    records, problems = load_records_file(path)
    (rec,) = records
    assert rec.github_url == "" and rec.link == "" and "githubUrl" not in rec.raw
    (problem,) = problems
    assert problem.severity == "warning"
    assert str(path) in str(problem) and "record.githubUrl" in str(problem)
    assert f"record '{BUILTIN_SLUG}'" in str(problem)


def test_override_of_a_builtin_record_is_reported(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(hostile_override()))
    store = default_store()
    problems = store.add_path(path)
    messages = [str(p) for p in problems]
    assert f"{path}: record '{BUILTIN_SLUG}' replaces the built-in record" in messages, messages
    assert store.by_slug(BUILTIN_SLUG).source == str(path)  # the user's record is the one used
    assert [p for p in store.problems if "replaces the built-in record" in str(p)]
    # A second user file with the same slug says whose record it replaces.
    again = tmp_path / "y.json"
    again.write_text(json.dumps(hostile_override()["record"] | {"documentation": "newer",
                                                                "githubUrl": "https://example.com/x"}))
    assert [str(p) for p in store.add_path(again)] == [
        f"{again}: record '{BUILTIN_SLUG}' replaces the record of that name from {path}"]
    # Loading the same file again is no replacement.
    assert store.add_path(again) == []


def test_a_user_record_taking_a_builtin_id_is_reported(tmp_path):
    (builtin,) = [r for r in builtin_records()[0] if r.slug == BUILTIN_SLUG]
    path = tmp_path / "z.json"
    path.write_text(json.dumps({"id": builtin.id, "slug": "mine", "errorMessage": "m", "messagePattern": "m",
                                "errorClass": "E"}))
    store = default_store()
    (problem,) = store.add_path(path)
    assert f"record 'mine' has the id '{builtin.id}' of the built-in record" in str(problem)
    assert store.by_slug(BUILTIN_SLUG) is not None  # the built-in one is still there by slug


def test_no_javascript_link_reaches_a_hover_or_explain(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(hostile_override()))
    store = default_store([path])
    rec = store.by_slug(BUILTIN_SLUG)
    (finding,) = analyse((CORPUS / "get_global_interpret_true_basic.py").read_text(), "x.py").findings
    assert finding.record == BUILTIN_SLUG
    hover = finding_hover(finding, store)
    assert "click" in hover and "alert(3)" in hover  # the words are still shown ...
    only_https(hover)  # ... but make no link, autolink or HTML
    only_https(record_markdown(rec))
    expl = explain_text("NotImplementedError: get_global discharge is not supported in interpret mode.", store)
    assert [e.record.slug for e in expl] == [BUILTIN_SLUG]
    only_https(explanation_markdown(expl, {}))


def test_builtin_hover_keeps_its_https_link():
    store = default_store()
    (finding,) = analyse((CORPUS / "get_global_interpret_true_basic.py").read_text(), "x.py").findings
    links = markdown_links(finding_hover(finding, store))
    assert links == [store.by_slug(BUILTIN_SLUG).github_url]


def test_prose_and_code_helpers():
    assert prose("see `x[0] <y>` and [a](b)") == "see `x[0] <y>` and \\[a\\](b)"
    assert prose("unclosed ` [a](javascript:x)") == "unclosed ` \\[a\\](javascript:x)"
    assert prose("\\[a](javascript:x)") == "\\\\\\[a\\](javascript:x)"
    assert markdown_links(prose("\\[a](javascript:x)")) == []
    assert code_span("a`b") == "``a`b``" and code_span("`x") == "`` `x ``"
    assert code_block("```\n[x](javascript:y)") == ["````python", "```\n[x](javascript:y)", "````"]
