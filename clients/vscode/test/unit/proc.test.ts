import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { canImportPallasLsp, pythonInfo, run, which } from "../../src/proc";

test("which finds executables on the given PATH only", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pallas-which-"));
  try {
    const exe = path.join(dir, "pallas-lsp");
    fs.writeFileSync(exe, "#!/bin/sh\n");
    fs.chmodSync(exe, 0o755);
    fs.writeFileSync(path.join(dir, "not-executable"), "");
    assert.equal(await which("pallas-lsp", dir), exe);
    assert.equal(await which("not-executable", dir), undefined);
    assert.equal(await which("pallas-lsp", "/nonexistent"), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("run feeds stdin, collects output and never rejects", async () => {
  const r = await run(["sh", "-c", "cat; echo err >&2; exit 3"], { input: "hello" });
  assert.deepEqual([r.code, r.stdout, r.stderr.trim()], [3, "hello", "err"]);
  const missing = await run(["/nonexistent/pallas-lsp", "serve"]);
  assert.equal(missing.code, null);
  assert.ok(missing.error);
  const slow = await run(["sleep", "5"], { timeoutMs: 100 });
  assert.match(slow.error?.message ?? "", /timed out/);
});

test("Python probes", async () => {
  const python = (await which("python3")) ?? (await which("python"));
  if (!python) {
    return;
  }
  const info = await pythonInfo([python]);
  assert.match(info?.version ?? "", /^3\.\d+$/);
  assert.ok(info?.platform);
  assert.equal(await pythonInfo(["/nonexistent/python"]), undefined);
  assert.equal(await canImportPallasLsp(["/nonexistent/python"]), false);
});

test("probing an interpreter never imports a pallas_lsp.py from the current folder", async () => {
  const python = (await which("python3")) ?? (await which("python"));
  const info = python ? await pythonInfo([python]) : undefined;
  if (!python || !info || Number(info.version.split(".")[1]) < 11) {
    return; // PYTHONSAFEPATH needs Python 3.11+
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pallas-probe-"));
  const marker = path.join(dir, "imported");
  fs.writeFileSync(path.join(dir, "pallas_lsp.py"), `open(${JSON.stringify(marker)}, "w").close()\n`);
  const cwd = process.cwd();
  try {
    process.chdir(dir);
    await canImportPallasLsp([python]);
    await pythonInfo([python]);
    assert.equal(fs.existsSync(marker), false, "the folder's pallas_lsp.py was imported");
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
