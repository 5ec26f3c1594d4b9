/**
 * Finding the server: the resolution chain, with every step logged.
 *
 * Pure: the environment (settings, workspace trust, the Python extension, PATH,
 * probes that run Python) is injected, so the chain is unit tested without VS Code.
 *
 *   1. `pallasLsp.path` (executable + args)
 *   2. the bundled server, when `pallasLsp.importStrategy` is `useBundled`
 *   3. `pallasLsp.interpreter`, else the Python extension's interpreter:
 *      `<python> -m pallas_lsp serve` when that environment can import pallas_lsp
 *   4. `pallas-lsp` on PATH
 *   5. the bundled server
 *
 * In an untrusted workspace steps 1 and 3 are skipped: no user-configured
 * executable runs; the bundled server (then PATH) is used.
 */
import type { ExtensionSettings } from "./settings";

export type ServerSource = "path" | "bundled" | "interpreter" | "pythonExtension" | "PATH";

export interface ServerCommand {
  /** The executable. */
  command: string;
  /** Arguments before the subcommand: `command ...baseArgs serve` runs the server, `... check` the CLI. */
  baseArgs: string[];
  /** Which step of the chain chose it. */
  source: ServerSource;
  /** For the status item: the interpreter or executable in use. */
  detail: string;
}

export function serveArgs(c: ServerCommand): string[] {
  return [...c.baseArgs, "serve"];
}

/** What `python -c` reports about an interpreter: `"3.11 linux-x86_64"`. */
export interface PythonInfo {
  version: string;
  platform: string;
}

export interface Bundle {
  /** `bundled/tool/server.py`. */
  launcher: string;
  /** The launcher and `bundled/libs/pallas_lsp` are present. */
  available: boolean;
  /** Python and platform the bundled libs were built for (from `bundled/libs/pallas_lsp_bundle.json`). */
  builtFor?: PythonInfo;
}

export interface ResolveEnv {
  settings: ExtensionSettings;
  trusted: boolean;
  bundle: Bundle;
  /** The interpreter selected in the Python extension; undefined if not installed or none selected. */
  pythonExtensionInterpreter(): Promise<string[] | undefined>;
  /** Runs `<python> -c "import pallas_lsp"`; true when it exits 0. */
  canImport(python: string[]): Promise<boolean>;
  /** Version and platform of an interpreter; undefined when it does not run. */
  pythonInfo(python: string[]): Promise<PythonInfo | undefined>;
  /** Full path of an executable on PATH, or undefined. */
  which(name: string): Promise<string | undefined>;
  log(line: string): void;
}

const SUBCOMMAND_TAIL = new Set(["serve", "--stdio"]);

/** `pallasLsp.path` may end in `serve` (or `serve --stdio`): drop that to get the base. */
export function baseFromPath(path: string[]): { command: string; baseArgs: string[] } {
  const args = path.slice(1);
  while (args.length && SUBCOMMAND_TAIL.has(args[args.length - 1])) {
    args.pop();
  }
  return { command: path[0], baseArgs: args };
}

function show(argv: string[]): string {
  return argv.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(" ");
}

async function bundledCommand(env: ResolveEnv, step: string): Promise<ServerCommand | undefined> {
  const { bundle } = env;
  if (!bundle.available) {
    env.log(`${step} bundled server: not present in this build of the extension (run \`npm run bundle\`)`);
    return undefined;
  }
  const candidates: { argv: string[]; from: string }[] = [];
  if (env.trusted && env.settings.interpreter.length) {
    candidates.push({ argv: env.settings.interpreter, from: "pallasLsp.interpreter" });
  }
  if (env.trusted) {
    const ext = await env.pythonExtensionInterpreter();
    if (ext?.length) {
      candidates.push({ argv: ext, from: "the Python extension" });
    }
  }
  for (const name of ["python3", "python"]) {
    const found = await env.which(name);
    if (found) {
      candidates.push({ argv: [found], from: `${name} on PATH` });
    }
  }
  if (!candidates.length) {
    env.log(`${step} bundled server: no Python interpreter found (set pallasLsp.interpreter or put python3 on PATH)`);
    return undefined;
  }
  const want = bundle.builtFor;
  let chosen: { argv: string[]; from: string; info?: PythonInfo } | undefined;
  const tried: string[] = [];
  for (const c of candidates) {
    const info = await env.pythonInfo(c.argv);
    if (!info) {
      tried.push(`${show(c.argv)} (${c.from}): does not run`);
      continue;
    }
    if (!want || (info.version === want.version && info.platform === want.platform)) {
      chosen = { ...c, info };
      break;
    }
    tried.push(`${show(c.argv)} (${c.from}): Python ${info.version} ${info.platform}`);
    chosen ??= { ...c, info };
  }
  for (const t of tried) {
    env.log(`${step}   skipped ${t}`);
  }
  if (!chosen) {
    env.log(`${step} bundled server: none of the Python interpreters runs`);
    return undefined;
  }
  if (want && chosen.info && (chosen.info.version !== want.version || chosen.info.platform !== want.platform)) {
    env.log(
      `${step}   warning: the bundled libraries were built for Python ${want.version} ${want.platform}; ` +
        `${show(chosen.argv)} is Python ${chosen.info.version} ${chosen.info.platform} and libcst's native parser may not load`,
    );
  }
  const [command, ...pre] = chosen.argv;
  env.log(`${step} bundled server: using ${show([...chosen.argv, bundle.launcher])} (Python from ${chosen.from})`);
  return {
    command,
    baseArgs: [...pre, bundle.launcher],
    source: "bundled",
    detail: `bundled, Python ${show(chosen.argv)}`,
  };
}

/** Runs the chain; undefined when no server could be found (the reasons are logged). */
export async function resolveServer(env: ResolveEnv): Promise<ServerCommand | undefined> {
  const s = env.settings;
  env.log("Resolving the pallas-lsp server:");
  if (!env.trusted) {
    env.log(
      "  workspace is not trusted: pallasLsp.path, pallasLsp.interpreter and the Python extension's interpreter are not used",
    );
    return (
      (await bundledCommand(env, "  (untrusted)")) ??
      (await fromPathEnv(env, "  (untrusted)")) ??
      notFound(env)
    );
  }

  // 1. pallasLsp.path
  if (s.path.length) {
    const { command, baseArgs } = baseFromPath(s.path);
    env.log(`  1. pallasLsp.path: using ${show([command, ...baseArgs, "serve"])}`);
    return { command, baseArgs, source: "path", detail: show([command, ...baseArgs]) };
  }
  env.log("  1. pallasLsp.path: not set");

  // 2. useBundled
  if (s.importStrategy === "useBundled") {
    env.log("  2. pallasLsp.importStrategy is useBundled");
    const b = await bundledCommand(env, "  2.");
    if (b) {
      return b;
    }
  } else {
    env.log("  2. pallasLsp.importStrategy is fromEnvironment: looking in the environment first");
  }

  // 3. interpreter
  let python: string[] | undefined;
  let from = "";
  if (s.interpreter.length) {
    python = s.interpreter;
    from = "pallasLsp.interpreter";
  } else {
    python = await env.pythonExtensionInterpreter();
    from = "the Python extension";
    if (!python?.length) {
      env.log("  3. interpreter: pallasLsp.interpreter not set, and no interpreter from the Python extension");
      python = undefined;
    }
  }
  if (python) {
    if (await env.canImport(python)) {
      const [command, ...pre] = python;
      env.log(`  3. interpreter from ${from}: ${show(python)} can import pallas_lsp: using ${show([...python, "-m", "pallas_lsp", "serve"])}`);
      return {
        command,
        baseArgs: [...pre, "-m", "pallas_lsp"],
        source: s.interpreter.length ? "interpreter" : "pythonExtension",
        detail: `${show(python)} -m pallas_lsp`,
      };
    }
    env.log(`  3. interpreter from ${from}: ${show(python)} cannot import pallas_lsp`);
  }

  // 4. PATH
  const onPath = await fromPathEnv(env, "  4.");
  if (onPath) {
    return onPath;
  }

  // 5. bundled
  if (s.importStrategy !== "useBundled") {
    const b = await bundledCommand(env, "  5.");
    if (b) {
      return b;
    }
  } else {
    env.log("  5. bundled server: already tried (step 2)");
  }
  return notFound(env);
}

async function fromPathEnv(env: ResolveEnv, step: string): Promise<ServerCommand | undefined> {
  const exe = await env.which("pallas-lsp");
  if (exe) {
    env.log(`${step} PATH: using ${exe} serve`);
    return { command: exe, baseArgs: [], source: "PATH", detail: exe };
  }
  env.log(`${step} PATH: no pallas-lsp executable`);
  return undefined;
}

function notFound(env: ResolveEnv): undefined {
  env.log(
    "No pallas-lsp server found. Install it in your Python environment (`pip install pallas-lsp`), " +
      "set pallasLsp.path, or use a build of the extension with the bundled server.",
  );
  return undefined;
}
