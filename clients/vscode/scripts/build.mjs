// Bundles the extension with esbuild into dist/extension.js.
// `--tests` also builds the unit tests (and the pure modules they import) into out/ for `node --test`.
import { build } from "esbuild";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const production = process.argv.includes("--production");

await build({
  absWorkingDir: root,
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node18",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
});

// For packaging: no byte code in the .vsix (a run of the bundled server writes __pycache__;
// .vscodeignore cannot exclude inside a negated folder, so remove it here).
if (production) {
  const prune = (dir) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) {
        if (e === "__pycache__") {
          rmSync(p, { recursive: true, force: true });
        } else {
          prune(p);
        }
      }
    }
  };
  const libs = join(root, "bundled", "libs");
  if (existsSync(libs)) {
    prune(libs);
  }
}

if (process.argv.includes("--tests")) {
  const tests = readdirSync(join(root, "test", "unit")).filter((f) => f.endsWith(".test.ts"));
  await build({
    absWorkingDir: root,
    entryPoints: tests.map((f) => `test/unit/${f}`),
    bundle: true,
    outdir: "out/test/unit",
    external: ["vscode"],
    format: "cjs",
    platform: "node",
    target: "node18",
    sourcemap: "inline",
    logLevel: "warning",
  });
}
