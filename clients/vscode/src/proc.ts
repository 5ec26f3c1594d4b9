/** Small process helpers: which, running Python probes, running the CLI. */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { PythonInfo } from "./resolve";

export async function which(name: string, envPath = process.env.PATH ?? ""): Promise<string | undefined> {
  const exts = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        await fs.promises.access(candidate, fs.constants.X_OK);
        if ((await fs.promises.stat(candidate)).isFile()) {
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Runs argv, feeding `input` on stdin; never rejects. */
export function run(
  argv: string[],
  opts: { cwd?: string; input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const [command, ...args] = argv;
    let stdout = "";
    let stderr = "";
    let settled = false;
    const done = (r: RunResult) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    let child;
    try {
      child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, windowsHide: true });
    } catch (error) {
      done({ code: null, stdout, stderr, error: error as Error });
      return;
    }
    const timer = setTimeout(() => {
      child.kill();
      done({ code: null, stdout, stderr, error: new Error(`timed out after ${opts.timeoutMs} ms`) });
    }, opts.timeoutMs ?? 120_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", (error) => done({ code: null, stdout, stderr, error }));
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

/** The environment for probing an interpreter: PYTHONSAFEPATH (Python 3.11+, like -P) keeps
 * `python -c` from putting the current folder first on sys.path, so a `pallas_lsp.py` in
 * whatever folder the editor runs in is never imported instead of the package. */
export function probeEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONSAFEPATH: "1" };
}

export async function canImportPallasLsp(python: string[]): Promise<boolean> {
  const r = await run([...python, "-c", "import pallas_lsp"], { timeoutMs: 20_000, env: probeEnv() });
  return r.code === 0;
}

const INFO_SCRIPT =
  "import sys, sysconfig; print('%d.%d %s' % (sys.version_info[0], sys.version_info[1], sysconfig.get_platform()))";

export async function pythonInfo(python: string[]): Promise<PythonInfo | undefined> {
  const r = await run([...python, "-c", INFO_SCRIPT], { timeoutMs: 20_000, env: probeEnv() });
  if (r.code !== 0) {
    return undefined;
  }
  const [version, platform] = r.stdout.trim().split(/\s+/, 2);
  return version ? { version, platform: platform ?? "" } : undefined;
}

