from pallas_lsp.records import default_store
from pallas_lsp.ruledocs import rules_markdown
from pallas_lsp.rules import default_rule_set
from pallas_lsp.rules.examples import examples_for
from tests.conftest import DATA, ROOT


def test_rules_page_is_generated_from_the_rules():
    assert (ROOT / "docs" / "rules.md").read_text() == rules_markdown(), \
        "docs/rules.md is stale: run `pallas-lsp rules --format markdown > docs/rules.md`"


def test_every_rule_and_example_file_is_on_the_page():
    page = rules_markdown()
    assert "[docs/data-rules.md](data-rules.md)" in page
    for rule in default_rule_set():
        assert f"\n## {rule.code} {rule.name}\n" in page
        found = examples_for(rule.code)
        for ex in found.invalid + found.valid:
            assert f"examples/{rule.code}/{ex.name}.py)" in page
            assert ex.program.strip("\n") in page
            assert "# pallas-lsp example:" not in ex.program  # (the header is said in words)


def test_a_data_rule_is_documented_from_its_record():
    store = default_store([DATA / "records" / "user_kind" / "run_scoped_collective_axes.json"])
    page = rules_markdown(store)
    (rule,) = [r for r in default_rule_set(store.records) if r.code == "PAL190"]
    assert "| PAL190 | team-run-scoped-collective-axes | data | `team-run-scoped-collective-axes-tpu-interpret` | " \
           "not checked |" in page
    section = page.split("\n## PAL190 team-run-scoped-collective-axes\n", 1)[1]
    # The bold line is the detection's summary; then the record's message and documentation.
    assert section.startswith(f"\n**{rule.summary}**\n\nrun_scoped_p with collective axes is not supported\n")
    assert "The TPU interpreter allocates run_scoped buffers per simulated core" in section
    assert "Declared as data" in section


def test_readme_rules_table_is_generated():
    from pallas_lsp.ruledocs import SUMMARY_END, SUMMARY_START, rules_summary

    readme = (ROOT / "README.md").read_text()
    start, end = readme.index(SUMMARY_START), readme.index(SUMMARY_END) + len(SUMMARY_END)
    assert readme[start:end] + "\n" == rules_summary(), \
        "README's Rules table is stale: paste `pallas-lsp rules --format markdown --summary` between its markers"
