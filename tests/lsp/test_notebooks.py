"""Notebook documents (LSP 3.17): cells analysed as one module, findings land in the right cell."""
import pytest
from lsprotocol import types as lsp

from tests.lsp.conftest import diagnostics

CELL1 = """import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
"""
CELL2 = """%matplotlib inline
def kernel(x_ref, o_ref):
    sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
    pl.semaphore_signal(sem)
    o_ref[...] = x_ref[...]
"""
CELL3 = """x = jnp.zeros((8,), jnp.float32)
out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)"""

NB = "file:///tmp/kernels.ipynb"
CELLS = [f"vscode-notebook-cell:/tmp/kernels.ipynb#c{i}" for i in range(3)]


def open_notebook(client, texts):
    cells = [lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=uri) for uri in CELLS[:len(texts)]]
    client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
        notebook_document=lsp.NotebookDocument(uri=NB, notebook_type="jupyter-notebook", version=1, cells=cells),
        cell_text_documents=[lsp.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(CELLS, texts)]))


@pytest.mark.asyncio
async def test_finding_lands_in_its_cell(client):
    open_notebook(client, [CELL1, CELL2, CELL3])
    d2 = await diagnostics(client, CELLS[1])
    assert [(d.code, d.range.start.line) for d in d2] == [("PAL001", 2)]
    assert await diagnostics(client, CELLS[2]) == []
    if d2[0].related_information:
        uris = {r.location.uri for r in d2[0].related_information}
        assert CELLS[2] in uris  # the launch and the mode line are in the third cell
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(CELLS[2])))
    assert [lens.range.start.line for lens in lenses] == [1]


@pytest.mark.asyncio
async def test_cell_edit_and_removal_update(client):
    open_notebook(client, [CELL1, CELL2, CELL3])
    await diagnostics(client, CELLS[1])
    # Edit cell 3: interpret=False -> nothing to report.
    line = CELL3.splitlines()[1]
    col = line.index("True")
    client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
        notebook_document=lsp.VersionedNotebookDocumentIdentifier(version=2, uri=NB),
        change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentCellChanges(text_content=[
            lsp.NotebookDocumentCellContentChanges(
                document=lsp.VersionedTextDocumentIdentifier(uri=CELLS[2], version=2),
                changes=[lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(lsp.Position(1, col), lsp.Position(1, col + 4)), text="False")])]))))
    if client.pull:
        assert await diagnostics(client, CELLS[1]) == []
    else:
        import asyncio

        for _ in range(500):
            if client.published.get(CELLS[1]) and list(client.published[CELLS[1]][-1][1]) == []:
                break
            await asyncio.sleep(0.02)
        assert list(client.published[CELLS[1]][-1][1]) == []
