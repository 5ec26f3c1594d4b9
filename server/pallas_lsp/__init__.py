"""pallas-lsp: tells Pallas kernel authors, while they type, that a kernel will fail
in the context it is launched in, and how to fix it."""

# First of all, before anything else is imported: the directory the server or the CLI was
# started in (usually the workspace) must never be on the import path. `python -m pallas_lsp`
# puts it first on sys.path, and so does an empty or relative PYTHONPATH entry; a workspace's
# argparse.py, json.py or logging.py would then shadow the standard library and run. Only sys
# and os are used here: the interpreter has loaded both before any user code.
import os as _os
import sys as _sys


def _keep_workspace_off_import_path() -> None:
    try:
        cwd = _os.path.realpath(_os.getcwd())
    except OSError:  # the current directory was removed: relative entries are dropped below
        cwd = None

    def names_cwd(entry: object) -> bool:
        if not isinstance(entry, str):
            return False
        if not _os.path.isabs(entry):  # "", ".", "lib": relative to wherever we were started
            return True
        try:
            return cwd is not None and _os.path.realpath(entry) == cwd
        except (OSError, ValueError):
            return False

    _sys.path[:] = [entry for entry in _sys.path if not names_cwd(entry)]


_keep_workspace_off_import_path()

__version__ = "0.1.0"
