import assert from "node:assert/strict";
import { test } from "node:test";
import {
  changeAction,
  checkArgs,
  DEFAULTS,
  expandPath,
  readSettings,
  toServerSettings,
} from "../../src/settings";

function getter(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

test("defaults when nothing is set", () => {
  assert.deepEqual(readSettings(getter({})), DEFAULTS);
  assert.deepEqual(toServerSettings(readSettings(getter({}))), {
    select: [],
    ignore: [],
    records: [],
    backends: [],
    debounceMs: 0,
    codeLens: true,
    fixActions: true,
    unsafeFixes: false,
    ignoreCommentActions: true,
    logLevel: "info",
    jaxVersion: null, // (sent as null: the server reads the workspace's jax)
    tpuGeneration: null,
  });
});

test("VS Code settings map to the flat server object", () => {
  const s = readSettings(
    getter({
      select: ["PAL001", "inline-mgpu-interpret"],
      ignore: ["PAL004"],
      records: ["${workspaceFolder}/errors/more.json", "~/records"],
      backends: ["tpu", "cpu"],
      debounceMs: 300,
      "codeLens.enable": false,
      "codeAction.fixes.enable": false,
      unsafeFixes: true,
      "codeAction.ignoreComment.enable": false,
      logLevel: "debug",
      jaxVersion: " 0.10.2 ",
      tpuGeneration: "v5e",
      path: ["/opt/bin/pallas-lsp"],
      interpreter: ["${workspaceFolder}/.venv/bin/python"],
      importStrategy: "useBundled",
    }),
    { workspaceFolder: "/w", userHome: "/home/u" },
  );
  assert.deepEqual(toServerSettings(s), {
    select: ["PAL001", "inline-mgpu-interpret"],
    ignore: ["PAL004"],
    records: ["/w/errors/more.json", "/home/u/records"],
    backends: ["tpu", "cpu"],
    debounceMs: 300,
    codeLens: false,
    fixActions: false,
    unsafeFixes: true,
    ignoreCommentActions: false,
    logLevel: "debug",
    jaxVersion: "0.10.2",
    tpuGeneration: "v5e",
  });
  assert.deepEqual(s.path, ["/opt/bin/pallas-lsp"]);
  assert.deepEqual(s.interpreter, ["/w/.venv/bin/python"]);
  assert.equal(s.importStrategy, "useBundled");
  // The server object carries no executable settings.
  assert.equal("path" in toServerSettings(s), false);
});

test("wrong types fall back to defaults", () => {
  const s = readSettings(
    getter({
      select: "PAL001",
      ignore: [1, "", "PAL002", null],
      backends: ["gpu", "cpu", 3],
      debounceMs: -5,
      "codeLens.enable": "no",
      unsafeFixes: "yes",
      logLevel: "verbose",
      jaxVersion: 0.1,
      tpuGeneration: "v9",
      importStrategy: "fromPath",
      path: "",
    }),
  );
  assert.deepEqual(s.select, ["PAL001"]);
  assert.deepEqual(s.ignore, ["PAL002"]);
  assert.deepEqual(s.backends, ["cpu"]); // (an unknown backend is dropped, as the server would)
  assert.equal(s.debounceMs, 0);
  assert.equal(s.codeLens, true);
  assert.equal(s.unsafeFixes, false);
  assert.equal(s.logLevel, "info");
  assert.equal(s.jaxVersion, null);
  assert.equal(s.tpuGeneration, null); // (an unknown generation is dropped; the server would refuse it)
  assert.equal(readSettings(getter({ jaxVersion: "  " })).jaxVersion, null);
  assert.equal(s.importStrategy, "fromEnvironment");
  assert.deepEqual(s.path, []);
  assert.equal(readSettings(getter({ debounceMs: 12.6 })).debounceMs, 13);
  assert.equal(readSettings(getter({ debounceMs: Number.NaN })).debounceMs, 0);
});

test("expandPath leaves unknown variables alone", () => {
  assert.equal(expandPath("${workspaceFolder}/x", {}), "${workspaceFolder}/x");
  assert.equal(expandPath("~", { userHome: "/h" }), "/h");
  assert.equal(expandPath("a~/b", { userHome: "/h" }), "a~/b");
  assert.equal(expandPath("${userHome}/r.json", { userHome: "/h" }), "/h/r.json");
});

test("executable settings restart, rule settings are sent", () => {
  const only = (key: string) => (k: string) => k === key || key.startsWith(k + ".");
  assert.equal(changeAction(only("pallasLsp.path")), "restart");
  assert.equal(changeAction(only("pallasLsp.interpreter")), "restart");
  assert.equal(changeAction(only("pallasLsp.importStrategy")), "restart");
  for (const key of [
    "pallasLsp.select",
    "pallasLsp.ignore",
    "pallasLsp.records",
    "pallasLsp.backends",
    "pallasLsp.debounceMs",
    "pallasLsp.codeLens.enable",
    "pallasLsp.codeAction.fixes.enable",
    "pallasLsp.unsafeFixes",
    "pallasLsp.codeAction.ignoreComment.enable",
    "pallasLsp.logLevel",
    "pallasLsp.jaxVersion",
    "pallasLsp.tpuGeneration",
  ]) {
    assert.equal(changeAction(only(key)), "notify", key);
  }
  assert.equal(changeAction(only("pallasLsp.trace.server")), "none");
  assert.equal(changeAction(only("editor.fontSize")), "none");
  // Both kinds at once (e.g. the whole section): restart wins.
  assert.equal(changeAction((k) => k.startsWith("pallasLsp")), "restart");
});

test("check arguments carry the rule settings", () => {
  const s = readSettings(
    getter({
      select: ["PAL001", "PAL003"],
      ignore: ["PAL004"],
      records: ["/r/a.json", "/r/b"],
      backends: ["cpu"],
      jaxVersion: "0.10.2",
      tpuGeneration: "v5e",
    }),
  );
  assert.deepEqual(checkArgs(s, "/w"), [
    "check",
    "--output-format",
    "json",
    "--select",
    "PAL001,PAL003",
    "--ignore",
    "PAL004",
    "--records",
    "/r/a.json",
    "--records",
    "/r/b",
    "--backends",
    "cpu",
    "--jax-version",
    "0.10.2",
    "--tpu-generation",
    "v5e",
    "/w",
  ]);
  assert.deepEqual(checkArgs(DEFAULTS, "/w"), ["check", "--output-format", "json", "/w"]);
});
