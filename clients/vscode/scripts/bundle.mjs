// `npm run bundle`: pip-installs this repository's server and its dependencies into
// bundled/libs, for the Python that runs this script (libcst ships a compiled parser,
// so the bundle is specific to one Python version and platform; see docs/vscode.md).
//
// Python: $PALLAS_BUNDLE_PYTHON, else python3 on PATH.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(root, "..", "..");
const libs = join(root, "bundled", "libs");
const python = process.env.PALLAS_BUNDLE_PYTHON || "python3";

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...opts });
  if (r.status !== 0) {
    if (r.stdout) console.error(r.stdout);
    throw new Error(`bundle: ${cmd} ${args.join(" ")} failed (${r.error?.message ?? `exit ${r.status}`})`);
  }
  return r.stdout;
}

const info = JSON.parse(
  sh(python, [
    "-c",
    "import json, sys, sysconfig; print(json.dumps({'python': '%d.%d' % sys.version_info[:2], 'platform': sysconfig.get_platform(), 'executable': sys.executable}))",
  ]),
);
console.log(`bundle: Python ${info.python} ${info.platform} (${info.executable})`);

rmSync(libs, { recursive: true, force: true });
mkdirSync(libs, { recursive: true });
const started = Date.now();
// Build from a copy of the package sources, so setuptools writes no build/ into the repository.
const src = mkdtempSync(join(tmpdir(), "pallas-lsp-bundle-"));
const skip = (p) => !/(__pycache__|\.egg-info)$/.test(p);
for (const item of ["pyproject.toml", "README.md", "LICENSE", "server"]) {
  if (existsSync(join(repo, item))) {
    cpSync(join(repo, item), join(src, item), { recursive: true, filter: skip });
  }
}
// --no-compile: no .pyc in the .vsix (Python writes them on first run if it can).
try {
  sh(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", "--no-warn-script-location",
    "--target", libs, "--upgrade", src], { stdio: ["ignore", "inherit", "inherit"] });
} finally {
  rmSync(src, { recursive: true, force: true });
}

// Drop what the server never uses at run time: console scripts, tests shipped inside packages.
// jedi's third-party stubs (typeshed/stubs, django-stubs: 27 MB, 5,000 files) are only used to infer
// third-party packages; jedi skips a missing stubs folder. The stdlib stubs stay.
for (const junk of ["bin", "jedi/third_party/typeshed/stubs", "jedi/third_party/django-stubs"]) {
  rmSync(join(libs, junk), { recursive: true, force: true });
}
for (const pkg of readdirSync(libs)) {
  for (const sub of ["tests", "test"]) {
    const p = join(libs, pkg, sub);
    if (pkg !== "pallas_lsp" && existsSync(p) && statSync(p).isDirectory()) {
      rmSync(p, { recursive: true, force: true });
    }
  }
}

let version = "";
try {
  version = sh(python, ["-c", "import sys; sys.path.insert(0, sys.argv[1]); import pallas_lsp; print(pallas_lsp.__version__)", libs]).trim();
} catch {}
writeFileSync(
  join(libs, "pallas_lsp_bundle.json"),
  JSON.stringify({ python: info.python, platform: info.platform, pallasLsp: version }, null, 2) + "\n",
);

// Smoke test: the bundled launcher runs without the repo's virtualenv.
const out = sh(python, ["-I", "-B", join(root, "bundled", "tool", "server.py"), "rules", "--format", "json"]);
const rules = JSON.parse(out).map((r) => r.code);
console.log(`bundle: pallas-lsp ${version} in bundled/libs (${((Date.now() - started) / 1000).toFixed(1)} s); rules ${rules.join(", ")}`);
