"""The memory budget where the author looks: a code lens on each compiled TPU launch whose memory
the analysis can estimate, the same in the launch's hover, kept up to date as the blocks change."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from tests.conftest import DATA
from tests.lsp.conftest import change, diagnostics, open_doc

TWO = (DATA / "memory" / "two_launches.py").read_text()
LAUNCH = 17  # 0-based line of the compiled launch's `pl.pallas_call(`
HINT = "VMEM 9 of 16 MiB (v5e): x_ref 2 x 2 MiB, o_ref 2 x 2 MiB, acc_ref 1 MiB"


async def _lenses(client, uri):
    return await client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))


@pytest.mark.asyncio
async def test_budget_lens_on_the_compiled_launch_only(client):
    uri = "file:///tmp/memory_two.py"
    open_doc(client, uri, TWO)
    assert await diagnostics(client, uri, 1) == []
    lenses = await _lenses(client, uri)
    budget = [lens for lens in lenses if lens.command.title.startswith("VMEM")]
    assert [(lens.range.start.line, lens.command.title) for lens in budget] == [(LAUNCH, HINT)]
    # Clicking peeks the parts' declarations, biggest first: the two BlockSpecs, then the scratch.
    lines = TWO.splitlines()
    chain = [loc["range"]["start"]["line"] for loc in budget[0].command.arguments[2]]
    assert [lines[n].strip().split("=")[0] for n in chain] == ["in_specs", "out_specs", "scratch_shapes"]


@pytest.mark.asyncio
async def test_budget_follows_an_edit_of_the_block(client):
    uri = "file:///tmp/memory_edit.py"
    open_doc(client, uri, TWO)
    await diagnostics(client, uri, 1)
    assert HINT in [lens.command.title for lens in await _lenses(client, uri)]
    line = TWO.splitlines().index("BLOCK = (512, COLS)")
    change(client, uri, 2, lsp.Range(lsp.Position(line, 0), lsp.Position(line, 19)), "BLOCK = (1024, COLS)")
    await diagnostics(client, uri, 2)
    titles = [lens.command.title for lens in await _lenses(client, uri)]
    assert "VMEM 18 of 16 MiB (v5e): x_ref 2 x 4 MiB, o_ref 2 x 4 MiB, acc_ref 2 MiB" in titles, titles


@pytest.mark.asyncio
async def test_launch_hover_has_the_parts_table(client):
    uri = "file:///tmp/memory_hover.py"
    open_doc(client, uri, TWO)
    await diagnostics(client, uri, 1)
    col = TWO.splitlines()[LAUNCH].index("pallas_call")
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri),
                                                                   lsp.Position(LAUNCH, col)))
    assert hover is not None
    md = hover.contents.value
    assert "**Memory** (estimated" in md and HINT in md
    assert "| `o_ref` | out | VMEM | 2 | (512, 1024) float32 | 4 MiB |" in md
