/**
 * Parsing `pallas-lsp check --output-format json` for "Pallas LSP: Check Workspace".
 *
 * Pure: turns the CLI's 1-based findings into 0-based ranges grouped by file;
 * the extension makes `vscode.Diagnostic`s from them.
 */
import * as path from "node:path";

export interface CliFinding {
  path: string;
  line: number;
  column: number;
  end_line?: number;
  end_column?: number;
  code: string;
  record?: string;
  severity?: string;
  message: string;
  related?: { path: string; line: number; message: string }[];
}

export interface Range0 {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

export interface FileProblem {
  range: Range0;
  code: string;
  record?: string;
  severity: "error" | "warning" | "information" | "hint";
  message: string;
  related: { path: string; line: number; message: string }[];
}

function int(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : fallback;
}

function severity(s: unknown): FileProblem["severity"] {
  switch (String(s ?? "").toLowerCase()) {
    case "warning":
      return "warning";
    case "info":
    case "information":
      return "information";
    case "hint":
      return "hint";
    default:
      return "error";
  }
}

/**
 * Parses the CLI's stdout. Paths are made absolute against `cwd`.
 * Throws with a readable message when the output is not the expected JSON array.
 */
export function parseCheckOutput(stdout: string, cwd: string): Map<string, FileProblem[]> {
  const text = stdout.trim();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : [];
  } catch (e) {
    throw new Error(`pallas-lsp check did not print JSON: ${(e as Error).message}: ${text.slice(0, 200)}`);
  }
  if (!Array.isArray(data)) {
    throw new Error("pallas-lsp check printed JSON that is not an array");
  }
  const out = new Map<string, FileProblem[]>();
  for (const raw of data as CliFinding[]) {
    if (!raw || typeof raw.path !== "string" || typeof raw.message !== "string") {
      continue;
    }
    const file = path.resolve(cwd, raw.path);
    const line = Math.max(1, int(raw.line, 1));
    const col = Math.max(1, int(raw.column, 1));
    const endLine = Math.max(line, int(raw.end_line, line));
    let endCol = Math.max(1, int(raw.end_column, col));
    if (endLine === line && endCol < col) {
      endCol = col;
    }
    const problem: FileProblem = {
      range: { startLine: line - 1, startCharacter: col - 1, endLine: endLine - 1, endCharacter: endCol - 1 },
      code: String(raw.code ?? ""),
      record: raw.record,
      severity: severity(raw.severity),
      message: raw.message,
      related: (raw.related ?? [])
        .filter((r) => r && typeof r.path === "string")
        .map((r) => ({ path: path.resolve(cwd, r.path), line: Math.max(0, int(r.line, 1) - 1), message: String(r.message ?? "") })),
    };
    const list = out.get(file) ?? [];
    list.push(problem);
    out.set(file, list);
  }
  return out;
}
