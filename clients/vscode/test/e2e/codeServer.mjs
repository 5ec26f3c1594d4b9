// Installs code-server 4.100.3 offline into clients/vscode/.e2e-cache and starts it on loopback.
//
// Facts this relies on (measured on Debian 12, Node 20; see docs/vscode.md):
// - code-server 4.100.3 is the newest release whose engines.node accepts Node 20;
// - it is installed as a local npm dependency (a global install fails reinstalling over itself);
// - its native modules build from source: npm_config_nodedir=/usr (Node's headers),
//   npm_config_yes=true (node-pty runs `npx node-gyp`), Debian libkrb5-dev, g++, make;
// - @vscode/ripgrep's postinstall downloads rg from GitHub unless a cached tarball sits at
//   $TMPDIR/vscode-ripgrep-cache-<its npm version>/ripgrep-<VERSION>-x86_64-unknown-linux-musl.tar.gz:
//   a tarball of Debian's `rg` (the same 13.0.0) there lets the install finish offline;
// - npm >= 11 blocks dependency install scripts unless allowed: code-server's postinstall runs
//   nested `npm install`s whose native builds must run.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";

export const CODE_SERVER_VERSION = "4.100.3";

function which(name) {
  try {
    return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Scratch XDG folders: code-server writes ~/.config/code-server even for --version. */
export function xdgEnv(root) {
  const env = {};
  for (const [k, sub] of [
    ["XDG_CONFIG_HOME", "config"],
    ["XDG_DATA_HOME", "data"],
    ["XDG_CACHE_HOME", "cache"],
    ["XDG_STATE_HOME", "state"],
  ]) {
    env[k] = join(root, sub);
    mkdirSync(env[k], { recursive: true });
  }
  return env;
}

/** Returns the path of the code-server entry script, installing it into `cacheDir` if needed. */
export function ensureCodeServer(cacheDir, log = console.log) {
  cacheDir = resolve(cacheDir);
  const dir = join(cacheDir, `code-server-${CODE_SERVER_VERSION}`);
  const bin = join(dir, "node_modules", "code-server", "out", "node", "entry.js");
  const stamp = join(dir, "installed.ok");
  if (existsSync(bin) && existsSync(stamp)) {
    return bin;
  }
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  if (nodeMajor !== 20) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 20 (this is Node ${process.versions.node})`);
  }
  const rg = which("rg");
  if (!rg) {
    throw new Error("the e2e needs ripgrep (`apt-get install -y ripgrep`) to install code-server offline");
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, "tmp");
  mkdirSync(tmp, { recursive: true });

  // The ripgrep cache: find which @vscode/ripgrep code-server's VS Code wants and its VERSION constant.
  const packDir = join(tmp, "pack");
  mkdirSync(packDir, { recursive: true });
  const npmEnv = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
  execFileSync("npm", ["pack", `code-server@${CODE_SERVER_VERSION}`, "--silent"], { cwd: packDir, env: npmEnv, stdio: ["ignore", "pipe", "inherit"] });
  execFileSync("tar", ["xzf", `code-server-${CODE_SERVER_VERSION}.tgz`, "package/lib/vscode/npm-shrinkwrap.json"], { cwd: packDir });
  const shrink = JSON.parse(readFileSync(join(packDir, "package", "lib", "vscode", "npm-shrinkwrap.json"), "utf8"));
  const rgNpmVersion = shrink.packages["node_modules/@vscode/ripgrep"].version;
  execFileSync("npm", ["pack", `@vscode/ripgrep@${rgNpmVersion}`, "--silent"], { cwd: packDir, env: npmEnv, stdio: ["ignore", "pipe", "inherit"] });
  execFileSync("tar", ["xzf", `vscode-ripgrep-${rgNpmVersion}.tgz`, "package/lib/postinstall.js"], { cwd: packDir });
  const post = readFileSync(join(packDir, "package", "lib", "postinstall.js"), "utf8");
  const rgVersion = /const VERSION = '([^']+)'/.exec(post)?.[1];
  if (!rgVersion) {
    throw new Error("could not read the ripgrep VERSION from @vscode/ripgrep's postinstall.js");
  }
  const cache = join(tmp, `vscode-ripgrep-cache-${rgNpmVersion}`);
  mkdirSync(cache, { recursive: true });
  const rgDir = join(tmp, "rg");
  mkdirSync(rgDir, { recursive: true });
  execFileSync("cp", [rg, join(rgDir, "rg")]);
  execFileSync("tar", ["czf", join(cache, `ripgrep-${rgVersion}-x86_64-unknown-linux-musl.tar.gz`), "-C", rgDir, "rg"]);
  log(`code-server: ripgrep cache for @vscode/ripgrep ${rgNpmVersion} (${rgVersion}) from ${rg}`);

  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "pallas-lsp-e2e-code-server", private: true }) + "\n");
  const started = Date.now();
  log(`code-server: installing ${CODE_SERVER_VERSION} into ${dir} (builds native modules, about a minute)`);
  execFileSync("npm", ["install", "--no-save", "--no-package-lock", `code-server@${CODE_SERVER_VERSION}`], {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...npmEnv,
      TMPDIR: tmp,
      npm_config_yes: "true",
      npm_config_nodedir: process.env.npm_config_nodedir || "/usr",
      npm_config_unsafe_perm: "true",
      npm_config_dangerously_allow_all_scripts: "true",
      ...xdgEnv(join(dir, "xdg")),
    },
  });
  if (!existsSync(join(dir, "node_modules", "code-server", "lib", "vscode", "node_modules", "@vscode", "ripgrep", "bin", "rg"))) {
    throw new Error("code-server installed without ripgrep: the ripgrep cache was not used");
  }
  rmSync(packDir, { recursive: true, force: true });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  log(`code-server: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return bin;
}

/** A loopback port nothing listens on (bound, then closed). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Points the extension gallery at a closed loopback port: nothing tries the internet. */
export function galleryEnv(closedPort) {
  const base = `http://127.0.0.1:${closedPort}`;
  return JSON.stringify({
    serviceUrl: `${base}/gallery`,
    itemUrl: `${base}/item`,
    resourceUrlTemplate: `${base}/{publisher}/{name}/{version}/{path}`,
    controlUrl: "",
    recommendationsUrl: "",
  });
}

export function installExtension(bin, vsix, { extensionsDir, userDataDir, env }) {
  const out = execFileSync(
    process.execPath,
    [bin, "--install-extension", vsix, "--force", "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir],
    { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  return out.trim();
}

/** Starts code-server; resolves once /healthz answers. */
export async function startCodeServer(bin, { port, folder, userDataDir, extensionsDir, env, logFile, trust = false }) {
  mkdirSync(dirname(logFile), { recursive: true });
  const args = [
    bin,
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--auth",
    "none",
    "--user-data-dir",
    userDataDir,
    "--extensions-dir",
    extensionsDir,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-getting-started-override",
    ...(trust ? [] : ["--disable-workspace-trust"]),
    folder,
  ];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let logText = "";
  const onData = (d) => {
    logText += d;
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const flush = () => writeFileSync(logFile, logText);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      flush();
      throw new Error(`code-server exited (${child.exitCode}); see ${logFile}`);
    }
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) {
        return {
          child,
          url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`,
          stop: async () => {
            flush();
            try {
              process.kill(-child.pid, "SIGTERM");
            } catch {
              // already gone
            }
            await new Promise((r2) => setTimeout(r2, 300));
            try {
              process.kill(-child.pid, "SIGKILL");
            } catch {
              // already gone
            }
            flush();
          },
        };
      }
    } catch {
      // not yet listening
    }
    await new Promise((r2) => setTimeout(r2, 250));
  }
  flush();
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
  throw new Error(`code-server did not answer /healthz within 60 s; see ${logFile}`);
}
