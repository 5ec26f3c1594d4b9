/**
 * Pull diagnostics for notebook cells.
 *
 * vscode-languageclient 9 pulls diagnostics (`textDocument/diagnostic`) only for documents shown
 * in text editor tabs, never for notebook cells (microsoft/vscode-languageserver-node#1464,
 * fixed in the 10.x line). The server answers pulls for cell URIs (it analyses a notebook's code
 * cells as one module), so this pulls every code cell of a notebook after the client has synced
 * it (`notebookDocument/didOpen`/`didChange`, through middleware) and shows the results in a
 * diagnostic collection of its own. When the server pushes instead, this stays idle.
 */
import * as vscode from "vscode";
import { DocumentDiagnosticReportKind, DocumentDiagnosticRequest, LanguageClient, Middleware, State } from "vscode-languageclient/node";

const DEBOUNCE_MS = 150;

export class NotebookCellDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection("pallas-lsp-notebooks");
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly pulled = new Map<string, vscode.Uri[]>();
  private client: LanguageClient | undefined;

  constructor(private readonly log: (line: string) => void) {}

  /** Middleware that schedules a pull once the client has told the server about a notebook. */
  middleware(): Middleware["notebooks"] {
    return {
      didOpen: async (notebook, cells, next) => {
        await next(notebook, cells);
        this.schedule(notebook);
      },
      didChange: async (event, next) => {
        await next(event);
        this.schedule(event.notebook);
      },
      didClose: async (notebook, cells, next) => {
        await next(notebook, cells);
        this.clear(notebook);
      },
    };
  }

  /** A started client; pulls the open notebooks when the server offers pull diagnostics. */
  attach(client: LanguageClient | undefined): void {
    this.client = client;
    this.collection.clear();
    this.pulled.clear();
    if (this.active()) {
      this.refreshAll();
    }
  }

  /** Re-pull every open notebook (settings changed). */
  refreshAll(delayMs = DEBOUNCE_MS): void {
    for (const nb of vscode.workspace.notebookDocuments) {
      this.schedule(nb, delayMs);
    }
  }

  private active(): boolean {
    const caps = this.client?.initializeResult?.capabilities;
    return !!caps?.diagnosticProvider && !!caps.notebookDocumentSync && this.client?.state === State.Running;
  }

  private schedule(notebook: vscode.NotebookDocument, delayMs = DEBOUNCE_MS): void {
    const key = notebook.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.pull(notebook);
      }, delayMs),
    );
  }

  private async pull(notebook: vscode.NotebookDocument): Promise<void> {
    const client = this.client;
    if (!client || !this.active() || notebook.isClosed) {
      return;
    }
    const cells = notebook
      .getCells()
      .filter((c) => c.kind === vscode.NotebookCellKind.Code && c.document.languageId === "python");
    const seen: vscode.Uri[] = [];
    for (const cell of cells) {
      const uri = cell.document.uri;
      try {
        const report = await client.sendRequest(DocumentDiagnosticRequest.type, {
          textDocument: { uri: client.code2ProtocolConverter.asUri(uri) },
        });
        if (report.kind === DocumentDiagnosticReportKind.Full) {
          this.collection.set(uri, await client.protocol2CodeConverter.asDiagnostics(report.items));
        }
        seen.push(uri);
      } catch (e) {
        this.log(`notebook diagnostics for ${uri.toString()}: ${(e as Error).message ?? e}`);
      }
    }
    // Cells that were deleted since the last pull.
    for (const old of this.pulled.get(notebook.uri.toString()) ?? []) {
      if (!seen.some((u) => u.toString() === old.toString())) {
        this.collection.delete(old);
      }
    }
    this.pulled.set(notebook.uri.toString(), seen);
  }

  private clear(notebook: vscode.NotebookDocument): void {
    const key = notebook.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    for (const uri of this.pulled.get(key) ?? []) {
      this.collection.delete(uri);
    }
    for (const cell of notebook.getCells()) {
      this.collection.delete(cell.document.uri);
    }
    this.pulled.delete(key);
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    this.timers.clear();
    this.collection.dispose();
  }
}
