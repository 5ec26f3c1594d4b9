/** The interpreter selected in the Python extension (`ms-python.python`), when installed. */
import * as vscode from "vscode";

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
  resolveEnvironment(env: { id: string; path: string } | string): Promise<
    { executable: { uri?: vscode.Uri } } | undefined
  >;
  onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
}

const PYTHON_EXTENSION_ID = "ms-python.python";

async function api(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

export function pythonExtensionInstalled(): boolean {
  return vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
}

/** `[python]` for the selected environment, or undefined. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string[] | undefined> {
  const envs = (await api())?.environments;
  if (!envs) {
    return undefined;
  }
  try {
    const active = envs.getActiveEnvironmentPath(resource);
    const resolved = await envs.resolveEnvironment(active);
    const exe = resolved?.executable.uri?.fsPath;
    return exe ? [exe] : undefined;
  } catch {
    return undefined;
  }
}

/** Calls `handler` when the user selects another interpreter. */
export async function onDidChangeInterpreter(handler: () => void): Promise<vscode.Disposable | undefined> {
  const envs = (await api())?.environments;
  return envs?.onDidChangeActiveEnvironmentPath(() => handler());
}
