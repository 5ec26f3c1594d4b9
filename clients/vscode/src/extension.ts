/**
 * Pallas LSP for VS Code: starts `pallas-lsp serve` over stdio with vscode-languageclient,
 * forwards settings, and adds commands (restart, logs, explain an error, check the workspace).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { parseCheckOutput } from "./checkResults";
import { canImportPallasLsp, pythonInfo, run, which } from "./proc";
import { NotebookCellDiagnostics } from "./notebookDiagnostics";
import * as python from "./python";
import { Bundle, resolveServer, serveArgs, ServerCommand } from "./resolve";
import { parseShowLaunchArgs, SHOW_LAUNCH_COMMAND } from "./showLaunch";
import {
  changeAction,
  checkArgs,
  ExtensionSettings,
  readSettings,
  SECTION,
  toServerSettings,
} from "./settings";

const CLIENT_ID = "pallasLsp";
const CLIENT_NAME = "Pallas LSP";
const EXPLAIN_SCHEME = "pallas-lsp-explain";
const SERVER_EXPLAIN_COMMAND = "pallas-lsp.explainError";

const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { scheme: "vscode-notebook-cell", language: "python" },
];

let output: vscode.OutputChannel;
let status: vscode.LanguageStatusItem;
let extensionPath = "";
let client: LanguageClient | undefined;
let current: ServerCommand | undefined;
let notebookDiagnostics: NotebookCellDiagnostics | undefined;
/** Serialises start/stop/restart. */
let queue: Promise<unknown> = Promise.resolve();
const explanations = new Map<string, string>();
const explanationChanged = new vscode.EventEmitter<vscode.Uri>();

function log(line: string): void {
  output.appendLine(`[${new Date().toISOString().slice(11, 23)}] ${line}`);
}

function settingsFor(scope?: vscode.ConfigurationScope | null): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const folder =
    scope instanceof vscode.Uri
      ? vscode.workspace.getWorkspaceFolder(scope)
      : scope && "uri" in scope && "index" in scope
        ? (scope as vscode.WorkspaceFolder)
        : vscode.workspace.workspaceFolders?.[0];
  return readSettings((key) => config.get(key), {
    workspaceFolder: folder?.uri.fsPath,
    userHome: os.homedir(),
  });
}

function firstFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

function readBundle(): Bundle {
  const launcher = path.join(extensionPath, "bundled", "tool", "server.py");
  const libs = path.join(extensionPath, "bundled", "libs");
  const available = fs.existsSync(launcher) && fs.existsSync(path.join(libs, "pallas_lsp", "__init__.py"));
  let builtFor: Bundle["builtFor"];
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(libs, "pallas_lsp_bundle.json"), "utf8"));
    if (typeof manifest.python === "string") {
      builtFor = { version: manifest.python, platform: String(manifest.platform ?? "") };
    }
  } catch {
    // no manifest: no compatibility check
  }
  return { launcher, available, builtFor };
}

async function resolve(): Promise<ServerCommand | undefined> {
  const folder = firstFolder();
  const settings = settingsFor(folder);
  return resolveServer({
    settings,
    trusted: vscode.workspace.isTrusted,
    bundle: readBundle(),
    pythonExtensionInterpreter: async () => {
      if (!python.pythonExtensionInstalled()) {
        return undefined;
      }
      return python.selectedInterpreter(folder?.uri);
    },
    canImport: canImportPallasLsp,
    pythonInfo,
    which: (name) => which(name),
    log: (line) => log(line),
  });
}

function setStatus(kind: "starting" | "running" | "stopped" | "error", detail?: string): void {
  if (!status) {
    return;
  }
  status.name = CLIENT_NAME;
  status.command = { title: "Show Logs", command: "pallasLsp.showLogs" };
  status.busy = kind === "starting";
  status.severity =
    kind === "error" ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
  status.text = {
    starting: "Pallas LSP: starting",
    running: "Pallas LSP",
    stopped: "Pallas LSP: stopped",
    error: "Pallas LSP: not running",
  }[kind];
  status.detail = detail ?? (current ? current.detail : undefined);
}

/** The code lens's command: peek the launch's context chain (the server's arguments). */
async function showLaunch(args: unknown): Promise<void> {
  const parsed = parseShowLaunchArgs(args);
  const c = client;
  if (!parsed || !c) {
    log(`showLaunch: unexpected arguments ${JSON.stringify(args)}`);
    return;
  }
  const p2c = c.protocol2CodeConverter;
  await vscode.commands.executeCommand(
    "editor.action.showReferences",
    p2c.asUri(parsed.uri),
    p2c.asPosition(parsed.position),
    parsed.locations.map((l) => p2c.asLocation(l)),
  );
}

function middleware(): LanguageClientOptions["middleware"] {
  return {
    notebooks: notebookDiagnostics?.middleware(),
    // The lens's command runs here, in the editor (a peek), instead of on the server.
    executeCommand: (command, args, next) =>
      command === SHOW_LAUNCH_COMMAND ? showLaunch(args) : next(command, args),
    workspace: {
      // The server asks for section "pallasLsp": answer with the flat settings object.
      configuration: async (params, token, next) => {
        const result = await next(params, token);
        if (!Array.isArray(result)) {
          return result;
        }
        return params.items.map((item, i) => {
          if (item.section !== SECTION) {
            return result[i];
          }
          const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : firstFolder();
          return toServerSettings(settingsFor(scope));
        });
      },
    },
  };
}

async function startServer(): Promise<void> {
  setStatus("starting");
  const cmd = await resolve();
  current = cmd;
  if (!cmd) {
    setStatus("error", "no pallas-lsp server found: see the logs");
    void vscode.window
      .showErrorMessage("Pallas LSP: no pallas-lsp server found.", "Show Logs")
      .then((pick) => pick && output.show());
    return;
  }
  const folder = firstFolder();
  const serverOptions: ServerOptions = {
    command: cmd.command,
    args: serveArgs(cmd),
    transport: TransportKind.stdio,
    // PYTHONSAFEPATH (Python 3.11+, like -P): `python -m pallas_lsp` in the workspace folder
    // must not put the folder on sys.path (a workspace pallas_lsp/ or json.py would run).
    options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: "1", PYTHONSAFEPATH: "1" } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    diagnosticCollectionName: "pallas-lsp",
    initializationOptions: toServerSettings(settingsFor(folder)),
    middleware: middleware(),
    connectionOptions: { maxRestartCount: 4 },
  };
  log(`Starting: ${[cmd.command, ...serveArgs(cmd), "--stdio"].join(" ")}${folder ? ` (cwd ${folder.uri.fsPath})` : ""}`);
  const c = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  c.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      setStatus("running");
    } else if (e.newState === State.Starting) {
      setStatus("starting");
    } else if (client === c) {
      setStatus("stopped");
    }
  });
  client = c;
  try {
    await c.start();
    const info = c.initializeResult?.serverInfo;
    log(`Server running: ${info ? `${info.name} ${info.version ?? ""}`.trim() : "(no serverInfo)"}`);
    setStatus("running");
    notebookDiagnostics?.attach(c);
  } catch (e) {
    log(`Server failed to start: ${(e as Error).message ?? e}`);
    setStatus("error", `failed to start ${cmd.detail}: see the logs`);
    if (client === c) {
      client = undefined;
    }
    try {
      await c.dispose(2000);
    } catch {
      // already gone
    }
  }
}

async function stopServer(): Promise<void> {
  const c = client;
  client = undefined;
  notebookDiagnostics?.attach(undefined);
  if (c) {
    log("Stopping the server");
    try {
      await c.dispose(2000);
    } catch (e) {
      log(`Stopping the server: ${(e as Error).message ?? e}`);
    }
  }
  setStatus("stopped");
}

function restart(reason: string): Promise<unknown> {
  queue = queue.catch(() => undefined).then(async () => {
    log(`Restarting the server (${reason})`);
    await stopServer();
    await startServer();
  });
  return queue;
}

async function notifySettings(): Promise<void> {
  const c = client;
  if (!c || c.state !== State.Running) {
    return;
  }
  const settings = toServerSettings(settingsFor(firstFolder()));
  log(`Settings changed: sending ${JSON.stringify(settings)}`);
  await c.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settings } });
  notebookDiagnostics?.refreshAll(300);
}

// ---- commands ----------------------------------------------------------------

async function explainError(arg?: unknown): Promise<void> {
  let text = typeof arg === "string" ? arg : "";
  const editor = vscode.window.activeTextEditor;
  if (!text && editor && !editor.selection.isEmpty) {
    text = editor.document.getText(editor.selection);
  }
  if (!text) {
    text =
      (await vscode.window.showInputBox({
        title: "Pallas LSP: Explain Pallas Error",
        prompt: "Paste a JAX / Pallas error message or traceback",
        placeHolder: "ValueError: GPU interpret mode does not support `inline_mgpu`...",
        ignoreFocusOut: true,
      })) ?? "";
  }
  if (!text.trim()) {
    return;
  }
  let markdown: string | undefined;
  const c = client;
  if (c && c.state === State.Running) {
    try {
      const res = (await c.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_EXPLAIN_COMMAND,
        arguments: [text],
      })) as { markdown?: string } | string | null;
      markdown = typeof res === "string" ? res : res?.markdown;
    } catch (e) {
      log(`${SERVER_EXPLAIN_COMMAND} failed: ${(e as Error).message ?? e}; falling back to \`pallas-lsp explain\``);
    }
  }
  if (markdown === undefined) {
    const cmd = current ?? (await resolve());
    if (!cmd) {
      void vscode.window.showErrorMessage("Pallas LSP: no pallas-lsp server found to explain the error.");
      return;
    }
    const r = await run([cmd.command, ...cmd.baseArgs, "explain", "-"], {
      input: text,
      cwd: firstFolder()?.uri.fsPath,
    });
    if (r.error || (r.code !== 0 && r.code !== 1)) {
      log(`pallas-lsp explain failed (${r.error?.message ?? `exit ${r.code}`}): ${r.stderr}`);
      void vscode.window.showErrorMessage("Pallas LSP: explain failed: see the logs.");
      return;
    }
    markdown = r.stdout.trim() || "No error record matches this text.";
  }
  const uri = vscode.Uri.from({ scheme: EXPLAIN_SCHEME, path: "/Pallas error explanation.md" });
  explanations.set(uri.toString(), markdown);
  explanationChanged.fire(uri);
  try {
    await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
  } catch {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}

const SEVERITY: Record<string, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

async function checkWorkspace(collection: vscode.DiagnosticCollection): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) {
    void vscode.window.showWarningMessage("Pallas LSP: open a folder to check the workspace.");
    return;
  }
  const cmd = current ?? (await resolve());
  if (!cmd) {
    void vscode.window.showErrorMessage("Pallas LSP: no pallas-lsp server found.", "Show Logs").then((p) => p && output.show());
    return;
  }
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Pallas LSP: checking the workspace" },
    async () => {
      collection.clear();
      let problems = 0;
      let files = 0;
      for (const folder of folders) {
        const argv = [cmd.command, ...cmd.baseArgs, ...checkArgs(settingsFor(folder), folder.uri.fsPath)];
        log(`Check Workspace: ${argv.join(" ")}`);
        const started = Date.now();
        const r = await run(argv, { cwd: folder.uri.fsPath, timeoutMs: 600_000 });
        if (r.error || (r.code !== 0 && r.code !== 1)) {
          log(`Check Workspace failed (${r.error?.message ?? `exit ${r.code}`}):\n${r.stderr}`);
          void vscode.window.showErrorMessage(`Pallas LSP: checking ${folder.name} failed: see the logs.`);
          continue;
        }
        if (r.stderr.trim()) {
          log(r.stderr.trimEnd());
        }
        let byFile;
        try {
          byFile = parseCheckOutput(r.stdout, folder.uri.fsPath);
        } catch (e) {
          log(`Check Workspace: ${(e as Error).message}`);
          continue;
        }
        for (const [file, list] of byFile) {
          const diagnostics = list.map((p) => {
            const d = new vscode.Diagnostic(
              new vscode.Range(p.range.startLine, p.range.startCharacter, p.range.endLine, p.range.endCharacter),
              p.message,
              SEVERITY[p.severity],
            );
            d.source = "pallas-lsp";
            d.code = p.code;
            d.relatedInformation = p.related.map(
              (rel) =>
                new vscode.DiagnosticRelatedInformation(
                  new vscode.Location(vscode.Uri.file(rel.path), new vscode.Position(rel.line, 0)),
                  rel.message,
                ),
            );
            return d;
          });
          const uri = vscode.Uri.file(file);
          // Open files are reported live by the server; keep the CLI's copy for the others.
          const open =
            vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === uri.toString()) ||
            vscode.workspace.notebookDocuments.some((nb) => nb.uri.toString() === uri.toString());
          if (client && open) {
            continue;
          }
          collection.set(uri, diagnostics);
          problems += diagnostics.length;
          files += 1;
        }
        log(`Check Workspace: ${folder.name}: done in ${Date.now() - started} ms`);
      }
      log(`Check Workspace: ${problems} problem(s) in ${files} file(s) not open in the editor`);
      void vscode.window.showInformationMessage(
        `Pallas LSP: ${problems} problem${problems === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} (open files are checked live).`,
      );
    },
  );
}

// ---- activation --------------------------------------------------------------

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel(CLIENT_NAME);
  const version = (context.extension.packageJSON as { version?: string }).version ?? "?";
  log(`Pallas LSP extension ${version} activating (VS Code ${vscode.version}, ${process.platform}-${process.arch})`);
  status = vscode.languages.createLanguageStatusItem("pallasLsp.server", DOCUMENT_SELECTOR);
  const checkCollection = vscode.languages.createDiagnosticCollection("pallas-lsp-check");
  notebookDiagnostics = new NotebookCellDiagnostics(log);
  context.subscriptions.push(output, status, checkCollection, explanationChanged, notebookDiagnostics);

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, {
      onDidChange: explanationChanged.event,
      provideTextDocumentContent: (uri) => explanations.get(uri.toString()) ?? "",
    }),
    vscode.commands.registerCommand("pallasLsp.restart", () => restart("command")),
    vscode.commands.registerCommand("pallasLsp.showLogs", () => output.show()),
    vscode.commands.registerCommand("pallasLsp.explainError", (arg?: unknown) => explainError(arg)),
    vscode.commands.registerCommand("pallasLsp.checkWorkspace", () => checkWorkspace(checkCollection)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const action = changeAction((key) => e.affectsConfiguration(key));
      if (action === "restart") {
        void restart("pallasLsp.path, pallasLsp.interpreter or pallasLsp.importStrategy changed");
      } else if (action === "notify") {
        void notifySettings();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart("workspace trusted")),
    vscode.workspace.onDidOpenTextDocument((doc) => checkCollection.delete(doc.uri)),
    vscode.workspace.onDidChangeTextDocument((e) => checkCollection.delete(e.document.uri)),
  );
  void python.onDidChangeInterpreter(() => {
    const s = settingsFor(firstFolder());
    if (!s.path.length && !s.interpreter.length) {
      void restart("the Python extension's interpreter changed");
    }
  }).then((d) => d && context.subscriptions.push(d));

  queue = queue.catch(() => undefined).then(startServer);
  await queue;
}

export async function deactivate(): Promise<void> {
  await queue.catch(() => undefined);
  await stopServer();
}
