#!/usr/bin/env node
// End-to-end test of the extension in real VS Code: code-server 4.100.3 in headless Chromium.
//
//   node test/e2e/run.mjs [--variant path|bundled|untrusted]... [--no-package] [--keep]
//
// For each variant: installs the .vsix into a fresh code-server, opens a copy of corpus files,
// and asserts what VS Code shows (Problems, hover, Quick Fix, the fix applied, settings applied
// without reload, Check Workspace, Explain). Screenshots, logs and results.json go to
// test-artifacts/<variant>/. Exit status 0 only when every variant passed.
//
// Environment: PALLAS_LSP_EXE (default <repo>/.venv/bin/pallas-lsp), CHROMIUM (default
// /usr/bin/chromium), E2E_CACHE (default .e2e-cache).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { ensureCodeServer, freePort, galleryEnv, installExtension, startCodeServer, xdgEnv } from "./codeServer.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const repo = resolve(root, "..", "..");
const argv = process.argv.slice(2);
const variants = argv.flatMap((a, i) => (a === "--variant" ? [argv[i + 1]] : []));
const VARIANTS = variants.length ? variants : ["path", "bundled", "untrusted"];
const NO_PACKAGE = argv.includes("--no-package");
const KEEP = argv.includes("--keep");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const PALLAS_LSP_EXE = process.env.PALLAS_LSP_EXE || join(repo, ".venv", "bin", "pallas-lsp");
const CACHE = resolve(root, process.env.E2E_CACHE || ".e2e-cache");
const ARTIFACTS = join(root, "test-artifacts");
const CORPUS = join(repo, "tests", "data", "corpus");
const WHAT_IF_FILE = join(repo, "tests", "data", "what_if", "what_if_kernel.py"); // compiled launch on line 18
// Compiled TPU launches: the memory-budget lens on line 18's `pl.pallas_call(` (BLOCK on line 9),
// and interpreted launches meant for a TPU (the "TPU v5e compiled" lens on lines 12, 24, 39).
// The protocol-level twins: tests/lsp/test_memory_lens.py, tests/lsp/test_what_if.py.
const BUDGET_FILE = join(repo, "tests", "data", "memory", "two_launches.py");
const COMPILED_TPU_FILE = join(repo, "tests", "data", "what_if", "compiled_tpu_kernel.py");
const BUDGET_LENS = "VMEM 9 of 16 MiB (v5e): x_ref 2 x 2 MiB, o_ref 2 x 2 MiB, acc_ref 1 MiB";
const BUDGET_LENS_EDITED = "VMEM 18 of 16 MiB (v5e): x_ref 2 x 4 MiB, o_ref 2 x 4 MiB, acc_ref 2 MiB";
const COMPILED_TPU_LENSES = [
  { line: 12, title: "TPU v5e compiled: 1 blocker (dot line 8)" },
  { line: 24, title: "TPU v5e compiled: 1 blocker (tpu-block-tiling line 28)" },
  { line: 39, title: "TPU v5e compiled: ready" },
];

const PAL003_FILE = "inline_mgpu_gpu_interpret_params.py"; // line 15 `fence(o_ref)` is PAL003
const PAL001_FILE = "get_global_interpret_true_basic.py"; // line 9 `pl.get_global(...)` is PAL001
const FIX_TITLE = 'Add inline_mgpu="ignore" to the GPU interpret params';

const t0 = Date.now();
const secs = (since = t0) => `${((Date.now() - since) / 1000).toFixed(1)}s`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function say(msg) {
  console.log(`[e2e ${secs()}] ${msg}`);
}

class Failure extends Error {}

/** Polls `fn` until it returns a truthy value; throws `what` on timeout. */
async function until(what, fn, timeoutMs = 30_000, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) {
        return last;
      }
    } catch (e) {
      last = e;
    }
    await sleep(everyMs);
  }
  throw new Failure(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last instanceof Error ? ` (${last.message})` : ""}`);
}

// ---- the record the hover must explain -----------------------------------------------------

function recordDocumentation(slug) {
  // Each kind is a folder of its own: kinds/<slug with underscores>/record.json.
  const file = join(repo, "server", "pallas_lsp", "kinds", slug.replaceAll("-", "_"), "record.json");
  const data = JSON.parse(readFileSync(file, "utf8"));
  const rec = data.record ?? data;
  return String(rec.documentation);
}

// ---- VS Code through the DOM ---------------------------------------------------------------

class Workbench {
  constructor(page, shots) {
    this.page = page;
    this.shots = shots;
    this.n = 0;
  }

  async shot(name) {
    const file = join(this.shots, `${String(++this.n).padStart(2, "0")}-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async escape(times = 2) {
    for (let i = 0; i < times; i++) {
      await this.page.keyboard.press("Escape");
      await sleep(80);
    }
  }

  async quickInput(prefixKey, text) {
    const { page } = this;
    await this.escape(1);
    await page.keyboard.press(prefixKey);
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    return input;
  }

  /** Runs a command from the command palette by its exact label. */
  async command(label) {
    const { page } = this;
    const input = await this.quickInput("F1");
    await input.fill(`>${label}`);
    await until(`command "${label}" in the palette`, async () => {
      const first = page.locator(".quick-input-widget .quick-input-list .monaco-list-row").first();
      const aria = (await first.getAttribute("aria-label")) ?? "";
      return aria.startsWith(label);
    }, 10_000, 100);
    await page.keyboard.press("Enter");
    await sleep(150);
  }

  async openFile(name) {
    const { page } = this;
    const input = await this.quickInput("Control+p");
    await input.fill(name);
    await until(`${name} in Quick Open`, async () => {
      const first = page.locator(".quick-input-widget .quick-input-list .monaco-list-row").first();
      return ((await first.getAttribute("aria-label")) ?? "").includes(name);
    }, 15_000, 100);
    await page.keyboard.press("Enter");
    await until(`${name} open in the editor`, async () => {
      const tab = page.locator(`.tabs-container .tab.active[aria-label*="${name}"]`);
      return (await tab.count()) > 0;
    }, 15_000);
    const body = name.endsWith(".ipynb") ? ".notebook-editor .cell-list-container" : ".editor-instance .monaco-editor .view-lines";
    await page.locator(body).first().waitFor({ timeout: 20_000 });
  }

  async goto(line, column) {
    const { page } = this;
    const input = await this.quickInput("Control+g");
    await input.fill(`:${line}:${column}`);
    await sleep(150);
    await page.keyboard.press("Enter");
    await sleep(200);
  }

  /** Replaces a settings.json through its editor, as a user would, and saves. */
  async editSettings(command, obj, file) {
    const { page } = this;
    await this.command(command);
    await until("settings.json in the editor", async () => (await page.locator('.tabs-container .tab.active[aria-label*="settings.json"]').count()) > 0, 15_000);
    await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(JSON.stringify(obj, null, 2));
    await page.keyboard.press("Control+s");
    await until("settings.json saved", async () => (await page.locator('.tabs-container .tab.active.dirty').count()) === 0, 10_000);
    if (file) {
      const want = JSON.stringify(obj);
      await until("settings.json on disk to hold the new settings", async () => {
        try {
          return JSON.stringify(JSON.parse(readFileSync(file, "utf8"))) === want;
        } catch {
          return false;
        }
      }, 10_000);
    }
    await page.keyboard.press("Control+w");
    await sleep(200);
  }

  async editorText() {
    return this.page.evaluate(() => {
      const lines = [...document.querySelectorAll(".editor-instance .monaco-editor .view-lines .view-line")];
      return lines
        .map((l) => ({ top: parseFloat(l.style.top) || 0, text: l.textContent.replace(/\u00a0/g, " ") }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text)
        .join("\n");
    });
  }

  async openProblems() {
    const { page } = this;
    if (!(await page.locator(".markers-panel").isVisible().catch(() => false))) {
      await this.command("View: Focus Problems (Errors, Warnings, Infos)");
    }
    await page.locator(".markers-panel").waitFor({ state: "visible", timeout: 10_000 });
  }

  /** Rows of the Problems panel: { text, aria } (the panel must be open). */
  async problems() {
    return this.page.evaluate(() =>
      [...document.querySelectorAll(".markers-panel .monaco-list-row")].map((r) => ({
        text: r.textContent.replace(/\u00a0/g, " "),
        aria: r.getAttribute("aria-label") ?? "",
      })),
    );
  }

  async problemRow(code, file) {
    const rows = await this.problems();
    return rows.find((r) => r.text.includes(code) && (!file || rowsFile(rows, r) === file));
  }

  /** True when the Problems panel is showing and has no row for `code` in `file`. */
  async problemGone(code, file) {
    await this.openProblems();
    return !(await this.problemRow(code, file));
  }

  async hoverText() {
    return this.page.evaluate(() => {
      const h = [...document.querySelectorAll(".monaco-hover-content, .monaco-hover .hover-contents")].filter(
        (e) => e.offsetParent !== null,
      );
      return h.map((e) => e.textContent).join("\n");
    });
  }

  /** The code lenses the active editor renders: { line (1-based), text }, each lens on the line
   *  it stands above (the first line number below it). Only lines in view have lenses drawn. */
  async renderedLenses() {
    return this.page.evaluate(() => {
      const editor = document.querySelector(".editor-instance .monaco-editor");
      if (!editor) {
        return [];
      }
      // Monaco keeps elements for lines scrolled out of view: read only what is inside the view.
      const view = editor.querySelector(".lines-content")?.parentElement?.getBoundingClientRect() ?? editor.getBoundingClientRect();
      const inView = (e) => {
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= view.top && r.bottom <= view.bottom;
      };
      const numbers = [...editor.querySelectorAll(".margin-view-overlays .line-numbers")].filter(inView).map((e) => ({
        line: Number(e.textContent),
        top: e.getBoundingClientRect().top,
      }));
      return [...editor.querySelectorAll(".codelens-decoration a")].filter(inView).map((a) => {
        const top = a.getBoundingClientRect().top;
        const below = numbers.filter((n) => n.top > top).sort((x, y) => x.top - y.top)[0];
        return { line: below ? below.line : undefined, text: (a.textContent ?? "").replace(/\u00a0/g, " ").trim() };
      });
    });
  }

  /** The rows of the tables in the visible hover, cells joined with " | ". */
  async hoverTableRows() {
    return this.page.evaluate(() =>
      [...document.querySelectorAll(".monaco-hover-content table tr, .monaco-hover .hover-contents table tr")]
        .filter((r) => r.offsetParent !== null)
        .map((r) => [...r.children].map((c) => (c.textContent ?? "").trim()).join(" | ")),
    );
  }

  async quickFixTitles() {
    return this.page.evaluate(() =>
      [...document.querySelectorAll(".action-widget .monaco-list-row")]
        .map((r) => r.getAttribute("aria-label") || r.textContent || "")
        .filter((t) => t),
    );
  }

  async outputText() {
    return this.page.evaluate(() => {
      const out = document.querySelector(".output-view, .pane-body.output-view, [id='workbench.panel.output']");
      const lines = out ? [...out.querySelectorAll(".view-line")] : [];
      return lines
        .map((l) => ({ top: parseFloat(l.style.top) || 0, text: l.textContent.replace(/\u00a0/g, " ") }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text)
        .join("\n");
    });
  }
}

/** The file a Problems row belongs to: the nearest file row above it. */
function rowsFile(rows, row) {
  const i = rows.indexOf(row);
  for (let j = i; j >= 0; j--) {
    const m = /^(\S+\.(?:py|ipynb))/.exec(rows[j].text);
    if (m) {
      return m[1];
    }
  }
  return undefined;
}

function lineCol(text) {
  const m = /\[Ln (\d+), Col (\d+)\]/.exec(text);
  return m ? { line: Number(m[1]), column: Number(m[2]) } : undefined;
}

/** The PAL003 file as a notebook: the kernel in cell 1 (lines 1-16), its launch in cell 2. */
function notebookOf(source) {
  const lines = source.split("\n");
  const cell = (ls) => ({
    cell_type: "code",
    execution_count: null,
    metadata: {},
    outputs: [],
    source: ls.map((l, i) => (i < ls.length - 1 ? `${l}\n` : l)),
  });
  const main = lines.slice(17, 22);
  return JSON.stringify(
    {
      cells: [cell(lines.slice(0, 15)), cell([...main, "", "main()"])],
      metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  );
}

// ---- one variant ---------------------------------------------------------------------------

function findFiles(dir, pred, out = []) {
  if (!existsSync(dir)) {
    return out;
  }
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) {
      findFiles(p, pred, out);
    } else if (pred(e)) {
      out.push(p);
    }
  }
  return out;
}

function channelLog(userDataDir) {
  const files = findFiles(join(userDataDir, "logs"), (n) => n.endsWith("Pallas LSP.log"));
  return files.map((f) => readFileSync(f, "utf8")).join("\n");
}

async function runVariant(variant, { bin, vsix }) {
  const artifacts = join(ARTIFACTS, variant);
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), `pallas-e2e-${variant}-`));
  const workspace = join(scratch, "workspace");
  const userDataDir = join(scratch, "user-data");
  const extensionsDir = join(scratch, "extensions");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  copyFileSync(join(CORPUS, PAL003_FILE), join(workspace, "kernel.py"));
  copyFileSync(join(CORPUS, PAL001_FILE), join(workspace, "other_kernel.py"));
  copyFileSync(WHAT_IF_FILE, join(workspace, "what_if_kernel.py"));
  copyFileSync(BUDGET_FILE, join(workspace, "two_launches.py"));
  copyFileSync(COMPILED_TPU_FILE, join(workspace, "compiled_tpu_kernel.py"));
  writeFileSync(join(workspace, "kernel_nb.ipynb"), notebookOf(readFileSync(join(CORPUS, PAL003_FILE), "utf8")));

  const settings = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "git.enabled": false,
    "chat.commandCenter.enabled": false,
    "editor.hover.delay": 200,
    "editor.lightbulb.enabled": "on",
    "window.commandCenter": false,
    "files.autoSave": "off",
    // The settings.json editor receives text as typed: no auto-closing or auto-indent.
    "editor.autoClosingBrackets": "never",
    "editor.autoClosingQuotes": "never",
    "editor.autoIndent": "none",
    "editor.formatOnType": false,
    "pallasLsp.trace.server": "messages",
  };
  // pallasLsp.path/interpreter/importStrategy are machine-overridable: in a remote window (and
  // code-server is one) VS Code takes them from the remote (Machine) settings or the workspace,
  // not from the browser's user settings.
  const machineSettings = {};
  if (variant === "path") {
    machineSettings["pallasLsp.path"] = [PALLAS_LSP_EXE, "serve"];
  } else if (variant === "bundled") {
    machineSettings["pallasLsp.importStrategy"] = "useBundled";
  } else if (variant === "untrusted") {
    // A machine-level path to an executable that does not exist: an untrusted workspace must not use it.
    machineSettings["pallasLsp.path"] = ["/nonexistent/pallas-lsp"];
    settings["security.workspace.trust.enabled"] = true;
    settings["security.workspace.trust.startupPrompt"] = "never";
    settings["security.workspace.trust.banner"] = "always";
  }
  const settingsFile = join(userDataDir, "User", "settings.json");
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  mkdirSync(join(userDataDir, "Machine"), { recursive: true });
  writeFileSync(join(userDataDir, "Machine", "settings.json"), JSON.stringify(machineSettings, null, 2));
  const workspaceSettingsFile = join(workspace, ".vscode", "settings.json");
  mkdirSync(dirname(workspaceSettingsFile), { recursive: true });
  writeFileSync(workspaceSettingsFile, "{}\n");

  const closedPort = await freePort();
  const port = await freePort();
  // PATH without the repo's virtualenv: the bundled variants must not find pallas-lsp there.
  const PATH = (process.env.PATH ?? "")
    .split(":")
    .filter((p) => p && !p.startsWith(join(repo, ".venv")))
    .join(":");
  const env = {
    ...process.env,
    PATH,
    ...xdgEnv(join(scratch, "xdg")),
    EXTENSIONS_GALLERY: galleryEnv(closedPort),
    VSCODE_PROXY_URI: "",
  };
  delete env.VIRTUAL_ENV;

  const result = { variant, steps: [], passed: false, screenshots: [], timings: {} };
  const step = async (name, fn) => {
    const started = Date.now();
    say(`${variant}: ${name}`);
    try {
      const detail = await fn();
      result.steps.push({ name, ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) });
    } catch (e) {
      result.steps.push({ name, ok: false, ms: Date.now() - started, error: e.message });
      throw e;
    }
  };

  let server;
  let browser;
  let wb;
  try {
    await step("install the .vsix", async () => installExtension(bin, vsix, { extensionsDir, userDataDir, env }));
    await step("start code-server", async () => {
      server = await startCodeServer(bin, {
        port,
        folder: workspace,
        userDataDir,
        extensionsDir,
        env,
        logFile: join(artifacts, "code-server.log"),
        trust: variant === "untrusted",
      });
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-breakpad",
        "--disable-crash-reporter",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const consoleLines = [];
    page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    wb = new Workbench(page, artifacts);

    let loadStarted;
    await step("load the workbench", async () => {
      loadStarted = Date.now();
      await page.goto(server.url);
      await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
      await page.locator(".part.editor").waitFor({ timeout: 30_000 });
      await sleep(1000);
      result.timings.workbenchMs = Date.now() - loadStarted;
    });

    let openedAt;
    await step("open kernel.py", async () => {
      await wb.openFile("kernel.py");
      openedAt = Date.now();
      result.timings.fileOpenMs = openedAt - loadStarted;
      await wb.shot("opened");
    });

    await step("the extension found the server (resolution chain in the Pallas LSP output channel)", async () => {
      const expected = {
        path: [/1\. pallasLsp\.path: using .*\.venv\/bin\/pallas-lsp serve/],
        bundled: [
          /2\. pallasLsp\.importStrategy is useBundled/,
          /bundled server: using .*bundled\/tool\/server\.py/,
          /pallas-lsp \(bundled\) \S+ from \S*\/extensions\/pallas-lsp\.pallas-lsp-[^/]+\/bundled\/libs\/pallas_lsp /,
        ],
        untrusted: [
          /workspace is not trusted/,
          /bundled server: using .*bundled\/tool\/server\.py/,
          /pallas-lsp \(bundled\) \S+ from \S*\/extensions\/pallas-lsp\.pallas-lsp-[^/]+\/bundled\/libs\/pallas_lsp /,
        ],
      }[variant];
      const text = await until("the resolution chain and a running server in the log", async () => {
        const t = channelLog(userDataDir);
        return expected.every((re) => re.test(t)) && /Server running: pallas-lsp/.test(t) ? t : undefined;
      }, 60_000);
      if (variant === "untrusted" && /nonexistent/.test(text.split("Starting:")[1] ?? "")) {
        throw new Failure("the untrusted workspace started the configured pallasLsp.path");
      }
      return text.split("\n").filter((l) => /Resolving|^\[.*\]\s+(\d\.|\(untrusted\)|workspace)|Starting:|Server running|\(bundled\)/.test(l)).join("\n");
    });

    await step("Problems shows PAL003 on line 15", async () => {
      await wb.openProblems();
      const row = await until("PAL003 in the Problems panel", () => wb.problemRow("PAL003", "kernel.py"), 60_000);
      result.timings.firstProblemAfterOpenMs = Date.now() - openedAt;
      const lc = lineCol(row.text);
      if (!lc || lc.line !== 15 || lc.column !== 5) {
        throw new Failure(`PAL003 at ${JSON.stringify(lc)}, expected line 15 column 5: ${row.text}`);
      }
      if (!/pallas-lsp/.test(row.text) || !/inline_mgpu/.test(row.text)) {
        throw new Failure(`unexpected Problems row: ${row.text}`);
      }
      await wb.shot("problems");
      return row.text;
    });

    await step("the language status item shows the server and its executable", async () => {
      const want = variant === "path" ? ".venv/bin/pallas-lsp" : "bundled, Python";
      await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
      const item = page.locator('[id="status.languageStatus"]').first();
      await item.waitFor({ timeout: 10_000 });
      await item.click();
      const text = await until("the language status hover", async () => {
        const t = await page.evaluate(() =>
          [...document.querySelectorAll(".language-status-hover, .monaco-hover")].map((e) => e.textContent).join("\n"),
        );
        return t.includes("Pallas LSP") && t.includes(want) ? t : undefined;
      }, 10_000);
      await wb.shot("language-status");
      await wb.escape();
      return text.slice(0, 200);
    });

    await step("hover on fence(o_ref) explains the record", async () => {
      // GPU interpret mode: the GPU interpreter's own inline_mgpu error, under its own record.
      const doc = recordDocumentation("gpu-interpret-inline-mgpu");
      const needle = doc.slice(0, 60);
      await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
      await wb.goto(15, 6);
      await wb.command("Show or Focus Hover");
      const text = await until("the hover", async () => {
        const t = await wb.hoverText();
        return t.includes("PAL003") && t.includes(needle) ? t : undefined;
      }, 20_000);
      await wb.shot("hover");
      await wb.escape();
      return text.slice(0, 300);
    });

    await step("clicking the code lens peeks the launch's context chain", async () => {
      // kernel.py: the launch on line 20 runs in GPU interpret mode because of `interpret=GPU_INTERPRET`
      // (line 21), whose value is built on line 6; the kernel is defined on line 9.
      await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
      await wb.goto(20, 1);
      const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "GPU interpret" }).first();
      await until("the launch's code lens", async () => (await lens.count()) > 0, 30_000);
      await lens.click();
      const rows = await until("the peek with the chain", async () => {
        const labels = await page.evaluate(() =>
          [...document.querySelectorAll(".peekview-widget .ref-tree .monaco-list-row")].map(
            (r) => (r.getAttribute("aria-label") ?? "") + " " + (r.textContent ?? ""),
          ),
        );
        return labels.length >= 3 ? labels : undefined;
      }, 20_000);
      const text = rows.join("\n");
      for (const needle of ["interpret=GPU_INTERPRET", "def kernel"]) {
        if (!text.includes(needle)) {
          throw new Failure(`the peek does not list ${needle}: ${text.slice(0, 600)}`);
        }
      }
      await wb.shot("code-lens-peek");
      await wb.escape();
      return `${rows.length} locations: ${text.replace(/\s+/g, " ").slice(0, 300)}`;
    });

    if (variant === "path") {
      await step("a settings change applies without reload (pallasLsp.ignore)", async () => {
        const started = Date.now();
        await wb.editSettings("Preferences: Open User Settings (JSON)", { ...settings, "pallasLsp.ignore": ["PAL003"] }, settingsFile);
        await until("PAL003 to leave the Problems panel", () => wb.problemGone("PAL003", "kernel.py"), 30_000);
        const hidden = Date.now() - started;
        await wb.openProblems();
        await wb.shot("ignored-by-setting");
        await wb.editSettings("Preferences: Open User Settings (JSON)", settings, settingsFile);
        await until("PAL003 to come back", () => wb.problemRow("PAL003", "kernel.py"), 30_000);
        return `hidden after ${hidden} ms, back after ${Date.now() - started} ms`;
      });
    }

    await step("Quick Fix lists the record's fix and the ignore comment", async () => {
      await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
      await wb.goto(15, 6);
      await page.keyboard.press("Control+.");
      const titles = await until("the Quick Fix menu", async () => {
        const t = await wb.quickFixTitles();
        return t.some((x) => x.includes(FIX_TITLE)) ? t : undefined;
      }, 20_000);
      if (!titles.some((t) => t.includes("Ignore PAL003 on this line"))) {
        throw new Failure(`no "Ignore PAL003 on this line" in ${JSON.stringify(titles)}`);
      }
      await wb.shot("quick-fix-menu");
      return titles;
    });

    await step("applying the fix removes the problem", async () => {
      // Select the fix with the keyboard (the menu's pointer block swallows synthetic clicks).
      await until("the fix selected in the menu", async () => {
        const focused = (await page.locator(".action-widget .monaco-list-row.focused").first().getAttribute("aria-label").catch(() => "")) ?? "";
        if (focused.includes(FIX_TITLE)) {
          return true;
        }
        await page.keyboard.press("ArrowDown");
        return false;
      }, 10_000, 150);
      await page.keyboard.press("Enter");
      const text = await until("the fix in the editor", async () => {
        const t = await wb.editorText();
        return t.includes('InterpretGPUParams(inline_mgpu="ignore")') ? t : undefined;
      }, 15_000);
      const started = Date.now();
      await until("PAL003 to leave the Problems panel", () => wb.problemGone("PAL003", "kernel.py"), 30_000);
      result.timings.problemGoneAfterFixMs = Date.now() - started;
      await wb.shot("fixed");
      return text.split("\n").find((l) => l.includes("inline_mgpu="));
    });

    if (variant === "path") {
      await step("the interpret-readiness lens names the blocker; Debug on CPU rewrites the launch", async () => {
        await wb.openFile("what_if_kernel.py");
        await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
        await wb.goto(18, 12);
        const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "GPU interpret: 1 blocker" }).first();
        await until("the what-if lens on the compiled launch", async () => (await lens.count()) > 0, 30_000);
        const lensText = (await lens.textContent()) ?? "";
        if (!lensText.includes("fence line 14")) {
          throw new Failure(`the lens does not name the blocker: ${lensText}`);
        }
        await wb.shot("what-if-lens");
        await wb.goto(18, 12);
        await wb.command("Refactor...");
        await until("Debug on CPU in the refactor menu", async () => {
          const t = await wb.quickFixTitles();
          return t.some((x) => x.includes("Debug on CPU")) ? t : undefined;
        }, 20_000);
        await until("Debug on CPU selected", async () => {
          const focused = (await page.locator(".action-widget .monaco-list-row.focused").first().getAttribute("aria-label").catch(() => "")) ?? "";
          if (focused.includes("Debug on CPU")) {
            return true;
          }
          await page.keyboard.press("ArrowDown");
          return false;
        }, 10_000, 150);
        await page.keyboard.press("Enter");
        const text = await until("the launch rewritten to GPU interpret mode", async () => {
          const t = await wb.editorText();
          return t.includes('interpret=plgpu.InterpretGPUParams(inline_mgpu="ignore")') ? t : undefined;
        }, 15_000);
        await wb.shot("debug-on-cpu");
        return `${lensText} -> ${text.split("\n").find((l) => l.includes("InterpretGPUParams"))?.trim()}`;
      });
    }

    if (variant === "path") {
      await step("the budget lens on a compiled TPU launch, its hover's Memory section, the lens after an edit", async () => {
        await wb.openFile("two_launches.py");
        const opened = Date.now();
        const editor = page.locator(".editor-instance .monaco-editor .view-lines").first();
        await editor.click();
        await wb.goto(18, 12);
        const shown = await until("the budget lens on line 18", async () => {
          const lenses = await wb.renderedLenses();
          return lenses.some((l) => l.line === 18 && l.text === BUDGET_LENS) ? lenses : undefined;
        }, 30_000);
        result.timings.budgetLensAfterOpenMs = Date.now() - opened;
        await wb.shot("budget-lens");
        // Clicking it peeks the parts' declarations: the two BlockSpecs and the scratch.
        await page.locator(".monaco-editor .codelens-decoration a", { hasText: BUDGET_LENS }).first().click();
        const peek = await until("the peek of the parts", async () => {
          const labels = await page.evaluate(() =>
            [...document.querySelectorAll(".peekview-widget .ref-tree .monaco-list-row")].map((r) => r.textContent ?? ""),
          );
          return labels.length >= 3 ? labels.join("\n") : undefined;
        }, 20_000);
        for (const needle of ["in_specs=", "out_specs=", "scratch_shapes="]) {
          if (!peek.includes(needle)) {
            throw new Failure(`the budget peek does not list ${needle}: ${peek.slice(0, 600)}`);
          }
        }
        await wb.shot("budget-peek");
        await wb.escape();
        // The hover on `pallas_call` (line 18, column 16): the Memory section and its parts table.
        await editor.click();
        await wb.goto(18, 16);
        await wb.command("Show or Focus Hover");
        const hover = await until("the launch hover's Memory section", async () => {
          const t = await wb.hoverText();
          return t.includes("Memory (estimated") && t.includes(BUDGET_LENS) ? t : undefined;
        }, 20_000);
        const rows = await until("the parts table in the hover", async () => {
          const r = await wb.hoverTableRows();
          return r.includes("o_ref | out | VMEM | 2 | (512, 1024) float32 | 4 MiB") ? r : undefined;
        }, 10_000);
        await wb.shot("budget-hover");
        await wb.escape();
        // The edit, typed: BLOCK = (512, COLS) -> (1024, COLS); the lens follows and PAL800 appears.
        await editor.click();
        await wb.goto(9, 1);
        await page.keyboard.press("End");
        await page.keyboard.press("Shift+Home");
        await page.keyboard.insertText("BLOCK = (1024, COLS)");
        const edited = Date.now();
        await until("the edited budget lens on line 18", async () => {
          await wb.goto(18, 12);
          const lenses = await wb.renderedLenses();
          return lenses.some((l) => l.line === 18 && l.text === BUDGET_LENS_EDITED);
        }, 30_000);
        result.timings.budgetLensAfterEditMs = Date.now() - edited;
        await wb.openProblems();
        const row = await until("PAL800 in the Problems panel", () => wb.problemRow("PAL800", "two_launches.py"), 30_000);
        await wb.shot("budget-edited");
        return { before: shown.map((l) => `${l.line}: ${l.text}`), hover: hover.slice(0, 200), rows, after: BUDGET_LENS_EDITED, problem: row.text };
      });

      await step("the 'TPU v5e compiled' lenses on interpreted launches meant for a TPU", async () => {
        await wb.openFile("compiled_tpu_kernel.py");
        await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
        // Lenses are drawn for the lines in view: visit each launch and read the lens above it.
        const seen = [];
        for (const want of COMPILED_TPU_LENSES) {
          const lens = await until(`the lens on line ${want.line}`, async () => {
            await wb.goto(want.line, 12);
            const lenses = await wb.renderedLenses();
            return lenses.find((l) => l.line === want.line && l.text.startsWith("TPU v5e compiled"));
          }, 30_000);
          if (lens.text !== want.title) {
            throw new Failure(`line ${want.line}: "${lens.text}", expected "${want.title}"`);
          }
          seen.push(`${lens.line}: ${lens.text}`);
        }
        await wb.shot("compiled-tpu-lenses");
        // Interpreted, these launches run as written: no problem for the file.
        await wb.openProblems();
        await sleep(1000);
        const rows = await wb.problems();
        const own = rows.filter((r) => rowsFile(rows, r) === "compiled_tpu_kernel.py");
        if (own.length) {
          throw new Failure(`problems in compiled_tpu_kernel.py: ${own.map((r) => r.text).join("; ")}`);
        }
        return seen;
      });
    }

    if (variant === "bundled") {
      const running = () => (channelLog(userDataDir).match(/Server running: pallas-lsp/g) ?? []).length;
      await step("Pallas LSP: Restart Server starts a new server", async () => {
        const before = running();
        await wb.command("Pallas LSP: Restart Server");
        await until("a second server start in the log", async () => running() > before && /Restarting the server \(command\)/.test(channelLog(userDataDir)), 30_000);
        return `${running()} starts`;
      });
      await step("setting pallasLsp.path (workspace settings) restarts the server with that executable", async () => {
        const before = running();
        await wb.editSettings("Preferences: Open Workspace Settings (JSON)", { "pallasLsp.path": [PALLAS_LSP_EXE] }, workspaceSettingsFile);
        const text = await until("a restart on the path", async () => {
          const t = channelLog(userDataDir);
          const tail = t.slice(t.lastIndexOf("Restarting the server"));
          return running() > before && /Restarting the server \(pallasLsp\.path/.test(t) && /1\. pallasLsp\.path: using .*\.venv\/bin\/pallas-lsp serve/.test(tail) ? tail : undefined;
        }, 30_000);
        await wb.command("Pallas LSP: Show Logs");
        await wb.shot("restarted-on-path");
        return text.split("\n").slice(0, 4).join("\n");
      });
    }

    if (variant === "path") {
      await step("a notebook's cells are checked as one module (kernel in cell 1, launch in cell 2)", async () => {
        await wb.openFile("kernel_nb.ipynb");
        await wb.openProblems();
        const row = await until("PAL003 for the notebook", async () => {
          const rows = await wb.problems();
          return rows.find((r) => r.text.includes("PAL003") && /\.ipynb/.test(rowsFile(rows, r) ?? ""));
        }, 60_000);
        const lc = lineCol(row.text);
        if (!lc || lc.line !== 15 || lc.column !== 5) {
          throw new Failure(`notebook PAL003 at ${JSON.stringify(lc)}, expected cell 1 line 15 column 5: ${row.text}`);
        }
        await wb.shot("notebook");
        return row.text;
      });

      await step("Check Workspace reports PAL001 in the file that is not open", async () => {
        await wb.command("Pallas LSP: Check Workspace");
        await wb.openProblems();
        const row = await until("PAL001 for other_kernel.py", () => wb.problemRow("PAL001", "other_kernel.py"), 60_000);
        const lc = lineCol(row.text);
        if (!lc || lc.line !== 9) {
          throw new Failure(`PAL001 at ${JSON.stringify(lc)}, expected line 9: ${row.text}`);
        }
        await wb.shot("check-workspace");
        return row.text;
      });

      await step("Explain Pallas Error shows the record", async () => {
        await wb.command("Pallas LSP: Explain Pallas Error…");
        const input = page.locator(".quick-input-widget .quick-input-box input");
        await input.waitFor({ state: "visible", timeout: 10_000 });
        await input.fill("NotImplementedError: inline_mgpu_p does not support discharge.");
        await page.keyboard.press("Enter");
        const tab = await until("the explanation preview", async () => {
          const labels = await page.evaluate(() =>
            [...document.querySelectorAll(".tabs-container .tab")].map((t) => t.getAttribute("aria-label") ?? ""),
          );
          return labels.find((l) => l.includes("Pallas error explanation"));
        }, 20_000);
        // The preview is a webview: read its frames for the record's text.
        const doc = recordDocumentation("inline-mgpu-p-does-not-support-discharge").slice(0, 50);
        await until("the record in the preview", async () => {
          for (const f of page.frames()) {
            const t = await f.evaluate(() => document.body?.innerText ?? "").catch(() => "");
            if (t.includes(doc)) {
              return true;
            }
          }
          return false;
        }, 20_000);
        await wb.shot("explain");
        return tab;
      });

      await step("Show Logs opens the output channel", async () => {
        await wb.command("Pallas LSP: Show Logs");
        const text = await until("the Pallas LSP output", async () => {
          const t = await wb.outputText();
          return /Pallas LSP|pallas-lsp|Server running|Sending|Received/.test(t) ? t : undefined;
        }, 15_000);
        await wb.shot("logs");
        return `${text.split("\n").length} visible lines`;
      });
    }

    result.passed = true;
    writeFileSync(join(artifacts, "browser-console.log"), consoleLines.join("\n"));
  } catch (e) {
    result.error = e.message;
    say(`${variant}: FAILED: ${e.message}`);
    if (wb) {
      await wb.shot("failure").catch(() => undefined);
    }
  } finally {
    writeFileSync(join(artifacts, "pallas-lsp-output.log"), channelLog(userDataDir));
    if (browser) {
      await browser.close().catch(() => undefined);
    }
    if (server) {
      await server.stop();
    }
    result.screenshots = findFiles(artifacts, (n) => n.endsWith(".png")).sort();
    result.totalMs = result.steps.reduce((a, s) => a + s.ms, 0);
    writeFileSync(join(artifacts, "results.json"), JSON.stringify(result, null, 2) + "\n");
    if (!KEEP) {
      rmSync(scratch, { recursive: true, force: true });
    } else {
      say(`${variant}: kept ${scratch}`);
    }
  }
  return result;
}

// ---- main ----------------------------------------------------------------------------------

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)`);
  }
  if (VARIANTS.includes("path") && !existsSync(PALLAS_LSP_EXE)) {
    throw new Error(`no pallas-lsp at ${PALLAS_LSP_EXE} (create the repo's .venv, or set PALLAS_LSP_EXE)`);
  }
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const vsix = join(root, `pallas-lsp-${pkg.version}.vsix`);
  if (!NO_PACKAGE || !existsSync(vsix)) {
    say("packaging the extension (npm run package)");
    execFileSync("npm", ["run", "-s", "package"], { cwd: root, stdio: "inherit" });
  }
  if (VARIANTS.some((v) => v !== "path") && !existsSync(join(root, "bundled", "libs", "pallas_lsp"))) {
    throw new Error("the bundled variants need the bundled server: run `npm run bundle` and package again");
  }
  const bin = ensureCodeServer(CACHE, say);
  const results = [];
  for (const v of VARIANTS) {
    results.push(await runVariant(v, { bin, vsix }));
  }
  const summary = {
    codeServer: "4.100.3",
    vsix,
    totalSeconds: Number(((Date.now() - t0) / 1000).toFixed(1)),
    variants: results.map((r) => ({
      variant: r.variant,
      passed: r.passed,
      error: r.error,
      timings: r.timings,
      steps: r.steps.map((s) => `${s.ok ? "ok  " : "FAIL"} ${s.name} (${s.ms} ms)`),
    })),
  };
  writeFileSync(join(ARTIFACTS, "e2e-summary.json"), JSON.stringify(summary, null, 2) + "\n");
  for (const r of results) {
    say(`${r.passed ? "PASS" : "FAIL"} ${r.variant}: ${JSON.stringify(r.timings)}${r.error ? ` — ${r.error}` : ""}`);
  }
  say(`artifacts in ${ARTIFACTS}`);
  return results.every((r) => r.passed) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`[e2e] error: ${e.stack ?? e}`);
    process.exit(2);
  },
);
