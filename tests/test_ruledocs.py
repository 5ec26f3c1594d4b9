from pallas_lsp.ruledocs import rules_markdown
from tests.conftest import ROOT


def test_rules_page_is_generated_from_the_rules():
    assert (ROOT / "docs" / "rules.md").read_text() == rules_markdown(), \
        "docs/rules.md is stale: run `pallas-lsp rules --format markdown > docs/rules.md`"
