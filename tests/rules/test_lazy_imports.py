"""libcst (a tenth of a second to import) is loaded only when a fix is built: ``check`` without
``--fix`` and a server that only publishes never pay for it."""
import subprocess
import sys


def test_loading_the_rules_and_analysing_does_not_import_libcst():
    code = ("import sys\n"
            "from pallas_lsp.rules import analyse\n"
            "analyse('import jax\\nx = 1\\n', 'x.py')\n"
            "print('libcst' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
