import assert from "node:assert/strict";
import { test } from "node:test";
import { Bundle, baseFromPath, PythonInfo, resolveServer, ResolveEnv, serveArgs } from "../../src/resolve";
import { DEFAULTS, ExtensionSettings } from "../../src/settings";

const PY311: PythonInfo = { version: "3.11", platform: "linux-x86_64" };
const LAUNCHER = "/ext/bundled/tool/server.py";

interface Fake {
  settings?: Partial<ExtensionSettings>;
  trusted?: boolean;
  bundle?: Partial<Bundle>;
  pythonExt?: string[];
  importable?: string[];
  path?: Record<string, string>;
  infos?: Record<string, PythonInfo>;
}

function env(f: Fake): ResolveEnv & { lines: string[]; calls: string[] } {
  const lines: string[] = [];
  const calls: string[] = [];
  return {
    lines,
    calls,
    settings: { ...DEFAULTS, ...f.settings },
    trusted: f.trusted ?? true,
    bundle: { launcher: LAUNCHER, available: true, builtFor: PY311, ...f.bundle },
    pythonExtensionInterpreter: async () => {
      calls.push("pythonExt");
      return f.pythonExt;
    },
    canImport: async (py) => {
      calls.push(`canImport ${py.join(" ")}`);
      return (f.importable ?? []).includes(py[0]);
    },
    pythonInfo: async (py) => {
      calls.push(`info ${py.join(" ")}`);
      return (f.infos ?? {})[py[0]] ?? (py[0].includes("python") ? PY311 : undefined);
    },
    which: async (name) => (f.path ?? {})[name],
    log: (l) => lines.push(l),
  };
}

function argv(c: { command: string; baseArgs: string[] } | undefined): string[] | undefined {
  return c && [c.command, ...serveArgs(c as never)];
}

test("1. pallasLsp.path wins and is logged", async () => {
  const e = env({
    settings: { path: ["/venv/bin/pallas-lsp"] },
    importable: ["/py"],
    pythonExt: ["/py"],
    path: { "pallas-lsp": "/usr/bin/pallas-lsp" },
  });
  const c = await resolveServer(e);
  assert.equal(c?.source, "path");
  assert.deepEqual(argv(c), ["/venv/bin/pallas-lsp", "serve"]);
  assert.match(e.lines.join("\n"), /1\. pallasLsp\.path: using \/venv\/bin\/pallas-lsp serve/);
  assert.deepEqual(e.calls, [], "no probing once the path is set");
});

test("pallasLsp.path may already end in serve", async () => {
  assert.deepEqual(baseFromPath(["/x/pallas-lsp", "serve"]), { command: "/x/pallas-lsp", baseArgs: [] });
  assert.deepEqual(baseFromPath(["python", "-m", "pallas_lsp", "serve", "--stdio"]), {
    command: "python",
    baseArgs: ["-m", "pallas_lsp"],
  });
  const c = await resolveServer(env({ settings: { path: ["/x/pallas-lsp", "serve"] } }));
  assert.deepEqual(argv(c), ["/x/pallas-lsp", "serve"]);
});

test("2. useBundled picks the bundle before the environment", async () => {
  const e = env({
    settings: { importStrategy: "useBundled" },
    importable: ["/venv/bin/python"],
    pythonExt: ["/venv/bin/python"],
    path: { "pallas-lsp": "/usr/bin/pallas-lsp", python3: "/usr/bin/python3" },
  });
  const c = await resolveServer(e);
  assert.equal(c?.source, "bundled");
  // The Python extension's interpreter runs the bundle when it matches the bundle's Python.
  assert.deepEqual(argv(c), ["/venv/bin/python", LAUNCHER, "serve"]);
  assert.ok(!e.calls.some((x) => x.startsWith("canImport")));
});

test("3. the Python extension's interpreter with pallas_lsp installed", async () => {
  const e = env({ importable: ["/venv/bin/python"], pythonExt: ["/venv/bin/python"], path: { "pallas-lsp": "/usr/bin/pallas-lsp" } });
  const c = await resolveServer(e);
  assert.equal(c?.source, "pythonExtension");
  assert.deepEqual(argv(c), ["/venv/bin/python", "-m", "pallas_lsp", "serve"]);
  assert.match(e.lines.join("\n"), /3\. interpreter from the Python extension: \/venv\/bin\/python can import pallas_lsp/);
});

test("3. pallasLsp.interpreter overrides the Python extension", async () => {
  const e = env({
    settings: { interpreter: ["/mine/python", "-X", "utf8"] },
    importable: ["/mine/python", "/venv/bin/python"],
    pythonExt: ["/venv/bin/python"],
  });
  const c = await resolveServer(e);
  assert.equal(c?.source, "interpreter");
  assert.deepEqual(argv(c), ["/mine/python", "-X", "utf8", "-m", "pallas_lsp", "serve"]);
  assert.ok(!e.calls.includes("pythonExt"));
});

test("4. PATH when the interpreter lacks pallas_lsp", async () => {
  const e = env({ pythonExt: ["/venv/bin/python"], path: { "pallas-lsp": "/usr/local/bin/pallas-lsp" } });
  const c = await resolveServer(e);
  assert.equal(c?.source, "PATH");
  assert.deepEqual(argv(c), ["/usr/local/bin/pallas-lsp", "serve"]);
  assert.match(e.lines.join("\n"), /cannot import pallas_lsp/);
});

test("5. the bundle as the last resort, with python3 from PATH", async () => {
  const e = env({ path: { python3: "/usr/bin/python3" } });
  const c = await resolveServer(e);
  assert.equal(c?.source, "bundled");
  assert.deepEqual(argv(c), ["/usr/bin/python3", LAUNCHER, "serve"]);
  const log = e.lines.join("\n");
  assert.match(log, /1\. pallasLsp\.path: not set/);
  assert.match(log, /3\. interpreter: pallasLsp\.interpreter not set, and no interpreter from the Python extension/);
  assert.match(log, /4\. PATH: no pallas-lsp executable/);
  assert.match(log, /5\. bundled server: using \/usr\/bin\/python3 \/ext\/bundled\/tool\/server\.py/);
});

test("bundle prefers a Python matching the bundled libs, warns otherwise", async () => {
  const infos = {
    "/venv/bin/python": { version: "3.12", platform: "linux-x86_64" },
    "/usr/bin/python3": PY311,
  };
  const e = env({ pythonExt: ["/venv/bin/python"], path: { python3: "/usr/bin/python3" }, infos });
  const c = await resolveServer(e);
  assert.deepEqual(argv(c), ["/usr/bin/python3", LAUNCHER, "serve"]);
  assert.match(e.lines.join("\n"), /skipped \/venv\/bin\/python \(the Python extension\): Python 3\.12/);

  const only312 = env({ path: { python3: "/usr/bin/python3" }, infos: { "/usr/bin/python3": { version: "3.12", platform: "linux-x86_64" } } });
  const c2 = await resolveServer(only312);
  assert.deepEqual(argv(c2), ["/usr/bin/python3", LAUNCHER, "serve"]);
  assert.match(only312.lines.join("\n"), /warning: the bundled libraries were built for Python 3\.11/);
});

test("nothing found: undefined and a readable message", async () => {
  const e = env({ bundle: { available: false } });
  assert.equal(await resolveServer(e), undefined);
  const log = e.lines.join("\n");
  assert.match(log, /bundled server: not present/);
  assert.match(log, /No pallas-lsp server found/);
});

test("untrusted workspace: no configured executables, the bundle runs", async () => {
  const e = env({
    trusted: false,
    settings: { path: ["/evil/pallas-lsp"], interpreter: ["/evil/python"] },
    pythonExt: ["/workspace/.venv/bin/python"],
    importable: ["/workspace/.venv/bin/python"],
    path: { python3: "/usr/bin/python3", "pallas-lsp": "/usr/bin/pallas-lsp" },
  });
  const c = await resolveServer(e);
  assert.equal(c?.source, "bundled");
  assert.deepEqual(argv(c), ["/usr/bin/python3", LAUNCHER, "serve"]);
  assert.ok(!e.calls.includes("pythonExt"));
  assert.ok(!e.calls.some((x) => x.includes("/evil/")));
  assert.match(e.lines.join("\n"), /not trusted/);

  const noBundle = env({ trusted: false, bundle: { available: false }, path: { "pallas-lsp": "/usr/bin/pallas-lsp" } });
  assert.equal((await resolveServer(noBundle))?.source, "PATH");
});
