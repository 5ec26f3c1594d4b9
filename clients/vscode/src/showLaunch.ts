/**
 * The code lens's command, `pallas-lsp.showLaunch`: the server gives the launch's document, the
 * position to peek from and the context chain as LSP locations (the launch, the lines that decide
 * its mode, the callers it is reached through, the kernel definitions). VS Code peeks them with
 * `editor.action.showReferences`; this module checks the arguments.
 *
 * Pure: no `vscode` import, so it is unit tested with `node --test`.
 */

export const SHOW_LAUNCH_COMMAND = "pallas-lsp.showLaunch";

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspLocation {
  uri: string;
  range: { start: LspPosition; end: LspPosition };
}

export interface ShowLaunchArgs {
  uri: string;
  position: LspPosition;
  locations: LspLocation[];
}

function isPosition(value: unknown): value is LspPosition {
  const p = value as LspPosition;
  return (
    typeof p === "object" &&
    p !== null &&
    Number.isInteger(p.line) &&
    Number.isInteger(p.character) &&
    p.line >= 0 &&
    p.character >= 0
  );
}

function isLocation(value: unknown): value is LspLocation {
  const l = value as LspLocation;
  return (
    typeof l === "object" &&
    l !== null &&
    typeof l.uri === "string" &&
    typeof l.range === "object" &&
    l.range !== null &&
    isPosition(l.range.start) &&
    isPosition(l.range.end)
  );
}

/** The lens's arguments, or undefined when they are not what the server sends. Malformed
 *  locations are left out; the launch's own position is needed to peek from. */
export function parseShowLaunchArgs(args: unknown): ShowLaunchArgs | undefined {
  if (!Array.isArray(args) || args.length < 3) {
    return undefined;
  }
  const [uri, position, locations] = args;
  if (typeof uri !== "string" || !isPosition(position) || !Array.isArray(locations)) {
    return undefined;
  }
  const good = locations.filter(isLocation);
  if (good.length === 0) {
    return undefined;
  }
  return { uri, position, locations: good };
}
