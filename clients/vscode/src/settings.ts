/**
 * VS Code settings (`pallasLsp.*`) and the flat settings object the server reads.
 *
 * Pure: no `vscode` import, so the mapping is unit tested with `node --test`.
 * The extension passes a `get(key, default)` reader backed by
 * `workspace.getConfiguration("pallasLsp", scope)`.
 */

export type ImportStrategy = "fromEnvironment" | "useBundled";
export type LogLevel = "error" | "warning" | "info" | "debug";
/** Where compiled launches run when the code does not say; `cpu`: also on CPU hosts. */
export type Backend = "tpu" | "triton" | "mosaic_gpu" | "cpu";
/** The TPU chips `pallasLsp.tpuGeneration` may name (the server's list). */
export type TpuGeneration = "v4" | "v5e" | "v5p" | "v6e" | "v7x";

/** Everything the extension reads from `pallasLsp.*`, validated. */
export interface ExtensionSettings {
  /** Executable + leading args of a `pallas-lsp` to run (`pallasLsp.path`). */
  path: string[];
  /** Python executable + args to run the server with (`pallasLsp.interpreter`). */
  interpreter: string[];
  importStrategy: ImportStrategy;
  select: string[];
  ignore: string[];
  records: string[];
  backends: Backend[];
  debounceMs: number;
  codeLens: boolean;
  fixActions: boolean;
  /** Fix-all and auto fix also apply the fixes that change what runs (`pallasLsp.unsafeFixes`). */
  unsafeFixes: boolean;
  ignoreCommentActions: boolean;
  logLevel: LogLevel;
  /** The jax release the code runs on (`pallasLsp.jaxVersion`); null: the workspace's environment decides. */
  jaxVersion: string | null;
  /** The TPU chip the code targets (`pallasLsp.tpuGeneration`); null: none chosen. */
  tpuGeneration: TpuGeneration | null;
}

/** The flat object the server reads from initializationOptions / workspace/configuration. */
export interface ServerSettings {
  select: string[];
  ignore: string[];
  records: string[];
  backends: Backend[];
  debounceMs: number;
  codeLens: boolean;
  fixActions: boolean;
  /** Fix-all and auto fix also apply the fixes that change what runs (`pallasLsp.unsafeFixes`). */
  unsafeFixes: boolean;
  ignoreCommentActions: boolean;
  logLevel: LogLevel;
  /** null: not set (the server then reads the workspace's jax, as `check` does). */
  jaxVersion: string | null;
  /** null: not set (a pyproject's `tpu-generation` decides, else none is chosen). */
  tpuGeneration: TpuGeneration | null;
}

export const SECTION = "pallasLsp";

export const DEFAULTS: ExtensionSettings = {
  path: [],
  interpreter: [],
  importStrategy: "fromEnvironment",
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
  jaxVersion: null,
  tpuGeneration: null,
};

/** Settings whose change needs a new server process. */
export const RESTART_KEYS = ["path", "interpreter", "importStrategy"] as const;
/** Settings whose change is sent to the running server. */
export const SERVER_KEYS = [
  "select",
  "ignore",
  "records",
  "backends",
  "debounceMs",
  "codeLens.enable",
  "codeAction.fixes.enable",
  "unsafeFixes",
  "codeAction.ignoreComment.enable",
  "logLevel",
  "jaxVersion",
  "tpuGeneration",
] as const;

/** Reads one setting below `pallasLsp.`, e.g. `get("codeLens.enable")`. */
export type SettingsGetter = (key: string) => unknown;

const LOG_LEVELS: readonly LogLevel[] = ["error", "warning", "info", "debug"];
const BACKENDS: readonly Backend[] = ["tpu", "triton", "mosaic_gpu", "cpu"];
const TPU_GENERATIONS: readonly TpuGeneration[] = ["v4", "v5e", "v5p", "v6e", "v7x"];

function stringList(value: unknown, fallback: string[]): string[] {
  if (typeof value === "string") {
    return value.trim() ? [value] : fallback;
  }
  if (!Array.isArray(value)) {
    return fallback;
  }
  return value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

/**
 * Expands `${workspaceFolder}`, `${userHome}` and `~` in paths, as ruff-vscode does.
 * `workspaceFolder` may be undefined (no folder open): the variable is left as is.
 */
export function expandPath(value: string, vars: { workspaceFolder?: string; userHome?: string }): string {
  let out = value;
  if (vars.userHome) {
    out = out.replace(/\$\{userHome\}/g, vars.userHome);
    if (out === "~" || out.startsWith("~/")) {
      out = vars.userHome + out.slice(1);
    }
  }
  if (vars.workspaceFolder) {
    out = out.replace(/\$\{workspaceFolder\}/g, vars.workspaceFolder);
  }
  return out;
}

/** Reads and validates `pallasLsp.*`; a wrong type falls back to the default. */
export function readSettings(
  get: SettingsGetter,
  vars: { workspaceFolder?: string; userHome?: string } = {},
): ExtensionSettings {
  const expand = (xs: string[]) => xs.map((x) => expandPath(x, vars));
  const strategy = get("importStrategy");
  const level = get("logLevel");
  const debounce = get("debounceMs");
  const jaxVersion = get("jaxVersion");
  const tpuGeneration = get("tpuGeneration");
  return {
    path: expand(stringList(get("path"), DEFAULTS.path)),
    interpreter: expand(stringList(get("interpreter"), DEFAULTS.interpreter)),
    importStrategy: strategy === "useBundled" || strategy === "fromEnvironment" ? strategy : DEFAULTS.importStrategy,
    select: stringList(get("select"), DEFAULTS.select),
    ignore: stringList(get("ignore"), DEFAULTS.ignore),
    records: expand(stringList(get("records"), DEFAULTS.records)),
    backends: stringList(get("backends"), DEFAULTS.backends).filter((b): b is Backend =>
      BACKENDS.includes(b as Backend),
    ),
    debounceMs:
      typeof debounce === "number" && Number.isFinite(debounce) && debounce >= 0
        ? Math.round(debounce)
        : DEFAULTS.debounceMs,
    codeLens: bool(get("codeLens.enable"), DEFAULTS.codeLens),
    fixActions: bool(get("codeAction.fixes.enable"), DEFAULTS.fixActions),
    unsafeFixes: bool(get("unsafeFixes"), DEFAULTS.unsafeFixes),
    ignoreCommentActions: bool(get("codeAction.ignoreComment.enable"), DEFAULTS.ignoreCommentActions),
    logLevel: LOG_LEVELS.includes(level as LogLevel) ? (level as LogLevel) : DEFAULTS.logLevel,
    jaxVersion: typeof jaxVersion === "string" && jaxVersion.trim() !== "" ? jaxVersion.trim() : DEFAULTS.jaxVersion,
    tpuGeneration: TPU_GENERATIONS.includes(tpuGeneration as TpuGeneration)
      ? (tpuGeneration as TpuGeneration)
      : DEFAULTS.tpuGeneration,
  };
}

/** The flat object sent to the server. */
export function toServerSettings(s: ExtensionSettings): ServerSettings {
  return {
    select: [...s.select],
    ignore: [...s.ignore],
    records: [...s.records],
    backends: [...s.backends],
    debounceMs: s.debounceMs,
    codeLens: s.codeLens,
    fixActions: s.fixActions,
    unsafeFixes: s.unsafeFixes,
    ignoreCommentActions: s.ignoreCommentActions,
    logLevel: s.logLevel,
    jaxVersion: s.jaxVersion,
    tpuGeneration: s.tpuGeneration,
  };
}

/** What a configuration change means for a running server. */
export type ChangeAction = "restart" | "notify" | "none";

/**
 * Decides what to do on `onDidChangeConfiguration`, given `affects(fullKey)`
 * (VS Code's `event.affectsConfiguration`).
 */
export function changeAction(affects: (fullKey: string) => boolean): ChangeAction {
  if (RESTART_KEYS.some((k) => affects(`${SECTION}.${k}`))) {
    return "restart";
  }
  if (SERVER_KEYS.some((k) => affects(`${SECTION}.${k}`))) {
    return "notify";
  }
  return "none";
}

/** Arguments for `pallas-lsp check` that reproduce the rule settings. */
export function checkArgs(s: ExtensionSettings, target: string): string[] {
  const args = ["check", "--output-format", "json"];
  if (s.select.length) {
    args.push("--select", s.select.join(","));
  }
  if (s.ignore.length) {
    args.push("--ignore", s.ignore.join(","));
  }
  for (const r of s.records) {
    args.push("--records", r);
  }
  if (s.backends.length) {
    args.push("--backends", s.backends.join(","));
  }
  if (s.jaxVersion !== null) {
    args.push("--jax-version", s.jaxVersion);
  }
  if (s.tpuGeneration !== null) {
    args.push("--tpu-generation", s.tpuGeneration);
  }
  args.push(target);
  return args;
}
